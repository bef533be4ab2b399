/* ring.c - one priority's FIFO of message pointers: a growable ring with tombstones
 *
 * Why a ring and not a linked list: at depth, the message a get takes was put long
 * ago and is not in cache. With a list, the next message's address is known only once
 * this one is loaded, so every get waits a full memory latency. In a ring the next
 * messages' addresses sit in one sequential array, and the queue prefetches a few
 * messages ahead of the head (queue_get.c: prefetch_ahead).
 */
#include <stdlib.h>

#include "internal.h"

#define RING_MIN 16u

static uint32_t capacity(const tpf_ring_t *r)
{
    return r->slots != NULL ? r->mask + 1u : 0u;
}

/** Move the nodes into a new array of `cap` slots. With compact, tombstones are dropped
 * and every node gets a new position (each node is written); otherwise positions stay. */
static int rebuild(tpf_ring_t *r, uint32_t cap, int compact)
{
    tpf_node_t **s = tpf_big_alloc((size_t)cap * sizeof *s);
    if (s == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    uint64_t pos = r->head;
    for (uint64_t p = r->head; p < r->tail; p++) {
        tpf_node_t *n = r->slots[p & r->mask];
        if (compact) {
            if (n == NULL)
                continue;
            n->pos = pos;
            s[pos++ & (cap - 1u)] = n;
        } else {
            s[p & (cap - 1u)] = n;
        }
    }
    if (compact)
        r->tail = pos;
    tpf_big_free(r->slots, (size_t)capacity(r) * sizeof *s);
    r->slots = s;
    r->mask = cap - 1u;
    return MQRC_NONE;
}

int tpf_ring_make_room(tpf_ring_t *r, uint32_t extra)
{
    for (;;) {
        uint32_t cap = capacity(r);
        uint64_t used = r->tail - r->head;
        if (used + extra <= cap)
            return MQRC_NONE;
        if (cap != 0 && (uint64_t)r->live + extra <= cap / 2u) {
            if (rebuild(r, cap, 1) != MQRC_NONE)
                return MQRC_STORAGE_NOT_AVAILABLE;
            continue;
        }
        uint32_t ncap = cap ? cap * 2u : RING_MIN;
        if (ncap == 0)
            return MQRC_STORAGE_NOT_AVAILABLE;
        if (rebuild(r, ncap, 0) != MQRC_NONE)
            return MQRC_STORAGE_NOT_AVAILABLE;
    }
}

tpf_node_t *tpf_ring_next(const tpf_ring_t *r, const tpf_node_t *n)
{
    uint64_t p = n->pos + 1u;
    if (p < r->head)
        p = r->head;
    for (; p < r->tail; p++) {
        tpf_node_t *m = r->slots[p & r->mask];
        if (m != NULL)
            return m;
    }
    return NULL;
}

void tpf_ring_destroy(tpf_ring_t *r)
{
    tpf_big_free(r->slots, (size_t)capacity(r) * sizeof *r->slots);
    r->slots = NULL;
}
