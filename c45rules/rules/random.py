"""glibc's random() stream (TYPE_3 additive feedback), as c4.5rules draws it unseeded (spec 7.6.4)."""
from __future__ import annotations

import numpy as np


class GlibcRandom:
    """Reproduces glibc `random()` after `srandom(seed)`; seed 1 is the never-seeded default."""

    def __init__(self, seed: int = 1):
        seed = seed & 0xFFFFFFFF or 1
        r = [seed]
        for _ in range(1, 31):
            hi, lo = divmod(r[-1], 127773)
            w = 16807 * lo - 2836 * hi
            r.append(w + 2147483647 if w < 0 else w)
        self._r = r + r[:3]
        self._advance(310)          # srandom discards the first 310 values

    def next(self) -> int:
        """The next value of random() (31 bits)."""
        return self._advance(1)[0] >> 1

    def _advance(self, count: int) -> list[int]:
        """The next `count` values of the additive feedback (32 bits; random() is each >> 1)."""
        r = self._r
        base = len(r)
        for i in range(base, base + count):
            r.append((r[i - 31] + r[i - 3]) & 0xFFFFFFFF)
        drawn = r[base:]
        del r[:-34]
        return drawn

    def uniform(self) -> float:
        """c4.5rules' Random: (random() & 0x7fffffff) / 2^31."""
        return (self.next() & 0x7FFFFFFF) / 2147483648.0

    def uniforms(self, count: int) -> np.ndarray:
        """The next `count` values of uniform(), as an array (the subset search draws one per rule)."""
        # next() is the value >> 1 (31 bits), so uniform's mask changes nothing
        return (np.array(self._advance(count), dtype=np.uint32) >> 1).astype(np.float64) / 2147483648.0
