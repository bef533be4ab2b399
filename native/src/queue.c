/* queue.c - one in-memory MQ queue: its life cycle, settings and counters
 *
 * See tpf/queue.h for the contract. Delivery order is (placement priority
 * descending, put sequence ascending). Invisible messages (uncommitted puts,
 * uncommitted gets, ghosts) stay in their list in place, so a backed-out get comes
 * back exactly where it was; a scan skips them. A scan therefore costs
 * O(1 + invisible messages ahead of the first eligible one).
 *
 * The queue's code is in four files, one concept each, sharing the private helpers of
 * internal.h (the lock, unit-of-work records, taking a node off the queue):
 *   queue.c      life cycle, settings, counters
 *   queue_put.c  put, put_simple, the batch and packed puts, generated MsgIds
 *   queue_get.c  finding the message a get returns, gets, browse cursors
 *   queue_uow.c  unit-of-work records, commit and backout, discarding expired
 *                messages and their reports, purge
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

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
    /* Cursors still open are detached: destroying one later only frees it. */
    for (tpf_mq_cursor_t *c = q->cursors; c != NULL; c = c->next_cursor) {
        c->q = NULL;
        c->node = NULL;
        c->locked = NULL;
    }
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
