/* The level-wise tree growth's per-case passes (grow.py _Levels), compiled.
 *
 * At a million cases each level of _Levels makes a few dozen numpy passes over every
 * case of every continuous attribute: gathering the sorted values, the gap test, class
 * counts below each candidate cut, two informations per candidate, the stable re-sort
 * into the children's ranges (issue 6). Each of these is one loop here:
 *   - cut_search: the best cut of one attribute at every node of a level (segment_cuts'
 *     scan) over the values and classes kept in sorted order, with the same float and
 *     double roundings; the x log x and log2 values are read from the tables split.py
 *     makes, so no log here can differ from numpy's;
 *   - regroup: the stable counting scatter of one sorted row (and the values and classes
 *     that travel with it) into its nodes' ranges;
 *   - value_tables, value_gains: the (node, value, class) counts of a few discrete
 *     attributes, and their gains and split information (split.discrete_gains);
 *   - argsort: numpy's stable argsort of a float64 column, as a radix sort (the presort).
 * Built with -ffp-contract=off: no fused multiply-add may change a rounding.
 * grow.py falls back to numpy when this module is missing, and the tests check both paths
 * grow the same trees.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int view_ok(Py_buffer *b, Py_ssize_t count, Py_ssize_t item, const char *name) {
    if (b->len != count * item) {
        PyErr_Format(PyExc_ValueError, "_grow: %s has %zd bytes, expected %zd", name, b->len, count * item);
        return 0;
    }
    return 1;
}

static void release(Py_buffer *v, int count) {
    for (int i = 0; i < count; i++)
        if (v[i].obj) PyBuffer_Release(&v[i]);
}

/* c4.5 TotalInfo of integer counts: a float running sum of double x log x terms. */
static inline float total_info(const int64_t *x, Py_ssize_t n_classes, int64_t total, const double *xlogx) {
    float s = 0.0f;
    for (Py_ssize_t c = 0; c < n_classes; c++)
        s = (float)((double)s + xlogx[x[c]]);
    return (float)(xlogx[total] - (double)s);
}

PyDoc_STRVAR(cut_search_doc,
"cut_search(values, classes, width, starts, counts, inside, base, xlogx, log2, min_objs, best, at[, table])\n\n"
"For one continuous attribute at every node of a level: `values` (float32) and `classes`\n"
"(`width` bytes: 1 or 4) are the level's cases sorted by (node, value), node s at positions\n"
"starts[s]..starts[s+1]; `counts` (int64, nodes x classes) holds each node's class counts,\n"
"`inside` (one byte per position) where the cut search may cut,\n"
"`base` (float32) each node's information over its known cases. Writes each node's best\n"
"penalised gain (float32, -inf: no candidate) to `best` and the position of the cut's\n"
"lower value (int64, -1) to `at`, as grow.py's segment_cuts scan does. With `table`\n"
"(float32, optional) `values` are uint16 ranks into it instead: value p is table[values[p]]\n"
"(half the memory of float32 rows).");

static PyObject *py_cut_search(PyObject *self, PyObject *args) {
    Py_buffer v[12];
    double min_objs_d;
    Py_ssize_t width;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*ny*y*y*y*y*y*dw*w*|y*", &v[0], &v[2], &width, &v[3], &v[4], &v[5],
                          &v[6], &v[7], &v[8], &min_objs_d, &v[9], &v[10], &v[11]))
        return NULL;
    PyObject *out = NULL;
    const int ranked = v[11].buf != NULL;
    const Py_ssize_t n_table = ranked ? v[11].len / 4 : 0;
    /* the two tables are grown separately: each needs an entry for every node size */
    Py_ssize_t P = v[0].len / (ranked ? 2 : 4), S = v[6].len / 4, T = Py_MIN(v[7].len, v[8].len) / 8;
    Py_ssize_t C = S ? v[4].len / 8 / S : 0;
    if (width != 1 && width != 4) {
        PyErr_SetString(PyExc_ValueError, "cut_search: classes must be 1 or 4 bytes wide");
        goto done;
    }
    if (ranked && !view_ok(&v[11], n_table, 4, "table"))
        goto done;
    if (!(view_ok(&v[0], P, ranked ? 2 : 4, "values") && view_ok(&v[2], P, width, "classes")
          && view_ok(&v[3], S + 1, 8, "starts") && view_ok(&v[4], S * C, 8, "counts")
          && view_ok(&v[5], P, 1, "inside") && view_ok(&v[7], v[7].len / 8, 8, "xlogx")
          && view_ok(&v[8], v[8].len / 8, 8, "log2")
          && view_ok(&v[9], S, 4, "best") && view_ok(&v[10], S, 8, "at")))
        goto done;
    const float *values = v[0].buf, *table = v[11].buf;
    const uint16_t *ranks = v[0].buf;
    const double *xlogx = v[7].buf, *log2t = v[8].buf;
    const int8_t *classes8 = v[2].buf;
    const int32_t *classes32 = v[2].buf;
    const int64_t *starts = v[3].buf, *counts = v[4].buf;
    const uint8_t *inside = v[5].buf;
    const float *base = v[6].buf;
    float *best = v[9].buf;
    int64_t *at = v[10].buf;
    if (S && (starts[0] != 0 || starts[S] != P)) {
        PyErr_SetString(PyExc_ValueError, "cut_search: starts must run from 0 to the number of positions");
        goto done;
    }
    for (Py_ssize_t s = 0; s < S; s++) {
        if (starts[s + 1] < starts[s] || starts[s + 1] - starts[s] >= T) {
            PyErr_SetString(PyExc_ValueError, "cut_search: a node is empty-ordered or larger than the tables");
            goto done;
        }
    }
    for (Py_ssize_t p = 0; ranked && p < P; p++) {
        if (ranks[p] >= n_table) {
            PyErr_SetString(PyExc_ValueError, "cut_search: a rank is beyond the table");
            goto done;
        }
    }
    /* a node's candidates at a time: room for the largest node, not for every position
       (12 MB a call at 1M cases, one call per thread at once with jobs) */
    Py_ssize_t widest = 0;
    for (Py_ssize_t s = 0; s < S; s++) widest = Py_MAX(widest, starts[s + 1] - starts[s]);
    int64_t *low = calloc((size_t)C + 1, sizeof(int64_t)), *high = calloc((size_t)C + 1, sizeof(int64_t));
    float *gains = malloc(((size_t)widest + 1) * sizeof(float));
    int64_t *where = malloc(((size_t)widest + 1) * sizeof(int64_t));
    if (!(low && high && gains && where)) {
        free(low); free(high); free(gains); free(where);
        PyErr_NoMemory();
        goto done;
    }
    /* numpy compares the float32 weights with the Python float min_objs in single precision */
    const float min_objs = (float)min_objs_d, no_gain = (float)-1e-3;
    const double gap = 1e-5;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < S && !bad; s++) {
        int64_t a = starts[s], b = starts[s + 1], size = b - a, tries = 0;
        float known = (float)size, cases = known;
        float unknown_rate = (float)(1.0 - (double)(known / cases));
        memset(low, 0, (size_t)C * sizeof(int64_t));
        /* the candidate between positions p - 1 and p is weighed when p is read: the case at
           p is counted only after it, so `low` holds positions a..p-1 */
        float prev = 0.0f;
        for (int64_t p = a; p < b; p++) {
            int32_t y = width == 1 ? classes8[p] : classes32[p];
            if (y < 0 || y >= C) { bad = 1; break; }
            float value = ranked ? table[ranks[p]] : values[p];
            /* values are floats in c4.5; the 1e-5 gap test is done in double on them */
            if (p > a && inside[p - 1] && (double)prev < (double)value - gap) {
                int64_t below = p - a;
                float lo = (float)below, g;
                if (lo >= min_objs && (known - lo) >= min_objs && known != 0) {
                    for (Py_ssize_t c = 0; c < C; c++) high[c] = counts[s * C + c] - low[c];
                    float this_info = total_info(low, C, below, xlogx) + total_info(high, C, size - below, xlogx);
                    g = (1.0f - unknown_rate) * (base[s] - this_info / known);
                } else {
                    g = no_gain;
                }
                gains[tries] = g;
                where[tries] = p - 1;
                tries++;
            }
            low[y]++;
            prev = value;
        }
        /* the penalty depends on the number of candidates, so the best is chosen after
           the scan; the first (lowest) position reaching the maximum, as c4.5's strict > */
        float cost = (float)(log2t[tries] / (double)cases), top = -INFINITY;
        int64_t top_at = -1;
        for (int64_t i = 0; i < tries; i++) {
            float val = gains[i] - cost;
            if (val > top) { top = val; top_at = where[i]; }
        }
        best[s] = top;
        at[s] = top_at;
    }
    Py_END_ALLOW_THREADS
    free(low); free(high); free(gains); free(where);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "cut_search: a class is out of range");
        goto done;
    }
    out = Py_NewRef(Py_None);
done:
    release(v, 12);
    return out;
}

PyDoc_STRVAR(regroup_doc,
"regroup(row, count, group, starts, *payload) -> size\n\n"
"Stable counting scatter, in place: the first `count` cases of `row` (int32) go to their\n"
"group's range starts[g]..starts[g+1] (g = group[case], int32; cases with g < 0 are\n"
"dropped), keeping their order. Each payload row (as long as `row`, items of 1, 2, 4 or 8\n"
"bytes) is moved the same way. Returns the number of cases kept, starts[-1].");

#define MAX_PAYLOAD 4

/* out[dest[i]] = in[i] for dest[i] >= 0, for one item size */
#define SCATTER(T)                                                          \
    do {                                                                    \
        const T *in = (const T *)from;                                      \
        T *o = (T *)to;                                                     \
        for (Py_ssize_t i = 0; i < count; i++)                              \
            if (dest[i] >= 0) o[dest[i]] = in[i];                           \
    } while (0)

static void scatter(const void *from, void *to, Py_ssize_t item, const int32_t *dest, Py_ssize_t count) {
    if (item == 1) SCATTER(uint8_t);
    else if (item == 2) SCATTER(uint16_t);
    else if (item == 4) SCATTER(uint32_t);
    else SCATTER(uint64_t);
}

static PyObject *py_regroup(PyObject *self, PyObject *args) {
    Py_ssize_t n_args = PyTuple_GET_SIZE(args);
    if (n_args < 4 || n_args > 4 + MAX_PAYLOAD) {
        PyErr_SetString(PyExc_TypeError, "regroup takes row, count, group, starts and up to 4 payload rows");
        return NULL;
    }
    Py_buffer v[3 + MAX_PAYLOAD];
    Py_ssize_t count;
    memset(v, 0, sizeof(v));
    PyObject *head = PyTuple_GetSlice(args, 0, 4);
    if (!head) return NULL;
    int parsed = PyArg_ParseTuple(head, "w*ny*y*", &v[0], &count, &v[1], &v[2]);
    Py_DECREF(head);
    if (!parsed) return NULL;
    PyObject *out = NULL;
    int n_pay = (int)n_args - 4;
    Py_ssize_t len = v[0].len / 4, n = v[1].len / 4, G = v[2].len / 8 - 1;
    Py_ssize_t item[MAX_PAYLOAD];
    for (int k = 0; k < n_pay; k++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(args, 4 + k), &v[3 + k], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        item[k] = len ? v[3 + k].len / len : 1;
        if ((item[k] != 1 && item[k] != 2 && item[k] != 4 && item[k] != 8) || v[3 + k].len != len * item[k]) {
            PyErr_SetString(PyExc_ValueError,
                            "regroup: a payload row must be as long as the row, 1, 2, 4 or 8 bytes an item");
            goto done;
        }
    }
    if (!(view_ok(&v[0], len, 4, "row") && view_ok(&v[1], n, 4, "group") && view_ok(&v[2], G + 1, 8, "starts")))
        goto done;
    int32_t *row = v[0].buf;
    const int32_t *group = v[1].buf;
    const int64_t *starts = v[2].buf;
    if (count < 0 || count > len || G < 0 || starts[0] != 0 || starts[G] > len || starts[G] > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "regroup: count or starts out of the row's (int32) range");
        goto done;
    }
    for (Py_ssize_t g = 0; g < G; g++) {
        if (starts[g + 1] < starts[g]) {
            PyErr_SetString(PyExc_ValueError, "regroup: starts must not decrease");
            goto done;
        }
    }
    /* scratch as wide as the widest item moved (4 bytes for the orders and values, not 8:
       4 MB less a call at 1M cases) */
    Py_ssize_t widest = 4;
    for (int k = 0; k < n_pay; k++) widest = Py_MAX(widest, item[k]);
    int64_t *cursor = malloc(((size_t)G + 1) * sizeof(int64_t));
    int32_t *dest = malloc(((size_t)count + 1) * sizeof(int32_t));
    void *scratch = malloc(((size_t)starts[G] + 1) * (size_t)widest);
    if (!(cursor && dest && scratch)) {
        free(cursor); free(dest); free(scratch);
        PyErr_NoMemory();
        goto done;
    }
    memcpy(cursor, starts, (size_t)G * sizeof(int64_t));
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) {
        int32_t c = row[i];
        if (c < 0 || c >= n) { bad = 1; break; }
        int32_t g = group[c];
        if (g < 0) { dest[i] = -1; continue; }
        if (g >= G || cursor[g] >= starts[g + 1]) { bad = 1; break; }
        dest[i] = (int32_t)cursor[g]++;
    }
    for (Py_ssize_t g = 0; g < G && !bad; g++)
        if (cursor[g] != starts[g + 1]) bad = 1;
    if (!bad) {
        scatter(row, scratch, 4, dest, count);
        memcpy(row, scratch, (size_t)starts[G] * 4);
        for (int k = 0; k < n_pay; k++) {
            scatter(v[3 + k].buf, scratch, item[k], dest, count);
            memcpy(v[3 + k].buf, scratch, (size_t)starts[G] * item[k]);
        }
    }
    Py_END_ALLOW_THREADS
    free(cursor); free(dest); free(scratch);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "regroup: the cases do not fill their groups' ranges exactly");
        goto done;
    }
    out = PyLong_FromSsize_t((Py_ssize_t)starts[G]);
done:
    release(v, 3 + MAX_PAYLOAD);
    return out;
}

PyDoc_STRVAR(value_tables_doc,
"value_tables(codes, width, node, classes, columns, n_nodes, n_values, n_classes, out)\n\n"
"Adds one to out[j, node[i], codes[i, columns[j]] + 1, classes[i]] for every case i and\n"
"column j: the discrete attributes' (node, value, class) counts. `codes` is the (cases x\n"
"discrete attributes) array of the cases' value codes, `width` bytes each (1 or 2);\n"
"node and columns are int64, classes int32, out int64 of shape\n"
"(columns, n_nodes, n_values, n_classes).");

static PyObject *py_value_tables(PyObject *self, PyObject *args) {
    Py_buffer v[5];
    Py_ssize_t width, S, V, C;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*ny*y*y*nnnw*", &v[0], &width, &v[1], &v[2], &v[3], &S, &V, &C, &v[4]))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t m = v[1].len / 8, J = v[3].len / 8;
    if ((width != 1 && width != 2) || S < 0 || V < 0 || C < 0) {
        PyErr_SetString(PyExc_ValueError, "value_tables: codes must be 1 or 2 bytes wide, extents >= 0");
        goto done;
    }
    Py_ssize_t D = m ? v[0].len / width / m : 0;
    if (!(view_ok(&v[0], m * D, width, "codes") && view_ok(&v[1], m, 8, "node") && view_ok(&v[2], m, 4, "classes")
          && view_ok(&v[3], J, 8, "columns") && view_ok(&v[4], J * S * V * C, 8, "out")))
        goto done;
    const int64_t *node = v[1].buf, *columns = v[3].buf;
    const int32_t *classes = v[2].buf;
    int64_t *tables = v[4].buf;
    for (Py_ssize_t j = 0; j < J; j++) {
        if (columns[j] < 0 || columns[j] >= D) {
            PyErr_SetString(PyExc_ValueError, "value_tables: a column is out of range");
            goto done;
        }
    }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m && !bad; i++) {
        if (node[i] < 0 || node[i] >= S || classes[i] < 0 || classes[i] >= C) { bad = 1; break; }
        int64_t cell = node[i] * V;
        int32_t y = classes[i];
        for (Py_ssize_t j = 0; j < J; j++) {
            int64_t code = width == 1 ? ((const int8_t *)v[0].buf)[i * D + columns[j]]
                                      : ((const int16_t *)v[0].buf)[i * D + columns[j]];
            if (code < -1 || code + 1 >= V) { bad = 1; break; }
            tables[((j * S * V) + cell + code + 1) * C + y]++;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "value_tables: a node, class or value code is out of range");
        goto done;
    }
    out = Py_NewRef(Py_None);
done:
    release(v, 5);
    return out;
}

PyDoc_STRVAR(argsort_doc,
"argsort(values, out)\n\n"
"Writes to `out` (int32) the permutation np.argsort(values, kind=\"stable\") gives for\n"
"float64 `values`: ascending, equal values (-0.0 and 0.0 among them) in index order, NaN\n"
"last. A least-significant-digit radix sort of the values' bits.");

#define DIGIT_BITS 11
#define DIGITS ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define BUCKETS (1 << DIGIT_BITS)

/* An unsigned key that orders as the double does: sign bit flipped for positives, every
   bit flipped for negatives; -0.0 as 0.0, and every NaN as the one largest key. */
static inline uint64_t sort_key(double x) {
    uint64_t u;
    if (x != x) return UINT64_MAX;
    if (x == 0.0) x = 0.0;
    memcpy(&u, &x, sizeof(u));
    return (u >> 63) ? ~u : u | ((uint64_t)1 << 63);
}

static PyObject *py_argsort(PyObject *self, PyObject *args) {
    Py_buffer v[2];
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*w*", &v[0], &v[1]))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = v[0].len / 8;
    if (!(view_ok(&v[0], n, 8, "values") && view_ok(&v[1], n, 4, "out")))
        goto done;
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "argsort: too many values for int32 positions");
        goto done;
    }
    uint64_t *key = malloc(((size_t)n + 1) * 8), *key2 = malloc(((size_t)n + 1) * 8);
    int32_t *idx2 = malloc(((size_t)n + 1) * 4);
    size_t *count = calloc((size_t)DIGITS * BUCKETS, sizeof(size_t));
    if (!(key && key2 && idx2 && count)) {
        free(key); free(key2); free(idx2); free(count);
        PyErr_NoMemory();
        goto done;
    }
    const double *x = v[0].buf;
    int32_t *idx = v[1].buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t k = sort_key(x[i]);
        key[i] = k;
        idx[i] = (int32_t)i;
        for (int d = 0; d < DIGITS; d++)
            count[d * BUCKETS + ((k >> (d * DIGIT_BITS)) & (BUCKETS - 1))]++;
    }
    uint64_t *kin = key, *kout = key2;
    int32_t *iin = idx, *iout = idx2;
    for (int d = 0; d < DIGITS; d++) {
        size_t *c = count + (size_t)d * BUCKETS, sum = 0;
        int shift = d * DIGIT_BITS;
        if (n && c[(kin[0] >> shift) & (BUCKETS - 1)] == (size_t)n) continue;   /* one digit value: no move */
        for (int b = 0; b < BUCKETS; b++) {
            size_t t = c[b];
            c[b] = sum;
            sum += t;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            size_t to = c[(kin[i] >> shift) & (BUCKETS - 1)]++;
            kout[to] = kin[i];
            iout[to] = iin[i];
        }
        uint64_t *kt = kin; kin = kout; kout = kt;
        int32_t *it = iin; iin = iout; iout = it;
    }
    if (iin != idx) memcpy(idx, iin, (size_t)n * 4);
    Py_END_ALLOW_THREADS
    free(key); free(key2); free(idx2); free(count);
    out = Py_NewRef(Py_None);
done:
    release(v, 2);
    return out;
}

PyDoc_STRVAR(value_gains_doc,
"value_gains(tables, n_values, n_classes, cases, xlogx, min_objs, gain, split)\n\n"
"split.discrete_gains for integer tables: `tables` (int64, rows x n_values x n_classes,\n"
"value 0 = unknown) and each row's `cases` (float32); writes each row's gain and split\n"
"information (float32, -EPSILON and 0 where the test is unusable) with discrete_gains'\n"
"roundings. Every sum of integer counts below 2^24 is exact in float, so each x log x is\n"
"read from `xlogx` (as split.info does for integer counts).");

static PyObject *py_value_gains(PyObject *self, PyObject *args) {
    Py_buffer v[5];
    Py_ssize_t V, C;
    double min_objs_d;
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*nny*y*dw*w*", &v[0], &V, &C, &v[1], &v[2], &min_objs_d, &v[3], &v[4]))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t A = v[1].len / 4, T = v[2].len / 8;
    if (V < 1 || C < 1) {
        PyErr_SetString(PyExc_ValueError, "value_gains: at least one value and one class");
        goto done;
    }
    if (!(view_ok(&v[0], A * V * C, 8, "tables") && view_ok(&v[1], A, 4, "cases") && view_ok(&v[2], T, 8, "xlogx")
          && view_ok(&v[3], A, 4, "gain") && view_ok(&v[4], A, 4, "split")))
        goto done;
    const int64_t *tables = v[0].buf;
    const float *cases = v[1].buf;
    const double *xlogx = v[2].buf;
    float *gain_out = v[3].buf, *split_out = v[4].buf;
    int64_t *freq = malloc((size_t)V * sizeof(int64_t)), *class_count = malloc((size_t)C * sizeof(int64_t));
    if (!(freq && class_count)) {
        free(freq); free(class_count);
        PyErr_NoMemory();
        goto done;
    }
    /* numpy compares the float32 frequencies with the Python float min_objs in single precision */
    const float min_objs = (float)min_objs_d, no_gain = (float)-1e-3;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t a = 0; a < A && !bad; a++) {
        const int64_t *t = tables + a * V * C;
        int64_t total = 0;
        memset(class_count, 0, (size_t)C * sizeof(int64_t));
        for (Py_ssize_t x = 0; x < V; x++) {
            int64_t f = 0;
            for (Py_ssize_t c = 0; c < C; c++) {
                if (t[x * C + c] < 0) bad = 1;
                f += t[x * C + c];
                if (x > 0) class_count[c] += t[x * C + c];
            }
            freq[x] = f;
            total += f;
        }
        if (bad || total >= T || total >= (1 << 24)) { bad = 1; break; }
        float cs = cases[a], unknown = (float)freq[0], known = cs - unknown;
        float unknown_rate = unknown / cs;
        /* DiscrKnownBaseInfo: a double sum over the classes */
        double sum = 0.0;
        for (Py_ssize_t c = 0; c < C; c++) sum = sum + xlogx[class_count[c]];
        /* known is the float the caller's cases give; its x log x is a table entry when it
           is a whole number the table covers, which the caller's integer counts make it */
        int64_t known_int = (int64_t)known;
        if (!(known >= 0 && known_int < T && (float)known_int == known)) { bad = 1; break; }
        float base = (float)((xlogx[known_int] - sum) / (double)known);
        float this_info = 0.0f;
        int reasonable = 0;
        for (Py_ssize_t x = 1; x < V; x++) {
            float s = 0.0f;
            for (Py_ssize_t c = 0; c < C; c++) s = (float)((double)s + xlogx[t[x * C + c]]);
            this_info = this_info + (float)(xlogx[freq[x]] - (double)s);
            if ((float)freq[x] >= min_objs) reasonable++;
        }
        float g = (1.0f - unknown_rate) * (base - this_info / known);
        float s = 0.0f;
        for (Py_ssize_t x = 0; x < V; x++) s = (float)((double)s + xlogx[freq[x]]);
        float split = (float)(xlogx[total] - (double)s) / cs;
        int usable = known != 0 && cs > unknown && reasonable >= 2;
        gain_out[a] = usable ? g : no_gain;
        split_out[a] = usable ? split : 0.0f;
    }
    Py_END_ALLOW_THREADS
    free(freq); free(class_count);
    if (bad) {
        PyErr_SetString(PyExc_ValueError,
                        "value_gains: a count is negative, or a total or known weight not in the table");
        goto done;
    }
    out = Py_NewRef(Py_None);
done:
    release(v, 5);
    return out;
}

/* ---- one node with fractional weights (grow.py _Grower.evaluate, split.best_cuts) -------- */

#define LN2 0.69314718055994530942
#define NO_GAIN ((float)-1e-3)

/* c4.5's Log(x) of a float: the C library's log in double over ln 2, as split.log2_c (through
 * libm.py) computes it; 0 for x <= 0. */
static inline double log2_f(float x) { return x > 0 ? log((double)x) / LN2 : 0.0; }

/* ---- candidate cuts that cannot win (issue 48) ----------------------------------------
 *
 * cuts_core keeps, per attribute, the first candidate cut of the largest gain - cost, and
 * the gain (1 - unknown_rate) x (base - this_info / known) is, in float, a non-increasing
 * function of this_info (known > 0, 1 - unknown_rate > 0: each float operation is monotone).
 * So a candidate whose float this_info is at least that of an earlier candidate cannot be
 * the one kept, and its four or so logarithms need not be taken. That is decided from a
 * lower bound of its this_info made without the C library's log:
 *   - x log2 x of each float count x from log2 of its binary exponent plus a chord of a
 *     257-entry table of log2 over [1, 2): the chord lies below the concave log2 by at most
 *     h^2 / (8 ln 2) = 2.75e-6 for h = 1/256, so |approx - x log2 x| <= x DELTA;
 *   - A = the approximate info of both sides, within DELTA x (the counts summed) of the exact
 *     one of the same float counts;
 *   - the float this_info cuts_core computes is within 2^-23 (C + 1) M of that exact info
 *     (M: the terms' magnitudes summed; the float running sums of C terms and the three float
 *     roundings after them, the double steps' errors far below): (C + 6) 2^-23 M is used.
 * A candidate is skipped only when A - both margins > the least float this_info computed so
 * far for the attribute; it is still counted among the tries (the cost), and its gain is
 * stored as -inf, which can never be kept. The bound is taken only when every count in it
 * is a normal float and known is within [1, 1e30] (no overflow, no NaN to hide): otherwise
 * the candidate is computed as before. The kept cut, and so the tree, is the same to the bit
 * (tests/tree/test_cut_bounds.py grows trees with and without the bound). */
#define CUT_DELTA 3.1e-6
static double log2_chord[257];
static int cut_bounds = 1;              /* cut_bounds(False) turns the skipping off (tests) */
static long long cut_skipped;           /* candidates skipped, summed after each call */

static void log2_chord_init(void) {
    for (int i = 0; i <= 256; i++) log2_chord[i] = log2(1.0 + i / 256.0);
}

/* x log2 x within x CUT_DELTA for a normal float x > 0, exactly 0 for x <= 0 (as log2_f's
 * caller gets); NaN when x is not a normal float (no bound: the caller computes exactly). */
static inline double xlog2x_approx(float x) {
    if (!(x > 0.0f)) return x == x ? 0.0 : NAN;
    uint32_t b;
    memcpy(&b, &x, 4);
    uint32_t e = (b >> 23) & 0xff, i = (b >> 15) & 0xff;
    if (e == 0 || e == 0xff) return NAN;
    double frac = (double)(b & 0x7fff) * (1.0 / 32768.0);
    double l = (double)((int32_t)e - 127) + log2_chord[i] + frac * (log2_chord[i + 1] - log2_chord[i]);
    return (double)x * l;
}

/* split.info of m floats: a float running sum of double x log x terms; the total a float sum. */
static float info_f(const float *x, Py_ssize_t m) {
    float s = 0.0f, total = x[0];
    for (Py_ssize_t i = 0; i < m; i++) s = (float)((double)s + (double)x[i] * log2_f(x[i]));
    for (Py_ssize_t i = 1; i < m; i++) total = total + x[i];
    return (float)((double)total * log2_f(total) - (double)s);
}

/* Sort n distinct keys ascending: insertion when few, else least-significant-digit radix
 * passes of 11 bits up to the highest bit set in `top` (any key <= top). */
static void sort_keys(uint64_t *a, uint64_t *tmp, Py_ssize_t n, uint64_t top, size_t *count) {
    if (n < 48) {
        for (Py_ssize_t i = 1; i < n; i++) {
            uint64_t x = a[i];
            Py_ssize_t j = i;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    uint64_t *in = a, *out = tmp;
    for (int shift = 0; shift < 64 && (top >> shift); shift += DIGIT_BITS) {
        memset(count, 0, BUCKETS * sizeof(size_t));
        for (Py_ssize_t i = 0; i < n; i++) count[(in[i] >> shift) & (BUCKETS - 1)]++;
        size_t sum = 0;
        for (int b = 0; b < BUCKETS; b++) {
            size_t t = count[b];
            count[b] = sum;
            sum += t;
        }
        for (Py_ssize_t i = 0; i < n; i++) out[count[(in[i] >> shift) & (BUCKETS - 1)]++] = in[i];
        uint64_t *t = in; in = out; out = t;
    }
    if (in != a) memcpy(a, in, (size_t)n * sizeof(uint64_t));
}

PyDoc_STRVAR(node_cuts_doc,
"node_cuts(ranks, k, values, values32, values_at, idx, w, y, n_classes, cases, min_objs, gain, split, at,\n"
"          below, above)\n\n"
"split.best_cuts for one node of the node-by-node growth, all k continuous attributes: the\n"
"node's cases idx (int64), their weights w (float32) and classes y (int64), in the node's\n"
"order; ranks (int32, k x all cases, an attribute a row) the values' dense ranks: equal values\n"
"equal ranks, rank r < m the r-th of the attribute's m distinct known values, values[values_at[j]\n"
"+ r] (float64; values32 the same as float32), every unknown rank m. Each attribute's cases are\n"
"sorted by rank, ties in the node's order (numpy's stable argsort, unknowns last), and scanned\n"
"with c4.5's float sums in that order, as best_cuts does in numpy. Writes per attribute the\n"
"penalised gain (float32, -0.001 when no cut), the split information (float32), the sorted row\n"
"of the cut (int64, -1 when none) and the values on either side of it (float64).");

/* Scratch for cuts_core, room for a node of up to n cases and C classes. */
typedef struct {
    uint64_t *keys, *tmp;
    uint32_t *rk, *sorted_rank;
    int32_t *ord, *cand_row;
    double *terms;              /* each class's x log x below and above the cut */
    uint8_t *dirty;             /* the class's weights changed since its terms were taken */
    double *approx;             /* the same terms approximated (xlog2x_approx) */
    uint8_t *a_dirty;           /* the class's weights changed since they were approximated */
    size_t *count;
    float *cand_gain, *cand_low, *acc;
} CutScratch;

static void cut_scratch_free(CutScratch *s) {
    free(s->keys); free(s->tmp); free(s->rk); free(s->sorted_rank); free(s->terms); free(s->dirty); free(s->approx); free(s->a_dirty); free(s->ord); free(s->count); free(s->cand_gain); free(s->cand_low);
    free(s->cand_row); free(s->acc);
    memset(s, 0, sizeof(*s));
}

static int cut_scratch_alloc(CutScratch *s, Py_ssize_t n, Py_ssize_t C) {
    s->keys = malloc(((size_t)n + 1) * 8); s->tmp = malloc(((size_t)n + 1) * 8);
    s->ord = malloc(((size_t)n + 1) * 4);
    s->rk = malloc(((size_t)n + 1) * 4);
    s->sorted_rank = malloc(((size_t)n + 1) * 4);
    s->terms = malloc((size_t)(2 * C + 1) * sizeof(double));
    s->dirty = malloc((size_t)C + 1);
    s->approx = malloc((size_t)(2 * C + 1) * sizeof(double));
    s->a_dirty = malloc((size_t)C + 1);
    s->count = malloc(((size_t)n + BUCKETS + 1) * sizeof(size_t));
    s->cand_gain = malloc(((size_t)n + 1) * sizeof(float)); s->cand_low = malloc(((size_t)n + 1) * sizeof(float));
    s->cand_row = malloc(((size_t)n + 1) * sizeof(int32_t));
    s->acc = malloc((size_t)(4 * C + 3) * sizeof(float));
    if (s->keys && s->tmp && s->rk && s->sorted_rank && s->terms && s->dirty && s->approx && s->a_dirty && s->ord && s->count && s->cand_gain && s->cand_low && s->cand_row && s->acc) return 1;
    cut_scratch_free(s);
    return 0;
}

/* node_cuts' work for one node (see its doc): rank (k rows of N cases) and each attribute's
 * values by rank, the node's idx, and its cases' w and y in node order. No Python calls: runs without the GIL. */
static void cuts_core(const int32_t *rank, Py_ssize_t N, Py_ssize_t k, const double *vals, const float *vals32,
                      const int64_t *vals_at, const int64_t *idx, Py_ssize_t n, const float *w, const int64_t *y, Py_ssize_t C, float cases, double min_objs,
                      CutScratch *sc, float *gain_out, float *split_out, int64_t *at_out, double *below_out,
                      double *above_out, int32_t *carry, int carried) {
    uint64_t *keys = sc->keys, *tmp = sc->tmp;
    int32_t *cand_row = sc->cand_row;
    size_t *count = sc->count;
    double *low_t = sc->terms, *high_t = sc->terms + C;
    uint8_t *dirty = sc->dirty, *a_dirty = sc->a_dirty;
    double *low_a = sc->approx, *high_a = sc->approx + C;
    long long skipped = 0;
    float *cand_gain = sc->cand_gain, *cand_low = sc->cand_low, *acc = sc->acc;
    float *unknown_c = acc, *total_c = acc + C, *low_c = acc + 2 * C, *high_c = acc + 3 * C, *three = acc + 4 * C;
    const float f_min = (float)min_objs, f_enough = (float)(2 * min_objs);
    int pos_bits = 1;
    while (pos_bits < 62 && ((Py_ssize_t)1 << pos_bits) < n) pos_bits++;
    const uint64_t pos_mask = ((uint64_t)1 << pos_bits) - 1;
    for (Py_ssize_t j = 0; j < k; j++) {
        /* each rank's value: below `distinct` the known values ascending, `distinct` unknown */
        const double *value = vals + vals_at[j];
        const float *value32 = vals32 + vals_at[j];
        const uint32_t distinct = (uint32_t)(vals_at[j + 1] - vals_at[j]);
        const int32_t *rank_j = rank + j * N;
        /* `carry` (when not NULL): attribute j's sorted positions at carry[2jn..], their ranks
           after them; given by the parent (`carried`: grow_nodes' children), else made here */
        int32_t *ord = carry ? carry + 2 * j * n : sc->ord;
        uint32_t *rk = sc->rk, low_rank = UINT32_MAX, high_rank = 0;
        uint32_t *sorted_rank = carry ? (uint32_t *)(carry + (2 * j + 1) * n) : sc->sorted_rank;
        Py_ssize_t n_known = 0;
        if (carried) {
            n_known = n;
            while (n_known > 0 && sorted_rank[n_known - 1] >= distinct) n_known--;
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                uint32_t r = (uint32_t)rank_j[idx[i]];
                rk[i] = r;
                if (r < low_rank) low_rank = r;
                if (r > high_rank) high_rank = r;
                n_known += r < distinct;
            }
            /* sorted by rank, ties in the node's order (numpy's stable argsort) */
            uint64_t range = n ? (uint64_t)(high_rank - low_rank) + 1 : 0;
            if (n >= 48 && range <= (uint64_t)n + BUCKETS) {
                /* a counting sort: as many buckets as ranks in the node */
                memset(count, 0, (size_t)range * sizeof(size_t));
                for (Py_ssize_t i = 0; i < n; i++) count[rk[i] - low_rank]++;
                size_t sum = 0;
                for (uint64_t b = 0; b < range; b++) {
                    size_t t = count[b];
                    count[b] = sum;
                    sum += t;
                }
                for (Py_ssize_t i = 0; i < n; i++) {
                    size_t to = count[rk[i] - low_rank]++;
                    ord[to] = (int32_t)i;
                    sorted_rank[to] = rk[i];
                }
            } else {
                /* rank, then the case's place in the node: distinct keys, ordered as the stable sort */
                uint64_t top = 0;
                for (Py_ssize_t i = 0; i < n; i++) {
                    uint64_t key = ((uint64_t)(rk[i] - low_rank) << pos_bits) | (uint64_t)i;
                    keys[i] = key;
                    if (key > top) top = key;
                }
                sort_keys(keys, tmp, n, top, count);
                for (Py_ssize_t r = 0; r < n; r++) {
                    ord[r] = (int32_t)(keys[r] & pos_mask);
                    sorted_rank[r] = rk[ord[r]];
                }
            }
        }
        /* the unknowns' weight per class, then summed over the classes (ValFreq[0]), and the
           known cases' per class: float sums in sorted order */
        for (Py_ssize_t c = 0; c < C; c++) unknown_c[c] = total_c[c] = low_c[c] = 0.0f;
        for (Py_ssize_t r = n_known; r < n; r++) unknown_c[y[ord[r]]] += w[ord[r]];
        for (Py_ssize_t r = 0; r < n_known; r++) total_c[y[ord[r]]] += w[ord[r]];
        float unknown = unknown_c[0];
        for (Py_ssize_t c = 1; c < C; c++) unknown = unknown + unknown_c[c];
        const float known = cases - unknown;
        const float unknown_rate = (float)(1.0 - (double)(known / cases));
        const float base = info_f(total_c, C) / known;
        float min_split = (float)(0.10 * (double)known / (double)C);
        min_split = min_split <= f_min ? f_min : min_split > 25.0f ? 25.0f : min_split;
        const float limit = known - min_split;
        for (Py_ssize_t c = 0; c < C; c++) {
            high_c[c] = total_c[c];
            dirty[c] = a_dirty[c] = 1;
        }
        float low = 0.0f;
        Py_ssize_t tries = 0;
        /* the least float this_info computed so far, and whether candidates may be skipped */
        float least_info = INFINITY;
        const int bounded = cut_bounds && known >= 1.0f && known <= 1e30f && 1.0f - unknown_rate > 0.0f;
        const double margin = (double)(C + 6) * (1.0 / 8388608.0);
        for (Py_ssize_t r = 0; r < n_known; r++) {
            int32_t p = ord[r];
            float wt = w[p];
            int64_t cls = y[p];
            low = low + wt;
            low_c[cls] = low_c[cls] + wt;
            high_c[cls] = high_c[cls] - wt;
            dirty[cls] = a_dirty[cls] = 1;
            if (r + 1 >= n_known) break;      /* the next value unknown: no gap */
            /* (float) of the values as c4.5 holds them (-0.0 and 0.0 share a rank: equal here) */
            double here = (double)value32[sorted_rank[r]], next = (double)value32[sorted_rank[r + 1]];
            if (!(here < next - 1e-5) || !(low >= min_split) || !(low <= limit)) continue;
            float g = NO_GAIN;
            if (low >= f_min && known - low >= f_min && known != 0) {
                if (bounded && least_info < INFINITY) {
                    /* the lower bound of this_info (above): skip a candidate that cannot win */
                    float t_low = low_c[0], t_high = high_c[0];
                    for (Py_ssize_t c = 1; c < C; c++) {
                        t_low = t_low + low_c[c];
                        t_high = t_high + high_c[c];
                    }
                    double at_low = xlog2x_approx(t_low), at_high = xlog2x_approx(t_high);
                    double a = at_low + at_high, mag = fabs(at_low) + fabs(at_high);
                    double counts = fabs((double)t_low) + fabs((double)t_high);
                    for (Py_ssize_t c = 0; c < C; c++) {
                        if (a_dirty[c]) {
                            low_a[c] = xlog2x_approx(low_c[c]);
                            high_a[c] = xlog2x_approx(high_c[c]);
                            a_dirty[c] = 0;
                        }
                        a -= low_a[c] + high_a[c];
                        mag += fabs(low_a[c]) + fabs(high_a[c]);
                        counts += fabs((double)low_c[c]) + fabs((double)high_c[c]);
                    }
                    double err_a = CUT_DELTA * counts;
                    double bound = a - err_a - margin * (mag + err_a);
                    /* a NaN bound (a count not a normal float) compares false: computed */
                    if (bound > (double)least_info) {
                        skipped++;
                        cand_gain[tries] = -INFINITY;
                        cand_low[tries] = low;
                        cand_row[tries++] = (int32_t)r;
                        continue;
                    }
                }
                /* info_f of both sides, each class's x log x kept until its weight changes */
                for (Py_ssize_t c = 0; c < C; c++) {
                    if (!dirty[c]) continue;
                    low_t[c] = (double)low_c[c] * log2_f(low_c[c]);
                    high_t[c] = (double)high_c[c] * log2_f(high_c[c]);
                    dirty[c] = 0;
                }
                float s_low = 0.0f, s_high = 0.0f, t_low = low_c[0], t_high = high_c[0];
                for (Py_ssize_t c = 0; c < C; c++) {
                    s_low = (float)((double)s_low + low_t[c]);
                    s_high = (float)((double)s_high + high_t[c]);
                }
                for (Py_ssize_t c = 1; c < C; c++) {
                    t_low = t_low + low_c[c];
                    t_high = t_high + high_c[c];
                }
                float this_info = (float)((double)t_low * log2_f(t_low) - (double)s_low)
                                  + (float)((double)t_high * log2_f(t_high) - (double)s_high);
                if (this_info < least_info) least_info = this_info;
                g = (1.0f - unknown_rate) * (base - this_info / known);
            }
            cand_gain[tries] = g;
            cand_low[tries] = low;
            cand_row[tries++] = (int32_t)r;
        }
        const float cost = (float)(log2_f((float)tries) / (double)cases);
        /* np.argmax over the rows: the first largest (a NaN wins); rows that are not
           candidates hold -0.001 - cost < 0, so only a candidate can be a positive best */
        Py_ssize_t best = -1;
        float best_val = 0.0f;
        for (Py_ssize_t t = 0; t < tries; t++) {
            float val = cand_gain[t] - cost;
            if (val != val) {
                best = -1;
                break;
            }
            if (best < 0 ? val > 0 : val > best_val) {
                best = t;
                best_val = val;
            }
        }
        if (best >= 0 && known >= f_enough) {
            float lo = cand_low[best];
            three[0] = unknown;
            three[1] = lo;
            three[2] = known - lo;
            int32_t r = cand_row[best];
            gain_out[j] = best_val;
            split_out[j] = info_f(three, 3) / cases;
            at_out[j] = r;
            below_out[j] = value[sorted_rank[r]];
            above_out[j] = value[sorted_rank[r + 1]];
        } else {
            gain_out[j] = NO_GAIN;
            split_out[j] = 0.0f;
            at_out[j] = -1;
            below_out[j] = above_out[j] = NAN;
        }
    }
    if (skipped) __atomic_fetch_add(&cut_skipped, skipped, __ATOMIC_RELAXED);
}

PyDoc_STRVAR(cut_bounds_doc,
"cut_bounds(on) -> int\n\n"
"whether the weighted growth skips the candidate cuts that its lower bound shows cannot win\n"
"(on by default; the same cuts either way), and how many it has skipped since the module\n"
"was loaded.");

static PyObject *py_cut_bounds(PyObject *self, PyObject *arg) {
    (void)self;
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    cut_bounds = on;
    return PyLong_FromLongLong(__atomic_load_n(&cut_skipped, __ATOMIC_RELAXED));
}

/* Ranks within 0..distinct (the unknowns' rank) for the cases idx of every column. */
static int ranks_ok(const int32_t *rank, Py_ssize_t N, Py_ssize_t k, const int64_t *vals_at, const int64_t *idx,
                    Py_ssize_t n) {
    for (Py_ssize_t j = 0; j < k; j++) {
        const int32_t *rank_j = rank + j * N;
        const int64_t distinct = vals_at[j + 1] - vals_at[j];
        if (distinct < 0) return 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int32_t r = rank_j[idx ? idx[i] : i];
            if (r < 0 || r > distinct) return 0;
        }
    }
    return 1;
}

static PyObject *py_node_cuts(PyObject *self, PyObject *args) {
    (void)self;
    enum { RANK, VALS, VALS32, VALS_AT, IDX, W, Y, GAIN, SPLIT, AT, BELOW, ABOVE, NV };
    Py_buffer v[NV];
    memset(v, 0, sizeof(v));
    Py_ssize_t k, C;
    float cases;
    double min_objs;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*y*y*y*nfdw*w*w*w*w*", &v[RANK], &k, &v[VALS], &v[VALS32], &v[VALS_AT],
                          &v[IDX], &v[W], &v[Y], &C, &cases, &min_objs, &v[GAIN], &v[SPLIT], &v[AT], &v[BELOW],
                          &v[ABOVE]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = v[IDX].len / 8, N = k > 0 ? v[RANK].len / 4 / k : 0;
    if (!(k > 0 && C > 0 && view_ok(&v[RANK], N * k, 4, "ranks") && view_ok(&v[IDX], n, 8, "idx")
          && view_ok(&v[W], n, 4, "w") && view_ok(&v[Y], n, 8, "y") && view_ok(&v[GAIN], k, 4, "gain")
          && view_ok(&v[SPLIT], k, 4, "split") && view_ok(&v[AT], k, 8, "at") && view_ok(&v[BELOW], k, 8, "below")
          && view_ok(&v[ABOVE], k, 8, "above") && view_ok(&v[VALS_AT], k + 1, 8, "values_at")))
        goto done;
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "node_cuts: too many cases for int32 positions");
        goto done;
    }
    const int64_t *idx = v[IDX].buf, *y = v[Y].buf, *vals_at = v[VALS_AT].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= N || y[i] < 0 || y[i] >= C) {
            PyErr_SetString(PyExc_ValueError, "node_cuts: a case index or class out of range");
            goto done;
        }
    if (!(vals_at[0] == 0 && vals_at[k] == v[VALS].len / 8 && vals_at[k] == v[VALS32].len / 4
          && ranks_ok(v[RANK].buf, N, k, vals_at, idx, n))) {
        PyErr_SetString(PyExc_ValueError, "node_cuts: the value lists and ranks do not agree");
        goto done;
    }
    CutScratch sc;
    if (!cut_scratch_alloc(&sc, n, C)) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    cuts_core(v[RANK].buf, N, k, v[VALS].buf, v[VALS32].buf, vals_at, idx, n, v[W].buf, y, C, cases, min_objs, &sc,
              v[GAIN].buf, v[SPLIT].buf, v[AT].buf, v[BELOW].buf, v[ABOVE].buf, NULL, 0);
    Py_END_ALLOW_THREADS
    cut_scratch_free(&sc);
    result = Py_NewRef(Py_None);
done:
    release(v, NV);
    return result;
}

PyDoc_STRVAR(entry_cuts_doc,
"entry_cuts(starts, ranks, w, y, n_classes, values, values32, cases, active, min_objs, gain, split, below, above)\n\n"
"split.best_cuts of one continuous attribute at every node of a level from its merged AVC\n"
"entries (grow_passes.py): node s's entries at starts[s]..starts[s+1] (int64), each a\n"
"(value rank, class, weight): ranks (int32) into the attribute's m distinct values (values,\n"
"float64; values32 the same as float32), rank m unknown, ascending within a node; y (int64)\n"
"and w (float32). A node's entries are scanned as node_cuts scans a node's sorted cases (the\n"
"same cuts_core): an entry is one case weighing the entry's weight. For each node with\n"
"active[s] != 0 writes the penalised gain (float32, -0.001 when no cut), the split information\n"
"(float32) and the values on either side of the cut (float64, NaN when none).");

static PyObject *py_entry_cuts(PyObject *self, PyObject *args) {
    (void)self;
    enum { STARTS, RANKS, W, Y, VALS, VALS32, CASES, ACTIVE, GAIN, SPLIT, BELOW, ABOVE, NV };
    Py_buffer v[NV];
    memset(v, 0, sizeof(v));
    Py_ssize_t C;
    double min_objs;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*y*y*dw*w*w*w*", &v[STARTS], &v[RANKS], &v[W], &v[Y], &C, &v[VALS],
                          &v[VALS32], &v[CASES], &v[ACTIVE], &min_objs, &v[GAIN], &v[SPLIT], &v[BELOW], &v[ABOVE]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t S = v[CASES].len / 4, P = v[RANKS].len / 4, m = v[VALS].len / 8;
    if (!(C > 0 && view_ok(&v[STARTS], S + 1, 8, "starts") && view_ok(&v[RANKS], P, 4, "ranks")
          && view_ok(&v[W], P, 4, "w") && view_ok(&v[Y], P, 8, "y") && view_ok(&v[VALS32], m, 4, "values32")
          && view_ok(&v[ACTIVE], S, 1, "active") && view_ok(&v[GAIN], S, 4, "gain")
          && view_ok(&v[SPLIT], S, 4, "split") && view_ok(&v[BELOW], S, 8, "below")
          && view_ok(&v[ABOVE], S, 8, "above")))
        goto done;
    const int64_t *starts = v[STARTS].buf, *y = v[Y].buf;
    const int32_t *ranks = v[RANKS].buf;
    const float *cases = v[CASES].buf;
    const uint8_t *active = v[ACTIVE].buf;
    if (starts[0] != 0 || starts[S] != P || P >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "entry_cuts: starts must run from 0 to the number of entries");
        goto done;
    }
    Py_ssize_t widest = 0;
    for (Py_ssize_t s = 0; s < S; s++) {
        if (starts[s + 1] < starts[s]) {
            PyErr_SetString(PyExc_ValueError, "entry_cuts: starts must not decrease");
            goto done;
        }
        widest = Py_MAX(widest, starts[s + 1] - starts[s]);
        /* cuts_core counts a node's known entries from its end: ranks ascending, unknowns last */
        for (int64_t p = starts[s]; p < starts[s + 1]; p++)
            if (ranks[p] < 0 || ranks[p] > m || y[p] < 0 || y[p] >= C
                || (p > starts[s] && ranks[p] < ranks[p - 1])) {
                PyErr_SetString(PyExc_ValueError, "entry_cuts: a rank or class out of range or out of order");
                goto done;
            }
    }
    CutScratch sc;
    int32_t *carry = malloc(((size_t)widest + 1) * 2 * sizeof(int32_t));
    if (!carry || !cut_scratch_alloc(&sc, widest, C)) {
        free(carry);
        PyErr_NoMemory();
        goto done;
    }
    const int64_t vals_at[2] = {0, m};
    const int32_t no_rank = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < S; s++) {
        if (!active[s]) continue;
        int64_t a = starts[s], n = starts[s + 1] - a;
        /* the node's entries in their order, their ranks after them: cuts_core's carried layout */
        for (int64_t i = 0; i < n; i++) {
            carry[i] = (int32_t)i;
            carry[n + i] = ranks[a + i];
        }
        int64_t at;
        cuts_core(&no_rank, 0, 1, v[VALS].buf, v[VALS32].buf, vals_at, NULL, n, (const float *)v[W].buf + a, y + a,
                  C, cases[s], min_objs, &sc, (float *)v[GAIN].buf + s, (float *)v[SPLIT].buf + s, &at,
                  (double *)v[BELOW].buf + s, (double *)v[ABOVE].buf + s, carry, 1);
    }
    Py_END_ALLOW_THREADS
    cut_scratch_free(&sc);
    free(carry);
    result = Py_NewRef(Py_None);
done:
    release(v, NV);
    return result;
}

PyDoc_STRVAR(merge_sums_doc,
"merge_sums(keys1, sums1, keys2, sums2, keys, sums) -> count\n\n"
"The union of two runs of sorted, distinct int64 keys with their int64 sums, equal keys'\n"
"sums added (exact): written to keys and sums (room for both runs), returns how many.\n"
"One linear pass, for the AVC groups of grow_passes.py.");

static PyObject *py_merge_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[6];
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n1 = v[0].len / 8, n2 = v[2].len / 8;
    if (!(view_ok(&v[1], n1, 8, "sums1") && view_ok(&v[3], n2, 8, "sums2") && view_ok(&v[4], n1 + n2, 8, "keys")
          && view_ok(&v[5], n1 + n2, 8, "sums")))
        goto done;
    const int64_t *k1 = v[0].buf, *s1 = v[1].buf, *k2 = v[2].buf, *s2 = v[3].buf;
    int64_t *k = v[4].buf, *s = v[5].buf;
    for (Py_ssize_t i = 1; i < n1; i++)
        if (k1[i] <= k1[i - 1]) goto unsorted;
    for (Py_ssize_t i = 1; i < n2; i++)
        if (k2[i] <= k2[i - 1]) goto unsorted;
    Py_ssize_t i = 0, j = 0, n = 0;
    Py_BEGIN_ALLOW_THREADS
    while (i < n1 && j < n2) {
        if (k1[i] < k2[j]) { k[n] = k1[i]; s[n++] = s1[i++]; }
        else if (k2[j] < k1[i]) { k[n] = k2[j]; s[n++] = s2[j++]; }
        else { k[n] = k1[i]; s[n++] = s1[i++] + s2[j++]; }
    }
    for (; i < n1; i++) { k[n] = k1[i]; s[n++] = s1[i]; }
    for (; j < n2; j++) { k[n] = k2[j]; s[n++] = s2[j]; }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(n);
    goto done;
unsorted:
    PyErr_SetString(PyExc_ValueError, "merge_sums: the keys of a run are not sorted and distinct");
done:
    release(v, 6);
    return result;
}

PyDoc_STRVAR(node_discrete_doc,
"node_discrete(codes, width, idx, w, y, n_classes, n_values, cases, min_objs, tables, gain, split)\n\n"
"grow.class_sums and split.discrete_gains for one node of the node-by-node growth: codes is\n"
"the (all cases x D) array of discrete value codes (-1 unknown), `width` bytes each (1, 2 or\n"
"8); idx (int64), w (float32) and y (int64) the node's cases in its order. Fills tables\n"
"(float32, D x n_values x n_classes, value 0 = unknown) with float sums in the node's order,\n"
"and each attribute's gain and split information (float32) with discrete_gains' roundings.");

/* node_discrete's work for one node (see its doc), with scratch val_freq (V floats) and
 * class_count (C floats). Returns 0 when a case, class or value code is out of range. */
static int discrete_core(const void *codes, Py_ssize_t width, Py_ssize_t D, Py_ssize_t total_rows,
                         const int64_t *idx, Py_ssize_t n, const float *w, const int64_t *y, Py_ssize_t C,
                         Py_ssize_t V, float cases, double min_objs, float *t, float *gain_out, float *split_out,
                         float *val_freq, float *class_count) {
    memset(t, 0, (size_t)(D * V * C) * sizeof(float));
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t row = idx[i];
        if (row < 0 || row >= total_rows || y[i] < 0 || y[i] >= C) return 0;
        for (Py_ssize_t j = 0; j < D; j++) {
            Py_ssize_t at = row * D + j;
            int64_t code = width == 1 ? ((const int8_t *)codes)[at]
                         : width == 2 ? ((const int16_t *)codes)[at] : ((const int64_t *)codes)[at];
            if (code < -1 || code + 1 >= V) return 0;
            float *cell = t + (j * V + code + 1) * C + y[i];
            *cell = *cell + w[i];
        }
    }
    const float f_min = (float)min_objs;
    for (Py_ssize_t j = 0; j < D; j++) {
        const float *tj = t + j * V * C;
        int reasonable = 0;
        for (Py_ssize_t x = 0; x < V; x++) {
            float s = tj[x * C];
            for (Py_ssize_t c = 1; c < C; c++) s = s + tj[x * C + c];
            val_freq[x] = s;
            if (x >= 1 && s >= f_min) reasonable++;
        }
        const float unknown = val_freq[0], known = cases - unknown;
        const float unknown_rate = unknown / cases;
        for (Py_ssize_t c = 0; c < C; c++) {
            float s = tj[1 * C + c];
            for (Py_ssize_t x = 2; x < V; x++) s = s + tj[x * C + c];
            class_count[c] = s;
        }
        /* DiscrKnownBaseInfo: a double sum over the classes */
        double sum = 0.0;
        for (Py_ssize_t c = 0; c < C; c++) sum = sum + (double)class_count[c] * log2_f(class_count[c]);
        const float base = (float)(((double)known * log2_f(known) - sum) / (double)known);
        float this_info = info_f(tj + 1 * C, C);
        for (Py_ssize_t x = 2; x < V; x++) this_info = this_info + info_f(tj + x * C, C);
        const float g = (1.0f - unknown_rate) * (base - this_info / known);
        const float split = info_f(val_freq, V) / cases;
        int usable = known != 0 && cases > unknown && reasonable >= 2;
        gain_out[j] = usable ? g : NO_GAIN;
        split_out[j] = usable ? split : 0.0f;
    }
    return 1;
}

static PyObject *py_node_discrete(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[7];
    memset(v, 0, sizeof(v));
    Py_ssize_t width, C, V;
    float cases;
    double min_objs;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*nnfdw*w*w*", &v[0], &width, &v[1], &v[2], &v[3], &C, &V, &cases, &min_objs,
                          &v[4], &v[5], &v[6]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = v[1].len / 8, D = v[5].len / 4;
    if ((width != 1 && width != 2 && width != 8) || C < 1 || V < 2 || D < 1 || v[0].len % (width * D)) {
        PyErr_SetString(PyExc_ValueError, "node_discrete: bad widths or extents");
        goto done;
    }
    if (!(view_ok(&v[1], n, 8, "idx") && view_ok(&v[2], n, 4, "w") && view_ok(&v[3], n, 8, "y")
          && view_ok(&v[4], D * V * C, 4, "tables") && view_ok(&v[5], D, 4, "gain") && view_ok(&v[6], D, 4, "split")))
        goto done;
    float *val_freq = malloc((size_t)V * sizeof(float)), *class_count = malloc((size_t)C * sizeof(float));
    if (!(val_freq && class_count)) {
        free(val_freq); free(class_count);
        PyErr_NoMemory();
        goto done;
    }
    int ok = discrete_core(v[0].buf, width, D, v[0].len / (width * D), v[1].buf, n, v[2].buf, v[3].buf, C, V, cases,
                           min_objs, v[4].buf, v[5].buf, v[6].buf, val_freq, class_count);
    free(val_freq);
    free(class_count);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "node_discrete: a case, class or value code is out of range");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    release(v, 7);
    return result;
}

PyDoc_STRVAR(node_counts_doc,
"node_counts(weights, y, idx, dist) -> cases\n\n"
"A node's total weight and class weights: seq_sum(weights[idx]) and class_sums(y[idx],\n"
"weights[idx]), float sums in the node's order. weights (float32) and y (int64) are over all\n"
"cases, idx (int64) the node's; dist (float32, one per class) is filled; cases is returned\n"
"as the float it is.");

static PyObject *py_node_counts(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[4];
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &v[0], &v[1], &v[2], &v[3]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N = v[0].len / 4, n = v[2].len / 8, C = v[3].len / 4;
    if (!(C > 0 && view_ok(&v[1], N, 8, "y") && view_ok(&v[2], n, 8, "idx") && view_ok(&v[3], C, 4, "dist")))
        goto done;
    const float *w = v[0].buf;
    const int64_t *y = v[1].buf, *idx = v[2].buf;
    float *dist = v[3].buf, cases = 0.0f;
    for (Py_ssize_t c = 0; c < C; c++) dist[c] = 0.0f;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t at = idx[i];
        if (at < 0 || at >= N || y[at] < 0 || y[at] >= C) {
            PyErr_SetString(PyExc_ValueError, "node_counts: a case index or class out of range");
            goto done;
        }
        cases = cases + w[at];
        dist[y[at]] = dist[y[at]] + w[at];
    }
    result = PyFloat_FromDouble((double)cases);
done:
    release(v, 4);
    return result;
}

/* ---- a whole subtree node by node (grow.py _Grower.grow_compiled) -------------------------
 * The node-by-node growth of subtrees whose cases carry fractional weights (unknown values
 * met above, or case weights), depth first as c4.5 FormTree goes: each node's counts, its
 * discrete and continuous evaluation (discrete_core, cuts_core), the attribute choice
 * (_Grower.choose), the cut snapped to a training value (snap_many), and its children, the
 * cases with an unknown outcome first with their weight scaled by the branch's share and
 * restored by division after the branch (not always exactly the old weight, as in c4.5: that
 * is why the order is depth first). Subtrees whose cases weigh 1 and have no unknowns are left
 * to the level-wise growth (deferred). The nodes come back as grow.py builds them from
 * node.FlatTree's arrays, depth first. */

typedef struct { char *p; size_t len, cap; } Buf;

static int buf_put(Buf *b, const void *x, size_t size) {
    if (b->len + size > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + size) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, x, size);
    b->len += size;
    return 1;
}

enum { OUT_KLASS, OUT_ITEMS, OUT_ERRORS, OUT_KIND, OUT_ATTRIBUTE, OUT_CUT, OUT_FANOUT, OUT_DIST,
       OUT_DEFER_AT, OUT_DEFER_SIZE, OUT_DEFER_CASES, OUT_DEFER_TESTED, N_OUT };

typedef struct {
    const int32_t *rank;        /* k x all cases: value_ranks, an attribute a row */
    Py_ssize_t N, k, D, V, C, A, width;
    const void *Xd;             /* all cases x D discrete codes, `width` bytes */
    const int64_t *y;
    float *weights;             /* every case's weight, changed and restored in place */
    const uint8_t *clean;       /* no unknown value in the case */
    const int64_t *column;      /* each attribute's column among the continuous or discrete ones */
    const uint8_t *kind;        /* each attribute: 0 ignored, 1 discrete, 2 continuous */
    const uint8_t *excluded;    /* many-valued, left out of the average gain */
    const int64_t *nvals;       /* values of each discrete column */
    const double *sorted;       /* each continuous column's distinct known values ... */
    const float *sorted32;      /* ... as floats ... */
    const int64_t *sorted_at;   /* ... at sorted_at[j]..sorted_at[j+1] */
    int64_t *tested;            /* tests of each attribute above the node */
    double min_objs;
    double leaf_ratio;          /* > 0: a node's leaf budget is leaf_ratio x its weight (boosting) */
    int gain_ratio, defer;
    /* a node's continuous attributes sorted by value (cuts_core's carry) are handed down to its
       children, each one's by one stable pass, instead of each child sorting its own cases again */
    int carry;
    /* one node's scratch */
    float *w, *dist, *gain, *split, *tables, *g_d, *s_d, *val_freq, *class_count, *g_c, *s_c;
    int64_t *yl, *at;
    double *below, *above;
    CutScratch cs;
    Buf out[N_OUT];
    uint8_t *tested_now;
} Grow;

typedef struct {
    int64_t *idx, *unknown, *grouped;  /* the node's cases; those with an unknown outcome; the
                                          others by branch, each in node order (all owned) */
    Py_ssize_t n_unknown, *first;      /* branch v's cases: grouped[first[v]..first[v+1]) */
    float known_total, factor, *dist;
    int64_t attribute, best_class;
    Py_ssize_t forks, next;
    int undo;                          /* the unknown cases' weights hold the last branch's factor */
    int32_t **kids;                    /* with carry: each branch's sorted positions and ranks (owned
                                          until its visit takes them), NULL when it sorts its own */
} Frame;

static void frame_free(Frame *f) {
    free(f->idx); free(f->unknown); free(f->grouped); free(f->first); free(f->dist);
    if (f->kids)
        for (Py_ssize_t v = 0; v < f->forks; v++) free(f->kids[v]);
    free(f->kids);
    memset(f, 0, sizeof(*f));
}

static int emit(Grow *g, int64_t klass, float items, float errors, int8_t kind, int64_t attribute, double cut,
                int64_t fanout, const float *dist) {
    double it = items, er = errors;
    return buf_put(&g->out[OUT_KLASS], &klass, 8) && buf_put(&g->out[OUT_ITEMS], &it, 8)
        && buf_put(&g->out[OUT_ERRORS], &er, 8) && buf_put(&g->out[OUT_KIND], &kind, 1)
        && buf_put(&g->out[OUT_ATTRIBUTE], &attribute, 8) && buf_put(&g->out[OUT_CUT], &cut, 8)
        && buf_put(&g->out[OUT_FANOUT], &fanout, 8) && buf_put(&g->out[OUT_DIST], dist, (size_t)g->C * 4);
}

/* snap_many: the largest training value of column j whose float is <= the float midpoint */
static double snap(const Grow *g, Py_ssize_t j, double below, double above) {
    const float *v32 = g->sorted32 + g->sorted_at[j];
    Py_ssize_t m = g->sorted_at[j + 1] - g->sorted_at[j], lo = 0, hi = m;
    float mid = ((float)below + (float)above) / 2.0f;
    while (lo < hi) {
        Py_ssize_t h = lo + (hi - lo) / 2;
        if (v32[h] <= mid) lo = h + 1; else hi = h;
    }
    lo -= 1;
    if (lo < 0) lo += m;        /* numpy's index -1 */
    return g->sorted[g->sorted_at[j] + lo];
}

/* _Grower.choose for one node: -1 when no attribute is worth a test */
static int64_t choose(const Grow *g) {
    const double eps = 1e-3;
    int count = 0;
    float total = 0.0f;
    for (Py_ssize_t a = 0; a < g->A; a++) {
        int possible = (double)g->gain[a] > -eps && !g->excluded[a];
        count += possible;
        total = total + (possible ? g->gain[a] : 0.0f);
    }
    const float avg = count > 0 ? total / (float)count : 1e6f;
    float best_val = -INFINITY;
    int64_t best = 0;
    for (Py_ssize_t a = 0; a < g->A; a++) {
        float gain = g->gain[a], split = g->split[a], val;
        if (!((double)gain > -eps)) {
            val = -INFINITY;
        } else if (g->gain_ratio) {
            int ok = (double)gain >= (double)avg - eps && (double)split > eps;
            val = ok ? gain / split : NO_GAIN;
        } else {
            val = split > 0 && (double)gain > -eps ? gain : NO_GAIN;
        }
        if (val > best_val) {
            best_val = val;
            best = a;
        }
    }
    return best_val > NO_GAIN ? best : -1;
}

/* The node of cases idx (n of them, owned: kept by the frame or freed): emitted, and when it
 * has a test, its frame filled. Returns 1 (a frame), 0 (a leaf or a deferred subtree), -1 (out
 * of memory) or -2 (a code out of range). */
/* Stable pass handing a node's carry (cuts_core: per continuous attribute its n cases' positions
 * sorted by rank and their ranks) to the branches whose cases it groups, when no case's outcome is
 * unknown: a branch's cases keep their node order, so its sort by (rank, position) is the node's
 * restricted to them. Returns 0 when out of memory. */
static int hand_down(const Grow *g, Frame *f, const int32_t *carry, const int32_t *outcome, Py_ssize_t n) {
    const Py_ssize_t k = g->k, forks = f->forks;
    f->kids = calloc((size_t)forks + 1, sizeof(int32_t *));
    int32_t *at = malloc(((size_t)n + 1) * 4);        /* each case's position within its branch */
    Py_ssize_t *fill = malloc(((size_t)forks + 1) * sizeof(Py_ssize_t));
    if (!(f->kids && at && fill)) {
        free(at); free(fill);
        return 0;
    }
    for (Py_ssize_t v = 0; v < forks; v++) {
        const Py_ssize_t m = f->first[v + 1] - f->first[v];
        if (m && !(f->kids[v] = malloc((size_t)(2 * k * m) * 4))) {
            free(at); free(fill);
            return 0;
        }
        fill[v] = 0;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (outcome[i] >= 0) at[i] = (int32_t)fill[outcome[i]]++;
    for (Py_ssize_t j = 0; j < k; j++) {
        const int32_t *ord = carry + 2 * j * n, *rank = carry + (2 * j + 1) * n;
        for (Py_ssize_t v = 0; v < forks; v++) fill[v] = 0;
        for (Py_ssize_t r = 0; r < n; r++) {
            const int32_t p = ord[r], b = outcome[p];
            if (b < 0) continue;
            const Py_ssize_t m = f->first[b + 1] - f->first[b];
            int32_t *kid = f->kids[b] + 2 * j * m;
            kid[fill[b]] = at[p];
            kid[m + fill[b]++] = rank[r];
        }
    }
    free(at); free(fill);
    return 1;
}

static int visit(Grow *g, int64_t *idx, Py_ssize_t n, Frame *f, int32_t *carried) {
    const Py_ssize_t C = g->C, A = g->A;
    if (g->defer) {
        Py_ssize_t i = 0;
        while (i < n && g->clean[idx[i]] && g->weights[idx[i]] == 1.0f) i++;
        if (i == n) {
            int64_t at = (int64_t)(g->out[OUT_KLASS].len / 8), size = n;
            for (Py_ssize_t a = 0; a < A; a++) g->tested_now[a] = g->tested[a] > 0;
            memset(g->dist, 0, (size_t)C * 4);
            int ok = emit(g, 0, 0.0f, 0.0f, 0, -1, 0.0, 0, g->dist) && buf_put(&g->out[OUT_DEFER_AT], &at, 8)
                && buf_put(&g->out[OUT_DEFER_SIZE], &size, 8) && buf_put(&g->out[OUT_DEFER_CASES], idx, (size_t)n * 8)
                && buf_put(&g->out[OUT_DEFER_TESTED], g->tested_now, (size_t)A);
            free(idx);
            free(carried);
            return ok ? 0 : -1;
        }
    }
    float cases = 0.0f, *dist = g->dist;
    memset(dist, 0, (size_t)C * 4);
    for (Py_ssize_t i = 0; i < n; i++) {
        float wt = g->weights[idx[i]];
        int64_t cls = g->y[idx[i]];
        g->w[i] = wt;
        g->yl[i] = cls;
        cases = cases + wt;
        dist[cls] = dist[cls] + wt;
    }
    int64_t best_class = 0;
    for (Py_ssize_t c = 1; c < C; c++)
        if (dist[c] > dist[best_class]) best_class = c;
    const float no_best = dist[best_class], errors = cases - no_best;
    /* spec 2.1; the "one class" test is c4.5's float equality of two separate sums */
    /* grow.py _Grower.budget: in double, from the float node weight */
    const double budget = g->leaf_ratio > 0 ? g->leaf_ratio * (double)cases : INFINITY;
    if (no_best == cases || cases < (float)(2 * g->min_objs) || budget < 2.0) {
        free(idx);
        free(carried);
        return emit(g, best_class, cases, errors, 0, -1, 0.0, 0, dist) ? 0 : -1;
    }
    for (Py_ssize_t a = 0; a < A; a++) {
        g->gain[a] = NO_GAIN;
        g->split[a] = 0.0f;
    }
    int32_t *carry = carried;
    if (g->carry && g->k && !carry && !(carry = malloc((size_t)(2 * g->k * n) * 4))) {
        free(idx);
        return -1;
    }
    if (g->D) {
        if (!discrete_core(g->Xd, g->width, g->D, g->N, idx, n, g->w, g->yl, C, g->V, cases, g->min_objs, g->tables,
                           g->g_d, g->s_d, g->val_freq, g->class_count)) {
            free(idx);
            free(carry);
            return -2;
        }
    }
    if (g->k)
        cuts_core(g->rank, g->N, g->k, g->sorted, g->sorted32, g->sorted_at, idx, n, g->w, g->yl, C, cases, g->min_objs, &g->cs, g->g_c, g->s_c, g->at,
                  g->below, g->above, carry, carried != NULL);
    for (Py_ssize_t a = 0; a < A; a++) {
        Py_ssize_t j = g->column[a];
        /* a discrete test with more branches than the budget is refused (_Grower.refuse_wide) */
        if (g->kind[a] == 1 && !g->tested[a] && !((double)g->nvals[j] > budget)) {
            g->gain[a] = g->g_d[j];
            g->split[a] = g->s_d[j];
        } else if (g->kind[a] == 2) {
            g->gain[a] = g->g_c[j];
            g->split[a] = g->s_c[j];
        }
    }
    const int64_t a = choose(g);
    if (a < 0) {
        free(idx);
        free(carry);
        return emit(g, best_class, cases, errors, 0, -1, 0.0, 0, dist) ? 0 : -1;
    }
    const Py_ssize_t j = g->column[a];
    const int continuous = g->kind[a] == 2;
    const double cut = continuous ? snap(g, j, g->below[j], g->above[j]) : 0.0;
    const Py_ssize_t forks = continuous ? 2 : g->nvals[j];
    memset(f, 0, sizeof(*f));
    f->idx = idx;
    f->first = calloc((size_t)forks + 2, sizeof(Py_ssize_t));
    f->dist = malloc((size_t)C * 4);
    int32_t *outcome = malloc(((size_t)n + 1) * 4);
    if (!(f->first && f->dist && outcome && emit(g, best_class, cases, errors, continuous ? 2 : 1, a, cut, forks, dist))) {
        free(outcome);
        free(carry);
        frame_free(f);
        return -1;
    }
    memcpy(f->dist, dist, (size_t)C * 4);
    /* branch_of: -1 unknown, -2 no branch (a code beyond the attribute's values) */
    const float cut32 = (float)cut;
    Py_ssize_t n_unknown = 0;
    float unknown_weight = 0.0f;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t b;
        if (continuous) {
            /* the value by its rank (-0.0 and 0.0 share one: equal here) */
            int32_t r = g->rank[j * g->N + idx[i]];
            b = r == g->sorted_at[j + 1] - g->sorted_at[j] ? -1 : (float)g->sorted[g->sorted_at[j] + r] <= cut32 ? 0 : 1;
        } else {
            Py_ssize_t at = idx[i] * g->D + j;
            int64_t code = g->width == 1 ? ((const int8_t *)g->Xd)[at]
                         : g->width == 2 ? ((const int16_t *)g->Xd)[at] : ((const int64_t *)g->Xd)[at];
            b = code < 0 ? -1 : code < forks ? (int32_t)code : -2;
        }
        outcome[i] = b;
        if (b == -1) {
            n_unknown++;
            unknown_weight = unknown_weight + g->w[i];
        } else if (b >= 0) {
            f->first[b + 1]++;
        }
    }
    for (Py_ssize_t v = 0; v < forks; v++) f->first[v + 1] += f->first[v];
    f->forks = forks;
    /* with unknown outcomes the branches' cases are not in node order: each sorts its own */
    const int handed = carry && !n_unknown ? hand_down(g, f, carry, outcome, n) : 1;
    free(carry);
    f->unknown = malloc(((size_t)n_unknown + 1) * 8);
    f->grouped = malloc(((size_t)f->first[forks] + 1) * 8);
    Py_ssize_t *fill = malloc(((size_t)forks + 1) * sizeof(Py_ssize_t));
    if (!(handed && f->unknown && f->grouped && fill)) {
        free(outcome); free(fill);
        frame_free(f);
        return -1;
    }
    memcpy(fill, f->first, (size_t)forks * sizeof(Py_ssize_t));
    for (Py_ssize_t i = 0, u = 0; i < n; i++) {
        if (outcome[i] == -1) f->unknown[u++] = idx[i];
        else if (outcome[i] >= 0) f->grouped[fill[outcome[i]]++] = idx[i];
    }
    free(outcome); free(fill);
    f->n_unknown = n_unknown;
    f->known_total = cases - unknown_weight;
    f->attribute = a;
    f->best_class = best_class;
    f->forks = forks;
    g->tested[a]++;
    return 1;
}

PyDoc_STRVAR(grow_nodes_doc,
"grow_nodes(ranks, k, Xd, width, D, V, y, n_classes, weights, clean, column, kind, excluded,\n"
"           nvals, sorted, sorted32, sorted_at, tested, min_objs, gain_ratio, defer, idx, leaf_ratio)\n\n"
"grow.py _Grower.grow of the cases idx (int64, each case once), depth first, node by node:\n"
"ranks (int32, k x all cases: node_cuts' ranks, by the values below); Xd (all cases x D codes,\n"
"`width` bytes; V the widest attribute's values + 1); y (int64); weights (float32, changed and\n"
"restored in place as c4.5 does); clean (uint8: no unknown value); per attribute column (int64),\n"
"kind (uint8: 0 ignored, 1 discrete, 2 continuous), excluded (uint8: many-valued, out of the\n"
"average gain); nvals (int64, per discrete column); the continuous columns' distinct known\n"
"values, float64 and float32, column j at sorted_at[j]..sorted_at[j+1]; tested (int64 per\n"
"attribute, restored); defer: leave subtrees whose cases weigh 1 and are clean to the\n"
"level-wise growth. Returns a tuple of bytes: the nodes depth first (klass int64, items float64,\n"
"errors float64, kind int8, attribute int64, cut float64, fanout int64, dist float32 x classes)\n"
"and the deferred subtrees (their node's position int64, size int64, cases int64, tested uint8\n"
"x attributes). leaf_ratio > 0 (boosting's later trials): a node whose leaf_ratio x weight is under 2\n"
"stays a leaf, and a discrete test with more branches than that is refused (0: no budget).");

static PyObject *py_grow_nodes(PyObject *self, PyObject *args) {
    (void)self;
    enum { RANK, XD, Y, W, CLEAN, COLUMN, KIND, EXCL, NVALS, SORTED, SORTED32, SORTED_AT, TESTED, IDX, NV };
    Py_buffer v[NV];
    memset(v, 0, sizeof(v));
    Grow g;
    memset(&g, 0, sizeof(g));
    if (!PyArg_ParseTuple(args, "y*ny*nnny*nw*y*y*y*y*y*y*y*y*w*dppy*d", &v[RANK], &g.k, &v[XD], &g.width,
                          &g.D, &g.V, &v[Y], &g.C, &v[W], &v[CLEAN], &v[COLUMN], &v[KIND], &v[EXCL], &v[NVALS],
                          &v[SORTED], &v[SORTED32], &v[SORTED_AT], &v[TESTED], &g.min_objs, &g.gain_ratio,
                          &g.defer, &v[IDX], &g.leaf_ratio))
        return NULL;
    /* boosting's later trials (their trees are small, their cases all reach the deep nodes): the
       single fit's memory stays as it was */
    g.carry = g.leaf_ratio > 0;
    PyObject *result = NULL;
    Frame *stack = NULL;
    Py_ssize_t depth = 0, room = 0;
    int status = 0;
    g.N = v[Y].len / 8;
    g.A = v[KIND].len;
    Py_ssize_t n = v[IDX].len / 8;
    if ((g.width != 1 && g.width != 2 && g.width != 8) || g.k < 0 || g.D < 0 || (g.D && g.V < 2) || g.N < 1
        || g.C < 1 || n < 1 || g.N >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "grow_nodes: bad widths or extents");
        goto done;
    }
    if (!(view_ok(&v[RANK], g.N * g.k, 4, "ranks")
          && view_ok(&v[XD], g.N * g.D, g.width, "Xd") && view_ok(&v[W], g.N, 4, "weights")
          && view_ok(&v[CLEAN], g.N, 1, "clean") && view_ok(&v[COLUMN], g.A, 8, "column")
          && view_ok(&v[EXCL], g.A, 1, "excluded") && view_ok(&v[NVALS], g.D, 8, "nvals")
          && view_ok(&v[SORTED_AT], g.k + 1, 8, "sorted_at") && view_ok(&v[TESTED], g.A, 8, "tested")
          && view_ok(&v[IDX], n, 8, "idx")))
        goto done;
    g.rank = v[RANK].buf; g.Xd = v[XD].buf; g.y = v[Y].buf; g.weights = v[W].buf;
    g.clean = v[CLEAN].buf; g.column = v[COLUMN].buf; g.kind = v[KIND].buf; g.excluded = v[EXCL].buf;
    g.nvals = v[NVALS].buf; g.sorted = v[SORTED].buf; g.sorted32 = v[SORTED32].buf; g.sorted_at = v[SORTED_AT].buf;
    g.tested = v[TESTED].buf;
    const int64_t *root = v[IDX].buf;
    int bad = v[SORTED].len / 8 != v[SORTED32].len / 4 || g.sorted_at[0] != 0 || g.sorted_at[g.k] != v[SORTED].len / 8;
    for (Py_ssize_t j = 0; j < g.k && !bad; j++) bad = g.sorted_at[j + 1] < g.sorted_at[j];
    for (Py_ssize_t a = 0; a < g.A && !bad; a++)
        bad = g.kind[a] > 2 || (g.kind[a] && (g.column[a] < 0 || g.column[a] >= (g.kind[a] == 1 ? g.D : g.k)));
    for (Py_ssize_t j = 0; j < g.D && !bad; j++) bad = g.nvals[j] < 0 || g.nvals[j] + 1 > g.V;
    for (Py_ssize_t i = 0; i < g.N && !bad; i++) bad = g.y[i] < 0 || g.y[i] >= g.C;
    for (Py_ssize_t i = 0; i < n && !bad; i++) bad = root[i] < 0 || root[i] >= g.N;
    bad = bad || !ranks_ok(g.rank, g.N, g.k, g.sorted_at, NULL, g.N);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "grow_nodes: a class, column, value count, value list or case out of range");
        goto done;
    }
    const size_t C = (size_t)g.C, A = (size_t)g.A, K = (size_t)g.k + 1, D = (size_t)g.D + 1;
    g.w = malloc(((size_t)n + 1) * 4); g.yl = malloc(((size_t)n + 1) * 8);
    g.dist = malloc(C * 4); g.gain = malloc(A * 4 + 4); g.split = malloc(A * 4 + 4);
    g.tables = malloc(D * (size_t)(g.V + 1) * C * 4); g.g_d = malloc(D * 4); g.s_d = malloc(D * 4);
    g.val_freq = malloc((size_t)(g.V + 1) * 4); g.class_count = malloc(C * 4);
    g.g_c = malloc(K * 4); g.s_c = malloc(K * 4); g.at = malloc(K * 8); g.below = malloc(K * 8); g.above = malloc(K * 8);
    g.tested_now = malloc(A + 1);
    int64_t *first = malloc(((size_t)n + 1) * 8);
    if (!(g.w && g.yl && g.dist && g.gain && g.split && g.tables && g.g_d && g.s_d && g.val_freq
          && g.class_count && g.g_c && g.s_c && g.at && g.below && g.above && g.tested_now && first
          && cut_scratch_alloc(&g.cs, n, g.C))) {
        free(first);
        status = -1;
        goto free_all;
    }
    memcpy(first, root, (size_t)n * 8);
    Py_BEGIN_ALLOW_THREADS
    room = 64;
    stack = malloc((size_t)room * sizeof(Frame));
    status = stack ? visit(&g, first, n, &stack[0], NULL) : -1;
    if (status == 1) depth = 1;
    while (depth > 0 && status >= 0) {
        Frame *f = &stack[depth - 1];
        if (f->undo) {
            /* undone by division as in c4.5 (not always exactly the old weight) */
            for (Py_ssize_t u = 0; u < f->n_unknown; u++) g.weights[f->unknown[u]] = g.weights[f->unknown[u]] / f->factor;
            f->undo = 0;
        }
        if (f->next == f->forks) {
            g.tested[f->attribute]--;
            frame_free(f);
            depth--;
            continue;
        }
        Py_ssize_t b = f->next++, lo = f->first[b], hi = f->first[b + 1];
        if (lo == hi) {
            status = emit(&g, f->best_class, 0.0f, 0.0f, 0, -1, 0.0, 0, f->dist) ? 0 : -1;
            continue;
        }
        float mine = 0.0f;
        for (Py_ssize_t i = lo; i < hi; i++) mine = mine + g.weights[f->grouped[i]];
        f->factor = mine / f->known_total;
        for (Py_ssize_t u = 0; u < f->n_unknown; u++) g.weights[f->unknown[u]] = g.weights[f->unknown[u]] * f->factor;
        f->undo = 1;
        /* c4.5 groups the cases with unknown outcome at the front of the node's range and
           passes them first to every branch: that order decides the float sums below it */
        Py_ssize_t m = f->n_unknown + (hi - lo);
        int64_t *child = malloc((size_t)m * 8);
        if (!child) { status = -1; break; }
        int32_t *kid = f->kids ? f->kids[b] : NULL;     /* the child's now (the stack may move) */
        if (f->kids) f->kids[b] = NULL;
        memcpy(child, f->unknown, (size_t)f->n_unknown * 8);
        memcpy(child + f->n_unknown, f->grouped + lo, (size_t)(hi - lo) * 8);
        if (depth == room) {
            Frame *more = realloc(stack, (size_t)room * 2 * sizeof(Frame));
            if (!more) { free(child); free(kid); status = -1; break; }
            stack = more;
            room *= 2;
        }
        status = visit(&g, child, m, &stack[depth], kid);
        if (status == 1) depth++;
    }
    Py_END_ALLOW_THREADS
free_all:
    for (Py_ssize_t d = 0; d < depth; d++) frame_free(&stack[d]);
    free(stack);
    if (status == -1) PyErr_NoMemory();
    else if (status == -2) PyErr_SetString(PyExc_ValueError, "grow_nodes: a discrete value code out of range");
    else {
        result = PyTuple_New(N_OUT);
        for (int o = 0; result && o < N_OUT; o++) {
            PyObject *bytes = PyBytes_FromStringAndSize(g.out[o].p ? g.out[o].p : "", (Py_ssize_t)g.out[o].len);
            if (!bytes) { Py_CLEAR(result); break; }
            PyTuple_SET_ITEM(result, o, bytes);
        }
    }
    for (int o = 0; o < N_OUT; o++) free(g.out[o].p);
    free(g.w); free(g.yl); free(g.dist); free(g.gain); free(g.split); free(g.tables); free(g.g_d);
    free(g.s_d); free(g.val_freq); free(g.class_count); free(g.g_c); free(g.s_c); free(g.at); free(g.below);
    free(g.above); free(g.tested_now);
    cut_scratch_free(&g.cs);
done:
    release(v, NV);
    return result;
}

/* ---- pruning a tree that cases with unknown values go down in fractions (prune.py) --------
 * _Pruner.estimate, compiled: c4.5 EstimateErrors over the tree's nodes (slots, changed in
 * place: a raised branch's fields are copied into its parent's slot as Node.become does),
 * with the same float sums in the same order and the weights of the cases with an unknown
 * outcome scaled for each branch and restored by division. The extra errors of a (cases,
 * errors) pair come from the caller's `extra` (estimate.py is the one home of AddErrs), once
 * per distinct pair. A subset test (-s) routes a value code through its node's row of a
 * code -> branch map. */

typedef struct {
    Py_ssize_t N, C, M;
    const int64_t *y;
    float *weights;
    const double **fcol;        /* per attribute: a continuous column, or NULL */
    const int32_t **dcol;       /* per attribute: a discrete column of codes, or NULL */
    int8_t *kind;
    int64_t *attribute, *first, *fanout, *kids, *klass;
    double *cut, *items, *errors;
    float *dist;
    const int64_t *map_at;      /* subset tests: node i's codes map through map[map_at[i]..map_at[i+1]] */
    const int32_t *map;
    int64_t *origin;            /* the grown node whose test each slot holds (raising copies it) */
    PyObject *extra;
    uint64_t *keys;             /* the pairs met: (cases bits << 32 | errors bits) + 1, 0 empty */
    float *known;
    size_t cap, used;
    int failed;                 /* 1: out of memory; 2: an exception from `extra` */
} Prune;

static int extra_errors(Prune *p, float cases, float errors, float *out) {
    uint32_t cb, eb;
    memcpy(&cb, &cases, 4);
    memcpy(&eb, &errors, 4);
    uint64_t key = (((uint64_t)cb << 32) | eb) + 1;
    if (2 * (p->used + 1) > p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        uint64_t *keys = calloc(cap, 8);
        float *known = malloc(cap * 4);
        if (!(keys && known)) { free(keys); free(known); p->failed = 1; return 0; }
        for (size_t s = 0; s < p->cap; s++) {
            if (!p->keys[s]) continue;
            size_t h = (size_t)((p->keys[s] * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
            while (keys[h]) h = (h + 1) & (cap - 1);
            keys[h] = p->keys[s];
            known[h] = p->known[s];
        }
        free(p->keys); free(p->known);
        p->keys = keys; p->known = known; p->cap = cap;
    }
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (p->cap - 1);
    while (p->keys[h] && p->keys[h] != key) h = (h + 1) & (p->cap - 1);
    if (!p->keys[h]) {
        PyObject *r = PyObject_CallFunction(p->extra, "dd", (double)cases, (double)errors);
        double x = r ? PyFloat_AsDouble(r) : -1.0;
        Py_XDECREF(r);
        if (PyErr_Occurred()) { p->failed = 2; return 0; }
        p->keys[h] = key;
        p->known[h] = (float)x;
        p->used++;
    }
    *out = p->known[h];
    return 1;
}

/* _Pruner.leaf_estimate: errors of a leaf of class klass (ties keep it) plus the extra errors */
static float leaf_estimate(Prune *p, const float *dist, float cases, int64_t klass, int64_t *best) {
    int64_t top = 0;
    for (Py_ssize_t c = 1; c < p->C; c++)
        if (dist[c] > dist[top]) top = c;
    *best = dist[top] > dist[klass] ? top : klass;
    float errors = cases - dist[*best], extra = 0.0f;
    extra_errors(p, cases, errors, &extra);
    return errors + extra;
}

static int32_t prune_branch(const Prune *p, int64_t i, int64_t c) {
    int64_t a = p->attribute[i];
    if (p->kind[i] == 2) {
        double x = p->fcol[a][c];
        return x != x ? -1 : (float)x <= (float)p->cut[i] ? 0 : 1;
    }
    int32_t code = p->dcol[a][c];
    if (p->kind[i] == 3) {
        /* the map of the grown node this slot's test came from: raising moves tests up */
        const int64_t o = p->origin[i], lo = p->map_at[o];
        return code < 0 || code >= p->map_at[o + 1] - lo ? -1 : p->map[lo + code];
    }
    return code < 0 ? -1 : code;
}

static void become(Prune *p, int64_t i, int64_t j) {
    p->kind[i] = p->kind[j]; p->attribute[i] = p->attribute[j]; p->cut[i] = p->cut[j];
    p->first[i] = p->first[j]; p->fanout[i] = p->fanout[j]; p->klass[i] = p->klass[j];
    p->items[i] = p->items[j]; p->errors[i] = p->errors[j]; p->origin[i] = p->origin[j];
    memcpy(p->dist + i * p->C, p->dist + j * p->C, (size_t)p->C * 4);
}

/* _Pruner.estimate(node i, cases idx, update) */
static float estimate(Prune *p, int64_t i, const int64_t *idx, Py_ssize_t n, int update) {
    if (n == 0 || p->failed) return 0.0f;
    const Py_ssize_t C = p->C;
    float *dist = calloc((size_t)C, 4), cases = 0.0f;
    if (!dist) { p->failed = 1; return 0.0f; }
    for (Py_ssize_t k = 0; k < n; k++) {
        float w = p->weights[idx[k]];
        cases = cases + w;
        dist[p->y[idx[k]]] = dist[p->y[idx[k]]] + w;
    }
    const int leaf = p->kind[i] == 0;
    int64_t best = p->klass[i];
    float leaf_est = 0.0f;
    if (update || leaf) leaf_est = leaf_estimate(p, dist, cases, p->klass[i], &best);
    if (update) {
        p->items[i] = cases;
        p->klass[i] = best;
        memcpy(p->dist + i * C, dist, (size_t)C * 4);
        if (leaf) p->errors[i] = leaf_est;
    }
    free(dist);
    if (leaf) return leaf_est;
    const Py_ssize_t forks = p->fanout[i];
    int32_t *out = malloc(((size_t)n + 1) * 4);
    Py_ssize_t *at = calloc((size_t)forks + 2, sizeof(Py_ssize_t));
    int64_t *unknown = malloc(((size_t)n + 1) * 8), *grouped = malloc(((size_t)n + 1) * 8);
    if (!(out && at && unknown && grouped)) {
        free(out); free(at); free(unknown); free(grouped);
        p->failed = 1;
        return 0.0f;
    }
    Py_ssize_t n_unknown = 0;
    float known_total = 0.0f;
    for (Py_ssize_t k = 0; k < n; k++) {
        int32_t b = prune_branch(p, i, idx[k]);
        out[k] = b;
        if (b < 0) unknown[n_unknown++] = idx[k];
        else {
            known_total = known_total + p->weights[idx[k]];
            if (b < forks) at[b + 1]++;
        }
    }
    for (Py_ssize_t v = 0; v < forks; v++) at[v + 1] += at[v];
    for (Py_ssize_t k = 0; k < n; k++)
        if (out[k] >= 0 && out[k] < forks) grouped[at[out[k]]++] = idx[k];
    for (Py_ssize_t v = forks; v > 0; v--) at[v] = at[v - 1];     /* back to each branch's start */
    at[0] = 0;
    free(out);
    float tree_est = 0.0f, max_factor = 0.0f;
    Py_ssize_t max_branch = 0;
    const int64_t *kids = p->kids + p->first[i];
    for (Py_ssize_t v = 0; v < forks && !p->failed; v++) {
        Py_ssize_t lo = at[v], hi = at[v + 1];
        if (lo == hi) continue;
        float mine = 0.0f;
        for (Py_ssize_t k = lo; k < hi; k++) mine = mine + p->weights[grouped[k]];
        const float factor = mine / known_total;
        if (factor >= max_factor) {    /* ties: the later branch */
            max_branch = v;
            max_factor = factor;
        }
        int64_t *child = malloc(((size_t)(n_unknown + hi - lo)) * 8);
        if (!child) { p->failed = 1; break; }
        memcpy(child, unknown, (size_t)n_unknown * 8);
        memcpy(child + n_unknown, grouped + lo, (size_t)(hi - lo) * 8);
        for (Py_ssize_t u = 0; u < n_unknown; u++) p->weights[unknown[u]] = p->weights[unknown[u]] * factor;
        tree_est = tree_est + estimate(p, kids[v], child, n_unknown + hi - lo, update);
        /* undone by division as in c4.5 (not always exactly the old weight) */
        for (Py_ssize_t u = 0; u < n_unknown; u++) p->weights[unknown[u]] = p->weights[unknown[u]] / factor;
        free(child);
    }
    free(at); free(unknown); free(grouped);
    if (!update || p->failed) return tree_est;
    /* settle (spec 3.2): float estimates against a double + 0.1 */
    const int64_t largest = kids[max_branch];
    const float branch_est = estimate(p, largest, idx, n, 0);
    if ((double)leaf_est <= (double)branch_est + 0.1 && (double)leaf_est <= (double)tree_est + 0.1) {
        p->kind[i] = 0;
        p->attribute[i] = -1;
        p->fanout[i] = 0;
        p->errors[i] = leaf_est;
    } else if ((double)branch_est <= (double)tree_est + 0.1) {
        estimate(p, largest, idx, n, 1);
        become(p, i, largest);
    } else {
        p->errors[i] = tree_est;
    }
    return (float)p->errors[i];
}

PyDoc_STRVAR(prune_nodes_doc,
"prune_nodes(klass, items, errors, kind, attribute, cut, fanout, dist, columns, y, weights, extra,\n"
"            subset_maps=None)\n\n"
"prune.py _Pruner.estimate(root, every case, True) for a tree held depth first as node.FlatTree\n"
"holds it (klass int64, items float64, errors float64, kind int8: leaf, discrete or threshold,\n"
"attribute int64, cut float64, fanout int64, dist float32 nodes x classes; kind 3, a subset test,\n"
"needs subset_maps = (map_at int64 nodes + 1, map int32): node i sends code c < map_at[i+1] - map_at[i]\n"
"to branch map[map_at[i] + c], -1 none); columns: per\n"
"attribute its column (float64 continuous, int32 discrete codes) or None where no node tests\n"
"it; y (int64); weights (float32, changed and restored in place as c4.5 does); extra(cases,\n"
"errors) -> the extra errors of estimate.add_errors. Returns the pruned tree's arrays, depth\n"
"first, as bytes in the same order, then each pruned node's grown node (int64: whose subsets it has).");

static PyObject *py_prune_nodes(PyObject *self, PyObject *args) {
    (void)self;
    enum { KLASS, ITEMS, ERRORS, KIND, ATTRIBUTE, CUT, FANOUT, DIST, Y, W, NV };
    Py_buffer v[NV];
    memset(v, 0, sizeof(v));
    PyObject *columns, *extra, *maps = Py_None;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*O!y*w*O|O", &v[KLASS], &v[ITEMS], &v[ERRORS], &v[KIND], &v[ATTRIBUTE],
                          &v[CUT], &v[FANOUT], &v[DIST], &PyTuple_Type, &columns, &v[Y], &v[W], &extra, &maps))
        return NULL;
    Py_buffer map_v[2];
    memset(map_v, 0, sizeof(map_v));
    PyObject *result = NULL;
    Prune p;
    memset(&p, 0, sizeof(p));
    const Py_ssize_t A = PyTuple_GET_SIZE(columns);
    Py_buffer *cols = calloc((size_t)A + 1, sizeof(Py_buffer));
    int64_t *span = NULL, *idx = NULL, *stack = NULL;
    p.M = v[KIND].len;
    p.N = v[Y].len / 8;
    p.C = p.M ? v[DIST].len / 4 / p.M : 0;
    p.extra = extra;
    p.fcol = calloc((size_t)A + 1, sizeof(double *));
    p.dcol = calloc((size_t)A + 1, sizeof(int32_t *));
    if (!(cols && p.fcol && p.dcol)) { PyErr_NoMemory(); goto done; }
    if (!(p.M > 0 && p.C > 0 && p.N > 0 && view_ok(&v[KLASS], p.M, 8, "klass") && view_ok(&v[ITEMS], p.M, 8, "items")
          && view_ok(&v[ERRORS], p.M, 8, "errors") && view_ok(&v[ATTRIBUTE], p.M, 8, "attribute")
          && view_ok(&v[CUT], p.M, 8, "cut") && view_ok(&v[FANOUT], p.M, 8, "fanout")
          && view_ok(&v[DIST], p.M * p.C, 4, "dist") && view_ok(&v[W], p.N, 4, "weights")))
        goto done;
    if (!PyCallable_Check(extra)) {
        PyErr_SetString(PyExc_TypeError, "prune_nodes: extra must be callable");
        goto done;
    }
    if (maps != Py_None) {
        if (!(PyTuple_Check(maps) && PyTuple_GET_SIZE(maps) == 2)) {
            PyErr_SetString(PyExc_TypeError, "prune_nodes: subset_maps must be (map_at, map)");
            goto done;
        }
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(maps, 0), &map_v[0], PyBUF_C_CONTIGUOUS) < 0
            || PyObject_GetBuffer(PyTuple_GET_ITEM(maps, 1), &map_v[1], PyBUF_C_CONTIGUOUS) < 0
            || !view_ok(&map_v[0], p.M + 1, 8, "map_at") || map_v[1].len % 4)
            goto done;
        p.map_at = map_v[0].buf;
        p.map = map_v[1].buf;
        int bad_map = p.map_at[0] != 0 || p.map_at[p.M] != map_v[1].len / 4;
        for (Py_ssize_t i = 0; i < p.M && !bad_map; i++) bad_map = p.map_at[i + 1] < p.map_at[i];
        for (Py_ssize_t i = 0; i < p.M && !bad_map; i++)
            for (int64_t k = p.map_at[i]; k < p.map_at[i + 1] && !bad_map; k++)
                bad_map = p.map[k] < -1 || p.map[k] >= ((const int64_t *)v[FANOUT].buf)[i];
        if (bad_map) {
            PyErr_SetString(PyExc_ValueError, "prune_nodes: a subset map is out of its node's bounds or branches");
            goto done;
        }
    }
    const int8_t *kind_in = v[KIND].buf;
    const int64_t *attr_in = v[ATTRIBUTE].buf, *fan_in = v[FANOUT].buf, *y = v[Y].buf;
    for (Py_ssize_t a = 0; a < A; a++) {
        PyObject *col = PyTuple_GET_ITEM(columns, a);
        if (col == Py_None) continue;
        if (PyObject_GetBuffer(col, &cols[a], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
        const char *f = cols[a].format;
        if (cols[a].len == p.N * 8 && f && (f[0] == 'd' || (f[0] == '<' && f[1] == 'd'))) p.fcol[a] = cols[a].buf;
        else if (cols[a].len == p.N * 4 && f && (strchr("il", f[f[0] == '<' ? 1 : 0]))) p.dcol[a] = cols[a].buf;
        else {
            PyErr_Format(PyExc_ValueError, "prune_nodes: column %zd is neither float64 nor int32 of every case", a);
            goto done;
        }
    }
    /* the tree's shape: every node's children, from the depth-first order */
    int bad = 0;
    for (Py_ssize_t i = 0; i < p.N && !bad; i++) bad = y[i] < 0 || y[i] >= p.C;
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < p.M && !bad; i++) {
        bad = fan_in[i] < 0 || kind_in[i] < 0 || kind_in[i] > 3 || (kind_in[i] == 3 && !p.map)
              || (kind_in[i] == 0) != (fan_in[i] == 0)
              || (kind_in[i] && (attr_in[i] < 0 || attr_in[i] >= A
                                 || !(kind_in[i] == 2 ? p.fcol[attr_in[i]] != NULL : p.dcol[attr_in[i]] != NULL)));
        total += bad ? 0 : fan_in[i];
    }
    if (bad || total != p.M - 1) {
        PyErr_SetString(PyExc_ValueError, "prune_nodes: a class, node kind, attribute or column, or the tree's shape is wrong");
        goto done;
    }
    p.y = y;
    p.weights = v[W].buf;
    p.kind = malloc((size_t)p.M); p.attribute = malloc((size_t)p.M * 8); p.first = malloc((size_t)p.M * 8);
    p.fanout = malloc((size_t)p.M * 8); p.kids = malloc((size_t)p.M * 8); p.klass = malloc((size_t)p.M * 8);
    p.cut = malloc((size_t)p.M * 8); p.items = malloc((size_t)p.M * 8); p.errors = malloc((size_t)p.M * 8);
    p.dist = malloc((size_t)(p.M * p.C) * 4);
    p.origin = malloc((size_t)p.M * 8);
    span = malloc((size_t)p.M * 8);
    idx = malloc((size_t)p.N * 8);
    stack = malloc((size_t)p.M * 8);
    if (!(p.kind && p.attribute && p.first && p.fanout && p.kids && p.klass && p.cut && p.items && p.errors && p.dist
          && p.origin && span && idx && stack)) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(p.kind, kind_in, (size_t)p.M); memcpy(p.attribute, attr_in, (size_t)p.M * 8);
    memcpy(p.fanout, fan_in, (size_t)p.M * 8); memcpy(p.klass, v[KLASS].buf, (size_t)p.M * 8);
    memcpy(p.cut, v[CUT].buf, (size_t)p.M * 8); memcpy(p.items, v[ITEMS].buf, (size_t)p.M * 8);
    memcpy(p.errors, v[ERRORS].buf, (size_t)p.M * 8); memcpy(p.dist, v[DIST].buf, (size_t)(p.M * p.C) * 4);
    for (Py_ssize_t i = 0; i < p.M; i++) p.origin[i] = i;
    for (Py_ssize_t i = 0, at = 0; i < p.M; i++) {
        p.first[i] = at;
        at += p.fanout[i];
    }
    for (Py_ssize_t i = p.M - 1; i >= 0 && !bad; i--) {
        int64_t j = i + 1;
        for (int64_t b = 0; b < p.fanout[i] && !bad; b++) {
            if (j >= p.M) bad = 1;
            else {
                p.kids[p.first[i] + b] = j;
                j += span[j];
            }
        }
        span[i] = j - i;
    }
    if (bad || span[0] != p.M) {
        PyErr_SetString(PyExc_ValueError, "prune_nodes: the fanouts do not make one tree");
        goto done;
    }
    for (Py_ssize_t i = 0; i < p.N; i++) idx[i] = i;
    estimate(&p, 0, idx, p.N, 1);
    if (p.failed == 1) PyErr_NoMemory();
    if (p.failed) goto done;
    /* the pruned tree, depth first from the root */
    Buf out[9];
    memset(out, 0, sizeof(out));
    Py_ssize_t top = 0;
    stack[top++] = 0;
    int ok = 1;
    while (top && ok) {
        int64_t i = stack[--top];
        ok = buf_put(&out[0], &p.klass[i], 8) && buf_put(&out[1], &p.items[i], 8) && buf_put(&out[2], &p.errors[i], 8)
             && buf_put(&out[3], &p.kind[i], 1) && buf_put(&out[4], &p.attribute[i], 8) && buf_put(&out[5], &p.cut[i], 8)
             && buf_put(&out[6], &p.fanout[i], 8) && buf_put(&out[7], p.dist + i * p.C, (size_t)p.C * 4)
             && buf_put(&out[8], &p.origin[i], 8);
        for (int64_t b = p.fanout[i] - 1; b >= 0; b--) stack[top++] = p.kids[p.first[i] + b];
    }
    if (ok) {
        result = PyTuple_New(9);
        for (int o = 0; result && o < 9; o++) {
            PyObject *bytes = PyBytes_FromStringAndSize(out[o].p ? out[o].p : "", (Py_ssize_t)out[o].len);
            if (!bytes) { Py_CLEAR(result); break; }
            PyTuple_SET_ITEM(result, o, bytes);
        }
    } else {
        PyErr_NoMemory();
    }
    for (int o = 0; o < 9; o++) free(out[o].p);
done:
    for (Py_ssize_t a = 0; cols && a < A; a++)
        if (cols[a].obj) PyBuffer_Release(&cols[a]);
    free(cols); free(p.fcol); free(p.dcol);
    free(p.kind); free(p.attribute); free(p.first); free(p.fanout); free(p.kids); free(p.klass); free(p.cut);
    free(p.items); free(p.errors); free(p.dist); free(p.keys); free(p.known); free(p.origin);
    free(span); free(idx); free(stack);
    release(v, NV);
    release(map_v, 2);
    return result;
}

/* ---- windowing replay (window.py): c4.5's Item array as its loops leave it ----------
 * c4.5 -t reshuffles the Item array each trial from the order the previous trial's
 * growing (Group, the unknown grouping and Quicksort of EvalContinuousAtt) and pruning
 * (Group) left it in, so the window of every trial after the first depends on those
 * swaps (spec 5). item (int64: case at each position) and weight (float32, by position)
 * are swapped together, as c4.5's Swap does. */

static inline void swap_at(int64_t *item, float *weight, Py_ssize_t a, Py_ssize_t b) {
    int64_t t = item[a]; item[a] = item[b]; item[b] = t;
    float w = weight[a]; weight[a] = weight[b]; weight[b] = w;
}

PyDoc_STRVAR(replay_group_doc,
"replay_group(item, weight, code, value, lo, hi, limit) -> lo'\n\n"
"c4.5 Group's loop: for i in lo..hi, a case whose code (int32, by case) equals value is swapped\n"
"to position lo, lo+1, ...; stops after limit such cases when limit >= 0 (FormInitialWindow).\n"
"Returns the first position after the grouped cases.");

static PyObject *py_replay_group(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[3];
    memset(v, 0, sizeof(v));
    int value;
    Py_ssize_t lo, hi, limit;
    if (!PyArg_ParseTuple(args, "w*w*y*innn", &v[0], &v[1], &v[2], &value, &lo, &hi, &limit))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N = v[0].len / 8;
    if (!(view_ok(&v[1], N, 4, "weight") && view_ok(&v[2], N, 4, "code")))
        goto done;
    if (lo < 0 || hi >= N) {
        PyErr_SetString(PyExc_ValueError, "replay_group: range out of bounds");
        goto done;
    }
    int64_t *item = v[0].buf;
    float *weight = v[1].buf;
    const int32_t *code = v[2].buf;
    for (Py_ssize_t i = lo; i <= hi && limit != 0; i++) {
        if (code[item[i]] == value) {
            swap_at(item, weight, lo++, i);
            if (limit > 0) limit--;
        }
    }
    result = PyLong_FromSsize_t(lo);
done:
    release(v, 3);
    return result;
}

/* c4.5 sort.c Quicksort (last element as pivot, values equal to it gathered below it), with
 * an explicit stack: its two recursive sorts cover disjoint ranges, so their order does not
 * change the final arrangement, and sorted data would otherwise recurse once per case. */
static int quicksort_at(int64_t *item, float *weight, const float *X, Py_ssize_t k, Py_ssize_t j,
                        Py_ssize_t fp, Py_ssize_t lp, Py_ssize_t *stack) {
    Py_ssize_t top = 0;
    stack[top++] = fp; stack[top++] = lp;
    while (top) {
        lp = stack[--top]; fp = stack[--top];
        if (fp >= lp) continue;
        float thresh = X[item[lp] * k + j];
        Py_ssize_t middle = fp;
        for (Py_ssize_t i = fp; i < lp; i++)
            if (X[item[i] * k + j] <= thresh) {
                if (i != middle) swap_at(item, weight, middle, i);
                middle++;
            }
        Py_ssize_t lower = middle - 1;
        for (Py_ssize_t i = lower; i >= fp; i--)
            if (X[item[i] * k + j] == thresh) {
                if (i != lower) swap_at(item, weight, lower, i);
                lower--;
            }
        swap_at(item, weight, middle, lp);
        /* only ranges of two or more cases: those on the stack are disjoint */
        if (fp < lower) { stack[top++] = fp; stack[top++] = lower; }
        if (middle + 1 < lp) { stack[top++] = middle + 1; stack[top++] = lp; }
    }
    return 0;
}

PyDoc_STRVAR(replay_sort_doc,
"replay_sort(item, weight, X, lo, hi, min_objs, orders, items) -> None\n\n"
"EvalContinuousAtt's swaps at a node of cases lo..hi for every column of X (float32, cases x k,\n"
"NaN = unknown), in column order: unknown values to the front, then, when the known weight is\n"
"at least 2 * min_objs, c4.5's Quicksort of the known ones. Row j of orders (int64, k x n) gets\n"
"the cases as that column's scan sees them: the known ones in their sorted order, then the\n"
"unknown ones; items[j] (float32) the node's weight summed in the order before that column.");

static PyObject *py_replay_sort(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[5];
    memset(v, 0, sizeof(v));
    Py_ssize_t lo, hi;
    double min_objs;
    if (!PyArg_ParseTuple(args, "w*w*y*nndw*w*", &v[0], &v[1], &v[2], &lo, &hi, &min_objs, &v[3], &v[4]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t *stack = NULL;
    Py_ssize_t N = v[0].len / 8, k = N ? v[2].len / 4 / N : 0, n = hi - lo + 1;
    if (!(view_ok(&v[1], N, 4, "weight") && view_ok(&v[2], N * k, 4, "X") && n >= 0
          && view_ok(&v[3], k * n, 8, "orders") && view_ok(&v[4], k, 4, "items")))
        goto done;
    if (lo < 0 || hi >= N) {
        PyErr_SetString(PyExc_ValueError, "replay_sort: range out of bounds");
        goto done;
    }
    int64_t *item = v[0].buf;
    float *weight = v[1].buf;
    const float *X = v[2].buf;
    /* disjoint ranges of two or more cases: at most half the cases */
    stack = malloc(sizeof(Py_ssize_t) * (size_t)(hi - lo + 4));
    if (!stack) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t j = 0; j < k; j++) {
        float items = 0.0f, unknown = 0.0f;
        for (Py_ssize_t i = lo; i <= hi; i++) items = items + weight[i];
        Py_ssize_t xp = lo;
        for (Py_ssize_t i = lo; i <= hi; i++)
            if (isnan(X[item[i] * k + j])) swap_at(item, weight, xp++, i);
        for (Py_ssize_t i = lo; i < xp; i++) unknown = unknown + weight[i];
        float known = items - unknown;
        if (known >= 2 * min_objs) quicksort_at(item, weight, X, k, j, xp, hi, stack);
        int64_t *row = (int64_t *)v[3].buf + j * n;
        Py_ssize_t at = 0;
        for (Py_ssize_t i = xp; i <= hi; i++) row[at++] = item[i];
        for (Py_ssize_t i = lo; i < xp; i++) row[at++] = item[i];
        ((float *)v[4].buf)[j] = items;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(stack);
    release(v, 5);
    return result;
}

PyDoc_STRVAR(replay_shuffle_doc,
"replay_shuffle(item, alt) -> None\n\n"
"c4.5 Shuffle: for each position i in turn, swap item[i] and item[alt[i]] (weights stay).");

static PyObject *py_replay_shuffle(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[2];
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "w*y*", &v[0], &v[1]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N = v[0].len / 8;
    if (!view_ok(&v[1], N, 8, "alt"))
        goto done;
    int64_t *item = v[0].buf;
    const int64_t *alt = v[1].buf;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (alt[i] < 0 || alt[i] >= N) {
            PyErr_SetString(PyExc_ValueError, "replay_shuffle: position out of range");
            goto done;
        }
        int64_t t = item[i]; item[i] = item[alt[i]]; item[alt[i]] = t;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    release(v, 2);
    return result;
}

/* route_cases' exact walk (with a ghost tree): one case at a time, its weight *x shared by
   the whole walk as c4.5's weights array is by its recursion */
typedef struct {
    const int32_t *attr;
    const uint8_t *thr;
    const float *cut, *factor;
    const int64_t *first, *child, *ghost;
    const int32_t *level;
    const Py_buffer *cols;
    Py_ssize_t open_from, open_to, cap, count, i;
    int64_t *rows, *ids, *bits;
    float *wout;
    int through, bad;
} exact_walk;

/* later: whether the case may reach an open node after this subtree (a later branch of an
   unknown value above): if not, the weight this subtree leaves matters no more, and the ghost
   tree below an open node is not walked */
static void walk_exact(exact_walk *e, int64_t g, int64_t known, float *x, int later) {
    for (;;) {
        if (e->bad || e->count < 0) return;
        if (g >= e->open_from && g < e->open_to) {
            if (e->count >= e->cap) { e->count = -1; return; }
            e->bits[e->count] = known;
            e->rows[e->count] = e->i;
            e->ids[e->count] = g - e->open_from;
            e->wout[e->count++] = *x;
            if (!e->through) {
                g = later ? e->ghost[g - e->open_from] : -1;
                if (g < 0) return;
                continue;
            }
        }
        int32_t a = e->attr[g];
        if (a < 0) return;
        int64_t branch;
        if (e->thr[g]) {
            float v = (float)((const double *)e->cols[a].buf)[e->i];
            branch = isnan(v) ? -1 : (v > e->cut[g] ? 1 : 0);
        } else {
            int32_t code = ((const int32_t *)e->cols[a].buf)[e->i];
            branch = code < 0 ? -1 : code;
            if (branch >= e->first[g + 1] - e->first[g]) { e->bad = 1; return; }
        }
        if (branch >= 0) {
            int64_t c = e->child[e->first[g] + branch];
            if (c < 0) return;
            if (e->level[g] >= 0 && e->level[g] < 62) known |= (int64_t)1 << e->level[g];
            g = c;
            continue;
        }
        int64_t last = -1;
        for (int64_t b = e->first[g]; b < e->first[g + 1]; b++)
            if (e->child[b] >= 0) last = b;
        for (int64_t b = e->first[g]; b < e->first[g + 1]; b++)
            if (e->child[b] >= 0) {
                *x = *x * e->factor[b];
                walk_exact(e, e->child[b], known, x, later || b < last);
                *x = *x / e->factor[b];
            }
        return;
    }
}

PyDoc_STRVAR(route_cases_doc,
"route_cases(attr, threshold, cut32, first, child, factor, open_from, columns, w, rows, ids, wout[, level, bits])\n"
"-> count\n\n"
"A batch's cases routed through the tree grown so far to the open nodes of its next level\n"
"(grow_passes.py's _route, compiled): the tree's N nodes in level order, those from open_from\n"
"on the open level's. Node g tests attribute attr[g] (int32; -1 closed: its cases stop),\n"
"by threshold (threshold[g] != 0: branch 1 when the value as float32 > cut32[g], else 0)\n"
"or by value code (branch = the code); its branches are first[g]..first[g+1] (int64, N + 1),\n"
"each with its child's node (child, int64; -1 no cases there: a case stops) and the float32\n"
"share of the known weight (factor). columns (a sequence of A items) holds the batch's\n"
"column of each tested attribute: float64 (NaN unknown) for a threshold, int32 (< 0 unknown)\n"
"for a discrete one; w (float32) the cases' weights. A case whose value is unknown goes down\n"
"every branch with a child, its float32 weight times the branch's factor. Writes each\n"
"(case, open node - open_from, weight) reached to rows, ids (int64) and wout (float32) and\n"
"returns how many, or -1 when they have no room for all (the caller retries with more).\n"
"With level (int32, each node's tree level) and bits (int64, as rows): bit j of bits[i] is set\n"
"where the case's value of the level-j test above its node is known (levels from 62 on are\n"
"not kept), as _route's `known` (the order of the fractional visits).\n"
"With ghost too (int64, one per open node: the open nodes are open_from..open_from +\n"
"len(ghost), the nodes after them a ghost tree, in level order): c4.5's walk exactly, depth\n"
"first with one weight per case, multiplied by a branch's factor, the branch walked, then\n"
"divided back (which need not restore it) before the next branch, so a weight entering a\n"
"branch carries the round trips of the earlier branches' whole subtrees. Below open node k\n"
"the walk goes on at node ghost[k] (-1: none), the subtree grown there before, whose round\n"
"trips count but whose nodes are not written. With through (an int, nonzero) as well, the\n"
"walk goes on through each open node as through any other (its test and branches): with\n"
"open_from 0 and a ghost per node (all -1), every node each case reaches is written.");

static PyObject *py_route_cases(PyObject *self, PyObject *args) {
    (void)self;
    enum { ATTR, THR, CUT, FIRST, CHILD, FACTOR, W, ROWS, IDS, WOUT, LEVEL, BITS, GHOST, NV };
    Py_buffer v[NV];
    memset(v, 0, sizeof(v));
    Py_ssize_t open_from;
    PyObject *columns;
    int through = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*nOy*w*w*w*|y*w*y*p", &v[ATTR], &v[THR], &v[CUT], &v[FIRST], &v[CHILD],
                          &v[FACTOR], &open_from, &columns, &v[W], &v[ROWS], &v[IDS], &v[WOUT], &v[LEVEL], &v[BITS],
                          &v[GHOST], &through))
        return NULL;
    PyObject *result = NULL, *seq = NULL;
    Py_buffer *cols = NULL;
    int64_t *stack_g = NULL, *stack_k = NULL;
    float *stack_w = NULL;
    Py_ssize_t A = 0;
    Py_ssize_t N = v[ATTR].len / 4, B = v[CHILD].len / 8, n = v[W].len / 4, cap = v[ROWS].len / 8;
    if (!(view_ok(&v[THR], N, 1, "threshold") && view_ok(&v[CUT], N, 4, "cut32")
          && view_ok(&v[FIRST], N + 1, 8, "first") && view_ok(&v[FACTOR], B, 4, "factor")
          && view_ok(&v[IDS], cap, 8, "ids") && view_ok(&v[WOUT], cap, 4, "wout")))
        goto done;
    const int keep_bits = v[BITS].obj != NULL;
    if (keep_bits != (v[LEVEL].obj != NULL)) {
        PyErr_SetString(PyExc_TypeError, "route_cases: level and bits go together");
        goto done;
    }
    if (keep_bits && !(view_ok(&v[LEVEL], N, 4, "level") && view_ok(&v[BITS], cap, 8, "bits")))
        goto done;
    /* with a ghost tree, the open nodes end at open_to and the ghost nodes are walked (and checked) too */
    const int64_t *ghost = v[GHOST].obj ? v[GHOST].buf : NULL;
    Py_ssize_t open_to = ghost ? open_from + v[GHOST].len / 8 : N;
    seq = PySequence_Fast(columns, "route_cases: columns must be a sequence");
    if (!seq) goto done;
    A = PySequence_Fast_GET_SIZE(seq);
    cols = calloc((size_t)A + 1, sizeof(Py_buffer));
    if (!cols) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t a = 0; a < A; a++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, a);
        if (item != Py_None && PyObject_GetBuffer(item, &cols[a], PyBUF_SIMPLE) < 0) goto done;
    }
    const int32_t *attr = v[ATTR].buf;
    const uint8_t *thr = v[THR].buf;
    const float *cut = v[CUT].buf, *factor = v[FACTOR].buf, *w = v[W].buf;
    const int64_t *first = v[FIRST].buf, *child = v[CHILD].buf;
    if (open_from < 0 || open_to > N || open_from > open_to || first[0] != 0 || first[N] != B
        || (ghost && !keep_bits)) {
        PyErr_SetString(PyExc_ValueError, "route_cases: open_from, first or ghost out of range");
        goto done;
    }
    for (Py_ssize_t k = 0; ghost && k < open_to - open_from; k++)
        if (ghost[k] < -1 || (ghost[k] >= 0 && (ghost[k] < open_to || ghost[k] >= N))) {
            PyErr_SetString(PyExc_ValueError, "route_cases: a ghost out of range");
            goto done;
        }
    for (Py_ssize_t g = 0; g < N; g++) {
        if (g == open_from && !through) g = open_to;
        if (g >= N) break;
        if (first[g + 1] < first[g]) {
            PyErr_SetString(PyExc_ValueError, "route_cases: first must not decrease");
            goto done;
        }
        for (int64_t b = first[g]; b < first[g + 1]; b++)
            if (child[b] < -1 || child[b] >= N || (child[b] >= 0 && child[b] <= g)) {
                PyErr_SetString(PyExc_ValueError, "route_cases: a child out of range");
                goto done;
            }
        if (attr[g] < 0) continue;
        if (attr[g] >= A || !cols[attr[g]].obj || cols[attr[g]].len != n * (thr[g] ? 8 : 4)
            || (thr[g] && first[g + 1] - first[g] < 2)) {
            PyErr_Format(PyExc_ValueError, "route_cases: node %zd's column or branches do not fit", g);
            goto done;
        }
    }
    /* depth first, every branch of an unknown value pushed: at most all branches at once */
    stack_g = malloc(((size_t)B + 1) * sizeof(int64_t));
    stack_w = malloc(((size_t)B + 1) * sizeof(float));
    stack_k = malloc(((size_t)B + 1) * sizeof(int64_t));
    if (!stack_g || !stack_w || !stack_k) { PyErr_NoMemory(); goto done; }
    int64_t *rows = v[ROWS].buf, *ids = v[IDS].buf, *bits = keep_bits ? v[BITS].buf : NULL;
    const int32_t *level = keep_bits ? v[LEVEL].buf : NULL;
    float *wout = v[WOUT].buf;
    Py_ssize_t count = 0, bad = -1;
    Py_BEGIN_ALLOW_THREADS
    if (ghost) {
        exact_walk e = {attr, thr, cut, factor, first, child, ghost, level, cols, open_from, open_to, cap, 0, 0,
                        rows, ids, bits, wout, through, 0};
        for (Py_ssize_t i = 0; i < n && !e.bad && e.count >= 0; i++) {
            float x = w[i];
            e.i = i;
            walk_exact(&e, 0, 0, &x, 0);
        }
        count = e.count;
        if (e.bad) bad = e.i;
        n = 0;      /* done: the stack walk below does nothing */
    }
    for (Py_ssize_t i = 0; i < n && bad < 0 && count >= 0; i++) {
        Py_ssize_t top = 0;
        stack_g[0] = 0;
        stack_w[0] = w[i];
        stack_k[0] = 0;
        top = 1;
        while (top > 0) {
            top--;
            int64_t g = stack_g[top], known = stack_k[top];
            float wt = stack_w[top];
            if (g >= open_from) {
                if (count >= cap) { count = -1; break; }
                if (bits) bits[count] = known;
                rows[count] = i;
                ids[count] = g - open_from;
                wout[count++] = wt;
                continue;
            }
            int32_t a = attr[g];
            if (a < 0) continue;
            int64_t branch;
            if (thr[g]) {
                float x = (float)((const double *)cols[a].buf)[i];
                branch = isnan(x) ? -1 : (x > cut[g] ? 1 : 0);
            } else {
                int32_t code = ((const int32_t *)cols[a].buf)[i];
                branch = code < 0 ? -1 : code;
                if (branch >= first[g + 1] - first[g]) { bad = i; break; }
            }
            if (branch >= 0) {
                int64_t c = child[first[g] + branch];
                if (c >= 0) {
                    stack_g[top] = c;
                    stack_k[top] = level && level[g] >= 0 && level[g] < 62 ? known | ((int64_t)1 << level[g]) : known;
                    stack_w[top++] = wt;
                }
                continue;
            }
            /* c4.5 multiplies the weight by a branch's factor, grows the branch, then divides
               it back, which need not restore it exactly, before the next branch (grow_passes.
               _shared_weights) */
            float x = wt;
            for (int64_t b = first[g]; b < first[g + 1]; b++)
                if (child[b] >= 0) {
                    float share = x * factor[b];
                    stack_g[top] = child[b];
                    stack_k[top] = known;
                    stack_w[top++] = share;
                    x = share / factor[b];
                }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "route_cases: case %zd has a value code beyond its node's branches", bad);
        goto done;
    }
    result = PyLong_FromSsize_t(count);
done:
    if (cols) {
        for (Py_ssize_t a = 0; a < A; a++)
            if (cols[a].obj) PyBuffer_Release(&cols[a]);
        free(cols);
    }
    free(stack_g);
    free(stack_w);
    free(stack_k);
    Py_XDECREF(seq);
    release(v, NV);
    return result;
}

PyDoc_STRVAR(key_runs_doc,
"key_runs(keys, scratch, out_keys, out_counts) -> count\n\n"
"The distinct int64 keys ascending with how many times each occurs, written to\n"
"out_keys and out_counts (int64, room for all keys), returns how many: np.unique(keys,\n"
"return_counts=True) by a radix sort (keys is overwritten; scratch: room for all keys).\n"
"The per-batch reduction of an AVC group's keys in grow_passes.py.");

static PyObject *py_key_runs(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[4];
    memset(v, 0, sizeof(v));
    if (!PyArg_ParseTuple(args, "w*w*w*w*", &v[0], &v[1], &v[2], &v[3]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = v[0].len / 8;
    size_t *count = NULL;
    if (!(view_ok(&v[1], n, 8, "scratch") && view_ok(&v[2], n, 8, "out_keys") && view_ok(&v[3], n, 8, "out_counts")))
        goto done;
    int64_t *keys = v[0].buf, *ok = v[2].buf, *oc = v[3].buf;
    count = malloc(BUCKETS * sizeof(size_t));
    if (!count) { PyErr_NoMemory(); goto done; }
    Py_ssize_t m = 0;
    Py_BEGIN_ALLOW_THREADS
    /* sorted as offsets from the least key: unsigned, wrapping, so any int64 keys sort */
    int64_t low = n ? keys[0] : 0;
    for (Py_ssize_t i = 1; i < n; i++)
        if (keys[i] < low) low = keys[i];
    uint64_t *u = (uint64_t *)keys, top = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        u[i] = (uint64_t)keys[i] - (uint64_t)low;
        if (u[i] > top) top = u[i];
    }
    sort_keys(u, (uint64_t *)v[1].buf, n, top, count);
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = (int64_t)(u[i] + (uint64_t)low);
        if (m && ok[m - 1] == k) oc[m - 1]++;
        else { ok[m] = k; oc[m++] = 1; }
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(m);
done:
    free(count);
    release(v, 4);
    return result;
}

static PyMethodDef methods[] = {
    {"replay_group", py_replay_group, METH_VARARGS, replay_group_doc},
    {"replay_sort", py_replay_sort, METH_VARARGS, replay_sort_doc},
    {"replay_shuffle", py_replay_shuffle, METH_VARARGS, replay_shuffle_doc},
    {"value_gains", py_value_gains, METH_VARARGS, value_gains_doc},
    {"argsort", py_argsort, METH_VARARGS, argsort_doc},
    {"cut_search", py_cut_search, METH_VARARGS, cut_search_doc},
    {"regroup", py_regroup, METH_VARARGS, regroup_doc},
    {"value_tables", py_value_tables, METH_VARARGS, value_tables_doc},
    {"node_cuts", py_node_cuts, METH_VARARGS, node_cuts_doc},
    {"entry_cuts", py_entry_cuts, METH_VARARGS, entry_cuts_doc},
    {"merge_sums", py_merge_sums, METH_VARARGS, merge_sums_doc},
    {"route_cases", py_route_cases, METH_VARARGS, route_cases_doc},
    {"key_runs", py_key_runs, METH_VARARGS, key_runs_doc},
    {"cut_bounds", py_cut_bounds, METH_O, cut_bounds_doc},
    {"node_discrete", py_node_discrete, METH_VARARGS, node_discrete_doc},
    {"node_counts", py_node_counts, METH_VARARGS, node_counts_doc},
    {"grow_nodes", py_grow_nodes, METH_VARARGS, grow_nodes_doc},
    {"prune_nodes", py_prune_nodes, METH_VARARGS, prune_nodes_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_grow", "The level-wise tree growth's per-case passes, compiled (see grow.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__grow(void) {
    log2_chord_init();
    return PyModule_Create(&module);
}
