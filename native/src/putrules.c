/* putrules.c - MQPUT's rules for the MQMD fields the core keeps (see tpf/putrules.h) */
#include "tpf/putrules.h"

#include "tpf/mqdefs.h"
#include "tpf/queue.h"

/* Every type of report a Report can ask for: each one is sent to the ReplyToQ. */
#define REPORTS_WANTED                                                                  \
    (MQRO_EXCEPTION_WITH_FULL_DATA | MQRO_EXPIRATION_WITH_FULL_DATA |                    \
     MQRO_COA_WITH_FULL_DATA | MQRO_COD_WITH_FULL_DATA | MQRO_PAN | MQRO_NAN)

int tpf_mq_put_rules(int32_t priority, int32_t persistence, int32_t expiry, int32_t msg_type,
                     int32_t report, int32_t feedback, int reply_to_blank, int32_t defprty,
                     int defpsist, int64_t now, tpf_mq_put_desc_t *out)
{
    int warning = MQRC_NONE;
    if (priority == MQPRI_PRIORITY_AS_Q_DEF)
        priority = defprty;
    else if (priority >= TPF_MQ_PRIORITIES) {
        priority = TPF_MQ_PRIORITIES - 1;
        warning = MQRC_PRIORITY_EXCEEDS_MAXIMUM;
    } else if (priority < 0)
        return MQRC_PRIORITY_ERROR;
    int persistent;
    if (persistence == MQPER_PERSISTENCE_AS_Q_DEF)
        persistent = defpsist != 0;
    else if (persistence == MQPER_NOT_PERSISTENT || persistence == MQPER_PERSISTENT)
        persistent = persistence == MQPER_PERSISTENT;
    else
        return MQRC_PERSISTENCE_ERROR;
    int64_t deadline;
    if (expiry == MQEI_UNLIMITED)
        deadline = TPF_MQ_NEVER;
    else if (expiry > 0)
        deadline = now + (int64_t)expiry * 100000;
    else
        return MQRC_EXPIRY_ERROR;
    if (msg_type < MQMT_SYSTEM_FIRST || msg_type > MQMT_APPL_LAST)
        return MQRC_MSG_TYPE_ERROR;
    if (feedback < MQFB_NONE || feedback > MQFB_APPL_LAST)
        return MQRC_FEEDBACK_ERROR;
    if ((uint32_t)report & MQRO_REJECT_UNSUP_MASK)
        return MQRC_REPORT_OPTIONS_ERROR;
    if (reply_to_blank && (msg_type == MQMT_REQUEST || ((uint32_t)report & REPORTS_WANTED)))
        return MQRC_MISSING_REPLY_TO_Q;
    out->priority = priority;
    out->persistent = persistent;
    out->expiry = deadline;
    return warning;
}
