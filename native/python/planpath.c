/* planpath.c - a handle's put or get plan, carried out in C (see planpath.h)
 *
 * The plans' fields are read by position (PutPlan and GetPlan are named tuples); the
 * names below are checked against the plan types' _fields by plan_setup. A generation's
 * `current`, an event bus's `active` and `capture`, a queue's `waiters` and `expiring`,
 * and a GMO's or PMO's fields are read as attributes.
 */
#include "planpath.h"

#include "cmqc.h"
#include "eventlog.h"
#include "fastattr.h"
#include "logput.h"
#include "mdpath.h"
#include "tpf/queue.h"

enum { PUT_GEN, PUT_QUEUE, PUT_PRIORITY, PUT_LIMIT, PUT_PSIST, PUT_PUT, PUT_MD, PUT_SETTINGS,
       PUT_SET_IDENTITY, PUT_SET_ALL, PUT_CONTEXTS, PUT_EVENTS, PUT_RESOLVED, PUT_JOIN,
       PUT_JOINED, PUT_PLAN_LEN };
static const char *const put_fields[PUT_PLAN_LEN] = {
    "generation", "queue", "priority", "limit", "defpsist", "put", "put_md", "settings",
    "set_identity", "set_all", "contexts", "events", "resolved", "join", "joined"};
enum { GET_GEN, GET_QUEUE, GET_LOGGED, GET_BODY, GET_MD, GET_EVENTS, GET_JOIN, GET_JOINED,
       GET_COLLECT, GET_RESOLVED, GET_PLAN_LEN };
static const char *const get_fields[GET_PLAN_LEN] = {
    "generation", "queue", "logged", "get_body", "get_md", "events", "join", "joined",
    "collect", "resolved"};

#define MQMO_MATCH_BOTH (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID)
/* Every MQMO_* option cmqc.h defines: a GMO naming another is the full path's (2247). */
#define MQMO_DEFINED (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID | MQMO_MATCH_GROUP_ID \
                      | MQMO_MATCH_MSG_SEQ_NUMBER | MQMO_MATCH_OFFSET | MQMO_MATCH_MSG_TOKEN)
_Static_assert(MQPMO_SYNCPOINT == MQGMO_SYNCPOINT && MQPMO_NO_SYNCPOINT == MQGMO_NO_SYNCPOINT,
               "read_options and join read the PMO's and the GMO's syncpoint bits alike");

static struct {
    int ready;
    PyTypeObject *put_plan, *get_plan, *generation, *md, *gmo, *pmo; /* strong references */
    long get_options;                             /* MQGMO_* a planned get may have */
    long put_options;                             /* MQPMO_* a planned put may have */
    long expired_pending;                         /* get_md's flag: something expired */
    PyObject *s_active, *s_capture, *s_waiters, *s_expiring, *s_wake, *s_current, *s_options,
        *s_version, *s_match, *s_msg_id, *s_resolved_q, *s_resolved_qmgr;
    PyObject *zero_id; /* MQMI_NONE */
} P;

static int intern(PyObject **slot, const char *text)
{
    if (*slot == NULL)
        *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

/* 0 when `type` is a named tuple whose fields are `names`, in order; -1 with TypeError. */
static int check_fields(PyTypeObject *type, const char *const *names, Py_ssize_t n)
{
    if (!PyType_IsSubtype(type, &PyTuple_Type)) {
        PyErr_Format(PyExc_TypeError, "plan_setup: %s is not a tuple type", type->tp_name);
        return -1;
    }
    PyObject *fields = PyObject_GetAttrString((PyObject *)type, "_fields");
    if (fields == NULL)
        return -1;
    int ok = PyTuple_Check(fields) && PyTuple_GET_SIZE(fields) == n;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *f = PyTuple_GET_ITEM(fields, i);
        ok = PyUnicode_Check(f) && PyUnicode_CompareWithASCIIString(f, names[i]) == 0;
    }
    Py_DECREF(fields);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "plan_setup: the fields of %s are not the ones "
                     "native/python/planpath.c reads", type->tp_name);
        return -1;
    }
    return 0;
}

PyObject *plan_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyTypeObject *put_plan, *get_plan, *generation, *md, *gmo, *pmo;
    long get_options, put_options, expired_pending;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!lll", &PyType_Type, &put_plan, &PyType_Type,
                          &get_plan, &PyType_Type, &generation, &PyType_Type, &md,
                          &PyType_Type, &gmo, &PyType_Type, &pmo, &get_options, &put_options,
                          &expired_pending))
        return NULL;
    if (check_fields(put_plan, put_fields, PUT_PLAN_LEN) < 0 ||
        check_fields(get_plan, get_fields, GET_PLAN_LEN) < 0)
        return NULL;
    if (intern(&P.s_active, "active") < 0 || intern(&P.s_capture, "capture") < 0 ||
        intern(&P.s_waiters, "waiters") < 0 || intern(&P.s_expiring, "expiring") < 0 ||
        intern(&P.s_wake, "wake") < 0 || intern(&P.s_current, "current") < 0 ||
        intern(&P.s_options, "Options") < 0 || intern(&P.s_version, "Version") < 0 ||
        intern(&P.s_match, "MatchOptions") < 0 || intern(&P.s_msg_id, "MsgId") < 0 ||
        intern(&P.s_resolved_q, "ResolvedQName") < 0 ||
        intern(&P.s_resolved_qmgr, "ResolvedQMgrName") < 0)
        return NULL;
    if (P.zero_id == NULL &&
        (P.zero_id = PyBytes_FromStringAndSize(NULL, TPF_MQ_ID_LEN)) != NULL)
        memset(PyBytes_AS_STRING(P.zero_id), 0, TPF_MQ_ID_LEN);
    if (P.zero_id == NULL)
        return NULL;
    P.ready = 0;
    Py_XSETREF(P.put_plan, (PyTypeObject *)Py_NewRef(put_plan));
    Py_XSETREF(P.get_plan, (PyTypeObject *)Py_NewRef(get_plan));
    Py_XSETREF(P.generation, (PyTypeObject *)Py_NewRef(generation));
    Py_XSETREF(P.md, (PyTypeObject *)Py_NewRef(md));
    Py_XSETREF(P.gmo, (PyTypeObject *)Py_NewRef(gmo));
    Py_XSETREF(P.pmo, (PyTypeObject *)Py_NewRef(pmo));
    P.get_options = get_options;
    P.put_options = put_options;
    P.expired_pending = expired_pending;
    P.ready = 1;
    Py_RETURN_NONE;
}

/* How the attributes read at every call are read (fastattr.h): a generation's
 * `current`, an event bus's `active` and `capture`, a queue's `waiters` and `expiring`. */
static fa_way_t way_current, way_active, way_capture, way_waiters, way_expiring;

/* 1: the plan still holds (its generation current, which a commit scope opening anywhere
 * ends; nobody listening for events but the journal's EventLog, which is then in *log, a
 * new reference); 0: it does not; -1: error. */
static int plan_holds(PyObject *plan, int events_at, PyObject **log)
{
    *log = NULL;
    int current = fa_true(PyTuple_GET_ITEM(plan, 0), P.s_current, &way_current);
    if (current <= 0)
        return current;
    PyObject *events = PyTuple_GET_ITEM(plan, events_at);
    int active = fa_true(events, P.s_active, &way_active);
    if (active <= 0)
        return active < 0 ? -1 : 1;
    PyObject *capture = fa_get(events, P.s_capture, &way_capture);
    if (capture == NULL)
        return -1;
    if (!eventlog_check(capture)) { /* (None: a listener in Python) */
        Py_DECREF(capture);
        return 0;
    }
    *log = capture;
    return 1;
}

/* 1: a plan serves `options` (all among `served`, not both SYNCPOINT and NO_SYNCPOINT). */
static int options_served(long options, long served)
{
    /* (MQPMO_SYNCPOINT and MQGMO_SYNCPOINT have one value, as do the NO_ forms) */
    return !(options & ~served) && !(options & MQPMO_SYNCPOINT && options & MQPMO_NO_SYNCPOINT);
}

/* The options of `opts` (a PMO or GMO of type `type`, None: none): 1 with *options set,
 * 0 when the plan does not serve them (a value the full path must judge, an option a
 * plan does not serve, both SYNCPOINT and NO_SYNCPOINT, a GMO of version 3 or later,
 * whose ReturnedLength the full path fills), -1 on error. The GMO's match options too,
 * in *match (MQMO_MATCH_BOTH below version 2). */
static int read_options(PyObject *opts, PyTypeObject *type, long served, long *options,
                        long *match)
{
    *options = 0;
    *match = MQMO_MATCH_BOTH;
    if (opts == Py_None)
        return 1;
    if (Py_TYPE(opts) != type)
        return 0;
    long v[3] = {0, 1, MQMO_MATCH_BOTH};
    PyObject *names[3] = {P.s_options, P.s_version, P.s_match};
    int n = match != NULL && type == P.gmo ? 3 : 1;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyObject_GetAttr(opts, names[i]);
        if (x == NULL)
            return -1;
        int overflow = 0;
        int plain = PyLong_CheckExact(x);
        v[i] = plain ? PyLong_AsLongAndOverflow(x, &overflow) : 0;
        Py_DECREF(x);
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
        if (!plain || overflow)
            return 0; /* the full path says what is wrong */
    }
    if (!options_served(v[0], served) || (n == 3 && v[1] >= 3)
        || (n == 3 && v[1] >= 2 && (v[2] & ~(long)MQMO_DEFINED)))
        return 0;
    *options = v[0];
    if (n == 3 && v[1] >= 2)
        *match = v[2];
    return 1;
}

/* The unit of work a call with `options` joins by the plan's `join` (0: none, the call is
 * outside syncpoint): 1 with *uow set, 0 when the plan declines (MAXUMSGS reached), -1. */
static int join(PyObject *plan, int join_at, long options, unsigned long long *uow)
{
    *uow = 0;
    if (!(options & MQPMO_SYNCPOINT))
        return 1;
    PyObject *id = PyObject_CallNoArgs(PyTuple_GET_ITEM(plan, join_at));
    if (id == NULL)
        return -1;
    *uow = PyLong_AsUnsignedLongLong(id);
    Py_DECREF(id);
    if (*uow == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    return *uow != 0;
}

/* After a call in unit of work `uow`: the plan's `joined(queue)` counts it; outside one,
 * a getter waiting on the queue (after a put) is woken. 0, or -1 on error. */
static int after(PyObject *plan, int joined_at, unsigned long long uow, int wake)
{
    PyObject *queue = PyTuple_GET_ITEM(plan, 1), *r = NULL;
    if (uow != 0)
        r = PyObject_CallOneArg(PyTuple_GET_ITEM(plan, joined_at), queue);
    else if (wake) {
        int waiting = fa_true(queue, P.s_waiters, &way_waiters);
        if (waiting <= 0)
            return waiting;
        r = PyObject_CallMethodNoArgs(queue, P.s_wake);
    } else
        return 0;
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* The context a put with `options` takes from its MD (MD_CONTEXT_*), or -1 when the
 * plan does not serve it: more than one context option (2046), or SET_IDENTITY_CONTEXT
 * or SET_ALL_CONTEXT on a handle not opened for it (the plan's `contexts`, the options
 * its open options allow, made by the full path's check): the full path says which. */
static int put_context(PyObject *plan, long options)
{
    long ctx = options & (MQPMO_SET_ALL_CONTEXT | MQPMO_SET_IDENTITY_CONTEXT |
                          MQPMO_DEFAULT_CONTEXT);
    if (ctx & (ctx - 1))
        return -1;
    if (ctx == 0 || ctx == MQPMO_DEFAULT_CONTEXT)
        return MD_CONTEXT_DEFAULT;
    PyObject *contexts = PyTuple_GET_ITEM(plan, PUT_CONTEXTS);
    long allowed = PyLong_CheckExact(contexts) ? PyLong_AsLong(contexts) : 0;
    if (!(ctx & allowed))
        return -1;
    return ctx == MQPMO_SET_ALL_CONTEXT ? MD_CONTEXT_ALL : MD_CONTEXT_IDENTITY;
}

/* The plan's settings for context `mode` (borrowed). */
static PyObject *put_settings(PyObject *plan, int mode)
{
    static const int at[3] = {PUT_SETTINGS, PUT_SET_IDENTITY, PUT_SET_ALL};
    return PyTuple_GET_ITEM(plan, at[mode]);
}

/* Store the plan's (ResolvedQName, ResolvedQMgrName) in `pmo`, as the full path does. */
static int pmo_outputs(PyObject *pmo, PyObject *plan)
{
    PyObject *names = PyTuple_GET_ITEM(plan, PUT_RESOLVED);
    if (!PyTuple_CheckExact(names) || PyTuple_GET_SIZE(names) != 2) {
        PyErr_SetString(PyExc_TypeError, "planned_put: the plan's resolved names are not a "
                                         "pair");
        return -1;
    }
    if (PyObject_GenericSetAttr(pmo, P.s_resolved_q, PyTuple_GET_ITEM(names, 0)) < 0 ||
        PyObject_GenericSetAttr(pmo, P.s_resolved_qmgr, PyTuple_GET_ITEM(names, 1)) < 0)
        return -1;
    return 0;
}

/* Put the MQMD's MsgId `old` back (a declined or failed put with MQPMO_NEW_MSG_ID, which
 * cleared it), keeping any exception pending. */
static void restore_msg_id(PyObject *md, PyObject *old)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (PyObject_GenericSetAttr(md, P.s_msg_id, old) < 0)
        PyErr_Clear(); /* (an instance dict store: cannot fail but for memory) */
    PyErr_Restore(type, value, tb);
}

/* The put itself: 1 put (2: and it can expire), 0 declined, -1 error. With an MD and
 * MQPMO_NEW_MSG_ID, the MD's MsgId is cleared for the call (the core makes one) and put
 * back unless the message was put. */
static long put_call(PyObject *plan, PyObject *data, PyObject *md, long options, int mode,
                     unsigned long long uow, PyObject *log)
{
    PyObject *uow_obj = PyLong_FromUnsignedLongLong(uow);
    if (uow_obj == NULL)
        return -1;
    PyObject *done;
    if (md == Py_None) {
        PyObject *call[4] = {data, PyTuple_GET_ITEM(plan, PUT_PRIORITY), uow_obj, log};
        done = PyObject_Vectorcall(PyTuple_GET_ITEM(plan, PUT_PUT), call, log ? 4 : 3, NULL);
        Py_DECREF(uow_obj);
        if (done == NULL)
            return -1;
        Py_DECREF(done); /* (None) */
        return 1;
    }
    PyObject *old_id = NULL;
    if (options & MQPMO_NEW_MSG_ID) {
        if ((old_id = PyObject_GetAttr(md, P.s_msg_id)) == NULL ||
            PyObject_GenericSetAttr(md, P.s_msg_id, P.zero_id) < 0) {
            Py_XDECREF(old_id);
            Py_DECREF(uow_obj);
            return -1;
        }
    }
    PyObject *log_arg = log != NULL ? log : Py_None;
    PyObject *call[5] = {md, data, put_settings(plan, mode), log_arg, uow_obj};
    done = PyObject_Vectorcall(PyTuple_GET_ITEM(plan, PUT_MD), call, 5, NULL);
    Py_DECREF(uow_obj);
    long how = done != NULL ? PyLong_AsLong(done) : -1;
    Py_XDECREF(done);
    if (how == -1 && !PyErr_Occurred())
        how = 0; /* (not an answer put_md gives) */
    if (old_id != NULL) {
        if (how <= 0) /* declined or failed: the MD as it was */
            restore_msg_id(md, old_id);
        Py_DECREF(old_id);
    }
    return how;
}

/* Whether the put plan serves a put of `size` bytes (`has_md`: with an MD) now: 1 with
 * the unit of work it joins in *uow and the EventLog in *log (a new reference, or NULL),
 * 0 when it does not, -1 with an error. */
static int put_holds(PyObject *plan, Py_ssize_t size, int has_md, long options,
                     unsigned long long *uow, PyObject **log)
{
    *uow = 0;
    int holds = plan_holds(plan, PUT_EVENTS, log);
    if (holds > 0) {
        Py_ssize_t limit = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, PUT_LIMIT));
        if (limit == -1 && PyErr_Occurred())
            holds = -1;
        else if (size > limit)
            holds = 0; /* the full path says which limit */
        else if (!has_md && PyTuple_GET_ITEM(plan, PUT_PSIST) != Py_False)
            holds = 0; /* persistent by DEFPSIST: the full path logs it */
    }
    if (holds > 0)
        holds = join(plan, PUT_JOIN, options, uow);
    return holds;
}

PyObject *planned_put(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "planned_put(plan, data, md, pmo)");
        return NULL;
    }
    PyObject *plan = args[0], *data = args[1], *md = args[2], *pmo = args[3];
    if (!P.ready || Py_TYPE(plan) != P.put_plan || !PyBytes_CheckExact(data) ||
        (md != Py_None && Py_TYPE(md) != P.md))
        Py_RETURN_FALSE;
    long options, unused;
    int served = read_options(pmo, P.pmo, P.put_options, &options, &unused);
    if (served <= 0)
        return served < 0 ? NULL : Py_NewRef(Py_False);
    int mode = put_context(plan, options);
    if (mode < 0 || (mode != MD_CONTEXT_DEFAULT && md == Py_None))
        Py_RETURN_FALSE; /* (with no MD, a context option: the full path) */
    Py_INCREF(plan); /* the calls below may run code that drops the handle's plan */
    PyObject *result = NULL, *log;
    unsigned long long uow = 0;
    int holds = put_holds(plan, PyBytes_GET_SIZE(data), md != Py_None, options, &uow, &log);
    if (holds <= 0) {
        result = holds < 0 ? NULL : Py_NewRef(Py_False);
        goto out;
    }
    long how = put_call(plan, data, md, options, mode, uow, log);
    if (how <= 0) {
        result = how < 0 ? NULL : Py_NewRef(Py_False);
        goto out;
    }
    if (how == 2 && PyObject_SetAttr(PyTuple_GET_ITEM(plan, PUT_QUEUE), P.s_expiring,
                                     Py_True) < 0)
        goto out; /* gets then collect what expires */
    if (pmo != Py_None && pmo_outputs(pmo, plan) < 0)
        goto out;
    if (after(plan, PUT_JOINED, uow, 1) < 0)
        goto out;
    result = Py_NewRef(Py_True);
out:
    Py_XDECREF(log);
    Py_DECREF(plan);
    return result;
}

/* The get itself: the data, None (declined, nothing changed), or NULL with an error. */
static PyObject *get_call(PyObject *plan, PyObject *md, long match, unsigned long long uow,
                          PyObject *log)
{
    PyObject *uow_obj = PyLong_FromUnsignedLongLong(uow);
    if (uow_obj == NULL)
        return NULL;
    PyObject *logged = PyTuple_GET_ITEM(plan, GET_LOGGED), *log_arg = log ? log : Py_None;
    PyObject *got;
    if (md == Py_None) {
        PyObject *call[3] = {uow_obj, logged, log_arg};
        got = PyObject_Vectorcall(PyTuple_GET_ITEM(plan, GET_BODY), call, 3, NULL);
        Py_DECREF(uow_obj);
        return got;
    }
    PyObject *m = PyLong_FromLong(match);
    if (m == NULL) {
        Py_DECREF(uow_obj);
        return NULL;
    }
    PyObject *call[6] = {md, m, logged, Py_False, log_arg, uow_obj};
    got = PyObject_Vectorcall(PyTuple_GET_ITEM(plan, GET_MD), call, 6, NULL);
    Py_DECREF(m);
    Py_DECREF(uow_obj);
    if (got == NULL || got == Py_None || PyBytes_CheckExact(got))
        return got; /* the data; None: declined, nothing changed */
    /* (data, flags, expiry): flags to act on */
    PyObject *data = NULL;
    long flags = -1;
    if (PyTuple_CheckExact(got) && PyTuple_GET_SIZE(got) == 3)
        flags = PyLong_AsLong(PyTuple_GET_ITEM(got, 1));
    else
        PyErr_SetString(PyExc_TypeError, "planned_get: get_md returned no (data, flags, "
                                         "expiry)");
    if (!PyErr_Occurred() &&
        (!(flags & P.expired_pending) || /* gets then collect what expired */
         PyObject_SetAttr(PyTuple_GET_ITEM(plan, GET_QUEUE), P.s_expiring, Py_True) == 0))
        data = Py_NewRef(PyTuple_GET_ITEM(got, 0));
    Py_DECREF(got);
    return data;
}

/* After a get, whatever its outcome (an exception stays pending): on a queue where
 * messages can expire, the plan's collect(queue) reports what the get found expired.
 * 0, or -1 with a new error (the pending one is then dropped). */
static int collect(PyObject *plan)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *queue = PyTuple_GET_ITEM(plan, GET_QUEUE);
    int expiring = fa_true(queue, P.s_expiring, &way_expiring);
    PyObject *r = expiring > 0 ? PyObject_CallOneArg(PyTuple_GET_ITEM(plan, GET_COLLECT),
                                                     queue)
                               : NULL;
    Py_XDECREF(r);
    if (expiring < 0 || (expiring > 0 && r == NULL)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return -1;
    }
    PyErr_Restore(type, value, tb);
    return 0;
}

/* Whether the get plan serves a get now: as put_holds. */
static int get_holds(PyObject *plan, long options, unsigned long long *uow, PyObject **log)
{
    *uow = 0;
    int r = plan_holds(plan, GET_EVENTS, log);
    if (r > 0)
        r = join(plan, GET_JOIN, options, uow);
    return r;
}

PyObject *planned_get(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "planned_get(plan, max_length, md, gmo)");
        return NULL;
    }
    PyObject *plan = args[0], *md = args[2];
    if (!P.ready || Py_TYPE(plan) != P.get_plan || args[1] != Py_None ||
        (md != Py_None && Py_TYPE(md) != P.md))
        Py_RETURN_NONE;
    long options, match;
    int r = read_options(args[3], P.gmo, P.get_options, &options, &match);
    if (r <= 0)
        return r < 0 ? NULL : Py_NewRef(Py_None);
    Py_INCREF(plan); /* the calls below may run code that drops the handle's plan */
    PyObject *result = NULL, *log;
    unsigned long long uow = 0;
    r = get_holds(plan, options, &uow, &log);
    if (r <= 0) {
        result = r < 0 ? NULL : Py_NewRef(Py_None);
        goto out;
    }
    PyObject *got = get_call(plan, md, match, uow, log);
    if (got != NULL && got != Py_None &&
        (after(plan, GET_JOINED, uow, 0) < 0 ||
         (args[3] != Py_None && /* the GMO's ResolvedQName, as the full path fills it */
          PyObject_GenericSetAttr(args[3], P.s_resolved_q,
                                  PyTuple_GET_ITEM(plan, GET_RESOLVED)) < 0)))
        Py_CLEAR(got);
    if (collect(plan) < 0)
        Py_CLEAR(got);
    result = got;
out:
    Py_XDECREF(log);
    Py_DECREF(plan);
    return result;
}

/* -- the raw entries: a C program's MQMD, MQPMO and MQGMO (tpf/plan_raw.h) ------------ */

#include "fastqueue.h"

/* MQPUT by the put plan with a C program's structures: see tpf_plan_raw_t.put. */
static int planned_put_raw(PyObject *plan, const void *data, Py_ssize_t length, void *md,
                           int mdv, void *pmo, int pmov)
{
    if (!P.ready || Py_TYPE(plan) != P.put_plan || pmov < 1)
        return 0;
    MQPMO *opts = pmo;
    long options = opts->Options;
    int mode = options_served(options, P.put_options) ? put_context(plan, options) : -1;
    FastQueue *fq = fastqueue_of(PyTuple_GET_ITEM(plan, PUT_MD));
    if (mode < 0 || fq == NULL)
        return 0;
    Py_INCREF(plan); /* the calls below may run code that drops the handle's plan */
    PyObject *log;
    unsigned long long uow;
    md_put_settings_t s;
    int r = put_holds(plan, length, 1, options, &uow, &log);
    if (r > 0 && md_settings_read(put_settings(plan, mode), &s) < 0)
        r = -1;
    if (r > 0) /* a persistent message logged through the log port, as put_md's */
        s.log_port = logput_port(put_settings(plan, mode));
    MQMD *desc = md;
    MQBYTE24 old_id;
    if (r > 0 && options & MQPMO_NEW_MSG_ID) { /* the core makes one; back if not put */
        memcpy(old_id, desc->MsgId, sizeof old_id);
        memset(desc->MsgId, 0, sizeof desc->MsgId);
    }
    if (r > 0)
        r = fq_put_raw(fq, data, length, md, mdv, &s, log, uow);
    if (r <= 0 && options & MQPMO_NEW_MSG_ID)
        memcpy(desc->MsgId, old_id, sizeof old_id);
    if (r == 2 && PyObject_SetAttr(PyTuple_GET_ITEM(plan, PUT_QUEUE), P.s_expiring,
                                   Py_True) < 0)
        r = -1; /* gets then collect what expires */
    if (r > 0) {
        PyObject *names = PyTuple_GET_ITEM(plan, PUT_RESOLVED);
        for (int i = 0; i < 2; i++) {
            PyObject *name = PyTuple_GET_ITEM(names, i);
            char *to = i == 0 ? opts->ResolvedQName : opts->ResolvedQMgrName;
            Py_ssize_t n = PyBytes_GET_SIZE(name) < 48 ? PyBytes_GET_SIZE(name) : 48;
            memcpy(to, PyBytes_AS_STRING(name), (size_t)n);
            memset(to + n, ' ', (size_t)(48 - n));
        }
        r = after(plan, PUT_JOINED, uow, 1) < 0 ? -1 : 1;
    }
    Py_XDECREF(log);
    Py_DECREF(plan);
    return r;
}

/* A got message's GMO outputs, as the full path writes them: ResolvedQName (the plan's
 * queue) and, from version 3, ReturnedLength (the bytes put into the buffer). 0, or -1
 * with an error (a plan whose name is not 48 bytes). */
static int resolved_into(PyObject *plan, MQGMO *opts, int gmov, Py_ssize_t returned)
{
    PyObject *name = PyTuple_GET_ITEM(plan, GET_RESOLVED);
    if (!PyBytes_CheckExact(name) || PyBytes_GET_SIZE(name) != sizeof opts->ResolvedQName) {
        PyErr_SetString(PyExc_TypeError, "planned_get: the plan's resolved name is not 48 "
                                         "bytes");
        return -1;
    }
    memcpy(opts->ResolvedQName, PyBytes_AS_STRING(name), sizeof opts->ResolvedQName);
    if (gmov >= 3)
        opts->ReturnedLength = (MQLONG)returned;
    return 0;
}

/* MQGET by the get plan with a C program's structures: see tpf_plan_raw_t.get. */
static int planned_get_raw(PyObject *plan, void *md, int mdv, void *gmo, int gmov,
                           void *buffer, Py_ssize_t room, Py_ssize_t *length)
{
    if (!P.ready || Py_TYPE(plan) != P.get_plan || gmov < 1)
        return 0;
    MQGMO *opts = gmo;
    long options = opts->Options;
    long match = gmov >= 2 ? opts->MatchOptions : MQMO_MATCH_BOTH;
    FastQueue *fq = fastqueue_of(PyTuple_GET_ITEM(plan, GET_MD));
    if (!options_served(options, P.get_options) || fq == NULL || (match & ~(long)MQMO_DEFINED))
        return 0;
    Py_INCREF(plan); /* the calls below may run code that drops the handle's plan */
    PyObject *log;
    unsigned long long uow;
    long flags = 0;
    int r = get_holds(plan, options, &uow, &log);
    int not_persistent = r > 0 ? PyObject_IsTrue(PyTuple_GET_ITEM(plan, GET_LOGGED)) : 0;
    if (not_persistent < 0)
        r = -1;
    if (r > 0)
        r = fq_get_raw(fq, md, mdv, (uint32_t)match, not_persistent, log, uow, buffer, room,
                       length, &flags);
    if (r > 0 && flags & P.expired_pending &&
        PyObject_SetAttr(PyTuple_GET_ITEM(plan, GET_QUEUE), P.s_expiring, Py_True) < 0)
        r = -1; /* gets then collect what expired */
    if (r > 0 && after(plan, GET_JOINED, uow, 0) < 0)
        r = -1;
    if (r > 0 && resolved_into(plan, opts, gmov, *length < room ? *length : room) < 0)
        r = -1;
    if (r != 0 && collect(plan) < 0)
        r = -1;
    Py_XDECREF(log);
    Py_DECREF(plan);
    return r;
}

const tpf_plan_raw_t plan_raw = {planned_put_raw, planned_get_raw};

/* The version of a C structure in `b` (its Version MQLONG at offset 4), when `b` holds
 * that version whole (`sizes`: the length of versions 1, 2, ...); else 0. */
static int buffer_version(const Py_buffer *b, const Py_ssize_t *sizes, int versions)
{
    MQLONG v;
    if (b->len < 8)
        return 0;
    memcpy(&v, (const char *)b->buf + 4, sizeof v);
    return v >= 1 && v <= versions && b->len >= sizes[v - 1] ? (int)v : 0;
}

static const Py_ssize_t md_sizes[2] = {sizeof(MQMD1), sizeof(MQMD)};

/* planned_put_raw(plan, data, md, pmo): the raw entry from Python, for tests. */
PyObject *planned_put_raw_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    static const Py_ssize_t pmo_sizes[1] = {offsetof(MQPMO, RecsPresent)};
    Py_buffer md, pmo;
    if (nargs != 4 || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "planned_put_raw(plan, data: bytes, md, pmo): md "
                                         "and pmo writable buffers in C layout");
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &md, PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &pmo, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&md);
        return NULL;
    }
    int mdv = buffer_version(&md, md_sizes, 2), pmov = buffer_version(&pmo, pmo_sizes, 1);
    int r = -1;
    if (mdv == 0 || pmov == 0)
        PyErr_SetString(PyExc_ValueError, "planned_put_raw: an MQMD of version 1 or 2 and an "
                                          "MQPMO of version 1, whole");
    else
        r = planned_put_raw(args[0], PyBytes_AS_STRING(args[1]), PyBytes_GET_SIZE(args[1]),
                            md.buf, mdv, pmo.buf, pmov);
    PyBuffer_Release(&md);
    PyBuffer_Release(&pmo);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

/* planned_get_raw(plan, md, gmo, buffer): the raw entry from Python, for tests. */
PyObject *planned_get_raw_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    static const Py_ssize_t gmo_sizes[2] = {offsetof(MQGMO, MatchOptions),
                                            offsetof(MQGMO, GroupStatus)};
    Py_buffer b[3];
    int got = 0;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "planned_get_raw(plan, md, gmo, buffer)");
        return NULL;
    }
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[got + 1], &b[got], PyBUF_WRITABLE) < 0)
            break;
    int r = -1;
    Py_ssize_t length = 0;
    if (got == 3) {
        int mdv = buffer_version(&b[0], md_sizes, 2), gmov = buffer_version(&b[1], gmo_sizes, 2);
        if (mdv == 0 || gmov == 0)
            PyErr_SetString(PyExc_ValueError, "planned_get_raw: an MQMD and an MQGMO of "
                                              "version 1 or 2, whole");
        else
            r = planned_get_raw(args[0], b[0].buf, mdv, b[1].buf, gmov, b[2].buf, b[2].len,
                                &length);
    }
    while (got > 0)
        PyBuffer_Release(&b[--got]);
    if (r < 0)
        return NULL;
    return r == 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(length);
}
