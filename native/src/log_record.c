/* log_record.c - the recovery log's PUT record, written in C (see tpf/logrec.h) */
#include <string.h>

#include "tpf/logrec.h"

_Static_assert(TPF_LOG_PUT_HEAD == TPF_LOG_REC + TPF_MQ_PACKED_DESC,
               "a PUT record's head is the record header and a packed descriptor");

static void st32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void st64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void tpf_log_record(unsigned char *out, int kind, uint32_t qid, uint32_t backouts, uint64_t uow,
                    uint64_t key)
{
    memset(out, 0, TPF_LOG_REC);
    out[TPF_LOG_REC_KIND] = (unsigned char)kind;
    st32(out + TPF_LOG_REC_QID, qid);
    st32(out + TPF_LOG_REC_BACKOUTS, backouts);
    st64(out + TPF_LOG_REC_UOW, uow);
    st64(out + TPF_LOG_REC_KEY, key);
}

void tpf_log_put_record(unsigned char *out, uint32_t qid, uint64_t uow, const tpf_mq_msg_t *md,
                        const void *ctx, const void *data, uint32_t len)
{
    tpf_log_record(out, TPF_LOG_PUT, qid, 0, uow, 0);
    unsigned char *d = out + TPF_LOG_REC; /* the descriptor; its key (tag) stays 0 */
    memset(d, 0, TPF_MQ_PACKED_DESC);
    memcpy(d + TPF_LOG_DESC_MSGID, md->msg_id, TPF_MQ_ID_LEN);
    memcpy(d + TPF_LOG_DESC_CORRELID, md->correl_id, TPF_MQ_ID_LEN);
    d[TPF_LOG_DESC_PRIORITY] = md->priority;
    st64(d + TPF_LOG_DESC_EXPIRY, (uint64_t)md->expiry);
    st64(d + TPF_LOG_DESC_PUT_TIME, (uint64_t)md->put_time);
    st32(d + TPF_LOG_DESC_CTX_LEN, md->ctx_len);
    st32(d + TPF_LOG_DESC_BACKOUTS, (uint32_t)md->backout_count);
    st32(d + TPF_LOG_DESC_LENGTH, md->ctx_len + len);
    if (md->ctx_len)
        memcpy(out + TPF_LOG_PUT_HEAD, ctx, md->ctx_len);
    if (len)
        memcpy(out + TPF_LOG_PUT_HEAD + md->ctx_len, data, len);
}
