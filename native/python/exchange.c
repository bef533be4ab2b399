/* exchange.c - tpfemu._exchange: a client's MQPUT or MQGET served in one C call
 *
 * The SVRCONN agent (tpfemu/channels/svrconn.py) hands every whole segment it reads to
 * serve_verb() first. A TSHM in ASCII and little-endian order (our own ends' form) that
 * carries an MQPUT (MQPMO version 1) or an MQGET (MQGMO version 1 or 2, whole message)
 * on a handle that has the matching plan is served here: the request's MQMD and
 * MQPMO/MQGMO are copied into the reply, the handle's plan is carried out on them through
 * its raw entry (tpf/plan_raw.h: the entry C programs' MQI takes, the same plan, checks
 * and MQMD rules as every MQPUT/MQGET; no MQ rule lives here), and the reply segment is
 * returned whole. Anything else returns None having read nothing but the frame: the
 * Python path then takes the same frame (the first call on a handle, other verbs,
 * heartbeats, other byte orders, bodies that are not well formed, plans declining).
 *
 * The layout is the Python codec's (tpfemu/wire/fap/verbs.py): setup() is given the
 * structure sizes and the reply TSHM bytes it writes from there, checks the sizes against
 * cmqc.h's and keeps the TSHM bytes; tests hold the replies to verbs.message_segment.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cmqc.h"
#include "tpf/plan_raw.h"

#define TSHM_SIZE 36      /* a TSHM: StrucId, SegmLength, ConversationId, RequestId, rest */
#define TSHM_REST 20      /* the TSHM's bytes from ByteOrder on */
#define API_SIZE 16       /* the API header: ReplyLength, CompCode, Reason, Hobj */
#define MAX_STRUCTURES 1024
#define WHOLE_MESSAGE 0xFFFFFFFFu

static struct {
    const tpf_plan_raw_t *raw;
    PyObject *error;       /* errors.MQMIError */
    PyObject *put_plan, *get_plan, *comp, *reason, *message;  /* interned names */
    int put, get, put_reply, get_reply;
    char put_rest[TSHM_REST], get_rest[TSHM_REST];
} X;

static const Py_ssize_t md_sizes[2] = {sizeof(MQMD1), sizeof(MQMD)};
static const Py_ssize_t gmo_sizes[2] = {offsetof(MQGMO, MatchOptions),
                                        offsetof(MQGMO, MsgToken)};
static const Py_ssize_t pmo_size = offsetof(MQPMO, RecsPresent);

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The version of the structure at p named `id` (4 bytes), 0 when not one of 1..n whose
 * size (sizes[v-1]) fits before `end`. */
static int version_of(const unsigned char *p, const unsigned char *end, const char *id,
                      const Py_ssize_t *sizes, int n)
{
    if (end - p < 8 || memcmp(p, id, 4) != 0)
        return 0;
    uint32_t v = le32(p + 4);
    if (v < 1 || v > (uint32_t)n || end - p < sizes[v - 1])
        return 0;
    return (int)v;
}

/* A parsed request: where its structures lie and how long they are. */
typedef struct {
    const unsigned char *frame, *md, *data;
    Py_ssize_t structures, md_length, data_length;
    int kind, mdv, optv;
    uint32_t hobj;
} request_t;

/* 1 when the frame is an MQPUT or MQGET in our form the plans' raw entries take. */
static int parse(const unsigned char *f, Py_ssize_t n, request_t *r)
{
    if (n < TSHM_SIZE + API_SIZE || memcmp(f, "TSHM", 4) != 0 || f[16] != 2)
        return 0;
    r->frame = f;
    r->kind = f[17];
    if (r->kind != X.put && r->kind != X.get)
        return 0;
    const unsigned char *end = f + n, *p = f + TSHM_SIZE;
    r->hobj = le32(p + 12);
    r->md = p + API_SIZE;
    r->mdv = version_of(r->md, end, "MD  ", md_sizes, 2);
    if (r->mdv == 0)
        return 0;
    r->md_length = md_sizes[r->mdv - 1];
    const unsigned char *opts = r->md + r->md_length, *tail;
    if (r->kind == X.put) {
        r->optv = version_of(opts, end, "PMO ", &pmo_size, 1);
        tail = opts + (r->optv ? pmo_size : 0);
    } else {
        r->optv = version_of(opts, end, "GMO ", gmo_sizes, 2);
        tail = opts + (r->optv ? gmo_sizes[r->optv - 1] : 0);
    }
    if (r->optv == 0 || end - tail < 4)
        return 0;
    r->structures = tail - r->md;
    r->data = tail + 4;
    r->data_length = end - r->data;
    if (r->kind == X.put)
        return le32(tail) == (uint32_t)r->data_length;
    return r->data_length == 0 && le32(tail) == WHOLE_MESSAGE;
}

/* The reply segment, its structures copied from the request and `data_length` bytes of
 * data to fill; the caller writes CompCode and Reason (zero here). */
static PyObject *reply_of(const request_t *r, Py_ssize_t data_length)
{
    Py_ssize_t size = TSHM_SIZE + API_SIZE + r->structures + 4 + data_length;
    if (size > 0x7FFFFFFF) {
        PyErr_SetString(PyExc_ValueError, "exchange: a reply longer than a segment");
        return NULL;
    }
    PyObject *reply = PyBytes_FromStringAndSize(NULL, size);
    if (reply == NULL)
        return NULL;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(reply);
    memcpy(o, "TSHM", 4);
    o[4] = (unsigned char)(size >> 24);
    o[5] = (unsigned char)(size >> 16);
    o[6] = (unsigned char)(size >> 8);
    o[7] = (unsigned char)size;
    memcpy(o + 8, r->frame + 8, 8);  /* ConversationId, RequestId as they came */
    memcpy(o + 16, r->kind == X.put ? X.put_rest : X.get_rest, TSHM_REST);
    memset(o + TSHM_SIZE, 0, 12);    /* ReplyLength, CompCode, Reason */
    put_le32(o + TSHM_SIZE + 12, r->hobj);
    memcpy(o + TSHM_SIZE + API_SIZE, r->md, (size_t)r->structures);
    put_le32(o + TSHM_SIZE + API_SIZE + r->structures, (uint32_t)data_length);
    return reply;
}

static unsigned char *structures_of(PyObject *reply)
{
    return (unsigned char *)PyBytes_AS_STRING(reply) + TSHM_SIZE + API_SIZE;
}

/* The MQMIError being raised as its CompCode and Reason (and its message, for MQGET),
 * cleared; 0 when it is another exception (left raised). */
static int failure(long *comp, long *reason, PyObject **message)
{
    if (!PyErr_ExceptionMatches(X.error))
        return 0;
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
    PyErr_NormalizeException(&type, &value, &trace);
    PyObject *c = PyObject_GetAttr(value, X.comp), *s = PyObject_GetAttr(value, X.reason);
    *message = PyObject_GetAttr(value, X.message);
    if (*message == NULL)
        PyErr_Clear();
    if (c == NULL || s == NULL) {
        PyErr_Clear();
        *comp = MQCC_FAILED;
        *reason = MQRC_UNEXPECTED_ERROR;
    } else {
        *comp = PyLong_AsLong(c);
        *reason = PyLong_AsLong(s);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            *comp = MQCC_FAILED;
            *reason = MQRC_UNEXPECTED_ERROR;
        }
    }
    Py_XDECREF(c);
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    return 1;
}

static void set_result(PyObject *reply, long comp, long reason)
{
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(reply) + TSHM_SIZE;
    put_le32(o + 4, (uint32_t)comp);
    put_le32(o + 8, (uint32_t)reason);
}

static PyObject *serve_put(const request_t *r, PyObject *plan)
{
    PyObject *reply = reply_of(r, 0);
    if (reply == NULL)
        return NULL;
    unsigned char *s = structures_of(reply);
    int done = X.raw->put(plan, r->data, r->data_length, s, r->mdv, s + r->md_length, r->optv);
    if (done == 1)
        return reply;
    long comp, reason;
    PyObject *message = NULL;
    if (done < 0 && failure(&comp, &reason, &message)) {
        Py_XDECREF(message);
        memcpy(s, r->md, (size_t)r->structures);  /* (as they came) */
        set_result(reply, comp, reason);
        return reply;
    }
    Py_DECREF(reply);
    return done == 0 ? Py_NewRef(Py_None) : NULL;
}

/* The reply of a get that raised: its structures as they came, the error's data. */
static PyObject *failed_get(const request_t *r)
{
    long comp, reason;
    PyObject *message = NULL;
    if (!failure(&comp, &reason, &message))
        return NULL;
    Py_buffer data = {0};
    int have = message != NULL && message != Py_None
               && PyObject_GetBuffer(message, &data, PyBUF_SIMPLE) == 0;
    if (message != NULL && message != Py_None && !have)
        PyErr_Clear();
    PyObject *reply = reply_of(r, have ? data.len : 0);
    if (reply != NULL) {
        if (have)
            memcpy(structures_of(reply) + r->structures + 4, data.buf, (size_t)data.len);
        set_result(reply, comp, reason);
    }
    if (have)
        PyBuffer_Release(&data);
    Py_XDECREF(message);
    return reply;
}

static PyObject *serve_get(const request_t *r, PyObject *plan, Py_buffer *room)
{
    unsigned char s[MAX_STRUCTURES];
    memcpy(s, r->md, (size_t)r->structures);
    Py_ssize_t length = 0;
    int got = X.raw->get(plan, s, r->mdv, s + r->md_length, r->optv, room->buf, room->len,
                         &length);
    if (got == 0)
        return Py_NewRef(Py_None);
    if (got < 0)
        return failed_get(r);
    Py_ssize_t kept = length > room->len ? room->len : length;
    PyObject *reply = reply_of(r, kept);
    if (reply == NULL)
        return NULL;
    memcpy(structures_of(reply), s, (size_t)r->structures);
    memcpy(structures_of(reply) + r->structures + 4, room->buf, (size_t)kept);
    if (length > room->len)
        set_result(reply, MQCC_WARNING, MQRC_TRUNCATED_MSG_ACCEPTED);
    return reply;
}

/* The get's room (a writable buffer from `rooms` by the structures' length) when the
 * queue's longest message, known for this plan in `longest` ((plan, bytes)), fits it;
 * 0 to decline, -1 with an exception. */
static int room_for(const request_t *r, PyObject *plan, PyObject *rooms, PyObject *longest,
                    Py_buffer *room)
{
    if (!PyTuple_Check(longest) || PyTuple_GET_SIZE(longest) != 2
        || PyTuple_GET_ITEM(longest, 0) != plan || !PyDict_Check(rooms))
        return 0;
    PyObject *key = PyLong_FromSsize_t(r->structures);
    if (key == NULL)
        return -1;
    PyObject *view = PyDict_GetItemWithError(rooms, key);  /* borrowed */
    Py_DECREF(key);
    if (view == NULL)
        return PyErr_Occurred() ? -1 : 0;
    Py_ssize_t most = PyLong_AsSsize_t(PyTuple_GET_ITEM(longest, 1));
    if (most == -1 && PyErr_Occurred())
        return -1;
    if (PyObject_GetBuffer(view, room, PyBUF_WRITABLE) < 0)
        return -1;
    if (most > room->len) {
        PyBuffer_Release(room);
        return 0;
    }
    return 1;
}

/* The handle's plan for the request (a new reference), None when it has none. */
static PyObject *plan_of(const request_t *r, PyObject *handles)
{
    PyObject *key = PyLong_FromUnsignedLong(r->hobj);
    if (key == NULL)
        return NULL;
    PyObject *handle = PyDict_GetItemWithError(handles, key);  /* borrowed */
    Py_DECREF(key);
    if (handle == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    return PyObject_GetAttr(handle, r->kind == X.put ? X.put_plan : X.get_plan);
}

static PyObject *serve(const request_t *r, PyObject *const *args)
{
    PyObject *plan = plan_of(r, args[1]);
    if (plan == NULL || plan == Py_None)
        return plan;
    PyObject *out;
    if (r->kind == X.put) {
        out = serve_put(r, plan);
    } else {
        Py_buffer room;
        int have = room_for(r, plan, args[2], args[3], &room);
        out = have < 0 ? NULL : have == 0 ? Py_NewRef(Py_None) : serve_get(r, plan, &room);
        if (have > 0)
            PyBuffer_Release(&room);
    }
    Py_DECREF(plan);
    return out;
}

static PyObject *serve_verb(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4 || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "serve_verb(frame, handles: dict, rooms, longest)");
        return NULL;
    }
    if (X.raw == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "serve_verb: setup() was not called");
        return NULL;
    }
    Py_buffer frame;
    if (PyObject_GetBuffer(args[0], &frame, PyBUF_SIMPLE) < 0)
        return NULL;
    request_t r;
    PyObject *out = parse(frame.buf, frame.len, &r) && r.structures <= MAX_STRUCTURES
                    ? serve(&r, args) : Py_NewRef(Py_None);
    PyBuffer_Release(&frame);
    return out;
}

static int check_sizes(PyObject *given, const Py_ssize_t *mine, int n, const char *what)
{
    if (!PyTuple_Check(given) || PyTuple_GET_SIZE(given) != n)
        goto bad;
    for (int i = 0; i < n; i++)
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(given, i)) != mine[i])
            goto bad;
    return 0;
bad:
    PyErr_Format(PyExc_ValueError, "exchange setup: the %s sizes differ from cmqc.h's", what);
    return -1;
}

static int rest_of(PyObject *given, char *into)
{
    if (!PyBytes_Check(given) || PyBytes_GET_SIZE(given) != TSHM_REST) {
        PyErr_SetString(PyExc_ValueError, "exchange setup: a TSHM rest of 20 bytes");
        return -1;
    }
    memcpy(into, PyBytes_AS_STRING(given), TSHM_REST);
    return 0;
}

/* setup(md_sizes, pmo_sizes, gmo_sizes, types, put_rest, get_rest, error) */
static PyObject *setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *md, *pmo, *gmo, *put_rest, *get_rest, *error;
    if (!PyArg_ParseTuple(args, "OOO(iiii)OOO", &md, &pmo, &gmo, &X.put, &X.get,
                          &X.put_reply, &X.get_reply, &put_rest, &get_rest, &error))
        return NULL;
    if (check_sizes(md, md_sizes, 2, "MQMD") < 0 || check_sizes(pmo, &pmo_size, 1, "MQPMO") < 0
        || check_sizes(gmo, gmo_sizes, 2, "MQGMO") < 0 || rest_of(put_rest, X.put_rest) < 0
        || rest_of(get_rest, X.get_rest) < 0)
        return NULL;
    X.raw = PyCapsule_Import(TPF_PLAN_RAW_CAPSULE, 0);
    if (X.raw == NULL)
        return NULL;
    Py_XSETREF(X.error, Py_NewRef(error));
    X.put_plan = PyUnicode_InternFromString("put_plan");
    X.get_plan = PyUnicode_InternFromString("get_plan");
    X.comp = PyUnicode_InternFromString("comp");
    X.reason = PyUnicode_InternFromString("reason");
    X.message = PyUnicode_InternFromString("message");
    if (!X.put_plan || !X.get_plan || !X.comp || !X.reason || !X.message)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(md_sizes, pmo_sizes, gmo_sizes, (put, get, put_reply, get_reply), put_rest, "
     "get_rest, error): the codec's layout, checked against cmqc.h's"},
    {"serve_verb", (PyCFunction)(void (*)(void))serve_verb, METH_FASTCALL,
     "serve_verb(frame, handles, rooms, longest) -> bytes | None: the reply segment of an "
     "MQPUT or MQGET served by its handle's plan, or None (nothing done)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "tpfemu._exchange",
    "A client's MQPUT or MQGET served in one C call (native/python/exchange.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__exchange(void)
{
    return PyModule_Create(&module_def);
}
