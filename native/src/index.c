/* index.c - open-addressing hash index on MsgId or CorrelId, with chains of duplicates
 *
 * Linear probing over 16-byte slots {head node, 32-bit hash}, at most half full, with
 * backward-shift deletion. A slot stands for one distinct id; the nodes sharing it form
 * a doubly linked chain through the nodes themselves (key_next/key_prev), its head in the
 * slot. So:
 * - a unique id (a generated MsgId) touches only the table: no other message's node;
 * - duplicates (a reused MD's MsgId, many replies with one CorrelId) cost O(1) to add
 *   and remove, not a walk along a run of equal keys;
 * - a matched get walks the chain of its id only.
 * Growth rehashes from the stored hashes without reading any node.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ID(ix, n) ((ix)->which ? (n)->md.correl_id : (n)->md.msg_id)

int tpf_index_init(tpf_index_t *ix, int which, uint32_t slots)
{
    ix->slots = tpf_big_alloc((size_t)slots * sizeof *ix->slots);
    if (ix->slots == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    ix->mask = slots - 1u;
    ix->count = 0;
    ix->which = which;
    return MQRC_NONE;
}

void tpf_index_destroy(tpf_index_t *ix)
{
    tpf_big_free(ix->slots, ((size_t)ix->mask + 1u) * sizeof *ix->slots);
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
    tpf_index_slot_t *s = tpf_big_alloc((size_t)n * sizeof *s);
    if (s == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    for (uint32_t i = 0; i <= ix->mask; i++)
        if (ix->slots[i].node != NULL)
            place(s, n - 1u, ix->slots[i]);
    tpf_big_free(ix->slots, ((size_t)ix->mask + 1u) * sizeof *s);
    ix->slots = s;
    ix->mask = n - 1u;
    return MQRC_NONE;
}

int tpf_index_grow_for(tpf_index_t *ix, uint32_t extra)
{
    while (((uint64_t)ix->count + extra) * 2u > (uint64_t)ix->mask + 1u)
        if (grow(ix) != MQRC_NONE)
            return MQRC_STORAGE_NOT_AVAILABLE;
    return MQRC_NONE;
}

/** The slot whose chain holds `id` (hash `hash`), or the empty slot ending its run. */
static uint32_t slot_of(const tpf_index_t *ix, const uint8_t *id, uint32_t hash)
{
    uint32_t i = hash & ix->mask;
    for (;;) {
        const tpf_index_slot_t *e = &ix->slots[i];
        if (e->node == NULL ||
            (e->hash == hash && memcmp(ID(ix, e->node), id, TPF_MQ_ID_LEN) == 0))
            return i;
        i = (i + 1u) & ix->mask;
    }
}

void tpf_index_add(tpf_index_t *ix, tpf_node_t *n, uint32_t hash)
{
    int w = ix->which;
    tpf_index_slot_t *e = &ix->slots[slot_of(ix, ID(ix, n), hash)];
    n->key_prev[w] = NULL;
    if (e->node == NULL) { /* a new id: its own slot */
        n->key_next[w] = NULL;
        e->node = n;
        e->hash = hash;
        ix->count++;
        return;
    }
    /* A duplicate: the new node heads the chain (chains are unordered; a matched get
     * picks the first in delivery order among them). */
    n->key_next[w] = e->node;
    e->node->key_prev[w] = n;
    e->node = n;
}

static void delete_slot(tpf_index_t *ix, uint32_t hole)
{
    uint32_t mask = ix->mask, j = hole;
    /* Backward-shift deletion: pull later members of the probe run into the hole
     * whenever the hole lies between their home slot and where they sit. */
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

void tpf_index_remove(tpf_index_t *ix, tpf_node_t *n, uint32_t hash)
{
    int w = ix->which;
    tpf_node_t *prev = n->key_prev[w], *next = n->key_next[w];
    if (prev != NULL) { /* inside a chain: the slot is unchanged */
        prev->key_next[w] = next;
        if (next != NULL)
            next->key_prev[w] = prev;
        return;
    }
    uint32_t mask = ix->mask, i = hash & mask;
    while (ix->slots[i].node != n) {
        if (ix->slots[i].node == NULL)
            return; /* not indexed */
        i = (i + 1u) & mask;
    }
    if (next != NULL) { /* the head leaves: the next duplicate heads the chain */
        next->key_prev[w] = NULL;
        ix->slots[i].node = next;
        return;
    }
    delete_slot(ix, i);
}

tpf_node_t *tpf_index_find(const tpf_index_t *ix, const uint8_t *id)
{
    return ix->slots[slot_of(ix, id, tpf_index_hash(id))].node;
}
