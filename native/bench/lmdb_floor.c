/* lmdb_floor.c - the ceiling of group commit into LMDB for committers that are CPython threads
 *
 * A benchmark helper, not part of tpfemu: bench/bench_persist.py compiles it against
 * Debian's liblmdb (liblmdb-dev) and calls it through ctypes, which releases the GIL for
 * every call.
 *
 * It is commit_floor.c's handoff with the write a log kept in LMDB cannot do without:
 * lfloor_commit() takes a ticket, wakes the writer and waits, without the GIL, until a
 * sync covers its ticket. The writer, a thread in C, takes every ticket handed in while
 * it was busy and, for all of them, puts ONE value of `per_commit` bytes a ticket (plus a
 * 16-byte head) under the next 8-byte big-endian key with MDB_APPEND, in one write
 * transaction of an environment opened MDB_NOSYNC | MDB_NOMETASYNC, then calls
 * mdb_env_sync once: the bytes and the one fdatasync of tpfemu's recovery log in its
 * default "envsync" mode, with no record encoding, no Python and no lock but the handoff's.
 * lfloor_trim() deletes every value written (untimed, between rounds, as a checkpoint
 * would), so the rounds write over freed pages, as the log does.
 *
 * Every function returns 0, an errno value or an LMDB error code; lfloor_stop() joins the
 * writer and closes the environment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"

static uint64_t next_key;
static size_t per_commit;
static MDB_env *env;
static MDB_dbi dbi;
static pthread_t writer;

/* One batch: `tickets` commits' bytes in one value, one transaction, one sync. */
static int write_batch(uint64_t tickets, unsigned char **buf, size_t *cap)
{
    size_t len = 16 + (size_t)tickets * per_commit;
    if (len > *cap) {
        unsigned char *grown = realloc(*buf, len);
        if (!grown)
            return ENOMEM;
        memset(grown, 'x', len);
        *buf = grown;
        *cap = len;
    }
    unsigned char key_bytes[8];
    uint64_t key = next_key;
    for (int i = 7; i >= 0; i--, key >>= 8)
        key_bytes[i] = (unsigned char)key;
    next_key += tickets;
    MDB_val k = {sizeof key_bytes, key_bytes}, v = {len, *buf};
    MDB_txn *txn;
    int rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc)
        return rc;
    rc = mdb_put(txn, dbi, &k, &v, MDB_APPEND);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    rc = mdb_txn_commit(txn);
    return rc ? rc : mdb_env_sync(env, 1);
}

static void *write_loop(void *arg)
{
    (void)arg;
    unsigned char *buf = NULL;
    size_t cap = 0;
    for (;;) {
        uint64_t tickets, upto = handoff_take(&tickets);
        if (upto == 0) { /* stopping, and nobody waits */
            free(buf);
            return NULL;
        }
        handoff_done(upto, write_batch(tickets, &buf, &cap));
    }
}

/* Extend the environment's data file with written zeros to `size` bytes and fsync it, as
 * tpfemu's log preformats its own (appends then overwrite allocated blocks). */
static int zero_fill(const char *dir, size_t size)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/data.mdb", dir) >= sizeof path)
        return ENAMETOOLONG;
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return errno;
    static const unsigned char zeros[1 << 16];
    off_t end = lseek(fd, 0, SEEK_END);
    int err = 0;
    while (end >= 0 && (size_t)end < size && !err) {
        size_t n = size - (size_t)end < sizeof zeros ? size - (size_t)end : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, n, end);
        if (w <= 0)
            err = w < 0 ? errno : EIO;
        else
            end += w;
    }
    if (!err && fsync(fd) != 0)
        err = errno;
    close(fd);
    return err;
}

int lfloor_start(const char *dir, size_t map_size, size_t preformat, size_t bytes_per_commit)
{
    handoff_reset();
    next_key = 1;
    per_commit = bytes_per_commit;
    MDB_txn *txn;
    int rc = mdb_env_create(&env);
    if (!rc)
        rc = mdb_env_set_maxdbs(env, 3);
    if (!rc)
        rc = mdb_env_set_mapsize(env, map_size);
    if (!rc)
        rc = mdb_env_open(env, dir, MDB_NOSYNC | MDB_NOMETASYNC, 0644);
    if (!rc)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (!rc) {
        rc = mdb_dbi_open(txn, "log", MDB_CREATE, &dbi);
        rc = rc ? (mdb_txn_abort(txn), rc) : mdb_txn_commit(txn);
    }
    if (!rc)
        rc = mdb_env_sync(env, 1);
    if (!rc && preformat)
        rc = zero_fill(dir, preformat);
    if (!rc)
        rc = pthread_create(&writer, NULL, write_loop, NULL);
    if (rc && env) {
        mdb_env_close(env);
        env = NULL;
    }
    return rc;
}

int lfloor_commit(void)
{
    return handoff_commit();
}

/* Delete every value written so far (call it while no commit is in flight). */
int lfloor_trim(void)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc)
        return rc;
    rc = mdb_drop(txn, dbi, 0);
    rc = rc ? (mdb_txn_abort(txn), rc) : mdb_txn_commit(txn);
    return rc ? rc : mdb_env_sync(env, 1);
}

uint64_t lfloor_syncs(void)
{
    return handoff_count(&syncs);
}

int lfloor_stop(void)
{
    int err = handoff_stop(writer);
    mdb_env_close(env);
    env = NULL;
    return err;
}
