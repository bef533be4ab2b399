/* logput.c - a put or get plan's persistent message on a logged queue (see logput.h) */
#include "logput.h"

#include "tpf/logrec.h"

enum { PORT_LOCK, PORT_QID, PORT_APPEND, PORT_WAIT, PORT_LEN };

static PyObject *s_acquire, *s_release;

PyObject *logput_port(PyObject *settings)
{
    PyObject *logged = PyTuple_GET_ITEM(settings, 2);
    return PyTuple_CheckExact(logged) ? logged : NULL;
}

/* lock.<name>(); 0, or -1 with an exception. */
static int lock_call(PyObject *lock, PyObject **name, const char *text)
{
    if (*name == NULL && (*name = PyUnicode_InternFromString(text)) == NULL)
        return -1;
    PyObject *r = PyObject_CallMethodNoArgs(lock, *name);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* Release the lock, keeping any exception pending (a failed release replaces it). */
static int unlock(PyObject *lock)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (lock_call(lock, &s_release, "release") < 0) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return -1;
    }
    PyErr_Restore(type, value, tb);
    return 0;
}

/* Under the lock: the core put, its record, and append(seq, record, uow): the ticket, or
 * NULL with an exception. */
static PyObject *put_and_append(FastQueue *self, md_put_t *p, const char *data,
                                Py_ssize_t ndata, PyObject *port, uint64_t uow,
                                PyObject *record, uint32_t qid)
{
    if (fq_put_prepared(self, p, data, ndata, uow) < 0)
        return NULL;
    tpf_log_put_record((unsigned char *)PyBytes_AS_STRING(record), qid, uow, &p->md, p->record,
                       data, (uint32_t)ndata);
    PyObject *seq = PyLong_FromUnsignedLongLong(p->md.seq);
    PyObject *uow_obj = PyLong_FromUnsignedLongLong(uow);
    PyObject *ticket = NULL;
    if (seq != NULL && uow_obj != NULL) {
        PyObject *args[3] = {seq, record, uow_obj};
        ticket = PyObject_Vectorcall(PyTuple_GET_ITEM(port, PORT_APPEND), args, 3, NULL);
    }
    Py_XDECREF(seq);
    Py_XDECREF(uow_obj);
    return ticket;
}

int logput_put(FastQueue *self, md_put_t *p, const char *data, Py_ssize_t ndata,
               PyObject *port, uint64_t uow)
{
    if (PyTuple_GET_SIZE(port) != PORT_LEN) {
        PyErr_SetString(PyExc_TypeError, "put_md: the log port is (log lock, queue id, "
                                         "append, wait)");
        return -1;
    }
    unsigned long qid = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(port, PORT_QID));
    if (qid == (unsigned long)-1 && PyErr_Occurred())
        return -1;
    if ((size_t)ndata > UINT32_MAX - TPF_LOG_PUT_HEAD - p->record_len) {
        PyErr_SetString(PyExc_OverflowError, "put_md: message too long for a log record");
        return -1;
    }
    PyObject *record = PyBytes_FromStringAndSize(NULL, TPF_LOG_PUT_HEAD + p->record_len + ndata);
    if (record == NULL)
        return -1;
    PyObject *lock = PyTuple_GET_ITEM(port, PORT_LOCK);
    PyObject *ticket = NULL;
    if (lock_call(lock, &s_acquire, "acquire") == 0) {
        ticket = put_and_append(self, p, data, ndata, port, uow, record, (uint32_t)qid);
        if (unlock(lock) < 0)
            Py_CLEAR(ticket);
    }
    Py_DECREF(record);
    if (ticket == NULL)
        return -1;
    int rc = 0;
    if (uow == 0) { /* outside syncpoint: durable before MQPUT returns (else undone) */
        PyObject *msg_id = PyBytes_FromStringAndSize((const char *)p->md.msg_id, TPF_MQ_ID_LEN);
        PyObject *r = NULL;
        if (msg_id != NULL) {
            PyObject *args[2] = {ticket, msg_id};
            r = PyObject_Vectorcall(PyTuple_GET_ITEM(port, PORT_WAIT), args, 2, NULL);
            Py_DECREF(msg_id);
        }
        rc = r == NULL ? -1 : 0;
        Py_XDECREF(r);
    }
    Py_DECREF(ticket);
    return rc;
}

/* -- a get plan's persistent message ------------------------------------------------- */

enum { GPORT_LOCK, GPORT_QID, GPORT_KEYS, GPORT_TRACK, GPORT_STORED, GPORT_PRIVATE,
       GPORT_FINISH, GPORT_LEN };

/* The in-flight copy of message `m` (whole: `whole`), under log key `key`: the port's
 * StoredMessage(key, msg_id, correl_id, priority, expiry, put_time, ctx_len,
 * backout_count, data), as QueuePersistence keeps it; NULL with an exception. */
static PyObject *stored_copy(PyObject *port, PyObject *key, const tpf_mq_msg_t *m,
                             PyObject *whole)
{
    PyObject *v[9] = {Py_NewRef(key),
                      PyBytes_FromStringAndSize((const char *)m->msg_id, TPF_MQ_ID_LEN),
                      PyBytes_FromStringAndSize((const char *)m->correl_id, TPF_MQ_ID_LEN),
                      PyLong_FromLong(m->priority), PyLong_FromLongLong(m->expiry),
                      PyLong_FromLongLong(m->put_time), PyLong_FromUnsignedLong(m->ctx_len),
                      PyLong_FromLong(m->backout_count), Py_NewRef(whole)};
    PyObject *stored = NULL;
    int ok = 1;
    for (int i = 0; i < 9; i++)
        ok = ok && v[i] != NULL;
    if (ok)
        stored = PyObject_Vectorcall(PyTuple_GET_ITEM(port, GPORT_STORED), v, 9, NULL);
    for (int i = 0; i < 9; i++)
        Py_XDECREF(v[i]);
    return stored;
}

/* The GET record of message `m`, got in unit of work `uow` (0 in the record outside
 * syncpoint), under log key `key`, appended and the message tracked in flight by the
 * port's track(seq, record, uow, private, stored): its ticket, or NULL with an error. */
static PyObject *append_get(PyObject *port, uint32_t qid, PyObject *seq, PyObject *key,
                            const tpf_mq_msg_t *m, uint64_t uow, int private, PyObject *whole)
{
    unsigned long long k = PyLong_AsUnsignedLongLong(key);
    if (k == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    PyObject *record = PyBytes_FromStringAndSize(NULL, TPF_LOG_REC);
    if (record == NULL)
        return NULL;
    tpf_log_record((unsigned char *)PyBytes_AS_STRING(record), TPF_LOG_GET, qid,
                   (uint32_t)m->backout_count, private ? 0 : uow, k);
    PyObject *stored = stored_copy(port, key, m, whole);
    PyObject *uow_obj = PyLong_FromUnsignedLongLong(uow);
    PyObject *ticket = NULL;
    if (stored != NULL && uow_obj != NULL) {
        PyObject *args[5] = {seq, record, uow_obj, private ? Py_True : Py_False, stored};
        ticket = PyObject_Vectorcall(PyTuple_GET_ITEM(port, GPORT_TRACK), args, 5, NULL);
    }
    Py_XDECREF(stored);
    Py_XDECREF(uow_obj);
    Py_DECREF(record);
    return ticket;
}

/* Under the lock: the core get of `req` and, for a persistent message with a log key,
 * its GET record (append_get). The message whole (a new reference; *ticket the
 * record's, or NULL when nothing was logged), or NULL with an exception. */
static PyObject *get_and_append(FastQueue *self, PyObject *port, uint32_t qid,
                                const tpf_mq_getreq_t *req, tpf_mq_msg_t *m, int private,
                                PyObject **ticket)
{
    *ticket = NULL;
    int rc = scratch_get(self, req, m);
    if (rc < 0)
        return NULL;
    if (rc != MQRC_NONE)
        return raise_rc(self, rc, "MQGET");
    /* (out of the shared buffer before any Python code runs: see fq_get_md) */
    PyObject *whole = PyBytes_FromStringAndSize(get_scratch.p, (Py_ssize_t)m->length);
    if (whole == NULL || !m->persistent)
        return whole;
    PyObject *seq = PyLong_FromUnsignedLongLong(m->seq);
    PyObject *key = seq != NULL ? PyObject_CallOneArg(PyTuple_GET_ITEM(port, GPORT_KEYS), seq)
                                : NULL;
    if (key != NULL && key != Py_None)
        *ticket = append_get(port, qid, seq, key, m, req->uow, private, whole);
    Py_XDECREF(key);
    Py_XDECREF(seq);
    if (PyErr_Occurred()) { /* (a message with no key: not logged, nothing to append) */
        Py_CLEAR(*ticket);
        Py_CLEAR(whole);
    }
    return whole;
}

/* The private unit of work of a get outside syncpoint (the port's private_uow()):
 * 0, or -1 with an exception. */
static int private_uow(PyObject *port, uint64_t *uow)
{
    PyObject *id = PyObject_CallNoArgs(PyTuple_GET_ITEM(port, GPORT_PRIVATE));
    if (id == NULL || read_uow(id, uow) < 0) {
        Py_XDECREF(id);
        return -1;
    }
    Py_DECREF(id);
    return 0;
}

/* Outside syncpoint: the port's finish(uow, ticket or None), which waits for the record
 * and then makes the get final (or gives the message back and raises). 0, or -1. */
static int finish_private(PyObject *port, uint64_t uow, PyObject *ticket)
{
    PyObject *uow_obj = PyLong_FromUnsignedLongLong(uow);
    if (uow_obj == NULL)
        return -1;
    PyObject *args[2] = {uow_obj, ticket != NULL ? ticket : Py_None};
    PyObject *r = PyObject_Vectorcall(PyTuple_GET_ITEM(port, GPORT_FINISH), args, 2, NULL);
    Py_DECREF(uow_obj);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

PyObject *logput_get(FastQueue *self, PyObject *port, tpf_mq_getreq_t *req, tpf_mq_msg_t *m)
{
    if (PyTuple_GET_SIZE(port) != GPORT_LEN) {
        PyErr_SetString(PyExc_TypeError, "get_md: the log port is (log lock, queue id, "
                                         "key_of, track, stored, private_uow, finish)");
        return NULL;
    }
    unsigned long qid = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(port, GPORT_QID));
    if (qid == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    int private = req->uow == 0;
    if (private && private_uow(port, &req->uow) < 0)
        return NULL;
    req->flags = 0; /* (whatever it is now: the get under the lock takes it) */
    PyObject *lock = PyTuple_GET_ITEM(port, GPORT_LOCK), *ticket = NULL, *whole = NULL;
    if (lock_call(lock, &s_acquire, "acquire") == 0) {
        whole = get_and_append(self, port, (uint32_t)qid, req, m, private, &ticket);
        if (unlock(lock) < 0)
            Py_CLEAR(whole);
    }
    if (whole != NULL && private && finish_private(port, req->uow, ticket) < 0)
        Py_CLEAR(whole);
    Py_XDECREF(ticket);
    return whole;
}
