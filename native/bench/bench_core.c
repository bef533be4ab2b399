/* bench_core.c - C-only timing of the core: 10-priority put+get pairs at depth
 *
 * Usage: bench_core [depth] [pairs] [payload_bytes]
 * Fills a queue to `depth` with messages of random priority 0..9, then times `pairs`
 * put+get pairs (random priority) through the public API, one call each. As a
 * baseline in the same run it times a binary heap keyed (priority, seq) holding the
 * same payload pointers, the structure the core replaces. Prints one line per figure:
 *   core_put_get_ns <ns per pair>
 *   heap_push_pop_ns <ns per pair>
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpf/queue.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ull;
static inline uint32_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

typedef struct { uint64_t key; void *payload; } hent_t; /* key = (9 - prio) << 48 | seq */

static void heap_push(hent_t *h, size_t *n, hent_t e)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p].key <= e.key) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static hent_t heap_pop(hent_t *h, size_t *n)
{
    hent_t top = h[0], last = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l].key < last.key) m = l;
        if (r < *n && h[r].key < (m == i ? last.key : h[m].key)) m = r;
        if (m == i) break;
        h[i] = h[m];
        i = m;
    }
    h[i] = last;
    return top;
}

int main(int argc, char **argv)
{
    uint32_t depth = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    uint32_t pairs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 2000000u;
    uint32_t size = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 16u;
    char *payload = calloc(1, size + 1);
    char *out = malloc(size + 1);
    tpf_mq_config_t cfg = {0};
    cfg.max_msg_length = size + 1;
    tpf_mq_queue_t *q;
    if (tpf_mq_create(&cfg, &q) != MQRC_NONE) return 1;
    for (uint32_t i = 0; i < depth; i++)
        if (tpf_mq_put_simple(q, payload, size, (int)(xorshift() % 10), 0) != MQRC_NONE) return 2;
    tpf_mq_msg_t md;
    double t0 = now_s();
    for (uint32_t i = 0; i < pairs; i++) {
        if (tpf_mq_put_simple(q, payload, size, (int)(xorshift() % 10), 0) != MQRC_NONE) return 3;
        if (tpf_mq_get_simple(q, 0, &md, out, size + 1) != MQRC_NONE) return 4;
    }
    double core_ns = (now_s() - t0) * 1e9 / pairs;
    if (tpf_mq_depth(q) != depth) return 5;
    tpf_mq_destroy(q);

    hent_t *h = malloc(sizeof *h * ((size_t)depth + 2));
    size_t hn = 0;
    uint64_t seq = 0;
    for (uint32_t i = 0; i < depth; i++) {
        void *p = malloc(size); memcpy(p, payload, size);
        heap_push(h, &hn, (hent_t){((uint64_t)(9 - xorshift() % 10) << 48) | seq++, p});
    }
    t0 = now_s();
    for (uint32_t i = 0; i < pairs; i++) {
        void *p = malloc(size); memcpy(p, payload, size);
        heap_push(h, &hn, (hent_t){((uint64_t)(9 - xorshift() % 10) << 48) | seq++, p});
        hent_t e = heap_pop(h, &hn);
        memcpy(out, e.payload, size);
        free(e.payload);
    }
    double heap_ns = (now_s() - t0) * 1e9 / pairs;
    while (hn) free(heap_pop(h, &hn).payload);
    free(h);
    printf("depth %u pairs %u payload %u\n", depth, pairs, size);
    printf("core_put_get_ns %.1f\n", core_ns);
    printf("heap_push_pop_ns %.1f\n", heap_ns);
    free(payload); free(out);
    return 0;
}
