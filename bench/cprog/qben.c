/* qben.c - the C side of bench/bench_cprog.py: MQPUT + MQGET pairs of 1 KB.
 * EBW000: the queue name (48 bytes, blank-padded), EBW048: the pair count (int).
 * Every pair puts with a fresh MQMD_DEFAULT and gets with a fresh one, as an
 * application does; a failure stops the loop and its reason lands in EBW052.
 * One pair first, untimed (the handle's first calls take the full path and make its
 * plans, as the Python baseline's warm-up does); then the pairs' loop is timed, its
 * thread CPU time in ns at EBW056 and its wall time at EBW064 (int64 each). */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <tpf/cmqc.h>
#include <tpf/tpfapi.h>

static char data[1024], buffer[4096];

static int64_t ns_of(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* One pair: MQCC_OK, or the failing call's CompCode with its reason in *rc. */
static MQLONG pair(MQHCONN hc, MQHOBJ ho, MQLONG *rc)
{
    MQLONG cc, len;
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQGMO gmo = {MQGMO_DEFAULT};
    MQPUT(hc, ho, &md, &pmo, sizeof data, data, &cc, rc);
    if (cc != MQCC_OK)
        return cc;
    MQMD md2 = {MQMD_DEFAULT};
    MQGET(hc, ho, &md2, &gmo, sizeof buffer, buffer, &len, &cc, rc);
    return cc;
}

void QBEN(void)
{
    struct eb0eb *ecb = ecbptr();
    MQHCONN hc;
    MQHOBJ ho;
    MQLONG cc, rc = 0;
    MQOD od = {MQOD_DEFAULT};
    int pairs;
    int64_t cpu = 0, wall = 0;
    memcpy(&pairs, ecb->ebw000 + 48, sizeof pairs);
    memcpy(od.ObjectName, ecb->ebw000, 48);
    MQCONN("", &hc, &cc, &rc);
    if (cc == MQCC_OK)
        MQOPEN(hc, &od, MQOO_OUTPUT | MQOO_INPUT_AS_Q_DEF, &ho, &cc, &rc);
    if (cc == MQCC_OK)
        cc = pair(hc, ho, &rc);
    if (cc == MQCC_OK) {
        cpu = ns_of(CLOCK_THREAD_CPUTIME_ID);
        wall = ns_of(CLOCK_MONOTONIC);
        for (int i = 1; cc == MQCC_OK && i < pairs; i++)
            cc = pair(hc, ho, &rc);
        cpu = ns_of(CLOCK_THREAD_CPUTIME_ID) - cpu;
        wall = ns_of(CLOCK_MONOTONIC) - wall;
    }
    memcpy(ecb->ebw000 + 52, &rc, sizeof rc);
    memcpy(ecb->ebw000 + 56, &cpu, sizeof cpu);
    memcpy(ecb->ebw000 + 64, &wall, sizeof wall);
    MQDISC(&hc, &cc, &rc);
}
