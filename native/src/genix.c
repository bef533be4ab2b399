/* genix.c - the index of generated MsgIds, by their counter: no hashing, no random slots
 *
 * A generated MsgId is the queue's 16-byte prefix + an 8-byte big-endian counter, and a
 * queue takes its counter values TPF_GEN_BLOCK at a time from a process-wide counter
 * (queue_put.c: generate_msgid). So each reservation gets a block of TPF_GEN_BLOCK node
 * pointers: the message whose counter is start + i is node[i].
 *
 * Why not the hash index: at depth, a hash table puts every new id in a random slot and
 * every get unindexes a random slot, two cache misses per put+get pair that prefetching
 * hides only in part (they were most of a pair's cost at depth 1 000 000). Here a put
 * writes the next slot of the current block, which is in cache, and a get clears one bit
 * in its block's header: one cache line per TPF_GEN_BLOCK messages, which gets in
 * delivery order walk nearly in sequence. The slot itself is left as it is (a lookup
 * reads a slot only under its bit), so a get never loads it.
 *
 * Memory: a block costs ~600 bytes, ~9 per message while it is full. A block is freed
 * when its last message leaves once its reservation is used up; one that is left with
 * TPF_GEN_SPARSE (4) messages or fewer hands them over to the hash index (queue_put.c:
 * tpf_q_gen_settle), so messages that linger while the rest of their block is got cost at
 * most ~600 / 5 = ~120 bytes each here (a message's slot is 256 bytes or more), not
 * ~600. (Handing over costs two cache misses per message moved, which is why the
 * threshold is low: with 8, a long run at depth 1M spent ~10% of its time on it.)
 *
 * Lookup (a get matched on MsgId) is a binary search of the blocks by start counter,
 * then one slot; the caller also asks the hash index, which holds supplied MsgIds
 * (including any that look like generated ones) and handed-over ones.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define REFS_MIN 16u

static tpf_gen_block_t *block_new(void)
{
    /* (a multiple of 64 bytes, on a cache line: the header is one line) */
    return aligned_alloc(64, sizeof(tpf_gen_block_t));
}

/** Move the refs into an array of `cap` slots; with compact, holes are dropped and every
 * block gets a new position. */
static int rebuild(tpf_gen_index_t *g, uint32_t cap, int compact)
{
    tpf_gen_ref_t *s = malloc((size_t)cap * sizeof *s);
    if (s == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    uint64_t pos = g->head;
    for (uint64_t p = g->head; p < g->tail; p++) {
        tpf_gen_ref_t r = g->refs[p & g->mask];
        if (compact) {
            if (r.block == NULL)
                continue;
            r.block->at = pos;
            s[pos++ & (cap - 1u)] = r;
        } else {
            s[p & (cap - 1u)] = r;
        }
    }
    if (compact)
        g->tail = pos;
    free(g->refs);
    g->refs = s;
    g->mask = cap - 1u;
    return MQRC_NONE;
}

int tpf_gen_make_room(tpf_gen_index_t *g, uint32_t blocks)
{
    for (;;) {
        uint32_t cap = g->refs != NULL ? g->mask + 1u : 0u;
        uint64_t used = g->tail - g->head;
        if (used + blocks <= cap)
            break;
        uint64_t live = 0;
        for (uint64_t p = g->head; p < g->tail; p++)
            live += g->refs[p & g->mask].block != NULL;
        if (cap != 0 && live + blocks <= cap / 2u) {
            if (rebuild(g, cap, 1) != MQRC_NONE)
                return MQRC_STORAGE_NOT_AVAILABLE;
            continue;
        }
        uint32_t ncap = cap ? cap * 2u : REFS_MIN;
        if (ncap == 0 || rebuild(g, ncap, 0) != MQRC_NONE)
            return MQRC_STORAGE_NOT_AVAILABLE;
    }
    while (g->nspare < blocks) {
        tpf_gen_block_t *b = block_new();
        if (b == NULL)
            return MQRC_STORAGE_NOT_AVAILABLE;
        b->next_spare = g->spare;
        g->spare = b;
        g->nspare++;
    }
    return MQRC_NONE;
}

tpf_gen_block_t *tpf_gen_begin(tpf_gen_index_t *g, uint64_t start)
{
    tpf_gen_block_t *b = g->spare;
    g->spare = b->next_spare;
    g->nspare--;
    b->start = start;
    b->live = 0;
    b->nlive = 0;
    b->next_spare = NULL;
    b->at = g->tail;
    g->refs[g->tail++ & g->mask] = (tpf_gen_ref_t){start, b};
    tpf_gen_block_t *old = g->cur;
    g->cur = b;
    return old;
}

/** Spare blocks kept when a block is freed: enough for a burst of reservations. */
#define SPARES_KEPT 4u

void tpf_gen_drop(tpf_gen_index_t *g, tpf_gen_block_t *b)
{
    /* (the current block is the last ref and is never dropped: only the head trims) */
    g->refs[b->at & g->mask].block = NULL;
    while (g->refs[g->head & g->mask].block == NULL)
        g->head++;
    if (g->nspare < SPARES_KEPT) {
        b->next_spare = g->spare;
        g->spare = b;
        g->nspare++;
    } else {
        free(b);
    }
}

tpf_node_t *tpf_gen_find(const tpf_gen_index_t *g, const uint8_t *id)
{
    uint64_t c = 0;
    for (int i = 0; i < 8; i++)
        c = c << 8 | id[TPF_MQ_MSGID_PREFIX_LEN + i];
    /* The last ref whose start is <= c, in [head, tail). */
    uint64_t lo = g->head, hi = g->tail;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2u;
        if (g->refs[mid & g->mask].start <= c)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo == g->head)
        return NULL;
    const tpf_gen_block_t *b = g->refs[(lo - 1u) & g->mask].block;
    if (b == NULL || c - b->start >= TPF_GEN_BLOCK)
        return NULL;
    uint32_t i = (uint32_t)(c - b->start);
    if (!(b->live >> i & 1u))
        return NULL;
    tpf_node_t *n = b->node[i];
    return memcmp(n->md.msg_id, id, TPF_MQ_ID_LEN) == 0 ? n : NULL;
}

void tpf_gen_destroy(tpf_gen_index_t *g)
{
    for (uint64_t p = g->head; p < g->tail; p++)
        free(g->refs[p & g->mask].block);
    while (g->spare != NULL) {
        tpf_gen_block_t *b = g->spare;
        g->spare = b->next_spare;
        free(b);
    }
    free(g->refs);
    memset(g, 0, sizeof *g);
}
