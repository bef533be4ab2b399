/* mdpath.c - an MD's fields in and out of the context record (see mdpath.h)
 *
 * The rules are the queue manager's (tpfemu/qmgr/context.py and messages.py), here for
 * the everyday MD only; whatever else an MD asks for is left to the full path in Python:
 * - on MQPUT, a record field the application left at the MD's initial value stands for
 *   the default, and a changed one is stored padded to its width (MQCHARs with blanks,
 *   MQBYTEs with NULs); the put context comes from the connection (its base record);
 *   a record equal to the all-defaults record is not stored at all; a put with a
 *   ReplyToQ but a blank ReplyToQMgr gets the queue manager's name, or is declined
 *   when the ReplyToQ is a reply-to alias (a remote queue definition);
 * - on MQGET, every record field is written back (the defaults when there is no record),
 *   and Expiry becomes the time left, in tenths of a second rounded up, at least 1.
 * The put context comes from the MD as the PMO's context option says (SET_IDENTITY,
 * SET_ALL: each field's `source`). A C program's MQMD is read and written in place by
 * mdraw.c with the same functions (mdlayout.h); the times are mdtime.c's.
 */
#include "mdpath.h"
#include "mdlayout.h"

#include "tpf/journal.h"
#include "tpf/putrules.h"

#include <stddef.h>

#include <string.h>
#include <time.h>

/* (the layout's types and the helpers mdraw.c shares: mdlayout.h) */
md_layout_t md_layout;
const char *const md_desc_names[N_DESC] = {
    "Priority", "Persistence", "Expiry", "MsgType", "ReplyToQ", "MsgId", "CorrelId",
    "PutDate", "PutTime", "BackoutCount",
};

void md_put_i32(char *at, long v)
{
    uint32_t u = (uint32_t)(int32_t)v;
    for (int i = 0; i < 4; i++)
        at[i] = (char)(u >> (8 * i)); /* the record is little-endian ("<") */
}

static int32_t get_i32(const char *at)
{
    uint32_t u = 0;
    for (int i = 0; i < 4; i++)
        u |= (uint32_t)(uint8_t)at[i] << (8 * i);
    return (int32_t)u;
}

int md_as_i32(PyObject *v, long *out);

/* -- the layout, from context.py ---------------------------------------------------- */

static void records_clear(void);

static void layout_clear(void)
{
    for (int i = 0; i < L.nfields; i++) {
        Py_CLEAR(L.f[i].name);
        Py_CLEAR(L.f[i].initial);
        Py_CLEAR(L.f[i].dflt);
    }
    for (int i = 0; i < N_READ; i++)
        Py_CLEAR(L.initial[i]);
    Py_CLEAR(L.index);
    Py_CLEAR(L.get_template);
    records_clear(); /* (templates of the old layout) */
    L.nfields = 0;
    L.ready = 0;
}

/* index[name] |= bits, for the names a put reads. */
static int index_add(PyObject *name, long bits)
{
    PyObject *had = PyDict_GetItemWithError(L.index, name);
    if (had == NULL && PyErr_Occurred())
        return -1;
    PyObject *code = PyLong_FromLong(bits | (had != NULL ? PyLong_AsLong(had) : 0));
    if (code == NULL)
        return -1;
    int rc = PyDict_SetItem(L.index, name, code);
    Py_DECREF(code);
    return rc;
}

static int build_index(void)
{
    if ((L.index = PyDict_New()) == NULL)
        return -1;
    for (int i = 0; i < N_READ; i++)
        if (index_add(L.name[i], i + 1) < 0)
            return -1;
    for (int i = 0; i < L.nfields; i++)
        if (L.f[i].source != MD_FROM_NEVER && index_add(L.f[i].name, (long)(i + 1) << 8) < 0)
            return -1;
    return 0;
}

/* The offset of field `name` of kind `kind` and `width` bytes in the layout, or -1. */
static int32_t field_at(const char *name, int kind, int width)
{
    for (int i = 0; i < L.nfields; i++)
        if (L.f[i].kind == kind && (kind == K_INT || L.f[i].width == width) &&
            PyUnicode_CompareWithASCIIString(L.f[i].name, name) == 0)
            return L.f[i].offset;
    return -1;
}

/* Hand the journal's record maker the fields it copies from this layout's records. */
static void journal_layout(int version, Py_ssize_t size)
{
    tpf_journal_ctx_layout_t j = {(int32_t)size, version, field_at("MsgType", K_INT, 4),
                                  -1, -1, -1, -1, L.group_at};
    for (int i = 0; i < L.nfields; i++)
        if (L.f[i].kind == K_INT && PyUnicode_CompareWithASCIIString(L.f[i].name, "MsgType") == 0)
            j.default_msg_type = (int32_t)L.f[i].dflt_int;
    static const char *const texts[3] = {"Format", "ReplyToQ", "ReplyToQMgr"};
    static const int widths[3] = {8, 48, 48};
    int32_t *ats[3] = {&j.format_at, &j.reply_q_at, &j.reply_qmgr_at};
    for (int t = 0; t < 3; t++)
        for (int kind = K_INT + 1; kind <= K_NUL && *ats[t] < 0; kind++)
            *ats[t] = field_at(texts[t], kind, widths[t]);
    tpf_journal_set_ctx_layout(&j);
}

/* md_layout_set(version, size, fields, expiry_offset, default_record, md_initials)
 * fields: ((name, kind, width, offset, initial, default, app), ...) in record order;
 * md_initials: {name: the MD's initial value} for Priority ... CorrelId. */
PyObject *md_layout_set(PyObject *module, PyObject *args)
{
    (void)module;
    int version, expiry_at;
    Py_ssize_t size;
    PyObject *fields, *default_record, *initials;
    if (!PyArg_ParseTuple(args, "inO!iSO!", &version, &size, &PyTuple_Type, &fields,
                          &expiry_at, &default_record, &PyDict_Type, &initials))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    if (n > MAX_FIELDS || size < 1 || size > TPF_MQ_MAX_CTX ||
        PyBytes_GET_SIZE(default_record) != size || expiry_at < 1 || expiry_at + 4 > size) {
        PyErr_SetString(PyExc_ValueError, "md_layout_set: a layout that does not fit");
        return NULL;
    }
    layout_clear();
    for (int i = 0; i < N_DESC; i++) {
        if (L.name[i] == NULL && (L.name[i] = PyUnicode_InternFromString(md_desc_names[i])) == NULL)
            return NULL;
    }
    for (int i = 0; i < N_READ; i++) {
        PyObject *v = PyDict_GetItemWithError(initials, L.name[i]);
        if (v == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "md_layout_set: no initial value of %s",
                             md_desc_names[i]);
            layout_clear();
            return NULL;
        }
        Py_INCREF(v);
        L.initial[i] = v;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        rec_field_t *f = &L.f[i];
        PyObject *name, *initial, *dflt;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fields, i), "UiiiOOi", &name, &f->kind,
                              &f->width, &f->offset, &initial, &dflt, &f->source)) {
            layout_clear();
            return NULL;
        }
        int width = f->kind == K_INT ? 4 : f->width;
        if (f->kind < K_INT || f->kind > K_NUL || width < 1 || f->offset < 1 ||
            f->offset + width > size || f->source < MD_FROM_NEVER || f->source > MD_FROM_ALL) {
            PyErr_Format(PyExc_ValueError, "md_layout_set: field %zd does not fit", i);
            layout_clear();
            return NULL;
        }
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        f->name = name;
        Py_INCREF(initial);
        f->initial = initial;
        Py_INCREF(dflt);
        f->dflt = dflt;
        L.nfields = (int)i + 1;
        int ok = f->kind == K_INT ? md_as_i32(dflt, &f->dflt_int)
                                  : PyBytes_Check(dflt) && PyBytes_GET_SIZE(dflt) == f->width;
        if (ok <= 0) {
            if (ok == 0)
                PyErr_Format(PyExc_ValueError, "md_layout_set: field %zd's default is not "
                             "in stored form", i);
            layout_clear();
            return NULL;
        }
    }
    if (build_index() < 0) {
        layout_clear();
        return NULL;
    }
    if ((L.get_template = PyDict_New()) == NULL) {
        layout_clear();
        return NULL;
    }
    for (int i = 0; i < L.nfields; i++)
        if (PyDict_SetItem(L.get_template, L.f[i].name, L.f[i].dflt) < 0) {
            layout_clear();
            return NULL;
        }
    static const int outputs[] = {D_MSGID, D_CORRELID, D_PRIORITY, D_PERSISTENCE, D_BACKOUT,
                                  D_EXPIRY, D_PUTDATE, D_PUTTIME};
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++)
        if (PyDict_SetItem(L.get_template, L.name[outputs[i]], Py_None) < 0) {
            layout_clear();
            return NULL;
        }
    L.group_at = -1;
    L.rq_at = L.rqm_at = L.report_at = L.feedback_at = -1;
    for (int i = 0; i < L.nfields; i++) {
        if (L.f[i].kind == K_INT && PyUnicode_CompareWithASCIIString(L.f[i].name, "Report") == 0)
            L.report_at = L.f[i].offset;
        if (L.f[i].kind == K_INT &&
            PyUnicode_CompareWithASCIIString(L.f[i].name, "Feedback") == 0)
            L.feedback_at = L.f[i].offset;
        if (L.f[i].kind == K_BLANK && L.f[i].width == 48 &&
            PyUnicode_CompareWithASCIIString(L.f[i].name, "ReplyToQ") == 0)
            L.rq_at = L.f[i].offset;
        if (L.f[i].kind == K_NUL && L.f[i].width == TPF_MQ_ID_LEN &&
            PyUnicode_CompareWithASCIIString(L.f[i].name, "GroupId") == 0)
            L.group_at = L.f[i].offset;
        if (L.f[i].kind == K_BLANK && L.f[i].width == 48 &&
            PyUnicode_CompareWithASCIIString(L.f[i].name, "ReplyToQMgr") == 0)
            L.rqm_at = L.f[i].offset;
    }
    journal_layout(version, size);
    L.version = version;
    L.size = size;
    L.expiry_at = expiry_at;
    memcpy(L.default_record, PyBytes_AS_STRING(default_record), (size_t)size);
    md_raw_setup(); /* (from the layout and its default record, complete now) */
    L.ready = 1;
    Py_RETURN_NONE;
}

int md_check_ready(void)
{
    if (L.ready)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "tpfemu._fastpath: md_layout_set() was not called");
    return -1;
}

/* -- reading an MD ------------------------------------------------------------------- */

/* 1: an int in MQLONG's signed range, in *out; 0: anything else; -1: error. */
int md_as_i32(PyObject *v, long *out)
{
    if (!PyLong_Check(v))
        return 0;
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow || x < INT32_MIN || x > INT32_MAX)
        return 0;
    *out = x;
    return 1;
}

/* A MsgId/CorrelId: bytes of at most 24, NUL-padded (as pymqi packs them). */
static int read_id(PyObject *v, uint8_t *out)
{
    if (!PyBytes_Check(v) || PyBytes_GET_SIZE(v) > TPF_MQ_ID_LEN)
        return 0;
    Py_ssize_t n = PyBytes_GET_SIZE(v);
    memcpy(out, PyBytes_AS_STRING(v), (size_t)n);
    memset(out + n, 0, (size_t)(TPF_MQ_ID_LEN - n));
    return 1;
}

/* Python's bytes.strip() leaves nothing of the n bytes at p: each ASCII whitespace. */
int md_all_space(const char *p, Py_ssize_t n)
{
    static const char blanks[64] = "                                                                ";
    if (n <= (Py_ssize_t)sizeof blanks && memcmp(p, blanks, (size_t)n) == 0)
        return 1; /* (the everyday case: a blank-padded field) */
    for (Py_ssize_t i = 0; i < n; i++)
        if (!md_is_space(p[i]))
            return 0;
    return 1;
}

static int is_blank(PyObject *v)
{
    return md_all_space(PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v));
}

/* Every one of the n bytes at p is a blank. */
static int all_blank(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i] != ' ')
            return 0;
    return 1;
}

/* Store an application's value of record field f at `at`: 1 done, 0 not servable. */
static int put_value(char *at, const rec_field_t *f, PyObject *v)
{
    if (f->kind == K_INT) {
        long x;
        int r = md_as_i32(v, &x);
        if (r > 0)
            md_put_i32(at, x);
        return r;
    }
    if (!PyBytes_Check(v) || PyBytes_GET_SIZE(v) > f->width)
        return 0;
    Py_ssize_t n = PyBytes_GET_SIZE(v);
    memcpy(at, PyBytes_AS_STRING(v), (size_t)n);
    memset(at + n, f->kind == K_BLANK ? ' ' : '\0', (size_t)(f->width - n));
    return 1;
}

/* The MD's fields a put reads, in one pass over its dict (which holds only the
 * fields set on it): desc[] the descriptor fields (initial values where not set),
 * app[] the record fields the application gives (NULL where not set). Every value is
 * borrowed from the dict; 0 when one set is not an exact int or bytes (the full path
 * judges it, and nothing later can run Python code that changes the dict). */
static int put_fields(PyObject *fields, PyObject **desc, PyObject **app)
{
    for (int i = 0; i < N_READ; i++)
        desc[i] = L.initial[i];
    for (int i = 0; i < L.nfields; i++)
        app[i] = NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(fields, &pos, &key, &value)) {
        PyObject *code = PyDict_GetItemWithError(L.index, key);
        if (code == NULL) {
            if (PyErr_Occurred())
                return -1;
            continue; /* a field a put does not read */
        }
        if (!PyLong_CheckExact(value) && !PyBytes_CheckExact(value))
            return 0;
        long c = PyLong_AsLong(code);
        if ((c & 0xff) != 0)
            desc[(c & 0xff) - 1] = value;
        if ((c >> 8) != 0)
            app[(c >> 8) - 1] = value;
    }
    return 1;
}

/* IBM's rule for a ReplyToQ with a blank ReplyToQMgr (tpfemu/qmgr/mqput.py,
 * _reply_to_qmgr): the queue manager's name `qmgr` (48 bytes) goes into the record's
 * ReplyToQMgr, unless the ReplyToQ names a remote queue definition (in the set
 * `aliases` of 48-byte names), which the full path resolves. 1 done, 0 declined. */
static int reply_to_qmgr(char *record, PyObject *qmgr, PyObject *aliases)
{
    if (L.rq_at < 0 || L.rqm_at < 0)
        return 0;
    if (!all_blank(record + L.rqm_at, 48))
        return 1;
    if (!PyBytes_CheckExact(qmgr) || PyBytes_GET_SIZE(qmgr) != 48 || !PyAnySet_Check(aliases))
        return 0;
    if (PySet_GET_SIZE(aliases) > 0) {
        PyObject *name = PyBytes_FromStringAndSize(record + L.rq_at, 48);
        if (name == NULL)
            return -1;
        int found = PySet_Contains(aliases, name);
        Py_DECREF(name);
        if (found != 0)
            return found < 0 ? -1 : 0; /* a reply-to alias: the full path */
    }
    memcpy(record + L.rqm_at, PyBytes_AS_STRING(qmgr), 48);
    return 1;
}

/* The rules of MQPUT on what the reader found: 1 with *out complete, 0 declined. */
int md_put_finish(const md_in_t *in, const md_put_settings_t *s, int64_t now,
                      md_put_t *out)
{
    tpf_mq_put_desc_t put;
    int32_t report = L.report_at >= 0 ? get_i32(out->record + L.report_at) : 0;
    int32_t feedback = L.feedback_at >= 0 ? get_i32(out->record + L.feedback_at) : 0;
    if (tpf_mq_put_rules((int32_t)in->priority, (int32_t)in->persistence,
                         (int32_t)in->expiry, (int32_t)in->msg_type, report, feedback,
                         in->reply_blank, (int32_t)s->defprty, s->defpsist, now,
                         &put) != MQRC_NONE)
        return 0; /* a warning or a failure: the full path reports it */
    if (report & (MQRO_COA | MQRO_COD))
        return 0; /* its reports: the full path makes them (tpfemu/qmgr/reports.py) */
    if (put.persistent && s->logged && s->log_port == NULL)
        return 0; /* the recovery log records it: the full path */
    int r;
    if (!in->reply_blank && (r = reply_to_qmgr(out->record, s->reply_qmgr,
                                                s->reply_aliases)) <= 0)
        return r;
    md_put_i32(out->record + L.expiry_at, in->expiry);
    out->record_len =
        memcmp(out->record, L.default_record, (size_t)L.size) == 0 ? 0 : (uint32_t)L.size;
    out->md.priority = (uint8_t)put.priority;
    out->md.persistent = (uint8_t)put.persistent;
    out->md.expiry = put.expiry;
    out->md.put_time = in->put_time != 0 ? in->put_time : now;
    out->md.uow = 0;
    out->md.ctx_len = out->record_len;
    out->md.backout_count = 0;
    out->md.flags = 0;
    return 1;
}

/* The base record of the settings (the layout's size) into out->record: 1, or -1. */
int md_put_base(const md_put_settings_t *s, md_put_t *out)
{
    if (!PyBytes_Check(s->base_record) || PyBytes_GET_SIZE(s->base_record) != L.size) {
        PyErr_Format(PyExc_ValueError, "the base record must be %zd bytes", L.size);
        return -1;
    }
    memcpy(out->record, PyBytes_AS_STRING(s->base_record), (size_t)L.size);
    return 1;
}

int md_settings_read(PyObject *settings, md_put_settings_t *s)
{
    if (!PyTuple_Check(settings) || PyTuple_GET_SIZE(settings) != 9 ||
        !PyDict_Check(PyTuple_GET_ITEM(settings, 4)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(settings, 5))) {
        PyErr_SetString(PyExc_TypeError, "put_md(md, data, settings): settings (defprty, "
                                         "defpsist, logged, base_record, outputs, "
                                         "initial_names, reply_qmgr, reply_aliases, "
                                         "context)");
        return -1;
    }
    s->defprty = PyLong_AsLong(PyTuple_GET_ITEM(settings, 0));
    if (s->defprty == -1 && PyErr_Occurred())
        return -1;
    s->defpsist = PyObject_IsTrue(PyTuple_GET_ITEM(settings, 1));
    s->logged = PyObject_IsTrue(PyTuple_GET_ITEM(settings, 2));
    s->mode = (int)PyLong_AsLong(PyTuple_GET_ITEM(settings, 8));
    if (s->defpsist < 0 || s->logged < 0 || (s->mode == -1 && PyErr_Occurred()))
        return -1;
    if (s->mode < MD_CONTEXT_DEFAULT || s->mode > MD_CONTEXT_ALL) {
        PyErr_SetString(PyExc_ValueError, "put_md: context must be 0, 1 or 2");
        return -1;
    }
    s->base_record = PyTuple_GET_ITEM(settings, 3);
    s->outputs = PyTuple_GET_ITEM(settings, 4);
    s->initial_names = PyTuple_GET_ITEM(settings, 5);
    s->reply_qmgr = PyTuple_GET_ITEM(settings, 6);
    s->reply_aliases = PyTuple_GET_ITEM(settings, 7);
    s->log_port = NULL;
    return 0;
}

int md_put_read(PyObject *fields, const md_put_settings_t *s, int64_t now, md_put_t *out)
{
    if (md_check_ready() < 0)
        return -1;
    PyObject *desc[N_READ], *app[MAX_FIELDS];
    md_in_t in;
    int r;
    if ((r = put_fields(fields, desc, app)) <= 0)
        return r;
    if ((r = md_as_i32(desc[D_PRIORITY], &in.priority)) <= 0 ||
        (r = md_as_i32(desc[D_PERSISTENCE], &in.persistence)) <= 0 ||
        (r = md_as_i32(desc[D_EXPIRY], &in.expiry)) <= 0 ||
        (r = md_as_i32(desc[D_MSGTYPE], &in.msg_type)) <= 0)
        return r;
    PyObject *reply_to = desc[D_REPLYTOQ];
    in.reply_blank = !PyBytes_Check(reply_to) || is_blank(reply_to);
    in.put_time = 0;
    if (s->mode == MD_CONTEXT_ALL) {
        PyObject *date = desc[D_PUTDATE], *clock = desc[D_PUTTIME];
        if (!PyBytes_Check(date) || !PyBytes_Check(clock) ||
            !md_put_time_of(PyBytes_AS_STRING(date), PyBytes_GET_SIZE(date),
                         PyBytes_AS_STRING(clock), PyBytes_GET_SIZE(clock), &in.put_time))
            return 0;
    }
    if ((r = read_id(desc[D_MSGID], out->md.msg_id)) <= 0 ||
        (r = read_id(desc[D_CORRELID], out->md.correl_id)) <= 0)
        return r;
    if ((r = md_put_base(s, out)) <= 0)
        return r;
    for (int i = 0; i < L.nfields; i++) {
        const rec_field_t *f = &L.f[i];
        PyObject *v = app[i];
        if (v == NULL || v == f->initial || !md_from_md(f, s->mode))
            continue; /* not set, or set to the MD's initial value: the default */
        /* exact ints and bytes: the comparison runs no Python code */
        int same = PyObject_RichCompareBool(v, f->initial, Py_EQ);
        if (same < 0)
            return -1;
        if (same)
            continue;
        if ((r = put_value(out->record + f->offset, f, v)) <= 0)
            return r;
    }
    return md_put_finish(&in, s, now, out);
}

/* -- writing an MD ------------------------------------------------------------------- */

/* PutDate and PutTime of a time (GMT), made once per hundredth of a second. */
static int date_time(int64_t us, PyObject **date, PyObject **clock)
{
    static int64_t tick = -1;
    static PyObject *cached_date, *cached_clock;
    int64_t t = us / 10000;
    if (t != tick) {
        char d[8], c[8];
        if (md_format_date_time(us, d, c) < 0)
            return -1;
        PyObject *nd = PyBytes_FromStringAndSize(d, 8);
        PyObject *nc = PyBytes_FromStringAndSize(c, 8);
        if (nd == NULL || nc == NULL) {
            Py_XDECREF(nd);
            Py_XDECREF(nc);
            return -1;
        }
        Py_XSETREF(cached_date, nd);
        Py_XSETREF(cached_clock, nc);
        tick = t;
    }
    *date = cached_date;
    *clock = cached_clock;
    return 0;
}

/* fields[name] = value, stealing the reference to value (NULL: an error already set). */
static int set_new(PyObject *fields, PyObject *name, PyObject *value)
{
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItem(fields, name, value);
    Py_DECREF(value);
    return rc;
}

static int set_date_time(PyObject *fields, int64_t us)
{
    PyObject *date, *clock;
    if (date_time(us, &date, &clock) < 0 || PyDict_SetItem(fields, L.name[D_PUTDATE], date) < 0 ||
        PyDict_SetItem(fields, L.name[D_PUTTIME], clock) < 0)
        return -1;
    return 0;
}

/* The value of record field f in `record` (the layout's size), a new reference. */
static PyObject *record_value(const rec_field_t *f, const char *record)
{
    const char *at = record + f->offset;
    return f->kind == K_INT ? PyLong_FromLong(get_i32(at))
                            : PyBytes_FromStringAndSize(at, f->width);
}

/* MQPMO_SET_IDENTITY_CONTEXT's put context outputs: each put context field of the
 * record put, removed from the MD's dict where it is the MD's initial value. */
static int put_context_write(PyObject *fields, const md_put_t *p)
{
    const char *record = p->record_len != 0 ? p->record : L.default_record;
    for (int i = 0; i < L.nfields; i++) {
        const rec_field_t *f = &L.f[i];
        if (f->source != MD_FROM_IDENTITY && f->source != MD_FROM_ALL)
            continue;
        PyObject *v = record_value(f, record);
        if (v == NULL)
            return -1;
        int same = PyObject_RichCompareBool(v, f->initial, Py_EQ);
        int rc = same < 0 ? -1 : !same ? PyDict_SetItem(fields, f->name, v) : 0;
        if (same > 0) {
            int held = PyDict_Contains(fields, f->name);
            rc = held < 0 ? -1 : held ? PyDict_DelItem(fields, f->name) : 0;
        }
        Py_DECREF(v);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int md_put_write(PyObject *fields, const md_put_t *p, const md_put_settings_t *s, int64_t now)
{
    if (set_new(fields, L.name[D_MSGID],
                PyBytes_FromStringAndSize((const char *)p->md.msg_id, TPF_MQ_ID_LEN)) < 0)
        return -1;
    if (s->mode == MD_CONTEXT_ALL)
        return 0; /* the MD gave the context: only the MsgId is written */
    if (s->mode == MD_CONTEXT_IDENTITY) {
        if (put_context_write(fields, p) < 0)
            return -1;
        return set_date_time(fields, now);
    }
    if (PyDict_Update(fields, s->outputs) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(s->initial_names); i++) {
        PyObject *name = PyTuple_GET_ITEM(s->initial_names, i);
        int held = PyDict_Contains(fields, name); /* (rarely: a reused MD) */
        if (held < 0 || (held && PyDict_DelItem(fields, name) < 0))
            return -1;
    }
    return set_date_time(fields, now);
}

/* The MsgId or CorrelId (descriptor field `which`) an MQGET matches. */
static int read_get_id(PyObject *fields, int which, uint8_t *out)
{
    PyObject *v = PyDict_GetItemWithError(fields, L.name[which]);
    if (v == NULL && PyErr_Occurred())
        return -1;
    return read_id(v != NULL ? v : L.initial[which], out);
}

int md_get_read(PyObject *fields, uint32_t match, tpf_mq_getreq_t *req)
{
    if (md_check_ready() < 0)
        return -1;
    int r;
    req->match = match & (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID);
    memset(req->msg_id, 0, TPF_MQ_ID_LEN);
    memset(req->correl_id, 0, TPF_MQ_ID_LEN);
    if ((match & MQMO_MATCH_MSG_ID) && (r = read_get_id(fields, D_MSGID, req->msg_id)) <= 0)
        return r;
    if ((match & MQMO_MATCH_CORREL_ID) &&
        (r = read_get_id(fields, D_CORRELID, req->correl_id)) <= 0)
        return r;
    return 1;
}

/* Templates of the MD's new dict for the records got lately: messages on a queue mostly
 * share a few records (one application's requests, another's replies), so a record seen
 * before costs a memcmp instead of a dict write per field that is not the default. */
#define N_RECORDS 4

static struct {
    char record[TPF_MQ_MAX_CTX];
    PyObject *template; /**< NULL: a free entry */
} R[N_RECORDS];
static int r_next; /* the entry a new record replaces */

static void records_clear(void)
{
    for (int i = 0; i < N_RECORDS; i++)
        Py_CLEAR(R[i].template);
}

/* The template for `record` (the layout's size; NULL: a message without one), a new
 * reference; NULL with an exception. */
static PyObject *record_template(const char *record)
{
    if (record == NULL)
        return Py_NewRef(L.get_template);
    for (int i = 0; i < N_RECORDS; i++)
        if (R[i].template != NULL && memcmp(R[i].record, record, (size_t)L.size) == 0)
            return Py_NewRef(R[i].template);
    PyObject *t = PyDict_Copy(L.get_template);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < L.nfields; i++) {
        const rec_field_t *f = &L.f[i];
        const char *at = record + f->offset;
        PyObject *v;
        if (f->kind == K_INT) {
            int32_t x = get_i32(at);
            if (x == f->dflt_int)
                continue; /* the template's */
            v = PyLong_FromLong(x);
        } else {
            if (memcmp(at, PyBytes_AS_STRING(f->dflt), (size_t)f->width) == 0)
                continue;
            v = PyBytes_FromStringAndSize(at, f->width);
        }
        if (set_new(t, f->name, v) < 0) {
            Py_DECREF(t);
            return NULL;
        }
    }
    /* (a collection during the allocations above may have run a get that used the
     * cache: the entry is taken only now, and its old template released properly) */
    int i = r_next;
    r_next = (r_next + 1) % N_RECORDS;
    memcpy(R[i].record, record, (size_t)L.size);
    Py_XSETREF(R[i].template, Py_NewRef(t));
    return t;
}

/* 0 when a got message's record (md->ctx_len bytes at `record`) is one this layout
 * wrote, or none; -1 with ValueError. */
int md_check_record(const tpf_mq_msg_t *md, const char *record)
{
    if (md_check_ready() < 0)
        return -1;
    if (md->ctx_len != 0 &&
        ((Py_ssize_t)md->ctx_len != L.size || (uint8_t)record[0] != L.version)) {
        PyErr_Format(PyExc_ValueError,
                     "context record of %u bytes, version %d: not one this queue manager "
                     "wrote (%zd bytes, version %d)",
                     md->ctx_len, (int)(uint8_t)record[0], L.size, L.version);
        return -1;
    }
    return 0;
}

int md_get_write(PyObject *obj, const tpf_mq_msg_t *md, const char *record, int64_t now)
{
    if (md_check_record(md, record) < 0)
        return -1;
    /* The MD's new dict: every output field at the message's record values (a
     * template: the defaults, or the record's from the cache), the other fields set on
     * the MD, then the descriptor fields. */
    PyObject *template = record_template(md->ctx_len != 0 ? record : NULL);
    if (template == NULL)
        return -1;
    PyObject *fields = PyDict_Copy(template);
    Py_DECREF(template);
    if (fields == NULL)
        return -1;
    int rc = -1;
    PyObject *old = PyObject_GenericGetDict(obj, NULL);
    if (old == NULL)
        goto done;
    /* the other fields set on the MD: every key the template lacks (no override) */
    int merged = PyDict_Merge(fields, old, 0);
    Py_DECREF(old);
    if (merged < 0)
        goto done;
    long left = md_time_left(md->expiry, now);
    if (set_new(fields, L.name[D_MSGID],
                PyBytes_FromStringAndSize((const char *)md->msg_id, TPF_MQ_ID_LEN)) < 0 ||
        set_new(fields, L.name[D_CORRELID],
                PyBytes_FromStringAndSize((const char *)md->correl_id, TPF_MQ_ID_LEN)) < 0 ||
        set_new(fields, L.name[D_PRIORITY], PyLong_FromLong(md->priority)) < 0 ||
        set_new(fields, L.name[D_PERSISTENCE], PyLong_FromLong(md->persistent)) < 0 ||
        set_new(fields, L.name[D_BACKOUT], PyLong_FromLong(md->backout_count)) < 0 ||
        set_new(fields, L.name[D_EXPIRY], PyLong_FromLong(left)) < 0 ||
        set_date_time(fields, md->put_time) < 0)
        goto done;
    rc = PyObject_GenericSetDict(obj, fields, NULL);
done:
    Py_DECREF(fields);
    return rc;
}

