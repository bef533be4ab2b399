/* module.c - tpfemu._cprog: loading C programs and running them in an entry (see
 * runtime.h and docs/cprograms.md)
 *
 * Python functions:
 *   setup(calls, classes, fields)  the Python side (tpfemu.cprog.calls) and the MQ types
 *   load(path, symbol) -> int      dlopen a program's shared object, the entry's address
 *   run(address, ecb, argv)        call it on `ecb`: argv None: void NAME(void), a C
 *                                  segment; else int main(argc, argv), returning its code
 *   guarded() -> int               how many C program calls run on this thread
 *
 * Crashes: the fault signals are caught by a handler installed for the process, which
 * jumps back to the innermost guard of the faulting thread (siglongjmp) when the fault
 * happened inside a C program call, and otherwise passes the signal on to the handler
 * that was there before (Python's faulthandler, or the default action). Each thread
 * running C programs gets an alternate signal stack, so a stack overflow is caught too.
 */
#include "runtime.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rt_py_t RT;
_Thread_local rt_guard_t *rt_guard;
static _Thread_local int gil_depth;
static _Thread_local PyGILState_STATE gil_states[64];
static _Thread_local int has_altstack;

/* How each runtime call on this thread took the GIL: from its program's guard (the
 * thread state the guard released) or by PyGILState_Ensure. */
enum { TOOK_GILSTATE = 0, TOOK_GUARD = 1 };
static _Thread_local unsigned char gil_took[64];

void rt_enter(void)
{
    /* A call from the program's own thread, outside any other runtime call: the thread
     * state its guard released is taken back directly (PyGILState_Ensure would find the
     * same one through thread-local storage, at twice the cost). */
    rt_guard_t *g = rt_guard;
    if (g != NULL && g->ts != NULL && gil_depth == g->gil_depth && gil_depth < 64) {
        PyEval_RestoreThread(g->ts);
        gil_took[gil_depth++] = TOOK_GUARD;
        return;
    }
    PyGILState_STATE st = PyGILState_Ensure();
    if (gil_depth < 64) {
        gil_states[gil_depth] = st;
        gil_took[gil_depth] = TOOK_GILSTATE;
    }
    gil_depth++;
}

void rt_leave(void)
{
    gil_depth--;
    if (gil_depth < 64 && gil_took[gil_depth] == TOOK_GUARD) {
        rt_guard->ts = PyEval_SaveThread();
        return;
    }
    PyGILState_Release(gil_depth < 64 ? gil_states[gil_depth] : PyGILState_LOCKED);
}

/* Give back the GIL taken by runtime calls that a jump to the guard cut short. */
static void unwind_gil(int to_depth)
{
    while (gil_depth > to_depth)
        rt_leave();
}

void rt_abandon(void)
{
    rt_guard_t *g = rt_guard;
    if (g == NULL) {
        PyErr_WriteUnraisable(NULL);
        return;
    }
    PyErr_Fetch(&g->exc_type, &g->exc_value, &g->exc_tb);
    siglongjmp(g->jb, JUMP_ERROR);
}

PyObject *rt_call(const char *name, const char *format, ...)
{
    PyObject *fn = PyObject_GetAttrString(RT.calls, name);
    if (fn == NULL)
        return NULL;
    va_list va;
    va_start(va, format);
    PyObject *args = Py_VaBuildValue(format, va);
    va_end(va);
    PyObject *r = NULL;
    if (args != NULL) {
        if (!PyTuple_Check(args))
            Py_SETREF(args, PyTuple_Pack(1, args));
        if (args != NULL)
            r = PyObject_Call(fn, args, NULL);
    }
    Py_XDECREF(args);
    Py_DECREF(fn);
    return r;
}

/* -- the ECB mirror -------------------------------------------------------------------- */

int rt_sync_levels(rt_guard_t *g, int level)
{
    PyObject *levels = rt_call("cbrws", "(O)", g->pyecb);
    if (levels == NULL)
        return -1;
    if (!PyTuple_Check(levels) || PyTuple_GET_SIZE(levels) != 16) {
        Py_DECREF(levels);
        PyErr_SetString(PyExc_TypeError, "calls.cbrws: not 16 levels");
        return -1;
    }
    for (int i = 0; i < 16; i++) {
        if (level >= 0 && i != level)
            continue;
        struct tpf_cbrw *w = &g->ecb->ce1cr[i];
        PyObject *item = PyTuple_GET_ITEM(levels, i);
        if (item == Py_None) {
            w->ce1crx = NULL;
            w->ce1ctx = 0x0001;
            w->ce1ccx = 0;
            continue;
        }
        PyObject *block = PyTuple_GET_ITEM(item, 0);
        w->ce1crx = PyByteArray_AS_STRING(block);
        w->ce1ctx = (uint16_t)PyLong_AsLong(PyTuple_GET_ITEM(item, 1));
        w->ce1ccx = (uint16_t)PyByteArray_GET_SIZE(block);
    }
    Py_DECREF(levels);
    return 0;
}

int rt_sync_ebw(rt_guard_t *g, int to_py)
{
    PyObject *ebw = PyObject_GetAttrString(g->pyecb, "ebw");
    if (ebw == NULL)
        return -1;
    if (!PyByteArray_Check(ebw) || PyByteArray_GET_SIZE(ebw) != 104) {
        Py_DECREF(ebw);
        PyErr_SetString(PyExc_TypeError, "the ECB's work area is not 104 bytes");
        return -1;
    }
    if (to_py)
        memcpy(PyByteArray_AS_STRING(ebw), g->ecb->ebw000, 104);
    else
        memcpy(g->ecb->ebw000, PyByteArray_AS_STRING(ebw), 104);
    Py_DECREF(ebw);
    return 0;
}

/* -- signals ------------------------------------------------------------------------------ */

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define N_FAULTS ((int)(sizeof fault_signals / sizeof fault_signals[0]))
static struct sigaction previous[N_FAULTS];

static void on_fault(int sig, siginfo_t *info, void *context)
{
    rt_guard_t *g = rt_guard;
    if (g != NULL) {
        g->sig = sig;
        g->addr = info != NULL ? info->si_addr : NULL;
        siglongjmp(g->jb, JUMP_SIGNAL);
    }
    for (int i = 0; i < N_FAULTS; i++) {
        if (fault_signals[i] != sig)
            continue;
        struct sigaction *old = &previous[i];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
            old->sa_sigaction(sig, info, context);
            return;
        }
        if (old->sa_handler == SIG_IGN)
            return;
        if (old->sa_handler != SIG_DFL) {
            old->sa_handler(sig);
            return;
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Install on_fault for the fault signals unless it is there (another handler, e.g.
 * faulthandler enabled again, may have replaced it: it becomes the one passed on to). */
static void install_handlers(void)
{
    for (int i = 0; i < N_FAULTS; i++) {
        struct sigaction now;
        if (sigaction(fault_signals[i], NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
            now.sa_sigaction == on_fault)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(fault_signals[i], &sa, &previous[i]);
    }
    if (!has_altstack) {
        stack_t ss;
        memset(&ss, 0, sizeof ss);
        ss.ss_size = 1 << 16;
        ss.ss_sp = malloc(ss.ss_size); /* one per thread, kept for the thread's life */
        if (ss.ss_sp != NULL && sigaltstack(&ss, NULL) == 0)
            has_altstack = 1;
    }
}

/* -- exit() and abort() of programs (linked with -Wl,--wrap=exit,--wrap=abort) ---------- */

/* (the runtime itself is not linked with --wrap: exit and abort here are the C library's) */
void __wrap_exit(int status) __attribute__((noreturn));
void __wrap_abort(void) __attribute__((noreturn));

void __wrap_exit(int status)
{
    rt_guard_t *g = rt_guard;
    if (g == NULL)
        exit(status);
    g->exit_code = status;
    siglongjmp(g->jb, JUMP_EXIT);
}

void __wrap_abort(void)
{
    if (rt_guard != NULL)
        raise(SIGABRT); /* the handler jumps to the guard */
    abort();
}

/* -- Python functions -------------------------------------------------------------------- */

static PyObject *py_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *calls, *classes, *fields;
    if (!PyArg_ParseTuple(args, "OO!O!", &calls, &PyTuple_Type, &classes, &PyTuple_Type,
                          &fields))
        return NULL;
    RT.ready = 0;
    if (st_setup(classes, fields) < 0)
        return NULL;
    PyObject *conns = PyObject_GetAttrString(calls, "_conns");
    PyObject *pp = PyObject_GetAttrString(calls, "planned_put");
    PyObject *pg = PyObject_GetAttrString(calls, "planned_get");
    PyObject *err = PyObject_GetAttrString(calls, "MQMIError");
    if (conns == NULL || pp == NULL || pg == NULL || err == NULL || !PyDict_Check(conns)) {
        Py_XDECREF(conns);
        Py_XDECREF(pp);
        Py_XDECREF(pg);
        Py_XDECREF(err);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "setup: calls._conns is not a dict");
        return NULL;
    }
    Py_XSETREF(RT.calls, Py_NewRef(calls));
    Py_XSETREF(RT.conns, conns);
    Py_XSETREF(RT.planned_put, pp);
    Py_XSETREF(RT.planned_get, pg);
    Py_XSETREF(RT.mqmi_error, err);
    PyObject *raw = PyObject_GetAttrString(calls, "plan_raw");
    RT.raw = raw != NULL ? PyCapsule_GetPointer(raw, TPF_PLAN_RAW_CAPSULE) : NULL;
    Py_XDECREF(raw); /* (the capsule's table is static in tpfemu._fastpath) */
    if (RT.raw == NULL)
        return NULL;
#define INTERN(slot, text) \
    if (RT.slot == NULL && (RT.slot = PyUnicode_InternFromString(text)) == NULL) \
        return NULL;
    INTERN(s_handles, "handles")
    INTERN(s_put_plan, "put_plan")
    INTERN(s_get_plan, "get_plan")
    INTERN(s_comp, "comp")
    INTERN(s_reason, "reason")
    INTERN(s_message, "message")
    INTERN(s_original_length, "original_length")
#undef INTERN
    RT.ready = 1;
    Py_RETURN_NONE;
}

static PyObject *py_load(PyObject *module, PyObject *args)
{
    (void)module;
    const char *path, *symbol;
    if (!PyArg_ParseTuple(args, "ss", &path, &symbol))
        return NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        PyErr_SetString(PyExc_OSError, why ? why : "dlopen failed");
        return NULL;
    }
    dlerror();
    void *fn = dlsym(lib, symbol);
    if (fn == NULL) {
        PyErr_Format(PyExc_LookupError, "no function %s", symbol);
        return NULL; /* (the library stays loaded: dlclose of a program is not offered) */
    }
    return PyLong_FromVoidPtr(fn);
}

/* The mirror of `pyecb` held by an outer guard of this thread, or NULL. */
static struct eb0eb *outer_mirror(PyObject *pyecb)
{
    for (rt_guard_t *g = rt_guard; g != NULL; g = g->prev)
        if (g->pyecb == pyecb)
            return g->ecb;
    return NULL;
}

typedef void (*segment_fn)(void);
typedef int (*main_fn)(int, char **);

/* Call the program under guard `g` with the GIL released; the jump kind. */
static int guarded_call(rt_guard_t *volatile g, void *address, int argc, char **argv,
                        int *volatile result)
{
    PyThreadState *ts = PyEval_SaveThread();
    g->ts = ts;
    int jump = sigsetjmp(g->jb, 1);
    if (jump == 0) {
        if (argv == NULL)
            ((segment_fn)address)();
        else
            *result = ((main_fn)address)(argc, argv);
    }
    unwind_gil(g->gil_depth);
    fflush(NULL);
    PyEval_RestoreThread(ts);
    return jump;
}

static char **make_argv(PyObject *list, int *argc)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    char **argv = calloc((size_t)n + 1, sizeof *argv);
    if (argv == NULL)
        return (char **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(list, i));
        if (s == NULL || (argv[i] = strdup(s)) == NULL) {
            for (Py_ssize_t j = 0; j < i; j++)
                free(argv[j]);
            free(argv);
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            return NULL;
        }
    }
    *argc = (int)n;
    return argv;
}

/* What run() gives Python after the call came back by `jump`. */
static PyObject *outcome(rt_guard_t *g, int jump, int is_main, int result)
{
    switch (jump) {
    case JUMP_NONE:
        if (is_main)
            return PyLong_FromLong(result);
        Py_RETURN_NONE;
    case JUMP_EXIT:
        if (is_main)
            return PyLong_FromLong(g->exit_code);
        return rt_call("exited", "(Oi)", g->pyecb, g->exit_code);
    case JUMP_ERROR:
        PyErr_Restore(g->exc_type, g->exc_value, g->exc_tb);
        g->exc_type = g->exc_value = g->exc_tb = NULL;
        return NULL;
    default: {
        PyObject *exc = rt_call("crashed", "(iK)", g->sig, (unsigned long long)(uintptr_t)g->addr);
        if (exc != NULL) {
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
            Py_DECREF(exc);
        }
        return NULL;
    }
    }
}

static PyObject *py_run(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *address, *pyecb, *argv_list;
    if (!PyArg_ParseTuple(args, "O!OO", &PyLong_Type, &address, &pyecb, &argv_list))
        return NULL;
    if (!RT.ready) {
        PyErr_SetString(PyExc_RuntimeError, "tpfemu._cprog.setup() was not called");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(address);
    if (fn == NULL)
        return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "no address");
    int argc = 0;
    char **argv = NULL;
    if (argv_list != Py_None) {
        if (!PyList_Check(argv_list))
            return PyErr_Format(PyExc_TypeError, "argv must be a list of str");
        if ((argv = make_argv(argv_list, &argc)) == NULL)
            return NULL;
    }
    rt_guard_t *g = calloc(1, sizeof *g);
    if (g == NULL)
        return PyErr_NoMemory();
    g->pyecb = pyecb;
    g->ecb = outer_mirror(pyecb);
    if (g->ecb == NULL) {
        g->ecb = calloc(1, sizeof *g->ecb);
        g->owns_ecb = 1;
    }
    PyObject *r = NULL;
    int result = 0;
    if (g->ecb == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (rt_sync_ebw(g, 0) < 0 || rt_sync_levels(g, -1) < 0)
        goto done;
    install_handlers();
    g->prev = rt_guard;
    g->gil_depth = gil_depth;
    rt_guard = g;
    int jump = guarded_call(g, fn, argc, argv, &result);
    rt_guard = g->prev;
    if (jump != JUMP_ERROR && rt_sync_ebw(g, 1) < 0) {
        PyErr_Clear(); /* (an ECB whose work area went away: nothing to copy into) */
    }
    r = outcome(g, jump, argv != NULL, result);
done:
    if (argv != NULL) {
        for (int i = 0; i < argc; i++)
            free(argv[i]);
        free(argv);
    }
    if (g->owns_ecb)
        free(g->ecb);
    Py_XDECREF(g->exc_type);
    Py_XDECREF(g->exc_value);
    Py_XDECREF(g->exc_tb);
    free(g);
    return r;
}

static PyObject *py_guarded(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    int n = 0;
    for (rt_guard_t *g = rt_guard; g != NULL; g = g->prev)
        n++;
    return PyLong_FromLong(n);
}

static PyMethodDef methods[] = {
    {"setup", py_setup, METH_VARARGS, "setup(calls, classes, fields): the Python side."},
    {"load", py_load, METH_VARARGS, "load(path, symbol) -> address of the entry function."},
    {"run", py_run, METH_VARARGS, "run(address, ecb, argv): call a C program on ecb."},
    {"guarded", py_guarded, METH_NOARGS, "How many C program calls run on this thread."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "tpfemu._cprog",
    "tpfemu's runtime for C programs (reached through tpfemu._lowlevel.cprog).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cprog(void)
{
    /* Make this module's symbols (MQPUT, getcc, ...) global, so that the programs'
     * shared objects loaded later bind to them. */
    Dl_info info;
    if (dladdr((void *)&MQPUT, &info) == 0 || info.dli_fname == NULL ||
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL) {
        PyErr_Format(PyExc_ImportError, "tpfemu._cprog: cannot make the runtime's symbols "
                     "global: %s", dlerror());
        return NULL;
    }
    return PyModule_Create(&moddef);
}
