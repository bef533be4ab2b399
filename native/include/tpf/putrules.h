/* putrules.h - MQPUT's rules for the MQMD fields the core keeps
 *
 * One place for them: the put of a handle's plan (native/python/mdpath.c) and the full
 * path of MQPUT (tpfemu/qmgr/mqput.py, through cffi) both call tpf_mq_put_rules.
 * IBM's MQI reference (MQMD):
 *  - Priority: MQPRI_PRIORITY_AS_Q_DEF takes the queue's DEFPRTY; 0..9 as given; above 9
 *    the message is put with priority 9 and the call warns
 *    MQRC_PRIORITY_EXCEEDS_MAXIMUM; below -1 fails MQRC_PRIORITY_ERROR.
 *  - Persistence: MQPER_PERSISTENCE_AS_Q_DEF takes DEFPSIST; MQPER_PERSISTENT and
 *    MQPER_NOT_PERSISTENT as given; anything else fails MQRC_PERSISTENCE_ERROR.
 *  - Expiry (tenths of a second): MQEI_UNLIMITED never expires; above 0 the deadline is
 *    the put time plus that much; 0 or below -1 fails MQRC_EXPIRY_ERROR.
 *  - MsgType: the system range (MQMT_SYSTEM_FIRST..SYSTEM_LAST) or the application
 *    range (MQMT_APPL_FIRST..APPL_LAST), 1..999999999; else MQRC_MSG_TYPE_ERROR.
 *  - Feedback: MQFB_NONE, the system range or the application range, 0..999999999,
 *    whatever the MsgType; else MQRC_FEEDBACK_ERROR.
 *  - Report: a bit of MQRO_REJECT_UNSUP_MASK (none is an option this queue manager
 *    supports) fails MQRC_REPORT_OPTIONS_ERROR.
 *  - MsgType MQMT_REQUEST, or a Report asking for any report (exception, expiration,
 *    COA, COD, PAN or NAN), with a blank ReplyToQ fails MQRC_MISSING_REPLY_TO_Q.
 * The checks run in that order; the first failure is the call's reason.
 */
#ifndef TPF_PUTRULES_H
#define TPF_PUTRULES_H

#include <stdint.h>

/** What a put's MQMD fields come to. */
typedef struct {
    int32_t priority;    /**< 0..9 */
    int32_t persistent;  /**< 1: persistent */
    int64_t expiry;      /**< absolute deadline in microseconds; TPF_MQ_NEVER: none */
} tpf_mq_put_desc_t;

/**
 * Apply MQPUT's rules to an MQMD's Priority, Persistence, Expiry, MsgType, Report and
 * Feedback.
 * @param reply_to_blank nonzero when the MD's ReplyToQ is blank
 * @param defprty, defpsist the DEFPRTY and DEFPSIST (nonzero: YES) of the first
 *        definition in the queue's resolution path
 * @param now the put time in microseconds
 * @return MQRC_NONE or MQRC_PRIORITY_EXCEEDS_MAXIMUM (a warning) with *out filled;
 *         MQRC_PRIORITY_ERROR, MQRC_PERSISTENCE_ERROR, MQRC_EXPIRY_ERROR,
 *         MQRC_MSG_TYPE_ERROR, MQRC_FEEDBACK_ERROR, MQRC_REPORT_OPTIONS_ERROR or
 *         MQRC_MISSING_REPLY_TO_Q with *out unchanged.
 */
int tpf_mq_put_rules(int32_t priority, int32_t persistence, int32_t expiry, int32_t msg_type,
                     int32_t report, int32_t feedback, int reply_to_blank, int32_t defprty,
                     int defpsist, int64_t now, tpf_mq_put_desc_t *out);

#endif /* TPF_PUTRULES_H */
