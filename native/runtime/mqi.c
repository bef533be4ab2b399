/* mqi.c - the MQI calls of C programs (cmqc.h), through the one put and get path
 *
 * Each call takes the GIL and calls what a Python application's call takes:
 * MQPUT and MQGET first the handle's plan, in C (planned_put/planned_get of
 * tpfemu.qmgr.plans, native/python/planpath.c), else the full path through
 * tpfemu.cprog.calls (tpfemu.qmgr.mqput.put_full, mqget.get_full); every other call
 * goes to tpfemu.cprog.calls, which calls the queue manager's Connection. This file
 * holds no MQ rule: it moves the C structures in and out (structs.c) and turns
 * MQMIError into CompCode and Reason.
 *
 * MQGET takes the plan only when the buffer holds the longest message the queue
 * accepts (its MAXMSGL and the profile's), since a plan gets whole messages; a shorter
 * buffer takes the full path, which truncates as IBM's MQGET does. (A message put before
 * MAXMSGL was lowered below its length can still come whole from the plan: it is then
 * returned truncated with MQRC_TRUNCATED_MSG_ACCEPTED, see docs/deviations.md.)
 */
#include "runtime.h"

#include "../python/fastattr.h"

#include <string.h>

/* How the raw entries read a handle's put_plan and get_plan (a slot: fastattr.h). */
static fa_way_t way_put_plan, way_get_plan;

static void result(PMQLONG pCompCode, PMQLONG pReason, MQLONG cc, MQLONG rc)
{
    if (pCompCode != NULL)
        *pCompCode = cc;
    if (pReason != NULL)
        *pReason = rc;
}

/* After a Python call returned NULL: an MQMIError gives *cc and *rc and is returned (a
 * new reference, the error cleared); anything else ends the program at its guard (a
 * system error) or, outside one, is reported and gives MQRC_UNEXPECTED_ERROR. */
static PyObject *mq_error(MQLONG *cc, MQLONG *rc)
{
    *cc = MQCC_FAILED;
    *rc = MQRC_UNEXPECTED_ERROR;
    if (!PyErr_ExceptionMatches(RT.mqmi_error)) {
        rt_abandon();
        return NULL;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    PyObject *c = PyObject_GetAttr(value, RT.s_comp);
    PyObject *r = PyObject_GetAttr(value, RT.s_reason);
    if (c != NULL && r != NULL) {
        *cc = (MQLONG)PyLong_AsLong(c);
        *rc = (MQLONG)PyLong_AsLong(r);
    }
    Py_XDECREF(c);
    Py_XDECREF(r);
    PyErr_Clear();
    return value;
}

static void fail_from_python(PMQLONG pCompCode, PMQLONG pReason)
{
    MQLONG cc, rc;
    Py_XDECREF(mq_error(&cc, &rc));
    result(pCompCode, pReason, cc, rc);
}

/* The open Handle `hobj` of connection `hconn` (borrowed), or NULL (then the full
 * path says what is wrong). */
static PyObject *handle_of(MQHCONN hconn, MQHOBJ hobj)
{
    PyObject *key = PyLong_FromLong(hconn);
    PyObject *conn = key ? PyDict_GetItemWithError(RT.conns, key) : NULL;
    Py_XDECREF(key);
    if (conn == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *handles = PyObject_GetAttr(conn, RT.s_handles);
    if (handles == NULL || !PyDict_Check(handles)) {
        Py_XDECREF(handles);
        PyErr_Clear();
        return NULL;
    }
    key = PyLong_FromLong(hobj);
    PyObject *handle = key ? PyDict_GetItemWithError(handles, key) : NULL;
    Py_XDECREF(key);
    Py_DECREF(handles); /* (the connection keeps the dict, and the dict the handle) */
    if (handle == NULL)
        PyErr_Clear();
    return handle;
}

/* The handles of recent MQPUT and MQGET calls by (hconn, hobj), so that a call need not
 * look its handle up (strong references). A connection's hconn and a handle's hobj are
 * never reused, and a closed handle has no plan (the call then takes the full path,
 * which says what is wrong); MQCLOSE and MQDISC forget theirs. All under the GIL. */
#define N_HANDLES 8
static struct {
    MQHCONN hconn;
    MQHOBJ hobj;
    PyObject *handle;
} handles[N_HANDLES];

static PyObject *cached_handle(MQHCONN hconn, MQHOBJ hobj)
{
    unsigned i = ((unsigned)hconn * 31u + (unsigned)hobj) % N_HANDLES;
    if (handles[i].handle != NULL && handles[i].hconn == hconn && handles[i].hobj == hobj)
        return handles[i].handle;
    PyObject *handle = handle_of(hconn, hobj);
    if (handle != NULL) {
        PyObject *old = handles[i].handle;
        handles[i].hconn = hconn;
        handles[i].hobj = hobj;
        handles[i].handle = Py_NewRef(handle);
        Py_XDECREF(old);
    }
    return handle;
}

/* Forget the handle (hconn, hobj), or every handle of hconn when hobj is
 * MQHO_UNUSABLE_HOBJ. */
static void forget_handles(MQHCONN hconn, MQHOBJ hobj)
{
    for (int i = 0; i < N_HANDLES; i++)
        if (handles[i].handle != NULL && handles[i].hconn == hconn &&
            (hobj == MQHO_UNUSABLE_HOBJ || handles[i].hobj == hobj))
            Py_CLEAR(handles[i].handle);
}

/* -- MQCONN, MQCONNX, MQDISC ---------------------------------------------------------- */

static void connect(PMQCHAR pName, MQLONG options, PMQHCONN pHconn, PMQLONG pCompCode,
                    PMQLONG pReason)
{
    PyObject *name = rt_chars(pName != NULL ? pName : "", pName != NULL ? 48 : 0);
    PyObject *r = name ? rt_call("conn", "(Ni)", name, options) : NULL;
    int hconn, reason;
    if (r == NULL || !PyArg_ParseTuple(r, "ii", &hconn, &reason)) {
        Py_XDECREF(r);
        fail_from_python(pCompCode, pReason);
        if (pHconn != NULL)
            *pHconn = MQHC_UNUSABLE_HCONN;
        return;
    }
    Py_DECREF(r);
    if (pHconn != NULL)
        *pHconn = hconn;
    result(pCompCode, pReason, reason ? MQCC_WARNING : MQCC_OK, reason);
}

void MQCONN(PMQCHAR pName, PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason)
{
    rt_enter();
    connect(pName, MQCNO_NONE, pHconn, pCompCode, pReason);
    rt_leave();
}

void MQCONNX(PMQCHAR pName, PMQCNO pConnectOpts, PMQHCONN pHconn, PMQLONG pCompCode,
             PMQLONG pReason)
{
    MQCNO *cno = pConnectOpts;
    if (cno != NULL && (memcmp(cno->StrucId, MQCNO_STRUC_ID, 4) != 0 || cno->Version < 1)) {
        result(pCompCode, pReason, MQCC_FAILED, MQRC_CNO_ERROR);
        return;
    }
    rt_enter();
    connect(pName, cno != NULL ? cno->Options : MQCNO_NONE, pHconn, pCompCode, pReason);
    rt_leave();
}

void MQDISC(PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason)
{
    rt_enter();
    if (pHconn != NULL)
        forget_handles(*pHconn, MQHO_UNUSABLE_HOBJ);
    PyObject *r = rt_call("disc", "(i)", pHconn != NULL ? *pHconn : MQHC_UNUSABLE_HCONN);
    if (r == NULL) {
        fail_from_python(pCompCode, pReason);
    } else {
        Py_DECREF(r);
        *pHconn = MQHC_UNUSABLE_HCONN;
        result(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
    rt_leave();
}

/* -- MQOPEN, MQCLOSE ------------------------------------------------------------------- */

static int od_version(const MQOD *od)
{
    if (od == NULL || memcmp(od->StrucId, MQOD_STRUC_ID, 4) != 0 || od->Version < 1 ||
        od->Version > MQOD_VERSION_4)
        return 0;
    return od->Version;
}

void MQOPEN(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options, PMQHOBJ pHobj,
            PMQLONG pCompCode, PMQLONG pReason)
{
    MQOD *od = pObjDesc;
    int version = od_version(od);
    if (version == 0) {
        result(pCompCode, pReason, MQCC_FAILED, MQRC_OD_ERROR);
        return;
    }
    rt_enter();
    PyObject *r = rt_call("open", "(iNNii)", Hconn, rt_chars(od->ObjectName, 48),
                          rt_chars(od->ObjectQMgrName, 48), od->ObjectType, Options);
    int hobj;
    PyObject *q, *qm;
    if (r == NULL || !PyArg_ParseTuple(r, "iOO", &hobj, &q, &qm)) {
        Py_XDECREF(r);
        fail_from_python(pCompCode, pReason);
        if (pHobj != NULL)
            *pHobj = MQHO_UNUSABLE_HOBJ;
    } else {
        if (version >= MQOD_VERSION_3) {
            rt_put_chars(od->ResolvedQName, 48, q);
            rt_put_chars(od->ResolvedQMgrName, 48, qm);
        }
        Py_DECREF(r);
        *pHobj = hobj;
        result(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
    rt_leave();
}

void MQCLOSE(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options, PMQLONG pCompCode,
             PMQLONG pReason)
{
    rt_enter();
    if (pHobj != NULL)
        forget_handles(Hconn, *pHobj);
    PyObject *r = rt_call("close", "(iii)", Hconn,
                          pHobj != NULL ? *pHobj : MQHO_UNUSABLE_HOBJ, Options);
    if (r == NULL) {
        fail_from_python(pCompCode, pReason);
    } else {
        Py_DECREF(r);
        *pHobj = MQHO_UNUSABLE_HOBJ;
        result(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
    rt_leave();
}

/* -- MQPUT, MQPUT1 ---------------------------------------------------------------------- */

/* The checks IBM makes on the arguments themselves, before the queue manager: 0 or a
 * reason, with the MD's and PMO's versions. */
static MQLONG put_args(PMQVOID md, PMQVOID pmo, MQLONG length, PMQVOID buffer, int *mdv,
                       int *pmov)
{
    if (md == NULL || (*mdv = st_version(ST_MD, md)) == 0)
        return MQRC_MD_ERROR;
    if (pmo == NULL || (*pmov = st_version(ST_PMO, pmo)) == 0)
        return MQRC_PMO_ERROR;
    if (length < 0)
        return MQRC_BUFFER_LENGTH_ERROR;
    if (buffer == NULL && length > 0)
        return MQRC_BUFFER_ERROR;
    return MQRC_NONE;
}

/* After a put: the MD and PMO written back (when the message was put: OK or a
 * warning), CompCode and Reason set. `done` is the planned or full call's result. */
static void put_done(PyObject *done, PyObject *md, PyObject *pmo, PMQVOID pMsgDesc, int mdv,
                     PMQVOID pPutMsgOpts, int pmov, PMQLONG pCompCode, PMQLONG pReason)
{
    MQLONG cc = MQCC_OK, rc = MQRC_NONE;
    if (done == NULL)
        Py_XDECREF(mq_error(&cc, &rc));
    else
        Py_DECREF(done);
    if (cc != MQCC_FAILED && (st_from_py(ST_MD, md, pMsgDesc, mdv) < 0 ||
                              st_from_py(ST_PMO, pmo, pPutMsgOpts, pmov) < 0)) {
        PyErr_Clear();
        cc = MQCC_FAILED;
        rc = MQRC_UNEXPECTED_ERROR;
    }
    result(pCompCode, pReason, cc, rc);
}

/* MQPUT by the handle's plan through its raw entry (tpf/plan_raw.h), on copies of the MD
 * and PMO normalized as the Python round trip of the other paths leaves them, copied
 * back once the message is put: 1 done (CompCode and Reason set), 0 declined, nothing
 * changed (the other paths take the call). */
static int raw_put(PyObject *handle, PMQVOID pMsgDesc, int mdv, PMQVOID pPutMsgOpts,
                   int pmov, MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode,
                   PMQLONG pReason)
{
    PyObject *plan = fa_get(handle, RT.s_put_plan, &way_put_plan);
    if (plan == NULL || plan == Py_None) {
        Py_XDECREF(plan);
        PyErr_Clear();
        return 0;
    }
    MQMD md;
    MQPMO pmo;
    size_t md_len = st_length(ST_MD, mdv), pmo_len = st_length(ST_PMO, pmov);
    memcpy(&md, pMsgDesc, md_len);
    memcpy(&pmo, pPutMsgOpts, pmo_len);
    st_normalize(ST_MD, &md, mdv);
    st_normalize(ST_PMO, &pmo, pmov);
    int r = RT.raw->put(plan, pBuffer != NULL ? pBuffer : "", BufferLength, &md, mdv, &pmo,
                        pmov); /* (no buffer: length 0, put_args said) */
    Py_DECREF(plan);
    if (r > 0) {
        memcpy(pMsgDesc, &md, md_len);
        memcpy(pPutMsgOpts, &pmo, pmo_len);
        result(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    } else if (r < 0) {
        fail_from_python(pCompCode, pReason);
    }
    return r != 0;
}

void MQPUT(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
           MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason)
{
    int mdv = 0, pmov = 0;
    MQLONG bad = put_args(pMsgDesc, pPutMsgOpts, BufferLength, pBuffer, &mdv, &pmov);
    if (bad != MQRC_NONE) {
        result(pCompCode, pReason, MQCC_FAILED, bad);
        return;
    }
    rt_enter();
    PyObject *handle = cached_handle(Hconn, Hobj);
    if (handle != NULL && raw_put(handle, pMsgDesc, mdv, pPutMsgOpts, pmov, BufferLength,
                                  pBuffer, pCompCode, pReason)) {
        rt_leave();
        return;
    }
    PyObject *data = PyBytes_FromStringAndSize(pBuffer, BufferLength);
    PyObject *md = data ? st_to_py(ST_MD, pMsgDesc, mdv) : NULL;
    PyObject *pmo = md ? st_to_py(ST_PMO, pPutMsgOpts, pmov) : NULL;
    PyObject *done = NULL;
    if (pmo == NULL) {
        PyErr_Clear();
        result(pCompCode, pReason, MQCC_FAILED, MQRC_STORAGE_NOT_AVAILABLE);
        goto out;
    }
    handle = handle_of(Hconn, Hobj); /* (again: the connection may have changed since) */
    PyObject *plan = handle ? PyObject_GetAttr(handle, RT.s_put_plan) : NULL;
    if (plan != NULL && plan != Py_None) {
        PyObject *args[4] = {plan, data, md, pmo};
        done = PyObject_Vectorcall(RT.planned_put, args, 4, NULL);
        if (done == Py_False)
            Py_CLEAR(done); /* the plan does not serve it: the full path */
        else if (done == NULL)
            goto planned;
    }
    if (plan == NULL)
        PyErr_Clear();
    if (done == NULL)
        done = rt_call("put", "(iiOOO)", Hconn, Hobj, data, md, pmo);
planned:
    Py_XDECREF(plan);
    put_done(done, md, pmo, pMsgDesc, mdv, pPutMsgOpts, pmov, pCompCode, pReason);
out:
    Py_XDECREF(data);
    Py_XDECREF(md);
    Py_XDECREF(pmo);
    rt_leave();
}

void MQPUT1(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
            MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason)
{
    MQOD *od = pObjDesc;
    int mdv = 0, pmov = 0, odv = od_version(od);
    MQLONG bad = odv == 0 ? MQRC_OD_ERROR
                          : put_args(pMsgDesc, pPutMsgOpts, BufferLength, pBuffer, &mdv,
                                     &pmov);
    if (bad != MQRC_NONE) {
        result(pCompCode, pReason, MQCC_FAILED, bad);
        return;
    }
    rt_enter();
    PyObject *data = PyBytes_FromStringAndSize(pBuffer, BufferLength);
    PyObject *md = data ? st_to_py(ST_MD, pMsgDesc, mdv) : NULL;
    PyObject *pmo = md ? st_to_py(ST_PMO, pPutMsgOpts, pmov) : NULL;
    if (pmo == NULL) {
        PyErr_Clear();
        result(pCompCode, pReason, MQCC_FAILED, MQRC_STORAGE_NOT_AVAILABLE);
    } else {
        PyObject *done = rt_call("put1", "(iNNOOO)", Hconn, rt_chars(od->ObjectName, 48),
                                 rt_chars(od->ObjectQMgrName, 48), data, md, pmo);
        put_done(done, md, pmo, pMsgDesc, mdv, pPutMsgOpts, pmov, pCompCode, pReason);
    }
    Py_XDECREF(data);
    Py_XDECREF(md);
    Py_XDECREF(pmo);
    rt_leave();
}

/* -- MQGET -------------------------------------------------------------------------------- */

/* The longest message `plan`'s queue accepts (a small cache of the last plans seen, each
 * made in one catalog generation, during which the limit cannot change); -1: unknown. */
static long plan_limit(PyObject *handle, PyObject *plan)
{
    static PyObject *plans[4];
    static long limits[4];
    static int next;
    for (int i = 0; i < 4; i++)
        if (plans[i] == plan)
            return limits[i];
    PyObject *r = rt_call("get_limit", "(O)", handle);
    long limit = r ? PyLong_AsLong(r) : -1;
    Py_XDECREF(r);
    if (limit < 0) {
        PyErr_Clear();
        return -1;
    }
    Py_XSETREF(plans[next], Py_NewRef(plan));
    limits[next] = limit;
    next = (next + 1) % 4;
    return limit;
}

/* The planned get: the data, or NULL having changed nothing (the full path decides),
 * or NULL with an MQ error pending. */
static PyObject *planned_get(PyObject *handle, MQLONG length, PyObject *md, PyObject *gmo)
{
    PyObject *plan = PyObject_GetAttr(handle, RT.s_get_plan);
    PyObject *got = NULL;
    if (plan == NULL) {
        PyErr_Clear();
        return NULL;
    }
    long limit = plan != Py_None ? plan_limit(handle, plan) : -1;
    if (limit >= 0 && length >= limit) {
        PyObject *args[4] = {plan, Py_None, md, gmo};
        got = PyObject_Vectorcall(RT.planned_get, args, 4, NULL);
        if (got == Py_None)
            Py_CLEAR(got);
    }
    Py_DECREF(plan);
    return got;
}

/* MQGET by the handle's plan through its raw entry: 1 done (CompCode and Reason set), 0
 * declined, nothing changed (the other paths take the call). */
static int raw_get(PyObject *handle, PMQVOID pMsgDesc, int mdv, PMQVOID pGetMsgOpts,
                   int gmov, MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                   PMQLONG pCompCode, PMQLONG pReason)
{
    PyObject *plan = fa_get(handle, RT.s_get_plan, &way_get_plan);
    if (plan == NULL || plan == Py_None) {
        Py_XDECREF(plan);
        PyErr_Clear();
        return 0;
    }
    long limit = plan_limit(handle, plan);
    if (limit < 0 || BufferLength < limit) { /* a shorter buffer: the full path truncates */
        Py_DECREF(plan);
        return 0;
    }
    /* On the caller's structures in place (the raw entry changes nothing unless a
     * message is got): the entry reads the MD's MsgId and CorrelId as a normalized MD
     * holds them and, once a message is got, writes every field of the MD but StrucId
     * (checked by st_version: as normalized) and Version (a number, whose cmqc.h default
     * is the initial value: st_setup checks); it reads the GMO's numbers and writes its
     * outputs (ResolvedQName; ReturnedLength from version 3), then the GMO is normalized
     * as the round trip leaves it. */
    Py_ssize_t length = 0;
    int r = RT.raw->get(plan, pMsgDesc, mdv, pGetMsgOpts, gmov, pBuffer, BufferLength,
                        &length);
    Py_DECREF(plan);
    if (r > 0) {
        /* A message longer than MAXMSGL (put before MAXMSGL was lowered) is gone from
         * the queue: 2079, as get_done says it (docs/deviations.md). */
        int cut = length > BufferLength;
        *pDataLength = (MQLONG)length;
        st_normalize(ST_GMO, pGetMsgOpts, gmov);
        result(pCompCode, pReason, cut ? MQCC_WARNING : MQCC_OK,
               cut ? MQRC_TRUNCATED_MSG_ACCEPTED : MQRC_NONE);
    } else if (r < 0) {
        fail_from_python(pCompCode, pReason);
    }
    return r != 0;
}

/* A truncated get's warning: its data (2079: what was got) and the full length. */
static PyObject *truncated(PyObject *error, MQLONG *full)
{
    PyObject *data = PyObject_GetAttr(error, RT.s_message);
    PyObject *length = PyObject_GetAttr(error, RT.s_original_length);
    if (length != NULL && PyLong_Check(length))
        *full = (MQLONG)PyLong_AsLong(length);
    Py_XDECREF(length);
    PyErr_Clear();
    if (data != NULL && !PyBytes_Check(data))
        Py_CLEAR(data);
    return data;
}

static void get_done(PyObject *got, PyObject *md, PyObject *gmo, PMQVOID pMsgDesc, int mdv,
                     PMQVOID pGetMsgOpts, int gmov, MQLONG BufferLength, PMQVOID pBuffer,
                     PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason)
{
    MQLONG cc = MQCC_OK, rc = MQRC_NONE, full = -1;
    if (got == NULL) {
        PyObject *error = mq_error(&cc, &rc);
        if (error != NULL && cc == MQCC_WARNING)
            got = truncated(error, &full);
        Py_XDECREF(error);
    }
    if (got != NULL) {
        Py_ssize_t n = PyBytes_GET_SIZE(got);
        if (n > BufferLength && cc == MQCC_OK) {
            /* The plan got a message longer than MAXMSGL: one put before MAXMSGL was
             * lowered (docs/deviations.md). It is gone from the queue: say so as 2079. */
            full = (MQLONG)n;
            cc = MQCC_WARNING;
            rc = MQRC_TRUNCATED_MSG_ACCEPTED;
        }
        if (n > BufferLength)
            n = BufferLength;
        if (n > 0)
            memcpy(pBuffer, PyBytes_AS_STRING(got), (size_t)n);
        if (full < 0)
            full = (MQLONG)n;
        Py_DECREF(got);
    }
    if (pDataLength != NULL && (cc != MQCC_FAILED || full >= 0))
        *pDataLength = full < 0 ? 0 : full;
    if (cc != MQCC_FAILED && (st_from_py(ST_MD, md, pMsgDesc, mdv) < 0 ||
                              st_from_py(ST_GMO, gmo, pGetMsgOpts, gmov) < 0)) {
        PyErr_Clear();
        cc = MQCC_FAILED;
        rc = MQRC_UNEXPECTED_ERROR;
    }
    result(pCompCode, pReason, cc, rc);
}

void MQGET(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
           MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength, PMQLONG pCompCode,
           PMQLONG pReason)
{
    int mdv, gmov = 0;
    MQLONG bad = MQRC_NONE;
    if (pMsgDesc == NULL || (mdv = st_version(ST_MD, pMsgDesc)) == 0)
        bad = MQRC_MD_ERROR;
    else if (pGetMsgOpts == NULL || (gmov = st_version(ST_GMO, pGetMsgOpts)) == 0)
        bad = MQRC_GMO_ERROR;
    else if (BufferLength < 0)
        bad = MQRC_BUFFER_LENGTH_ERROR;
    else if (pBuffer == NULL && BufferLength > 0)
        bad = MQRC_BUFFER_ERROR;
    else if (pDataLength == NULL)
        bad = MQRC_DATA_LENGTH_ERROR;
    if (bad != MQRC_NONE) {
        result(pCompCode, pReason, MQCC_FAILED, bad);
        return;
    }
    rt_enter();
    PyObject *handle = cached_handle(Hconn, Hobj);
    if (handle != NULL && raw_get(handle, pMsgDesc, mdv, pGetMsgOpts, gmov, BufferLength,
                                  pBuffer, pDataLength, pCompCode, pReason)) {
        rt_leave();
        return;
    }
    PyObject *md = st_to_py(ST_MD, pMsgDesc, mdv);
    PyObject *gmo = md ? st_to_py(ST_GMO, pGetMsgOpts, gmov) : NULL;
    if (gmo == NULL) {
        PyErr_Clear();
        result(pCompCode, pReason, MQCC_FAILED, MQRC_STORAGE_NOT_AVAILABLE);
    } else {
        PyObject *handle = handle_of(Hconn, Hobj), *got = NULL;
        if (handle != NULL)
            got = planned_get(handle, BufferLength, md, gmo); /* (raw_get declined it) */
        if (got == NULL && !PyErr_Occurred())
            got = rt_call("get", "(iiiOO)", Hconn, Hobj, BufferLength, md, gmo);
        get_done(got, md, gmo, pMsgDesc, mdv, pGetMsgOpts, gmov, BufferLength, pBuffer,
                 pDataLength, pCompCode, pReason);
    }
    Py_XDECREF(md);
    Py_XDECREF(gmo);
    rt_leave();
}

/* -- MQINQ, MQSET, MQCMIT, MQBACK ----------------------------------------------------------- */

static PyObject *long_list(MQLONG count, const MQLONG *values)
{
    PyObject *list = PyList_New(count > 0 ? count : 0);
    for (MQLONG i = 0; list != NULL && i < count; i++) {
        PyObject *v = PyLong_FromLong(values[i]);
        if (v == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, v);
    }
    return list;
}

/* MQINQ's and MQSET's counts and arrays: the reason of the first that is wrong (a count
 * below 0, or above 0 with no array), or MQRC_NONE. */
static MQLONG attr_args_reason(MQLONG SelectorCount, const MQLONG *pSelectors,
                               MQLONG IntAttrCount, const MQLONG *pIntAttrs,
                               MQLONG CharAttrLength, const MQCHAR *pCharAttrs)
{
    if (SelectorCount < 0 || (SelectorCount > 0 && pSelectors == NULL))
        return MQRC_SELECTOR_COUNT_ERROR;
    if (IntAttrCount < 0 || (IntAttrCount > 0 && pIntAttrs == NULL))
        return MQRC_INT_ATTR_COUNT_ERROR;
    if (CharAttrLength < 0 || (CharAttrLength > 0 && pCharAttrs == NULL))
        return MQRC_CHAR_ATTR_LENGTH_ERROR;
    return MQRC_NONE;
}

void MQINQ(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
           MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength, PMQCHAR pCharAttrs,
           PMQLONG pCompCode, PMQLONG pReason)
{
    MQLONG bad = attr_args_reason(SelectorCount, pSelectors, IntAttrCount, pIntAttrs,
                                  CharAttrLength, pCharAttrs);
    if (bad != MQRC_NONE) {
        result(pCompCode, pReason, MQCC_FAILED, bad);
        return;
    }
    rt_enter();
    PyObject *r = rt_call("inq", "(iiNii)", Hconn, Hobj, long_list(SelectorCount, pSelectors),
                          IntAttrCount, CharAttrLength);
    PyObject *ints, *chars;
    int reason;
    if (r == NULL || !PyArg_ParseTuple(r, "O!O!i", &PyList_Type, &ints, &PyBytes_Type, &chars,
                                       &reason)) {
        Py_XDECREF(r);
        fail_from_python(pCompCode, pReason);
    } else {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(ints) && i < IntAttrCount; i++)
            pIntAttrs[i] = (MQLONG)PyLong_AsLong(PyList_GET_ITEM(ints, i));
        Py_ssize_t n = PyBytes_GET_SIZE(chars);
        if (n > CharAttrLength)
            n = CharAttrLength;
        if (n > 0)
            memcpy(pCharAttrs, PyBytes_AS_STRING(chars), (size_t)n);
        Py_DECREF(r);
        result(pCompCode, pReason, reason ? MQCC_WARNING : MQCC_OK, reason);
    }
    rt_leave();
}

void MQSET(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
           MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength, PMQCHAR pCharAttrs,
           PMQLONG pCompCode, PMQLONG pReason)
{
    MQLONG bad = attr_args_reason(SelectorCount, pSelectors, IntAttrCount, pIntAttrs,
                                  CharAttrLength, pCharAttrs);
    if (bad != MQRC_NONE) {
        result(pCompCode, pReason, MQCC_FAILED, bad);
        return;
    }
    rt_enter();
    PyObject *r = rt_call("set", "(iiNNy#)", Hconn, Hobj, long_list(SelectorCount, pSelectors),
                          long_list(IntAttrCount, pIntAttrs),
                          pCharAttrs != NULL ? pCharAttrs : "", (Py_ssize_t)CharAttrLength);
    if (r == NULL) {
        fail_from_python(pCompCode, pReason);
    } else {
        Py_DECREF(r);
        result(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
    rt_leave();
}

static void uow_call(const char *name, MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
    rt_enter();
    PyObject *r = rt_call(name, "(i)", Hconn);
    if (r == NULL) {
        fail_from_python(pCompCode, pReason);
    } else {
        Py_DECREF(r);
        result(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
    rt_leave();
}

void MQCMIT(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
    uow_call("commit", Hconn, pCompCode, pReason);
}

void MQBACK(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
    uow_call("backout", Hconn, pCompCode, pReason);
}
