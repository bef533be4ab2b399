/* journal_ipc.c - journal rows as Arrow IPC record-batch messages (see tpf/journal.h)
 *
 * Written from the Arrow columnar format specification ("Serialization and Interprocess
 * Communication", Message.fbs and Schema.fbs): an encapsulated message is the
 * continuation marker 0xFFFFFFFF, the int32 size of the flatbuffer metadata (padded so
 * that the body starts 8-aligned), the metadata, and the body, whose buffers each start
 * at a multiple of 8. The flatbuffer here is always the same shape, so it is laid out
 * by hand at fixed positions (see write_metadata). Arrow IPC is little-endian.
 */
#include "tpf/journal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "journal_ipc.c writes Arrow's little-endian layout with native stores"
#endif

#define NCOLS TPF_JOURNAL_NCOLS

/* What the body below writes, column by column (checked against the segment schema,
 * tpfemu/journal/schema.py SEGMENT_SCHEMA, at import): the journal's columns but seq, cpu
 * and qmgr (stated once, in the segment's metadata), with the ids and the hash as
 * fixed-size binary and the priority as int8 (the readers read them as the journal's
 * types). */
const tpf_journal_column_t tpf_journal_columns[TPF_JOURNAL_NCOLS] = {
    {"event_time_us", "int64", 0}, {"queue", "string", 0}, {"event", "string", 0},
    {"msg_id", "fixed_size_binary[24]", 1}, {"correl_id", "fixed_size_binary[24]", 1},
    {"group_id", "binary", 1},
    {"priority", "int8", 1}, {"persistent", "bool", 1}, {"expiry", "int32", 1},
    {"length", "int32", 1}, {"payload_hash", "fixed_size_binary[8]", 1},
    {"payload", "binary", 1},
    {"uow", "int64", 1}, {"ecb", "int64", 1}, {"program", "string", 1},
    {"detail", "string", 1}, {"msg_type", "int32", 1}, {"format", "string", 1},
    {"reply_to_q", "string", 1}, {"reply_to_qmgr", "string", 1},
};

/* Their buffers, in body order: validity (_V) then values, or validity, offsets (_O) and
 * data (_D) for text and binary columns. */
enum {
    B_TIME_V, B_TIME,
    B_QUEUE_V, B_QUEUE_O, B_QUEUE_D, B_EVENT_V, B_EVENT_O, B_EVENT_D,
    B_MSGID_V, B_MSGID_D, B_CORREL_V, B_CORREL_D,
    B_GROUP_V, B_GROUP_O, B_GROUP_D,
    B_PRIO_V, B_PRIO, B_PERSIST_V, B_PERSIST, B_EXPIRY_V, B_EXPIRY, B_LENGTH_V, B_LENGTH,
    B_HASH_V, B_HASH_D, B_PAYLOAD_V, B_PAYLOAD_O, B_PAYLOAD_D,
    B_UOW_V, B_UOW, B_ECB_V, B_ECB, B_PROG_V, B_PROG_O, B_PROG_D,
    B_DETAIL_V, B_DETAIL_O, B_DETAIL_D, B_MSGTYPE_V, B_MSGTYPE,
    B_FORMAT_V, B_FORMAT_O, B_FORMAT_D, B_REPLYQ_V, B_REPLYQ_O, B_REPLYQ_D,
    B_REPLYQMGR_V, B_REPLYQMGR_O, B_REPLYQMGR_D,
    NBUFS
};

typedef struct {
    int64_t offset, length;
} jbuf_t;

typedef struct {
    int64_t length, null_count;
} jnode_t;

/* Where each column's buffers go in the body. */
typedef struct {
    jnode_t nodes[NCOLS];
    jbuf_t bufs[NBUFS];
    int nn, nb;
    size_t body;
} layout_t;

static size_t pad8(size_t x)
{
    return (x + 7u) & ~(size_t)7u;
}

/* A buffer of `len` bytes: its offset in the body. */
static size_t add_buf(layout_t *L, size_t len)
{
    size_t at = L->body;
    L->bufs[L->nb].offset = (int64_t)at;
    L->bufs[L->nb].length = (int64_t)len;
    L->nb++;
    L->body += pad8(len);
    return at;
}

/* A column: its node; `with_validity` when it has nulls (then the bitmap is a buffer,
 * else an empty one). Returns the validity bitmap's offset (or 0). */
static size_t add_col(layout_t *L, size_t n, size_t nulls)
{
    L->nodes[L->nn].length = (int64_t)n;
    L->nodes[L->nn].null_count = (int64_t)nulls;
    L->nn++;
    return add_buf(L, nulls ? (n + 7u) / 8u : 0u);
}

static inline void set_bit(unsigned char *bits, size_t i)
{
    bits[i >> 3] |= (unsigned char)(1u << (i & 7u));
}

static inline int id_is_zero(const uint8_t *id)
{
    uint64_t w[3];
    memcpy(w, id, sizeof w);
    return (w[0] | w[1] | w[2]) == 0;
}

/* The expiry column: what is left until `deadline` at `t`, in tenths of a second rounded
 * up; -1 for none (TPF_MQ_NEVER), 0 once passed; at most INT32_MAX. */
static int32_t time_left(int64_t deadline, int64_t t)
{
    if (deadline == TPF_MQ_NEVER)
        return -1;
    if (deadline <= t)
        return 0;
    uint64_t left = (uint64_t)deadline - (uint64_t)t; /* > 0, fits: deadline > t */
    uint64_t tenths = (left + 99999u) / 100000u;
    return tenths > INT32_MAX ? INT32_MAX : (int32_t)tenths;
}

/* A text column being filled: its validity bitmap (NULL: the column has no nulls),
 * offsets, data and the data written so far. */
typedef struct {
    unsigned char *valid;
    int32_t *offs;
    unsigned char *data;
    int32_t at;
} text_col_t;

static text_col_t text_col(unsigned char *body, const size_t *at, int v, int o, int d,
                           int nullable)
{
    text_col_t c = {nullable ? body + at[v] : NULL, (int32_t *)(body + at[o]), body + at[d], 0};
    c.offs[0] = 0;
    return c;
}

/* Row i of a text or binary column: `p[0:len]`, or null for p == NULL. */
static inline void text_put(text_col_t *c, size_t i, const void *p, size_t len)
{
    if (p != NULL) {
        if (c->valid != NULL)
            set_bit(c->valid, i);
        memcpy(c->data + c->at, p, len);
        c->at += (int32_t)len;
    }
    c->offs[i + 1] = c->at;
}

/* Row i of a text column: the name at index `ix`, null for -1. */
static inline void name_put(text_col_t *c, size_t i, const tpf_journal_text_t *names, int32_t ix)
{
    if (ix < 0)
        text_put(c, i, NULL, 0);
    else
        text_put(c, i, names[ix].p, names[ix].len);
}

/* Row i of a column of fixed-width binary values (ids, hashes): every row has one. */
static inline void id_put(unsigned char *data, size_t i, const void *p, size_t width)
{
    memcpy(data + i * width, p, width);
}

/* The offsets of a binary column whose rows are all `width` bytes. */
static void fixed_offsets(int32_t *offs, size_t n, size_t width)
{
    int32_t at = 0, step = (int32_t)width;
    for (size_t i = 0; i <= n; i++, at += step)
        offs[i] = at;
}

/* The metadata: a flatbuffer Message{version V5, header RecordBatch{length, nodes,
 * buffers}, bodyLength}, laid out front to back at fixed positions (all offsets below are
 * from the flatbuffer's start, which is 8-aligned in the message):
 *    0  root: uoffset to the Message table (16)
 *    4  Message vtable: size 12, table size 20; fields version 16, header_type 18,
 *       header 4, bodyLength 8
 *   16  Message table: soffset to its vtable (12), header uoffset, bodyLength (at 24),
 *       version (int16 at 32), header_type (uint8 at 34: RecordBatch = 3)
 *   40  RecordBatch vtable: size 10, table size 24; fields length 8, nodes 4, buffers 16
 *   56  RecordBatch table: soffset (16), nodes uoffset (at 60), length (int64 at 64),
 *       buffers uoffset (at 72)
 *   84  nodes vector: count, then FieldNode structs from 88 (8-aligned)
 *  396  buffers vector: count, then Buffer structs from 400
 */
#define MSG_VT 4
#define MSG_T 16
#define RB_VT 40
#define RB_T 56
#define NODES_AT 84
#define BUFS_AT (NODES_AT + 4 + NCOLS * 16)
#define META_LEN (BUFS_AT + 4 + NBUFS * 16)

static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, int64_t v) { memcpy(p, &v, 8); }

static void write_metadata(unsigned char *fb, const layout_t *L, size_t n)
{
    put32(fb + 0, MSG_T);
    static const uint16_t msg_vt[6] = {12, 20, 16, 18, 4, 8};
    for (int i = 0; i < 6; i++)
        put16(fb + MSG_VT + 2 * i, msg_vt[i]);
    put32(fb + MSG_T, (uint32_t)(MSG_T - MSG_VT));
    put32(fb + MSG_T + 4, (uint32_t)(RB_T - (MSG_T + 4)));
    put64(fb + MSG_T + 8, (int64_t)L->body);
    put16(fb + MSG_T + 16, 4); /* MetadataVersion V5 */
    fb[MSG_T + 18] = 3;        /* MessageHeader RecordBatch */
    static const uint16_t rb_vt[5] = {10, 24, 8, 4, 16};
    for (int i = 0; i < 5; i++)
        put16(fb + RB_VT + 2 * i, rb_vt[i]);
    put32(fb + RB_T, (uint32_t)(RB_T - RB_VT));
    put32(fb + RB_T + 4, (uint32_t)(NODES_AT - (RB_T + 4)));
    put64(fb + RB_T + 8, (int64_t)n);
    put32(fb + RB_T + 16, (uint32_t)(BUFS_AT - (RB_T + 16)));
    put32(fb + NODES_AT, NCOLS);
    for (int i = 0; i < NCOLS; i++) {
        put64(fb + NODES_AT + 4 + 16 * i, L->nodes[i].length);
        put64(fb + NODES_AT + 4 + 16 * i + 8, L->nodes[i].null_count);
    }
    put32(fb + BUFS_AT, NBUFS);
    for (int i = 0; i < NBUFS; i++) {
        put64(fb + BUFS_AT + 4 + 16 * i, L->bufs[i].offset);
        put64(fb + BUFS_AT + 4 + 16 * i + 8, L->bufs[i].length);
    }
}

/* Zero what the fill below leaves unwritten: the metadata's padding, every buffer's
 * padding, the validity bitmaps, and the offsets of the columns that are all null. */
static void zero_gaps(unsigned char *body, const layout_t *L, const size_t *at, int payload)
{
    for (int i = 0; i < NBUFS; i++) {
        size_t off = (size_t)L->bufs[i].offset, len = (size_t)L->bufs[i].length;
        memset(body + off + len, 0, pad8(len) - len);
    }
    static const int valid[] = {B_TIME_V, B_QUEUE_V, B_EVENT_V,
        B_MSGID_V, B_CORREL_V, B_GROUP_V, B_PRIO_V, B_PERSIST_V, B_EXPIRY_V, B_LENGTH_V,
        B_HASH_V, B_PAYLOAD_V, B_UOW_V, B_ECB_V, B_PROG_V, B_DETAIL_V, B_MSGTYPE_V,
        B_FORMAT_V, B_REPLYQ_V, B_REPLYQMGR_V, B_PERSIST};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        memset(body + at[valid[i]], 0, (size_t)L->bufs[valid[i]].length);
    memset(body + at[B_DETAIL_O], 0, (size_t)L->bufs[B_DETAIL_O].length);
    if (!payload)
        memset(body + at[B_PAYLOAD_O], 0, (size_t)L->bufs[B_PAYLOAD_O].length);
}

int tpf_journal_encode(const tpf_journal_batch_t *b, tpf_journal_seg_t *out, size_t *out_len)
{
    size_t n = b->n, bits = (n + 7u) / 8u, offs = 4u * (n + 1u);
    size_t queue_bytes = 0, prog_bytes = 0, prog_nulls = 0, group_nulls = 0, ecb_nulls = 0;
    size_t payload_bytes = 0, type_nulls = 0;
    size_t ctx_bytes[3] = {0, 0, 0}, ctx_nulls[3] = {0, 0, 0}; /* format, reply q, qmgr */
    for (size_t i = 0; i < n; i++) {
        const tpf_journal_rec_t *r = &b->recs[i];
        type_nulls += r->msg_type < 0;
        const int32_t texts[3] = {r->format, r->reply_q, r->reply_qmgr};
        for (int c = 0; c < 3; c++) {
            if (texts[c] < 0)
                ctx_nulls[c]++;
            else
                ctx_bytes[c] += b->names[texts[c]].len;
        }
        queue_bytes += b->names[r->queue].len;
        if (r->program < 0)
            prog_nulls++;
        else
            prog_bytes += b->names[r->program].len;
        group_nulls += (size_t)id_is_zero(r->group_id);
        ecb_nulls += r->ecb < 0;
        if (b->data != NULL)
            payload_bytes += (size_t)r->length;
    }
    /* The body's layout, column by column in schema order. */
    layout_t L;
    memset(&L, 0, sizeof L);
    size_t at[NBUFS];
    int k = 0;
#define COL(nulls) (at[k++] = add_col(&L, n, (nulls)))
#define BUF(len) (at[k++] = add_buf(&L, (len)))
    COL(0); BUF(8 * n);                                    /* 0 event_time_us */
    COL(0); BUF(offs); BUF(queue_bytes);                   /* 1 queue */
    COL(0); BUF(offs); BUF(3 * n);                         /* 2 event */
    COL(0); BUF(24 * n);                                   /* 3 msg_id */
    COL(0); BUF(24 * n);                                   /* 4 correl_id */
    COL(group_nulls); BUF(offs); BUF(24 * (n - group_nulls)); /* 5 group_id */
    COL(0); BUF(n);                                        /* 6 priority */
    COL(0); BUF(bits);                                     /* 7 persistent */
    COL(0); BUF(4 * n);                                    /* 8 expiry */
    COL(0); BUF(4 * n);                                    /* 9 length */
    COL(0); BUF(8 * n);                                    /* 10 payload_hash */
    COL(b->data != NULL ? 0 : n); BUF(offs); BUF(payload_bytes); /* 11 payload */
    COL(0); BUF(8 * n);                                    /* 12 uow */
    COL(ecb_nulls); BUF(8 * n);                            /* 13 ecb */
    COL(prog_nulls); BUF(offs); BUF(prog_bytes);           /* 14 program */
    COL(n); BUF(offs); BUF(0);                             /* 15 detail */
    COL(type_nulls); BUF(4 * n);                           /* 16 msg_type */
    for (int c = 0; c < 3; c++) {                          /* 17-19 format, reply_to_q(mgr) */
        COL(ctx_nulls[c]); BUF(offs); BUF(ctx_bytes[c]);
    }
#undef COL
#undef BUF
    /* (k == NBUFS here: the sequence above follows the enum) */
    size_t meta = pad8(META_LEN), total = 8 + meta + L.body;
    unsigned char *msg = tpf_journal_seg_reserve(out, total);
    if (msg == NULL)
        return -1;
    memset(msg, 0, 8 + meta);
    put32(msg, 0xFFFFFFFFu);
    put32(msg + 4, (uint32_t)meta);
    write_metadata(msg + 8, &L, n);
    unsigned char *body = msg + 8 + meta;
    zero_gaps(body, &L, at, b->data != NULL);

    /* The columns whose rows do not depend on the records. */
    fixed_offsets((int32_t *)(body + at[B_EVENT_O]), n, 3);

    /* Everything else, in one pass over the records. */
    static const char kinds[3][3] = {{0, 0, 0}, {'p', 'u', 't'}, {'g', 'e', 't'}};
    int64_t *time_col = (int64_t *)(body + at[B_TIME]);
    int8_t *prio = (int8_t *)(body + at[B_PRIO]);
    int32_t *expiry = (int32_t *)(body + at[B_EXPIRY]);
    int32_t *length = (int32_t *)(body + at[B_LENGTH]);
    unsigned char *persistent = body + at[B_PERSIST];
    int64_t *uow = (int64_t *)(body + at[B_UOW]), *ecb = (int64_t *)(body + at[B_ECB]);
    int32_t *msg_type = (int32_t *)(body + at[B_MSGTYPE]);
    unsigned char *ecb_valid = ecb_nulls ? body + at[B_ECB_V] : NULL;
    unsigned char *type_valid = type_nulls ? body + at[B_MSGTYPE_V] : NULL;
    unsigned char *event = body + at[B_EVENT_D], *msg_id = body + at[B_MSGID_D];
    unsigned char *correl_id = body + at[B_CORREL_D], *hash = body + at[B_HASH_D];
    text_col_t queue = text_col(body, at, B_QUEUE_V, B_QUEUE_O, B_QUEUE_D, 0);
    text_col_t program = text_col(body, at, B_PROG_V, B_PROG_O, B_PROG_D, prog_nulls != 0);
    text_col_t group = text_col(body, at, B_GROUP_V, B_GROUP_O, B_GROUP_D, group_nulls != 0);
    text_col_t format = text_col(body, at, B_FORMAT_V, B_FORMAT_O, B_FORMAT_D, ctx_nulls[0] != 0);
    text_col_t reply_q = text_col(body, at, B_REPLYQ_V, B_REPLYQ_O, B_REPLYQ_D, ctx_nulls[1] != 0);
    text_col_t reply_qmgr = text_col(body, at, B_REPLYQMGR_V, B_REPLYQMGR_O, B_REPLYQMGR_D,
                                     ctx_nulls[2] != 0);
    int32_t *po = (int32_t *)(body + at[B_PAYLOAD_O]);
    unsigned char *pd = body + at[B_PAYLOAD_D];
    int32_t pat = 0;
    if (b->data != NULL)
        po[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const tpf_journal_rec_t *r = &b->recs[i];
        time_col[i] = r->time_us;
        prio[i] = (int8_t)r->priority;
        if (r->persistent)
            set_bit(persistent, i);
        expiry[i] = time_left(r->deadline, r->time_us);
        length[i] = r->length;
        uow[i] = r->uow;
        ecb[i] = r->ecb < 0 ? 0 : r->ecb;
        if (ecb_valid != NULL && r->ecb >= 0)
            set_bit(ecb_valid, i);
        msg_type[i] = r->msg_type < 0 ? 0 : r->msg_type;
        if (type_valid != NULL && r->msg_type >= 0)
            set_bit(type_valid, i);
        memcpy(event + 3 * i, kinds[r->kind < 3 ? r->kind : 0], 3);
        id_put(msg_id, i, r->msg_id, 24);
        id_put(correl_id, i, r->correl_id, 24);
        id_put(hash, i, r->hash, 8);
        text_put(&group, i, id_is_zero(r->group_id) ? NULL : r->group_id, 24);
        const tpf_journal_text_t *q = &b->names[r->queue];
        text_put(&queue, i, q->p, q->len);
        name_put(&program, i, b->names, r->program);
        name_put(&format, i, b->names, r->format);
        name_put(&reply_q, i, b->names, r->reply_q);
        name_put(&reply_qmgr, i, b->names, r->reply_qmgr);
        if (b->data != NULL) {
            memcpy(pd + pat, b->data + r->data_off, (size_t)r->length);
            pat += r->length;
            po[i + 1] = pat;
        }
    }
    out->used += total;
    *out_len = total;
    return 0;
}
