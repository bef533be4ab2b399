/* fastqueue.h - the FastQueue object of tpfemu._fastpath, shared by the files of its methods
 *
 * fastpath.c defines the type, its single-message puts and the module; fastget.c its
 * single-message gets; batchpath.c the batch methods (put_many, get_many). What they share is here: the object, the
 * core's functions that bind() hands over, and the error and argument helpers. All
 * functions need the GIL.
 */
#ifndef TPFEMU_FASTQUEUE_H
#define TPFEMU_FASTQUEUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "tpf/queue.h"

typedef int (*put_fn)(tpf_mq_queue_t *, const void *, uint32_t, int, uint64_t);
typedef int (*get_fn)(tpf_mq_queue_t *, uint64_t, int, tpf_mq_alloc_fn, void *,
                      tpf_mq_msg_t *);
typedef int (*put_full_fn)(tpf_mq_queue_t *, tpf_mq_msg_t *, const void *, uint32_t);
typedef int (*get_full_fn)(tpf_mq_queue_t *, const tpf_mq_getreq_t *, tpf_mq_msg_t *, void *,
                           uint32_t);
typedef int (*put_gather_fn)(tpf_mq_queue_t *, uint32_t, const tpf_mq_msg_t *, size_t,
                             const uint32_t *, const void *const *, uint64_t *);
typedef int (*get_many_fn)(tpf_mq_queue_t *, uint32_t, uint64_t, int64_t, tpf_mq_msg_t *,
                           uint32_t *, void *, size_t, uint32_t *);

typedef int (*commit_fn)(tpf_mq_queue_t *, uint64_t, uint32_t *);

/** tpf_mq_get_alloc of tpfemu._native (fastpath.c: set by bind()) */
extern get_fn core_get;
/** tpf_mq_get */
extern get_full_fn core_get_full;
/** tpf_mq_put_many_gather */
extern put_gather_fn core_put_gather;
/** tpf_mq_get_many */
extern get_many_fn core_get_many;

typedef struct {
    PyObject_HEAD
    tpf_mq_queue_t *q;                  /**< not owned: CoreQueue detaches before freeing */
    PyObject *name;                     /**< the queue's name, for error messages */
} FastQueue;

/** Raise the queue manager's exception for reason code `rc` of `call` (MQPUT, MQGET;
 * rc -1: the queue is closed) through the error factory; returns NULL. */
PyObject *raise_rc(FastQueue *self, int rc, const char *call);

/** Read a unit of work number (an int, 0: none). Returns 0, or -1 with an exception. */
int read_uow(PyObject *arg, uint64_t *uow);

/** Place keyword arguments into slots[] by name (names[i] is slot i); positional
 * arguments fill the first slots. Returns -1 with TypeError on a bad call. */
int bind_args(const char *fn, const char *const *names, int nslots, PyObject **slots,
              PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/** 1: `arg` (optional) is an EventLog, 0: it is absent or None, -1: TypeError. */
int log_arg(PyObject *arg);

/** Scratch memory of put_md (the record and the data joined) and of the gets (the
 * message as the core copies it out). Every call holds the GIL from start to end and
 * never releases it, so one buffer each serves all threads. Grown, never shrunk. */
typedef struct {
    char *p;
    size_t cap;
} scratch_t;

/** The gets' scratch buffer (fastget.c) */
extern scratch_t get_scratch;

/** `s`'s memory with room for `need` bytes (grown), or NULL with MemoryError. */
char *scratch_room(scratch_t *s, size_t need);

/* ---- fastget.c: the get methods ---- */

/** A get into get_scratch (grown as needed): the message, context record first, and its
 * descriptor in *md. Returns the core's reason code, or -1 with MemoryError. */
int scratch_get(FastQueue *self, const tpf_mq_getreq_t *req, tpf_mq_msg_t *md);

/** get(), get_body(), get_md(): see their docs. */
PyObject *fq_get(FastQueue *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *fq_get_body(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames);
PyObject *fq_get_md(FastQueue *self, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames);
extern const char get_doc[], get_body_doc[], get_md_doc[];

/* ---- fastpath.c: MQPUT and MQGET with a C program's MQMD (planpath.c's raw entries) ---- */

struct md_put_settings; /* (mdpath.h) */

/** The FastQueue whose bound method `method` is (a plan's put_md or get_md), or NULL. */
FastQueue *fastqueue_of(PyObject *method);

/** put_md for a C program's MQMD (version mdv, read and written in place): 1 put, 2 put
 * and it can expire, 0 declined (nothing changed), -1 with the queue's exception. `log`:
 * an EventLog or NULL. */
int fq_put_raw(FastQueue *self, const void *data, Py_ssize_t ndata, void *md, int mdv,
               const struct md_put_settings *s, PyObject *log, uint64_t uow);

/** get_md for a C program's MQMD and buffer: 1 got (the data's first `room` bytes in
 * `buffer`, its length in *length, the core's TPF_MQ_F_* bits in *flags), 0 declined, -1
 * with the queue's exception. */
int fq_get_raw(FastQueue *self, void *md, int mdv, uint32_t match, int not_persistent,
               PyObject *log, uint64_t uow, char *buffer, Py_ssize_t room,
               Py_ssize_t *length, long *flags);

/* ---- batchpath.c ---- */

/** put_many(payloads, priority, uow): see put_many_doc. */
PyObject *fq_put_many(FastQueue *self, PyObject *const *args, Py_ssize_t nargs);
extern const char put_many_doc[];
/** get_many(max_count, uow, max_bytes, descriptors): see get_many_doc. */
PyObject *fq_get_many(FastQueue *self, PyObject *const *args, Py_ssize_t nargs);
extern const char get_many_doc[];
/** split(data, lengths): the module function that cuts get_many's result into messages */
PyObject *batch_split(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char split_doc[];

#endif /* TPFEMU_FASTQUEUE_H */
