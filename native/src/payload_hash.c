/* payload_hash.c - XXH64 with seed 42 (see tpf/journal.h for what and why)
 *
 * Written from the published description of XXH64 (xxHash's specification, "xxhash_spec"):
 * input of 32 bytes or more goes through four accumulators, one 8-byte lane each of every
 * 32-byte stripe; the accumulators are then merged; the last 0-31 bytes are mixed in 8,
 * then 4, then 1 at a time; a final avalanche spreads every bit. Input words are read
 * little-endian; the result is written big-endian.
 */
#include "tpf/journal.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v); /* one unaligned load */
    return v;
}

static inline uint32_t read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
#else
static inline uint64_t read64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
#endif

/* One lane into an accumulator. */
static inline uint64_t xx_round(uint64_t acc, uint64_t lane)
{
    acc += lane * P2;
    acc = rotl64(acc, 31);
    return acc * P1;
}

/* One accumulator into the hash, after the stripes. */
static inline uint64_t xx_merge(uint64_t h, uint64_t acc)
{
    h ^= xx_round(0, acc);
    return h * P1 + P4;
}

void tpf_payload_hash64(const uint8_t *data, size_t len, uint8_t out[8])
{
    static const uint8_t none[1] = {0};
    const uint64_t seed = TPF_JOURNAL_HASH_SEED;
    if (data == NULL) /* (NULL + 0 is undefined in C) */
        data = none;
    const uint8_t *p = data;
    const uint8_t *end = data + len;
    uint64_t h;

    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const uint8_t *last = end - 32; /* the last whole stripe starts at or before this */
        do { /* four independent chains: the CPU runs them side by side */
            v1 = xx_round(v1, read64(p));
            v2 = xx_round(v2, read64(p + 8));
            v3 = xx_round(v3, read64(p + 16));
            v4 = xx_round(v4, read64(p + 24));
            p += 32;
        } while (p <= last);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xx_merge(h, v1);
        h = xx_merge(h, v2);
        h = xx_merge(h, v3);
        h = xx_merge(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)len;

    /* The 0-31 bytes after the stripes. */
    for (; end - p >= 8; p += 8) {
        h ^= xx_round(0, read64(p));
        h = rotl64(h, 27) * P1 + P4;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)read32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++) {
        h ^= (uint64_t)*p * P5;
        h = rotl64(h, 11) * P1;
    }

    /* Avalanche. */
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;

    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(h >> (56 - 8 * i));
}
