"""Spreadsheet safety: a CSV cell a spreadsheet would run as a formula (CSV injection).

A cell starting with `=`, `+`, `-`, `@`, a tab or a CR is *formula-like* (OWASP's list) unless
it is that one character alone (`+`/`-`, crx's classes: an operator with nothing to apply it
to is shown as itself) or a number as data/numbers.py reads one (`-1`, `+5`, `-2.5e3`): a
spreadsheet reads such a cell as that number, so it runs nothing, and escaping it would
turn numeric class labels (`-1`/`+1`) into text. The one escape is OWASP's: a leading apostrophe (`'=cmd`), which a
spreadsheet shows as the text `=cmd`.

Where it applies (docs/bad-input.md): `fit` warns about each class and discrete value that
is formula-like; `predict` (every engine) and the exported Python module's CSV scorer write
the class column they add escaped (`--csv-safe`, the default; `--no-csv-safe` writes it as
is). The input columns are written back as read: they are the user's own cells, which the
output promises to repeat unchanged, and the file they came from holds them already.
Parquet holds no formulas and is written as is.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from ..errors import DataWarning
from .numbers import number_or_none
from .schema import Schema

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
_SHOWN = 3   # formula-like values a warning names per column


def formula_like(text: str) -> bool:
    """Whether a spreadsheet opening a CSV holding `text` as a cell would run it as a formula."""
    return len(text) > 1 and text[0] in FORMULA_STARTS and number_or_none(text) is None


def csv_safe(text: str) -> str:
    """`text` as a CSV cell a spreadsheet shows and does not run: formula-like ones escaped."""
    return ESCAPE + text if formula_like(text) else text


def escapes(texts: Iterable[str]) -> dict[str, str]:
    """{text: its escape} for the formula-like ones of `texts` (empty: nothing to escape)."""
    return {t: ESCAPE + t for t in texts if formula_like(t)}


def warn_formula_values(schema: Schema, source: str) -> None:
    """At fit: a DataWarning naming `schema`'s formula-like classes, and one per discrete
    attribute naming its formula-like values."""
    risky = [c for c in schema.classes if formula_like(c)]
    if risky:
        def say(off: str) -> str:
            return (f"{source}: class{'es' * (len(risky) > 1)} {_listed(risky)} would run as a spreadsheet"
                    f" formula; predict writes {'them' if len(risky) > 1 else 'it'} to CSV with a leading"
                    f" apostrophe ({off}: as it is)")
        warnings.warn(DataWarning(say("csv_safe=False"), cli=say("--no-csv-safe")), stacklevel=3)
    for a in schema.attributes:
        risky = [v for v in a.values if formula_like(v)] if a.is_discrete else []
        if risky:
            warnings.warn(f"{source}: column {a.name!r}: value{'s' * (len(risky) > 1)} {_listed(risky)} would"
                          " run as a spreadsheet formula in a CSV file", DataWarning, stacklevel=3)
    # stacklevel 3: the warning points at the loader's caller, as the stray-string warning does


def _listed(texts: list[str]) -> str:
    shown = ", ".join(map(repr, texts[:_SHOWN]))
    return shown + (f" and {len(texts) - _SHOWN} more" if len(texts) > _SHOWN else "")


def escaped_sql(column: Any, escaped: dict[str, str]) -> Any:
    """The SQL (sqlglot) of text `column` with the texts of `escaped` (see `escapes`) replaced
    by their escapes: how the DuckDB and Spark engines write a CSV's class column."""
    from sqlglot import exp
    return exp.Case(this=column.copy(), ifs=[exp.If(this=exp.Literal.string(k), true=exp.Literal.string(v))
                                             for k, v in escaped.items()], default=column.copy())
