/* queue_put.c - putting messages on a queue: one, a batch, a packed batch
 *
 * A put reserves everything it may need first (index and ring room, the unit-of-work
 * record, a slot), so that it fails before changing anything; then it fills the slot,
 * names it (a generated MsgId: the queue's prefix + a counter) and links it in.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/** Generated MsgIds end in a process-wide counter, so they are unique across queues. */
static _Atomic uint64_t msgid_counter = 1;

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

int64_t tpf_q_clock_us(void)
{
    return clock_us();
}

/* ---- generated MsgIds, linking a new message ------------------------------------- */

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

/** Reserve the queue's next MSGID_BLOCK counter values; their block in the
 * generated-MsgId index becomes the current one (the caller reserved it). */
static COLD void msgid_reserve(tpf_mq_queue_t *q)
{
    q->ctr_next = atomic_fetch_add_explicit(&msgid_counter, MSGID_BLOCK, memory_order_relaxed);
    q->ctr_end = q->ctr_next + MSGID_BLOCK;
    tpf_gen_block_t *old = tpf_gen_begin(&q->gen, q->ctr_next);
    if (old != NULL && old->nlive <= TPF_GEN_SPARSE)
        tpf_q_gen_settle(q, old);
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
COLD void tpf_q_gen_settle(tpf_mq_queue_t *q, tpf_gen_block_t *b)
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
    if (uow != 0 && (*r = tpf_q_uow_find(q, uow, 1)) == NULL)
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
        if (MD_AT(i)->uow != 0 && tpf_q_uow_find(q, MD_AT(i)->uow, 1) == NULL) {
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
        link_new(q, node, node->md.uow != 0 ? tpf_q_uow_find(q, node->md.uow, 0) : NULL, ids);
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
