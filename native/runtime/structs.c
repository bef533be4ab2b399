/* structs.c - MQMD, MQGMO and MQPMO between a C program's structures and the Python
 * objects of tpfemu.mq.structs (see runtime.h)
 *
 * The layouts are cmqc.h's (offsetof below); st_setup() receives Python's field list of
 * each structure (name, offset, size, kind, first version) and refuses to start when a
 * field's offset or size differs (MQPMO: the version-1 fields; later ones hold
 * pointers, which are 8 bytes in C and 4 on the wire). The initial values are read from
 * the Python class, so IBM's defaults are written once, in tpfemu.mq.structs.
 *
 * To Python: a new structure whose instance dict holds the fields that differ from the
 * initial values (the others read the class's), as MQStruct keeps them. A character
 * field is read up to its first null (C's null-string defaults read as blanks).
 * From Python: every field of the C structure's version is rewritten: the initial
 * values, then the fields held in the instance dict.
 */
#include "runtime.h"
#include "tpf/mqmd_fields.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    const char *name;
    int offset, size;
    char kind;           /**< 'i' MQLONG, 'q' MQINT64, 'c' MQCHARn, 'b' MQBYTEn, 'B' code */
    int since;
    PyObject *pyname;
} field_t;

#define F(type, member, kind, since) \
    {#member, (int)offsetof(type, member), (int)sizeof(((type *)0)->member), kind, since, NULL}

#define F_ROW(type, member, kind, since) F(type, member, kind, since),
static field_t md_fields[] = {TPF_MQMD_FIELDS(F_ROW)};
static field_t gmo_fields[] = {
    F(MQGMO, StrucId, 'c', 1), F(MQGMO, Version, 'i', 1), F(MQGMO, Options, 'i', 1),
    F(MQGMO, WaitInterval, 'i', 1), F(MQGMO, Signal1, 'i', 1), F(MQGMO, Signal2, 'i', 1),
    F(MQGMO, ResolvedQName, 'c', 1), F(MQGMO, MatchOptions, 'i', 2),
    F(MQGMO, GroupStatus, 'B', 2), F(MQGMO, SegmentStatus, 'B', 2),
    F(MQGMO, Segmentation, 'B', 2), F(MQGMO, Reserved1, 'c', 2), F(MQGMO, MsgToken, 'b', 3),
    F(MQGMO, ReturnedLength, 'i', 3), F(MQGMO, Reserved2, 'i', 4),
    F(MQGMO, MsgHandle, 'q', 4),
};
static field_t pmo_fields[] = {
    F(MQPMO, StrucId, 'c', 1), F(MQPMO, Version, 'i', 1), F(MQPMO, Options, 'i', 1),
    F(MQPMO, Timeout, 'i', 1), F(MQPMO, Context, 'i', 1), F(MQPMO, KnownDestCount, 'i', 1),
    F(MQPMO, UnknownDestCount, 'i', 1), F(MQPMO, InvalidDestCount, 'i', 1),
    F(MQPMO, ResolvedQName, 'c', 1), F(MQPMO, ResolvedQMgrName, 'c', 1),
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define SLOTS 64 /* the pointer map: a power of two above every table's field count */

typedef struct {
    const char *sname;
    field_t *f;
    int n;
    int max_version;
    const void *c_default;         /**< the ..._DEFAULT initializer of cmqc.h */
    PyTypeObject *type;
    PyObject *index;               /**< {name: field index} */
    unsigned char dflt[sizeof(MQMD)]; /**< the initial values in C layout (blank-padded) */
    int vlen[5];                   /**< bytes of each version's fields */
    PyObject *slot_key[SLOTS];     /**< field names by address (the interned strings) */
    int slot_field[SLOTS];
} table_t;

static const MQMD md_default = {MQMD_DEFAULT};
static const MQGMO gmo_default = {MQGMO_DEFAULT};
static const MQPMO pmo_default = {MQPMO_DEFAULT};

static table_t T[ST_COUNT] = {
    {"MQMD", md_fields, N(md_fields), 2, &md_default, NULL, NULL, {0}, {0}, {0}, {0}},
    {"MQGMO", gmo_fields, N(gmo_fields), 4, &gmo_default, NULL, NULL, {0}, {0}, {0}, {0}},
    {"MQPMO", pmo_fields, N(pmo_fields), 3, &pmo_default, NULL, NULL, {0}, {0}, {0}, {0}},
};

static unsigned slot_of(PyObject *key)
{
    return (unsigned)(((uintptr_t)key >> 4) * 2654435761u) & (SLOTS - 1);
}

/* The field index of `key` (a field name) by its address, or -1 when it is not one of
 * the interned names (then the index dict decides). */
static int field_by_address(const table_t *t, PyObject *key)
{
    for (unsigned i = slot_of(key), n = 0; n < SLOTS; i = (i + 1) & (SLOTS - 1), n++) {
        if (t->slot_key[i] == key)
            return t->slot_field[i];
        if (t->slot_key[i] == NULL)
            return -1;
    }
    return -1;
}

static void put_value(const field_t *f, unsigned char *at, PyObject *v)
{
    switch (f->kind) {
    case 'i': {
        int32_t x = (int32_t)(uint32_t)PyLong_AsUnsignedLongMask(v);
        memcpy(at, &x, 4);
        break;
    }
    case 'q': {
        int64_t x = (int64_t)PyLong_AsLongLong(v);
        memcpy(at, &x, 8);
        break;
    }
    case 'B':
        *at = (unsigned char)PyLong_AsLong(v);
        break;
    default: {
        char *data;
        Py_ssize_t len;
        if (PyBytes_Check(v) && PyBytes_AsStringAndSize(v, &data, &len) == 0) {
            if (len > f->size)
                len = f->size;
            memcpy(at, data, (size_t)len);
            memset(at + len, f->kind == 'b' ? 0 : ' ', (size_t)(f->size - len));
        }
    }
    }
    if (PyErr_Occurred())
        PyErr_Clear(); /* (values in the dict were checked when set) */
}

/* One table from the Python class and its field list ((name, offset, size, since), ...). */
static int setup_one(table_t *t, PyObject *cls, PyObject *fields)
{
    if (!PyType_Check(cls) || !PyList_Check(fields)) {
        PyErr_SetString(PyExc_TypeError, "setup: a structure class and its field list");
        return -1;
    }
    Py_XSETREF(t->type, (PyTypeObject *)Py_NewRef(cls));
    Py_XSETREF(t->index, PyDict_New());
    if (t->index == NULL)
        return -1;
    memset(t->vlen, 0, sizeof t->vlen);
    for (int i = 0; i < t->n; i++) {
        field_t *f = &t->f[i];
        PyObject *row = i < PyList_GET_SIZE(fields) ? PyList_GET_ITEM(fields, i) : NULL;
        const char *name;
        int offset, size, since;
        if (row == NULL) {
            PyErr_Format(PyExc_TypeError, "%s has fewer fields in tpfemu.mq.structs than "
                         "in cmqc.h", t->sname);
            return -1;
        }
        if (!PyArg_ParseTuple(row, "siii", &name, &offset, &size, &since))
            return -1;
        if (strcmp(name, f->name) != 0 || offset != f->offset || size != f->size ||
            since != f->since) {
            PyErr_Format(PyExc_TypeError, "%s.%s: cmqc.h has it at offset %d, %d bytes, "
                         "version %d; tpfemu.mq.structs has %s at %d, %d bytes, version %d",
                         t->sname, f->name, f->offset, f->size, f->since, name, offset,
                         size, since);
            return -1;
        }
        if (f->pyname == NULL && (f->pyname = PyUnicode_InternFromString(f->name)) == NULL)
            return -1;
        PyObject *idx = PyLong_FromLong(i);
        if (idx == NULL || PyDict_SetItem(t->index, f->pyname, idx) < 0) {
            Py_XDECREF(idx);
            return -1;
        }
        Py_DECREF(idx);
        unsigned slot = slot_of(f->pyname);
        while (t->slot_key[slot] != NULL && t->slot_key[slot] != f->pyname)
            slot = (slot + 1) & (SLOTS - 1);
        t->slot_key[slot] = f->pyname; /* (interned, kept by the field for good) */
        t->slot_field[slot] = i;
        PyObject *initial = PyObject_GetAttr(cls, f->pyname);
        if (initial == NULL)
            return -1;
        put_value(f, t->dflt + f->offset, initial);
        Py_DECREF(initial);
        if (f->kind != 'c' && f->kind != 'b' &&
            memcmp(t->dflt + f->offset, (const char *)t->c_default + f->offset,
                   (size_t)f->size) != 0) {
            /* (the raw plan entries read numbers as they lie: see mqi.c's raw_get) */
            PyErr_Format(PyExc_TypeError, "%s.%s: cmqc.h's default differs from the "
                         "initial value in tpfemu.mq.structs", t->sname, f->name);
            return -1;
        }
        for (int v = f->since; v <= t->max_version; v++)
            if (t->vlen[v] < f->offset + f->size)
                t->vlen[v] = f->offset + f->size;
    }
    return 0;
}

int st_setup(PyObject *classes, PyObject *fields)
{
    if (!PyTuple_Check(classes) || !PyTuple_Check(fields) ||
        PyTuple_GET_SIZE(classes) != ST_COUNT || PyTuple_GET_SIZE(fields) != ST_COUNT) {
        PyErr_SetString(PyExc_TypeError, "setup: (MD, GMO, PMO) and their field lists");
        return -1;
    }
    for (int i = 0; i < ST_COUNT; i++)
        if (setup_one(&T[i], PyTuple_GET_ITEM(classes, i), PyTuple_GET_ITEM(fields, i)) < 0)
            return -1;
    return 0;
}

int st_version(int which, const void *c)
{
    const table_t *t = &T[which];
    int32_t version;
    if (memcmp(c, t->dflt, 4) != 0)
        return 0;
    memcpy(&version, (const char *)c + 4, 4);
    return version >= 1 && version <= t->max_version ? version : 0;
}

PyObject *rt_chars(const char *field, size_t width)
{
    const char *end = memchr(field, 0, width);
    return PyBytes_FromStringAndSize(field, end ? end - field : (Py_ssize_t)width);
}

void rt_put_chars(char *field, size_t width, PyObject *value)
{
    const char *data = NULL;
    Py_ssize_t len = 0;
    if (PyBytes_Check(value)) {
        data = PyBytes_AS_STRING(value);
        len = PyBytes_GET_SIZE(value);
    } else if (PyUnicode_Check(value)) {
        data = PyUnicode_AsUTF8AndSize(value, &len);
        if (data == NULL) {
            PyErr_Clear();
            len = 0;
        }
    }
    if ((size_t)len > width)
        len = (Py_ssize_t)width;
    if (len > 0)
        memcpy(field, data, (size_t)len);
    memset(field + len, ' ', width - (size_t)len);
}

/* Whether the C field at `at` reads as the initial value (a character field up to its
 * first null, blank-padded). */
static int is_initial(const field_t *f, const unsigned char *at, const unsigned char *dflt)
{
    if (f->kind != 'c')
        return memcmp(at, dflt, (size_t)f->size) == 0;
    const unsigned char *end = memchr(at, 0, (size_t)f->size);
    size_t len = end ? (size_t)(end - at) : (size_t)f->size;
    if (memcmp(at, dflt, len) != 0)
        return 0;
    for (size_t i = len; i < (size_t)f->size; i++)
        if (dflt[i] != ' ')
            return 0;
    return 1;
}

static PyObject *value_of(const field_t *f, const unsigned char *at)
{
    switch (f->kind) {
    case 'i': {
        int32_t x;
        memcpy(&x, at, 4);
        return PyLong_FromLong(x);
    }
    case 'q': {
        int64_t x;
        memcpy(&x, at, 8);
        return PyLong_FromLongLong(x);
    }
    case 'B':
        return PyLong_FromLong(*at);
    case 'c':
        return rt_chars((const char *)at, (size_t)f->size);
    default:
        return PyBytes_FromStringAndSize((const char *)at, f->size);
    }
}

PyObject *st_to_py(int which, const void *c, int version)
{
    const table_t *t = &T[which];
    const unsigned char *base = c;
    PyObject *obj = PyObject_CallNoArgs((PyObject *)t->type);
    if (obj == NULL)
        return NULL;
    const unsigned char *c_default = t->c_default;
    if (memcmp(base, c_default, (size_t)t->vlen[version]) == 0)
        return obj; /* the ..._DEFAULT structure: nothing to set */
    PyObject *dict = PyObject_GenericGetDict(obj, NULL);
    if (dict == NULL) {
        Py_DECREF(obj);
        return NULL;
    }
    for (int i = 0; i < t->n; i++) {
        const field_t *f = &t->f[i];
        if (f->since > version ||
            memcmp(base + f->offset, c_default + f->offset, (size_t)f->size) == 0 ||
            is_initial(f, base + f->offset, t->dflt + f->offset))
            continue;
        PyObject *v = value_of(f, base + f->offset);
        if (v == NULL || PyDict_SetItem(dict, f->pyname, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(dict);
            Py_DECREF(obj);
            return NULL;
        }
        Py_DECREF(v);
    }
    Py_DECREF(dict);
    return obj;
}

int st_from_py(int which, PyObject *obj, void *c, int version)
{
    const table_t *t = &T[which];
    unsigned char *base = c;
    PyObject *dict = PyObject_GenericGetDict(obj, NULL);
    if (dict == NULL)
        return -1;
    memcpy(base, t->dflt, (size_t)t->vlen[version]);
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        int at = field_by_address(t, key);
        if (at < 0) {
            PyObject *idx = PyDict_GetItemWithError(t->index, key);
            if (idx == NULL) {
                if (PyErr_Occurred()) {
                    Py_DECREF(dict);
                    return -1;
                }
                continue;
            }
            at = (int)PyLong_AsLong(idx);
        }
        const field_t *f = &t->f[at];
        if (f->since <= version)
            put_value(f, base + f->offset, value);
    }
    Py_DECREF(dict);
    return 0;
}

size_t st_length(int which, int version)
{
    return (size_t)T[which].vlen[version];
}

void st_normalize(int which, void *c, int version)
{
    /* The last structure of each kind normalized, before and after (a program's calls
     * mostly pass alike ones); every caller holds the GIL. */
    static unsigned char last_in[ST_COUNT][sizeof(MQMD)], last_out[ST_COUNT][sizeof(MQMD)];
    static size_t last_len[ST_COUNT];
    const table_t *t = &T[which];
    unsigned char *base = c;
    const unsigned char *c_default = t->c_default;
    size_t len = (size_t)t->vlen[version];
    if (memcmp(base, c_default, len) == 0) {
        memcpy(base, t->dflt, len); /* (st_to_py makes it a bare one) */
        return;
    }
    if (last_len[which] == len && memcmp(base, last_in[which], len) == 0) {
        memcpy(base, last_out[which], len);
        return;
    }
    if (len <= sizeof last_in[which])
        memcpy(last_in[which], base, len);
    for (int i = 0; i < t->n; i++) {
        const field_t *f = &t->f[i];
        unsigned char *at = base + f->offset;
        if (f->since > version)
            continue;
        if (memcmp(at, c_default + f->offset, (size_t)f->size) == 0 ||
            is_initial(f, at, t->dflt + f->offset)) {
            memcpy(at, t->dflt + f->offset, (size_t)f->size);
        } else if (f->kind == 'c') { /* read up to its first null, written blank-padded */
            unsigned char *end = memchr(at, 0, (size_t)f->size);
            if (end != NULL)
                memset(end, ' ', (size_t)(at + f->size - end));
        }
    }
    if (len <= sizeof last_out[which]) {
        memcpy(last_out[which], base, len);
        last_len[which] = len;
    }
}
