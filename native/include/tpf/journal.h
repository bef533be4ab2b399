/* journal.h - the event journal's records, payload hash and Arrow encoder, in plain C
 *
 * The journal (tpfemu/journal/, docs/journal.md) records every queue-manager event. The
 * MQI's fast paths record their put and get events as fixed records (tpf_journal_rec_t,
 * kept by the EventLog shim, native/python/eventlog.h) with the payload hash of the data
 * (made as it is recorded, or by the writer from the held data of a put, see
 * TPF_JOURNAL_HASH_HELD); the journal's writer encodes runs of them as
 * Arrow IPC record batches of the journal schema with the GIL released. Both were
 * measured against the libraries that could do them (the xxhash package, pyarrow) on
 * the journal's cost of an MQI put+get, and kept because they pay (bench/bench_journal.py,
 * docs/journal.md, "Cost").
 *
 * The schema is defined once, in tpfemu/journal/schema.py. tpf_journal_columns says what
 * the encoder writes, column by column; tpfemu/journal/rows.py checks it against the
 * schema when it is imported and refuses a mismatch.
 *
 * Plain C11: no Python API, so any thread may call these without the GIL.
 */
#ifndef TPF_JOURNAL_H
#define TPF_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tpf/queue.h"

/** The seed of the journal's payload hash: Spark's xxhash64 seed. */
#define TPF_JOURNAL_HASH_SEED 42
/** The columns of the journal schema the encoder writes. */
#define TPF_JOURNAL_NCOLS 20

/** Record kinds: an event emitted in Python (the EventLog keeps its fields), or a
 * message event recorded in C. */
#define TPF_JOURNAL_PY 0
#define TPF_JOURNAL_PUT 1
#define TPF_JOURNAL_GET 2

/** One recorded event (fixed part). */
typedef struct {
    int64_t time_us;                  /**< event time, microseconds since the epoch */
    int64_t deadline;                 /**< expiry deadline (TPF_MQ_NEVER: none) */
    int64_t uow;                      /**< unit of work, 0 outside one */
    int64_t ecb;                      /**< the calling ECB's id, -1 outside any */
    int64_t data_off;                 /**< where its data is in the log's arena (internal) */
    uint8_t msg_id[TPF_MQ_ID_LEN];
    uint8_t correl_id[TPF_MQ_ID_LEN];
    uint8_t group_id[TPF_MQ_ID_LEN];  /**< all zero: MQGI_NONE */
    uint8_t hash[8];                  /**< payload hash of the data (see hash_state) */
    int32_t length;                   /**< message data length (without the record) */
    int32_t queue;                    /**< index of the queue's name in the names table */
    int32_t program;                  /**< index of the program's name, -1: none */
    uint8_t kind;                     /**< TPF_JOURNAL_* */
    uint8_t priority;
    uint8_t persistent;
    uint8_t hash_state;               /**< TPF_JOURNAL_HASH_* (internal to the log) */
    int32_t msg_type;                 /**< MsgType, -1: not known (a record of another layout) */
    int32_t format;                   /**< Format, ReplyToQ and ReplyToQMgr without their */
    int32_t reply_q;                  /**< trailing blanks and NULs: indexes into the names */
    int32_t reply_qmgr;               /**< table (as queue), -1: a blank field (null) */
} tpf_journal_rec_t;

/** Where the context record (tpfemu/qmgr/context.py, the only definition of its layout;
 * handed over with the rest of it by md_layout_set) keeps the fields a record copies:
 * offsets in a record of `size` bytes whose first byte is `version`, and the MsgType of a
 * message without a record (the default put context). */
typedef struct {
    int32_t size;
    int32_t version;
    int32_t msg_type_at, format_at, reply_q_at, reply_qmgr_at; /**< -1: not in the layout */
    int32_t default_msg_type;
    int32_t group_id_at; /**< GroupId (TPF_MQ_ID_LEN bytes), -1: not in the layout */
} tpf_journal_ctx_layout_t;

/** Set the context record layout tpf_journal_record reads (size 0: none known; then
 * every record's msg_type is -1 and its texts blank). Not thread-safe: call before any
 * record is made, as the layout is set once at import. Each call makes a new
 * generation (tpf_journal_ctx_generation). */
void tpf_journal_set_ctx_layout(const tpf_journal_ctx_layout_t *layout);

/** The number of tpf_journal_set_ctx_layout calls so far: what a caller learnt from a
 * context record (the texts, the GroupId) holds while this is unchanged. */
uint32_t tpf_journal_ctx_generation(void);

/** The GroupId in a message's context record (`ctx_len` bytes; NULL or 0: none), or
 * NULL when it has none (no record, a record of another layout, MQGI_NONE). */
const uint8_t *tpf_journal_ctx_group_id(const void *ctx, uint32_t ctx_len);

/** The payload hash of a recently put message, by the queue and the put's sequence
 * number: a get of that message takes it instead of hashing the data again. A table
 * of TPF_JOURNAL_RECENT_PUTS of them (zeroed: empty) is direct-mapped by seq. */
typedef struct {
    const void *q;        /**< the queue (its core address), NULL: empty */
    uint64_t seq;         /**< the put's sequence number within the queue */
    int64_t put_time;     /**< (with q and seq: a queue made later at the same address
                               that numbers its puts afresh does not match) */
    uint64_t recno;       /**< the put's record number in the log */
    uint8_t hash[8];
    uint8_t known;        /**< 0: the hash is left to the writer (TPF_JOURNAL_HASH_HELD) */
} tpf_journal_recent_t;

#define TPF_JOURNAL_RECENT_PUTS 4096

/** How a record's hash is known (tpf_journal_rec_t.hash_state):
 * - HASHED: it is in `hash`;
 * - HELD: not yet: the log holds the put's data (an immutable object, its address in
 *   `data_off`) and its writer hashes it, off the application's thread;
 * - OF_PUT: it is the hash of the put whose record number is in `hash`, a put at most
 *   TPF_JOURNAL_PUT_RING records earlier (the writer remembers that many puts' hashes);
 * - HELD_DONE: HELD, hashed by now, the data not yet let go. */
#define TPF_JOURNAL_HASHED 0
#define TPF_JOURNAL_HASH_HELD 1
#define TPF_JOURNAL_HASH_OF_PUT 2
#define TPF_JOURNAL_HASH_HELD_DONE 3
#define TPF_JOURNAL_PUT_RING (1u << 16)

/** tpf_journal_record's `hash`: none (zeros), now, or a put's left to the writer. */
#define TPF_JOURNAL_HASH_NONE 0
#define TPF_JOURNAL_HASH_NOW 1
#define TPF_JOURNAL_HASH_DEFER 2

/** What a record holds besides the message: when, in which unit of work (0: none), by
 * which ECB (-1: none), the indexes of its queue's and program's names (-1: none),
 * where its data is in the capture's arena, and its record number in the log (every
 * record, of any kind, takes the next). */
typedef struct {
    int64_t time_us;
    uint64_t uow;
    int64_t ecb;
    int32_t queue, program;
    int64_t data_off;
    uint64_t recno;
    int32_t texts[3]; /**< the indexes of its Format, ReplyToQ and ReplyToQMgr, -1: blank */
} tpf_journal_origin_t;

/**
 * Fill `r` for a put or get (`kind`, TPF_JOURNAL_PUT or _GET) of the message `md`
 * describes on queue `q` (its core address), whose data (without its context record) is
 * data[0:length]; `group_id` is its GroupId or NULL for none. `hash` says how r->hash is
 * made (r->hash_state says what it is then): TPF_JOURNAL_HASH_NONE, zeros;
 * TPF_JOURNAL_HASH_NOW, the data's payload hash, computed while the data is in the
 * cache, a put's remembered in `recent` (a table of TPF_JOURNAL_RECENT_PUTS, or NULL);
 * TPF_JOURNAL_HASH_DEFER, as NOW except that a put's is left to the writer (HELD: the
 * caller holds the data and puts its address in r->data_off). A get's is the put's when
 * `recent` holds that put (a message's data never changes): copied when known, else
 * named by the put's record number (OF_PUT) when the put is at most
 * TPF_JOURNAL_PUT_RING records back, else computed. `ctx` is the message's context
 * record (`ctx_len` bytes; NULL or 0: it has none, i.e. the default put context):
 * r->msg_type is read from it, at the offset tpf_journal_set_ctx_layout gave; r->format,
 * reply_q and reply_qmgr are origin->texts.
 */
void tpf_journal_record(tpf_journal_rec_t *r, tpf_journal_recent_t *recent, int kind,
                        const void *q, const tpf_mq_msg_t *md, const uint8_t *group_id,
                        const void *ctx, uint32_t ctx_len, const void *data, size_t length,
                        const tpf_journal_origin_t *origin, int hash);

/** A piece of UTF-8 text (not NUL-terminated). */
typedef struct {
    const char *p;
    size_t len;
} tpf_journal_text_t;

/** The Format, ReplyToQ and ReplyToQMgr of a message's context record (`ctx_len`
 * bytes; NULL or 0: it has none; tpf_journal_set_ctx_layout's offsets) into out[0..2],
 * as they are in the record, blanks included: each a pointer into the record and its
 * width (8, 48, 48), {NULL, 0} for a record of another layout, none, or a field not in
 * the layout. tpf_journal_text_trim makes the text of one (without its trailing blanks
 * and NULs); the caller turns the texts into the indexes a record keeps
 * (tpf_journal_origin_t.texts). A caller that saw the same bytes before knows their
 * text without trimming them again (EventLog compares a raw field with the last). */
void tpf_journal_ctx_fields(const void *ctx, uint32_t ctx_len, tpf_journal_text_t out[3]);

/** A raw field of tpf_journal_ctx_fields without its trailing blanks and NULs ({NULL, 0}
 * when nothing is left). */
tpf_journal_text_t tpf_journal_text_trim(tpf_journal_text_t field);

/** One batch to encode. */
typedef struct {
    const tpf_journal_rec_t *recs; /**< the batch's records, none of kind TPF_JOURNAL_PY */
    size_t n;
    const tpf_journal_text_t *names; /**< what the records' queue and program indexes name */
    const unsigned char *data;     /**< the arena the records' data_off point into, or NULL:
                                        no payload column values (level events) */
} tpf_journal_batch_t;

/** A column as the encoder writes it: its name, its Arrow type as pyarrow names it
 * ("int64", "string", ...) and whether it may hold nulls. */
typedef struct {
    const char *name;
    const char *type;
    int nullable;
} tpf_journal_column_t;

/** The encoder's columns, in order (TPF_JOURNAL_NCOLS of them). */
extern const tpf_journal_column_t tpf_journal_columns[TPF_JOURNAL_NCOLS];

/**
 * Encode `b` as one Arrow IPC encapsulated record-batch message (continuation marker,
 * metadata length, the flatbuffer Message with its RecordBatch header, padding, then the
 * body buffers), appended to what `out` has staged for a segment that begins with the
 * schema message (tpf_journal_seg_t, below); the message is *out_len bytes, a multiple
 * of 8. The columns are filled in one
 * pass over the records. Columns,
 * and how each is made from a record (the segment schema: seq, cpu and qmgr are not
 * rows, the segment's metadata holds them): event_time_us, queue and program (text from
 * the names; program null for -1), event ("put"/"get"), msg_id and correl_id (24-byte
 * fixed-size binary), group_id (null when all zero), priority (int8),
 * persistent, expiry (the time left at the event: -1 for none, tenths of a second
 * rounded up, 0 once passed), length, payload_hash (8-byte fixed-size binary), payload
 * (the data when `data` is
 * given, else null), uow, ecb (null for -1), detail (null), msg_type (null for -1),
 * format, reply_to_q, reply_to_qmgr (null when blank). Returns 0, or -1 when memory
 * is exhausted (nothing staged).
 */
typedef struct tpf_journal_seg tpf_journal_seg_t;
int tpf_journal_encode(const tpf_journal_batch_t *b, tpf_journal_seg_t *out, size_t *out_len);

/** Block size and alignment of a segment's direct writes (a multiple of every logical
 * block size O_DIRECT asks for). */
#define TPF_JOURNAL_SEG_ALIGN 4096u

/**
 * The end of a segment file being appended to (journal_segment.c): appends are staged
 * in memory and written to the file with pwrite(2). Through a file descriptor opened
 * with O_DIRECT they go to the disk without the page cache, in whole aligned blocks (a
 * fifth of the kernel's CPU a buffered write and its write-behind take, measured): the
 * partial block at the end stays staged, written again, padded with zeros, by every
 * tpf_journal_seg_write(..., TPF_JOURNAL_SEG_ALL or _CUT); with _CUT (a flush) the file
 * is then truncated to its true size, so that it ends where the appends end; with _ALL
 * (the journal writer's cycles between flushes) the zeros stay until the next write
 * covers them or a _CUT cuts them (an Arrow stream reader takes them for the end of the
 * stream). Cutting a file at every cycle made the kernel zero the cut block in the
 * page cache, and the next direct write wait for that page to be written and dropped.
 * Through any other descriptor the staged bytes are written as they are.
 * Zero-initialize; not thread-safe.
 */
struct tpf_journal_seg {
    unsigned char *buf; /**< staging, TPF_JOURNAL_SEG_ALIGN-aligned (free() it) */
    size_t cap;
    size_t used;        /**< bytes staged: the file's bytes from `base` on */
    size_t done;        /**< of which already written (the head of a partial block) */
    int64_t base;       /**< the file offset of buf[0] */
    int64_t end;        /**< the file's end as written (past the true size: padding) */
};

/** Room for `n` more bytes at the end of the staged ones: where to put them (commit them
 * by adding n to used), or NULL when memory is exhausted (nothing changed). */
unsigned char *tpf_journal_seg_reserve(tpf_journal_seg_t *s, size_t n);

/** tpf_journal_seg_write's `all`: whole blocks only; everything, a direct write's
 * padding left in the file; everything, the file then cut to its true size. */
#define TPF_JOURNAL_SEG_BLOCKS 0
#define TPF_JOURNAL_SEG_CUT 1
#define TPF_JOURNAL_SEG_ALL 2

/** Write what is staged to `fd` at its place in the file: as `all` says (above; a
 * buffered write always writes everything). With O_DIRECT
 * an unaligned start or a write the file system refuses (EINVAL) turns O_DIRECT off on
 * fd, and the bytes are written buffered. Returns 0, or -1 with errno (nothing
 * unstaged). */
int tpf_journal_seg_write(tpf_journal_seg_t *s, int fd, int all);

/** The file's size once everything staged is written. */
int64_t tpf_journal_seg_size(const tpf_journal_seg_t *s);

/**
 * The journal's payload hash: XXH64(data[0:len], seed=TPF_JOURNAL_HASH_SEED) into out[8],
 * most significant byte first (xxHash's canonical form). Read as a signed big-endian
 * 64-bit integer it is what Spark's built-in xxhash64(payload) returns, and the bytes are
 * Python's xxhash.xxh64(data, seed=42).digest(). It tells changed payloads apart; it is
 * not a cryptographic hash. data may be NULL when len is 0.
 */
void tpf_payload_hash64(const uint8_t *data, size_t len, uint8_t out[8]);

#endif
