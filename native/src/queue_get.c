/* queue_get.c - getting and browsing: finding the message a get returns, the gets
 *
 * A plain get takes the first message of the highest occupied ring when it is visible,
 * unlocked and never expires (checked inline); anything else scans. A matched get looks
 * its ids up in the indexes. Browse cursors pin the message they stand on.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const uint32_t BROWSE_BITS =
    MQGMO_BROWSE_FIRST | MQGMO_BROWSE_NEXT | MQGMO_BROWSE_MSG_UNDER_CURSOR;
static const uint32_t CURSOR_BITS = MQGMO_BROWSE_FIRST | MQGMO_BROWSE_NEXT |
                                    MQGMO_BROWSE_MSG_UNDER_CURSOR | MQGMO_MSG_UNDER_CURSOR |
                                    MQGMO_LOCK | MQGMO_UNLOCK;

/* ---- finding the message a get returns ---------------------------------------------- */

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
            tpf_q_discard_expired(q, n);
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
        tpf_q_discard_expired(q, best);
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
    if (q == NULL) { /* its queue was destroyed first */
        free(c);
        return;
    }
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

/* ---- get ---------------------------------------------------------------------------- */

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
    if (!browse && req->uow != 0 && (r = tpf_q_uow_find(q, req->uow, 1)) == NULL) {
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
            tpf_q_discard_expired(q, n);
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
    if (uow != 0 && (*r = tpf_q_uow_find(q, uow, 1)) == NULL)
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
    if (uow != 0 && (r = tpf_q_uow_find(q, uow, 1)) == NULL) {
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
