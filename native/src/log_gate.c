/* log_gate.c - the recovery log's wait for durability (see tpf/logrec.h) */
#define _POSIX_C_SOURCE 200809L
#include "tpf/logrec.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* Waiters of batch n sleep on cv[n % SLOTS]: a finish wakes those of the batches it
 * finishes, not those of the next batches (at most a few are open at a time). */
#define SLOTS 4

struct tpf_log_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv[SLOTS];
    uint64_t finished;
};

tpf_log_gate_t *tpf_log_gate_new(void)
{
    tpf_log_gate_t *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) {
        free(g);
        return NULL;
    }
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&g->mu, NULL);
    for (int i = 0; i < SLOTS; i++)
        pthread_cond_init(&g->cv[i], &attr);
    pthread_condattr_destroy(&attr);
    return g;
}

void tpf_log_gate_free(tpf_log_gate_t *g)
{
    if (g == NULL)
        return;
    for (int i = 0; i < SLOTS; i++)
        pthread_cond_destroy(&g->cv[i]);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

void tpf_log_gate_finish(tpf_log_gate_t *g, uint64_t seq)
{
    pthread_mutex_lock(&g->mu);
    uint64_t from = g->finished;
    if (seq > from) {
        g->finished = seq;
        uint64_t n = seq - from < SLOTS ? seq - from : SLOTS;
        for (uint64_t i = 1; i <= n; i++)
            pthread_cond_broadcast(&g->cv[(from + i) % SLOTS]);
    }
    pthread_mutex_unlock(&g->mu);
}

int tpf_log_gate_wait(tpf_log_gate_t *g, uint64_t seq, int64_t timeout_ns)
{
    struct timespec until;
    if (timeout_ns >= 0) {
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += (time_t)(timeout_ns / 1000000000);
        until.tv_nsec += (long)(timeout_ns % 1000000000);
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
    }
    pthread_cond_t *cv = &g->cv[seq % SLOTS];
    pthread_mutex_lock(&g->mu);
    while (g->finished < seq) {
        if (timeout_ns < 0)
            pthread_cond_wait(cv, &g->mu);
        else if (pthread_cond_timedwait(cv, &g->mu, &until) == ETIMEDOUT)
            break;
    }
    int done = g->finished >= seq;
    pthread_mutex_unlock(&g->mu);
    return done;
}

uint64_t tpf_log_gate_finished(tpf_log_gate_t *g)
{
    pthread_mutex_lock(&g->mu);
    uint64_t n = g->finished;
    pthread_mutex_unlock(&g->mu);
    return n;
}
