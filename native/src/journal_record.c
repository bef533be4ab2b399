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

void tpf_journal_set_ctx_layout(const tpf_journal_ctx_layout_t *layout)
{
    ctx_layout = *layout;
}

/* A blank-padded text field of `width` bytes at `at` of the record into `out`; its length
 * without trailing blanks and NULs. */
static uint8_t copy_text(char *out, const char *record, int32_t at, size_t width)
{
    if (at < 0)
        return 0;
    memcpy(out, record + at, width);
    size_t len = width;
    while (len > 0 && (out[len - 1] == ' ' || out[len - 1] == '\0'))
        len--;
    return (uint8_t)len;
}

/* MsgType, Format, ReplyToQ and ReplyToQMgr from the context record, if it is one of the
 * layout's (a message without one has the default put context: blank texts). */
static void copy_context(tpf_journal_rec_t *r, const char *ctx, uint32_t ctx_len)
{
    const tpf_journal_ctx_layout_t *L = &ctx_layout;
    r->format_len = r->reply_q_len = r->reply_qmgr_len = 0;
    r->pad2 = 0;
    if (ctx == NULL || ctx_len == 0) {
        r->msg_type = L->size > 0 ? L->default_msg_type : -1;
        return;
    }
    if (L->size <= 0 || ctx_len != (uint32_t)L->size || (uint8_t)ctx[0] != L->version) {
        r->msg_type = -1;
        return;
    }
    int32_t mt = -1;
    if (L->msg_type_at >= 0)
        memcpy(&mt, ctx + L->msg_type_at, 4); /* (the record is little-endian: "<") */
    r->msg_type = mt;
    r->format_len = copy_text(r->format, ctx, L->format_at, sizeof r->format);
    r->reply_q_len = copy_text(r->reply_q, ctx, L->reply_q_at, sizeof r->reply_q);
    r->reply_qmgr_len = copy_text(r->reply_qmgr, ctx, L->reply_qmgr_at, sizeof r->reply_qmgr);
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
    copy_context(r, (const char *)ctx, ctx_len);
    /* Hashed here, while the data is in the cache (the core has just copied it), unless
     * the caller holds a put's data for the writer (no copy). */
    if (hash != TPF_JOURNAL_HASH_NONE) {
        event_hash(r, recent, kind, q, md, data, length, hash, origin->recno);
    } else {
        memset(r->hash, 0, sizeof r->hash);
        r->hash_state = TPF_JOURNAL_HASHED;
    }
}
