/* numpy's np.sum of a[0..n) (float64, contiguous): its pairwise sum, 8 running sums in blocks
 * of at most 128, halves cut at a multiple of 8. The compiled steps that must give numpy's
 * doubles to the last bit (_climb.c, _regress.c) sum with it. */
#ifndef C45RULES_PAIRWISE_H
#define C45RULES_PAIRWISE_H

#include <stdint.h>

static double pairwise_sum(const double *a, int64_t n) {
    if (n < 8) {
        double res = 0.;
        for (int64_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        int64_t i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

#endif
