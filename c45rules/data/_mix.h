/* The hash both data modules (_distinct.c, _cells.c) key their tables with. */
#ifndef C45RULES_MIX_H
#define C45RULES_MIX_H
#include <stdint.h>

/* splitmix64's finaliser: spreads near-equal keys (codes, short texts) over a table */
static inline uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}
#endif
