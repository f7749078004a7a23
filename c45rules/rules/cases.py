"""Lists of ascending case (or rule) numbers packed as varints of their gaps.

A candidate rule's cover is kept from the generalisation to the end of the subset search:
59M (rule, case) pairs at 1M cases, 233 MB as int32 and 78 MB packed. The first number is
written as itself, then each one less the one before, 7 bits a byte, low bits first, the
top bit set on every byte but a number's last (LEB128). The compiled modules read and
write the same bytes (_varint.h).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike


def pack_cases(cases: np.ndarray) -> bytes:
    """Ascending numbers >= 0 (below 2^32) as varint bytes of their gaps."""
    v = np.asarray(cases, dtype=np.int64)
    if len(v) and (v[0] < 0 or (np.diff(v) < 0).any() or v[-1] >= 2**32):
        raise ValueError("pack_cases: the numbers must be ascending, >= 0 and below 2^32")
    return pack_gaps(np.diff(v, prepend=0).astype(np.uint64)).tobytes()


def pack_gaps(gaps: np.ndarray) -> np.ndarray:
    """Gaps (uint64, below 2^32) as varint bytes, one after another (a uint8 array): pack_cases'
    bytes for a list whose gaps they are, or for several lists' gaps put one after another."""
    size = np.ones(len(gaps), dtype=np.int64)
    for bits in (7, 14, 21, 28):
        size += gaps >= (1 << bits)
    at = np.cumsum(size) - size                 # each number's first byte
    out = np.zeros(int(size.sum()), dtype=np.uint8)
    for j in range(5):
        on = size > j
        byte = (gaps[on] >> np.uint64(7 * j)) & np.uint64(127)
        more = (size[on] > j + 1).astype(np.uint64) << np.uint64(7)
        out[at[on] + j] = (byte | more).astype(np.uint8)
    return out


def unpack_cases(packed: bytes | np.ndarray, dtype: DTypeLike = np.int32) -> np.ndarray:
    """The numbers pack_cases packed (from bytes or a uint8 array)."""
    b = np.frombuffer(packed, dtype=np.uint8) if not isinstance(packed, np.ndarray) else packed
    last = np.flatnonzero(b < 128)              # each number's last byte
    if len(last) == 0 or last[-1] != len(b) - 1:
        if len(b):
            raise ValueError("unpack_cases: the bytes end inside a number")
        return np.empty(0, dtype=dtype)
    first = np.concatenate([[0], last[:-1] + 1])
    shift = 7 * (np.arange(len(b)) - np.repeat(first, last - first + 1))
    gaps = np.add.reduceat((b & 127).astype(np.int64) << shift, first)
    return np.cumsum(gaps).astype(dtype)


def pack_values(values: np.ndarray) -> np.ndarray:
    """Integers (counts, gaps) in few bytes for sending: as varint bytes (a uint8 array; most counts
    take one or two of the 8 an int64 takes) when all lie in [0, 2^32), else as they are (int64)."""
    v = np.asarray(values, dtype=np.int64)
    if len(v) and (v.min() < 0 or v.max() >= 2**32):
        return v
    return pack_gaps(v.astype(np.uint64))


def unpack_values(packed: np.ndarray) -> np.ndarray:
    """pack_values' integers back, as int64."""
    if packed.dtype == np.int64:
        return packed
    # unpack_cases sums the numbers as gaps: their differences are the numbers themselves
    return np.diff(unpack_cases(packed, np.int64), prepend=np.int64(0))


def pack_counts(counts: np.ndarray) -> tuple[tuple[int, ...], bytes, np.ndarray]:
    """An integer array of any shape, mostly zeros (a pass's count tables), in few bytes: its shape,
    where its nonzero entries lie (pack_cases of their flat positions) and their values
    (pack_values)."""
    flat = np.ascontiguousarray(counts).reshape(-1)
    at = np.flatnonzero(flat)
    return counts.shape, pack_cases(at), pack_values(flat[at])


def unpack_counts(shape: tuple[int, ...], at: bytes, values: np.ndarray) -> np.ndarray:
    """pack_counts' array back (int64)."""
    out = np.zeros(int(np.prod(shape)), dtype=np.int64)
    out[unpack_cases(at, np.int64)] = unpack_values(values)
    return out.reshape(shape)


class PackedCases:
    """`count` ascending numbers packed in data[lo:hi] (data: a uint8 array, often shared by
    a whole class's rules, one after another) standing for cases: number i is case labels[i],
    or case i when labels is None. The compiled generalisation numbers a rule's cases by their
    place in leaf order, where they lie close together (shorter gaps; the subset search reads
    its per-case counts a few cache lines at a time)."""

    __slots__ = ("data", "lo", "hi", "count", "labels")

    def __init__(self, data: np.ndarray, lo: int, hi: int, count: int, labels: np.ndarray | None = None):
        self.data, self.lo, self.hi, self.count, self.labels = data, lo, hi, count, labels

    def __setstate__(self, state) -> None:
        # pickles made before the labels were added hold four slots
        slots = state[1] if isinstance(state, tuple) else state
        self.labels = None
        for name, value in slots.items():
            setattr(self, name, value)

    def __len__(self) -> int:
        return self.count

    def unpack(self, dtype: DTypeLike = np.int32) -> np.ndarray:
        """The cases as an array, ascending."""
        out = unpack_cases(self.data[self.lo:self.hi], dtype)
        assert len(out) == self.count, "a packed cover's count disagrees with its bytes"
        if self.labels is not None:
            out = np.sort(self.labels[out]).astype(dtype, copy=False)
        return out
