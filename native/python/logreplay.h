/* logreplay.h - the recovery log's replay at restart, in one pass over the log's batches
 *
 * Restart rebuilds each memory queue's persistent messages from its checkpoint and the
 * log tail (tpfemu/store/recovery.py states the rules). Done in Python, a message of the
 * tail cost a tuple to decode it and another pass to pack it for the core: about 4.5 us a
 * message, against 0.6 us for a message restored from a checkpoint's packed chunks. Here
 * the tail's units of work are tracked in C, over the log's batches as LMDB holds them
 * (no copy). Each queue's surviving messages come out as the descriptors of a packed
 * chunk (the format the core's tpf_mq_put_packed takes, native/include/tpf/queue.h) and
 * the address of each message's data in the log's map, for tpf_mq_put_packed_gather: the
 * data are copied once, from the map into the queue.
 *
 * The work is split by message key with the caller, which holds the checkpoint:
 *
 * - a message whose key is above its queue's `top` (the highest key its checkpoint
 *   holds) can only come from the tail. Its put, gets and backed-out gets are settled
 *   here, and it comes out in the queue's chunk, in key order, with its backout count;
 * - a record naming a key at or below `top` concerns a checkpoint message (a unit of work
 *   open across the checkpoint, or a tail replayed from before the snapshot). It comes
 *   out as an effect, in the order it takes effect, for the caller to apply to the
 *   checkpoint's messages: PUT (the record, by batch and offset: put it unless present),
 *   GET (remove the key if present), BACKOUT (a get at that backout count was backed
 *   out: raise the count to one more, unless already raised).
 *
 * A unit of work is named by (incarnation, number). Its puts and gets wait for its
 * Commit (puts first, then gets, as the Python replay did) or its Backout (puts dropped,
 * gets backed out); at the end of the log, the gets of those still open are backed out
 * (in the order the units began) and their puts dropped.
 */
#ifndef TPFEMU_LOGREPLAY_H
#define TPFEMU_LOGREPLAY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/**
 * Module-level log_replay(batches, tops, froms, floor) -> (tails, effects).
 *
 * batches: list of (first LSN, incarnation, records) in LSN order, records a buffer (the
 * batch after its 16-byte header; tpfemu/store/log_records.py has the layout). tops and
 * froms: per queue id, the highest checkpoint key and the replay point (None in tops for
 * an id that names no queue). A PUT record is applied when its LSN >= floor or >= its
 * queue's replay point, a GET record when its LSN >= its queue's replay point.
 *
 * tails: per queue id, None when no message of the tail survives, else (descriptors,
 * addresses): bytes of a packed chunk's count and descriptors (keys and backout counts as
 * replayed), and bytes of one native pointer per message, to its data inside a batch's
 * buffer (valid while the buffers are: for LMDB, until the read transaction ends).
 * effects: list of (kind, queue id, key, backout count, batch index, offset), kind 1 PUT,
 * 2 GET, 4 BACKOUT, as above; batch index and offset locate a PUT's record.
 *
 * Raises ValueError(lsn, detail) for a record that is not readable (unknown kind,
 * cut short, an unknown queue id) or batches out of LSN order, TypeError for arguments
 * of the wrong shape, MemoryError. The GIL is released while the log is read.
 */
PyObject *log_replay(PyObject *module, PyObject *args);

/** Module-level log_pack(descriptors, addresses) -> bytes: a tail of log_replay as one
 * packed chunk (descriptors, then the data copied from the addresses, which must still
 * be valid); ValueError when the sizes do not agree with the count. */
PyObject *log_pack(PyObject *module, PyObject *args);

#endif
