/* The first firing rule of each case from the test masks of a block (model/ruleset.py
 * _MatchPlan.match_block), compiled.
 *
 * numpy tried the rules one after another with a few array calls each: for a boosted model's
 * ten trials (about 1,500 rules) that was about 30,000 calls per 50,000 cases, 1.6 of the
 * 2.5 CPU s its rules took at 1M cases (issue 52). Here the same word operations run in one
 * loop: a rule's cases are the AND of its tests' rows of `masks` and the still undecided
 * cases, each case taking the first rule that holds it, so the positions are match_block's.
 *
 * first(masks, words, rows, starts, ks, out): masks is (tests, words) uint64, bit i of row r
 * telling whether case i passes test r; rule j tests rows[starts[j]:starts[j + 1]] (intp)
 * and is at position ks[j]; out (int64, one per case, zeros) receives each case's position.
 *
 * A rule's rows are ANDed a whole row at a time over the words that still hold an undecided
 * case (loops the compiler vectorises; a word at a time through each rule's rows took twice
 * as long). It runs without the GIL: predict makes a boosted model's masks of the next block
 * in its scan thread while the main thread matches this one (cli/cases.py).
 *
 * spell(at, trials, offsets, words): a boosted model's rule column, each distinct vote's
 * "1:12 2:0 3:5" (cli/cases.py _spelled), as one ASCII text, the votes separated by "\n".
 * at (int64, votes x trials, row by row) numbers each trial's word; word w is
 * words[offsets[w]:offsets[w + 1]]. Joining them in Python was a third of the main thread's
 * share of a boosted predict (issue 52); here it is two passes of memcpy without the GIL.
 *
 * below(x, thresholds, derived, out, first) and equal(x, codes, members, starts, out, first):
 * one column's rows of the test masks (_MatchPlan.masks), as numpy's compare-and-pack makes
 * them, bit for bit. numpy compares every case with every threshold (a boosted model's ten
 * trials test some 1,900 thresholds: 95 million compares per block of 50,000 cases); here each
 * case is placed once among the column's sorted thresholds (by buckets of their range, a few
 * compares; where they crowd, a search of log2 of them, eight cases in step) and its bit set
 * in the row of the first threshold it is <= to, and each row is then ORed into the next:
 * `x <= t[j]` holds from that row on (about half numpy's CPU at 1M rows). The derived rows follow:
 * derived (intp) holds the j of each `> t[j]`, then of each `> t[j] or unknown`, then of each
 * `<= t[j] or unknown`, in the rows after the thresholds', its three counts first.
 * equal sets each case's bit in the row of its code (codes sorted; unknown and unseen codes are
 * negative, in no row), then ORs each union's member rows (members[starts[i]:starts[i + 1]])
 * into the rows after the codes'. out is (rows, words) uint64; both write the column's rows whole.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* starts[0..count] rising within [0, total] (where each of count runs of a flat list begins),
 * and every idx[0..n) within [0, limit): else a ValueError saying `what` */
static int starts_fit(const Py_ssize_t *starts, Py_ssize_t count, Py_ssize_t total) {
    for (Py_ssize_t j = 0; j <= count; j++)
        if (starts[j] < 0 || starts[j] > total || (j && starts[j] < starts[j - 1])) {
            PyErr_SetString(PyExc_ValueError, "starts out of range");
            return 0;
        }
    return 1;
}

static int indices_fit(const Py_ssize_t *idx, Py_ssize_t n, Py_ssize_t limit, const char *what) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= limit) {
            PyErr_SetString(PyExc_ValueError, what);
            return 0;
        }
    return 1;
}

static PyObject *first(PyObject *self, PyObject *args) {
    Py_buffer masks, rows, starts, ks, out;
    Py_ssize_t words;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*w*", &masks, &words, &rows, &starts, &ks, &out)) return NULL;
    PyObject *result = NULL;
    uint64_t *undecided = NULL;
    const uint64_t *m = masks.buf;
    const Py_ssize_t *row = rows.buf, *start = starts.buf;
    const int64_t *k = ks.buf;
    int64_t *pos = out.buf;
    Py_ssize_t nrules = ks.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n = out.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t ntests = words > 0 ? masks.len / (Py_ssize_t)sizeof(uint64_t) / words : 0;
    Py_ssize_t nrows = rows.len / (Py_ssize_t)sizeof(Py_ssize_t);
    if (words < 0 || words * 64 < n || starts.len != (nrules + 1) * (Py_ssize_t)sizeof(Py_ssize_t)
            || masks.len != ntests * words * (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "masks, starts or out do not fit");
        goto done;
    }
    if (!starts_fit(start, nrules, nrows) || !indices_fit(row, nrows, ntests, "a rule's test row is out of range"))
        goto done;
    undecided = PyMem_Malloc(sizeof(uint64_t) * 2 * (size_t)(words ? words : 1));
    if (!undecided) { PyErr_NoMemory(); goto done; }
    uint64_t *hit = undecided + words;
    for (Py_ssize_t w = 0; w < words; w++) {
        Py_ssize_t left = n - 64 * w;
        undecided[w] = left >= 64 ? ~(uint64_t)0 : left > 0 ? (((uint64_t)1 << left) - 1) : 0;
    }
    Py_ssize_t lo = 0, hi = words;   /* the words between which a case is undecided */
    Py_BEGIN_ALLOW_THREADS
    while (hi > lo && !undecided[hi - 1]) hi--;
    for (Py_ssize_t j = 0; j < nrules && lo < hi; j++) {
        /* the rule's rows ANDed a whole row at a time (loops the compiler vectorises) */
        const Py_ssize_t *r = row + start[j], *end = row + start[j + 1];
        memcpy(hit + lo, undecided + lo, sizeof(uint64_t) * (size_t)(hi - lo));
        for (const Py_ssize_t *t = r; t < end; t++) {
            const uint64_t *test = m + *t * words;
            for (Py_ssize_t w = lo; w < hi; w++) hit[w] &= test[w];
        }
        for (Py_ssize_t w = lo; w < hi; w++) {
            uint64_t got = hit[w];
            if (!got) continue;
            undecided[w] ^= got;
            do {
                pos[64 * w + __builtin_ctzll(got)] = k[j];
                got &= got - 1;
            } while (got);
        }
        while (lo < hi && !undecided[lo]) lo++;
        while (hi > lo && !undecided[hi - 1]) hi--;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(undecided);
    PyBuffer_Release(&masks);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&ks);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *spell(PyObject *self, PyObject *args) {
    Py_buffer at, offsets, words;
    Py_ssize_t trials;
    if (!PyArg_ParseTuple(args, "y*ny*y*", &at, &trials, &offsets, &words)) return NULL;
    PyObject *result = NULL;
    const int64_t *a = at.buf, *off = offsets.buf;
    const char *w = words.buf;
    Py_ssize_t cells = at.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t nwords = offsets.len / (Py_ssize_t)sizeof(int64_t) - 1;
    if (trials <= 0 || cells % trials || nwords < 0) {
        PyErr_SetString(PyExc_ValueError, "at or offsets do not fit");
        goto done;
    }
    for (Py_ssize_t i = 0; i < nwords; i++)
        if (off[i] < 0 || off[i] > off[i + 1] || off[i + 1] > words.len) {
            PyErr_SetString(PyExc_ValueError, "offsets out of range");
            goto done;
        }
    Py_ssize_t size = 0;   /* every word, and a separator after each but the last */
    for (Py_ssize_t i = 0; i < cells; i++) {
        if (a[i] < 0 || a[i] >= nwords) {
            PyErr_SetString(PyExc_ValueError, "a word number is out of range");
            goto done;
        }
        size += off[a[i] + 1] - off[a[i]] + 1;
    }
    result = PyBytes_FromStringAndSize(NULL, size ? size - 1 : 0);
    if (!result || !size) goto done;
    char *o = PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < cells; i++) {
        Py_ssize_t len = off[a[i] + 1] - off[a[i]];
        memcpy(o, w + off[a[i]], (size_t)len);
        o += len;
        if (i + 1 < cells) *o++ = (i + 1) % trials ? ' ' : '\n';
    }
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&at);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&words);
    return result;
}

/* a column's `count` mask rows from `first` lie within the `nrows` rows of out */
static int rows_fit(Py_ssize_t first, Py_ssize_t count, Py_ssize_t nrows) {
    if (first < 0 || count < 0 || first + count > nrows) {
        PyErr_SetString(PyExc_ValueError, "the column's mask rows are out of range");
        return 0;
    }
    return 1;
}

/* rises with x (for x >= t[0]): a rounded product, cut below nb */
#define BUCKET(x) (((x) - t[0]) * scale < (double)nb ? (Py_ssize_t)(((x) - t[0]) * scale) : nb - 1)

static PyObject *below(PyObject *self, PyObject *args) {
    Py_buffer x, th, derived, out;
    Py_ssize_t words, first;
    if (!PyArg_ParseTuple(args, "y*y*y*w*nn", &x, &th, &derived, &out, &words, &first)) return NULL;
    PyObject *result = NULL;
    uint64_t *known = NULL;
    Py_ssize_t *start = NULL;
    double *padded = NULL;
    const double *v = x.buf, *t = th.buf;
    const Py_ssize_t *d = derived.buf;
    uint64_t *o = out.buf;
    Py_ssize_t n = x.len / (Py_ssize_t)sizeof(double), m = th.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t nd = derived.len / (Py_ssize_t)sizeof(Py_ssize_t);
    Py_ssize_t nrows = words > 0 ? out.len / (Py_ssize_t)sizeof(uint64_t) / words : 0;
    if (words <= 0 || words * 64 < n || out.len != nrows * words * (Py_ssize_t)sizeof(uint64_t) || nd < 3
            || d[0] < 0 || d[1] < 0 || d[2] < 0 || nd != 3 + d[0] + d[1] + d[2]) {
        PyErr_SetString(PyExc_ValueError, "x, derived or out do not fit");
        goto done;
    }
    if (!rows_fit(first, m + nd - 3, nrows)) goto done;
    if (!indices_fit(d + 3, nd - 3, m, "a derived row's threshold is out of range")) goto done;
    known = PyMem_Calloc((size_t)(words + m), sizeof(uint64_t));
    if (!known) { PyErr_NoMemory(); goto done; }
    /* Buckets: bucket(x) = (x - t[0]) * scale, cut to [0, nb), rises with x, so a case in
     * bucket b is above every threshold of an earlier bucket and below every one of a later
     * bucket: its place is start[b] plus how many of bucket b's (at most `width`) are below it,
     * a few compares instead of a search. Used when the thresholds spread evenly enough. */
    Py_ssize_t nb = 0, width = 0;
    double scale = 0.0;
    if (m >= 8 && t[0] > -DBL_MAX && t[m - 1] < DBL_MAX && t[m - 1] > t[0]) {
        nb = 2 * m;
        scale = (double)nb / (t[m - 1] - t[0]);
        if (!(scale > 0.0 && scale < DBL_MAX)) nb = 0;
    }
    if (nb) {
        start = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(nb + 1) + sizeof(double) * (size_t)(m + 8));
        if (!start) { PyErr_NoMemory(); goto done; }
        padded = (double *)(start + nb + 1);   /* the thresholds, then +inf past the last bucket */
        for (Py_ssize_t j = 0, b = 0; b <= nb; b++) {
            while (j < m && BUCKET(t[j]) < b) j++;
            start[b] = j;
            if (b && start[b] - start[b - 1] > width) width = start[b] - start[b - 1];
        }
        memcpy(padded, t, sizeof(double) * (size_t)m);
        for (Py_ssize_t j = m; j < m + 8; j++) padded[j] = HUGE_VAL;
        if (width > 8) nb = 0;   /* crowded: search */
    }
    Py_BEGIN_ALLOW_THREADS
    uint64_t *row = o + first * words;
    uint64_t *hit = known + words;   /* per threshold, the word's cases first <= to it */
    for (Py_ssize_t w = 0; w < words; w++) {
        Py_ssize_t lo = 64 * w, hi = n < lo + 64 ? n : lo + 64;
        uint64_t got = 0;
        if (m) memset(hit, 0, sizeof(uint64_t) * (size_t)m);
        for (Py_ssize_t i = lo; nb && i < hi; i++) {
            double c = v[i];
            if (c != c) continue;   /* NaN: unknown, <= no threshold */
            uint64_t bit = (uint64_t)1 << (i & 63);
            got |= bit;
            if (c > t[m - 1]) continue;   /* above every threshold */
            Py_ssize_t r = 0;   /* the first threshold >= x */
            if (c > t[0]) {
                r = start[BUCKET(c)];
                const double *p = padded + r;
                for (Py_ssize_t k = 0; k < width; k++) r += p[k] < c;
            }
            hit[r] |= bit;
        }
        for (Py_ssize_t i0 = lo; !nb && i0 < hi; i0 += 8) {
            /* the same number of steps for every case: eight searches in step, without branches */
            Py_ssize_t lanes = hi - i0 < 8 ? hi - i0 : 8;
            Py_ssize_t b[8];
            double c[8];
            for (int l = 0; l < 8; l++) {
                b[l] = 0;
                c[l] = l < lanes ? v[i0 + l] : 0.0;
            }
            for (Py_ssize_t len = m; len > 1; len -= len / 2) {
                Py_ssize_t h = len / 2;
                for (int l = 0; l < 8; l++) b[l] += t[b[l] + h] < c[l] ? h : 0;
            }
            for (Py_ssize_t l = 0; l < lanes; l++) {
                if (c[l] != c[l]) continue;   /* NaN: unknown, <= no threshold */
                uint64_t bit = (uint64_t)1 << ((i0 + l) & 63);
                got |= bit;
                Py_ssize_t r = m ? b[l] + (t[b[l]] < c[l]) : 0;   /* the first threshold >= x */
                if (r < m) hit[r] |= bit;
            }
        }
        known[w] = got;
        uint64_t acc = 0;   /* `x <= t[j]` from the case's row on: each row ORed into the next */
        for (Py_ssize_t j = 0; j < m; j++) {
            acc |= hit[j];
            row[j * words + w] = acc;
        }
    }
    /* as numpy's ~ and | on whole words: the bits past the last case are set alike */
    uint64_t *next = row + m * words;
    const Py_ssize_t *j = d + 3;
    for (int kind = 0; kind < 3; kind++)
        for (Py_ssize_t i = 0; i < d[kind]; i++, j++, next += words) {
            const uint64_t *src = row + *j * words;
            for (Py_ssize_t w = 0; w < words; w++)
                next[w] = kind == 0 ? ~src[w] & known[w] : kind == 1 ? ~src[w] : src[w] | ~known[w];
        }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(known);
    PyMem_Free(start);
    PyBuffer_Release(&x);
    PyBuffer_Release(&th);
    PyBuffer_Release(&derived);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *equal(PyObject *self, PyObject *args) {
    Py_buffer x, codes, members, starts, out;
    Py_ssize_t words, first;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*nn", &x, &codes, &members, &starts, &out, &words, &first)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t *at = NULL;
    const int64_t *v = x.buf, *c = codes.buf;
    const Py_ssize_t *mem = members.buf, *st = starts.buf;
    uint64_t *o = out.buf;
    Py_ssize_t n = x.len / (Py_ssize_t)sizeof(int64_t), m = codes.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t nu = starts.len / (Py_ssize_t)sizeof(Py_ssize_t) - 1;
    Py_ssize_t nm = members.len / (Py_ssize_t)sizeof(Py_ssize_t);
    Py_ssize_t nrows = words > 0 ? out.len / (Py_ssize_t)sizeof(uint64_t) / words : 0;
    if (words <= 0 || words * 64 < n || out.len != nrows * words * (Py_ssize_t)sizeof(uint64_t) || nu < 0) {
        PyErr_SetString(PyExc_ValueError, "x, starts or out do not fit");
        goto done;
    }
    if (!rows_fit(first, m + nu, nrows)) goto done;
    if (!starts_fit(st, nu, nm) || !indices_fit(mem, nm, m, "a union's member is out of range")) goto done;
    for (Py_ssize_t j = 0; j < m; j++)
        if (c[j] < 0 || c[j] > (1 << 24) || (j && c[j] <= c[j - 1])) {
            PyErr_SetString(PyExc_ValueError, "codes must be sorted, distinct and small");
            goto done;
        }
    Py_ssize_t top = m ? c[m - 1] + 1 : 0;
    at = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(top ? top : 1));   /* code -> its row, or -1 */
    if (!at) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < top; k++) at[k] = -1;
    for (Py_ssize_t j = 0; j < m; j++) at[c[j]] = j;
    Py_BEGIN_ALLOW_THREADS
    uint64_t *row = o + first * words;
    memset(row, 0, sizeof(uint64_t) * (size_t)(m * words));
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t code = v[i];
        if (code < 0 || code >= top || at[code] < 0) continue;
        row[at[code] * words + (i >> 6)] |= (uint64_t)1 << (i & 63);
    }
    for (Py_ssize_t u = 0; u < nu; u++) {
        uint64_t *dst = row + (m + u) * words;
        memset(dst, 0, sizeof(uint64_t) * (size_t)words);
        for (Py_ssize_t k = st[u]; k < st[u + 1]; k++)
            for (Py_ssize_t w = 0; w < words; w++) dst[w] |= row[mem[k] * words + w];
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(at);
    PyBuffer_Release(&x);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&members);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"first", first, METH_VARARGS, "Each case's first firing rule from a block's test masks (see the module comment)."},
    {"below", below, METH_VARARGS, "A continuous column's rows of the test masks (see the module comment)."},
    {"equal", equal, METH_VARARGS, "A discrete column's rows of the test masks (see the module comment)."},
    {"spell", spell, METH_VARARGS, "A boosted model's distinct votes as text (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_match", NULL, -1, methods};

PyMODINIT_FUNC PyInit__match(void) { return PyModule_Create(&module); }
