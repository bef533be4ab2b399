/* eventlog.c - the event journal's capture buffer (see eventlog.h)
 *
 * Ownership: the log owns its records, its data arenas and its table of names; an event
 * emitted in Python is kept as its tuple (a strong reference) until take() hands it
 * over. take() returns new objects only: the records and (at level payload) the data
 * as bytes, the names and the tuples as lists.
 */
#include "eventlog_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <stddef.h>
#include <string.h>
#include <structmember.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
void evbuf_release_held(evbuf_t *b)
{
    for (Py_ssize_t i = 0; i < b->nheld; i++)
        Py_DECREF(b->held_objs[i]);
    b->nheld = 0;
    b->held = 0;
}

static void buf_free(evbuf_t *b)
{
    evbuf_release_held(b);
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
void evbuf_empty(evbuf_t *b)
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
void eventlog_names_restart(EventLog *self, PyObject *names, PyObject *index)
{
    Py_SETREF(self->names, names);
    Py_SETREF(self->index, index);
    self->last_name[0] = self->last_name[1] = NULL;
    self->last_text_len[0] = self->last_text_len[1] = self->last_text_len[2] = 0;
    self->memo.len = 0;
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

/* Read what a record keeps of the context record ctx (ctx_len bytes, not 0) into the
 * memo: the indexes of its texts (added to this cycle's names) and its GroupId; the
 * memo then holds ctx's bytes too when they fit. -1 with an exception set (the memo
 * empty). */
static int ctx_read(EventLog *self, const char *ctx, uint32_t ctx_len)
{
    ctx_memo_t *m = &self->memo;
    tpf_journal_text_t t[3];
    m->len = 0;
    tpf_journal_ctx_fields(ctx, ctx_len, t);
    for (int c = 0; c < 3; c++)
        if ((m->texts[c] = text_index(self, c, t[c])) < -1)
            return -1;
    const uint8_t *g = tpf_journal_ctx_group_id(ctx, ctx_len);
    m->has_group = g != NULL;
    if (g != NULL)
        memcpy(m->group, g, TPF_MQ_ID_LEN);
    m->generation = tpf_journal_ctx_generation();
    if (ctx_len <= sizeof m->bytes) {
        memcpy(m->bytes, ctx, ctx_len);
        m->len = ctx_len;
    }
    return 0;
}

int eventlog_record(PyObject *log, int kind, PyObject *queue, const void *q,
                    const tpf_mq_msg_t *md, const char *ctx, uint32_t ctx_len,
                    PyObject *data_obj, const char *data, Py_ssize_t length,
                    int64_t time_us, uint64_t uow)
{
    EventLog *self = (EventLog *)log;
    evbuf_t *b = &self->cur;
    int64_t ecb;
    PyObject *program;
    int32_t queue_ix = -1, program_ix = -1, texts[3] = {-1, -1, -1};
    const uint8_t *group_id = NULL;
    if (ctx != NULL && ctx_len != 0) {
        ctx_memo_t *m = &self->memo;
        if (!(ctx_len == m->len && m->generation == tpf_journal_ctx_generation() &&
              memcmp(ctx, m->bytes, ctx_len) == 0) &&
            ctx_read(self, ctx, ctx_len) < 0) {
            PyErr_Clear();
            self->lost++;
            return 0;
        }
        memcpy(texts, m->texts, sizeof texts);
        group_id = m->has_group ? m->group : NULL;
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
        eventlog_resolve_hashes(self->ring, b, 0, b->n);
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
        evbuf_release_held(b);
        evbuf_empty(b);
        b->recno0 = self->recno;
        eventlog_names_restart(self, fresh_names, fresh_index);
    } else {
        Py_XDECREF(fresh_names);
        Py_XDECREF(fresh_index);
    }
    Py_XDECREF(recs);
    Py_XDECREF(items);
    Py_XDECREF(data);
    return result;
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
    {"write_ipc", (PyCFunction)(void (*)(void))eventlog_write_ipc, METH_FASTCALL, eventlog_write_ipc_doc},
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
