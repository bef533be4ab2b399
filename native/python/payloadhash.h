/* payloadhash.h - the event journal's payload hash: XXH64 with seed 42, big-endian
 *
 * payload_hash64(data, len, out) writes XXH64(data[0:len], seed=42) into out[8], most
 * significant byte first (xxHash's canonical form). That is the `payload_hash` column of
 * the journal (docs/journal.md, schema version 2). Why this hash: read as a signed
 * big-endian 64-bit integer, it is exactly what Spark's built-in `xxhash64(payload)`
 * returns (Spark's XxHash64 uses seed 42), and the bytes are what Python's
 * `xxhash.xxh64(data, seed=42).digest()` returns, so users and the Spark pipeline can
 * compute it themselves, and a journal with hashes only compares with one with payloads.
 * It detects changed payloads; it is not a cryptographic hash.
 *
 * Plain C11, no Python: safe to call without the GIL, from any thread.
 */
#ifndef TPFEMU_PAYLOADHASH_H
#define TPFEMU_PAYLOADHASH_H

#include <stddef.h>
#include <stdint.h>

/** The seed of the journal's hash: Spark's xxhash64 seed. */
#define PAYLOAD_HASH_SEED 42u

/** XXH64(data[0:len], seed=PAYLOAD_HASH_SEED) into out[8], big-endian. data may be NULL
 *  when len is 0. */
void payload_hash64(const uint8_t *data, size_t len, uint8_t out[8]);

#endif
