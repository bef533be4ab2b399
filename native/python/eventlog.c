/* eventlog.c - the event journal's capture buffer (see eventlog.h)
 *
 * Ownership: the log owns its records, its data arenas and its table of names; an event
 * emitted in Python is kept as its tuple (a strong reference) until take() hands it
 * over. take() returns new objects only: the records and (at level payload) the data
 * as bytes, the names and the tuples as lists.
 */
#include "eventlog.h"

#include <errno.h>
#include <poll.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <stddef.h>
#include <string.h>
#include <structmember.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* -- EventLog ------------------------------------------------------------------------- */

/* Room for one more record in b; -1 when memory is exhausted (nothing changed). */
static int rec_room(evbuf_t *b)
{
    if (b->n < b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap * 2 : 1024;
    eventlog_rec_t *recs = PyMem_RawRealloc(b->recs, sizeof *recs * (size_t)cap);
    if (recs == NULL)
        return -1;
    b->recs = recs;
    b->cap = cap;
    return 0;
}

/* After a record was added to the current buffer: the writer is woken (a byte written
 * to wake_fd, which never blocks) when the buffer has just reached wake_every records,
 * once per buffer (the writer swaps it for an empty one). A failed write is left: the
 * writer wakes at its interval anyway. */
static inline void wake_writer(EventLog *self)
{
    if (self->cur.n == self->wake_every && self->wake_fd >= 0) {
        static const char one = 1;
        ssize_t w = write(self->wake_fd, &one, 1);
        (void)w;
    }
}

/* Room for one more held object in b; -1 when memory is exhausted (nothing changed). */
static int held_room(evbuf_t *b)
{
    if (b->nheld < b->cap_held)
        return 0;
    Py_ssize_t cap = b->cap_held ? b->cap_held * 2 : 1024;
    PyObject **objs = PyMem_RawRealloc(b->held_objs, sizeof *objs * (size_t)cap);
    if (objs == NULL)
        return -1;
    b->held_objs = objs;
    b->cap_held = cap;
    return 0;
}

/* Room for `len` more bytes in b's arena; -1 when memory is exhausted. */
static int data_room(evbuf_t *b, size_t len)
{
    if (b->size - b->used >= len)
        return 0;
    size_t size = b->size ? b->size : (size_t)1 << 20;
    while (size - b->used < len)
        size *= 2;
    unsigned char *data = PyMem_RawRealloc(b->data, size);
    if (data == NULL)
        return -1;
    b->data = data;
    b->size = size;
    return 0;
}

/* Let go of the puts' data b holds (their records' hashes are made by then, or, for a
 * buffer dropped unwritten, stay zeros). Needs the GIL. */
static void release_held(evbuf_t *b)
{
    for (Py_ssize_t i = 0; i < b->nheld; i++)
        Py_DECREF(b->held_objs[i]);
    b->nheld = 0;
    b->held = 0;
}

/* The hashes the application's thread left to the writer, for records [start, end) of
 * b in order: each HELD put's data hashed (once for a run of puts of the same object),
 * each OF_PUT get given its put's hash from the ring, every put's hash put in the ring.
 * Every record goes through here once, in record order (write_ipc, batch by batch just
 * before it encodes them, while they are in the cache; take), so the ring holds what
 * the application's thread expects. Needs no GIL: it reads the held objects' data only
 * (immutable bytes, held). */
static void resolve_hashes(put_hash_t *ring, evbuf_t *b, Py_ssize_t start, Py_ssize_t end)
{
    const PyObject *last = NULL;
    uint8_t last_hash[8] = {0};
    for (Py_ssize_t i = start; i < end; i++) {
        eventlog_rec_t *r = &b->recs[i];
        uint64_t recno = b->recno0 + (uint64_t)i;
        if (r->kind == EVENTLOG_PY)
            continue;
        if (r->hash_state == TPF_JOURNAL_HASH_HELD) {
            PyObject *data = (PyObject *)(intptr_t)r->data_off;
            if (data != last) {
                tpf_payload_hash64((const uint8_t *)PyBytes_AS_STRING(data),
                                   (size_t)PyBytes_GET_SIZE(data), last_hash);
                last = data;
            }
            memcpy(r->hash, last_hash, 8);
            r->hash_state = TPF_JOURNAL_HASH_HELD_DONE;
        } else if (r->hash_state == TPF_JOURNAL_HASH_OF_PUT) {
            uint64_t put;
            memcpy(&put, r->hash, 8);
            const put_hash_t *e = &ring[put & (TPF_JOURNAL_PUT_RING - 1)];
            if (e->tag == put + 1) /* (always: the put is at most the ring's size back) */
                memcpy(r->hash, e->hash, 8);
            else
                memset(r->hash, 0, 8);
            r->hash_state = TPF_JOURNAL_HASHED;
        }
        if (r->kind == EVENTLOG_PUT) {
            put_hash_t *e = &ring[recno & (TPF_JOURNAL_PUT_RING - 1)];
            e->tag = recno + 1;
            memcpy(e->hash, r->hash, 8);
        }
    }
}

static void buf_free(evbuf_t *b)
{
    release_held(b);
    for (Py_ssize_t i = 0; i < b->nitems; i++)
        Py_DECREF(b->items[i]);
    PyMem_RawFree(b->recs);
    PyMem_RawFree(b->data);
    PyMem_RawFree(b->items);
    PyMem_RawFree(b->held_objs);
    memset(b, 0, sizeof *b);
}

/* Empty b for the next cycle, releasing the tuples it still holds. Its records and
 * arena stay allocated (reused: memory already mapped), except an arena far larger than
 * this cycle needed (after a burst). */
static void buf_empty(evbuf_t *b)
{
    for (Py_ssize_t i = 0; i < b->nitems; i++)
        Py_DECREF(b->items[i]);
    b->nitems = 0;
    b->n = 0;
    if (b->size > ((size_t)64 << 20) && b->used < b->size / 8) {
        PyMem_RawFree(b->data);
        b->data = NULL;
        b->size = 0;
    }
    b->used = 0;
}

/* Start a new cycle's table of names with `names` and `index` (new references, taken
 * over); the old table goes (a taker holds it if it still needs it). */
static void names_restart(EventLog *self, PyObject *names, PyObject *index)
{
    Py_SETREF(self->names, names);
    Py_SETREF(self->index, index);
    self->last_name[0] = self->last_name[1] = NULL;
    self->last_text_len[0] = self->last_text_len[1] = self->last_text_len[2] = 0;
}

/* The index of `name` (a str) in this cycle's names, added if new; `which`: 0 queue,
 * 1 program (each remembers its last name, so a run of one name is a pointer test).
 * -1 with an exception set. */
static int32_t name_index(EventLog *self, PyObject *name, int which)
{
    if (name == self->last_name[which])
        return self->last_ix[which];
    PyObject *found = PyDict_GetItemWithError(self->index, name);
    Py_ssize_t ix;
    if (found != NULL) {
        ix = PyLong_AsSsize_t(found);
    } else {
        if (PyErr_Occurred())
            return -1;
        ix = PyList_GET_SIZE(self->names);
        PyObject *v = PyLong_FromSsize_t(ix);
        int rc = v != NULL ? PyDict_SetItem(self->index, name, v) : -1;
        Py_XDECREF(v);
        if (rc < 0)
            return -1;
        if (PyList_Append(self->names, name) < 0) {
            PyDict_DelItem(self->index, name);
            return -1;
        }
    }
    self->last_name[which] = name;
    self->last_ix[which] = (int32_t)ix;
    return (int32_t)ix;
}

static int32_t text_index_new(EventLog *self, int which, tpf_journal_text_t field);

/* 1 when a[0:len] == b[0:len]: the fields are 8 or 48 bytes, a 48-byte one compared 16
 * bytes at a time where SSE2 is (x86-64 always: about 15 instructions, where the 8-byte
 * words took about 45 a field, the largest part of a record with an MD), others 8 at a
 * time. */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
#ifdef __SSE2__
    if (len == 48) {
        __m128i d = _mm_xor_si128(_mm_loadu_si128((const __m128i *)a),
                                  _mm_loadu_si128((const __m128i *)b));
        d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + 16)),
                                          _mm_loadu_si128((const __m128i *)(b + 16))));
        d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + 32)),
                                          _mm_loadu_si128((const __m128i *)(b + 32))));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xFFFF;
    }
#endif
    if (len % 8 != 0)
        return memcmp(a, b, len) == 0;
    uint64_t diff = 0;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

/* The index in this cycle's names of the text in `field`, a context record's field as
 * it is there (`which`: 0 Format, 1 ReplyToQ, 2 ReplyToQMgr; tpf_journal_ctx_fields),
 * without its trailing blanks and NULs and read as Latin-1 (as the events emitted in
 * Python read it), added if new; -1 for a blank field. The same field as the last one
 * is a comparison of its raw bytes (not trimmed again). -2 with an exception set. */
static inline int32_t text_index(EventLog *self, int which, tpf_journal_text_t field)
{
    if (field.p == NULL || field.len == 0)
        return -1;
    if (field.len > sizeof self->last_text[which])
        field.len = sizeof self->last_text[which];
    if (field.len == self->last_text_len[which] &&
        same_bytes(field.p, self->last_text[which], field.len))
        return self->last_text_ix[which];
    return text_index_new(self, which, field);
}

/* text_index of a field that is not the last one seen. */
static int32_t text_index_new(EventLog *self, int which, tpf_journal_text_t field)
{
    tpf_journal_text_t t = tpf_journal_text_trim(field);
    int32_t ix = -1;
    if (t.p != NULL) {
        PyObject *text = PyUnicode_DecodeLatin1(t.p, (Py_ssize_t)t.len, NULL);
        if (text == NULL)
            return -2;
        ix = name_index(self, text, 0);
        self->last_name[0] = NULL; /* (text may not be the object names holds) */
        Py_DECREF(text);
        if (ix < 0)
            return -2;
    }
    memcpy(self->last_text[which], field.p, field.len);
    self->last_text_len[which] = field.len;
    self->last_text_ix[which] = ix;
    return ix;
}

int eventlog_record(PyObject *log, int kind, PyObject *queue, const void *q,
                    const tpf_mq_msg_t *md, const uint8_t *group_id, const char *ctx,
                    uint32_t ctx_len, PyObject *data_obj, const char *data,
                    Py_ssize_t length, int64_t time_us, uint64_t uow)
{
    EventLog *self = (EventLog *)log;
    evbuf_t *b = &self->cur;
    int64_t ecb;
    PyObject *program;
    int32_t queue_ix = -1, program_ix = -1, texts[3] = {-1, -1, -1};
    if (ctx != NULL && ctx_len != 0) {
        tpf_journal_text_t t[3];
        tpf_journal_ctx_fields(ctx, ctx_len, t);
        for (int c = 0; c < 3; c++) {
            if ((texts[c] = text_index(self, c, t[c])) < -1) {
                PyErr_Clear();
                self->lost++;
                return 0;
            }
        }
    }
    /* The MQI call has done its work: an event that cannot be recorded is counted as
     * lost, never raised (the caller would take the call as failed). */
    if (runningecb_calling(self->current, &ecb, &program) < 0 || rec_room(b) < 0 ||
        ((self->payload || !self->hashes) && data_room(b, (size_t)length) < 0) ||
        (queue_ix = name_index(self, queue, 0)) < 0 ||
        (program != NULL && (program_ix = name_index(self, program, 1)) < 0)) {
        PyErr_Clear();
        Py_XDECREF(program);
        self->lost++;
        return 0;
    }
    Py_XDECREF(program); /* (held by names) */
    if (self->hashes && ((self->recent == NULL && q != NULL &&
        (self->recent = PyMem_RawCalloc(TPF_JOURNAL_RECENT_PUTS, sizeof *self->recent)) == NULL) ||
        (self->ring == NULL &&
        (self->ring = PyMem_RawCalloc(TPF_JOURNAL_PUT_RING, sizeof *self->ring)) == NULL))) {
        self->lost++;
        return 0;
    }
    /* A put's data is held for the writer to hash, off this thread, when it is a bytes
     * object (immutable) and the log keeps no copy of it (level events). */
    int how = !self->hashes ? TPF_JOURNAL_HASH_NONE
        : data_obj != NULL && PyBytes_CheckExact(data_obj) && !self->payload &&
          b->held + (size_t)length <= HELD_MAX && PyBytes_AS_STRING(data_obj) == data &&
          PyBytes_GET_SIZE(data_obj) == length && held_room(b) == 0
        ? TPF_JOURNAL_HASH_DEFER : TPF_JOURNAL_HASH_NOW;
    tpf_journal_origin_t origin = {time_us, uow, ecb, queue_ix, program_ix, (int64_t)b->used,
                                   self->recno, {texts[0], texts[1], texts[2]}};
    eventlog_rec_t *r = &b->recs[b->n++];
    /* The records a few events on, asked for now (for writing): the buffer is far larger
     * than the cache and was last read by the writer, on the other CPU. */
    __builtin_prefetch((const char *)(r + 4), 1, 3);
    __builtin_prefetch((const char *)(r + 4) + 64, 1, 3);
    __builtin_prefetch((const char *)(r + 4) + 128, 1, 3);
    tpf_journal_record(r, self->recent, kind, q, md, group_id, ctx, ctx_len,
                       data, (size_t)length, &origin, how);
    self->recno++;
    wake_writer(self);
    if (r->hash_state == TPF_JOURNAL_HASH_HELD) {
        r->data_off = (int64_t)(intptr_t)data_obj;
        b->held_objs[b->nheld++] = Py_NewRef(data_obj);
        b->held += (size_t)length;
    }
    if (self->payload || !self->hashes) {
        memcpy(b->data + b->used, data, (size_t)length);
        b->used += (size_t)length;
    }
    return 0;
}

PyDoc_STRVAR(add_doc, "add(kind, queue, time_us, fields)\n--\n\n"
                      "Record an event emitted in Python (an EventBus raw subscriber), with\n"
                      "the calling ECB: take() returns it as the tuple (kind, queue, time_us,\n"
                      "fields, ecb id or None, program or None).");

static PyObject *el_add(EventLog *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "add(kind, queue, time_us, fields)");
        return NULL;
    }
    evbuf_t *b = &self->cur;
    int64_t ecb;
    PyObject *program;
    if (runningecb_calling(self->current, &ecb, &program) < 0)
        return NULL;
    PyObject *ecb_obj = ecb < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(ecb);
    PyObject *item = ecb_obj != NULL
        ? PyTuple_Pack(6, args[0], args[1], args[2], args[3], ecb_obj,
                       program != NULL ? program : Py_None)
        : NULL;
    Py_XDECREF(ecb_obj);
    Py_XDECREF(program);
    if (item == NULL)
        return NULL;
    if (b->nitems == b->cap_items) {
        Py_ssize_t cap = b->cap_items ? b->cap_items * 2 : 64;
        PyObject **items = PyMem_RawRealloc(b->items, sizeof *items * (size_t)cap);
        if (items == NULL) {
            Py_DECREF(item);
            return PyErr_NoMemory();
        }
        b->items = items;
        b->cap_items = cap;
    }
    if (rec_room(b) < 0) {
        Py_DECREF(item);
        return PyErr_NoMemory();
    }
    eventlog_rec_t *r = &b->recs[b->n++];
    memset(r, 0, sizeof *r);
    r->kind = EVENTLOG_PY;
    r->program = -1;
    r->length = -1;
    b->items[b->nitems++] = item;
    self->recno++;
    wake_writer(self);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(take_doc, "take()\n--\n\n"
                       "Everything recorded, in order, and forget it: (count, records, names,\n"
                       "items, data). records: the fixed records as bytes (see LAYOUT), each\n"
                       "with the payload hash of its data; names: the queue and program names\n"
                       "the records' indexes point into; items: the tuples of the events\n"
                       "emitted in Python (kind 0), in order; data: at level payload, the\n"
                       "recorded events' data back to back in record order (kind 0 has none),\n"
                       "also with hashes=False, else None.");

static PyObject *el_take(EventLog *self, PyObject *unused)
{
    (void)unused;
    evbuf_t *b = &self->cur;
    if (self->writing) {
        PyErr_SetString(PyExc_RuntimeError, "EventLog.take() while write_ipc() runs");
        return NULL;
    }
    if (self->ring != NULL)
        resolve_hashes(self->ring, b, 0, b->n);
    PyObject *fresh_names = PyList_New(0), *fresh_index = PyDict_New();
    PyObject *recs = PyBytes_FromStringAndSize((const char *)b->recs,
                                               (Py_ssize_t)sizeof *b->recs * b->n);
    PyObject *items = PyList_New(b->nitems);
    PyObject *data = self->payload || !self->hashes
        ? PyBytes_FromStringAndSize((const char *)b->data, (Py_ssize_t)b->used)
        : Py_NewRef(Py_None);
    PyObject *result = NULL;
    if (fresh_names != NULL && fresh_index != NULL && recs != NULL && items != NULL &&
        data != NULL)
        result = Py_BuildValue("(nOOOO)", b->n, recs, self->names, items, data);
    if (result != NULL) { /* handed over: start afresh */
        for (Py_ssize_t i = 0; i < b->nitems; i++) /* the references move into the list */
            PyList_SET_ITEM(items, i, b->items[i]);
        b->nitems = 0;
        release_held(b);
        buf_empty(b);
        b->recno0 = self->recno;
        names_restart(self, fresh_names, fresh_index);
    } else {
        Py_XDECREF(fresh_names);
        Py_XDECREF(fresh_index);
    }
    Py_XDECREF(recs);
    Py_XDECREF(items);
    Py_XDECREF(data);
    return result;
}

PyDoc_STRVAR(write_ipc_doc,
             "write_ipc(fd, seq0, cpu, qmgr, batch_events, emitted[, wake_fd, wait])\n--\n\n"
             "Write everything recorded, in order, and forget it: each run of events the\n"
             "fast paths recorded goes to fd (a file descriptor, written batch by batch,\n"
             "or a SegmentFile, appended to and flushed at the end) as Arrow IPC record\n"
             "batches of the segment schema (journal/schema.py SEGMENT_SCHEMA: at most\n"
             "batch_events rows each; seq, cpu and qmgr are not rows, the segment's\n"
             "metadata holds them: cpu and qmgr are the segment's, checked to be str),\n"
             "encoded in C with the GIL released; each run of events emitted in Python is\n"
             "handed to emitted(items, seq0), which writes them, seq counting from seq0.\n"
             "Returns (count, bytes written here). OSError when a write fails,\n"
             "or what emitted raised: the events not written are counted in lost.\n"
             "With wake_fd and wait: once everything is written, it waits (still without\n"
             "the GIL) up to `wait` seconds for a byte on wake_fd (the writer's wake-up\n"
             "pipe, see wake_on) and takes it, so that a busy writer takes the GIL once a\n"
             "cycle, not twice; it returns at once when it wrote nothing.");

/* The names of this cycle as UTF-8 copies in one block (*block, free both with
 * PyMem_RawFree). -1 with an exception set. */
static int names_utf8(PyObject *names, tpf_journal_text_t **out, char **block)
{
    Py_ssize_t n = PyList_GET_SIZE(names), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        if (PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(names, i), &len) == NULL)
            return -1;
        total += len;
    }
    tpf_journal_text_t *t = PyMem_RawMalloc(sizeof *t * (size_t)(n ? n : 1));
    char *p = PyMem_RawMalloc((size_t)(total ? total : 1));
    if (t == NULL || p == NULL) {
        PyMem_RawFree(t);
        PyMem_RawFree(p);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        const char *u = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(names, i), &len);
        memcpy(p + at, u, (size_t)len);
        t[i].p = p + at;
        t[i].len = (size_t)len;
        at += len;
    }
    *out = t;
    *block = p;
    return 0;
}

/* write(2) all of buf; 0, or -1 with errno set. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Wait (without the GIL) up to wait_ms for a byte on fd, the writer's wake-up pipe, and
 * take what is there. */
static void wait_for_wake(int fd, int wait_ms)
{
    if (fd < 0)
        return;
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, wait_ms) > 0) {
        char sink[4096];
        ssize_t r = read(fd, sink, sizeof sink);
        (void)r;
    }
}

static PyObject *el_write_ipc(EventLog *self, PyObject *const *args, Py_ssize_t nargs)
{
    int to_file = (nargs == 6 || nargs == 8) && Py_TYPE(args[0]) == &segfile_type;
    if ((nargs != 6 && nargs != 8) || !(to_file || PyLong_Check(args[0])) ||
        !PyLong_Check(args[1]) || !PyUnicode_Check(args[2]) || !PyUnicode_Check(args[3]) ||
        !PyLong_Check(args[4]) || !PyCallable_Check(args[5]) ||
        (nargs == 8 && (!PyLong_Check(args[6]) || !PyFloat_Check(args[7])))) {
        PyErr_SetString(PyExc_TypeError, "write_ipc(fd: int | SegmentFile, seq0: int, cpu: str, "
                                         "qmgr: str, batch_events: int, emitted: callable"
                                         "[, wake_fd: int, wait: float])");
        return NULL;
    }
    int wake_fd = nargs == 8 ? (int)PyLong_AsLong(args[6]) : -1;
    double wait = nargs == 8 ? PyFloat_AS_DOUBLE(args[7]) : 0.0;
    int wait_ms = wait > 0 ? (wait >= 3600 ? 3600000 : (int)(wait * 1000 + 0.999)) : 0;
    int fd = -1;
    tpf_journal_seg_t *seg = NULL; /* (NULL: each batch written to fd as it is encoded) */
    if (to_file ? (seg = segfile_begin(args[0], &fd)) == NULL
                : (fd = PyObject_AsFileDescriptor(args[0])) < 0)
        return NULL;
    long long seq0 = PyLong_AsLongLong(args[1]);
    Py_ssize_t most = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (most <= 0) {
        PyErr_SetString(PyExc_ValueError, "write_ipc: batch_events must be positive");
        return NULL;
    }
    if (!self->hashes) {
        PyErr_SetString(PyExc_ValueError, "write_ipc: this EventLog does not hash (hashes=False)");
        return NULL;
    }
    if (self->writing) {
        PyErr_SetString(PyExc_RuntimeError, "EventLog.write_ipc() is already running");
        return NULL;
    }
    evbuf_t *cur = &self->cur;
    if (cur->n == 0)
        return Py_BuildValue("(nn)", (Py_ssize_t)0, (Py_ssize_t)0);
    tpf_journal_text_t *names = NULL;
    char *names_block = NULL;
    PyObject *fresh_names = PyList_New(0), *fresh_index = PyDict_New();
    if (fresh_names == NULL || fresh_index == NULL ||
        names_utf8(self->names, &names, &names_block) < 0) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_XDECREF(fresh_names);
        Py_XDECREF(fresh_index);
        PyMem_RawFree(names);
        PyMem_RawFree(names_block);
        return NULL;
    }
    /* Swap under the GIL: the application records into the spare from now on. */
    evbuf_t taken = *cur;
    *cur = self->spare;
    cur->recno0 = self->recno;
    memset(&self->spare, 0, sizeof self->spare);
    names_restart(self, fresh_names, fresh_index); /* (names_utf8 copied what it needs) */

    tpf_journal_batch_t batch = {
        .names = names, .data = self->payload ? taken.data : NULL,
    };
    Py_ssize_t done = 0, item = 0;
    size_t written = 0;
    int err = 0; /* errno of a failed write (ENOMEM: encoding), -1: emitted raised */
    self->writing = 1;

    while (done < taken.n && err == 0) {
        Py_ssize_t end = done;
        if (taken.recs[done].kind == EVENTLOG_PY) { /* a run emitted in Python */
            while (end < taken.n && taken.recs[end].kind == EVENTLOG_PY)
                end++;
            PyObject *run = PyList_New(end - done), *r = NULL;
            if (run != NULL) {
                for (Py_ssize_t i = 0; i < end - done; i++)
                    PyList_SET_ITEM(run, i, Py_NewRef(taken.items[item + i]));
                PyObject *first = PyLong_FromLongLong(seq0 + done);
                if (first != NULL) {
                    PyObject *call[2] = {run, first};
                    r = PyObject_Vectorcall(args[5], call, 2, NULL);
                    Py_DECREF(first);
                }
                Py_DECREF(run);
            }
            if (r == NULL) {
                err = -1;
                break;
            }
            Py_DECREF(r);
            item += end - done;
            done = end;
            continue;
        }
        while (end < taken.n && taken.recs[end].kind != EVENTLOG_PY)
            end++;
        if (seg != NULL)
            segfile_busy(args[0], 1);
        Py_BEGIN_ALLOW_THREADS /* a run the fast paths recorded: encoded here */
        while (done < end) {
            Py_ssize_t n = end - done < most ? end - done : most;
            if (self->ring != NULL)
                resolve_hashes(self->ring, &taken, done, done + n);
            batch.recs = taken.recs + done;
            batch.n = (size_t)n;
            size_t len;
            self->enc.used = self->enc.done = 0;
            if (tpf_journal_encode(&batch, seg != NULL ? seg : &self->enc, &len) < 0) {
                err = ENOMEM;
                break;
            }
            int rc = seg == NULL ? write_all(fd, self->enc.buf, len)
                     : seg->used >= SEGFILE_SPILL ? tpf_journal_seg_write(seg, fd, 0) : 0;
            if (rc < 0) {
                err = errno;
                break;
            }
            done += n;
            written += len;
        }
        if (seg != NULL && err == 0 && done == taken.n && tpf_journal_seg_write(seg, fd, 1) < 0)
            err = errno; /* (the cycle ends with this run: written in the same release) */
        if (err == 0 && done == taken.n)
            wait_for_wake(wake_fd, wait_ms); /* (the next cycle's wait, in the same release) */
        Py_END_ALLOW_THREADS
        if (seg != NULL)
            segfile_busy(args[0], 0);
    }
    if (seg != NULL && err == 0 && seg->used != seg->done) { /* (it ended with a Python run) */
        int rc;
        segfile_busy(args[0], 1);
        Py_BEGIN_ALLOW_THREADS
        rc = tpf_journal_seg_write(seg, fd, 1);
        if (rc == 0)
            wait_for_wake(wake_fd, wait_ms);
        Py_END_ALLOW_THREADS
        segfile_busy(args[0], 0);
        if (rc < 0)
            err = errno, done = 0; /* (what was appended this cycle is not written) */
    }
    self->writing = 0;
    PyMem_RawFree(names);
    PyMem_RawFree(names_block);
    if (err != 0 && self->ring != NULL) /* (every record's hash, for the gets to come) */
        resolve_hashes(self->ring, &taken, done, taken.n);
    Py_ssize_t count = taken.n;
    release_held(&taken);
    buf_empty(&taken); /* it becomes the spare */
    self->spare = taken;
    if (err != 0) {
        self->lost += count - done;
        if (err < 0)
            return NULL; /* what emitted raised */
        errno = err;
        return PyErr_SetFromErrno(err == ENOMEM ? PyExc_MemoryError : PyExc_OSError);
    }
    return Py_BuildValue("(nn)", count, (Py_ssize_t)written);
}

PyDoc_STRVAR(wake_on_doc, "wake_on(fd, every)\n--\n\n"
                          "Write one byte to fd (a pipe's or eventfd's write end, non-blocking:\n"
                          "a write that would block is left out) each time the buffer of\n"
                          "records not yet taken reaches `every` records, i.e. at most once per\n"
                          "write cycle: the journal's writer waits on it, so that a busy\n"
                          "application's events are written as they come, not once per\n"
                          "interval. fd -1 or every 0: never. The log does not own fd.");

static PyObject *el_wake_on(EventLog *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyLong_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "wake_on(fd: int, every: int)");
        return NULL;
    }
    long fd = PyLong_AsLong(args[0]);
    Py_ssize_t every = PyLong_AsSsize_t(args[1]);
    if (PyErr_Occurred())
        return NULL;
    if (fd < -1 || fd > INT_MAX || every < 0) {
        PyErr_Format(PyExc_ValueError, "wake_on: fd must be a descriptor or -1 and every "
                     "not negative, not %ld and %zd", fd, every);
        return NULL;
    }
    self->wake_fd = every > 0 ? (int)fd : -1;
    self->wake_every = every;
    Py_RETURN_NONE;
}

static Py_ssize_t el_len(EventLog *self)
{
    return self->cur.n;
}

static PyObject *el_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *current;
    int payload = 0, hashes = 1;
    static char *kwlist[] = {"current", "payload", "hashes", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|pp", kwlist, &current, &payload, &hashes))
        return NULL;
    if (!PyCallable_Check(current)) {
        PyErr_SetString(PyExc_TypeError, "EventLog(current): current must be callable");
        return NULL;
    }
    EventLog *self = (EventLog *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->names = PyList_New(0);
    self->index = PyDict_New();
    if (self->names == NULL || self->index == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->current = Py_NewRef(current);
    self->payload = payload;
    self->hashes = hashes;
    self->wake_fd = -1;
    return (PyObject *)self;
}

static void el_dealloc(EventLog *self)
{
    buf_free(&self->cur);
    buf_free(&self->spare);
    PyMem_RawFree(self->recent);
    free(self->enc.buf);
    Py_XDECREF(self->names);
    Py_XDECREF(self->index);
    Py_XDECREF(self->current);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef el_members[] = {
    {"lost", T_PYSSIZET, offsetof(EventLog, lost), READONLY,
     "Events the MQI's fast paths could not record (out of memory): counted, not raised."},
    {"payload", T_INT, offsetof(EventLog, payload), READONLY,
     "1 when take() returns the recorded events' data (journal level payload)."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef el_methods[] = {
    {"add", (PyCFunction)(void (*)(void))el_add, METH_FASTCALL, add_doc},
    {"take", (PyCFunction)el_take, METH_NOARGS, take_doc},
    {"write_ipc", (PyCFunction)(void (*)(void))el_write_ipc, METH_FASTCALL, write_ipc_doc},
    {"wake_on", (PyCFunction)(void (*)(void))el_wake_on, METH_FASTCALL, wake_on_doc},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods el_sequence = {.sq_length = (lenfunc)el_len};

PyTypeObject eventlog_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tpfemu._fastpath.EventLog",
    .tp_basicsize = sizeof(EventLog),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "EventLog(current, payload=False, hashes=True): the journal's capture\n"
              "buffer (native/python/eventlog.h); current() returns the running ECB or None\n"
              "(used until the ECB runtime's switch watcher is trusted). hashes=False keeps\n"
              "every event's data for take() instead of hashing it (no write_ipc): the\n"
              "alternative bench_journal.py measures the C hash against.",
    .tp_new = el_new,
    .tp_dealloc = (destructor)el_dealloc,
    .tp_methods = el_methods,
    .tp_members = el_members,
    .tp_as_sequence = &el_sequence,
};

/* EventLog.LAYOUT: (record size, {field: (offset, numpy format)}). */
int eventlog_ready(PyObject *module)
{
    if (runningecb_ready(module) < 0 || payloadhash_ready(module) < 0 ||
        segfile_ready(module) < 0 ||
        PyType_Ready(&eventlog_type) < 0)
        return -1;
#define F(name, fmt) #name, (Py_ssize_t)offsetof(eventlog_rec_t, name), fmt
    PyObject *fields = Py_BuildValue(
        "{s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)"
        "s(ns)s(ns)s(ns)s(ns)}",
        F(time_us, "<i8"), F(deadline, "<i8"), F(uow, "<i8"), F(ecb, "<i8"),
        F(data_off, "<i8"), F(msg_id, "V24"), F(correl_id, "V24"), F(group_id, "V24"),
        F(hash, "V8"), F(length, "<i4"), F(queue, "<i4"), F(program, "<i4"), F(kind, "u1"),
        F(priority, "u1"), F(persistent, "u1"), F(msg_type, "<i4"), F(format, "<i4"),
        F(reply_q, "<i4"), F(reply_qmgr, "<i4"));
#undef F
    PyObject *layout = fields != NULL
        ? Py_BuildValue("(nN)", (Py_ssize_t)sizeof(eventlog_rec_t), fields) : NULL;
    if (layout == NULL)
        return -1;
    int rc = PyDict_SetItemString(eventlog_type.tp_dict, "LAYOUT", layout);
    Py_DECREF(layout);
    if (rc < 0)
        return -1;
    PyType_Modified(&eventlog_type);
    return PyModule_AddObjectRef(module, "EventLog", (PyObject *)&eventlog_type);
}
