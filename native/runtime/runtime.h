/* runtime.h - tpfemu's runtime for C programs (tpfemu._cprog): what its parts share
 *
 * The runtime is a CPython extension module whose C symbols (MQPUT, getcc, ...) the
 * programs' shared objects bind to: module init makes them global. A program runs on
 * the I-stream thread of its entry with the GIL released; each call into the runtime
 * takes the GIL (rt_enter/rt_leave), calls into the running system (the Python
 * functions of tpfemu.cprog.calls, and the C plans of the one put and get path), and
 * gives the GIL back.
 *
 * A guard (one per C program call on the thread, innermost first) is where control
 * returns when the program cannot go on: a fault signal (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT), exit() (EXITC), or a system error raised by the system during a
 * runtime call (the exception is kept in the guard and raised again in Python).
 */
#ifndef TPFEMU_RUNTIME_H
#define TPFEMU_RUNTIME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <setjmp.h>

#include "cmqc.h"
#include "tpf/plan_raw.h"
#include "tpf/tpfapi.h"

/** How control came back to the guard. */
enum { JUMP_NONE = 0, JUMP_SIGNAL = 1, JUMP_EXIT = 2, JUMP_ERROR = 3 };

typedef struct rt_guard {
    sigjmp_buf jb;
    struct rt_guard *prev;
    struct eb0eb *ecb;      /**< the mirror of the entry's ECB (shared by nested calls) */
    int owns_ecb;           /**< 1: this call made the mirror (and frees it) */
    PyObject *pyecb;        /**< the entry's ecb.Ecb (borrowed for the call) */
    int gil_depth;          /**< rt_enter depth when the guard was set */
    PyThreadState *ts;      /**< the thread state released while the program runs */
    int sig;                /**< JUMP_SIGNAL: the signal */
    void *addr;             /**< JUMP_SIGNAL: the faulting address */
    int exit_code;          /**< JUMP_EXIT: exit()'s argument */
    PyObject *exc_type, *exc_value, *exc_tb; /**< JUMP_ERROR: the exception raised */
} rt_guard_t;

/** The innermost guard of this thread (NULL outside any C program call). */
extern _Thread_local rt_guard_t *rt_guard;

/** The Python side, set by setup(): tpfemu.cprog.calls' functions and the MQ types. */
typedef struct {
    int ready;
    PyObject *calls;                 /**< the tpfemu.cprog.calls module */
    PyObject *conns;                 /**< {hconn: Connection} (calls._conns) */
    PyObject *planned_put, *planned_get;
    const tpf_plan_raw_t *raw;       /**< the plans' raw entries (tpf/plan_raw.h) */
    PyObject *mqmi_error;            /**< tpfemu.errors.MQMIError */
    PyObject *s_handles, *s_put_plan, *s_get_plan, *s_comp, *s_reason, *s_message,
        *s_original_length;
} rt_py_t;
extern rt_py_t RT;

/** Take the GIL for a runtime call / give it back (counted per thread for the guard). */
void rt_enter(void);
void rt_leave(void);

/** A Python exception is pending that is not an MQ error (a system error, EXITC from an
 * entered program, a bug): end the program at its guard, the exception kept for Python.
 * Without a guard, it is reported as unraisable and the call goes on. */
void rt_abandon(void);

/** Call tpfemu.cprog.calls.<name>(args...) (a new reference, NULL with an exception). */
PyObject *rt_call(const char *name, const char *format, ...);

/** Refresh the mirror's CBRW of `level` (-1: every level) from the entry's Ecb, and
 * copy EBW000-EBW103 between the mirror and the Ecb (to_py: mirror -> Ecb). 0 or -1. */
int rt_sync_levels(rt_guard_t *g, int level);
int rt_sync_ebw(rt_guard_t *g, int to_py);

/* -- structures: C layout <-> tpfemu.mq.structs objects (structs.c) ------------------- */
enum { ST_MD, ST_GMO, ST_PMO, ST_COUNT };
/** Set the tables from the Python classes and their field lists; checks every field's
 * offset and size against cmqc.h. 0, or -1 with TypeError naming the field. */
int st_setup(PyObject *classes, PyObject *fields);
/** Check a C structure's StrucId and Version: its version, or 0 when it is not one. */
int st_version(int which, const void *c);
/** A new Python structure holding the C one's fields (those of its version). */
PyObject *st_to_py(int which, const void *c, int version);
/** Write the Python structure's fields into the C one (those of its version). 0 / -1. */
int st_from_py(int which, PyObject *obj, void *c, int version);

/** The bytes of a C structure's fields at `version` (those the Python side knows). */
size_t st_length(int which, int version);
/** The C structure as st_from_py(st_to_py(c)) leaves it, without the Python object: each
 * field at cmqc.h's default or the initial value becomes the initial value, a character
 * field is padded with blanks from its first null. (What a plan reads of it is the same
 * before and after; the raw plan entries write their outputs into it after this.) */
void st_normalize(int which, void *c, int version);

/** A character field of a C structure as Python bytes: up to its first null. */
PyObject *rt_chars(const char *field, size_t width);
/** Store bytes (or a str) into a character field, padded with blanks. */
void rt_put_chars(char *field, size_t width, PyObject *value);

#endif
