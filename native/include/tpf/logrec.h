/* logrec.h - the recovery log's records on disk, and their replay at restart
 *
 * Layout (written by tpfemu/store/log_records.py, which checks its struct formats
 * against the constants below when it is imported): LMDB sub-database `log` maps an
 * 8-byte big-endian LSN to a batch: a TPF_LOG_BATCH_HEAD-byte header (magic "TPFL",
 * u32 incarnation, u32 record count, u32 reserved) and the records, little-endian. A
 * record is a TPF_LOG_REC-byte header (u8 kind at TPF_LOG_REC_KIND, u32 queue id,
 * u32 backout count, u64 unit of work, u64 message key, at the offsets below); a PUT
 * adds the core's packed descriptor (TPF_MQ_PACKED_DESC bytes, tpf/queue.h: its backout
 * count at TPF_LOG_DESC_BACKOUTS, its data length at TPF_LOG_DESC_LENGTH) and the data.
 *
 * Replay (tpfemu/store/recovery.py states the rules; docs/core.md, "The log tail"):
 * restart rebuilds each memory queue's persistent messages from its checkpoint and the
 * log tail. tpf_log_replay tracks the tail's units of work over the batches as LMDB holds
 * them (no copy). The work is split by message key with the caller, which holds the
 * checkpoint:
 *
 * - a message whose key is above its queue's `top` (the highest key its checkpoint
 *   holds) can only come from the tail: its put, gets and backed-out gets are settled
 *   here, and it comes out of tpf_log_replay_gather in its queue's packed descriptors
 *   (tpf_mq_put_packed_gather's format), in key order, with its backout count, beside
 *   the address of its data in the batch;
 * - a record naming a key at or below `top` concerns a checkpoint message. It comes out
 *   as an effect (tpf_log_replay_effects), in the order it takes effect: PUT (the record,
 *   by batch and offset: put it unless present), GET (remove the key if present),
 *   BACKOUT (a get at that backout count was backed out: raise the count to one more,
 *   unless already raised).
 *
 * A unit of work is named by (incarnation, number). Its puts and gets wait for its
 * Commit (puts first, then gets) or its Backout (puts dropped, gets backed out); at the
 * end of the log, the gets of those still open are backed out (in the order the units
 * began) and their puts dropped.
 *
 * Plain C: no Python; cffi calls it without the GIL.
 */
#ifndef TPF_LOGREC_H
#define TPF_LOGREC_H

#include <stddef.h>
#include <stdint.h>

#include "tpf/queue.h"

#define TPF_LOG_BATCH_HEAD 16     /**< bytes of a batch's header */
#define TPF_LOG_REC 32            /**< bytes of a record's header */
#define TPF_LOG_REC_KIND 0        /**< u8: TPF_LOG_PUT ... TPF_LOG_BACKOUT */
#define TPF_LOG_REC_QID 4         /**< u32: the queue id (PUT, GET) */
#define TPF_LOG_REC_BACKOUTS 8    /**< u32: the backout count at the get (GET) */
#define TPF_LOG_REC_UOW 16        /**< u64: the unit of work, 0: none */
#define TPF_LOG_REC_KEY 24        /**< u64: the message got (GET) */
#define TPF_LOG_DESC_MSGID 8      /**< 24 bytes in a PUT's descriptor: its MsgId */
#define TPF_LOG_DESC_CORRELID 32  /**< 24 bytes in a PUT's descriptor: its CorrelId */
#define TPF_LOG_DESC_PRIORITY 56  /**< u8 in a PUT's descriptor: its priority */
#define TPF_LOG_DESC_EXPIRY 60    /**< i64 in a PUT's descriptor: its expiry deadline */
#define TPF_LOG_DESC_PUT_TIME 68  /**< i64 in a PUT's descriptor: its put time */
#define TPF_LOG_DESC_CTX_LEN 76   /**< u32 in a PUT's descriptor: its context record's length */
#define TPF_LOG_DESC_BACKOUTS 80  /**< u32 in a PUT's descriptor: its backout count */
#define TPF_LOG_DESC_LENGTH 84    /**< u32 in a PUT's descriptor: its data length */
#define TPF_LOG_PUT_HEAD 120      /**< bytes of a PUT record before its data: TPF_LOG_REC +
                                       TPF_MQ_PACKED_DESC */

#define TPF_LOG_PUT 1
#define TPF_LOG_GET 2
#define TPF_LOG_COMMIT 3
#define TPF_LOG_BACKOUT 4

/** tpf_log_replay's results besides 0 (-1: out of memory). */
#define TPF_LOG_E_NOMEM -1
#define TPF_LOG_E_RECORD -2

/** One batch of the log: its records (after the header), its first LSN, its
 * incarnation. */
typedef struct {
    const unsigned char *buf;
    size_t len;
    uint64_t first;
    uint32_t incarnation;
} tpf_log_batch_t;

/** A record naming a checkpoint message: kind TPF_LOG_PUT, _GET or _BACKOUT; batch
 * and offset locate a PUT's record. */
typedef struct {
    uint64_t key;
    uint32_t kind, qid, backouts, batch, offset;
} tpf_log_effect_t;

/** A replay's results (opaque). */
typedef struct tpf_log_replay tpf_log_replay_t;

/**
 * Replay `nb` batches, in LSN order. top, from and known have one entry per queue id
 * (nq): the highest checkpoint key, the replay point, and 0 for an id that names no
 * queue. A PUT record is applied when its LSN >= floor or >= its queue's replay point, a
 * GET record when its LSN >= its queue's replay point.
 *
 * Returns 0, TPF_LOG_E_RECORD for a record that is not readable (unknown kind, cut
 * short, an unknown queue id) or batches out of LSN order (tpf_log_replay_error says
 * which), or TPF_LOG_E_NOMEM. *out is set to the results (or NULL when memory ran out
 * before any): free them with tpf_log_replay_free in every case. They point into the
 * batches' buffers, which must outlive them.
 */
int tpf_log_replay(const tpf_log_batch_t *batches, size_t nb, const uint64_t *top,
                   const uint64_t *from, const uint8_t *known, size_t nq, uint64_t floor,
                   tpf_log_replay_t **out);

/** After TPF_LOG_E_RECORD: what is wrong (static text), the record's LSN into *lsn and
 * its kind into *kind (-1 when the detail does not name one). */
const char *tpf_log_replay_error(const tpf_log_replay_t *r, uint64_t *lsn, int *kind);

/** How many messages of the tail survive for each queue id, into counts[nq]. */
void tpf_log_replay_counts(const tpf_log_replay_t *r, size_t *counts);

/**
 * Each queue's surviving messages: for each queue id q with a count, descs[q] receives a
 * packed chunk's u32 count and its descriptors (4 + TPF_MQ_PACKED_DESC * count bytes;
 * keys and backout counts as replayed), addrs[q] one pointer per message to its data in
 * a batch's buffer; entries of queues without messages are not touched. Returns 0, or
 * TPF_LOG_E_NOMEM (nothing written).
 */
int tpf_log_replay_gather(const tpf_log_replay_t *r, unsigned char *const *descs,
                           const void **const *addrs);

/** The effects, in order: *fx points to them (valid until tpf_log_replay_free). */
size_t tpf_log_replay_effects(const tpf_log_replay_t *r, const tpf_log_effect_t **fx);

void tpf_log_replay_free(tpf_log_replay_t *r);

/**
 * The size of the packed chunk that tpf_log_pack makes of a tail (descs, as
 * tpf_log_replay_gather wrote them, of `len` bytes), or 0 when len does not agree with
 * its count.
 */
size_t tpf_log_pack_size(const unsigned char *descs, size_t len);

/** A tail as one packed chunk: the descriptors, then each message's data copied from
 * addrs, into out (tpf_log_pack_size bytes). */
void tpf_log_pack(const unsigned char *descs, size_t len, const void *const *addrs,
                  unsigned char *out);

/* -- writing records ------------------------------------------------------------------ */

/** A record's header (TPF_LOG_REC bytes) into out: kind TPF_LOG_*, queue id, backout
 * count, unit of work, message key (0 where the kind has none). */
void tpf_log_record(unsigned char *out, int kind, uint32_t qid, uint32_t backouts, uint64_t uow,
                    uint64_t key);

/**
 * The PUT record of a message just put (its descriptor `md`, as the core's put left it:
 * MsgId, CorrelId, priority, expiry deadline, put time, context length, backout count),
 * of queue `qid`, in unit of work `uow` (0: none), into out: TPF_LOG_PUT_HEAD bytes, then
 * the message's context record (md->ctx_len bytes at ctx) and data (len bytes at data).
 * out has room for TPF_LOG_PUT_HEAD + md->ctx_len + len bytes. The message key (the
 * record's LSN) is not in it. Plain C, no state: the put plan builds the record this way
 * (native/python/fastpath.c) and tpfemu/store/log_records.py checks the layout.
 */
void tpf_log_put_record(unsigned char *out, uint32_t qid, uint64_t uow, const tpf_mq_msg_t *md,
                        const void *ctx, const void *data, uint32_t len);

/* -- the wait for durability (group commit) ------------------------------------------
 *
 * The recovery log (tpfemu/store/recovery_log.py) writes its records in batches
 * numbered 1, 2, 3... in order, each in one LMDB transaction and one sync. A committer
 * waits on its batch's number; the writer, once a batch is synced (or failed), finishes
 * it, which wakes its waiters. The wait and the wake-up are here, in C, so that cffi
 * calls them without the GIL: a writer wakes all the waiters of a batch with one call
 * that holds no Python lock, and the waiters sleep on a condition variable, not on one
 * Python lock each. What a batch's outcome was (durable or failed) stays in Python.
 */

/** A gate over batch numbers (opaque). */
typedef struct tpf_log_gate tpf_log_gate_t;

/** A new gate, no batch finished (NULL: out of memory). */
tpf_log_gate_t *tpf_log_gate_new(void);

void tpf_log_gate_free(tpf_log_gate_t *g);

/** Batches up to `seq` are finished: wake every thread waiting on one of them. Batches
 * finish in order; a `seq` at or below the last one finished changes nothing. */
void tpf_log_gate_finish(tpf_log_gate_t *g, uint64_t seq);

/** Wait until batch `seq` is finished, at most `timeout_ns` nanoseconds (< 0: no limit).
 * Returns 1 when it is, 0 when the time ran out first. */
int tpf_log_gate_wait(tpf_log_gate_t *g, uint64_t seq, int64_t timeout_ns);

/** The number of the last batch finished. */
uint64_t tpf_log_gate_finished(tpf_log_gate_t *g);

#endif
