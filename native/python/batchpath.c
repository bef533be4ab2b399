/* batchpath.c - FastQueue's batch methods: several messages per call, each copied once
 *
 * put_many hands a list of bytes objects to the core in one call (tpf_mq_put_many_gather),
 * all or nothing; get_many gets messages one core call each into new bytes objects, within
 * a byte budget. Part of tpfemu._fastpath (see fastpath.c and fastqueue.h).
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

/* The allocator of get_many: a new bytes object per message while the batch's byte
 * budget lasts (then NULL: the core leaves the message where it is). */
typedef struct {
    PyObject *bytes;
    size_t left;   /* bytes the batch may still take */
    int over;      /* the last message did not fit the budget */
} batch_ctx_t;

static void *alloc_in_budget(void *ctx, uint32_t length)
{
    batch_ctx_t *b = ctx;
    if (length > b->left) {
        b->over = 1;
        return NULL;
    }
    b->bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
    return b->bytes != NULL ? PyBytes_AS_STRING(b->bytes) : NULL;
}

const char get_many_doc[] = PyDoc_STR(
    "get_many(max_count, uow, max_bytes, descriptors)\n--\n\n"
    "Get up to max_count messages in delivery order (at most max_bytes\n"
    "in all), each copied once into a new bytes object; returns their\n"
    "list. descriptors: None, or a writable buffer of max_count core\n"
    "descriptors (tpf_mq_msg_t) to fill. Raises NoMessageAvailable when\n"
    "there is none, TruncatedMessage when the first alone exceeds\n"
    "max_bytes.");

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
    PyObject *list = PyList_New(0);
    batch_ctx_t b = {NULL, (size_t)max_bytes, 0};
    int rc = MQRC_NONE;
    while (list != NULL && PyList_GET_SIZE(list) < max_count) {
        tpf_mq_msg_t md, *md_out = mds.buf != NULL
                                        ? (tpf_mq_msg_t *)mds.buf + PyList_GET_SIZE(list)
                                        : &md;
        b.bytes = NULL;
        rc = core_get(self->q, uow, 0, alloc_in_budget, &b, md_out);
        if (rc != MQRC_NONE)
            break;
        b.left -= (size_t)PyBytes_GET_SIZE(b.bytes);
        if (PyList_Append(list, b.bytes) < 0)
            Py_CLEAR(list);
        Py_DECREF(b.bytes);
    }
    if (mds.buf != NULL)
        PyBuffer_Release(&mds);
    if (list == NULL || PyList_GET_SIZE(list) > 0)
        return list; /* (what followed the last message got is left for a later call) */
    Py_DECREF(list);
    if (b.bytes == NULL && PyErr_Occurred())
        return NULL; /* MemoryError from an allocation */
    return raise_rc(self, b.over ? MQRC_TRUNCATED_MSG_FAILED : rc, "MQGET");
}
