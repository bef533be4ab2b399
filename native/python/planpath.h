/* planpath.h - an MQI handle's plan, carried out in C, for tpfemu._fastpath
 *
 * The queue manager (tpfemu/qmgr/messages.py) decides, on a call through its full path,
 * that later MQPUTs or MQGETs on a handle may go straight to the queue: it stores a
 * *plan* on the handle (a tuple; messages._put_plan and messages._get_plan say what is
 * in it). These functions carry a plan out for the everyday call (an MD; no MQGMO
 * options but matching, and the everyday MQPMO ones; nobody listening for events but
 * the journal; nothing expiring) without a Python frame; the journal's EventLog (the
 * event bus's `capture`) then records the call's event, in C.
 * Every decision stays in Python: they only check that the plan still holds (its
 * catalog generation is current, the handle open, no TPF commit scope open) and call
 * the queue's put_md/get_md. Anything else is declined, having changed nothing, and
 * the caller takes its Python path.
 *
 * plan_setup() is given the classes and the names of what is read (the layout of the
 * plans is fixed here and in messages.py together). All functions need the GIL.
 */
#ifndef TPFEMU_PLANPATH_H
#define TPFEMU_PLANPATH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/** plan_setup(handle_type, generation_type, md_type, gmo_type, pmo_type, open_scopes,
 *  fast_get_options, fast_put_options, expired_pending): see planpath.c. */
PyObject *plan_setup(PyObject *module, PyObject *args);

/** planned_put(handle, data, md, pmo) -> bool: True once the message is put (and the MD
 * and the PMO, if given, written) by the handle's plan; False, having changed nothing,
 * when the plan does not serve this call (a PMO serves when its Options are among the
 * fast put options). Raises as MQPUT does (QueueFull, ...), the MD and PMO unchanged. */
PyObject *planned_put(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/** planned_get(handle, max_length, md, gmo) -> bytes | None: the message got (and the MD
 * written) by the handle's plan; None, having changed nothing, when the plan does not
 * serve this call. Raises as MQGET does (NoMessageAvailable, ...). */
PyObject *planned_get(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
