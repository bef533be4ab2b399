/* logencode.c - the recovery log's records encoded in C (see logput.h)
 *
 * log_encode(records, qids, qid_of) turns a sequence of tpfemu.store.log_records' Put,
 * Get, Commit and Backout into the bytes the log appends, with the layout of
 * tpf/logrec.h (tpf_log_record, tpf_log_put_record), which log_records.py checks
 * against its own struct formats at import. The record types' fields are read by
 * position: log_encode_setup checks their names once.
 */
#include <string.h>

#include "logput.h"
#include "tpf/logrec.h"

enum { PUT_QUEUE, PUT_DATA, PUT_MSG_ID, PUT_CORREL_ID, PUT_PRIORITY, PUT_EXPIRY, PUT_PUT_TIME,
       PUT_CTX_LEN, PUT_BACKOUTS, PUT_UOW, PUT_LEN };
static const char *const put_fields[PUT_LEN] = {
    "queue", "data", "msg_id", "correl_id", "priority", "expiry", "put_time", "ctx_len",
    "backout_count", "uow"};
enum { GET_QUEUE, GET_KEY, GET_UOW, GET_BACKOUTS, GET_LEN };
static const char *const get_fields[GET_LEN] = {"queue", "key", "uow", "backout_count"};
static const char *const end_fields[1] = {"uow"};

/* The record types: Put, Get, Commit, Backout (strong references), by kind - 1. */
static PyTypeObject *types[4];

static int check_fields(PyObject *type, const char *const *names, Py_ssize_t n)
{
    PyObject *fields = PyObject_GetAttrString(type, "_fields");
    if (fields == NULL)
        return -1;
    int ok = PyType_Check(type) && PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type) &&
             PyTuple_Check(fields) && PyTuple_GET_SIZE(fields) == n;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *f = PyTuple_GET_ITEM(fields, i);
        ok = PyUnicode_Check(f) && PyUnicode_CompareWithASCIIString(f, names[i]) == 0;
    }
    Py_DECREF(fields);
    if (!ok)
        PyErr_Format(PyExc_TypeError, "log_encode_setup: the fields of %R are not the ones "
                     "native/python/logencode.c reads", type);
    return ok ? 0 : -1;
}

static PyObject *log_encode_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *t[4];
    if (!PyArg_ParseTuple(args, "OOOO", &t[0], &t[1], &t[2], &t[3]))
        return NULL;
    if (check_fields(t[0], put_fields, PUT_LEN) < 0 || check_fields(t[1], get_fields, GET_LEN) < 0 ||
        check_fields(t[2], end_fields, 1) < 0 || check_fields(t[3], end_fields, 1) < 0)
        return NULL;
    for (int i = 0; i < 4; i++)
        Py_XSETREF(types[i], (PyTypeObject *)Py_NewRef(t[i]));
    Py_RETURN_NONE;
}

/* The kind of record r (TPF_LOG_*), or 0 with TypeError. */
static int kind_of(PyObject *r)
{
    for (int i = 0; i < 4; i++)
        if (types[i] != NULL && Py_TYPE(r) == types[i])
            return i + 1;
    PyErr_Format(PyExc_TypeError, "not a log record: %R", r);
    return 0;
}

/* An int field in [lo, hi]: 0 with *out, -1 with an error naming the field. */
static int field_int(PyObject *v, const char *name, long long lo, unsigned long long hi,
                     unsigned long long *out)
{
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "log record: %s must be an int, not %.100s", name,
                     Py_TYPE(v)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (s == -1 && PyErr_Occurred())
        return -1;
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            overflow = 2;
        } else if (u <= hi) {
            *out = u;
            return 0;
        }
    }
    if (overflow || s < lo || (s >= 0 && (unsigned long long)s > hi)) {
        PyErr_Format(PyExc_ValueError, "log record: %s out of range: %R", name, v);
        return -1;
    }
    *out = (unsigned long long)s;
    return 0;
}

/* The queue id of `queue` (a str): qids[queue], else qid_of(queue). 0 with *qid, or -1. */
static int queue_id(PyObject *queue, PyObject *qids, PyObject *qid_of, uint32_t *qid)
{
    PyObject *v = PyDict_GetItemWithError(qids, queue), *made = NULL;
    if (v == NULL) {
        if (PyErr_Occurred() || (made = v = PyObject_CallOneArg(qid_of, queue)) == NULL)
            return -1;
    }
    unsigned long long id;
    int rc = field_int(v, "queue id", 1, UINT32_MAX, &id);
    Py_XDECREF(made);
    *qid = (uint32_t)id;
    return rc;
}

/* A 24-byte id field into out: 0, or -1 with ValueError. */
static int field_id(PyObject *v, uint8_t *out)
{
    if (!PyBytes_Check(v) || PyBytes_GET_SIZE(v) != TPF_MQ_ID_LEN) {
        PyErr_SetString(PyExc_ValueError, "msg_id and correl_id must be 24 bytes");
        return -1;
    }
    memcpy(out, PyBytes_AS_STRING(v), TPF_MQ_ID_LEN);
    return 0;
}

/* A Put's descriptor fields into md (length and seq aside). 0, or -1. */
static int put_desc(PyObject *r, tpf_mq_msg_t *md, uint64_t *uow)
{
    unsigned long long v[6];
    static const char *const names[6] = {"priority", "expiry", "put_time", "ctx_len",
                                         "backout_count", "uow"};
    static const int at[6] = {PUT_PRIORITY, PUT_EXPIRY, PUT_PUT_TIME, PUT_CTX_LEN,
                              PUT_BACKOUTS, PUT_UOW};
    static const long long lo[6] = {0, INT64_MIN, INT64_MIN, 0, 0, 0};
    static const unsigned long long hi[6] = {255, INT64_MAX, INT64_MAX, UINT32_MAX, UINT32_MAX,
                                             UINT64_MAX};
    for (int i = 0; i < 6; i++)
        if (field_int(PyTuple_GET_ITEM(r, at[i]), names[i], lo[i], hi[i], &v[i]) < 0)
            return -1;
    if (field_id(PyTuple_GET_ITEM(r, PUT_MSG_ID), md->msg_id) < 0 ||
        field_id(PyTuple_GET_ITEM(r, PUT_CORREL_ID), md->correl_id) < 0)
        return -1;
    md->priority = (uint8_t)v[0];
    md->expiry = (int64_t)v[1];
    md->put_time = (int64_t)v[2];
    md->ctx_len = (uint32_t)v[3];
    md->backout_count = (int32_t)(uint32_t)v[4];
    *uow = v[5];
    return 0;
}

/* The bytes of record r (kind), in pass 1 (out NULL: only its size into *size) or pass
 * 2 (written at out). Its unit of work into *uow. 0, or -1. */
static int encode_one(PyObject *r, int kind, PyObject *qids, PyObject *qid_of,
                      unsigned char *out, size_t *size, uint64_t *uow)
{
    unsigned long long v[3];
    uint32_t qid = 0;
    if (kind == TPF_LOG_COMMIT || kind == TPF_LOG_BACKOUT) {
        if (field_int(PyTuple_GET_ITEM(r, 0), "uow", 0, UINT64_MAX, &v[0]) < 0)
            return -1;
        *uow = v[0];
        *size = TPF_LOG_REC;
        if (out != NULL)
            tpf_log_record(out, kind, 0, 0, v[0], 0);
        return 0;
    }
    if (kind == TPF_LOG_GET) {
        if (field_int(PyTuple_GET_ITEM(r, GET_KEY), "key", 0, UINT64_MAX, &v[0]) < 0 ||
            field_int(PyTuple_GET_ITEM(r, GET_UOW), "uow", 0, UINT64_MAX, &v[1]) < 0 ||
            field_int(PyTuple_GET_ITEM(r, GET_BACKOUTS), "backout_count", 0, UINT32_MAX,
                      &v[2]) < 0)
            return -1;
        *uow = v[1];
        *size = TPF_LOG_REC;
        if (out != NULL) {
            if (queue_id(PyTuple_GET_ITEM(r, GET_QUEUE), qids, qid_of, &qid) < 0)
                return -1;
            tpf_log_record(out, kind, qid, (uint32_t)v[2], v[1], v[0]);
        }
        return 0;
    }
    tpf_mq_msg_t md;
    Py_buffer data;
    if (put_desc(r, &md, uow) < 0 ||
        PyObject_GetBuffer(PyTuple_GET_ITEM(r, PUT_DATA), &data, PyBUF_SIMPLE) < 0)
        return -1;
    int rc = 0;
    if ((size_t)data.len > UINT32_MAX - TPF_LOG_PUT_HEAD || md.ctx_len > (size_t)data.len) {
        PyErr_SetString(PyExc_ValueError, "log record: a Put's data must be shorter than "
                                          "4 GiB and hold its ctx_len bytes of context");
        rc = -1;
    }
    *size = TPF_LOG_PUT_HEAD + (size_t)data.len;
    if (rc == 0 && out != NULL) {
        rc = queue_id(PyTuple_GET_ITEM(r, PUT_QUEUE), qids, qid_of, &qid);
        const char *bytes = data.buf;
        if (rc == 0)
            tpf_log_put_record(out, qid, *uow, &md, bytes, bytes + md.ctx_len,
                               (uint32_t)data.len - md.ctx_len);
    }
    PyBuffer_Release(&data);
    return rc;
}

/* What log_encode reports beside the bytes: the units of work named, the Commits (byte
 * offset, uow) and the units of work ended. Made on first use (None: none). */
typedef struct {
    PyObject *uows, *commits, *closing;
} notes_t;

static int note(notes_t *n, int kind, uint64_t uow, size_t offset)
{
    PyObject *u = PyLong_FromUnsignedLongLong(uow);
    if (u == NULL)
        return -1;
    int rc = 0;
    if (uow != 0 && ((n->uows == NULL && (n->uows = PySet_New(NULL)) == NULL) ||
                     PySet_Add(n->uows, u) < 0))
        rc = -1;
    if (rc == 0 && kind == TPF_LOG_COMMIT) {
        PyObject *pair = Py_BuildValue("(nO)", (Py_ssize_t)offset, u);
        if (pair == NULL || (n->commits == NULL && (n->commits = PyList_New(0)) == NULL) ||
            PyList_Append(n->commits, pair) < 0)
            rc = -1;
        Py_XDECREF(pair);
    }
    if (rc == 0 && (kind == TPF_LOG_COMMIT || kind == TPF_LOG_BACKOUT) &&
        ((n->closing == NULL && (n->closing = PyList_New(0)) == NULL) ||
         PyList_Append(n->closing, u) < 0))
        rc = -1;
    Py_DECREF(u);
    return rc;
}

PyDoc_STRVAR(log_encode_doc,
             "log_encode(records, qids, qid_of) -> (data, uows, commits, closing)\n--\n\n"
             "The recovery log's records (Put, Get, Commit, Backout) as the log appends them,\n"
             "one after the other in data; a queue's id is qids[name], else qid_of(name).\n"
             "uows: the set of units of work named (None: none); commits: (byte offset,\n"
             "uow) of each Commit (None: none); closing: the units of work committed or\n"
             "backed out (None: none). Raises TypeError or ValueError, naming what is\n"
             "wrong, for a record it cannot encode.");

static PyObject *log_encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "log_encode(records, qids: dict, qid_of)");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(args[0], "log_encode: records must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    size_t total = 0, size;
    uint64_t uow;
    PyObject *data = NULL, *result = NULL;
    notes_t notes = {NULL, NULL, NULL};
    for (Py_ssize_t i = 0; i < n; i++) { /* pass 1: check and size */
        int kind = kind_of(items[i]);
        if (kind == 0 || encode_one(items[i], kind, args[1], args[2], NULL, &size, &uow) < 0)
            goto out;
        total += size;
    }
    if ((data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total)) == NULL)
        goto out;
    unsigned char *at = (unsigned char *)PyBytes_AS_STRING(data);
    for (Py_ssize_t i = 0; i < n; i++) { /* pass 2: write */
        int kind = kind_of(items[i]);
        size_t offset = (size_t)(at - (unsigned char *)PyBytes_AS_STRING(data));
        if (encode_one(items[i], kind, args[1], args[2], at, &size, &uow) < 0 ||
            note(&notes, kind, uow, offset) < 0)
            goto out;
        at += size;
    }
    result = PyTuple_Pack(4, data, notes.uows ? notes.uows : Py_None,
                          notes.commits ? notes.commits : Py_None,
                          notes.closing ? notes.closing : Py_None);
out:
    Py_XDECREF(notes.uows);
    Py_XDECREF(notes.commits);
    Py_XDECREF(notes.closing);
    Py_XDECREF(data);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef log_methods[] = {
    {"log_encode_setup", log_encode_setup, METH_VARARGS,
     "log_encode_setup(put, get, commit, backout): the record types log_encode reads."},
    {"log_encode", (PyCFunction)(void (*)(void))log_encode, METH_FASTCALL, log_encode_doc},
    {NULL, NULL, 0, NULL},
};

int logencode_ready(PyObject *module)
{
    return PyModule_AddFunctions(module, log_methods);
}
