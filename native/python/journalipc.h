/* journalipc.h - journal rows as Arrow IPC record-batch messages, encoded in C
 *
 * The journal writer's hot path (tpfemu/journal/writer.py): the events the MQI's fast
 * paths recorded (eventlog.h) become one record batch of the journal schema
 * (tpfemu/journal/schema.py, docs/journal.md) per call, encoded here as an Arrow IPC
 * "encapsulated message" (continuation marker, metadata length, the flatbuffer Message
 * with its RecordBatch header, padding, then the body buffers), ready to append to a
 * segment that begins with the schema message (the writer writes pyarrow's
 * serialization of the schema first). The same rows as the
 * column-by-column path in Python, without Python: EventLog.write_ipc calls this with
 * the GIL released, so the application's threads run meanwhile.
 *
 * Columns, in schema order, and how each is made from a record (see eventlog_rec_t):
 * event_time_us, seq (seq0 + i), cpu and qmgr (the same text on every row), queue and
 * program (text from the names table; program null for -1), event ("put"/"get"),
 * msg_id, correl_id, group_id (null when all zero), priority, persistent, expiry (the
 * time left at the event: -1 for none, tenths of a second rounded up, 0 once passed),
 * length, payload_hash, payload (the data at level payload, else null), uow, ecb (null
 * for -1), detail (null).
 *
 * Plain C: no Python API is called, so any thread may call it without the GIL.
 */
#ifndef TPFEMU_JOURNALIPC_H
#define TPFEMU_JOURNALIPC_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"

/** A piece of UTF-8 text (not NUL-terminated). */
typedef struct {
    const char *p;
    size_t len;
} jipc_text_t;

/** One batch to encode. */
typedef struct {
    const eventlog_rec_t *recs; /**< the batch's records, none of kind EVENTLOG_PY */
    size_t n;
    int64_t seq0;               /**< the first row's seq */
    jipc_text_t cpu, qmgr;
    const jipc_text_t *names;   /**< what the records' queue and program indexes name */
    const unsigned char *data;  /**< the arena the records' data_off point into, or NULL:
                                     no payload column values (level events) */
} jipc_batch_t;

/**
 * Encode `b` as one encapsulated record-batch message into a new buffer: *out (free it
 * with free()) of *out_len bytes, a multiple of 8. Returns 0, or -1 when memory is
 * exhausted (nothing allocated).
 */
int jipc_encode(const jipc_batch_t *b, unsigned char **out, size_t *out_len);

#endif
