/* mdpath.h - the MQMD side of MQPUT/MQGET with an MD, for tpfemu._fastpath
 *
 * The queue manager keeps the MQMD fields the core does not act on in a context record
 * at the head of the message (tpfemu/qmgr/context.py defines it). These functions read
 * an MD's fields for a put and build its record, and write a got message's fields and
 * record back into an MD, working on the MD's instance dict directly. The record layout
 * and the MD's initial values are not written here: context.py hands them over once
 * (md_layout_set), so the record has one definition.
 *
 * An MD here is tpfemu.mq.structs.MD: its instance dict holds the fields set on it,
 * already checked (ints in MQLONG range, bytes no longer than their field); a field not
 * in the dict has the MD's initial value. The *_raw functions (mdraw.c) do the same
 * for a C program's MQMD in cmqc.h's layout. All functions need the GIL.
 */
#ifndef TPFEMU_MDPATH_H
#define TPFEMU_MDPATH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "tpf/queue.h"

/** What md_put_read found: the core descriptor, and the record in `record`. */
typedef struct {
    tpf_mq_msg_t md;          /**< priority, persistent, expiry, ids (zero: none) */
    uint32_t record_len;      /**< 0 when every field is a default (no record stored) */
    char record[TPF_MQ_MAX_CTX];
} md_put_t;

/** md_layout_set(version, size, fields, expiry_offset, default_record, md_initials):
 * see mdpath.c. Returns None, or raises. */
PyObject *md_layout_set(PyObject *module, PyObject *args);

/** The context a put takes from its MD (MQPMO_*_CONTEXT): the default context (the
 * connection's), SET_IDENTITY_CONTEXT (the identity fields from the MD), SET_ALL_CONTEXT
 * (every context field and the put time from the MD). */
enum { MD_CONTEXT_DEFAULT = 0, MD_CONTEXT_IDENTITY = 1, MD_CONTEXT_ALL = 2 };

/** A put plan's settings for one context (plans.py, PutPlan), read once per call. */
typedef struct md_put_settings {
    long defprty;           /**< DEFPRTY */
    int defpsist, logged;   /**< DEFPSIST(YES); persistent messages are logged */
    int mode;               /**< MD_CONTEXT_* */
    PyObject *base_record;  /**< the record of an MD left at its initial values */
    PyObject *outputs;      /**< MD_CONTEXT_DEFAULT: the put context fields written back */
    PyObject *initial_names; /**< ... and those removed (they read the MD's initial value) */
    PyObject *reply_qmgr;   /**< the queue manager's name, 48 bytes blank-padded */
    PyObject *reply_aliases; /**< the 48-byte names of remote queue definitions (a set) */
    PyObject *log_port;     /**< persistent messages logged by the caller (logput.h); NULL
                                 (as md_settings_read leaves it): with `logged`, declined */
} md_put_settings_t;

/** Read put_md's settings tuple (borrowed references into it). 0, or -1 with TypeError. */
int md_settings_read(PyObject *settings, md_put_settings_t *s);

/**
 * Read an MD's dict for MQPUT. Returns 1 and fills *out when the fast path serves it; 0
 * when it does not (a value the full path must judge: a priority or persistence out of
 * range, expiry 0, a request without ReplyToQ, a reply-to alias without ReplyToQMgr, a
 * persistent message with `logged`, a SET_ALL_CONTEXT put time it does not read, ...),
 * having changed nothing; -1 with an exception set. The record starts from the settings'
 * base record; the fields the context mode takes from the MD are written in; a put with
 * a ReplyToQ and a blank ReplyToQMgr gets the queue manager's name (a reply-to alias is
 * declined).
 */
int md_put_read(PyObject *fields, const md_put_settings_t *s, int64_t now, md_put_t *out);

/** After the put: the MsgId into the MD; unless the context was SET_ALL, PutDate,
 * PutTime and the put context fields too (the default context: the settings' outputs
 * set and initial names removed; SET_IDENTITY: the record's, those at the MD's initial
 * value removed). */
int md_put_write(PyObject *fields, const md_put_t *p, const md_put_settings_t *s, int64_t now);

/** md_put_read for a C program's MQMD (cmqc.h's layout) of `version`, read in place:
 * the same rules, the fields read as the MQMD would become an MD (a field at cmqc.h's
 * default or the MD's initial value stands for it; a character field ends at its first
 * null). 0 (declined) too when the layouts do not match. */
int md_put_read_raw(const void *mqmd, int version, const md_put_settings_t *s, int64_t now,
                    md_put_t *out);

/** md_put_write into a C program's MQMD: the same fields, in C layout. 0, or -1. */
int md_put_write_raw(void *mqmd, int version, const md_put_t *p, const md_put_settings_t *s,
                     int64_t now);

/** md_get_read from a C program's MQMD: 1, or 0 when the layouts do not match. */
int md_get_read_raw(const void *mqmd, int version, uint32_t match, tpf_mq_getreq_t *req);

/** md_get_write into a C program's MQMD: every record field its version has and the
 * descriptor fields. 0, or -1 with ValueError for a record this layout did not write. */
int md_get_write_raw(void *mqmd, int version, const tpf_mq_msg_t *md, const char *record,
                     int64_t now);

/** Read the MsgId/CorrelId an MQGET matches (`match`: MQMO_* bits) into req. */
int md_get_read(PyObject *fields, uint32_t match, tpf_mq_getreq_t *req);

/** Write a got message's descriptor and record (md->ctx_len bytes at `record`) into
 * the MD `obj` (its instance dict is replaced by one holding every field the get
 * writes). `now` (md_now_us()) is read only for a message that can expire. Raises
 * ValueError, changing nothing, for a record this layout did not write. */
int md_get_write(PyObject *obj, const tpf_mq_msg_t *md, const char *record, int64_t now);


/** The wall clock in microseconds (the clock of put times and expiry deadlines). */
int64_t md_now_us(void);

#endif
