/* index.c - open-addressing hash index on MsgId or CorrelId
 *
 * Linear probing over 16-byte slots {node, 32-bit hash}, kept at most half full, with
 * backward-shift deletion. Insert and remove touch only the table, never another
 * message's node, which matters at depth: a node not recently used is a cache miss.
 * Growth rehashes from the stored hashes without reading any node. A lookup visits
 * the probe run of the id's home slot and reads only the nodes whose stored hash
 * matches, so a matched get costs O(1 + messages sharing the id).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int tpf_id_is_zero(const uint8_t *id)
{
    uint64_t w[3];
    memcpy(w, id, sizeof w);
    return (w[0] | w[1] | w[2]) == 0;
}

/* Fold the three words, then murmur3's 64-bit finalizer: every input bit reaches the
 * low bits used as the slot number (generated MsgIds differ only in their last bytes). */
uint32_t tpf_index_hash(const uint8_t *id)
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

int tpf_index_init(tpf_index_t *ix, int which, uint32_t slots)
{
    ix->slots = calloc(slots, sizeof *ix->slots);
    if (ix->slots == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    ix->mask = slots - 1u;
    ix->count = 0;
    ix->which = which;
    return MQRC_NONE;
}

void tpf_index_destroy(tpf_index_t *ix)
{
    free(ix->slots);
    ix->slots = NULL;
}

static void place(tpf_index_slot_t *slots, uint32_t mask, tpf_index_slot_t e)
{
    uint32_t i = e.hash & mask;
    while (slots[i].node != NULL)
        i = (i + 1u) & mask;
    slots[i] = e;
}

static int grow(tpf_index_t *ix)
{
    uint32_t n = (ix->mask + 1u) * 2u;
    if (n == 0)
        return MQRC_STORAGE_NOT_AVAILABLE;
    tpf_index_slot_t *s = calloc(n, sizeof *s);
    if (s == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    for (uint32_t i = 0; i <= ix->mask; i++)
        if (ix->slots[i].node != NULL)
            place(s, n - 1u, ix->slots[i]);
    free(ix->slots);
    ix->slots = s;
    ix->mask = n - 1u;
    return MQRC_NONE;
}

int tpf_index_reserve(tpf_index_t *ix, uint32_t extra)
{
    while (((uint64_t)ix->count + extra) * 2u > (uint64_t)ix->mask + 1u)
        if (grow(ix) != MQRC_NONE)
            return MQRC_STORAGE_NOT_AVAILABLE;
    return MQRC_NONE;
}

void tpf_index_add(tpf_index_t *ix, tpf_node_t *n, uint32_t hash)
{
    tpf_index_slot_t e = {n, hash, 0};
    place(ix->slots, ix->mask, e);
    ix->count++;
}

void tpf_index_remove(tpf_index_t *ix, tpf_node_t *n, uint32_t hash)
{
    uint32_t mask = ix->mask;
    uint32_t i = hash & mask;
    while (ix->slots[i].node != n) {
        if (ix->slots[i].node == NULL)
            return; /* not indexed */
        i = (i + 1u) & mask;
    }
    /* Backward-shift deletion: pull later members of the probe run into the hole
     * whenever the hole lies between their home slot and where they sit. */
    uint32_t hole = i, j = i;
    for (;;) {
        j = (j + 1u) & mask;
        tpf_index_slot_t e = ix->slots[j];
        if (e.node == NULL)
            break;
        uint32_t home = e.hash & mask;
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            ix->slots[hole] = e;
            hole = j;
        }
    }
    ix->slots[hole].node = NULL;
    ix->count--;
}

tpf_node_t *tpf_index_find(const tpf_index_t *ix, const uint8_t *id, tpf_index_iter_t *it)
{
    it->hash = tpf_index_hash(id);
    it->pos = it->hash & ix->mask;
    return tpf_index_find_next(ix, it);
}

tpf_node_t *tpf_index_find_next(const tpf_index_t *ix, tpf_index_iter_t *it)
{
    for (;;) {
        const tpf_index_slot_t *e = &ix->slots[it->pos];
        if (e->node == NULL)
            return NULL;
        it->pos = (it->pos + 1u) & ix->mask;
        if (e->hash == it->hash)
            return e->node;
    }
}
