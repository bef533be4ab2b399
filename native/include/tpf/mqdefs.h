/* mqdefs.h - the MQ completion codes, reason codes, option bits and MQMD values the
 * compiled code uses
 *
 * Names and numbers are IBM's, as cmqc.h has them. This header is the one place in
 * tpfemu where these numbers are written down: tpfemu.mq.cmqc reads them from the
 * compiled module through tpfemu._lowlevel and never retypes them.
 *
 * Return codes
 * ------------
 * Every fallible function of the core returns an int: MQRC_NONE (0) on success, or
 * one of the MQRC_* reason codes below. Codes of the core's own, with no IBM
 * equivalent, start at TPF_RC_BASE (9000), clear of IBM's MQRC_* 2xxx/6xxx and PCF
 * MQRCCF_* 3xxx-4xxx ranges.
 */
#ifndef TPF_MQDEFS_H
#define TPF_MQDEFS_H

/** @defgroup compcodes Completion codes (MQCC_*) @{ */
#define MQCC_OK       0
#define MQCC_WARNING  1
#define MQCC_FAILED   2
/** @} */

/** @defgroup reasons Reason codes (MQRC_*) returned by the core @{ */
#define MQRC_NONE                      0    /**< success */
#define MQRC_BUFFER_LENGTH_ERROR    2005    /**< a length or capacity argument is invalid */
#define MQRC_EXPIRY_ERROR           2013    /**< expiry deadline is zero or negative */
#define MQRC_FEEDBACK_ERROR         2014    /**< Feedback outside NONE and both ranges */
#define MQRC_MISSING_REPLY_TO_Q     2027    /**< a request with a blank ReplyToQ */
#define MQRC_MSG_TYPE_ERROR         2029    /**< MsgType outside both ranges */
#define MQRC_REPORT_OPTIONS_ERROR   2061    /**< a Report bit the QM must reject if unknown */
#define MQRC_MSG_TOO_BIG_FOR_Q      2030    /**< message longer than the queue's MAXMSGL */
#define MQRC_NO_MSG_AVAILABLE       2033    /**< no (matching, visible, unexpired) message */
#define MQRC_NO_MSG_UNDER_CURSOR    2034    /**< the browse cursor is not on a message */
#define MQRC_OPTIONS_ERROR          2046    /**< an invalid combination of option bits */
#define MQRC_PERSISTENCE_ERROR      2047    /**< persistence is not 0 or 1 */
#define MQRC_PRIORITY_EXCEEDS_MAXIMUM 2049  /**< warning: priority above 9, put as 9 */
#define MQRC_PRIORITY_ERROR         2050    /**< priority outside 0..9 */
#define MQRC_Q_FULL                 2053    /**< the queue is at MAXDEPTH */
#define MQRC_STORAGE_NOT_AVAILABLE  2071    /**< the core could not allocate memory */
#define MQRC_TRUNCATED_MSG_ACCEPTED 2079    /**< warning: truncated data returned, message removed */
#define MQRC_TRUNCATED_MSG_FAILED   2080    /**< buffer too small: message left on the queue */
#define MQRC_NO_MSG_LOCKED          2209    /**< MQGMO_UNLOCK with no message locked */
#define MQRC_UOW_IN_PROGRESS        2128    /**< the operation needs no open unit of work */
/** @} */

/** Internal codes start here, clear of every IBM range. */
#define TPF_RC_BASE                 9000
#define TPF_RC_INVALID_ARGUMENT     9001    /**< a NULL pointer or out-of-range argument */
#define TPF_RC_PERSISTENT           9002    /**< a get asked for a non-persistent message
                                                 only, and the message it would take is
                                                 persistent: nothing was done */

/** @defgroup gmo MQGMO_* option bits the core acts on (IBM's values) @{ */
#define MQGMO_BROWSE_FIRST            0x00000010
#define MQGMO_BROWSE_NEXT             0x00000020
#define MQGMO_ACCEPT_TRUNCATED_MSG    0x00000040
#define MQGMO_MSG_UNDER_CURSOR        0x00000100
#define MQGMO_LOCK                    0x00000200
#define MQGMO_UNLOCK                  0x00000400
#define MQGMO_BROWSE_MSG_UNDER_CURSOR 0x00000800
/** @} */

/** @defgroup mo MQMO_* match options the core acts on (IBM's values) @{ */
#define MQMO_NONE            0x00000000
#define MQMO_MATCH_MSG_ID    0x00000001
#define MQMO_MATCH_CORREL_ID 0x00000002
/** @} */

/** @defgroup md MQMD values the shim's put with an MD acts on (IBM's values) @{ */
#define MQMT_SYSTEM_FIRST             1
#define MQMT_REQUEST                  1
#define MQMT_APPL_LAST                999999999
#define MQFB_NONE                     0
#define MQFB_APPL_LAST                999999999
#define MQPER_NOT_PERSISTENT          0
#define MQPER_PERSISTENT              1
#define MQPER_PERSISTENCE_AS_Q_DEF    2
#define MQPRI_PRIORITY_AS_Q_DEF       (-1)
#define MQEI_UNLIMITED                (-1)
/** @} */

/** @defgroup ro MQRO_* report options MQPUT and the plans act on (IBM's values): each
 * type of report, with its strongest form (which holds every bit of the weaker) @{ */
#define MQRO_PAN                       0x00000001
#define MQRO_NAN                       0x00000002
#define MQRO_COA                       0x00000100
#define MQRO_COA_WITH_FULL_DATA        0x00000700
#define MQRO_COD                       0x00000800
#define MQRO_COD_WITH_FULL_DATA        0x00003800
#define MQRO_EXPIRATION_WITH_FULL_DATA 0x00E00000
#define MQRO_EXCEPTION_WITH_FULL_DATA  0x07000000
/** The Report bits an MQPUT fails (MQRC_REPORT_OPTIONS_ERROR) when the queue manager does
 * not support them: none of them is an option tpfemu supports. */
#define MQRO_REJECT_UNSUP_MASK         0x101C0000
/** @} */

/** @defgroup plan MQPMO_* and MQGMO_* bits a handle's plan reads (IBM's values) @{ */
#define MQPMO_SYNCPOINT               0x00000002
#define MQPMO_NO_SYNCPOINT            0x00000004
#define MQPMO_NEW_MSG_ID              0x00000040
#define MQGMO_SYNCPOINT               0x00000002
#define MQGMO_NO_SYNCPOINT            0x00000004
/** @} */

/** MQ priorities run 0..9 (MQPRI_PRIORITY_AS_Q_DEF is resolved above the core). */
#define TPF_MQ_PRIORITIES 10

#endif /* TPF_MQDEFS_H */
