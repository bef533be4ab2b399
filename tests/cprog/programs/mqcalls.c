/* mqcalls.c - MQ test programs (tests/cprog/test_cprog_mqi.py), each an entry function named
 * as its program. Results go back to the test as messages on RESULT.Q. */
#include <string.h>

#include <tpf/cmqc.h>
#include <tpf/tpfapi.h>

static MQHCONN hc;

/* Put `length` bytes of `data` on RESULT.Q (the test reads them). */
static void report(const void *data, MQLONG length)
{
    MQOD od = {MQOD_DEFAULT};
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQLONG cc, rc;
    strncpy(od.ObjectName, "RESULT.Q", MQ_Q_NAME_LENGTH);
    pmo.Options = MQPMO_NO_SYNCPOINT;
    MQPUT1(hc, &od, &md, &pmo, length, (void *)data, &cc, &rc);
}

static void report_rc(const char *what, MQLONG cc, MQLONG rc)
{
    MQLONG codes[2] = {cc, rc};
    char line[64];
    memset(line, ' ', sizeof line);
    memcpy(line, what, strlen(what));
    memcpy(line + 16, codes, sizeof codes);
    report(line, 24);
}

static MQHOBJ open_q(const char *name, MQLONG options)
{
    MQOD od = {MQOD_DEFAULT};
    MQHOBJ ho = MQHO_UNUSABLE_HOBJ;
    MQLONG cc, rc;
    strncpy(od.ObjectName, name, MQ_Q_NAME_LENGTH);
    MQOPEN(hc, &od, options, &ho, &cc, &rc);
    if (cc != MQCC_OK)
        report_rc("MQOPEN", cc, rc);
    return ho;
}

static int connect(void)
{
    MQLONG cc, rc;
    MQCONN("", &hc, &cc, &rc);
    return cc == MQCC_OK;
}

/* MQPUT of a message with every settable MQMD field set; the MD as MQPUT returned it
 * is reported. */
void QPUT(void)
{
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQLONG cc, rc;
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_OUTPUT);
    md.Version = MQMD_VERSION_2;
    md.Report = MQRO_COA;
    md.MsgType = MQMT_REQUEST;
    md.Expiry = 600000;
    md.Feedback = MQFB_NONE + 7;
    md.Encoding = MQENC_NATIVE;
    md.CodedCharSetId = 1208;
    memcpy(md.Format, MQFMT_STRING, MQ_FORMAT_LENGTH);
    md.Priority = 6;
    md.Persistence = MQPER_NOT_PERSISTENT;
    memcpy(md.MsgId, "C-MSGID-0000000000000001", MQ_MSG_ID_LENGTH);
    memcpy(md.CorrelId, "C-CORRELID-0000000000001", MQ_CORREL_ID_LENGTH);
    strncpy(md.ReplyToQ, "REPLY.Q", MQ_Q_NAME_LENGTH);
    strncpy(md.ReplyToQMgr, "OTHER.QM", MQ_Q_MGR_NAME_LENGTH);
    memcpy(md.GroupId, "GROUP-ID-FROM-C-PROGRAM!", MQ_GROUP_ID_LENGTH);
    md.MsgSeqNumber = 1;
    pmo.Options = MQPMO_NO_SYNCPOINT;
    MQPUT(hc, ho, &md, &pmo, 11, "from C QPUT", &cc, &rc);
    report_rc("MQPUT", cc, rc);
    report(&md, sizeof md);
    report(&pmo, sizeof pmo);
    MQCLOSE(hc, &ho, MQCO_NONE, &cc, &rc);
    MQDISC(&hc, &cc, &rc);
}

/* MQGET of the first message of C.IN with a version-2 MD: the MD and data reported. */
void QGET(void)
{
    MQMD md = {MQMD_DEFAULT};
    MQGMO gmo = {MQGMO_DEFAULT};
    MQLONG cc, rc, length = -1;
    char buffer[256];
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_INPUT_SHARED);
    md.Version = MQMD_VERSION_2;
    gmo.Version = MQGMO_VERSION_3;
    gmo.Options = MQGMO_NO_WAIT | MQGMO_NO_SYNCPOINT;
    MQGET(hc, ho, &md, &gmo, sizeof buffer, buffer, &length, &cc, &rc);
    report_rc("MQGET", cc, rc);
    report(&md, sizeof md);
    report(buffer, length > 0 ? length : 0);
    report(&gmo, sizeof gmo);
    MQGET(hc, ho, &md, &gmo, sizeof buffer, buffer, &length, &cc, &rc);
    report_rc("MQGET again", cc, rc);
    MQDISC(&hc, &cc, &rc);
}

/* Browse first and next, then a get with a buffer too short (2080, the message stays)
 * and one accepting truncation (2079). */
void QBRW(void)
{
    MQGMO gmo = {MQGMO_DEFAULT};
    MQLONG cc, rc, length;
    char buffer[64];
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_BROWSE | MQOO_INPUT_SHARED);
    for (int i = 0; i < 2; i++) {
        MQMD md = {MQMD_DEFAULT};
        gmo.Options = (i == 0 ? MQGMO_BROWSE_FIRST : MQGMO_BROWSE_NEXT) | MQGMO_NO_WAIT;
        MQGET(hc, ho, &md, &gmo, sizeof buffer, buffer, &length, &cc, &rc);
        report_rc("BROWSE", cc, rc);
        report(buffer, length);
    }
    MQMD md = {MQMD_DEFAULT};
    gmo.Options = MQGMO_NO_WAIT;
    MQGET(hc, ho, &md, &gmo, 4, buffer, &length, &cc, &rc);
    report_rc("SHORT", cc, rc);
    report(&length, sizeof length);
    MQMD md2 = {MQMD_DEFAULT};
    gmo.Options = MQGMO_NO_WAIT | MQGMO_ACCEPT_TRUNCATED_MSG;
    MQGET(hc, ho, &md2, &gmo, 4, buffer, &length, &cc, &rc);
    report_rc("TRUNCATED", cc, rc);
    report(buffer, 4);
    MQDISC(&hc, &cc, &rc);
}

/* Units of work. EBW000 says how: 'T' tx_begin/tx_commit, 'R' tx_begin/tx_rollback,
 * 'C' MQPMO_SYNCPOINT and MQCMIT, 'B' MQPMO_SYNCPOINT and MQBACK, 'O' tx_begin and
 * return with the scope open. Two messages are put to C.UOW; the depth seen by
 * another connection before the end of the unit of work is reported. */
void QUOW(void)
{
    char how = (char)ecbptr()->ebw000[0];
    MQLONG cc, rc, depth = -1, selector = MQIA_CURRENT_Q_DEPTH;
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.UOW", MQOO_OUTPUT | MQOO_INQUIRE);
    if (how == 'T' || how == 'R' || how == 'O')
        tx_begin();
    for (int i = 0; i < 2; i++) {
        MQMD md = {MQMD_DEFAULT};
        MQPMO pmo = {MQPMO_DEFAULT};
        pmo.Options = (how == 'C' || how == 'B') ? MQPMO_SYNCPOINT : MQPMO_NONE;
        MQPUT(hc, ho, &md, &pmo, 3, "uow", &cc, &rc);
        if (cc != MQCC_OK)
            report_rc("MQPUT", cc, rc);
    }
    MQINQ(hc, ho, 1, &selector, 1, &depth, 0, NULL, &cc, &rc);
    report(&depth, sizeof depth);
    if (how == 'T')
        tx_commit();
    else if (how == 'R')
        tx_rollback();
    else if (how == 'C')
        MQCMIT(hc, &cc, &rc);
    else if (how == 'B')
        MQBACK(hc, &cc, &rc);
    if (how == 'C' || how == 'B')
        report_rc("END", cc, rc);
    if (how == 'O')
        return; /* EXITC with the scope open: TPF's system error */
    MQDISC(&hc, &cc, &rc);
}

/* The MQI's own checks: a bad hconn, a bad hobj, an MD that is not one. */
void QBAD(void)
{
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQLONG cc, rc;
    MQPUT(12345, 1, &md, &pmo, 1, "x", &cc, &rc);
    if (!connect())
        return;
    report_rc("BADHCONN", cc, rc);
    MQPUT(hc, 999, &md, &pmo, 1, "x", &cc, &rc);
    report_rc("BADHOBJ", cc, rc);
    md.StrucId[0] = 'X';
    MQHOBJ ho = open_q("C.IN", MQOO_OUTPUT);
    MQPUT(hc, ho, &md, &pmo, 1, "x", &cc, &rc);
    report_rc("BADMD", cc, rc);
    MQCONN("", &hc, &cc, &rc);
    report_rc("CONNAGAIN", cc, rc);
    MQDISC(&hc, &cc, &rc);
}

/* A get with a 100-byte buffer from C.IN (whose MAXMSGL the test lowers to 100). */
void QSML(void)
{
    MQMD md = {MQMD_DEFAULT};
    MQGMO gmo = {MQGMO_DEFAULT};
    MQLONG cc, rc, length = -1;
    char buffer[100];
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_INPUT_SHARED);
    for (int i = 0; i < 2; i++) {
        MQGET(hc, ho, &md, &gmo, sizeof buffer, buffer, &length, &cc, &rc);
        memcpy(md.MsgId, MQMI_NONE, sizeof md.MsgId);
        memcpy(md.CorrelId, MQCI_NONE, sizeof md.CorrelId);
        report_rc("SMALL", cc, rc);
        report(&length, sizeof length);
    }
    MQDISC(&hc, &cc, &rc);
}

/* MQCONNX, then MQSET of TriggerControl and TriggerData on C.IN and MQINQ of them with
 * the queue's name and MAXDEPTH: the attributes are reported. */
void QINQ(void)
{
    MQCNO cno = {MQCNO_DEFAULT};
    MQLONG cc, rc;
    MQCONNX("", &cno, &hc, &cc, &rc);
    report_rc("MQCONNX", cc, rc);
    if (cc != MQCC_OK)
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_INQUIRE | MQOO_SET);
    MQLONG set_selectors[2] = {MQIA_TRIGGER_CONTROL, MQCA_TRIGGER_DATA};
    MQLONG on = MQTC_ON;
    char data[MQ_TRIGGER_DATA_LENGTH];
    memset(data, ' ', sizeof data);
    memcpy(data, "SET FROM C", 10);
    MQSET(hc, ho, 2, set_selectors, 1, &on, sizeof data, data, &cc, &rc);
    report_rc("MQSET", cc, rc);
    MQLONG selectors[4] = {MQCA_Q_NAME, MQIA_TRIGGER_CONTROL, MQCA_TRIGGER_DATA,
                           MQIA_MAX_Q_DEPTH};
    MQLONG ints[2] = {-1, -1};
    char chars[MQ_Q_NAME_LENGTH + MQ_TRIGGER_DATA_LENGTH];
    MQINQ(hc, ho, 4, selectors, 2, ints, sizeof chars, chars, &cc, &rc);
    report_rc("MQINQ", cc, rc);
    report(ints, sizeof ints);
    report(chars, sizeof chars);
    MQINQ(hc, ho, 4, selectors, 1, ints, sizeof chars, chars, &cc, &rc);
    report_rc("MQINQ short", cc, rc);
    MQDISC(&hc, &cc, &rc);
}

/* Two rounds of the same MQPUT (MQMD_DEFAULT but a Format with a null, MQPMO_DEFAULT)
 * and MQGET (MQMD version 2, buffer of C.IN's MAXMSGL, 256): the first round of each
 * takes the full path and makes the handle's plans, the second the plans' raw entry.
 * Each MD and PMO, as the calls returned them, and each message got are reported. */
void QRAW(void)
{
    MQLONG cc, rc, length;
    char buffer[256];
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_OUTPUT | MQOO_INPUT_SHARED);
    for (int i = 0; i < 2; i++) {
        MQMD md = {MQMD_DEFAULT};
        MQPMO pmo = {MQPMO_DEFAULT};
        memcpy(md.Format, "MQSTR\0\0\0", 8);
        MQPUT(hc, ho, &md, &pmo, 8, "everyday", &cc, &rc);
        report_rc("MQPUT", cc, rc);
        report(&md, sizeof(MQMD1));
        report(&pmo, sizeof pmo);
    }
    for (int i = 0; i < 2; i++) {
        MQMD md = {MQMD_DEFAULT};
        MQGMO gmo = {MQGMO_DEFAULT};
        md.Version = MQMD_VERSION_2;
        MQGET(hc, ho, &md, &gmo, sizeof buffer, buffer, &length, &cc, &rc);
        report_rc("MQGET", cc, rc);
        report(&md, sizeof md);
        report(buffer, length);
        report(&gmo, sizeof(MQGMO)); /* (a version-1 GMO: its first 72 bytes count) */
    }
    MQCLOSE(hc, &ho, MQCO_NONE, &cc, &rc);
    MQDISC(&hc, &cc, &rc);
}

/* MQINQ of C.IN's name (48) and TriggerData (64) into a 100-byte area of '#' given as
 * 60 bytes long: the area is reported. */
void QINC(void)
{
    MQLONG cc, rc;
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_INQUIRE);
    MQLONG selectors[2] = {MQCA_Q_NAME, MQCA_TRIGGER_DATA};
    char chars[100];
    memset(chars, '#', sizeof chars);
    MQINQ(hc, ho, 2, selectors, 0, NULL, 60, chars, &cc, &rc);
    report_rc("MQINQ", cc, rc);
    report(chars, sizeof chars);
    MQDISC(&hc, &cc, &rc);
}

/* MQSET calls that are wrong as a whole: TriggerData with 10 bytes of CharAttrs, and
 * TriggerControl and TriggerDepth with one integer. */
void QSTB(void)
{
    MQLONG cc, rc;
    if (!connect())
        return;
    MQHOBJ ho = open_q("C.IN", MQOO_SET);
    MQLONG data_selector = MQCA_TRIGGER_DATA;
    MQSET(hc, ho, 1, &data_selector, 0, NULL, 10, "SHORTDATA!", &cc, &rc);
    report_rc("MQSET chars", cc, rc);
    MQLONG selectors[2] = {MQIA_TRIGGER_CONTROL, MQIA_TRIGGER_DEPTH};
    MQLONG on = MQTC_ON;
    MQSET(hc, ho, 2, selectors, 1, &on, 0, NULL, &cc, &rc);
    report_rc("MQSET ints", cc, rc);
    MQLONG mixed[2] = {MQIA_TRIGGER_CONTROL, MQIA_TRIGGER_MSG_PRIORITY};
    MQLONG values[2] = {MQTC_ON, 99};
    MQSET(hc, ho, 2, mixed, 2, values, 0, NULL, &cc, &rc);
    report_rc("MQSET bad value", cc, rc);
    MQDISC(&hc, &cc, &rc);
}

/* Handles around MQDISC: MQCONN to a queue manager that is not there fails 2058 with the
 * hconn unusable; MQCONN twice gives the same hconn (2002); MQDISC sets it unusable; the
 * old hconn then fails 2018 on MQPUT1 and MQDISC; a failed MQOPEN leaves the hobj
 * unusable. */
void QDSC(void)
{
    MQLONG cc, rc, other_cc, other_rc, disc_cc, disc_rc;
    MQHCONN other = 0, again = 0;
    MQCONN("NO.SUCH.QMGR", &other, &other_cc, &other_rc);
    if (!connect())
        return;
    report_rc("CONN OTHER", other_cc, other_rc);
    report(&other, sizeof other);
    MQCONN("", &again, &cc, &rc);
    report_rc("CONN AGAIN", cc, rc);
    MQLONG same = again == hc;
    report(&same, sizeof same);
    MQHCONN old = hc;
    MQDISC(&hc, &disc_cc, &disc_rc);
    MQHCONN after = hc;
    if (!connect())
        return;
    report_rc("DISC", disc_cc, disc_rc);
    report(&after, sizeof after);
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQOD od = {MQOD_DEFAULT};
    strncpy(od.ObjectName, "C.IN", MQ_Q_NAME_LENGTH);
    MQPUT1(old, &od, &md, &pmo, 1, "x", &cc, &rc);
    report_rc("PUT1 OLD", cc, rc);
    MQDISC(&old, &cc, &rc);
    report_rc("DISC OLD", cc, rc);
    MQHOBJ ho = 77;
    strncpy(od.ObjectName, "NO.SUCH.Q", MQ_Q_NAME_LENGTH);
    MQOPEN(hc, &od, MQOO_OUTPUT, &ho, &cc, &rc);
    report_rc("OPEN", cc, rc);
    report(&ho, sizeof ho);
    MQDISC(&hc, &cc, &rc);
}

/* MQOPEN with a version-3 MQOD of: C.IN for output, C.IN for inquire only, the alias
 * C.ALIAS for input, the remote queue C.REMOTE for output, the queue manager for
 * inquire: each OD's ResolvedQName and ResolvedQMgrName (96 bytes) is reported. */
void QRES(void)
{
    static const struct {
        const char *name;
        MQLONG type, options;
    } opens[5] = {{"C.IN", MQOT_Q, MQOO_OUTPUT}, {"C.IN", MQOT_Q, MQOO_INQUIRE},
                  {"C.ALIAS", MQOT_Q, MQOO_INPUT_SHARED}, {"C.REMOTE", MQOT_Q, MQOO_OUTPUT},
                  {"", MQOT_Q_MGR, MQOO_INQUIRE}};
    MQLONG cc, rc;
    if (!connect())
        return;
    for (int i = 0; i < 5; i++) {
        MQOD od = {MQOD_DEFAULT};
        MQHOBJ ho;
        od.Version = MQOD_VERSION_3;
        od.ObjectType = opens[i].type;
        strncpy(od.ObjectName, opens[i].name, MQ_Q_NAME_LENGTH);
        MQOPEN(hc, &od, opens[i].options, &ho, &cc, &rc);
        report_rc("MQOPEN", cc, rc);
        report(od.ResolvedQName, 2 * MQ_Q_NAME_LENGTH);
        MQCLOSE(hc, &ho, MQCO_NONE, &cc, &rc);
    }
    MQDISC(&hc, &cc, &rc);
}

/* MQCONNX as IBM's newer samples make it when given a user id: a version-5 MQCNO whose
 * SecurityParmsPtr points at an MQCSP. */
void QCSP(void)
{
    MQCNO cno = {MQCNO_DEFAULT};
    MQCSP csp = {MQCSP_DEFAULT};
    MQLONG cc, rc;
    char user[] = "tpfuser", password[] = "secret";
    csp.AuthenticationType = MQCSP_AUTH_USER_ID_AND_PWD;
    csp.CSPUserIdPtr = user;
    csp.CSPUserIdLength = (MQLONG)strlen(user);
    csp.CSPPasswordPtr = password;
    csp.CSPPasswordLength = (MQLONG)strlen(password);
    cno.SecurityParmsPtr = &csp;
    cno.Version = MQCNO_VERSION_5;
    MQCONNX("", &cno, &hc, &cc, &rc);
    report_rc("MQCONNX", cc, rc);
    MQLONG sizes[2] = {(MQLONG)sizeof cno, (MQLONG)sizeof csp};
    report(sizes, sizeof sizes);
    MQDISC(&hc, &cc, &rc);
}
