/* queue.c - one in-memory MQ queue: put, get, browse, lazy expiry, units of work
 *
 * See tpf/queue.h for the contract. Delivery order is (placement priority
 * descending, put sequence ascending). Invisible messages (uncommitted puts,
 * uncommitted gets, ghosts) stay in their list in place, so a backed-out get comes
 * back exactly where it was; a scan skips them. A scan therefore costs
 * O(1 + invisible messages ahead of the first eligible one).
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/** Generated MsgIds end in a process-wide counter, so they are unique across queues. */
static _Atomic uint64_t msgid_counter = 1;

/* The queue lock: one atomic exchange to take it, a release store to drop it (half
 * the atomic operations of a mutex). Holders never block, so a waiter spins briefly,
 * then yields the processor to whichever thread holds it. */
static inline void qlock(tpf_mq_queue_t *q)
{
    while (atomic_exchange_explicit(&q->spin, 1, memory_order_acquire)) {
        for (int i = 0; i < 100 && atomic_load_explicit(&q->spin, memory_order_relaxed); i++) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        if (atomic_load_explicit(&q->spin, memory_order_relaxed))
            sched_yield();
    }
}

static inline void qunlock(tpf_mq_queue_t *q)
{
    atomic_store_explicit(&q->spin, 0, memory_order_release);
}

#define QLOCK(q) qlock(q)
#define QUNLOCK(q) qunlock(q)

/* The simple put and get are a chain of small steps, each with a rare slow case. The
 * steps on their path are forced inline (HOT) and the slow cases kept out of line
 * (COLD), so that the common case runs as one straight function without calls,
 * register spills or repeated checks. */
#define HOT __attribute__((always_inline)) inline
#define COLD __attribute__((noinline, cold))

static const uint32_t BROWSE_BITS =
    MQGMO_BROWSE_FIRST | MQGMO_BROWSE_NEXT | MQGMO_BROWSE_MSG_UNDER_CURSOR;
static const uint32_t CURSOR_BITS = MQGMO_BROWSE_FIRST | MQGMO_BROWSE_NEXT |
                                    MQGMO_BROWSE_MSG_UNDER_CURSOR | MQGMO_MSG_UNDER_CURSOR |
                                    MQGMO_LOCK | MQGMO_UNLOCK;

/* A put's time stamp is read before the put takes the queue lock, once per call (a
 * batch's messages share it): any moment of the call is a correct "now". Reading
 * CLOCK_REALTIME (rdtscp in the vDSO) waits until every earlier instruction has
 * finished, the cache misses still in flight included; read under the lock, after the
 * put's first steps, it cost a put+get pair at depth 1M ~10 ns more. (A cheaper stamp
 * from an unfenced rdtsc was considered and rejected: it may execute before a clock
 * read the caller made earlier, so put_time could come out below it.) */
static int64_t clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- settings and life cycle ------------------------------------------------------ */

static int valid_config(const tpf_mq_config_t *cfg)
{
    return cfg != NULL && cfg->default_priority < TPF_MQ_PRIORITIES && cfg->fifo <= 1 &&
           cfg->max_msg_length > 0;
}

int tpf_mq_create(const tpf_mq_config_t *cfg, tpf_mq_queue_t **out)
{
    if (out == NULL || !valid_config(cfg))
        return TPF_RC_INVALID_ARGUMENT;
    tpf_mq_queue_t *q = calloc(1, sizeof *q);
    if (q == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    atomic_init(&q->spin, 0);
    if (tpf_index_init(&q->mid, 0, 64) != MQRC_NONE) {
        free(q);
        return MQRC_STORAGE_NOT_AVAILABLE;
    }
    if (tpf_index_init(&q->cid, 1, 64) != MQRC_NONE) {
        tpf_index_destroy(&q->mid);
        free(q);
        return MQRC_STORAGE_NOT_AVAILABLE;
    }
    q->cfg = *cfg;
    q->next_seq = 1;
    *out = q;
    return MQRC_NONE;
}

void tpf_mq_destroy(tpf_mq_queue_t *q)
{
    if (q == NULL)
        return;
    /* Slab slots vanish with their chunks; only singly allocated nodes need a free. */
    for (int p = 0; p < TPF_MQ_PRIORITIES; p++) {
        tpf_ring_t *r = &q->ring[p];
        for (uint64_t pos = r->head; pos < r->tail; pos++) {
            tpf_node_t *n = r->slots[pos & r->mask];
            if (n != NULL && n->size_class == TPF_CLASS_LARGE)
                tpf_slab_free(&q->slab, n);
        }
        tpf_ring_destroy(r);
    }
    for (tpf_node_t *n = q->expired_head; n != NULL;) {
        tpf_node_t *next = n->next;
        if (n->size_class == TPF_CLASS_LARGE)
            tpf_slab_free(&q->slab, n);
        n = next;
    }
    tpf_slab_destroy(&q->slab);
    tpf_index_destroy(&q->mid);
    tpf_index_destroy(&q->cid);
    tpf_gen_destroy(&q->gen);
    free(q->uows);
    free(q);
}

int tpf_mq_configure(tpf_mq_queue_t *q, const tpf_mq_config_t *cfg)
{
    if (q == NULL || !valid_config(cfg))
        return TPF_RC_INVALID_ARGUMENT;
    QLOCK(q);
    q->cfg = *cfg;
    QUNLOCK(q);
    return MQRC_NONE;
}

/* ---- units of work ---------------------------------------------------------------- */

/** The record of `uow` on this queue; with create, made if missing (NULL: no memory). */
static tpf_uow_rec_t *uow_find(tpf_mq_queue_t *q, uint64_t uow, int create)
{
    for (uint32_t i = 0; i < q->nuows; i++)
        if (q->uows[i].id == uow)
            return &q->uows[i];
    if (!create)
        return NULL;
    if (q->nuows == q->cap_uows) {
        uint32_t cap = q->cap_uows ? q->cap_uows * 2u : 4u;
        tpf_uow_rec_t *u = realloc(q->uows, cap * sizeof *u);
        if (u == NULL)
            return NULL;
        q->uows = u;
        q->cap_uows = cap;
    }
    tpf_uow_rec_t *r = &q->uows[q->nuows++];
    r->id = uow;
    r->head = NULL;
    return r;
}

static void uow_forget(tpf_mq_queue_t *q, tpf_uow_rec_t *r)
{
    *r = q->uows[--q->nuows];
}

/* ---- lists, indexes, counters ------------------------------------------------------ */

static HOT void list_unlink(tpf_mq_queue_t *q, tpf_node_t *n)
{
    tpf_ring_t *r = &q->ring[n->eprio];
    tpf_ring_remove(r, n);
    if (r->live == 0)
        q->occupied &= ~(1u << n->eprio);
}

static HOT void list_append(tpf_mq_queue_t *q, tpf_node_t *n)
{
    tpf_ring_append(&q->ring[n->eprio], n);
    q->occupied |= 1u << n->eprio;
}

/** The ring the next put lands in. */
static inline tpf_ring_t *put_ring(tpf_mq_queue_t *q, int priority)
{
    return &q->ring[q->cfg.fifo ? q->cfg.default_priority : priority];
}

/** @defgroup putids A put's ids: which index each goes to @{ */
#define PUT_GEN 1 /**< a generated MsgId */
#define PUT_MID 2 /**< a supplied MsgId (hash index) */
#define PUT_CID 4 /**< a CorrelId (hash index) */
/** @} */

/** The PUT_* bits of a descriptor's ids (all-zero MsgId: one is generated). */
static inline int put_ids(const tpf_mq_msg_t *md)
{
    return (tpf_id_is_zero(md->msg_id) ? PUT_GEN : PUT_MID) |
           (tpf_id_is_zero(md->correl_id) ? 0 : PUT_CID);
}

/** Counter values a queue reserves at a time from the process-wide counter: generated
 * MsgIds stay unique across queues, and a put pays for an atomic once per block. */
#define MSGID_BLOCK TPF_GEN_BLOCK

/** The counter as the native word whose bytes are the big-endian counter. */
static inline uint64_t counter_word(uint64_t counter)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(counter);
#else
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[7 - i] = (uint8_t)(counter >> (8 * i));
    uint64_t w;
    memcpy(&w, b, sizeof w);
    return w;
#endif
}

static void gen_settle(tpf_mq_queue_t *q, tpf_gen_block_t *b);

/** Reserve the queue's next MSGID_BLOCK counter values; their block in the
 * generated-MsgId index becomes the current one (the caller reserved it). */
static COLD void msgid_reserve(tpf_mq_queue_t *q)
{
    q->ctr_next = atomic_fetch_add_explicit(&msgid_counter, MSGID_BLOCK, memory_order_relaxed);
    q->ctr_end = q->ctr_next + MSGID_BLOCK;
    tpf_gen_block_t *old = tpf_gen_begin(&q->gen, q->ctr_next);
    if (old != NULL && old->nlive <= TPF_GEN_SPARSE)
        gen_settle(q, old);
}

/** Give n a new MsgId, the queue's prefix + a counter value from the queue's reserved
 * block (8 bytes, big-endian), and index it in the generated-MsgId index (the caller
 * reserved room with index_reserve). A new reservation starts a new block there. */
static HOT void generate_msgid(tpf_mq_queue_t *q, tpf_node_t *n)
{
    if (q->ctr_next == q->ctr_end)
        msgid_reserve(q);
    uint64_t tail = counter_word(q->ctr_next);
    memcpy(n->md.msg_id, q->cfg.msgid_prefix, TPF_MQ_MSGID_PREFIX_LEN);
    memcpy(n->md.msg_id + TPF_MQ_MSGID_PREFIX_LEN, &tail, sizeof tail);
    tpf_gen_add(&q->gen, n, q->ctr_next++);
}

/** Place a filled node at the tail of its list, index and count it. `r` is its uow
 * record, `ids` its PUT_* bits. The caller reserved index room for it, so this function
 * can't fail. A generated MsgId is already in the generated-MsgId index. */
static HOT void link_new(tpf_mq_queue_t *q, tpf_node_t *n, tpf_uow_rec_t *r, int ids)
{
    n->eprio = q->cfg.fifo ? q->cfg.default_priority : n->md.priority;
    n->md.seq = q->next_seq++;
    n->md.flags = 0;
    n->pins = 0;
    n->lock_owner = NULL;
    n->uow_next = NULL;
    n->state = 0;
    list_append(q, n);
    if (ids & PUT_GEN) {
        n->state = N_IN_GEN;
    } else if (ids & PUT_MID) {
        n->mid_hash = tpf_index_hash(n->md.msg_id);
        tpf_index_add(&q->mid, n, n->mid_hash);
        n->state |= N_IN_MID;
    }
    if (ids & PUT_CID) {
        n->cid_hash = tpf_index_hash(n->md.correl_id);
        tpf_index_add(&q->cid, n, n->cid_hash);
        n->state |= N_IN_CID;
    }
    q->st.puts++;
    q->st.depth++;
    q->st.depth_by_priority[n->md.priority]++;
    if (r != NULL) {
        n->state |= N_UNCOMMITTED;
        q->uncommitted_by_priority[n->md.priority]++;
        q->st.uncommitted_puts++;
        n->uow_next = r->head;
        r->head = n;
    }
}

/** Free a block of the generated-MsgId index left with TPF_GEN_SPARSE messages or
 * fewer, its reservation used up. Its messages move to the hash index first (read from
 * their nodes): a few lingering messages must not keep a whole block. If the hash index
 * can't grow, they stay where they are, which is as correct, only bigger; a later
 * unindexing from the block tries again. */
static COLD void gen_settle(tpf_mq_queue_t *q, tpf_gen_block_t *b)
{
    if (b->nlive != 0) {
        if (tpf_index_reserve(&q->mid, b->nlive) != MQRC_NONE)
            return;
        /* The nodes and their hash slots are likely not in cache: load them all at once
         * (two waits for memory, not two per message). */
        for (uint64_t bits = b->live; bits != 0; bits &= bits - 1u)
            __builtin_prefetch(b->node[__builtin_ctzll(bits)]->md.msg_id, 1);
        for (uint64_t bits = b->live; bits != 0; bits &= bits - 1u) {
            tpf_node_t *n = b->node[__builtin_ctzll(bits)];
            n->mid_hash = tpf_index_hash(n->md.msg_id);
            tpf_index_prefetch(&q->mid, n->mid_hash);
        }
        for (uint64_t bits = b->live; bits != 0; bits &= bits - 1u) {
            tpf_node_t *n = b->node[__builtin_ctzll(bits)];
            n->state = (uint8_t)((n->state & ~N_IN_GEN) | N_IN_MID);
            tpf_index_add(&q->mid, n, n->mid_hash);
        }
        b->live = 0;
        b->nlive = 0;
    }
    tpf_gen_drop(&q->gen, b);
}

/** Take n out of the indexes it is in. */
static HOT void unindex(tpf_mq_queue_t *q, tpf_node_t *n)
{
    if (n->state & N_IN_GEN) {
        tpf_gen_block_t *b = tpf_gen_remove(&q->gen, n);
        if (b != NULL)
            gen_settle(q, b);
    } else if (n->state & N_IN_MID) {
        tpf_index_remove(&q->mid, n, n->mid_hash);
    }
    if (n->state & N_IN_CID)
        tpf_index_remove(&q->cid, n, n->cid_hash);
}

static HOT void unlock_node(tpf_node_t *n)
{
    if (n->lock_owner != NULL) {
        n->lock_owner->locked = NULL;
        n->lock_owner = NULL;
    }
}

/** Take n off the queue: uncount, unindex, unlock; free it, or keep it as a ghost
 * while a cursor is positioned on it. */
static HOT void remove_node_inline(tpf_mq_queue_t *q, tpf_node_t *n)
{
    q->st.depth--;
    q->st.depth_by_priority[n->md.priority]--;
    if (n->state & N_UNCOMMITTED) {
        q->uncommitted_by_priority[n->md.priority]--;
        q->st.uncommitted_puts--;
    }
    unindex(q, n);
    unlock_node(n);
    if (n->pins > 0) {
        n->state = N_GHOST;
        q->st.ghosts++;
        return;
    }
    list_unlink(q, n);
    tpf_slab_free(&q->slab, n);
}

static void remove_node(tpf_mq_queue_t *q, tpf_node_t *n)
{
    remove_node_inline(q, n);
}

static void expired_append(tpf_mq_queue_t *q, tpf_node_t *n)
{
    n->state = N_EXPIRED;
    n->next = NULL;
    if (q->expired_tail != NULL)
        q->expired_tail->next = n;
    else
        q->expired_head = n;
    q->expired_tail = n;
    q->st.expired_pending++;
}

/** Discard an expired, eligible message: off the queue and onto the expired list. */
static void discard_expired(tpf_mq_queue_t *q, tpf_node_t *n)
{
    q->st.expired++;
    if (n->pins == 0) {
        q->st.depth--;
        q->st.depth_by_priority[n->md.priority]--;
        unindex(q, n);
        unlock_node(n);
        list_unlink(q, n);
        expired_append(q, n);
        return;
    }
    /* A cursor stands on it: report a copy, leave the original as a ghost. */
    tpf_node_t *copy = tpf_slab_alloc(&q->slab, n->md.length);
    if (copy != NULL) {
        uint8_t cls = copy->size_class;
        memcpy(copy, n, sizeof *n + n->md.length);
        copy->size_class = cls;
        expired_append(q, copy);
    }
    remove_node(q, n);
}

/* ---- finding the message a get returns ---------------------------------------------- */

static inline int eligible(const tpf_node_t *n, const tpf_mq_cursor_t *c)
{
    return (n->state & N_HIDDEN) == 0 && (n->lock_owner == NULL || n->lock_owner == c);
}

static inline int expired(const tpf_node_t *n, int64_t *now)
{
    if (n->md.expiry == TPF_MQ_NEVER)
        return 0;
    if (*now == TPF_MQ_NOW)
        *now = clock_us();
    return *now >= n->md.expiry;
}

/** Does a come before b in delivery order? */
static inline int before(const tpf_node_t *a, const tpf_node_t *b)
{
    return a->eprio > b->eprio || (a->eprio == b->eprio && a->md.seq < b->md.seq);
}

/** First eligible unexpired node from n on along its ring; discards expired ones. */
static tpf_node_t *first_in_list(tpf_mq_queue_t *q, tpf_node_t *n, const tpf_mq_cursor_t *c,
                                 int64_t *now)
{
    while (n != NULL) {
        if (eligible(n, c) && !expired(n, now))
            return n;
        tpf_node_t *next = tpf_ring_next(&q->ring[n->eprio], n);
        if (eligible(n, c))
            discard_expired(q, n);
        n = next;
    }
    return NULL;
}

/** First eligible unexpired message strictly after `after` (NULL: from the start). */
static COLD tpf_node_t *scan(tpf_mq_queue_t *q, const tpf_node_t *after, const tpf_mq_cursor_t *c,
                        int64_t *now)
{
    uint32_t bits = q->occupied;
    if (after != NULL) {
        tpf_node_t *n = first_in_list(q, tpf_ring_next(&q->ring[after->eprio], after), c, now);
        if (n != NULL)
            return n;
        bits &= (1u << after->eprio) - 1u;
    }
    while (bits != 0) {
        int p = 31 - __builtin_clz(bits);
        bits &= ~(1u << p);
        tpf_node_t *n = first_in_list(q, tpf_ring_first(&q->ring[p]), c, now);
        if (n != NULL)
            return n;
    }
    return NULL;
}

/** What scan(q, NULL, NULL, now) returns: the first eligible unexpired message. Mostly
 * that is the first message of the highest occupied ring, when it is visible, unlocked
 * and never expires: checked here inline; scan() does the rest. */
static HOT tpf_node_t *plain_first(tpf_mq_queue_t *q, int64_t *now)
{
    uint32_t bits = q->occupied;
    if (bits == 0)
        return NULL;
    tpf_node_t *n = tpf_ring_first(&q->ring[31 - __builtin_clz(bits)]);
    if ((n->state & N_HIDDEN) == 0 && n->lock_owner == NULL && n->md.expiry == TPF_MQ_NEVER)
        return n;
    return scan(q, NULL, NULL, now);
}

typedef struct match {
    const uint8_t *msg_id;    /**< NULL: any */
    const uint8_t *correl_id; /**< NULL: any */
} match_t;

static match_t match_of(const tpf_mq_getreq_t *r)
{
    match_t m = {NULL, NULL};
    if ((r->match & MQMO_MATCH_MSG_ID) && !tpf_id_is_zero(r->msg_id))
        m.msg_id = r->msg_id;
    if ((r->match & MQMO_MATCH_CORREL_ID) && !tpf_id_is_zero(r->correl_id))
        m.correl_id = r->correl_id;
    return m;
}

/** best, or n if n matches, is eligible, comes after `after` and before best. */
static inline tpf_node_t *better(match_t m, const tpf_node_t *after, const tpf_mq_cursor_t *c,
                                 tpf_node_t *n, tpf_node_t *best)
{
    if (m.msg_id != NULL && memcmp(n->md.msg_id, m.msg_id, TPF_MQ_ID_LEN) != 0)
        return best;
    if (m.correl_id != NULL && memcmp(n->md.correl_id, m.correl_id, TPF_MQ_ID_LEN) != 0)
        return best;
    if (!eligible(n, c) || (after != NULL && !before(after, n)))
        return best;
    return best == NULL || before(n, best) ? n : best;
}

/** First matching eligible unexpired message after `after`. Matched on MsgId: the one
 * message with that generated MsgId, if any, and the hash chain of that id (supplied
 * MsgIds, possibly equal to a generated one); on CorrelId alone: its hash chain. */
static tpf_node_t *find_matched(tpf_mq_queue_t *q, match_t m, const tpf_node_t *after,
                                const tpf_mq_cursor_t *c, int64_t *now)
{
    const tpf_index_t *ix = m.msg_id != NULL ? &q->mid : &q->cid;
    const uint8_t *key = m.msg_id != NULL ? m.msg_id : m.correl_id;
    for (;;) {
        tpf_node_t *best = NULL;
        if (m.msg_id != NULL) {
            tpf_node_t *n = tpf_gen_find(&q->gen, m.msg_id);
            if (n != NULL)
                best = better(m, after, c, n, best);
        }
        for (tpf_node_t *n = tpf_index_find(ix, key); n != NULL; n = tpf_index_next(ix, n))
            best = better(m, after, c, n, best);
        if (best == NULL || !expired(best, now))
            return best;
        discard_expired(q, best);
    }
}

/* ---- cursors ---------------------------------------------------------------------- */

static void cursor_unpin(tpf_mq_queue_t *q, tpf_mq_cursor_t *c)
{
    tpf_node_t *n = c->node;
    if (n == NULL)
        return;
    c->node = NULL;
    if (--n->pins == 0 && (n->state & N_GHOST)) {
        q->st.ghosts--;
        list_unlink(q, n);
        tpf_slab_free(&q->slab, n);
    }
}

static void cursor_move(tpf_mq_queue_t *q, tpf_mq_cursor_t *c, tpf_node_t *n)
{
    if (c->node == n)
        return;
    n->pins++;
    cursor_unpin(q, c);
    c->node = n;
}

int tpf_mq_cursor_create(tpf_mq_queue_t *q, tpf_mq_cursor_t **out)
{
    if (q == NULL || out == NULL)
        return TPF_RC_INVALID_ARGUMENT;
    tpf_mq_cursor_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    c->q = q;
    QLOCK(q);
    c->next_cursor = q->cursors;
    q->cursors = c;
    QUNLOCK(q);
    *out = c;
    return MQRC_NONE;
}

void tpf_mq_cursor_destroy(tpf_mq_cursor_t *c)
{
    if (c == NULL)
        return;
    tpf_mq_queue_t *q = c->q;
    QLOCK(q);
    if (c->locked != NULL)
        unlock_node(c->locked);
    cursor_unpin(q, c);
    for (tpf_mq_cursor_t **pp = &q->cursors; *pp != NULL; pp = &(*pp)->next_cursor) {
        if (*pp == c) {
            *pp = c->next_cursor;
            break;
        }
    }
    QUNLOCK(q);
    free(c);
}

/* ---- put ---------------------------------------------------------------------------- */

static int check_message(const tpf_mq_queue_t *q, const tpf_mq_msg_t *md, uint32_t length)
{
    if (md->ctx_len > length || md->ctx_len > TPF_MQ_MAX_CTX)
        return TPF_RC_INVALID_ARGUMENT;
    if (md->priority >= TPF_MQ_PRIORITIES)
        return MQRC_PRIORITY_ERROR;
    if (md->persistent > 1)
        return MQRC_PERSISTENCE_ERROR;
    if (md->expiry <= 0)
        return MQRC_EXPIRY_ERROR;
    if (length > q->cfg.max_msg_length)
        return MQRC_MSG_TOO_BIG_FOR_Q;
    return MQRC_NONE;
}

/** Index room for `n` puts, `gen` of them with generated MsgIds, the others with
 * supplied MsgIds, all with CorrelIds. Starting a block of the generated-MsgId index
 * may settle the block before it, which moves up to TPF_GEN_SPARSE messages into the
 * MsgId hash index: room for those is reserved too, so that nothing fails later. */
static COLD int index_reserve(tpf_mq_queue_t *q, uint32_t n, uint32_t gen, uint32_t cids)
{
    uint64_t mid = n - gen, left = q->ctr_end - q->ctr_next;
    if (gen > left) {
        uint32_t blocks = (uint32_t)((gen - left + MSGID_BLOCK - 1u) / MSGID_BLOCK);
        if (tpf_gen_reserve(&q->gen, blocks) != MQRC_NONE)
            return MQRC_STORAGE_NOT_AVAILABLE;
        mid += (uint64_t)blocks * TPF_GEN_SPARSE;
    }
    if (mid > UINT32_MAX || tpf_index_reserve(&q->mid, (uint32_t)mid) != MQRC_NONE ||
        tpf_index_reserve(&q->cid, cids) != MQRC_NONE)
        return MQRC_STORAGE_NOT_AVAILABLE;
    return MQRC_NONE;
}

/** The first half of a put, with q locked and the message checked: room in the
 * indexes (`ids`: PUT_* bits) and the ring, the unit-of-work record (*r), and a slot.
 * Returns the slot for the caller to fill n->md in, or NULL with *rc set. */
static HOT tpf_node_t *put_begin(tpf_mq_queue_t *q, int priority, uint64_t uow,
                                 uint32_t length, int ids, tpf_uow_rec_t **r, int *rc)
{
    *r = NULL;
    if (q->cfg.max_depth != 0 && q->st.depth >= q->cfg.max_depth) {
        *rc = MQRC_Q_FULL;
        return NULL;
    }
    *rc = MQRC_STORAGE_NOT_AVAILABLE;
    if (((ids & (PUT_MID | PUT_CID)) || q->ctr_next == q->ctr_end) &&
        index_reserve(q, 1, (ids & PUT_GEN) != 0, (ids & PUT_CID) != 0) != MQRC_NONE)
        return NULL;
    if (tpf_ring_reserve(put_ring(q, priority), 1) != MQRC_NONE)
        return NULL;
    if (uow != 0 && (*r = uow_find(q, uow, 1)) == NULL)
        return NULL;
    tpf_node_t *n = tpf_slab_alloc(&q->slab, length);
    if (n == NULL && *r != NULL && (*r)->head == NULL)
        uow_forget(q, *r);
    return n;
}

/** The second half: stamp, name, copy and link the node whose md the caller filled
 * (put_time 0: `now`, the caller's clock_us(); PUT_GEN in ids, put_ids(&n->md):
 * generate a MsgId). */
static HOT void put_finish(tpf_mq_queue_t *q, tpf_node_t *n, tpf_uow_rec_t *r,
                           const void *data, uint32_t length, int ids, int64_t now)
{
    if (n->md.put_time == 0)
        n->md.put_time = now;
    if (ids & PUT_GEN)
        generate_msgid(q, n);
    if (length != 0)
        memcpy(n->data, data, length);
    link_new(q, n, r, ids);
}

/** The put itself, with q locked and md checked; `now` stamps it if md->put_time is 0.
 * On success md->seq, md->put_time (the stamp) and a generated msg_id are written back. */
static int put_locked(tpf_mq_queue_t *q, tpf_mq_msg_t *md, const void *data, uint32_t length,
                      int64_t now)
{
    tpf_uow_rec_t *r;
    int rc;
    int ids = put_ids(md);
    tpf_node_t *n = put_begin(q, md->priority, md->uow, length, ids, &r, &rc);
    if (n == NULL)
        return rc;
    n->md = *md;
    n->md.length = length;
    if (!(md->flags & TPF_MQ_F_RESTORE) || n->md.backout_count < 0)
        n->md.backout_count = 0;
    n->md.flags = 0;
    put_finish(q, n, r, data, length, ids, now);
    memcpy(md->msg_id, n->md.msg_id, TPF_MQ_ID_LEN);
    md->seq = n->md.seq;
    md->put_time = n->md.put_time;
    return MQRC_NONE;
}

int tpf_mq_put(tpf_mq_queue_t *q, tpf_mq_msg_t *md, const void *data, uint32_t length)
{
    if (q == NULL || md == NULL || (data == NULL && length != 0))
        return TPF_RC_INVALID_ARGUMENT;
    int rc = check_message(q, md, length);
    if (rc != MQRC_NONE)
        return rc;
    int64_t now = md->put_time == 0 ? clock_us() : 0;
    QLOCK(q);
    rc = put_locked(q, md, data, length, now);
    QUNLOCK(q);
    return rc;
}

int tpf_mq_put_simple(tpf_mq_queue_t *q, const void *data, uint32_t length, int priority,
                      uint64_t uow)
{
    if (q == NULL || (data == NULL && length != 0))
        return TPF_RC_INVALID_ARGUMENT;
    if (priority < 0 || priority >= TPF_MQ_PRIORITIES)
        return MQRC_PRIORITY_ERROR;
    if (length > q->cfg.max_msg_length)
        return MQRC_MSG_TOO_BIG_FOR_Q;
    /* The descriptor is written straight into the slot: building it on the stack and
     * copying it made the copy's wide loads wait on the narrow stores (store forwarding). */
    tpf_uow_rec_t *r;
    int rc;
    int64_t now = clock_us();
    QLOCK(q);
    tpf_node_t *n = put_begin(q, priority, uow, length, PUT_GEN, &r, &rc);
    if (n != NULL) { /* (put_finish writes the whole MsgId) */
        memset(n->md.correl_id, 0, sizeof n->md.correl_id);
        n->md.expiry = TPF_MQ_NEVER;
        n->md.put_time = 0;
        n->md.uow = uow;
        n->md.length = length;
        n->md.ctx_len = 0;
        n->md.backout_count = 0;
        n->md.priority = (uint8_t)priority;
        n->md.persistent = 0;
        n->md.flags = 0;
        put_finish(q, n, r, data, length, PUT_GEN, now);
        rc = MQRC_NONE;
    }
    QUNLOCK(q);
    return rc;
}

/* put_many with the data back to back at data, or message i's at datas[i] (not both). */
static int put_many_from(tpf_mq_queue_t *q, uint32_t n, const tpf_mq_msg_t *mds,
                         size_t md_stride, const uint32_t *lengths, const void *data,
                         const void *const *datas, uint64_t *seq_first)
{
    if (q == NULL || mds == NULL || lengths == NULL || n == 0)
        return TPF_RC_INVALID_ARGUMENT;
#define MD_AT(i) ((const tpf_mq_msg_t *)((const char *)mds + (size_t)(i) * md_stride))
    uint64_t total = 0;
    int stamp = 0;
    for (uint32_t i = 0; i < n; i++) {
        int rc = check_message(q, MD_AT(i), lengths[i]);
        if (rc != MQRC_NONE)
            return rc;
        total += lengths[i];
        stamp |= MD_AT(i)->put_time == 0;
    }
    if (data == NULL && datas == NULL && total != 0)
        return TPF_RC_INVALID_ARGUMENT;
    int rc = MQRC_NONE;
    int64_t now = stamp ? clock_us() : 0; /* one stamp for the batch */
    QLOCK(q);
    if (q->cfg.max_depth != 0 && (uint64_t)q->st.depth + n > q->cfg.max_depth) {
        rc = MQRC_Q_FULL;
        goto out;
    }
    /* Make index room, records and slots first, so that a failure changes nothing. */
    {
        uint32_t gen = 0, cids = 0;
        for (uint32_t i = 0; i < n; i++) {
            gen += tpf_id_is_zero(MD_AT(i)->msg_id);
            cids += !tpf_id_is_zero(MD_AT(i)->correl_id);
        }
        if (index_reserve(q, n, gen, cids) != MQRC_NONE) {
            rc = MQRC_STORAGE_NOT_AVAILABLE;
            goto out;
        }
    }
    {
        uint32_t per_ring[TPF_MQ_PRIORITIES] = {0};
        for (uint32_t i = 0; i < n; i++)
            per_ring[put_ring(q, MD_AT(i)->priority) - q->ring]++;
        for (int p = 0; p < TPF_MQ_PRIORITIES; p++) {
            if (per_ring[p] != 0 && tpf_ring_reserve(&q->ring[p], per_ring[p]) != MQRC_NONE) {
                rc = MQRC_STORAGE_NOT_AVAILABLE;
                goto out;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (MD_AT(i)->uow != 0 && uow_find(q, MD_AT(i)->uow, 1) == NULL) {
            rc = MQRC_STORAGE_NOT_AVAILABLE;
            goto out;
        }
        if (md_stride == 0)
            break;
    }
    tpf_node_t *first = NULL, *last = NULL;
    for (uint32_t i = 0; i < n; i++) {
        tpf_node_t *node = tpf_slab_alloc(&q->slab, lengths[i]);
        if (node == NULL) {
            while (first != NULL) {
                tpf_node_t *next = first->next;
                tpf_slab_free(&q->slab, first);
                first = next;
            }
            rc = MQRC_STORAGE_NOT_AVAILABLE;
            goto out;
        }
        node->md.length = lengths[i]; /* tpf_slab_free of a large node reads it */
        node->next = NULL;
        if (last != NULL)
            last->next = node;
        else
            first = node;
        last = node;
    }
    const unsigned char *src = data;
    uint64_t seq0 = q->next_seq;
    for (uint32_t i = 0; first != NULL; i++) {
        tpf_node_t *node = first;
        first = first->next;
        node->md = *MD_AT(i);
        node->md.length = lengths[i];
        if (!(node->md.flags & TPF_MQ_F_RESTORE) || node->md.backout_count < 0)
            node->md.backout_count = 0;
        node->md.flags = 0;
        if (node->md.put_time == 0)
            node->md.put_time = now;
        int ids = put_ids(&node->md);
        if (ids & PUT_GEN)
            generate_msgid(q, node);
        if (lengths[i] != 0)
            memcpy(node->data, datas != NULL ? datas[i] : src, lengths[i]);
        src += lengths[i];
        link_new(q, node, node->md.uow != 0 ? uow_find(q, node->md.uow, 0) : NULL, ids);
    }
    if (seq_first != NULL)
        *seq_first = seq0;
out:
    QUNLOCK(q);
    return rc;
#undef MD_AT
}

int tpf_mq_put_many(tpf_mq_queue_t *q, uint32_t n, const tpf_mq_msg_t *mds, size_t md_stride,
                    const uint32_t *lengths, const void *data, uint64_t *seq_first)
{
    return put_many_from(q, n, mds, md_stride, lengths, data, NULL, seq_first);
}

int tpf_mq_put_many_gather(tpf_mq_queue_t *q, uint32_t n, const tpf_mq_msg_t *mds,
                           size_t md_stride, const uint32_t *lengths, const void *const *datas,
                           uint64_t *seq_first)
{
    if (datas == NULL)
        return TPF_RC_INVALID_ARGUMENT;
    for (uint32_t i = 0; lengths != NULL && i < n; i++)
        if (lengths[i] != 0 && datas[i] == NULL)
            return TPF_RC_INVALID_ARGUMENT;
    return put_many_from(q, n, mds, md_stride, lengths, NULL, datas, seq_first);
}

static uint32_t load_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t load_u64le(const unsigned char *p)
{
    return (uint64_t)load_u32le(p) | (uint64_t)load_u32le(p + 4) << 32;
}

/* Put n packed descriptors (restored, persistent) with their data at data (back to back)
 * or datas[i]; the descriptors' lengths are the caller's to have checked. */
static int put_packed_from(tpf_mq_queue_t *q, uint32_t n, const unsigned char *desc,
                           const void *data, const void *const *datas, uint64_t *seq_first,
                           uint32_t *n_out, uint32_t *expiring_out)
{
    if (n == 0) {
        if (seq_first != NULL) {
            QLOCK(q); /* next_seq moves under the lock */
            *seq_first = q->next_seq;
            QUNLOCK(q);
        }
        if (n_out != NULL)
            *n_out = 0;
        if (expiring_out != NULL)
            *expiring_out = 0;
        return MQRC_NONE;
    }
    /* The descriptors and lengths as put_many takes them, in one block. */
    tpf_mq_msg_t *mds = malloc((size_t)n * (sizeof *mds + sizeof(uint32_t)));
    if (mds == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    uint32_t *lengths = (uint32_t *)(mds + n);
    uint32_t expiring = 0;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *d = desc + (size_t)i * TPF_MQ_PACKED_DESC;
        tpf_mq_msg_t *md = &mds[i];
        memcpy(md->msg_id, d + 8, TPF_MQ_ID_LEN);
        memcpy(md->correl_id, d + 32, TPF_MQ_ID_LEN);
        md->priority = d[56];
        md->expiry = (int64_t)load_u64le(d + 60);
        md->put_time = (int64_t)load_u64le(d + 68);
        md->ctx_len = load_u32le(d + 76);
        md->backout_count = (int32_t)load_u32le(d + 80);
        md->length = lengths[i] = load_u32le(d + 84);
        md->seq = md->uow = 0;
        md->persistent = 1;
        md->flags = TPF_MQ_F_RESTORE;
        expiring |= md->expiry != TPF_MQ_NEVER;
    }
    int rc = put_many_from(q, n, mds, sizeof *mds, lengths, data, datas, seq_first);
    free(mds);
    if (rc == MQRC_NONE) {
        if (n_out != NULL)
            *n_out = n;
        if (expiring_out != NULL)
            *expiring_out = expiring;
    }
    return rc;
}

int tpf_mq_put_packed(tpf_mq_queue_t *q, const void *batch, size_t len, uint64_t *seq_first,
                      uint32_t *n_out, uint32_t *expiring_out)
{
    if (q == NULL || batch == NULL || len < 4)
        return TPF_RC_INVALID_ARGUMENT;
    const unsigned char *b = batch;
    uint32_t n = load_u32le(b);
    if ((uint64_t)n * TPF_MQ_PACKED_DESC > len - 4)
        return TPF_RC_INVALID_ARGUMENT;
    const unsigned char *desc = b + 4;
    size_t data_len = len - 4 - (size_t)n * TPF_MQ_PACKED_DESC;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += load_u32le(desc + (size_t)i * TPF_MQ_PACKED_DESC + 84);
    if (total != data_len)
        return TPF_RC_INVALID_ARGUMENT;
    return put_packed_from(q, n, desc, desc + (size_t)n * TPF_MQ_PACKED_DESC, NULL, seq_first,
                           n_out, expiring_out);
}

int tpf_mq_put_packed_gather(tpf_mq_queue_t *q, const void *descs, size_t len,
                             const void *const *datas, uint64_t *seq_first, uint32_t *n_out,
                             uint32_t *expiring_out)
{
    if (q == NULL || descs == NULL || len < 4)
        return TPF_RC_INVALID_ARGUMENT;
    const unsigned char *b = descs;
    uint32_t n = load_u32le(b);
    if ((uint64_t)n * TPF_MQ_PACKED_DESC != len - 4 || (n != 0 && datas == NULL))
        return TPF_RC_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < n; i++)
        if (datas[i] == NULL && load_u32le(b + 4 + (size_t)i * TPF_MQ_PACKED_DESC + 84) != 0)
            return TPF_RC_INVALID_ARGUMENT;
    return put_packed_from(q, n, b + 4, NULL, datas, seq_first, n_out, expiring_out);
}

/* ---- get ---------------------------------------------------------------------------- */

static uint16_t out_flags(const tpf_mq_queue_t *q)
{
    return q->expired_head != NULL ? TPF_MQ_F_EXPIRED_PENDING : 0;
}

#define LOOKAHEAD 8 /**< messages the prefetch runs ahead of the one being got */

static inline void prefetch_node(const tpf_node_t *n)
{
    const char *p = (const char *)n;
    __builtin_prefetch(p, 1);
    __builtin_prefetch(p + 64, 1);
    __builtin_prefetch(p + 128, 0);
}

/**
 * Gets at depth take messages put long ago and no longer in cache. While getting n,
 * start loading the message LOOKAHEAD places after it in its ring, and what unindexing
 * the one LOOKAHEAD/2 places after it (loaded by an earlier get) will write: its
 * block's header in the generated-MsgId index, or its MsgId hash slot. The ring itself
 * is read sequentially.
 *
 * Always inlined: as a separate function GCC finds it pure (prefetches are not side
 * effects), and deletes the call because it returns nothing.
 */
static HOT void prefetch_ahead(tpf_mq_queue_t *q, const tpf_node_t *n)
{
    /* (n is in the ring: positions after it are past the head; only the tail bounds) */
    const tpf_ring_t *r = &q->ring[n->eprio];
    uint64_t pf = n->pos + LOOKAHEAD, pn = n->pos + LOOKAHEAD / 2;
    const tpf_node_t *far = pf < r->tail ? r->slots[pf & r->mask] : NULL;
    if (far != NULL)
        prefetch_node(far);
    const tpf_node_t *near = pn < r->tail ? r->slots[pn & r->mask] : NULL;
    if (near != NULL) {
        if (near->state & N_IN_GEN)
            tpf_gen_prefetch(near);
        else if (near->state & N_IN_MID)
            tpf_index_prefetch(&q->mid, near->mid_hash);
    }
}

/** Remove n as a destructive get does: finally, or hidden under `r` until commit. */
static HOT void take(tpf_mq_queue_t *q, tpf_node_t *n, tpf_uow_rec_t *r)
{
    prefetch_ahead(q, n);
    q->st.gets++;
    if (r == NULL) {
        remove_node_inline(q, n);
        return;
    }
    unlock_node(n);
    n->state |= N_GOT;
    n->uow_next = r->head;
    r->head = n;
    q->st.uncommitted_gets++;
    q->got_by_priority[n->md.priority]++;
}

int tpf_mq_check_get_options(uint32_t options, int has_cursor)
{
    uint32_t o = options;
    uint32_t browse = o & BROWSE_BITS;
    if (browse & (browse - 1u))
        return MQRC_OPTIONS_ERROR; /* more than one browse option */
    if ((o & MQGMO_MSG_UNDER_CURSOR) && browse)
        return MQRC_OPTIONS_ERROR;
    if ((o & MQGMO_LOCK) && (!browse || (o & MQGMO_UNLOCK)))
        return MQRC_OPTIONS_ERROR;
    if ((o & MQGMO_UNLOCK) && (o & (BROWSE_BITS | MQGMO_MSG_UNDER_CURSOR)))
        return MQRC_OPTIONS_ERROR;
    if ((o & CURSOR_BITS) && !has_cursor)
        return MQRC_OPTIONS_ERROR;
    return MQRC_NONE;
}

int tpf_mq_get(tpf_mq_queue_t *q, const tpf_mq_getreq_t *req, tpf_mq_msg_t *md_out, void *buf,
               uint32_t cap)
{
    if (q == NULL || req == NULL || md_out == NULL || (buf == NULL && cap != 0))
        return TPF_RC_INVALID_ARGUMENT;
    if (req->cursor != NULL && req->cursor->q != q)
        return TPF_RC_INVALID_ARGUMENT;
    int rc = tpf_mq_check_get_options(req->options, req->cursor != NULL);
    if (rc != MQRC_NONE)
        return rc;
    const uint32_t o = req->options;
    tpf_mq_cursor_t *c = req->cursor;
    const int browse = (o & BROWSE_BITS) != 0;
    int64_t now = req->now;
    tpf_node_t *n = NULL;
    tpf_uow_rec_t *r = NULL;

    QLOCK(q);
    if (o & MQGMO_UNLOCK) {
        if (c->locked == NULL) {
            rc = MQRC_NO_MSG_LOCKED;
        } else {
            unlock_node(c->locked);
        }
        goto out;
    }
    if (!browse && req->uow != 0 && (r = uow_find(q, req->uow, 1)) == NULL) {
        rc = MQRC_STORAGE_NOT_AVAILABLE;
        goto out;
    }
    if (o & (MQGMO_MSG_UNDER_CURSOR | MQGMO_BROWSE_MSG_UNDER_CURSOR)) {
        n = c->node;
        if (n == NULL || !eligible(n, c)) {
            rc = MQRC_NO_MSG_UNDER_CURSOR;
            goto out;
        }
        if (expired(n, &now)) { /* seed 001, note 6 */
            discard_expired(q, n);
            rc = MQRC_NO_MSG_UNDER_CURSOR;
            goto out;
        }
    } else {
        const tpf_node_t *after = (o & MQGMO_BROWSE_NEXT) ? c->node : NULL;
        match_t m = match_of(req);
        if (m.msg_id != NULL || m.correl_id != NULL)
            n = find_matched(q, m, after, c, &now);
        else
            n = scan(q, after, c, &now);
        if (n == NULL) {
            rc = MQRC_NO_MSG_AVAILABLE;
            goto out;
        }
    }
    if ((req->flags & TPF_MQ_GET_NOT_PERSISTENT) && !browse && n->md.persistent) {
        rc = TPF_RC_PERSISTENT; /* the caller's log must record this get */
        goto out;
    }
    uint32_t len = n->md.length;
    if (req->cap_body)
        cap += n->md.ctx_len; /* the record always comes whole; cap limits the rest */
    if (len > cap && !(o & MQGMO_ACCEPT_TRUNCATED_MSG)) {
        /* IBM: the message stays; MD and the real length come back. A browse cursor
         * still moves onto it, so BROWSE_MSG_UNDER_CURSOR can read it again. */
        if (browse)
            cursor_move(q, c, n);
        if (req->cap_body && n->md.ctx_len != 0) /* the record fills the caller's MQMD */
            memcpy(buf, n->data, n->md.ctx_len);
        *md_out = n->md;
        rc = MQRC_TRUNCATED_MSG_FAILED;
    } else {
        uint32_t copy = len > cap ? cap : len;
        if (copy != 0)
            memcpy(buf, n->data, copy);
        *md_out = n->md;
        rc = len > cap ? MQRC_TRUNCATED_MSG_ACCEPTED : MQRC_NONE;
        if (browse) {
            q->st.browses++;
            cursor_move(q, c, n);
            if (o & MQGMO_LOCK) {
                if (c->locked != NULL && c->locked != n)
                    unlock_node(c->locked);
                n->lock_owner = c;
                c->locked = n;
            }
        } else {
            take(q, n, r);
        }
    }
    md_out->flags = out_flags(q);
out:
    if (r != NULL && r->head == NULL)
        uow_forget(q, r);
    QUNLOCK(q);
    return rc;
}

/** With q locked: the record of `uow` (made if needed; NULL for 0) and the first message
 * a plain destructive get takes. @return MQRC_NONE, MQRC_NO_MSG_AVAILABLE,
 * MQRC_STORAGE_NOT_AVAILABLE. */
static HOT int plain_get_begin(tpf_mq_queue_t *q, uint64_t uow, tpf_uow_rec_t **r,
                               tpf_node_t **n)
{
    int64_t now = TPF_MQ_NOW;
    *n = NULL;
    *r = NULL;
    if (uow != 0 && (*r = uow_find(q, uow, 1)) == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    *n = plain_first(q, &now);
    return *n != NULL ? MQRC_NONE : MQRC_NO_MSG_AVAILABLE;
}

/** Drop a unit-of-work record the get made but left empty, and unlock q. */
static HOT void get_end(tpf_mq_queue_t *q, tpf_uow_rec_t *r)
{
    if (r != NULL && r->head == NULL)
        uow_forget(q, r);
    QUNLOCK(q);
}

int tpf_mq_get_simple(tpf_mq_queue_t *q, uint64_t uow, tpf_mq_msg_t *md_out, void *buf,
                      uint32_t cap)
{
    if (q == NULL || md_out == NULL || (buf == NULL && cap != 0))
        return TPF_RC_INVALID_ARGUMENT;
    tpf_uow_rec_t *r;
    tpf_node_t *n;
    QLOCK(q);
    int rc = plain_get_begin(q, uow, &r, &n);
    if (rc == MQRC_NONE) {
        *md_out = n->md;
        if (n->md.length > cap) {
            rc = MQRC_TRUNCATED_MSG_FAILED;
        } else {
            if (n->md.length != 0)
                memcpy(buf, n->data, n->md.length);
            take(q, n, r);
        }
        md_out->flags = out_flags(q);
    }
    get_end(q, r);
    return rc;
}

int tpf_mq_get_alloc(tpf_mq_queue_t *q, uint64_t uow, int flags, tpf_mq_alloc_fn alloc,
                     void *ctx, tpf_mq_msg_t *md_out)
{
    if (q == NULL || alloc == NULL)
        return TPF_RC_INVALID_ARGUMENT;
    tpf_uow_rec_t *r;
    tpf_node_t *n;
    QLOCK(q);
    int rc = plain_get_begin(q, uow, &r, &n);
    if (rc == MQRC_NONE && (flags & TPF_MQ_GET_NOT_PERSISTENT) && n->md.persistent)
        rc = TPF_RC_PERSISTENT;
    if (rc == MQRC_NONE) {
        uint32_t skip = (flags & TPF_MQ_GET_SKIP_CTX) ? n->md.ctx_len : 0;
        void *dst = alloc(ctx, n->md.length - skip);
        if (dst == NULL) {
            rc = MQRC_STORAGE_NOT_AVAILABLE;
        } else {
            if (n->md.length != skip)
                memcpy(dst, n->data + skip, n->md.length - skip);
            if (md_out != NULL) {
                *md_out = n->md;
                md_out->flags = out_flags(q);
            }
            take(q, n, r);
        }
    }
    get_end(q, r);
    return rc;
}

int tpf_mq_get_many(tpf_mq_queue_t *q, uint32_t max_n, uint64_t uow, int64_t now,
                    tpf_mq_msg_t *mds_out, uint32_t *lengths_out, void *buf, size_t cap,
                    uint32_t *n_out)
{
    if (q == NULL || max_n == 0 || lengths_out == NULL || n_out == NULL ||
        (buf == NULL && cap != 0))
        return TPF_RC_INVALID_ARGUMENT;
    int rc = MQRC_NONE;
    uint32_t k = 0;
    size_t off = 0;
    tpf_uow_rec_t *r = NULL;
    unsigned char *dst = buf;
    QLOCK(q);
    if (uow != 0 && (r = uow_find(q, uow, 1)) == NULL) {
        rc = MQRC_STORAGE_NOT_AVAILABLE;
        goto out;
    }
    while (k < max_n) {
        tpf_node_t *n = plain_first(q, &now);
        if (n == NULL)
            break;
        uint32_t len = n->md.length;
        if (len > cap - off) {
            if (k == 0) {
                lengths_out[0] = len;
                *n_out = 0;
                rc = MQRC_TRUNCATED_MSG_FAILED;
                goto out;
            }
            break;
        }
        if (len != 0)
            memcpy(dst + off, n->data, len);
        off += len;
        lengths_out[k] = len;
        if (mds_out != NULL)
            mds_out[k] = n->md;
        take(q, n, r);
        k++;
    }
    if (k == 0) {
        rc = MQRC_NO_MSG_AVAILABLE;
        goto out;
    }
    if (mds_out != NULL)
        for (uint32_t i = 0; i < k; i++)
            mds_out[i].flags = out_flags(q);
    *n_out = k;
out:
    if (r != NULL && r->head == NULL)
        uow_forget(q, r);
    QUNLOCK(q);
    return rc;
}

/* ---- commit, backout, expired reports, purge ---------------------------------------- */

static int finish_uow(tpf_mq_queue_t *q, uint64_t uow, int commit, uint32_t *n_out)
{
    if (q == NULL || uow == 0)
        return TPF_RC_INVALID_ARGUMENT;
    uint32_t count = 0;
    QLOCK(q);
    tpf_uow_rec_t *r = uow_find(q, uow, 0);
    if (r != NULL) {
        tpf_node_t *n = r->head;
        uow_forget(q, r);
        while (n != NULL) {
            tpf_node_t *next = n->uow_next;
            n->uow_next = NULL;
            if (n->state & N_GOT) {
                n->state &= (uint8_t)~N_GOT;
                q->st.uncommitted_gets--;
                q->got_by_priority[n->md.priority]--;
                if (commit)
                    remove_node(q, n);
                else
                    n->md.backout_count++;
            } else if (commit) {
                n->state &= (uint8_t)~N_UNCOMMITTED;
                q->uncommitted_by_priority[n->md.priority]--;
                q->st.uncommitted_puts--;
            } else {
                remove_node(q, n);
            }
            count++;
            n = next;
        }
        if (count != 0) {
            if (commit)
                q->st.commits++;
            else
                q->st.backouts++;
        }
    }
    QUNLOCK(q);
    if (n_out != NULL)
        *n_out = count;
    return MQRC_NONE;
}

int tpf_mq_commit(tpf_mq_queue_t *q, uint64_t uow, uint32_t *n_out)
{
    return finish_uow(q, uow, 1, n_out);
}

int tpf_mq_backout(tpf_mq_queue_t *q, uint64_t uow, uint32_t *n_out)
{
    return finish_uow(q, uow, 0, n_out);
}

int tpf_mq_take_expired(tpf_mq_queue_t *q, tpf_mq_msg_t *md_out, void *buf, uint32_t cap)
{
    if (q == NULL || md_out == NULL || (buf == NULL && cap != 0))
        return TPF_RC_INVALID_ARGUMENT;
    int rc = MQRC_NONE;
    QLOCK(q);
    tpf_node_t *n = q->expired_head;
    if (n == NULL) {
        rc = MQRC_NO_MSG_AVAILABLE;
    } else if (n->md.length > cap) {
        *md_out = n->md;
        rc = MQRC_TRUNCATED_MSG_FAILED;
    } else {
        if (n->md.length != 0)
            memcpy(buf, n->data, n->md.length);
        *md_out = n->md;
        q->expired_head = n->next;
        if (q->expired_head == NULL)
            q->expired_tail = NULL;
        q->st.expired_pending--;
        tpf_slab_free(&q->slab, n);
        md_out->flags = out_flags(q);
    }
    QUNLOCK(q);
    return rc;
}

/** A sweep's choice: whether node n goes (purge: every visible message; discard: the
 * visible, unlocked, expired ones). */
typedef int (*sweep_pick_t)(const tpf_node_t *n, int64_t *now);
/** What a sweep does with a node it picked. */
typedef void (*sweep_drop_t)(tpf_mq_queue_t *q, tpf_node_t *n);

static int pick_visible(const tpf_node_t *n, int64_t *now)
{
    (void)now;
    return (n->state & N_HIDDEN) == 0;
}

static int pick_expired(const tpf_node_t *n, int64_t *now)
{
    return (n->state & N_HIDDEN) == 0 && n->lock_owner == NULL && expired(n, now);
}

/** Walk every message in delivery order (q locked), dropping those pick chooses. */
static uint32_t sweep(tpf_mq_queue_t *q, sweep_pick_t pick, sweep_drop_t drop, int64_t *now)
{
    uint32_t count = 0;
    for (int p = TPF_MQ_PRIORITIES - 1; p >= 0; p--) {
        tpf_node_t *n = tpf_ring_first(&q->ring[p]);
        while (n != NULL) {
            tpf_node_t *next = tpf_ring_next(&q->ring[p], n);
            if (pick(n, now)) {
                drop(q, n);
                count++;
            }
            n = next;
        }
    }
    return count;
}

int tpf_mq_purge(tpf_mq_queue_t *q, uint32_t *n_out)
{
    if (q == NULL)
        return TPF_RC_INVALID_ARGUMENT;
    QLOCK(q);
    uint32_t count = sweep(q, pick_visible, remove_node, NULL);
    QUNLOCK(q);
    if (n_out != NULL)
        *n_out = count;
    return MQRC_NONE;
}

int tpf_mq_discard_expired(tpf_mq_queue_t *q, int64_t now, uint32_t *n_out)
{
    if (q == NULL)
        return TPF_RC_INVALID_ARGUMENT;
    QLOCK(q);
    uint32_t count = sweep(q, pick_expired, discard_expired, &now);
    QUNLOCK(q);
    if (n_out != NULL)
        *n_out = count;
    return MQRC_NONE;
}

/* ---- counters ------------------------------------------------------------------------ */

uint32_t tpf_mq_depth(tpf_mq_queue_t *q)
{
    QLOCK(q);
    uint32_t d = q->st.depth;
    QUNLOCK(q);
    return d;
}

uint32_t tpf_mq_depth_at_least(tpf_mq_queue_t *q, int priority, int flags)
{
    if (priority < 0)
        priority = 0;
    if (priority >= TPF_MQ_PRIORITIES)
        priority = TPF_MQ_PRIORITIES - 1;
    uint32_t total = 0;
    QLOCK(q);
    for (int p = priority; p < TPF_MQ_PRIORITIES; p++) {
        total += q->st.depth_by_priority[p];
        if (flags & TPF_MQ_COUNT_NO_UNCOMMITTED_PUTS)
            total -= q->uncommitted_by_priority[p];
        if (flags & TPF_MQ_COUNT_NO_UNCOMMITTED_GETS)
            total -= q->got_by_priority[p];
    }
    QUNLOCK(q);
    return total;
}

void tpf_mq_stats(tpf_mq_queue_t *q, tpf_mq_stats_t *out)
{
    QLOCK(q);
    *out = q->st;
    out->slab_bytes = q->slab.bytes;
    out->slots_free = q->slab.nfree;
    out->large_bytes = q->slab.large_bytes;
    out->index_buckets = q->mid.mask + 1u;
    QUNLOCK(q);
}
