/* writebehind.c - streaming writes that do not fill the page cache (see writebehind.h) */
#define _GNU_SOURCE
#include "writebehind.h"

#include <fcntl.h>
#include <unistd.h>

PyObject *write_behind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "write_behind(fd, from, to, drop_from, drop_to) takes 5 arguments");
        return NULL;
    }
    int fd = PyObject_AsFileDescriptor(args[0]);
    if (fd < 0)
        return NULL;
    long long at[4];
    for (int i = 0; i < 4; i++) {
        at[i] = PyLong_AsLongLong(args[i + 1]);
        if (at[i] == -1 && PyErr_Occurred())
            return NULL;
        if (at[i] < 0) {
            PyErr_Format(PyExc_ValueError, "write_behind: offsets are not negative: %lld",
                         at[i]);
            return NULL;
        }
    }
    if (at[1] < at[0] || at[3] < at[2]) {
        PyErr_Format(PyExc_ValueError, "write_behind: a range ends before it starts: "
                     "[%lld, %lld), [%lld, %lld)", at[0], at[1], at[2], at[3]);
        return NULL;
    }
#ifdef __linux__
    /* The kernel drops whole pages only: the range to drop is widened to the pages it
     * touches. The page it starts in was written back with the range before; the page it
     * ends in, if it holds newer bytes, is dirty, and a dirty page is never dropped. */
    long long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        page = 4096;
    long long drop_from = at[2] / page * page, drop_to = (at[3] + page - 1) / page * page;
    Py_BEGIN_ALLOW_THREADS
    if (at[1] > at[0]) /* (errors ignored: advice, see the header) */
        (void)sync_file_range(fd, (off_t)at[0], (off_t)(at[1] - at[0]),
                              SYNC_FILE_RANGE_WRITE);
    if (at[3] > at[2] &&
        sync_file_range(fd, (off_t)at[2], (off_t)(at[3] - at[2]),
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                            SYNC_FILE_RANGE_WAIT_AFTER) == 0)
        (void)posix_fadvise(fd, (off_t)drop_from, (off_t)(drop_to - drop_from),
                            POSIX_FADV_DONTNEED);
    Py_END_ALLOW_THREADS
#endif
    Py_RETURN_NONE;
}
