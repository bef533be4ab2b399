/* batchpath.c - FastQueue's batch methods: several messages per call, each copied once
 *
 * put_many hands a list of bytes objects to the core in one call (tpf_mq_put_many_gather),
 * all or nothing; get_many gets several in one core call (tpf_mq_get_many), back to back
 * into one new bytes object, within a byte budget. Part of tpfemu._fastpath (see fastpath.c and fastqueue.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "fastqueue.h"

#define BATCH_ON_STACK 64

const char put_many_doc[] = PyDoc_STR(
    "put_many(payloads, priority, uow)\n--\n\n"
    "Put every bytes object of the list payloads in one core call, all\n"
    "or nothing: each message is copied once, from its bytes into the\n"
    "queue. Returns the put sequence of the first.");

PyObject *fq_put_many(FastQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyList_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "put_many(payloads: list[bytes], priority, uow)");
        return NULL;
    }
    long priority = PyLong_AsLong(args[1]);
    uint64_t uow;
    if ((priority == -1 && PyErr_Occurred()) || read_uow(args[2], &uow) < 0)
        return NULL;
    if (self->q == NULL)
        return raise_rc(self, -1, "MQPUT");
    if (priority < 0 || priority >= TPF_MQ_PRIORITIES)
        return raise_rc(self, MQRC_PRIORITY_ERROR, "MQPUT");
    Py_ssize_t n = PyList_GET_SIZE(args[0]);
    if (n == 0 || n > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "put_many: between 1 and 2**32-1 payloads");
        return NULL;
    }
    const void *datas_stack[BATCH_ON_STACK];
    uint32_t lengths_stack[BATCH_ON_STACK];
    const void **datas = datas_stack;
    uint32_t *lengths = lengths_stack;
    if (n > BATCH_ON_STACK) {
        datas = PyMem_Malloc((size_t)n * (sizeof *datas + sizeof *lengths));
        if (datas == NULL)
            return PyErr_NoMemory();
        lengths = (uint32_t *)(datas + n);
    }
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) { /* (the list holds its items: no other code runs) */
        PyObject *item = PyList_GET_ITEM(args[0], i);
        if (!PyBytes_CheckExact(item)) {
            PyErr_Format(PyExc_TypeError, "put_many: payload %zd is %.100s, not bytes", i,
                         Py_TYPE(item)->tp_name);
            goto out;
        }
        if ((size_t)PyBytes_GET_SIZE(item) > UINT32_MAX) {
            result = raise_rc(self, MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT");
            goto out;
        }
        datas[i] = PyBytes_AS_STRING(item);
        lengths[i] = (uint32_t)PyBytes_GET_SIZE(item);
    }
    tpf_mq_msg_t md;
    memset(&md, 0, sizeof md);
    md.expiry = TPF_MQ_NEVER;
    md.uow = uow;
    md.priority = (uint8_t)priority;
    uint64_t seq;
    int rc = core_put_gather(self->q, (uint32_t)n, &md, 0, lengths, datas, &seq);
    result = rc == MQRC_NONE ? PyLong_FromUnsignedLongLong(seq) : raise_rc(self, rc, "MQPUT");
out:
    if (datas != datas_stack)
        PyMem_Free(datas);
    return result;
}

/* get_many allocates its result for this many bytes at first (or max_bytes if less); the
 * part it does not fill is given back. A first message longer than this gets a result of
 * its own size. */
#define GET_MANY_FIRST_CAP ((Py_ssize_t)1 << 20)
/* The most messages one get_many call returns, whatever max_count asks for. */
#define GET_MANY_MOST ((Py_ssize_t)1 << 16)

const char get_many_doc[] = PyDoc_STR(
    "get_many(max_count, uow, max_bytes, descriptors)\n--\n\n"
    "Get up to max_count messages (65,536 at most) in delivery order\n"
    "(at most max_bytes in all) in one core call, copied once, back to\n"
    "back, into one new bytes object; returns (data, lengths), lengths being the messages'\n"
    "sizes as native uint32 values in a bytes object. descriptors: None,\n"
    "or a writable buffer of min(max_count, 65,536) core descriptors\n"
    "(tpf_mq_msg_t) to fill. Raises NoMessageAvailable when there is none,\n"
    "TruncatedMessage when the first alone exceeds max_bytes.");

/* One core call into a new bytes object of cap bytes; *data is NULL on an error (rc set,
 * or a Python error when rc is 0). */
static int get_into(FastQueue *self, uint32_t max_n, uint64_t uow, tpf_mq_msg_t *mds,
                    uint32_t *lengths, Py_ssize_t cap, PyObject **data, uint32_t *n)
{
    *data = PyBytes_FromStringAndSize(NULL, cap);
    if (*data == NULL)
        return 0;
    int rc = core_get_many(self->q, max_n, uow, TPF_MQ_NOW, mds, lengths,
                           PyBytes_AS_STRING(*data), (size_t)cap, n);
    if (rc != MQRC_NONE)
        Py_CLEAR(*data);
    return rc;
}

PyObject *fq_get_many(FastQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "get_many(max_count, uow, max_bytes, descriptors)");
        return NULL;
    }
    Py_ssize_t max_count = PyLong_AsSsize_t(args[0]);
    uint64_t uow;
    Py_ssize_t max_bytes = PyLong_AsSsize_t(args[2]);
    if ((max_count == -1 || max_bytes == -1) && PyErr_Occurred())
        return NULL;
    if (read_uow(args[1], &uow) < 0)
        return NULL;
    if (max_count < 1 || max_bytes < 0) {
        PyErr_Format(PyExc_ValueError, "max_count must be at least 1 and max_bytes not "
                     "negative: %zd, %zd", max_count, max_bytes);
        return NULL;
    }
    if (self->q == NULL)
        return raise_rc(self, -1, "MQGET");
    if (max_count > GET_MANY_MOST)
        max_count = GET_MANY_MOST;
    Py_buffer mds = {0};
    if (args[3] != Py_None) {
        if (PyObject_GetBuffer(args[3], &mds, PyBUF_WRITABLE) < 0)
            return NULL;
        if ((size_t)mds.len < (size_t)max_count * sizeof(tpf_mq_msg_t)) {
            PyBuffer_Release(&mds);
            PyErr_SetString(PyExc_ValueError, "get_many: the descriptors buffer is too short");
            return NULL;
        }
    }
    PyObject *lengths = PyBytes_FromStringAndSize(NULL, max_count * (Py_ssize_t)sizeof(uint32_t));
    PyObject *data = NULL, *result = NULL;
    uint32_t n = 0;
    if (lengths == NULL)
        goto out;
    uint32_t *lens = (uint32_t *)PyBytes_AS_STRING(lengths);
    Py_ssize_t cap = max_bytes < GET_MANY_FIRST_CAP ? max_bytes : GET_MANY_FIRST_CAP;
    int rc = get_into(self, (uint32_t)max_count, uow, mds.buf, lens, cap, &data, &n);
    if (rc == MQRC_TRUNCATED_MSG_FAILED && (Py_ssize_t)lens[0] <= max_bytes)
        rc = get_into(self, (uint32_t)max_count, uow, mds.buf, lens, lens[0], &data, &n);
    if (data == NULL) {
        if (rc != MQRC_NONE)
            raise_rc(self, rc, "MQGET");
        goto out;
    }
    Py_ssize_t used = 0;
    for (uint32_t i = 0; i < n; i++)
        used += lens[i];
    if (_PyBytes_Resize(&data, used) < 0 ||
        _PyBytes_Resize(&lengths, n * (Py_ssize_t)sizeof(uint32_t)) < 0)
        goto out;
    result = PyTuple_Pack(2, data, lengths);
out:
    Py_XDECREF(data);
    Py_XDECREF(lengths);
    if (mds.buf != NULL)
        PyBuffer_Release(&mds);
    return result;
}

const char split_doc[] = PyDoc_STR(
    "split(data, lengths)\n--\n\n"
    "Cut data, messages back to back, into a list of bytes objects of\n"
    "the given sizes (lengths: native uint32 values, as get_many returns\n"
    "them). Raises ValueError when the sizes do not add up to len(data).");

PyObject *batch_split(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_buffer data = {0}, sizes = {0};
    PyObject *list = NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "split(data, lengths)");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &data, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &sizes, PyBUF_SIMPLE) < 0)
        goto out;
    Py_ssize_t n = sizes.len / (Py_ssize_t)sizeof(uint32_t);
    const uint32_t *lens = sizes.buf;
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += lens[i];
    if (sizes.len % (Py_ssize_t)sizeof(uint32_t) != 0 || total != data.len) {
        PyErr_Format(PyExc_ValueError, "split: the lengths add up to %zd bytes but data has %zd",
                     total, data.len);
        goto out;
    }
    list = PyList_New(n);
    const char *at = data.buf;
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = PyBytes_FromStringAndSize(at, lens[i]);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
        at += lens[i];
    }
out:
    PyBuffer_Release(&data);
    if (sizes.obj != NULL)
        PyBuffer_Release(&sizes);
    return list;
}
