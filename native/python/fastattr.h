/* fastattr.h - an attribute read at every planned MQPUT or MQGET, in a few instructions
 *
 * The plans' gate (planpath.c) and the C programs' MQI (native/runtime/mqi.c) read a few
 * attributes at every call: a generation's `current`, an event bus's `active`, a queue's
 * `waiters` and `expiring`, a handle's `put_plan` and `get_plan`. PyObject_GetAttr costs
 * some 170 instructions for each (the type's lookup, its descriptor checks, the instance
 * dict or the slot), a sixth of a C program's put+get pair. A fa_way_t remembers what an
 * object's type says of the name (a slot at an offset, or nothing that shadows the
 * instance dict), kept while the type's version tag holds (any change to the type or a
 * base clears it), and the value is read from the slot or the dict directly (the last
 * value read from a dict is kept while the dict is unchanged). Anything
 * else (a property, a type with its own getattr, a value missing) takes PyObject_GetAttr,
 * so the answer is always the one it gives. Call with the GIL held.
 */
#ifndef TPFEMU_FASTATTR_H
#define TPFEMU_FASTATTR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <structmember.h>

enum { FA_SLOW = 0, FA_SLOT = 1, FA_DICT = 2 };

typedef struct {
    PyTypeObject *type; /**< a strong reference; NULL: nothing learned yet */
    unsigned int tag;   /**< its version tag when learned */
    int how;            /**< FA_SLOW, FA_SLOT or FA_DICT */
    Py_ssize_t offset;  /**< FA_SLOT: the slot's offset in the object */
    /** FA_DICT: the last value read, from this dict (compared only) at this version.
     * A dict's version changes with every change to it and is never given to another
     * dict (CPython 3.11), so while both hold the value is the dict's, and alive. */
    PyObject *dict;
    uint64_t dict_version;
    PyObject *value;    /**< (borrowed from the dict) */
} fa_way_t;

/* What `type` says of attribute `name`, into *w. */
static inline void fa_learn(fa_way_t *w, PyTypeObject *type, PyObject *name)
{
    Py_XSETREF(w->type, (PyTypeObject *)Py_NewRef(type));
    w->how = FA_SLOW;
    w->dict = NULL;
    PyObject *descr = _PyType_Lookup(type, name); /* (gives the type a version tag) */
    w->tag = type->tp_version_tag;
    if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) ||
        type->tp_getattro != PyObject_GenericGetAttr)
        return;
    if (descr != NULL && Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if (m->type == T_OBJECT_EX && !(m->flags & READ_RESTRICTED)) {
            w->how = FA_SLOT;
            w->offset = m->offset;
        }
    } else if ((descr == NULL || Py_TYPE(descr)->tp_descr_set == NULL) &&
               (type->tp_dictoffset != 0 ||
                PyType_HasFeature(type, Py_TPFLAGS_MANAGED_DICT))) {
        w->how = FA_DICT; /* (a class value or a method is read only when the dict has none) */
    }
}

/* obj.<name> (a new reference), or NULL with the exception PyObject_GetAttr raises. */
static inline PyObject *fa_get(PyObject *obj, PyObject *name, fa_way_t *w)
{
    PyTypeObject *type = Py_TYPE(obj);
    if (type != w->type || type->tp_version_tag != w->tag ||
        !PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG))
        fa_learn(w, type, name);
    if (w->how == FA_SLOT) {
        PyObject *v = *(PyObject **)((char *)obj + w->offset);
        if (v != NULL)
            return Py_NewRef(v);
    } else if (w->how == FA_DICT) {
        PyObject **dict = _PyObject_GetDictPtr(obj);
        if (dict != NULL && *dict != NULL) {
#if PY_VERSION_HEX < 0x030C0000 /* (3.12 deprecates the version: a lookup each time) */
            uint64_t version = ((PyDictObject *)*dict)->ma_version_tag;
            if (*dict == w->dict && version == w->dict_version)
                return Py_NewRef(w->value);
#else
            uint64_t version = 0;
#endif
            PyObject *v = PyDict_GetItemWithError(*dict, name);
            if (v != NULL) {
                w->dict = *dict;
                w->dict_version = version;
                w->value = v;
                return Py_NewRef(v);
            }
            if (PyErr_Occurred())
                return NULL;
        }
    }
    return PyObject_GetAttr(obj, name);
}

/* 1: obj.<name> is true; 0: false; -1: error. */
static inline int fa_true(PyObject *obj, PyObject *name, fa_way_t *w)
{
    PyObject *v = fa_get(obj, name, w);
    if (v == NULL)
        return -1;
    int r = v == Py_True ? 1 : v == Py_False ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

#endif
