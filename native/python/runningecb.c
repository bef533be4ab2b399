/* runningecb.c - the ECB running on this thread, for the journal's capture buffer
 *
 * An event belongs to the entry that caused it: EventLog records the running ECB's id and
 * program with each event. The ECB runtime's switch watcher (installed by
 * tpfemu._lowlevel) keeps a thread-local slot current through set_running_ecb, so the
 * capture reads it without calling into Python; until the watcher is trusted
 * (trust_running_slots), the EventLog's own `current` callable is asked instead.
 */
#include "eventlog.h"

static PyObject *s_ecb_id, *s_program; /* interned attribute names */

/* The ECB running on this thread, kept by set_running_ecb (the ECB runtime's switch
 * watcher, installed by tpfemu._lowlevel): a strong reference, or NULL outside any
 * entry, and its id. A thread that ends inside an entry leaks that one reference.
 * (initial-exec: read at a fixed offset from the thread pointer, where the default model
 * of a shared object calls __tls_get_addr at every event; 16 bytes of the static TLS
 * room the C library keeps for modules loaded later.) */
#define SLOT _Thread_local __attribute__((tls_model("initial-exec")))
static SLOT PyObject *running_ecb;
static SLOT int64_t running_ecb_id;
/* 1 once the watcher sees every change (installed before any entry ran): the slots are
 * then the truth, and EventLog reads them instead of calling its `current`. */
static int slots_exact;

static PyObject *set_running_ecb(PyObject *module, PyObject *ecb)
{
    (void)module;
    int64_t id = -1;
    if (ecb != Py_None) {
        PyObject *v = PyObject_GetAttr(ecb, s_ecb_id);
        long long x = v != NULL ? PyLong_AsLongLong(v) : -1;
        Py_XDECREF(v);
        if (x == -1 && PyErr_Occurred())
            return NULL;
        id = x;
    }
    Py_XSETREF(running_ecb, ecb == Py_None ? NULL : Py_NewRef(ecb));
    running_ecb_id = id;
    Py_RETURN_NONE;
}

static PyObject *trust_running_slots(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    slots_exact = 1;
    Py_RETURN_NONE;
}

/* The calling ECB: its id into *ecb (-1 outside any) and its program (a new reference,
 * or NULL) into *program. -1 with an exception set. */
int runningecb_calling(PyObject *current, int64_t *ecb, PyObject **program)
{
    *ecb = -1;
    *program = NULL;
    PyObject *e, *id = NULL;
    if (slots_exact) {
        if (running_ecb == NULL)
            return 0;
        e = Py_NewRef(running_ecb);
        *ecb = running_ecb_id;
    } else {
        e = PyObject_CallNoArgs(current);
        if (e == NULL)
            return -1;
        if (e == Py_None) {
            Py_DECREF(e);
            return 0;
        }
        id = PyObject_GetAttr(e, s_ecb_id);
        if (id == NULL) {
            Py_DECREF(e);
            return -1;
        }
    }
    PyObject *prog = PyObject_GetAttr(e, s_program);
    Py_DECREF(e);
    if (prog == NULL) {
        Py_XDECREF(id);
        return -1;
    }
    if (id != NULL) {
        long long v = PyLong_AsLongLong(id);
        Py_DECREF(id);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(prog);
            return -1;
        }
        *ecb = v;
    }
    if (prog == Py_None)
        Py_DECREF(prog);
    else
        *program = prog;
    return 0;
}

static PyMethodDef runningecb_functions[] = {
    {"set_running_ecb", set_running_ecb, METH_O,
     "set_running_ecb(ecb): the ECB now running on this thread, or None (the ECB runtime's "
     "switch watcher)."},
    {"trust_running_slots", trust_running_slots, METH_NOARGS,
     "trust_running_slots(): the switch watcher sees every change; EventLog reads the "
     "running ECB from it."},
    {NULL, NULL, 0, NULL},
};

int runningecb_ready(PyObject *module)
{
    if ((s_ecb_id == NULL && (s_ecb_id = PyUnicode_InternFromString("ecb_id")) == NULL) ||
        (s_program == NULL && (s_program = PyUnicode_InternFromString("program")) == NULL))
        return -1;
    return PyModule_AddFunctions(module, runningecb_functions);
}
