/* planpath.c - an MQI handle's plan, carried out in C (see planpath.h)
 *
 * The plans, as messages.py makes them:
 *   put: (generation, queue, DEFPRTY, length limit, DEFPSIST is YES, put_md settings,
 *         event bus, queue.core.put_md, put_md settings of a put with no MD,
 *         (ResolvedQName, ResolvedQMgrName) of the PMO)
 *   get: (generation, queue, persistent gets logged, event bus, queue.core.get_md)
 * A handle's plans and its `closed` and `cursor`, and a generation's `current`, are
 * __slots__ members: read at their offsets. The rest (an event bus's `active`, a
 * queue's `waiters` and `expiring`, a GMO's fields) are read as attributes.
 */
#include "planpath.h"

#include "eventlog.h"

#include <structmember.h>

enum { PUT_GEN, PUT_QUEUE, PUT_PRTY, PUT_LIMIT, PUT_PSIST, PUT_SETTINGS, PUT_EVENTS, PUT_MD,
       PUT_NO_MD_SETTINGS, PUT_RESOLVED, PUT_PLAN_LEN };
enum { GET_GEN, GET_QUEUE, GET_LOGGED, GET_EVENTS, GET_MD, GET_PLAN_LEN };

#define MQMO_MATCH_BOTH 3 /* MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID */
#define MQPMO_NEW_MSG_ID 0x40
#define MQ_ID_LEN 24

static struct {
    int ready;
    PyTypeObject *handle, *generation, *md, *gmo, *pmo; /* strong references */
    PyObject *open_scopes;                        /* ecb.resources.OPEN_SCOPES (a list) */
    Py_ssize_t put_plan, get_plan, closed, cursor, current; /* member offsets */
    long fast_get_options;                        /* MQGMO_* a planned get may have */
    long fast_put_options;                        /* MQPMO_* a planned put may have */
    long expired_pending;                         /* get_md's flag: tell the queue */
    PyObject *s_active, *s_capture, *s_waiters, *s_expiring, *s_wake, *s_core, *s_on_expired,
        *s_options, *s_version, *s_match, *s_msg_id, *s_resolved_q, *s_resolved_qmgr;
    PyObject *zero_id; /* MQMI_NONE */
} P;

/* The offset of __slots__ member `name` of `type`, or -1 with an exception. */
static Py_ssize_t member_offset(PyTypeObject *type, const char *name)
{
    PyObject *d = PyObject_GetAttrString((PyObject *)type, name);
    if (d == NULL)
        return -1;
    Py_ssize_t off = -1;
    if (PyObject_TypeCheck(d, &PyMemberDescr_Type) &&
        ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX)
        off = ((PyMemberDescrObject *)d)->d_member->offset;
    else
        PyErr_Format(PyExc_TypeError, "plan_setup: %s.%s is not a __slots__ member",
                     type->tp_name, name);
    Py_DECREF(d);
    return off;
}

/* The member at `off` (borrowed; NULL when unset). */
static inline PyObject *member(PyObject *obj, Py_ssize_t off)
{
    return *(PyObject **)((char *)obj + off);
}

static int intern(PyObject **slot, const char *text)
{
    if (*slot == NULL)
        *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

PyObject *plan_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyTypeObject *handle, *generation, *md, *gmo, *pmo;
    PyObject *open_scopes;
    long fast_get_options, fast_put_options, expired_pending;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!lll", &PyType_Type, &handle, &PyType_Type,
                          &generation, &PyType_Type, &md, &PyType_Type, &gmo, &PyType_Type,
                          &pmo, &PyList_Type, &open_scopes, &fast_get_options,
                          &fast_put_options, &expired_pending))
        return NULL;
    if (PyList_GET_SIZE(open_scopes) < 1) {
        PyErr_SetString(PyExc_ValueError, "plan_setup: OPEN_SCOPES must hold its counter");
        return NULL;
    }
    if (intern(&P.s_active, "active") < 0 || intern(&P.s_capture, "capture") < 0 ||
        intern(&P.s_waiters, "waiters") < 0 ||
        intern(&P.s_expiring, "expiring") < 0 || intern(&P.s_wake, "wake") < 0 ||
        intern(&P.s_core, "core") < 0 || intern(&P.s_on_expired, "_on_expired_pending") < 0 ||
        intern(&P.s_options, "Options") < 0 || intern(&P.s_version, "Version") < 0 ||
        intern(&P.s_match, "MatchOptions") < 0 || intern(&P.s_msg_id, "MsgId") < 0 ||
        intern(&P.s_resolved_q, "ResolvedQName") < 0 ||
        intern(&P.s_resolved_qmgr, "ResolvedQMgrName") < 0)
        return NULL;
    if (P.zero_id == NULL &&
        (P.zero_id = PyBytes_FromStringAndSize(NULL, MQ_ID_LEN)) != NULL)
        memset(PyBytes_AS_STRING(P.zero_id), 0, MQ_ID_LEN);
    if (P.zero_id == NULL)
        return NULL;
    Py_ssize_t put_plan = member_offset(handle, "put_plan");
    Py_ssize_t get_plan = put_plan < 0 ? -1 : member_offset(handle, "get_plan");
    Py_ssize_t closed = get_plan < 0 ? -1 : member_offset(handle, "closed");
    Py_ssize_t cursor = closed < 0 ? -1 : member_offset(handle, "cursor");
    Py_ssize_t current = cursor < 0 ? -1 : member_offset(generation, "current");
    if (current < 0)
        return NULL;
    P.ready = 0;
    Py_XSETREF(P.handle, (PyTypeObject *)Py_NewRef(handle));
    Py_XSETREF(P.generation, (PyTypeObject *)Py_NewRef(generation));
    Py_XSETREF(P.md, (PyTypeObject *)Py_NewRef(md));
    Py_XSETREF(P.gmo, (PyTypeObject *)Py_NewRef(gmo));
    Py_XSETREF(P.pmo, (PyTypeObject *)Py_NewRef(pmo));
    Py_XSETREF(P.open_scopes, Py_NewRef(open_scopes));
    P.put_plan = put_plan;
    P.get_plan = get_plan;
    P.closed = closed;
    P.cursor = cursor;
    P.current = current;
    P.fast_get_options = fast_get_options;
    P.fast_put_options = fast_put_options;
    P.expired_pending = expired_pending;
    P.ready = 1;
    Py_RETURN_NONE;
}

/* 1: obj.<name> is true; 0: false; -1: error. */
static int attr_true(PyObject *obj, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    int r = v == Py_True ? 1 : v == Py_False ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* 1: the plan still holds for a call on `h` (its generation current, the handle open,
 * no TPF commit scope open, nobody listening for events but the journal's EventLog,
 * which is then in *log, a new reference); 0: it does not; -1: error. */
static int plan_holds(PyObject *h, PyObject *plan, Py_ssize_t len, int events_at,
                      PyObject **log)
{
    *log = NULL;
    if (!PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != len)
        return 0;
    PyObject *gen = PyTuple_GET_ITEM(plan, 0);
    if (Py_TYPE(gen) != P.generation || member(gen, P.current) != Py_True ||
        member(h, P.closed) != Py_False)
        return 0;
    if (PyList_GET_SIZE(P.open_scopes) < 1)
        return 0;
    int open = PyObject_IsTrue(PyList_GET_ITEM(P.open_scopes, 0));
    if (open != 0)
        return open < 0 ? -1 : 0;
    PyObject *events = PyTuple_GET_ITEM(plan, events_at);
    int active = attr_true(events, P.s_active);
    if (active <= 0)
        return active < 0 ? -1 : 1;
    PyObject *capture = PyObject_GetAttr(events, P.s_capture);
    if (capture == NULL)
        return -1;
    if (!eventlog_check(capture)) { /* (None: a listener in Python) */
        Py_DECREF(capture);
        return 0;
    }
    *log = capture;
    return 1;
}

/* The MQPMO_* options of a put with `pmo` (None: none): 1 with *options set, 0 when the
 * plan does not serve them, -1 on error. */
static int pmo_options(PyObject *pmo, long *options)
{
    *options = 0;
    if (pmo == Py_None)
        return 1;
    if (Py_TYPE(pmo) != P.pmo)
        return 0;
    PyObject *x = PyObject_GetAttr(pmo, P.s_options);
    if (x == NULL)
        return -1;
    int overflow = 0;
    int plain = PyLong_CheckExact(x);
    long v = plain ? PyLong_AsLongAndOverflow(x, &overflow) : 0;
    Py_DECREF(x);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (!plain || overflow || (v & ~P.fast_put_options))
        return 0; /* the full path says what is wrong, or serves the options */
    *options = v;
    return 1;
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

PyObject *planned_put(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "planned_put(handle, data, md, pmo)");
        return NULL;
    }
    PyObject *h = args[0], *data = args[1], *md = args[2], *pmo = args[3];
    if (!P.ready || !PyBytes_CheckExact(data) || Py_TYPE(h) != P.handle || Py_TYPE(md) != P.md)
        Py_RETURN_FALSE;
    long options;
    int served = pmo_options(pmo, &options);
    if (served <= 0)
        return served < 0 ? NULL : Py_NewRef(Py_False);
    PyObject *plan = member(h, P.put_plan);
    if (plan == NULL)
        Py_RETURN_FALSE;
    Py_INCREF(plan); /* the calls below may run code that replaces the handle's plan */
    PyObject *result = NULL, *log, *old_id = NULL;
    int holds = plan_holds(h, plan, PUT_PLAN_LEN, PUT_EVENTS, &log);
    if (holds <= 0) {
        result = holds < 0 ? NULL : Py_NewRef(Py_False);
        goto out;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, PUT_LIMIT));
    if (limit == -1 && PyErr_Occurred())
        goto out;
    if (PyBytes_GET_SIZE(data) > limit) {
        result = Py_NewRef(Py_False);
        goto out;
    }
    if (options & MQPMO_NEW_MSG_ID) { /* the core makes the MsgId, as for MQMI_NONE */
        if ((old_id = PyObject_GetAttr(md, P.s_msg_id)) == NULL)
            goto out;
        if (PyObject_GenericSetAttr(md, P.s_msg_id, P.zero_id) < 0) {
            Py_CLEAR(old_id);
            goto out;
        }
    }
    PyObject *call[4] = {md, data, PyTuple_GET_ITEM(plan, PUT_SETTINGS), log};
    PyObject *done = PyObject_Vectorcall(PyTuple_GET_ITEM(plan, PUT_MD), call,
                                         log != NULL ? 4 : 3, NULL);
    if (done == NULL)
        goto out;
    long how = PyLong_AsLong(done);
    Py_DECREF(done);
    if (how == -1 && PyErr_Occurred())
        goto out;
    if (how == 0) { /* the MD needs the full path; nothing was changed */
        result = Py_NewRef(Py_False);
        goto out;
    }
    Py_CLEAR(old_id); /* put: the MD holds the new MsgId */
    PyObject *queue = PyTuple_GET_ITEM(plan, PUT_QUEUE);
    if (how == 2 && PyObject_SetAttr(queue, P.s_expiring, Py_True) < 0)
        goto out; /* gets then collect what expires */
    if (pmo != Py_None && pmo_outputs(pmo, plan) < 0)
        goto out;
    int waiting = attr_true(queue, P.s_waiters);
    if (waiting < 0)
        goto out;
    if (waiting) {
        PyObject *r = PyObject_CallMethodNoArgs(queue, P.s_wake);
        if (r == NULL)
            goto out;
        Py_DECREF(r);
    }
    result = Py_NewRef(Py_True);
out:
    if (old_id != NULL) { /* declined or failed: the MD as it was */
        restore_msg_id(md, old_id);
        Py_DECREF(old_id);
    }
    Py_XDECREF(log);
    Py_DECREF(plan);
    return result;
}

/* The MQMO_* bits a get with `gmo` matches by: 1 with *match set, 0 when the plan does
 * not serve its options, -1 on error. */
static int gmo_match(PyObject *gmo, long *match)
{
    if (gmo == Py_None) {
        *match = MQMO_MATCH_BOTH;
        return 1;
    }
    if (Py_TYPE(gmo) != P.gmo)
        return 0;
    long v[3];
    PyObject *names[3] = {P.s_options, P.s_version, P.s_match};
    for (int i = 0; i < 3; i++) {
        PyObject *x = PyObject_GetAttr(gmo, names[i]);
        if (x == NULL)
            return -1;
        int overflow = 0;
        v[i] = PyLong_Check(x) ? PyLong_AsLongAndOverflow(x, &overflow) : 0;
        int plain = PyLong_Check(x) && !overflow;
        Py_DECREF(x);
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
        if (!plain)
            return 0; /* the full path says what is wrong */
    }
    if (v[0] & ~P.fast_get_options)
        return 0;
    *match = v[1] >= 2 ? v[2] : MQMO_MATCH_BOTH;
    return 1;
}

PyObject *planned_get(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "planned_get(handle, max_length, md, gmo)");
        return NULL;
    }
    PyObject *h = args[0], *md = args[2];
    if (!P.ready || args[1] != Py_None || Py_TYPE(h) != P.handle || Py_TYPE(md) != P.md)
        Py_RETURN_NONE;
    PyObject *plan = member(h, P.get_plan);
    if (plan == NULL)
        Py_RETURN_NONE;
    Py_INCREF(plan); /* the calls below may run code that replaces the handle's plan */
    PyObject *result = NULL, *log;
    long match = MQMO_MATCH_BOTH;
    int r = plan_holds(h, plan, GET_PLAN_LEN, GET_EVENTS, &log);
    /* (a handle with a browse cursor: only the full get knows what it locked) */
    if (r > 0 && member(h, P.cursor) != Py_None)
        r = 0;
    if (r > 0)
        r = gmo_match(args[3], &match);
    PyObject *queue = PyTuple_GET_ITEM(plan, GET_QUEUE);
    if (r > 0) {
        int expiring = attr_true(queue, P.s_expiring); /* gets then collect what expired */
        r = expiring < 0 ? -1 : !expiring;
    }
    if (r <= 0) {
        result = r < 0 ? NULL : Py_NewRef(Py_None);
        goto out;
    }
    PyObject *m = PyLong_FromLong(match);
    if (m == NULL)
        goto out;
    PyObject *call[5] = {md, m, PyTuple_GET_ITEM(plan, GET_LOGGED), Py_False, log};
    PyObject *got = PyObject_Vectorcall(PyTuple_GET_ITEM(plan, GET_MD), call,
                                        log != NULL ? 5 : 4, NULL);
    Py_DECREF(m);
    if (got == NULL || got == Py_None || PyBytes_CheckExact(got)) {
        result = got; /* the data; None: declined, nothing changed */
        goto out;
    }
    /* (data, flags, expiry): flags to act on */
    if (!PyTuple_CheckExact(got) || PyTuple_GET_SIZE(got) != 3) {
        PyErr_SetString(PyExc_TypeError, "planned_get: get_md returned no (data, flags, "
                                         "expiry)");
        Py_DECREF(got);
        goto out;
    }
    long flags = PyLong_AsLong(PyTuple_GET_ITEM(got, 1));
    if (flags == -1 && PyErr_Occurred()) {
        Py_DECREF(got);
        goto out;
    }
    if (flags & P.expired_pending) {
        PyObject *core = PyObject_GetAttr(queue, P.s_core);
        PyObject *rc = core != NULL ? PyObject_CallMethodNoArgs(core, P.s_on_expired) : NULL;
        Py_XDECREF(core);
        if (rc == NULL) {
            Py_DECREF(got);
            goto out;
        }
        Py_DECREF(rc);
    }
    result = Py_NewRef(PyTuple_GET_ITEM(got, 0));
    Py_DECREF(got);
out:
    Py_XDECREF(log);
    Py_DECREF(plan);
    return result;
}
