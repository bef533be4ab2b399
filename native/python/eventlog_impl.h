/* eventlog_impl.h - the EventLog's insides, shared by its two halves (private to
 * native/python: eventlog.c records and hands over, eventwrite.c writes; see eventlog.h)
 */
#ifndef TPFEMU_EVENTLOG_IMPL_H
#define TPFEMU_EVENTLOG_IMPL_H

#include "eventlog.h"

/** The recorded events not taken yet. */
typedef struct {
    eventlog_rec_t *recs;
    Py_ssize_t n, cap;
    unsigned char *data;  /**< the arena: the recorded events' data (level payload) */
    size_t used, size;
    PyObject **items;     /**< tuples of events emitted in Python, in order (owned) */
    Py_ssize_t nitems, cap_items;
    uint64_t recno0;      /**< the record number of recs[0] */
    size_t held;          /**< bytes of the puts' data held for the writer to hash */
    PyObject **held_objs; /**< that data (owned), in order */
    Py_ssize_t nheld, cap_held;
} evbuf_t;

/** A put's hash as the writer knows it (a ring of TPF_JOURNAL_PUT_RING, by record
 * number; tag: the record number + 1, 0: empty). */
typedef struct {
    uint64_t tag;
    uint8_t hash[8];
} put_hash_t;

/** Most bytes of the puts' data a buffer holds for the writer; past that, puts are
 * hashed as they are recorded. */
#define HELD_MAX ((size_t)64 << 20)

/** The last context record read (eventlog_record): what a record keeps of it, so that
 * the next event of a message with the same record (an application's puts share their
 * put context) compares its bytes instead of reading its fields again. Holds while
 * `generation` is the context layout's and the cycle's names are (len 0: nothing). */
typedef struct {
    uint32_t len;
    uint32_t generation;
    int32_t texts[3];          /**< the indexes of its Format, ReplyToQ, ReplyToQMgr */
    int has_group;             /**< GroupId not MQGI_NONE: in group */
    uint8_t group[TPF_MQ_ID_LEN];
    char bytes[512];           /**< the record (a longer one is not kept) */
} ctx_memo_t;


typedef struct {
    PyObject_HEAD
    evbuf_t cur;
    evbuf_t spare;        /**< (write_ipc swaps it in while it writes the other) */
    tpf_journal_recent_t *recent; /**< the recent puts' hashes, allocated with the first */
    PyObject *names;      /**< list: the queue and program names of this cycle */
    PyObject *index;      /**< dict: name -> its index in names */
    PyObject *last_name[2]; /**< (borrowed, held by names) the last queue / program seen */
    int32_t last_ix[2];
    char last_text[3][48];  /**< the last Format, ReplyToQ, ReplyToQMgr fields seen, as
                                 they are in the context record (blanks included) */
    size_t last_text_len[3]; /**< their widths, 0: none seen this cycle */
    int32_t last_text_ix[3]; /**< and their indexes in names (-1: blank) */
    ctx_memo_t memo;      /**< the last context record read */
    Py_ssize_t lost;      /**< events the fast paths could not record (no memory) */
    PyObject *current;    /**< callable() -> the running ECB or None (the slow way) */
    int payload;          /**< keep the data for take() (journal level payload) */
    int hashes;           /**< hash each event's data here; 0: keep the data instead,
                               hash 0 (the writer hashes it; bench_journal's alternative) */
    int writing;          /**< write_ipc() runs with the GIL released */
    tpf_journal_seg_t enc; /**< write_ipc's buffer for one encoded batch, kept for the next
                               (given a file descriptor, not a SegmentFile) */
    uint64_t recno;       /**< the number the next record takes */
    put_hash_t *ring;     /**< the writer's recent puts' hashes (resolve_hashes) */
    int wake_fd;          /**< written to (one byte) once a buffer holds wake_every
                               records: the writer's wake-up (-1: none, see wake_on) */
    Py_ssize_t wake_every; /**< (0: never) */
} EventLog;

/** Let go of the puts' data b holds (their records' hashes are made by then, or, for a
 * buffer dropped unwritten, stay zeros). Needs the GIL. */
void evbuf_release_held(evbuf_t *b);
/** Empty b for the next cycle, releasing the tuples it still holds (GIL). */
void evbuf_empty(evbuf_t *b);
/** Start a new cycle's table of names with `names` and `index` (new references). */
void eventlog_names_restart(EventLog *self, PyObject *names, PyObject *index);
/** Make the hashes the application's thread left to the writer, records [start, end) of
 * b, in record order (eventwrite.c); needs no GIL. */
void eventlog_resolve_hashes(put_hash_t *ring, evbuf_t *b, Py_ssize_t start, Py_ssize_t end);
/** EventLog.write_ipc (eventwrite.c) and its docstring. */
PyObject *eventlog_write_ipc(EventLog *self, PyObject *const *args, Py_ssize_t nargs);
extern const char eventlog_write_ipc_doc[];

#endif
