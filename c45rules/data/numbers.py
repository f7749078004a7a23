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


def parse_number_texts(texts: np.ndarray, arrow: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(values, is a number) for an object array of `str`: NaN where a text is not a number.

    With `arrow` and pyarrow installed, vectorised (NUMBER_REGEX in RE2, then Arrow's
    correctly rounded text-to-float cast, which reads the grammar's texts as float() does);
    else, or for text UTF-8 cannot hold, one text at a time through `number_or_none`.
    `arrow` is for callers that hold pandas already: pyarrow's conversions import it (about
    80 MB), which the C4.5-file path does without (issue 33).
    """
    values = np.full(len(texts), np.nan)
    ok = np.zeros(len(texts), dtype=bool)
    if len(texts) == 0:
        return values, ok
    try:
        if not arrow:
            raise ImportError("the loop is asked for")
        import pyarrow as pa
        import pyarrow.compute as pc
        try:   # None is a null, any other object than a str an error
            cells = pa.array(texts, type=pa.string(), from_pandas=False)
            is_text = ~cells.is_null().to_numpy(zero_copy_only=False)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            is_text = np.fromiter((type(t) is str for t in texts), dtype=bool, count=len(texts))
            cells = pa.array(np.where(is_text, texts, ""), type=pa.string())
        matched = pc.fill_null(pc.match_substring_regex(cells, NUMBER_REGEX), False)
        matched = matched.to_numpy(zero_copy_only=False) & is_text
        parsed = pc.cast(pc.utf8_trim(pc.if_else(pa.array(matched), cells, "0"), NUMBER_SPACE), pa.float64())
    except (ImportError, UnicodeEncodeError, ValueError, TypeError):   # no pyarrow, a lone surrogate
        for i, text in enumerate(texts):
            value = number_or_none(text) if isinstance(text, str) else None
            if value is not None:
                values[i] = value
                ok[i] = True
        return values, ok
    parsed = parsed.to_numpy(zero_copy_only=False)
    ok = matched & np.isfinite(parsed)
    values[ok] = parsed[ok]
    return values, ok
