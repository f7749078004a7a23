/* Ascending numbers (a rule's cases, a case's rules) packed as LEB128 varints of their
 * gaps: the first number itself, then each one less the one before, 7 bits a byte, low
 * bits first, the top bit set on every byte but a number's last. At 1M cases a rule's
 * cases take 1.3 bytes each instead of 4 (cases.py is the numpy version). */
#ifndef C45RULES_VARINT_H
#define C45RULES_VARINT_H
#include <stdint.h>

/* Write one gap at out; the bytes written. */
static inline int varint_put(uint32_t gap, uint8_t *out) {
    int at = 0;
    while (gap >= 128) {
        out[at++] = (uint8_t)(gap | 128);
        gap >>= 7;
    }
    out[at++] = (uint8_t)gap;
    return at;
}

/* Pack v[0..n) (ascending, >= 0) into out (room for 5 bytes a number); the bytes written. */
static inline int64_t varint_pack(const int32_t *v, int64_t n, uint8_t *out) {
    int64_t at = 0;
    uint32_t prev = 0;
    for (int64_t i = 0; i < n; i++) {
        at += varint_put((uint32_t)v[i] - prev, out + at);
        prev = (uint32_t)v[i];
    }
    return at;
}

/* The gap at *p (bytes up to `end`), moving *p past it. One- and two-byte gaps, nearly
 * all of them, are decoded without a branch on which they are: at a 1:1 mix a mispredicted
 * branch per gap cost the climb a quarter of its time. */
static inline uint32_t varint_next(const uint8_t **p, const uint8_t *end) {
    const uint8_t *q = *p;
    uint32_t b0 = q[0];
    if (q + 1 < end) {
        uint32_t b1 = q[1], two = b0 >> 7;
        if (!(two & (b1 >> 7))) {
            *p = q + 1 + two;
            return (b0 & 127) | (((b1 & 127) << 7) & (0u - two));
        }
    }
    uint32_t v = 0;
    int shift = 0;
    uint8_t b;
    do {
        b = *q++;
        v |= (uint32_t)(b & 127) << shift;
        shift += 7;
    } while (b & 128);
    *p = q;
    return v;
}
/* A case's rules are read far more often than a rule's cases (every toggle reads the
 * rules of every case whose count crosses 0/1 or 1/2) and their gaps are often two bytes
 * as varints: they are kept as 16-bit gaps instead, a gap of 0xFFFF or more as 0xFFFF and
 * then its low and high halves (2 bytes a pair, against 4 as int32, and no unpredictable
 * branch). */
static inline int gap16_size(uint32_t gap) {
    return gap < 0xFFFF ? 1 : 3;
}

static inline int gap16_put(uint32_t gap, uint16_t *out) {
    if (gap < 0xFFFF) {
        out[0] = (uint16_t)gap;
        return 1;
    }
    out[0] = 0xFFFF;
    out[1] = (uint16_t)(gap & 0xFFFF);
    out[2] = (uint16_t)(gap >> 16);
    return 3;
}

static inline uint32_t gap16_next(const uint16_t **p) {
    const uint16_t *q = *p;
    if (q[0] != 0xFFFF) {
        *p = q + 1;
        return q[0];
    }
    *p = q + 3;
    return (uint32_t)q[1] | ((uint32_t)q[2] << 16);
}
#endif
