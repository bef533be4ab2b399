/* commit_floor.c - the ceiling of group commit for committers that are CPython threads
 *
 * A benchmark helper, not part of tpfemu: bench/bench_persist.py compiles it into a
 * shared library and calls it through ctypes (which releases the GIL for every call).
 *
 * floor_start(fd) starts one writer thread in C. floor_commit() is what a committing
 * thread does at the very least: it takes a ticket, wakes the writer and waits, without
 * the GIL, until a sync covers its ticket. The writer takes every ticket handed in while
 * it was busy, writes 1 KB with pwrite and fdatasyncs the file once for all of them.
 * floor_each_commit(1) has it write 1 KB for each of those tickets instead (one pwrite
 * of them all), as any log must write every committed message's bytes.
 * There is no record, no encoding and no Python in the writer, so the rate of
 * floor_commit on N Python threads bounds any group commit whose committers are Python
 * threads on this machine: what is left is the disk's sync and each committer winning
 * the GIL back after its wake-up, before it can commit again.
 *
 * Every function returns 0 or an errno value; floor_stop() joins the writer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"

#define RECORD 1024
#define SPAN (1 << 20) /* the writer cycles over the first MiB of the file */
#define MAX_BATCH 64   /* records one pwrite may carry (16 committers need 16) */

static int fd = -1, each_commit;
static pthread_t writer;

static void *write_loop(void *arg)
{
    (void)arg;
    static unsigned char records[MAX_BATCH * RECORD];
    memset(records, 'x', sizeof records);
    off_t offset = 0;
    for (;;) {
        uint64_t tickets, upto = handoff_take(&tickets);
        if (upto == 0) /* stopping, and nobody waits */
            return NULL;
        size_t len = each_commit ? (tickets < MAX_BATCH ? tickets : MAX_BATCH) * RECORD : RECORD;
        int err = 0;
        if (offset + (off_t)len > SPAN)
            offset = 0;
        if (pwrite(fd, records, len, offset) != (ssize_t)len || fdatasync(fd) != 0)
            err = errno ? errno : EIO;
        offset += (off_t)len;
        handoff_done(upto, err);
    }
}

int floor_start(int file)
{
    handoff_reset();
    fd = file;
    return pthread_create(&writer, NULL, write_loop, NULL);
}

int floor_each_commit(int on)
{
    pthread_mutex_lock(&mu);
    each_commit = on;
    pthread_mutex_unlock(&mu);
    return 0;
}

int floor_commit(void)
{
    return handoff_commit();
}

uint64_t floor_commits(void)
{
    return handoff_count(&issued);
}

uint64_t floor_syncs(void)
{
    return handoff_count(&syncs);
}

int floor_stop(void)
{
    return handoff_stop(writer);
}
