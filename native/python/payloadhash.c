/* payloadhash.c - payload_hashes(datas): the journal's payload hash of many messages
 *
 * The hash is XXH64 with seed 42, big-endian (tpf_payload_hash64, tpf/journal.h); the
 * journal's readers and the pipeline compare messages by it. This is the batch form
 * Python calls (tpfemu._lowlevel.payload_hashes); EventLog hashes the data it records
 * with the same function.
 */
#include "eventlog.h"

#include <string.h>

typedef struct {
    const uint8_t *p;
    Py_ssize_t len;   /**< -1: no data */
} span_t;

/* Hash every span into out[8 * i] (zeros for no data). Runs without the GIL: only C
 * memory. */
static void hash_spans(const span_t *spans, Py_ssize_t n, uint8_t *out)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (spans[i].len < 0)
            memset(out + 8 * i, 0, 8);
        else
            tpf_payload_hash64(spans[i].p, (size_t)spans[i].len, out + 8 * i);
    }
}

static PyObject *payload_hashes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 1 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "payload_hashes(datas: list)");
        return NULL;
    }
    PyObject *list = args[0];
    Py_ssize_t n = PyList_GET_SIZE(list);
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
    if (i == n) {
        Py_BEGIN_ALLOW_THREADS
        hash_spans(spans, n, (uint8_t *)PyBytes_AS_STRING(result));
        Py_END_ALLOW_THREADS
    }
    for (Py_ssize_t k = 0; k < i; k++)
        Py_DECREF(held[k]);
    PyMem_Free(held);
    PyMem_Free(spans);
    if (i != n) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

static PyMethodDef payloadhash_functions[] = {
    {"payload_hashes", (PyCFunction)(void (*)(void))payload_hashes, METH_FASTCALL,
     "payload_hashes(datas) -> bytes: the journal's payload hash (XXH64, seed 42, "
     "big-endian) of each bytes in the list, 8 bytes each (zeros for None), computed without "
     "the GIL."},
    {NULL, NULL, 0, NULL},
};

int payloadhash_ready(PyObject *module)
{
    return PyModule_AddFunctions(module, payloadhash_functions);
}
