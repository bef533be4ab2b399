/* internal.h - the core's private types: message nodes, slabs, hash indexes, the queue */
#ifndef TPF_INTERNAL_H
#define TPF_INTERNAL_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "tpf/queue.h"

/** @defgroup nodeflags tpf_node_t.state bits @{ */
#define N_UNCOMMITTED 0x01 /**< put under a unit of work, not yet committed: invisible */
#define N_GOT         0x02 /**< got under a unit of work, not yet committed: invisible */
#define N_GHOST       0x04 /**< removed from the queue, kept in its list while pinned */
#define N_IN_MID      0x08 /**< linked in the MsgId index */
#define N_IN_CID      0x10 /**< linked in the CorrelId index */
#define N_EXPIRED     0x20 /**< on the expired list */
#define N_IN_GEN      0x40 /**< linked in the generated-MsgId index (genix.c) */
/** @} */

#define N_HIDDEN (N_UNCOMMITTED | N_GOT | N_GHOST)

/** Size class of a node allocated singly with malloc (message over 64 KiB). */
#define TPF_CLASS_LARGE 0xFF

struct tpf_gen_block;

/**
 * One message: its links, its descriptor and its data, in one slot.
 * The header is 184 bytes on LP64; data follows inline. A message is *in its ring*
 * from put until it is freed (ghosts included); discarded expired ones are not.
 */
typedef struct tpf_node {
    struct tpf_node *next;      /**< expired list or slab free-list (not the rings) */
    struct tpf_node *key_next[2]; /**< chain of nodes sharing a MsgId [0] / CorrelId [1] */
    struct tpf_node *key_prev[2]; /**< (NULL prev: the node is its chain's head, in a slot) */
    struct tpf_node *uow_next;  /**< chain of the unit of work holding it */
    tpf_mq_cursor_t *lock_owner; /**< cursor holding MQGMO_LOCK, or NULL */
    tpf_mq_msg_t md;            /**< descriptor; md.uow is the put's unit of work */
    struct tpf_gen_block *gen;  /**< block of its generated MsgId (N_IN_GEN) */
    uint64_t pos;               /**< position in its priority ring */
    uint32_t mid_hash;          /**< hash of md.msg_id (N_IN_MID: index slot, prefetching) */
    uint32_t cid_hash;          /**< hash of md.correl_id */
    uint32_t pins;              /**< cursors positioned on this node */
    uint8_t state;              /**< N_* bits */
    uint8_t eprio;              /**< placement priority (priority, or DEFPRTY in FIFO mode) */
    uint8_t size_class;         /**< slab class, or TPF_CLASS_LARGE */
    uint8_t gen_slot;           /**< its slot in `gen` (N_IN_GEN) */
    unsigned char data[];       /**< md.length bytes */
} tpf_node_t;

/* ---- slab.c: per-size-class free-lists ------------------------------------------ */

#define TPF_SLAB_CLASSES 19

typedef struct tpf_slab_chunk {
    struct tpf_slab_chunk *next;
    size_t bytes;
} tpf_slab_chunk_t;

typedef struct tpf_slab {
    tpf_node_t *free[TPF_SLAB_CLASSES]; /**< free-list heads, linked through ->next */
    uint64_t nfree;                     /**< slots on all free-lists */
    uint64_t bytes;                     /**< bytes held in chunks */
    uint64_t large_bytes;               /**< bytes in live singly allocated nodes */
    uint64_t class_bytes[TPF_SLAB_CLASSES]; /**< bytes in each class's chunks */
    tpf_slab_chunk_t *chunks;           /**< every chunk, for destroy */
} tpf_slab_t;

/** A zeroed block of `bytes` (on transparent huge pages when 2 MiB or more); NULL when
 * memory is exhausted. Free it with tpf_big_free() and the same size. */
void *tpf_big_alloc(size_t bytes);
void tpf_big_free(void *p, size_t bytes);
/** Bytes of a slot of each class (the last class's slots hold 64 KiB of data). */
extern const uint32_t tpf_slab_class_size[TPF_SLAB_CLASSES];
/** The slow half of tpf_slab_alloc(): refill the class, or allocate a large node. */
tpf_node_t *tpf_slab_alloc_slow(tpf_slab_t *s, uint32_t length);
/** Take a slot able to hold `length` data bytes; NULL when memory is exhausted. */
static inline tpf_node_t *tpf_slab_alloc(tpf_slab_t *s, uint32_t length)
{
    size_t bytes = sizeof(tpf_node_t) + (size_t)length;
    for (int c = 0; c < TPF_SLAB_CLASSES; c++) {
        if (bytes <= tpf_slab_class_size[c]) {
            tpf_node_t *n = s->free[c];
            if (n == NULL)
                break;
            s->free[c] = n->next;
            s->nfree--;
            return n;
        }
    }
    return tpf_slab_alloc_slow(s, length);
}
/** The slow half of tpf_slab_free(): free a large node. */
void tpf_slab_free_large(tpf_slab_t *s, tpf_node_t *n);
/** Return a node's slot to its free-list (or free a large node). */
static inline void tpf_slab_free(tpf_slab_t *s, tpf_node_t *n)
{
    if (n->size_class == TPF_CLASS_LARGE) {
        tpf_slab_free_large(s, n);
        return;
    }
    n->next = s->free[n->size_class];
    s->free[n->size_class] = n;
    s->nfree++;
}
/** Release every chunk. Large nodes must have been freed already. */
void tpf_slab_destroy(tpf_slab_t *s);

/* ---- index.c: open-addressing hash index on a 24-byte id ------------------------- */

typedef struct tpf_index_slot {
    tpf_node_t *node;   /**< head of the chain of nodes with this id; NULL = empty */
    uint32_t hash;      /**< hash of the id; its low bits pick the home slot */
    uint32_t pad_;
} tpf_index_slot_t;

typedef struct tpf_index {
    tpf_index_slot_t *slots;
    uint32_t mask;      /**< slots - 1 (a power of two); at most half the slots are used */
    uint32_t count;     /**< slots used (distinct ids) */
    int which;          /**< 0 = MsgId, 1 = CorrelId */
} tpf_index_t;

int tpf_index_init(tpf_index_t *ix, int which, uint32_t slots);
void tpf_index_destroy(tpf_index_t *ix);
/** The slow half of tpf_index_reserve(): grow until `extra` more adds fit. */
int tpf_index_grow_for(tpf_index_t *ix, uint32_t extra);
/** Grow the table so that `extra` more adds keep it at most half full.
 * @return MQRC_NONE, or MQRC_STORAGE_NOT_AVAILABLE (nothing changed). */
static inline int tpf_index_reserve(tpf_index_t *ix, uint32_t extra)
{
    if (((uint64_t)ix->count + extra) * 2u <= (uint64_t)ix->mask + 1u)
        return MQRC_NONE;
    return tpf_index_grow_for(ix, extra);
}
/** Index n under `hash` (tpf_index_hash of its id). The caller reserved room first,
 * so this function can't fail. */
void tpf_index_add(tpf_index_t *ix, tpf_node_t *n, uint32_t hash);
/** Unindex n, indexed under `hash` (no-op when absent). Touches only the table. */
void tpf_index_remove(tpf_index_t *ix, tpf_node_t *n, uint32_t hash);
/** The hash of a 24-byte id: its three words folded, then murmur3's 64-bit finalizer,
 * so that every input bit reaches the low bits used as the slot number (ids that differ
 * only in their last bytes, as generated MsgIds do, spread over the table). */
static inline uint32_t tpf_index_hash(const uint8_t *id)
{
    uint64_t w[3];
    memcpy(w, id, sizeof w);
    uint64_t h = w[0] ^ (w[1] * 0x9E3779B97F4A7C15ull) ^ ((w[2] << 31) | (w[2] >> 33));
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

/** Start loading the home slot of `hash` into the cache. (Also prefetching the next
 * line when a probe may run into it was measured: much slower at depth 1M.) */
static inline void tpf_index_prefetch(const tpf_index_t *ix, uint32_t hash)
{
    __builtin_prefetch(&ix->slots[hash & ix->mask], 1);
}
/** The first node with this id (the head of its chain), or NULL. */
tpf_node_t *tpf_index_find(const tpf_index_t *ix, const uint8_t *id);
/** The next node with the same id as n, or NULL. */
static inline tpf_node_t *tpf_index_next(const tpf_index_t *ix, const tpf_node_t *n)
{
    return n->key_next[ix->which];
}
static inline int tpf_id_is_zero(const uint8_t *id)
{
    uint64_t w[3];
    memcpy(w, id, sizeof w);
    return (w[0] | w[1] | w[2]) == 0;
}

/* ---- genix.c: generated MsgIds, indexed by their counter ---------------------------- */

/** Counter values a queue reserves at a time from the process-wide MsgId counter; one
 * block of the generated-MsgId index covers one reservation. */
#define TPF_GEN_BLOCK 64
/** A block left holding this many messages or fewer (once its reservation is used up)
 * hands them over to the hash index and is freed (queue_put.c: tpf_q_gen_settle). */
#define TPF_GEN_SPARSE 4

/** The messages whose generated MsgIds end in the counters start .. start + 63. */
typedef struct tpf_gen_block {
    uint64_t start;     /**< counter of node[0]: the first value of one reservation */
    uint64_t live;      /**< bit i set: node[i] is a message in the index */
    uint64_t at;        /**< its position in the index's list of blocks */
    uint32_t nlive;     /**< bits set in live */
    uint32_t pad_;
    struct tpf_gen_block *next_spare; /**< the index's spare blocks, while one */
    uint64_t pad2_[3];  /**< (the header fills one cache line) */
    tpf_node_t *node[TPF_GEN_BLOCK]; /**< valid only where live has its bit set */
} tpf_gen_block_t;

/** A block in the list, by its start counter (kept when the block is freed, so that the
 * list stays sorted for a binary search). */
typedef struct tpf_gen_ref {
    uint64_t start;
    tpf_gen_block_t *block; /**< NULL: freed (a hole) */
} tpf_gen_ref_t;

/**
 * The blocks of a queue's reservations, in counter order, in a growable ring of refs
 * (positions only grow; the slot of position p is p & mask; holes at either end are
 * trimmed at once; when full with at least half holes it is compacted, else grown).
 */
typedef struct tpf_gen_index {
    tpf_gen_ref_t *refs;
    uint64_t head, tail;    /**< positions of the first ref and one past the last */
    uint32_t mask;          /**< capacity - 1 (a power of two), or 0 with no array yet */
    uint32_t nspare;        /**< blocks on the spare list */
    tpf_gen_block_t *cur;   /**< the block of the queue's current reservation, or NULL */
    tpf_gen_block_t *spare; /**< free blocks, ready for the next reservations */
} tpf_gen_index_t;

/** The slow half of tpf_gen_reserve(). */
int tpf_gen_make_room(tpf_gen_index_t *g, uint32_t blocks);
/** Make sure `blocks` more reservations can start (tpf_gen_begin) without failing.
 * @return MQRC_NONE, MQRC_STORAGE_NOT_AVAILABLE (nothing changed that matters). */
static inline int tpf_gen_reserve(tpf_gen_index_t *g, uint32_t blocks)
{
    if (g->nspare >= blocks && g->refs != NULL &&
        g->tail - g->head + blocks <= (uint64_t)g->mask + 1u)
        return MQRC_NONE;
    return tpf_gen_make_room(g, blocks);
}
/** Start the block of a new reservation of TPF_GEN_BLOCK counters from `start` (above
 * every earlier one), which becomes the current block; the caller reserved it. Returns
 * the block that was current before (the caller settles it), or NULL. */
tpf_gen_block_t *tpf_gen_begin(tpf_gen_index_t *g, uint64_t start);
/** Index n, whose MsgId was generated from `counter` of the current block. */
static inline void tpf_gen_add(tpf_gen_index_t *g, tpf_node_t *n, uint64_t counter)
{
    tpf_gen_block_t *b = g->cur;
    uint32_t i = (uint32_t)(counter - b->start);
    b->node[i] = n;
    b->live |= 1ull << i;
    b->nlive++;
    n->gen = b;
    n->gen_slot = (uint8_t)i;
}
/** Unindex n. Only the bit in its block's header is cleared: the slot's pointer stays
 * (read only under its bit), so a get does not load the slot's cache line. Returns n's
 * block when it should be settled (its reservation used up and TPF_GEN_SPARSE
 * messages or fewer left: the caller frees it or hands them over), else NULL. */
static inline tpf_gen_block_t *tpf_gen_remove(tpf_gen_index_t *g, tpf_node_t *n)
{
    tpf_gen_block_t *b = n->gen;
    b->live &= ~(1ull << n->gen_slot);
    b->nlive--;
    return b->nlive <= TPF_GEN_SPARSE && b != g->cur ? b : NULL;
}
/** Free an empty block that is not the current one. */
void tpf_gen_drop(tpf_gen_index_t *g, tpf_gen_block_t *b);
/** The message whose generated MsgId is `id`, or NULL. (Supplied MsgIds, and generated
 * ones handed over, are in the hash index: a lookup asks both.) */
tpf_node_t *tpf_gen_find(const tpf_gen_index_t *g, const uint8_t *id);
/** Start loading the header of n's block, which unindexing n writes. */
static inline void tpf_gen_prefetch(const tpf_node_t *n)
{
    __builtin_prefetch(n->gen, 1);
}
void tpf_gen_destroy(tpf_gen_index_t *g);

/* ---- ring.c: one priority's FIFO of node pointers ------------------------------------ */

/**
 * A growable circular array of node pointers in put order. Positions only grow; the
 * slot of position p is p & mask. A node removed from the middle leaves a NULL
 * (tombstone); tombstones at either end are trimmed at once, and when the array is
 * full with at least half of it tombstones it is compacted instead of grown. The
 * head slot is never a tombstone while the ring is non-empty.
 */
typedef struct tpf_ring {
    tpf_node_t **slots;
    uint64_t head;      /**< position of the first node */
    uint64_t tail;      /**< one past the last position used */
    uint32_t mask;      /**< capacity - 1 (a power of two), or 0 with no array yet */
    uint32_t live;      /**< nodes in the ring */
} tpf_ring_t;

/** The slow half of tpf_ring_reserve(): compact or grow the array. */
int tpf_ring_make_room(tpf_ring_t *r, uint32_t extra);
/** Make room to append `extra` nodes. @return MQRC_NONE, MQRC_STORAGE_NOT_AVAILABLE. */
static inline int tpf_ring_reserve(tpf_ring_t *r, uint32_t extra)
{
    if (r->slots != NULL && r->tail - r->head + extra <= (uint64_t)r->mask + 1u)
        return MQRC_NONE;
    return tpf_ring_make_room(r, extra);
}
/** Append n; the caller reserved room, so this function can't fail. */
static inline void tpf_ring_append(tpf_ring_t *r, tpf_node_t *n)
{
    n->pos = r->tail;
    r->slots[r->tail++ & r->mask] = n;
    r->live++;
}
/** Remove n from the ring (a tombstone, or trimmed off an end). */
static inline void tpf_ring_remove(tpf_ring_t *r, tpf_node_t *n)
{
    r->slots[n->pos & r->mask] = NULL;
    if (--r->live == 0) {
        r->head = r->tail;
        return;
    }
    while (r->slots[r->head & r->mask] == NULL)
        r->head++;
    while (r->slots[(r->tail - 1u) & r->mask] == NULL)
        r->tail--;
}
/** The first node, or NULL. */
static inline tpf_node_t *tpf_ring_first(const tpf_ring_t *r)
{
    return r->live ? r->slots[r->head & r->mask] : NULL;
}
/** The node at position pos, or NULL (tombstone, or outside the ring). */
static inline tpf_node_t *tpf_ring_at(const tpf_ring_t *r, uint64_t pos)
{
    return pos >= r->head && pos < r->tail ? r->slots[pos & r->mask] : NULL;
}
/** The node after n in the ring (n may be a removed node: its old position counts). */
tpf_node_t *tpf_ring_next(const tpf_ring_t *r, const tpf_node_t *n);
void tpf_ring_destroy(tpf_ring_t *r);

/* ---- queue*.c: the queue, its cursors, its units of work ------------------------- */

typedef struct tpf_uow_rec {
    uint64_t id;
    tpf_node_t *head;   /**< nodes put or got under this unit of work */
} tpf_uow_rec_t;

struct tpf_mq_cursor {
    tpf_mq_queue_t *q;
    tpf_node_t *node;     /**< pinned node under the cursor, or NULL (before first) */
    tpf_node_t *locked;   /**< node this cursor has locked, or NULL */
    tpf_mq_cursor_t *next_cursor; /**< the queue's list of cursors */
};

struct tpf_mq_queue {
    _Atomic int spin;             /**< the queue lock: 0 free, 1 held */
    tpf_mq_config_t cfg;
    tpf_ring_t ring[TPF_MQ_PRIORITIES]; /**< one per placement priority */
    uint64_t ctr_next, ctr_end;   /**< MsgId counter values reserved for this queue */
    uint32_t occupied;            /**< bit p set when ring p is non-empty */
    uint64_t next_seq;
    tpf_node_t *expired_head, *expired_tail;
    tpf_index_t mid, cid;         /**< hash indexes: supplied MsgIds, CorrelIds */
    tpf_gen_index_t gen;          /**< generated MsgIds */
    tpf_slab_t slab;
    tpf_uow_rec_t *uows;          /**< open units of work with work on this queue */
    uint32_t nuows, cap_uows;
    tpf_mq_cursor_t *cursors;
    tpf_mq_stats_t st;            /**< counters kept current (depth, by priority, ...) */
    uint32_t uncommitted_by_priority[TPF_MQ_PRIORITIES]; /**< puts not yet committed */
    uint32_t got_by_priority[TPF_MQ_PRIORITIES];         /**< gets not yet committed */
};

/* ---- queue*.c: helpers the queue's files share ----------------------------------- */

/* The simple put and get are a chain of small steps, each with a rare slow case. The
 * steps on their path are forced inline (HOT) and the slow cases kept out of line
 * (COLD), so that the common case runs as one straight function without calls,
 * register spills or repeated checks. */
#define HOT __attribute__((always_inline)) inline
#define COLD __attribute__((noinline, cold))

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

/** The record of `uow` on this queue; with create, made if missing (NULL: no memory)
 * (queue_uow.c). Out of line on purpose: inlined, it added ~15% more instructions to
 * the simple put and get, which call it only for a unit of work. */
tpf_uow_rec_t *tpf_q_uow_find(tpf_mq_queue_t *q, uint64_t uow, int create);

static inline void uow_forget(tpf_mq_queue_t *q, tpf_uow_rec_t *r)
{
    *r = q->uows[--q->nuows];
}

static HOT void list_unlink(tpf_mq_queue_t *q, tpf_node_t *n)
{
    tpf_ring_t *r = &q->ring[n->eprio];
    tpf_ring_remove(r, n);
    if (r->live == 0)
        q->occupied &= ~(1u << n->eprio);
}

/** Free a block of the generated-MsgId index left with TPF_GEN_SPARSE messages or
 * fewer, its reservation used up, handing its messages to the hash index (queue_put.c). */
COLD void tpf_q_gen_settle(tpf_mq_queue_t *q, tpf_gen_block_t *b);

/** Take n out of the indexes it is in. */
static HOT void unindex(tpf_mq_queue_t *q, tpf_node_t *n)
{
    if (n->state & N_IN_GEN) {
        tpf_gen_block_t *b = tpf_gen_remove(&q->gen, n);
        if (b != NULL)
            tpf_q_gen_settle(q, b);
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

/** Microseconds since the epoch (CLOCK_REALTIME), as a put stamps it (queue_put.c). */
int64_t tpf_q_clock_us(void);

static inline int eligible(const tpf_node_t *n, const tpf_mq_cursor_t *c)
{
    return (n->state & N_HIDDEN) == 0 && (n->lock_owner == NULL || n->lock_owner == c);
}

static inline int expired(const tpf_node_t *n, int64_t *now)
{
    if (n->md.expiry == TPF_MQ_NEVER)
        return 0;
    if (*now == TPF_MQ_NOW)
        *now = tpf_q_clock_us();
    return *now >= n->md.expiry;
}

static inline uint16_t out_flags(const tpf_mq_queue_t *q)
{
    return q->expired_head != NULL ? TPF_MQ_F_EXPIRED_PENDING : 0;
}

/** Discard an expired, eligible message: off the queue and onto the expired list
 * (queue_uow.c). */
void tpf_q_discard_expired(tpf_mq_queue_t *q, tpf_node_t *n);

#endif /* TPF_INTERNAL_H */
