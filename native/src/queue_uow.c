/* queue_uow.c - what removes messages besides a get: units of work, expiry, purge
 *
 * Commit and backout settle a unit of work's puts and gets on this queue. An expired
 * message is discarded by the scan that meets it (tpf_q_discard_expired, called by the
 * gets), or by tpf_mq_discard_expired's sweep, and kept for its expiration report until
 * tpf_mq_take_expired takes it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- unit-of-work records -------------------------------------------------------- */

/** The record of `uow` on this queue; with create, made if missing (NULL: no memory). */
tpf_uow_rec_t *tpf_q_uow_find(tpf_mq_queue_t *q, uint64_t uow, int create)
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

/* ---- taking a message off the queue, discarding an expired one ------------------- */

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
void tpf_q_discard_expired(tpf_mq_queue_t *q, tpf_node_t *n)
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

/* ---- commit, backout, expired reports, purge ---------------------------------------- */

static int finish_uow(tpf_mq_queue_t *q, uint64_t uow, int commit, uint32_t *n_out)
{
    if (q == NULL || uow == 0)
        return TPF_RC_INVALID_ARGUMENT;
    uint32_t count = 0;
    QLOCK(q);
    tpf_uow_rec_t *r = tpf_q_uow_find(q, uow, 0);
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
    uint32_t count = sweep(q, pick_expired, tpf_q_discard_expired, &now);
    QUNLOCK(q);
    if (n_out != NULL)
        *n_out = count;
    return MQRC_NONE;
}
