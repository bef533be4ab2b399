/* logreplay.c - the recovery log's replay at restart (see logreplay.h) */
#include "logreplay.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Record layout (tpfemu/store/log_records.py): a 32-byte header (u8 kind, 3 pad, u32
 * queue id, u32 backout count, 4 pad, u64 unit of work, u64 message key); a PUT adds an
 * 88-byte descriptor (the core's packed descriptor: its backout count at 80, its data
 * length at 84) and the data. */
enum { K_PUT = 1, K_GET = 2, K_COMMIT = 3, K_BACKOUT = 4 };
#define REC_SIZE 32
#define DESC_SIZE 88
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

typedef struct {
    const unsigned char *buf;
    size_t len;
    uint64_t first;
    uint32_t incarnation;
} batch_t;

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

typedef struct {
    uint64_t key;
    uint32_t kind, qid, backouts, batch, offset;
} effect_t;

typedef struct {
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
        unsigned kind = p[0];
        uint32_t qid = ld32(p + 4);
        uint64_t uow = ld64(p + 16);
        if (kind == K_PUT) {
            if (b->len - off < PUT_SIZE)
                return fail(r, lsn, "record cut short", -1);
            uint32_t length = ld32(p + REC_SIZE + 84);
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
                             .backouts = ld32(p + REC_SIZE + 80), .length = length,
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
            uint64_t key = ld64(p + 24);
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
            r->gets[at] = (get_t){key, qid, ld32(p + 8), NIL};
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

/** Write each queue's live messages' descriptors and data addresses, in key order. */
static void gather(const replay_t *r, unsigned char **desc_at, const void ***addr_at)
{
    for (size_t i = 0; i < r->n_msgs; i++) {
        const msg_t *m = &r->msgs[i];
        if (m->state != M_LIVE)
            continue;
        unsigned char *d = desc_at[m->qid];
        memcpy(d, m->desc, DESC_SIZE);
        st64(d, m->key);
        st32(d + 80, m->backouts);
        desc_at[m->qid] = d + DESC_SIZE;
        *addr_at[m->qid]++ = m->desc + DESC_SIZE;
    }
}

static int parse_u64_list(PyObject *list, size_t n, uint64_t *out, uint8_t *known,
                          const char *what)
{
    for (size_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, (Py_ssize_t)i);
        if (item == Py_None && known != NULL) {
            known[i] = 0;
            out[i] = 0;
            continue;
        }
        unsigned long long v = PyLong_AsUnsignedLongLong(item);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "log_replay: %s[%zu] is not a key", what, i);
            return -1;
        }
        out[i] = v;
        if (known != NULL)
            known[i] = 1;
    }
    return 0;
}

static PyObject *build_effects(const replay_t *r)
{
    PyObject *list = PyList_New((Py_ssize_t)r->n_fx);
    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < r->n_fx; i++) {
        const effect_t *e = &r->fx[i];
        PyObject *t = Py_BuildValue("(IIKIII)", e->kind, e->qid, (unsigned long long)e->key,
                                    e->backouts, e->batch, e->offset);
        if (t == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

static PyObject *build_tails(const replay_t *r)
{
    size_t nq = r->nq ? r->nq : 1;
    size_t *count = calloc(nq, sizeof *count);
    unsigned char **desc_at = calloc(nq, sizeof *desc_at);
    const void ***addr_at = calloc(nq, sizeof *addr_at);
    PyObject *tails = NULL;
    if (count == NULL || desc_at == NULL || addr_at == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < r->n_msgs; i++)
        count[r->msgs[i].qid] += r->msgs[i].state == M_LIVE;
    tails = PyList_New((Py_ssize_t)r->nq);
    if (tails == NULL)
        goto done;
    for (size_t q = 0; q < r->nq; q++) {
        if (count[q] == 0) {
            PyList_SET_ITEM(tails, (Py_ssize_t)q, Py_NewRef(Py_None));
            continue;
        }
        if (count[q] > UINT32_MAX) {
            PyErr_Format(PyExc_OverflowError, "log_replay: queue id %zu has %zu messages", q,
                         count[q]);
            Py_CLEAR(tails);
            goto done;
        }
        PyObject *descs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 + count[q] * DESC_SIZE));
        PyObject *addrs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count[q] * sizeof(void *)));
        PyObject *pair = descs && addrs ? PyTuple_Pack(2, descs, addrs) : NULL;
        Py_XDECREF(descs);
        Py_XDECREF(addrs);
        if (pair == NULL) {
            Py_CLEAR(tails);
            goto done;
        }
        desc_at[q] = (unsigned char *)PyBytes_AS_STRING(descs);
        st32(desc_at[q], (uint32_t)count[q]);
        desc_at[q] += 4;
        addr_at[q] = (const void **)PyBytes_AS_STRING(addrs);
        PyList_SET_ITEM(tails, (Py_ssize_t)q, pair);
    }
    Py_BEGIN_ALLOW_THREADS
    gather(r, desc_at, addr_at);
    Py_END_ALLOW_THREADS
done:
    free(count);
    free(desc_at);
    free(addr_at);
    return tails;
}

PyObject *log_pack(PyObject *module, PyObject *args)
{
    (void)module;
    Py_buffer descs, addrs;
    if (!PyArg_ParseTuple(args, "y*y*", &descs, &addrs))
        return NULL;
    PyObject *chunk = NULL;
    const unsigned char *d = descs.buf;
    uint32_t n = descs.len >= 4 ? ld32(d) : 0;
    if (descs.len < 4 || (size_t)descs.len != 4 + (size_t)n * DESC_SIZE ||
        (size_t)addrs.len != (size_t)n * sizeof(void *)) {
        PyErr_Format(PyExc_ValueError, "log_pack: %zd bytes of descriptors and %zd bytes of "
                     "addresses do not agree", descs.len, addrs.len);
        goto done;
    }
    size_t data = 0;
    for (uint32_t i = 0; i < n; i++)
        data += ld32(d + 4 + (size_t)i * DESC_SIZE + 84);
    chunk = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(descs.len + data));
    if (chunk == NULL)
        goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(chunk);
    memcpy(out, d, (size_t)descs.len);
    out += descs.len;
    const void *const *at = addrs.buf;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t length = ld32(d + 4 + (size_t)i * DESC_SIZE + 84);
        memcpy(out, at[i], length);
        out += length;
    }
done:
    PyBuffer_Release(&descs);
    PyBuffer_Release(&addrs);
    return chunk;
}

PyObject *log_replay(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *batch_list, *tops, *froms;
    unsigned long long floor;
    if (!PyArg_ParseTuple(args, "O!O!O!K", &PyList_Type, &batch_list, &PyList_Type, &tops,
                          &PyList_Type, &froms, &floor))
        return NULL;
    size_t nq = (size_t)PyList_GET_SIZE(tops);
    if ((size_t)PyList_GET_SIZE(froms) != nq) {
        PyErr_SetString(PyExc_TypeError, "log_replay: tops and froms differ in length");
        return NULL;
    }
    size_t nb = (size_t)PyList_GET_SIZE(batch_list);
    replay_t r = {.nq = nq, .floor = floor};
    uint64_t *top = calloc(nq ? nq : 1, sizeof *top), *from = calloc(nq ? nq : 1, sizeof *from);
    uint8_t *known_ids = calloc(nq ? nq : 1, 1);
    batch_t *batches = calloc(nb ? nb : 1, sizeof *batches);
    Py_buffer *views = calloc(nb ? nb : 1, sizeof *views);
    size_t held = 0;
    PyObject *result = NULL;
    if (top == NULL || from == NULL || known_ids == NULL || batches == NULL || views == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (parse_u64_list(tops, nq, top, known_ids, "tops") < 0 ||
        parse_u64_list(froms, nq, from, NULL, "froms") < 0)
        goto done;
    r.top = top;
    r.from = from;
    r.known = known_ids;
    for (; held < nb; held++) {
        PyObject *item = PyList_GET_ITEM(batch_list, (Py_ssize_t)held);
        unsigned long long first;
        unsigned int incarnation;
        PyObject *buffer;
        if (!PyTuple_Check(item) ||
            !PyArg_ParseTuple(item, "KIO", &first, &incarnation, &buffer)) {
            PyErr_Format(PyExc_TypeError,
                         "log_replay: batches[%zu] is not (first lsn, incarnation, records)", held);
            goto done;
        }
        if (PyObject_GetBuffer(buffer, &views[held], PyBUF_SIMPLE) < 0)
            goto done;
        if (views[held].len > (Py_ssize_t)UINT32_MAX) {
            PyBuffer_Release(&views[held]);
            PyErr_Format(PyExc_ValueError, "log_replay: batches[%zu] is over 4 GiB", held);
            goto done;
        }
        batches[held] = (batch_t){views[held].buf, (size_t)views[held].len, first, incarnation};
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = replay(&r, batches, nb);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        if (r.nomem) {
            PyErr_NoMemory();
        } else {
            PyObject *detail = r.err_kind >= 0 ? PyUnicode_FromFormat("%s %d", r.err, r.err_kind)
                                               : PyUnicode_FromString(r.err);
            if (detail != NULL) {
                PyObject *err = Py_BuildValue("(KN)", (unsigned long long)r.err_lsn, detail);
                if (err != NULL) {
                    PyErr_SetObject(PyExc_ValueError, err);
                    Py_DECREF(err);
                }
            }
        }
        goto done;
    }
    PyObject *tails = build_tails(&r);
    if (tails == NULL)
        goto done;
    PyObject *effects = build_effects(&r);
    if (effects == NULL) {
        Py_DECREF(tails);
        goto done;
    }
    result = Py_BuildValue("(NN)", tails, effects);
done:
    for (size_t i = 0; i < held; i++)
        PyBuffer_Release(&views[i]);
    free(views);
    free(batches);
    free(top);
    free(from);
    free(known_ids);
    free(r.msgs);
    free(r.gets);
    free(r.fx);
    free(r.uows);
    return result;
}
