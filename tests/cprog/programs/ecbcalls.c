/* ecbcalls.c - TPF API test programs (tests/cprog/test_cprog_tpfapi.py). Results go back to
 * the test as messages on RESULT.Q. */
#include <stdlib.h>
#include <string.h>

#include <tpf/cmqc.h>
#include <tpf/tpfapi.h>

static void report(const void *data, MQLONG length)
{
    MQHCONN hc;
    MQOD od = {MQOD_DEFAULT};
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQLONG cc, rc;
    MQCONN("", &hc, &cc, &rc);
    strncpy(od.ObjectName, "RESULT.Q", MQ_Q_NAME_LENGTH);
    MQPUT1(hc, &od, &md, &pmo, length, (void *)data, &cc, &rc);
}

/* CREMC chain: QCR1 passes its EBW000-EBW103 (as it was created with) plus a marker
 * to QCR2 with cremc, and a block on D3 to QCR3 with creec. */
void QCR1(void)
{
    struct eb0eb *ecb = ecbptr();
    unsigned char parm[104];
    memcpy(parm, ecb->ebw000, sizeof parm);
    memcpy(parm + 96, "VIA-QCR1", 8);
    cremc(sizeof parm, parm, "QCR2");
    char *block = getcc(D3, GETCC_TYPE, L1);
    memcpy(block, "BLOCK FROM QCR1 ON D3", 21);
    creec(8, "CREEC-P", "QCR3", D3, CREEC_IMMEDIATE);
    int held = levtest(D3);
    report(&held, sizeof held);
}

void QCR2(void)
{
    report(ecbptr()->ebw000, 104);
}

void QCR3(void)
{
    struct eb0eb *ecb = ecbptr();
    struct tpf_cbrw *d0 = &ecb->ce1cr[D0];
    char out[8 + 4 + 21];
    memcpy(out, ecb->ebw000, 8);
    int type = d0->ce1ctx | (d0->ce1ccx << 16);
    memcpy(out + 8, &type, 4);
    memcpy(out + 12, d0->ce1crx, 21);
    report(out, sizeof out);
    relcc(D0);
}

/* ENTRC into the Python program PYP1 and back: EBW000 and the levels are the entry's. */
void QENT(void)
{
    struct eb0eb *ecb = ecbptr();
    memcpy(ecb->ebw000, "C WROTE THIS", 12);
    char *d1 = getcc(D1, GETCC_SIZE | GETCC_FILL, 100, 'c');
    entrc("PYP1");
    char out[12 + 12 + 4 + 16];
    memcpy(out, ecb->ebw000, 12);           /* EBW000 after PYP1 (it keeps ours) */
    memcpy(out + 12, ecb->ebw000 + 20, 12); /* what PYP1 wrote at EBW020 */
    int type = levtest(D2);                 /* the block PYP1 got on D2 */
    memcpy(out + 24, &type, 4);
    memcpy(out + 28, ecb->ce1cr[D2].ce1crx, 8);
    memcpy(out + 36, d1, 8);                /* PYP1 wrote into our D1 block */
    report(out, sizeof out);
    relcc(D1);
    relcc(D2);
}

/* Entered by ENTRC from a Python program: writes EBW010 and returns (BACKC). */
void QBCK(void)
{
    memcpy(ecbptr()->ebw000 + 10, "BACK FROM C", 11);
}

/* Crashes: a write through a null pointer, and abort(). */
void QSEG(void)
{
    volatile int *nowhere = NULL;
    *nowhere = 42;
}

void QABT(void)
{
    abort();
}

/* exit() is EXITC, after which nothing more runs. */
void QEXT(void)
{
    report("BEFORE EXIT", 11);
    exit(0);
    report("AFTER EXIT", 10);
}

/* A system error: RELCC of an empty level. */
void QREL(void)
{
    relcc(D5);
    report("AFTER RELCC", 11);
}

/* A triggered process program: the MQTMC2 on D0 is reported. */
void QTRG(void)
{
    struct tpf_cbrw *d0 = &ecbptr()->ce1cr[D0];
    MQTMC2 *tmc = d0->ce1crx;
    report(tmc, sizeof *tmc);
}

/* The trigger user exit CUIR in C: MQMD (version 2) and MQTM on D0. */
void CUIR(void)
{
    char *block = ecbptr()->ce1cr[D0].ce1crx;
    MQMD *md = (MQMD *)block;
    MQTM *tm = (MQTM *)(block + sizeof(MQMD));
    char out[sizeof(MQMD) + sizeof(MQTM)];
    memcpy(out, md, sizeof *md);
    memcpy(out + sizeof *md, tm, sizeof *tm);
    report(out, sizeof out);
}

/* cretc: QTIM asks for QTM2 after 0 seconds with the action word "ACT1" (EBW000-EBW003
 * of QTM2, which reports its first 8 bytes); QTMB gives both units, a system error. */
void QTIM(void)
{
    cretc(CRETC_SECONDS, "QTM2", 0, "ACT1");
    __CRETC(CRETC_MINUTES | CRETC_1052, "QTM2", 0, "ACT2");
    report("CRETC DONE", 10);
}

void QTM2(void)
{
    report(ecbptr()->ebw000, 8);
}

void QTMB(void)
{
    cretc(CRETC_SECONDS | CRETC_MINUTES, "QTM2", 1, "ACT3");
    report("AFTER CRETC", 11);
}

/* serrc_op: with SERRC_RETURN the program goes on after the dump, with SERRC_EXIT not. */
void QSRR(void)
{
    serrc_op(SERRC_RETURN, 0x12345, "ERROR OCCURRED", NULL);
    report("AFTER SERRC", 11);
}

void QSRX(void)
{
    serrc_op(SERRC_EXIT, 0xABC, NULL, NULL);
    report("AFTER SERRC", 11);
}

/* detac/attac/crusa: a block detached from D2 comes back with attac; crusa releases D2
 * and skips the empty D5. Reported: levtest(D2) after detac, the attached block's first
 * 8 bytes, levtest(D2) after crusa. */
void QDET(void)
{
    char out[16];
    char *block = getcc(D2, GETCC_TYPE, L0);
    memcpy(block, "DETACHED", 8);
    detac(D2);
    int held = levtest(D2);
    memcpy(out, &held, 4);
    char *back = attac(D2);
    memcpy(out + 4, back, 8);
    crusa(2, D2, D5);
    held = levtest(D2);
    memcpy(out + 12, &held, 4);
    report(out, sizeof out);
}

/* wtopc: one message without a header, one with TPF's prefix, number and severity. */
void QWTO(void)
{
    struct wtopc_header header = {{'Q', 'W', 'T', 'O'}, 12, 'I'};
    wtopc("PLAIN TEXT TO THE OPERATOR", WTOPC_EBROUT, WTOPC_NO_CHAIN, WTOPC_NO_HEADER);
    int rc = wtopc("WITH A HEADER", WTOPC_RO | WTOPC_PRC, WTOPC_NO_CHAIN, &header);
    report(&rc, sizeof rc);
}

/* Bad create arguments, each a system error: QBD1 a negative length, QBD2 a length with a
 * null parm, QBD3 a creec priority that is neither CREEC_IMMEDIATE nor CREEC_DEFERRED
 * (the block stays on D1), QBD4 more than 104 bytes. */
void QBD1(void)
{
    cremc(-1, "X", "QCR2");
    report("AFTER CREMC", 11);
}

void QBD2(void)
{
    credc(8, NULL, "QCR2");
    report("AFTER CREDC", 11);
}

void QBD3(void)
{
    getcc(D1, GETCC_TYPE, L1);
    creec(0, NULL, "QCR3", D1, 7);
    report("AFTER CREEC", 11);
}

void QBD4(void)
{
    static const char big[105];
    crexc(sizeof big, big, "QCR2");
    report("AFTER CREXC", 11);
}

/* defrc: the entry goes on after it, still holding its block on D1. */
void QDEF(void)
{
    char *block = getcc(D1, GETCC_TYPE, L1);
    memcpy(block, "KEPT", 4);
    defrc();
    char out[8];
    int held = levtest(D1);
    memcpy(out, &held, 4);
    memcpy(out + 4, ecbptr()->ce1cr[D1].ce1crx, 4);
    report(out, sizeof out);
    relcc(D1);
}

/* getcc: a fill byte passed as a char of 0xFF fills with 0xFF; GETCC_TYPE with 0x41, no
 * block type, is a system error naming it. */
void QGTF(void)
{
    unsigned char *block = getcc(D1, GETCC_SIZE | GETCC_FILL, 10, (char)0xFF);
    report(block, 4);
    getcc(D2, GETCC_TYPE, 0x41);
    report("AFTER GETCC", 11);
}

/* tx_commit and tx_rollback with no scope open return TX_PROTOCOL_ERROR; a begun scope
 * commits with TX_OK. Reported: the three return codes. */
void QTXP(void)
{
    int rc[3];
    rc[0] = tx_commit();
    rc[1] = tx_rollback();
    tx_begin();
    rc[2] = tx_commit();
    report(rc, sizeof rc);
}
