/* handoff.h - the committers' handoff of the group-commit floors (commit_floor.c,
 * lmdb_floor.c), each of which includes it once (its state is static)
 *
 * A committer takes a ticket, wakes the writer and waits (ctypes has released the GIL)
 * until the writer has finished a batch covering its ticket. The writer takes every
 * ticket handed in while it was busy as one batch, writes and syncs it as its floor
 * does, and reports it done. All functions are safe from any thread.
 */
#ifndef TPF_BENCH_HANDOFF_H
#define TPF_BENCH_HANDOFF_H

#include <pthread.h>
#include <stdint.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER; /* a ticket was handed in */
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER; /* a batch was finished */
static uint64_t issued, durable, syncs;
static int stopping, failed;

/* Forget every ticket and failure (before the writer starts). */
static inline void handoff_reset(void)
{
    pthread_mutex_lock(&mu);
    issued = durable = syncs = 0;
    stopping = failed = 0;
    pthread_mutex_unlock(&mu);
}

/* The writer's wait for work: the last ticket its next batch covers (the batch is every
 * ticket after the last one done, `*tickets` of them), or 0 once stopping with no ticket
 * waiting. */
static inline uint64_t handoff_take(uint64_t *tickets)
{
    pthread_mutex_lock(&mu);
    while (issued == durable && !stopping)
        pthread_cond_wait(&work_cv, &mu);
    uint64_t upto = issued == durable ? 0 : issued;
    *tickets = upto - durable;
    pthread_mutex_unlock(&mu);
    return upto;
}

/* The writer finished the batch up to ticket `upto` (err: 0, or why it failed, which
 * every later commit returns too): wake its committers. */
static inline void handoff_done(uint64_t upto, int err)
{
    pthread_mutex_lock(&mu);
    durable = upto;
    syncs++;
    if (err)
        failed = err;
    pthread_cond_broadcast(&done_cv);
    pthread_mutex_unlock(&mu);
}

/* A committer's commit: 0 once a finished batch covers its ticket, or the writer's
 * failure. */
static inline int handoff_commit(void)
{
    pthread_mutex_lock(&mu);
    uint64_t ticket = ++issued;
    pthread_cond_signal(&work_cv);
    while (durable < ticket && !failed)
        pthread_cond_wait(&done_cv, &mu);
    int err = failed;
    pthread_mutex_unlock(&mu);
    return err;
}

/* Tickets handed in, and batches finished, so far. */
static inline uint64_t handoff_count(const uint64_t *counter)
{
    pthread_mutex_lock(&mu);
    uint64_t n = *counter;
    pthread_mutex_unlock(&mu);
    return n;
}

/* Stop the writer (it finishes what waits, then handoff_take gives 0) and join it:
 * the join's error, else the writer's failure, else 0. */
static inline int handoff_stop(pthread_t writer)
{
    pthread_mutex_lock(&mu);
    stopping = 1;
    pthread_cond_signal(&work_cv);
    pthread_mutex_unlock(&mu);
    int err = pthread_join(writer, NULL);
    return err ? err : failed;
}

#endif
