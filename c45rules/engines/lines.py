"""Whether each line of a text file is one CSV record: the engines that read a file in parallel
pieces (Spark) or count its records from its lines (DuckDB) ask it first."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

try:
    from ..data import _plaincsv
except ImportError:   # not built: numpy finds the line feeds
    _plaincsv = None

# a read the size of a core's cache: the scan's passes over it then cost little beyond the read
_CHUNK = 1 << 20


def plain_lines(path: str | Path) -> tuple[int, bool] | None:
    """(the number of line feeds in file `path`, whether its last byte is one) when no record of
    it can span lines or be read two ways: no quote, carriage return or NUL byte, and no line as
    long as the csv module's field limit; None otherwise (also for an empty file).

    One byte scan: a quote could hide a line break inside a cell, a carriage return is a line
    end to some readers and not to others.
    """
    limit = csv.field_size_limit()
    scan = _plaincsv.lines if _plaincsv is not None else _line_feeds
    newlines, run, final = 0, 0, b""
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            found = scan(chunk, run, limit)
            if found is None:
                return None
            feeds, run = found
            newlines += feeds
            final = chunk[-1:]
        size = f.tell()
    if size == 0 or run > limit:
        return None
    return newlines, final == b"\n"


def _line_feeds(chunk: bytes, run: int, limit: int) -> tuple[int, int] | None:
    """data/_plaincsv.c lines, in numpy: (line feeds in `chunk`, the bytes after the last one,
    counted on from `run`) when it has no quote, CR or NUL and no line of `limit` bytes or more."""
    if b'"' in chunk or b"\r" in chunk or b"\0" in chunk:
        return None
    ends = np.flatnonzero(np.frombuffer(chunk, np.uint8) == ord("\n"))
    if not len(ends):
        return 0, run + len(chunk)
    if np.diff(ends, prepend=-1 - run).max() > limit:   # each line's bytes and its line feed
        return None
    return len(ends), len(chunk) - 1 - int(ends[-1])
