/* mdraw.c - a C program's MQMD (cmqc.h's layout) read and written in place, for the raw
 * plan entries (see mdpath.h: md_put_read_raw ... md_get_write_raw)
 *
 * The same rules as mdpath.c's for a Python MD, on the same layout (mdlayout.h): a field
 * is read as the MQMD would become an MD (native/runtime/structs.c: a field at cmqc.h's
 * default or the MD's initial value stands for it, a character field ends at its first
 * null), and what mdpath.c decides from it is decided by the same functions.
 */
#include "mdlayout.h"

#include "cmqc.h"
#include "tpf/mqmd_fields.h"

#include <stddef.h>
#include <string.h>

/* -- a C program's MQMD (cmqc.h), read and written in place -------------------------- */

typedef struct {
    const char *name;
    int at, size;
    char kind; /**< 'i', 'c' or 'b' (tpf/mqmd_fields.h) */
    int since;
} c_field_t;

#define C_FIELD(type, member, kind, since) \
    {#member, (int)offsetof(type, member), (int)sizeof(((type *)0)->member), kind, since},
static const c_field_t c_fields[] = {TPF_MQMD_FIELDS(C_FIELD)};
static const MQMD c_default = {MQMD_DEFAULT};

/* A field of the MQMD as the record layout and the MD's initial values see it. */
typedef struct {
    int at, size, since;
    char kind;
    char initial[48];       /**< the MD's initial value in C layout (padded as C keeps it) */
    Py_ssize_t initial_len; /**< its length before padding */
    long initial_int;       /**< (kind 'i') */
} raw_t;

/* Record fields copied into an MQMD as runs (see RW.all). */
typedef struct {
    struct {
        int rec_at, md_at, size, since;
    } run[MAX_FIELDS];
    int n;
} runs_t;

static struct {
    int ready;              /**< 0: the layouts do not match; the C entries decline */
    raw_t f[MAX_FIELDS];    /**< the record's fields */
    raw_t d[N_READ];        /**< the descriptor fields a put reads */
    /** An MQMD whose every field a put reads is at the MD's initial value (the others
     * at cmqc.h's defaults): one that equals it past StrucId and Version takes no record
     * field from the MD. */
    MQMD initial;
    /** An MQMD holding the record's default values: a got message without a record
     * starts from it (the descriptor fields are written after). */
    MQMD defaults;
    /** The record's fields as runs that lie in the same order in the record and the
     * MQMD, each of one version: a get copies a record into the MQMD a run at a time,
     * and a put its context fields (those a put with SET_ALL_CONTEXT takes from the
     * MD: MD_FROM_IDENTITY or MD_FROM_ALL). */
    runs_t all, context;
    /** MsgId and CorrelId read as they lie: their initial values and cmqc.h's
     * defaults are all nulls, as an id is padded (raw_id). */
    int ids_as_they_lie;
} RW;

/* The MQMD field `name` with the MD's initial value `initial`, into *r: 1, or 0 when
 * there is none of that kind (`kind`: the record's, -1 a descriptor's) or the initial
 * value does not fit it. */
static int raw_field(const char *name, int kind, PyObject *initial, raw_t *r)
{
    const c_field_t *c = NULL;
    for (size_t i = 0; i < sizeof c_fields / sizeof c_fields[0]; i++)
        if (strcmp(c_fields[i].name, name) == 0)
            c = &c_fields[i];
    if (c == NULL || c->size > (int)sizeof r->initial)
        return 0;
    static const char kinds[3] = {'i', 'c', 'b'}; /* K_INT, K_BLANK, K_NUL */
    if (kind >= 0 && kinds[kind] != c->kind)
        return 0;
    r->at = c->at;
    r->size = c->size;
    r->since = c->since;
    r->kind = c->kind;
    if (c->kind == 'i') {
        int ok = md_as_i32(initial, &r->initial_int);
        if (ok < 0)
            PyErr_Clear();
        if (ok <= 0)
            return 0;
        int32_t x = (int32_t)r->initial_int;
        memcpy(r->initial, &x, 4);
        return 1;
    }
    if (!PyBytes_Check(initial) || PyBytes_GET_SIZE(initial) > c->size)
        return 0;
    r->initial_len = PyBytes_GET_SIZE(initial);
    memcpy(r->initial, PyBytes_AS_STRING(initial), (size_t)r->initial_len);
    memset(r->initial + r->initial_len, c->kind == 'c' ? ' ' : '\0',
           (size_t)(c->size - r->initial_len));
    return 1;
}

/* The record's fields (`context`: those a put's context gives) as runs (RW.f matched). */
static void runs_build(runs_t *runs, int context)
{
    runs->n = 0;
    for (int i = 0; i < L.nfields; i++) {
        if (context && L.f[i].source != MD_FROM_IDENTITY && L.f[i].source != MD_FROM_ALL)
            continue;
        int n = runs->n;
        if (n > 0 && runs->run[n - 1].rec_at + runs->run[n - 1].size == L.f[i].offset &&
            runs->run[n - 1].md_at + runs->run[n - 1].size == RW.f[i].at &&
            runs->run[n - 1].since == RW.f[i].since) {
            runs->run[n - 1].size += RW.f[i].size; /* (an MQLONG: 4 bytes, little-endian,
                                                    * in both) */
            continue;
        }
        runs->run[n].rec_at = L.f[i].offset;
        runs->run[n].md_at = RW.f[i].at;
        runs->run[n].size = RW.f[i].size;
        runs->run[n].since = RW.f[i].since;
        runs->n++;
    }
}

/* Copy the runs' fields of `record` into an MQMD of `version` (those it has). */
static void runs_copy(const runs_t *runs, char *mqmd, int version, const char *record)
{
    for (int i = 0; i < runs->n; i++)
        if (runs->run[i].since <= version)
            memcpy(mqmd + runs->run[i].md_at, record + runs->run[i].rec_at,
                   (size_t)runs->run[i].size);
}

/* Match the record's fields and the descriptor's to the MQMD's (after a new layout). */
void md_raw_setup(void)
{
    RW.ready = 0;
    for (int i = 0; i < L.nfields; i++) {
        const rec_field_t *f = &L.f[i];
        const char *name = PyUnicode_AsUTF8(f->name);
        if (name == NULL || !raw_field(name, f->kind, f->initial, &RW.f[i]) ||
            (f->kind != K_INT && RW.f[i].size != f->width)) {
            PyErr_Clear();
            return;
        }
    }
    for (int i = 0; i < N_READ; i++)
        if (!raw_field(md_desc_names[i], -1, L.initial[i], &RW.d[i]))
            return;
    memcpy(&RW.initial, &c_default, sizeof RW.initial);
    memcpy(&RW.defaults, &c_default, sizeof RW.defaults);
    for (int i = 0; i < L.nfields; i++) {
        memcpy((char *)&RW.initial + RW.f[i].at, RW.f[i].initial, (size_t)RW.f[i].size);
        memcpy((char *)&RW.defaults + RW.f[i].at, L.default_record + L.f[i].offset,
               (size_t)RW.f[i].size);
    }
    for (int i = 0; i < N_READ; i++)
        memcpy((char *)&RW.initial + RW.d[i].at, RW.d[i].initial, (size_t)RW.d[i].size);
    runs_build(&RW.all, 0);
    runs_build(&RW.context, 1);
    static const char nulls[TPF_MQ_ID_LEN];
    RW.ids_as_they_lie = 1;
    for (int k = D_MSGID; k <= D_CORRELID; k++) {
        const raw_t *r = &RW.d[k];
        if (r->kind != 'b' || r->size != TPF_MQ_ID_LEN || r->since != 1 ||
            memcmp(r->initial, nulls, TPF_MQ_ID_LEN) != 0 ||
            memcmp((const char *)&c_default + r->at, nulls, TPF_MQ_ID_LEN) != 0)
            RW.ids_as_they_lie = 0;
    }
    RW.ready = 1;
}

/* Whether the field at `at` stands for the MD's initial value, as a C program's MQMD
 * becomes an MD (native/runtime/structs.c): cmqc.h's default, or the initial value (a
 * character field up to its first null, padded with blanks). */
static int raw_is_initial(const raw_t *r, const char *at)
{
    if (memcmp(at, r->initial, (size_t)r->size) == 0 ||
        memcmp(at, (const char *)&c_default + r->at, (size_t)r->size) == 0)
        return 1;
    if (r->kind != 'c')
        return 0;
    const char *end = memchr(at, 0, (size_t)r->size);
    size_t len = end ? (size_t)(end - at) : (size_t)r->size;
    if (memcmp(at, r->initial, len) != 0)
        return 0;
    for (size_t i = len; i < (size_t)r->size; i++)
        if (r->initial[i] != ' ')
            return 0;
    return 1;
}

/* 1: the field is set (not at its initial value) in an MQMD of `version`. */
static int raw_set(const raw_t *r, const char *md, int version)
{
    return r->since <= version && !raw_is_initial(r, md + r->at);
}

static long raw_int(const raw_t *r, const char *md, int version)
{
    if (!raw_set(r, md, version))
        return r->initial_int;
    int32_t x;
    memcpy(&x, md + r->at, 4);
    return x;
}

/* The field's bytes as the MD holds them (a character field up to its first null). */
static const char *raw_bytes(const raw_t *r, const char *md, int version, Py_ssize_t *n)
{
    if (!raw_set(r, md, version)) {
        *n = r->initial_len;
        return r->initial;
    }
    const char *at = md + r->at, *end = r->kind == 'c' ? memchr(at, 0, (size_t)r->size) : NULL;
    *n = end ? end - at : r->size;
    return at;
}

/* An id (MsgId, CorrelId) of the MQMD, padded with nulls to 24 bytes. */
static void raw_id(const raw_t *r, const char *md, int version, uint8_t *out)
{
    if (RW.ids_as_they_lie) { /* (at its initial value or cmqc.h's: nulls either way) */
        memcpy(out, md + r->at, TPF_MQ_ID_LEN);
        return;
    }
    Py_ssize_t n;
    const char *p = raw_bytes(r, md, version, &n);
    if (n > TPF_MQ_ID_LEN)
        n = TPF_MQ_ID_LEN;
    memcpy(out, p, (size_t)n);
    memset(out + n, 0, (size_t)(TPF_MQ_ID_LEN - n));
}

_Static_assert(TPF_MQ_ID_LEN == sizeof(((MQMD *)0)->MsgId), "an id is an MQBYTE24");

/* -- a C program's MQMD: MQPUT and MQGET ----------------------------------------------- */

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record's MQLONGs are little-endian, stored in the MQMD as they are"
#endif

int md_put_read_raw(const void *mqmd, int version, const md_put_settings_t *s, int64_t now,
                    md_put_t *out)
{
    if (md_check_ready() < 0)
        return -1;
    if (!RW.ready)
        return 0;
    const char *md = mqmd;
    md_in_t in;
    in.priority = raw_int(&RW.d[D_PRIORITY], md, version);
    in.persistence = raw_int(&RW.d[D_PERSISTENCE], md, version);
    in.expiry = raw_int(&RW.d[D_EXPIRY], md, version);
    in.msg_type = raw_int(&RW.d[D_MSGTYPE], md, version);
    Py_ssize_t n, cn;
    const char *p = raw_bytes(&RW.d[D_REPLYTOQ], md, version, &n);
    in.reply_blank = md_all_space(p, n);
    in.put_time = 0;
    if (s->mode == MD_CONTEXT_ALL) {
        const char *clock = raw_bytes(&RW.d[D_PUTTIME], md, version, &cn);
        p = raw_bytes(&RW.d[D_PUTDATE], md, version, &n);
        if (!md_put_time_of(p, n, clock, cn, &in.put_time))
            return 0;
    }
    raw_id(&RW.d[D_MSGID], md, version, out->md.msg_id);
    raw_id(&RW.d[D_CORRELID], md, version, out->md.correl_id);
    int r = md_put_base(s, out);
    if (r <= 0)
        return r;
    size_t len = version >= 2 ? sizeof(MQMD) : sizeof(MQMD1), skip = offsetof(MQMD, Report);
    int bare = memcmp(md + skip, (const char *)&RW.initial + skip, len - skip) == 0;
    for (int i = 0; !bare && i < L.nfields; i++) {
        const rec_field_t *f = &L.f[i];
        const raw_t *rf = &RW.f[i];
        if (!md_from_md(f, s->mode) || !raw_set(rf, md, version))
            continue; /* at the MD's initial value: the default */
        char *at = out->record + f->offset;
        if (f->kind == K_INT) {
            memcpy(at, md + rf->at, 4);
            continue;
        }
        p = raw_bytes(rf, md, version, &n);
        memcpy(at, p, (size_t)n);
        memset(at + n, f->kind == K_BLANK ? ' ' : '\0', (size_t)(f->width - n));
    }
    return md_put_finish(&in, s, now, out);
}

int md_put_write_raw(void *mqmd, int version, const md_put_t *p, const md_put_settings_t *s,
                     int64_t now)
{
    MQMD *md = mqmd;
    memcpy(md->MsgId, p->md.msg_id, TPF_MQ_ID_LEN);
    if (s->mode == MD_CONTEXT_ALL)
        return 0; /* the MD gave the context: only the MsgId is written */
    if (md_format_date_time(now, md->PutDate, md->PutTime) < 0)
        return -1;
    runs_copy(&RW.context, mqmd, version, p->record_len != 0 ? p->record : L.default_record);
    return 0;
}

int md_get_read_raw(const void *mqmd, int version, uint32_t match, tpf_mq_getreq_t *req)
{
    if (md_check_ready() < 0)
        return -1;
    if (!RW.ready)
        return 0;
    req->match = match & (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID);
    memset(req->msg_id, 0, TPF_MQ_ID_LEN);
    memset(req->correl_id, 0, TPF_MQ_ID_LEN);
    if (match & MQMO_MATCH_MSG_ID)
        raw_id(&RW.d[D_MSGID], mqmd, version, req->msg_id);
    if (match & MQMO_MATCH_CORREL_ID)
        raw_id(&RW.d[D_CORRELID], mqmd, version, req->correl_id);
    return 1;
}

int md_get_write_raw(void *mqmd, int version, const tpf_mq_msg_t *m, const char *record,
                     int64_t now)
{
    if (md_check_record(m, record) < 0)
        return -1;
    MQMD *md = mqmd;
    char date[8], clock[8];
    if (md_format_date_time(m->put_time, date, clock) < 0)
        return -1;
    if (m->ctx_len == 0) { /* (every field but StrucId and Version is written) */
        size_t len = version >= 2 ? sizeof(MQMD) : sizeof(MQMD1), skip = offsetof(MQMD, Report);
        memcpy((char *)mqmd + skip, (const char *)&RW.defaults + skip, len - skip);
    } else {
        runs_copy(&RW.all, mqmd, version, record);
    }
    memcpy(md->PutDate, date, sizeof date);
    memcpy(md->PutTime, clock, sizeof clock);
    memcpy(md->MsgId, m->msg_id, TPF_MQ_ID_LEN);
    memcpy(md->CorrelId, m->correl_id, TPF_MQ_ID_LEN);
    md->Priority = m->priority;
    md->Persistence = m->persistent;
    md->BackoutCount = (MQLONG)m->backout_count;
    md->Expiry = (MQLONG)md_time_left(m->expiry, now);
    return 0;
}
