/* cmqc.h - the MQI for C programs run by tpfemu (ISO C)
 *
 * Written for tpfemu from IBM's published definitions of the MQI: the names, values,
 * structure layouts and call signatures are IBM's (facts); the text is ours. Programs
 * written for IBM's cmqc.h (TPF's <tpf/cmqc.h>, the MQ sample programs) compile
 * against it unchanged as far as they use what a TPF local queue manager offers.
 *
 * Where the numbers come from:
 *   - tpf/mqdefs.h: the reason codes and options the compiled core acts on;
 *   - tpf/cmqc_values.h: every other constant, generated from tpfemu.mq.cmqc (run
 *     `python -m tpfemu.cprog.genheader`); tests/cprog/test_cprog_headers.py compiles a
 *     program printing every constant, size and offset and compares them with Python.
 *
 * Layouts are those of x86-64 Linux (MQENC_NATIVE 0x222, 8-byte MQPTR, as IBM's 64-bit
 * header): MQMD, MQGMO, MQTM, MQTMC2, MQXQH and MQDLH have IBM's byte layout at
 * every version; MQOD, MQPMO, MQCNO and MQCSP, which hold pointers, have IBM's 64-bit
 * lengths (MQOD_LENGTH_2..4 = 208/344/424, MQPMO_LENGTH_2..3 = 160/184,
 * MQCNO_LENGTH_2..5 = 24/152/168/200, MQCSP_LENGTH_1 = 56). MQCONNX reads only the
 * version-1 fields of an MQCNO (there are no client connections here).
 *
 * Character fields of the ..._DEFAULT initializers are null strings, as in IBM's C
 * header: the runtime reads a character field up to its first null and treats the rest
 * as blanks, and writes character fields back padded with blanks.
 */
#ifndef TPFEMU_CMQC_H
#define TPFEMU_CMQC_H

#include <stdint.h>

#include "tpf/mqdefs.h"
#include "tpf/cmqc_values.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IBM's header says it is the 64-bit one (8-byte pointers, MQLONG an int): programs test
 * it, e.g. to print an MQLONG with %d rather than %ld. */
#if defined(__LP64__) && !defined(MQ_64_BIT)
#define MQ_64_BIT
#endif

/* -- elementary types ------------------------------------------------------------------ */
typedef int32_t MQLONG;
typedef uint32_t MQULONG;
typedef int64_t MQINT64;
typedef uint64_t MQUINT64;
typedef char MQCHAR;
typedef unsigned char MQBYTE;
typedef void *MQPTR;
typedef void *PMQVOID;
typedef MQLONG MQHCONN;
typedef MQLONG MQHOBJ;
typedef MQINT64 MQHMSG;
typedef MQLONG MQBOOL;

typedef MQCHAR MQCHAR4[4];
typedef MQCHAR MQCHAR8[8];
typedef MQCHAR MQCHAR12[12];
typedef MQCHAR MQCHAR28[28];
typedef MQCHAR MQCHAR32[32];
typedef MQCHAR MQCHAR48[48];
typedef MQCHAR MQCHAR64[64];
typedef MQCHAR MQCHAR128[128];
typedef MQCHAR MQCHAR256[256];
typedef MQBYTE MQBYTE16[16];
typedef MQBYTE MQBYTE24[24];
typedef MQBYTE MQBYTE32[32];
typedef MQBYTE MQBYTE40[40];

typedef MQBYTE MQBYTE4[4];
typedef MQBYTE MQBYTE8[8];
typedef MQBYTE MQBYTE48[48];
typedef MQBYTE MQBYTE128[128];
typedef MQCHAR MQCHAR16[16];
typedef MQCHAR MQCHAR20[20];
typedef MQCHAR MQCHAR264[264];
typedef signed char MQINT8;
typedef unsigned char MQUINT8;
typedef short MQINT16;
typedef unsigned short MQUINT16;
typedef MQLONG MQINT32;
typedef MQULONG MQUINT32;
typedef float MQFLOAT32;
typedef double MQFLOAT64;
typedef MQLONG MQPID;
typedef MQLONG MQTID;

/* The pointer types of IBM's header: P... points at the type, PP... at a P... */
typedef MQBYTE *PMQBYTE;
typedef PMQBYTE *PPMQBYTE;
typedef MQBYTE4 *PMQBYTE4;
typedef MQBYTE8 *PMQBYTE8;
typedef MQBYTE16 *PMQBYTE16;
typedef MQBYTE24 *PMQBYTE24;
typedef MQBYTE32 *PMQBYTE32;
typedef MQBYTE40 *PMQBYTE40;
typedef MQBYTE48 *PMQBYTE48;
typedef MQBYTE128 *PMQBYTE128;
typedef MQCHAR *PMQCHAR;
typedef PMQCHAR *PPMQCHAR;
typedef MQCHAR4 *PMQCHAR4;
typedef MQCHAR8 *PMQCHAR8;
typedef MQCHAR12 *PMQCHAR12;
typedef MQCHAR16 *PMQCHAR16;
typedef MQCHAR20 *PMQCHAR20;
typedef MQCHAR28 *PMQCHAR28;
typedef MQCHAR32 *PMQCHAR32;
typedef MQCHAR48 *PMQCHAR48;
typedef MQCHAR64 *PMQCHAR64;
typedef MQCHAR128 *PMQCHAR128;
typedef MQCHAR256 *PMQCHAR256;
typedef MQCHAR264 *PMQCHAR264;
typedef MQLONG *PMQLONG;
typedef PMQLONG *PPMQLONG;
typedef MQULONG *PMQULONG;
typedef PMQULONG *PPMQULONG;
typedef MQINT8 *PMQINT8;
typedef PMQINT8 *PPMQINT8;
typedef MQUINT8 *PMQUINT8;
typedef PMQUINT8 *PPMQUINT8;
typedef MQINT16 *PMQINT16;
typedef PMQINT16 *PPMQINT16;
typedef MQUINT16 *PMQUINT16;
typedef PMQUINT16 *PPMQUINT16;
typedef PMQLONG PMQINT32;
typedef PPMQLONG PPMQINT32;
typedef PMQULONG PMQUINT32;
typedef PPMQULONG PPMQUINT32;
typedef MQINT64 *PMQINT64;
typedef PMQINT64 *PPMQINT64;
typedef MQUINT64 *PMQUINT64;
typedef PMQUINT64 *PPMQUINT64;
typedef MQFLOAT32 *PMQFLOAT32;
typedef PMQFLOAT32 *PPMQFLOAT32;
typedef MQFLOAT64 *PMQFLOAT64;
typedef PMQFLOAT64 *PPMQFLOAT64;
typedef MQHCONN *PMQHCONN;
typedef PMQHCONN *PPMQHCONN;
typedef MQHOBJ *PMQHOBJ;
typedef PMQHOBJ *PPMQHOBJ;
typedef MQPTR *PMQPTR;
typedef void *PMQFUNC;
typedef PMQVOID *PPMQVOID;
typedef MQBOOL *PMQBOOL;
typedef PMQBOOL *PPMQBOOL;
typedef MQHMSG *PMQHMSG;
typedef PMQHMSG *PPMQHMSG;
typedef MQPID *PMQPID;
typedef MQTID *PMQTID;

#define MQENTRY
#define MQPOINTER *

/* The MQCHARn fields are fixed-length, blank-padded, not null-terminated: programs fill
 * them with strncpy(field, name, MQ_Q_NAME_LENGTH) as IBM's samples do, which GCC 8 and
 * later would flag (-Wstringop-truncation) without this attribute on the members. */
#if defined(__GNUC__) && __GNUC__ >= 8
#define MQ_NONSTRING __attribute__((__nonstring__))
#else
#define MQ_NONSTRING
#endif

/* -- MQMD: message descriptor (324 bytes at version 1, 364 at version 2) --------------- */
typedef struct tagMQMD1 {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG Report;
    MQLONG MsgType;
    MQLONG Expiry;
    MQLONG Feedback;
    MQLONG Encoding;
    MQLONG CodedCharSetId;
    MQCHAR8 Format MQ_NONSTRING;
    MQLONG Priority;
    MQLONG Persistence;
    MQBYTE24 MsgId;
    MQBYTE24 CorrelId;
    MQLONG BackoutCount;
    MQCHAR48 ReplyToQ MQ_NONSTRING;
    MQCHAR48 ReplyToQMgr MQ_NONSTRING;
    MQCHAR12 UserIdentifier MQ_NONSTRING;
    MQBYTE32 AccountingToken;
    MQCHAR32 ApplIdentityData MQ_NONSTRING;
    MQLONG PutApplType;
    MQCHAR28 PutApplName MQ_NONSTRING;
    MQCHAR8 PutDate MQ_NONSTRING;
    MQCHAR8 PutTime MQ_NONSTRING;
    MQCHAR4 ApplOriginData MQ_NONSTRING;
} MQMD1;
typedef MQMD1 *PMQMD1;

typedef struct tagMQMD {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG Report;
    MQLONG MsgType;
    MQLONG Expiry;
    MQLONG Feedback;
    MQLONG Encoding;
    MQLONG CodedCharSetId;
    MQCHAR8 Format MQ_NONSTRING;
    MQLONG Priority;
    MQLONG Persistence;
    MQBYTE24 MsgId;
    MQBYTE24 CorrelId;
    MQLONG BackoutCount;
    MQCHAR48 ReplyToQ MQ_NONSTRING;
    MQCHAR48 ReplyToQMgr MQ_NONSTRING;
    MQCHAR12 UserIdentifier MQ_NONSTRING;
    MQBYTE32 AccountingToken;
    MQCHAR32 ApplIdentityData MQ_NONSTRING;
    MQLONG PutApplType;
    MQCHAR28 PutApplName MQ_NONSTRING;
    MQCHAR8 PutDate MQ_NONSTRING;
    MQCHAR8 PutTime MQ_NONSTRING;
    MQCHAR4 ApplOriginData MQ_NONSTRING;
    MQBYTE24 GroupId;
    MQLONG MsgSeqNumber;
    MQLONG Offset;
    MQLONG MsgFlags;
    MQLONG OriginalLength;
} MQMD;
typedef MQMD MQMD2;
typedef MQMD *PMQMD;
typedef PMQMD *PPMQMD;
typedef MQMD2 *PMQMD2;

#define MQMD1_DEFAULT {MQMD_STRUC_ID_ARRAY}, MQMD_VERSION_1, MQRO_NONE, MQMT_DATAGRAM, \
    MQEI_UNLIMITED, MQFB_NONE, MQENC_NATIVE, MQCCSI_Q_MGR, {MQFMT_NONE_ARRAY}, \
    MQPRI_PRIORITY_AS_Q_DEF, MQPER_PERSISTENCE_AS_Q_DEF, {MQMI_NONE_ARRAY}, \
    {MQCI_NONE_ARRAY}, 0, {""}, {""}, {""}, {MQACT_NONE_ARRAY}, {""}, MQAT_NO_CONTEXT, \
    {""}, {""}, {""}, {""}
#define MQMD_DEFAULT MQMD1_DEFAULT, {MQGI_NONE_ARRAY}, 1, 0, MQMF_NONE, MQOL_UNDEFINED
#define MQMD2_DEFAULT MQMD_DEFAULT

/* -- MQOD: object descriptor ------------------------------------------------------------ */
typedef struct tagMQCHARV {
    MQPTR VSPtr;
    MQLONG VSOffset;
    MQLONG VSBufSize;
    MQLONG VSLength;
    MQLONG VSCCSID;
} MQCHARV;
typedef MQCHARV *PMQCHARV;
#define MQCHARV_DEFAULT NULL, 0, 0, 0, MQCCSI_APPL

typedef struct tagMQOD {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG ObjectType;
    MQCHAR48 ObjectName MQ_NONSTRING;
    MQCHAR48 ObjectQMgrName MQ_NONSTRING;
    MQCHAR48 DynamicQName MQ_NONSTRING;
    MQCHAR12 AlternateUserId MQ_NONSTRING;
    MQLONG RecsPresent;          /* version 2 */
    MQLONG KnownDestCount;
    MQLONG UnknownDestCount;
    MQLONG InvalidDestCount;
    MQLONG ObjectRecOffset;
    MQLONG ResponseRecOffset;
    MQPTR ObjectRecPtr;
    MQPTR ResponseRecPtr;
    MQBYTE40 AlternateSecurityId; /* version 3 */
    MQCHAR48 ResolvedQName MQ_NONSTRING;
    MQCHAR48 ResolvedQMgrName MQ_NONSTRING;
    MQCHARV ObjectString;        /* version 4 */
    MQCHARV SelectionString;
    MQCHARV ResObjectString;
    MQLONG ResolvedType;
} MQOD;
typedef MQOD *PMQOD;
typedef PMQOD *PPMQOD;

#define MQOD_DEFAULT {MQOD_STRUC_ID_ARRAY}, MQOD_VERSION_1, MQOT_Q, {""}, {""}, \
    {'A', 'M', 'Q', '.', '*'}, {""}, 0, 0, 0, 0, 0, 0, NULL, NULL, {MQSID_NONE_ARRAY}, \
    {""}, {""}, {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, MQOT_NONE

/* -- MQPMO: put-message options ---------------------------------------------------------- */
typedef struct tagMQPMO {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG Options;
    MQLONG Timeout;
    MQHOBJ Context;
    MQLONG KnownDestCount;
    MQLONG UnknownDestCount;
    MQLONG InvalidDestCount;
    MQCHAR48 ResolvedQName MQ_NONSTRING;
    MQCHAR48 ResolvedQMgrName MQ_NONSTRING;
    MQLONG RecsPresent;          /* version 2 */
    MQLONG PutMsgRecFields;
    MQLONG PutMsgRecOffset;
    MQLONG ResponseRecOffset;
    MQPTR PutMsgRecPtr;
    MQPTR ResponseRecPtr;
    MQHMSG OriginalMsgHandle;    /* version 3 */
    MQHMSG NewMsgHandle;
    MQLONG Action;
    MQLONG PubLevel;
} MQPMO;
typedef MQPMO *PMQPMO;
typedef PMQPMO *PPMQPMO;

#define MQPMO_DEFAULT {MQPMO_STRUC_ID_ARRAY}, MQPMO_VERSION_1, MQPMO_NONE, (-1), 0, 0, 0, 0, \
    {""}, {""}, 0, 0, 0, 0, NULL, NULL, MQHM_NONE, MQHM_NONE, MQACTP_NEW, 9

/* -- MQGMO: get-message options (72/80/100/112 bytes at versions 1-4) ------------------ */
typedef struct tagMQGMO {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG Options;
    MQLONG WaitInterval;
    MQLONG Signal1;
    MQLONG Signal2;
    MQCHAR48 ResolvedQName MQ_NONSTRING;
    MQLONG MatchOptions;         /* version 2 */
    MQCHAR GroupStatus;
    MQCHAR SegmentStatus;
    MQCHAR Segmentation;
    MQCHAR Reserved1;
    MQBYTE16 MsgToken;           /* version 3 */
    MQLONG ReturnedLength;
    MQLONG Reserved2;            /* version 4 */
    MQHMSG MsgHandle;
} MQGMO;
typedef MQGMO *PMQGMO;
typedef PMQGMO *PPMQGMO;

#define MQGMO_DEFAULT {MQGMO_STRUC_ID_ARRAY}, MQGMO_VERSION_1, MQGMO_NO_WAIT, 0, 0, 0, {""}, \
    (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID), MQGS_NOT_IN_GROUP, MQSS_NOT_A_SEGMENT, \
    MQSEG_INHIBITED, ' ', {MQMTOK_NONE_ARRAY}, MQRL_UNDEFINED, 0, MQHM_NONE

/* -- MQCSP: security parameters (56 bytes) ----------------------------------------------- */
typedef struct tagMQCSP {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG AuthenticationType;
    MQBYTE4 Reserved1;
    MQPTR CSPUserIdPtr;
    MQLONG CSPUserIdOffset;
    MQLONG CSPUserIdLength;
    MQBYTE8 Reserved2;
    MQPTR CSPPasswordPtr;
    MQLONG CSPPasswordOffset;
    MQLONG CSPPasswordLength;
} MQCSP;
typedef MQCSP *PMQCSP;

#define MQCSP_DEFAULT {MQCSP_STRUC_ID_ARRAY}, MQCSP_VERSION_1, MQCSP_AUTH_NONE, {0}, NULL, \
    0, 0, {0}, NULL, 0, 0

/* MQSCO (TLS options of a client connection) is declared only as the type MQCNO points
 * at: there are no client connections here. */
typedef struct tagMQSCO MQSCO;
typedef MQSCO *PMQSCO;

/* -- MQCNO: connect options (12/24/152/168/200 bytes at versions 1-5) --------------------
 * MQCONNX reads StrucId, Version and Options; the fields of versions 2-5 (a client
 * connection's channel and TLS options, the connection tag, a user id and password)
 * mean nothing to a local queue manager without clients or security and are ignored. */
typedef struct tagMQCNO {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG Options;
    MQLONG ClientConnOffset;     /* version 2 */
    MQPTR ClientConnPtr;
    MQBYTE128 ConnTag;           /* version 3 */
    PMQSCO SSLConfigPtr;         /* version 4 */
    MQLONG SSLConfigOffset;
    MQBYTE24 ConnectionId;       /* version 5 */
    MQLONG SecurityParmsOffset;
    PMQCSP SecurityParmsPtr;
} MQCNO;
typedef MQCNO *PMQCNO;
typedef PMQCNO *PPMQCNO;

#define MQCNO_DEFAULT {MQCNO_STRUC_ID_ARRAY}, MQCNO_VERSION_1, MQCNO_NONE, 0, NULL, \
    {MQCT_NONE_ARRAY}, NULL, 0, {MQCONNID_NONE_ARRAY}, 0, NULL

/* -- MQTM: trigger message (684 bytes) ------------------------------------------------- */
typedef struct tagMQTM {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQCHAR48 QName MQ_NONSTRING;
    MQCHAR48 ProcessName MQ_NONSTRING;
    MQCHAR64 TriggerData MQ_NONSTRING;
    MQLONG ApplType;
    MQCHAR256 ApplId MQ_NONSTRING;
    MQCHAR128 EnvData MQ_NONSTRING;
    MQCHAR128 UserData MQ_NONSTRING;
} MQTM;
typedef MQTM *PMQTM;

#define MQTM_DEFAULT {MQTM_STRUC_ID_ARRAY}, MQTM_VERSION_1, {""}, {""}, {""}, 0, {""}, {""}, {""}

/* -- MQTMC2: trigger message, character form (732 bytes) -------------------------------- */
typedef struct tagMQTMC2 {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQCHAR4 Version MQ_NONSTRING;
    MQCHAR48 QName MQ_NONSTRING;
    MQCHAR48 ProcessName MQ_NONSTRING;
    MQCHAR64 TriggerData MQ_NONSTRING;
    MQCHAR4 ApplType MQ_NONSTRING;
    MQCHAR256 ApplId MQ_NONSTRING;
    MQCHAR128 EnvData MQ_NONSTRING;
    MQCHAR128 UserData MQ_NONSTRING;
    MQCHAR48 QMgrName MQ_NONSTRING;
} MQTMC2;
typedef MQTMC2 *PMQTMC2;

#define MQTMC2_DEFAULT {MQTMC_STRUC_ID_ARRAY}, {MQTMC_VERSION_2_ARRAY}, {""}, {""}, {""}, \
    {""}, {""}, {""}, {""}, {""}

/* -- MQXQH: transmission-queue header (428 bytes) ---------------------------------------- */
typedef struct tagMQXQH {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQCHAR48 RemoteQName MQ_NONSTRING;
    MQCHAR48 RemoteQMgrName MQ_NONSTRING;
    MQMD1 MsgDesc;
} MQXQH;
typedef MQXQH *PMQXQH;

#define MQXQH_DEFAULT {MQXQH_STRUC_ID_ARRAY}, MQXQH_VERSION_1, {""}, {""}, {MQMD1_DEFAULT}

/* -- MQDLH: dead-letter header (172 bytes) ----------------------------------------------- */
typedef struct tagMQDLH {
    MQCHAR4 StrucId MQ_NONSTRING;
    MQLONG Version;
    MQLONG Reason;
    MQCHAR48 DestQName MQ_NONSTRING;
    MQCHAR48 DestQMgrName MQ_NONSTRING;
    MQLONG Encoding;
    MQLONG CodedCharSetId;
    MQCHAR8 Format MQ_NONSTRING;
    MQLONG PutApplType;
    MQCHAR28 PutApplName MQ_NONSTRING;
    MQCHAR8 PutDate MQ_NONSTRING;
    MQCHAR8 PutTime MQ_NONSTRING;
} MQDLH;
typedef MQDLH *PMQDLH;

#define MQDLH_DEFAULT {MQDLH_STRUC_ID_ARRAY}, MQDLH_VERSION_1, MQRC_NONE, {""}, {""}, 0, \
    MQCCSI_UNDEFINED, {MQFMT_NONE_ARRAY}, 0, {""}, {""}, {""}

/* -- the calls: void, results in CompCode and Reason ------------------------------------ */
void MQCONN(PMQCHAR pName, PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
void MQCONNX(PMQCHAR pName, PMQCNO pConnectOpts, PMQHCONN pHconn, PMQLONG pCompCode,
             PMQLONG pReason);
void MQDISC(PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
void MQOPEN(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options, PMQHOBJ pHobj,
            PMQLONG pCompCode, PMQLONG pReason);
void MQCLOSE(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options, PMQLONG pCompCode,
             PMQLONG pReason);
void MQPUT(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
           MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason);
void MQPUT1(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
            MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason);
void MQGET(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
           MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength, PMQLONG pCompCode,
           PMQLONG pReason);
void MQINQ(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
           MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength, PMQCHAR pCharAttrs,
           PMQLONG pCompCode, PMQLONG pReason);
void MQSET(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
           MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength, PMQCHAR pCharAttrs,
           PMQLONG pCompCode, PMQLONG pReason);
void MQCMIT(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
void MQBACK(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);

#ifdef __cplusplus
}
#endif

#endif /* TPFEMU_CMQC_H */
