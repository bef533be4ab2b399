/* eventlog.h - the event journal's capture buffer, for tpfemu._fastpath
 *
 * The journal (tpfemu/journal/writer.py) records every queue-manager event. Events the
 * queue manager emits in Python reach it as a raw event-bus subscriber (EventLog.add,
 * a C method: no Python frame). The MQI's fast paths (fastpath.c, planpath.c) record
 * their put and get events here directly, in C, from the core's descriptor: a fixed
 * record with the payload hash of the data (computed now, while the data is in the
 * cache; a get of a message whose put was recorded recently takes the put's hash), the
 * queue and program names as indexes into a table of names, and, at level payload
 * only, the data copied into an arena the log reuses. No Python object is made or kept
 * per event. Both kinds go into one buffer in the order they happen (every call holds
 * the GIL).
 *
 * The journal's writer thread hands the buffer to EventLog.write_ipc: it swaps in the
 * spare buffer under the GIL (the application records into it meanwhile) and writes the
 * cycle in order, runs of recorded events encoded as Arrow record batches in C
 * (journalipc.h) with the GIL released, runs of events emitted in Python through a
 * callback. EventLog.take hands everything over as Python objects instead (tests, and
 * dropping what a failed journal recorded).
 *
 * The running ECB is read from a thread-local slot that the ECB runtime keeps current
 * through its switch watcher (set_running_ecb), not by calling into Python.
 *
 * A record's layout is exported as EventLog.LAYOUT (name -> (offset, format)), so a
 * reader of take() reads it with numpy without a second definition. All functions need
 * the GIL.
 */
#ifndef TPFEMU_EVENTLOG_H
#define TPFEMU_EVENTLOG_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "tpf/queue.h"

/** Record kinds: an event emitted in Python (its fields in a tuple), or a message event
 * recorded in C. */
enum { EVENTLOG_PY = 0, EVENTLOG_PUT = 1, EVENTLOG_GET = 2 };

/** One recorded event (fixed part). */
typedef struct {
    int64_t time_us;                  /**< event time, microseconds since the epoch */
    int64_t deadline;                 /**< expiry deadline (TPF_MQ_NEVER: none) */
    int64_t uow;                      /**< unit of work, 0 outside one */
    int64_t ecb;                      /**< the calling ECB's id, -1 outside any */
    int64_t data_off;                 /**< where its data is in the log's arena (internal) */
    uint8_t msg_id[TPF_MQ_ID_LEN];
    uint8_t correl_id[TPF_MQ_ID_LEN];
    uint8_t group_id[TPF_MQ_ID_LEN];  /**< all zero: MQGI_NONE */
    uint8_t hash[8];                  /**< payload hash of the data, when recorded */
    int32_t length;                   /**< message data length (without the record) */
    int32_t queue;                    /**< index of the queue's name in take()'s names */
    int32_t program;                  /**< index of the program's name, -1: none */
    uint8_t kind;                     /**< EVENTLOG_* */
    uint8_t priority;
    uint8_t persistent;
    uint8_t pad;
} eventlog_rec_t;

extern PyTypeObject eventlog_type;

/** Ready the EventLog type (with its LAYOUT) and add it to `module`; -1 on error. */
int eventlog_ready(PyObject *module);

/** Module-level payload_hashes(datas) -> bytes (see eventlog.c). */
PyObject *eventlog_payload_hashes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/** 1 when `obj` is an EventLog. */
static inline int eventlog_check(PyObject *obj)
{
    return Py_TYPE(obj) == &eventlog_type;
}

/**
 * Record a put or get (`kind`) of the message described by `md`, whose data (without
 * its context record) is `data[0:length]` (copied), on the queue named `queue`, at
 * `time_us`, by unit of work `uow` (0: none; the call's, not md->uow, which a get
 * reports as the put's). `group_id` is the message's GroupId, or NULL for none. Reads
 * the calling ECB. Returns 0: the call it records has happened, so an event that cannot
 * be recorded (no memory, or the ECB lookup failed) is counted in EventLog.lost, and
 * the exception cleared, instead of failing that call.
 */
int eventlog_record(PyObject *log, int kind, PyObject *queue, const void *q,
                    const tpf_mq_msg_t *md, const uint8_t *group_id, const char *data,
                    Py_ssize_t length, int64_t time_us, uint64_t uow);

/** Module-level set_running_ecb(ecb): the ECB now running on this thread (None: none),
 * for the ECB runtime's switch watcher (see eventlog.c). */
PyObject *eventlog_set_running_ecb(PyObject *module, PyObject *ecb);

/** Module-level trust_running_slots(): the switch watcher was installed before any
 * entry ran, so the slots it keeps are exact from now on (see eventlog.c). */
PyObject *eventlog_trust_running_slots(PyObject *module, PyObject *unused);

#endif
