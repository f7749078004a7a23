// What a compiled inner loop would buy the subset search (issue 6): one evaluation of the
// greedy descent (c45rules/rules/select.py _ClassSearch.evaluate, every rule that alone
// covers cases re-costed with the exception-bits formula from log tables, then the argmax)
// for k rules on synthetic counts. A sizing measurement, not part of the package.
//   gcc -O2 -o /tmp/select_step bench/select_step.c -lm && /tmp/select_step K MOVED
// Measured 2026-11-30: K=23860 MOVED=12482 (synth_1m's class C): 269-349 us per evaluation in C
// against 588 us in numpy (130,824 evaluations, 77 of the class's 96 CPU s).
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
int main(int argc, char **argv) {
    int k = atoi(argv[1]), moved_n = atoi(argv[2]), n = 1000000, steps = 2000;
    double *bits = malloc(k * sizeof(double)), *exc = malloc(k * sizeof(double)), *change = malloc(k * sizeof(double));
    double *lg = malloc((2 * (size_t)n + 1) * sizeof(double)), *tlg = malloc(((size_t)n + 1) * sizeof(double));
    int *alone = malloc(k * sizeof(int)), *wrong = malloc(k * sizeof(int)); char *inside = malloc(k);
    for (size_t j = 0; j <= 2 * (size_t)n; j++) lg[j] = j ? log2(j / 2.0) : 0.0;
    for (size_t t = 0; t <= (size_t)n; t++) tlg[t] = t * lg[2 * t];
    srand(1);
    for (int r = 0; r < k; r++) { bits[r] = 20 + rand() % 40; inside[r] = rand() % 2;
        alone[r] = r < moved_n ? 1 + rand() % 50 : 0; wrong[r] = alone[r] ? rand() % (alone[r] + 1) : 0; }
    long fires = 300000, fp = 30000, npos = 380000; double cw = 0.5, best_sum = 0; int size = k / 2;
    clock_t c0 = clock();
    for (int s = 0; s < steps; s++) {
        long fn = npos - (fires - fp); double rb = 0;
        for (int r = 0; r < k; r++) if (inside[r]) rb += bits[r];
        double cost = cw * rb + 1000.0, l_in = log2(size), l_out = -log2(size + 1.0);
        double best = -1e300; int arg = 0;
        for (int r = 0; r < k; r++) {
            double e;
            if (alone[r]) {
                int sg = inside[r] ? -1 : 1; long f = fires + sg * alone[r], p = fp + sg * wrong[r], q = fn - sg * (alone[r] - wrong[r]);
                int big = f > n / 2; long m2 = p + q, tx = big ? m2 : 2 * p;
                double cov = tlg[f] - p * lg[tx] - (f - p) * lg[2 * f - tx];
                long rest_n = n - f; tx = big ? 2 * q : m2;
                double rest = tlg[rest_n] - q * lg[tx] - (rest_n - q) * lg[2 * rest_n - tx];
                e = 19.93 + cov + rest;
            } else e = cost - cw * rb;
            double ch = cost - (cw * (rb + (inside[r] ? -bits[r] : bits[r]) + (inside[r] ? l_in : l_out)) + e);
            if (ch > best) { best = ch; arg = r; }
        }
        best_sum += best + arg; fires += (s % 3) - 1;
    }
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    printf("k=%d moved=%d: %.1f us per evaluation (checksum %g)\n", k, moved_n, 1e6 * secs / steps, best_sum);
    return 0;
}
