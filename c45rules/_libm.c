/* The C library's log, exp and log2 over float64 arrays (libm.py).
 *
 * numpy's own vectorised log, exp and log2 are chosen by CPU: on an AVX-512 machine they
 * differ from the C library's in the last bit for some inputs (exp: 4.6% of arguments in
 * [-30, 0]; log: 785 of the integers below 2^24), and elsewhere numpy calls the C library.
 * c4.5 calls the C library, and a tie between two gains or two rule costs can turn on that
 * bit, so every log and exp of the learning goes through here: the same results on every
 * CPU, and the ones c4.5 computes. libm.py does the same with Python's math module (which
 * calls these very functions) when this module is not built. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

typedef double (*unary)(double);

/* out[i] = f(x[i]); x and out are contiguous float64 buffers of the same length. */
static PyObject *apply(PyObject *args, unary f, const char *name) {
    Py_buffer x = {0}, out = {0};
    if (!PyArg_ParseTuple(args, "y*w*", &x, &out)) return NULL;
    if (x.len != out.len || x.len % (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "_libm.%s: input and output must be float64 buffers of one length", name);
        PyBuffer_Release(&x);
        PyBuffer_Release(&out);
        return NULL;
    }
    const double *in = x.buf;
    double *o = out.buf;
    Py_ssize_t n = x.len / (Py_ssize_t)sizeof(double);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) o[i] = f(in[i]);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *py_log(PyObject *self, PyObject *args) { (void)self; return apply(args, log, "log"); }
static PyObject *py_exp(PyObject *self, PyObject *args) { (void)self; return apply(args, exp, "exp"); }
static PyObject *py_log2(PyObject *self, PyObject *args) { (void)self; return apply(args, log2, "log2"); }

static PyMethodDef methods[] = {
    {"log", py_log, METH_VARARGS, "log(x, out): out[i] = the C library's log(x[i]), float64 buffers."},
    {"exp", py_exp, METH_VARARGS, "exp(x, out): out[i] = the C library's exp(x[i]), float64 buffers."},
    {"log2", py_log2, METH_VARARGS, "log2(x, out): out[i] = the C library's log2(x[i]), float64 buffers."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_libm", "The C library's log, exp and log2 over arrays.", -1, methods};

PyMODINIT_FUNC PyInit__libm(void) { return PyModule_Create(&module); }
