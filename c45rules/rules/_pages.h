/* Buffers that grow (or come and go) while a compiled step runs get pages of their own on
 * Linux: mapped, grown by mremap (no byte copied) and unmapped when freed. On the C heap
 * each move left the old block behind as a hole, free but resident, under the step's peak
 * (50-70 MB in the generalisation at 1M cases). Elsewhere they are malloc'd. */
#ifndef C45RULES_PAGES_H
#define C45RULES_PAGES_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* p (old bytes, or NULL) grown to size bytes, contents kept; new bytes are zero when `zero`
 * (a fresh mapping is zero already). NULL when out of memory (p is then left as it was). */
static inline void *pages_grow(void *p, size_t old, size_t size, int zero) {
#ifdef __linux__
    (void)zero;
    void *q = p ? mremap(p, old, size, MREMAP_MAYMOVE)
                : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return q == MAP_FAILED ? NULL : q;
#else
    uint8_t *q = realloc(p, size);
    if (q && zero && size > old) memset(q + old, 0, size - old);
    return q;
#endif
}

static inline void pages_free(void *p, size_t size) {
#ifdef __linux__
    if (p) munmap(p, size);
#else
    (void)size;
    free(p);
#endif
}

/* Room for `need` items of `size` bytes at *p, an array of its own pages holding *cap items
 * (doubled as needed: pages never written to are never resident). */
static inline int reserve(void **p, int64_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = pages_grow(*p, (size_t)*cap * size, (size_t)c * size, 0);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

#endif
