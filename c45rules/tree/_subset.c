/* The value-subset search of one discrete attribute at one node (subset.py, c4.5 EvalSubset,
 * spec 2.4), compiled.
 *
 * The greedy merging tries every pair of blocks at every step, and each try is a gain and a
 * split information over all blocks: in numpy, a few dozen small-array calls per try, which
 * made `-s` thirty to sixty times slower than without it (issue 32). Here a block's weight
 * and information are kept per block, so a try recomputes only the merged block and then
 * replays the float running sums over the blocks in the order subset.py sums them.
 *
 * Every rounding is subset.py's (c4.5's): float sums left to right, double x log x terms,
 * the C library's log; built with -ffp-contract=off. subset.py falls back to its numpy code
 * when this module is missing, and the tests check both give the same tests.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LN2 0.69314718055994530942
#define EPSILON 1e-3
#define NO_GAIN ((float)-1e-3)
#define PURE_SLACK 0.1      /* a block is of one class if all but 0.1 of its weight is */
#define PRESENT 0.5f        /* values with at most this weight at the node count as absent */
#define MIN_IMPROVEMENT 1e-5

/* c4.5's Log(x) of a float: the C library's log in double over ln 2 (split.log2_c); 0 for x <= 0. */
static inline double log2_f(float x) { return x > 0 ? log((double)x) / LN2 : 0.0; }

/* A float sum left to right (split.seq_sum). */
static inline float seq_sum(const float *x, Py_ssize_t m) {
    float s = 0.0f;
    for (Py_ssize_t i = 0; i < m; i++) s = s + x[i];
    return s;
}

/* split.info of m floats: a float running sum of double x log x terms, the total a float sum. */
static float info_f(const float *x, Py_ssize_t m) {
    float s = 0.0f;
    for (Py_ssize_t i = 0; i < m; i++) s = (float)((double)s + (double)x[i] * log2_f(x[i]));
    float total = seq_sum(x, m);
    return (float)((double)total * log2_f(total) - (double)s);
}

/* The node-wide quantities of subset.py's _Evaluator. */
typedef struct {
    float cases, unknown, known, unknown_rate, base;
    int gain_ratio;
} Node;

/* The gain of an arrangement whose blocks, in order, weigh weight[i] with information
 * info[i] (subset.py _Evaluator.gain: ComputeGain). */
static float arrangement_gain(const Node *nd, const float *weight, const float *info, Py_ssize_t k,
                              float min_objs) {
    int reasonable = 0;
    for (Py_ssize_t i = 0; i < k; i++) reasonable += weight[i] >= min_objs;
    if (nd->known == 0 || reasonable < 2) return NO_GAIN;
    float this_info = 0.0f;
    for (Py_ssize_t i = 0; i < k; i++) this_info = this_info + info[i];
    return (1.0f - nd->unknown_rate) * (nd->base - this_info / nd->known);
}

/* Split information of the arrangement (subset.py _Evaluator.split: TotalInfo of the unknown
 * weight then each block's, over the cases); `scratch` holds k + 1 floats. */
static float arrangement_split(const Node *nd, const float *weight, Py_ssize_t k, float *scratch) {
    scratch[0] = nd->unknown;
    memcpy(scratch + 1, weight, (size_t)k * sizeof(float));
    return info_f(scratch, k + 1) / nd->cases;
}

/* c4.5 Worth with MinGain = Epsilon (split.worth): the comparisons in double, the ratio a float. */
static float arrangement_worth(const Node *nd, float gain, float split) {
    if (nd->gain_ratio) {
        /* split.worth compares with the float MinGain widened to double, less a double Epsilon */
        int ok = (double)gain >= (double)(float)EPSILON - EPSILON && (double)split > EPSILON;
        return ok ? gain / split : NO_GAIN;
    }
    return split > 0 && (double)gain > -EPSILON ? gain : NO_GAIN;
}

/* The blocks: k rows of C class weights, each row's weight and information kept with it. */
typedef struct {
    float *freq, *weight, *info;
    Py_ssize_t k, C;
    int *owner;             /* each value's block, -1 for an absent value */
    Py_ssize_t V;           /* number of values (not counting unknown) */
} Blocks;

static void refresh(Blocks *bl, Py_ssize_t i) {
    bl->weight[i] = seq_sum(bl->freq + i * bl->C, bl->C);
    bl->info[i] = info_f(bl->freq + i * bl->C, bl->C);
}

/* Merge block b into a and move the last block into b's place (c4.5 Combine). */
static void combine(Blocks *bl, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t C = bl->C, last = bl->k - 1;
    for (Py_ssize_t c = 0; c < C; c++) bl->freq[a * C + c] = bl->freq[a * C + c] + bl->freq[b * C + c];
    for (Py_ssize_t v = 0; v < bl->V; v++) {
        if (bl->owner[v] == b) bl->owner[v] = (int)a;
        else if (bl->owner[v] == last) bl->owner[v] = (int)b;
    }
    if (b != last) {
        memcpy(bl->freq + b * C, bl->freq + last * C, (size_t)C * sizeof(float));
        bl->weight[b] = bl->weight[last];
        bl->info[b] = bl->info[last];
    }
    bl->k--;
    refresh(bl, a);
}

static void whole_arrangement(const Node *nd, const Blocks *bl, float min_objs, float *scratch,
                              float *gain, float *val) {
    *gain = arrangement_gain(nd, bl->weight, bl->info, bl->k, min_objs);
    *val = arrangement_worth(nd, *gain, arrangement_split(nd, bl->weight, bl->k, scratch));
}

/* The greedy merging of subset.subset_test; returns 0 when the attribute is unusable. */
static int search(const float *t, Py_ssize_t V, Py_ssize_t C, float cases, float min_objs, int gain_ratio,
                  Blocks *bl, float *work, float *out_gain, float *out_split) {
    Node nd;
    nd.gain_ratio = gain_ratio;
    nd.cases = cases;
    nd.unknown = seq_sum(t, C);
    nd.known = cases - nd.unknown;
    nd.unknown_rate = nd.unknown / cases;
    /* DiscrKnownBaseInfo over every value's weights, absent values too, in double */
    double s = 0.0;
    for (Py_ssize_t c = 0; c < C; c++) {
        float count = 0.0f;
        for (Py_ssize_t v = 1; v <= V; v++) count = count + t[v * C + c];
        s += (double)count * log2_f(count);
    }
    double k_known = (double)nd.known;
    nd.base = k_known != 0 ? (float)((k_known * log2_f(nd.known) - s) / k_known) : 0.0f;
    if ((double)nd.known < EPSILON) return 0;

    /* trial blocks (k - 1 weights and informations) and the split's k + 1 floats */
    float *trial_weight = work, *trial_info = work + V, *scratch = work + 2 * V, *merged = work + 3 * V + 1;
    bl->k = 0;
    for (Py_ssize_t v = 1; v <= V; v++) {
        if (seq_sum(t + v * C, C) > PRESENT) {
            memcpy(bl->freq + bl->k * C, t + v * C, (size_t)C * sizeof(float));
            refresh(bl, bl->k);
            bl->owner[v - 1] = (int)bl->k++;
        } else {
            bl->owner[v - 1] = -1;
        }
    }
    float prev_gain, prev_val;
    whole_arrangement(&nd, bl, 1.0f, scratch, &prev_gain, &prev_val);

    /* single-class blocks join the other single-class blocks of the same class */
    int joined = 0;
    for (Py_ssize_t i = 0; i < bl->k - 1; i++) {
        const float *fi = bl->freq + i * C;
        Py_ssize_t c = 0;
        while (c < C && !((double)fi[c] >= PURE_SLACK)) c++;
        if (c == C) c = 0;
        if (!((double)fi[c] >= (double)seq_sum(fi, C) - PURE_SLACK)) continue;
        Py_ssize_t j = i + 1;
        while (j < bl->k) {
            const float *fj = bl->freq + j * C;
            if ((double)fj[c] < (double)seq_sum(fj, C) - PURE_SLACK) {
                j++;
            } else {
                combine(bl, i, j);
                joined = 1;
            }
        }
    }
    if (joined) whole_arrangement(&nd, bl, 1.0f, scratch, &prev_gain, &prev_val);

    float min_gain = prev_gain / 2.0f;
    while (bl->k > 2) {
        Py_ssize_t k = bl->k, barred = -1;
        int reasonable = 0;
        for (Py_ssize_t i = 0; i < k; i++) reasonable += bl->weight[i] >= min_objs;
        if (reasonable < 3) {
            /* the heaviest block, the first of equals, may not merge */
            barred = 0;
            for (Py_ssize_t i = 1; i < k; i++)
                if (bl->weight[i] > bl->weight[barred]) barred = i;
        }
        Py_ssize_t best_a = -1, best_b = -1;
        float best_val = 0.0f, best_gain = NO_GAIN;
        for (Py_ssize_t a = 0; a < k - 1; a++) {
            for (Py_ssize_t b = a + 1; b < k; b++) {
                if (a == barred || b == barred) continue;
                for (Py_ssize_t c = 0; c < C; c++) merged[c] = bl->freq[a * C + c] + bl->freq[b * C + c];
                /* the trial's blocks in subset._combined's order: a merged, the last in b's place */
                memcpy(trial_weight, bl->weight, (size_t)(k - 1) * sizeof(float));
                memcpy(trial_info, bl->info, (size_t)(k - 1) * sizeof(float));
                if (b != k - 1) {
                    trial_weight[b] = bl->weight[k - 1];
                    trial_info[b] = bl->info[k - 1];
                }
                trial_weight[a] = seq_sum(merged, C);
                trial_info[a] = info_f(merged, C);
                float g = arrangement_gain(&nd, trial_weight, trial_info, k - 1, 1.0f);
                float val = arrangement_worth(&nd, g, arrangement_split(&nd, trial_weight, k - 1, scratch));
                if ((g >= min_gain && best_gain < min_gain) || val >= best_val
                    || (best_a < 0 && (!gain_ratio || reasonable < 2))) {
                    best_a = a;
                    best_b = b;
                    best_val = val;
                    best_gain = g;
                }
            }
        }
        if (gain_ratio && reasonable >= 2
            && (best_a < 0 || (double)best_val < (double)prev_val + MIN_IMPROVEMENT
                || (best_val == prev_val && best_gain < prev_gain)))
            break;
        if (best_a < 0) break;      /* cannot happen: three blocks, at most one barred */
        prev_gain = best_gain;
        prev_val = best_val;
        combine(bl, best_a, best_b);
    }

    if (prev_val <= 0) return 0;
    float gain = arrangement_gain(&nd, bl->weight, bl->info, bl->k, min_objs);
    if (gain <= NO_GAIN) return 0;
    *out_gain = gain;
    *out_split = arrangement_split(&nd, bl->weight, bl->k, scratch);
    return 1;
}

PyDoc_STRVAR(subset_test_doc,
"subset_test(table, n_values, n_classes, cases, min_objs, gain_ratio)\n\n"
"subset.subset_test of one attribute: `table` (float32, (n_values + 1) x n_classes, row 0 the\n"
"unknown value) holds the node's weights by value and class. Returns None when the attribute\n"
"is unusable, else (gain, split information, blocks): the floats are float32 values, `blocks`\n"
"a list of lists of 0-based value codes, one per branch, the absent values last if any.");

static PyObject *py_subset_test(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer table = {0};
    Py_ssize_t V, C;
    float cases;
    double min_objs_d;
    int gain_ratio;
    if (!PyArg_ParseTuple(args, "y*nnfdp", &table, &V, &C, &cases, &min_objs_d, &gain_ratio)) return NULL;
    PyObject *out = NULL;
    Blocks bl;
    memset(&bl, 0, sizeof(bl));
    float *work = NULL;
    if (V < 0 || C < 1 || table.len != (V + 1) * C * (Py_ssize_t)sizeof(float)) {
        PyErr_Format(PyExc_ValueError, "_subset: table has %zd bytes, expected %zd float32 (%zd values, %zd classes)",
                     table.len, (V + 1) * C * (Py_ssize_t)sizeof(float), V, C);
        goto done;
    }
    size_t vn = (size_t)(V > 0 ? V : 1);
    bl.freq = malloc(vn * (size_t)C * sizeof(float));
    bl.weight = malloc(vn * sizeof(float));
    bl.info = malloc(vn * sizeof(float));
    bl.owner = malloc(vn * sizeof(int));
    work = malloc((3 * vn + 1 + (size_t)C) * sizeof(float));
    if (!(bl.freq && bl.weight && bl.info && bl.owner && work)) {
        PyErr_NoMemory();
        goto done;
    }
    bl.C = C;
    bl.V = V;
    /* numpy compares the float32 weights with the Python float min_objs in single precision */
    float min_objs = (float)min_objs_d, gain = 0.0f, split = 0.0f;
    int usable;
    Py_BEGIN_ALLOW_THREADS
    usable = search(table.buf, V, C, cases, min_objs, gain_ratio, &bl, work, &gain, &split);
    Py_END_ALLOW_THREADS
    if (!usable) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    Py_ssize_t absent = 0;
    for (Py_ssize_t v = 0; v < V; v++) absent += bl.owner[v] < 0;
    PyObject *blocks = PyList_New(bl.k + (absent > 0));
    if (!blocks) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(blocks); i++) {
        PyObject *members = PyList_New(0);
        if (!members) { Py_DECREF(blocks); goto done; }
        PyList_SET_ITEM(blocks, i, members);
        int owner = i < bl.k ? (int)i : -1;
        for (Py_ssize_t v = 0; v < V; v++) {
            if (bl.owner[v] != owner) continue;
            PyObject *code = PyLong_FromSsize_t(v);
            if (!code || PyList_Append(members, code) < 0) {
                Py_XDECREF(code);
                Py_DECREF(blocks);
                goto done;
            }
            Py_DECREF(code);
        }
    }
    out = Py_BuildValue("(ddN)", (double)gain, (double)split, blocks);
done:
    free(bl.freq); free(bl.weight); free(bl.info); free(bl.owner); free(work);
    PyBuffer_Release(&table);
    return out;
}

static PyMethodDef methods[] = {
    {"subset_test", py_subset_test, METH_VARARGS, subset_test_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_subset",
                                    "The value-subset search of a discrete attribute (c4.5 -s), compiled.", -1, methods};

PyMODINIT_FUNC PyInit__subset(void) { return PyModule_Create(&module); }
