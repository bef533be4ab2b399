/* queue.h - one in-memory MQ queue: priority lists, matched gets, cursors, units of work
 *
 * @mainpage tpfemu message core
 *
 * A queue holds messages in TPF_MQ_PRIORITIES (10) FIFO lists with an occupancy
 * bitmap. A get returns the first eligible message in delivery order: highest
 * priority first, first-in first-out within a priority. In FIFO delivery mode
 * (MSGDLVSQ FIFO) a message is *placed* as if its priority were the queue's default
 * priority, but keeps its own priority in its descriptor, as IBM MQ does.
 *
 * Each priority's messages are in a ring of pointers (ring.c); while a get takes one,
 * the core prefetches the message a few places behind it, so gets at depth rarely
 * wait for memory.
 *
 * Messages live in slots taken from per-size-class free-lists (slabs); a put of a
 * message of at most 64 KiB never calls malloc once its size class is warm, and a
 * freed slot is reused by the next put of that class. Larger messages are
 * allocated singly.
 *
 * Invariants (every function keeps them):
 * - Every message is in exactly one place: the ring of its placement priority, or
 *   the expired list (discarded, waiting to be taken for reporting).
 * - A message with a non-zero MsgId is in the MsgId index (a MsgId the core generated
 *   by its counter, in blocks of 64; a supplied one in a hash table); one with a
 *   non-zero CorrelId is in the CorrelId hash index. All-zero ids (MQMI_NONE/MQCI_NONE)
 *   are wildcards and are not indexed. So a get matched on MsgId looks at one block
 *   slot and one hash chain, on CorrelId at one hash chain, never at the queue.
 * - The depth counts every message on the queue: committed, put under a unit of
 *   work and not yet committed, got under a unit of work and not yet committed, and
 *   expired but not yet discarded (IBM counts all of these in CURDEPTH).
 * - A message is *eligible* for a get when it is committed, not got under a unit of
 *   work, and not locked by another cursor.
 *
 * Time: expiry deadlines and `now` are microseconds on one clock chosen by the
 * caller. Pass TPF_MQ_NOW as `now` to let the core read CLOCK_REALTIME (it does so
 * only when it meets a message that can expire).
 *
 * Threads: every function that takes a queue holds that queue's spinlock while it
 * works on the queue (tpf_mq_destroy() excepted: no other thread may use the queue
 * then). The lock is not a mutex: it is one atomic flag, taken with an atomic
 * exchange and dropped with a release store; a thread that finds it held spins (with
 * a pause hint) for a short while, then yields the processor (sched_yield) and tries
 * again. Waiters do not queue (no fairness) and do not sleep in the kernel, so it is
 * fit only for short holds: while holding it the core never sleeps, never does I/O and
 * calls out only to the allocator given to tpf_mq_get_alloc(), which must be quick and
 * must not call into the core. A cursor belongs to one queue and is used by one thread
 * at a time.
 *
 * Error convention: every fallible function returns MQRC_NONE (0) or a reason code
 * from mqdefs.h and writes its outputs only on success. The two documented
 * exceptions are the truncation warnings of a get (MQRC_TRUNCATED_MSG_FAILED and
 * MQRC_TRUNCATED_MSG_ACCEPTED), which fill the descriptor as IBM's MQGET does.
 */
#ifndef TPF_QUEUE_H
#define TPF_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "tpf/mqdefs.h"

#define TPF_MQ_ID_LEN 24             /**< bytes in a MsgId or CorrelId */
#define TPF_MQ_MSGID_PREFIX_LEN 16   /**< bytes of a generated MsgId taken from the queue */
#define TPF_MQ_NEVER INT64_MAX       /**< expiry deadline of a message that never expires */
#define TPF_MQ_NOW 0                 /**< `now` value asking the core to read the clock */
#define TPF_MQ_MAX_CTX 4096          /**< largest context record (tpf_mq_msg_t.ctx_len) */

/** @defgroup msgflags Flags in tpf_mq_msg_t.flags @{ */
#define TPF_MQ_F_EXPIRED_PENDING 0x0001 /**< output: the queue holds discarded expired
                                             messages not yet taken with
                                             tpf_mq_take_expired() */
#define TPF_MQ_GET_SKIP_CTX 0x1       /**< get_alloc: copy only the data after the record */
#define TPF_MQ_GET_NOT_PERSISTENT 0x2 /**< a destructive get takes a non-persistent message
                                           only: TPF_RC_PERSISTENT, and nothing done, when
                                           the message it would take is persistent (the
                                           caller's log must record that one) */
#define TPF_MQ_F_RESTORE 0x0100         /**< input to put: keep md->backout_count (a
                                             message restored at restart); without it a
                                             put starts the count at 0 */
/** @} */

typedef struct tpf_mq_queue tpf_mq_queue_t;
typedef struct tpf_mq_cursor tpf_mq_cursor_t;

/** The settings of a queue; all may be changed later with tpf_mq_configure(). */
typedef struct tpf_mq_config {
    uint32_t max_depth;        /**< MAXDEPTH: most messages on the queue; 0 = unlimited (TPF) */
    uint32_t max_msg_length;   /**< MAXMSGL: most bytes in one message */
    uint8_t fifo;              /**< 1 = MSGDLVSQ FIFO, 0 = MSGDLVSQ PRIORITY */
    uint8_t default_priority;  /**< DEFPRTY, 0..9: placement priority in FIFO mode */
    uint8_t msgid_prefix[TPF_MQ_MSGID_PREFIX_LEN]; /**< first 16 bytes of generated MsgIds */
} tpf_mq_config_t;

/** The descriptor of one message (104 bytes); input to put, output of get. */
typedef struct tpf_mq_msg {
    uint8_t msg_id[TPF_MQ_ID_LEN];    /**< all zero on put: the core generates one */
    uint8_t correl_id[TPF_MQ_ID_LEN]; /**< all zero = MQCI_NONE */
    int64_t expiry;          /**< absolute deadline in microseconds, or TPF_MQ_NEVER */
    int64_t put_time;        /**< microseconds; 0 on put: the core sets the current time */
    uint64_t seq;            /**< put sequence within the queue; set by put */
    uint64_t uow;            /**< unit of work of the put (0 = none); on get, as put */
    uint32_t length;         /**< bytes of message data (get: the full length) */
    uint32_t ctx_len;        /**< the first ctx_len bytes of the data are a context record
                                  of the layer above (the MQMD fields the core does not act
                                  on); opaque to the core; at most length and
                                  TPF_MQ_MAX_CTX */
    int32_t backout_count;   /**< times a get of this message was backed out */
    uint8_t priority;        /**< MD.Priority, 0..9, kept even in FIFO mode */
    uint8_t persistent;      /**< 0 or 1 */
    uint16_t flags;          /**< TPF_MQ_F_* outputs */
} tpf_mq_msg_t;

/** What a get asks for; IBM's MQGMO_* and MQMO_* bits, the ones the core acts on. */
typedef struct tpf_mq_getreq {
    uint32_t options;   /**< MQGMO_BROWSE_FIRST/NEXT, MQGMO_MSG_UNDER_CURSOR,
                             MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_LOCK, MQGMO_UNLOCK,
                             MQGMO_ACCEPT_TRUNCATED_MSG; no bit = destructive get */
    uint32_t match;     /**< MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID (all-zero id = any) */
    uint64_t uow;       /**< a destructive get under this unit of work (0 = none) */
    int64_t now;        /**< microseconds, or TPF_MQ_NOW */
    uint32_t cap_body;  /**< 1: `cap` limits the data after the context record (the MQI's
                             buffer length); buf must hold ctx_len + cap bytes */
    tpf_mq_cursor_t *cursor; /**< required by browse, under-cursor, LOCK and UNLOCK */
    uint8_t msg_id[TPF_MQ_ID_LEN];
    uint8_t correl_id[TPF_MQ_ID_LEN];
    uint32_t flags;     /**< TPF_MQ_GET_NOT_PERSISTENT (a destructive get) or 0 */
} tpf_mq_getreq_t;

/** Counters and sizes of a queue, for displays, triggering and leak tests. */
typedef struct tpf_mq_stats {
    uint64_t puts;              /**< messages put (committed or not) */
    uint64_t gets;              /**< destructive gets that returned a message */
    uint64_t browses;           /**< browse gets that returned a message */
    uint64_t expired;           /**< expired messages discarded by gets */
    uint64_t commits;           /**< tpf_mq_commit calls that found work */
    uint64_t backouts;          /**< tpf_mq_backout calls that found work */
    uint32_t depth;             /**< CURDEPTH, as defined in the file comment */
    uint32_t uncommitted_puts;  /**< put under a unit of work, not committed */
    uint32_t uncommitted_gets;  /**< got under a unit of work, not committed */
    uint32_t expired_pending;   /**< discarded, waiting for tpf_mq_take_expired() */
    uint32_t ghosts;            /**< removed messages still pinned by a cursor */
    uint32_t depth_by_priority[TPF_MQ_PRIORITIES]; /**< depth by MD.Priority */
    uint64_t slab_bytes;        /**< bytes held in slabs (kept until destroy) */
    uint64_t slots_free;        /**< slots on the free-lists, ready for reuse */
    uint64_t large_bytes;       /**< bytes of messages allocated singly (> 64 KiB) */
    uint32_t index_buckets;     /**< buckets in the MsgId hash index (supplied MsgIds;
                                     generated ones are indexed by their counter) */
} tpf_mq_stats_t;

/**
 * @brief Create an empty queue.
 * @param[in] cfg settings; copied.
 * @param[out] out the new queue, owned by the caller until tpf_mq_destroy().
 * @return MQRC_NONE, TPF_RC_INVALID_ARGUMENT (NULL, priority > 9, max_msg_length 0),
 *         MQRC_STORAGE_NOT_AVAILABLE.
 */
int tpf_mq_create(const tpf_mq_config_t *cfg, tpf_mq_queue_t **out);

/**
 * @brief Free a queue and every message in it. Cursors still open are detached
 * (their lock and position dropped); tpf_mq_cursor_destroy() then only frees them,
 * and no other call may use them. This function can't fail; NULL is ignored.
 */
void tpf_mq_destroy(tpf_mq_queue_t *q);

/**
 * @brief Change a queue's settings. Messages already on the queue keep their place
 * (IBM: changing MSGDLVSQ does not reorder); a lower MAXDEPTH refuses new puts only.
 * @return MQRC_NONE, TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_configure(tpf_mq_queue_t *q, const tpf_mq_config_t *cfg);

/**
 * @brief Put one message (MQPUT's core).
 * @param[in,out] md descriptor: priority, persistent, expiry, ids, uow are read;
 *        on success seq and put_time (the time stamped when it was 0) are written, and
 *        msg_id if it was all zero.
 * @param[in] data the message bytes, copied; may be NULL when length is 0.
 * @return MQRC_NONE, MQRC_PRIORITY_ERROR, MQRC_PERSISTENCE_ERROR, MQRC_EXPIRY_ERROR
 *         (deadline <= 0), MQRC_MSG_TOO_BIG_FOR_Q, MQRC_Q_FULL,
 *         MQRC_STORAGE_NOT_AVAILABLE, TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_put(tpf_mq_queue_t *q, tpf_mq_msg_t *md, const void *data, uint32_t length);

/**
 * @brief Put one non-persistent, never-expiring message with a generated MsgId and
 * no CorrelId: the fast path of tpf_mq_put() for simple producers and benchmarks.
 * @return as tpf_mq_put().
 */
int tpf_mq_put_simple(tpf_mq_queue_t *q, const void *data, uint32_t length, int priority,
                      uint64_t uow);

/**
 * @brief Get or browse one message (MQGET's core).
 *
 * Destructive (no browse bit): the first eligible message in delivery order that
 * matches req->match is removed (or, with req->uow, hidden until commit/backout).
 * Browse: BROWSE_FIRST restarts the cursor, BROWSE_NEXT moves it to the next
 * matching message after its position, BROWSE_MSG_UNDER_CURSOR re-reads it.
 * MSG_UNDER_CURSOR gets the message under the cursor destructively.
 * LOCK (with a browse) locks the browsed message to the cursor; UNLOCK alone
 * releases the cursor's lock.
 *
 * Lazy expiry: every expired message this get would otherwise have returned is
 * discarded first and moved to the expired list (seed 001). So a plain get discards
 * expired messages of higher priority and those of equal priority that arrived
 * before the first unexpired one. Discarding is never part of the unit of work.
 *
 * @param[out] md_out descriptor of the message (flags carry TPF_MQ_F_EXPIRED_PENDING).
 * @param[out] buf receives min(length, cap) bytes.
 * @return MQRC_NONE; MQRC_NO_MSG_AVAILABLE; MQRC_NO_MSG_UNDER_CURSOR;
 *         MQRC_TRUNCATED_MSG_FAILED (cap < length: md_out filled, buf untouched but
 *         for the context record with cap_body, message left in place); MQRC_TRUNCATED_MSG_ACCEPTED (with
 *         ACCEPT_TRUNCATED_MSG: md_out and cap bytes written, message removed);
 *         MQRC_NO_MSG_LOCKED; MQRC_OPTIONS_ERROR (conflicting bits, or a cursor option
 *         without a cursor); TPF_RC_PERSISTENT (req->flags); TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_get(tpf_mq_queue_t *q, const tpf_mq_getreq_t *req, tpf_mq_msg_t *md_out,
               void *buf, uint32_t cap);

/**
 * @brief MQGET's rule on its cursor options, the one statement of it: tpf_mq_get() and
 * every other queue storage (the processor-shared queue) check their options with it.
 * At most one MQGMO_BROWSE_* option; MQGMO_MSG_UNDER_CURSOR not with a browse option;
 * MQGMO_LOCK only with a browse option and not with MQGMO_UNLOCK; MQGMO_UNLOCK alone
 * among the cursor options; any cursor option only with a cursor (`has_cursor` nonzero).
 * Other bits are ignored. Pure: no queue, no lock.
 * @return MQRC_NONE, or MQRC_OPTIONS_ERROR if the options conflict.
 */
int tpf_mq_check_get_options(uint32_t options, int has_cursor);

/**
 * @brief Destructively get the first eligible message, unmatched: the fast path of
 * tpf_mq_get(). @return as tpf_mq_get().
 */
int tpf_mq_get_simple(tpf_mq_queue_t *q, uint64_t uow, tpf_mq_msg_t *md_out, void *buf,
                      uint32_t cap);

/**
 * Memory for the data of a message of `length` bytes, asked for by
 * tpf_mq_get_alloc() while the queue's spinlock is held (other threads spin or
 * yield meanwhile: be quick). Return NULL to refuse: the get then fails with
 * MQRC_STORAGE_NOT_AVAILABLE and the message stays. It must not call into the core.
 */
typedef void *(*tpf_mq_alloc_fn)(void *ctx, uint32_t length);

/**
 * @brief Destructively get the first eligible message, unmatched, into memory the
 * caller allocates once the length is known: no intermediate buffer, no truncation
 * (the zero-copy fast path, e.g. straight into a new Python bytes object).
 * @param flags TPF_MQ_GET_SKIP_CTX: only the data after the context record is copied
 *        (alloc is asked for length - ctx_len bytes); TPF_MQ_GET_NOT_PERSISTENT.
 * @param[out] md_out descriptor (may be NULL).
 * @return MQRC_NONE; MQRC_NO_MSG_AVAILABLE; MQRC_STORAGE_NOT_AVAILABLE (alloc
 *         refused); TPF_RC_PERSISTENT; TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_get_alloc(tpf_mq_queue_t *q, uint64_t uow, int flags, tpf_mq_alloc_fn alloc,
                     void *ctx, tpf_mq_msg_t *md_out);

/**
 * @brief Put n messages in one call, all or nothing (channels, recovery, replay).
 * @param[in] mds descriptors; with md_stride 0 the one descriptor at mds serves every
 *        message, otherwise message i uses *(mds + i*md_stride bytes). Lengths come
 *        from `lengths`, not from the descriptors. MsgIds are generated as by put;
 *        backout counts start at 0 but where a descriptor has TPF_MQ_F_RESTORE; the
 *        messages whose put_time is 0 all get the same time, read once during the call.
 * @param[in] data the n messages back to back.
 * @param[out] seq_first the put sequence of the first message (the others follow).
 * @return as tpf_mq_put(); on any error nothing was put.
 */
int tpf_mq_put_many(tpf_mq_queue_t *q, uint32_t n, const tpf_mq_msg_t *mds, size_t md_stride,
                    const uint32_t *lengths, const void *data, uint64_t *seq_first);

/**
 * @brief As tpf_mq_put_many(), with message i's data at datas[i] rather than back to
 * back (a batch of separate buffers, e.g. Python bytes objects, with no copy to join
 * them first). A message with data must have an address.
 */
int tpf_mq_put_many_gather(tpf_mq_queue_t *q, uint32_t n, const tpf_mq_msg_t *mds,
                           size_t md_stride, const uint32_t *lengths, const void *const *datas,
                           uint64_t *seq_first);

/**
 * A packed batch: messages as a checkpoint stores them, so that restart hands them to
 * the core without parsing them. Little-endian, unaligned: a u32 count n, then n
 * descriptors of TPF_MQ_PACKED_DESC bytes, then the n messages' data back to back.
 * A descriptor, by byte offset: 0 u64 tag (the caller's: the recovery log's message
 * key; not kept), 8 MsgId, 32 CorrelId, 56 u8 priority (then 3 bytes of zero),
 * 60 i64 expiry deadline, 68 i64 put time, 76 u32 ctx_len, 80 u32 backout count,
 * 84 u32 data length.
 */
#define TPF_MQ_PACKED_DESC 88

/**
 * @brief Put back the messages of a packed batch (restart), all or nothing: committed,
 * persistent, each with its own descriptor and backout count (TPF_MQ_F_RESTORE).
 * @param[out] seq_first put sequence of the first message (the others follow);
 *        n_out how many (0 for an empty batch); expiring_out 1 if any has an expiry
 *        deadline, else 0. Any of them may be NULL; written only on success.
 * @return as tpf_mq_put_many(); TPF_RC_INVALID_ARGUMENT when the batch's sizes do not
 *         add up to len. On any error nothing was put.
 */
int tpf_mq_put_packed(tpf_mq_queue_t *q, const void *batch, size_t len, uint64_t *seq_first,
                      uint32_t *n_out, uint32_t *expiring_out);

/**
 * @brief As tpf_mq_put_packed(), with the data apart from the descriptors: descs is a
 * packed batch without its data (a u32 count n, then n descriptors; len = 4 + 88 n) and
 * message i's data are the descriptor's length bytes at datas[i] (restart puts the
 * recovery log's messages back from the log's map, with no copy in between).
 * @return as tpf_mq_put_packed(); TPF_RC_INVALID_ARGUMENT when len is not 4 + 88 n or
 *         a message with data has no address. On any error nothing was put.
 */
int tpf_mq_put_packed_gather(tpf_mq_queue_t *q, const void *descs, size_t len,
                             const void *const *datas, uint64_t *seq_first, uint32_t *n_out,
                             uint32_t *expiring_out);

/**
 * @brief Destructively get up to max_n messages in delivery order into one buffer.
 * Stops before the first message that would not fit in what is left of buf.
 * @param[out] mds_out descriptors (may be NULL); lengths_out lengths; n_out count.
 * @return MQRC_NONE (n_out >= 1); MQRC_NO_MSG_AVAILABLE; MQRC_TRUNCATED_MSG_FAILED
 *         when not even the first message fits (lengths_out[0] = its length,
 *         *n_out = 0, nothing removed); TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_get_many(tpf_mq_queue_t *q, uint32_t max_n, uint64_t uow, int64_t now,
                    tpf_mq_msg_t *mds_out, uint32_t *lengths_out, void *buf, size_t cap,
                    uint32_t *n_out);

/**
 * @brief Make a unit of work's puts visible and its gets final on this queue.
 * @param[out] n_out messages affected (may be NULL). @return MQRC_NONE (also when the
 * unit of work did nothing here), TPF_RC_INVALID_ARGUMENT (uow 0).
 */
int tpf_mq_commit(tpf_mq_queue_t *q, uint64_t uow, uint32_t *n_out);

/**
 * @brief Undo a unit of work on this queue: its puts are deleted, its gets come back
 * in their original place with backout_count + 1.
 * @return as tpf_mq_commit().
 */
int tpf_mq_backout(tpf_mq_queue_t *q, uint64_t uow, uint32_t *n_out);

/**
 * @brief Take the oldest discarded expired message, for an expiration report.
 * @return MQRC_NONE; MQRC_NO_MSG_AVAILABLE (none pending); MQRC_TRUNCATED_MSG_FAILED
 *         (md_out filled, message kept).
 */
int tpf_mq_take_expired(tpf_mq_queue_t *q, tpf_mq_msg_t *md_out, void *buf, uint32_t cap);

/**
 * @brief Remove every committed message not held by a unit of work (CLEAR QL); locks
 * on them are released, cursors standing on them keep their position.
 * @param[out] n_out messages removed (may be NULL). This function can't fail on a
 * valid queue. @return MQRC_NONE, TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_purge(tpf_mq_queue_t *q, uint32_t *n_out);

/**
 * @brief Discard every expired message that is not held by a unit of work or a lock
 * (the periodic expiry scan, EXPRYINT); they go to the expired list as a get would
 * send them. O(depth).
 * @param[out] n_out messages discarded (may be NULL).
 * @return MQRC_NONE, TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_discard_expired(tpf_mq_queue_t *q, int64_t now, uint32_t *n_out);

/** @brief CURDEPTH. This function can't fail. */
uint32_t tpf_mq_depth(tpf_mq_queue_t *q);

/** @defgroup countflags Flags of tpf_mq_depth_at_least() @{ */
#define TPF_MQ_COUNT_NO_UNCOMMITTED_PUTS 1 /**< leave out puts not yet committed */
#define TPF_MQ_COUNT_NO_UNCOMMITTED_GETS 2 /**< leave out gets not yet committed */
/** @} */

/**
 * @brief Messages on the queue whose MD.Priority is >= priority, in O(1) (triggering
 * needs it). Flags leave out uncommitted puts (processor-shared queues count committed
 * messages only) and/or messages got in a unit of work not yet ended (seed 000, note 12b).
 * This function can't fail; priority outside 0..9 is clamped.
 */
uint32_t tpf_mq_depth_at_least(tpf_mq_queue_t *q, int priority, int flags);

/** @brief Copy the queue's counters into *out. This function can't fail. */
void tpf_mq_stats(tpf_mq_queue_t *q, tpf_mq_stats_t *out);

/**
 * @brief Create a browse cursor, positioned before the first message.
 * @param[out] out owned by the caller until tpf_mq_cursor_destroy().
 * @return MQRC_NONE, MQRC_STORAGE_NOT_AVAILABLE, TPF_RC_INVALID_ARGUMENT.
 */
int tpf_mq_cursor_create(tpf_mq_queue_t *q, tpf_mq_cursor_t **out);

/** @brief Release a cursor, its lock and its pin. This function can't fail. */
void tpf_mq_cursor_destroy(tpf_mq_cursor_t *c);

#endif /* TPF_QUEUE_H */
