/* mqmd_fields.h - the MQMD's fields in C order, as one list for every reader of the
 * structure (native/runtime/structs.c, native/python/mdpath.c)
 *
 * TPF_MQMD_FIELDS(F) expands F(type, member, kind, since) once per field of cmqc.h's
 * MQMD: kind 'i' MQLONG, 'c' MQCHARn (a C string: read up to its first null, padded with
 * blanks), 'b' MQBYTEn; since: the first MQMD version that has it. Include cmqc.h first.
 */
#ifndef TPF_MQMD_FIELDS_H
#define TPF_MQMD_FIELDS_H

#define TPF_MQMD_FIELDS(F)                                                                 \
    F(MQMD, StrucId, 'c', 1) F(MQMD, Version, 'i', 1) F(MQMD, Report, 'i', 1)              \
    F(MQMD, MsgType, 'i', 1) F(MQMD, Expiry, 'i', 1) F(MQMD, Feedback, 'i', 1)             \
    F(MQMD, Encoding, 'i', 1) F(MQMD, CodedCharSetId, 'i', 1) F(MQMD, Format, 'c', 1)      \
    F(MQMD, Priority, 'i', 1) F(MQMD, Persistence, 'i', 1) F(MQMD, MsgId, 'b', 1)          \
    F(MQMD, CorrelId, 'b', 1) F(MQMD, BackoutCount, 'i', 1) F(MQMD, ReplyToQ, 'c', 1)      \
    F(MQMD, ReplyToQMgr, 'c', 1) F(MQMD, UserIdentifier, 'c', 1)                           \
    F(MQMD, AccountingToken, 'b', 1) F(MQMD, ApplIdentityData, 'c', 1)                     \
    F(MQMD, PutApplType, 'i', 1) F(MQMD, PutApplName, 'c', 1) F(MQMD, PutDate, 'c', 1)     \
    F(MQMD, PutTime, 'c', 1) F(MQMD, ApplOriginData, 'c', 1) F(MQMD, GroupId, 'b', 2)      \
    F(MQMD, MsgSeqNumber, 'i', 2) F(MQMD, Offset, 'i', 2) F(MQMD, MsgFlags, 'i', 2)        \
    F(MQMD, OriginalLength, 'i', 2)

#endif
