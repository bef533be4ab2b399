/* log_replay.c - the recovery log's replay at restart (see tpf/logrec.h) */
#include "tpf/logrec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { K_PUT = TPF_LOG_PUT, K_GET = TPF_LOG_GET, K_COMMIT = TPF_LOG_COMMIT,
       K_BACKOUT = TPF_LOG_BACKOUT };
#define REC_SIZE TPF_LOG_REC
#define DESC_SIZE TPF_MQ_PACKED_DESC
#define PUT_SIZE (REC_SIZE + DESC_SIZE)
#define NIL UINT32_MAX

enum { M_PENDING, M_LIVE, M_DEAD, M_CALLER };

static inline uint32_t ld32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ld64(const unsigned char *p)
{
    return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static inline void st32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void st64(unsigned char *p, uint64_t v)
{
    st32(p, (uint32_t)v);
    st32(p + 4, (uint32_t)(v >> 32));
}

typedef tpf_log_batch_t batch_t;

/** A put of the tail, in LSN (= key) order in replay_t.msgs. */
typedef struct {
    uint64_t key;
    const unsigned char *desc; /* its descriptor, then its data */
    uint32_t qid, backouts, length;
    uint32_t next; /* the unit of work's next put, or NIL */
    uint32_t batch, offset;
    uint8_t state;
} msg_t;

typedef struct {
    uint64_t key;
    uint32_t qid, backouts;
    uint32_t next; /* the unit of work's next get, or NIL */
} get_t;

typedef struct {
    uint64_t uow;
    uint64_t began; /* order of first record, to back out the open ones in order */
    uint32_t incarnation, used;
    uint32_t put_first, put_last, get_first, get_last;
} uow_t;

typedef tpf_log_effect_t effect_t;

typedef struct tpf_log_replay {
    size_t nq;
    const uint64_t *top, *from;
    const uint8_t *known;
    uint64_t floor;
    msg_t *msgs;
    size_t n_msgs, cap_msgs;
    get_t *gets;
    size_t n_gets, cap_gets;
    effect_t *fx;
    size_t n_fx, cap_fx;
    uow_t *uows; /* open addressing, linear probing, capacity a power of two */
    size_t cap_uows, n_uows;
    uint64_t began;
    uint64_t next_lsn; /* the LSN after the last record read */
    /* the first error: a record not readable (detail, lsn, kind) or out of memory */
    const char *err;
    uint64_t err_lsn;
    int err_kind; /* -1: none */
    int nomem;
    uint64_t *top_own, *from_own; /* copies of the caller's arrays (owned) */
    uint8_t *known_own;
} replay_t;

static int grow(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t new_cap = *cap ? *cap * 2 : 1024;
    void *p = realloc(*items, new_cap * size);
    if (p == NULL)
        return -1;
    *items = p;
    *cap = new_cap;
    return 0;
}

static inline size_t uow_hash(uint32_t incarnation, uint64_t uow)
{
    uint64_t h = (uow ^ ((uint64_t)incarnation << 40)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17);
}

/** Double the table of units of work (rehashing every entry). 0, or -1 out of memory. */
static int uow_grow(replay_t *r)
{
    size_t cap = r->cap_uows ? r->cap_uows * 2 : 64;
    uow_t *slots = calloc(cap, sizeof *slots);
    if (slots == NULL) {
        r->nomem = 1;
        return -1;
    }
    for (size_t i = 0; i < r->cap_uows; i++) {
        if (!r->uows[i].used)
            continue;
        size_t j = uow_hash(r->uows[i].incarnation, r->uows[i].uow) & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = r->uows[i];
    }
    free(r->uows);
    r->uows = slots;
    r->cap_uows = cap;
    return 0;
}

/** The slot of (incarnation, uow), or NIL; with create, a new slot if there is none
 * (NIL then means out of memory). */
static uint32_t uow_slot(replay_t *r, uint32_t incarnation, uint64_t uow, int create)
{
    for (;;) {
        size_t mask = r->cap_uows - 1, i = uow_hash(incarnation, uow) & mask;
        for (; r->cap_uows != 0 && r->uows[i].used; i = (i + 1) & mask)
            if (r->uows[i].uow == uow && r->uows[i].incarnation == incarnation)
                return (uint32_t)i;
        if (!create)
            return NIL;
        if ((r->n_uows + 1) * 2 > r->cap_uows) { /* at most half full: probe runs stay short */
            if (uow_grow(r) < 0)
                return NIL;
            continue; /* the empty slot found moved */
        }
        r->uows[i] = (uow_t){.uow = uow, .began = r->began++, .incarnation = incarnation,
                             .used = 1, .put_first = NIL, .put_last = NIL, .get_first = NIL,
                             .get_last = NIL};
        r->n_uows++;
        return (uint32_t)i;
    }
}

/** Empty slot i; the entries after it in its probe run move up (no tombstones). */
static void uow_remove(replay_t *r, size_t i)
{
    size_t mask = r->cap_uows - 1;
    for (size_t j = (i + 1) & mask; r->uows[j].used; j = (j + 1) & mask) {
        size_t home = uow_hash(r->uows[j].incarnation, r->uows[j].uow) & mask;
        /* j's entry may fill slot i unless its home lies cyclically in (i, j] */
        int stays = i < j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            r->uows[i] = r->uows[j];
            i = j;
        }
    }
    r->uows[i].used = 0;
    r->n_uows--;
}

static void effect(replay_t *r, uint32_t kind, uint32_t qid, uint64_t key, uint32_t backouts,
                   uint32_t batch, uint32_t offset)
{
    if (grow((void **)&r->fx, &r->cap_fx, r->n_fx, sizeof *r->fx) < 0) {
        r->nomem = 1;
        return;
    }
    r->fx[r->n_fx++] = (effect_t){key, kind, qid, backouts, batch, offset};
}

/** The tail's put of `key`, or NULL (binary search: msgs are in key order). */
static msg_t *find(replay_t *r, uint64_t key)
{
    size_t lo = 0, hi = r->n_msgs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->msgs[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_msgs && r->msgs[lo].key == key ? &r->msgs[lo] : NULL;
}

static void settle_put(replay_t *r, msg_t *m)
{
    if (m->key > r->top[m->qid]) {
        m->state = M_LIVE;
    } else {
        m->state = M_CALLER;
        effect(r, K_PUT, m->qid, m->key, 0, m->batch, m->offset);
    }
}

static void settle_get(replay_t *r, uint32_t qid, uint64_t key)
{
    if (key > r->top[qid]) {
        msg_t *m = find(r, key);
        if (m != NULL && m->qid == qid && m->state == M_LIVE)
            m->state = M_DEAD;
    } else {
        effect(r, K_GET, qid, key, 0, 0, 0);
    }
}

static void back_out_get(replay_t *r, uint32_t qid, uint64_t key, uint32_t backouts)
{
    if (key > r->top[qid]) {
        msg_t *m = find(r, key);
        if (m != NULL && m->qid == qid && m->state == M_LIVE && m->backouts <= backouts)
            m->backouts = backouts + 1;
    } else {
        effect(r, K_BACKOUT, qid, key, backouts, 0, 0);
    }
}

static void back_out_gets(replay_t *r, uint32_t first)
{
    for (uint32_t g = first; g != NIL; g = r->gets[g].next)
        back_out_get(r, r->gets[g].qid, r->gets[g].key, r->gets[g].backouts);
}

/** Stop at the record at lsn; kind >= 0 is the record's kind, named after the detail. */
static int fail(replay_t *r, uint64_t lsn, const char *detail, int kind)
{
    r->err = detail;
    r->err_lsn = lsn;
    r->err_kind = kind;
    return -1;
}

static int known(const replay_t *r, uint32_t qid)
{
    return qid < r->nq && r->known[qid];
}

static int replay_batch(replay_t *r, const batch_t *b, uint32_t bi)
{
    const unsigned char *buf = b->buf;
    size_t off = 0;
    uint64_t lsn = b->first;
    for (; off < b->len && !r->nomem; lsn++) {
        if (b->len - off < REC_SIZE)
            return fail(r, lsn, "record cut short", -1);
        const unsigned char *p = buf + off;
        unsigned kind = p[TPF_LOG_REC_KIND];
        uint32_t qid = ld32(p + TPF_LOG_REC_QID);
        uint64_t uow = ld64(p + TPF_LOG_REC_UOW);
        if (kind == K_PUT) {
            if (b->len - off < PUT_SIZE)
                return fail(r, lsn, "record cut short", -1);
            uint32_t length = ld32(p + REC_SIZE + TPF_LOG_DESC_LENGTH);
            if (length > b->len - off - PUT_SIZE)
                return fail(r, lsn, "message data cut short", -1);
            if (!known(r, qid))
                return fail(r, lsn, "unknown queue id", -1);
            if (lsn >= r->floor || lsn >= r->from[qid]) {
                if (grow((void **)&r->msgs, &r->cap_msgs, r->n_msgs, sizeof *r->msgs) < 0) {
                    r->nomem = 1;
                    break;
                }
                uint32_t at = (uint32_t)r->n_msgs++;
                msg_t *m = &r->msgs[at];
                *m = (msg_t){.key = lsn, .desc = p + REC_SIZE, .qid = qid,
                             .backouts = ld32(p + REC_SIZE + TPF_LOG_DESC_BACKOUTS), .length = length,
                             .next = NIL, .batch = bi, .offset = (uint32_t)off,
                             .state = M_PENDING};
                if (uow == 0) {
                    settle_put(r, m);
                } else {
                    uint32_t s = uow_slot(r, b->incarnation, uow, 1);
                    if (s == NIL)
                        break;
                    uow_t *u = &r->uows[s];
                    if (u->put_last == NIL)
                        u->put_first = at;
                    else
                        r->msgs[u->put_last].next = at;
                    u->put_last = at;
                }
            }
            off += PUT_SIZE + (size_t)length;
            continue;
        }
        off += REC_SIZE;
        if (kind == K_GET) {
            if (!known(r, qid))
                return fail(r, lsn, "unknown queue id", -1);
            if (lsn < r->from[qid])
                continue;
            uint64_t key = ld64(p + TPF_LOG_REC_KEY);
            if (uow == 0) {
                settle_get(r, qid, key);
                continue;
            }
            if (grow((void **)&r->gets, &r->cap_gets, r->n_gets, sizeof *r->gets) < 0) {
                r->nomem = 1;
                break;
            }
            uint32_t s = uow_slot(r, b->incarnation, uow, 1);
            if (s == NIL)
                break;
            uint32_t at = (uint32_t)r->n_gets++;
            r->gets[at] = (get_t){key, qid, ld32(p + TPF_LOG_REC_BACKOUTS), NIL};
            uow_t *u = &r->uows[s];
            if (u->get_last == NIL)
                u->get_first = at;
            else
                r->gets[u->get_last].next = at;
            u->get_last = at;
        } else if (kind == K_COMMIT || kind == K_BACKOUT) {
            uint32_t s = uow_slot(r, b->incarnation, uow, 0);
            if (s == NIL)
                continue; /* a unit of work with nothing to replay */
            uow_t u = r->uows[s];
            uow_remove(r, s);
            if (kind == K_COMMIT) {
                for (uint32_t i = u.put_first; i != NIL; i = r->msgs[i].next)
                    settle_put(r, &r->msgs[i]);
                for (uint32_t g = u.get_first; g != NIL; g = r->gets[g].next)
                    settle_get(r, r->gets[g].qid, r->gets[g].key);
            } else {
                for (uint32_t i = u.put_first; i != NIL; i = r->msgs[i].next)
                    r->msgs[i].state = M_DEAD;
                back_out_gets(r, u.get_first);
            }
        } else {
            return fail(r, lsn, "record kind", (int)kind);
        }
    }
    r->next_lsn = lsn;
    return r->nomem ? -1 : 0;
}

static int by_began(const void *a, const void *b)
{
    uint64_t x = ((const uow_t *)a)->began, y = ((const uow_t *)b)->began;
    return (x > y) - (x < y);
}

/** The log, then the open units of work backed out. 0, or -1 with r->err or r->nomem. */
static int replay(replay_t *r, const batch_t *batches, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (batches[i].first < r->next_lsn)
            return fail(r, batches[i].first, "log batches out of LSN order", -1);
        if (replay_batch(r, &batches[i], (uint32_t)i) < 0)
            return -1;
    }
    if (r->n_uows == 0)
        return 0;
    uow_t *open = malloc(r->n_uows * sizeof *open);
    if (open == NULL) {
        r->nomem = 1;
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->cap_uows; i++)
        if (r->uows[i].used)
            open[k++] = r->uows[i];
    qsort(open, k, sizeof *open, by_began);
    for (size_t i = 0; i < k; i++)
        back_out_gets(r, open[i].get_first);
    free(open);
    return r->nomem ? -1 : 0;
}

int tpf_log_replay(const tpf_log_batch_t *batches, size_t nb, const uint64_t *top,
                   const uint64_t *from, const uint8_t *known, size_t nq, uint64_t floor,
                   tpf_log_replay_t **out)
{
    replay_t *r = calloc(1, sizeof *r);
    *out = r;
    if (r == NULL)
        return TPF_LOG_E_NOMEM;
    size_t cells = nq ? nq : 1;
    r->top_own = malloc(cells * sizeof *r->top_own);
    r->from_own = malloc(cells * sizeof *r->from_own);
    r->known_own = malloc(cells);
    if (r->top_own == NULL || r->from_own == NULL || r->known_own == NULL)
        return TPF_LOG_E_NOMEM;
    if (nq) {
        memcpy(r->top_own, top, nq * sizeof *top);
        memcpy(r->from_own, from, nq * sizeof *from);
        memcpy(r->known_own, known, nq);
    }
    r->nq = nq;
    r->top = r->top_own;
    r->from = r->from_own;
    r->known = r->known_own;
    r->floor = floor;
    r->err_kind = -1;
    for (size_t i = 0; i < nb; i++) {
        if (batches[i].len > UINT32_MAX) {
            fail(r, batches[i].first, "log batch over 4 GiB", -1);
            return TPF_LOG_E_RECORD;
        }
    }
    if (replay(r, batches, nb) < 0)
        return r->nomem ? TPF_LOG_E_NOMEM : TPF_LOG_E_RECORD;
    return 0;
}

const char *tpf_log_replay_error(const tpf_log_replay_t *r, uint64_t *lsn, int *kind)
{
    *lsn = r->err_lsn;
    *kind = r->err_kind;
    return r->err != NULL ? r->err : "";
}

void tpf_log_replay_counts(const tpf_log_replay_t *r, size_t *counts)
{
    memset(counts, 0, r->nq * sizeof *counts);
    for (size_t i = 0; i < r->n_msgs; i++)
        counts[r->msgs[i].qid] += r->msgs[i].state == M_LIVE;
}

int tpf_log_replay_gather(const tpf_log_replay_t *r, unsigned char *const *descs,
                          const void **const *addrs)
{
    size_t cells = r->nq ? r->nq : 1;
    size_t *counts = calloc(cells, sizeof *counts);
    unsigned char **desc_at = calloc(cells, sizeof *desc_at);
    const void ***addr_at = calloc(cells, sizeof *addr_at);
    int rc = TPF_LOG_E_NOMEM;
    if (counts == NULL || desc_at == NULL || addr_at == NULL)
        goto done;
    tpf_log_replay_counts(r, counts);
    for (size_t q = 0; q < r->nq; q++) {
        if (counts[q] == 0)
            continue;
        st32(descs[q], (uint32_t)counts[q]);
        desc_at[q] = descs[q] + 4;
        addr_at[q] = addrs[q];
    }
    for (size_t i = 0; i < r->n_msgs; i++) {
        const msg_t *m = &r->msgs[i];
        if (m->state != M_LIVE)
            continue;
        unsigned char *d = desc_at[m->qid];
        memcpy(d, m->desc, DESC_SIZE);
        st64(d, m->key);
        st32(d + TPF_LOG_DESC_BACKOUTS, m->backouts);
        desc_at[m->qid] = d + DESC_SIZE;
        *addr_at[m->qid]++ = m->desc + DESC_SIZE;
    }
    rc = 0;
done:
    free(counts);
    free(desc_at);
    free(addr_at);
    return rc;
}

size_t tpf_log_replay_effects(const tpf_log_replay_t *r, const tpf_log_effect_t **fx)
{
    *fx = r->fx;
    return r->n_fx;
}

void tpf_log_replay_free(tpf_log_replay_t *r)
{
    if (r == NULL)
        return;
    free(r->msgs);
    free(r->gets);
    free(r->fx);
    free(r->uows);
    free(r->top_own);
    free(r->from_own);
    free(r->known_own);
    free(r);
}

size_t tpf_log_pack_size(const unsigned char *descs, size_t len)
{
    uint32_t n = len >= 4 ? ld32(descs) : 0;
    if (len < 4 || len != 4 + (size_t)n * DESC_SIZE)
        return 0;
    size_t total = len;
    for (uint32_t i = 0; i < n; i++)
        total += ld32(descs + 4 + (size_t)i * DESC_SIZE + TPF_LOG_DESC_LENGTH);
    return total;
}

void tpf_log_pack(const unsigned char *descs, size_t len, const void *const *addrs,
                  unsigned char *out)
{
    uint32_t n = ld32(descs);
    memcpy(out, descs, len);
    out += len;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t length = ld32(descs + 4 + (size_t)i * DESC_SIZE + TPF_LOG_DESC_LENGTH);
        memcpy(out, addrs[i], length);
        out += length;
    }
}
