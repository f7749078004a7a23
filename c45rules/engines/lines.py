"""Whether each line of a text file is one CSV record: the engines that read a file in parallel
pieces (Spark) or count its records from its lines (DuckDB) ask it first."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

_CHUNK = 1 << 24


def plain_lines(path: str | Path) -> tuple[int, bool] | None:
    """(the number of line feeds in file `path`, whether its last byte is one) when no record of
    it can span lines or be read two ways: no quote, carriage return or NUL byte, and no line as
    long as the csv module's field limit; None otherwise (also for an empty file).

    One byte scan: a quote could hide a line break inside a cell, a carriage return is a line
    end to some readers and not to others.
    """
    limit = csv.field_size_limit()
    newlines, last, final = 0, -1, b""
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            if b'"' in chunk or b"\r" in chunk or b"\0" in chunk:
                return None
            ends = np.flatnonzero(np.frombuffer(chunk, np.uint8) == ord("\n")) + (f.tell() - len(chunk))
            if len(ends) and np.diff(ends, prepend=last).max() > limit:
                return None
            last = int(ends[-1]) if len(ends) else last
            newlines += len(ends)
            final = chunk[-1:]
        size = f.tell()
    if size == 0 or size - 1 - last > limit:
        return None
    return newlines, final == b"\n"
