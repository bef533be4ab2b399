/* journal_segment.c - a journal segment's appends, staged and written in blocks (see
 * tpf/journal.h, tpf_journal_seg_t) */
#define _GNU_SOURCE /* O_DIRECT */
#include "tpf/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALIGN ((size_t)TPF_JOURNAL_SEG_ALIGN)

int64_t tpf_journal_seg_size(const tpf_journal_seg_t *s)
{
    return s->base + (int64_t)s->used;
}

unsigned char *tpf_journal_seg_reserve(tpf_journal_seg_t *s, size_t n)
{
    if (s->cap - s->used < n) {
        size_t cap = s->cap ? s->cap : (size_t)1 << 20;
        while (cap - s->used < n)
            cap *= 2;
        void *grown;
        if (posix_memalign(&grown, ALIGN, cap) != 0)
            return NULL;
        if (s->used != 0)
            memcpy(grown, s->buf, s->used);
        free(s->buf);
        s->buf = grown;
        s->cap = cap; /* (a multiple of ALIGN: a padded write fits) */
    }
    return s->buf + s->used;
}

/* All of p[0:len] to fd at `at` (pwrite) or, `seekable` 0, where fd is (write). */
static int write_all_at(int fd, const unsigned char *p, size_t len, int64_t at, int seekable)
{
    while (len > 0) {
        ssize_t w = seekable ? pwrite(fd, p, len, (off_t)at) : write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        at += w;
    }
    return 0;
}

/* The file written up to `at`: its end as written moves there if that is further. */
static void written_to(tpf_journal_seg_t *s, int64_t at)
{
    if (at > s->end)
        s->end = at;
}

/* Write the staged bytes not written yet, as they are; all of them are then unstaged. */
static int write_buffered(tpf_journal_seg_t *s, int fd, int seekable)
{
    if (write_all_at(fd, s->buf + s->done, s->used - s->done, s->base + (int64_t)s->done,
                     seekable) < 0)
        return -1;
    written_to(s, s->base + (int64_t)s->used);
    s->base += (int64_t)s->used;
    s->used = s->done = 0;
    return 0;
}

/* Cut the file to its true size if a padded write left it longer. */
static int cut(tpf_journal_seg_t *s, int fd)
{
    if (s->end <= tpf_journal_seg_size(s))
        return 0;
    if (ftruncate(fd, (off_t)tpf_journal_seg_size(s)) < 0)
        return -1;
    s->end = tpf_journal_seg_size(s);
    return 0;
}

/* The direct write: the whole blocks, and with `all` (not TPF_JOURNAL_SEG_BLOCKS) the
 * last partial one padded with zeros (cut off the file with TPF_JOURNAL_SEG_CUT). 1:
 * done; 0: not possible here (write buffered); -1: failed. The partial block stays
 * staged. */
static int write_direct(tpf_journal_seg_t *s, int fd, int all)
{
    size_t whole = s->used & ~(ALIGN - 1);
    size_t len = all != TPF_JOURNAL_SEG_BLOCKS ? (s->used + ALIGN - 1) & ~(ALIGN - 1) : whole;
    if ((s->base & (int64_t)(ALIGN - 1)) != 0)
        return 0;
    if (len == 0)
        return 1;
    if (len > s->used) /* (the padding of the partial block) */
        memset(s->buf + s->used, 0, len - s->used);
    if (write_all_at(fd, s->buf, len, s->base, 1) < 0)
        return errno == EINVAL ? 0 : -1;
    written_to(s, s->base + (int64_t)len);
    if (all == TPF_JOURNAL_SEG_CUT && cut(s, fd) < 0)
        return -1;
    size_t rest = s->used - whole;
    memmove(s->buf, s->buf + whole, rest);
    s->base += (int64_t)whole;
    s->used = rest;
    s->done = all ? rest : 0; /* (a spill leaves a tail no write has touched) */
    return 1;
}

int tpf_journal_seg_write(tpf_journal_seg_t *s, int fd, int all)
{
    if (s->used == s->done) /* (nothing new: a cut may be due) */
        return all == TPF_JOURNAL_SEG_CUT ? cut(s, fd) : 0;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return -1;
    if (flags & O_DIRECT) {
        int rc = write_direct(s, fd, all);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        if (fcntl(fd, F_SETFL, flags & ~O_DIRECT) < 0) /* from now on: buffered */
            return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -1;
    if (write_buffered(s, fd, S_ISREG(st.st_mode)) < 0)
        return -1;
    return all == TPF_JOURNAL_SEG_CUT && S_ISREG(st.st_mode) ? cut(s, fd) : 0;
}
