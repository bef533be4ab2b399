/* logput.c - a put plan's persistent message on a logged queue (see logput.h) */
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
static PyObject *put_and_append(FastQueue *self, md_put_t *p, PyObject *data, PyObject *port,
                                uint64_t uow, PyObject *record, uint32_t qid)
{
    Py_ssize_t ndata = PyBytes_GET_SIZE(data);
    if (fq_put_prepared(self, p, PyBytes_AS_STRING(data), ndata, uow) < 0)
        return NULL;
    tpf_log_put_record((unsigned char *)PyBytes_AS_STRING(record), qid, uow, &p->md, p->record,
                       PyBytes_AS_STRING(data), (uint32_t)ndata);
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

int logput_put(FastQueue *self, md_put_t *p, PyObject *data, PyObject *port, uint64_t uow)
{
    if (PyTuple_GET_SIZE(port) != PORT_LEN) {
        PyErr_SetString(PyExc_TypeError, "put_md: the log port is (log lock, queue id, "
                                         "append, wait)");
        return -1;
    }
    unsigned long qid = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(port, PORT_QID));
    if (qid == (unsigned long)-1 && PyErr_Occurred())
        return -1;
    Py_ssize_t ndata = PyBytes_GET_SIZE(data);
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
        ticket = put_and_append(self, p, data, port, uow, record, (uint32_t)qid);
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
