/* qben.c - the C side of bench/bench_cprog.py: MQPUT + MQGET pairs of 1 KB.
 * EBW000: the queue name (48 bytes, blank-padded), EBW048: the pair count (int).
 * Every pair puts with a fresh MQMD_DEFAULT and gets with a fresh one, as an
 * application does; a failure stops the loop and its reason lands in EBW052. */
#include <string.h>

#include <tpf/cmqc.h>
#include <tpf/tpfapi.h>

void QBEN(void)
{
    struct eb0eb *ecb = ecbptr();
    MQHCONN hc;
    MQHOBJ ho;
    MQLONG cc, rc = 0, len;
    MQOD od = {MQOD_DEFAULT};
    int pairs;
    static char data[1024], buffer[4096];
    memcpy(&pairs, ecb->ebw000 + 48, sizeof pairs);
    memcpy(od.ObjectName, ecb->ebw000, 48);
    MQCONN("", &hc, &cc, &rc);
    if (cc == MQCC_OK)
        MQOPEN(hc, &od, MQOO_OUTPUT | MQOO_INPUT_AS_Q_DEF, &ho, &cc, &rc);
    for (int i = 0; cc == MQCC_OK && i < pairs; i++) {
        MQMD md = {MQMD_DEFAULT};
        MQPMO pmo = {MQPMO_DEFAULT};
        MQGMO gmo = {MQGMO_DEFAULT};
        MQPUT(hc, ho, &md, &pmo, sizeof data, data, &cc, &rc);
        if (cc != MQCC_OK)
            break;
        MQMD md2 = {MQMD_DEFAULT};
        MQGET(hc, ho, &md2, &gmo, sizeof buffer, buffer, &len, &cc, &rc);
    }
    memcpy(ecb->ebw000 + 52, &rc, sizeof rc);
    MQDISC(&hc, &cc, &rc);
}
