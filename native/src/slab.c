/* slab.c - message slots from per-size-class free-lists: no malloc per small message
 *
 * A slot holds a node header and its data inline. Slot sizes grow by steps of about
 * 1.5x from 256 bytes to 64 KiB (19 classes), so a slot wastes at most a third of
 * itself. A class is refilled one chunk at a time (at least 16 slots or 64 KiB);
 * chunks are kept until the queue is destroyed, so after warm-up a steady put/get
 * load allocates nothing. Messages too large for the biggest class are malloc'ed
 * singly and freed when got.
 */
#include <stdlib.h>

#include "internal.h"

static const uint32_t class_size[TPF_SLAB_CLASSES] = {
    256,  384,  512,  768,   1024,  1536,  2048,  3072,  4096,  6144,
    8192, 12288, 16384, 24576, 32768, 40960, 49152, 57344, 65536 + 256,
};

#define CHUNK_MIN_BYTES (64u * 1024u)
#define CHUNK_MIN_SLOTS 16u

static int class_of(size_t bytes)
{
    for (int c = 0; c < TPF_SLAB_CLASSES; c++)
        if (bytes <= class_size[c])
            return c;
    return -1;
}

static int refill(tpf_slab_t *s, int c)
{
    size_t sz = class_size[c];
    size_t nslots = CHUNK_MIN_BYTES / sz;
    if (nslots < CHUNK_MIN_SLOTS)
        nslots = CHUNK_MIN_SLOTS;
    size_t header = (sizeof(tpf_slab_chunk_t) + 15u) & ~(size_t)15u;
    size_t bytes = header + nslots * sz;
    tpf_slab_chunk_t *chunk = malloc(bytes);
    if (chunk == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    chunk->bytes = bytes;
    chunk->next = s->chunks;
    s->chunks = chunk;
    s->bytes += bytes;
    unsigned char *base = (unsigned char *)chunk + header;
    for (size_t i = nslots; i-- > 0;) {
        tpf_node_t *n = (tpf_node_t *)(base + i * sz);
        n->size_class = (uint8_t)c;
        n->next = s->free[c];
        s->free[c] = n;
    }
    s->nfree += nslots;
    return MQRC_NONE;
}

tpf_node_t *tpf_slab_alloc(tpf_slab_t *s, uint32_t length)
{
    size_t bytes = sizeof(tpf_node_t) + (size_t)length;
    int c = class_of(bytes);
    if (c < 0) {
        tpf_node_t *n = malloc(bytes);
        if (n == NULL)
            return NULL;
        n->size_class = TPF_CLASS_LARGE;
        s->large_bytes += bytes;
        return n;
    }
    if (s->free[c] == NULL && refill(s, c) != MQRC_NONE)
        return NULL;
    tpf_node_t *n = s->free[c];
    s->free[c] = n->next;
    s->nfree--;
    return n;
}

void tpf_slab_free(tpf_slab_t *s, tpf_node_t *n)
{
    if (n->size_class == TPF_CLASS_LARGE) {
        s->large_bytes -= sizeof(tpf_node_t) + (size_t)n->md.length;
        free(n);
        return;
    }
    n->next = s->free[n->size_class];
    s->free[n->size_class] = n;
    s->nfree++;
}

void tpf_slab_destroy(tpf_slab_t *s)
{
    tpf_slab_chunk_t *c = s->chunks;
    while (c != NULL) {
        tpf_slab_chunk_t *next = c->next;
        free(c);
        c = next;
    }
    s->chunks = NULL;
    s->bytes = 0;
    s->nfree = 0;
    for (int i = 0; i < TPF_SLAB_CLASSES; i++)
        s->free[i] = NULL;
}
