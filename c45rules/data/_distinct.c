/* Codes of 64-bit keys numbered by first appearance, by hashing (distinct.py).
 *
 * The reader codes every cell of a large file this way; pandas' hash tables did it before, but
 * importing pandas alone holds some 80 MB resident, more than the data of a 100,000-case file
 * (issue 33). The keys are raw 64-bit patterns: distinct.py makes equal floats equal patterns
 * first (-0.0 as 0.0, one NaN). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#include "_mix.h"


/* factorize(keys: uint64 buffer, codes: int64 buffer of the same length) -> number of distinct
 * keys; codes[i] = the rank of keys[i]'s first appearance. */
static PyObject *py_factorize(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer k = {0}, c = {0};
    if (!PyArg_ParseTuple(args, "y*w*", &k, &c)) return NULL;
    if (k.len != c.len || k.len % 8) {
        PyErr_SetString(PyExc_ValueError, "_distinct.factorize: keys and codes must be 64-bit buffers of one length");
        PyBuffer_Release(&k);
        PyBuffer_Release(&c);
        return NULL;
    }
    Py_ssize_t n = k.len / 8;
    const uint64_t *keys = k.buf;
    int64_t *codes = c.buf;
    size_t size = 16;
    while (size < 2 * (size_t)n) size <<= 1;       /* load factor <= 1/2 */
    /* slot -> 1 + index of the key's first appearance (0: empty) */
    int64_t *slot = calloc(size, sizeof(int64_t));
    if (!slot) {
        PyBuffer_Release(&k);
        PyBuffer_Release(&c);
        return PyErr_NoMemory();
    }
    int64_t distinct = 0;
    Py_BEGIN_ALLOW_THREADS
    size_t mask = size - 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t key = keys[i];
        size_t h = (size_t)mix(key) & mask;
        for (;;) {
            int64_t s = slot[h];
            if (s == 0) {
                slot[h] = i + 1;
                codes[i] = distinct++;
                break;
            }
            if (keys[s - 1] == key) {
                codes[i] = codes[s - 1];
                break;
            }
            h = (h + 1) & mask;
        }
    }
    Py_END_ALLOW_THREADS
    free(slot);
    PyBuffer_Release(&k);
    PyBuffer_Release(&c);
    return PyLong_FromLongLong(distinct);
}

static PyMethodDef methods[] = {
    {"factorize", py_factorize, METH_VARARGS, "Codes of 64-bit keys by first appearance; returns the number of distinct keys."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_distinct", NULL, -1, methods};

PyMODINIT_FUNC PyInit__distinct(void) { return PyModule_Create(&module); }
