/* logput.h - the recovery log's records written in the shim, for tpfemu._fastpath:
 * a put plan's and a get plan's persistent message (logput.c), and the records the log appends, encoded
 * (logencode.c).
 *
 * A put with an MD whose message is persistent, on a queue whose persistent messages
 * go to the recovery log: the core put and the append of its PUT record happen under
 * the queue's log lock (so the log holds a queue's puts and gets in the order the core
 * did them), the record built in C (tpf_log_put_record); outside syncpoint the put then
 * waits, outside the lock, until the record is durable. The log's bookkeeping (the
 * message key, the unit of work's records) stays with tpfemu/qmgr/persistence.py, which
 * hands over the *log port*: (the queue's log lock, its queue id in the log, append,
 * wait) -- see QueuePersistence.put_port. All functions need the GIL.
 */
#ifndef TPFEMU_LOGPUT_H
#define TPFEMU_LOGPUT_H

#include "fastqueue.h"
#include "mdpath.h"

/** fastpath.c: the core put of the message md_put_read prepared (its record, then
 * `ndata` bytes at `data`) in unit of work `uow`: 0, or -1 with the queue's exception;
 * the descriptor's MsgId, seq and put time are written. */
int fq_put_prepared(FastQueue *self, md_put_t *p, const char *data, Py_ssize_t ndata,
                    uint64_t uow);

/** The log port in put_md's settings (its `logged` entry when that is a tuple; borrowed),
 * or NULL: persistent messages are not logged, or are left to the full path. */
PyObject *logput_port(PyObject *settings);

/** The put of a persistent message (`ndata` bytes at `data`) through the log port
 * `port` (see above): 0 once put (and, outside syncpoint, durable), -1 with an exception
 * (not put, or put but not logged when the log itself failed, as the full path leaves
 * it). Serves put_md and the raw entry (a C program's MQMD) alike. */
int logput_put(FastQueue *self, md_put_t *p, const char *data, Py_ssize_t ndata,
               PyObject *port, uint64_t uow);

/** The get of a persistent message through a get plan's log port `port` (see above),
 * after get_md's first get (with `req`) found one and did nothing: the get again, under
 * the queue's log lock and in `req`'s unit of work (outside syncpoint, req->uow 0: a
 * private one, from the port), and for a logged message its GET record (built in C,
 * tpf_log_record) appended with the message tracked in flight, as QueuePersistence's
 * log_get does; outside syncpoint the port's finish then waits for the record and makes
 * the get final. The port: (the queue's log lock, its queue id, the log key of a core
 * seq (None: not logged), track(seq, record, uow, private, stored) -> Ticket, StoredMessage,
 * private_uow() -> int, finish(uow, ticket or None)) -- QueuePersistence.get_port.
 * Returns the message whole (context record first; its descriptor in *m), or NULL with
 * an exception (nothing got, or, outside syncpoint, the message given back). */
PyObject *logput_get(FastQueue *self, PyObject *port, tpf_mq_getreq_t *req, tpf_mq_msg_t *m);

/** logencode.c: add log_encode and log_encode_setup to the module: 0, or -1. */
int logencode_ready(PyObject *module);

#endif /* TPFEMU_LOGPUT_H */
