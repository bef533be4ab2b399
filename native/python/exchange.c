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
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>

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
    /* the TSHM's bytes from ByteOrder on, by type: MQPUT, MQGET and their replies */
    char put_rest[TSHM_REST], get_rest[TSHM_REST], put_reply_rest[TSHM_REST],
        get_reply_rest[TSHM_REST];
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

/* Lay out a whole message segment of `size` bytes at o (as verbs.message_segment does):
 * TSHM (its ids the 8 bytes at ids), API header, the structures, the tail; the data,
 * if any, is the caller's to write after them. */
static void lay_out(unsigned char *o, Py_ssize_t size, const char *rest,
                    const unsigned char *ids, uint32_t reply_length, uint32_t hobj,
                    const void *structures, Py_ssize_t length, uint32_t tail)
{
    memcpy(o, "TSHM", 4);
    o[4] = (unsigned char)(size >> 24);
    o[5] = (unsigned char)(size >> 16);
    o[6] = (unsigned char)(size >> 8);
    o[7] = (unsigned char)size;
    memcpy(o + 8, ids, 8);
    memcpy(o + 16, rest, TSHM_REST);
    unsigned char *api = o + TSHM_SIZE;
    api[0] = (unsigned char)(reply_length >> 24);
    api[1] = (unsigned char)(reply_length >> 16);
    api[2] = (unsigned char)(reply_length >> 8);
    api[3] = (unsigned char)reply_length;
    memset(api + 4, 0, 8);            /* CompCode, Reason */
    put_le32(api + 12, hobj);
    memcpy(api + API_SIZE, structures, (size_t)length);
    put_le32(api + API_SIZE + length, tail);
}

/* The reply segment, its structures copied from the request, DataLength `tail` (an
 * MQGET's whole message, which may be longer than its data) and `data_length` bytes of
 * data to fill; the caller writes CompCode and Reason (zero here). */
static PyObject *reply_of(const request_t *r, Py_ssize_t data_length, Py_ssize_t tail)
{
    Py_ssize_t size = TSHM_SIZE + API_SIZE + r->structures + 4 + data_length;
    if (size > 0x7FFFFFFF) {
        PyErr_SetString(PyExc_ValueError, "exchange: a reply longer than a segment");
        return NULL;
    }
    PyObject *reply = PyBytes_FromStringAndSize(NULL, size);
    if (reply == NULL)
        return NULL;
    lay_out((unsigned char *)PyBytes_AS_STRING(reply), size,
            r->kind == X.put ? X.put_reply_rest : X.get_reply_rest, r->frame + 8, 0, r->hobj,
            r->md, r->structures, (uint32_t)(tail > data_length ? tail : data_length));
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
    PyObject *reply = reply_of(r, 0, 0);
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
    PyObject *reply = reply_of(r, have ? data.len : 0, have ? data.len : 0);
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
    PyObject *reply = reply_of(r, kept, length);
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

/* -- the client's side: one request sent and its reply read ------------------------- */

#define FIRST_READ 16384  /* the first read of a reply (a bigger one is read to its end) */

/* Wait until fd is ready for `events` (a socket with a timeout is non-blocking), at
 * most `timeout_ms` milliseconds (-1: for ever, as Link.receive_frame(None)). 0, or -1
 * with errno (ETIMEDOUT: nothing in time). */
static int wait_for(int fd, short events, int interruptible, int timeout_ms)
{
    struct pollfd p = {fd, events, 0};
    int r;
    do
        r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR && !interruptible);
    if (r == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    return r < 0 ? -1 : 0;
}

/* Send all n bytes (GIL released by the caller). 0, or -1 with errno. */
static int send_all(int fd, const unsigned char *p, Py_ssize_t n)
{
    while (n > 0) {
        ssize_t sent = send(fd, p, (size_t)n, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd, POLLOUT, 0, -1) == 0)
                continue;
            return -1;
        }
        p += sent;
        n -= sent;
    }
    return 0;
}

/* Read at most n bytes (GIL released by the caller), waiting at most `timeout_ms` for
 * them (-1: for ever): the count, 0 at the end of the stream, -1 with errno (EINTR too
 * when `interruptible`: the caller checks signals; ETIMEDOUT: nothing in time). */
static ssize_t read_some(int fd, unsigned char *p, Py_ssize_t n, int interruptible,
                         int timeout_ms)
{
    if (timeout_ms >= 0 && wait_for(fd, POLLIN, interruptible, timeout_ms) < 0)
        return -1;
    for (;;) {
        ssize_t got = recv(fd, p, (size_t)n, 0);
        if (got >= 0)
            return got;
        if (errno == EINTR && !interruptible)
            continue;
        if ((errno == EAGAIN || errno == EWOULDBLOCK)
            && wait_for(fd, POLLIN, interruptible, timeout_ms) == 0)
            continue;
        return -1;
    }
}

/* The SegmLength of the whole reply of type `kind` in our form that starts the n bytes
 * at f, or 0 when they do not start one (the Python read takes them). */
static Py_ssize_t our_reply(const unsigned char *f, Py_ssize_t n, int kind, Py_ssize_t most)
{
    if (n < TSHM_SIZE || memcmp(f, "TSHM", 4) != 0 || f[16] != 2 || f[17] != kind)
        return 0;
    Py_ssize_t size = (Py_ssize_t)((uint32_t)f[4] << 24 | (uint32_t)f[5] << 16
                                   | (uint32_t)f[6] << 8 | f[7]);
    return size >= n && size <= most ? size : 0;
}

/* The reply to the request just sent: its body (bytes) when a whole reply of `kind` in
 * our form came, else every byte read (a bytearray, for the Python read); NULL with
 * OSError when the socket failed or stayed silent for `timeout_ms` (-1: no limit). */
static PyObject *read_reply(int fd, int kind, Py_ssize_t most, int timeout_ms)
{
    unsigned char first[FIRST_READ];
    ssize_t got;
    for (;;) {  /* (a signal while nothing is read: its handler runs, as in a recv) */
        Py_BEGIN_ALLOW_THREADS
        got = read_some(fd, first, FIRST_READ, 1, timeout_ms);
        Py_END_ALLOW_THREADS
        if (got >= 0)
            break;
        if (errno != EINTR)
            return PyErr_SetFromErrno(PyExc_OSError);
        if (PyErr_CheckSignals() < 0)
            return NULL;
    }
    Py_ssize_t size = our_reply(first, got, kind, most);
    if (size == 0)
        return PyByteArray_FromStringAndSize((const char *)first, got);
    PyObject *body = PyBytes_FromStringAndSize(NULL, size - TSHM_SIZE);
    if (body == NULL)
        return NULL;
    unsigned char *b = (unsigned char *)PyBytes_AS_STRING(body);
    memcpy(b, first + TSHM_SIZE, (size_t)(got - TSHM_SIZE));
    Py_ssize_t have = got - TSHM_SIZE, need = size - TSHM_SIZE;
    ssize_t more = 1;
    Py_BEGIN_ALLOW_THREADS
    while (have < need && (more = read_some(fd, b + have, need - have, 0, timeout_ms)) > 0)
        have += more;
    Py_END_ALLOW_THREADS
    if (more < 0) {
        Py_DECREF(body);
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (have == need)
        return body;
    /* (the stream ended inside the reply: every byte read goes to the Python read) */
    PyObject *all = PyByteArray_FromStringAndSize(NULL, TSHM_SIZE + have);
    if (all != NULL) {
        memcpy(PyByteArray_AS_STRING(all), first, TSHM_SIZE);
        memcpy(PyByteArray_AS_STRING(all) + TSHM_SIZE, b, (size_t)have);
    }
    Py_DECREF(body);
    return all;
}

/* client_exchange(fd, kind, request_id, hobj, reply_length, structures, tail, data,
 *                 most[, timeout_ms]) -> bytes | bytearray */
static PyObject *client_exchange(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if ((nargs != 9 && nargs != 10) || !PyBytes_Check(args[5]) || !PyBytes_Check(args[7])) {
        PyErr_SetString(PyExc_TypeError, "client_exchange(fd, kind, request_id, hobj, "
                                         "reply_length, structures: bytes, tail, "
                                         "data: bytes, most[, timeout_ms])");
        return NULL;
    }
    long fd = PyLong_AsLong(args[0]), kind = PyLong_AsLong(args[1]);
    unsigned long request = PyLong_AsUnsignedLong(args[2]);
    unsigned long hobj = PyLong_AsUnsignedLongMask(args[3]);
    unsigned long reply_length = PyLong_AsUnsignedLong(args[4]);
    unsigned long tail = PyLong_AsUnsignedLong(args[6]);
    Py_ssize_t most = PyLong_AsSsize_t(args[8]);
    long timeout_ms = nargs == 10 ? PyLong_AsLong(args[9]) : -1;
    if (PyErr_Occurred())
        return NULL;
    if (timeout_ms < -1 || timeout_ms > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "client_exchange: timeout_ms is not -1 or a "
                                          "count of milliseconds");
        return NULL;
    }
    if ((kind != X.put && kind != X.get) || fd < 0 || fd > INT_MAX || request > 0xFFFFFFFFul
        || reply_length > 0xFFFFFFFFul || tail > 0xFFFFFFFFul) {
        PyErr_SetString(PyExc_ValueError, "client_exchange: not an MQPUT or MQGET, or a "
                                          "field out of range");
        return NULL;
    }
    Py_ssize_t length = PyBytes_GET_SIZE(args[5]), n = PyBytes_GET_SIZE(args[7]);
    Py_ssize_t size = TSHM_SIZE + API_SIZE + length + 4 + n;
    unsigned char small[FIRST_READ], *o = size <= FIRST_READ ? small : PyMem_Malloc(size);
    if (o == NULL)
        return PyErr_NoMemory();
    unsigned char ids[8] = {0, 0, 0, 1, (unsigned char)(request >> 24),
                            (unsigned char)(request >> 16), (unsigned char)(request >> 8),
                            (unsigned char)request};
    lay_out(o, size, kind == X.put ? X.put_rest : X.get_rest, ids, (uint32_t)reply_length,
            (uint32_t)hobj, PyBytes_AS_STRING(args[5]), length, (uint32_t)tail);
    memcpy(o + size - n, PyBytes_AS_STRING(args[7]), (size_t)n);
    int sent;
    Py_BEGIN_ALLOW_THREADS
    sent = send_all((int)fd, o, size);
    Py_END_ALLOW_THREADS
    if (o != small)
        PyMem_Free(o);
    if (sent < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    return read_reply((int)fd, kind == X.put ? X.put_reply : X.get_reply, most,
                      (int)timeout_ms);
}

/* reply_parts(body, md, opts) -> (comp, reason, md_back, opts_back, data) | None
 * A message verb's reply body in our form read at its request's offsets: None unless it
 * carries its MQMD and options structure at the StrucIds and Versions of `md` and `opts`
 * (the request's, so each as long as sent) and data as long as its DataLength says (what
 * client._as_sent checks); each structure back as bytes, or None when it came back as
 * sent. Reading only: the caller unpacks the structures. */
static PyObject *reply_parts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1])
        || !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "reply_parts(body: bytes, md: bytes, opts: bytes)");
        return NULL;
    }
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    const char *md = PyBytes_AS_STRING(args[1]), *opts = PyBytes_AS_STRING(args[2]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]), ml = PyBytes_GET_SIZE(args[1]);
    Py_ssize_t ol = PyBytes_GET_SIZE(args[2]), tail = API_SIZE + ml + ol;
    if (ml < 8 || ol < 8 || n < tail + 4 || memcmp(b + API_SIZE, md, 8) != 0
        || memcmp(b + API_SIZE + ml, opts, 8) != 0
        || (Py_ssize_t)le32(b + tail) != n - tail - 4)
        Py_RETURN_NONE;
    PyObject *md_back = memcmp(b + API_SIZE, md, (size_t)ml) == 0
        ? Py_NewRef(Py_None) : PyBytes_FromStringAndSize((const char *)b + API_SIZE, ml);
    PyObject *opts_back = memcmp(b + API_SIZE + ml, opts, (size_t)ol) == 0
        ? Py_NewRef(Py_None)
        : PyBytes_FromStringAndSize((const char *)b + API_SIZE + ml, ol);
    PyObject *data = PyBytes_FromStringAndSize((const char *)b + tail + 4, n - tail - 4);
    if (md_back == NULL || opts_back == NULL || data == NULL) {
        Py_XDECREF(md_back);
        Py_XDECREF(opts_back);
        Py_XDECREF(data);
        return NULL;
    }
    return Py_BuildValue("(iiNNN)", (int)(int32_t)le32(b + 4), (int)(int32_t)le32(b + 8),
                         md_back, opts_back, data);
}

/* -- the server's side: a conversation's frames read and answered ------------------ */

#define SERVE_READ 65536  /* bytes asked of one recv (Link's _READ) */

/* Whether the n bytes at f are one whole TSHM of at most `most` bytes: the frame a
 * conversation's serve function is handed (any other read goes to the Python read). */
static int one_tshm(const unsigned char *f, Py_ssize_t n, Py_ssize_t most)
{
    if (n < TSHM_SIZE || n > most || memcmp(f, "TSHM", 4) != 0)
        return 0;
    return (Py_ssize_t)((uint32_t)f[4] << 24 | (uint32_t)f[5] << 16 | (uint32_t)f[6] << 8
                        | f[7]) == n;
}

/* Send the reply (if any) and read the next bytes, the GIL released once for both.
 * The count read, 0 at the end of the stream, -1 with errno (the send's or the recv's). */
static ssize_t answer_and_read(int fd, PyObject *reply, unsigned char *buf, int *sent)
{
    const unsigned char *r = reply ? (const unsigned char *)PyBytes_AS_STRING(reply) : NULL;
    Py_ssize_t rn = reply ? PyBytes_GET_SIZE(reply) : 0;
    ssize_t got = -1;
    int err = 0;
    Py_BEGIN_ALLOW_THREADS
    *sent = r != NULL ? send_all(fd, r, rn) : 0;
    if (*sent == 0)
        got = read_some(fd, buf, SERVE_READ, 0, -1);
    err = errno;
    Py_END_ALLOW_THREADS
    errno = err;
    return got;
}

/* serve_frames(fd, serve, handles, rooms, longest, most) -> (rest, bytes_in, bytes_out)
 * Read socket fd; while each read is one whole TSHM (of at most `most` bytes) that
 * serve(frame, handles, rooms, longest) answers with bytes, send that answer and read
 * again. The first read it does not answer so (another read, None from serve, the end of
 * the stream: b"") is returned as `rest`, with the bytes of the frames answered and the
 * bytes sent. Framing only: serve (verbs.serve_verb) decides what is answered. */
static PyObject *serve_frames(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6 || !PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "serve_frames(fd, serve, handles, rooms, longest, "
                                         "most)");
        return NULL;
    }
    long fd = PyLong_AsLong(args[0]);
    Py_ssize_t most = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred())
        return NULL;
    if (fd < 0 || fd > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "serve_frames: not a descriptor");
        return NULL;
    }
    unsigned char *buf = PyMem_Malloc(SERVE_READ);
    if (buf == NULL)
        return PyErr_NoMemory();
    PyObject *reply = NULL, *rest = NULL, *result = NULL;
    long long in = 0, out = 0;
    for (;;) {
        int sent;
        ssize_t got = answer_and_read((int)fd, reply, buf, &sent);
        if (reply != NULL && sent == 0)
            out += PyBytes_GET_SIZE(reply);
        Py_CLEAR(reply);
        if (got < 0) {
            PyErr_SetFromErrno(PyExc_OSError);
            break;
        }
        PyObject *frame = PyBytes_FromStringAndSize((const char *)buf, got);
        if (frame == NULL)
            break;
        if (got == 0 || !one_tshm(buf, got, most)) {
            rest = frame;
            break;
        }
        PyObject *call[4] = {frame, args[2], args[3], args[4]};
        PyObject *answer = PyObject_Vectorcall(args[1], call, 4, NULL);
        if (answer == NULL || answer == Py_None || !PyBytes_Check(answer)) {
            if (answer != NULL && answer != Py_None)
                PyErr_SetString(PyExc_TypeError, "serve_frames: serve answered no bytes");
            if (answer == Py_None)
                rest = Py_NewRef(frame);
            Py_XDECREF(answer);
            Py_DECREF(frame);
            break;
        }
        Py_DECREF(frame);
        in += got;
        reply = answer;
    }
    if (rest != NULL)
        result = Py_BuildValue("(NLL)", rest, in, out);
    PyMem_Free(buf);
    return result;
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

static int rest_of(PyObject *rests, int kind, char *into)
{
    PyObject *key = PyLong_FromLong(kind);
    PyObject *given = key != NULL ? PyDict_GetItemWithError(rests, key) : NULL;
    Py_XDECREF(key);
    if (given == NULL || !PyBytes_Check(given) || PyBytes_GET_SIZE(given) != TSHM_REST) {
        PyErr_SetString(PyExc_ValueError, "exchange setup: a TSHM rest of 20 bytes");
        return -1;
    }
    memcpy(into, PyBytes_AS_STRING(given), TSHM_REST);
    return 0;
}

/* setup(md_sizes, pmo_sizes, gmo_sizes, types, rests, error) */
static PyObject *setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *md, *pmo, *gmo, *rests, *error;
    if (!PyArg_ParseTuple(args, "OOO(iiii)O!O", &md, &pmo, &gmo, &X.put, &X.get,
                          &X.put_reply, &X.get_reply, &PyDict_Type, &rests, &error))
        return NULL;
    if (check_sizes(md, md_sizes, 2, "MQMD") < 0 || check_sizes(pmo, &pmo_size, 1, "MQPMO") < 0
        || check_sizes(gmo, gmo_sizes, 2, "MQGMO") < 0 || rest_of(rests, X.put, X.put_rest) < 0
        || rest_of(rests, X.get, X.get_rest) < 0
        || rest_of(rests, X.put_reply, X.put_reply_rest) < 0
        || rest_of(rests, X.get_reply, X.get_reply_rest) < 0)
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
     "setup(md_sizes, pmo_sizes, gmo_sizes, (put, get, put_reply, get_reply), rests, "
     "error): the codec's layout (rests: the TSHM after the ids, by type), checked "
     "against cmqc.h's"},
    {"serve_verb", (PyCFunction)(void (*)(void))serve_verb, METH_FASTCALL,
     "serve_verb(frame, handles, rooms, longest) -> bytes | None: the reply segment of an "
     "MQPUT or MQGET served by its handle's plan, or None (nothing done)"},
    {"client_exchange", (PyCFunction)(void (*)(void))client_exchange, METH_FASTCALL,
     "client_exchange(fd, kind, request_id, hobj, reply_length, structures, tail, data, "
     "most) -> bytes | bytearray: send an MQPUT or MQGET request (ConversationId 1) laid "
     "out as verbs.message_segment does, and read its reply: its body when it is one whole "
     "reply in our form no longer than most, else every byte read; OSError when the "
     "socket fails"},
    {"reply_parts", (PyCFunction)(void (*)(void))reply_parts, METH_FASTCALL,
     "reply_parts(body, md, opts) -> (comp, reason, md_back, opts_back, data) | None: a "
     "message verb's reply body in our form read at its request's offsets (None: another "
     "layout); a structure that came back as sent is None"},
    {"serve_frames", (PyCFunction)(void (*)(void))serve_frames, METH_FASTCALL,
     "serve_frames(fd, serve, handles, rooms, longest, most) -> (rest, bytes_in, "
     "bytes_out): read socket fd and send serve(frame, handles, rooms, longest)'s answer "
     "to each read that is one whole TSHM of at most most bytes, until a read it does "
     "not answer (returned as rest; b\"\" at the end of the stream); OSError when the "
     "socket fails"},
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
