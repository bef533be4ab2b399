/* eventlog.c - the event journal's capture buffer (see eventlog.h)
 *
 * Ownership: a recorded event holds a strong reference to each object it names (queue
 * name, data, program, or the tuple of an event emitted in Python) until take() hands
 * them over in lists. The fixed records are copied out as one bytes object.
 */
#include "eventlog.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

enum { O_QUEUE, O_DATA, O_PROGRAM, O_PY, N_OBJS }; /* the objects of one record */

typedef struct {
    PyObject_HEAD
    eventlog_rec_t *recs;
    PyObject **objs;    /**< N_OBJS per record, NULL for none */
    Py_ssize_t n, cap;
    Py_ssize_t lost;    /**< events the fast paths could not record (no memory) */
    PyObject *current;  /**< callable() -> the running ECB or None */
} EventLog;

static PyObject *s_ecb_id, *s_program; /* interned attribute names */

/* -- BLAKE2b (RFC 7693), unkeyed, digest of 8 bytes -------------------------------------- */

static const uint64_t B2B_IV[8] = {
    0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL,
    0xA54FF53A5F1D36F1ULL, 0x510E527FADE682D1ULL, 0x9B05688C2B3E6C1FULL,
    0x1F83D9ABFB41BD6BULL, 0x5BE0CD19137E2179ULL,
};

static const uint8_t B2B_SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static inline uint64_t rotr64(uint64_t x, int n)
{
    return (x >> n) | (x << (64 - n));
}

static inline uint64_t load64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
#endif
}

#define B2B_G(a, b, c, d, x, y)                                                                \
    do {                                                                                       \
        v[a] = v[a] + v[b] + (x);                                                              \
        v[d] = rotr64(v[d] ^ v[a], 32);                                                        \
        v[c] = v[c] + v[d];                                                                    \
        v[b] = rotr64(v[b] ^ v[c], 24);                                                        \
        v[a] = v[a] + v[b] + (y);                                                              \
        v[d] = rotr64(v[d] ^ v[a], 16);                                                        \
        v[c] = v[c] + v[d];                                                                    \
        v[b] = rotr64(v[b] ^ v[c], 63);                                                        \
    } while (0)

/* The compression function F over one 128-byte block; `t` bytes hashed so far (the
 * messages here are far below 2^64 bytes: the counter's high word stays 0). */
static void b2b_compress(uint64_t h[8], const uint8_t block[128], uint64_t t, int last)
{
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++)
        m[i] = load64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = B2B_IV[i];
    }
    v[12] ^= t;
    if (last)
        v[14] = ~v[14];
    /* Unrolled, so that the message word of every step is a constant index. */
#define B2B_ROUND(r)                                                                           \
    do {                                                                                       \
        const uint8_t *s = B2B_SIGMA[r];                                                       \
        B2B_G(0, 4, 8, 12, m[s[0]], m[s[1]]);                                                  \
        B2B_G(1, 5, 9, 13, m[s[2]], m[s[3]]);                                                  \
        B2B_G(2, 6, 10, 14, m[s[4]], m[s[5]]);                                                 \
        B2B_G(3, 7, 11, 15, m[s[6]], m[s[7]]);                                                 \
        B2B_G(0, 5, 10, 15, m[s[8]], m[s[9]]);                                                 \
        B2B_G(1, 6, 11, 12, m[s[10]], m[s[11]]);                                               \
        B2B_G(2, 7, 8, 13, m[s[12]], m[s[13]]);                                                \
        B2B_G(3, 4, 9, 14, m[s[14]], m[s[15]]);                                                \
    } while (0)
    B2B_ROUND(0);
    B2B_ROUND(1);
    B2B_ROUND(2);
    B2B_ROUND(3);
    B2B_ROUND(4);
    B2B_ROUND(5);
    B2B_ROUND(6);
    B2B_ROUND(7);
    B2B_ROUND(8);
    B2B_ROUND(9);
    B2B_ROUND(0); /* rounds 10 and 11 reuse the first two permutations */
    B2B_ROUND(1);
#undef B2B_ROUND
    for (int i = 0; i < 8; i++)
        h[i] ^= v[i] ^ v[i + 8];
}

/* BLAKE2b-64 of data[0:len] into out[8]: hashlib.blake2b(data, digest_size=8). */
static void blake2b8(const uint8_t *data, size_t len, uint8_t out[8])
{
    uint64_t h[8];
    memcpy(h, B2B_IV, sizeof h);
    h[0] ^= 0x01010000ULL ^ 8; /* digest length 8, no key, fanout and depth 1 */
    size_t done = 0;
    while (len - done > 128) { /* every block but the last */
        done += 128;
        b2b_compress(h, data + done - 128, (uint64_t)done, 0);
    }
    uint8_t block[128] = {0};
    memcpy(block, data + done, len - done);
    b2b_compress(h, block, (uint64_t)len, 1);
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(h[0] >> (8 * i));
}

/* -- payload_hashes ------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    Py_ssize_t len;   /**< -1: no data */
} span_t;

static uint64_t id_hash(const uint8_t *id)
{
    uint64_t x = load64(id) ^ rotr64(load64(id + 8), 21) ^ rotr64(load64(id + 16), 42);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Hash every span; a span whose id (when ids is not NULL) and data equal an earlier
 * one's takes its hash (a got message is usually in the same take as its put). Runs
 * without the GIL: only C memory. Returns -1 if out of memory (nothing hashed). */
static int hash_spans(const span_t *spans, Py_ssize_t n, const uint8_t *ids, uint8_t *out)
{
    Py_ssize_t *table = NULL;
    size_t mask = 0;
    if (ids != NULL && n > 1) {
        size_t size = 16;
        while (size < (size_t)n * 2)
            size *= 2;
        table = malloc(size * sizeof *table);
        if (table == NULL)
            return -1;
        for (size_t i = 0; i < size; i++)
            table[i] = -1;
        mask = size - 1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (spans[i].len < 0) {
            memset(out + 8 * i, 0, 8);
            continue;
        }
        if (table != NULL) {
            const uint8_t *id = ids + (size_t)i * TPF_MQ_ID_LEN;
            size_t at = id_hash(id) & mask;
            Py_ssize_t j;
            while ((j = table[at]) >= 0 &&
                   memcmp(ids + (size_t)j * TPF_MQ_ID_LEN, id, TPF_MQ_ID_LEN) != 0)
                at = (at + 1) & mask;
            if (j >= 0 && spans[j].len == spans[i].len &&
                (spans[j].p == spans[i].p ||
                 memcmp(spans[j].p, spans[i].p, (size_t)spans[i].len) == 0)) {
                memcpy(out + 8 * i, out + 8 * j, 8);
                continue;
            }
            if (j < 0)
                table[at] = i;
        }
        blake2b8(spans[i].p, (size_t)spans[i].len, out + 8 * i);
    }
    free(table);
    return 0;
}

PyObject *eventlog_payload_hashes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs < 1 || nargs > 2 || !PyList_Check(args[0]) ||
        (nargs == 2 && args[1] != Py_None && !PyBytes_Check(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "payload_hashes(datas: list, ids: bytes | None = None)");
        return NULL;
    }
    PyObject *list = args[0];
    Py_ssize_t n = PyList_GET_SIZE(list);
    PyObject *ids = nargs == 2 && args[1] != Py_None ? args[1] : NULL;
    if (ids != NULL && PyBytes_GET_SIZE(ids) != n * TPF_MQ_ID_LEN) {
        PyErr_Format(PyExc_ValueError, "payload_hashes: ids must be %d bytes per data",
                     TPF_MQ_ID_LEN);
        return NULL;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, 8 * n);
    PyObject **held = PyMem_Malloc(sizeof *held * (size_t)(n ? n : 1));
    span_t *spans = PyMem_Malloc(sizeof *spans * (size_t)(n ? n : 1));
    if (result == NULL || held == NULL || spans == NULL) {
        Py_XDECREF(result);
        PyMem_Free(held);
        PyMem_Free(spans);
        return PyErr_NoMemory();
    }
    Py_ssize_t i = 0;
    for (; i < n; i++) { /* held: the list may change while the GIL is released */
        PyObject *d = PyList_GET_ITEM(list, i);
        if (d == Py_None) {
            spans[i].p = NULL;
            spans[i].len = -1;
        } else if (PyBytes_Check(d)) {
            spans[i].p = (const uint8_t *)PyBytes_AS_STRING(d);
            spans[i].len = PyBytes_GET_SIZE(d);
        } else {
            PyErr_Format(PyExc_TypeError, "payload_hashes: item %zd is %.100s, not bytes or "
                         "None", i, Py_TYPE(d)->tp_name);
            break;
        }
        held[i] = Py_NewRef(d);
    }
    int rc = 0;
    if (i == n) {
        Py_INCREF(ids == NULL ? Py_None : ids);
        Py_BEGIN_ALLOW_THREADS
        rc = hash_spans(spans, n, ids != NULL ? (const uint8_t *)PyBytes_AS_STRING(ids) : NULL,
                        (uint8_t *)PyBytes_AS_STRING(result));
        Py_END_ALLOW_THREADS
        Py_DECREF(ids == NULL ? Py_None : ids);
    }
    for (Py_ssize_t k = 0; k < i; k++)
        Py_DECREF(held[k]);
    PyMem_Free(held);
    PyMem_Free(spans);
    if (i != n || rc < 0) {
        Py_DECREF(result);
        return rc < 0 ? PyErr_NoMemory() : NULL;
    }
    return result;
}

/* -- EventLog ------------------------------------------------------------------------- */

/* Room for one more record; -1 with MemoryError. */
static int room(EventLog *self)
{
    if (self->n < self->cap)
        return 0;
    Py_ssize_t cap = self->cap ? self->cap * 2 : 1024;
    eventlog_rec_t *recs = PyMem_Realloc(self->recs, sizeof *recs * (size_t)cap);
    if (recs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->recs = recs;
    PyObject **objs = PyMem_Realloc(self->objs, sizeof *objs * N_OBJS * (size_t)cap);
    if (objs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->objs = objs;
    self->cap = cap;
    return 0;
}

/* The calling ECB: its id into *ecb (-1 outside any) and its program (a new reference,
 * or NULL) into *program. -1 with an exception set. */
static int calling_ecb(EventLog *self, int64_t *ecb, PyObject **program)
{
    *ecb = -1;
    *program = NULL;
    PyObject *e = PyObject_CallNoArgs(self->current);
    if (e == NULL)
        return -1;
    if (e == Py_None) {
        Py_DECREF(e);
        return 0;
    }
    PyObject *id = PyObject_GetAttr(e, s_ecb_id);
    PyObject *prog = id != NULL ? PyObject_GetAttr(e, s_program) : NULL;
    Py_DECREF(e);
    if (prog == NULL) {
        Py_XDECREF(id);
        return -1;
    }
    long long v = PyLong_AsLongLong(id);
    Py_DECREF(id);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(prog);
        return -1;
    }
    *ecb = v;
    if (prog == Py_None)
        Py_DECREF(prog);
    else
        *program = prog;
    return 0;
}

int eventlog_record(PyObject *log, int kind, PyObject *queue, const tpf_mq_msg_t *md,
                    const uint8_t *group_id, PyObject *data, int64_t time_us, uint64_t uow)
{
    EventLog *self = (EventLog *)log;
    int64_t ecb;
    PyObject *program;
    /* The MQI call has done its work: an event that cannot be recorded is counted as
     * lost, never raised (the caller would take the call as failed). */
    if (calling_ecb(self, &ecb, &program) < 0 || room(self) < 0) {
        PyErr_Clear();
        Py_XDECREF(program);
        self->lost++;
        return 0;
    }
    eventlog_rec_t *r = &self->recs[self->n];
    r->time_us = time_us;
    r->deadline = md->expiry;
    r->uow = (int64_t)uow;
    r->ecb = ecb;
    memcpy(r->msg_id, md->msg_id, TPF_MQ_ID_LEN);
    memcpy(r->correl_id, md->correl_id, TPF_MQ_ID_LEN);
    if (group_id != NULL)
        memcpy(r->group_id, group_id, TPF_MQ_ID_LEN);
    else
        memset(r->group_id, 0, TPF_MQ_ID_LEN);
    r->length = (int32_t)PyBytes_GET_SIZE(data);
    r->kind = (uint8_t)kind;
    r->priority = md->priority;
    r->persistent = md->persistent;
    r->pad = 0;
    PyObject **o = self->objs + N_OBJS * self->n;
    o[O_QUEUE] = Py_NewRef(queue);
    o[O_DATA] = Py_NewRef(data);
    o[O_PROGRAM] = program;
    o[O_PY] = NULL;
    self->n++;
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
    int64_t ecb;
    PyObject *program;
    if (calling_ecb(self, &ecb, &program) < 0)
        return NULL;
    PyObject *ecb_obj = ecb < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(ecb);
    PyObject *item = ecb_obj != NULL
        ? PyTuple_Pack(6, args[0], args[1], args[2], args[3], ecb_obj,
                       program != NULL ? program : Py_None)
        : NULL;
    Py_XDECREF(ecb_obj);
    Py_XDECREF(program);
    if (item == NULL || room(self) < 0) {
        Py_XDECREF(item);
        return NULL;
    }
    eventlog_rec_t *r = &self->recs[self->n];
    memset(r, 0, sizeof *r);
    r->kind = EVENTLOG_PY;
    PyObject **o = self->objs + N_OBJS * self->n;
    o[O_QUEUE] = o[O_DATA] = o[O_PROGRAM] = NULL;
    o[O_PY] = item;
    self->n++;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(take_doc, "take()\n--\n\n"
                       "Everything recorded, in order, and forget it: (count, records,\n"
                       "queues, datas, programs, items): the fixed records as bytes (see\n"
                       "LAYOUT), then one list per object kind (None where a record has none;\n"
                       "items: the tuples of events emitted in Python).");

static PyObject *el_take(EventLog *self, PyObject *unused)
{
    (void)unused;
    Py_ssize_t n = self->n;
    PyObject *recs = PyBytes_FromStringAndSize((const char *)self->recs,
                                               (Py_ssize_t)sizeof(eventlog_rec_t) * n);
    PyObject *lists[N_OBJS] = {NULL};
    int ok = recs != NULL;
    for (int k = 0; ok && k < N_OBJS; k++)
        ok = (lists[k] = PyList_New(n)) != NULL;
    if (!ok) {
        Py_XDECREF(recs);
        for (int k = 0; k < N_OBJS; k++)
            Py_XDECREF(lists[k]);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) /* the references move into the lists */
        for (int k = 0; k < N_OBJS; k++) {
            PyObject *v = self->objs[N_OBJS * i + k];
            PyList_SET_ITEM(lists[k], i, v != NULL ? v : Py_NewRef(Py_None));
        }
    self->n = 0;
    return Py_BuildValue("(nNNNNN)", n, recs, lists[O_QUEUE], lists[O_DATA],
                         lists[O_PROGRAM], lists[O_PY]);
}

static Py_ssize_t el_len(EventLog *self)
{
    return self->n;
}

static PyObject *el_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *current;
    static char *kwlist[] = {"current", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &current))
        return NULL;
    if (!PyCallable_Check(current)) {
        PyErr_SetString(PyExc_TypeError, "EventLog(current): current must be callable");
        return NULL;
    }
    if ((s_ecb_id == NULL && (s_ecb_id = PyUnicode_InternFromString("ecb_id")) == NULL) ||
        (s_program == NULL && (s_program = PyUnicode_InternFromString("program")) == NULL))
        return NULL;
    EventLog *self = (EventLog *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->current = Py_NewRef(current);
    return (PyObject *)self;
}

static void el_dealloc(EventLog *self)
{
    for (Py_ssize_t i = 0; i < N_OBJS * self->n; i++)
        Py_XDECREF(self->objs[i]);
    PyMem_Free(self->recs);
    PyMem_Free(self->objs);
    Py_XDECREF(self->current);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef el_members[] = {
    {"lost", T_PYSSIZET, offsetof(EventLog, lost), READONLY,
     "Events the MQI's fast paths could not record (out of memory): counted, not raised."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef el_methods[] = {
    {"add", (PyCFunction)(void (*)(void))el_add, METH_FASTCALL, add_doc},
    {"take", (PyCFunction)el_take, METH_NOARGS, take_doc},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods el_sequence = {.sq_length = (lenfunc)el_len};

PyTypeObject eventlog_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tpfemu._fastpath.EventLog",
    .tp_basicsize = sizeof(EventLog),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "EventLog(current): the journal's capture buffer (native/python/eventlog.h);\n"
              "current() returns the running ECB or None.",
    .tp_new = el_new,
    .tp_dealloc = (destructor)el_dealloc,
    .tp_methods = el_methods,
    .tp_members = el_members,
    .tp_as_sequence = &el_sequence,
};

/* EventLog.LAYOUT: (record size, {field: (offset, numpy format)}). */
int eventlog_ready(PyObject *module)
{
    if (PyType_Ready(&eventlog_type) < 0)
        return -1;
#define F(name, fmt) #name, (Py_ssize_t)offsetof(eventlog_rec_t, name), fmt
    PyObject *fields = Py_BuildValue(
        "{s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)s(ns)}",
        F(time_us, "<i8"), F(deadline, "<i8"), F(uow, "<i8"), F(ecb, "<i8"),
        F(msg_id, "V24"), F(correl_id, "V24"), F(group_id, "V24"), F(length, "<i4"),
        F(kind, "u1"), F(priority, "u1"), F(persistent, "u1"));
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
