/* eventlog.h - the event journal's capture buffer, for tpfemu._fastpath
 *
 * The journal (tpfemu/journal/writer.py) records every queue-manager event. Events the
 * queue manager emits in Python reach it as a raw event-bus subscriber (EventLog.add,
 * a C method: no Python frame). The MQI's fast paths (fastpath.c, planpath.c) record
 * their put and get events here directly, in C, from the core's descriptor: a fixed
 * record (152 bytes) with the queue, program, Format, ReplyToQ and ReplyToQMgr as
 * indexes into a table of names and, at level payload only, the data copied into an
 * arena the log reuses. The payload hash: at level events, a put's data (a bytes object)
 * is held, not copied, and hashed by the writer (write_ipc, take), off the application's
 * thread; a get of a message whose put was recorded recently names the put's record and
 * takes its hash there; any other data is hashed as it is recorded. No Python object is made or kept
 * per event. Both kinds go into one buffer in the order they happen (every call holds
 * the GIL).
 *
 * The journal's writer thread hands the buffer to EventLog.write_ipc: it swaps in the
 * spare buffer under the GIL (the application records into it meanwhile) and writes the
 * cycle in order, runs of recorded events encoded as Arrow record batches in C
 * (tpf/journal.h) with the GIL released, runs of events emitted in Python through a
 * callback. EventLog.take hands everything over as Python objects instead (tests, and
 * dropping what a failed journal recorded).
 *
 * The running ECB is read from a thread-local slot that the ECB runtime keeps current
 * through its switch watcher (set_running_ecb), not by calling into Python.
 *
 * A record's layout is exported as EventLog.LAYOUT (name -> (offset, format)), so a
 * reader of take() reads it with numpy without a second definition. All functions need
 * the GIL.
 */
#ifndef TPFEMU_EVENTLOG_H
#define TPFEMU_EVENTLOG_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "tpf/journal.h"
#include "tpf/queue.h"

/** Record kinds: an event emitted in Python (its fields in a tuple), or a message event
 * recorded in C. */
enum { EVENTLOG_PY = TPF_JOURNAL_PY, EVENTLOG_PUT = TPF_JOURNAL_PUT,
       EVENTLOG_GET = TPF_JOURNAL_GET };

/** One recorded event (fixed part): the journal's record (tpf/journal.h). */
typedef tpf_journal_rec_t eventlog_rec_t;

extern PyTypeObject eventlog_type;

/** Ready the EventLog type (with its LAYOUT) and add it to `module`, with the module
 * functions payload_hashes(datas) (the payload hash of each bytes in a list, 8 bytes
 * each, zeros for None, without the GIL: here, not through cffi, because it reads the
 * bytes objects where they are), set_running_ecb(ecb) (the ECB now running on this thread, None: none, for
 * the ECB runtime's switch watcher) and trust_running_slots() (the watcher was installed
 * before any entry ran: the slots it keeps are exact from now on); -1 on error. */
int eventlog_ready(PyObject *module);

/** runningecb.c: the calling ECB's id into *ecb (-1 outside any entry) and its program (a
 * new reference, or NULL) into *program, from the switch watcher's slot once it is
 * trusted, else by calling `current`; -1 with an exception set. And its module
 * functions (set_running_ecb, trust_running_slots), added by eventlog_ready. */
int runningecb_calling(PyObject *current, int64_t *ecb, PyObject **program);
int runningecb_ready(PyObject *module);
/** payloadhash.c: the module function payload_hashes, added by eventlog_ready. */
int payloadhash_ready(PyObject *module);

/** segfile.c: the SegmentFile type (the journal's segment being written), added by
 * eventlog_ready. SEGFILE_SPILL: staged past this many bytes, whole blocks are written
 * at once. segfile_begin: its staging and fd, for a write with the GIL released between
 * segfile_busy(obj, 1) and segfile_busy(obj, 0); NULL with RuntimeError while another
 * write runs. */
#define SEGFILE_SPILL ((size_t)1 << 20)
extern PyTypeObject segfile_type;
int segfile_ready(PyObject *module);
tpf_journal_seg_t *segfile_begin(PyObject *obj, int *fd);
void segfile_busy(PyObject *obj, int busy);

/** 1 when `obj` is an EventLog. */
static inline int eventlog_check(PyObject *obj)
{
    return Py_TYPE(obj) == &eventlog_type;
}

/**
 * Record a put or get (`kind`) of the message described by `md`, whose data (without
 * its context record) is `data[0:length]` (copied), on the queue named `queue`, at
 * `time_us`, by unit of work `uow` (0: none; the call's, not md->uow, which a get
 * reports as the put's). `ctx` is its context record (`ctx_len` bytes; NULL or 0 for
 * none), whose MsgType, Format, ReplyToQ, ReplyToQMgr and GroupId the record keeps (a
 * record with the same bytes as the last one recorded is not read again). `data_obj`, when not NULL, is the bytes
 * object whose contents `data` is: at level events the log then holds it (a new
 * reference, until the writer has hashed it) instead of hashing a put's data on the
 * caller's thread. Reads
 * the calling ECB. Returns 0: the call it records has happened, so an event that cannot
 * be recorded (no memory, or the ECB lookup failed) is counted in EventLog.lost, and
 * the exception cleared, instead of failing that call.
 */
int eventlog_record(PyObject *log, int kind, PyObject *queue, const void *q,
                    const tpf_mq_msg_t *md, const char *ctx,
                    uint32_t ctx_len, PyObject *data_obj, const char *data,
                    Py_ssize_t length, int64_t time_us, uint64_t uow);

#endif
