/* The two searches of regression rules (rules/regression.py simplify and select_rules), compiled,
 * and the walk of the model tree (scope) that gives simplify the only cases it needs to read.
 *
 * Both are loops of small numpy steps, run once per leaf (simplify) or once per dropped rule
 * (select_rules): on diamonds (4.5k leaves) the calls, not the work, took most of the fit's
 * 30 s (issue 54). A leaf's search over every training case made a fit's cost grow with the
 * square of its size (a leaf per few cases); scope lists the cases that may fail at most one
 * of the rule's tests, the others being no part of any sum. These are the same steps on the same doubles, so a
 * model learnt with or without this module is the same to the last bit:
 *   - every sum of absolute errors is numpy's own pairwise summation (pairwise_sum below,
 *     numpy's algorithm for a contiguous float64 array: 8 accumulators in blocks of at most
 *     128, halves at multiples of 8 above), added to 0.0 as numpy's reduction does;
 *   - the values summed are gathered in case order, as numpy's fancy indexing gathers them;
 *   - every other operation is one IEEE operation in the order the Python expression makes it.
 * Built with -ffp-contract=off: no fused multiply-add may change a rounding.
 * regression.py falls back to its numpy steps when this module is missing, and the tests check
 * both give the same rules.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_pairwise.h"

/* numpy's float(np.sum(a)) for a contiguous float64 array a of n values */
static double np_sum(const double *a, Py_ssize_t n) { return 0.0 + pairwise_sum(a, n); }

/* Quinlan's estimate as model_tree.estimated_error computes it (int n; v a float where the
 * rule's conditions count beside its model's parameters: Python's int + float, the int made a
 * double, exact for any count) */
static double m5_estimate(double error, Py_ssize_t n, double v) {
    return (double)n > v ? error * ((double)n + v) / ((double)n - v) : INFINITY;
}

/* a rule's estimate with `tests` conditions left, each counted as `per_test` parameters beside
 * its model's v (regression.py step 2) */
static double estimate_with(double error, Py_ssize_t n, Py_ssize_t v, double per_test, int tests) {
    return m5_estimate(error, n, (double)v + per_test * tests);
}

/* ---- simplify -------------------------------------------------------------------------- */
typedef struct {
    Py_ssize_t n;            /* cases searched: rows[0..n) */
    Py_ssize_t stride;       /* all training cases: the length of one column */
    const int64_t *rows;     /* the searched cases' numbers, ascending */
    const double *cont;      /* continuous columns, one after another (column-major), NaN unknown */
    const int32_t *disc;     /* discrete codes, column-major, -1 unknown */
    const int8_t *kind;      /* per test: 0 "<=", 1 ">", 2 "in" */
    const int32_t *col;      /* per test: its column in cont or disc */
    const double *thr;       /* per test: the threshold ("<=", ">") */
    const int64_t *lut_at;   /* per test: where its value table starts in lut ("in") */
    const uint8_t *lut;      /* value tables: lut[lut_at[t] + code] is 1 when code is in the set */
} Tests;

/* a growable list of case numbers */
typedef struct {
    int32_t *at;
    Py_ssize_t n, cap;
} Cases;

static int push(Cases *c, int32_t r) {
    if (c->n == c->cap) {
        Py_ssize_t cap = c->cap ? 2 * c->cap : 16;
        int32_t *at = realloc(c->at, sizeof(int32_t) * (size_t)cap);
        if (!at) return -1;
        c->at = at;
        c->cap = cap;
    }
    c->at[c->n++] = r;
    return 0;
}

static int by_number(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* fail[i] = 1 when searched case i fails test t: one test over the searched cases at a time,
 * without branches (which case fails is no pattern a branch predictor learns). When every case
 * is searched (rows is 0..n-1) the column is read straight, not through rows. The pragma lets
 * GCC vectorize count_fails' byte loop at -O2 (it does so only for loops whose length it knows);
 * these loops compare and count, no rounding to keep. */
#pragma GCC push_options
#pragma GCC optimize("tree-loop-vectorize", "vect-cost-model=cheap")
static void test_fails(const Tests *T, int t, uint8_t *fail) {
    const Py_ssize_t n = T->n;
    const int64_t *rows = T->rows;
    const int every = n == T->stride;   /* rows ascend within 0..stride-1: all of them is 0..n-1 */
    if (T->kind[t] == 2) {
        const int32_t *c = T->disc + (Py_ssize_t)T->col[t] * T->stride;
        const uint8_t *lut = T->lut + T->lut_at[t];
        if (every) for (Py_ssize_t i = 0; i < n; i++) fail[i] = c[i] < 0 ? 1 : !lut[c[i]];
        else for (Py_ssize_t i = 0; i < n; i++) {
            int32_t code = c[rows[i]];
            fail[i] = code < 0 ? 1 : !lut[code];
        }
        return;
    }
    const double *x = T->cont + (Py_ssize_t)T->col[t] * T->stride, thr = T->thr[t];
    /* an unknown (NaN) passes neither: both comparisons are false */
    if (every) {
        if (T->kind[t] == 0) for (Py_ssize_t i = 0; i < n; i++) fail[i] = !(x[i] <= thr);
        else for (Py_ssize_t i = 0; i < n; i++) fail[i] = !(x[i] > thr);
    } else {
        if (T->kind[t] == 0) for (Py_ssize_t i = 0; i < n; i++) fail[i] = !(x[rows[i]] <= thr);
        else for (Py_ssize_t i = 0; i < n; i++) fail[i] = !(x[rows[i]] > thr);
    }
}

/* nfail[i] += fail[i] and the failed tests' numbers summed modulo 256 (a byte: a case failing
 * one test alone has that test's number, and there are at most 255) */
static void count_fails(Py_ssize_t n, const uint8_t *fail, int t, uint8_t *nfail, uint8_t *sum) {
    const uint8_t tt = (uint8_t)t;
    for (Py_ssize_t i = 0; i < n; i++) {
        nfail[i] += fail[i];
        sum[i] += (uint8_t)(fail[i] * tt);
    }
}
#pragma GCC pop_options

/* Per-case scratch, kept from call to call: a fit calls simplify once per leaf, thousands of
 * times, and fresh pages for each call cost as much as the search (the GIL is held throughout,
 * so no two calls share it) */
static struct {
    Py_ssize_t cap;
    uint8_t *nfail, *fail, *sum;
    double *buf;
} scratch;

static int scratch_for(Py_ssize_t n) {
    if (n <= scratch.cap) return 0;
    free(scratch.nfail); free(scratch.fail); free(scratch.sum); free(scratch.buf);
    scratch.nfail = malloc((size_t)n);
    scratch.fail = malloc((size_t)n);
    scratch.sum = malloc((size_t)n);
    scratch.buf = malloc(sizeof(double) * (size_t)n);
    scratch.cap = n;
    if (scratch.nfail && scratch.fail && scratch.sum && scratch.buf) return 0;
    free(scratch.nfail); free(scratch.fail); free(scratch.sum); free(scratch.buf);
    memset(&scratch, 0, sizeof scratch);
    return -1;
}

/* Step 2 of regression.py: each case's count of failed tests and the sum of their numbers
 * (the one test itself when it fails one); one[t]: the cases failing t alone, summed in case
 * order. Dropping a test reads that test over the searched cases once. The searched cases
 * (`rows`, ascending; y and pred hold their values) are every case that fails at most one
 * test at some round (regression.py's Scope finds them), so the sums are the ones a search
 * of all cases makes: the others can never join a one-list nor the covered cases. */
static PyObject *simplify(PyObject *self, PyObject *args) {
    Py_buffer cont = {0}, disc = {0}, kind = {0}, col = {0}, thr = {0}, lut_at = {0}, lut = {0};
    Py_buffer y = {0}, pred = {0}, covered = {0}, rows = {0};
    Py_ssize_t n, v, stride;
    double per_test = 0.0;
    PyObject *out = NULL;
    uint8_t *nfail = NULL, *fail = NULL, *sum = NULL;
    Cases *one = NULL;
    double *buf = NULL, *add = NULL;
    uint8_t *alive = NULL, *dirty = NULL;
    int nt = 0;
    if (!PyArg_ParseTuple(args, "ny*y*y*y*y*y*y*y*y*y*w*n|d", &stride, &rows, &cont, &disc, &kind, &col, &thr,
                          &lut_at, &lut, &y, &pred, &covered, &v, &per_test))
        return NULL;
    nt = (int)kind.len;
    n = rows.len / (Py_ssize_t)sizeof(int64_t);
    Tests T = {n, stride, rows.buf, cont.buf, disc.buf, kind.buf, col.buf, thr.buf, lut_at.buf, lut.buf};
    const double *yy = y.buf, *pp = pred.buf;
    uint8_t *cov = covered.buf;
    if (scratch_for(n) < 0) goto nomem;
    nfail = scratch.nfail; fail = scratch.fail; sum = scratch.sum; buf = scratch.buf;
    memset(nfail, 0, (size_t)n);
    memset(sum, 0, (size_t)n);
    one = calloc((size_t)nt + 1, sizeof(Cases));
    add = calloc((size_t)nt + 1, sizeof(double));
    alive = malloc((size_t)nt + 1);
    dirty = calloc((size_t)nt + 1, 1);
    if (!nfail || !fail || !sum || !buf || !one || !add || !alive || !dirty) goto nomem;
    /* at most 255 tests a path: a deeper one is counted wrongly, so it is refused */
    if (nt > 255) { PyErr_SetString(PyExc_ValueError, "more than 255 tests"); goto done; }
    for (int t = 0; t < nt; t++) {
        alive[t] = 1;
        test_fails(&T, t, fail);
        count_fails(n, fail, t, nfail, sum);
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (!nfail[r]) buf[m++] = fabs(yy[r] - pp[r]);
        else if (nfail[r] == 1 && push(&one[sum[r]], (int32_t)r) < 0) goto nomem;
    }
    Py_ssize_t covered_n = m;
    double abs_sum = np_sum(buf, m);
    double current = covered_n ? estimate_with(abs_sum / (double)covered_n, covered_n, v, per_test, nt) : INFINITY;
    for (int t = 0; t < nt; t++) dirty[t] = 1;
    out = PyList_New(0);
    if (!out) goto done;
    for (int left = nt; left > 0;) {
        double best = INFINITY, best_add = 0.0;
        int best_i = -1;
        for (int t = 0; t < nt; t++) {
            if (!alive[t]) continue;
            if (dirty[t]) {
                /* the sum numpy makes: the cases' absolute errors gathered in case order */
                Py_ssize_t i = 1;
                while (i < one[t].n && one[t].at[i - 1] < one[t].at[i]) i++;
                if (i < one[t].n) qsort(one[t].at, (size_t)one[t].n, sizeof(int32_t), by_number);
                for (i = 0; i < one[t].n; i++) buf[i] = fabs(yy[one[t].at[i]] - pp[one[t].at[i]]);
                add[t] = np_sum(buf, one[t].n);
                dirty[t] = 0;
            }
            Py_ssize_t k = covered_n + one[t].n;
            if (!k) continue;
            double e = estimate_with((abs_sum + add[t]) / (double)k, k, v, per_test, left - 1);
            if (e < best) { best = e; best_i = t; best_add = add[t]; }
        }
        if (best_i < 0 || best > current) break;
        const int d = best_i;
        alive[d] = 0;
        covered_n += one[d].n;
        test_fails(&T, d, fail);
        for (Py_ssize_t r = 0; r < n; r++) {
            nfail[r] -= fail[r];
            sum[r] -= (uint8_t)(fail[r] * d);
            /* a case now failing one test alone joins that test's list */
            if (fail[r] & (nfail[r] == 1)) {
                if (push(&one[sum[r]], (int32_t)r) < 0) goto nomem;
                dirty[sum[r]] = 1;
            }
        }
        abs_sum += best_add;
        current = best;
        left--;
        PyObject *i = PyLong_FromLong(best_i);
        if (!i || PyList_Append(out, i) < 0) { Py_XDECREF(i); Py_CLEAR(out); goto done; }
        Py_DECREF(i);
    }
    for (Py_ssize_t r = 0; r < n; r++) cov[r] = nfail[r] == 0;
    {
        PyObject *res = Py_BuildValue("(Ondd)", out, covered_n, abs_sum, current);
        Py_DECREF(out);
        out = res;
    }
    goto done;
nomem:
    Py_CLEAR(out);
    PyErr_NoMemory();
done:
    for (int t = 0; one && t < nt; t++) free(one[t].at);
    free(one); free(add); free(alive); free(dirty);
    PyBuffer_Release(&cont); PyBuffer_Release(&disc); PyBuffer_Release(&kind); PyBuffer_Release(&col);
    PyBuffer_Release(&thr); PyBuffer_Release(&lut_at); PyBuffer_Release(&lut); PyBuffer_Release(&y);
    PyBuffer_Release(&pred); PyBuffer_Release(&covered); PyBuffer_Release(&rows);
    return out;
}

/* ---- scope: the cases that may fail at most one test ----------------------------------- */
typedef struct {
    const int32_t *attr;     /* per node: the split's attribute in Columns order; -1 a leaf */
    const double *cut;       /* continuous split: left is <= cut */
    const int32_t *child;    /* per node: left child at 2 i, right at 2 i + 1 */
    const int64_t *set_at;   /* discrete split: where its left set starts in sets (1 = left) */
    const uint8_t *sets;
    const int32_t *leaf;     /* per node: its leaf number, -1 inside */
    const int32_t *sizes;    /* per discrete column: its number of values */
    Py_ssize_t n_cont;
    const Tests *T;
    const uint8_t *alive;    /* per test: still in the rule */
    int nt;
    int16_t *failed_at;      /* per test: the depth whose edge fails it, -1 none */
    int *head, *next;        /* the alive tests of attribute a: head[a], next[head[a]], ... (-1 ends) */
    const int64_t *cat, *at; /* leaf k's cases: cat[at[k]:at[k + 1]], ascending */
    const double *rcont;     /* the cases' continuous values in cat's order, a case's together */
    const int32_t *rdisc;    /* their discrete codes, likewise */
    Py_ssize_t n_disc;
    const uint8_t *mark;     /* cases already searched: not listed again */
    int64_t *out;            /* the cases failing at most one alive test */
    Py_ssize_t found;
} Scope;

/* whether the case at position i of cat fails test t (an unknown value passes no test) */
static int case_fails(const Scope *S, int t, int64_t i) {
    const Tests *T = S->T;
    if (T->kind[t] == 2) {
        int32_t code = S->rdisc[i * S->n_disc + T->col[t]];
        return code < 0 || !T->lut[T->lut_at[t] + code];
    }
    double x = S->rcont[i * S->n_cont + T->col[t]];
    return T->kind[t] == 0 ? !(x <= T->thr[t]) : !(x > T->thr[t]);
}

/* whether every known value on edge (node's split, side) fails test t; an unknown value
 * fails every test, so then every case below the edge does */
static int edge_fails(const Scope *S, int32_t node, int right, int t) {
    const Tests *T = S->T;
    int32_t a = S->attr[node];
    if (a < S->n_cont) {
        if (T->kind[t] == 2 || T->col[t] != a) return 0;
        double c = S->cut[node], thr = T->thr[t];
        /* left: v <= c fails v > thr when c <= thr; right: v > c fails v <= thr when c >= thr */
        return right ? (T->kind[t] == 0 && c >= thr) : (T->kind[t] == 1 && c <= thr);
    }
    int32_t d = a - (int32_t)S->n_cont;
    if (T->kind[t] != 2 || T->col[t] != d) return 0;
    const uint8_t *side = S->sets + S->set_at[node], *want = T->lut + T->lut_at[t];
    for (int32_t code = 0; code < S->sizes[d]; code++)
        if (want[code] && (side[code] != 0) != right) return 0;
    return 1;
}

static void scope_walk(Scope *S, int32_t node, int depth, int nfailed) {
    if (S->attr[node] < 0) {
        int32_t k = S->leaf[node];
        for (int64_t i = S->at[k]; i < S->at[k + 1]; i++) {
            int64_t r = S->cat[i];
            if (S->mark[r]) continue;
            int fails = nfailed;   /* the tests its path fails, then the others one by one */
            for (int t = 0; t < S->nt && fails <= 1; t++)
                if (S->alive[t] && S->failed_at[t] < 0) fails += case_fails(S, t, i);
            if (fails <= 1) S->out[S->found++] = r;
        }
        return;
    }
    const int first = S->head[S->attr[node]];
    for (int right = 0; right < 2; right++) {
        int more = nfailed;
        for (int t = first; t >= 0 && more <= 1; t = S->next[t])
            if (S->failed_at[t] < 0 && edge_fails(S, node, right, t)) {
                S->failed_at[t] = (int16_t)depth;
                more++;
            }
        if (more <= 1) scope_walk(S, S->child[2 * node + right], depth + 1, more);
        for (int t = first; t >= 0; t = S->next[t])
            if (S->failed_at[t] == depth) S->failed_at[t] = -1;
    }
}

/* the cases failing at most one of the alive tests (in leaf order): the walk skips a subtree
 * whose path's splits make two of them fail for every case below, then counts case by case */
static PyObject *scope(PyObject *self, PyObject *args) {
    Py_buffer attr = {0}, cut = {0}, child = {0}, set_at = {0}, sets = {0}, leaf = {0}, sizes = {0};
    Py_buffer kind = {0}, col = {0}, thr = {0}, lut_at = {0}, lut = {0}, alive = {0}, out = {0};
    Py_buffer cat = {0}, at = {0}, rcont = {0}, rdisc = {0}, mark = {0};
    Py_ssize_t n_cont, n_disc;
    PyObject *res = NULL;
    int16_t *failed_at = NULL;
    int *head = NULL, *next = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*ny*y*y*y*ny*y*y*y*y*y*y*w*", &attr, &cut, &child, &set_at,
                          &sets, &leaf, &sizes, &n_cont, &cat, &at, &rcont, &rdisc, &n_disc, &mark, &kind, &col,
                          &thr, &lut_at, &lut, &alive, &out))
        return NULL;
    int nt = (int)kind.len;
    Tests T = {0, 0, NULL, NULL, NULL, kind.buf, col.buf, thr.buf, lut_at.buf, lut.buf};
    const Py_ssize_t n_attr = n_cont + n_disc;
    failed_at = malloc(sizeof(int16_t) * (size_t)(nt ? nt : 1));
    head = malloc(sizeof(int) * (size_t)(n_attr ? n_attr : 1));
    next = malloc(sizeof(int) * (size_t)(nt ? nt : 1));
    if (!failed_at || !head || !next) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t a = 0; a < n_attr; a++) head[a] = -1;
    const uint8_t *live = alive.buf;
    for (int t = nt - 1; t >= 0; t--) {
        failed_at[t] = -1;
        if (!live[t]) continue;
        Py_ssize_t a = T.kind[t] == 2 ? n_cont + T.col[t] : T.col[t];
        next[t] = head[a];
        head[a] = t;
    }
    Scope S = {attr.buf, cut.buf, child.buf, set_at.buf, sets.buf, leaf.buf, sizes.buf, n_cont, &T,
               alive.buf, nt, failed_at, head, next, cat.buf, at.buf, rcont.buf, rdisc.buf, n_disc, mark.buf, out.buf, 0};
    scope_walk(&S, 0, 0, 0);
    res = PyLong_FromSsize_t(S.found);
done:
    free(failed_at); free(head); free(next);
    PyBuffer_Release(&attr); PyBuffer_Release(&cut); PyBuffer_Release(&child); PyBuffer_Release(&set_at);
    PyBuffer_Release(&sets); PyBuffer_Release(&leaf); PyBuffer_Release(&sizes); PyBuffer_Release(&kind);
    PyBuffer_Release(&col); PyBuffer_Release(&thr); PyBuffer_Release(&lut_at); PyBuffer_Release(&lut);
    PyBuffer_Release(&alive); PyBuffer_Release(&out); PyBuffer_Release(&cat); PyBuffer_Release(&at);
    PyBuffer_Release(&rcont); PyBuffer_Release(&rdisc); PyBuffer_Release(&mark);
    return res;
}

/* ---- select_rules ---------------------------------------------------------------------- */
typedef struct {
    Py_ssize_t n;
    const double *y, *deflt, *vals;
    double *pred, *total, *count;
    const int64_t *r_ptr;       /* rule k's cases: cases[r_ptr[k]:r_ptr[k + 1]], ascending */
    const int32_t *cases;
    double *buf_a, *buf_b;
    const double *fac;          /* per rule: its M5 factor (rule_factor) */
    double *ftot, dfac;         /* per case: its covering rules' summed factors; the default's */
    uint8_t *sole;              /* per rule: 1 when it alone covers some case (set by drop_delta) */
} Committee;

/* select_rules' delta(k): the change of the summed weighted absolute error if rule k went */
static double drop_delta(const Committee *C, Py_ssize_t k) {
    Py_ssize_t lo = C->r_ptr[k], m = C->r_ptr[k + 1] - lo;
    const int32_t *r = C->cases + lo;
    const double *val = C->vals + lo;
    uint8_t sole = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        int32_t c = r[i];
        double left = C->count[c] - 1, had = C->count[c];
        sole |= had == 1;
        double now = left > 0 ? (C->total[c] - val[i]) / (left > 1 ? left : 1.0) : C->deflt[c];
        double w_now = left > 0 ? (C->ftot[c] - C->fac[k]) / (left > 1 ? left : 1.0) : C->dfac;
        double w_had = had > 0 ? C->ftot[c] / (had > 1 ? had : 1.0) : C->dfac;
        C->buf_a[i] = fabs(C->y[c] - now) * w_now;
        C->buf_b[i] = fabs(C->y[c] - C->pred[c]) * w_had;
    }
    C->sole[k] = sole;
    return np_sum(C->buf_a, m) - np_sum(C->buf_b, m);
}

static PyObject *select_rules(PyObject *self, PyObject *args) {
    Py_buffer y = {0}, deflt = {0}, pred = {0}, total = {0}, count = {0}, r_ptr = {0}, cases = {0};
    Py_buffer vals = {0}, factors = {0}, c_ptr = {0}, c_rules = {0}, alive_b = {0}, ftot = {0};
    double abs_sum, current, dfac;
    Py_ssize_t max_rules;   /* past the estimate's stop, drop on while more remain; < 0: no bound */
    PyObject *out = NULL;
    double *deltas = NULL, *buf_a = NULL, *buf_b = NULL;
    uint8_t *mark = NULL, *sole = NULL;
    int32_t *touched = NULL;
    Py_buffer kept_b = {0};  /* per rule: 1 when, while the estimate decides, it stays if alone
                                covering a case */
    if (!PyArg_ParseTuple(args, "y*y*w*w*w*y*y*y*y*y*y*w*ddnw*dy*", &y, &deflt, &pred, &total, &count, &r_ptr,
                          &cases, &vals, &factors, &c_ptr, &c_rules, &alive_b, &abs_sum, &current,
                          &max_rules, &ftot, &dfac, &kept_b))
        return NULL;
    const Py_ssize_t n = y.len / (Py_ssize_t)sizeof(double);
    const Py_ssize_t nr = alive_b.len;
    const int64_t *rp = r_ptr.buf, *cp = c_ptr.buf;
    const int32_t *cr = c_rules.buf;
    const double *fac = factors.buf;
    uint8_t *alive = alive_b.buf;
    const uint8_t *covering = kept_b.buf;
    Py_ssize_t widest = 1;
    for (Py_ssize_t k = 0; k < nr; k++)
        if (rp[k + 1] - rp[k] > widest) widest = rp[k + 1] - rp[k];
    deltas = malloc(sizeof(double) * (size_t)(nr ? nr : 1));
    buf_a = malloc(sizeof(double) * (size_t)widest);
    buf_b = malloc(sizeof(double) * (size_t)widest);
    mark = calloc((size_t)(nr ? nr : 1), 1);
    sole = calloc((size_t)(nr ? nr : 1), 1);
    touched = malloc(sizeof(int32_t) * (size_t)(nr ? nr : 1));
    if (!deltas || !buf_a || !buf_b || !mark || !sole || !touched) { PyErr_NoMemory(); goto done; }
    Committee C = {n, y.buf, deflt.buf, vals.buf, pred.buf, total.buf, count.buf, rp, cases.buf, buf_a, buf_b,
                   fac, ftot.buf, dfac, sole};
    Py_ssize_t live = 0;
    for (Py_ssize_t k = 0; k < nr; k++) {
        deltas[k] = drop_delta(&C, k);
        live += alive[k] != 0;
    }
    while (live > 1) {
        /* np.argmin over the live rules' trials: the first least, or the first NaN */
        Py_ssize_t j = -1;
        double best = 0.0;
        /* past max_rules every rule may go (step 6); before, a rule marked in `covering`
           only when each of its cases keeps another rule */
        int guarded = max_rules < 0 || live <= max_rules;
        for (Py_ssize_t k = 0; k < nr; k++) {
            if (!alive[k] || (guarded && covering[k] && sole[k])) continue;
            double t = (abs_sum + deltas[k]) / (double)n;
            if (j < 0 || (!isnan(best) && (isnan(t) || t < best))) { j = k; best = t; }
        }
        if (j < 0 || (!(best <= current) && (max_rules < 0 || live <= max_rules))) break;
        const int32_t *r = C.cases + rp[j];
        const double *val = C.vals + rp[j];
        for (Py_ssize_t i = 0, m = rp[j + 1] - rp[j]; i < m; i++) {
            int32_t c = r[i];
            C.total[c] -= val[i];
            C.count[c] -= 1;
            C.ftot[c] -= fac[j];
            C.pred[c] = C.count[c] > 0 ? C.total[c] / (C.count[c] > 1 ? C.count[c] : 1.0) : C.deflt[c];
        }
        abs_sum += deltas[j];
        current = best;
        alive[j] = 0;
        live--;
        /* only the rules sharing a case with the dropped one have a new delta */
        Py_ssize_t nt = 0;
        for (Py_ssize_t i = 0, m = rp[j + 1] - rp[j]; i < m; i++) {
            int32_t c = r[i];
            for (int64_t p = cp[c]; p < cp[c + 1]; p++) {
                int32_t o = cr[p];
                if (alive[o] && !mark[o]) { mark[o] = 1; touched[nt++] = o; }
            }
        }
        for (Py_ssize_t i = 0; i < nt; i++) {
            deltas[touched[i]] = drop_delta(&C, touched[i]);
            mark[touched[i]] = 0;
        }
    }
    out = Py_BuildValue("(dd)", abs_sum, current);
done:
    free(deltas); free(buf_a); free(buf_b); free(mark); free(sole); free(touched);
    PyBuffer_Release(&y); PyBuffer_Release(&deflt); PyBuffer_Release(&pred); PyBuffer_Release(&total);
    PyBuffer_Release(&count); PyBuffer_Release(&r_ptr); PyBuffer_Release(&cases); PyBuffer_Release(&vals);
    PyBuffer_Release(&factors); PyBuffer_Release(&c_ptr); PyBuffer_Release(&c_rules); PyBuffer_Release(&alive_b);
    PyBuffer_Release(&ftot); PyBuffer_Release(&kept_b);
    return out;
}

static PyMethodDef methods[] = {
    {"simplify", simplify, METH_VARARGS,
     "simplify(n_all, rows, cont, disc, kind, col, thr, lut_at, lut, y, pred, covered_out, v) -> "
     "(dropped tests in order, covered count, summed absolute error, estimate)"},
    {"scope", scope, METH_VARARGS,
     "scope(attr, cut, child, set_at, sets, leaf, sizes, n_cont, cat, at, rcont, rdisc, n_disc, mark, kind, col, "
     "thr, lut_at, lut, alive, out) -> number of unmarked cases written to out"},
    {"select_rules", select_rules, METH_VARARGS,
     "select_rules(y, default, pred, total, count, r_ptr, cases, vals, factors, c_ptr, c_rules, alive, "
     "abs_sum, current, max_rules, factor_total, default_factor, covering) -> (abs_sum, current); alive, pred, total, "
     "count, factor_total updated"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_regress",
                                    "The regression rules' condition and rule searches, compiled.", -1, methods};

PyMODINIT_FUNC PyInit__regress(void) { return PyModule_Create(&module); }
