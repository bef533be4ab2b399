/* structbase.c - StructBase, the C base of tpfemu.mq.structs.MQStruct (see structbase.h)
 */
#include "structbase.h"

static PyObject *s_nested, *s_ints, *s_bytes, *s_py_init, *s_set;

static int struct_names(void)
{
    if (s_set != NULL)
        return 0;
    if ((s_nested = PyUnicode_InternFromString("_nested")) == NULL ||
        (s_ints = PyUnicode_InternFromString("_ints")) == NULL ||
        (s_bytes = PyUnicode_InternFromString("_bytes")) == NULL ||
        (s_py_init = PyUnicode_InternFromString("_py_init")) == NULL ||
        (s_set = PyUnicode_InternFromString("set")) == NULL)
        return -1;
    return 0;
}

/* 1: `value` for field `name` is stored as given (what the Python check would store);
 * 0: the Python check must judge it; -1: error. `ints` and `lengths` are the type's
 * _ints (a frozenset) and _bytes (a dict). */
static int plain_value(PyObject *ints, PyObject *lengths, PyObject *name, PyObject *value)
{
    if (PyLong_CheckExact(value)) {
        int in = PySet_Contains(ints, name);
        if (in <= 0)
            return in;
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (x == -1 && PyErr_Occurred())
            return -1;
        return !overflow && x >= -0x80000000LL && x <= 0xFFFFFFFFLL;
    }
    if (PyBytes_CheckExact(value)) {
        PyObject *limit = PyDict_GetItemWithError(lengths, name);
        if (limit == NULL)
            return PyErr_Occurred() ? -1 : 0;
        Py_ssize_t most = PyLong_AsSsize_t(limit);
        if (most == -1 && PyErr_Occurred())
            return -1;
        return PyBytes_GET_SIZE(value) <= most;
    }
    return 0;
}

/* self.<method>(**kw): what it returns (None for __init__ and set), or NULL. */
static PyObject *call_with_keywords(PyObject *self, PyObject *method, PyObject *kw)
{
    PyObject *fn = PyObject_GetAttr(self, method);
    if (fn == NULL)
        return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *r = empty != NULL ? PyObject_Call(fn, empty, kw) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(fn);
    return r;
}

/* What struct_init reads of a structure's type, kept while the type is unchanged (its
 * version tag holds: setting any attribute of it or of a base clears the tag). */
typedef struct {
    PyTypeObject *type; /**< a strong reference; NULL: a free entry */
    unsigned int tag;
    int nested;        /**< the type has nested structures */
    PyObject *ints;    /**< its _ints (a set) */
    PyObject *lengths; /**< its _bytes (a dict) */
} struct_info_t;

static struct_info_t struct_infos[16]; /* the MQ structures: MD, GMO, PMO, OD, ... */

static void info_clear(struct_info_t *info)
{
    Py_CLEAR(info->type);
    Py_CLEAR(info->ints);
    Py_CLEAR(info->lengths);
}

/* The type's entry, read from the type now unless a current one is kept (borrowed; the
 * entry may be a scratch one, valid until the next call); NULL with an exception. */
static const struct_info_t *struct_info(PyTypeObject *type)
{
    static struct_info_t scratch;
    struct_info_t *slot = NULL;
    for (size_t i = 0; i < sizeof struct_infos / sizeof struct_infos[0]; i++) {
        struct_info_t *info = &struct_infos[i];
        if (info->type == type) {
            if (PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) &&
                type->tp_version_tag == info->tag)
                return info;
            slot = info; /* changed since: read again */
            break;
        }
        if (info->type == NULL && slot == NULL)
            slot = info;
    }
    if (slot == NULL)
        slot = &scratch; /* more types than entries: read each time */
    info_clear(slot);
    PyObject *nested = PyObject_GetAttr((PyObject *)type, s_nested);
    if (nested == NULL)
        return NULL;
    slot->nested = !PyTuple_Check(nested) || PyTuple_GET_SIZE(nested) != 0;
    Py_DECREF(nested);
    if (!slot->nested) {
        slot->ints = PyObject_GetAttr((PyObject *)type, s_ints);
        slot->lengths = slot->ints != NULL ? PyObject_GetAttr((PyObject *)type, s_bytes) : NULL;
        if (slot->lengths == NULL || !PyAnySet_Check(slot->ints) ||
            !PyDict_Check(slot->lengths)) {
            if (slot->lengths != NULL)
                PyErr_SetString(PyExc_TypeError,
                                "struct_init: _ints must be a set, _bytes a dict");
            info_clear(slot);
            return NULL;
        }
    }
    /* The lookups above gave the type a valid tag, unless it cannot have one. */
    if (slot != &scratch && PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
        Py_INCREF(type);
        slot->type = type;
        slot->tag = type->tp_version_tag;
    }
    return slot;
}

/* StructBase.__init__ (tp_init): see mdpath.h. */
static int struct_tp_init(PyObject *self, PyObject *args, PyObject *kw)
{
    if (struct_names() < 0)
        return -1;
    if (PyTuple_GET_SIZE(args) != 0) {
        PyErr_SetString(PyExc_TypeError, "an MQ structure takes its fields as keywords only "
                                         "(e.g. MD(Priority=5))");
        return -1;
    }
    const struct_info_t *info = struct_info(Py_TYPE(self));
    if (info == NULL)
        return -1;
    PyObject *r;
    if (info->nested) { /* fresh nested structures: the Python __init__ */
        r = call_with_keywords(self, s_py_init, kw);
        goto called;
    }
    if (kw == NULL || PyDict_GET_SIZE(kw) == 0)
        return 0;
    /* (plain_value runs no Python code: the entry stays as it is) */
    Py_ssize_t pos = 0;
    PyObject *name, *value;
    int plain = 1;
    while (plain > 0 && PyDict_Next(kw, &pos, &name, &value))
        plain = plain_value(info->ints, info->lengths, name, value);
    if (plain < 0)
        return -1;
    if (!plain) { /* set() checks every value and says what is wrong */
        r = call_with_keywords(self, s_set, kw);
        goto called;
    }
    if (Py_REFCNT(kw) == 1 && PyDict_CheckExact(kw)) {
        /* The keywords' dict is the call's own (made for this call, as every call from
         * Python makes one): it becomes the structure's dict, which is only fields. */
        PyObject *had = PyObject_GenericGetDict(self, NULL);
        if (had == NULL)
            return -1;
        Py_ssize_t n = PyDict_GET_SIZE(had);
        Py_DECREF(had);
        if (n == 0)
            return PyObject_GenericSetDict(self, kw, NULL);
    }
    PyObject *fields = PyObject_GenericGetDict(self, NULL);
    if (fields == NULL)
        return -1;
    int rc = PyDict_Update(fields, kw);
    Py_DECREF(fields);
    return rc;
called:
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

PyTypeObject md_struct_base_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tpfemu._fastpath.StructBase",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = PyDoc_STR("Base of the MQ structures: __init__(**fields) in C (mdpath.h)."),
    .tp_init = struct_tp_init,
    .tp_new = PyType_GenericNew,
};
