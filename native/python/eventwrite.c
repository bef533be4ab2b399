/* eventwrite.c - EventLog.write_ipc: the journal's writer side of the capture buffer
 * (see eventlog.h): the cycle's records swapped out under the GIL, their hashes made, and
 * runs of them encoded as Arrow record batches and written with the GIL released.
 */
#include "eventlog_impl.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

/* The hashes the application's thread left to the writer, for records [start, end) of
 * b in order: each HELD put's data hashed (once for a run of puts of the same object),
 * each OF_PUT get given its put's hash from the ring, every put's hash put in the ring.
 * Every record goes through here once, in record order (write_ipc, batch by batch just
 * before it encodes them, while they are in the cache; take), so the ring holds what
 * the application's thread expects. Needs no GIL: it reads the held objects' data only
 * (immutable bytes, held). */
void eventlog_resolve_hashes(put_hash_t *ring, evbuf_t *b, Py_ssize_t start, Py_ssize_t end)
{
    const PyObject *last = NULL;
    uint8_t last_hash[8] = {0};
    for (Py_ssize_t i = start; i < end; i++) {
        eventlog_rec_t *r = &b->recs[i];
        uint64_t recno = b->recno0 + (uint64_t)i;
        if (r->kind == EVENTLOG_PY)
            continue;
        if (r->hash_state == TPF_JOURNAL_HASH_HELD) {
            PyObject *data = (PyObject *)(intptr_t)r->data_off;
            if (data != last) {
                tpf_payload_hash64((const uint8_t *)PyBytes_AS_STRING(data),
                                   (size_t)PyBytes_GET_SIZE(data), last_hash);
                last = data;
            }
            memcpy(r->hash, last_hash, 8);
            r->hash_state = TPF_JOURNAL_HASH_HELD_DONE;
        } else if (r->hash_state == TPF_JOURNAL_HASH_OF_PUT) {
            uint64_t put;
            memcpy(&put, r->hash, 8);
            const put_hash_t *e = &ring[put & (TPF_JOURNAL_PUT_RING - 1)];
            if (e->tag == put + 1) /* (always: the put is at most the ring's size back) */
                memcpy(r->hash, e->hash, 8);
            else
                memset(r->hash, 0, 8);
            r->hash_state = TPF_JOURNAL_HASHED;
        }
        if (r->kind == EVENTLOG_PUT) {
            put_hash_t *e = &ring[recno & (TPF_JOURNAL_PUT_RING - 1)];
            e->tag = recno + 1;
            memcpy(e->hash, r->hash, 8);
        }
    }
}

const char eventlog_write_ipc_doc[] =
             "write_ipc(fd, seq0, cpu, qmgr, batch_events, emitted[, wake_fd, wait])\n--\n\n"
             "Write everything recorded, in order, and forget it: each run of events the\n"
             "fast paths recorded goes to fd (a file descriptor, written batch by batch,\n"
             "or a SegmentFile, appended to and written at the end, a direct write's\n"
             "padding left for SegmentFile.flush to cut) as Arrow IPC record\n"
             "batches of the segment schema (journal/schema.py SEGMENT_SCHEMA: at most\n"
             "batch_events rows each; seq, cpu and qmgr are not rows, the segment's\n"
             "metadata holds them: cpu and qmgr are the segment's, checked to be str),\n"
             "encoded in C with the GIL released; each run of events emitted in Python is\n"
             "handed to emitted(items, seq0), which writes them, seq counting from seq0.\n"
             "Returns (count, bytes written here). OSError when a write fails,\n"
             "or what emitted raised: the events not written are counted in lost.\n"
             "With wake_fd and wait: once everything is written, it waits (still without\n"
             "the GIL) up to `wait` seconds for a byte on wake_fd (the writer's wake-up\n"
             "pipe, see wake_on) and takes it, so that a busy writer takes the GIL once a\n"
             "cycle, not twice; it returns at once when it wrote nothing.";

/* The names of this cycle as UTF-8 copies in one block (*block, free both with
 * PyMem_RawFree). -1 with an exception set. */
static int names_utf8(PyObject *names, tpf_journal_text_t **out, char **block)
{
    Py_ssize_t n = PyList_GET_SIZE(names), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        if (PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(names, i), &len) == NULL)
            return -1;
        total += len;
    }
    tpf_journal_text_t *t = PyMem_RawMalloc(sizeof *t * (size_t)(n ? n : 1));
    char *p = PyMem_RawMalloc((size_t)(total ? total : 1));
    if (t == NULL || p == NULL) {
        PyMem_RawFree(t);
        PyMem_RawFree(p);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        const char *u = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(names, i), &len);
        memcpy(p + at, u, (size_t)len);
        t[i].p = p + at;
        t[i].len = (size_t)len;
        at += len;
    }
    *out = t;
    *block = p;
    return 0;
}

/* write(2) all of buf; 0, or -1 with errno set. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Wait (without the GIL) up to wait_ms for a byte on fd, the writer's wake-up pipe, and
 * take what is there. */
static void wait_for_wake(int fd, int wait_ms)
{
    if (fd < 0)
        return;
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, wait_ms) > 0) {
        char sink[4096];
        ssize_t r = read(fd, sink, sizeof sink);
        (void)r;
    }
}

PyObject *eventlog_write_ipc(EventLog *self, PyObject *const *args, Py_ssize_t nargs)
{
    int to_file = (nargs == 6 || nargs == 8) && Py_TYPE(args[0]) == &segfile_type;
    if ((nargs != 6 && nargs != 8) || !(to_file || PyLong_Check(args[0])) ||
        !PyLong_Check(args[1]) || !PyUnicode_Check(args[2]) || !PyUnicode_Check(args[3]) ||
        !PyLong_Check(args[4]) || !PyCallable_Check(args[5]) ||
        (nargs == 8 && (!PyLong_Check(args[6]) || !PyFloat_Check(args[7])))) {
        PyErr_SetString(PyExc_TypeError, "write_ipc(fd: int | SegmentFile, seq0: int, cpu: str, "
                                         "qmgr: str, batch_events: int, emitted: callable"
                                         "[, wake_fd: int, wait: float])");
        return NULL;
    }
    int wake_fd = nargs == 8 ? (int)PyLong_AsLong(args[6]) : -1;
    double wait = nargs == 8 ? PyFloat_AS_DOUBLE(args[7]) : 0.0;
    int wait_ms = wait > 0 ? (wait >= 3600 ? 3600000 : (int)(wait * 1000 + 0.999)) : 0;
    int fd = -1;
    tpf_journal_seg_t *seg = NULL; /* (NULL: each batch written to fd as it is encoded) */
    if (to_file ? (seg = segfile_begin(args[0], &fd)) == NULL
                : (fd = PyObject_AsFileDescriptor(args[0])) < 0)
        return NULL;
    long long seq0 = PyLong_AsLongLong(args[1]);
    Py_ssize_t most = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (most <= 0) {
        PyErr_SetString(PyExc_ValueError, "write_ipc: batch_events must be positive");
        return NULL;
    }
    if (!self->hashes) {
        PyErr_SetString(PyExc_ValueError, "write_ipc: this EventLog does not hash (hashes=False)");
        return NULL;
    }
    if (self->writing) {
        PyErr_SetString(PyExc_RuntimeError, "EventLog.write_ipc() is already running");
        return NULL;
    }
    evbuf_t *cur = &self->cur;
    if (cur->n == 0)
        return Py_BuildValue("(nn)", (Py_ssize_t)0, (Py_ssize_t)0);
    tpf_journal_text_t *names = NULL;
    char *names_block = NULL;
    PyObject *fresh_names = PyList_New(0), *fresh_index = PyDict_New();
    if (fresh_names == NULL || fresh_index == NULL ||
        names_utf8(self->names, &names, &names_block) < 0) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_XDECREF(fresh_names);
        Py_XDECREF(fresh_index);
        PyMem_RawFree(names);
        PyMem_RawFree(names_block);
        return NULL;
    }
    /* Swap under the GIL: the application records into the spare from now on. */
    evbuf_t taken = *cur;
    *cur = self->spare;
    cur->recno0 = self->recno;
    memset(&self->spare, 0, sizeof self->spare);
    eventlog_names_restart(self, fresh_names, fresh_index); /* (names_utf8 copied what it needs) */

    tpf_journal_batch_t batch = {
        .names = names, .data = self->payload ? taken.data : NULL,
    };
    Py_ssize_t done = 0, item = 0;
    size_t written = 0;
    int err = 0; /* errno of a failed write (ENOMEM: encoding), -1: emitted raised */
    self->writing = 1;

    while (done < taken.n && err == 0) {
        Py_ssize_t end = done;
        if (taken.recs[done].kind == EVENTLOG_PY) { /* a run emitted in Python */
            while (end < taken.n && taken.recs[end].kind == EVENTLOG_PY)
                end++;
            PyObject *run = PyList_New(end - done), *r = NULL;
            if (run != NULL) {
                for (Py_ssize_t i = 0; i < end - done; i++)
                    PyList_SET_ITEM(run, i, Py_NewRef(taken.items[item + i]));
                PyObject *first = PyLong_FromLongLong(seq0 + done);
                if (first != NULL) {
                    PyObject *call[2] = {run, first};
                    r = PyObject_Vectorcall(args[5], call, 2, NULL);
                    Py_DECREF(first);
                }
                Py_DECREF(run);
            }
            if (r == NULL) {
                err = -1;
                break;
            }
            Py_DECREF(r);
            item += end - done;
            done = end;
            continue;
        }
        while (end < taken.n && taken.recs[end].kind != EVENTLOG_PY)
            end++;
        if (seg != NULL)
            segfile_busy(args[0], 1);
        Py_BEGIN_ALLOW_THREADS /* a run the fast paths recorded: encoded here */
        while (done < end) {
            Py_ssize_t n = end - done < most ? end - done : most;
            if (self->ring != NULL)
                eventlog_resolve_hashes(self->ring, &taken, done, done + n);
            batch.recs = taken.recs + done;
            batch.n = (size_t)n;
            size_t len;
            self->enc.used = self->enc.done = 0;
            if (tpf_journal_encode(&batch, seg != NULL ? seg : &self->enc, &len) < 0) {
                err = ENOMEM;
                break;
            }
            int rc = seg == NULL ? write_all(fd, self->enc.buf, len)
                     : seg->used >= SEGFILE_SPILL
                         ? tpf_journal_seg_write(seg, fd, TPF_JOURNAL_SEG_BLOCKS) : 0;
            if (rc < 0) {
                err = errno;
                break;
            }
            done += n;
            written += len;
        }
        if (seg != NULL && err == 0 && done == taken.n &&
            tpf_journal_seg_write(seg, fd, TPF_JOURNAL_SEG_ALL) < 0)
            err = errno; /* (the cycle ends with this run: written in the same release) */
        if (err == 0 && done == taken.n)
            wait_for_wake(wake_fd, wait_ms); /* (the next cycle's wait, in the same release) */
        Py_END_ALLOW_THREADS
        if (seg != NULL)
            segfile_busy(args[0], 0);
    }
    if (seg != NULL && err == 0 && seg->used != seg->done) { /* (it ended with a Python run) */
        int rc;
        segfile_busy(args[0], 1);
        Py_BEGIN_ALLOW_THREADS
        rc = tpf_journal_seg_write(seg, fd, TPF_JOURNAL_SEG_ALL);
        if (rc == 0)
            wait_for_wake(wake_fd, wait_ms);
        Py_END_ALLOW_THREADS
        segfile_busy(args[0], 0);
        if (rc < 0)
            err = errno, done = 0; /* (what was appended this cycle is not written) */
    }
    self->writing = 0;
    PyMem_RawFree(names);
    PyMem_RawFree(names_block);
    if (err != 0 && self->ring != NULL) /* (every record's hash, for the gets to come) */
        eventlog_resolve_hashes(self->ring, &taken, done, taken.n);
    Py_ssize_t count = taken.n;
    evbuf_release_held(&taken);
    evbuf_empty(&taken); /* it becomes the spare */
    self->spare = taken;
    if (err != 0) {
        self->lost += count - done;
        if (err < 0)
            return NULL; /* what emitted raised */
        errno = err;
        return PyErr_SetFromErrno(err == ENOMEM ? PyExc_MemoryError : PyExc_OSError);
    }
    return Py_BuildValue("(nn)", count, (Py_ssize_t)written);
}
