/* fastget.c - the FastQueue's single-message gets: get, get_body, get_md, and get_md
 * for a C program's structures (fq_get_raw, planpath.c's raw entry)
 *
 * Split out of fastpath.c (which keeps the type, the puts and the module). A persistent
 * message on a queue whose gets are logged is got by get_md through the queue's log
 * port (logput.c, logput_get) when its caller hands the port over; get, get_body and
 * the raw entry decline it (None / 0, nothing done) and the full path gets it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "eventlog.h"
#include "fastqueue.h"
#include "logput.h"
#include "mdpath.h"
#include "tpf/queue.h"

typedef struct {
    PyObject *bytes;
} alloc_ctx_t;

/* Called by the core with the queue locked; we hold the GIL, and allocating a bytes
 * object never runs Python code (bytes are not tracked by the cycle collector). */
static void *alloc_bytes(void *ctx, uint32_t length)
{
    alloc_ctx_t *a = ctx;
    a->bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
    return a->bytes != NULL ? PyBytes_AS_STRING(a->bytes) : NULL;
}

const char get_doc[] = PyDoc_STR("get(uow=0, not_persistent=False)\n--\n\n"
                      "Get the first message in delivery order, whole, as bytes (MQGET's fast\n"
                      "path). With not_persistent, None (nothing done) when it is persistent.");

const char get_body_doc[] = PyDoc_STR("get_body(uow=0, not_persistent=False, log=None)\n--\n\n"
                           "As get(), without the context record at the head of the data;\n"
                           "with an EventLog as log, the get event is recorded there.");

int scratch_get(FastQueue *self, const tpf_mq_getreq_t *req, tpf_mq_msg_t *md)
{
    int rc;
    for (;;) {
        if (scratch_room(&get_scratch, get_scratch.cap) == NULL)
            return -1;
        rc = core_get_full(self->q, req, md, get_scratch.p, (uint32_t)get_scratch.cap);
        if (rc != MQRC_TRUNCATED_MSG_FAILED)
            return rc;
        if (scratch_room(&get_scratch, md->length) == NULL) /* longer: grow, get again */
            return -1;
    }
}

/* The result of a core_get that got nothing (rc not MQRC_NONE): None for a persistent
 * message declined, nothing done (the caller's logged path gets it); else NULL with the
 * error set: the allocation's MemoryError, or the reason code's MQMIError. */
static PyObject *not_got(FastQueue *self, int rc, const alloc_ctx_t *out)
{
    if (rc == TPF_RC_PERSISTENT)
        Py_RETURN_NONE;
    if (out->bytes == NULL && PyErr_Occurred())
        return NULL;
    return raise_rc(self, rc, "MQGET");
}

/* get_body(uow, not_persistent, log) with a log: the get, and its event recorded. The
 * message is copied once, into a new bytes object, which is the result when it has no
 * context record (else the data is copied out; the log reads the record). */
static PyObject *get_body_logged(FastQueue *self, uint64_t uow, int flags, PyObject *log)
{
    alloc_ctx_t out = {NULL};
    tpf_mq_msg_t md;
    int rc = core_get(self->q, uow, flags & TPF_MQ_GET_NOT_PERSISTENT, alloc_bytes, &out, &md);
    if (rc != MQRC_NONE)
        return not_got(self, rc, &out);
    PyObject *data = out.bytes;
    const char *whole = PyBytes_AS_STRING(out.bytes);
    if (md.ctx_len != 0) {
        data = PyBytes_FromStringAndSize(whole + md.ctx_len,
                                         (Py_ssize_t)(md.length - md.ctx_len));
        if (data == NULL) {
            Py_DECREF(out.bytes);
            return NULL;
        }
    }
    /* (out.bytes, which holds the context record, is kept until it is recorded) */
    int logged = eventlog_record(log, EVENTLOG_GET, self->name, self->q, &md, whole,
                                 md.ctx_len, NULL, PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data),
                                 md_now_us(), uow);
    if (data != out.bytes)
        Py_DECREF(out.bytes);
    if (logged < 0) {
        Py_DECREF(data);
        return NULL;
    }
    return data;
}

static PyObject *do_get(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, int flags, const char *fn)
{
    static const char *const names[] = {"uow", "not_persistent", "log"};
    PyObject *a[3] = {NULL, NULL, NULL};
    uint64_t uow = 0;
    int nslots = flags & TPF_MQ_GET_SKIP_CTX ? 3 : 2; /* (a log: get_body only) */
    if ((nargs != 0 || kwnames != NULL) &&
        bind_args(fn, names, nslots, a, args, nargs, kwnames) < 0)
        return NULL;
    if (a[0] != NULL && read_uow(a[0], &uow) < 0)
        return NULL;
    if (a[1] != NULL) {
        int only = PyObject_IsTrue(a[1]);
        if (only < 0)
            return NULL;
        if (only)
            flags |= TPF_MQ_GET_NOT_PERSISTENT;
    }
    int logged = log_arg(a[2]);
    if (logged < 0)
        return NULL;
    if (self->q == NULL)
        return raise_rc(self, -1, "MQGET");
    if (logged)
        return get_body_logged(self, uow, flags, a[2]);
    alloc_ctx_t out = {NULL};
    int rc = core_get(self->q, uow, flags, alloc_bytes, &out, NULL);
    return rc == MQRC_NONE ? out.bytes : not_got(self, rc, &out);
}

PyObject *fq_get(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    return do_get(self, args, nargs, kwnames, 0, "get()");
}

PyObject *fq_get_body(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    return do_get(self, args, nargs, kwnames, TPF_MQ_GET_SKIP_CTX, "get_body()");
}

const char get_md_doc[] = PyDoc_STR(
             "get_md(md, match, not_persistent, details=True, log=None, uow=0)\n--\n\n"
             "MQGET with an MD in one call: the first message in delivery order matching\n"
             "the MD's MsgId and/or CorrelId (`match`: MQMO_* bits) is got whole, and its\n"
             "descriptor and context record written into the MD. Returns (data, flags,\n"
             "expiry): the core's TPF_MQ_F_* bits and the message's absolute deadline (for\n"
             "the get event); without details, the data alone when flags is 0. None,\n"
             "having changed nothing, when the MD holds ids the full path must judge or\n"
             "(not_persistent true) the message is persistent; not_persistent may instead\n"
             "be a get plan's log port (QueuePersistence.get_port): a persistent message\n"
             "is then got again under the queue's log lock, its GET record logged, as the\n"
             "full path does (logput.h). With an EventLog as log, the\n"
             "get event is recorded there. uow: the core unit of work the get joins\n"
             "(0: none; the message is then got outright).");

/* A get request read from an MD, made ready: now, in unit of work `uow` (0: none), and
 * declining a persistent message when `not_persistent`. */
static void ready_request(tpf_mq_getreq_t *req, uint64_t uow, int not_persistent)
{
    req->now = TPF_MQ_NOW;
    req->uow = uow;
    req->flags = not_persistent ? TPF_MQ_GET_NOT_PERSISTENT : 0;
}

PyObject *fq_get_md(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames)
{
    if (nargs < 3 || nargs > 6 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "get_md() takes 3 to 6 positional arguments");
        return NULL;
    }
    PyObject *port = PyTuple_CheckExact(args[2]) ? args[2] : NULL; /* a log port */
    int not_persistent = port != NULL ? 1 : PyObject_IsTrue(args[2]);
    int details = nargs < 4 ? 1 : PyObject_IsTrue(args[3]);
    PyObject *log = nargs >= 5 ? args[4] : NULL;
    int logged = log_arg(log);
    if (not_persistent < 0 || details < 0 || logged < 0)
        return NULL;
    uint64_t uow = 0;
    if (nargs == 6 && read_uow(args[5], &uow) < 0)
        return NULL;
    unsigned long match = PyLong_AsUnsignedLong(args[1]);
    if (match == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    if (self->q == NULL)
        return raise_rc(self, -1, "MQGET");
    PyObject *fields = PyObject_GenericGetDict(args[0], NULL);
    if (fields == NULL)
        return NULL;
    PyObject *result = NULL;
    tpf_mq_getreq_t req;
    memset(&req, 0, sizeof req);
    int r = md_get_read(fields, (uint32_t)match, &req);
    if (r <= 0) {
        result = r < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    ready_request(&req, uow, not_persistent);
    tpf_mq_msg_t md;
    int rc = scratch_get(self, &req, &md);
    const char *whole = get_scratch.p;
    PyObject *kept = NULL; /* the message whole, when the log port got it */
    if (rc == TPF_RC_PERSISTENT && port != NULL) { /* again, logged, under the lock */
        if ((kept = logput_get(self, port, &req, &md)) == NULL)
            goto done;
        whole = PyBytes_AS_STRING(kept);
        rc = MQRC_NONE;
    }
    if (rc < 0)
        goto done;
    if (rc == TPF_RC_PERSISTENT) { /* nothing done: the caller's logged path gets it */
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (rc != MQRC_NONE) {
        raise_rc(self, rc, "MQGET");
        goto done;
    }
    /* Out of the shared scratch buffer first: writing the MD allocates objects the
     * cycle collector tracks, and a collection may run finalizers that make MQI calls
     * (or let another thread run) and reuse the buffer. A bytes object and a stack
     * copy allocate nothing it tracks. */
    char record[TPF_MQ_MAX_CTX];
    memcpy(record, whole, md.ctx_len);
    PyObject *data = PyBytes_FromStringAndSize(whole + md.ctx_len,
                                               (Py_ssize_t)(md.length - md.ctx_len));
    Py_XDECREF(kept);
    if (data == NULL)
        goto done;
    int64_t now = md.expiry == TPF_MQ_NEVER && !logged ? 0 : md_now_us();
    if (md_get_write(args[0], &md, record, now) < 0 ||
        (logged && eventlog_record(log, EVENTLOG_GET, self->name, self->q, &md, record,
                                   md.ctx_len, NULL, PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), now,
                                   uow) < 0)) {
        Py_DECREF(data);
        goto done;
    }
    if (!details && md.flags == 0) {
        result = data; /* the reference is the caller's now */
        goto done;
    }
    PyObject *flags = PyLong_FromLong(md.flags);
    PyObject *expiry = PyLong_FromLongLong(md.expiry);
    result = flags != NULL && expiry != NULL ? PyTuple_Pack(3, data, flags, expiry) : NULL;
    Py_DECREF(data);
    Py_XDECREF(flags);
    Py_XDECREF(expiry);
done:
    Py_DECREF(fields);
    return result;
}

int fq_get_raw(FastQueue *self, void *md, int mdv, uint32_t match, int not_persistent,
               PyObject *log, uint64_t uow, char *buffer, Py_ssize_t room,
               Py_ssize_t *length, long *flags)
{
    if (self->q == NULL) {
        raise_rc(self, -1, "MQGET");
        return -1;
    }
    tpf_mq_getreq_t req;
    memset(&req, 0, sizeof req);
    int r = md_get_read_raw(md, mdv, match, &req);
    if (r <= 0)
        return r;
    ready_request(&req, uow, not_persistent);
    tpf_mq_msg_t m;
    int rc = scratch_get(self, &req, &m);
    if (rc < 0)
        return -1;
    if (rc == TPF_RC_PERSISTENT)
        return 0; /* nothing done: the full path gets it */
    if (rc != MQRC_NONE) {
        raise_rc(self, rc, "MQGET");
        return -1;
    }
    /* Out of the shared scratch buffer before anything that may run Python code (see
     * fq_get_md); a longer message than the buffer is copied whole for its event. */
    char record[TPF_MQ_MAX_CTX];
    memcpy(record, get_scratch.p, m.ctx_len);
    Py_ssize_t n = (Py_ssize_t)(m.length - m.ctx_len);
    const char *data = buffer;
    char *whole = NULL;
    if (n > room && log != NULL) {
        if ((whole = PyMem_Malloc((size_t)n)) == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(whole, get_scratch.p + m.ctx_len, (size_t)n);
        data = whole;
    }
    if (n > 0 && room > 0)
        memcpy(buffer, get_scratch.p + m.ctx_len, (size_t)(n < room ? n : room));
    *length = n;
    *flags = m.flags;
    int64_t now = m.expiry == TPF_MQ_NEVER && log == NULL ? 0 : md_now_us();
    rc = md_get_write_raw(md, mdv, &m, record, now) < 0 ||
                 (log != NULL &&
                  eventlog_record(log, EVENTLOG_GET, self->name, self->q, &m, record,
                                  m.ctx_len,
                                  NULL, data, n, now, uow) < 0)
             ? -1
             : 1;
    PyMem_Free(whole);
    return rc;
}
