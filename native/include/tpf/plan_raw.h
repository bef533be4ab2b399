/* plan_raw.h - a handle's put and get plans for a C program's MQPUT and MQGET
 *
 * tpfemu._fastpath carries out the plans of tpfemu/qmgr/plans.py for Python's MQI with
 * its MD, PMO and GMO objects (planned_put, planned_get) and, through these entries, for
 * the MQI of C programs with their structures as they lie in memory (cmqc.h's layouts):
 * the same plans, the same checks and the same MQMD rules (native/python/planpath.c,
 * mdpath.c), with no Python object made on the way. The module exports this table as a
 * capsule named TPF_PLAN_RAW_CAPSULE (tpfemu._lowlevel.plan_raw). Include Python.h first;
 * the caller holds the GIL.
 */
#ifndef TPF_PLAN_RAW_H
#define TPF_PLAN_RAW_H

#define TPF_PLAN_RAW_CAPSULE "tpfemu._fastpath.plan_raw"

typedef struct {
    /** MQPUT of `length` bytes at `data` by the put plan `plan` (a PutPlan), with an
     * MQMD of version `mdv` and an MQPMO of version `pmov`: 1 once the message is put
     * and the MD's and PMO's outputs written into them; 0 when the plan does not serve
     * the call, nothing changed (the full path takes it); -1 with a Python exception
     * (an MQMIError carries the reason), the structures unchanged. */
    int (*put)(PyObject *plan, const void *data, Py_ssize_t length, void *md, int mdv,
               void *pmo, int pmov);
    /** MQGET by the get plan `plan` (a GetPlan) into `buffer` of `room` bytes, with an
     * MQMD of version `mdv` and an MQGMO of version `gmov`: 1 once a message is got, its
     * descriptor written into the MD, its first `room` bytes into the buffer and its
     * length in *length (above `room`: the message was longer), the GMO's ResolvedQName
     * (and from version 3 its ReturnedLength) filled; 0 declined, nothing changed; -1
     * with a Python exception. */
    int (*get)(PyObject *plan, void *md, int mdv, void *gmo, int gmov, void *buffer,
               Py_ssize_t room, Py_ssize_t *length);
} tpf_plan_raw_t;

#endif
