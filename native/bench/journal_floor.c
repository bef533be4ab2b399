/* journal_floor.c - the least any event journal must do for an MQI put+get pair
 *
 * A benchmark helper, not part of tpfemu (bench/bench_journal.py compiles it into a
 * shared library with native/src/payload_hash.c and calls it through ctypes). A journal
 * at level events records, for each put and each get, the event's time, MsgId, CorrelId,
 * priority, persistence, expiry, length, queue and the payload hash of the message data,
 * and gets those records into a file. floor_journal does only that, in the cheapest way
 * there is: per pair, two clock reads, one XXH64 of the payload (the put's; the get
 * reuses it: the data of a message never changes), two fixed 64-byte records stored
 * into a preallocated 1 MiB buffer, and, each time the buffer is full (and at the end,
 * padded to a whole block), one write of it to `fd`: with O_DIRECT on fd (as the
 * journal writes its segments where the file system takes it, the cheapest write
 * there is) straight to the disk, else through the page cache, whose pages the kernel
 * is then told to drop (posix_fadvise, as the journal's write-behind does). No Python,
 * no encoding, no names, no thread hand-over.
 * The caller adds its time to the same run's MQI put+get with the journal off: that sum
 * is the floor of a journal's put+get.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tpf/journal.h"

typedef struct {
    int64_t time_us;
    uint8_t msg_id[24];
    uint8_t correl_id[24];
    uint8_t hash[8];
} floor_rec_t; /* 64 bytes; length, priority, queue... folded into the ids' spare bytes */

#define CHUNK (1u << 20)
#define BLOCK 4096u
static _Alignas(BLOCK) floor_rec_t buf[CHUNK / sizeof(floor_rec_t)];

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Record `pairs` put+get pairs of `data[0:len]` and write them to fd at `*offset`
 * (which it advances; with O_DIRECT a multiple of BLOCK). Returns 0, or -1 when a write
 * fails. */
int floor_journal(int fd, uint64_t pairs, const uint8_t *data, size_t len, int64_t *offset)
{
    const size_t per = CHUNK / sizeof(floor_rec_t);
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return -1;
    int direct = (flags & O_DIRECT) != 0;
    size_t n = 0;
    for (uint64_t i = 0; i < pairs; i++) {
        for (int kind = 0; kind < 2; kind++) {
            floor_rec_t *r = &buf[n++];
            r->time_us = now_us();
            memcpy(r->msg_id, &i, sizeof i); /* (a MsgId the core would have made) */
            memset(r->msg_id + 8, 0, 16);
            memset(r->correl_id, 0, 24);
            r->correl_id[20] = (uint8_t)kind;
            memcpy(r->correl_id + 16, &len, 4);
            if (kind == 0)
                tpf_payload_hash64(data, len, r->hash);
            else
                memcpy(r->hash, r[-1].hash, 8);
            if (n == per || (i + 1 == pairs && kind == 1)) {
                size_t bytes = n * sizeof(floor_rec_t);
                if (direct && bytes % BLOCK != 0) { /* (padding: records of time 0) */
                    size_t whole = (bytes + BLOCK - 1) / BLOCK * BLOCK;
                    memset((char *)buf + bytes, 0, whole - bytes);
                    bytes = whole;
                }
                if (pwrite(fd, buf, bytes, (off_t)*offset) != (ssize_t)bytes)
                    return -1;
                if (!direct && *offset >= (int64_t)(2 * CHUNK))
                    posix_fadvise(fd, *offset - 2 * CHUNK, CHUNK, POSIX_FADV_DONTNEED);
                *offset += (int64_t)bytes;
                n = 0;
            }
        }
    }
    return 0;
}
