/* tpfapi.c - TPF's C API (tpf/tpfapi.h) on the calling entry's ECB
 *
 * Each call takes the GIL and calls tpfemu.cprog.calls, which calls the entry's ecb.Ecb
 * as a Python program would; a system error it raises ends the C program at its guard
 * (runtime.h) and reaches the dispatcher as the Python one would. After a call that
 * changes a data level, the mirror's CBRW is refreshed; before a call that leaves C
 * (entrc, the create calls), EBW000-EBW103 are copied to the Ecb, and after entrc
 * copied back with every CBRW (the entered program shares the entry's ECB). routc
 * reads its RCPL from the pointer it is given and hands it to the entry's Ecb.routc, the
 * dispatcher's router (the ROUTC bridge); the level it releases is refreshed after.
 */
#include "runtime.h"

#include <stdarg.h>

#include "tpf/c_rc0pl.h"

/* The calling entry's guard; outside any C program call, a RuntimeError (as a system
 * error would, it ends the program). */
static rt_guard_t *entry_guard(const char *call)
{
    rt_guard_t *g = rt_guard;
    if (g == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s: called outside an entry", call);
        PyErr_WriteUnraisable(NULL);
    }
    return g;
}

/* End a runtime call whose Python part returned `r`: DECREF it, or abandon. */
static void finish(PyObject *r)
{
    if (r == NULL)
        rt_abandon();
    Py_XDECREF(r);
}

struct eb0eb *ecbptr(void)
{
    return rt_guard != NULL ? rt_guard->ecb : NULL;
}

void *getcc(enum t_lvl level, enum t_getfmt format, int value, ...)
{
    int fill = -1;
    if (format & GETCC_FILL) {
        va_list va;
        va_start(va, value);
        fill = (unsigned char)va_arg(va, int); /* a char, as passed: (char)0xFF is 255 */
        va_end(va);
    }
    rt_enter();
    rt_guard_t *g = entry_guard("getcc");
    void *address = NULL;
    if (g != NULL) {
        PyObject *r = rt_call("getcc", "(Oiiii)", g->pyecb, (int)level, value,
                              (format & GETCC_SIZE) != 0, fill);
        if (r != NULL && rt_sync_levels(g, (int)level) < 0)
            Py_CLEAR(r);
        finish(r);
        if ((unsigned)level < 16)
            address = g->ecb->ce1cr[level].ce1crx;
    }
    rt_leave();
    return address;
}

/* A macro that changes one data level (RELCC, DETAC, ATTAC): the Python call
 * `name`(ecb, level), then the level's copy in the C ECB brought up to date; returns the
 * level's block address after it (NULL when the entry is gone). */
static void *level_macro(const char *name, enum t_lvl level)
{
    rt_enter();
    rt_guard_t *g = entry_guard(name);
    void *address = NULL;
    if (g != NULL) {
        PyObject *r = rt_call(name, "(Oi)", g->pyecb, (int)level);
        if (r != NULL && rt_sync_levels(g, (int)level) < 0)
            Py_CLEAR(r);
        finish(r);
        if ((unsigned)level < 16)
            address = g->ecb->ce1cr[level].ce1crx;
    }
    rt_leave();
    return address;
}

void relcc(enum t_lvl level)
{
    (void)level_macro("relcc", level);
}

int levtest(enum t_lvl level)
{
    rt_enter();
    rt_guard_t *g = entry_guard("levtest");
    long type = 0;
    if (g != NULL) {
        PyObject *r = rt_call("levtest", "(Oi)", g->pyecb, (int)level);
        if (r != NULL)
            type = PyLong_AsLong(r);
        finish(r);
    }
    rt_leave();
    return (int)type;
}

void crusa(int count, enum t_lvl level, ...)
{
    /* The levels are read here: at most 16 distinct ones exist, but a program may name
     * one twice; more than 64 is refused in Python (as is a count below 1). */
    int levels[64];
    int n = count < 0 ? 0 : count > 64 ? 64 : count;
    va_list va;
    va_start(va, level);
    for (int i = 0; i < n; i++)
        levels[i] = i == 0 ? (int)level : va_arg(va, int);
    va_end(va);
    rt_enter();
    rt_guard_t *g = entry_guard("crusa");
    if (g != NULL) {
        PyObject *list = PyList_New(0);
        for (int i = 0; list != NULL && i < n; i++) {
            PyObject *item = PyLong_FromLong(levels[i]);
            if (item == NULL || PyList_Append(list, item) < 0)
                Py_CLEAR(list);
            Py_XDECREF(item);
        }
        PyObject *r = list == NULL ? NULL : rt_call("crusa", "(OOi)", g->pyecb, list, count);
        Py_XDECREF(list);
        if (r != NULL && rt_sync_levels(g, -1) < 0)
            Py_CLEAR(r);
        finish(r);
    }
    rt_leave();
}

void detac(enum t_lvl level)
{
    (void)level_macro("detac", level);
}

void *attac(enum t_lvl level)
{
    return level_macro("attac", level);
}

static void create(const char *macro, int length, const void *parm, const char *segname,
                   int level, int priority)
{
    rt_enter();
    rt_guard_t *g = entry_guard(macro);
    if (g != NULL) {
        PyObject *r = NULL;
        if (rt_sync_ebw(g, 1) == 0)
            r = rt_call("create", "(Osy#ziii)", g->pyecb, macro,
                        parm != NULL ? (const char *)parm : "",
                        (Py_ssize_t)(parm != NULL && length > 0 ? length : 0),
                        segname, level, priority, length);
        if (r != NULL && level >= 0 && rt_sync_levels(g, level) < 0)
            Py_CLEAR(r);
        finish(r);
    }
    rt_leave();
}

void cremc(int length, const void *parm, const char *segname)
{
    create("CREMC", length, parm, segname, -1, 0);
}

void credc(int length, const void *parm, const char *segname)
{
    create("CREDC", length, parm, segname, -1, 0);
}

void crexc(int length, const void *parm, const char *segname)
{
    create("CREXC", length, parm, segname, -1, 0);
}

void creec(int length, const void *parm, const char *segname, enum t_lvl level,
           int priority)
{
    create("CREEC", length, parm, segname, (int)level, priority);
}

void cretc(int flags, const char *segname, int units, const void *action)
{
    rt_enter();
    rt_guard_t *g = entry_guard("cretc");
    if (g != NULL) {
        PyObject *r = rt_call("cretc", "(Oiziy#)", g->pyecb, flags, segname, units,
                              action != NULL ? (const char *)action : "\0\0\0\0",
                              (Py_ssize_t)4);
        finish(r);
    }
    rt_leave();
}

void serrc_op(enum t_serrc status, int number, const char *msg, void *slist[])
{
    (void)slist;
    rt_enter();
    rt_guard_t *g = entry_guard("serrc_op");
    if (g != NULL) {
        PyObject *r = NULL;
        if (rt_sync_ebw(g, 1) == 0)
            r = rt_call("serrc", "(Oiiy)", g->pyecb, (int)status, number, msg);
        finish(r);
    }
    rt_leave();
}

void defrc(void)
{
    rt_enter();
    rt_guard_t *g = entry_guard("defrc");
    if (g != NULL)
        finish(rt_call("defrc", "(O)", g->pyecb));
    rt_leave();
}

int wtopc(const char *text_ptr, long int rout, enum t_wtopc_chain chain,
          const void *header_ptr)
{
    rt_enter();
    rt_guard_t *g = entry_guard("wtopc");
    if (g != NULL) {
        const struct wtopc_header *h = header_ptr;
        PyObject *r = rt_call("wtopc", "(Oyly#ic)", g->pyecb, text_ptr, rout,
                              h != NULL ? h->prefix : "", (Py_ssize_t)(h != NULL ? 4 : 0),
                              h != NULL ? (int)h->number : 0, h != NULL ? h->severity : ' ');
        (void)chain;
        finish(r);
    }
    rt_leave();
    return 0;
}

void entrc(const char *segname)
{
    rt_enter();
    rt_guard_t *g = entry_guard("entrc");
    if (g != NULL) {
        PyObject *r = NULL;
        if (rt_sync_ebw(g, 1) == 0)
            r = rt_call("entrc", "(Oz)", g->pyecb, segname);
        if (r != NULL && (rt_sync_ebw(g, 0) < 0 || rt_sync_levels(g, -1) < 0))
            Py_CLEAR(r);
        finish(r);
    }
    rt_leave();
}

static int tx(const char *op)
{
    rt_enter();
    PyObject *r = rt_call("tx", "(s)", op);
    int rc = TX_OK;
    if (r != NULL && PyLong_Check(r))
        rc = (int)PyLong_AsLong(r);
    finish(r);
    rt_leave();
    return rc;
}

int tx_begin(void)
{
    return tx("begin");
}

int tx_commit(void)
{
    return tx("commit");
}

int tx_rollback(void)
{
    return tx("rollback");
}

int routc(const void *rcpl, enum t_lvl level)
{
    rt_enter();
    rt_guard_t *g = entry_guard("routc");
    if (g != NULL) {
        /* The RCPL is read here, 16 bytes (our extended form, tpf/c_rc0pl.h); a null
         * pointer is an empty RCPL, which the router refuses (E0603). */
        PyObject *r = rt_call("routc", "(Oy#i)", g->pyecb,
                              rcpl != NULL ? (const char *)rcpl : "",
                              (Py_ssize_t)(rcpl != NULL ? RCPL_SIZE : 0), (int)level);
        if (r != NULL && rt_sync_levels(g, (int)level) < 0)
            Py_CLEAR(r);
        finish(r);
    }
    rt_leave();
    return 0;
}
