/* slab.c - message slots from per-size-class free-lists: no malloc per small message
 *
 * A slot holds a node header and its data inline. Slot sizes grow by steps of about
 * 1.5x from 256 bytes to 64 KiB (19 classes), so a slot wastes at most a third of
 * itself. A class is refilled one chunk at a time (at least 16 slots or 64 KiB);
 * chunks are kept until the queue is destroyed, so after warm-up a steady put/get
 * load allocates nothing. Messages too large for the biggest class are malloc'ed
 * singly and freed when got.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

/* ---- large zeroed blocks on huge pages ---------------------------------------------- */

#define BIG_ALIGN ((size_t)2u << 20) /**< a transparent huge page on x86-64 */

/* At depth the core touches its slabs and hash indexes at random: with 4 KiB pages
 * nearly every such access also misses the TLB (a 1M-message queue spans ~300 MB). So
 * blocks of 2 MiB and more are mapped 2 MiB-aligned and marked for transparent huge
 * pages (a hint: with THP off they are ordinary pages). */
void *tpf_big_alloc(size_t bytes)
{
    if (bytes < BIG_ALIGN)
        return calloc(1, bytes);
    size_t len = (bytes + BIG_ALIGN - 1u) & ~(BIG_ALIGN - 1u);
    unsigned char *m = mmap(NULL, len + BIG_ALIGN, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    size_t lead = (BIG_ALIGN - ((uintptr_t)m & (BIG_ALIGN - 1u))) & (BIG_ALIGN - 1u);
    if (lead != 0)
        munmap(m, lead);
    if (BIG_ALIGN - lead != 0)
        munmap(m + lead + len, BIG_ALIGN - lead);
#ifdef MADV_HUGEPAGE
    madvise(m + lead, len, MADV_HUGEPAGE);
#endif
    return m + lead; /* fresh anonymous memory reads as zero */
}

void tpf_big_free(void *p, size_t bytes)
{
    if (p == NULL)
        return;
    if (bytes < BIG_ALIGN) {
        free(p);
        return;
    }
    munmap(p, (bytes + BIG_ALIGN - 1u) & ~(BIG_ALIGN - 1u));
}

/* ---- slabs ---------------------------------------------------------------------------- */

const uint32_t tpf_slab_class_size[TPF_SLAB_CLASSES] = {
    256,  384,  512,  768,   1024,  1536,  2048,  3072,  4096,  6144,
    8192, 12288, 16384, 24576, 32768, 40960, 49152, 57344, 65536 + 256,
};

#define CHUNK_MIN_BYTES ((size_t)64u * 1024u)
#define CHUNK_MAX_BYTES ((size_t)8u << 20)
#define CHUNK_MIN_SLOTS 16u

static int class_of(size_t bytes)
{
    for (int c = 0; c < TPF_SLAB_CLASSES; c++)
        if (bytes <= tpf_slab_class_size[c])
            return c;
    return -1;
}

static int refill(tpf_slab_t *s, int c)
{
    size_t sz = tpf_slab_class_size[c];
    /* A class's chunks grow with it (64 KiB, 64 KiB, 128 KiB, ... up to 8 MiB), so a
     * deep queue's slots lie on huge pages while a small queue stays small; at most
     * half of a class's slots (or 8 MiB) are ever unused for that reason. */
    size_t target = s->class_bytes[c];
    if (target < CHUNK_MIN_BYTES)
        target = CHUNK_MIN_BYTES;
    if (target > CHUNK_MAX_BYTES)
        target = CHUNK_MAX_BYTES;
    size_t header = (sizeof(tpf_slab_chunk_t) + 15u) & ~(size_t)15u;
    size_t nslots = (target - header) / sz;
    if (nslots < CHUNK_MIN_SLOTS)
        nslots = CHUNK_MIN_SLOTS;
    size_t bytes = header + nslots * sz;
    tpf_slab_chunk_t *chunk = bytes >= BIG_ALIGN ? tpf_big_alloc(bytes) : malloc(bytes);
    if (chunk == NULL)
        return MQRC_STORAGE_NOT_AVAILABLE;
    chunk->bytes = bytes;
    chunk->next = s->chunks;
    s->chunks = chunk;
    s->bytes += bytes;
    s->class_bytes[c] += bytes;
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

tpf_node_t *tpf_slab_alloc_slow(tpf_slab_t *s, uint32_t length)
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

void tpf_slab_free_large(tpf_slab_t *s, tpf_node_t *n)
{
    s->large_bytes -= sizeof(tpf_node_t) + (size_t)n->md.length;
    free(n);
}

void tpf_slab_destroy(tpf_slab_t *s)
{
    tpf_slab_chunk_t *c = s->chunks;
    while (c != NULL) {
        tpf_slab_chunk_t *next = c->next;
        if (c->bytes >= BIG_ALIGN)
            tpf_big_free(c, c->bytes);
        else
            free(c);
        c = next;
    }
    s->chunks = NULL;
    s->bytes = 0;
    s->nfree = 0;
    for (int i = 0; i < TPF_SLAB_CLASSES; i++) {
        s->free[i] = NULL;
        s->class_bytes[i] = 0;
    }
}
