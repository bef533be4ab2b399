/* journal_record.c - one journal record of a put or get, with its payload hash
 * (see tpf/journal.h) */
#include "tpf/journal.h"

#include <string.h>

/* The payload hash of data[0:length] into out, by way of the recent puts (see
 * tpf_journal_record). */
static void event_hash(tpf_journal_recent_t *recent, int kind, const void *q,
                       const tpf_mq_msg_t *md, const void *data, size_t length, uint8_t out[8])
{
    tpf_journal_recent_t *slot = NULL;
    if (recent != NULL && q != NULL)
        slot = &recent[md->seq & (TPF_JOURNAL_RECENT_PUTS - 1)];
    if (kind == TPF_JOURNAL_GET && slot != NULL && slot->q == q && slot->seq == md->seq &&
        slot->put_time == md->put_time) {
        memcpy(out, slot->hash, 8);
        return;
    }
    tpf_payload_hash64((const uint8_t *)data, length, out);
    if (kind == TPF_JOURNAL_PUT && slot != NULL) {
        slot->q = q;
        slot->seq = md->seq;
        slot->put_time = md->put_time;
        memcpy(slot->hash, out, 8);
    }
}

void tpf_journal_record(tpf_journal_rec_t *r, tpf_journal_recent_t *recent, int kind,
                        const void *q, const tpf_mq_msg_t *md, const uint8_t *group_id,
                        const void *data, size_t length, const tpf_journal_origin_t *origin,
                        int hash)
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
    r->pad = 0;
    /* Hashed here, while the data is in the cache (the core has just copied it): keeping
     * it for the writer instead costs more, as memory traffic, than hashing it. */
    if (hash)
        event_hash(recent, kind, q, md, data, length, r->hash);
    else
        memset(r->hash, 0, sizeof r->hash);
}
