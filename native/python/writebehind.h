/* writebehind.h - streaming writes that do not fill the page cache, for the journal
 *
 * A journal segment is written once, appended to for minutes, and read later if at all.
 * Left to the kernel, every byte written stays in the page cache until memory runs
 * short, so a busy journal keeps taking fresh pages, and filling a fresh page is the
 * dear part of write(2): about 2.4 ns a byte on this project's VMs (the hypervisor backs
 * the page on first touch), against 0.3 ns when the kernel reuses pages it freed a
 * moment before (measured with 2 MiB appends; see docs/journal.md, "Cost").
 *
 * write_behind(fd, from, to, drop_from, drop_to) does what streaming writers (database
 * logs, backup tools) do on Linux: it starts writing [from, to) back to disk now
 * (sync_file_range SYNC_FILE_RANGE_WRITE, which does not wait), then waits until the
 * earlier range [drop_from, drop_to), whose write-back an earlier call started, is on
 * disk and drops it from the page cache (POSIX_FADV_DONTNEED). The pages freed are the
 * ones the next writes get. It is advice: a file system that cannot do it (tmpfs, or not
 * Linux) is left as it is, and an error is ignored (the journal does not sync, so it
 * promises nothing about the disk; docs/journal.md, "Durability").
 */
#ifndef TPFEMU_WRITEBEHIND_H
#define TPFEMU_WRITEBEHIND_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/** Module-level write_behind(fd, from, to, drop_from, drop_to) -> None, run without the
 * GIL; TypeError/ValueError for arguments that are not file offsets. */
PyObject *write_behind(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
