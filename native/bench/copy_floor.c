/* copy_floor.c - what copying a batch in and out costs, with nothing else
 *
 * Usage: copy_floor [payload_bytes] [batch] [rounds]
 * A benchmark helper, not part of tpfemu. A queue that owns its messages copies each one
 * into a slot of its own on put and out of it on get. This program does only that, for
 * batches like bench_core.py's put_many/get_many (64 messages of 1 KB by default): it
 * copies `batch` payloads from one buffer into slots, each at the core's data offset (after
 * a 184-byte node header; slots are that plus the data, rounded up to 256 bytes, a little
 * closer together than the core's size classes), then back out into a second buffer,
 * everything hot in the cache. It
 * prints the best of five timings:
 *   copy_in_out_ns <ns per message>
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
    size_t batch = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
    long rounds = argc > 3 ? strtol(argv[3], NULL, 10) : 100000;
    size_t slot = (size + 184 + 255) / 256 * 256; /* a node header, then the data */
    if (size == 0 || batch == 0 || rounds <= 0)
        return 1;
    unsigned char *src = malloc(batch * size), *dst = malloc(batch * size);
    unsigned char *slots = malloc(batch * slot);
    if (src == NULL || dst == NULL || slots == NULL)
        return 2;
    memset(src, 'x', batch * size);
    memset(dst, 0, batch * size);
    memset(slots, 0, batch * slot);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now_s();
        for (long r = 0; r < rounds; r++) {
            for (size_t i = 0; i < batch; i++)
                memcpy(slots + i * slot + 184, src + i * size, size);
            __asm__ volatile("" ::: "memory"); /* the copies are not to be merged away */
            for (size_t i = 0; i < batch; i++)
                memcpy(dst + i * size, slots + i * slot + 184, size);
            __asm__ volatile("" ::: "memory");
        }
        double ns = (now_s() - t0) * 1e9 / ((double)rounds * (double)batch);
        if (ns < best)
            best = ns;
    }
    if (memcmp(src, dst, batch * size) != 0)
        return 3;
    printf("copy_in_out_ns %.1f\n", best);
    free(src);
    free(dst);
    free(slots);
    return 0;
}
