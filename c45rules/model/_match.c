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
 * It runs without the GIL: predict matches a boosted model's trials on a block in its scan
 * thread while the main thread tallies and writes the block before (cli/cases.py).
 *
 * spell(at, trials, offsets, words): a boosted model's rule column, each distinct vote's
 * "1:12 2:0 3:5" (cli/cases.py _spelled), as one ASCII text, the votes separated by "\n".
 * at (int64, votes x trials, row by row) numbers each trial's word; word w is
 * words[offsets[w]:offsets[w + 1]]. Joining them in Python was a third of the main thread's
 * share of a boosted predict (issue 52); here it is two passes of memcpy without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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
    for (Py_ssize_t j = 0; j <= nrules; j++)
        if (start[j] < 0 || start[j] > nrows || (j && start[j] < start[j - 1])) {
            PyErr_SetString(PyExc_ValueError, "starts out of range");
            goto done;
        }
    for (Py_ssize_t i = 0; i < nrows; i++)
        if (row[i] < 0 || row[i] >= ntests) {
            PyErr_SetString(PyExc_ValueError, "a rule's test row is out of range");
            goto done;
        }
    undecided = PyMem_Malloc(sizeof(uint64_t) * (size_t)(words ? words : 1));
    if (!undecided) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t w = 0; w < words; w++) {
        Py_ssize_t left = n - 64 * w;
        undecided[w] = left >= 64 ? ~(uint64_t)0 : left > 0 ? (((uint64_t)1 << left) - 1) : 0;
    }
    Py_ssize_t open = words;   /* words with an undecided case */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < nrules && open; j++) {
        const Py_ssize_t *r = row + start[j], *end = row + start[j + 1];
        for (Py_ssize_t w = 0; w < words; w++) {
            uint64_t hit = undecided[w];
            for (const Py_ssize_t *t = r; hit && t < end; t++) hit &= m[*t * words + w];
            if (!hit) continue;
            undecided[w] ^= hit;
            if (!undecided[w]) open--;
            do {
                pos[64 * w + __builtin_ctzll(hit)] = k[j];
                hit &= hit - 1;
            } while (hit);
        }
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

static PyMethodDef methods[] = {
    {"first", first, METH_VARARGS, "Each case's first firing rule from a block's test masks (see the module comment)."},
    {"spell", spell, METH_VARARGS, "A boosted model's distinct votes as text (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_match", NULL, -1, methods};

PyMODINIT_FUNC PyInit__match(void) { return PyModule_Create(&module); }
