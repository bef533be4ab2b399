/* fastqueue.h - the FastQueue object of tpfemu._fastpath, shared by the files of its methods
 *
 * fastpath.c defines the type, its single-message methods and the module; batchpath.c
 * the batch methods (put_many, get_many). What they share is here: the object, the
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

/** tpf_mq_get_alloc of tpfemu._native (fastpath.c: set by bind()) */
extern get_fn core_get;
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
