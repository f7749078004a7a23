/* The insertion search's counts (imports/refine.py _Insertions), compiled.
 *
 * Per pool rule and list rule, the agreement the pool rule would gain over the check rows that
 * list rule decides; after a change of the list only the rows it moved are counted again. numpy
 * did that with a gather of every pool rule's bit for each row, a nonzero and np.add.at over the
 * cells where a rule fires: at 1 insertion in 5,000 check rows on XGBoost income (8,284 pool
 * rules, 25,000 rows, 85 searches) that was most of the extraction's CPU. Here one loop reads
 * each row's byte of every pool rule and adds the row's weight for the rule's class in place.
 *
 * count(by_row, nrules, rows, klass, nclasses, wold, cold, wnew, cnew, counts, ncols):
 * by_row (uint8, row bytes x nrules) holds bit 7 - r % 8 of byte r / 8 set where pool rule p
 * fires on row r; rows (int64, m) the rows counted; klass (int64, nrules) each pool rule's class
 * in [0, nclasses); wold, wnew (int32, m x nclasses) what each row counted and counts now for
 * a rule of each class, in the columns cold, cnew (int64, m) in [0, ncols); counts (int32,
 * nrules x ncols) receives, for each row and each pool rule firing there, wnew in the new
 * column less wold in the old.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static PyObject *count(PyObject *self, PyObject *args) {
    Py_buffer by_row, rows, klass, wold, cold, wnew, cnew, counts;
    Py_ssize_t P, K, C;
    if (!PyArg_ParseTuple(args, "y*ny*y*ny*y*y*y*w*n", &by_row, &P, &rows, &klass, &K, &wold, &cold,
                          &wnew, &cnew, &counts, &C))
        return NULL;
    PyObject *result = NULL;
    const uint8_t *bits = by_row.buf;
    const int64_t *row = rows.buf, *kl = klass.buf, *co = cold.buf, *cn = cnew.buf;
    const int32_t *wo = wold.buf, *wn = wnew.buf;
    int32_t *out = counts.buf;
    Py_ssize_t m = rows.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t nbytes = P > 0 ? by_row.len / P : 0;
    if (P < 0 || K < 1 || C < 1 || by_row.len != nbytes * P || klass.len != P * (Py_ssize_t)sizeof(int64_t)
            || wold.len != m * K * (Py_ssize_t)sizeof(int32_t) || wnew.len != wold.len
            || cold.len != rows.len || cnew.len != rows.len || counts.len != P * C * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "by_row, klass, weights, columns or counts do not fit");
        goto done;
    }
    for (Py_ssize_t p = 0; p < P; p++)
        if (kl[p] < 0 || kl[p] >= K) { PyErr_SetString(PyExc_ValueError, "a pool rule's class is out of range"); goto done; }
    for (Py_ssize_t i = 0; i < m; i++)
        if (row[i] < 0 || row[i] / 8 >= nbytes || co[i] < 0 || co[i] >= C || cn[i] < 0 || cn[i] >= C) {
            PyErr_SetString(PyExc_ValueError, "a row or column is out of range");
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) {
        const uint8_t *b = bits + (row[i] >> 3) * P;
        const int shift = 7 - (int)(row[i] & 7);
        const int32_t *o = wo + i * K, *w = wn + i * K;
        const Py_ssize_t a = co[i], z = cn[i];
        for (Py_ssize_t p = 0; p < P; p++) {
            if (!((b[p] >> shift) & 1)) continue;
            int32_t *c = out + p * C;
            c[a] -= o[kl[p]];
            c[z] += w[kl[p]];
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&by_row);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&klass);
    PyBuffer_Release(&wold);
    PyBuffer_Release(&cold);
    PyBuffer_Release(&wnew);
    PyBuffer_Release(&cnew);
    PyBuffer_Release(&counts);
    return result;
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS, "The insertion search's counts of some rows (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pool", NULL, -1, methods};

PyMODINIT_FUNC PyInit__pool(void) { return PyModule_Create(&module); }
