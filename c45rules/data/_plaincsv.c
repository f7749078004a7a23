/* Reading and writing a plain CSV's lines for `predict` (cli/cases.py _scanned_chunks), compiled.
 *
 * A plain CSV (data/frame.py csv_layout: no quote, NUL, lone CR or blank line, every line
 * the header's number of fields) is scored by copying each line and appending its decision.
 * pyarrow parsed the model's columns as dictionaries and the encoder then read each distinct
 * text, about 5 of the 7 CPU seconds of a 1M-row file (issue 52). Here one pass over a block
 * of lines finds each line and the cells of the columns the model tests:
 *   - a continuous column's cell that is a plain decimal (data/numbers.py's grammar with no
 *     surrounding space) becomes its double, rounded as float() rounds it; any other cell
 *     (unknown token, space, a bad cell) is flagged, and Python reads it the general way;
 *   - a discrete column's cell is numbered by first appearance in the block, its distinct
 *     texts returned, so the encoder reads each once.
 * `join` then writes each line followed by its decision's cells: one copy per line.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "_mix.h"

/* 10^0 .. 10^22: exact in a double, so that m / 10^k and m * 10^k with m < 2^53 are one
 * correctly rounded operation (Clinger's fast path) */
static const double POW10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The number cell p[0:len] spells, into *out: 1 when it is one (finite), else 0. The grammar
 * is numbers.py's NUMBER_CORE: [+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)? */
static int parse_number(const char *p, Py_ssize_t len, double *out) {
    const char *s = p, *end = p + len;
    int negative = 0;
    if (s < end && (*s == '+' || *s == '-')) negative = *s++ == '-';
    uint64_t mantissa = 0;
    int int_digits = 0, frac_digits = 0, lost = 0;   /* lost: a digit the mantissa could not hold */
    while (s < end && *s >= '0' && *s <= '9') {
        if (mantissa < 100000000000000000ULL) mantissa = mantissa * 10 + (uint64_t)(*s - '0');
        else lost = 1;
        int_digits++;
        s++;
    }
    int scale = 0;   /* the power of ten the mantissa is divided by */
    if (s < end && *s == '.') {
        s++;
        while (s < end && *s >= '0' && *s <= '9') {
            if (mantissa < 100000000000000000ULL) { mantissa = mantissa * 10 + (uint64_t)(*s - '0'); scale--; }
            else if (*s != '0') lost = 1;
            frac_digits++;
            s++;
        }
    }
    if (int_digits + frac_digits == 0) return 0;
    int exponent = 0, has_exponent = 0;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        int eneg = 0;
        if (s < end && (*s == '+' || *s == '-')) eneg = *s++ == '-';
        if (!(s < end && *s >= '0' && *s <= '9')) return 0;
        while (s < end && *s >= '0' && *s <= '9') {
            if (exponent < 100000) exponent = exponent * 10 + (*s - '0');
            s++;
        }
        if (eneg) exponent = -exponent;
        has_exponent = 1;
    }
    if (s != end) return 0;
    if (lost || has_exponent || mantissa >= (1ULL << 53)) return -1;
    double v = (double)mantissa;
    if (scale < 0) {
        if (-scale > 22) return -1;
        v /= POW10[-scale];
    }
    *out = negative ? -v : v;
    return 1;
}

/* The exact reader for a grammar-valid number the fast path declines: CPython's own. */
static int parse_slow(const char *p, Py_ssize_t len, double *out) {
    char small[64];
    char *text = len < (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)len + 1);
    if (!text) return -2;
    memcpy(text, p, (size_t)len);
    text[len] = 0;
    double v = PyOS_string_to_double(text, NULL, NULL);
    if (text != small) PyMem_Free(text);
    if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (!isfinite(v)) return 0;
    *out = v;
    return 1;
}

static int number_cell(const char *p, Py_ssize_t len, double *out) {
    int got = parse_number(p, len, out);
    return got >= 0 ? got : parse_slow(p, len, out);
}

/* A block's table of distinct texts of one discrete column. */
typedef struct {
    uint64_t key;
    int32_t code1;       /* 1 + code; 0: empty */
    int32_t len;
    const char *text;
} Slot;

typedef struct {
    Slot *slot;
    int64_t size, count;
    Slot *order;         /* the texts in first-seen order (count of them): code k is order[k] */
    int64_t order_size;
} Table;

/* A text's key: its zero-padded bytes when at most 8 (equal keys and lengths are equal texts,
 * with no compare), else a hash of its 8-byte words (compared on a match). */
static inline uint64_t hash_text(const char *p, Py_ssize_t len) {
    if (len <= 8) {
        uint64_t w = 0;
        memcpy(&w, p, (size_t)len);
        return w;
    }
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len;
    for (; len > 0; p += 8, len -= 8) {
        uint64_t w = 0;
        memcpy(&w, p, len >= 8 ? 8 : (size_t)len);
        h = mix(h ^ w);
    }
    return h;
}

/* The tables are made and grown without the GIL (scan reads a block while Python runs on):
 * the raw allocator, no Python object until the block is read. */
static int grow(Table *t) {
    int64_t size = t->size ? t->size * 2 : 1024;
    Slot *slot = PyMem_RawCalloc((size_t)size, sizeof(Slot));
    if (!slot) return -1;
    for (int64_t i = 0; i < t->size; i++) {
        Slot s = t->slot[i];
        if (!s.code1) continue;
        int64_t j = (int64_t)(mix(s.key) & (uint64_t)(size - 1));
        while (slot[j].code1) j = (j + 1) & (size - 1);
        slot[j] = s;
    }
    PyMem_RawFree(t->slot);
    t->slot = slot;
    t->size = size;
    return 0;
}

static int32_t code_of(Table *t, const char *p, Py_ssize_t len) {
    if (2 * (t->count + 1) > t->size && grow(t) < 0) return -1;
    uint64_t key = hash_text(p, len);
    int64_t j = (int64_t)(mix(key) & (uint64_t)(t->size - 1));
    for (;; j = (j + 1) & (t->size - 1)) {
        Slot *s = &t->slot[j];
        if (!s->code1) break;
        if (s->key == key && s->len == len && (len <= 8 || memcmp(s->text, p, (size_t)len) == 0)) return s->code1 - 1;
    }
    if (t->count == t->order_size) {
        int64_t size = t->order_size ? 2 * t->order_size : 256;
        Slot *order = PyMem_RawRealloc(t->order, (size_t)size * sizeof(Slot));
        if (!order) return -1;
        t->order = order;
        t->order_size = size;
    }
    Slot *s = &t->slot[j];
    s->key = key;
    s->len = (int32_t)len;
    s->text = p;
    s->code1 = (int32_t)++t->count;
    t->order[t->count - 1] = *s;
    return s->code1 - 1;
}

/* scan(block, nfields, max_rows, final, bounds, columns, kinds, numbers, flags, codes)
 *   block: bytes of whole lines (and, unless `final`, the start of the next);
 *   bounds: int64[2 * max_rows], each line's start and end (end before "\r\n" or "\n");
 *   columns: the field positions the model reads, ascending; kinds: b"c" continuous, b"d";
 *   numbers: float64[ncontinuous * max_rows]; flags: uint8[ncontinuous * max_rows], 1 where
 *   the cell is not a plain number; codes: int32[ndiscrete * max_rows].
 * Returns (rows, bytes consumed, [distinct texts of each discrete column]); a line with
 * another number of fields: ValueError naming it (by its row in the block). */
static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer block, bounds, numbers, flags, codes;
    Py_ssize_t nfields, max_rows;
    int final;
    PyObject *columns, *kinds_obj;
    if (!PyArg_ParseTuple(args, "y*nnpw*OSw*w*w*", &block, &nfields, &max_rows, &final, &bounds,
                          &columns, &kinds_obj, &numbers, &flags, &codes))
        return NULL;
    PyObject *result = NULL, *texts = NULL;
    Table *tables = NULL;
    Py_ssize_t ntables = 0;
    char *is_cont = NULL;
    Py_ssize_t ncols = PyTuple_Check(columns) ? PyTuple_GET_SIZE(columns) : -1;
    const char *kinds = PyBytes_AS_STRING(kinds_obj);
    int *slot_of = NULL;   /* a field's continuous or discrete index, -1 when not read */
    if (ncols < 0 || PyBytes_GET_SIZE(kinds_obj) != ncols) {
        PyErr_SetString(PyExc_TypeError, "columns must be a tuple, kinds one byte per column");
        goto done;
    }
    slot_of = PyMem_Malloc(sizeof(int) * (size_t)(nfields + 1));
    if (!slot_of) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t f = 0; f < nfields; f++) slot_of[f] = -1;
    Py_ssize_t ncont = 0, ndisc = 0;
    for (Py_ssize_t i = 0; i < ncols; i++) {
        Py_ssize_t f = PyLong_AsSsize_t(PyTuple_GET_ITEM(columns, i));
        if (f < 0 || f >= nfields) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "column out of range"); goto done; }
        slot_of[f] = kinds[i] == 'c' ? (int)ncont++ : (int)ndisc++;
    }
    if (bounds.len < (Py_ssize_t)(2 * max_rows * sizeof(int64_t)) || numbers.len < (Py_ssize_t)(ncont * max_rows * sizeof(double))
            || flags.len < ncont * max_rows || codes.len < (Py_ssize_t)(ndisc * max_rows * sizeof(int32_t))) {
        PyErr_SetString(PyExc_ValueError, "output buffers too small");
        goto done;
    }
    is_cont = PyMem_Calloc((size_t)nfields + 1, 1);
    tables = PyMem_Calloc((size_t)ndisc + 1, sizeof(Table));
    if (!is_cont || !tables) { PyErr_NoMemory(); goto done; }
    ntables = ndisc;
    for (Py_ssize_t i = 0; i < ncols; i++) is_cont[PyLong_AsSsize_t(PyTuple_GET_ITEM(columns, i))] = kinds[i] == 'c';
    const char *buf = block.buf, *end = buf + block.len, *p = buf;
    int64_t *bound = bounds.buf;
    double *number = numbers.buf;
    uint8_t *flag = flags.buf;
    int32_t *code = codes.buf;
    Py_ssize_t rows = 0;
    int failed = 0;   /* 1: out of memory, 2: a line of another number of fields (row `rows`) */
    /* the block is read without the GIL: predict scans the next block while Python decides
     * this one (cli/cases.py _scanned_ahead); only a number the fast path declines takes it */
    Py_BEGIN_ALLOW_THREADS
    while (rows < max_rows && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && !final) break;
        const char *line_end = nl ? nl : end;
        if (line_end > p && line_end[-1] == '\r') line_end--;
        const char *cell = p;
        Py_ssize_t f = 0;
        for (;;) {
            const char *cell_end = cell;   /* cells are short: a loop beats memchr's call */
            while (cell_end < line_end && *cell_end != ',') cell_end++;
            const char *comma = cell_end < line_end ? cell_end : NULL;
            if (f < nfields) {
                int s = slot_of[f];
                if (s >= 0) {
                    if (is_cont[f]) {
                        double v = 0;
                        int got = parse_number(cell, cell_end - cell, &v);
                        if (got < 0) {
                            Py_BLOCK_THREADS
                            got = parse_slow(cell, cell_end - cell, &v);
                            Py_UNBLOCK_THREADS
                        }
                        if (got == -2) { failed = 1; break; }
                        number[s * max_rows + rows] = got ? v : 0.0;
                        flag[s * max_rows + rows] = !got;
                    } else {
                        int32_t c = code_of(&tables[s], cell, cell_end - cell);
                        if (c < 0) { failed = 1; break; }
                        code[s * max_rows + rows] = c;
                    }
                }
            }
            f++;
            if (!comma) break;
            cell = comma + 1;
        }
        if (failed) break;
        if (f != nfields) {
            failed = 2;
            break;
        }
        bound[2 * rows] = p - buf;
        bound[2 * rows + 1] = line_end - buf;
        rows++;
        p = nl ? nl + 1 : end;
    }
    Py_END_ALLOW_THREADS
    if (failed == 1) { PyErr_NoMemory(); goto done; }
    if (failed == 2) { PyErr_Format(PyExc_ValueError, "%zd", rows); goto done; }
    texts = PyList_New(ndisc);
    if (!texts) goto done;
    for (Py_ssize_t d = 0; d < ndisc; d++) {
        PyObject *list = PyList_New((Py_ssize_t)tables[d].count);
        if (!list) goto done;
        PyList_SET_ITEM(texts, d, list);
        for (int64_t k = 0; k < tables[d].count; k++) {
            PyObject *text = PyBytes_FromStringAndSize(tables[d].order[k].text, tables[d].order[k].len);
            if (!text) goto done;
            PyList_SET_ITEM(list, k, text);
        }
    }
    result = Py_BuildValue("nnO", rows, (Py_ssize_t)(p - buf), texts);
done:
    for (Py_ssize_t d = 0; d < ntables; d++) {
        PyMem_RawFree(tables[d].slot);
        PyMem_RawFree(tables[d].order);
    }
    PyMem_Free(tables);
    PyMem_Free(is_cont);
    PyMem_Free(slot_of);
    Py_XDECREF(texts);
    PyBuffer_Release(&block);
    PyBuffer_Release(&bounds);
    PyBuffer_Release(&numbers);
    PyBuffer_Release(&flags);
    PyBuffer_Release(&codes);
    return result;
}

/* join(block, bounds, rows, which, cells): each of the `rows` lines of `block` (bounds as
 * scan gives them), then ",", its added cells cells[which[row]] (bytes) and "\n", as bytes. */
static PyObject *join(PyObject *self, PyObject *args) {
    Py_buffer block, bounds, which;
    Py_ssize_t rows;
    PyObject *cells, *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*ny*O!", &block, &bounds, &rows, &which, &PyList_Type, &cells)) return NULL;
    const int64_t *bound = bounds.buf, *pick = which.buf;
    Py_ssize_t ncells = PyList_GET_SIZE(cells), total = 0;
    if (bounds.len < (Py_ssize_t)(2 * rows * sizeof(int64_t)) || which.len < (Py_ssize_t)(rows * sizeof(int64_t))) {
        PyErr_SetString(PyExc_ValueError, "bounds or which too short");
        goto done;
    }
    for (Py_ssize_t i = 0; i < ncells; i++)
        if (!PyBytes_Check(PyList_GET_ITEM(cells, i))) { PyErr_SetString(PyExc_TypeError, "cells must be bytes"); goto done; }
    for (Py_ssize_t r = 0; r < rows; r++) {
        if (pick[r] < 0 || pick[r] >= ncells || bound[2 * r] < 0 || bound[2 * r + 1] > block.len || bound[2 * r] > bound[2 * r + 1]) {
            PyErr_SetString(PyExc_ValueError, "row out of range");
            goto done;
        }
        total += bound[2 * r + 1] - bound[2 * r] + PyBytes_GET_SIZE(PyList_GET_ITEM(cells, pick[r])) + 2;
    }
    out = PyBytes_FromStringAndSize(NULL, total);
    if (!out) goto done;
    char *w = PyBytes_AS_STRING(out);
    const char *buf = block.buf;
    const char **cell = PyMem_Malloc(sizeof(char *) * (size_t)(ncells + 1));
    Py_ssize_t *cell_len = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(ncells + 1));
    if (!cell || !cell_len) {
        PyMem_Free(cell);
        PyMem_Free(cell_len);
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < ncells; i++) {
        cell[i] = PyBytes_AS_STRING(PyList_GET_ITEM(cells, i));
        cell_len[i] = PyBytes_GET_SIZE(PyList_GET_ITEM(cells, i));
    }
    Py_BEGIN_ALLOW_THREADS   /* the copy, while the next block is scanned */
    for (Py_ssize_t r = 0; r < rows; r++) {
        size_t n = (size_t)(bound[2 * r + 1] - bound[2 * r]);
        memcpy(w, buf + bound[2 * r], n);
        w += n;
        *w++ = ',';
        n = (size_t)cell_len[pick[r]];
        memcpy(w, cell[pick[r]], n);
        w += n;
        *w++ = '\n';
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(cell);
    PyMem_Free(cell_len);
done:
    PyBuffer_Release(&block);
    PyBuffer_Release(&bounds);
    PyBuffer_Release(&which);
    return out;
}

/* cut(block, max_rows, final): (lines, bytes) of the first `max_rows` whole lines of `block`
 * (with `final`, a last line without its line feed counts). */
static PyObject *cut(PyObject *self, PyObject *args) {
    Py_buffer block;
    Py_ssize_t max_rows;
    int final;
    if (!PyArg_ParseTuple(args, "y*np", &block, &max_rows, &final)) return NULL;
    const char *buf = block.buf, *end = buf + block.len, *p = buf;
    Py_ssize_t rows = 0;
    Py_BEGIN_ALLOW_THREADS
    while (rows < max_rows && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && !final) break;
        p = nl ? nl + 1 : end;
        rows++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&block);
    return Py_BuildValue("nn", rows, (Py_ssize_t)(p - buf));
}

/* layout(chunk, sep, nfields, skip_first, limit): data/frame.py _plain_csv_records' test of a
 * chunk of whole lines (ending in a line feed), in one pass: (records, whether one is blank,
 * whether every byte is ASCII)
 * when no line holds a quote, a NUL or a CR other than before its line feed, each line has
 * nfields - 1 separators or is blank (empty, or a lone CR), and none is `limit` bytes or
 * longer (its CR counted); else None. `skip_first`: the first line (the header) is not counted. */
static PyObject *layout(PyObject *self, PyObject *args) {
    Py_buffer chunk;
    int sep, skip_first;
    Py_ssize_t nfields, limit;
    if (!PyArg_ParseTuple(args, "y*Cnpn", &chunk, &sep, &nfields, &skip_first, &limit)) return NULL;
    const unsigned char *p = chunk.buf, *end = p + chunk.len;
    Py_ssize_t records = 0, seps = 0;
    int blanks = 0, plain = 1;
    unsigned char high = 0;
    const unsigned char *start = p;
    Py_BEGIN_ALLOW_THREADS
    for (; p < end; p++) {
        unsigned char c = *p;
        high |= c;
        if (c == (unsigned char)sep) { seps++; continue; }
        if (c > '"') continue;
        if (c == '"' || c == 0 || (c == '\r' && (p + 1 >= end || p[1] != '\n'))) { plain = 0; break; }
        if (c != '\n') continue;
        Py_ssize_t length = p - start;
        if (skip_first) skip_first = 0;
        else {
            int blank = seps == 0 && (length == 0 || (length == 1 && start[0] == '\r'));
            if ((seps != nfields - 1 && !blank) || length >= limit) { plain = 0; break; }
            blanks |= blank;
            records++;
        }
        seps = 0;
        start = p + 1;
    }
    Py_END_ALLOW_THREADS
    if (plain && start != end) plain = 0;   /* the chunk must end with a line feed */
    PyBuffer_Release(&chunk);
    if (!plain) Py_RETURN_NONE;
    return Py_BuildValue("nOO", records, blanks ? Py_True : Py_False, high & 0x80 ? Py_False : Py_True);
}

/* lines(chunk, run, limit): engines/lines.py plain_lines' test of one read of a file, which
 * may end inside a line: (line feeds in `chunk`, the bytes after its last one, counted on from
 * `run`, the bytes of the line the reads before it left open) when the chunk has no quote, CR
 * or NUL and no line in it is `limit` bytes or longer (`run` counted); else None. Each line
 * feed is found by memchr, a few bytes a cycle: numpy's compare and flatnonzero over the
 * chunk, then the differences of the line ends, cost four times as much (2.9 CPU s of a 2.9 GB
 * file, before DuckDB starts reading it). */
static PyObject *lines(PyObject *self, PyObject *args) {
    Py_buffer chunk;
    Py_ssize_t run, limit;
    if (!PyArg_ParseTuple(args, "y*nn", &chunk, &run, &limit)) return NULL;
    const char *p = chunk.buf, *end = p + chunk.len;
    Py_ssize_t feeds = 0;
    int plain = 1;
    Py_BEGIN_ALLOW_THREADS
    if (memchr(p, '"', (size_t)chunk.len) || memchr(p, '\r', (size_t)chunk.len) || memchr(p, 0, (size_t)chunk.len))
        plain = 0;
    while (plain && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) { run += end - p; break; }
        if (run + (nl - p) >= limit) plain = 0;
        feeds++;
        run = 0;
        p = nl + 1;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&chunk);
    if (!plain) Py_RETURN_NONE;
    return Py_BuildValue("nn", feeds, run);
}

/* number(text): the float the plain-number cell `text` (bytes) spells, else None (tests). */
static PyObject *number(PyObject *self, PyObject *arg) {
    char *p;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(arg, &p, &len) < 0) return NULL;
    double v;
    int got = number_cell(p, len, &v);
    if (got == -2) return PyErr_NoMemory();
    if (!got) Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "Find a block's lines and the model's cells (see the module comment)."},
    {"join", join, METH_VARARGS, "Each line followed by ',', its added cells and a line feed."},
    {"layout", layout, METH_VARARGS, "A chunk's records and blank lines when it is plain, else None."},
    {"cut", cut, METH_VARARGS, "(lines, bytes) of a block's first whole lines."},
    {"lines", lines, METH_VARARGS, "A read's line feeds and the bytes after the last, when plain, else None."},
    {"number", number, METH_O, "The float a plain-number cell spells, else None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_plaincsv", NULL, -1, methods};

PyMODINIT_FUNC PyInit__plaincsv(void) { return PyModule_Create(&module); }
