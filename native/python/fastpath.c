/* fastpath.c - tpfemu._fastpath: METH_FASTCALL put and get for the queue's hot path
 *
 * Through cffi a call costs 100-200 ns of argument conversion and GIL release, and a
 * get must then copy the message out of a buffer into a new bytes object. For the
 * hottest calls only, this thin CPython binding does better: arguments are read
 * straight from the Python objects, and a get copies the message directly into a new
 * bytes object (tpf_mq_get_alloc). put/get serve MQPUT/MQGET without an MD; put_md
 * and get_md serve them with one, reading and writing the MD's fields and context
 * record in C (mdpath.c). The gets are in fastget.c; put_many/get_many move batches (batchpath.c, sharing the
 * FastQueue object and helpers through fastqueue.h). Everything else goes through cffi.
 *
 * This module does not contain the core. tpfemu._lowlevel hands it, with bind(), the
 * addresses of the functions of the one compiled core (tpfemu._native), so the core's
 * state (the MsgId counter) exists once. The calls keep the GIL: they are short, and
 * the core's own lock makes them safe against cffi calls running in other threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <string.h>

#include "eventlog.h"
#include "fastqueue.h"
#include "logput.h"
#include "mdpath.h"
#include "planpath.h"
#include "structbase.h"
#include "tpf/queue.h"

static put_fn core_put;                 /**< tpf_mq_put_simple of tpfemu._native */
get_fn core_get;                        /**< tpf_mq_get_alloc of tpfemu._native */
static put_full_fn core_put_full;       /**< tpf_mq_put */
get_full_fn core_get_full;              /**< tpf_mq_get */
put_gather_fn core_put_gather;          /**< tpf_mq_put_many_gather */
get_many_fn core_get_many;              /**< tpf_mq_get_many */
static commit_fn core_commit;           /**< tpf_mq_commit */
static PyObject *error_factory;         /**< callable(rc, call, name) -> exception; rc -1 =
                                             the queue is closed */

static scratch_t put_scratch;
scratch_t get_scratch;

char *scratch_room(scratch_t *s, size_t need)
{
    if (need <= s->cap && s->p != NULL)
        return s->p;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < need)
        cap *= 2;
    char *p = PyMem_Realloc(s->p, cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    s->p = p;
    s->cap = cap;
    return p;
}

PyObject *raise_rc(FastQueue *self, int rc, const char *call)
{
    PyObject *exc = PyObject_CallFunction(error_factory, "isO", rc, call, self->name);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

int bind_args(const char *fn, const char *const *names, int nslots, PyObject **slots,
                     PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs > nslots) {
        PyErr_Format(PyExc_TypeError, "%s takes at most %d arguments", fn, nslots);
        return -1;
    }
    for (int i = 0; i < nslots; i++)
        slots[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (key == NULL)
            return -1;
        int i = 0;
        while (i < nslots && strcmp(key, names[i]) != 0)
            i++;
        if (i == nslots) {
            PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument '%s'", fn, key);
            return -1;
        }
        if (slots[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s got multiple values for argument '%s'", fn, key);
            return -1;
        }
        slots[i] = args[nargs + k];
    }
    return 0;
}

int read_uow(PyObject *arg, uint64_t *uow)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(arg);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *uow = (uint64_t)v;
    return 0;
}

PyDoc_STRVAR(put_doc, "put(data, priority=0, uow=0, log=None)\n--\n\n"
                      "Put a non-persistent, never-expiring message (MQPUT's fast path).\n"
                      "With an EventLog as log, the message gets a MsgId and a put time and\n"
                      "its put event is recorded there.");

int log_arg(PyObject *arg)
{
    if (arg == NULL || arg == Py_None)
        return 0;
    if (eventlog_check(arg))
        return 1;
    PyErr_Format(PyExc_TypeError, "log must be an EventLog or None, not %.100s",
                 Py_TYPE(arg)->tp_name);
    return -1;
}

/* The put of put(data, priority, uow, log) with a log: a descriptor, so that the core
 * generates the MsgId the event names. */
static PyObject *put_logged(FastQueue *self, PyObject *data, long priority, uint64_t uow,
                            PyObject *log)
{
    if (!PyBytes_CheckExact(data)) {
        PyErr_Format(PyExc_TypeError, "message data must be bytes, not %.100s",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    if ((size_t)PyBytes_GET_SIZE(data) > UINT32_MAX)
        return raise_rc(self, MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT");
    if (priority < 0 || priority >= TPF_MQ_PRIORITIES)
        return raise_rc(self, MQRC_PRIORITY_ERROR, "MQPUT");
    tpf_mq_msg_t md;
    memset(&md, 0, sizeof md);
    md.expiry = TPF_MQ_NEVER;
    md.put_time = md_now_us();
    md.uow = uow;
    md.priority = (uint8_t)priority;
    int rc = core_put_full(self->q, &md, PyBytes_AS_STRING(data),
                           (uint32_t)PyBytes_GET_SIZE(data));
    if (rc != MQRC_NONE)
        return raise_rc(self, rc, "MQPUT");
    if (eventlog_record(log, EVENTLOG_PUT, self->name, self->q, &md, NULL, 0, data,
                        PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), md.put_time, uow) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *fq_put(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    static const char *const names[] = {"data", "priority", "uow", "log"};
    PyObject *a[4];
    if (kwnames == NULL && nargs == 2) { /* the common call: put(data, priority) */
        a[0] = args[0];
        a[1] = args[1];
        a[2] = a[3] = NULL;
    } else if (bind_args("put()", names, 4, a, args, nargs, kwnames) < 0) {
        return NULL;
    }
    if (a[0] == NULL) {
        PyErr_SetString(PyExc_TypeError, "put() missing required argument 'data'");
        return NULL;
    }
    long priority = 0;
    uint64_t uow = 0;
    if (a[1] != NULL) {
        priority = PyLong_AsLong(a[1]);
        if (priority == -1 && PyErr_Occurred())
            return NULL;
        if (priority < INT_MIN || priority > INT_MAX)
            priority = -1; /* the core answers MQRC_PRIORITY_ERROR */
    }
    if (a[2] != NULL && read_uow(a[2], &uow) < 0)
        return NULL;
    int logged = log_arg(a[3]);
    if (logged < 0)
        return NULL;
    if (self->q == NULL)
        return raise_rc(self, -1, "MQPUT");
    if (logged)
        return put_logged(self, a[0], priority, uow, a[3]);
    int rc;
    PyObject *data = a[0];
    if (PyBytes_CheckExact(data)) {
        Py_ssize_t n = PyBytes_GET_SIZE(data);
        if ((size_t)n > UINT32_MAX)
            return raise_rc(self, MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT");
        rc = core_put(self->q, PyBytes_AS_STRING(data), (uint32_t)n, (int)priority, uow);
    } else {
        if (PyUnicode_Check(data)) {
            PyErr_SetString(PyExc_TypeError,
                            "message data must be bytes-like, not str (encode it first)");
            return NULL;
        }
        Py_buffer view;
        if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
            PyErr_Format(PyExc_TypeError, "message data must be bytes-like, not %.100s",
                         Py_TYPE(data)->tp_name);
            return NULL;
        }
        if ((size_t)view.len > UINT32_MAX) {
            PyBuffer_Release(&view);
            return raise_rc(self, MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT");
        }
        rc = core_put(self->q, view.buf, (uint32_t)view.len, (int)priority, uow);
        PyBuffer_Release(&view);
    }
    if (rc != MQRC_NONE)
        return raise_rc(self, rc, "MQPUT");
    Py_RETURN_NONE;
}

/* Join record and data in put_scratch (the core takes one buffer). */
static const char *joined(const char *record, uint32_t nrec, const char *data, Py_ssize_t ndata)
{
    if (nrec == 0)
        return data;
    char *p = scratch_room(&put_scratch, (size_t)nrec + (size_t)ndata);
    if (p != NULL) {
        memcpy(p, record, nrec);
        memcpy(p + nrec, data, (size_t)ndata);
    }
    return p;
}

/* The put of a descriptor md_put_read or md_put_read_raw made, its record and the
 * `ndata` bytes at `data` joined: 0, or -1 with the queue's exception. */
int fq_put_prepared(FastQueue *self, md_put_t *p, const char *data, Py_ssize_t ndata,
                    uint64_t uow)
{
    p->md.uow = uow;
    const char *buf = joined(p->record, p->record_len, data, ndata);
    if (buf == NULL)
        return -1;
    int rc = core_put_full(self->q, &p->md, buf, p->record_len + (uint32_t)ndata);
    if (rc != MQRC_NONE) {
        raise_rc(self, rc, "MQPUT");
        return -1;
    }
    return 0;
}

/* The put event of a message fq_put_prepared put, in the EventLog `log` (NULL: none). */
static int put_event(FastQueue *self, const md_put_t *p, PyObject *data_obj, const char *data,
                     Py_ssize_t ndata, PyObject *log, int64_t now, uint64_t uow)
{
    if (log == NULL)
        return 0;
    return eventlog_record(log, EVENTLOG_PUT, self->name, self->q, &p->md, p->record,
                           p->record_len, data_obj, data, ndata, now, uow);
}


PyDoc_STRVAR(put_md_doc,
             "put_md(md, data, settings, log=None, uow=0)\n--\n\n"
             "MQPUT with an MD (tpfemu.mq.structs.MD) in one call: read the MD, put data\n"
             "with its context record, write MsgId, PutDate, PutTime and the put context\n"
             "into it. settings: (DEFPRTY, DEFPSIST is YES, persistent messages are logged,\n"
             "the base record, the put context outputs dict, the names of those left at\n"
             "the MD's initial values, the queue manager's name (48 bytes: the\n"
             "ReplyToQMgr of a put with a ReplyToQ and none), the set of 48-byte remote\n"
             "queue definition names (such a ReplyToQ is declined), the context (0: the\n"
             "default, 1: SET_IDENTITY, 2: SET_ALL)). Returns 0, having changed\n"
             "nothing, for an MD the full path must handle (see mdpath.h); 1 once the\n"
             "message is put, 2 when it is put and has an expiry. With an EventLog as\n"
             "log, the put event is recorded there. uow: the core unit of work the put\n"
             "joins (0: none).");

static PyObject *fq_put_md(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    if (nargs < 3 || nargs > 5 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "put_md() takes 3 to 5 positional arguments");
        return NULL;
    }
    PyObject *data = args[1], *settings = args[2], *log = nargs >= 4 ? args[3] : NULL;
    int journaled = log_arg(log);
    if (journaled < 0)
        return NULL;
    uint64_t uow = 0;
    if (nargs == 5 && read_uow(args[4], &uow) < 0)
        return NULL;
    if (!PyBytes_CheckExact(data)) {
        PyErr_SetString(PyExc_TypeError, "put_md(md, data, settings): data must be bytes");
        return NULL;
    }
    md_put_settings_t set;
    if (md_settings_read(settings, &set) < 0)
        return NULL;
    set.log_port = logput_port(settings);
    if (self->q == NULL)
        return raise_rc(self, -1, "MQPUT");
    if ((size_t)PyBytes_GET_SIZE(data) > UINT32_MAX - TPF_MQ_MAX_CTX)
        return raise_rc(self, MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT");
    PyObject *fields = PyObject_GenericGetDict(args[0], NULL);
    if (fields == NULL)
        return NULL;
    md_put_t put; /* on the stack: nothing static outlives a call that may allocate */
    md_put_t *p = &put;
    int64_t now = md_now_us();
    PyObject *result = NULL;
    int r = md_put_read(fields, &set, now, p);
    if (r <= 0) {
        result = r < 0 ? NULL : PyLong_FromLong(0);
        goto done;
    }
    const char *bytes = PyBytes_AS_STRING(data);
    Py_ssize_t ndata = PyBytes_GET_SIZE(data);
    int logged = p->md.persistent && set.log_port != NULL; /* (the recovery log's) */
    if ((logged ? logput_put(self, p, bytes, ndata, set.log_port, uow)
                : fq_put_prepared(self, p, bytes, ndata, uow)) < 0 ||
        md_put_write(fields, p, &set, now) < 0 ||
        put_event(self, p, data, bytes, ndata, journaled ? log : NULL, now, uow) < 0)
        goto done;
    result = PyLong_FromLong(p->md.expiry == TPF_MQ_NEVER ? 1 : 2);
done:
    Py_DECREF(fields);
    return result;
}

/* -- the same for a C program's structures (planpath.c's raw entries) ------------------- */

static PyTypeObject FastQueueType;

FastQueue *fastqueue_of(PyObject *method)
{
    if (!PyCFunction_Check(method))
        return NULL;
    PyObject *self = PyCFunction_GET_SELF(method);
    return self != NULL && Py_TYPE(self) == &FastQueueType ? (FastQueue *)self : NULL;
}

int fq_put_raw(FastQueue *self, const void *data, Py_ssize_t ndata, void *md, int mdv,
               const md_put_settings_t *s, PyObject *log, uint64_t uow)
{
    if (self->q == NULL) {
        raise_rc(self, -1, "MQPUT");
        return -1;
    }
    if ((size_t)ndata > UINT32_MAX - TPF_MQ_MAX_CTX) {
        raise_rc(self, MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT");
        return -1;
    }
    md_put_t put; /* (the MD is read into it before anything can run) */
    int64_t now = md_now_us();
    int r = md_put_read_raw(md, mdv, s, now, &put);
    if (r <= 0)
        return r;
    int logged = put.md.persistent && s->log_port != NULL; /* (the recovery log's) */
    if ((logged ? logput_put(self, &put, data, ndata, s->log_port, uow)
                : fq_put_prepared(self, &put, data, ndata, uow)) < 0 ||
        md_put_write_raw(md, mdv, &put, s, now) < 0 ||
        put_event(self, &put, NULL, data, ndata, log, now, uow) < 0)
        return -1;
    return put.md.expiry == TPF_MQ_NEVER ? 1 : 2;
}


static PyObject *fq_detach(FastQueue *self, PyObject *unused)
{
    (void)unused;
    self->q = NULL;
    Py_RETURN_NONE;
}

/* commit(uow) -> int: tpf_mq_commit of unit of work `uow` with the GIL held: the core's
 * commit is a short step under the queue's spinlock, and a thread that let the GIL go
 * for it would wait behind every other thread that wants the GIL (MQCMIT from 16
 * threads). The messages committed, or the queue's exception. */
static PyObject *fq_commit(FastQueue *self, PyObject *arg)
{
    uint64_t uow;
    if (read_uow(arg, &uow) < 0)
        return NULL;
    if (uow == 0) {
        PyErr_SetString(PyExc_ValueError, "MQCMIT: a unit of work id is a positive integer, "
                                          "not 0");
        return NULL;
    }
    if (self->q == NULL)
        return raise_rc(self, -1, "MQCMIT");
    uint32_t n = 0;
    int rc = core_commit(self->q, uow, &n);
    return rc != 0 ? raise_rc(self, rc, "MQCMIT") : PyLong_FromUnsignedLong(n);
}

static PyMethodDef fq_methods[] = {
    {"commit", (PyCFunction)fq_commit, METH_O,
     "commit(uow) -> int: MQCMIT's core step for unit of work uow, the GIL held."},
    {"put", (PyCFunction)(void (*)(void))fq_put, METH_FASTCALL | METH_KEYWORDS, put_doc},
    {"get", (PyCFunction)(void (*)(void))fq_get, METH_FASTCALL | METH_KEYWORDS, get_doc},
    {"get_body", (PyCFunction)(void (*)(void))fq_get_body, METH_FASTCALL | METH_KEYWORDS,
     get_body_doc},
    {"put_md", (PyCFunction)(void (*)(void))fq_put_md, METH_FASTCALL | METH_KEYWORDS,
     put_md_doc},
    {"get_md", (PyCFunction)(void (*)(void))fq_get_md, METH_FASTCALL | METH_KEYWORDS,
     get_md_doc},
    {"put_many", (PyCFunction)(void (*)(void))fq_put_many, METH_FASTCALL, put_many_doc},
    {"get_many", (PyCFunction)(void (*)(void))fq_get_many, METH_FASTCALL, get_many_doc},
    {"detach", (PyCFunction)fq_detach, METH_NOARGS,
     "Forget the queue (before it is freed); later calls raise the closed error."},
    {NULL, NULL, 0, NULL},
};

static PyObject *fq_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    unsigned long long address;
    PyObject *name;
    static char *kwlist[] = {"address", "name", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "KU", kwlist, &address, &name))
        return NULL;
    if (core_put == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tpfemu._fastpath.bind() was not called");
        return NULL;
    }
    FastQueue *self = (FastQueue *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->q = (tpf_mq_queue_t *)(uintptr_t)address;
    Py_INCREF(name);
    self->name = name;
    return (PyObject *)self;
}

static void fq_dealloc(FastQueue *self)
{
    Py_XDECREF(self->name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject FastQueueType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tpfemu._fastpath.FastQueue",
    .tp_basicsize = sizeof(FastQueue),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "FastQueue(address, name): put/get of one core queue, called from C.",
    .tp_new = fq_new,
    .tp_dealloc = (destructor)fq_dealloc,
    .tp_methods = fq_methods,
};

static PyObject *fp_bind(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long put_addr, get_addr, put_full_addr, get_full_addr, gather_addr,
        get_many_addr, commit_addr;
    PyObject *factory;
    if (!PyArg_ParseTuple(args, "KKKKKKKO", &put_addr, &get_addr, &put_full_addr,
                          &get_full_addr, &gather_addr, &get_many_addr, &commit_addr,
                          &factory))
        return NULL;
    if (!PyCallable_Check(factory)) {
        PyErr_SetString(PyExc_TypeError, "bind: the error factory must be callable");
        return NULL;
    }
    core_put = (put_fn)(uintptr_t)put_addr;
    core_get = (get_fn)(uintptr_t)get_addr;
    core_put_full = (put_full_fn)(uintptr_t)put_full_addr;
    core_get_full = (get_full_fn)(uintptr_t)get_full_addr;
    core_put_gather = (put_gather_fn)(uintptr_t)gather_addr;
    core_get_many = (get_many_fn)(uintptr_t)get_many_addr;
    core_commit = (commit_fn)(uintptr_t)commit_addr;
    Py_INCREF(factory);
    Py_XSETREF(error_factory, factory);
    Py_RETURN_NONE;
}

static PyMethodDef fp_methods[] = {
    {"split", (PyCFunction)(void (*)(void))batch_split, METH_FASTCALL, split_doc},
    {"plan_setup", plan_setup, METH_VARARGS,
     "plan_setup(put_plan_type, get_plan_type, generation_type, md_type, gmo_type, "
     "pmo_type, get_options, put_options, expired_pending): what planned_put/planned_get "
     "read (see native/python/planpath.h)."},
    {"planned_put", (PyCFunction)(void (*)(void))planned_put, METH_FASTCALL,
     "planned_put(plan, data, md, pmo) -> bool: MQPUT by a put plan, or False having "
     "changed nothing (see native/python/planpath.h)."},
    {"planned_get", (PyCFunction)(void (*)(void))planned_get, METH_FASTCALL,
     "planned_get(plan, max_length, md, gmo) -> bytes | None: MQGET by a get plan, or "
     "None having changed nothing (see native/python/planpath.h)."},
    {"planned_put_raw", (PyCFunction)(void (*)(void))planned_put_raw_py, METH_FASTCALL,
     "planned_put_raw(plan, data, md, pmo) -> bool: planned_put with an MQMD and MQPMO in "
     "C layout (writable buffers), as C programs call it (see tpf/plan_raw.h)."},
    {"planned_get_raw", (PyCFunction)(void (*)(void))planned_get_raw_py, METH_FASTCALL,
     "planned_get_raw(plan, md, gmo, buffer) -> int | None: planned_get with an MQMD and "
     "MQGMO in C layout into buffer; the message's length, or None when declined."},
    {"md_layout_set", md_layout_set, METH_VARARGS,
     "md_layout_set(version, size, fields, expiry_offset, default_record, md_initials): "
     "the context record's layout and the MD's initial values (from tpfemu.qmgr.context)."},
    {"bind", fp_bind, METH_VARARGS,
     "bind(put_simple, get_alloc, put, get, put_many_gather, get_many, commit, "
     "error_factory): "
     "addresses of the core's functions to call."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fp_module = {
    PyModuleDef_HEAD_INIT, "tpfemu._fastpath",
    "METH_FASTCALL put/get for tpfemu's message core (used only by tpfemu._lowlevel).",
    -1, fp_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastpath(void)
{
    if (PyType_Ready(&FastQueueType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&fp_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&FastQueueType);
    if (PyModule_AddObject(m, "FastQueue", (PyObject *)&FastQueueType) < 0) {
        Py_DECREF(&FastQueueType);
        Py_DECREF(m);
        return NULL;
    }
    if (eventlog_ready(m) < 0 || logencode_ready(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *raw = PyCapsule_New((void *)&plan_raw, TPF_PLAN_RAW_CAPSULE, NULL);
    int added = raw != NULL ? PyModule_AddObjectRef(m, "plan_raw", raw) : -1;
    Py_XDECREF(raw);
    if (added < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (PyType_Ready(&md_struct_base_type) < 0 ||
        PyModule_AddObjectRef(m, "StructBase", (PyObject *)&md_struct_base_type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
