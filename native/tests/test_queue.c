/* test_queue.c - tests of the C message core through its public API (tpf/queue.h).
 *
 * Build: cc -std=c11 -O2 -Wall -Wextra -Werror -pthread -Inative/include \
 *           native/tests/test_queue.c native/src/\*.c -o test_queue
 * Run:   ./test_queue [quick]     ("quick" shrinks the big loops for sanitizer runs)
 * Output: one line per failed CHECK, then exactly one line "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpf/queue.h"

/* ---------- tiny harness ---------- */

static int g_quick;             /* argv[1] == "quick" */
static long g_checks;           /* CHECKs evaluated */
static long g_check_failures;   /* CHECKs that failed */
static int g_test_failed;       /* the current test had a failing CHECK */
static const char *g_test_name; /* the current test */

#define CHECK(expr)                                                                   \
    do {                                                                              \
        g_checks++;                                                                   \
        if (!(expr)) {                                                                \
            g_check_failures++;                                                       \
            g_test_failed = 1;                                                        \
            printf("%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__, g_test_name,  \
                   #expr);                                                            \
        }                                                                             \
    } while (0)

/* CHECK that also reports both values of an integer comparison a == b. */
#define CHECK_EQ(a, b)                                                                \
    do {                                                                              \
        long long va_ = (long long)(a), vb_ = (long long)(b);                         \
        g_checks++;                                                                   \
        if (va_ != vb_) {                                                             \
            g_check_failures++;                                                       \
            g_test_failed = 1;                                                        \
            printf("%s:%d: %s: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__,    \
                   __LINE__, g_test_name, #a, #b, va_, vb_);                          \
        }                                                                             \
    } while (0)

/* ---------- helpers ---------- */

static tpf_mq_config_t cfg_default(void)
{
    tpf_mq_config_t c;
    memset(&c, 0, sizeof c);
    c.max_depth = 0;
    c.max_msg_length = 4 * 1024 * 1024;
    c.fifo = 0;
    c.default_priority = 0;
    memcpy(c.msgid_prefix, "TPFEMU-TESTQUEUE", TPF_MQ_MSGID_PREFIX_LEN);
    return c;
}

static tpf_mq_queue_t *mkq_cfg(const tpf_mq_config_t *c)
{
    tpf_mq_queue_t *q = NULL;
    int rc = tpf_mq_create(c, &q);
    if (rc != MQRC_NONE || q == NULL) {
        printf("FATAL: tpf_mq_create rc=%d\n", rc);
        exit(2);
    }
    return q;
}

static tpf_mq_queue_t *mkq(uint32_t max_depth)
{
    tpf_mq_config_t c = cfg_default();
    c.max_depth = max_depth;
    return mkq_cfg(&c);
}

static tpf_mq_msg_t md_new(int priority)
{
    tpf_mq_msg_t md;
    memset(&md, 0, sizeof md);
    md.expiry = TPF_MQ_NEVER;
    md.priority = (uint8_t)priority;
    return md;
}

static void set_id(uint8_t id[TPF_MQ_ID_LEN], unsigned v)
{
    memset(id, 0, TPF_MQ_ID_LEN);
    snprintf((char *)id, TPF_MQ_ID_LEN, "ID-%u", v);
}

static tpf_mq_getreq_t req_new(uint32_t options)
{
    tpf_mq_getreq_t r;
    memset(&r, 0, sizeof r);
    r.options = options;
    r.now = TPF_MQ_NOW;
    return r;
}

/* Put a message whose data is the decimal tag; correl (0 = none), expiry, uow. */
static int put_tag_full(tpf_mq_queue_t *q, int priority, unsigned tag, unsigned correl,
                        int64_t expiry, uint64_t uow, tpf_mq_msg_t *md_io)
{
    tpf_mq_msg_t md = md_new(priority);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%u", tag);
    if (correl)
        set_id(md.correl_id, correl);
    md.expiry = expiry;
    md.uow = uow;
    int rc = tpf_mq_put(q, &md, buf, (uint32_t)n);
    if (md_io)
        *md_io = md;
    return rc;
}

static int put_tag(tpf_mq_queue_t *q, int priority, unsigned tag)
{
    return put_tag_full(q, priority, tag, 0, TPF_MQ_NEVER, 0, NULL);
}

/* Get with req; return the tag in *tag (or -1); returns rc. */
static int get_tag_req(tpf_mq_queue_t *q, const tpf_mq_getreq_t *r, long *tag,
                       tpf_mq_msg_t *md_out)
{
    char buf[64];
    tpf_mq_msg_t md;
    memset(&md, 0, sizeof md);
    int rc = tpf_mq_get(q, r, &md, buf, sizeof buf - 1);
    *tag = -1;
    if (rc == MQRC_NONE) {
        buf[md.length < sizeof buf - 1 ? md.length : sizeof buf - 1] = 0;
        *tag = strtol(buf, NULL, 10);
    }
    if (md_out)
        *md_out = md;
    return rc;
}

/* Plain destructive get of a tag; -1 when none (rc other than 0). */
static long get_tag(tpf_mq_queue_t *q)
{
    char buf[64];
    tpf_mq_msg_t md;
    int rc = tpf_mq_get_simple(q, 0, &md, buf, sizeof buf - 1);
    if (rc != MQRC_NONE)
        return -1;
    buf[md.length] = 0;
    return strtol(buf, NULL, 10);
}

static tpf_mq_stats_t stats_of(tpf_mq_queue_t *q)
{
    tpf_mq_stats_t s;
    memset(&s, 0, sizeof s);
    tpf_mq_stats(q, &s);
    return s;
}

static int is_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static int memcmp_id(const void *a, const void *b)
{
    return memcmp(a, b, TPF_MQ_ID_LEN);
}

/* ---------- create / configure ---------- */

/* create and configure reject NULL, default_priority 10 and max_msg_length 0; destroy(NULL) is safe. */
static void test_create_validation(void)
{
    tpf_mq_queue_t *q = (tpf_mq_queue_t *)0x1;
    tpf_mq_config_t c = cfg_default();
    CHECK_EQ(tpf_mq_create(NULL, &q), TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(tpf_mq_create(&c, NULL), TPF_RC_INVALID_ARGUMENT);
    c.default_priority = 10;
    q = NULL;
    CHECK_EQ(tpf_mq_create(&c, &q), TPF_RC_INVALID_ARGUMENT);
    CHECK(q == NULL);
    c = cfg_default();
    c.max_msg_length = 0;
    CHECK_EQ(tpf_mq_create(&c, &q), TPF_RC_INVALID_ARGUMENT);
    CHECK(q == NULL);
    c = cfg_default();
    c.default_priority = 9;
    CHECK_EQ(tpf_mq_create(&c, &q), MQRC_NONE);
    CHECK(q != NULL);
    if (!q)
        return;
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(tpf_mq_configure(q, NULL), TPF_RC_INVALID_ARGUMENT);
    c.default_priority = 10;
    CHECK_EQ(tpf_mq_configure(q, &c), TPF_RC_INVALID_ARGUMENT);
    c.default_priority = 0;
    c.max_msg_length = 0;
    CHECK_EQ(tpf_mq_configure(q, &c), TPF_RC_INVALID_ARGUMENT);
    /* the rejected configure changed nothing: a 100-byte message still fits */
    char data[100] = {0};
    CHECK_EQ(tpf_mq_put_simple(q, data, sizeof data, 0, 0), MQRC_NONE);
    c = cfg_default();
    CHECK_EQ(tpf_mq_configure(q, &c), MQRC_NONE);
    tpf_mq_destroy(q);
    tpf_mq_destroy(NULL);
}

/* ---------- ordering ---------- */

/* delivery order is highest priority first, FIFO within a priority; md.priority is returned. */
static void test_priority_then_fifo(void)
{
    tpf_mq_queue_t *q = mkq(0);
    static const int prio[] = {3, 7, 3, 0, 9, 7, 3, 9, 0, 5};
    for (unsigned i = 0; i < 10; i++)
        CHECK_EQ(put_tag(q, prio[i], i), MQRC_NONE);
    static const long expect[] = {4, 7, 1, 5, 9, 0, 2, 6, 3, 8};
    for (unsigned i = 0; i < 10; i++) {
        tpf_mq_getreq_t r = req_new(0);
        tpf_mq_msg_t md;
        long tag;
        CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
        CHECK_EQ(tag, expect[i]);
        CHECK_EQ(md.priority, prio[expect[i]]);
    }
    CHECK_EQ(get_tag(q), -1);
    tpf_mq_destroy(q);
}

/* FIFO mode delivers in arrival order and keeps each message's md.priority. */
static void test_fifo_mode(void)
{
    tpf_mq_config_t c = cfg_default();
    c.fifo = 1;
    c.default_priority = 4;
    tpf_mq_queue_t *q = mkq_cfg(&c);
    static const int prio[] = {3, 7, 0, 9, 5};
    for (unsigned i = 0; i < 5; i++)
        CHECK_EQ(put_tag(q, prio[i], i), MQRC_NONE);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.depth_by_priority[9], 1);
    CHECK_EQ(s.depth_by_priority[4], 0);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 0), 1);
    for (unsigned i = 0; i < 5; i++) {
        tpf_mq_getreq_t r = req_new(0);
        tpf_mq_msg_t md;
        long tag;
        CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
        CHECK_EQ(tag, i);
        CHECK_EQ(md.priority, prio[i]);
    }
    tpf_mq_destroy(q);
}

/* reconfiguring between PRIORITY and FIFO does not reorder messages already on the queue. */
static void test_reconfigure_no_reorder(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag(q, 1, 0), MQRC_NONE);
    CHECK_EQ(put_tag(q, 8, 1), MQRC_NONE);
    tpf_mq_config_t c = cfg_default();
    c.fifo = 1;
    c.default_priority = 0;
    CHECK_EQ(tpf_mq_configure(q, &c), MQRC_NONE);
    CHECK_EQ(put_tag(q, 9, 2), MQRC_NONE); /* placed at priority 0, after tag 0 */
    CHECK_EQ(get_tag(q), 1);
    CHECK_EQ(get_tag(q), 0);
    CHECK_EQ(get_tag(q), 2);

    /* FIFO -> PRIORITY: messages placed in FIFO mode keep their place */
    CHECK_EQ(put_tag(q, 2, 10), MQRC_NONE); /* placed at 0 */
    CHECK_EQ(put_tag(q, 9, 11), MQRC_NONE); /* placed at 0 */
    c.fifo = 0;
    CHECK_EQ(tpf_mq_configure(q, &c), MQRC_NONE);
    CHECK_EQ(put_tag(q, 1, 12), MQRC_NONE); /* placed at 1: ahead of both */
    CHECK_EQ(get_tag(q), 12);
    CHECK_EQ(get_tag(q), 10);
    CHECK_EQ(get_tag(q), 11);
    CHECK_EQ(get_tag(q), -1);
    tpf_mq_destroy(q);
}

/* ---------- put errors ---------- */

/* each invalid put returns its reason code and changes neither depth nor stats.puts. */
static void test_put_errors(void)
{
    tpf_mq_config_t c = cfg_default();
    c.max_depth = 2;
    c.max_msg_length = 100;
    tpf_mq_queue_t *q = mkq_cfg(&c);
    char data[200] = {0};
    CHECK_EQ(put_tag(q, 5, 1), MQRC_NONE);
    tpf_mq_stats_t s0 = stats_of(q);
    tpf_mq_msg_t md;

    md = md_new(10);
    CHECK_EQ(tpf_mq_put(q, &md, data, 4), MQRC_PRIORITY_ERROR);
    CHECK(is_zero(md.msg_id, TPF_MQ_ID_LEN)); /* outputs written only on success */
    CHECK_EQ(tpf_mq_put_simple(q, data, 4, -1, 0), MQRC_PRIORITY_ERROR);
    CHECK_EQ(tpf_mq_put_simple(q, data, 4, 10, 0), MQRC_PRIORITY_ERROR);
    md = md_new(5);
    md.persistent = 2;
    CHECK_EQ(tpf_mq_put(q, &md, data, 4), MQRC_PERSISTENCE_ERROR);
    md = md_new(5);
    md.expiry = 0;
    CHECK_EQ(tpf_mq_put(q, &md, data, 4), MQRC_EXPIRY_ERROR);
    md.expiry = -1;
    CHECK_EQ(tpf_mq_put(q, &md, data, 4), MQRC_EXPIRY_ERROR);
    md = md_new(5);
    CHECK_EQ(tpf_mq_put(q, &md, data, 101), MQRC_MSG_TOO_BIG_FOR_Q);
    CHECK_EQ(tpf_mq_put_simple(q, data, 101, 5, 0), MQRC_MSG_TOO_BIG_FOR_Q);
    md = md_new(5);
    CHECK_EQ(tpf_mq_put(q, &md, NULL, 4), TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(tpf_mq_put(q, NULL, data, 4), TPF_RC_INVALID_ARGUMENT);
    tpf_mq_stats_t s1 = stats_of(q);
    CHECK_EQ(s1.depth, s0.depth);
    CHECK_EQ(s1.puts, s0.puts);
    CHECK_EQ(tpf_mq_depth(q), 1);

    /* exactly max_msg_length fits; NULL data with length 0 is fine */
    md = md_new(5);
    CHECK_EQ(tpf_mq_put(q, &md, data, 100), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth(q), 2);
    md = md_new(5);
    CHECK_EQ(tpf_mq_put(q, &md, data, 4), MQRC_Q_FULL);
    CHECK_EQ(tpf_mq_put_simple(q, data, 4, 0, 0), MQRC_Q_FULL);
    CHECK_EQ(tpf_mq_put_simple(q, data, 4, 0, 77), MQRC_Q_FULL); /* uncommitted too */
    s1 = stats_of(q);
    CHECK_EQ(s1.depth, 2);
    CHECK_EQ(s1.puts, s0.puts + 1);
    CHECK_EQ(s1.uncommitted_puts, 0);

    /* max_depth 0 = unlimited */
    c.max_depth = 0;
    CHECK_EQ(tpf_mq_configure(q, &c), MQRC_NONE);
    for (int i = 0; i < 50; i++)
        CHECK_EQ(tpf_mq_put_simple(q, NULL, 0, 0, 0), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth(q), 52);
    /* a lower MAXDEPTH refuses new puts only */
    c.max_depth = 10;
    CHECK_EQ(tpf_mq_configure(q, &c), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth(q), 52);
    CHECK_EQ(tpf_mq_put_simple(q, NULL, 0, 0, 0), MQRC_Q_FULL);
    tpf_mq_destroy(q);
}

/* ---------- generated MsgIds ---------- */

/* an all-zero MsgId is generated as prefix + counter, written back, unique across 10 000 puts and two queues; a given one is kept. */
static void test_msgid_generation(void)
{
    tpf_mq_config_t c1 = cfg_default(), c2 = cfg_default();
    memcpy(c1.msgid_prefix, "QUEUE-ONE-PREFIX", TPF_MQ_MSGID_PREFIX_LEN);
    memcpy(c2.msgid_prefix, "QUEUE-TWO-PREFIX", TPF_MQ_MSGID_PREFIX_LEN);
    tpf_mq_queue_t *q1 = mkq_cfg(&c1), *q2 = mkq_cfg(&c2);
    enum { N = 10000 };
    uint8_t(*ids)[TPF_MQ_ID_LEN] = calloc(2 * N, TPF_MQ_ID_LEN);
    CHECK(ids != NULL);
    if (!ids)
        return;
    int prefix_ok = 1, written_back = 1, seq_ok = 1;
    uint64_t last_seq[2] = {0, 0};
    for (unsigned i = 0; i < 2 * N; i++) {
        tpf_mq_queue_t *q = (i & 1) ? q2 : q1;
        tpf_mq_msg_t md = md_new(i % 10);
        CHECK_EQ(tpf_mq_put(q, &md, "x", 1), MQRC_NONE);
        const tpf_mq_config_t *c = (i & 1) ? &c2 : &c1;
        if (memcmp(md.msg_id, c->msgid_prefix, TPF_MQ_MSGID_PREFIX_LEN) != 0)
            prefix_ok = 0;
        if (is_zero(md.msg_id, TPF_MQ_ID_LEN))
            written_back = 0;
        if (i >= 2 && md.seq <= last_seq[i & 1])
            seq_ok = 0;
        last_seq[i & 1] = md.seq;
        memcpy(ids[i], md.msg_id, TPF_MQ_ID_LEN);
    }
    CHECK(prefix_ok);
    CHECK(written_back);
    CHECK(seq_ok);
    /* uniqueness: sort and compare neighbours */
    qsort(ids, 2 * N, TPF_MQ_ID_LEN, memcmp_id);
    int unique = 1;
    for (unsigned i = 1; i < 2 * N; i++)
        if (memcmp(ids[i - 1], ids[i], TPF_MQ_ID_LEN) == 0)
            unique = 0;
    CHECK(unique);
    free(ids);

    /* a non-zero MsgId is kept, on put and on get */
    tpf_mq_msg_t md = md_new(9);
    set_id(md.msg_id, 4242);
    uint8_t want[TPF_MQ_ID_LEN];
    set_id(want, 4242);
    CHECK_EQ(tpf_mq_put(q1, &md, "k", 1), MQRC_NONE);
    CHECK(memcmp(md.msg_id, want, TPF_MQ_ID_LEN) == 0);
    tpf_mq_msg_t out;
    char b[4];
    CHECK_EQ(tpf_mq_get_simple(q1, 0, &out, b, sizeof b), MQRC_NONE);
    CHECK(memcmp(out.msg_id, want, TPF_MQ_ID_LEN) == 0);
    CHECK_EQ(out.seq, md.seq);
    /* put_simple generates one too */
    CHECK_EQ(tpf_mq_put_simple(q2, "s", 1, 9, 0), MQRC_NONE);
    CHECK_EQ(tpf_mq_get_simple(q2, 0, &out, b, sizeof b), MQRC_NONE);
    CHECK(memcmp(out.msg_id, c2.msgid_prefix, TPF_MQ_MSGID_PREFIX_LEN) == 0);
    CHECK(is_zero(out.correl_id, TPF_MQ_ID_LEN));
    CHECK_EQ(out.expiry, TPF_MQ_NEVER);
    CHECK_EQ(out.persistent, 0);
    tpf_mq_destroy(q1);
    tpf_mq_destroy(q2);
}

/* ---------- get ---------- */

/* a get on an empty queue returns 2033; the descriptor and data round-trip. */
static void test_get_empty_and_roundtrip(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t md;
    char buf[16];
    CHECK_EQ(tpf_mq_get_simple(q, 0, &md, buf, sizeof buf), MQRC_NO_MSG_AVAILABLE);
    tpf_mq_getreq_t r = req_new(0);
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, sizeof buf), MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(tpf_mq_get(q, NULL, &md, buf, sizeof buf), TPF_RC_INVALID_ARGUMENT);

    tpf_mq_msg_t in = md_new(6);
    in.persistent = 1;
    in.expiry = (int64_t)4000000000000000LL;
    set_id(in.correl_id, 77);
    CHECK_EQ(tpf_mq_put(q, &in, "hello", 5), MQRC_NONE);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, sizeof buf), MQRC_NONE);
    CHECK(memcmp(buf, "hello", 5) == 0);
    CHECK_EQ(md.length, 5);
    CHECK_EQ(md.priority, 6);
    CHECK_EQ(md.persistent, 1);
    CHECK_EQ(md.expiry, in.expiry);
    CHECK_EQ(md.seq, in.seq);
    CHECK_EQ(md.backout_count, 0);
    CHECK_EQ(md.flags & TPF_MQ_F_EXPIRED_PENDING, 0);
    CHECK(memcmp(md.msg_id, in.msg_id, TPF_MQ_ID_LEN) == 0);
    CHECK(memcmp(md.correl_id, in.correl_id, TPF_MQ_ID_LEN) == 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.gets, 1);
    CHECK_EQ(s.puts, 1);
    tpf_mq_destroy(q);
}

/* TPF_MQ_GET_NOT_PERSISTENT: a destructive get refuses a persistent message and leaves
 * it (and everything else) in place; a browse and an ordinary get are not affected. */
static void test_get_not_persistent(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t md;
    char buf[16];
    tpf_mq_msg_t in = md_new(6);
    in.persistent = 1;
    CHECK_EQ(tpf_mq_put(q, &in, "kept", 4), MQRC_NONE);
    CHECK_EQ(tpf_mq_put_simple(q, "plain", 5, 1, 0), MQRC_NONE);
    tpf_mq_getreq_t r = req_new(0);
    r.flags = TPF_MQ_GET_NOT_PERSISTENT;
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, sizeof buf), TPF_RC_PERSISTENT);
    CHECK_EQ(tpf_mq_depth(q), 2);
    CHECK_EQ(stats_of(q).gets, 0);
    r.flags = 0;
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, sizeof buf), MQRC_NONE);
    CHECK(memcmp(buf, "kept", 4) == 0);
    r.flags = TPF_MQ_GET_NOT_PERSISTENT;
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, sizeof buf), MQRC_NONE);
    CHECK(memcmp(buf, "plain", 5) == 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* a too-small buffer gives 2080 and leaves the message; ACCEPT_TRUNCATED_MSG gives 2079, copies cap bytes and removes it. */
static void test_get_truncation(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(tpf_mq_put_simple(q, "0123456789", 10, 5, 0), MQRC_NONE);
    tpf_mq_msg_t md;
    char buf[16];
    memset(buf, '#', sizeof buf);
    memset(&md, 0, sizeof md);
    CHECK_EQ(tpf_mq_get_simple(q, 0, &md, buf, 4), MQRC_TRUNCATED_MSG_FAILED);
    CHECK_EQ(md.length, 10);
    CHECK_EQ(md.priority, 5);
    CHECK_EQ(buf[0], '#');
    CHECK_EQ(tpf_mq_depth(q), 1);
    tpf_mq_getreq_t r = req_new(0);
    memset(&md, 0, sizeof md);
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, 9), MQRC_TRUNCATED_MSG_FAILED);
    CHECK_EQ(md.length, 10);
    CHECK_EQ(tpf_mq_depth(q), 1);
    CHECK_EQ(stats_of(q).gets, 0);

    r.options = MQGMO_ACCEPT_TRUNCATED_MSG;
    memset(&md, 0, sizeof md);
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, 4), MQRC_TRUNCATED_MSG_ACCEPTED);
    CHECK_EQ(md.length, 10);
    CHECK(memcmp(buf, "0123", 4) == 0);
    CHECK_EQ(buf[4], '#');
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, 4), MQRC_NO_MSG_AVAILABLE);

    /* ACCEPT_TRUNCATED with a big enough buffer is a plain success */
    CHECK_EQ(tpf_mq_put_simple(q, "abc", 3, 5, 0), MQRC_NONE);
    CHECK_EQ(tpf_mq_get(q, &r, &md, buf, 3), MQRC_NONE);
    CHECK(memcmp(buf, "abc", 3) == 0);
    tpf_mq_destroy(q);
}

/* zero-length messages put and get with length 0 (NULL data and a zero-capacity buffer). */
static void test_zero_length(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t md = md_new(3);
    CHECK_EQ(tpf_mq_put(q, &md, NULL, 0), MQRC_NONE);
    CHECK_EQ(tpf_mq_put_simple(q, NULL, 0, 3, 0), MQRC_NONE);
    tpf_mq_msg_t out;
    out.length = 99;
    CHECK_EQ(tpf_mq_get_simple(q, 0, &out, NULL, 0), MQRC_NONE);
    CHECK_EQ(out.length, 0);
    char b[1];
    out.length = 99;
    CHECK_EQ(tpf_mq_get_simple(q, 0, &out, b, 0), MQRC_NONE);
    CHECK_EQ(out.length, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* ---------- matched gets ---------- */

/* a matched get finds by MsgId, by CorrelId, by both; an all-zero id is a wildcard; no match is 2033. */
static void test_matched_get_basic(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t m[6];
    /* tags 0..5; correl: 0->A(1) 1->B(2) 2->A(1) 3->none 4->B(2) 5->A(1); prios mixed */
    static const unsigned correl[] = {1, 2, 1, 0, 2, 1};
    static const int prio[] = {2, 2, 7, 9, 2, 7};
    for (unsigned i = 0; i < 6; i++)
        CHECK_EQ(put_tag_full(q, prio[i], i, correl[i], TPF_MQ_NEVER, 0, &m[i]), MQRC_NONE);
    long tag;
    tpf_mq_getreq_t r;

    /* by MsgId: tag 4 */
    r = req_new(0);
    r.match = MQMO_MATCH_MSG_ID;
    memcpy(r.msg_id, m[4].msg_id, TPF_MQ_ID_LEN);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 4);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);

    /* by CorrelId A: the first in delivery order is tag 2 (priority 7), then 5, then 0 */
    r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 2);

    /* both: MsgId of tag 0 with CorrelId B does not match; with A it does */
    r = req_new(0);
    r.match = MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID;
    memcpy(r.msg_id, m[0].msg_id, TPF_MQ_ID_LEN);
    set_id(r.correl_id, 2);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    set_id(r.correl_id, 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 0);

    /* all-zero CorrelId is a wildcard: gets the first in delivery order (tag 3, prio 9) */
    r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 3);
    /* all-zero MsgId with a CorrelId: acts as CorrelId only */
    r.match = MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 2);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 1);
    /* unknown CorrelId */
    set_id(r.correl_id, 999);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    /* MATCH_MSG_ID alone ignores r.correl_id (still set to the unknown CorrelId) */
    r.match = MQMO_MATCH_MSG_ID;
    memcpy(r.msg_id, m[5].msg_id, TPF_MQ_ID_LEN);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 5);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* among several messages with one CorrelId the matched get returns the first in delivery order, each time. */
static void test_matched_get_delivery_order(void)
{
    tpf_mq_queue_t *q = mkq(0);
    static const int prio[] = {1, 4, 4, 8, 1, 8};
    for (unsigned i = 0; i < 6; i++)
        CHECK_EQ(put_tag_full(q, prio[i], i, 5, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 9, 100, 6, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    static const long expect[] = {3, 5, 1, 2, 0, 4};
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 5);
    for (unsigned i = 0; i < 6; i++) {
        long tag;
        CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
        CHECK_EQ(tag, expect[i]);
    }
    long tag;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(get_tag(q), 100);
    tpf_mq_destroy(q);
}

/* 100 000 messages with distinct CorrelIds: a matched get in the middle finds exactly that one. */
static void test_matched_get_large(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const unsigned N = 100000;
    for (unsigned i = 0; i < N; i++)
        if (put_tag_full(q, (int)(i % 10), i, i + 1, TPF_MQ_NEVER, 0, NULL) != MQRC_NONE) {
            CHECK(!"put failed");
            break;
        }
    CHECK_EQ(tpf_mq_depth(q), N);
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    long tag;
    tpf_mq_msg_t md;
    set_id(r.correl_id, N / 2 + 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, N / 2);
    CHECK_EQ(md.priority, (N / 2) % 10);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    set_id(r.correl_id, 12345 + 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 12345);
    set_id(r.correl_id, N + 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(tpf_mq_depth(q), N - 2);
    tpf_mq_destroy(q);
}

/* ---------- browse with a cursor ---------- */

static tpf_mq_cursor_t *mkcur(tpf_mq_queue_t *q)
{
    tpf_mq_cursor_t *c = NULL;
    int rc = tpf_mq_cursor_create(q, &c);
    if (rc != MQRC_NONE || c == NULL) {
        printf("FATAL: tpf_mq_cursor_create rc=%d\n", rc);
        exit(2);
    }
    return c;
}

/* browse a tag with the given options through cursor c; returns rc, tag in *tag. */
static int browse(tpf_mq_queue_t *q, tpf_mq_cursor_t *c, uint32_t options, long *tag)
{
    tpf_mq_getreq_t r = req_new(options);
    r.cursor = c;
    return get_tag_req(q, &r, tag, NULL);
}

/* BROWSE_FIRST/NEXT walk delivery order without removing; NEXT at the end is 2033 and then finds a later put. */
static void test_browse_order(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NO_MSG_AVAILABLE);
    static const int prio[] = {2, 6, 2, 9};
    for (unsigned i = 0; i < 4; i++)
        CHECK_EQ(put_tag(q, prio[i], i), MQRC_NONE);
    static const long expect[] = {3, 1, 0, 2};
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, expect[0]);
    for (unsigned i = 1; i < 4; i++) {
        CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
        CHECK_EQ(tag, expect[i]);
    }
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(tpf_mq_depth(q), 4);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.browses, 4);
    CHECK_EQ(s.gets, 0);
    /* a message put later (at the lowest priority, so behind the cursor's position) is found */
    CHECK_EQ(put_tag(q, 0, 4), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 4);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NO_MSG_AVAILABLE);
    /* BROWSE_FIRST restarts */
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, 3);
    /* a fresh cursor's BROWSE_NEXT starts at the beginning */
    tpf_mq_cursor_t *c2 = mkcur(q);
    CHECK_EQ(browse(q, c2, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 3);
    /* a plain get still sees everything, in order */
    for (unsigned i = 0; i < 4; i++)
        CHECK_EQ(get_tag(q), expect[i]);
    CHECK_EQ(get_tag(q), 4);
    tpf_mq_cursor_destroy(c2);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* when the message under the cursor is got by a plain get, BROWSE_NEXT continues with the following one. */
static void test_browse_after_removal_under_cursor(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    for (unsigned i = 0; i < 4; i++)
        CHECK_EQ(put_tag(q, 5, i), MQRC_NONE);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(get_tag(q), 0);
    CHECK_EQ(get_tag(q), 1); /* the one under the cursor */
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 2);
    /* the same with a purge under the cursor */
    uint32_t n = 0;
    CHECK_EQ(tpf_mq_purge(q, &n), MQRC_NONE);
    CHECK_EQ(n, 2);
    CHECK_EQ(put_tag(q, 5, 9), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 9);
    tpf_mq_cursor_destroy(c);
    CHECK_EQ(stats_of(q).ghosts, 0);
    tpf_mq_destroy(q);
}

/* BROWSE_MSG_UNDER_CURSOR re-reads; MSG_UNDER_CURSOR gets it destructively, then again gives 2034. */
static void test_msg_under_cursor(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(browse(q, c, MQGMO_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    for (unsigned i = 0; i < 3; i++)
        CHECK_EQ(put_tag(q, 4, i), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(tpf_mq_depth(q), 3);
    CHECK_EQ(browse(q, c, MQGMO_MSG_UNDER_CURSOR, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(tpf_mq_depth(q), 2);
    CHECK_EQ(browse(q, c, MQGMO_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 2);
    CHECK_EQ(get_tag(q), 0);
    CHECK_EQ(get_tag(q), 2);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.gets, 3);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* BROWSE_FIRST/NEXT with MATCH_CORREL_ID visit only the matching messages. */
static void test_browse_matched(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    static const unsigned correl[] = {1, 2, 1, 2, 1};
    static const int prio[] = {3, 3, 8, 8, 0};
    for (unsigned i = 0; i < 5; i++)
        CHECK_EQ(put_tag_full(q, prio[i], i, correl[i], TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    tpf_mq_getreq_t r = req_new(MQGMO_BROWSE_NEXT);
    r.cursor = c;
    r.match = MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 1);
    long tag;
    static const long expect[] = {2, 0, 4};
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
        CHECK_EQ(tag, expect[i]);
    }
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    r.options = MQGMO_BROWSE_FIRST;
    set_id(r.correl_id, 2);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 3);
    r.options = MQGMO_BROWSE_NEXT;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(tpf_mq_depth(q), 5);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* ---------- option errors ---------- */

/* conflicting option bits and cursor options without a cursor give 2046; UNLOCK with nothing locked 2209; a foreign cursor 9001. */
static void test_option_errors(void)
{
    tpf_mq_queue_t *q = mkq(0), *q2 = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q), *c2 = mkcur(q2);
    CHECK_EQ(put_tag(q, 5, 1), MQRC_NONE);
    CHECK_EQ(put_tag(q2, 5, 2), MQRC_NONE);
    long tag;
    static const uint32_t bad[] = {
        MQGMO_BROWSE_FIRST | MQGMO_BROWSE_NEXT,
        MQGMO_BROWSE_FIRST | MQGMO_BROWSE_MSG_UNDER_CURSOR,
        MQGMO_BROWSE_NEXT | MQGMO_BROWSE_MSG_UNDER_CURSOR,
        MQGMO_MSG_UNDER_CURSOR | MQGMO_BROWSE_FIRST,
        MQGMO_MSG_UNDER_CURSOR | MQGMO_BROWSE_NEXT,
        MQGMO_MSG_UNDER_CURSOR | MQGMO_BROWSE_MSG_UNDER_CURSOR,
        MQGMO_LOCK,
        MQGMO_LOCK | MQGMO_MSG_UNDER_CURSOR,
        MQGMO_LOCK | MQGMO_UNLOCK,
        MQGMO_LOCK | MQGMO_UNLOCK | MQGMO_BROWSE_FIRST,
        MQGMO_UNLOCK | MQGMO_BROWSE_FIRST,
        MQGMO_UNLOCK | MQGMO_BROWSE_NEXT,
        MQGMO_UNLOCK | MQGMO_BROWSE_MSG_UNDER_CURSOR,
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = browse(q, c, bad[i], &tag);
        if (rc != MQRC_OPTIONS_ERROR)
            printf("  options 0x%x with cursor: rc=%d\n", (unsigned)bad[i], rc);
        CHECK_EQ(rc, MQRC_OPTIONS_ERROR);
    }
    /* any cursor option with a NULL cursor */
    static const uint32_t need_cursor[] = {
        MQGMO_BROWSE_FIRST, MQGMO_BROWSE_NEXT, MQGMO_BROWSE_MSG_UNDER_CURSOR,
        MQGMO_MSG_UNDER_CURSOR, MQGMO_LOCK | MQGMO_BROWSE_FIRST, MQGMO_UNLOCK,
    };
    for (unsigned i = 0; i < sizeof need_cursor / sizeof need_cursor[0]; i++) {
        int rc = browse(q, NULL, need_cursor[i], &tag);
        if (rc != MQRC_OPTIONS_ERROR)
            printf("  options 0x%x without cursor: rc=%d\n", (unsigned)need_cursor[i], rc);
        CHECK_EQ(rc, MQRC_OPTIONS_ERROR);
    }
    CHECK_EQ(browse(q, c, MQGMO_UNLOCK, &tag), MQRC_NO_MSG_LOCKED);
    /* a cursor of another queue */
    CHECK_EQ(browse(q, c2, MQGMO_BROWSE_FIRST, &tag), TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(browse(q, c2, MQGMO_BROWSE_NEXT, &tag), TPF_RC_INVALID_ARGUMENT);
    /* nothing happened: still one message each, none browsed */
    CHECK_EQ(tpf_mq_depth(q), 1);
    CHECK_EQ(stats_of(q).browses, 0);
    CHECK_EQ(get_tag(q), 1);
    CHECK_EQ(get_tag(q2), 2);
    tpf_mq_cursor_destroy(c);
    tpf_mq_cursor_destroy(c2);
    tpf_mq_destroy(q);
    tpf_mq_destroy(q2);
}

/* ---------- LOCK ---------- */

/* a locked message is hidden from plain gets and other cursors, got by its owner under cursor; UNLOCK and cursor destroy release it. */
static void test_lock(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q), *other = mkcur(q);
    CHECK_EQ(put_tag(q, 5, 0), MQRC_NONE);
    CHECK_EQ(put_tag(q, 5, 1), MQRC_NONE);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST | MQGMO_LOCK, &tag), MQRC_NONE);
    CHECK_EQ(tag, 0);
    /* another cursor skips it */
    CHECK_EQ(browse(q, other, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(browse(q, other, MQGMO_BROWSE_NEXT, &tag), MQRC_NO_MSG_AVAILABLE);
    /* a plain get skips it */
    CHECK_EQ(get_tag(q), 1);
    CHECK_EQ(get_tag(q), -1);
    CHECK_EQ(tpf_mq_depth(q), 1);
    /* UNLOCK releases it */
    CHECK_EQ(browse(q, c, MQGMO_UNLOCK, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_UNLOCK, &tag), MQRC_NO_MSG_LOCKED);
    CHECK_EQ(browse(q, other, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, 0);

    /* lock again; the owner gets it with MSG_UNDER_CURSOR */
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST | MQGMO_LOCK, &tag), MQRC_NONE);
    CHECK_EQ(tag, 0);
    CHECK_EQ(browse(q, other, MQGMO_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(tpf_mq_depth(q), 1);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NONE);
    CHECK_EQ(tag, 0);
    CHECK_EQ(browse(q, c, MQGMO_MSG_UNDER_CURSOR, &tag), MQRC_NONE);
    CHECK_EQ(tag, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(browse(q, c, MQGMO_UNLOCK, &tag), MQRC_NO_MSG_LOCKED);

    /* cursor destroy releases the lock */
    CHECK_EQ(put_tag(q, 5, 2), MQRC_NONE);
    CHECK_EQ(put_tag(q, 5, 3), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST | MQGMO_LOCK, &tag), MQRC_NONE);
    CHECK_EQ(tag, 2);
    /* a second LOCK browse moves the lock to the next message */
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT | MQGMO_LOCK, &tag), MQRC_NONE);
    CHECK_EQ(tag, 3);
    CHECK_EQ(get_tag(q), 2);
    CHECK_EQ(get_tag(q), -1);
    tpf_mq_cursor_destroy(c);
    CHECK_EQ(get_tag(q), 3);
    tpf_mq_cursor_destroy(other);
    tpf_mq_destroy(q);
}

/* A queue destroyed before its cursors detaches them: destroying them later frees
 * them without touching the freed queue (the interpreter's exit collects in any order). */
static void test_destroy_queue_before_cursor(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q), *locked = mkcur(q);
    long tag;
    CHECK_EQ(put_tag(q, 5, 0), MQRC_NONE);
    CHECK_EQ(put_tag(q, 5, 1), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, locked, MQGMO_BROWSE_NEXT | MQGMO_LOCK, &tag), MQRC_NONE);
    tpf_mq_destroy(q);
    tpf_mq_cursor_destroy(locked);
    tpf_mq_cursor_destroy(c);
}

/* ---------- lazy expiry ---------- */

/* take one expired message; returns rc, tag in *tag. */
static int take_expired_tag(tpf_mq_queue_t *q, long *tag, tpf_mq_msg_t *md_out)
{
    char buf[64];
    tpf_mq_msg_t md;
    memset(&md, 0, sizeof md);
    int rc = tpf_mq_take_expired(q, &md, buf, sizeof buf - 1);
    *tag = -1;
    if (rc == MQRC_NONE) {
        buf[md.length] = 0;
        *tag = strtol(buf, NULL, 10);
    }
    if (md_out)
        *md_out = md;
    return rc;
}

/* the seed rule: a plain get discards expired messages of higher priority and of equal priority ahead of the first live one, nothing else. */
static void test_expiry_seed_rule(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const int64_t T = 1000000; /* deadlines at T; gets at 2T */
    CHECK_EQ(put_tag_full(q, 9, 90, 0, T, 0, NULL), MQRC_NONE);           /* p9 expired */
    CHECK_EQ(put_tag_full(q, 5, 50, 0, T, 0, NULL), MQRC_NONE);           /* p5 expired */
    CHECK_EQ(put_tag_full(q, 5, 51, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE); /* p5 live */
    CHECK_EQ(put_tag_full(q, 5, 52, 0, T, 0, NULL), MQRC_NONE);           /* p5 expired, behind */
    CHECK_EQ(put_tag_full(q, 1, 10, 0, T, 0, NULL), MQRC_NONE);           /* p1 expired */
    CHECK_EQ(tpf_mq_depth(q), 5);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 5);

    tpf_mq_getreq_t r = req_new(0);
    r.now = 2 * T;
    long tag;
    tpf_mq_msg_t md;
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 51);
    CHECK(md.flags & TPF_MQ_F_EXPIRED_PENDING);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.expired, 2);
    CHECK_EQ(s.expired_pending, 2);
    CHECK_EQ(s.gets, 1);
    CHECK_EQ(s.depth, 2); /* 52 and 10, expired but not discarded */
    CHECK_EQ(tpf_mq_depth(q), 2);
    CHECK_EQ(tpf_mq_depth_at_least(q, 5, 0), 1);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 2);
    CHECK_EQ(s.depth_by_priority[9], 0);
    CHECK_EQ(s.depth_by_priority[5], 1);
    CHECK_EQ(s.depth_by_priority[1], 1);

    /* the expired list, in discard order, with data and descriptor */
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 90);
    CHECK_EQ(md.priority, 9);
    CHECK_EQ(md.expiry, T);
    CHECK_EQ(md.length, 2);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 50);
    CHECK_EQ(md.priority, 5);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NO_MSG_AVAILABLE);
    s = stats_of(q);
    CHECK_EQ(s.expired_pending, 0);
    CHECK_EQ(s.expired, 2);

    /* the next get discards 52 and 10 and finds nothing */
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NO_MSG_AVAILABLE);
    s = stats_of(q);
    CHECK_EQ(s.expired, 4);
    CHECK_EQ(s.expired_pending, 2);
    CHECK_EQ(s.depth, 0);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 0);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 52);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 10);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NO_MSG_AVAILABLE);
    tpf_mq_destroy(q);
}

/* a message is not expired before its deadline; take_expired with a small buffer gives 2080 and keeps it. */
static void test_expiry_boundary_and_take_truncated(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const int64_t T = 5000000;
    CHECK_EQ(put_tag_full(q, 5, 123456, 0, T, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 5, 2, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    tpf_mq_getreq_t r = req_new(MQGMO_BROWSE_FIRST);
    tpf_mq_cursor_t *c = mkcur(q);
    r.cursor = c;
    r.now = T - 1;
    long tag;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 123456);
    CHECK_EQ(stats_of(q).expired, 0);
    /* long after the deadline: discarded by the get */
    r = req_new(0);
    r.now = T + 1000000;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 2);
    tpf_mq_msg_t md;
    char small[3];
    memset(&md, 0, sizeof md);
    CHECK_EQ(tpf_mq_take_expired(q, &md, small, sizeof small), MQRC_TRUNCATED_MSG_FAILED);
    CHECK_EQ(md.length, 6);
    CHECK_EQ(stats_of(q).expired_pending, 1);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 123456);
    CHECK_EQ(stats_of(q).expired_pending, 0);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* a browse discards the expired messages it would have returned. */
static void test_expiry_browse_discards(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const int64_t T = 1000;
    CHECK_EQ(put_tag_full(q, 7, 1, 0, T, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 7, 2, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 3, 3, 0, T, 0, NULL), MQRC_NONE);
    tpf_mq_cursor_t *c = mkcur(q);
    tpf_mq_getreq_t r = req_new(MQGMO_BROWSE_FIRST);
    r.cursor = c;
    r.now = 2 * T;
    long tag;
    tpf_mq_msg_t md;
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 2);
    CHECK(md.flags & TPF_MQ_F_EXPIRED_PENDING);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.expired, 1);
    CHECK_EQ(s.depth, 2);
    r.options = MQGMO_BROWSE_NEXT;
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NO_MSG_AVAILABLE);
    s = stats_of(q);
    CHECK_EQ(s.expired, 2);
    CHECK_EQ(s.expired_pending, 2);
    CHECK_EQ(s.depth, 1);
    CHECK_EQ(take_expired_tag(q, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(take_expired_tag(q, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 3);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* when the message under the cursor has expired, (BROWSE_)MSG_UNDER_CURSOR gives 2034 and discards it. */
static void test_expiry_under_cursor(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const int64_t T = 1000;
    CHECK_EQ(put_tag_full(q, 4, 1, 0, T, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 4, 2, 0, T, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 4, 3, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    tpf_mq_cursor_t *c = mkcur(q);
    tpf_mq_getreq_t r = req_new(MQGMO_BROWSE_FIRST);
    r.cursor = c;
    r.now = T / 2;
    long tag;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 1);
    r.options = MQGMO_BROWSE_MSG_UNDER_CURSOR;
    r.now = 2 * T;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_UNDER_CURSOR);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.expired, 1);
    CHECK_EQ(s.depth, 2);
    /* BROWSE_NEXT continues after it: 2 is expired too, 3 is returned */
    r.options = MQGMO_BROWSE_NEXT;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 3);
    CHECK_EQ(stats_of(q).expired, 2);

    /* destructive MSG_UNDER_CURSOR on a message that expired */
    CHECK_EQ(put_tag_full(q, 4, 4, 0, 3 * T, 0, NULL), MQRC_NONE);
    r.options = MQGMO_BROWSE_NEXT;
    r.now = 2 * T;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 4);
    r.options = MQGMO_MSG_UNDER_CURSOR;
    r.now = 4 * T;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_UNDER_CURSOR);
    s = stats_of(q);
    CHECK_EQ(s.expired, 3);
    CHECK_EQ(s.expired_pending, 3);
    CHECK_EQ(s.depth, 1);
    CHECK_EQ(s.gets, 0);
    static const long expect[] = {1, 2, 4};
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(take_expired_tag(q, &tag, NULL), MQRC_NONE);
        CHECK_EQ(tag, expect[i]);
    }
    CHECK_EQ(get_tag(q), 3);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* a matched get discards expired matching messages ahead of the first live match, not other ones. */
static void test_expiry_matched_get(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const int64_t T = 1000;
    CHECK_EQ(put_tag_full(q, 8, 1, 7, T, 0, NULL), MQRC_NONE);            /* match, expired */
    CHECK_EQ(put_tag_full(q, 9, 2, 8, T, 0, NULL), MQRC_NONE);            /* no match, expired */
    CHECK_EQ(put_tag_full(q, 6, 3, 7, T, 0, NULL), MQRC_NONE);            /* match, expired */
    CHECK_EQ(put_tag_full(q, 6, 4, 7, TPF_MQ_NEVER, 0, NULL), MQRC_NONE); /* first live match */
    CHECK_EQ(put_tag_full(q, 6, 5, 7, T, 0, NULL), MQRC_NONE);            /* match, behind */
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 7);
    r.now = 2 * T;
    long tag;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 4);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.expired, 2);
    CHECK_EQ(s.depth, 2);
    CHECK_EQ(take_expired_tag(q, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(take_expired_tag(q, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 3);
    CHECK_EQ(take_expired_tag(q, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    tpf_mq_destroy(q);
}

/* ---------- units of work ---------- */

/* a put under a unit of work is counted in depth but invisible until commit; backout deletes it. */
static void test_uow_put(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag_full(q, 5, 1, 0, TPF_MQ_NEVER, 11, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_put_simple(q, "2", 1, 5, 12), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth(q), 2);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 2);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 1), 0);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.uncommitted_puts, 2);
    CHECK_EQ(s.puts, 2);
    CHECK_EQ(get_tag(q), -1);
    tpf_mq_cursor_t *c = mkcur(q);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NO_MSG_AVAILABLE);

    uint32_t n = 99;
    CHECK_EQ(tpf_mq_commit(q, 11, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    n = 99;
    CHECK_EQ(tpf_mq_backout(q, 12, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    s = stats_of(q);
    CHECK_EQ(s.uncommitted_puts, 0);
    CHECK_EQ(s.depth, 1);
    CHECK_EQ(s.commits, 1);
    CHECK_EQ(s.backouts, 1);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 1), 1);
    tpf_mq_msg_t md;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    tpf_mq_getreq_t r = req_new(0);
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(md.uow, 11);
    CHECK_EQ(get_tag(q), -1);

    /* unknown units of work and uow 0 */
    n = 99;
    CHECK_EQ(tpf_mq_commit(q, 4242, &n), MQRC_NONE);
    CHECK_EQ(n, 0);
    n = 99;
    CHECK_EQ(tpf_mq_backout(q, 4242, &n), MQRC_NONE);
    CHECK_EQ(n, 0);
    CHECK_EQ(tpf_mq_commit(q, 4242, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_commit(q, 0, &n), TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(tpf_mq_backout(q, 0, &n), TPF_RC_INVALID_ARGUMENT);
    s = stats_of(q);
    CHECK_EQ(s.commits, 1);
    CHECK_EQ(s.backouts, 1);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* an uncommitted put keeps its arrival place: commit makes it visible where it was put. */
static void test_uow_put_keeps_place(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag_full(q, 5, 1, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 5, 2, 0, TPF_MQ_NEVER, 3, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 5, 3, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_commit(q, 3, NULL), MQRC_NONE);
    CHECK_EQ(get_tag(q), 1);
    CHECK_EQ(get_tag(q), 2);
    CHECK_EQ(get_tag(q), 3);
    tpf_mq_destroy(q);
}

/* a get under a unit of work hides the message; commit removes it; backout restores it in place with backout_count + 1. */
static void test_uow_get(void)
{
    tpf_mq_queue_t *q = mkq(0);
    for (unsigned i = 0; i < 4; i++)
        CHECK_EQ(put_tag(q, 5, i), MQRC_NONE);
    tpf_mq_getreq_t r = req_new(0);
    r.uow = 21;
    long tag;
    tpf_mq_msg_t md;
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 0);
    CHECK_EQ(md.backout_count, 0);
    char b[16];
    CHECK_EQ(tpf_mq_get_simple(q, 22, &md, b, sizeof b), MQRC_NONE); /* tag 1 under 22 */
    CHECK_EQ(md.length, 1);
    CHECK_EQ(b[0], '1');
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.uncommitted_gets, 2);
    CHECK_EQ(s.depth, 4);
    CHECK_EQ(tpf_mq_depth(q), 4);
    /* hidden from a browse too */
    tpf_mq_cursor_t *c = mkcur(q);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, 2);
    tpf_mq_cursor_destroy(c);

    uint32_t n = 0;
    CHECK_EQ(tpf_mq_backout(q, 21, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    CHECK_EQ(tpf_mq_commit(q, 22, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    s = stats_of(q);
    CHECK_EQ(s.uncommitted_gets, 0);
    CHECK_EQ(s.depth, 3);
    /* 0 is back first, with backout_count 1 */
    r = req_new(0);
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 0);
    CHECK_EQ(md.backout_count, 1);
    CHECK_EQ(get_tag(q), 2);
    CHECK_EQ(get_tag(q), 3);
    CHECK_EQ(get_tag(q), -1);

    /* restored in the middle: get 1st and 2nd under uow, 2nd backed out only */
    for (unsigned i = 10; i < 13; i++)
        CHECK_EQ(put_tag(q, 5, i), MQRC_NONE);
    CHECK_EQ(tpf_mq_get_simple(q, 30, &md, b, sizeof b), MQRC_NONE);
    CHECK_EQ(tpf_mq_get_simple(q, 31, &md, b, sizeof b), MQRC_NONE);
    CHECK_EQ(tpf_mq_backout(q, 31, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_backout(q, 31, &n), MQRC_NONE);
    CHECK_EQ(n, 0);
    /* backed out twice: count 2 */
    CHECK_EQ(tpf_mq_get_simple(q, 31, &md, b, sizeof b), MQRC_NONE);
    CHECK_EQ(md.backout_count, 1);
    CHECK_EQ(tpf_mq_backout(q, 31, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_backout(q, 30, NULL), MQRC_NONE);
    r = req_new(0);
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 10);
    CHECK_EQ(md.backout_count, 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 11);
    CHECK_EQ(md.backout_count, 2);
    CHECK_EQ(get_tag(q), 12);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* a unit of work that both put and got on the queue: commit and backout count both kinds in n_out. */
static void test_uow_mixed(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag(q, 2, 1), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 9, 2, 0, TPF_MQ_NEVER, 40, NULL), MQRC_NONE);
    tpf_mq_msg_t md;
    char b[8];
    CHECK_EQ(tpf_mq_get_simple(q, 40, &md, b, sizeof b), MQRC_NONE); /* gets 1, not its own put */
    CHECK_EQ(b[0], '1');
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.uncommitted_puts, 1);
    CHECK_EQ(s.uncommitted_gets, 1);
    uint32_t n = 0;
    CHECK_EQ(tpf_mq_backout(q, 40, &n), MQRC_NONE);
    CHECK_EQ(n, 2);
    CHECK_EQ(tpf_mq_depth(q), 1);
    CHECK_EQ(get_tag(q), 1);
    CHECK_EQ(put_tag_full(q, 9, 3, 0, TPF_MQ_NEVER, 41, NULL), MQRC_NONE);
    CHECK_EQ(put_tag(q, 2, 4), MQRC_NONE);
    CHECK_EQ(tpf_mq_get_simple(q, 41, &md, b, sizeof b), MQRC_NONE);
    CHECK_EQ(b[0], '4');
    CHECK_EQ(tpf_mq_commit(q, 41, &n), MQRC_NONE);
    CHECK_EQ(n, 2);
    s = stats_of(q);
    CHECK_EQ(s.depth, 1);
    CHECK_EQ(s.uncommitted_puts, 0);
    CHECK_EQ(s.uncommitted_gets, 0);
    CHECK_EQ(get_tag(q), 3);
    tpf_mq_destroy(q);
}

/* ---------- put_many / get_many ---------- */

/* A packed batch (the checkpoint's chunk format) of two messages: little-endian fields
 * at the offsets queue.h gives. */
static size_t packed_pair(unsigned char *b, uint8_t prio2, uint32_t backouts1)
{
    memset(b, 0, 4 + 2 * TPF_MQ_PACKED_DESC);
    b[0] = 2;
    for (int i = 0; i < 2; i++) {
        unsigned char *d = b + 4 + i * TPF_MQ_PACKED_DESC;
        d[0] = (unsigned char)(70 + i);   /* tag: not kept */
        memset(d + 8, 'A' + i, TPF_MQ_ID_LEN);
        d[56] = i == 0 ? 3 : prio2;
        memset(d + 60, 0xff, 7);          /* expiry: TPF_MQ_NEVER */
        d[67] = i == 0 ? 0x7f : 0x00;     /* ... the second one: 2^56 - 1 */
        d[68] = (unsigned char)(11 * (i + 1)); /* put time */
        d[76] = (unsigned char)i;         /* ctx_len */
        d[80] = (unsigned char)(i == 0 ? backouts1 : 0);
        d[84] = (unsigned char)(i + 1);   /* length */
    }
    memcpy(b + 4 + 2 * TPF_MQ_PACKED_DESC, "abb", 3);
    return 4 + 2 * TPF_MQ_PACKED_DESC + 3;
}

/* Get the two messages of packed_pair(b, 1, 5), put from sequence seq, and check each
 * field kept. */
static void get_packed_pair(tpf_mq_queue_t *q, uint64_t seq)
{
    tpf_mq_msg_t md;
    char data[8];
    CHECK_EQ(tpf_mq_get_simple(q, 0, &md, data, sizeof data), MQRC_NONE);
    CHECK_EQ(md.msg_id[0], 'A');
    CHECK_EQ(md.priority, 3);
    CHECK_EQ(md.expiry, TPF_MQ_NEVER);
    CHECK_EQ(md.put_time, 11);
    CHECK_EQ(md.backout_count, 5);
    CHECK_EQ(md.persistent, 1);
    CHECK_EQ(md.length, 1);
    CHECK_EQ(md.seq, seq);
    CHECK_EQ(data[0], 'a');
    CHECK_EQ(tpf_mq_get_simple(q, 0, &md, data, sizeof data), MQRC_NONE);
    CHECK_EQ(md.msg_id[0], 'B');
    CHECK_EQ(md.expiry, ((int64_t)1 << 56) - 1);
    CHECK_EQ(md.ctx_len, 1);
    CHECK_EQ(md.backout_count, 0);
    CHECK_EQ(md.length, 2);
    CHECK_EQ(md.seq, seq + 1);
    CHECK_EQ(memcmp(data, "bb", 2), 0);
}

/* put_packed keeps each descriptor, the backout count too; a bad message or sizes that
 * do not add up put nothing. */
static void test_put_packed(void)
{
    tpf_mq_queue_t *q = mkq(0);
    unsigned char b[4 + 2 * TPF_MQ_PACKED_DESC + 3];
    uint64_t seq = 777;
    uint32_t n = 99, expiring = 99;
    size_t len = packed_pair(b, 12, 5);
    CHECK_EQ(tpf_mq_put_packed(q, b, len, &seq, &n, &expiring), MQRC_PRIORITY_ERROR);
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(n, 99);
    len = packed_pair(b, 1, 5);
    CHECK_EQ(tpf_mq_put_packed(q, b, len - 1, &seq, &n, &expiring), TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(tpf_mq_put_packed(q, b, 3, &seq, &n, &expiring), TPF_RC_INVALID_ARGUMENT);
    b[0] = 3; /* more descriptors than the batch has room for */
    CHECK_EQ(tpf_mq_put_packed(q, b, len, &seq, &n, &expiring), TPF_RC_INVALID_ARGUMENT);
    b[0] = 2;
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(tpf_mq_put_packed(q, b, len, &seq, &n, &expiring), MQRC_NONE);
    CHECK_EQ(n, 2);
    CHECK_EQ(expiring, 1);
    get_packed_pair(q, seq);
    memset(b, 0, 4); /* an empty batch */
    CHECK_EQ(tpf_mq_put_packed(q, b, 4, &seq, &n, &expiring), MQRC_NONE);
    CHECK_EQ(n, 0);
    CHECK_EQ(expiring, 0);
    tpf_mq_destroy(q);
}

/* put_packed_gather takes the descriptors and the data apart (restart from the log's
 * map): the same messages as put_packed; sizes that do not agree put nothing. */
static void test_put_packed_gather(void)
{
    tpf_mq_queue_t *q = mkq(0);
    unsigned char b[4 + 2 * TPF_MQ_PACKED_DESC + 3];
    size_t descs = 4 + 2 * TPF_MQ_PACKED_DESC;
    (void)packed_pair(b, 12, 5);
    const char *one = "a", *two = "bb";
    const void *datas[2] = {one, two};
    uint64_t seq = 777;
    uint32_t n = 99, expiring = 99;
    CHECK_EQ(tpf_mq_put_packed_gather(q, b, descs, datas, &seq, &n, &expiring),
             MQRC_PRIORITY_ERROR);
    CHECK_EQ(tpf_mq_depth(q), 0);
    (void)packed_pair(b, 1, 5);
    CHECK_EQ(tpf_mq_put_packed_gather(q, b, descs + 3, datas, &seq, &n, &expiring),
             TPF_RC_INVALID_ARGUMENT); /* the data do not follow the descriptors here */
    CHECK_EQ(tpf_mq_put_packed_gather(q, b, descs, NULL, &seq, &n, &expiring),
             TPF_RC_INVALID_ARGUMENT);
    const void *missing[2] = {one, NULL};
    CHECK_EQ(tpf_mq_put_packed_gather(q, b, descs, missing, &seq, &n, &expiring),
             TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(n, 99);
    CHECK_EQ(tpf_mq_put_packed_gather(q, b, descs, datas, &seq, &n, &expiring), MQRC_NONE);
    CHECK_EQ(n, 2);
    CHECK_EQ(expiring, 1);
    get_packed_pair(q, seq);
    memset(b, 0, 4); /* no messages */
    CHECK_EQ(tpf_mq_put_packed_gather(q, b, 4, NULL, &seq, &n, &expiring), MQRC_NONE);
    CHECK_EQ(n, 0);
    tpf_mq_destroy(q);
}

/* put_many is all or nothing: a bad priority in the batch (md_stride = sizeof(tpf_mq_msg_t)) puts nothing. */
static void test_put_many_all_or_nothing(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t mds[4];
    for (int i = 0; i < 4; i++)
        mds[i] = md_new(i + 1);
    mds[2].priority = 10;
    const uint32_t lengths[4] = {1, 2, 3, 4};
    const char *data = "abbcccdddd";
    uint64_t seq = 777;
    CHECK_EQ(tpf_mq_put_many(q, 4, mds, sizeof(tpf_mq_msg_t), lengths, data, &seq),
             MQRC_PRIORITY_ERROR);
    CHECK_EQ(seq, 777);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.depth, 0);
    CHECK_EQ(s.puts, 0);
    mds[2].priority = 3;
    mds[3].persistent = 5;
    CHECK_EQ(tpf_mq_put_many(q, 4, mds, sizeof(tpf_mq_msg_t), lengths, data, &seq),
             MQRC_PERSISTENCE_ERROR);
    CHECK_EQ(tpf_mq_depth(q), 0);
    mds[3].persistent = 0;
    CHECK_EQ(tpf_mq_put_many(q, 4, mds, sizeof(tpf_mq_msg_t), lengths, NULL, &seq),
             TPF_RC_INVALID_ARGUMENT);
    CHECK_EQ(tpf_mq_depth(q), 0);

    /* valid: priorities 1..4 -> delivered 4,3,2,1 */
    CHECK_EQ(tpf_mq_put_many(q, 4, mds, sizeof(tpf_mq_msg_t), lengths, data, &seq),
             MQRC_NONE);
    s = stats_of(q);
    CHECK_EQ(s.depth, 4);
    CHECK_EQ(s.puts, 4);
    for (int i = 3; i >= 0; i--) {
        tpf_mq_msg_t md;
        char b[8];
        CHECK_EQ(tpf_mq_get_simple(q, 0, &md, b, sizeof b), MQRC_NONE);
        CHECK_EQ(md.length, lengths[i]);
        CHECK_EQ(md.priority, i + 1);
        CHECK_EQ(md.seq, seq + (uint64_t)i);
        CHECK_EQ(b[0], "abcd"[i]);
        CHECK(memcmp(md.msg_id, "TPFEMU-TESTQUEUE", TPF_MQ_MSGID_PREFIX_LEN) == 0);
    }
    tpf_mq_destroy(q);
}

/* put_many gives Q_FULL when depth + n exceeds MAXDEPTH, and puts nothing. */
static void test_put_many_q_full(void)
{
    tpf_mq_queue_t *q = mkq(5);
    CHECK_EQ(put_tag(q, 0, 1), MQRC_NONE);
    CHECK_EQ(put_tag(q, 0, 2), MQRC_NONE);
    tpf_mq_msg_t md = md_new(4);
    const uint32_t lengths[4] = {1, 1, 1, 1};
    uint64_t seq;
    CHECK_EQ(tpf_mq_put_many(q, 4, &md, 0, lengths, "wxyz", &seq), MQRC_Q_FULL);
    CHECK_EQ(tpf_mq_depth(q), 2);
    CHECK_EQ(stats_of(q).puts, 2);
    CHECK_EQ(tpf_mq_put_many(q, 3, &md, 0, lengths, "wxy", &seq), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth(q), 5);
    tpf_mq_destroy(q);
}

/* with md_stride 0 one descriptor serves every message; seq_first is the first sequence and MsgIds are distinct. */
/* Microseconds of CLOCK_REALTIME, as the core reads it. */
static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* put_time 0 is stamped with a time within the call (put, put_simple, and once for a
 * whole batch); a put_time given is kept; tpf_mq_put writes the stamp back into md. */
static void test_put_time_stamp(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t mds[3] = {md_new(5), md_new(5), md_new(5)};
    mds[1].put_time = 42;
    const uint32_t lengths[3] = {1, 1, 1};
    int64_t t0 = wall_us();
    tpf_mq_msg_t md = md_new(5);
    CHECK_EQ(tpf_mq_put(q, &md, "a", 1), MQRC_NONE);
    int64_t t1 = wall_us();
    CHECK_EQ(tpf_mq_put_simple(q, "b", 1, 5, 0), MQRC_NONE);
    int64_t t2 = wall_us();
    CHECK_EQ(tpf_mq_put_many(q, 3, mds, sizeof mds[0], lengths, "cde", NULL), MQRC_NONE);
    int64_t t3 = wall_us();
    tpf_mq_msg_t out[5];
    char b[4];
    for (int i = 0; i < 5; i++)
        CHECK_EQ(tpf_mq_get_simple(q, 0, &out[i], b, sizeof b), MQRC_NONE);
    CHECK(t0 <= out[0].put_time && out[0].put_time <= t1);
    CHECK(t1 <= out[1].put_time && out[1].put_time <= t2);
    CHECK(t2 <= out[2].put_time && out[2].put_time <= t3);
    CHECK_EQ(out[3].put_time, 42);
    CHECK_EQ(out[4].put_time, out[2].put_time);
    CHECK_EQ(md.put_time, out[0].put_time); /* written back by the put */
    tpf_mq_destroy(q);
}

static void test_put_many_stride0(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag(q, 0, 1), MQRC_NONE); /* seq before the batch */
    tpf_mq_msg_t first;
    CHECK_EQ(put_tag_full(q, 0, 2, 0, TPF_MQ_NEVER, 0, &first), MQRC_NONE);
    tpf_mq_msg_t md = md_new(7);
    set_id(md.correl_id, 55);
    const uint32_t lengths[3] = {2, 0, 3};
    uint64_t seq = 0;
    CHECK_EQ(tpf_mq_put_many(q, 3, &md, 0, lengths, "AABBB", &seq), MQRC_NONE);
    CHECK(seq > first.seq);
    CHECK(is_zero(md.msg_id, TPF_MQ_ID_LEN)); /* const input, not written */
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 55);
    uint8_t ids[3][TPF_MQ_ID_LEN];
    for (unsigned i = 0; i < 3; i++) {
        tpf_mq_msg_t out;
        char b[8];
        CHECK_EQ(tpf_mq_get(q, &r, &out, b, sizeof b), MQRC_NONE);
        CHECK_EQ(out.length, lengths[i]);
        CHECK_EQ(out.priority, 7);
        CHECK_EQ(out.seq, seq + i);
        memcpy(ids[i], out.msg_id, TPF_MQ_ID_LEN);
        if (i == 0)
            CHECK(memcmp(b, "AA", 2) == 0);
        if (i == 2)
            CHECK(memcmp(b, "BBB", 3) == 0);
    }
    CHECK(memcmp(ids[0], ids[1], TPF_MQ_ID_LEN) != 0);
    CHECK(memcmp(ids[1], ids[2], TPF_MQ_ID_LEN) != 0);
    CHECK(memcmp(ids[0], ids[2], TPF_MQ_ID_LEN) != 0);
    CHECK_EQ(tpf_mq_depth(q), 2);
    tpf_mq_destroy(q);
}

/* get_many returns messages in delivery order, stops before the first that does not fit, 2080 when the first does not fit, 2033 when empty. */
static void test_get_many(void)
{
    tpf_mq_queue_t *q = mkq(0);
    uint32_t n = 99, lens[8];
    tpf_mq_msg_t mds[8];
    char buf[64];
    CHECK_EQ(tpf_mq_get_many(q, 8, 0, TPF_MQ_NOW, mds, lens, buf, sizeof buf, &n),
             MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(put_tag(q, 1, 1000), MQRC_NONE);   /* 4 bytes */
    CHECK_EQ(put_tag(q, 3, 22), MQRC_NONE);     /* 2 bytes */
    CHECK_EQ(put_tag(q, 3, 333), MQRC_NONE);    /* 3 bytes */
    CHECK_EQ(put_tag(q, 1, 55555), MQRC_NONE);  /* 5 bytes */
    /* delivery: 22, 333, 1000, 55555; cap 8 -> 22,333 (5), 1000 would make 9 */
    n = 0;
    memset(lens, 0, sizeof lens);
    CHECK_EQ(tpf_mq_get_many(q, 8, 0, TPF_MQ_NOW, mds, lens, buf, 8, &n), MQRC_NONE);
    CHECK_EQ(n, 2);
    CHECK_EQ(lens[0], 2);
    CHECK_EQ(lens[1], 3);
    CHECK(memcmp(buf, "22333", 5) == 0);
    CHECK_EQ(mds[0].priority, 3);
    CHECK_EQ(mds[1].length, 3);
    CHECK_EQ(tpf_mq_depth(q), 2);
    /* first does not fit (n_out is checked in test_get_many_first_too_big) */
    memset(lens, 0, sizeof lens);
    CHECK_EQ(tpf_mq_get_many(q, 8, 0, TPF_MQ_NOW, mds, lens, buf, 3, &n),
             MQRC_TRUNCATED_MSG_FAILED);
    CHECK_EQ(lens[0], 4);
    CHECK_EQ(tpf_mq_depth(q), 2);
    /* max_n limits; mds_out NULL allowed */
    CHECK_EQ(tpf_mq_get_many(q, 1, 0, TPF_MQ_NOW, NULL, lens, buf, sizeof buf, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    CHECK_EQ(lens[0], 4);
    CHECK(memcmp(buf, "1000", 4) == 0);
    CHECK_EQ(tpf_mq_get_many(q, 8, 0, TPF_MQ_NOW, NULL, lens, buf, sizeof buf, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    CHECK(memcmp(buf, "55555", 5) == 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    CHECK_EQ(stats_of(q).gets, 4);
    CHECK_EQ(tpf_mq_get_many(q, 8, 0, TPF_MQ_NOW, NULL, lens, buf, sizeof buf, &n),
             MQRC_NO_MSG_AVAILABLE);
    tpf_mq_destroy(q);
}

/* get_many under a unit of work hides the messages until commit/backout. */
static void test_get_many_uow(void)
{
    tpf_mq_queue_t *q = mkq(0);
    for (unsigned i = 0; i < 5; i++)
        CHECK_EQ(put_tag(q, 5, i), MQRC_NONE);
    uint32_t n = 0, lens[8];
    char buf[64];
    CHECK_EQ(tpf_mq_get_many(q, 3, 9, TPF_MQ_NOW, NULL, lens, buf, sizeof buf, &n), MQRC_NONE);
    CHECK_EQ(n, 3);
    CHECK_EQ(tpf_mq_depth(q), 5);
    CHECK_EQ(stats_of(q).uncommitted_gets, 3);
    CHECK_EQ(get_tag(q), 3);
    CHECK_EQ(tpf_mq_backout(q, 9, &n), MQRC_NONE);
    CHECK_EQ(n, 3);
    CHECK_EQ(get_tag(q), 0);
    CHECK_EQ(get_tag(q), 1);
    CHECK_EQ(get_tag(q), 2);
    CHECK_EQ(get_tag(q), 4);
    tpf_mq_destroy(q);
}

/* ---------- depth_at_least ---------- */

/* depth_at_least counts by MD.Priority across priorities, after gets, and with uncommitted puts. */
static void test_depth_at_least(void)
{
    tpf_mq_queue_t *q = mkq(0);
    static const int prio[] = {0, 3, 3, 5, 9, 9, 9};
    for (unsigned i = 0; i < 7; i++)
        CHECK_EQ(put_tag(q, prio[i], i), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 7);
    CHECK_EQ(tpf_mq_depth_at_least(q, 1, 0), 6);
    CHECK_EQ(tpf_mq_depth_at_least(q, 3, 0), 6);
    CHECK_EQ(tpf_mq_depth_at_least(q, 4, 0), 4);
    CHECK_EQ(tpf_mq_depth_at_least(q, 6, 0), 3);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 0), 3);
    CHECK_EQ(get_tag(q), 4);
    CHECK_EQ(get_tag(q), 5);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 0), 1);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 1), 5);
    CHECK_EQ(tpf_mq_put_simple(q, "u", 1, 9, 5), MQRC_NONE);
    CHECK_EQ(tpf_mq_put_simple(q, "u", 1, 2, 5), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 0), 2);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 1), 1);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 7);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 1), 5);
    /* an uncommitted get still counts */
    tpf_mq_msg_t md;
    char b[8];
    CHECK_EQ(tpf_mq_get_simple(q, 6, &md, b, sizeof b), MQRC_NONE);
    CHECK_EQ(md.priority, 9);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 1), 1);
    CHECK_EQ(tpf_mq_commit(q, 6, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 1), 0);
    CHECK_EQ(tpf_mq_commit(q, 5, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 1), 1);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 1), 6);
    CHECK_EQ(tpf_mq_depth_at_least(q, 0, 0), 6);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.depth_by_priority[9], 1);
    CHECK_EQ(s.depth_by_priority[3], 2);
    CHECK_EQ(s.depth_by_priority[2], 1);
    tpf_mq_destroy(q);
}

/* when not even the first message fits, get_many returns 2080 with lengths_out[0] set, *n_out = 0 and nothing removed. */
static void test_get_many_first_too_big(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(tpf_mq_put_simple(q, "0123456789", 10, 5, 0), MQRC_NONE);
    uint32_t n = 99, lens[4] = {0, 0, 0, 0};
    char buf[16];
    CHECK_EQ(tpf_mq_get_many(q, 4, 0, TPF_MQ_NOW, NULL, lens, buf, 9, &n),
             MQRC_TRUNCATED_MSG_FAILED);
    CHECK_EQ(lens[0], 10);
    CHECK_EQ(n, 0); /* documented: "*n_out = 0" */
    CHECK_EQ(tpf_mq_depth(q), 1);
    CHECK_EQ(stats_of(q).gets, 0);
    tpf_mq_destroy(q);
}

/* depth_at_least clamps a priority outside 0..9 (above 9 counts priority 9, below 0 counts all). */
static void test_depth_at_least_clamps(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag(q, 9, 1), MQRC_NONE);
    CHECK_EQ(put_tag(q, 9, 2), MQRC_NONE);
    CHECK_EQ(put_tag(q, 0, 3), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth_at_least(q, -5, 0), 3);
    CHECK_EQ(tpf_mq_depth_at_least(q, 9, 0), 2);
    CHECK_EQ(tpf_mq_depth_at_least(q, 10, 0), 2);
    CHECK_EQ(tpf_mq_depth_at_least(q, 42, 1), 2);
    tpf_mq_destroy(q);
}

/* ---------- purge ---------- */

/* purge removes committed messages and keeps uncommitted puts and gets; n_out counts the removed ones. */
static void test_purge(void)
{
    tpf_mq_queue_t *q = mkq(0);
    for (unsigned i = 0; i < 5; i++)
        CHECK_EQ(put_tag(q, 4, i), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 4, 100, 0, TPF_MQ_NEVER, 8, NULL), MQRC_NONE);
    tpf_mq_msg_t md;
    char b[8];
    CHECK_EQ(tpf_mq_get_simple(q, 9, &md, b, sizeof b), MQRC_NONE); /* tag 0 under 9 */
    uint32_t n = 0;
    CHECK_EQ(tpf_mq_purge(q, &n), MQRC_NONE);
    CHECK_EQ(n, 4);
    CHECK_EQ(tpf_mq_depth(q), 2);
    CHECK_EQ(get_tag(q), -1);
    CHECK_EQ(tpf_mq_backout(q, 9, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_commit(q, 8, NULL), MQRC_NONE);
    CHECK_EQ(get_tag(q), 0);
    CHECK_EQ(get_tag(q), 100);
    CHECK_EQ(tpf_mq_purge(q, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_purge(q, &n), MQRC_NONE);
    CHECK_EQ(n, 0);
    CHECK_EQ(tpf_mq_purge(NULL, &n), TPF_RC_INVALID_ARGUMENT);
    tpf_mq_destroy(q);
}

/* ---------- memory reuse ---------- */

/* after warm-up, put/get cycles of 1 KB reuse freed slots: slab_bytes and slots_free do not change; a 200 000-byte message goes through and large_bytes returns to 0. */
static void test_free_list_reuse(void)
{
    tpf_mq_queue_t *q = mkq(0);
    static char in[1024], out[1024];
    for (unsigned i = 0; i < sizeof in; i++)
        in[i] = (char)(i * 7);
    tpf_mq_msg_t md;
    /* warm-up: a few messages on the queue at once, then drained */
    for (int i = 0; i < 8; i++)
        CHECK_EQ(tpf_mq_put_simple(q, in, sizeof in, i % 10, 0), MQRC_NONE);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(tpf_mq_get_simple(q, 0, &md, out, sizeof out), MQRC_NONE);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(tpf_mq_put_simple(q, in, sizeof in, 4, 0), MQRC_NONE);
        CHECK_EQ(tpf_mq_get_simple(q, 0, &md, out, sizeof out), MQRC_NONE);
    }
    tpf_mq_stats_t s0 = stats_of(q);
    CHECK(s0.slab_bytes > 0);
    const long cycles = g_quick ? 50000 : 1000000;
    long bad = 0;
    for (long i = 0; i < cycles; i++) {
        in[0] = (char)i;
        if (tpf_mq_put_simple(q, in, sizeof in, (int)(i % 10), 0) != MQRC_NONE)
            bad++;
        if (tpf_mq_get_simple(q, 0, &md, out, sizeof out) != MQRC_NONE || md.length != sizeof in ||
            out[0] != (char)i)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK(memcmp(in, out, sizeof in) == 0);
    tpf_mq_stats_t s1 = stats_of(q);
    CHECK_EQ(s1.slab_bytes, s0.slab_bytes);
    CHECK_EQ(s1.slots_free, s0.slots_free);
    CHECK_EQ(s1.depth, 0);
    CHECK_EQ(s1.large_bytes, 0);

    /* one large message */
    const uint32_t big = 200000;
    char *bin = malloc(big), *bout = malloc(big);
    CHECK(bin && bout);
    if (bin && bout) {
        for (uint32_t i = 0; i < big; i++)
            bin[i] = (char)(i * 31 + 3);
        CHECK_EQ(tpf_mq_put_simple(q, bin, big, 5, 0), MQRC_NONE);
        CHECK(stats_of(q).large_bytes >= big);
        memset(bout, 0, big);
        CHECK_EQ(tpf_mq_get_simple(q, 0, &md, bout, big), MQRC_NONE);
        CHECK_EQ(md.length, big);
        CHECK(memcmp(bin, bout, big) == 0);
        CHECK_EQ(stats_of(q).large_bytes, 0);
        /* a message of exactly 64 KiB lives in a slab slot, not allocated singly */
        CHECK_EQ(tpf_mq_put_simple(q, bin, 65536, 5, 0), MQRC_NONE);
        CHECK_EQ(stats_of(q).large_bytes, 0);
        CHECK_EQ(tpf_mq_get_simple(q, 0, &md, bout, big), MQRC_NONE);
        CHECK_EQ(md.length, 65536);
        CHECK(memcmp(bin, bout, 65536) == 0);
        /* a large message left on the queue is freed by destroy (LeakSanitizer) */
        CHECK_EQ(tpf_mq_put_simple(q, bin, big, 5, 0), MQRC_NONE);
    }
    free(bin);
    free(bout);
    tpf_mq_destroy(q);
}

/* ---------- ring tombstones ---------- */

/* getting every other message by CorrelId leaves holes; plain gets then return the rest in exact put order. */
static void test_ring_tombstones(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const unsigned N = 10000;
    long bad = 0;
    for (unsigned i = 0; i < N; i++)
        if (put_tag_full(q, 3, i, i + 1, TPF_MQ_NEVER, 0, NULL) != MQRC_NONE)
            bad++;
    CHECK_EQ(bad, 0);
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    for (unsigned i = 1; i < N; i += 2) {
        long tag;
        set_id(r.correl_id, i + 1);
        if (get_tag_req(q, &r, &tag, NULL) != MQRC_NONE || tag != (long)i)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(tpf_mq_depth(q), N / 2);
    /* interleave some new puts at the same priority: they come after */
    for (unsigned i = 0; i < 10; i++)
        CHECK_EQ(put_tag(q, 3, N + i), MQRC_NONE);
    for (unsigned i = 0; i < N; i += 2)
        if (get_tag(q) != (long)i)
            bad++;
    CHECK_EQ(bad, 0);
    for (unsigned i = 0; i < 10; i++)
        CHECK_EQ(get_tag(q), N + i);
    CHECK_EQ(get_tag(q), -1);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* the same from the other end: the first half got by CorrelId, in reverse, then plain gets return the rest in order. */
static void test_ring_tombstones_reverse(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const unsigned N = 2000;
    long bad = 0;
    for (unsigned i = 0; i < N; i++)
        if (put_tag_full(q, 6, i, i + 1, TPF_MQ_NEVER, 0, NULL) != MQRC_NONE)
            bad++;
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    for (unsigned i = N / 2; i-- > 0;) {
        long tag;
        set_id(r.correl_id, i + 1);
        if (get_tag_req(q, &r, &tag, NULL) != MQRC_NONE || tag != (long)i)
            bad++;
    }
    CHECK_EQ(bad, 0);
    for (unsigned i = N / 2; i < N; i++) {
        if (get_tag(q) != (long)i)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(get_tag(q), -1);
    tpf_mq_destroy(q);
}

/* ---------- randomized model check ---------- */

/* A reference model: messages with tag, priority, state (0 visible, 1 put under uow
   not committed, 2 got under uow), uow, backout count; kept in put order. */
enum { MODEL_MAX = 20000 };
typedef struct {
    unsigned tag;
    int prio;
    int state;
    uint64_t uow;
    int backouts;
    int alive;
} model_msg_t;

static uint64_t g_rng;
static uint32_t rnd(void)
{
    /* xorshift64* */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (uint32_t)((g_rng * 2685821657736338717ULL) >> 32);
}

/* the model's next visible message in delivery order, or -1 */
static int model_first(const model_msg_t *m, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (m[i].alive && m[i].state == 0 && (best < 0 || m[i].prio > m[best].prio))
            best = i;
    return best;
}

static uint32_t model_depth(const model_msg_t *m, int n)
{
    uint32_t d = 0;
    for (int i = 0; i < n; i++)
        d += m[i].alive != 0;
    return d;
}

/* 20 000 random puts, gets, gets under uow 1 or 2, commits and backouts give the same results in the core and a reference model. */
static void test_model_random(void)
{
    model_msg_t *m = calloc(MODEL_MAX, sizeof *m);
    CHECK(m != NULL);
    if (!m)
        return;
    int n = 0;
    tpf_mq_queue_t *q = mkq(0);
    g_rng = 0x9E3779B97F4A7C15ULL;
    const int steps = 20000;
    int mismatches = 0;
    for (int step = 0; step < steps && mismatches < 5; step++) {
        uint32_t op = rnd() % 100;
        char what[96];
        if (op < 40 && n < MODEL_MAX) { /* put, sometimes under a uow */
            int prio = (int)(rnd() % 10);
            uint64_t uow = (rnd() % 4 == 0) ? 1 + rnd() % 2 : 0;
            unsigned tag = (unsigned)n;
            int rc = put_tag_full(q, prio, tag, 0, TPF_MQ_NEVER, uow, NULL);
            m[n] = (model_msg_t){tag, prio, uow ? 1 : 0, uow, 0, 1};
            n++;
            snprintf(what, sizeof what, "put p%d uow %llu", prio, (unsigned long long)uow);
            if (rc != MQRC_NONE) {
                printf("  step %d %s: rc %d\n", step, what, rc);
                mismatches++;
            }
        } else if (op < 75) { /* get, plain or under uow 1/2 */
            uint64_t uow = (rnd() % 3 == 0) ? 0 : 1 + rnd() % 2;
            tpf_mq_getreq_t r = req_new(0);
            r.uow = uow;
            long tag;
            tpf_mq_msg_t md;
            int rc = get_tag_req(q, &r, &tag, &md);
            int w = model_first(m, n);
            snprintf(what, sizeof what, "get uow %llu", (unsigned long long)uow);
            if (w < 0) {
                if (rc != MQRC_NO_MSG_AVAILABLE) {
                    printf("  step %d %s: rc %d tag %ld, model: none\n", step, what, rc, tag);
                    mismatches++;
                }
            } else {
                if (rc != MQRC_NONE || tag != (long)m[w].tag || md.priority != m[w].prio ||
                    md.backout_count != m[w].backouts) {
                    printf("  step %d %s: rc %d tag %ld bo %d, model: tag %u bo %d\n", step,
                           what, rc, tag, (int)md.backout_count, m[w].tag, m[w].backouts);
                    mismatches++;
                }
                if (uow) {
                    m[w].state = 2;
                    m[w].uow = uow;
                } else {
                    m[w].alive = 0;
                }
            }
        } else if (op < 88) { /* commit */
            uint64_t uow = 1 + rnd() % 2;
            uint32_t cnt = 99, want = 0;
            int rc = tpf_mq_commit(q, uow, &cnt);
            for (int i = 0; i < n; i++) {
                if (!m[i].alive || m[i].uow != uow || m[i].state == 0)
                    continue;
                want++;
                if (m[i].state == 1)
                    m[i].state = 0;
                else
                    m[i].alive = 0;
                m[i].uow = 0;
            }
            if (rc != MQRC_NONE || cnt != want) {
                printf("  step %d commit %llu: rc %d n %u, model n %u\n", step,
                       (unsigned long long)uow, rc, cnt, want);
                mismatches++;
            }
        } else { /* backout */
            uint64_t uow = 1 + rnd() % 2;
            uint32_t cnt = 99, want = 0;
            int rc = tpf_mq_backout(q, uow, &cnt);
            for (int i = 0; i < n; i++) {
                if (!m[i].alive || m[i].uow != uow || m[i].state == 0)
                    continue;
                want++;
                if (m[i].state == 1) {
                    m[i].alive = 0;
                } else {
                    m[i].state = 0;
                    m[i].backouts++;
                }
                m[i].uow = 0;
            }
            if (rc != MQRC_NONE || cnt != want) {
                printf("  step %d backout %llu: rc %d n %u, model n %u\n", step,
                       (unsigned long long)uow, rc, cnt, want);
                mismatches++;
            }
        }
        uint32_t d = tpf_mq_depth(q), md_ = model_depth(m, n);
        if (d != md_) {
            printf("  step %d: depth %u, model %u\n", step, d, md_);
            mismatches++;
        }
    }
    CHECK_EQ(mismatches, 0);
    /* drain: commit/backout everything and compare the final order */
    CHECK_EQ(tpf_mq_commit(q, 1, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_commit(q, 2, NULL), MQRC_NONE);
    for (int i = 0; i < n; i++)
        if (m[i].alive && m[i].state != 0) {
            if (m[i].state == 1)
                m[i].state = 0;
            else
                m[i].alive = 0;
        }
    int bad = 0;
    for (;;) {
        int w = model_first(m, n);
        long got = get_tag(q);
        if (w < 0) {
            if (got != -1)
                bad++;
            break;
        }
        if (got != (long)m[w].tag)
            bad++;
        m[w].alive = 0;
        if (bad > 5)
            break;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    free(m);
    tpf_mq_destroy(q);
}

/* ---------- threads ---------- */

typedef struct {
    tpf_mq_queue_t *q;
    long iters;
    long got;
    long put_errors;
} thr_arg_t;

static void *thr_main(void *p)
{
    thr_arg_t *a = p;
    char buf[32], out[32];
    memset(buf, 'x', sizeof buf);
    tpf_mq_msg_t md;
    for (long i = 0; i < a->iters; i++) {
        if (tpf_mq_put_simple(a->q, buf, sizeof buf, (int)(i % 10), 0) != MQRC_NONE)
            a->put_errors++;
        if (tpf_mq_get_simple(a->q, 0, &md, out, sizeof out) == MQRC_NONE)
            a->got++;
    }
    return NULL;
}

/* two threads putting and getting on one queue: puts == successful gets + depth at the end. */
static void test_threads_smoke(void)
{
    tpf_mq_queue_t *q = mkq(0);
    thr_arg_t a[2];
    pthread_t t[2];
    const long iters = g_quick ? 20000 : 200000;
    for (int i = 0; i < 2; i++) {
        a[i] = (thr_arg_t){q, iters, 0, 0};
        CHECK_EQ(pthread_create(&t[i], NULL, thr_main, &a[i]), 0);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(a[0].put_errors + a[1].put_errors, 0);
    CHECK_EQ(s.puts, 2 * iters);
    CHECK_EQ(s.gets, (uint64_t)(a[0].got + a[1].got));
    CHECK_EQ(s.puts, s.gets + s.depth);
    CHECK_EQ(tpf_mq_depth(q), s.depth);
    /* the rest can be drained */
    long rest = 0;
    while (get_tag(q) != -1 && rest <= 2 * iters)
        rest++;
    CHECK_EQ(rest, s.depth);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* ---------- more edge cases ---------- */

/* after configure changes msgid_prefix, a generated MsgId uses the new prefix and a get matched on it finds the message. */
static void test_msgid_after_prefix_change(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_msg_t a = md_new(5), b = md_new(5), c2 = md_new(5);
    CHECK_EQ(tpf_mq_put(q, &a, "a", 1), MQRC_NONE);
    tpf_mq_config_t c = cfg_default();
    memcpy(c.msgid_prefix, "A-DIFFERENT-PFX!", TPF_MQ_MSGID_PREFIX_LEN);
    CHECK_EQ(tpf_mq_configure(q, &c), MQRC_NONE);
    CHECK_EQ(tpf_mq_put(q, &b, "b", 1), MQRC_NONE);
    CHECK_EQ(tpf_mq_put(q, &c2, "c", 1), MQRC_NONE);
    CHECK(memcmp(b.msg_id, "A-DIFFERENT-PFX!", TPF_MQ_MSGID_PREFIX_LEN) == 0);
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_MSG_ID;
    long tag;
    memcpy(r.msg_id, b.msg_id, TPF_MQ_ID_LEN); /* the first put after the change */
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    memcpy(r.msg_id, c2.msg_id, TPF_MQ_ID_LEN);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    memcpy(r.msg_id, a.msg_id, TPF_MQ_ID_LEN);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* the MsgId index survives heavy churn: explicit MsgIds, many removed by matched gets in a scattered order, every remaining one still found. */
static void test_msgid_index_churn(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const unsigned N = 6000;
    long bad = 0;
    for (unsigned i = 0; i < N; i++) {
        tpf_mq_msg_t md = md_new((int)(i % 10));
        set_id(md.msg_id, i);
        set_id(md.correl_id, i % 7 + 1); /* long shared CorrelId runs too */
        char d[16];
        int n = snprintf(d, sizeof d, "%u", i);
        if (tpf_mq_put(q, &md, d, (uint32_t)n) != MQRC_NONE)
            bad++;
    }
    CHECK_EQ(bad, 0);
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_MSG_ID;
    /* remove i where (i * 7919) % 3 != 0, in a scrambled order */
    for (unsigned k = 0; k < N; k++) {
        unsigned i = (unsigned)(((uint64_t)k * 7919u) % N);
        if (i % 3 == 0)
            continue;
        long tag;
        set_id(r.msg_id, i);
        if (get_tag_req(q, &r, &tag, NULL) != MQRC_NONE || tag != (long)i)
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* removed ones are gone, kept ones are found by MsgId+CorrelId, then nothing is left */
    for (unsigned i = 0; i < N; i++) {
        long tag;
        set_id(r.msg_id, i);
        r.match = MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID;
        set_id(r.correl_id, i % 7 + 1);
        int rc = get_tag_req(q, &r, &tag, NULL);
        if (i % 3 == 0 ? (rc != MQRC_NONE || tag != (long)i) : rc != MQRC_NO_MSG_AVAILABLE)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* a message browsed by one cursor and then locked by another is not available to the first cursor's MSG_UNDER_CURSOR. */
static void test_lock_blocks_other_under_cursor(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *a = mkcur(q), *b = mkcur(q);
    CHECK_EQ(put_tag(q, 5, 1), MQRC_NONE);
    long tag;
    CHECK_EQ(browse(q, a, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, b, MQGMO_BROWSE_FIRST | MQGMO_LOCK, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, a, MQGMO_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(browse(q, a, MQGMO_BROWSE_MSG_UNDER_CURSOR, &tag), MQRC_NO_MSG_UNDER_CURSOR);
    CHECK_EQ(tpf_mq_depth(q), 1);
    /* purge releases the lock and removes it; b's UNLOCK then finds nothing locked */
    uint32_t n = 0;
    CHECK_EQ(tpf_mq_purge(q, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    CHECK_EQ(browse(q, b, MQGMO_UNLOCK, &tag), MQRC_NO_MSG_LOCKED);
    CHECK_EQ(stats_of(q).ghosts, 1);
    tpf_mq_cursor_destroy(a);
    tpf_mq_cursor_destroy(b);
    CHECK_EQ(stats_of(q).ghosts, 0);
    tpf_mq_destroy(q);
}

/* get_simple and get_many with TPF_MQ_NOW read the clock and discard long-expired messages. */
static void test_expiry_real_clock(void)
{
    tpf_mq_queue_t *q = mkq(0);
    CHECK_EQ(put_tag_full(q, 5, 1, 0, 1, 0, NULL), MQRC_NONE); /* 1 us after the epoch */
    CHECK_EQ(put_tag_full(q, 5, 2, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 5, 3, 0, 1, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 5, 4, 0, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(get_tag(q), 2);
    CHECK_EQ(stats_of(q).expired, 1);
    uint32_t n = 0, lens[4];
    char buf[16];
    tpf_mq_msg_t mds[4];
    CHECK_EQ(tpf_mq_get_many(q, 4, 0, TPF_MQ_NOW, mds, lens, buf, sizeof buf, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    CHECK_EQ(buf[0], '4');
    CHECK(mds[0].flags & TPF_MQ_F_EXPIRED_PENDING);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.expired, 2);
    CHECK_EQ(s.expired_pending, 2);
    CHECK_EQ(s.depth, 0);
    /* get_many with an explicit now: a message not yet expired at `now` is returned */
    CHECK_EQ(put_tag_full(q, 5, 5, 0, 1000, 0, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_get_many(q, 4, 0, 999, NULL, lens, buf, sizeof buf, &n), MQRC_NONE);
    CHECK_EQ(n, 1);
    CHECK_EQ(buf[0], '5');
    tpf_mq_destroy(q); /* expired messages never taken are freed too */
}

/* an expired message is not discarded while it is hidden by a unit of work; backout makes it eligible and a get then discards it. */
static void test_expiry_and_uow(void)
{
    tpf_mq_queue_t *q = mkq(0);
    const int64_t T = 1000;
    CHECK_EQ(put_tag_full(q, 5, 1, 0, T, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 5, 2, 0, T, 3, NULL), MQRC_NONE); /* uncommitted put */
    tpf_mq_getreq_t r = req_new(0);
    r.uow = 4;
    r.now = T / 2;
    long tag;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE); /* tag 1 under uow 4 */
    CHECK_EQ(tag, 1);
    r = req_new(0);
    r.now = 2 * T;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    CHECK_EQ(stats_of(q).expired, 0); /* both hidden: nothing discarded */
    CHECK_EQ(tpf_mq_backout(q, 4, NULL), MQRC_NONE);
    CHECK_EQ(tpf_mq_commit(q, 3, NULL), MQRC_NONE);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE);
    tpf_mq_stats_t s = stats_of(q);
    CHECK_EQ(s.expired, 2);
    CHECK_EQ(s.depth, 0);
    tpf_mq_msg_t md;
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(md.backout_count, 1);
    CHECK_EQ(take_expired_tag(q, &tag, &md), MQRC_NONE);
    CHECK_EQ(tag, 2);
    tpf_mq_destroy(q);
}

/* a cursor standing on a message that a matched get removes continues with the next message in delivery order. */
static void test_browse_ghost_across_priorities(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    CHECK_EQ(put_tag_full(q, 8, 1, 1, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    CHECK_EQ(put_tag_full(q, 3, 2, 2, TPF_MQ_NEVER, 0, NULL), MQRC_NONE);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(tag, 1);
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_CORREL_ID;
    set_id(r.correl_id, 1);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 1);
    CHECK_EQ(stats_of(q).ghosts, 1);
    CHECK_EQ(tpf_mq_depth(q), 1);
    CHECK_EQ(tpf_mq_depth_at_least(q, 8, 0), 0);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 2);
    CHECK_EQ(stats_of(q).ghosts, 0);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* a cursor left on a removed message survives ring growth and compaction at its priority and BROWSE_NEXT continues correctly. */
static void test_ghost_survives_compaction(void)
{
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    for (unsigned i = 0; i < 8; i++)
        CHECK_EQ(put_tag(q, 4, i), MQRC_NONE);
    long tag;
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_FIRST, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, 2);
    /* remove everything but the ghost, churn many messages through the same ring */
    unsigned next = 8, expect_min = 8;
    for (unsigned i = 0; i < 8; i++)
        get_tag(q);
    long bad = 0;
    for (unsigned round = 0; round < 200; round++) {
        for (unsigned k = 0; k < 20; k++)
            if (put_tag(q, 4, next++) != MQRC_NONE)
                bad++;
        for (unsigned k = 0; k < 19; k++)
            if (get_tag(q) != (long)expect_min++)
                bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(stats_of(q).ghosts, 1);
    /* BROWSE_NEXT from the ghost: the first message still on the queue */
    CHECK_EQ(browse(q, c, MQGMO_BROWSE_NEXT, &tag), MQRC_NONE);
    CHECK_EQ(tag, expect_min);
    CHECK_EQ(stats_of(q).ghosts, 0);
    tpf_mq_cursor_destroy(c);
    tpf_mq_destroy(q);
}

/* a second model check: 20 000 random puts (priority, CorrelId 1..12), plain gets, CorrelId-matched gets, browses and purges agree with a reference model. */
static void test_model_random_matched(void)
{
    enum { MAXM = 20000 };
    typedef struct {
        unsigned tag, correl;
        int prio, alive;
    } mm_t;
    mm_t *m = calloc(MAXM, sizeof *m);
    CHECK(m != NULL);
    if (!m)
        return;
    int n = 0, mismatches = 0;
    tpf_mq_queue_t *q = mkq(0);
    tpf_mq_cursor_t *c = mkcur(q);
    int cur = -1; /* model: index of the message under the cursor, -1 before first */
    g_rng = 0xC0FFEE1234567ULL;
    for (int step = 0; step < 20000 && mismatches < 5; step++) {
        uint32_t op = rnd() % 100;
        if (op < 45 && n < MAXM) {
            int prio = (int)(rnd() % 10);
            unsigned correl = 1 + rnd() % 12;
            int rc = put_tag_full(q, prio, (unsigned)n, correl, TPF_MQ_NEVER, 0, NULL);
            m[n] = (mm_t){(unsigned)n, correl, prio, 1};
            n++;
            if (rc != MQRC_NONE) {
                printf("  step %d put: rc %d\n", step, rc);
                mismatches++;
            }
            continue;
        }
        long tag;
        int rc, w = -1;
        const char *what;
        if (op < 65) { /* plain get */
            what = "get";
            tpf_mq_getreq_t r = req_new(0);
            rc = get_tag_req(q, &r, &tag, NULL);
            for (int i = 0; i < n; i++)
                if (m[i].alive && (w < 0 || m[i].prio > m[w].prio))
                    w = i;
        } else if (op < 90) { /* matched get */
            what = "matched get";
            unsigned correl = 1 + rnd() % 12;
            tpf_mq_getreq_t r = req_new(0);
            r.match = MQMO_MATCH_CORREL_ID;
            set_id(r.correl_id, correl);
            rc = get_tag_req(q, &r, &tag, NULL);
            for (int i = 0; i < n; i++)
                if (m[i].alive && m[i].correl == correl && (w < 0 || m[i].prio > m[w].prio))
                    w = i;
        } else if (op < 99) { /* browse next */
            what = "browse next";
            rc = browse(q, c, MQGMO_BROWSE_NEXT, &tag);
            /* model: first alive after cur in (prio desc, seq asc) order */
            for (int i = 0; i < n; i++) {
                if (!m[i].alive)
                    continue;
                if (cur >= 0 && !(m[i].prio < m[cur].prio || (m[i].prio == m[cur].prio && i > cur)))
                    continue;
                if (w < 0 || m[i].prio > m[w].prio)
                    w = i;
            }
            if (w >= 0) {
                cur = w;
                if (rc == MQRC_NONE && tag == (long)m[w].tag)
                    w = -2; /* matched; nothing to remove */
            }
            if (w == -2)
                goto depth;
        } else { /* purge */
            uint32_t cnt = 0, want = 0;
            CHECK_EQ(tpf_mq_purge(q, &cnt), MQRC_NONE);
            for (int i = 0; i < n; i++)
                if (m[i].alive) {
                    m[i].alive = 0;
                    want++;
                }
            if (cnt != want) {
                printf("  step %d purge: n %u, model %u\n", step, cnt, want);
                mismatches++;
            }
            goto depth;
        }
        if (w < 0) {
            if (rc != MQRC_NO_MSG_AVAILABLE) {
                printf("  step %d %s: rc %d tag %ld, model none\n", step, what, rc, tag);
                mismatches++;
            }
        } else {
            if (rc != MQRC_NONE || tag != (long)m[w].tag) {
                printf("  step %d %s: rc %d tag %ld, model %u\n", step, what, rc, tag, m[w].tag);
                mismatches++;
            }
            if (op < 90)
                m[w].alive = 0;
        }
    depth:;
        uint32_t want = 0;
        for (int i = 0; i < n; i++)
            want += m[i].alive != 0;
        if (tpf_mq_depth(q) != want) {
            printf("  step %d: depth %u, model %u\n", step, tpf_mq_depth(q), want);
            mismatches++;
        }
    }
    CHECK_EQ(mismatches, 0);
    tpf_mq_cursor_destroy(c);
    CHECK_EQ(stats_of(q).ghosts, 0);
    free(m);
    tpf_mq_destroy(q);
}

/* ---------- main ---------- */

static int g_passed, g_failed;

static void run(const char *name, void (*fn)(void))
{
    g_test_name = name;
    g_test_failed = 0;
    fn();
    if (g_test_failed) {
        g_failed++;
        printf("FAIL %s\n", name);
    } else {
        g_passed++;
    }
    fflush(stdout);
}

#define RUN(fn) run(#fn, fn)

/* Put md (its msg_id all zero: generated) with the decimal tag as data. */
static int put_md_tag(tpf_mq_queue_t *q, tpf_mq_msg_t *md, unsigned tag)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%u", tag);
    return tpf_mq_put(q, md, buf, (uint32_t)n);
}

/* generated MsgIds live in blocks of the generated-MsgId index; a block left with a few
 * messages hands them over to the hash index: every one stays found by MsgId, a hidden
 * one (got under a unit of work) too, and comes back in place on backout. */
static void test_generated_msgids_sparse_blocks(void)
{
    tpf_mq_queue_t *q = mkq(0);
    enum { N = 64 * 8 };
    static uint8_t ids[N][TPF_MQ_ID_LEN];
    long bad = 0;
    for (unsigned i = 0; i < N; i++) {
        tpf_mq_msg_t md = md_new(i % 16 == 3 ? 0 : 9);
        if (put_md_tag(q, &md, i) != MQRC_NONE)
            bad++;
        memcpy(ids[i], md.msg_id, TPF_MQ_ID_LEN);
    }
    CHECK_EQ(bad, 0);
    /* hide one lingering message under a unit of work before its block empties */
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_MSG_ID;
    r.uow = 77;
    memcpy(r.msg_id, ids[19], TPF_MQ_ID_LEN);
    long tag;
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 19);
    r.uow = 0;
    /* the priority 9 messages go: each block keeps its 4 (or 3 and the hidden one) */
    for (unsigned i = 0; i < N; i++)
        if (i % 16 != 3 && get_tag(q) != (long)i)
            bad++;
    CHECK_EQ(bad, 0);
    CHECK_EQ(tpf_mq_depth(q), N / 16);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NO_MSG_AVAILABLE); /* hidden */
    CHECK_EQ(tpf_mq_backout(q, 77, NULL), MQRC_NONE);
    /* gone ones are not found; the others are, in any order, the hidden one too */
    for (unsigned k = 0; k < N; k++) {
        unsigned i = (unsigned)(((uint64_t)k * 389u) % N);
        memcpy(r.msg_id, ids[i], TPF_MQ_ID_LEN);
        int rc = get_tag_req(q, &r, &tag, NULL);
        if (i % 16 == 3 ? rc != MQRC_NONE || tag != (long)i : rc != MQRC_NO_MSG_AVAILABLE)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* a block of generated MsgIds that keeps many messages while hundreds of later blocks
 * come and go: the list of blocks is compacted around it, and lookups still find its
 * messages and the current block's. */
static void test_generated_msgids_old_block(void)
{
    tpf_mq_queue_t *q = mkq(0);
    enum { OLD = 20, PAIRS = 64 * 300 };
    static uint8_t ids[OLD][TPF_MQ_ID_LEN];
    long bad = 0;
    for (unsigned i = 0; i < OLD; i++) {
        tpf_mq_msg_t md = md_new(0);
        if (put_md_tag(q, &md, i) != MQRC_NONE)
            bad++;
        memcpy(ids[i], md.msg_id, TPF_MQ_ID_LEN);
    }
    tpf_mq_msg_t last = md_new(0);
    for (unsigned i = 0; i < PAIRS; i++) {
        last = md_new(9);
        if (put_md_tag(q, &last, OLD + i) != MQRC_NONE || get_tag(q) != (long)(OLD + i))
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(put_md_tag(q, &last, 7777), MQRC_NONE); /* in the current block */
    tpf_mq_getreq_t r = req_new(0);
    r.match = MQMO_MATCH_MSG_ID;
    long tag;
    memcpy(r.msg_id, last.msg_id, TPF_MQ_ID_LEN);
    CHECK_EQ(get_tag_req(q, &r, &tag, NULL), MQRC_NONE);
    CHECK_EQ(tag, 7777);
    for (unsigned i = OLD; i-- > 0;) {
        memcpy(r.msg_id, ids[i], TPF_MQ_ID_LEN);
        if (get_tag_req(q, &r, &tag, NULL) != MQRC_NONE || tag != (long)i)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
}

/* a model check of MsgId lookups: puts with generated MsgIds (most priority 5, some 0,
 * which linger while plain gets take the 5s, leaving blocks sparse), puts that supply a
 * MsgId copied from an earlier message (generated or not, on the queue or gone), plain
 * gets, gets matched on MsgId, and backed-out gets, against a reference model. */
static void test_model_generated_msgids(void)
{
    enum { MAXM = 30000 };
    typedef struct {
        uint8_t id[TPF_MQ_ID_LEN];
        int prio, alive;
    } gm_t;
    gm_t *m = calloc(MAXM, sizeof *m);
    CHECK(m != NULL);
    if (!m)
        return;
    int n = 0, mismatches = 0, supplied = 0, matched = 0;
    tpf_mq_queue_t *q = mkq(0);
    g_rng = 0x5EED0F6E4E7A7EDULL;
    int steps = g_quick ? 20000 : 80000;
    for (int step = 0; step < steps && mismatches < 5; step++) {
        uint32_t op = rnd() % 100;
        if (op < 46 && n < MAXM) {
            tpf_mq_msg_t md = md_new(rnd() % 8 == 0 ? 0 : 5);
            if (n > 0 && rnd() % 10 == 0) { /* a supplied MsgId, maybe a generated one */
                memcpy(md.msg_id, m[rnd() % (uint32_t)n].id, TPF_MQ_ID_LEN);
                supplied++;
            }
            int rc = put_md_tag(q, &md, (unsigned)n);
            memcpy(m[n].id, md.msg_id, TPF_MQ_ID_LEN);
            m[n].prio = md.priority;
            m[n].alive = 1;
            n++;
            if (rc != MQRC_NONE) {
                printf("  step %d put: rc %d\n", step, rc);
                mismatches++;
            }
            continue;
        }
        if (n == 0)
            continue;
        long tag;
        int rc, w = -1;
        tpf_mq_getreq_t r = req_new(0);
        if (op < 56) { /* matched on a known MsgId under a unit of work, backed out */
            int k = (int)(rnd() % (uint32_t)n);
            r.match = MQMO_MATCH_MSG_ID;
            r.uow = 5;
            memcpy(r.msg_id, m[k].id, TPF_MQ_ID_LEN);
            rc = get_tag_req(q, &r, &tag, NULL);
            tpf_mq_backout(q, 5, NULL);
        } else if (op < 76) { /* plain get */
            rc = get_tag_req(q, &r, &tag, NULL);
        } else { /* matched on a known MsgId */
            int k = (int)(rnd() % (uint32_t)n);
            r.match = MQMO_MATCH_MSG_ID;
            memcpy(r.msg_id, m[k].id, TPF_MQ_ID_LEN);
            rc = get_tag_req(q, &r, &tag, NULL);
            matched += rc == MQRC_NONE;
        }
        for (int i = 0; i < n; i++) /* priority descending, then put order */
            if (m[i].alive && (w < 0 || m[i].prio > m[w].prio) &&
                (!r.match || memcmp(m[i].id, r.msg_id, TPF_MQ_ID_LEN) == 0))
                w = i;
        if (w < 0 ? rc != MQRC_NO_MSG_AVAILABLE : rc != MQRC_NONE || tag != w) {
            printf("  step %d: rc %d tag %ld, model %d\n", step, rc, tag, w);
            mismatches++;
        }
        if (w >= 0 && !r.uow)
            m[w].alive = 0;
    }
    CHECK_EQ(mismatches, 0);
    CHECK(supplied > 100 && matched > 100);
    /* what is left comes out in model order */
    long tag, left = 0;
    for (int i = 0; i < n; i++)
        left += m[i].alive;
    CHECK_EQ(tpf_mq_depth(q), left);
    for (int p = 5; p >= 0; p -= 5)
        for (int i = 0; i < n; i++)
            if (m[i].alive && m[i].prio == p && (tag = get_tag(q)) != i)
                mismatches++;
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(tpf_mq_depth(q), 0);
    tpf_mq_destroy(q);
    free(m);
}

int main(int argc, char **argv)
{
    g_quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);

    RUN(test_create_validation);
    RUN(test_priority_then_fifo);
    RUN(test_fifo_mode);
    RUN(test_reconfigure_no_reorder);
    RUN(test_put_errors);
    RUN(test_msgid_generation);
    RUN(test_get_empty_and_roundtrip);
    RUN(test_get_not_persistent);
    RUN(test_get_truncation);
    RUN(test_zero_length);
    RUN(test_matched_get_basic);
    RUN(test_matched_get_delivery_order);
    RUN(test_matched_get_large);
    RUN(test_browse_order);
    RUN(test_browse_after_removal_under_cursor);
    RUN(test_msg_under_cursor);
    RUN(test_browse_matched);
    RUN(test_option_errors);
    RUN(test_lock);
    RUN(test_destroy_queue_before_cursor);
    RUN(test_expiry_seed_rule);
    RUN(test_expiry_boundary_and_take_truncated);
    RUN(test_expiry_browse_discards);
    RUN(test_expiry_under_cursor);
    RUN(test_expiry_matched_get);
    RUN(test_uow_put);
    RUN(test_uow_put_keeps_place);
    RUN(test_uow_get);
    RUN(test_uow_mixed);
    RUN(test_put_many_all_or_nothing);
    RUN(test_put_many_q_full);
    RUN(test_put_many_stride0);
    RUN(test_put_time_stamp);
    RUN(test_get_many);
    RUN(test_get_many_uow);
    RUN(test_get_many_first_too_big);
    RUN(test_depth_at_least);
    RUN(test_depth_at_least_clamps);
    RUN(test_purge);
    RUN(test_free_list_reuse);
    RUN(test_ring_tombstones);
    RUN(test_ring_tombstones_reverse);
    RUN(test_model_random);
    RUN(test_threads_smoke);
    RUN(test_msgid_after_prefix_change);
    RUN(test_msgid_index_churn);
    RUN(test_lock_blocks_other_under_cursor);
    RUN(test_expiry_real_clock);
    RUN(test_expiry_and_uow);
    RUN(test_browse_ghost_across_priorities);
    RUN(test_ghost_survives_compaction);
    RUN(test_model_random_matched);
    RUN(test_put_packed);
    RUN(test_put_packed_gather);
    RUN(test_generated_msgids_sparse_blocks);
    RUN(test_generated_msgids_old_block);
    RUN(test_model_generated_msgids);

    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
