/* Generalising the leaves' rules (generalize.py _PathPools and _generalise), compiled.
 *
 * The numpy version spends about 1 ms per leaf in a few dozen small array calls; at 1M
 * cases the tree has over 100k leaves (issue 6). This is the same method in one loop:
 *   - along the current tree path, per level, the pool of cases failing at most one
 *     condition (case index and failed level, -1 for none), narrowed one level at a time
 *     and shared by neighbouring leaves: it gives each rule's first round;
 *   - after a deletion, the conditions' truth as bit rows over the cases in leaf order
 *     (64 per word), and the recount over the words where at most one remaining level has
 *     no true case (found 64 words at a time from per-level empty-word bits);
 *   - a threshold's row from the attribute's nearest precomputed row (threshold_rows) with
 *     the cases valued in between flipped; a discrete test's row made once per value
 *     (truth_rows, before the runs, which share it);
 *   - rates of (cases, errors) pairs from the caller's `rate` (the one home of AddErrs is
 *     estimate.py), cached here; the Fisher test, when asked for, also from the caller.
 *     These calls are the only time the loop holds the GIL, so runs of leaves can go in
 *     threads.
 * Each rule that survives is kept with its levels in the order c4.5rules prints them and
 * its cover, duplicates merged, and returned when every leaf is done. leaf_order makes
 * the cases' leaf-by-leaf order the bit rows use. The tests check that the compiled and
 * numpy versions give the same candidates, field by field and cover by cover.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_pages.h"
#include "_varint.h"

enum { DISCRETE = 1, THRESHOLD = 2, SUBSET = 3 };
enum { SNAPSHOTS = 16, MAX_DEPTH = INT16_MAX };

/* The runs read the ranks as 3-byte little-endian positions while n <= 2^24 (60 MB instead of
 * 80 for 20 continuous columns at 1M cases; generalise_rules narrows them the same way). */
#define THREE_BYTE_RANKS (1 << 24)
#define RANK_BYTES(n) ((n) <= THREE_BYTE_RANKS ? 3 : 4)

static inline int64_t rank_at(const uint8_t *ranked, int bytes, int64_t i) {
    const uint8_t *p = ranked + i * bytes;
    int64_t r = (int64_t)p[0] | (int64_t)p[1] << 8 | (int64_t)p[2] << 16;
    return bytes == 3 ? r : r | (int64_t)p[3] << 24;
}

typedef struct {
    int32_t *cand;              /* case index */
    int16_t *failed;            /* its failed level or -1 (paths are at most MAX_DEPTH deep:
                                   10 MB less at 1M cases than int32) */
    int64_t size, cap;
} Pool;

/* Weighted cases' sums: each weight a whole number of units 2^-exp (weight_grains), so that a
 * sum is exact, in whatever order it is made, and rounded once (grain_double). */
typedef __int128 wide_sum;

static inline double grain_double(wide_sum sum, int exp) {
    return ldexp((double)sum, -exp);
}

/* With weighted cases a count (T, E of a table) is a double, carried in the int64 slots the
 * whole counts use as its bits (0 is 0.0 either way: weights are >= 0). */
static inline double bits_double(int64_t v) {
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static inline int64_t double_bits(double d) {
    int64_t v;
    memcpy(&v, &d, 8);
    return v;
}

typedef struct {
    uint64_t key;               /* cases << 32 | errors, + 1 (0: empty slot); with weights the
                                   pair's place in Gen.pairs, + 1 */
    float actual, pess;         /* both single precision values (_Rates): exact as floats, and
                                   16 bytes a slot, not 24 (a million slots at 1M cases) */
} Rate;

/* A growing byte buffer of its own pages: len bytes used of cap. */
typedef struct {
    uint8_t *data;
    int64_t len, cap;
} Region;

static void region_free(Region *r) {
    pages_free(r->data, (size_t)r->cap);
    r->data = NULL;
    r->len = r->cap = 0;
}

/* Pages handed to Python: a read-only buffer (np.frombuffer reads it) that frees them. */
typedef struct {
    PyObject_HEAD
    Region region;
} Pages;

static void pages_dealloc(Pages *self) {
    region_free(&self->region);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int pages_getbuffer(Pages *self, Py_buffer *view, int flags) {
    return PyBuffer_FillInfo(view, (PyObject *)self, self->region.data, (Py_ssize_t)self->region.len, 1, flags);
}

static PyBufferProcs pages_buffer = {(getbufferproc)pages_getbuffer, NULL};

static PyTypeObject PagesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "c45rules.rules._generalize.Pages",
    .tp_basicsize = sizeof(Pages),
    .tp_dealloc = (destructor)pages_dealloc,
    .tp_as_buffer = &pages_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes generalise wrote, read-only (numpy.frombuffer reads them); freed with it.",
};

/* The first `len` bytes of a Region as a Pages object, which takes the pages over (no copy). */
static PyObject *hand_over(Region *r) {
    if (!r->data) return PyBytes_FromStringAndSize("", 0);
    Pages *own = PyObject_New(Pages, &PagesType);
    if (!own) return NULL;
    own->region = *r;
    memset(r, 0, sizeof(*r));
    return (PyObject *)own;
}

/* The rules a run keeps, duplicates merged (generalize.py _merge: a repeat only raises the
 * first one's error), kept here rather than handed to Python one by one (a call per rule
 * cost over a second at 1M cases): a hash table over their keys, their fields, and per
 * class their packed covers one after another, in Regions the caller gets as they are (Pages). */
typedef struct {
    int64_t n, cap;                             /* rules */
    int64_t *leaf, *t0, *e0, *cover_lo, *cover_hi, *kept_at, *key_at;   /* *_at: n + 1 */
    double *p0;
    int32_t *kept, *keys;                       /* every rule's kept levels, and keys */
    int64_t kept_cap, keys_cap;
    int64_t *slot, n_slots;                     /* open addressing: rule or -1 */
    Region *cover;                              /* per class */
} Found;

typedef struct {
    /* inputs (borrowed) */
    int64_t n, words, blocks, n_cond, n_attr;   /* blocks: of 64 words */
    const int32_t *y;
    const int64_t *order;
    const void **col;                       /* per attribute: the column, original order */
    uint8_t *continuous;                    /* per attribute: tested by thresholds */
    const uint8_t **ranked;                 /* per continuous attribute: known cases' leaf-order
                                               positions, by value ascending, RANK_BYTES(n) each */
    int rank_bytes;
    int64_t *n_known;
    const int32_t *kind, *attr, *outcome, *key;
    const double *cut;
    const int64_t *cut_rank;                /* per condition: its cut's known values at most it, or NULL
                                               (threshold_row searches them) */
    const int64_t *node;
    const uint8_t *masks;
    const int64_t *mask_off;
    const int32_t *mask_len;
    PyObject *rate_fn, *fisher_fn;
    int own_rates;                          /* rates by pessimistic_pair, not rate_fn */
    double z2, log_cf;                      /* its constants (estimate.z_squared(cf), log(cf)) */
    /* the path */
    int32_t *path;                          /* condition ids */
    Pool *pools;
    int64_t depth, cap;
    uint64_t *bits;                         /* [level][word] */
    uint64_t *empty;                        /* [level][word / 64]: bit set where no case is true */
    int32_t *row_key;                       /* per level: where its row and empty-word bits are:
                                               -1 its own buffers above, else the shared ones of
                                               a discrete test's key */
    const uint64_t **rows, **empties;       /* per remaining level, for the recount */
    int32_t *row_cond;                      /* condition whose truth a row holds, -1 none */
    int64_t built;
    /* caches */
    const uint64_t **known;                 /* per continuous attribute: known values, as bits */
    const uint64_t **at_most;               /* per attribute: "value <= cut" rows at evenly
                                               spaced ranks (threshold_row) */
    const uint64_t *key_rows, *key_empty;   /* per discrete/subset key: truth as bits, and its
                                               empty words (truth_rows: made once, shared by runs) */
    const uint64_t *key_cases;              /* per key: truth as bits in the cases' own order, which
                                               follow reads for a pool's cases (125 kB a key at 1M
                                               cases stays in cache; the int32 column, 4 MB, did not) */
    const uint64_t *wrong_rows;             /* per class: cases of another class, as bits */
    Rate *rates;
    int64_t n_rates, rate_cap;
    /* weighted cases (NULL when unweighted): per case its weight (the first round sums them
       one by one in pool order, as numpy's bincount does), per bit position its grains and
       their exponent (the recount's exact sums), the sums of all weights and of each class's
       wrong ones (a one-level table), and the rate cache's (cases, errors) pairs as bits */
    const double *weights;
    const wide_sum *grains;
    int grain_exp;
    int64_t total_w, *wrong_w;
    int64_t *pairs, pair_cap;
    wide_sum *wtd, *wed;                    /* the recount's per-level sums */
    /* per-leaf scratch */
    int64_t *at;
    uint64_t *covered;
    int64_t *td, *ed;
    double *act, *pes;
    int32_t *levels, *sorted;
    int64_t *miss;                          /* a round's pairs whose rates are not cached */
    const int32_t *cond_key;                /* per condition: what it is to the duplicate test */
    int32_t *key_out;                       /* a rule's key: its class, then its conditions' */
    uint8_t *live;
    int32_t *cover_out, *sort_tmp;
    int32_t *position;                      /* per case: its place in leaf order */
    uint8_t *packed_out;                    /* a cover packed (_varint.h) */
    uint8_t *flags;                         /* per case: scratch truth */
    Found found;
    PyThreadState *ts;                      /* set while the leaf loop runs without the GIL */
} Gen;

/* The leaf loop lets go of the GIL, so that runs of leaves can be generalised in threads
 * sharing one copy of the columns, ranks and threshold rows (jobs > 1); it takes the GIL
 * back only to call Python (rates, the Fisher test). */
static inline void gil_take(PyThreadState *const *ts) {
    if (*ts) PyEval_RestoreThread(*ts);
}

static inline void gil_drop(PyThreadState **ts) {
    if (*ts) *ts = PyEval_SaveThread();
}

/* Which of the cases idx[0..count) (cases first.. in turn when idx is NULL; with bit_order,
 * the cases at bit positions first..) satisfy condition c: out[i] = 0 or 1. One loop per
 * kind: the test is decided once, not per case. Bit positions go through the leaf order
 * rather than a copy of every column in that order (hundreds of MB at 1M cases). */
static void holds(const Gen *g, int32_t c, const int32_t *idx, int64_t first, int64_t count, int bit_order,
                  uint8_t *out) {
    const void *col = g->col[g->attr[c]];
    const int64_t *order = g->order;
#define CASE(i) (bit_order ? order[first + (i)] : idx ? idx[i] : first + (i))
    if (g->kind[c] == THRESHOLD) {
        const double *x = col, cut = g->cut[c];
        /* unknown (NaN) compares false either way */
        if (g->outcome[c] == 0)
            for (int64_t i = 0; i < count; i++) out[i] = x[CASE(i)] <= cut;
        else
            for (int64_t i = 0; i < count; i++) out[i] = x[CASE(i)] > cut;
    } else if (idx && g->key_cases) {
        /* a discrete or subset test on scattered cases: its key's bits (truth_rows) */
        const uint64_t *row = g->key_cases + (int64_t)g->key[c] * g->words;
        for (int64_t i = 0; i < count; i++) {
            int32_t ci = idx[i];
            out[i] = (uint8_t)(row[ci >> 6] >> (ci & 63) & 1);
        }
    } else if (g->kind[c] == DISCRETE) {
        const int32_t *x = col, value = g->outcome[c];
        for (int64_t i = 0; i < count; i++) out[i] = x[CASE(i)] == value;
    } else {
        const int32_t *x = col, len = g->mask_len[c];
        const uint8_t *mask = g->masks + g->mask_off[c];
        for (int64_t i = 0; i < count; i++) {
            int32_t v = x[CASE(i)];
            out[i] = v >= 0 && v < len && mask[v];
        }
    }
#undef CASE
}

static inline int popcount_bits(uint64_t x) {
    /* the portable sum of bits: no popcnt instruction is assumed of the machine (generic x86-64) */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* Pack n flags (0/1) into words, 64 a word (padding bits 0). */
static void pack(const uint8_t *flag, int64_t n, uint64_t *row) {
    for (int64_t w = 0; w * 64 < n; w++) {
        int64_t lo = w * 64, len = n - lo < 64 ? n - lo : 64;
        uint64_t word = 0;
        for (int64_t i = 0; i < len; i++) word |= (uint64_t)flag[lo + i] << i;
        row[w] = word;
    }
}

/* The truth of discrete or subset condition c over all cases in leaf order, as bits. */
static void truth_row(const Gen *g, int32_t c, uint64_t *row) {
    holds(g, c, NULL, 0, g->n, 1, g->flags);
    pack(g->flags, g->n, row);
}

/* The row of threshold condition c. Each continuous attribute comes with SNAPSHOTS + 1
 * rows of "value <= cut" at evenly spaced ranks (threshold_rows, made once before any
 * worker forks); a cut's row is the nearest of them with the bits of the cases valued in
 * between flipped (at most known / (2 SNAPSHOTS) of them), instead of every case's value
 * compared again. */
static int threshold_row(Gen *g, int32_t c, uint64_t *row) {
    int32_t a = g->attr[c];
    const double *x = g->col[a], cut = g->cut[c];
    const uint8_t *ranked = g->ranked[a];
    const int64_t *order = g->order;
    int64_t W = g->words, known_n = g->n_known[a];
    int bytes = g->rank_bytes;
    /* k: how many known values are <= cut (the ranked cases are in ascending value); given, when
       the caller found every condition's at once (three dependent loads a step here) */
    int64_t lo = g->cut_rank ? g->cut_rank[c] : 0, hi = g->cut_rank ? lo : known_n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (x[order[rank_at(ranked, bytes, mid)]] <= cut) lo = mid + 1;
        else hi = mid;
    }
    int64_t k = lo, s = known_n ? (2 * k * SNAPSHOTS + known_n) / (2 * known_n) : 0, was = known_n * s / SNAPSHOTS;
    memcpy(row, g->at_most[a] + s * W, (size_t)W * 8);
    for (int64_t i = k < was ? k : was, end = k < was ? was : k; i < end; i++) {
        int64_t at = rank_at(ranked, bytes, i);
        row[at >> 6] ^= (uint64_t)1 << (at & 63);
    }
    if (g->outcome[c] != 0) {
        /* value > cut: known and not <= cut */
        const uint64_t *known = g->known[a];
        for (int64_t w = 0; w < W; w++) row[w] = ~row[w] & known[w];
    }
    return 0;
}

/* threshold_rows' bytes: SNAPSHOTS + 1 rows of "value <= cut" at ranks known * s / SNAPSHOTS
 * (the last is the row of known values); ranked: the known cases' bit positions by value. */
static void make_threshold_rows(const int32_t *ranked, int64_t n, int64_t known_n, uint64_t *out) {
    int64_t W = (n + 63) / 64;
    memset(out, 0, (size_t)W * 8);
    for (int s = 1; s <= SNAPSHOTS; s++) {
        uint64_t *now = out + s * W;
        memcpy(now, now - W, (size_t)W * 8);
        for (int64_t i = known_n * (s - 1) / SNAPSHOTS; i < known_n * s / SNAPSHOTS; i++)
            now[ranked[i] >> 6] |= (uint64_t)1 << (ranked[i] & 63);
    }
}


static int reserve_levels(Gen *g, int64_t m) {
    if (m <= g->cap) return 0;
    int64_t cap = m > 2 * g->cap ? m : 2 * g->cap, W = g->words;
    int32_t *path = realloc(g->path, (size_t)cap * 4);
    if (path) g->path = path;
    Pool *pools = realloc(g->pools, (size_t)cap * sizeof(Pool));
    if (pools) {
        memset(pools + g->cap, 0, (size_t)(cap - g->cap) * sizeof(Pool));
        g->pools = pools;
    }
    uint64_t *bits = realloc(g->bits, (size_t)(cap * W) * 8);
    if (bits) g->bits = bits;
    uint64_t *empty = realloc(g->empty, (size_t)(cap * g->blocks) * 8);
    if (empty) g->empty = empty;
    int32_t *row_key = realloc(g->row_key, (size_t)cap * 4);
    if (row_key) g->row_key = row_key;
    const uint64_t **rows = realloc(g->rows, (size_t)cap * sizeof(void *));
    if (rows) g->rows = rows;
    const uint64_t **empties = realloc(g->empties, (size_t)cap * sizeof(void *));
    if (empties) g->empties = empties;
    int32_t *row_cond = realloc(g->row_cond, (size_t)cap * 4);
    if (row_cond) {
        for (int64_t j = g->cap; j < cap; j++) row_cond[j] = -1;
        g->row_cond = row_cond;
    }
    int64_t *td = realloc(g->td, (size_t)(cap + 1) * 8), *ed = realloc(g->ed, (size_t)(cap + 1) * 8);
    if (td) g->td = td;
    if (ed) g->ed = ed;
    wide_sum *wtd = realloc(g->wtd, (size_t)(cap + 1) * sizeof(wide_sum));
    if (wtd) g->wtd = wtd;
    wide_sum *wed = realloc(g->wed, (size_t)(cap + 1) * sizeof(wide_sum));
    if (wed) g->wed = wed;
    int64_t *miss = realloc(g->miss, (size_t)(cap + 1) * 8);
    if (miss) g->miss = miss;
    double *act = realloc(g->act, (size_t)(cap + 1) * 8), *pes = realloc(g->pes, (size_t)(cap + 1) * 8);
    if (act) g->act = act;
    if (pes) g->pes = pes;
    int32_t *levels = realloc(g->levels, (size_t)cap * 4), *sorted = realloc(g->sorted, (size_t)cap * 4);
    int32_t *key_out = realloc(g->key_out, (size_t)(cap + 1) * 4);
    if (key_out) g->key_out = key_out;
    if (levels) g->levels = levels;
    if (sorted) g->sorted = sorted;
    uint8_t *live = realloc(g->live, (size_t)cap);
    if (live) g->live = live;
    if (!(path && pools && bits && empty && row_key && rows && empties && row_cond && td && ed && wtd && wed && miss && act && pes && levels && sorted && key_out && live)) return -1;
    g->cap = cap;
    return 0;
}

/* Room for `size` cases in pool p, its contents dropped (follow refills it): one block,
 * the cases then their failed levels. */
static int pool_reserve(Pool *p, int64_t size) {
    if (size <= p->cap) return 0;
    if (size < p->cap + p->cap / 4) size = p->cap + p->cap / 4;
    pages_free(p->cand, (size_t)p->cap * 6);
    uint8_t *block = pages_grow(NULL, 0, (size_t)size * 6, 0);
    if (!block) {
        memset(p, 0, sizeof(*p));
        return -1;
    }
    p->cand = (int32_t *)block;
    p->failed = (int16_t *)(block + (size_t)size * 4);
    p->cap = size;
    return 0;
}

static void pool_free(Pool *p) {
    pages_free(p->cand, (size_t)p->cap * 6);
    memset(p, 0, sizeof(*p));
}

/* Pool p from the pool q of the level above: its cases failing at most one condition once
 * condition c (level j) is added, each with its failed level or -1. */
static int narrow(const Gen *g, int32_t c, const Pool *q, Pool *p, int64_t j) {
    if (pool_reserve(p, q->size)) return -1;
    holds(g, c, q->cand, 0, q->size, 0, g->flags);
    /* every case written and the next place advanced only for a kept one: whether a
     * case is kept is a coin toss to the branch predictor; restrict, as the flags
     * are bytes, which may alias anything */
    const int32_t *restrict from = q->cand;
    const int16_t *restrict was = q->failed;
    const uint8_t *restrict holds_here = g->flags;
    int32_t *restrict to = p->cand;
    int16_t *restrict now = p->failed;
    int64_t out = 0, size = q->size;
    for (int64_t i = 0; i < size; i++) {
        int16_t f = was[i];
        int t = holds_here[i];
        to[out] = from[i];
        now[out] = t ? f : (int16_t)j;
        out += t | (f < 0);
    }
    p->size = out;
    return 0;
}

/* Make `path` (m condition ids) the current path, narrowing the pools of the new levels. */
static int follow(Gen *g, const int32_t *path, int64_t m) {
    if (reserve_levels(g, m)) return -1;
    int64_t keep = 0;
    while (keep < m && keep < g->depth && path[keep] == g->path[keep]) keep++;
    if (m == 1 && g->pools[0].size < 0) keep = 0;      /* a leaf at level 0 reads its pool */
    if (g->built > keep) g->built = keep;
    for (int64_t j = keep; j < m; j++) {
        int32_t c = path[j];
        Pool *p = &g->pools[j];
        if (j == 0 && m > 1) {
            /* every case, failed or not at level 0: level 1 reads the truth of both levels
             * instead (6 MB less at 1M cases) */
            pool_free(p);
            p->size = -1;
        } else if (j == 0) {
            if (pool_reserve(p, g->n)) return -1;
            holds(g, c, NULL, 0, g->n, 0, g->flags);
            for (int64_t i = 0; i < g->n; i++) {
                p->cand[i] = (int32_t)i;
                p->failed[i] = g->flags[i] ? -1 : 0;
            }
            p->size = g->n;
        } else if (j == 1 && g->pools[0].size < 0) {
            if (pool_reserve(p, g->n)) return -1;
            uint8_t *t0 = g->flags, *t1 = g->flags + g->n;
            holds(g, path[0], NULL, 0, g->n, 0, t0);
            holds(g, c, NULL, 0, g->n, 0, t1);
            int64_t out = 0;
            for (int64_t i = 0; i < g->n; i++) {
                if (!(t0[i] | t1[i])) continue;    /* fails both */
                p->cand[out] = (int32_t)i;
                p->failed[out++] = (int16_t)(t0[i] ? (t1[i] ? -1 : 1) : 0);
            }
            p->size = out;
        } else if (narrow(g, c, &g->pools[j - 1], p, j)) {
            return -1;
        }
        g->path[j] = c;
    }
    g->depth = m;
    return 0;
}

/* Set a bit per word of `row` that has no true case. */
static void empty_words(const Gen *g, const uint64_t *row, uint64_t *empty) {
    /* each block's bits gathered in a register: a read-modify-write of empty[] per word (which
       may alias row[] as far as the compiler knows) cost a few percent of the whole loop */
    for (int64_t b = 0; b < g->blocks; b++) {
        int64_t lo = b * 64, len = g->words - lo < 64 ? g->words - lo : 64;
        const uint64_t *at = row + lo;
        uint64_t bits = 0;
        for (int64_t i = 0; i < len; i++) bits |= (uint64_t)(at[i] == 0) << i;
        empty[b] = bits;
    }
}

/* Make row j hold the truth of the path's level j (g->path[j]) and its empty-word bits. */
static int build_level(Gen *g, int64_t j) {
    int64_t W = g->words;
    int32_t c = g->path[j], before = g->row_cond[j];
    uint64_t *row = g->bits + j * W, *empty = g->empty + j * g->blocks;
    if (g->kind[c] == THRESHOLD && before >= 0 && g->kind[before] == THRESHOLD
        && g->node[before] == g->node[c] && g->outcome[before] != g->outcome[c]) {
        /* the other branch of the test row j holds: its complement among known values */
        const uint64_t *known = g->known[g->attr[c]];
        for (int64_t w = 0; w < W; w++) row[w] = ~row[w] & known[w];
        empty_words(g, row, empty);
        g->row_key[j] = -1;
    } else if (g->kind[c] == THRESHOLD) {
        if (threshold_row(g, c, row)) return -1;
        empty_words(g, row, empty);
        g->row_key[j] = -1;
    } else {
        /* discrete and subset tests recur all over the tree: one row per key, shared */
        g->row_key[j] = g->key[c];
    }
    g->row_cond[j] = c;
    return 0;
}

/* Fill the truth rows of the path's levels that lack them. */
static int build(Gen *g) {
    for (int64_t j = g->built; j < g->depth; j++)
        if (build_level(g, j)) return -1;
    g->built = g->depth;
    return 0;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    return x;
}

/* A (cases, errors) pair's slot key: whole counts packed in it; weighted ones (doubles' bits)
 * numbered in g->pairs, where the key leads (a slot stays 16 bytes). */
static inline uint64_t rate_hash(const Gen *g, uint64_t key) {
    if (!g->weights) return mix(key);
    const int64_t *p = g->pairs + 2 * (key - 1);
    return mix((uint64_t)p[0] ^ mix((uint64_t)p[1]));
}

static inline uint64_t pair_hash(const Gen *g, int64_t cases, int64_t errors) {
    if (!g->weights) return mix(((uint64_t)cases << 32 | (uint64_t)errors) + 1);
    return mix((uint64_t)cases ^ mix((uint64_t)errors));
}

static inline int rate_is(const Gen *g, uint64_t key, int64_t cases, int64_t errors) {
    if (!g->weights) return key == ((uint64_t)cases << 32 | (uint64_t)errors) + 1;
    const int64_t *p = g->pairs + 2 * (key - 1);
    return p[0] == cases && p[1] == errors;
}

/* The cached (actual, pessimistic) error rates of `cases` cases with `errors` errors: 1 when
 * known (or no case: actual 0, pessimistic the default error), 0 when not yet computed. */
static int cached_rate(const Gen *g, int64_t cases, int64_t errors, double default_error, double *actual,
                       double *pess) {
    if (cases == 0) {
        /* a condition set no case satisfies: actual 0, pessimistic = the default error */
        *actual = 0.0;
        *pess = default_error;
        return 1;
    }
    uint64_t mask = (uint64_t)g->rate_cap - 1;
    for (uint64_t i = pair_hash(g, cases, errors) & mask; g->rates[i].key; i = (i + 1) & mask)
        if (rate_is(g, g->rates[i].key, cases, errors)) {
            *actual = g->rates[i].actual;
            *pess = g->rates[i].pess;
            return 1;
        }
    return 0;
}

/* Cache a pair's rates (a pair already there is left as it is). */
static int keep_rate(Gen *g, int64_t cases, int64_t errors, double actual, double pess) {
    uint64_t mask = (uint64_t)g->rate_cap - 1;
    uint64_t i = pair_hash(g, cases, errors) & mask;
    for (; g->rates[i].key; i = (i + 1) & mask)
        if (rate_is(g, g->rates[i].key, cases, errors)) return 0;
    uint64_t key = ((uint64_t)cases << 32 | (uint64_t)errors) + 1;
    if (g->weights) {
        if (reserve((void **)&g->pairs, &g->pair_cap, 2 * (g->n_rates + 1), 8)) return -1;
        g->pairs[2 * g->n_rates] = cases;
        g->pairs[2 * g->n_rates + 1] = errors;
        key = (uint64_t)g->n_rates + 1;
    }
    g->rates[i].key = key;
    g->rates[i].actual = (float)actual;
    g->rates[i].pess = (float)pess;
    /* filled to 3/4 before it doubles: 300k pairs at 1M cases take 8 MB, not 16 (a lookup
     * probes a few more 16-byte slots, mostly in the same cache line) */
    if (4 * ++g->n_rates > 3 * g->rate_cap) {
        int64_t cap = 2 * g->rate_cap;
        Rate *old = g->rates, *fresh = pages_grow(NULL, 0, (size_t)cap * sizeof(Rate), 1);
        if (!fresh) return -1;      /* the caller raises MemoryError */
        for (int64_t j = 0; j < g->rate_cap; j++) {
            if (!old[j].key) continue;
            uint64_t at = rate_hash(g, old[j].key) & (uint64_t)(cap - 1);
            while (fresh[at].key) at = (at + 1) & (uint64_t)(cap - 1);
            fresh[at] = old[j];
        }
        pages_free(old, (size_t)g->rate_cap * sizeof(Rate));
        g->rates = fresh;
        g->rate_cap = cap;
    }
    return 0;
}

/* estimate.py _extra_float (c4.5's AddErrs for a double count n and errors e), operation for
 * operation: the same doubles, since Python's floats are these IEEE doubles, math.exp and
 * math.sqrt are the C library's exp and sqrt, and the build contracts no multiply-add.
 * estimate.py is the reference; tests/test_rates_native.py compares the two bit for bit. */
static double wilson_extra(double n, double e, double z2) {
    double ec = e + 0.5;
    double x = z2 * (ec * (1 - ec / n) + z2 / 4);
    /* Python's max(x, 0.0): x unless 0.0 is larger (a NaN stays) */
    double p = (ec + z2 / 2 + sqrt(0.0 > x ? 0.0 : x)) / (n + z2);
    return n * p - e;
}

static double extra_errors(double n, double e, double z2, double log_cf) {
    if (e >= 0.9999) return e + 0.5 >= n ? 0.67 * (n - e) : wilson_extra(n, e, z2);
    double e0 = n * (1.0 - exp(log_cf / n));
    if (e < 1e-6) return e0;
    double e1 = 1.0 + 0.5 >= n ? 0.67 * (n - 1.0) : wilson_extra(n, 1.0, z2);
    return e0 + e * (e1 - e0);
}

/* generalize.py _Rates.compute for weighted counts (whose no-error table is empty): the
 * actual and pessimistic rates of `cases` cases with `errors` errors, each rounded to single
 * precision; 0 and 0 for no cases (the compiled loop's default error is 0). */
static void pessimistic_pair(double cases, double errors, double z2, double log_cf, double *actual, double *pess) {
    if (cases == 0) {
        *actual = 0.0;
        *pess = 0.0;
        return;
    }
    *pess = (double)(float)((errors + extra_errors(cases, errors, z2, log_cf)) / cases);
    *actual = (double)(float)(errors / cases);
}

/* A round's rates: (t0, e0) into *a0, *p0 and each remaining level's (td, ed) into act, pes.
 * The pairs not cached yet go to the caller's rate function in one taking of the GIL (once
 * per pair, 560k times at 1M cases, kept two threads waiting on each other). */
static int round_rates(Gen *g, int64_t r, int64_t t0, int64_t e0, double default_error, double *a0, double *p0) {
    int64_t missing = 0;
    for (int64_t k = -1; k < r; k++)
        if (!cached_rate(g, k < 0 ? t0 : g->td[k], k < 0 ? e0 : g->ed[k], default_error, k < 0 ? a0 : &g->act[k],
                         k < 0 ? p0 : &g->pes[k]))
            g->miss[missing++] = k;
    if (!missing) return 0;
    int bad = 0;
    if (g->own_rates) {
        /* weighted counts: the formula here, no call back (pessimistic_pair) */
        for (int64_t q = 0; q < missing && !bad; q++) {
            int64_t k = g->miss[q];
            int64_t cases = k < 0 ? t0 : g->td[k], errors = k < 0 ? e0 : g->ed[k];
            pessimistic_pair(bits_double(cases), bits_double(errors), g->z2, g->log_cf, k < 0 ? a0 : &g->act[k],
                             k < 0 ? p0 : &g->pes[k]);
            bad = keep_rate(g, cases, errors, k < 0 ? *a0 : g->act[k], k < 0 ? *p0 : g->pes[k]);
        }
        return bad ? -1 : 0;
    }
    gil_take(&g->ts);
    for (int64_t q = 0; q < missing && !bad; q++) {
        int64_t k = g->miss[q];
        int64_t cases = k < 0 ? t0 : g->td[k], errors = k < 0 ? e0 : g->ed[k];
        PyObject *got = g->weights ? PyObject_CallFunction(g->rate_fn, "dd", bits_double(cases), bits_double(errors))
                                   : PyObject_CallFunction(g->rate_fn, "LL", (long long)cases, (long long)errors);
        bad = !got || !PyArg_ParseTuple(got, "dd", k < 0 ? a0 : &g->act[k], k < 0 ? p0 : &g->pes[k]);
        Py_XDECREF(got);
    }
    gil_drop(&g->ts);
    for (int64_t q = 0; q < missing && !bad; q++) {
        int64_t k = g->miss[q];
        bad = keep_rate(g, k < 0 ? t0 : g->td[k], k < 0 ? e0 : g->ed[k], k < 0 ? *a0 : g->act[k],
                        k < 0 ? *p0 : g->pes[k]);
    }
    return bad ? -1 : 0;
}

/* The recount's popcounts: on x86-64 the popcnt instruction where the CPU has it (a copy of
 * the recount compiled for it, chosen once when the module loads: the build itself assumes
 * generic x86-64, where __builtin_popcountll is a library call), else the sum of bits;
 * elsewhere the compiler's own. Either way the counts are the same. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define POPCNT_DISPATCH 1
static int has_popcnt;
#define POPCOUNT(x) (hw ? __builtin_popcountll(x) : popcount_bits(x))
#elif defined(__GNUC__) || defined(__clang__)
#define POPCOUNT(x) __builtin_popcountll(x)
#else
#define POPCOUNT(x) popcount_bits(x)
#endif

/* The summed grains of the cases whose bits are set in word w. */
static inline wide_sum grain_sum(const Gen *g, int64_t w, uint64_t bits) {
    const wide_sum *base = g->grains + 64 * w;
    wide_sum sum = 0;
    for (; bits; bits &= bits - 1) sum += base[__builtin_ctzll(bits)];
    return sum;
}

/* Add the cases of `bits` (word w) to a tally (whole_t, grains_t) and those of bits & bad to
 * (whole_e, grains_e): their number, or with weights their grains, each case's grain read
 * once (the sums are exact: in any order the same). */
#define TALLY(whole_t, grains_t, whole_e, grains_e, bits, bad, w)    \
    do {                                                               \
        if (weighted) {                                                \
            wide_sum wrong_ = grain_sum(g, (w), (bits) & (bad));       \
            (grains_t) += grain_sum(g, (w), (bits) & ~(bad)) + wrong_; \
            (grains_e) += wrong_;                                      \
        } else {                                                       \
            (whole_t) += POPCOUNT(bits);                               \
            (whole_e) += POPCOUNT((bits) & (bad));                     \
        }                                                              \
    } while (0)

/* T0/E0 and per remaining level Td/Ed (cases satisfying all remaining levels but it),
 * over the words where at most one remaining level has no true case; the covered words
 * are kept in g->covered (at positions g->at, *n_at of them). Per word, the cases failing
 * at least one and at least two levels are found in one pass over the levels; a level's
 * own count then needs a second look only where some case fails exactly one level.
 * `weighted`: the counts are exact sums of the cases' grains, each rounded once at the end
 * to a double (carried as its bits, double_bits), as generalize.py _PathPools.count sums them. */
static inline __attribute__((always_inline)) void tables_body(Gen *g, int64_t r, const uint64_t *wrong,
                                                             int64_t *t0, int64_t *e0, int64_t *n_at, const int hw,
                                                             const int weighted) {
    (void)hw;
    int64_t W = g->words, na = 0, T0 = 0, E0 = 0;
    wide_sum WT0 = 0, WE0 = 0;
    int64_t *restrict td = g->td, *restrict ed = g->ed;
    wide_sum *restrict wtd = g->wtd, *restrict wed = g->wed;
    const uint64_t **rows = g->rows, **empties = g->empties;
    for (int64_t k = 0; k < r; k++) {
        int64_t j = g->levels[k];
        /* round_tables has no shared rows (row_key NULL): a look-up less a level, a cache miss
           a condition when a slice's rows are many */
        int32_t key = g->row_key ? g->row_key[j] : -1;
        rows[k] = key < 0 ? g->bits + j * W : g->key_rows + key * W;
        empties[k] = key < 0 ? g->empty + j * g->blocks : g->key_empty + key * g->blocks;
    }
    for (int64_t k = 0; k < r; k++) td[k] = ed[k] = 0;
    if (weighted)
        for (int64_t k = 0; k < r; k++) wtd[k] = wed[k] = 0;
    if (r == 1) {
        const uint64_t *row = rows[0];
        int64_t wrong_n = 0;
        for (int64_t w = 0; w < W; w++) {
            uint64_t cov = row[w];
            if (!weighted) wrong_n += POPCOUNT(wrong[w]);
            TALLY(T0, WT0, E0, WE0, cov, wrong[w], w);
            if (cov) {
                g->at[na] = w;
                g->covered[na++] = cov;
            }
        }
        /* without its one level a rule covers every case */
        *n_at = na;
        if (weighted) {
            *t0 = double_bits(grain_double(WT0, g->grain_exp));
            *e0 = double_bits(grain_double(WE0, g->grain_exp));
            td[0] = g->total_w;
            ed[0] = g->wrong_w[(wrong - g->wrong_rows) / W];
        } else {
            *t0 = T0;
            *e0 = E0;
            td[0] = g->n;
            ed[0] = wrong_n;
        }
        return;
    }
    /* Only words where at most one remaining level has no true case can hold cases that
     * count: found 64 words at a time from the levels' empty-word bits. */
    for (int64_t blk = 0; blk < g->blocks; blk++) {
        uint64_t some = 0, two = 0;
        for (int64_t k = 0; k < r; k++) {
            uint64_t e = empties[k][blk];
            two |= some & e;
            some |= e;
        }
        for (uint64_t look = ~two; look; look &= look - 1) {
            int64_t w = blk * 64 + __builtin_ctzll(look);
            if (w >= W) break;
            /* the cases failing at least one and at least two levels, every level read: a
             * way out of the loop once every case fails two (most words) cost a mispredicted
             * branch nearly every word, and kept the loads from overlapping */
            uint64_t ones = 0, twos = 0;
            for (int64_t k = 0; k < r; k++) {
                uint64_t fail = ~rows[k][w];
                twos |= ones & fail;
                ones |= fail;
            }
            if (!~twos) continue;
            /* padding bits fail every level, so they are in `twos` (r >= 2) and nowhere else */
            uint64_t all = ~ones, one = ones & ~twos, bad = wrong[w];
            if (all) {
                TALLY(T0, WT0, E0, WE0, all, bad, w);
                g->at[na] = w;
                g->covered[na++] = all;
            }
            if (one && some >> (w & 63) & 1) {
                /* every case here fails the one level with no true case */
                int64_t k = 0;
                while (rows[k][w]) k++;
                TALLY(td[k], wtd[k], ed[k], wed[k], one, bad, w);
            } else if (one)
                for (int64_t k = 0; k < r; k++) {
                    uint64_t only = one & ~rows[k][w];
                    if (only) {
                        TALLY(td[k], wtd[k], ed[k], wed[k], only, bad, w);
                    }
                }
        }
    }
    *n_at = na;
    if (weighted) {
        /* each sum exact, then rounded once */
        for (int64_t k = 0; k < r; k++) {
            td[k] = double_bits(grain_double(wtd[k] + WT0, g->grain_exp));
            ed[k] = double_bits(grain_double(wed[k] + WE0, g->grain_exp));
        }
        *t0 = double_bits(grain_double(WT0, g->grain_exp));
        *e0 = double_bits(grain_double(WE0, g->grain_exp));
        return;
    }
    for (int64_t k = 0; k < r; k++) {
        td[k] += T0;
        ed[k] += E0;
    }
    *t0 = T0;
    *e0 = E0;
}
#undef TALLY

/* The weighted recount (no popcount in it). */
static void tables_weighted(Gen *g, int64_t r, const uint64_t *wrong, int64_t *t0, int64_t *e0, int64_t *n_at) {
    tables_body(g, r, wrong, t0, e0, n_at, 0, 1);
}

#ifdef POPCNT_DISPATCH
__attribute__((target("popcnt"))) static void tables_popcnt(Gen *g, int64_t r, const uint64_t *wrong, int64_t *t0,
                                                             int64_t *e0, int64_t *n_at) {
    tables_body(g, r, wrong, t0, e0, n_at, 1, 0);
}

static void tables(Gen *g, int64_t r, const uint64_t *wrong, int64_t *t0, int64_t *e0, int64_t *n_at) {
    if (g->weights) tables_weighted(g, r, wrong, t0, e0, n_at);
    else if (has_popcnt) tables_popcnt(g, r, wrong, t0, e0, n_at);
    else tables_body(g, r, wrong, t0, e0, n_at, 0, 0);
}
#else
static void tables(Gen *g, int64_t r, const uint64_t *wrong, int64_t *t0, int64_t *e0, int64_t *n_at) {
    if (g->weights) tables_weighted(g, r, wrong, t0, e0, n_at);
    else tables_body(g, r, wrong, t0, e0, n_at, 1, 0);
}
#endif

/* Sort count case indices (0 <= index < n) ascending: insertion when few, else radix
 * passes of 11 bits, as many as n needs (two at 1M cases). */
static void sort_cases(int32_t *a, int32_t *tmp, int64_t count, int64_t n) {
    if (count < 64) {
        for (int64_t i = 1; i < count; i++) {
            int32_t v = a[i];
            int64_t j = i;
            for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    int32_t *src = a, *dst = tmp;
    for (int shift = 0; ((int64_t)1 << shift) < n; shift += 11) {
        int64_t at[2049] = {0};
        for (int64_t i = 0; i < count; i++) at[((uint32_t)src[i] >> shift & 2047) + 1]++;
        for (int d = 0; d < 2048; d++) at[d + 1] += at[d];
        for (int64_t i = 0; i < count; i++) dst[at[(uint32_t)src[i] >> shift & 2047]++] = src[i];
        int32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)count * 4);
}

/* The kept levels (g->levels, r of the path's m) in the order c4.5rules prints their
 * conditions, into g->sorted (its first r): generalize.py sort_conditions, whose docstring
 * says why this selection sort, which swaps deleted levels out of the way, and its comparison. */
static void sort_conditions(Gen *g, int64_t m, int64_t r) {
    int32_t *arr = g->sorted;
    for (int64_t d = 0; d < m; d++) {
        arr[d] = (int32_t)d;
        g->live[d] = 0;
    }
    for (int64_t k = 0; k < r; k++) g->live[g->levels[k]] = 1;
    for (int64_t d = 0; d < r; d++) {
        int64_t best = -1;
        int32_t a1 = 0, k1 = 0;
        double c1 = 0.0;
        for (int64_t i = d; i < m; i++) {
            if (!g->live[i]) continue;
            int32_t c2 = g->path[arr[i]];
            int32_t a2 = g->attr[c2], k2 = g->kind[c2];
            if (best < 0 || a2 < a1 || k2 < k1 || (a2 == a1 && g->cut[c2] < c1)) {
                best = i;
                a1 = a2;
                k1 = k2;
                c1 = g->cut[c2];
            }
        }
        int32_t t = arr[d];
        arr[d] = arr[best];
        arr[best] = t;
        g->live[best] = g->live[d];
        g->live[d] = 0;
    }
}

static uint64_t key_hash(const int32_t *key, int64_t len) {
    uint64_t h = 1469598103934665603ULL;        /* FNV-1a over the key's numbers */
    for (int64_t i = 0; i < len; i++) {
        h ^= (uint32_t)key[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The slot of `key`: where its rule is, or the empty slot it would take. */
static int64_t key_slot(const Found *f, const int32_t *key, int64_t len) {
    int64_t mask = f->n_slots - 1, at = (int64_t)(key_hash(key, len) & (uint64_t)mask);
    for (;; at = (at + 1) & mask) {
        int64_t r = f->slot[at];
        if (r < 0) return at;
        int64_t a = f->key_at[r];
        if (f->key_at[r + 1] - a == len && !memcmp(f->keys + a, key, (size_t)len * 4)) return at;
    }
}

/* Keep a surviving rule (its kept levels, key and packed cover), or raise the error of the
 * rule it repeats. */
static int found_add(Found *f, int64_t leaf, const int32_t *kept, int64_t r, int64_t t0,
                     int64_t e0, double p0, int32_t klass, const int32_t *key, const uint8_t *cover,
                     int64_t cover_bytes) {
    if (2 * (f->n + 1) > f->n_slots) {
        /* rehash at half full */
        int64_t n_slots = f->n_slots ? 2 * f->n_slots : 4096;
        int64_t *slot = pages_grow(NULL, 0, (size_t)n_slots * 8, 0);
        if (!slot) return -1;
        memset(slot, 0xff, (size_t)n_slots * 8);
        pages_free(f->slot, (size_t)f->n_slots * 8);
        f->slot = slot;
        f->n_slots = n_slots;
        for (int64_t j = 0; j < f->n; j++)
            f->slot[key_slot(f, f->keys + f->key_at[j], f->key_at[j + 1] - f->key_at[j])] = j;
    }
    int64_t at = key_slot(f, key, r + 1);
    if (f->slot[at] >= 0) {
        double *first = &f->p0[f->slot[at]];
        if (p0 > *first) *first = p0;
        return 0;
    }
    int64_t n = f->n, cap = f->cap;
    if (n + 2 > cap) {
        /* the per-rule arrays, all 8-byte items, grow together */
        void **arrays[] = {(void **)&f->leaf, (void **)&f->t0, (void **)&f->e0, (void **)&f->cover_lo,
                           (void **)&f->cover_hi, (void **)&f->kept_at, (void **)&f->key_at, (void **)&f->p0};
        int64_t c = cap;
        for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
            c = cap;
            if (reserve(arrays[i], &c, n + 2, 8)) return -1;
        }
        f->cap = c;
        if (n == 0) f->kept_at[0] = f->key_at[0] = 0;
    }
    int64_t ka = f->kept_at[n], ya = f->key_at[n];
    if (reserve((void **)&f->kept, &f->kept_cap, ka + r, 4) || reserve((void **)&f->keys, &f->keys_cap, ya + r + 1, 4))
        return -1;
    Region *buf = &f->cover[klass];
    int64_t lo = buf->len;
    if (reserve((void **)&buf->data, &buf->cap, lo + cover_bytes, 1)) return -1;
    memcpy(buf->data + lo, cover, (size_t)cover_bytes);
    buf->len = lo + cover_bytes;
    memcpy(f->kept + ka, kept, (size_t)r * 4);
    memcpy(f->keys + ya, key, (size_t)(r + 1) * 4);
    f->leaf[n] = leaf;
    f->t0[n] = t0;
    f->e0[n] = e0;
    f->p0[n] = p0;
    f->cover_lo[n] = lo;
    f->cover_hi[n] = lo + cover_bytes;
    f->kept_at[n + 1] = ka + r;
    f->key_at[n + 1] = ya + r + 1;
    f->slot[at] = n;
    f->n = n + 1;
    return 0;
}

static void found_free(Found *f, int64_t n_classes) {
    void *rule_arrays[] = {f->leaf, f->t0, f->e0, f->cover_lo, f->cover_hi, f->kept_at, f->key_at, f->p0};
    for (size_t i = 0; i < sizeof(rule_arrays) / sizeof(rule_arrays[0]); i++)
        pages_free(rule_arrays[i], (size_t)f->cap * 8);
    pages_free(f->kept, (size_t)f->kept_cap * 4);
    pages_free(f->keys, (size_t)f->keys_cap * 4);
    pages_free(f->slot, (size_t)f->n_slots * 8);
    if (f->cover)
        for (int64_t c = 0; c < n_classes; c++) region_free(&f->cover[c]);
    free(f->cover);
}

static PyObject *as_bytes(const void *p, int64_t count, size_t size) {
    return PyBytes_FromStringAndSize(count ? (const char *)p : "", (Py_ssize_t)(count * (int64_t)size));
}

/* The first `count` items of an array of reserve's as Pages (no copy: 20 MB of copies sat on
 * top of the run's own arrays at 1M cases); *p is then the object's. */
static PyObject *array_out(void *p, int64_t count, size_t size, int64_t cap) {
    Region r = {p, count * (int64_t)size, cap * (int64_t)size};
    return hand_over(&r);
}

/* The kept rules as generalise returns them (see its doc). */
static PyObject *found_result(Found *f, int64_t n_classes) {
    PyObject *covers = PyTuple_New((Py_ssize_t)n_classes);
    if (!covers) return NULL;
    for (int64_t c = 0; c < n_classes; c++) {
        PyObject *b = Py_None;
        if (f->cover[c].data) {
            if (!(b = hand_over(&f->cover[c]))) {
                Py_DECREF(covers);
                return NULL;
            }
        } else
            Py_INCREF(b);
        PyTuple_SET_ITEM(covers, c, b);
    }
    /* each array goes to its object (an unused one, NULL, as b""), and found_free passes over
     * it; with no rule kept_at and key_at hold one 0 */
    int64_t n = f->n, zero = 0, cap = f->cap;
    PyObject *keys = as_bytes(f->keys, n ? f->key_at[n] : 0, 4);        /* generalize.py slices it */
    PyObject *out = Py_BuildValue("(NNNNNNNNNNN)", array_out(f->leaf, n, 8, cap),
                                  array_out(f->kept, n ? f->kept_at[n] : 0, 4, f->kept_cap),
                                  n ? array_out(f->kept_at, n + 1, 8, cap) : as_bytes(&zero, 1, 8),
                                  array_out(f->t0, n, 8, cap), array_out(f->e0, n, 8, cap), array_out(f->p0, n, 8, cap),
                                  covers, array_out(f->cover_lo, n, 8, cap), array_out(f->cover_hi, n, 8, cap), keys,
                                  n ? array_out(f->key_at, n + 1, 8, cap) : as_bytes(&zero, 1, 8));
    f->leaf = f->t0 = f->e0 = f->cover_lo = f->cover_hi = f->kept_at = f->key_at = NULL;
    f->p0 = NULL;
    f->kept = NULL;
    return out;
}

/* The caller's Fisher test on the current tables (with the GIL): 1 to drop, 0 not, -1 error. */
static int fisher_drops(Gen *g, int64_t r, int64_t t0, int64_t e0) {
    PyObject *td = PyTuple_New(r), *ed = PyTuple_New(r);
    if (!td || !ed) {
        Py_XDECREF(td);
        Py_XDECREF(ed);
        return -1;
    }
    int failed = 0;
    for (int64_t k = 0; k < r; k++) {
        PyObject *t = g->weights ? PyFloat_FromDouble(bits_double(g->td[k])) : PyLong_FromLongLong(g->td[k]);
        PyObject *e = g->weights ? PyFloat_FromDouble(bits_double(g->ed[k])) : PyLong_FromLongLong(g->ed[k]);
        failed |= !t || !e;
        /* a tuple holds NULL items safely until it is freed */
        PyTuple_SET_ITEM(td, k, t);
        PyTuple_SET_ITEM(ed, k, e);
    }
    PyObject *got = failed ? NULL
                  : g->weights ? PyObject_CallFunction(g->fisher_fn, "ddOO", bits_double(t0), bits_double(e0), td, ed)
                  : PyObject_CallFunction(g->fisher_fn, "LLOO", (long long)t0, (long long)e0, td, ed);
    Py_DECREF(td);
    Py_DECREF(ed);
    if (!got) return -1;
    int drop = PyObject_IsTrue(got);
    Py_DECREF(got);
    return drop;
}

/* Generalise the current path's rule; keep it (g->found) when it survives. */
/* w when keep, else +0.0: chosen by a mask, not a branch. */
static inline double weight_if(double w, int keep) {
    uint64_t bits;
    memcpy(&bits, &w, 8);
    bits &= 0 - (uint64_t)(keep != 0);
    memcpy(&w, &bits, 8);
    return w;
}

static int leaf(Gen *g, int64_t index, int32_t target, double default_error) {
    int64_t m = g->depth, r = m, t0 = 0, e0 = 0, n_at = -1;
    const Pool *p = &g->pools[m - 1];
    const uint64_t *wrong = NULL;
    /* first round from the pool of cases failing at most one level */
    for (int64_t k = 0; k < m; k++) {
        g->td[k] = g->ed[k] = 0;
        g->levels[k] = (int32_t)k;
    }
    if (g->weights) {
        /* the weights added one by one in the pool's (ascending case) order, per failed
           level: numpy's bincount with weights, whose doubles the numpy path has */
        double T = 0.0, E = 0.0, *st = g->act, *se = g->pes;
        for (int64_t k = 0; k < m; k++) st[k] = se[k] = 0.0;
        for (int64_t i = 0; i < p->size; i++) {
            int32_t c = p->cand[i], f = p->failed[i];
            double w = g->weights[c];
            int bad = g->y[c] != target, none = f < 0;
            /* without branches (failed and bad are data: mispredicted often): a weight not
               taken adds +0.0, which leaves these sums of weights >= 0 as they were */
            int32_t at = none ? 0 : f;
            T += weight_if(w, none);
            E += weight_if(w, none & bad);
            st[at] += weight_if(w, !none);
            se[at] += weight_if(w, !none & bad);
        }
        for (int64_t k = 0; k < m; k++) {
            g->td[k] = double_bits(T + st[k]);
            g->ed[k] = double_bits(E + se[k]);
        }
        t0 = double_bits(T);
        e0 = double_bits(E);
    } else {
    for (int64_t i = 0; i < p->size; i++) {
        int bad = g->y[p->cand[i]] != target;
        int32_t f = p->failed[i];
        if (f < 0) {
            t0++;
            e0 += bad;
        } else {
            g->td[f]++;
            g->ed[f] += bad;
        }
    }
    for (int64_t k = 0; k < m; k++) {
        g->td[k] += t0;
        g->ed[k] += e0;
    }
    }
    while (r > 0) {
        double a0, p0, low = INFINITY, low_actual = INFINITY;
        int64_t best = 0;
        if (round_rates(g, r, t0, e0, default_error, &a0, &p0)) return -1;
        for (int64_t k = 0; k < r; k++) {
            /* the lowest pessimistic error, ties to the later level */
            if (g->pes[k] <= low) {
                low = g->pes[k];
                best = k;
            }
            if (g->act[k] < low_actual) low_actual = g->act[k];
        }
        int drop = low <= p0 || low_actual <= a0;
        if (!drop && g->fisher_fn != Py_None) {
            gil_take(&g->ts);
            drop = fisher_drops(g, r, t0, e0);
            gil_drop(&g->ts);
            if (drop < 0) return -1;
        }
        if (!drop) {
            if (t0 == 0 || (double)(float)p0 >= default_error) return 0;   /* covers nothing, or too inaccurate */
            int64_t nc = 0;
            /* the cover as places in leaf order, where a rule's cases lie close together (the
             * subset search's per-case counts are then read a few cache lines at a time, and
             * the packed gaps are shorter) */
            if (n_at < 0) {
                for (int64_t i = 0; i < p->size; i++)
                    if (p->failed[i] < 0) g->cover_out[nc++] = g->position[p->cand[i]];
                sort_cases(g->cover_out, g->sort_tmp, nc, g->n);
            } else {
                /* the words in turn, their bits in turn: ascending already */
                for (int64_t j = 0; j < n_at; j++)
                    for (uint64_t word = g->covered[j]; word; word &= word - 1)
                        g->cover_out[nc++] = (int32_t)(g->at[j] * 64 + __builtin_ctzll(word));
            }
            sort_conditions(g, m, r);
            /* the duplicate test's key: the class, then each kept condition's cond_key */
            g->key_out[0] = target;
            for (int64_t q = 0; q < r; q++) g->key_out[q + 1] = g->cond_key[g->path[g->sorted[q]]];
            /* packed: 1.3 bytes a case at 1M cases instead of 4, and covers are kept to the end */
            int64_t nb = varint_pack(g->cover_out, nc, g->packed_out);
            return found_add(&g->found, index, g->sorted, r, t0, e0, p0, target, g->key_out, g->packed_out, nb);
        }
        memmove(g->levels + best, g->levels + best + 1, (size_t)(r - best - 1) * 4);
        r--;
        if (r == 0) break;
        if (!wrong) {
            if (build(g)) return -1;
            wrong = g->wrong_rows + target * g->words;
        }
        tables(g, r, wrong, &t0, &e0, &n_at);
    }
    return 0;   /* no condition left */
}

static void release(Gen *g) {
    for (int64_t j = 0; j < g->cap; j++) {
        pool_free(&g->pools[j]);
    }
    free(g->at_most);
    free(g->ranked);
    free(g->n_known);
    free(g->row_key);
    free(g->rows);
    free(g->empties);
    free(g->known);
    free(g->path);
    free(g->pools);
    free(g->bits);
    free(g->empty);
    free(g->row_cond);
    pages_free(g->rates, (size_t)g->rate_cap * sizeof(Rate));
    free(g->at);
    free(g->covered);
    free(g->td);
    free(g->wtd);
    free(g->wed);
    free(g->wrong_w);
    pages_free(g->pairs, (size_t)g->pair_cap * 8);
    free(g->miss);
    free(g->ed);
    free(g->act);
    free(g->pes);
    free(g->levels);
    free(g->key_out);
    free(g->sorted);
    free(g->live);
    free(g->cover_out);
    free(g->packed_out);
    free(g->sort_tmp);
    free(g->position);
    free(g->flags);
    free(g->col);
    free(g->continuous);
}

/* Point g at the condition rows (views[0..8]: kind, attr, outcome, cut, node, key, masks,
 * mask_off, mask_len), check them, and take the columns in original order that they test
 * (cols[a]). -1 with an exception set when something does not fit. */
static int take_conditions(Gen *g, Py_buffer *v, PyObject *columns, Py_buffer *cols, int64_t n, Py_ssize_t n_keys,
                           const char *who) {
    int64_t n_cond = v[0].len / 4;
    Py_ssize_t n_attr = PyTuple_GET_SIZE(columns);
    if (v[1].len != n_cond * 4 || v[2].len != n_cond * 4 || v[3].len != n_cond * 8 || v[4].len != n_cond * 8
        || v[5].len != n_cond * 4 || v[7].len != n_cond * 8 || v[8].len != n_cond * 4 || n < 0 || n >= INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: array sizes do not agree", who);
        return -1;
    }
    g->n = n;
    g->n_cond = n_cond;
    g->n_attr = n_attr;
    g->kind = v[0].buf;
    g->attr = v[1].buf;
    g->outcome = v[2].buf;
    g->cut = v[3].buf;
    g->node = v[4].buf;
    g->key = v[5].buf;
    g->masks = v[6].buf;
    g->mask_off = v[7].buf;
    g->mask_len = v[8].buf;
    g->col = calloc((size_t)n_attr + 1, sizeof(void *));
    g->continuous = calloc((size_t)n_attr + 1, 1);
    if (!g->col || !g->continuous) {
        PyErr_NoMemory();
        return -1;
    }
    /* every attribute a condition tests must come with its column, of its kind's type */
    for (int64_t c = 0; c < n_cond; c++) {
        int32_t a = g->attr[c], kind = g->kind[c];
        if (a < 0 || a >= n_attr || kind < DISCRETE || kind > SUBSET
            || (kind != THRESHOLD && (g->key[c] < 0 || g->key[c] >= n_keys))
            || (kind == SUBSET && (g->mask_off[c] < 0 || g->mask_len[c] < 0 || g->mask_off[c] + g->mask_len[c] > v[6].len))) {
            PyErr_Format(PyExc_ValueError, "%s: condition %lld is malformed", who, (long long)c);
            return -1;
        }
        if (g->col[a]) {
            if (g->continuous[a] != (kind == THRESHOLD)) {
                PyErr_Format(PyExc_ValueError, "%s: attribute %d is tested as continuous and discrete", who, a);
                return -1;
            }
            continue;
        }
        g->continuous[a] = kind == THRESHOLD;
        Py_ssize_t item = kind == THRESHOLD ? 8 : 4;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(columns, a), &cols[a], PyBUF_SIMPLE)) return -1;
        if (cols[a].len != n * item) {
            PyErr_Format(PyExc_ValueError, "%s: column %lld has %zd bytes, expected %zd", who, (long long)a,
                         cols[a].len, n * item);
            return -1;
        }
        g->col[a] = cols[a].buf;
    }
    return 0;
}

/* Check leaf paths: leaf i's conditions are leaf_cond[leaf_ptr[i]:leaf_ptr[i + 1]], at least one. */
static int check_leaves(const Gen *g, const Py_buffer *ptr, const Py_buffer *cond, const char *who) {
    const int64_t *leaf_ptr = ptr->buf;
    const int32_t *leaf_cond = cond->buf;
    int64_t n_leaves = ptr->len / 8 - 1, n_path = cond->len / 4;
    if (ptr->len % 8 || n_leaves < 0) {
        PyErr_Format(PyExc_ValueError, "%s: leaf paths are malformed", who);
        return -1;
    }
    for (int64_t i = 0; i < n_leaves; i++)
        if (leaf_ptr[i] < 0 || leaf_ptr[i] >= leaf_ptr[i + 1] || leaf_ptr[i + 1] > n_path) {
            PyErr_Format(PyExc_ValueError, "%s: leaf paths are malformed", who);
            return -1;
        } else if (leaf_ptr[i + 1] - leaf_ptr[i] > MAX_DEPTH) {
            PyErr_Format(PyExc_ValueError, "%s: a leaf's path is deeper than %d levels", who, (int)MAX_DEPTH);
            return -1;
        }
    for (int64_t j = 0; j < n_path; j++)
        if (leaf_cond[j] < 0 || leaf_cond[j] >= g->n_cond) {
            PyErr_Format(PyExc_ValueError, "%s: a leaf names no condition", who);
            return -1;
        }
    return 0;
}

static void release_views(Py_buffer *v, Py_ssize_t count) {
    for (Py_ssize_t i = 0; i < count; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
}

/* take_conditions for leaf_order and truth_rows, the columns' views made here (*cols, one
 * per attribute); close_conditions lets go of what it took. */
static int open_conditions(Gen *g, Py_buffer *v, PyObject *columns, Py_buffer **cols, int64_t n,
                           Py_ssize_t n_keys, const char *who) {
    *cols = calloc((size_t)PyTuple_GET_SIZE(columns) + 1, sizeof(Py_buffer));
    if (!*cols) {
        PyErr_NoMemory();
        return -1;
    }
    return take_conditions(g, v, columns, *cols, n, n_keys, who);
}

static void close_conditions(Gen *g, Py_buffer *cols, Py_ssize_t n_attr) {
    free(g->col);
    free(g->continuous);
    g->col = NULL;
    g->continuous = NULL;
    if (cols) {
        release_views(cols, n_attr);
        free(cols);
    }
}

/* A double's bits as an unsigned number in the same order as the values (NaN aside). */
static inline uint64_t ordered_bits(double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

PyDoc_STRVAR(known_by_value_doc,
"known_by_value(col, position) -> int32 bytes\n\n"
"generalize.py known_by_value: the positions (position[case], int32) of the cases whose value\n"
"in col (float64) is known, by value ascending (equal values in case order). A radix sort of\n"
"the values' ordered bits, 11 bits a pass, the passes where every value has the same digit\n"
"skipped: a few times quicker than numpy's argsort of doubles, once per continuous column.");

static PyObject *py_known_by_value(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer col, pos;
    if (!PyArg_ParseTuple(args, "y*y*", &col, &pos)) return NULL;
    PyObject *out = NULL;
    int64_t n = col.len / 8, m = 0;
    uint64_t *key = NULL, *key_tmp = NULL;
    int32_t *idx = NULL, *idx_tmp = NULL;
    int64_t (*count)[2049] = NULL;
    if (col.len % 8 || pos.len != n * 4 || n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "known_by_value: col and position do not agree");
        goto done;
    }
    const double *x = col.buf;
    const int32_t *position = pos.buf;
    for (int64_t i = 0; i < n; i++)
        if (position[i] < 0 || position[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "known_by_value: a position is out of range");
            goto done;
        }
    key = malloc((size_t)n * 8 + 8);
    key_tmp = malloc((size_t)n * 8 + 8);
    idx = malloc((size_t)n * 4 + 4);
    idx_tmp = malloc((size_t)n * 4 + 4);
    count = calloc(6, sizeof(*count));
    if (!key || !key_tmp || !idx || !idx_tmp || !count) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i])) continue;
        uint64_t k = ordered_bits(x[i]);
        key[m] = k;
        idx[m++] = (int32_t)i;
        for (int d = 0; d < 6; d++) count[d][(k >> (11 * d) & 2047) + 1]++;
    }
    for (int d = 0; d < 6; d++) {
        int64_t *at = count[d];
        int one_digit = 0;
        for (int b = 1; b <= 2048 && !one_digit; b++) one_digit = at[b] == m;
        if (one_digit) continue;        /* every value has this digit: the pass moves nothing */
        for (int b = 0; b < 2048; b++) at[b + 1] += at[b];
        for (int64_t i = 0; i < m; i++) {
            int64_t to = at[key[i] >> (11 * d) & 2047]++;
            key_tmp[to] = key[i];
            idx_tmp[to] = idx[i];
        }
        uint64_t *kt = key; key = key_tmp; key_tmp = kt;
        int32_t *it = idx; idx = idx_tmp; idx_tmp = it;
    }
    for (int64_t i = 0; i < m; i++) idx[i] = position[idx[i]];
    Py_END_ALLOW_THREADS
    out = PyBytes_FromStringAndSize((const char *)idx, (Py_ssize_t)(m * 4));
done:
    free(key);
    free(key_tmp);
    free(idx);
    free(idx_tmp);
    free(count);
    PyBuffer_Release(&col);
    PyBuffer_Release(&pos);
    return out;
}

PyDoc_STRVAR(threshold_rows_doc,
"threshold_rows(n, ranked) -> bytes\n\n"
"For a continuous column of n cases and its known cases' bit positions by value (int32):\n"
"17 rows of \"value <= cut\" at evenly spaced ranks (the last: the known values), 64 cases a\n"
"word; generalise takes them per continuous attribute.");

static PyObject *py_threshold_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ranked;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "ny*", &n, &ranked)) return NULL;
    PyObject *out = NULL;
    int64_t known_n = ranked.len / 4, W = (n + 63) / 64;
    const int32_t *r = ranked.buf;
    int bad = n < 0 || ranked.len % 4 || known_n > n;
    for (int64_t i = 0; !bad && i < known_n; i++) bad = r[i] < 0 || r[i] >= n;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "threshold_rows: ranked positions do not fit the column");
    } else if ((out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((SNAPSHOTS + 1) * W * 8)))) {
        uint64_t *rows = (uint64_t *)PyBytes_AS_STRING(out);
        /* the new object is this call's alone until it returns: threads may make other columns' */
        Py_BEGIN_ALLOW_THREADS
        make_threshold_rows(r, n, known_n, rows);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ranked);
    return out;
}

PyDoc_STRVAR(leaf_order_doc,
"leaf_order(columns, kind, attr, outcome, cut, node, key, masks, mask_off, mask_len, leaf_ptr,\n"
"           leaf_cond, n, n_keys) -> int64 bytes\n\n"
"The cases leaf by leaf, depth first, a node's last branch taking every case no earlier branch\n"
"took (an unknown value), then any reaching no leaf (generalize.py _leaf_order): the leaves'\n"
"paths as in generalise, `columns` in original order.");

static PyObject *py_leaf_order(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[11];
    PyObject *columns, *out = NULL;
    Py_ssize_t n, n_keys;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "O!y*y*y*y*y*y*y*y*y*y*y*nn", &PyTuple_Type, &columns, &v[0], &v[1], &v[2], &v[3],
                          &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &n, &n_keys))
        return NULL;
    Gen g;
    memset(&g, 0, sizeof(g));
    Py_buffer *cols = NULL;
    int64_t *order = NULL, *hi = NULL, *cursor = NULL, depth = 0, done_n = 0;
    int32_t *path = NULL, *cases = NULL, *rest = NULL;
    uint8_t *seen = NULL, *last = NULL;
    int64_t n_leaves = v[9].len / 8 - 1, max_depth = 1;
    if (open_conditions(&g, v, columns, &cols, n, n_keys, "leaf_order")
        || check_leaves(&g, &v[9], &v[10], "leaf_order"))
        goto done;
    const int64_t *leaf_ptr = v[9].buf;
    const int32_t *leaf_cond = v[10].buf;
    for (int64_t i = 0; i < n_leaves; i++)
        if (leaf_ptr[i + 1] - leaf_ptr[i] > max_depth) max_depth = leaf_ptr[i + 1] - leaf_ptr[i];
    order = malloc((size_t)n * 8 + 8);
    seen = calloc((size_t)n + 1, 1);
    g.flags = malloc((size_t)n + 1);
    cases = malloc((size_t)n * 4 + 4);
    rest = malloc((size_t)n * 4 + 4);
    hi = calloc((size_t)max_depth + 1, 8);
    cursor = calloc((size_t)max_depth + 1, 8);
    path = malloc((size_t)max_depth * 4);
    if (!order || !seen || !g.flags || !cases || !rest || !hi || !cursor || !path) {
        PyErr_NoMemory();
        goto done;
    }
    /* The cases are partitioned in place, node by node as the depth-first paths enter them
     * (one array, not one per level: 4 MB a level at 1M cases, 60 levels deep). Level j's
     * node holds cases[..hi[j]) from where its earlier branches stopped, cursor[j]: a
     * branch takes, in case order, those of the rest that satisfy its condition. Sibling
     * branches exclude each other, so none of their cases is owed to a later one. */
    last = malloc((size_t)(n_leaves * max_depth) + 1);
    if (!last) {
        PyErr_NoMemory();
        goto done;
    }
    /* last[i, j]: leaf i's branch at level j is its node's last (no later leaf shares its
     * first j conditions and differs at j). Backwards: with leaf i + 1 sharing L conditions,
     * level j < L is the same branch as leaf i + 1's, level L has leaf i + 1 as a later
     * sibling, and deeper levels have none. */
    for (int64_t i = n_leaves - 1; i >= 0; i--) {
        const int32_t *p = leaf_cond + leaf_ptr[i];
        int64_t m = leaf_ptr[i + 1] - leaf_ptr[i], L = -1;
        if (i + 1 < n_leaves) {
            const int32_t *q = leaf_cond + leaf_ptr[i + 1];
            int64_t m2 = leaf_ptr[i + 2] - leaf_ptr[i + 1];
            L = 0;
            while (L < m && L < m2 && p[L] == q[L]) L++;
        }
        for (int64_t j = 0; j < m; j++)
            last[i * max_depth + j] = j < L ? last[(i + 1) * max_depth + j] : j == L ? 0 : 1;
    }
    for (int64_t q = 0; q < n; q++) cases[q] = (int32_t)q;
    hi[0] = n;
    for (int64_t i = 0; i < n_leaves; i++) {
        const int32_t *p = leaf_cond + leaf_ptr[i];
        int64_t m = leaf_ptr[i + 1] - leaf_ptr[i], keep = 0;
        while (keep < m && keep < depth && p[keep] == path[keep]) keep++;
        for (int64_t j = keep; j < m; j++) {
            int64_t from = cursor[j], count = hi[j] - from, took = 0, left = 0;
            int32_t *at = cases + from;
            if (last[i * max_depth + j]) {
                /* a node's last branch takes the cases no earlier one took: those with an
                 * unknown value of the tested attribute then sit with the cases that share
                 * the rest of their path, not after every leaf (with 5% of every attribute
                 * unknown most cases take no branch somewhere, and at the end they had put
                 * half the words into every round's recount at 1M cases) */
                took = count;
            } else {
                holds(&g, p[j], at, 0, count, 0, g.flags);
                for (int64_t q = 0; q < count; q++) {
                    if (g.flags[q]) at[took++] = at[q];
                    else rest[left++] = at[q];
                }
            }
            memcpy(at + took, rest, (size_t)left * 4);
            cursor[j] = from + took;
            cursor[j + 1] = from;
            hi[j + 1] = from + took;
            path[j] = p[j];
        }
        depth = m;
        for (int64_t q = cursor[m]; q < hi[m]; q++) {
            int32_t c = cases[q];
            if (!seen[c]) {
                seen[c] = 1;
                order[done_n++] = c;
            }
        }
    }
    for (int64_t c = 0; c < n; c++)
        if (!seen[c]) order[done_n++] = c;
    out = PyBytes_FromStringAndSize((const char *)order, (Py_ssize_t)(n * 8));
done:
    free(last);
    free(cases);
    free(rest);
    free(hi);
    free(cursor);
    free(path);
    free(seen);
    free(order);
    free(g.flags);
    close_conditions(&g, cols, PyTuple_GET_SIZE(columns));
    release_views(v, 11);
    return out;
}

#define N_VIEWS 22    /* 20 arrays, and the weights and grains when weighted */

PyDoc_STRVAR(truth_rows_doc,
"truth_rows(y, order, columns, kind, attr, outcome, cut, node, key, masks, mask_off, mask_len,\n"
"           n_keys, n_classes) -> (key_rows, key_empty, wrong_rows, key_cases)\n\n"
"The rows generalise shares between its runs, as bytes of uint64 words, cases in leaf order\n"
"(`order`), 64 a word: per discrete/subset key (conditions as in generalise) its truth and,\n"
"per block of 64 words, a bit for each word with no true case; per class, the cases of\n"
"another class; per key, its truth again with the cases in their own order.");

static PyObject *py_truth_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[11];
    PyObject *columns, *out = NULL;
    Py_ssize_t n_keys, n_classes;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*O!y*y*y*y*y*y*y*y*y*nn", &v[9], &v[10], &PyTuple_Type, &columns, &v[0], &v[1],
                          &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &n_keys, &n_classes))
        return NULL;
    Gen g;
    memset(&g, 0, sizeof(g));
    Py_buffer *cols = NULL;
    int64_t n = v[9].len / 4;
    PyObject *rows = NULL, *empty = NULL, *wrong = NULL, *own = NULL;
    uint8_t *done_key = NULL;
    if (open_conditions(&g, v, columns, &cols, n, n_keys, "truth_rows")) goto done;
    if (v[10].len != n * 8 || n_classes < 0) {
        PyErr_SetString(PyExc_ValueError, "truth_rows: array sizes do not agree");
        goto done;
    }
    g.order = v[10].buf;
    g.words = (n + 63) / 64;
    g.blocks = (g.words + 63) / 64;
    for (int64_t i = 0; i < n; i++)
        if (g.order[i] < 0 || g.order[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "truth_rows: the order is not of the cases");
            goto done;
        }
    const int32_t *y = v[9].buf;
    int64_t W = g.words;
    g.flags = malloc((size_t)n + 1);
    done_key = calloc((size_t)n_keys + 1, 1);
    rows = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_keys * W * 8));
    empty = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_keys * g.blocks * 8));
    wrong = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_classes * W * 8));
    own = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_keys * W * 8));
    if (!g.flags || !done_key) PyErr_NoMemory();
    if (!g.flags || !done_key || !rows || !empty || !wrong || !own) goto done;
    uint64_t *row = (uint64_t *)PyBytes_AS_STRING(rows), *em = (uint64_t *)PyBytes_AS_STRING(empty);
    uint64_t *own_row = (uint64_t *)PyBytes_AS_STRING(own);
    memset(row, 0, (size_t)(n_keys * W * 8));
    memset(own_row, 0, (size_t)(n_keys * W * 8));
    memset(em, 0xff, (size_t)(n_keys * g.blocks * 8));   /* a key no condition has: no true case */
    for (int64_t c = 0; c < g.n_cond; c++) {
        int32_t k = g.key[c];
        if (g.kind[c] == THRESHOLD || k < 0 || done_key[k]) continue;
        done_key[k] = 1;
        truth_row(&g, (int32_t)c, row + k * W);
        empty_words(&g, row + k * W, em + k * g.blocks);
        holds(&g, (int32_t)c, NULL, 0, n, 0, g.flags);
        pack(g.flags, n, own_row + k * W);
    }
    uint64_t *wr = (uint64_t *)PyBytes_AS_STRING(wrong);
    for (int64_t t = 0; t < n_classes; t++) {
        for (int64_t i = 0; i < n; i++) g.flags[i] = y[g.order[i]] != t;
        pack(g.flags, n, wr + t * W);
    }
    out = PyTuple_Pack(4, rows, empty, wrong, own);
done:
    Py_XDECREF(own);
    Py_XDECREF(rows);
    Py_XDECREF(empty);
    Py_XDECREF(wrong);
    free(done_key);
    free(g.flags);
    close_conditions(&g, cols, PyTuple_GET_SIZE(columns));
    release_views(v, 11);
    return out;
}

/* Point g at each continuous column's known cases by value (ranks, narrow_ranks' bytes) and its
 * SNAPSHOTS + 1 threshold rows (snaps), checked; their views are cols[n_attr + a] and
 * cols[2 n_attr + a]. g->n, g->words, g->col and g->continuous are set (take_conditions).
 * -1 with an exception set when something does not fit. */
static int take_ranks(Gen *g, Py_buffer *cols, PyObject *ranks, PyObject *snaps, Py_ssize_t n_attr,
                      const char *who) {
    int64_t n = g->n;
    if (PyTuple_GET_SIZE(ranks) != n_attr || PyTuple_GET_SIZE(snaps) != n_attr) {
        PyErr_Format(PyExc_ValueError, "%s: array sizes do not agree", who);
        return -1;
    }
    g->ranked = calloc((size_t)n_attr + 1, sizeof(uint8_t *));
    g->rank_bytes = RANK_BYTES(n);
    g->n_known = calloc((size_t)n_attr + 1, sizeof(int64_t));
    g->at_most = calloc((size_t)n_attr + 1, sizeof(uint64_t *));
    g->known = calloc((size_t)n_attr + 1, sizeof(uint64_t *));
    if (!g->ranked || !g->n_known || !g->at_most || !g->known) {
        PyErr_NoMemory();
        return -1;
    }
    for (int64_t a = 0; a < n_attr; a++) {
        if (!g->col[a] || !g->continuous[a]) continue;
        /* a continuous column's known cases by value, and its threshold rows */
        Py_buffer *b = &cols[n_attr + a];
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(ranks, a), b, PyBUF_SIMPLE)) return -1;
        g->ranked[a] = b->buf;
        g->n_known[a] = b->len / g->rank_bytes;
        if (b->len % g->rank_bytes || g->n_known[a] > n) {
            PyErr_Format(PyExc_ValueError, "%s: ranks of column %lld are not %d-byte positions of at most "
                         "%lld cases", who, (long long)a, g->rank_bytes, (long long)n);
            return -1;
        }
        for (int64_t i = 0; i < g->n_known[a]; i++)
            if (rank_at(g->ranked[a], g->rank_bytes, i) >= n) {
                PyErr_Format(PyExc_ValueError, "%s: ranks of column %lld are out of range", who, (long long)a);
                return -1;
            }
        b = &cols[2 * n_attr + a];
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(snaps, a), b, PyBUF_SIMPLE)) return -1;
        if (b->len != (SNAPSHOTS + 1) * g->words * 8) {
            PyErr_Format(PyExc_ValueError, "%s: threshold rows of column %lld have %zd bytes, expected %lld",
                         who, (long long)a, b->len, (long long)((SNAPSHOTS + 1) * g->words * 8));
            return -1;
        }
        g->at_most[a] = b->buf;
        g->known[a] = g->at_most[a] + SNAPSHOTS * g->words;     /* every known value is <= the largest */
    }
    return 0;
}

PyDoc_STRVAR(generalise_doc,
"generalise(y, order, columns, ranks, threshold_rows, kind, attr, outcome, cut, node, key, masks,\n"
"           mask_off, mask_len, leaf_ptr, leaf_cond, leaf_target, leaf_default, n_keys,\n"
"           n_classes, rate, fisher, cond_key, key_rows, key_empty, wrong_rows, key_cases[, weights,\n"
"           grains, exp]) -> (leaf, kept,\n"
"           kept_at, t0, e0, p0, covers, cover_lo, cover_hi, keys, key_at)\n\n"
"Generalise each leaf's rule (generalize.py _generalise over _PathPools). Conditions are\n"
"rows of kind/attr/outcome/cut/node/key (subset values as byte masks); leaf i's path is\n"
"leaf_cond[leaf_ptr[i]:leaf_ptr[i + 1]]. ranks: per continuous column, known_by_value's positions\n"
"as 3-byte little-endian integers when n <= 2^24, else 4-byte (narrow_ranks). rate(cases, errors) -> (actual, pessimistic);\n"
"fisher(t0, e0, td, ed) -> True to drop (or None); cond_key: per condition, an int32 that is equal\n"
"for conditions the duplicate test equates; key_rows, key_empty, wrong_rows, key_cases: truth_rows'.\n"
"The loop lets go of the GIL: runs of leaves may go in threads. The surviving rules, duplicates merged (a repeat\n"
"only raises the first one's p0), in leaf order, as bytes: rule j came from leaf[j] (int64,\n"
"0 = the first leaf given), keeps the path levels kept[kept_at[j]:kept_at[j + 1]] (int32, in\n"
"print order), has T0, E0 and p0 (int64, int64, double), and its cover, packed as cases.py packs\n"
"it, at covers[class][cover_lo[j]:cover_hi[j]] (covers: per class a read-only buffer, or None) as\n"
"places in `order` (case order[i] is i); its\n"
"key, keys[key_at[j]:key_at[j + 1]] (int32: the class, then cond_key of the kept conditions).\n"
"Weighted cases: weights (float64 per case) and weight_grains' grains (of the weights in bit\n"
"order, padded to whole words) and exp; the counts are then summed weights, T0 and E0 come\n"
"back as doubles, and rate and fisher get floats.");

static PyObject *py_generalise(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[N_VIEWS];
    PyObject *columns, *ranks, *snaps, *rate_fn, *fisher_fn, *weights = Py_None, *grains = Py_None;
    Py_ssize_t n_keys, n_classes;
    int grain_exp = 0;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*O!O!O!y*y*y*y*y*y*y*y*y*y*y*y*y*nnOOy*y*y*y*y*|OOi", &v[0], &v[1], &PyTuple_Type,
                          &columns, &PyTuple_Type, &ranks, &PyTuple_Type, &snaps, &v[2], &v[3], &v[4], &v[5], &v[6],
                          &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &n_keys, &n_classes,
                          &rate_fn, &fisher_fn, &v[15], &v[16], &v[17], &v[18], &v[19], &weights, &grains, &grain_exp))
        return NULL;
    if ((weights == Py_None) != (grains == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "generalise: weights and grains go together");
        release_views(v, N_VIEWS);
        return NULL;
    }
    if (weights != Py_None
        && (PyObject_GetBuffer(weights, &v[N_VIEWS - 2], PyBUF_SIMPLE)
            || PyObject_GetBuffer(grains, &v[N_VIEWS - 1], PyBUF_SIMPLE))) {
        release_views(v, N_VIEWS);
        return NULL;
    }
    Gen g;
    memset(&g, 0, sizeof(g));
    PyObject *out = NULL;
    Py_ssize_t n_attr = PyTuple_GET_SIZE(columns);
    Py_buffer *cols = calloc((size_t)(3 * n_attr + 1), sizeof(Py_buffer));
    int64_t n = v[0].len / 4, n_leaves = v[11].len / 8 - 1;
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    if (take_conditions(&g, &v[2], columns, cols, n, n_keys, "generalise")
        || check_leaves(&g, &v[11], &v[12], "generalise"))
        goto done;
    if (PyTuple_GET_SIZE(ranks) != n_attr
        || PyTuple_GET_SIZE(snaps) != n_attr || v[1].len != n * 8
        || v[13].len != n_leaves * 4 || v[14].len != n_leaves * 8 || v[15].len != g.n_cond * 4
        || v[16].len != n_keys * ((n + 63) / 64) * 8 || v[17].len != n_keys * (((n + 63) / 64 + 63) / 64) * 8
        || v[18].len != n_classes * ((n + 63) / 64) * 8 || v[19].len != v[16].len
        || (weights != Py_None && (v[20].len != n * 8
                                   || v[21].len != (n + 63) / 64 * 64 * (Py_ssize_t)sizeof(wide_sum)))) {
        PyErr_SetString(PyExc_ValueError, "generalise: array sizes do not agree");
        goto done;
    }
    g.words = (n + 63) / 64;
    g.blocks = (g.words + 63) / 64;
    g.y = v[0].buf;
    g.order = v[1].buf;
    g.cond_key = v[15].buf;
    g.rate_fn = rate_fn;
    g.fisher_fn = fisher_fn;
    if (PyTuple_Check(rate_fn)) {
        /* (z2, log_cf): the weighted rates computed here (pessimistic_pair) */
        if (weights == Py_None || !PyArg_ParseTuple(rate_fn, "dd", &g.z2, &g.log_cf)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "generalise: rate as (z2, log_cf) is for weighted counts only");
            goto done;
        }
        g.own_rates = 1;
    }
    if (take_ranks(&g, cols, ranks, snaps, n_attr, "generalise")) goto done;
    const int64_t *leaf_ptr = v[11].buf;
    const int32_t *leaf_cond = v[12].buf, *leaf_target = v[13].buf;
    const double *leaf_default = v[14].buf;
    g.key_rows = v[16].buf;
    g.key_empty = v[17].buf;
    g.wrong_rows = v[18].buf;
    g.key_cases = v[19].buf;
    if (weights != Py_None) {
        g.weights = v[20].buf;
        g.grains = v[21].buf;
        g.grain_exp = grain_exp;
        g.wrong_w = malloc((size_t)(n_classes + 1) * 8);
        if (!g.wrong_w) {
            PyErr_NoMemory();
            goto done;
        }
        wide_sum all = 0;
        for (int64_t w = 0; w < g.words; w++) all += grain_sum(&g, w, ~(uint64_t)0);   /* padding grains are 0 */
        g.total_w = double_bits(grain_double(all, grain_exp));
        for (int64_t c = 0; c < n_classes; c++) {
            wide_sum sum = 0;
            for (int64_t w = 0; w < g.words; w++) sum += grain_sum(&g, w, g.wrong_rows[c * g.words + w]);
            g.wrong_w[c] = double_bits(grain_double(sum, grain_exp));
        }
    }
    g.rate_cap = 1024;
    g.rates = pages_grow(NULL, 0, (size_t)g.rate_cap * sizeof(Rate), 1);
    g.at = malloc((size_t)g.words * 8 + 8);
    g.covered = malloc((size_t)g.words * 8 + 8);
    g.cover_out = malloc((size_t)n * 4 + 4);
    g.sort_tmp = malloc((size_t)n * 4 + 4);
    g.position = malloc((size_t)n * 4 + 4);
    g.packed_out = malloc((size_t)n * 5 + 5);
    g.flags = malloc(2 * (size_t)n + 1);      /* follow: two levels' truth at once */
    g.found.cover = calloc((size_t)n_classes + 1, sizeof(Region));
    if (!g.found.cover || !g.sort_tmp || !g.position || !g.packed_out || !g.flags || !g.rates || !g.at
        || !g.covered || !g.cover_out || reserve_levels(&g, 16)) {
        PyErr_NoMemory();
        goto done;
    }
    memset(g.position, 0xff, (size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        if (g.order[i] < 0 || g.order[i] >= n || g.position[g.order[i]] >= 0) {
            PyErr_SetString(PyExc_ValueError, "generalise: order is not an order of the cases");
            goto done;
        }
        g.position[g.order[i]] = (int32_t)i;
    }
    for (int64_t i = 0; i < n_leaves; i++)
        if (leaf_target[i] < 0 || leaf_target[i] >= n_classes) {
            PyErr_SetString(PyExc_ValueError, "generalise: a leaf's class is out of range");
            goto done;
        }
    int failed = 0;
    g.ts = PyEval_SaveThread();
    for (int64_t i = 0; i < n_leaves && !failed; i++)
        failed = follow(&g, leaf_cond + leaf_ptr[i], leaf_ptr[i + 1] - leaf_ptr[i])
                 || leaf(&g, i, leaf_target[i], leaf_default[i]);
    PyEval_RestoreThread(g.ts);
    g.ts = NULL;
    if (failed) {
        /* an exception from Python (rate, fisher) is set; otherwise memory ran out */
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    {
        /* the pools, rows and scratch go before the rules' fields are copied out (a copy of
           them is made while they are still held) */
        Found found = g.found;
        release(&g);
        memset(&g, 0, sizeof(g));
        g.found = found;
    }
    out = found_result(&g.found, n_classes);
done:
    found_free(&g.found, n_classes);
    release(&g);
    if (cols) {
        release_views(cols, 3 * n_attr);
        free(cols);
    }
    release_views(v, N_VIEWS);
    return out;
}

PyDoc_STRVAR(use_popcnt_doc,
"use_popcnt(flag) -> previous or -1\n\n"
"For tests: whether the recount uses the popcnt instruction (only where the CPU has it).\n"
"Returns the previous setting, or -1 where there is no such choice (not x86-64).");

static PyObject *py_use_popcnt(PyObject *self, PyObject *arg) {
    (void)self;
    int flag = PyObject_IsTrue(arg);
    if (flag < 0) return NULL;
#ifdef POPCNT_DISPATCH
    int was = has_popcnt;
    has_popcnt = flag && __builtin_cpu_supports("popcnt");
    return PyLong_FromLong(was);
#else
    return PyLong_FromLong(-1);
#endif
}

/* ---- Weighted counts (generalize.py _PathPools.count over weighted cases) -------------------
 * A table's count over weighted cases is the exact sum of the weights of its set bits,
 * rounded once (math.fsum's value): the same on every machine, whatever order the bits are
 * visited in. Each weight is held as a whole number of units 2^-exp (weight_grains), so a
 * sum is 128-bit integer additions. */

PyDoc_STRVAR(weight_grains_doc,
"weight_grains(weights) -> (grains, exp) or None\n\n"
"The float64 weights (>= 0) as 128-bit whole numbers of units 2^-exp (bytes, 16 a weight),\n"
"the unit the finest of them needs; None when any sum of them could leave 126 bits or its\n"
"rounding could fall below the normal doubles (the caller then sums them with math.fsum).");

static PyObject *py_weight_grains(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "y*", &v)) return NULL;
    const double *w = v.buf;
    Py_ssize_t n = v.len / 8;
    int exp = 0, top = -2000, bottom = 2000;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!(w[i] >= 0) || !isfinite(w[i])) {
            PyBuffer_Release(&v);
            return Py_NewRef(Py_None);
        }
        if (w[i] == 0) continue;
        int e;
        uint64_t whole = (uint64_t)ldexp(frexp(w[i], &e), 53);   /* w = whole 2^(e - 53) */
        int need = 53 - e - __builtin_ctzll(whole);   /* the bits w has after the point */
        if (need > exp) exp = need;
        if (e > top) top = e;
        if (e < bottom) bottom = e;
    }
    /* every sum below 2^126 units, and none (not even one weight) below the normal doubles */
    if (top > -2000 && (top + exp + (int)ceil(log2((double)n + 1)) > 125 || bottom < -1000)) {
        PyBuffer_Release(&v);
        return Py_NewRef(Py_None);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(wide_sum));
    if (out) {
        wide_sum *g = (wide_sum *)PyBytes_AS_STRING(out);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (w[i] == 0) {
                g[i] = 0;
                continue;
            }
            int e;
            uint64_t whole = (uint64_t)ldexp(frexp(w[i], &e), 53);
            int zeros = __builtin_ctzll(whole);
            /* w = odd 2^(e - 53 + zeros): odd 2^(e - 53 + zeros + exp) units, a left shift
               (exp >= 53 - e - zeros, the bits w has after the point) */
            g[i] = (wide_sum)(whole >> zeros) << (e - 53 + zeros + exp);
        }
    }
    PyBuffer_Release(&v);
    if (!out) return NULL;
    return Py_BuildValue("(Ni)", out, exp);
}

PyDoc_STRVAR(weight_sums_doc,
"weight_sums(rows, at, grains, exp) -> list of floats\n\n"
"Per row of `rows` (uint64 words, one row per table line, a column per position in `at`):\n"
"the exact sum of the weights of its set bits, bit b of word column j standing for the\n"
"weight grains[64 * at[j] + b] (weight_grains), rounded once to a double.");

static PyObject *py_weight_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer rows, at, grains;
    int exp;
    memset(&rows, 0, sizeof(rows)); memset(&at, 0, sizeof(at)); memset(&grains, 0, sizeof(grains));
    if (!PyArg_ParseTuple(args, "y*y*y*i", &rows, &at, &grains, &exp)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t width = at.len / 8, words = grains.len / (Py_ssize_t)(64 * sizeof(wide_sum));
    Py_ssize_t r = width ? rows.len / 8 / width : 0;
    const int64_t *pos = at.buf;
    int ok = rows.len == r * width * 8 && at.len == width * 8;
    for (Py_ssize_t j = 0; ok && j < width; j++) ok = pos[j] >= 0 && pos[j] < words;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "weight_sums: rows, at and grains do not agree");
        goto done;
    }
    out = PyList_New(r);
    if (!out) goto done;
    const uint64_t *word = rows.buf;
    const wide_sum *g = grains.buf;
    for (Py_ssize_t i = 0; i < r; i++) {
        wide_sum sum = 0;
        for (Py_ssize_t j = 0; j < width; j++) {
            uint64_t bits = word[i * width + j];
            const wide_sum *base = g + 64 * pos[j];
            while (bits) {
                sum += base[__builtin_ctzll(bits)];
                bits &= bits - 1;
            }
        }
        PyObject *f = PyFloat_FromDouble(grain_double(sum, exp));
        if (!f) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, f);
    }
done:
    PyBuffer_Release(&rows);
    PyBuffer_Release(&at);
    PyBuffer_Release(&grains);
    return out;
}

PyDoc_STRVAR(pessimistic_pair_doc,
"pessimistic_pair(cases, errors, z2, log_cf) -> (actual, pessimistic)\n\n"
"the weighted generalisation's rates of one (cases, errors) pair, as generalise computes them when\n"
"its rate is (z2, log_cf): generalize.py _Rates.compute for weighted counts, the reference.");

static PyObject *py_pessimistic_pair(PyObject *self, PyObject *args) {
    (void)self;
    double cases, errors, z2, log_cf, actual, pess;
    if (!PyArg_ParseTuple(args, "dddd", &cases, &errors, &z2, &log_cf)) return NULL;
    pessimistic_pair(cases, errors, z2, log_cf, &actual, &pess);
    return Py_BuildValue("dd", actual, pess);
}

/* ---- Rules in passes (passes.py): a round's counts and the firing table, batch by batch ---- */

/* Checks that every one of a rule list's conditions names a truth row: conds[ptr[i]..ptr[i+1])
 * are rule i's rows, 0 <= row < n_rows; returns the longest rule, or -1 (error set). */
static int64_t check_rule_rows(const int32_t *conds, Py_ssize_t n_conds, const int64_t *ptr, int64_t k,
                               int64_t n_rows, const char *who) {
    int64_t longest = 0;
    if (ptr[0] != 0 || ptr[k] != n_conds) goto bad;
    for (int64_t i = 0; i < k; i++) {
        if (ptr[i + 1] < ptr[i]) goto bad;
        if (ptr[i + 1] - ptr[i] > longest) longest = ptr[i + 1] - ptr[i];
    }
    /* without a branch a number (vectorised): the kernels are called a slice at a time with
       the same rules, and this check was 4% of a round's pass at 1M cases */
    uint32_t limit = n_rows > 0x7fffffff ? 0x80000000u : (uint32_t)n_rows, out = 0;
    for (Py_ssize_t j = 0; j < n_conds; j++) out |= (uint32_t)conds[j] >= limit;   /* negative: >= 2^31 */
    if (out) goto bad;
    return longest;
bad:
    PyErr_Format(PyExc_ValueError, "%s: the rules' condition rows do not agree with the truth rows", who);
    return -1;
}

/* check_rule_rows, and that every rule fits the count tables' width and its class has a row of
   wrong cases: a round kernel's checks (-1 with the error set) */
static int64_t check_round_rules(const int32_t *conds, Py_ssize_t n_conds, const int64_t *ptr, int64_t k,
                                 int64_t n_rows, const int32_t *klass, int64_t n_classes, int64_t width,
                                 const char *who, const char *tables) {
    int64_t longest = check_rule_rows(conds, n_conds, ptr, k, n_rows, who);
    if (longest < 0) return -1;
    if (longest > width) {
        PyErr_Format(PyExc_ValueError, "%s: %s are narrower than a rule", who, tables);
        return -1;
    }
    for (int64_t i = 0; i < k; i++)
        if (klass[i] < 0 || klass[i] >= n_classes) {
            PyErr_Format(PyExc_ValueError, "%s: a rule's class has no row of wrong cases", who);
            return -1;
        }
    return longest;
}

PyDoc_STRVAR(pool_tables_doc,
"pool_tables(columns, kind, attr, outcome, cut, node, key, masks, mask_off, mask_len, leaf_ptr,\n"
"            leaf_cond, n, n_keys, y, klass, t0, e0, td, ed)\n\n"
"A first generalisation round's counts over a batch of n cases (passes.py _round_counts), added\n"
"into t0, e0 (int64 per leaf) and td, ed (int64, a row of width td.len / 8 / leaves per leaf):\n"
"per leaf i (its path, conditions and columns as leaf_order has them; y: the cases' classes,\n"
"int32; klass[i]: its class, int32) the cases satisfying its whole path and those satisfying\n"
"all of it but level d. As generalise's first round: each path's pool of the cases failing at\n"
"most one of its conditions, narrowed a level at a time along the depth-first paths, so no\n"
"condition's truth over every case is made (what round_tables reads).");

static PyObject *py_pool_tables(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[17];
    PyObject *columns, *out = NULL;
    Py_ssize_t n, n_keys;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "O!y*y*y*y*y*y*y*y*y*y*y*nny*y*w*w*w*w*", &PyTuple_Type, &columns, &v[0], &v[1],
                          &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &n, &n_keys, &v[11],
                          &v[12], &v[13], &v[14], &v[15], &v[16]))
        return NULL;
    Gen g;
    memset(&g, 0, sizeof(g));
    Py_buffer *cols = NULL;
    Pool *pools = NULL;
    int32_t *path = NULL;
    int64_t n_leaves = v[9].len / 8 - 1, max_depth = 1, depth = 0, width = 0;
    if (open_conditions(&g, v, columns, &cols, n, n_keys, "pool_tables")
        || check_leaves(&g, &v[9], &v[10], "pool_tables"))
        goto done;
    if (n_leaves > 0) width = v[15].len / 8 / n_leaves;
    if (v[11].len != n * 4 || v[12].len != n_leaves * 4 || v[13].len != n_leaves * 8 || v[14].len != n_leaves * 8
        || v[15].len != n_leaves * width * 8 || v[16].len != v[15].len) {
        PyErr_SetString(PyExc_ValueError, "pool_tables: array sizes do not agree");
        goto done;
    }
    const int64_t *leaf_ptr = v[9].buf;
    const int32_t *leaf_cond = v[10].buf, *y = v[11].buf, *klass = v[12].buf;
    for (int64_t i = 0; i < n_leaves; i++)
        if (leaf_ptr[i + 1] - leaf_ptr[i] > max_depth) max_depth = leaf_ptr[i + 1] - leaf_ptr[i];
    if (max_depth > width && n_leaves > 0) {
        PyErr_SetString(PyExc_ValueError, "pool_tables: td and ed are narrower than a path");
        goto done;
    }
    int64_t *t0 = v[13].buf, *e0 = v[14].buf, *td = v[15].buf, *ed = v[16].buf;
    pools = calloc((size_t)max_depth, sizeof(Pool));
    path = malloc((size_t)max_depth * 4);
    g.flags = malloc((size_t)n + 1);
    g.td = calloc((size_t)max_depth + 1, 8);      /* per failed level + 1: cases, then errors */
    g.ed = calloc((size_t)max_depth + 1, 8);
    if (!pools || !path || !g.flags || !g.td || !g.ed) {
        PyErr_NoMemory();
        goto done;
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n_leaves && !failed; i++) {
        const int32_t *p = leaf_cond + leaf_ptr[i];
        int64_t m = leaf_ptr[i + 1] - leaf_ptr[i], keep = 0;
        while (keep < m && keep < depth && p[keep] == path[keep]) keep++;
        for (int64_t j = keep; j < m && !failed; j++) {
            Pool *q = &pools[j];
            if (j == 0) {
                if (pool_reserve(q, n)) {
                    failed = 1;
                    break;
                }
                holds(&g, p[0], NULL, 0, n, 0, g.flags);
                for (int64_t c = 0; c < n; c++) {
                    q->cand[c] = (int32_t)c;
                    q->failed[c] = g.flags[c] ? -1 : 0;
                }
                q->size = n;
            } else if (narrow(&g, p[j], &pools[j - 1], q, j)) {
                failed = 1;
                break;
            }
            path[j] = p[j];
        }
        if (failed) break;
        depth = m;
        /* the leaf's pool: cases failing no level (slot 0) or exactly level d (slot d + 1) */
        const Pool *q = &pools[m - 1];
        int32_t mine = klass[i];
        for (int64_t d = 0; d <= m; d++) g.td[d] = g.ed[d] = 0;
        for (int64_t c = 0; c < q->size; c++) {
            int64_t slot = q->failed[c] + 1;
            g.td[slot]++;
            g.ed[slot] += y[q->cand[c]] != mine;
        }
        t0[i] += g.td[0];
        e0[i] += g.ed[0];
        for (int64_t d = 0; d < m; d++) {
            td[i * width + d] += g.td[0] + g.td[d + 1];
            ed[i * width + d] += g.ed[0] + g.ed[d + 1];
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    out = Py_NewRef(Py_None);
done:
    if (pools)
        for (int64_t j = 0; j < max_depth; j++) pool_free(&pools[j]);
    free(pools);
    free(path);
    free(g.flags);
    free(g.td);
    free(g.ed);
    close_conditions(&g, cols, PyTuple_GET_SIZE(columns));
    release_views(v, 17);
    return out;
}

PyDoc_STRVAR(round_tables_doc,
"round_tables(bits, n, wrong, conds, ptr, klass, t0, e0, td, ed)\n\n"
"A generalisation round's counts over one slice of n cases (passes.py _round_counts), added\n"
"into t0, e0 (int64 per rule) and td, ed (int64, a row of width td.len / 8 / rules per rule):\n"
"bits holds the condition truth rows (uint64 words, 64 cases a word, padding bits 0), wrong per\n"
"class the cases of another class; rule i has the rows conds[ptr[i]:ptr[i + 1]] (int32; ptr\n"
"int64) and the class klass[i] (int32). The recount generalise does after a deletion, over the\n"
"words where at most one of a rule's conditions holds for no case.");

static PyObject *py_round_tables(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[10];
    Py_ssize_t n, n_classes;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*ny*y*y*y*w*w*w*w*", &v[0], &n, &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                          &v[8]))
        return NULL;
    PyObject *out = NULL;
    Gen g;
    memset(&g, 0, sizeof(g));
    int64_t W = (n + 63) / 64, k = v[3].len / 8 - 1, blocks = (W + 63) / 64;
    int64_t n_rows = W ? v[0].len / 8 / W : 0, width = k > 0 ? v[7].len / 8 / k : 0;
    n_classes = W ? v[1].len / 8 / W : 0;
    if (n < 0 || k < 0 || v[0].len != n_rows * W * 8 || v[1].len != n_classes * W * 8 || v[4].len != k * 4
        || v[5].len != k * 8 || v[6].len != k * 8 || v[7].len != k * width * 8 || v[8].len != v[7].len) {
        PyErr_SetString(PyExc_ValueError, "round_tables: array sizes do not agree");
        goto done;
    }
    const int32_t *conds = v[2].buf, *klass = v[4].buf;
    const int64_t *ptr = v[3].buf;
    int64_t longest = check_round_rules(conds, v[2].len / 4, ptr, k, n_rows, klass, n_classes, width, "round_tables",
                                        "td and ed");
    if (longest < 0) goto done;
    if (!W) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    g.n = n;
    g.words = W;
    g.blocks = blocks;
    g.bits = v[0].buf;                          /* each rule's rows: bits + row * W (no row_key) */
    size_t m1 = (size_t)longest + 1;
    g.empty = malloc((size_t)(n_rows * blocks) * 8);
    g.levels = malloc(m1 * 4);
    g.td = malloc(m1 * 8);
    g.ed = malloc(m1 * 8);
    g.rows = malloc(m1 * sizeof(*g.rows));
    g.empties = malloc(m1 * sizeof(*g.empties));
    g.at = malloc((size_t)W * 8);
    g.covered = malloc((size_t)W * 8);
    if (!g.empty || !g.levels || !g.td || !g.ed || !g.rows || !g.empties || !g.at || !g.covered) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *t0 = v[5].buf, *e0 = v[6].buf, *td = v[7].buf, *ed = v[8].buf;
    const uint64_t *wrong = v[1].buf;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t j = 0; j < n_rows; j++) empty_words(&g, g.bits + j * W, g.empty + j * blocks);
    for (int64_t i = 0; i < k; i++) {
        int64_t m = ptr[i + 1] - ptr[i], T0, E0, na;
        const uint64_t *bad = wrong + klass[i] * W;
        if (m == 0) {
            /* no condition: every case (the wrong rows' padding bits are 0) */
            int64_t wrong_n = 0;
            for (int64_t w = 0; w < W; w++) wrong_n += popcount_bits(bad[w]);
            t0[i] += n;
            e0[i] += wrong_n;
            continue;
        }
        for (int64_t d = 0; d < m; d++) g.levels[d] = conds[ptr[i] + d];
        tables(&g, m, bad, &T0, &E0, &na);
        t0[i] += T0;
        e0[i] += E0;
        for (int64_t d = 0; d < m; d++) {
            td[i * width + d] += g.td[d];
            ed[i * width + d] += g.ed[d];
        }
    }
    Py_END_ALLOW_THREADS
    out = Py_NewRef(Py_None);
done:
    free(g.empty); free(g.row_key); free(g.levels); free(g.td); free(g.ed);
    free((void *)g.rows); free((void *)g.empties); free(g.at); free(g.covered);
    release_views(v, 10);
    return out;
}

/* Append case c to the pairs (*cases, *n_pairs of *cap), grown as needed; -1: no memory. */
static inline int push_case(int32_t **cases, int64_t *n_pairs, int64_t *cap, int32_t c) {
    if (*n_pairs == *cap) {
        int64_t more_cap = *cap ? 2 * *cap : 1 << 16;
        int32_t *more = realloc(*cases, (size_t)more_cap * 4);
        if (!more) return -1;
        *cases = more;
        *cap = more_cap;
    }
    (*cases)[(*n_pairs)++] = c;
    return 0;
}

/* The lists fire_lists returns from its (rule, case) pairs: rule i fires on the cases
 * cases[lo[i]..hi[i]) (0 <= case < n); klass: the cases' classes; `at` (n + 1) written. NULL with
 * an exception set when memory runs out. */
static PyObject *fired_lists(const int32_t *cases, const int64_t *lo, const int64_t *hi, int64_t k, int64_t n,
                             const int32_t *klass, int64_t *at, int packed) {
    PyObject *out = NULL;
    int32_t *plain = NULL, *ids;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t c = 0; c <= n; c++) at[c] = 0;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = lo[i]; j < hi[i]; j++) at[cases[j] + 1]++;
    for (int64_t c = 0; c < n; c++) at[c + 1] += at[c] + 1;    /* + its class */
    Py_END_ALLOW_THREADS
    if (packed) {
        /* the plain lists first, then each packed into its words */
        ids = plain = malloc((size_t)(at[n] ? at[n] : 1) * 4);
        if (!plain) return PyErr_NoMemory();
    } else {
        out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(at[n] * 4));
        if (!out) return NULL;
        ids = (int32_t *)PyBytes_AS_STRING(out);
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t c = 0; c < n; c++) ids[at[c]] = klass[c];
    /* each case's next free place: after its class, advanced as its rules come */
    for (int64_t c = 0; c < n; c++) at[c]++;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = lo[i]; j < hi[i]; j++) ids[at[cases[j]]++] = (int32_t)i;
    /* back to the starts: each case's place is now its successor's start */
    for (int64_t c = n; c > 0; c--) at[c] = at[c - 1];
    at[0] = 0;
    Py_END_ALLOW_THREADS
    if (packed) {
        uint8_t scratch[5];
        int64_t words = 0;
        /* the packing runs without the GIL too (threads count slices at once, passes.py
           _sliced); the bytes object is this call's alone until it returns */
        Py_BEGIN_ALLOW_THREADS
        for (int64_t c = 0; c < n; c++) {
            int64_t bytes = 0;
            uint32_t prev = (uint32_t)-1;
            for (int64_t j = at[c]; j < at[c + 1]; j++) {
                bytes += varint_put(j == at[c] ? (uint32_t)ids[j] + 1 : (uint32_t)ids[j] - prev, scratch);
                if (j > at[c]) prev = (uint32_t)ids[j];
            }
            words += (bytes + 3) / 4;
        }
        Py_END_ALLOW_THREADS
        out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(words * 4));
        if (!out) {
            free(plain);
            return NULL;
        }
        uint8_t *put = (uint8_t *)PyBytes_AS_STRING(out);
        Py_BEGIN_ALLOW_THREADS
        memset(put, 0, (size_t)words * 4);
        int64_t from = 0;
        for (int64_t c = 0; c < n; c++) {
            int64_t bytes = 0, end = at[c + 1];
            uint32_t prev = (uint32_t)-1;
            uint8_t *list = put + from * 4;
            for (int64_t j = at[c]; j < end; j++) {
                bytes += varint_put(j == at[c] ? (uint32_t)ids[j] + 1 : (uint32_t)ids[j] - prev, list + bytes);
                if (j > at[c]) prev = (uint32_t)ids[j];
            }
            at[c] = from;
            from += (bytes + 3) / 4;
        }
        at[n] = from;
        Py_END_ALLOW_THREADS
    }
    free(plain);
    return out;
}

PyDoc_STRVAR(fire_lists_doc,
"fire_lists(bits, n, conds, ptr, klass, at) -> ids\n\n"
"Which rules fire on each of a slice's n cases, as lists: bits, conds and ptr as round_tables\n"
"has them, klass the cases' classes (int32); case c's list, ids[at[c]:at[c + 1]] (int32; at:\n"
"int64, n + 1, written), is its class and then the rules whose conditions all hold for it,\n"
"ascending. `packed` (default 0): each list packed instead (_varint.h), its class + 1, its first\n"
"rule + 1, then each rule less the one before (no number is 0, so no byte is), padded with zero\n"
"bytes to whole int32 words; `at` then counts words: about half the bytes of the int32 lists.");

static PyObject *py_fire_lists(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[5];
    Py_ssize_t n;
    int packed = 0;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*ny*y*y*w*|p", &v[0], &n, &v[1], &v[2], &v[3], &v[4], &packed)) return NULL;
    PyObject *out = NULL;
    int64_t W = (n + 63) / 64, k = v[2].len / 8 - 1;
    int64_t n_rows = W ? v[0].len / 8 / W : 0;
    int32_t *cases = NULL;
    int64_t *rule_at = NULL, n_pairs = 0, cap = 0;
    if (n < 0 || k < 0 || v[0].len != n_rows * W * 8 || v[3].len != n * 4 || v[4].len != (n + 1) * 8) {
        PyErr_SetString(PyExc_ValueError, "fire_lists: array sizes do not agree");
        goto done;
    }
    const int32_t *conds = v[1].buf, *klass = v[3].buf;
    const int64_t *ptr = v[2].buf;
    if (check_rule_rows(conds, v[1].len / 4, ptr, k, n_rows, "fire_lists") < 0) goto done;
    const uint64_t *bits = v[0].buf;
    int64_t *at = v[4].buf;
    int failed = 0;
    rule_at = malloc((size_t)(k + 1) * 8);
    if (!rule_at) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    /* the (rule, case) pairs rule by rule, then placed case by case (a counting sort: each
       case's rules stay ascending) */
    for (int64_t i = 0; i < k && !failed; i++) {
        const int32_t *mine = conds + ptr[i];
        int64_t m = ptr[i + 1] - ptr[i];
        rule_at[i] = n_pairs;
        for (int64_t w = 0; w < W && !failed; w++) {
            uint64_t cover = w == W - 1 && n % 64 ? ~0ULL >> (64 - n % 64) : ~0ULL;
            /* most words fail some condition early */
            for (int64_t d = 0; d < m && cover; d++) cover &= bits[(int64_t)mine[d] * W + w];
            for (; cover && !failed; cover &= cover - 1)
                failed = push_case(&cases, &n_pairs, &cap, (int32_t)(w * 64 + __builtin_ctzll(cover)));
        }
    }
    rule_at[k] = n_pairs;
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    out = fired_lists(cases, rule_at, rule_at + 1, k, n, klass, at, packed);
done:
    free(cases);
    free(rule_at);
    release_views(v, 5);
    return out;
}

/* ---- Counting along the tree's paths, batch by batch (passes.py _Conditions.path_tables) ---- */

/* The views path_tables and path_fire_lists share: v[0] order (int64, bit position -> case),
 * v[1..9] the conditions (take_conditions'), v[10] leaf_ptr, v[11] leaf_cond, v[12] key_rows,
 * v[13] key_empty (truth_rows' of the cases in that order), v[14] list_leaf (int64), v[15]
 * list_ptr (int64), v[16] list_kept (int32); cols: 3 n_attr views (take_ranks'); cut_rank: per
 * condition (int64) a threshold's number of known values at most its cut. Checks them
 * and sets g up for the lists: each a leaf's path with some of its levels kept. 0, or -1 with
 * an exception set. */
static int open_paths(Gen *g, Py_buffer *v, PyObject *columns, PyObject *ranks, PyObject *snaps, Py_ssize_t n_keys,
                      Py_buffer *cols, const Py_buffer *cut_rank, const char *who) {
    int64_t n = v[0].len / 8, n_leaves = v[10].len / 8 - 1, k = v[15].len / 8 - 1, W = (n + 63) / 64;
    if (take_conditions(g, &v[1], columns, cols, n, n_keys, who) || check_leaves(g, &v[10], &v[11], who)) return -1;
    g->words = W;
    g->blocks = (W + 63) / 64;
    if (v[0].len % 8 || k < 0 || v[12].len != n_keys * W * 8 || v[13].len != n_keys * g->blocks * 8
        || v[14].len != k * 8) {
        PyErr_Format(PyExc_ValueError, "%s: array sizes do not agree", who);
        return -1;
    }
    if (take_ranks(g, cols, ranks, snaps, PyTuple_GET_SIZE(columns), who)) return -1;
    /* each threshold condition's rank among its column's known values (0..known) */
    if (cut_rank->len != g->n_cond * 8) {
        PyErr_Format(PyExc_ValueError, "%s: array sizes do not agree", who);
        return -1;
    }
    g->cut_rank = cut_rank->buf;
    for (int64_t c = 0; c < g->n_cond; c++)
        if (g->kind[c] == THRESHOLD && (g->cut_rank[c] < 0 || g->cut_rank[c] > g->n_known[g->attr[c]])) {
            PyErr_Format(PyExc_ValueError, "%s: a cut's rank is out of range", who);
            return -1;
        }
    g->order = v[0].buf;
    for (int64_t i = 0; i < n; i++)
        if (g->order[i] < 0 || g->order[i] >= n) {
            PyErr_Format(PyExc_ValueError, "%s: the order is not of the cases", who);
            return -1;
        }
    const int64_t *leaf_ptr = v[10].buf, *list_leaf = v[14].buf, *ptr = v[15].buf;
    const int32_t *kept = v[16].buf;
    int ok = ptr[0] == 0 && ptr[k] == v[16].len / 4;
    for (int64_t i = 0; ok && i < k; i++) {
        int64_t leaf = list_leaf[i];
        ok = leaf >= 0 && leaf < n_leaves && ptr[i + 1] >= ptr[i];
        for (int64_t q = ptr[i]; ok && q < ptr[i + 1]; q++) ok = kept[q] >= 0 && kept[q] < leaf_ptr[leaf + 1] - leaf_ptr[leaf];
    }
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: the lists do not agree with the leaves' paths", who);
        return -1;
    }
    g->key_rows = v[12].buf;
    g->key_empty = v[13].buf;
    g->at = malloc((size_t)W * 8 + 8);
    g->covered = malloc((size_t)W * 8 + 8);
    if (!g->at || !g->covered || reserve_levels(g, 16)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Make leaf `leaf`'s path the current one (*at: the current leaf) and the rows of its levels
 * kept[0..r) ready (g->levels); a level's row stays while its condition does. -1: no memory. */
static int path_levels(Gen *g, const int64_t *leaf_ptr, const int32_t *leaf_cond, int64_t leaf, int64_t *at,
                       const int32_t *kept, int64_t r) {
    if (leaf != *at) {
        int64_t m = leaf_ptr[leaf + 1] - leaf_ptr[leaf];
        if (reserve_levels(g, m)) return -1;
        memcpy(g->path, leaf_cond + leaf_ptr[leaf], (size_t)m * 4);
        g->depth = m;
        *at = leaf;
    }
    for (int64_t q = 0; q < r; q++) {
        int32_t j = kept[q];
        g->levels[q] = j;
        if (g->row_cond[j] != g->path[j] && build_level(g, j)) return -1;
    }
    return 0;
}

static void close_paths(Gen *g, Py_buffer *cols, Py_ssize_t n_attr, Py_buffer *v, Py_ssize_t n_views) {
    release(g);
    if (cols) {
        release_views(cols, 3 * n_attr);
        free(cols);
    }
    release_views(v, n_views);
}

PyDoc_STRVAR(path_tables_doc,
"path_tables(order, columns, ranks, threshold_rows, kind, attr, outcome, cut, node, key, masks, mask_off,\n"
"            mask_len, leaf_ptr, leaf_cond, n_keys, key_rows, key_empty, cut_rank, list_leaf, list_ptr,\n"
"            list_kept, wrong_rows, klass, list_at, lo, hi, t0, e0, td, ed)\n\n"
"A later generalisation round's counts over one batch of n cases (passes.py _round_counts), added\n"
"into t0, e0 (int64) and td, ed (int64, rows of width td.len / t0.len) at row list_at[i] (int64) for\n"
"each list i of lo..hi-1. List i keeps the levels list_kept[list_ptr[i]:list_ptr[i + 1]] (int32) of\n"
"leaf list_leaf[i]'s path (int64; lists of one leaf side by side, leaves ascending, read best) and\n"
"counts for class klass[i] (int32). As generalise's recount: the batch's cases in `order` (its\n"
"leaf order, bit position -> case), the current path's levels' truth rows made as a list needs\n"
"them (threshold_rows' nearest row, the cases in between flipped, cut_rank (int64 per condition)\n"
"its cut's number of known values at most it; a discrete test's key row of truth_rows, as\n"
"key_rows, key_empty, wrong_rows are), so a round's lists read rows of one path\n"
"(a few hundred kB) instead of every counted condition's truth over the batch. Lets go of the\n"
"GIL: runs of lists may go in threads (each writes only its lists' rows).");

static PyObject *py_path_tables(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[25];
    PyObject *columns, *ranks, *snaps, *out = NULL;
    Py_ssize_t n_keys, lo, hi;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*O!O!O!y*y*y*y*y*y*y*y*y*y*y*ny*y*y*y*y*y*y*y*y*nnw*w*w*w*", &v[0], &PyTuple_Type,
                          &columns, &PyTuple_Type, &ranks, &PyTuple_Type, &snaps, &v[1], &v[2], &v[3], &v[4], &v[5],
                          &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &n_keys, &v[12], &v[13], &v[24], &v[14],
                          &v[15], &v[16], &v[17], &v[18], &v[19], &lo, &hi, &v[20], &v[21], &v[22], &v[23]))
        return NULL;
    Gen g;
    memset(&g, 0, sizeof(g));
    Py_ssize_t n_attr = PyTuple_GET_SIZE(columns);
    Py_buffer *cols = calloc((size_t)(3 * n_attr + 1), sizeof(Py_buffer));
    int64_t n = v[0].len / 8, k = v[15].len / 8 - 1, k_out = v[20].len / 8, W = (n + 63) / 64;
    int64_t n_classes = W ? v[17].len / 8 / W : 0, width = k_out > 0 ? v[22].len / 8 / k_out : 0;
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    if (open_paths(&g, v, columns, ranks, snaps, n_keys, cols, &v[24], "path_tables")) goto done;
    if (v[17].len != n_classes * W * 8 || v[18].len != k * 4 || v[19].len != k * 8 || v[20].len % 8
        || v[21].len != v[20].len || v[22].len != k_out * width * 8 || v[23].len != v[22].len || lo < 0 || lo > hi
        || hi > k) {
        PyErr_SetString(PyExc_ValueError, "path_tables: array sizes do not agree");
        goto done;
    }
    const int64_t *leaf_ptr = v[10].buf, *list_leaf = v[14].buf, *ptr = v[15].buf, *list_at = v[19].buf;
    const int32_t *leaf_cond = v[11].buf, *kept = v[16].buf, *klass = v[18].buf;
    for (int64_t i = 0; i < k; i++)
        if (ptr[i + 1] - ptr[i] > width || klass[i] < 0 || klass[i] >= n_classes || list_at[i] < 0
            || list_at[i] >= k_out) {
            PyErr_SetString(PyExc_ValueError, "path_tables: the lists do not agree with the count tables");
            goto done;
        }
    g.wrong_rows = v[17].buf;
    int64_t *t0 = v[20].buf, *e0 = v[21].buf, *td = v[22].buf, *ed = v[23].buf;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = lo, at = -1; i < hi && W; i++) {
        int64_t r = ptr[i + 1] - ptr[i], o = list_at[i], T0, E0, na;
        const uint64_t *bad = g.wrong_rows + klass[i] * W;
        if (r == 0) {
            /* no condition: every case (the wrong rows' padding bits are 0) */
            int64_t wrong_n = 0;
            for (int64_t w = 0; w < W; w++) wrong_n += popcount_bits(bad[w]);
            t0[o] += n;
            e0[o] += wrong_n;
            continue;
        }
        if (path_levels(&g, leaf_ptr, leaf_cond, list_leaf[i], &at, kept + ptr[i], r)) {
            failed = 1;
            break;
        }
        tables(&g, r, bad, &T0, &E0, &na);
        t0[o] += T0;
        e0[o] += E0;
        for (int64_t d = 0; d < r; d++) {
            td[o * width + d] += g.td[d];
            ed[o * width + d] += g.ed[d];
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    out = Py_NewRef(Py_None);
done:
    close_paths(&g, cols, n_attr, v, 25);
    return out;
}

PyDoc_STRVAR(path_fire_lists_doc,
"path_fire_lists(order, columns, ranks, threshold_rows, kind, attr, outcome, cut, node, key, masks,\n"
"                mask_off, mask_len, leaf_ptr, leaf_cond, n_keys, key_rows, key_empty, cut_rank,\n"
"                list_leaf, list_ptr, list_kept, list_rule, klass, at[, packed]) -> ids\n\n"
"fire_lists' lists over a batch of n cases (klass: their labels, int32, in the batch's order; at:\n"
"int64, n + 1, written), the rules' covers found along the tree's paths as path_tables counts:\n"
"rule list_rule[i] (int64; every rule 0..k-1 once) is the AND of the levels list_kept[list_ptr[i]:\n"
"list_ptr[i + 1]] of leaf list_leaf[i]'s path over the cases in `order`, read only in the words\n"
"where none of its levels' rows is empty; no truth row of every rule's conditions is made.");

static PyObject *py_path_fire_lists(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[21];
    PyObject *columns, *ranks, *snaps, *out = NULL;
    Py_ssize_t n_keys;
    int packed = 0;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*O!O!O!y*y*y*y*y*y*y*y*y*y*y*ny*y*y*y*y*y*y*y*w*|p", &v[0], &PyTuple_Type,
                          &columns, &PyTuple_Type, &ranks, &PyTuple_Type, &snaps, &v[1], &v[2], &v[3], &v[4], &v[5],
                          &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &n_keys, &v[12], &v[13], &v[20], &v[14],
                          &v[15], &v[16], &v[17], &v[18], &v[19], &packed))
        return NULL;
    Gen g;
    memset(&g, 0, sizeof(g));
    Py_ssize_t n_attr = PyTuple_GET_SIZE(columns);
    Py_buffer *cols = calloc((size_t)(3 * n_attr + 1), sizeof(Py_buffer));
    int64_t n = v[0].len / 8, k = v[15].len / 8 - 1, W = (n + 63) / 64, n_pairs = 0, cap = 0;
    int32_t *cases = NULL;
    int64_t *lo = NULL, *hi = NULL;
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    if (open_paths(&g, v, columns, ranks, snaps, n_keys, cols, &v[20], "path_fire_lists")) goto done;
    if (v[17].len != k * 8 || v[18].len != n * 4 || v[19].len != (n + 1) * 8) {
        PyErr_SetString(PyExc_ValueError, "path_fire_lists: array sizes do not agree");
        goto done;
    }
    const int64_t *leaf_ptr = v[10].buf, *list_leaf = v[14].buf, *ptr = v[15].buf, *list_rule = v[17].buf;
    const int32_t *leaf_cond = v[11].buf, *kept = v[16].buf;
    lo = malloc((size_t)(k + 1) * 8);
    hi = malloc((size_t)(k + 1) * 8);
    if (!lo || !hi) {
        PyErr_NoMemory();
        goto done;
    }
    for (int64_t i = 0; i < k; i++) lo[i] = -1;
    for (int64_t i = 0; i < k; i++) {
        if (list_rule[i] < 0 || list_rule[i] >= k || lo[list_rule[i]] >= 0) {
            PyErr_SetString(PyExc_ValueError, "path_fire_lists: the lists are not of every rule once");
            goto done;
        }
        lo[list_rule[i]] = 0;
    }
    int failed = 0;
    const int64_t *order = g.order;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0, at = -1; i < k && !failed; i++) {
        int64_t r = ptr[i + 1] - ptr[i], rule = list_rule[i];
        lo[rule] = n_pairs;
        if (r == 0) {
            /* no condition: every case */
            for (int64_t c = 0; c < n && !failed; c++) failed = push_case(&cases, &n_pairs, &cap, (int32_t)c);
        } else if (path_levels(&g, leaf_ptr, leaf_cond, list_leaf[i], &at, kept + ptr[i], r)) {
            failed = 1;
        } else {
            const uint64_t **rows = g.rows, **empties = g.empties;
            for (int64_t q = 0; q < r; q++) {
                int64_t j = g.levels[q];
                int32_t key = g.row_key[j];
                rows[q] = key < 0 ? g.bits + j * W : g.key_rows + key * W;
                empties[q] = key < 0 ? g.empty + j * g.blocks : g.key_empty + key * g.blocks;
            }
            /* only words where every level holds for some case can hold its cover */
            for (int64_t blk = 0; blk < g.blocks && !failed; blk++) {
                uint64_t some = 0;
                for (int64_t q = 0; q < r; q++) some |= empties[q][blk];
                for (uint64_t look = ~some; look && !failed; look &= look - 1) {
                    int64_t w = blk * 64 + __builtin_ctzll(look);
                    if (w >= W) break;
                    uint64_t cover = rows[0][w];
                    for (int64_t q = 1; q < r && cover; q++) cover &= rows[q][w];
                    for (; cover && !failed; cover &= cover - 1)
                        failed = push_case(&cases, &n_pairs, &cap, (int32_t)order[w * 64 + __builtin_ctzll(cover)]);
                }
            }
        }
        hi[rule] = n_pairs;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    out = fired_lists(cases, lo, hi, k, n, v[18].buf, v[19].buf, packed);
done:
    free(cases);
    free(lo);
    free(hi);
    close_paths(&g, cols, n_attr, v, 21);
    return out;
}

PyDoc_STRVAR(group_lists_doc,
"group_lists(at, ids, counts, key_at, keys, sums, slots, used) -> (taken, used)\n\n"
"Add lists of int32 (list i: ids[at[i]:at[i + 1]], at int64) with their counts (int64) into a\n"
"table of distinct lists: keys[key_at[j]:key_at[j + 1]] (key_at: int64, one more than the lists\n"
"the table can hold; keys: int32) in order of first appearance, sums (int64) their summed\n"
"counts, slots (int64, a power of two of them, more than the lists, -1 free: open addressing),\n"
"`used` lists in use. Stops when the table's lists or its keys' room are full; returns how\n"
"many lists it took and the lists now used (their numbers end at key_at[used]).");

static PyObject *py_group_lists(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[7];
    Py_ssize_t used;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*w*n", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &used))
        return NULL;
    PyObject *out = NULL;
    int64_t n = v[2].len / 8, cap = v[5].len / 8, room = v[4].len / 4, n_slots = v[6].len / 8;
    const int64_t *at = v[0].buf;
    int64_t *key_at = v[3].buf;
    int ok = v[0].len == (n + 1) * 8 && v[3].len == (cap + 1) * 8 && cap > 0 && n_slots > cap
             && !(n_slots & (n_slots - 1)) && used >= 0 && used <= cap && at[0] == 0 && at[n] == v[1].len / 4
             && key_at[0] == 0 && key_at[used] <= room;
    for (int64_t i = 0; ok && i < n; i++) ok = at[i + 1] >= at[i];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "group_lists: array sizes do not agree");
        goto done;
    }
    const int32_t *ids = v[1].buf;
    const int64_t *counts = v[2].buf;
    int32_t *keys = v[4].buf;
    int64_t *sums = v[5].buf, *slot = v[6].buf, mask = n_slots - 1, i = 0;
    Py_BEGIN_ALLOW_THREADS
    for (; i < n; i++) {
        const int32_t *list = ids + at[i];
        int64_t len = at[i + 1] - at[i], s = (int64_t)(mix(key_hash(list, len)) & (uint64_t)mask);
        for (;; s = (s + 1) & mask) {
            int64_t r = slot[s];
            if (r < 0 || (key_at[r + 1] - key_at[r] == len && !memcmp(keys + key_at[r], list, (size_t)len * 4)))
                break;
        }
        if (slot[s] < 0) {
            if (used == cap || key_at[used] + len > room) break;
            slot[s] = used;
            memcpy(keys + key_at[used], list, (size_t)len * 4);
            key_at[used + 1] = key_at[used] + len;
            sums[used++] = 0;
        }
        sums[slot[s]] += counts[i];
    }
    Py_END_ALLOW_THREADS
    out = Py_BuildValue("(nn)", (Py_ssize_t)i, used);
done:
    release_views(v, 7);
    return out;
}

PyDoc_STRVAR(value_rows_doc,
"value_rows(slot, out)\n\n"
"Bit rows by value: out (uint64, n_slots rows of words, zeroed by the caller) gets bit i % 64\n"
"of word i // 64 of row slot[i] set for each case i (slot: int64; outside 0..n_slots-1: none).");

static PyObject *py_value_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[2];
    Py_ssize_t n_slots;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*nw*", &v[0], &n_slots, &v[1])) return NULL;
    int64_t n = v[0].len / 8, W = (n + 63) / 64;
    if (n_slots < 0 || v[1].len != n_slots * W * 8) {
        PyErr_SetString(PyExc_ValueError, "value_rows: array sizes do not agree");
        release_views(v, 2);
        return NULL;
    }
    const int64_t *slot = v[0].buf;
    uint64_t *out = v[1].buf;
    /* the streamed passes make a batch's slices' truth rows on several threads (passes.py _sliced) */
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n; i++)
        if (slot[i] >= 0 && slot[i] < n_slots) out[slot[i] * W + (i >> 6)] |= 1ULL << (i & 63);
    Py_END_ALLOW_THREADS
    release_views(v, 2);
    return Py_NewRef(Py_None);
}

PyDoc_STRVAR(slice_truth_doc,
"slice_truth(columns, n_all, lo, n, entries, cuts, cut_at, masks, everyone, out)\n\n"
"Condition truth rows of cases lo..lo+n-1 of a batch of n_all cases (passes.py _Conditions.truth),\n"
"in one call without the GIL. out: uint64, rows of W = ceil(n / 64) words; row `everyone` gets\n"
"every case. entries: int64 rows of (attribute, kind, side, param, length, row), grouped by\n"
"attribute: a THRESHOLD entry's row gets the cases valued at most (side 0) or above (side 1)\n"
"cuts[cut_at[a] + param] (cut_at: int64 per attribute to the last tested, one more; each attribute's cuts ascending,\n"
"distinct), a DISCRETE one the cases valued `param`, a SUBSET one those whose value v has\n"
"masks[param + v] set (v < length). columns: per attribute its column over the batch (float64\n"
"for thresholds, int32 otherwise; None if untested). Unknown values (NaN, negative) are in no\n"
"row; padding bits 0. Every entry's row is written whole.");

static PyObject *py_slice_truth(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[5];
    PyObject *columns;
    Py_ssize_t n_all, lo, n, everyone;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "O!nnny*y*y*y*nw*", &PyTuple_Type, &columns, &n_all, &lo, &n, &v[0], &v[1], &v[2],
                          &v[3], &everyone, &v[4]))
        return NULL;
    Py_ssize_t n_attr = PyTuple_GET_SIZE(columns);
    Py_buffer *cols = calloc((size_t)n_attr + 1, sizeof(Py_buffer));
    uint64_t *scratch = NULL;
    PyObject *out = NULL;
    int64_t W = (n + 63) / 64, n_entries = v[0].len / 48, n_cuts = v[1].len / 8;
    int64_t n_rows = W ? v[4].len / 8 / W : 0;
    const int64_t *e = v[0].buf, *cut_at = v[2].buf;
    const double *cuts = v[1].buf;
    const uint8_t *masks = v[3].buf;
    uint64_t *rows = v[4].buf;
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t n_cut_at = v[2].len / 8;
    if (n < 0 || lo < 0 || lo + n > n_all || v[0].len % 48 || v[2].len % 8 || v[4].len != n_rows * W * 8 || everyone < 0 || everyone >= n_rows) {
        PyErr_SetString(PyExc_ValueError, "slice_truth: array sizes do not agree");
        goto done;
    }
    /* check every entry, and take each tested column once, of its kind's type */
    int64_t most_cuts = 0;
    for (int64_t i = 0; i < n_entries; i++) {
        const int64_t *x = e + 6 * i;
        int64_t a = x[0], kind = x[1];
        if (a < 0 || a >= n_attr || kind < DISCRETE || kind > SUBSET || x[5] < 0 || x[5] >= n_rows
            || (kind == THRESHOLD && (a + 1 >= n_cut_at || cut_at[a] < 0 || cut_at[a] > cut_at[a + 1] || cut_at[a + 1] > n_cuts
                                      || x[3] < 0 || x[3] >= cut_at[a + 1] - cut_at[a]))
            || (kind == SUBSET && (x[3] < 0 || x[4] < 0 || x[3] + x[4] > v[3].len))) {
            PyErr_Format(PyExc_ValueError, "slice_truth: entry %lld is malformed", (long long)i);
            goto done;
        }
        if (kind == THRESHOLD && cut_at[a + 1] - cut_at[a] > most_cuts) most_cuts = cut_at[a + 1] - cut_at[a];
        if (cols[a].obj) continue;
        Py_ssize_t item = kind == THRESHOLD ? 8 : 4;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(columns, a), &cols[a], PyBUF_SIMPLE)) goto done;
        if (cols[a].len != n_all * item) {
            PyErr_Format(PyExc_ValueError, "slice_truth: column %lld has %zd bytes, expected %zd", (long long)a,
                         cols[a].len, n_all * item);
            goto done;
        }
    }
    /* a threshold attribute's rows per rank, then its known cases */
    scratch = malloc(((size_t)most_cuts + 1) * (size_t)W * 8 + 8);
    if (!scratch) {
        PyErr_NoMemory();
        goto done;
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    uint64_t *all = rows + everyone * W;
    for (int64_t w = 0; w < W; w++) all[w] = ~0ULL;
    if (n % 64) all[W - 1] = (1ULL << (n % 64)) - 1;
    for (int64_t i = 0; i < n_entries;) {
        /* the run of entries of one attribute and kind */
        int64_t a = e[6 * i], kind = e[6 * i + 1], end = i + 1;
        while (end < n_entries && e[6 * end] == a && e[6 * end + 1] == kind) end++;
        if (kind == THRESHOLD) {
            const double *x = (const double *)cols[a].buf + lo, *c = cuts + cut_at[a];
            int64_t nc = cut_at[a + 1] - cut_at[a];
            uint64_t *known = scratch + nc * W;
            memset(scratch, 0, (size_t)(nc + 1) * (size_t)W * 8);
            for (int64_t j = 0; j < n; j++) {
                double value = x[j];
                if (isnan(value)) continue;
                uint64_t bit = 1ULL << (j & 63);
                known[j >> 6] |= bit;
                /* rank: the cuts below the value; the case is at most every cut from it on.
                   Without branches (a value's side of a cut is data) */
                const double *base = c;
                int64_t len = nc;
                while (len > 1) {
                    int64_t half = len >> 1;
                    base = base[half - 1] < value ? base + half : base;
                    len -= half;
                }
                int64_t l = (base - c) + (*base < value);
                if (l < nc) scratch[l * W + (j >> 6)] |= bit;
            }
            for (int64_t r = 1; r < nc; r++)
                for (int64_t w = 0; w < W; w++) scratch[r * W + w] |= scratch[(r - 1) * W + w];
            for (int64_t k = i; k < end; k++) {
                const uint64_t *at_most = scratch + e[6 * k + 3] * W;
                uint64_t *row = rows + e[6 * k + 5] * W;
                if (e[6 * k + 2] == 0) memcpy(row, at_most, (size_t)W * 8);
                else for (int64_t w = 0; w < W; w++) row[w] = ~at_most[w] & known[w];
            }
        } else {
            const int32_t *x = (const int32_t *)cols[a].buf + lo;
            for (int64_t k = i; k < end; k++) memset(rows + e[6 * k + 5] * W, 0, (size_t)W * 8);
            /* discrete: one sweep of the column, each case's value to its row (value_of: the
               first entry of each value, -1 none; an entry repeating a value copies its row) */
            int64_t top = -1;
            for (int64_t k = i; kind == DISCRETE && k < end; k++) if (e[6 * k + 3] > top) top = e[6 * k + 3];
            int64_t *value_of = kind == DISCRETE ? malloc((size_t)(top + 1) * 8 + 8) : NULL;
            if (value_of) {
                for (int64_t t = 0; t <= top; t++) value_of[t] = -1;
                for (int64_t k = i; k < end; k++)
                    if (e[6 * k + 3] >= 0 && value_of[e[6 * k + 3]] < 0) value_of[e[6 * k + 3]] = e[6 * k + 5];
                for (int64_t j = 0; j < n; j++)
                    if (x[j] >= 0 && x[j] <= top && value_of[x[j]] >= 0)
                        rows[value_of[x[j]] * W + (j >> 6)] |= 1ULL << (j & 63);
                for (int64_t k = i; k < end; k++)
                    if (e[6 * k + 3] >= 0 && value_of[e[6 * k + 3]] != e[6 * k + 5])
                        memcpy(rows + e[6 * k + 5] * W, rows + value_of[e[6 * k + 3]] * W, (size_t)W * 8);
                free(value_of);
            } else if (kind == DISCRETE) {
                failed = 1;
            }
            for (int64_t k = i; kind == SUBSET && k < end; k++) {
                uint64_t *row = rows + e[6 * k + 5] * W;
                const uint8_t *mask = masks + e[6 * k + 3];
                int64_t len = e[6 * k + 4];
                for (int64_t j = 0; j < n; j++)
                    if (x[j] >= 0 && x[j] < len && mask[x[j]]) row[j >> 6] |= 1ULL << (j & 63);
            }
        }
        i = end;
    }
    Py_END_ALLOW_THREADS
    if (failed) PyErr_NoMemory();
    else out = Py_NewRef(Py_None);
done:
    free(scratch);
    if (cols) {
        release_views(cols, n_attr);
        free(cols);
    }
    release_views(v, 5);
    return out;
}

static PyMethodDef methods[] = {
    {"generalise", py_generalise, METH_VARARGS, generalise_doc},
    {"pessimistic_pair", py_pessimistic_pair, METH_VARARGS, pessimistic_pair_doc},
    {"use_popcnt", py_use_popcnt, METH_O, use_popcnt_doc},
    {"leaf_order", py_leaf_order, METH_VARARGS, leaf_order_doc},
    {"threshold_rows", py_threshold_rows, METH_VARARGS, threshold_rows_doc},
    {"known_by_value", py_known_by_value, METH_VARARGS, known_by_value_doc},
    {"truth_rows", py_truth_rows, METH_VARARGS, truth_rows_doc},
    {"weight_grains", py_weight_grains, METH_VARARGS, weight_grains_doc},
    {"weight_sums", py_weight_sums, METH_VARARGS, weight_sums_doc},
    {"pool_tables", py_pool_tables, METH_VARARGS, pool_tables_doc},
    {"round_tables", py_round_tables, METH_VARARGS, round_tables_doc},
    {"path_tables", py_path_tables, METH_VARARGS, path_tables_doc},
    {"path_fire_lists", py_path_fire_lists, METH_VARARGS, path_fire_lists_doc},
    {"fire_lists", py_fire_lists, METH_VARARGS, fire_lists_doc},
    {"group_lists", py_group_lists, METH_VARARGS, group_lists_doc},
    {"value_rows", py_value_rows, METH_VARARGS, value_rows_doc},
    {"slice_truth", py_slice_truth, METH_VARARGS, slice_truth_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_generalize", "Rule generalisation, compiled (see generalize.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__generalize(void) {
    if (PyType_Ready(&PagesType)) return NULL;
#ifdef POPCNT_DISPATCH
    __builtin_cpu_init();
    has_popcnt = __builtin_cpu_supports("popcnt") != 0;
#endif
    PyObject *m = PyModule_Create(&module);
    /* the deepest leaf path generalise takes (generalize.py falls back to numpy past it) */
    if (m && PyModule_AddIntConstant(m, "MAX_DEPTH", MAX_DEPTH)) Py_CLEAR(m);
    /* the most cases whose ranks generalise reads as 3 bytes (generalize.py narrow_ranks) */
    if (m && PyModule_AddIntConstant(m, "THREE_BYTE_RANKS", THREE_BYTE_RANKS)) Py_CLEAR(m);
    return m;
}
