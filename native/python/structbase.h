/* structbase.h - StructBase for tpfemu._fastpath (structbase.c)
 */
#ifndef TPFEMU_STRUCTBASE_H
#define TPFEMU_STRUCTBASE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/** StructBase, the C base of tpfemu.mq.structs.MQStruct; its __init__(self, **fields)
 * is a tp_init, so making a structure runs no Python frame: a structure without nested
 * ones stores fields given as an exact int in MQLONG range or exact bytes within the
 * field's length as they are (what its checks would store); anything else goes to
 * self.set(**fields), which checks and reports, and a structure with nested ones to
 * self._py_init(**fields). What it reads of a type (_nested, _ints, _bytes) it keeps
 * while the type is unchanged. */
extern PyTypeObject md_struct_base_type;

#endif
