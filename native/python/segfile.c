/* segfile.c - tpfemu._fastpath.SegmentFile: the end of the journal segment being written
 *
 * The journal's writer (tpfemu/journal/writer.py) appends every message of a segment
 * through one SegmentFile: the schema and the batches of events emitted in Python with
 * append(), the fast paths' record batches by EventLog.write_ipc, which encodes them
 * straight into its staging (tpf_journal_seg_t, tpf/journal.h); flush() at the end of
 * each write cycle writes what is staged. With a descriptor opened with O_DIRECT the
 * bytes go to the disk in whole blocks, not through the page cache.
 */
#include "eventlog.h"

#include <fcntl.h>
#include <stdlib.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    tpf_journal_seg_t seg;
    int fd;
    int busy; /**< a write runs with the GIL released */
} SegmentFile;

static int sf_busy(SegmentFile *self)
{
    if (!self->busy)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "SegmentFile: a write is running");
    return -1;
}

/* tpf_journal_seg_write with the GIL released; -1 with OSError. */
static int sf_write(SegmentFile *self, int all)
{
    int rc, fd = self->fd;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = tpf_journal_seg_write(&self->seg, fd, all);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (rc < 0)
        PyErr_SetFromErrno(PyExc_OSError);
    return rc;
}

static PyObject *sf_append(SegmentFile *self, PyObject *data)
{
    Py_buffer view;
    if (sf_busy(self) < 0 || PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    unsigned char *at = tpf_journal_seg_reserve(&self->seg, (size_t)view.len);
    if (at == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    memcpy(at, view.buf, (size_t)view.len);
    self->seg.used += (size_t)view.len;
    PyBuffer_Release(&view);
    if (self->seg.used >= SEGFILE_SPILL && sf_write(self, TPF_JOURNAL_SEG_BLOCKS) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *sf_flush(SegmentFile *self, PyObject *unused)
{
    (void)unused;
    if (sf_busy(self) < 0 ||
        ((self->seg.used != self->seg.done || self->seg.end > tpf_journal_seg_size(&self->seg)) &&
         sf_write(self, TPF_JOURNAL_SEG_CUT) < 0)) /* (else: nothing new, nothing to cut) */
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *sf_size(SegmentFile *self, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(tpf_journal_seg_size(&self->seg));
}

static PyObject *sf_direct(SegmentFile *self, void *closure)
{
    (void)closure;
    int flags = fcntl(self->fd, F_GETFL);
    if (flags < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    return PyBool_FromLong((flags & O_DIRECT) != 0);
}

static PyObject *sf_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    int fd;
    long long size = 0;
    static char *kwlist[] = {"fd", "size", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|L", kwlist, &fd, &size))
        return NULL;
    if (fd < 0 || size < 0) {
        PyErr_SetString(PyExc_ValueError, "SegmentFile(fd, size): both not negative");
        return NULL;
    }
    SegmentFile *self = (SegmentFile *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->fd = fd;
        self->seg.base = size;
    }
    return (PyObject *)self;
}

static void sf_dealloc(SegmentFile *self)
{
    free(self->seg.buf);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef sf_members[] = {
    {"fd", T_INT, offsetof(SegmentFile, fd), 0,
     "The file descriptor written to (the caller's: it opens and closes it)."},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef sf_getset[] = {
    {"size", (getter)sf_size, NULL, "The file's size once everything appended is written.",
     NULL},
    {"direct", (getter)sf_direct, NULL,
     "True while fd writes with O_DIRECT (whole blocks, no page cache).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef sf_methods[] = {
    {"append", (PyCFunction)sf_append, METH_O,
     "append(data)\n--\n\nAppend a bytes-like object's bytes (staged: written by flush(), or "
     "in whole blocks once many are staged)."},
    {"flush", (PyCFunction)sf_flush, METH_NOARGS,
     "flush()\n--\n\nWrite everything appended, the file cut to its true size (OSError when "
     "a write fails: it stays staged)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject segfile_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tpfemu._fastpath.SegmentFile",
    .tp_basicsize = sizeof(SegmentFile),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SegmentFile(fd, size=0): appends to the file open as fd, whose first `size`\n"
              "bytes are written, staged and written with pwrite at their offsets: with\n"
              "O_DIRECT on fd in whole blocks (the partial last one rewritten, padded, and\n"
              "the file cut to its size at each flush; EventLog.write_ipc leaves the\n"
              "padding), else as they are\n"
              "(native/include/tpf/journal.h, tpf_journal_seg_t).",
    .tp_new = sf_new,
    .tp_dealloc = (destructor)sf_dealloc,
    .tp_methods = sf_methods,
    .tp_members = sf_members,
    .tp_getset = sf_getset,
};

tpf_journal_seg_t *segfile_begin(PyObject *obj, int *fd)
{
    SegmentFile *self = (SegmentFile *)obj;
    if (sf_busy(self) < 0)
        return NULL;
    *fd = self->fd;
    return &self->seg;
}

void segfile_busy(PyObject *obj, int busy)
{
    ((SegmentFile *)obj)->busy = busy;
}

int segfile_ready(PyObject *module)
{
    if (PyType_Ready(&segfile_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "SegmentFile", (PyObject *)&segfile_type);
}
