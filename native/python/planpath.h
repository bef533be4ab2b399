/* planpath.h - a handle's put or get plan, carried out in C, for tpfemu._fastpath
 *
 * tpfemu/qmgr/plans.py defines the plans (PutPlan, GetPlan: named tuples) and says what
 * they serve. These functions carry a plan out without a Python frame: they check that
 * it still holds (its catalog generation current, nobody listening for events but the
 * journal's EventLog), read the call's options, and call
 * the queue's put_md/get_md, which hold the MQMD rules. A call in syncpoint joins the
 * unit of work the plan's `join` names, and is counted by its `joined`. Anything the
 * plan does not serve is declined, having changed nothing, and the caller takes the full
 * path. They hold no MQ rule but which options a plan serves.
 *
 * plan_setup() is given the plan types with their field names, which are checked here
 * against the positions this file reads, so the layout is written in plans.py alone.
 * All functions need the GIL.
 */
#ifndef TPFEMU_PLANPATH_H
#define TPFEMU_PLANPATH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/** plan_setup(put_plan_type, get_plan_type, generation_type, md_type, gmo_type, pmo_type,
 *  plan_get_options, plan_put_options, expired_pending): see planpath.c. */
PyObject *plan_setup(PyObject *module, PyObject *args);

/** planned_put(plan, data, md, pmo) -> bool: True once the message is put (and the MD
 * and the PMO, if given, written) by the put plan; False, having changed nothing, when
 * `plan` is None or does not serve this call. Raises as MQPUT does (QueueFull, ...),
 * the MD and PMO unchanged. */
PyObject *planned_put(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/** planned_get(plan, max_length, md, gmo) -> bytes | None: the message got (and the MD
 * written) by the get plan; None, having changed nothing, when `plan` is None or does
 * not serve this call. Raises as MQGET does (NoMessageAvailable, ...). */
PyObject *planned_get(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#include "tpf/plan_raw.h"

/** The raw entries (tpf/plan_raw.h), exported as a capsule by the module. */
extern const tpf_plan_raw_t plan_raw;

/** planned_put_raw(plan, data, md, pmo) -> bool and planned_get_raw(plan, md, gmo,
 * buffer) -> int | None: the raw entries called from Python with C-layout buffers (an
 * MQMD of 364 bytes is version 2, else 1; a GMO of 80 bytes or more version 2), for the
 * tests that hold them to the full path. */
PyObject *planned_put_raw_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *planned_get_raw_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
