/* Cutting a plain C4.5 data file into coded cells (names.py _plain_cells), compiled.
 *
 * numpy cut a chunk into cells, packed each cell into words and factorised the words column
 * by column: about 2 s of the 4 s of reading a 1M-case file (issue 33). Here one pass over
 * each chunk finds the lines and their cells and looks every cell up in its column's hash
 * table of distinct texts, so a cell costs a few byte compares. The result is what the
 * numpy path gives: per column, each case's code (numbered by first appearance over the
 * whole file) and the distinct raw texts. Anything that is not plain (an escape, a comment,
 * NUL, a lone CR, a line with another number of commas, a comma-free line that is not ASCII
 * blanks) stops the cutter, and the caller reads the file the general way, as the numpy path
 * does; so the two agree on every file (tests/data/test_cells.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#include "_mix.h"
#include <string.h>

/* A table slot. A text of at most 8 bytes is its own key (zero-padded: a plain file has no
 * NUL, so the padding cannot be confused with text), found without reading the texts; a
 * longer one is keyed by its hash and compared with the stored text. One slot read per cell
 * where separate arrays cost a cache miss each (2.8 s against numpy's 2.3 s at 1M cases). */
typedef struct {
    uint64_t key;
    int32_t code1;      /* 1 + code; 0: empty */
    int32_t len;
} Slot;

typedef struct {
    /* the distinct texts, back to back, and where each starts (count + 1 offsets) */
    char *text;
    int64_t text_len, text_cap;
    int64_t *start;
    int64_t count, start_cap;
    Slot *slot;         /* open addressing, at most half full */
    int64_t size;
    /* each case's code: 16-bit while fewer than 2^15 distinct texts (as the numpy path
     * narrows them), widened to 32 bits when more come */
    void *codes;
    int wide;
    int64_t n, codes_cap;
} Column;

typedef struct {
    PyObject_HEAD
    Py_ssize_t ncols;
    Column *cols;
    uint32_t *at;       /* feed's cell offsets, kept for the next chunk */
    size_t at_cap;
    uint32_t *asks;     /* (start, end) of the lines Python must look at */
    size_t n_asks, asks_cap;
    int64_t cases;
    int stopped;
} Cutter;


/* A text's key: its zero-padded bytes when at most 8, else a hash of its 8-byte words. */
static inline uint64_t key_of(const char *p, int64_t len) {
    uint64_t w = 0;
    if (len <= 8) {
        memcpy(&w, p, (size_t)len);
        return w;
    }
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len;
    for (; len > 0; p += 8, len -= 8) {
        w = 0;
        memcpy(&w, p, len >= 8 ? 8 : (size_t)len);
        h = mix(h ^ w);
    }
    return h;
}

static void column_free(Column *c) {
    free(c->text);
    free(c->start);
    free(c->slot);
    free(c->codes);
    memset(c, 0, sizeof *c);
}

static int column_init(Column *c) {
    memset(c, 0, sizeof *c);
    c->size = 1024;
    c->slot = calloc((size_t)c->size, sizeof(Slot));
    c->start_cap = 512;
    c->start = malloc((size_t)c->start_cap * sizeof(int64_t));
    c->text_cap = 4096;
    c->text = malloc((size_t)c->text_cap);
    c->codes_cap = 4096;
    c->codes = malloc((size_t)c->codes_cap * sizeof(int16_t));
    if (!c->slot || !c->start || !c->text || !c->codes) return -1;
    c->start[0] = 0;
    return 0;
}

static int grow_table(Column *c) {
    int64_t size = c->size * 2;
    Slot *slot = calloc((size_t)size, sizeof(Slot));
    if (!slot) return -1;
    for (int64_t i = 0; i < c->size; i++) {
        if (!c->slot[i].code1) continue;
        int64_t j = (int64_t)(mix(c->slot[i].key) & (uint64_t)(size - 1));
        while (slot[j].code1) j = (j + 1) & (size - 1);
        slot[j] = c->slot[i];
    }
    free(c->slot);
    c->slot = slot;
    c->size = size;
    return 0;
}

static int widen(Column *c) {
    int32_t *wide = malloc((size_t)c->codes_cap * sizeof(int32_t));
    if (!wide) return -1;
    const int16_t *narrow = c->codes;
    for (int64_t i = 0; i < c->n; i++) wide[i] = narrow[i];
    free(c->codes);
    c->codes = wide;
    c->wide = 1;
    return 0;
}

/* The code of text p[0..len), a new one (its first appearance) when unseen; -1: no memory. */
static int64_t code_of(Column *c, const char *p, int64_t len) {
    uint64_t key = key_of(p, len);
    int64_t mask = c->size - 1, j = (int64_t)(mix(key) & (uint64_t)mask);
    for (;; j = (j + 1) & mask) {
        const Slot *s = &c->slot[j];
        if (!s->code1) break;
        if (s->key != key || s->len != len) continue;
        int64_t code = s->code1 - 1;
        if (len <= 8 || memcmp(c->text + c->start[code], p, (size_t)len) == 0) return code;
    }
    if (c->count >= INT32_MAX - 1) return -1;
    if (c->text_len + len > c->text_cap) {
        int64_t cap = c->text_cap;
        while (c->text_len + len > cap) cap *= 2;
        char *t = realloc(c->text, (size_t)cap);
        if (!t) return -1;
        c->text = t;
        c->text_cap = cap;
    }
    if (c->count + 2 > c->start_cap) {
        int64_t *s = realloc(c->start, (size_t)c->start_cap * 2 * sizeof(int64_t));
        if (!s) return -1;
        c->start = s;
        c->start_cap *= 2;
    }
    memcpy(c->text + c->text_len, p, (size_t)len);
    c->text_len += len;
    int64_t code = c->count++;
    c->start[c->count] = c->text_len;
    c->slot[j].key = key;
    c->slot[j].code1 = (int32_t)(code + 1);
    c->slot[j].len = (int32_t)len;
    if (2 * c->count > c->size && grow_table(c) < 0) return -1;
    return code;
}

static int add_case(Column *c, int64_t code) {
    if (c->n == c->codes_cap) {
        int64_t cap = c->codes_cap * 2;
        void *p = realloc(c->codes, (size_t)cap * (c->wide ? sizeof(int32_t) : sizeof(int16_t)));
        if (!p) return -1;
        c->codes = p;
        c->codes_cap = cap;
    }
    if (!c->wide && code >= INT16_MAX && widen(c) < 0) return -1;
    if (c->wide) ((int32_t *)c->codes)[c->n++] = (int32_t)code;
    else ((int16_t *)c->codes)[c->n++] = (int16_t)code;
    return 0;
}

/* What str.strip() leaves of a comma-free line: 0 nothing (all spaces, tabs, CR or the other
 * ASCII characters Python counts as whitespace: VT, FF, FS, GS, RS, US), 1 something ASCII,
 * 2 a byte beyond ASCII (Python decodes and strips the line: NBSP is whitespace too). */
static int blank_kind(const char *p, const char *end) {
    int beyond = 0;
    for (; p < end; p++) {
        unsigned char b = (unsigned char)*p;
        if (b >= 0x80) beyond = 1;
        else if (!(b == ' ' || b == '\t' || b == '\r' || b == 0x0b || b == 0x0c || (b >= 0x1c && b <= 0x1f)))
            return 1;
    }
    return beyond ? 2 : 0;
}

/* Pass 1 of feed: check that the chunk is plain and note where each case's cells start
 * (at[r * (ncols + 1) + j]; entry ncols is one past the line's end, so a cell ends one byte
 * before the next one starts) and the comma-free lines with bytes beyond ASCII (asks: Python
 * says whether they are blank). Returns the number of cases, -1 when it is not plain, -2 when
 * memory ran out. */
static int64_t cut_lines(Cutter *self, const char *buf, int64_t len) {
    const Py_ssize_t ncols = self->ncols;
    uint32_t *at = self->at;
    const char *p = buf, *end = buf + len;
    int64_t rows = 0;
    self->n_asks = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return -1;     /* the caller ends every chunk with a newline */
        uint32_t *row = at + rows * (ncols + 1);
        Py_ssize_t commas = 0;
        row[0] = (uint32_t)(p - buf);
        for (const char *q = p; q < nl; q++) {
            char ch = *q;
            if (ch == ',') {
                if (++commas >= ncols) return -1;
                row[commas] = (uint32_t)(q + 1 - buf);
            } else if (ch == '\\' || ch == '|' || ch == '\0' || (ch == '\r' && q + 1 < nl)) {   /* a lone CR */
                return -1;
            }
        }
        if (commas == ncols - 1) {
            row[ncols] = (uint32_t)(nl + 1 - buf);
            rows++;
        } else if (commas) {
            return -1;
        } else {
            int kind = blank_kind(p, nl);
            if (kind == 1) return -1;
            if (kind == 2) {
                if (self->n_asks == self->asks_cap) {
                    size_t cap = self->asks_cap ? 2 * self->asks_cap : 16;
                    uint32_t *a = realloc(self->asks, 2 * cap * sizeof(uint32_t));
                    if (!a) return -2;
                    self->asks = a;
                    self->asks_cap = cap;
                }
                self->asks[2 * self->n_asks] = (uint32_t)(p - buf);
                self->asks[2 * self->n_asks++ + 1] = (uint32_t)(nl - buf);
            }
        }
        p = nl + 1;
    }
    return rows;
}

/* feed(chunk) -> the (start, end) offsets of the comma-free lines that Python must find blank
 * for the chunk to be plain (usually none), or None when it is not plain (the cutter then
 * stays stopped).
 * `chunk` holds whole lines, each ended by '\n'. The cells are looked up column by column
 * (pass 2), so that one column's table stays in the cache: line by line, the 31 tables of
 * a 1M-case file missed it at almost every cell (2.8 s against 1.4). */
static PyObject *cutter_feed(Cutter *self, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    if (self->stopped || b.len > (Py_ssize_t)UINT32_MAX - 1) {
        /* offsets into a chunk are kept in 32 bits; the numpy path takes a longer one */
        self->stopped = 1;
        PyBuffer_Release(&b);
        Py_RETURN_NONE;
    }
    const Py_ssize_t ncols = self->ncols;
    /* at most one case a line */
    int64_t most = 0;
    for (const char *q = b.buf, *end = q + b.len; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) most++;
    if ((size_t)most * (size_t)(ncols + 1) > self->at_cap) {
        free(self->at);
        self->at_cap = (size_t)most * (size_t)(ncols + 1);
        self->at = malloc(self->at_cap * sizeof(uint32_t));
        if (!self->at) {
            self->at_cap = 0;
            self->stopped = 1;
            PyBuffer_Release(&b);
            return PyErr_NoMemory();
        }
    }
    const char *buf = b.buf;
    int64_t rows;
    int nomem = 0;
    Py_BEGIN_ALLOW_THREADS
    rows = cut_lines(self, buf, b.len);
    nomem = rows == -2;
    for (Py_ssize_t j = 0; j < ncols && rows > 0 && !nomem; j++) {
        Column *c = &self->cols[j];
        const uint32_t *at = self->at + j;
        for (int64_t r = 0; r < rows; r++, at += ncols + 1) {
            int64_t code = code_of(c, buf + at[0], (int64_t)at[1] - 1 - at[0]);
            if (code < 0 || add_case(c, code) < 0) {
                nomem = 1;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
    if (nomem) {
        self->stopped = 1;
        return PyErr_NoMemory();
    }
    if (rows < 0) {
        self->stopped = 1;
        Py_RETURN_NONE;
    }
    self->cases += rows;
    PyObject *asks = PyList_New((Py_ssize_t)self->n_asks);
    for (size_t k = 0; asks && k < self->n_asks; k++) {
        PyObject *span = Py_BuildValue("(II)", self->asks[2 * k], self->asks[2 * k + 1]);
        if (!span) {
            Py_CLEAR(asks);
            break;
        }
        PyList_SET_ITEM(asks, (Py_ssize_t)k, span);
    }
    return asks;
}

/* column(j) -> (codes: bytes of int16 or int32, itemsize, [distinct raw texts as bytes]) */
static PyObject *cutter_column(Cutter *self, PyObject *arg) {
    Py_ssize_t j = PyLong_AsSsize_t(arg);
    if (j == -1 && PyErr_Occurred()) return NULL;
    if (j < 0 || j >= self->ncols) {
        PyErr_SetString(PyExc_IndexError, "_cells.Cutter.column: no such column");
        return NULL;
    }
    Column *c = &self->cols[j];
    size_t item = c->wide ? sizeof(int32_t) : sizeof(int16_t);
    PyObject *codes = PyBytes_FromStringAndSize(c->codes, (Py_ssize_t)(c->n * (int64_t)item));
    PyObject *texts = PyList_New((Py_ssize_t)c->count);
    if (!codes || !texts) goto fail;
    for (int64_t k = 0; k < c->count; k++) {
        PyObject *t = PyBytes_FromStringAndSize(c->text + c->start[k], (Py_ssize_t)(c->start[k + 1] - c->start[k]));
        if (!t) goto fail;
        PyList_SET_ITEM(texts, (Py_ssize_t)k, t);
    }
    PyObject *out = Py_BuildValue("(NnN)", codes, (Py_ssize_t)item, texts);
    column_free(c);     /* handed over: the next columns need the memory more */
    return out;
fail:
    Py_XDECREF(codes);
    Py_XDECREF(texts);
    return NULL;
}

static void cutter_dealloc(Cutter *self) {
    if (self->cols) {
        for (Py_ssize_t j = 0; j < self->ncols; j++) column_free(&self->cols[j]);
        free(self->cols);
    }
    free(self->at);
    free(self->asks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int cutter_init(Cutter *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    Py_ssize_t ncols;
    if (!PyArg_ParseTuple(args, "n", &ncols)) return -1;
    if (ncols < 2) {
        PyErr_SetString(PyExc_ValueError, "_cells.Cutter: a data line has at least two cells");
        return -1;
    }
    self->cols = calloc((size_t)ncols, sizeof(Column));
    if (!self->cols) {
        PyErr_NoMemory();
        return -1;
    }
    self->ncols = ncols;
    for (Py_ssize_t j = 0; j < ncols; j++)
        if (column_init(&self->cols[j]) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    return 0;
}

static PyObject *cutter_cases(Cutter *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(self->cases);
}

static PyMethodDef cutter_methods[] = {
    {"feed", (PyCFunction)cutter_feed, METH_O, "Cut a chunk of whole lines: the spans of the lines Python must find blank, None when it is not plain."},
    {"column", (PyCFunction)cutter_column, METH_O,
     "(codes bytes, their itemsize, distinct raw texts) of column j, handed over (call once)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef cutter_getset[] = {
    {"cases", (getter)cutter_cases, NULL, "Cases cut so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CutterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "c45rules.data._cells.Cutter",
    .tp_basicsize = sizeof(Cutter),
    .tp_dealloc = (destructor)cutter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Cutter(ncols): the cells of a plain data file, coded column by column.",
    .tp_methods = cutter_methods,
    .tp_getset = cutter_getset,
    .tp_init = (initproc)cutter_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cells", NULL, -1, NULL};

PyMODINIT_FUNC PyInit__cells(void) {
    if (PyType_Ready(&CutterType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CutterType);
    if (PyModule_AddObject(m, "Cutter", (PyObject *)&CutterType) < 0) {
        Py_DECREF(&CutterType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
