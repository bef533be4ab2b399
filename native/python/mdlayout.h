/* mdlayout.h - the context record's layout as mdpath.c keeps it, for mdraw.c (internal)
 *
 * mdpath.c reads and writes a Python MD's fields; mdraw.c a C program's MQMD in place.
 * Both apply the same rules to the same layout: this header gives mdraw.c the layout
 * (md_layout, set by md_layout_set) and the helpers that hold the rules, so that none is
 * written twice. Not part of the module's interface. All functions need the GIL.
 */
#ifndef TPFEMU_MDLAYOUT_H
#define TPFEMU_MDLAYOUT_H

#include "mdpath.h"

enum { K_INT = 0, K_BLANK = 1, K_NUL = 2 }; /* record field kinds */

#define MAX_FIELDS 32

typedef struct {
    PyObject *name;    /**< interned field name */
    PyObject *initial; /**< the MD's initial value (the class attribute itself) */
    PyObject *dflt;    /**< the value of a message stored without a record */
    long dflt_int;     /**< dflt as a C long (K_INT) */
    int kind, width, offset;
    int source;        /**< where a put takes it from: MD_FROM_* (else the base record) */
} rec_field_t;

/* Where a put takes a record field from (context.py, _source): never from the MD; from
 * it always; with MQPMO_SET_IDENTITY_CONTEXT or SET_ALL_CONTEXT; with SET_ALL only. */
enum { MD_FROM_NEVER = 0, MD_FROM_MD = 1, MD_FROM_IDENTITY = 2, MD_FROM_ALL = 3 };

/* Whether a put in context mode `mode` (MD_CONTEXT_*) takes field f from the MD. */
static inline int md_from_md(const rec_field_t *f, int mode)
{
    return f->source == MD_FROM_MD || (f->source == MD_FROM_IDENTITY && mode >= 1) ||
           (f->source == MD_FROM_ALL && mode == MD_CONTEXT_ALL);
}

/* The MQMD fields the core keeps, and those MQPUT checks, by name. */
enum { D_PRIORITY, D_PERSISTENCE, D_EXPIRY, D_MSGTYPE, D_REPLYTOQ, D_MSGID, D_CORRELID,
       D_PUTDATE, D_PUTTIME, D_BACKOUT, N_DESC };
extern const char *const md_desc_names[N_DESC];
#define N_READ (D_PUTTIME + 1) /* the fields read from an MD: their initials are needed */

typedef struct {
    int ready;
    int version;
    Py_ssize_t size;
    int nfields;
    int expiry_at;
    int group_at;   /**< offset of GroupId (24 bytes) in the record, -1 if it has none */
    int rq_at;      /**< offset of ReplyToQ (48 bytes) in the record, -1 if it has none */
    int rqm_at;     /**< offset of ReplyToQMgr (48 bytes) in the record, -1 if it has none */
    int report_at;  /**< offset of Report (an MQLONG) in the record, -1 if it has none */
    int feedback_at; /**< offset of Feedback (an MQLONG) in the record, -1 if it has none */
    rec_field_t f[MAX_FIELDS];
    char default_record[TPF_MQ_MAX_CTX];
    PyObject *name[N_DESC];
    PyObject *initial[N_READ];
    /** Every name a put reads, to its code: (descriptor index + 1) | (record field
     * index + 1) << 8, either part 0 when the name is not one (MsgType is both). */
    PyObject *index;
    /** Every field MQGET writes, at the value of a message stored without a record
     * (descriptor fields: None, always overwritten): copied as an MD's new dict, so a
     * get fills a dict already sized and holding the defaults. */
    PyObject *get_template;
} md_layout_t;

/** The layout (mdpath.c: md_layout_set), read by mdraw.c too. */
extern md_layout_t md_layout;
#define L md_layout

/* The MD fields a put reads, however the MD is held (a Python MD's dict, a C program's
 * MQMD): its reader fills these (and the ids and the record fields it takes from the MD
 * into the md_put_t), and put_finish applies the rules. */
typedef struct {
    long priority, persistence, expiry, msg_type;
    int reply_blank;       /**< the ReplyToQ is blank (bytes.strip() leaves nothing) */
    int64_t put_time;      /**< SET_ALL_CONTEXT: from PutDate and PutTime; 0: now */
} md_in_t;

/** 1: c is ASCII whitespace as Python's bytes.strip() sees it. */
static inline int md_is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r'); /* (\t \n \v \f \r) */
}

/** 1: an int in MQLONG's signed range, in *out; 0: anything else; -1: error. */
int md_as_i32(PyObject *v, long *out);
/** Store v little-endian at `at` (the record's MQLONGs). */
void md_put_i32(char *at, long v);
/** Python's bytes.strip() leaves nothing of the n bytes at p. */
int md_all_space(const char *p, Py_ssize_t n);
/** SET_ALL_CONTEXT's put time from a PutDate and PutTime: 1 with *us (0: now), 0 when
 * only the full path reads them. */
int md_put_time_of(const char *date, Py_ssize_t dn, const char *clock, Py_ssize_t cn,
                   int64_t *us);
/** The settings' base record into out->record: 1, or -1. */
int md_put_base(const md_put_settings_t *s, md_put_t *out);
/** The rules of MQPUT on what a reader found: 1 with *out complete, 0 declined, -1. */
int md_put_finish(const md_in_t *in, const md_put_settings_t *s, int64_t now, md_put_t *out);
/** PutDate and PutTime (8 characters each) of a time: 0, or -1 with OverflowError. */
int md_format_date_time(int64_t us, char *d, char *c);
/** An MQGET's Expiry: the time left of a message with deadline `expiry`. */
long md_time_left(int64_t expiry, int64_t now);
/** 0 when the layout is set; -1 with RuntimeError. */
int md_check_ready(void);
/** 0 when a got message's record is one this layout wrote, or none; -1 with ValueError. */
int md_check_record(const tpf_mq_msg_t *md, const char *record);
/** Match the layout's fields to the MQMD's (mdraw.c), after md_layout_set. */
void md_raw_setup(void);

#endif
