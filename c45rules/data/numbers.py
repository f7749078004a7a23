"""What a text cell must look like to be a number of a continuous attribute, in one place.

The library, the exported SQL (every dialect) and the scoring engines read a continuous
column's *text* the same way, so that a staging table whose columns are all text decides
as the typed table does:

* a cell is a number when, after optional ASCII white space (space, tab, LF, VT, FF, CR)
  on either side, it is a plain decimal: an optional sign, digits with an optional point
  (or a point and digits), an optional exponent (`e` or `E`, optional sign, digits), and
  its value is finite (so `1e999` is not);
* only ASCII digits count (`١٢` and `１２` are not numbers), and there are no other
  spellings: no `inf`, `Infinity`, `nan`, `1_000`, `0x10`, thousands separators;
* texts that are an unknown token (the empty cell, `?`, pandas' NA list) are unknown
  before this test is made; any other text is a *bad cell*, which `predict` reports as an
  error by default (`--bad-cells error`) or reads as unknown (`--bad-cells unknown`, the
  behaviour of the exported SQL, which has no way to stop a query with a message).

`NUMBER_REGEX` is written with only the constructs that POSIX ERE, RE2, Java, ICU and
Python's `re` share (bracket expressions, groups, `?`, `*`, `+`, anchors), so the SQL
exporter can hand it to any dialect's regular-expression operator.
"""
from __future__ import annotations

import math
import re

import numpy as np

NUMBER_SPACE = " \t\n\v\f\r"
# the core (no surrounding space): an optional sign, digits and point, an optional exponent
NUMBER_CORE = "[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?"
_SPACE_CLASS = "[ \t\n\v\f\r]"
NUMBER_REGEX = f"^{_SPACE_CLASS}*{NUMBER_CORE}{_SPACE_CLASS}*$"
_NUMBER = re.compile(NUMBER_REGEX)


def number_or_none(text: str) -> float | None:
    """The finite number `text` spells under the rule above, else None."""
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)   # the grammar is a subset of float()'s, which rounds correctly
    return value if math.isfinite(value) else None


def parse_number_texts(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, is a number) for an object array of `str`: NaN where a text is not a number."""
    values = np.full(len(texts), np.nan)
    ok = np.zeros(len(texts), dtype=bool)
    for i, text in enumerate(texts):
        value = number_or_none(text) if isinstance(text, str) else None
        if value is not None:
            values[i] = value
            ok[i] = True
    return values, ok
