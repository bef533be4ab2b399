/* journal_record.c - one journal record of a put or get, with its payload hash
 * (see tpf/journal.h) */
#include "tpf/journal.h"

#include <string.h>

/* The payload hash of data[0:length] into r->hash, by way of the recent puts (see
 * tpf_journal_record), and r->hash_state. */
static void event_hash(tpf_journal_rec_t *r, tpf_journal_recent_t *recent, int kind,
                       const void *q, const tpf_mq_msg_t *md, const void *data,
                       size_t length, int how, uint64_t recno)
{
    tpf_journal_recent_t *slot = NULL;
    r->hash_state = TPF_JOURNAL_HASHED;
    if (recent != NULL && q != NULL)
        slot = &recent[md->seq & (TPF_JOURNAL_RECENT_PUTS - 1)];
    if (kind == TPF_JOURNAL_GET && slot != NULL && slot->q == q && slot->seq == md->seq &&
        slot->put_time == md->put_time) {
        if (slot->known) {
            memcpy(r->hash, slot->hash, 8);
            return;
        }
        if (recno - slot->recno < TPF_JOURNAL_PUT_RING) {
            memcpy(r->hash, &slot->recno, 8);
            r->hash_state = TPF_JOURNAL_HASH_OF_PUT;
            return;
        }
    }
    int held = kind == TPF_JOURNAL_PUT && how == TPF_JOURNAL_HASH_DEFER;
    if (held) {
        memset(r->hash, 0, 8);
        r->hash_state = TPF_JOURNAL_HASH_HELD;
    } else {
        tpf_payload_hash64((const uint8_t *)data, length, r->hash);
    }
    if (kind == TPF_JOURNAL_PUT && slot != NULL) {
        slot->q = q;
        slot->seq = md->seq;
        slot->put_time = md->put_time;
        slot->recno = recno;
        slot->known = !held;
        memcpy(slot->hash, r->hash, 8);
    }
}

static tpf_journal_ctx_layout_t ctx_layout; /* size 0: none known */
static uint32_t ctx_generation;

void tpf_journal_set_ctx_layout(const tpf_journal_ctx_layout_t *layout)
{
    ctx_layout = *layout;
    ctx_generation++;
}

uint32_t tpf_journal_ctx_generation(void)
{
    return ctx_generation;
}

tpf_journal_text_t tpf_journal_text_trim(tpf_journal_text_t field)
{
    tpf_journal_text_t t = {NULL, 0};
    size_t len = field.p != NULL ? field.len : 0;
    while (len > 0 && (field.p[len - 1] == ' ' || field.p[len - 1] == '\0'))
        len--;
    if (len > 0) {
        t.p = field.p;
        t.len = len;
    }
    return t;
}

/* The text field of `width` bytes at `at` of the record, as it is ({NULL, 0}: not in
 * the layout). */
static tpf_journal_text_t field_raw(const char *record, int32_t at, size_t width)
{
    tpf_journal_text_t t = {NULL, 0};
    if (at >= 0) {
        t.p = record + at;
        t.len = width;
    }
    return t;
}

/* 1 when ctx is a context record of the layout's. */
static int ctx_known(const char *ctx, uint32_t ctx_len)
{
    const tpf_journal_ctx_layout_t *L = &ctx_layout;
    return ctx != NULL && ctx_len != 0 && L->size > 0 && ctx_len == (uint32_t)L->size &&
           (uint8_t)ctx[0] == L->version;
}

void tpf_journal_ctx_fields(const void *ctx, uint32_t ctx_len, tpf_journal_text_t out[3])
{
    const tpf_journal_ctx_layout_t *L = &ctx_layout;
    static const tpf_journal_text_t none = {NULL, 0};
    out[0] = out[1] = out[2] = none;
    if (!ctx_known(ctx, ctx_len))
        return;
    out[0] = field_raw(ctx, L->format_at, 8);
    out[1] = field_raw(ctx, L->reply_q_at, 48);
    out[2] = field_raw(ctx, L->reply_qmgr_at, 48);
}

const uint8_t *tpf_journal_ctx_group_id(const void *ctx, uint32_t ctx_len)
{
    static const uint8_t none[TPF_MQ_ID_LEN];
    if (!ctx_known(ctx, ctx_len) || ctx_layout.group_id_at < 0)
        return NULL;
    const uint8_t *id = (const uint8_t *)ctx + ctx_layout.group_id_at;
    return memcmp(id, none, TPF_MQ_ID_LEN) == 0 ? NULL : id;
}

/* MsgType from the context record, if it is one of the layout's (a message without one
 * has the default put context's). */
static int32_t context_msg_type(const char *ctx, uint32_t ctx_len)
{
    const tpf_journal_ctx_layout_t *L = &ctx_layout;
    if (ctx == NULL || ctx_len == 0)
        return L->size > 0 ? L->default_msg_type : -1;
    if (!ctx_known(ctx, ctx_len))
        return -1;
    int32_t mt = -1;
    if (L->msg_type_at >= 0)
        memcpy(&mt, ctx + L->msg_type_at, 4); /* (the record is little-endian: "<") */
    return mt;
}

void tpf_journal_record(tpf_journal_rec_t *r, tpf_journal_recent_t *recent, int kind,
                        const void *q, const tpf_mq_msg_t *md, const uint8_t *group_id,
                        const void *ctx, uint32_t ctx_len, const void *data, size_t length,
                        const tpf_journal_origin_t *origin, int hash)
{
    r->time_us = origin->time_us;
    r->deadline = md->expiry;
    r->uow = (int64_t)origin->uow;
    r->ecb = origin->ecb;
    r->data_off = origin->data_off;
    memcpy(r->msg_id, md->msg_id, TPF_MQ_ID_LEN);
    memcpy(r->correl_id, md->correl_id, TPF_MQ_ID_LEN);
    if (group_id != NULL)
        memcpy(r->group_id, group_id, TPF_MQ_ID_LEN);
    else
        memset(r->group_id, 0, TPF_MQ_ID_LEN);
    r->length = (int32_t)length;
    r->queue = origin->queue;
    r->program = origin->program;
    r->kind = (uint8_t)kind;
    r->priority = md->priority;
    r->persistent = md->persistent;
    r->msg_type = context_msg_type((const char *)ctx, ctx_len);
    r->format = origin->texts[0];
    r->reply_q = origin->texts[1];
    r->reply_qmgr = origin->texts[2];
    /* Hashed here, while the data is in the cache (the core has just copied it), unless
     * the caller holds a put's data for the writer (no copy). */
    if (hash != TPF_JOURNAL_HASH_NONE) {
        event_hash(r, recent, kind, q, md, data, length, hash, origin->recno);
    } else {
        memset(r->hash, 0, sizeof r->hash);
        r->hash_state = TPF_JOURNAL_HASHED;
    }
}
