/* The subset search's greedy hill-climb (select.py _ClassSearch.hill_climb), compiled.
 *
 * A step of the numpy climb is a few dozen small array calls; at 1M cases a class climbs
 * hundreds of thousands of steps, so the calls, not the work, cost the time (issue 6).
 * This is the same state and the same arithmetic in one loop:
 *   - Right/Wrong ("alone") per rule, updated on a toggle only where a case's count of
 *     selected rules crosses 0/1 or 1/2 (the case -> rules index);
 *   - rules grouped into cells by (side, Right + Wrong, Wrong): a cell's exception-bits term
 *     H is one formula, and its best member is its least rank (signed bits, then number);
 *   - the same doubles: the exception bits read the tables select.py passes in (log2 of half
 *     counts), log2 |S| and log2 |S|! come from tables made in Python (CPython's lgamma is
 *     its own), and the subset's theory bits are summed exactly and rounded once.
 * A cell's H is kept until Fires or FP change (many toggles change neither).
 * Built with -ffp-contract=off: no fused multiply-add may change a rounding.
 * select.py falls back to its numpy climb when this module is missing, and the tests check
 * both give the same subsets and costs. case_rules makes the case -> rules index. Both
 * lists, a rule's cases and a case's rules, are packed (_varint.h): at 1M cases they were
 * 400 MB as int32 for the largest class. Both may lie in files instead (Spill), read back a
 * bounded buffer at a time: the memory then held is per rule and per case, not per pair.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "_pages.h"
#include "_pairwise.h"
#include "_varint.h"

typedef __int128 wide;

/* 64 bytes: a large class's first trial makes 180k cells at 1M cases (counts of cases fit 32
 * bits: the compiled climb runs only below 2^31 cases) */
typedef struct {
    double h;                    /* the exception-bits term at Fires = h_fires, FP = h_fp */
    double half_bits;            /* half the best member's signed bits: its key is h + half_bits
                                    (kept here, the scan of every live cell reads no rule arrays) */
    int32_t *heap, heap_n, heap_cap;   /* member ranks, plus stale ones (lazy deletion) */
    int32_t a, w;
    int32_t side, count, best;   /* best: least rank of a member (k when none) */
    int32_t live_at;             /* position in the live list, -1 when empty */
    int32_t h_fires, h_fp;
} Cell;
_Static_assert(sizeof(Cell) == 64, "a cell is one cache line");

/* A case's selected rules: how many, and their numbers xor-ed together, which is the one
 * rule itself when there is one (a 1/2 crossing then needs no walk of the case's rules) */
typedef struct {
    int32_t count;
    uint32_t rules_xor;
} Picks;

/* The spilled lists (select.py _ClassSearch with `spill`): the rules' cases (r_data) and the
 * cases' rules (c_data) lie in files, read with pread into two buffers of `chunk` bytes (a
 * bounded read, not a mapping: mapped pages count in the resident set). A toggle reads its
 * rule's cover in order, a chunk at a time, notes the cases whose count crosses 0/1 or 1/2
 * (Event) and then reads those cases' rules in ascending case order, runs of nearby lists in
 * one read; the start reads every case's rules in order. The state per rule and per case
 * (counts, Picks, offsets) stays in memory. */
#define NO_RULE UINT32_MAX
#define NEAR_WORDS 32768        /* lists this close (64 kB) are read together */

typedef struct {
    uint32_t c, other;           /* the case; the one other selected rule, NO_RULE at a 0/1 crossing */
} Event;

typedef struct {
    int r_fd, c_fd;
    int64_t chunk, r_size, c_words;   /* bytes per buffer; r_data's bytes; c_data's words */
    uint8_t *rbuf;
    uint16_t *cbuf;
    int64_t c_lo, c_hi;          /* cbuf holds c_data's words [c_lo, c_hi) */
    Event *ev;
    int64_t cap_ev;
    int failed;                  /* errno of a failed read, else 0 */
} Spill;

typedef struct {
    /* inputs (borrowed) */
    int64_t k, m, n, n_pos;
    /* rule r's cases packed (_varint.h) at r_data[r_lo[r]:r_hi[r]]; case c's rules as 16-bit
       gaps at c_data[at(c):at(c + 1)], c_ptr holding uint32 offsets, or int64 when wide */
    const int64_t *r_lo, *r_hi;
    const void *c_ptr;
    int c_ptr_wide;
    const uint8_t *r_data;
    const uint16_t *c_data;
    const int32_t *rule_at;        /* [side * k + rank] -> rule */
    const uint8_t *pos;
    const int32_t *counts;         /* per case, the cases it stands for (a group of alike
                                      cases, passes.py); NULL: one each */
    const double *bits, *lg, *tlg, *log_fact, *log2i;
    double log2_n;
    /* state */
    uint8_t *inside;
    Picks *picks;                  /* per case */
    int64_t *alone, *wrong;
    int32_t *rank;                 /* [side * k + rule] */
    int64_t fires, fp, size;
    wide bits_in, *grains;
    int grain_exp;                 /* bits_in is in units of 2^-grain_exp */
    int32_t *cell_of, *cell_at;    /* cell_at: [side * k + rank] -> cell or -1 */
    Cell *cells;
    int32_t n_cells, cap_cells;
    int32_t *free_cells, n_free;   /* emptied cells, off the map, to be used again: a class's
                                      trial met 180k (Right + Wrong, Wrong) pairs at 1M cases,
                                      a few thousand at once */
    int64_t n_mapped;
    int64_t *slot_code;            /* open-addressing map code -> cell */
    int32_t *slot_cell;
    int64_t n_slots;
    int32_t *live, n_live;
    int32_t *touched, n_touched;
    uint8_t *mark;
    int32_t *log;                  /* the rule toggled at each step */
    int64_t log_cap;
    Spill *sp;                     /* the lists in files (NULL: in r_data and c_data) */
} Climb;

static int heap_push(Cell *c, int32_t v) {
    if (c->heap_n == c->heap_cap) {
        int32_t cap = c->heap_cap ? 2 * c->heap_cap : 4;
        int32_t *h = realloc(c->heap, (size_t)cap * sizeof(int32_t));
        if (!h) return -1;
        c->heap = h;
        c->heap_cap = cap;
    }
    int32_t i = c->heap_n++;
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        if (c->heap[p] <= v) break;
        c->heap[i] = c->heap[p];
        i = p;
    }
    c->heap[i] = v;
    return 0;
}

static void heap_pop(Cell *c) {
    int32_t v = c->heap[--c->heap_n], i = 0, n = c->heap_n;
    if (n == 0) return;
    for (;;) {
        int32_t l = 2 * i + 1, s;
        if (l >= n) break;
        s = (l + 1 < n && c->heap[l + 1] < c->heap[l]) ? l + 1 : l;
        if (c->heap[s] >= v) break;
        c->heap[i] = c->heap[s];
        i = s;
    }
    c->heap[i] = v;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int grow_map(Climb *s);

/* Where case c's rules start in c_data. */
static inline int64_t case_at(const Climb *s, int64_t c) {
    return s->c_ptr_wide ? ((const int64_t *)s->c_ptr)[c] : (int64_t)((const uint32_t *)s->c_ptr)[c];
}

/* Make `rank` a cell's best member (k: none). */
static void set_best(const Climb *s, Cell *c, int32_t rank) {
    c->best = rank;
    if (rank < s->k) {
        double b = s->bits[s->rule_at[c->side * s->k + rank]];
        c->half_bits = 0.5 * (c->side ? -b : b);
    }
}

static int64_t cell_code(int64_t a, int64_t w, int side) {
    return (a * (a + 1) / 2 + w) * 2 + side;
}

/* The cell of a code, made (empty) when new; -1 when out of memory. */
static int32_t cell_for(Climb *s, int64_t code, int side, int64_t a, int64_t w) {
    uint64_t mask = (uint64_t)s->n_slots - 1, i = mix((uint64_t)code) & mask;
    while (s->slot_code[i] != -1) {
        if (s->slot_code[i] == code) return s->slot_cell[i];
        i = (i + 1) & mask;
    }
    int32_t id, *heap = NULL, heap_cap = 0;
    if (s->n_free) {
        id = s->free_cells[--s->n_free];
        heap = s->cells[id].heap;          /* its heap's room is kept */
        heap_cap = s->cells[id].heap_cap;
    } else {
        if (s->n_cells == s->cap_cells) {
            int32_t cap = 2 * s->cap_cells;
            /* its own pages: a realloc's copy sat on top of the old block (10 MB at 1M cases) */
            Cell *c = pages_grow(s->cells, (size_t)s->cap_cells * sizeof(Cell), (size_t)cap * sizeof(Cell), 0);
            if (!c) return -1;
            s->cells = c;
            int32_t *f = realloc(s->free_cells, (size_t)cap * sizeof(int32_t));
            if (!f) return -1;
            s->free_cells = f;
            s->cap_cells = cap;
        }
        id = s->n_cells++;
    }
    Cell *c = &s->cells[id];
    memset(c, 0, sizeof(Cell));
    c->heap = heap;
    c->heap_cap = heap_cap;
    c->a = (int32_t)a;
    c->w = (int32_t)w;
    c->side = side;
    c->best = (int32_t)s->k;
    c->live_at = -1;
    c->h_fires = -1;
    s->slot_code[i] = code;
    s->slot_cell[i] = id;
    if (2 * ++s->n_mapped > s->n_slots && grow_map(s)) return -1;
    return id;
}

/* Take an emptied cell off the map (linear probing: the entries after it that may move
 * back into the hole do) and keep it to be used again. */
static void drop_cell(Climb *s, int32_t id) {
    const Cell *c = &s->cells[id];
    int64_t code = cell_code(c->a, c->w, c->side);
    uint64_t mask = (uint64_t)s->n_slots - 1, i = mix((uint64_t)code) & mask;
    while (s->slot_code[i] != code) i = (i + 1) & mask;
    for (uint64_t j = (i + 1) & mask; s->slot_code[j] != -1; j = (j + 1) & mask) {
        uint64_t home = mix((uint64_t)s->slot_code[j]) & mask;
        /* it may fill the hole unless its home lies after the hole, up to it */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->slot_code[i] = s->slot_code[j];
            s->slot_cell[i] = s->slot_cell[j];
            i = j;
        }
    }
    s->slot_code[i] = -1;
    s->n_mapped--;
    s->free_cells[s->n_free++] = id;
}

static int grow_map(Climb *s) {
    int64_t old_n = s->n_slots, *old_code = s->slot_code;
    int32_t *old_cell = s->slot_cell;
    s->n_slots = 2 * old_n;
    s->slot_code = pages_grow(NULL, 0, (size_t)s->n_slots * sizeof(int64_t), 0);
    s->slot_cell = pages_grow(NULL, 0, (size_t)s->n_slots * sizeof(int32_t), 0);
    if (!s->slot_code || !s->slot_cell) return -1;
    memset(s->slot_code, 0xff, (size_t)s->n_slots * sizeof(int64_t));
    uint64_t mask = (uint64_t)s->n_slots - 1;
    for (int64_t j = 0; j < old_n; j++) {
        if (old_code[j] == -1) continue;
        uint64_t i = mix((uint64_t)old_code[j]) & mask;
        while (s->slot_code[i] != -1) i = (i + 1) & mask;
        s->slot_code[i] = old_code[j];
        s->slot_cell[i] = old_cell[j];
    }
    pages_free(old_code, (size_t)old_n * sizeof(int64_t));
    pages_free(old_cell, (size_t)old_n * sizeof(int32_t));
    return 0;
}

/* Put rule r in the cell of its side, Right + Wrong and Wrong (select.py _Cells.move). */
static int place(Climb *s, int32_t r) {
    int side = s->inside[r];
    int64_t a = s->alone[r], w = s->wrong[r], k = s->k;
    int32_t id = cell_for(s, cell_code(a, w, side), side, a, w);
    if (id < 0) return -1;
    int32_t old = s->cell_of[r];
    if (old == id) return 0;
    if (old >= 0) {
        Cell *o = &s->cells[old];
        int32_t at = s->rank[o->side * k + r];
        s->cell_at[o->side * k + at] = -1;
        if (--o->count == 0) {
            /* empty: off the live list and the map, to be used again (cell_for resets it) */
            int32_t last = s->live[--s->n_live];
            s->live[o->live_at] = last;
            s->cells[last].live_at = o->live_at;
            drop_cell(s, old);
        } else if (o->best == at) {
            /* the best left: the least rank still in the cell */
            const int32_t *row = s->cell_at + o->side * k;
            while (row[o->heap[0]] != old) heap_pop(o);
            set_best(s, o, o->heap[0]);
        }
    }
    Cell *c = &s->cells[id];
    int32_t at = s->rank[side * k + r];
    s->cell_of[r] = id;
    s->cell_at[side * k + at] = id;
    if (c->count++ == 0) {
        c->live_at = s->n_live;
        s->live[s->n_live++] = id;
    }
    if (heap_push(c, at)) return -1;
    if (at < c->best) set_best(s, c, at);
    return 0;
}

static void touch(Climb *s, int32_t r) {
    if (!s->mark[r]) {
        s->mark[r] = 1;
        s->touched[s->n_touched++] = r;
    }
}

/* log2(twice / 2), 0 at 0: ExceptionCoder's table, or without one (its 24 bytes a case
 * would grow with the rows of a grouped search) the same double from the same log2. */
static inline double lg_at(const Climb *s, int64_t twice) {
    if (s->lg) return s->lg[twice];
    return twice ? log2((double)twice / 2) : 0.0;
}

/* B(total, e, x), x = twice_x / 2 (coding.py ExceptionCoder.bits_one). */
static double b_bits(const Climb *s, int64_t total, int64_t e, int64_t twice_x) {
    if (twice_x == 0) return e == 0 ? 0.0 : 1e6;
    if (twice_x == 2 * total) return e == total ? 0.0 : 1e6;
    return (double)total * lg_at(s, 2 * total) - (double)e * lg_at(s, twice_x)
           - (double)(total - e) * lg_at(s, 2 * total - twice_x);
}

static double exception_bits(const Climb *s, int64_t f, int64_t fp, int64_t fn) {
    int big = 2 * f > s->n;
    int64_t mean2 = fp + fn;
    double covered = b_bits(s, f, fp, big ? mean2 : 2 * fp);
    double rest = b_bits(s, s->n - f, fn, big ? 2 * fn : mean2);
    return s->log2_n + covered + rest;
}

/* The subset's theory bits before the order credit: the exact sum rounded once. */
static double bits_in(const Climb *s) {
    return ldexp((double)s->bits_in, -s->grain_exp);
}

/* A case's count of selected rules and their xor as rule r joins (adding) or leaves; the
 * crossing: 0 when the case newly fires or stops firing, 1 when r joins the one rule on it or
 * one rule is left on it, more when neither. */
static inline int32_t cross(int32_t *count, uint32_t *rules_xor, int32_t r, int adding) {
    int32_t before = *count;
    *rules_xor ^= (uint32_t)r;
    *count = adding ? before + 1 : before - 1;
    return adding ? before : before - 1;
}

/* Read `size` bytes of file fd from byte `at` into buf; -1 (errno noted in sp) when the read fails. */
static int read_at(Spill *sp, int fd, void *buf, int64_t size, int64_t at) {
    uint8_t *p = buf;
    while (size > 0) {
        ssize_t got = pread(fd, p, (size_t)size, (off_t)at);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            sp->failed = got < 0 ? errno : EIO;
            return -1;
        }
        p += got;
        size -= got;
        at += got;
    }
    return 0;
}

/* c_data from word a of a list ending at word b: the words, *q the end of the whole entries
 * there (b, or short of it when the list is longer than a buffer). Spilled, the buffer is
 * refilled from a when it does not hold them, up to word `want` (>= b: the lists read next)
 * as far as a buffer reaches; NULL when a read failed. */
static const uint16_t *case_words(Climb *s, int64_t a, int64_t b, int64_t want, const uint16_t **q) {
    Spill *sp = s->sp;
    if (!sp) {
        *q = s->c_data + b;
        return s->c_data + a;
    }
    int64_t cap = sp->chunk / 2, reach = a + cap < sp->c_words ? a + cap : sp->c_words;
    if (a < sp->c_lo || (b < reach ? b : reach) > sp->c_hi) {
        int64_t hi = want > b ? want : b;
        hi = hi < reach ? hi : reach;
        if (read_at(sp, sp->c_fd, sp->cbuf, 2 * (hi - a), 2 * a)) return NULL;
        sp->c_lo = a;
        sp->c_hi = hi;
    }
    /* a list cut at the buffer's end: an entry may take 3 words, those of the last 2 are read again */
    *q = sp->cbuf + ((b <= sp->c_hi ? b : sp->c_hi - 2) - sp->c_lo);
    return sp->cbuf + (a - sp->c_lo);
}

/* A 0/1 crossing on case c (rules at c_data from word a to b), `by` cases of it: the rules on it
 * not selected, but r, gain (Right + Wrong, and Wrong when negative) `by`, noted as touched
 * when `note`. -1 when a spilled read failed. */
static int unselected_gain(Climb *s, int64_t a, int64_t b, int64_t want, int32_t r, int64_t by, int negative,
                           int note) {
    uint32_t o = 0;
    while (a < b) {
        const uint16_t *last, *first = case_words(s, a, b, want, &last), *on = first;
        if (!first) return -1;
        while (on < last) {
            o += gap16_next(&on);
            if ((int32_t)o == r || s->inside[o]) continue;
            s->alone[o] += by;
            if (negative) s->wrong[o] += by;
            if (note) touch(s, o);
        }
        a += on - first;
    }
    return 0;
}

/* The one other selected rule o of a 1/2 crossing gains `by`. */
static inline void other_gain(Climb *s, uint32_t o, int64_t by, int negative) {
    s->alone[o] += by;
    if (negative) s->wrong[o] += by;
    touch(s, (int32_t)o);
}

/* Rule r is in the subset now (adding) or out. */
static void toggled(Climb *s, int32_t r, int adding) {
    s->inside[r] = (uint8_t)adding;
    s->size += adding ? 1 : -1;
    s->bits_in += adding ? s->grains[r] : -s->grains[r];
    touch(s, r);
}

static void toggle(Climb *s, int32_t r) {
    int adding = !s->inside[r];
    int64_t step = adding ? -1 : 1;
    const uint8_t *at = s->r_data + s->r_lo[r], *end = s->r_data + s->r_hi[r];
    for (uint32_t c = 0; at < end;) {
        c += varint_next(&at, end);
        Picks *p = &s->picks[c];
        int32_t crossing = cross(&p->count, &p->rules_xor, r, adding);
        if (crossing > 1) continue;
        int negative = !s->pos[c];
        int64_t by = s->counts ? step * s->counts[c] : step;
        if (crossing == 1) {
            /* the one other selected rule: the xor without r */
            other_gain(s, p->rules_xor ^ (adding ? (uint32_t)r : 0), by, negative);
            continue;
        }
        s->fires -= by;
        if (negative) s->fp -= by;
        /* a 0/1 crossing: the rules not selected change */
        int64_t lo = case_at(s, c), hi = case_at(s, c + 1);
        unselected_gain(s, lo, hi, hi, r, by, negative, 1);
    }
    toggled(s, r, adding);
}

/* Where the lists of the 0/1 crossings from event i on end, as far as one read should reach
 * from word a: while the next list lies near and the run fits a buffer. */
static int64_t reach_from(const Climb *s, int64_t i, int64_t n_ev, int64_t a) {
    const Spill *sp = s->sp;
    int64_t want = a;
    for (; i < n_ev; i++) {
        if (sp->ev[i].other != NO_RULE) continue;
        int64_t lo = case_at(s, sp->ev[i].c), hi = case_at(s, sp->ev[i].c + 1);
        if (lo - want > NEAR_WORDS || hi - a > sp->chunk / 2) break;
        want = hi;
    }
    return want;
}

/* toggle over the spilled lists, with the same effects in the same order; -1 when a read failed. */
static int spilled_toggle(Climb *s, int32_t r) {
    Spill *sp = s->sp;
    int adding = !s->inside[r];
    int64_t step = adding ? -1 : 1, pos = s->r_lo[r], end = s->r_hi[r], have = 0;
    uint32_t c = 0;
    while (pos < end || have > 0) {
        int64_t more = sp->chunk - have < end - pos ? sp->chunk - have : end - pos;
        if (more > 0 && read_at(sp, sp->r_fd, sp->rbuf + have, more, pos)) return -1;
        have += more;
        pos += more;
        /* whole numbers only: a cut one (its last byte below 128 still to come) waits */
        int64_t whole = have;
        if (pos < end)
            while (whole > 0 && (sp->rbuf[whole - 1] & 128)) whole--;
        const uint8_t *at = sp->rbuf, *lim = sp->rbuf + whole;
        int64_t n_ev = 0;
        while (at < lim && n_ev < sp->cap_ev) {
            c += varint_next(&at, lim);
            Picks *p = &s->picks[c];
            int32_t crossing = cross(&p->count, &p->rules_xor, r, adding);
            if (crossing > 1) continue;
            sp->ev[n_ev].c = c;
            sp->ev[n_ev++].other = crossing == 1 ? p->rules_xor ^ (adding ? (uint32_t)r : 0) : NO_RULE;
        }
        int64_t used = at - sp->rbuf;
        memmove(sp->rbuf, at, (size_t)(have - used));
        have -= used;
        for (int64_t i = 0; i < n_ev; i++) {
            uint32_t e = sp->ev[i].c;
            int negative = !s->pos[e];
            int64_t by = s->counts ? step * s->counts[e] : step;
            if (sp->ev[i].other != NO_RULE) {
                other_gain(s, sp->ev[i].other, by, negative);
                continue;
            }
            s->fires -= by;
            if (negative) s->fp -= by;
            int64_t lo = case_at(s, e), hi = case_at(s, e + 1);
            int64_t want = lo >= sp->c_lo && hi <= sp->c_hi ? hi : reach_from(s, i, n_ev, lo);
            if (unselected_gain(s, lo, hi, want, r, by, negative, 1)) return -1;
        }
    }
    toggled(s, r, adding);
    return 0;
}

/* The rule to toggle from each side's least key and its rank (k: the side is empty): the
 * larger change of the two sides, the lower number on a tie (select.py best_toggle); -1 when
 * no toggle saves. */
static int32_t pick_toggle(const Climb *s, const double low[2], const int32_t low_rank[2]) {
    double credit[2] = {0.5 * s->log2i[s->size + 1], -0.5 * s->log2i[s->size]};
    int32_t pick = -1;
    double gain = -INFINITY;
    for (int side = 0; side < 2; side++) {
        if (low_rank[side] == s->k) continue;
        int32_t r = s->rule_at[side * s->k + low_rank[side]];
        double change = credit[side] - low[side];
        if (change > gain || (change == gain && r < pick)) {
            pick = r;
            gain = change;
        }
    }
    return gain > 0 ? pick : -1;
}

/* Note the rule toggled at step `steps`; -1 when out of memory. */
static int log_step(Climb *s, int64_t steps, int32_t pick) {
    if (steps == s->log_cap && reserve((void **)&s->log, &s->log_cap, steps + 1, sizeof(int32_t))) return -1;
    s->log[steps] = pick;
    return 0;
}

/* The subset after step best_at (>= 0): the current one with the later toggles undone. */
static void best_subset(const Climb *s, uint8_t *best, int64_t steps, int64_t best_at, int *found) {
    if (best_at < 0) return;
    memcpy(best, s->inside, (size_t)s->k);
    for (int64_t t = steps - 1; t >= best_at; t--) best[s->log[t]] ^= 1;
    *found = 1;
}

/* Climb from s->inside until no toggle saves; best_cost/best keep the least cost seen.
 * Nearly every step lowers the cost: the subset is not copied at each (k bytes a step,
 * 19 GB over a 59k-rule class's trials at 1M cases) but made once at the end, the
 * toggles after the best step undone. */
static int64_t climb(Climb *s, double *best_cost, uint8_t *best, int *found) {
    int64_t steps = 0, k = s->k, best_at = -1;
    for (;;) {
        for (int32_t t = 0; t < s->n_touched; t++) {
            int32_t r = s->touched[t];
            s->mark[r] = 0;
            if (place(s, r)) return -1;
        }
        s->n_touched = 0;
        int64_t fn = s->n_pos - (s->fires - s->fp);
        double subset_exc = exception_bits(s, s->fires, s->fp, fn);
        double rb = bits_in(s) - s->log_fact[s->size];
        double cost = 0.5 * rb + subset_exc;
        if (cost < *best_cost) {
            *best_cost = cost;
            best_at = steps;
        }
        /* each side's least key, ties to the least rank (select.py _Cells.best_rules) */
        double low[2] = {INFINITY, INFINITY};
        int32_t low_rank[2] = {(int32_t)k, (int32_t)k};
        for (int32_t i = 0; i < s->n_live; i++) {
            Cell *c = &s->cells[s->live[i]];
            int side = c->side;
            /* H depends on Fires and FP only (FN follows); about 40% of the toggles change
             * neither (the cases stay covered by other rules) */
            if (c->h_fires != s->fires || c->h_fp != s->fp) {
                int64_t sg = 1 - 2 * side;
                c->h = c->a ? exception_bits(s, s->fires + sg * c->a, s->fp + sg * c->w, fn - sg * (c->a - c->w))
                                  - subset_exc
                            : 0.0;
                c->h_fires = (int32_t)s->fires;
                c->h_fp = (int32_t)s->fp;
            }
            double key = c->h + c->half_bits;
            if (key < low[side] || (key == low[side] && c->best < low_rank[side])) {
                low[side] = key;
                low_rank[side] = c->best;
            }
        }
        int32_t pick = pick_toggle(s, low, low_rank);
        if (pick < 0) break;
        if (log_step(s, steps, pick)) return -1;
        if (!s->sp) toggle(s, pick);
        else if (spilled_toggle(s, pick)) return -1;
        steps++;
    }
    best_subset(s, best, steps, best_at, found);
    return steps;
}

/* The counts of the start (select.py _ClassSearch.start), case by case through the case ->
 * rules index: a rule's Right/Wrong count its cases that no selected rule covers (for a rule
 * not selected) or that it alone covers (selected). Case by case the counts stay in one place
 * and the rules' flags are few (rule by rule, each of a trial's two passes hit the per-case
 * counts all over, 11 trials a class); spilled, the lists are read in order a buffer at a
 * time. -1 when a spilled read failed. */
static int start_counts(Climb *s) {
    for (int64_t c = 0; c < s->m; c++) {
        int64_t lo = case_at(s, c), hi = case_at(s, c + 1);
        int32_t count = 0;
        uint32_t only = 0, o = 0;
        for (int64_t a = lo; a < hi;) {
            const uint16_t *last, *first = case_words(s, a, hi, INT64_MAX, &last), *on = first;
            if (!first) return -1;
            while (on < last) {
                o += gap16_next(&on);
                if (s->inside[o]) {
                    count++;
                    only ^= o;
                }
            }
            a += on - first;
        }
        s->picks[c].count = count;
        s->picks[c].rules_xor = only;
        int64_t by = s->counts ? s->counts[c] : 1, bad = !s->pos[c] ? by : 0;
        if (count == 1) {
            s->alone[only] += by;
            s->wrong[only] += bad;
        }
        if (count > 0) {
            s->fires += by;
            s->fp += bad;
            continue;
        }
        if (unselected_gain(s, lo, hi, INT64_MAX, -1, by, bad != 0, 0)) return -1;
    }
    return 0;
}

/* Per-rule theory bits as whole multiples of one power of two, so that sums are exact. */
static int make_grains(Climb *s) {
    int e = 0;
    for (int64_t r = 0; r < s->k; r++) {
        double b = s->bits[r];
        if (!isfinite(b)) return -1;
        if (b == 0.0) continue;
        int ex;
        double f = frexp(b, &ex);   /* b = f 2^ex, 53 significant bits at most */
        (void)f;
        int need = 53 - ex;         /* fractional bits b can have */
        if (need > e) e = need;
    }
    if (e > 100) return -1;
    double largest = 0.0;
    for (int64_t r = 0; r < s->k; r++) largest = fmax(largest, fabs(s->bits[r]));
    /* the whole subset's sum must fit: k * largest * 2^e < 2^126 */
    if (largest > 0 && log2((double)s->k) + log2(largest) + e > 120) return -1;
    s->grain_exp = e;
    for (int64_t r = 0; r < s->k; r++) {
        double scaled = ldexp(s->bits[r], e);     /* exact: a whole number */
        double hi = floor(scaled / 18446744073709551616.0);
        double lo = scaled - hi * 18446744073709551616.0;
        s->grains[r] = (wide)hi * ((wide)1 << 64) + (wide)(uint64_t)lo;
    }
    return 0;
}

static void release(Climb *s) {
    if (s->cells)
        for (int32_t i = 0; i < s->n_cells; i++) free(s->cells[i].heap);
    pages_free(s->cells, (size_t)s->cap_cells * sizeof(Cell));
    free(s->free_cells);
    pages_free(s->slot_code, (size_t)s->n_slots * sizeof(int64_t));
    pages_free(s->slot_cell, (size_t)s->n_slots * sizeof(int32_t));
    free(s->inside);
    free(s->picks);
    free(s->alone);
    free(s->wrong);
    free(s->rank);
    free(s->grains);
    free(s->cell_of);
    free(s->cell_at);
    free(s->live);
    free(s->touched);
    pages_free(s->log, (size_t)s->log_cap * sizeof(int32_t));
    free(s->mark);
}

static int view_ok(const Py_buffer *b, Py_ssize_t count, Py_ssize_t item, const char *name) {
    if (b->len != count * item) {
        PyErr_Format(PyExc_ValueError, "climb: %s has %zd bytes, expected %zd", name, b->len, count * item);
        return 0;
    }
    return 1;
}

/* Rule lists r_lo/r_hi (k each) inside r_data. */
static int ranges_ok(const int64_t *lo, const int64_t *hi, Py_ssize_t k, Py_ssize_t size, const char *name) {
    for (Py_ssize_t r = 0; r < k; r++)
        if (lo[r] < 0 || lo[r] > hi[r] || hi[r] > size) {
            PyErr_Format(PyExc_ValueError, "climb: %s range %zd lies outside its bytes", name, r);
            return 0;
        }
    return 1;
}

/* Case lists (m of them, c_ptr's offsets) inside c_data's `size` words. */
static int cases_ok(const Climb *s, Py_ssize_t m, Py_ssize_t size) {
    for (Py_ssize_t c = 0; c < m; c++)
        if (case_at(s, c) < 0 || case_at(s, c) > case_at(s, c + 1) || case_at(s, c + 1) > size) {
            PyErr_Format(PyExc_ValueError, "climb: case range %zd lies outside its bytes", c);
            return 0;
        }
    return 1;
}

PyDoc_STRVAR(climb_doc,
"climb(r_lo, r_hi, r_data, c_ptr, c_data, pos, bits, rule_at, inside, lg, tlg, log_fact, log2i,\n"
"      n, n_pos, log2_n, best_cost, counts=None, spill=None) -> (best_cost, best subset as bytes or None, steps)\n\n"
"Hill-climb from `inside` (one byte per rule) as select.py's hill_climb does; the best\n"
"subset is returned only when one costs less than `best_cost`. Rule r's cases are packed\n"
"(_varint.h) at r_data[r_lo[r]:r_hi[r]], case c's rules (16-bit gaps) at c_data[c_ptr[c]:c_ptr[c + 1]]\n"
"(c_ptr: m + 1 offsets, uint32 or int64)\n"
"as case_rules made them (whose check of the cases this trusts); lg and tlg (ExceptionCoder's\n"
"tables) may both be empty: log2 is then computed. `counts` (int32 per case,\n"
"summing to n): each case stands for that many alike cases (a group, passes.py). None when the theory\n"
"bits cannot be summed exactly in 128 bits (the caller then climbs in numpy).\n"
"`spill` = (r_fd, c_fd, r_bytes, c_words, chunk): r_data and c_data (then empty) are those files'\n"
"bytes, read with pread into two buffers of `chunk` bytes (counts then an empty buffer for\n"
"none); the same climb, OSError when a read fails.");

/* (best_cost, best subset as bytes or None, steps), or NULL (out of memory) when steps < 0. */
static PyObject *climb_result(int64_t steps, double best_cost, const uint8_t *best, int64_t k, int found) {
    if (steps < 0) return PyErr_NoMemory();
    if (found) return Py_BuildValue("(dy#L)", best_cost, (const char *)best, (Py_ssize_t)k, (long long)steps);
    return Py_BuildValue("(dOL)", best_cost, Py_None, (long long)steps);
}

/* What both climbs read of their arguments v[0..8] (r_lo, r_hi, r_data, c_ptr, c_data, pos,
 * bits, rule_at, inside) and the log_fact and log2i tables, checked and bound into s, with
 * the arrays of rules and cases every climb keeps; -1 with an exception set (or 1 with none
 * when the theory bits cannot be summed exactly: the caller then returns None). */
static int bind_climb(Climb *s, Py_buffer *v, Py_buffer *log_fact, Py_buffer *log2i) {
    Py_ssize_t k = v[6].len / 8, m = v[5].len;
    /* spilled (s->sp set): the lists' sizes are their files' */
    Py_ssize_t r_size = s->sp ? s->sp->r_size : v[2].len, c_words = s->sp ? s->sp->c_words : v[4].len / 2;
    s->c_ptr_wide = v[3].len == (m + 1) * 8;
    s->c_ptr = v[3].buf;
    if (!(view_ok(&v[0], k, 8, "r_lo") && view_ok(&v[1], k, 8, "r_hi")
          && view_ok(&v[3], m + 1, s->c_ptr_wide ? 8 : 4, "c_ptr")
          && view_ok(&v[7], 2 * k, 4, "rule_at") && view_ok(&v[8], k, 1, "inside")
          && view_ok(log_fact, k + 1, 8, "log_fact") && view_ok(log2i, k + 2, 8, "log2i")
          && ranges_ok(v[0].buf, v[1].buf, k, r_size, "rule")
          && cases_ok(s, m, c_words)))
        return -1;
    s->k = k; s->m = m;
    s->r_lo = v[0].buf; s->r_hi = v[1].buf; s->r_data = v[2].buf; s->c_data = v[4].buf;
    s->pos = v[5].buf; s->bits = v[6].buf; s->rule_at = v[7].buf;
    s->log_fact = log_fact->buf; s->log2i = log2i->buf;
    size_t K = (size_t)k + 1;
    s->inside = malloc(K); s->picks = calloc((size_t)m + 1, sizeof(Picks));
    s->rank = malloc(2 * K * sizeof(int32_t)); s->grains = malloc(K * sizeof(wide));
    s->touched = malloc(K * sizeof(int32_t)); s->mark = calloc(K, 1);
    if (!(s->inside && s->picks && s->rank && s->grains && s->touched && s->mark)) {
        PyErr_NoMemory();
        return -1;
    }
    if (make_grains(s)) return 1;
    const uint8_t *start = v[8].buf;
    for (int64_t r = 0; r < k; r++) {
        s->inside[r] = start[r] != 0;
        s->rank[s->rule_at[r]] = (int32_t)r;
        s->rank[k + s->rule_at[k + r]] = (int32_t)r;
        if (s->inside[r]) {
            s->size++;
            s->bits_in += s->grains[r];
        }
    }
    return 0;
}

static PyObject *py_climb(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[14];
    Py_ssize_t n, n_pos;
    double log2_n, best_cost;
    Spill sp;
    memset(v, 0, sizeof(v));
    memset(&sp, 0, sizeof(sp));
    sp.r_fd = sp.c_fd = -1;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*y*y*nndd|y*(iiLLL)", &v[0], &v[1], &v[2], &v[3], &v[4],
                          &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &n, &n_pos, &log2_n,
                          &best_cost, &v[13], &sp.r_fd, &sp.c_fd, &sp.r_size, &sp.c_words, &sp.chunk))
        return NULL;
    PyObject *out = NULL;
    Climb s;
    memset(&s, 0, sizeof(s));
    uint8_t *best = NULL;
    if (sp.r_fd >= 0) {
        /* spilled: r_data and c_data are the files; two buffers and the events of one */
        if (sp.chunk < 64 || sp.r_size < 0 || sp.c_words < 0 || sp.c_fd < 0) {
            PyErr_SetString(PyExc_ValueError, "climb: a spill needs two files and a chunk of 64 bytes or more");
            goto done;
        }
        sp.chunk &= ~(int64_t)1;
        sp.cap_ev = sp.chunk / (int64_t)sizeof(Event) + 1;
        sp.rbuf = malloc((size_t)sp.chunk);
        sp.cbuf = malloc((size_t)sp.chunk);
        sp.ev = malloc((size_t)sp.cap_ev * sizeof(Event));
        if (!(sp.rbuf && sp.cbuf && sp.ev)) {
            PyErr_NoMemory();
            goto done;
        }
        s.sp = &sp;
    }
    int bound = bind_climb(&s, v, &v[11], &v[12]);
    /* lg and tlg empty: no tables, log2 computed (lg_at) */
    int tables = v[9].len || v[10].len;
    if (bound < 0 || (tables && !(view_ok(&v[9], 2 * n + 1, 8, "lg") && view_ok(&v[10], n + 1, 8, "tlg"))))
        goto done;
    if (v[13].obj && (v[13].len || !s.sp)) {
        /* the cases' counts sum to n (the tables' size), none negative (spilled without
         * counts: an empty buffer) */
        if (!view_ok(&v[13], s.m, 4, "counts")) goto done;
        const int32_t *counts = v[13].buf;
        int64_t total = 0;
        int negative = 0;
        for (int64_t c = 0; c < s.m; c++) {
            negative |= counts[c] < 0;
            total += counts[c];
        }
        if (negative || total != n) {
            PyErr_SetString(PyExc_ValueError, "climb: the counts do not sum to n");
            goto done;
        }
        s.counts = counts;
    }
    if (bound > 0) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    int64_t k = s.k;
    s.n = n; s.n_pos = n_pos; s.log2_n = log2_n;
    s.lg = tables ? v[9].buf : NULL;
    s.tlg = tables ? v[10].buf : NULL;
    size_t K = (size_t)k + 1;
    s.alone = calloc(K, sizeof(int64_t)); s.wrong = calloc(K, sizeof(int64_t));
    s.cell_of = malloc(K * sizeof(int32_t)); s.cell_at = malloc(2 * K * sizeof(int32_t));
    s.live = malloc(K * sizeof(int32_t));
    s.cap_cells = 64; s.cells = pages_grow(NULL, 0, 64 * sizeof(Cell), 0);
    s.free_cells = malloc(64 * sizeof(int32_t));
    s.n_slots = 256;
    s.slot_code = pages_grow(NULL, 0, 256 * sizeof(int64_t), 0);
    s.slot_cell = pages_grow(NULL, 0, 256 * sizeof(int32_t), 0);
    best = malloc(K);
    if (!(s.alone && s.wrong && s.cell_of && s.cell_at && s.live && s.cells && s.free_cells && s.slot_code
          && s.slot_cell && best)) {
        PyErr_NoMemory();
        goto done;
    }
    memset(s.slot_code, 0xff, 256 * sizeof(int64_t));
    int64_t steps;
    int found = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t r = 0; r < k; r++) {
        s.cell_of[r] = -1;
        s.cell_at[r] = s.cell_at[k + r] = -1;
    }
    steps = start_counts(&s) ? -1 : 0;
    for (int64_t r = 0; r < k; r++) s.touched[s.n_touched++] = (int32_t)r;
    if (steps == 0) steps = climb(&s, &best_cost, best, &found);
    Py_END_ALLOW_THREADS
    if (sp.failed) {
        errno = sp.failed;
        PyErr_SetFromErrno(PyExc_OSError);
        goto done;
    }
    out = climb_result(steps, best_cost, best, k, found);
done:
    free(best);
    free(sp.rbuf);
    free(sp.cbuf);
    free(sp.ev);
    release(&s);
    for (int i = 0; i < 14; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
    return out;
}

/* ---- The weighted climb (select.py _WeightedSearch.hill_climb) ---------------------------
 *
 * Every count is a sum of case weights, and the doubles must be today's: numpy added
 * Fires and FP as np.sum over the fired cases in case order (its pairwise sum) and each
 * rule's Right/Wrong as np.bincount does, one case after another in cover order. When
 * every weight is a whole multiple of one power of two and they all sum below 2^53 times
 * it ("exact" weights: whole ones, halves, ...), every such sum is exact in any order, so
 * the counts are updated on a toggle as the unweighted climb updates them. Otherwise a
 * toggle re-adds, in today's order, Fires and FP when the fired cases changed and the
 * Right/Wrong of the rules it touched (the few whose alone cases changed). The keys are
 * kept per rule (fractional sums rarely share a cell): those of rules alone on no case are
 * their half signed bits, found per side from a heap of ranks; the others are scanned,
 * their exception bits computed again only when Fires or FP changed or the rule did. */

/* A case as the weighted climb reads it: its weight, negative for a case not of the class
 * (the sign bit: weights are >= 0), and its selected rules (Picks), in one 16-byte load. */
typedef struct {
    double signed_w;
    int32_t count;
    uint32_t rules_xor;
} WCase;

typedef struct {
    Climb c;                       /* the rules, the index of cases and the theory bits */
    WCase *cases;
    int32_t toggled;               /* the rule the last step toggled (its own sums stay) */
    double total, n_pos, fires, fp;
    int exact, fired_changed;
    double *alone, *wrong, *h, *half_bits;
    uint64_t *h_epoch, epoch;      /* h[r] holds at epoch h_epoch[r] (Fires and FP as then) */
    int32_t *active, *active_at, n_active;   /* the rules alone on some case */
    int32_t *zero[2];              /* per side: a min-heap of the ranks of rules alone on none */
    int64_t n_zero[2];
    double *sum_f, *sum_p;         /* the fired cases' weights, in case order */
    /* fractional weights: each rule's running Right + Wrong and Wrong after every CHECK_EVERY
     * of its cases (rule r's at ck_at[r]..), with the byte and the case they end at, and
     * the least case whose alone-ness changed since its sums were last made (UINT32_MAX: none) */
    int64_t *ck_at;
    double *ck_a, *ck_wr;
    uint32_t *ck_byte, *ck_case, *changed_from;
} WClimb;

#define SIGN_BIT ((uint64_t)1 << 63)

/* A rule's sums are re-added from its last checkpoint before its first changed case: the
 * sums up to there are the same doubles (the same weights added in the same order). */
#define CHECK_EVERY 32

/* Fires and FP as numpy summed them: the weights of the fired (and negative) cases. */
static void fired_sums(WClimb *s) {
    int64_t nf = 0, np_ = 0;
    for (int64_t c = 0; c < s->c.m; c++) {
        const WCase *x = &s->cases[c];
        int fired = x->count > 0;
        double w = fabs(x->signed_w);
        s->sum_f[nf] = w;
        nf += fired;
        s->sum_p[np_] = w;
        np_ += fired & (signbit(x->signed_w) != 0);
    }
    s->fires = pairwise_sum(s->sum_f, nf);
    s->fp = pairwise_sum(s->sum_p, np_);
}

/* Rule r's Right + Wrong and Wrong: the weights of the cases it alone covers (selected) or
 * no selected rule covers (not selected), added in cover order as np.bincount did. With
 * checkpoints (fractional weights), from the last one that precedes every case whose
 * alone-ness changed since the sums were made, the checkpoints after it made again. */
static void rule_sums(WClimb *s, int32_t r) {
    double a = 0.0, wr = 0.0;
    int32_t want = s->c.inside[r];
    const uint8_t *begin = s->c.r_data + s->c.r_lo[r], *at = begin, *end = s->c.r_data + s->c.r_hi[r];
    uint32_t c = 0;
    int64_t next = CHECK_EVERY, ck = 0, ck_end = 0;
    if (s->ck_at) {
        ck = s->ck_at[r];
        ck_end = s->ck_at[r + 1];
        /* the checkpoints end at ascending cases: the last one before the first change */
        int64_t lo = ck, hi = ck_end;
        uint32_t from = s->changed_from[r];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (s->ck_case[mid] < from) lo = mid + 1;
            else hi = mid;
        }
        if (lo > ck) {
            int64_t j = lo - 1;
            a = s->ck_a[j];
            wr = s->ck_wr[j];
            at = begin + s->ck_byte[j];
            c = s->ck_case[j];
            next = (j - ck + 2) * CHECK_EVERY;
            ck = j + 1;
        }
        else next = CHECK_EVERY;
        s->changed_from[r] = UINT32_MAX;
    }
    int64_t seen = next - CHECK_EVERY;
    while (at < end) {
        c += varint_next(&at, end);
        const WCase *x = &s->cases[c];
        /* without a branch (which case is alone is data, the branch mispredicted about half
           the time): a case not taken adds +0.0, which leaves a sum of weights >= 0 as it was */
        uint64_t bits;
        memcpy(&bits, &x->signed_w, 8);
        uint64_t take = (bits & ~SIGN_BIT) & (0 - (uint64_t)(x->count == want));
        uint64_t bad = take & (0 - (bits >> 63));
        double w_take, w_bad;
        memcpy(&w_take, &take, 8);
        memcpy(&w_bad, &bad, 8);
        a += w_take;
        wr += w_bad;
        if (++seen == next && ck < ck_end) {
            s->ck_a[ck] = a;
            s->ck_wr[ck] = wr;
            s->ck_byte[ck] = (uint32_t)(at - begin);
            s->ck_case[ck] = c;
            ck++;
            next += CHECK_EVERY;
        }
    }
    s->alone[r] = a;
    s->wrong[r] = wr;
}

/* Case c's alone-ness changed for rule o: its sums are re-added from before c. */
static inline void w_changed(WClimb *s, uint32_t o, uint32_t c) {
    if (s->changed_from && c < s->changed_from[o]) s->changed_from[o] = c;
}

/* log2(twice / 2), 0 for an empty (or by rounding negative) count (WeightedExceptionCoder._lg). */
static double w_lg(double twice) {
    double half = twice / 2;
    return half > 0 ? log2(half) : 0.0;
}

/* B(total, e, x), x = twice_x / 2: `many` as ExceptionCoder.bits guards it (an x equal to
 * the total counts as all only when positive), else as bits_one. */
static double w_b(double total, double e, double twice_x, int many) {
    double t2 = 2 * total;
    if (twice_x == 0) return e == 0 ? 0.0 : 1e6;
    if (twice_x == t2 && (!many || twice_x > 0)) return e == total ? 0.0 : 1e6;
    return total * w_lg(t2) - e * w_lg(twice_x) - (total - e) * w_lg(t2 - twice_x);
}

static double w_exception_bits(const WClimb *s, double f, double fp, double fn, int many) {
    int big = 2 * f > s->total;
    double mean2 = fp + fn;
    double covered = w_b(f, fp, big ? mean2 : 2 * fp, many);
    double rest = w_b(s->total - f, fn, big ? 2 * fn : mean2, many);
    return s->c.log2_n + covered + rest;
}

static void zero_push(WClimb *s, int side, int32_t rank) {
    int32_t *h = s->zero[side];
    int64_t i = s->n_zero[side]++;
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (h[p] <= rank) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = rank;
}

static void zero_pop(WClimb *s, int side) {
    int32_t *h = s->zero[side];
    int64_t n = --s->n_zero[side], i = 0;
    int32_t v = h[n];
    if (n == 0) return;
    for (;;) {
        int64_t l = 2 * i + 1, c;
        if (l >= n) break;
        c = (l + 1 < n && h[l + 1] < h[l]) ? l + 1 : l;
        if (h[c] >= v) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

/* Each side's heap afresh: the ranks of its rules alone on no case, ascending (a heap). */
static void zero_rebuild(WClimb *s, int side) {
    int64_t k = s->c.k, n = 0;
    for (int64_t at = 0; at < k; at++) {
        int32_t r = s->c.rule_at[side * k + at];
        if (s->c.inside[r] == side && !(s->alone[r] > 0)) s->zero[side][n++] = (int32_t)at;
    }
    s->n_zero[side] = n;
}

/* Rule r after its counts or side changed: active or on its side's heap, h to be computed. */
static void settle(WClimb *s, int32_t r) {
    int side = s->c.inside[r];
    s->half_bits[r] = 0.5 * (side ? -s->c.bits[r] : s->c.bits[r]);
    s->h_epoch[r] = 0;
    if (s->alone[r] > 0) {
        if (s->active_at[r] < 0) {
            s->active_at[r] = s->n_active;
            s->active[s->n_active++] = r;
        }
        return;
    }
    if (s->active_at[r] >= 0) {
        int32_t last = s->active[--s->n_active];
        s->active[s->active_at[r]] = last;
        s->active_at[last] = s->active_at[r];
        s->active_at[r] = -1;
    }
    /* stale entries stay until they reach the top; past 2k the heap is made afresh */
    if (s->n_zero[side] >= 2 * s->c.k) zero_rebuild(s, side);
    else zero_push(s, side, s->c.rank[side * s->c.k + r]);
}

static void w_touch(Climb *c, int32_t r) {
    if (!c->mark[r]) {
        c->mark[r] = 1;
        c->touched[c->n_touched++] = r;
    }
}

/* Add rule r to the subset or take it out (_climb.c toggle, in weights). */
static void w_toggle(WClimb *s, int32_t r) {
    Climb *b = &s->c;
    int adding = !b->inside[r], exact = s->exact;
    const uint8_t *at = b->r_data + b->r_lo[r], *end = b->r_data + b->r_hi[r];
    for (uint32_t c = 0; at < end;) {
        c += varint_next(&at, end);
        WCase *p = &s->cases[c];
        int32_t crossing = cross(&p->count, &p->rules_xor, r, adding);
        if (crossing > 1) continue;
        int negative = signbit(p->signed_w) != 0;
        /* the weight joins (adding) or leaves (removing) Fires; it leaves or joins the
         * alone cases of the other rules touched */
        double wc = adding ? fabs(p->signed_w) : -fabs(p->signed_w);
        if (crossing == 0) {
            s->fired_changed = 1;
            if (exact) {
                s->fires += wc;
                if (negative) s->fp += wc;
            }
        }
        if (crossing == 1) {
            uint32_t o = p->rules_xor ^ (adding ? (uint32_t)r : 0);
            if (exact) {
                s->alone[o] -= wc;
                if (negative) s->wrong[o] -= wc;
            }
            w_changed(s, o, c);
            w_touch(b, (int32_t)o);
            continue;
        }
        const uint16_t *on = b->c_data + case_at(b, c), *last = b->c_data + case_at(b, c + 1);
        for (uint32_t o = 0; on < last;) {
            o += gap16_next(&on);
            if ((int32_t)o == r || b->inside[o]) continue;
            if (exact) {
                s->alone[o] -= wc;
                if (negative) s->wrong[o] -= wc;
            }
            w_changed(s, o, c);
            w_touch(b, (int32_t)o);
        }
    }
    b->inside[r] = (uint8_t)adding;
    b->size += adding ? 1 : -1;
    b->bits_in += adding ? b->grains[r] : -b->grains[r];
    s->toggled = r;
    w_touch(b, r);
}

/* Climb from the start until no toggle saves (climb, in weights). */
static int64_t w_climb(WClimb *s, double *best_cost, uint8_t *best, int *found) {
    Climb *b = &s->c;
    int64_t steps = 0, k = b->k, best_at = -1;
    double keyed_fires = NAN, keyed_fp = NAN;
    for (;;) {
        if (!s->exact && s->fired_changed) fired_sums(s);
        s->fired_changed = 0;
        for (int32_t t = 0; t < b->n_touched; t++) {
            int32_t r = b->touched[t];
            b->mark[r] = 0;
            /* a toggle leaves the rule's own alone cases as they were (the cases no selected
             * rule covered are those it alone covers once selected, and back) */
            if (!s->exact && r != s->toggled) rule_sums(s, r);
            settle(s, r);
        }
        b->n_touched = 0;
        if (!(s->fires == keyed_fires && s->fp == keyed_fp)) {
            s->epoch++;
            keyed_fires = s->fires;
            keyed_fp = s->fp;
        }
        double fires = s->fires, fp = s->fp, fn = s->n_pos - (fires - fp);
        double subset_exc = w_exception_bits(s, fires, fp, fn, 0);
        double cost = 0.5 * (bits_in(b) - b->log_fact[b->size]) + subset_exc;
        if (cost < *best_cost) {
            *best_cost = cost;
            best_at = steps;
        }
        /* each side's least key, ties to the least rank (_WeightedSearch.best_toggle) */
        double low[2] = {INFINITY, INFINITY};
        int32_t low_rank[2] = {(int32_t)k, (int32_t)k};
        for (int32_t i = 0; i < s->n_active; i++) {
            int32_t r = s->active[i];
            int side = b->inside[r];
            if (s->h_epoch[r] != s->epoch) {
                double a = s->alone[r], wr = s->wrong[r];
                s->h[r] = (side ? w_exception_bits(s, fires - a, fp - wr, fn + (a - wr), 1)
                                : w_exception_bits(s, fires + a, fp + wr, fn - (a - wr), 1)) - subset_exc;
                s->h_epoch[r] = s->epoch;
            }
            double key = s->h[r] + s->half_bits[r];
            int32_t rank = b->rank[side * k + r];
            if (key < low[side] || (key == low[side] && rank < low_rank[side])) {
                low[side] = key;
                low_rank[side] = rank;
            }
        }
        for (int side = 0; side < 2; side++) {
            while (s->n_zero[side]) {
                int32_t r = b->rule_at[side * k + s->zero[side][0]];
                if (b->inside[r] == side && !(s->alone[r] > 0)) break;
                zero_pop(s, side);
            }
            if (!s->n_zero[side]) continue;
            int32_t rank = s->zero[side][0];
            double key = 0.0 + s->half_bits[b->rule_at[side * k + rank]];
            if (key < low[side] || (key == low[side] && rank < low_rank[side])) {
                low[side] = key;
                low_rank[side] = rank;
            }
        }
        int32_t pick = pick_toggle(b, low, low_rank);
        if (pick < 0) break;
        if (log_step(b, steps, pick)) return -1;
        w_toggle(s, pick);
        steps++;
    }
    best_subset(b, best, steps, best_at, found);
    return steps;
}

PyDoc_STRVAR(wclimb_doc,
"wclimb(r_lo, r_hi, r_data, c_ptr, c_data, pos, bits, rule_at, inside, weights, log_fact, log2i,\n"
"       total, n_pos, log2_n, exact, best_cost) -> (best_cost, best subset as bytes or None, steps)\n\n"
"climb over weighted cases (select.py _WeightedSearch.hill_climb): the rules' cases packed\n"
"in case order, `weights` one float64 per case, `total` and `n_pos` the summed weights of\n"
"all and of the class's cases, `exact` true when every sum of weights is exact in any order.\n"
"None when the theory bits cannot be summed exactly in 128 bits.");

static PyObject *py_wclimb(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[12];
    double total, n_pos, log2_n, best_cost;
    int exact;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*y*dddpd", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                          &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &total, &n_pos, &log2_n, &exact,
                          &best_cost))
        return NULL;
    PyObject *out = NULL;
    WClimb s;
    memset(&s, 0, sizeof(s));
    uint8_t *best = NULL;
    int bound = bind_climb(&s.c, v, &v[10], &v[11]);
    if (bound < 0 || !view_ok(&v[9], s.c.m, 8, "weights")) goto done;
    if (bound > 0) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    int64_t k = s.c.k, m = s.c.m;
    s.total = total; s.toggled = -1; s.n_pos = n_pos; s.exact = exact;
    s.c.log2_n = log2_n;
    size_t K = (size_t)k + 1;
    s.alone = calloc(K, 8); s.wrong = calloc(K, 8); s.h = calloc(K, 8); s.half_bits = calloc(K, 8);
    s.h_epoch = calloc(K, 8); s.active = malloc(K * 4); s.active_at = malloc(K * 4);
    s.zero[0] = malloc(2 * K * 4); s.zero[1] = malloc(2 * K * 4);
    s.sum_f = malloc(((size_t)m + 1) * 8); s.sum_p = malloc(((size_t)m + 1) * 8);
    s.cases = malloc(((size_t)m + 1) * sizeof(WCase));
    best = malloc(K);
    if (!(s.alone && s.wrong && s.h && s.half_bits && s.h_epoch && s.active && s.active_at && s.zero[0]
          && s.zero[1] && s.sum_f && s.sum_p && s.cases && best)) {
        PyErr_NoMemory();
        goto done;
    }
    if (!exact) {
        /* a checkpoint after every CHECK_EVERY cases of each rule (a number's last byte is < 128) */
        s.ck_at = malloc((K + 1) * 8);
        s.changed_from = calloc(K, 4);
        if (!(s.ck_at && s.changed_from)) {
            PyErr_NoMemory();
            goto done;
        }
        s.ck_at[0] = 0;
        for (int64_t r = 0; r < k; r++) {
            int64_t len = 0;
            for (int64_t b = s.c.r_lo[r]; b < s.c.r_hi[r]; b++) len += s.c.r_data[b] < 128;
            s.ck_at[r + 1] = s.ck_at[r] + len / CHECK_EVERY;
        }
        size_t n_ck = (size_t)s.ck_at[k] + 1;
        s.ck_a = malloc(n_ck * 8); s.ck_wr = malloc(n_ck * 8);
        s.ck_byte = malloc(n_ck * 4); s.ck_case = malloc(n_ck * 4);
        if (!(s.ck_a && s.ck_wr && s.ck_byte && s.ck_case)) {
            PyErr_NoMemory();
            goto done;
        }
    }
    int64_t steps;
    int found = 0;
    Py_BEGIN_ALLOW_THREADS
    /* the counts of the start, from scratch as _WeightedSearch.evaluate makes them */
    const double *w = v[9].buf;
    for (int64_t c = 0; c < m; c++) {
        s.cases[c].signed_w = s.c.pos[c] ? w[c] : -w[c];
        s.cases[c].count = 0;
        s.cases[c].rules_xor = 0;
    }
    for (int64_t r = 0; r < k; r++) {
        if (!s.c.inside[r]) continue;
        const uint8_t *at = s.c.r_data + s.c.r_lo[r], *end = s.c.r_data + s.c.r_hi[r];
        for (uint32_t c = 0; at < end;) {
            c += varint_next(&at, end);
            s.cases[c].count++;
            s.cases[c].rules_xor ^= (uint32_t)r;
        }
    }
    /* exact weights: the counts are made here and then updated; else the first step adds them */
    s.fired_changed = 1;
    if (s.exact) fired_sums(&s);
    for (int64_t r = 0; r < k; r++) {
        if (s.exact) rule_sums(&s, (int32_t)r);
        s.active_at[r] = -1;
        s.c.touched[s.c.n_touched++] = (int32_t)r;
        s.c.mark[r] = 1;
    }
    steps = w_climb(&s, &best_cost, best, &found);
    Py_END_ALLOW_THREADS
    out = climb_result(steps, best_cost, best, k, found);
done:
    free(best);
    free(s.alone); free(s.wrong); free(s.h); free(s.half_bits); free(s.h_epoch); free(s.active);
    free(s.active_at); free(s.zero[0]); free(s.zero[1]); free(s.sum_f); free(s.sum_p); free(s.cases);
    free(s.ck_at); free(s.ck_a); free(s.ck_wr); free(s.ck_byte); free(s.ck_case); free(s.changed_from);
    release(&s.c);
    for (int i = 0; i < 12; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
    return out;
}

static PyObject *py_pairwise_sum(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer v;
    if (PyObject_GetBuffer(arg, &v, PyBUF_SIMPLE)) return NULL;
    double sum = pairwise_sum(v.buf, v.len / 8);
    PyBuffer_Release(&v);
    return PyFloat_FromDouble(sum);
}

PyDoc_STRVAR(case_rules_doc,
"case_rules(r_lo, r_hi, r_data, m, fd=-1, chunk=0) -> (c_ptr, c_data)\n\n"
"The case -> rules index of rules whose cases are packed (_varint.h) at r_data[r_lo[r]:r_hi[r]]:\n"
"case c's rules, ascending, as 16-bit gaps (_varint.h gap16) at c_data[c_ptr[c]:c_ptr[c + 1]]\n"
"(c_data: uint16 as bytes; c_ptr: m + 1 offsets as bytes, uint32 while they fit, else int64:\n"
"4 MB less at 1M cases). ValueError unless every rule's bytes hold ascending cases below m.\n"
"With a file descriptor `fd`, c_data is written there instead (c_data None), a run of cases at\n"
"a time through a buffer of `chunk` bytes (or one case's list, when longer): the index is\n"
"never whole in memory. OSError when the write fails.");

/* Write the index (case_rules) to fd, a run of cases at a time: each rule's cases below the
 * run's end from where its last run stopped (its byte and case: 12 bytes a rule), into a
 * buffer of the run's words. `start`: where each case's list starts (m + 1 words). 0, or
 * errno when a write failed (-1: out of memory). */
static int write_case_rules(const int64_t *r_lo, const int64_t *r_hi, const uint8_t *r_data, int64_t k, int64_t m,
                            const int64_t *start, int fd, int64_t chunk) {
    int64_t cap = chunk / 2 > 3 ? chunk / 2 : 3;
    for (int64_t c = 0; c < m; c++)
        if (start[c + 1] - start[c] > cap) cap = start[c + 1] - start[c];
    uint16_t *buf = malloc((size_t)cap * 2);
    int64_t *pos = malloc((size_t)(m + 1) * 8), *cur = malloc((size_t)(k + 1) * 8);
    uint32_t *at_case = calloc((size_t)k + 1, 4);
    int32_t *last = malloc((size_t)(m + 1) * 4);
    int err = 0;
    if (!(buf && pos && cur && at_case && last)) err = -1;
    for (int64_t c = 0; !err && c <= m; c++) {
        pos[c] = start[c];
        last[c] = -1;
    }
    for (int64_t r = 0; !err && r < k; r++) cur[r] = r_lo[r];
    for (int64_t c0 = 0; !err && c0 < m;) {
        int64_t base = start[c0], c1 = c0 + 1;
        while (c1 < m && start[c1 + 1] - base <= cap) c1++;
        for (int64_t r = 0; r < k; r++) {
            const uint8_t *at = r_data + cur[r], *end = r_data + r_hi[r];
            uint32_t c = at_case[r];
            while (at < end) {
                const uint8_t *next = at;
                uint32_t gap = varint_next(&next, end);
                if ((int64_t)c + gap >= c1) break;
                c += gap;
                at = next;
                pos[c] += gap16_put((uint32_t)(r - (last[c] < 0 ? 0 : last[c])), buf + (pos[c] - base));
                last[c] = (int32_t)r;
            }
            cur[r] = at - r_data;
            at_case[r] = c;
        }
        const uint8_t *out = (const uint8_t *)buf;
        for (int64_t left = 2 * (start[c1] - base); left > 0;) {
            ssize_t put = write(fd, out, (size_t)left);
            if (put < 0 && errno == EINTR) continue;
            if (put <= 0) {
                err = put < 0 ? errno : EIO;
                break;
            }
            out += put;
            left -= put;
        }
        c0 = c1;
    }
    free(buf);
    free(pos);
    free(cur);
    free(at_case);
    free(last);
    return err;
}

static PyObject *py_case_rules(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[3];
    Py_ssize_t m;
    int fd = -1;
    long long chunk = 0;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*y*n|iL", &v[0], &v[1], &v[2], &m, &fd, &chunk)) return NULL;
    PyObject *out = NULL, *ptr_bytes = NULL, *data_bytes = NULL;
    Py_ssize_t k = v[0].len / 8;
    const int64_t *r_lo = v[0].buf, *r_hi = v[1].buf;
    const uint8_t *r_data = v[2].buf;
    int32_t *last = NULL;
    int64_t *fill = NULL;
    if (m < 0 || v[1].len != k * 8 || !ranges_ok(r_lo, r_hi, k, v[2].len, "rule")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "case_rules: array sizes do not agree");
        goto done;
    }
    /* first pass: check every rule's cases and size each case's list (a gap from its
       previous rule there, or the rule itself first) */
    last = malloc((size_t)(m + 1) * 4);
    fill = calloc((size_t)m + 1, 8);
    if (!last || !fill) {
        PyErr_NoMemory();
        goto done;
    }
    memset(last, 0xff, (size_t)(m + 1) * 4);
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < k && !bad; r++) {
        const uint8_t *at = r_data + r_lo[r], *end = r_data + r_hi[r];
        int64_t c = 0;
        for (int first = 1; at < end; first = 0) {
            /* a number's bytes must end inside the rule's */
            const uint8_t *q = at;
            while (q < end && (*q & 128)) q++;
            if (q == end || q - at > 4) { bad = 1; break; }
            uint32_t gap = varint_next(&at, end);
            c += gap;
            if ((!first && gap == 0) || c >= m) { bad = 1; break; }
            if (k < 0xFFFF) {
                fill[c + 1]++;      /* no gap can reach 0xFFFF: one word a rule */
            } else {
                fill[c + 1] += gap16_size((uint32_t)(r - (last[c] < 0 ? 0 : last[c])));
                last[c] = (int32_t)r;
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "case_rules: a rule's packed cases are not ascending cases below m");
        goto done;
    }
    for (Py_ssize_t c = 0; c < m; c++) fill[c + 1] += fill[c];
    if (fill[m] <= (int64_t)UINT32_MAX) {
        if ((ptr_bytes = PyBytes_FromStringAndSize(NULL, (m + 1) * 4))) {
            uint32_t *narrow = (uint32_t *)PyBytes_AS_STRING(ptr_bytes);
            for (Py_ssize_t c = 0; c <= m; c++) narrow[c] = (uint32_t)fill[c];
        }
    } else {
        ptr_bytes = PyBytes_FromStringAndSize((const char *)fill, (m + 1) * 8);
    }
    if (ptr_bytes && fd >= 0) {
        int err;
        Py_BEGIN_ALLOW_THREADS
        err = write_case_rules(r_lo, r_hi, r_data, k, m, fill, fd, chunk);
        Py_END_ALLOW_THREADS
        if (err < 0) {
            PyErr_NoMemory();
        } else if (err > 0) {
            errno = err;
            PyErr_SetFromErrno(PyExc_OSError);
        } else {
            out = PyTuple_Pack(2, ptr_bytes, Py_None);
        }
        goto done;
    }
    data_bytes = PyBytes_FromStringAndSize(NULL, fill[m] * 2);
    if (!ptr_bytes || !data_bytes) goto done;
    uint16_t *c_data = (uint16_t *)PyBytes_AS_STRING(data_bytes);
    Py_BEGIN_ALLOW_THREADS
    memset(last, 0xff, (size_t)(m + 1) * 4);
    /* rule by rule: each case's list fills in ascending rule order */
    for (Py_ssize_t r = 0; r < k; r++) {
        const uint8_t *at = r_data + r_lo[r], *end = r_data + r_hi[r];
        for (uint32_t c = 0; at < end;) {
            c += varint_next(&at, end);
            fill[c] += gap16_put((uint32_t)(r - (last[c] < 0 ? 0 : last[c])), c_data + fill[c]);
            last[c] = (int32_t)r;
        }
    }
    Py_END_ALLOW_THREADS
    out = PyTuple_Pack(2, ptr_bytes, data_bytes);
done:
    Py_XDECREF(ptr_bytes);
    Py_XDECREF(data_bytes);
    free(last);
    free(fill);
    for (int i = 0; i < 3; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
    return out;
}

PyDoc_STRVAR(in_case_order_doc,
"in_case_order(r_lo, r_hi, r_data, labels, n) -> (lo, hi, data, kept)\n\n"
"Rules' packed cases (_varint.h) at r_data[r_lo[r]:r_hi[r]], number i standing for case labels[i]\n"
"(int32, below n; labels empty: number i is case i), packed again as the weighted climb reads them:\n"
"each rule's cases ascending and numbered by their place among the cases some rule covers, kept\n"
"(int32 as bytes: those cases, ascending). lo, hi: int64 offsets into data, as bytes.\n"
"ValueError unless every rule's bytes hold ascending numbers below len(labels) (or n).");

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The weighted climb adds a rule's weights in case order and Fires over the fired cases in
 * case order: any numbering that keeps the cases' order keeps every sum. Numbering only the
 * covered cases leaves out of each step's Fires the cases no rule of the class can fire. */
static PyObject *py_in_case_order(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[4];
    Py_ssize_t n;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*y*y*n", &v[0], &v[1], &v[2], &v[3], &n)) return NULL;
    PyObject *out = NULL, *lo_b = NULL, *hi_b = NULL, *data_b = NULL, *kept_b = NULL;
    Py_ssize_t k = v[0].len / 8, n_labels = v[3].len / 4;
    const int64_t *r_lo = v[0].buf, *r_hi = v[1].buf;
    const uint8_t *r_data = v[2].buf;
    const int32_t *labels = n_labels ? v[3].buf : NULL;
    int32_t *number = NULL;
    uint32_t *tmp = NULL;
    uint8_t *packed = NULL;
    int64_t most = 0, pairs = 0, bad = 0;
    if (n < 0 || v[1].len != k * 8 || !ranges_ok(r_lo, r_hi, k, v[2].len, "rule")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "in_case_order: array sizes do not agree");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_labels; i++)
        if (labels[i] < 0 || labels[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "in_case_order: a label lies outside 0..n-1");
            goto done;
        }
    number = calloc((size_t)n + 1, 4);
    if (!number) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    /* first pass: mark the covered cases (number[case] = 1) and find the longest cover */
    int64_t limit = labels ? n_labels : n;
    for (Py_ssize_t r = 0; r < k && !bad; r++) {
        const uint8_t *at = r_data + r_lo[r], *end = r_data + r_hi[r];
        int64_t c = 0, len = 0;
        for (int first = 1; at < end; first = 0, len++) {
            const uint8_t *q = at;
            while (q < end && (*q & 128)) q++;
            if (q == end || q - at > 4) { bad = 1; break; }
            uint32_t gap = varint_next(&at, end);
            c += gap;
            if ((!first && gap == 0) || c >= limit) { bad = 1; break; }
            number[labels ? labels[c] : c] = 1;
        }
        pairs += len;
        if (len > most) most = len;
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "in_case_order: a rule's packed numbers are not ascending and in range");
        goto done;
    }
    int64_t m = 0;
    for (Py_ssize_t c = 0; c < n; c++) m += number[c];
    kept_b = PyBytes_FromStringAndSize(NULL, m * 4);
    lo_b = PyBytes_FromStringAndSize(NULL, k * 8);
    hi_b = PyBytes_FromStringAndSize(NULL, k * 8);
    tmp = malloc(((size_t)most + 1) * 4);
    packed = malloc((size_t)pairs * 5 + 1);
    if (!kept_b || !lo_b || !hi_b || !tmp || !packed) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int32_t *kept = (int32_t *)PyBytes_AS_STRING(kept_b);
    int64_t *lo = (int64_t *)PyBytes_AS_STRING(lo_b), *hi = (int64_t *)PyBytes_AS_STRING(hi_b);
    int64_t size = 0;
    Py_BEGIN_ALLOW_THREADS
    /* each covered case's place among them, ascending */
    int64_t at_m = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        if (!number[c]) continue;
        kept[at_m] = (int32_t)c;
        number[c] = (int32_t)at_m++;
    }
    for (Py_ssize_t r = 0; r < k; r++) {
        const uint8_t *at = r_data + r_lo[r], *end = r_data + r_hi[r];
        int64_t len = 0;
        for (uint32_t c = 0; at < end;) {
            c += varint_next(&at, end);
            tmp[len++] = (uint32_t)number[labels ? labels[c] : (int32_t)c];
        }
        /* the labels put a rule's cases out of order; numbered as cases they are in order */
        if (labels) qsort(tmp, (size_t)len, 4, compare_u32);
        lo[r] = size;
        size += varint_pack((const int32_t *)tmp, len, packed + size);
        hi[r] = size;
    }
    Py_END_ALLOW_THREADS
    data_b = PyBytes_FromStringAndSize((const char *)packed, size);
    if (!data_b) goto done;
    out = PyTuple_Pack(4, lo_b, hi_b, data_b, kept_b);
done:
    Py_XDECREF(lo_b);
    Py_XDECREF(hi_b);
    Py_XDECREF(data_b);
    Py_XDECREF(kept_b);
    free(number);
    free(tmp);
    free(packed);
    for (int i = 0; i < 4; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
    return out;
}

PyDoc_STRVAR(group_covers_doc,
"group_covers(key_at, keys, k) -> (r_lo, r_hi, r_data, r_count)\n\n"
"Per rule, the groups it fires on, from a firing table's lists (passes.py _Lists.merged): group\n"
"g's list keys[key_at[g]:key_at[g + 1]] (int32; key_at int64) is its label and then its firing\n"
"rules, ascending, below k. Rule r's groups, ascending, packed (_varint.h) at r_data[r_lo[r]:r_hi[r]]\n"
"(r_lo, r_hi: k int64 offsets as bytes; r_data: bytes; r_count: k int64, its groups), the rules\n"
"one after another: the covers as the subset search reads them, made without a (rule, group)\n"
"pair array. `packed` (default 0): the lists as fire_lists packs them (key_at in int32 words).\n"
"ValueError unless each list's rules ascend below k.");

/* Group g's rules: in place (plain lists), or decoded into `scratch` (room for k) from its
 * packed words (fire_lists' packing: class + 1, first rule + 1, gaps, zero padding); their
 * number, or -1 when the list is not a label and ascending rules below k. */
static int64_t group_rules(const int64_t *key_at, const void *keys, int packed, int64_t g, int64_t k,
                           int32_t *scratch, const int32_t **rules) {
    if (key_at[g + 1] <= key_at[g]) return -1;
    if (!packed) {
        const int32_t *list = (const int32_t *)keys + key_at[g];
        int64_t m = key_at[g + 1] - key_at[g] - 1;
        for (int64_t i = 0; i < m; i++)
            if (list[i + 1] < 0 || list[i + 1] >= k || (i && list[i + 1] <= list[i])) return -1;
        *rules = list + 1;
        return m;
    }
    const uint8_t *p = (const uint8_t *)keys + key_at[g] * 4, *end = (const uint8_t *)keys + key_at[g + 1] * 4;
    if (!*p || (varint_next(&p, end), p > end)) return -1;
    int64_t m = 0, r = -1;
    while (p < end && *p) {
        uint32_t gap = varint_next(&p, end);
        r += gap;
        if (p > end || gap == 0 || r >= k || m >= k) return -1;
        scratch[m++] = (int32_t)r;
    }
    *rules = scratch;
    return m;
}

static PyObject *py_group_covers(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[2];
    Py_ssize_t k;
    int packed = 0;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*n|p", &v[0], &v[1], &k, &packed)) return NULL;
    PyObject *out = NULL, *lo_b = NULL, *hi_b = NULL, *data_b = NULL, *count_b = NULL;
    int64_t g_n = v[0].len / 8 - 1, n_keys = v[1].len / 4;
    const int64_t *key_at = v[0].buf;
    const void *keys = v[1].buf;
    const int32_t *rules;
    int64_t *last = NULL;
    int32_t *scratch = malloc(((size_t)(k > 0 ? k : 0) + 1) * 4);
    if (!scratch) {
        PyErr_NoMemory();
        goto done;
    }
    int bad = k < 0 || g_n < 0 || v[0].len % 8 || key_at[0] != 0 || key_at[g_n] != n_keys;
    for (int64_t g = 0; g < g_n && !bad; g++) bad = group_rules(key_at, keys, packed, g, k, scratch, &rules) < 0;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "group_covers: the lists are not a label and ascending rules below k");
        goto done;
    }
    lo_b = PyBytes_FromStringAndSize(NULL, k * 8);
    hi_b = PyBytes_FromStringAndSize(NULL, k * 8);
    count_b = PyBytes_FromStringAndSize(NULL, k * 8);
    last = malloc(((size_t)k + 1) * 8);
    if (!lo_b || !hi_b || !count_b || !last) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int64_t *lo = (int64_t *)PyBytes_AS_STRING(lo_b), *hi = (int64_t *)PyBytes_AS_STRING(hi_b), size = 0;
    int64_t *count = (int64_t *)PyBytes_AS_STRING(count_b);
    /* first pass: each rule's bytes (a gap from its previous group, the first group as itself) */
    for (Py_ssize_t r = 0; r < k; r++) {
        hi[r] = 0;
        last[r] = 0;
        count[r] = 0;
    }
    uint8_t put[5];
    for (int64_t g = 0; g < g_n; g++)
        for (int64_t i = 0, m = group_rules(key_at, keys, packed, g, k, scratch, &rules); i < m; i++) {
            int32_t r = rules[i];
            hi[r] += varint_put((uint32_t)(g - last[r]), put);
            last[r] = g;
            count[r]++;
        }
    for (Py_ssize_t r = 0; r < k; r++) {
        lo[r] = size;
        size += hi[r];
        hi[r] = lo[r];      /* where the next byte goes */
        last[r] = 0;
    }
    data_b = PyBytes_FromStringAndSize(NULL, size);
    if (!data_b) goto done;
    uint8_t *data = (uint8_t *)PyBytes_AS_STRING(data_b);
    for (int64_t g = 0; g < g_n; g++)
        for (int64_t i = 0, m = group_rules(key_at, keys, packed, g, k, scratch, &rules); i < m; i++) {
            int32_t r = rules[i];
            hi[r] += varint_put((uint32_t)(g - last[r]), data + hi[r]);
            last[r] = g;
        }
    out = PyTuple_Pack(4, lo_b, hi_b, data_b, count_b);
done:
    Py_XDECREF(count_b);
    Py_XDECREF(lo_b);
    Py_XDECREF(hi_b);
    Py_XDECREF(data_b);
    free(last);
    free(scratch);
    for (int i = 0; i < 2; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"climb", py_climb, METH_VARARGS, climb_doc},
    {"case_rules", py_case_rules, METH_VARARGS, case_rules_doc},
    {"group_covers", py_group_covers, METH_VARARGS, group_covers_doc},
    {"wclimb", py_wclimb, METH_VARARGS, wclimb_doc},
    {"in_case_order", py_in_case_order, METH_VARARGS, in_case_order_doc},
    {"pairwise_sum", py_pairwise_sum, METH_O, "numpy's np.sum of float64 values (bytes-like): the weighted climb's sum."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_climb", "The subset search's hill-climb, compiled (see select.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__climb(void) { return PyModule_Create(&module); }
