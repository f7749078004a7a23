"""Tables in: a pandas DataFrame or a CSV/Parquet file with a target column.

Kinds: a column is continuous when every known value is a number (numeric dtype, or text
that parses as numbers), discrete otherwise; `discrete=`, `continuous=` and `ignore=`
override that (e.g. integer codes that are really categories). Unknown values: NaN, None,
and the texts of `ReadOptions.tokens` (pandas' missing-value tokens, the empty string and
`?`; see reading.py, which also says how a token that is a model's known value is read).
Discrete values are ordered by number when all of them are numbers, else as strings, so
that the schema does not depend on row order.

Stray strings: a column that is numeric but for a few texts (at least 90% of its known
cells are numbers and at most 3 distinct texts are not) is read as discrete with a
DataWarning naming the column and two of the texts; declared `continuous=` it is read as
numbers with those cells unknown (counted in `Dataset.unknown_tokens`). Any other non-number
in a continuous column is an error. pandas dtypes category, bool, the nullable Int64 /
Float64 / boolean and string (python or pyarrow storage) give the model the same values as
plain object/float columns give; polars DataFrames and pyarrow Tables are converted at the
edge (reading.to_pandas). The fingerprint hashes the schema and the encoded values, never a
dtype, so it is the same too.
"""
from __future__ import annotations

import csv
import functools
import math
import os
import shlex
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from .._lazy import LazyModule
try:
    from . import _plaincsv
except ImportError:   # not built: numpy makes the layout test
    _plaincsv = None
from ..errors import DataWarning, InputError, shown
from .names import (cases_from_frame, encode_classes, encode_column, line_chunks, load_stem, read_cases,
                    read_names)
from .numbers import parse_number_texts
from .reading import BAD_CELLS, C45_UNKNOWN, DEFAULT_READ, ReadOptions, is_table, to_pandas
from .schema import UNKNOWN_CODE, UNSEEN_CODE, Attribute, Dataset, Schema, check_single_precision
from .spreadsheet import warn_formula_values

pd = LazyModule("pandas")

UNKNOWN_STRINGS = tuple(sorted(C45_UNKNOWN))
# a column is "numeric but for stray strings" when at least this share of its known cells
# are numbers and at most this many distinct texts are not
STRAY_SHARE = 0.9
STRAY_DISTINCT = 3


class BadCell(InputError):
    """A continuous attribute's cell, met when scoring, that is neither unknown nor a number
    (data/numbers.py); `row` counts the frame's rows from 1 (None: a scoring engine that
    cannot tell it)."""

    def __init__(self, source: str, row: int | None, column: str, cell: object) -> None:
        where = "" if row is None else f"row {row}: "
        super().__init__(f"{source}: {where}column {column!r}: {shown(cell)} is not a number")
        self.source, self.row, self.column, self.cell = source, row, column, cell


def engine_bad_cell(source: str, column: str) -> tuple[str, str]:
    """(the text before, the text after the cell) of a scoring engine's bad-cell message (the
    SQL builds it around the cell's own text), which `engine_bad_cell_of` reads back."""
    return f"{source}: column {column!r}: '", "' is not a number"


def engine_bad_cell_of(text: str, source: str, schema: Schema) -> BadCell | None:
    """The BadCell a scoring engine's message `text` (engine_bad_cell) spells, else None."""
    for a in schema.attributes:
        head, tail = engine_bad_cell(source, a.name)
        if a.is_continuous and text.startswith(head) and text.endswith(tail):
            return BadCell(source, None, a.name, text[len(head):len(text) - len(tail)])
    return None


def check_bad_cells(bad_cells: str) -> str:
    """`bad_cells` when it is one of BAD_CELLS, else an InputError naming the choices."""
    if bad_cells not in BAD_CELLS:
        raise InputError(f"bad_cells must be 'error' or 'unknown', got {bad_cells!r}")
    return bad_cells


def value_str(v: object) -> str:
    """Canonical text of a discrete value: integral floats lose their '.0'."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return str(int(f)) if f.is_integer() else repr(f)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return str(v)


def _is_unknown(s: pd.Series) -> np.ndarray:
    unk = s.isna().to_numpy().copy()
    # a Categorical's categories are values like any other column's ('' or '?' from Parquet)
    if s.dtype == object or pd.api.types.is_string_dtype(s.dtype) or isinstance(s.dtype, pd.CategoricalDtype):
        unk |= s.isin(UNKNOWN_STRINGS).to_numpy()
    return unk


_TEMPORAL = ("date", "datetime", "datetime64", "time", "timedelta", "timedelta64", "period")


def _mask_tokens(s: pd.Series, tokens: frozenset[str]) -> tuple[pd.Series, dict[str, int]]:
    """`s` with the cells holding one of `tokens` unknown, and the count of each token masked
    (C4.5's '' and '?', unknown all along, left out of the count)."""
    if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)
            or isinstance(s.dtype, pd.CategoricalDtype)):
        return s, {}
    hit = s.isin(tokens).to_numpy(dtype=bool, na_value=False)
    if not hit.any():
        return s, {}
    found = pd.Series(s.to_numpy(dtype=object)[hit], dtype=object)
    counts = {str(k): int(v) for k, v in found.value_counts().items() if k not in C45_UNKNOWN}
    return s.where(~hit), dict(sorted(counts.items()))


def _stray_strings(s: pd.Series, num: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
    """(cells that are not numbers, their distinct texts most frequent first) when the column
    is numeric but for them (STRAY_SHARE, STRAY_DISTINCT), else None."""
    bad = np.isnan(num) & ~_is_unknown(s)
    known = int((~_is_unknown(s)).sum())
    if known == 0 or known - int(bad.sum()) < STRAY_SHARE * known:
        return None
    if not all(isinstance(v, str) for v in s[bad]):   # True/False objects are booleans, not strays
        return None
    codes, texts = pd.factorize(pd.Series(s[bad].to_numpy(dtype=object)))
    texts = stray_texts(known, dict(zip(texts, np.bincount(codes).tolist())))
    return None if texts is None else (bad, texts)


def stray_texts(known: int, bad: dict[object, int] | None) -> list[str] | None:
    """The stray texts, most frequent first (ties: first seen first), of a column of `known`
    known cells whose non-number cells are `bad` ({cell: count}, first seen first; None: more
    than STRAY_DISTINCT), when the column is numeric but for them; else None. The rule of
    `_stray_strings`, on counts (a streamed read sums them over batches: data/batches.py)."""
    if bad is None or known == 0 or known - sum(bad.values()) < STRAY_SHARE * known:
        return None
    if not all(isinstance(v, str) for v in bad) or len(bad) > STRAY_DISTINCT:
        return None
    texts, counts = list(bad), np.array(list(bad.values()), dtype=np.int64)
    order = np.argsort(-counts, kind="stable")   # ties: first seen first
    return [str(texts[i]) for i in order]


def _stray_warning(name: str, texts: list[str], rows: int, source: str, cli: bool) -> str:
    """The warning text for a column read as discrete because of a few stray strings."""
    shown = _shown_texts(texts)
    na = "--na-values" if cli else "na_values"
    return (f"{source}: column {name!r} is numeric except for {shown} ({rows} row{'s' * (rows != 1)});"
            f" read as discrete; use {na} to read them as unknown or {_column_option('continuous', name, cli)}")


def _shown_texts(texts: list[str]) -> str:
    """Two of `texts` quoted, and how many more."""
    return ", ".join(repr(t) for t in texts[:2]) + (f" and {len(texts) - 2} more" if len(texts) > 2 else "")


def misread(read: ReadOptions, say: Callable[[bool], str], refuse: bool = False) -> None:
    """A DataWarning that a column may be misread; with `read.strict` (or `refuse`) an InputError
    instead. `say(cli)` words it for Python (False: parameters) or for the command line (True: options)."""
    if refuse and not read.strict:
        raise InputError(say(False))
    if read.strict:
        raise InputError(f"{say(False)} (an error with strict=True)", cli=f"{say(True)} (an error with --strict)")
    warnings.warn(DataWarning(say(False), cli=say(True)), stacklevel=3)


_DECIMAL_COMMA = r"[+-]?(\d+|\d*,\d+)"


def _decimal_commas(s: pd.Series) -> tuple[list[str], list[str]]:
    """(two of the numbers written with a decimal comma, the column's other texts most frequent
    first) of a column whose known texts are such numbers (some with a comma) but for a few
    stray texts (STRAY_SHARE, STRAY_DISTINCT: an unknown token pandas does not know, say),
    else ([], []): a table written with --decimal , in mind."""
    known = s.dropna()
    if known.empty or not (known.dtype == object or pd.api.types.is_string_dtype(known.dtype)):
        return [], []
    codes, texts = pd.factorize(known.astype(str))
    return decimal_commas(dict(zip(texts, np.bincount(codes).tolist())))


def decimal_commas(texts: dict[str, int]) -> tuple[list[str], list[str]]:
    """`_decimal_commas` on a column's distinct known texts and their counts ({text: count},
    first seen first), which a streamed read sums over batches (data/batches.py)."""
    stripped: dict[str, int] = {}
    for t, n in texts.items():
        stripped[t.strip()] = stripped.get(t.strip(), 0) + n
    text = pd.Series(list(stripped), dtype=object)
    counts = np.array(list(stripped.values()), dtype=np.int64)
    number = text.str.fullmatch(_DECIMAL_COMMA).to_numpy(dtype=bool)
    with_comma = text[number & text.str.contains(",", regex=False).to_numpy(dtype=bool)]
    others = pd.Series(counts[~number], index=text[~number].tolist(), dtype=np.int64)
    if with_comma.empty or others.sum() > (1 - STRAY_SHARE) * counts.sum():
        return [], []
    stray = [str(t) for t in others.sort_values(ascending=False).index]
    if len(stray) > STRAY_DISTINCT:
        return [], []
    return with_comma.tolist()[:2], stray


def _decimal_comma_warning(name: str, commas: list[str], stray: list[str], source: str, cli: bool) -> str:
    """The warning text for a column of decimal-comma numbers read as discrete."""
    na = f"--na-values {shlex.quote(','.join(stray))}" if cli else f"na_values={stray!r}"
    tokens = f", and {na} reads {_shown_texts(stray)} as unknown" if stray else ""
    decimal = "--decimal ," if cli else "decimal=','"
    return (f"{source}: column {name!r} holds numbers written with a decimal comma"
            f" ({', '.join(map(repr, commas))}); read as discrete; {decimal} (with a separator other"
            f" than ',') reads them as numbers{tokens}")


# a date (2021-03-04, 2021/3/4, 04.03.2021, 3/4/21) with an optional time of day and zone
_DATE = (r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{2}|\d{4}))"
         r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2}|[AaPp][Mm])?)?")
# a date column is one value per row, near enough: at least this share of its known cells distinct
DATE_DISTINCT = 0.5
_DATE_SAMPLE = 1000


def _dates(txt: pd.Series) -> str | None:
    """One of the values of a discrete column that holds dates or timestamps, about a value per
    row (DATE_DISTINCT; STRAY_SHARE of the distinct values dates), else None."""
    known = txt.dropna()
    return dates_of(pd.unique(known), len(known))


def dates_of(distinct: Iterable[object], known: int) -> str | None:
    """`_dates` on a column's distinct known values (first seen first) and its number of known
    cells, which a streamed read gathers over batches (data/batches.py)."""
    values = pd.Series(list(distinct), dtype=object)
    if len(values) < 2 or len(values) < DATE_DISTINCT * known:
        return None
    text = values.astype(str).str.strip()
    like = text[text.str.fullmatch(_DATE).to_numpy(dtype=bool)]
    if len(like) < STRAY_SHARE * len(text):
        return None
    sample = like.iloc[:_DATE_SAMPLE]
    try:   # the pattern's digits must make calendar dates (no month 13)
        parsed = pd.to_datetime(sample, errors="coerce", format="mixed")
        if parsed.notna().mean() < STRAY_SHARE:
            return None
    except (ValueError, TypeError, OverflowError):   # mixed time zones: dates all the same
        pass
    return str(sample.iloc[0])


def _dates_warning(name: str, example: str, values: int, rows: int, source: str, cli: bool) -> str:
    """The warning text for a column of dates or timestamps read as a category."""
    return (f"{source}: column {name!r} holds dates or timestamps (e.g. {example!r}): read as discrete"
            f" with {values} values for {rows} rows, which no rule can reuse on new dates; leave it out"
            f" with {_column_option('ignore', name, cli)}, or convert it to numbers first (days since a date,"
            " the month, the weekday)")


def _case_variants(labels: pd.Series) -> dict[str, str]:
    """{label: the label it merges into} for the labels that differ from another only in case or
    surrounding spaces: a group's most frequent spelling, spaces stripped (a tie: the first in
    sorted order, so that the row order does not matter)."""
    return case_variants(labels.value_counts().items())


def case_variants(counts: Iterable[tuple[object, int]]) -> dict[str, str]:
    """`_case_variants` on (label, count) pairs, in any order (a streamed read sums the counts)."""
    groups: dict[str, dict[str, int]] = {}
    for label, n in counts:   # a loop over the distinct labels only
        tally = groups.setdefault(str(label).strip().casefold(), {})
        tally[str(label)] = int(n)
    merged: dict[str, str] = {}
    for tally in groups.values():
        if len(tally) < 2:
            continue
        stripped: dict[str, int] = {}
        for label, n in tally.items():
            stripped[label.strip()] = stripped.get(label.strip(), 0) + n
        spelling = min(stripped, key=lambda t: (-stripped[t], t))
        merged.update((label, spelling) for label in tally)
    return merged


def _fold_classes(ytxt: pd.Series, target: str, source: str, read: ReadOptions) -> pd.Series:
    """The class labels, those that differ only in case or spaces merged with `read.fold_case`,
    else warned about (misread)."""
    variants = class_variants(_case_variants(ytxt), target, source, read)
    return fold_labels(ytxt, variants)


def fold_labels(labels: pd.Series, variants: dict[str, str]) -> pd.Series:
    """`labels` with each in `variants` replaced by the label it merges into."""
    if not variants:
        return labels
    merged = labels.map(variants)   # a dict lookup per row, in pandas
    return merged.where(merged.notna(), labels)


def class_variants(variants: dict[str, str], target: str, source: str, read: ReadOptions) -> dict[str, str]:
    """`variants` (case_variants) to merge with `read.fold_case`; without it {}, and a warning
    (misread) naming them."""
    if not variants or read.fold_case:
        return variants
    shown = sorted(variants, key=lambda v: (variants[v], v))
    more = f" and {len(shown) - 6} more" if len(shown) > 6 else ""
    misread(read, lambda cli: f"{source}: target column {target!r} has class labels that differ only in case"
            f" or surrounding spaces ({', '.join(map(repr, shown[:6]))}{more}), read as different classes;"
            f" {'--fold-case' if cli else 'fold_case=True'} merges each group into its most frequent spelling")
    return {}


def _column_option(flag: str, name: str, cli: bool = True) -> str:
    """`--FLAG NAME` as a shell would need it typed (cli), or `flag=[NAME]` as Python takes it."""
    if not cli:
        return f"{flag}={[name]!r}"
    quoted = shlex.quote(name)
    return f"--{flag}={quoted}" if name.startswith("-") else f"--{flag} {quoted}"


def _check_dtype(s: pd.Series, name: str, source: str) -> None:
    """InputError for a column that is not numbers, text or booleans (dates, complex, periods...).

    Their numbers depend on a unit (datetime64[us] vs [ns], NaT a huge negative) or lose a
    part (complex), so any encoding of ours would be a silent guess.
    """
    dtype = s.dtype
    inner = dtype.categories.dtype if isinstance(dtype, pd.CategoricalDtype) else dtype
    inner = inner.subtype if isinstance(inner, pd.SparseDtype) else inner
    types = pd.api.types
    if types.is_object_dtype(inner):
        # dates as Python objects (pyarrow's date32, datetime.date cells) are dates all the same
        if not isinstance(dtype, pd.CategoricalDtype) and types.infer_dtype(s, skipna=True) in _TEMPORAL:
            raise InputError(f"{source}: column {name!r} holds {types.infer_dtype(s, skipna=True)} values:"
                             " convert it to numbers or text first")
        return
    if (types.is_bool_dtype(inner) or types.is_string_dtype(inner)
            or (types.is_numeric_dtype(inner) and not types.is_complex_dtype(inner))):
        return
    shown = f"category of {inner}" if isinstance(dtype, pd.CategoricalDtype) else dtype
    raise InputError(f"{source}: column {name!r} has dtype {shown}: convert it to numbers or text first")


def _text_values(s: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, distinct values in first-seen order, NaN included) of a column of str, else None.

    Only for text: factorize would merge 1, 1.0 and True in a column of mixed objects. The
    distinct values in first-seen order meet to_numeric's choices as the whole column does.
    """
    if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)) \
            or pd.api.types.infer_dtype(s, skipna=True) not in ("string", "empty"):
        return None
    codes, values = pd.factorize(s, use_na_sentinel=False)
    return codes, np.asarray(values, dtype=object)


def _column_text(s: pd.Series, name: str, source: str) -> pd.Series:
    """`_as_strings` of column `name`, or InputError naming the first text UTF-8 cannot hold."""
    try:
        return _as_strings(s)
    except UnicodeEncodeError:   # pandas' string dtype is UTF-8: a lone surrogate cannot be stored
        pass
    for i, v in enumerate(s.astype(object)):
        try:
            value_str(v).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"{source}: row {i + 1}: column {name!r}: {v!r} is not valid Unicode text"
                             " (a lone surrogate); a model file cannot hold it") from None
    raise InputError(f"{source}: column {name!r}: text that cannot be written as UTF-8")


def _as_strings(s: pd.Series) -> pd.Series:
    """Column as text with unknowns as NaN (object dtype)."""
    coded = _text_values(s)
    if coded is not None:
        codes, values = coded
        txt = np.array([value_str(v) for v in values], dtype=object)
        unk = _is_unknown(pd.Series(values, dtype=object))[codes]
        return pd.Series(txt[codes], index=s.index).where(~unk, None)   # dtype inferred as map does
    if isinstance(s.dtype, pd.CategoricalDtype):   # its categories' texts, then each cell's
        texts = _as_strings(pd.Series(s.cat.categories)).to_numpy(dtype=object)
        codes = s.cat.codes.to_numpy()
        return pd.Series(np.where(codes >= 0, texts[codes], None), index=s.index, dtype=object)
    unk = _is_unknown(s)
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        txt = pd.Series([value_str(v) for v in s.to_numpy()], index=s.index, dtype=object)
    else:
        txt = s.astype(object).map(value_str)
    return txt.where(~unk, None)


def _numeric(s: pd.Series, read: ReadOptions = DEFAULT_READ) -> tuple[np.ndarray, bool]:
    """(float values with NaN for unknown, True if every known value is a number)."""
    if pd.api.types.is_bool_dtype(s.dtype):
        return np.full(len(s), np.nan), not (~_is_unknown(s)).any()
    if pd.api.types.is_numeric_dtype(s.dtype):
        return s.to_numpy(dtype=np.float64, na_value=np.nan), True
    coded = _text_values(s)
    if coded is not None:
        codes, values = coded
        num, ok = _parse_numbers(read.as_numbers_text(pd.Series(values, dtype=object)))
        return num[codes], ok
    if isinstance(s.dtype, pd.CategoricalDtype):   # its categories, then each cell's category
        num, _ = _numeric(pd.Series(s.cat.categories), read)
        codes = s.cat.codes.to_numpy()
        out = np.where(codes >= 0, num[codes], np.nan)
        return out, not bool((np.isnan(out) & ~_is_unknown(s)).any())
    return _parse_numbers(read.as_numbers_text(s))


def _parse_numbers(s: pd.Series) -> tuple[np.ndarray, bool]:
    """(float values with NaN for unknown and non-numbers, True if every known cell is a number).

    A text cell is a number as numbers.py defines one (no `inf`, `1_000`, `١٢`); a typed cell
    (an int, float or Decimal object) is its value, read by to_numeric.
    """
    unk = _is_unknown(s)
    only_text = pd.api.types.infer_dtype(s, skipna=True) in ("string", "empty")   # in C: no per-cell check
    if not only_text and s.dtype == object and s.map(lambda v: isinstance(v, (bool, np.bool_))).any():
        # True/False with a None are booleans, as a bool column is (to_numeric would make 1/0)
        return np.full(len(s), np.nan), not (~unk).any()
    cells = s.to_numpy(dtype=object, na_value=None)
    text = ~unk if only_text else np.fromiter((isinstance(v, str) for v in cells), dtype=bool,
                                               count=len(cells)) & ~unk
    num = np.full(len(s), np.nan)
    num[text] = parse_number_texts(cells[text], arrow=True)[0]
    typed = ~text & ~unk
    if typed.any():
        parsed = pd.to_numeric(pd.Series(cells[typed], dtype=object), errors="coerce")
        if pd.api.types.is_complex_dtype(parsed.dtype):   # complex objects: only a real one is a number
            z = parsed.to_numpy()
            num[typed] = np.where(z.imag == 0, z.real, np.nan)
        else:
            num[typed] = parsed.to_numpy(dtype=np.float64, na_value=np.nan)
    ok = not bool((np.isnan(num) & ~unk).any())
    return num, ok


def _first_non_number(s: pd.Series, num: np.ndarray) -> int:
    """Position of the first known cell of `s` that `_numeric` could not read as a number."""
    return int(np.flatnonzero(np.isnan(num) & ~_is_unknown(s))[0])


def _sorted_values(txt: pd.Series) -> tuple[str, ...]:
    """Distinct values by number when all are finite numbers, else as strings (row order free)."""
    vals = [str(v) for v in pd.unique(txt.dropna())]
    try:
        nums = [float(v) for v in vals]
    except ValueError:
        return tuple(sorted(vals))
    if not all(math.isfinite(x) for x in nums):   # 'nan' or 'inf' text: NaN keys do not sort
        return tuple(sorted(vals))
    return tuple(v for _, v in sorted(zip(nums, vals)))


def _column_name(df: pd.DataFrame, cols: list[str], name: object) -> object:
    """The text name of the column labelled `name` (1 finds the column labelled 1); else `name`."""
    for label, text in zip(df.columns, cols):
        try:
            if bool(label == name):
                return text
        except (TypeError, ValueError):   # a label or name that compares as an array
            continue
    return name


def training_columns(df: pd.DataFrame, target: object, kinds: tuple[Iterable[str], ...], source: str
                     ) -> tuple[list[str], str, tuple[set[str], set[str], set[str]]]:
    """(column names as text, the target's, the (discrete, continuous, ignore) names as sets) of a
    training frame, or InputError for duplicate or empty names, a missing target, and kinds that
    name unknown columns or give one column two kinds."""
    cols = [str(c) for c in df.columns]
    dups = sorted({c for c in cols if cols.count(c) > 1})
    if dups:
        raise InputError(f"{source}: duplicate column name(s): {', '.join(map(repr, dups))}")
    if "" in cols:   # a model cannot name it: the YAML reader, SQL and .names refuse it
        raise InputError(f"{source}: column {cols.index('') + 1} has an empty name")
    target = _column_name(df, cols, target)
    if target not in cols:
        raise InputError(f"{source}: target column {target!r} not found (columns: {', '.join(cols)})")
    discrete, continuous, ignore = (set(map(str, k)) for k in kinds)
    for opt, names in (("discrete", discrete), ("continuous", continuous), ("ignore", ignore)):
        missing = sorted(names - set(cols))
        if missing:
            raise InputError(f"{source}: {opt} names unknown column(s): {', '.join(map(repr, missing))}",
                             params=(opt,))
    both = (discrete & continuous) | (discrete & ignore) | (continuous & ignore)
    if both:
        raise InputError(f"{source}: column(s) given two kinds: {', '.join(sorted(both))}")
    return cols, target, (discrete, continuous, ignore)


def from_frame(df: pd.DataFrame, target: str, *, discrete: Iterable[str] = (),
               continuous: Iterable[str] = (), ignore: Iterable[str] = (),
               source: str = "<DataFrame>", read: ReadOptions | None = None) -> Dataset:
    """Infer a Schema from a DataFrame (pandas, polars or pyarrow) with a target column and encode it.

    `read` says which texts are unknown (tokens); the result's `unknown_tokens` counts them
    per column. A column numeric but for a few strings gives a DataWarning (module docstring).
    """
    read = read or DEFAULT_READ
    df = to_pandas(df, source)
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(df).__name__}")
    cols, target, (discrete, continuous, ignore) = training_columns(df, target, (discrete, continuous, ignore),
                                                                     source)
    df = df.set_axis(cols, axis=1)
    if len(df) == 0:
        raise InputError(f"{source}: no rows")
    for name in cols:
        if name not in ignore:
            _check_dtype(df[name], name, source)
    tokens = read.tokens
    ycol, _ = _mask_tokens(df[target], tokens)
    yunk = _is_unknown(ycol)
    if yunk.any():
        rows = np.flatnonzero(yunk)
        first = df[target].iloc[rows[0]]
        hint = (f", or use keep_na_tokens to read {first!r} as a class"
                if isinstance(first, str) and first not in C45_UNKNOWN and first not in read.na_values else "")
        raise InputError(f"{source}: target column {target!r} has {len(rows)} unknown value(s)"
                         f" (first at row {rows[0] + 1}); drop or label those rows{hint}",
                         params=("keep_na_tokens",) if hint else ())
    ytxt = _fold_classes(_column_text(ycol, target, source), target, source, read)
    classes = _sorted_values(ytxt)
    attributes: list[Attribute] = []
    columns: list[np.ndarray] = []
    unknown_tokens: dict[str, dict[str, int]] = {}
    for name in cols:
        if name == target:
            continue
        if name in ignore:
            attributes.append(Attribute(name, "ignore"))
            columns.append(np.zeros(len(df), dtype=np.int8))
            continue
        s, counts = _mask_tokens(df[name], tokens)
        num, all_numeric = (np.array([]), False) if name in discrete else _numeric(s, read)
        stray = None if all_numeric or name in discrete else _stray_strings(s, num)
        if name in continuous and not all_numeric:
            if stray is None:
                bad = _first_non_number(s, num)
                raise InputError(f"{source}: column {name!r} declared continuous but row {bad + 1}"
                                 f" holds {s.iloc[bad]!r}, not a number")
            # declared continuous: its few stray strings are unknown, and counted as such
            for text, n in pd.Series(s[stray[0]].to_numpy(dtype=object)).value_counts().items():
                counts[str(text)] = counts.get(str(text), 0) + int(n)
            counts = dict(sorted(counts.items()))
            all_numeric = True
        elif stray is not None:
            misread(read, functools.partial(_stray_warning, name, stray[1], int(stray[0].sum()), source))
        if counts:
            unknown_tokens[name] = counts
        if all_numeric and name not in discrete:
            check_single_precision(num, f"{source}: row", f"column {name!r}")
            attributes.append(Attribute(name, "continuous"))
            columns.append(num)
        else:
            txt = _column_text(s, name, source)
            # after _column_text, which refuses text UTF-8 cannot hold with a message of ours
            commas, others = ([], []) if name in discrete or stray is not None or read.decimal != "." \
                else _decimal_commas(txt)
            if commas:
                misread(read, functools.partial(_decimal_comma_warning, name, commas, others, source))
            dated = None if name in discrete or stray is not None or commas else _dates(txt)
            if dated is not None:
                known = int(txt.notna().sum())
                misread(read, functools.partial(_dates_warning, name, dated, int(txt.nunique()), known, source),
                        refuse=read.refuse_dates)
            a = Attribute(name, "discrete", _sorted_values(txt))
            attributes.append(a)
            columns.append(encode_column(txt, a, source))
    if not attributes:
        raise InputError(f"{source}: no attribute columns besides the target {target!r}")
    schema = Schema(tuple(attributes), classes, target)
    lookup = {c: i for i, c in enumerate(classes)}
    y = ytxt.map(lookup).to_numpy(dtype=np.int32)
    warn_formula_values(schema, source)
    return Dataset(schema, columns, y, source, unknown_tokens=unknown_tokens)


def encode_frame(df: pd.DataFrame, schema: Schema, *, require: Iterable[str] | None = None,
                 with_target: bool = False, target: str | None = None,
                 source: str = "<DataFrame>", read: ReadOptions | None = None,
                 bad_cells: str = "error") -> Dataset:
    """Encode new rows (pandas, polars or pyarrow) against an existing schema (unseen discrete values -> code -2).

    `read`'s tokens are unknown except where a token is one of the attribute's values (or a
    class): a model that learned 'NA' as a value reads 'NA' as that value.
    Continuous cells keep any typed number, infinite or beyond single precision: scoring only
    compares them with thresholds. A continuous text cell is a number as data/numbers.py
    says (`inf`, `1e999`, `1_000` are not); one that is neither a number nor unknown is a
    bad cell: `bad_cells="error"` raises BadCell naming its row and column, "unknown" reads
    it as unknown and counts its text in `unknown_tokens`, as the exported SQL reads it. A discrete attribute's values (and the classes) match as
    text; a cell that is a bool or a number and whose text is not one of the values matches
    the one value, if exactly one, that spells the same boolean (true/false in any case) or
    the same number (1.0 matches '1', 1 matches '1.0'); otherwise it is an unseen value.
    """
    read = read or DEFAULT_READ
    check_bad_cells(bad_cells)
    df = to_pandas(df, source)
    tokens = read.tokens
    cols = [str(c) for c in df.columns]
    dups = sorted({c for c in cols if cols.count(c) > 1})
    if dups:
        raise InputError(f"{source}: duplicate column name(s): {', '.join(map(repr, dups))}")
    tname = _column_name(df, cols, target or schema.target)
    df = df.set_axis(cols, axis=1)
    need = set(schema.names if require is None else require)
    columns: list[np.ndarray] = []
    unseen: dict[str, tuple[str, ...]] = {}
    unknown_tokens: dict[str, dict[str, int]] = {}
    for a in schema.attributes:
        if a.name not in cols:
            if a.name in need and a.kind != "ignore":
                raise InputError(f"{source}: column {a.name!r} is missing"
                                 f" (the model needs: {', '.join(sorted(need))})")
            columns.append(np.full(len(df), np.nan) if a.is_continuous
                           else np.full(len(df), -1, dtype=np.int32))
            continue
        s = df[a.name]
        if a.kind != "ignore":
            _check_dtype(s, a.name, source)
            s, counts = _mask_tokens(s, tokens.difference(a.values))
            if counts:
                unknown_tokens[a.name] = counts
        if a.is_continuous:
            num, ok = _numeric(s, read)
            if not ok and bad_cells == "error":
                bad = _first_non_number(s, num)
                raise BadCell(source, bad + 1, a.name, s.iloc[bad])
            if not ok:   # num holds NaN there already: only counted, as the tokens are
                bad = np.isnan(num) & ~_is_unknown(s)
                texts = pd.Series(s.to_numpy(dtype=object)[bad]).map(value_str).value_counts()
                counts = unknown_tokens.setdefault(a.name, {})
                for text, n in texts.items():
                    counts[text] = counts.get(text, 0) + int(n)
            columns.append(num)
        elif a.is_discrete:
            txt = _typed_matches(s, _column_text(s, a.name, source), a.values)
            columns.append(encode_column(txt, a, source, unseen_ok=True))
            if (columns[-1] == UNSEEN_CODE).any():   # kept so that the scorer can name them
                unseen[a.name] = tuple(sorted(set(txt[columns[-1] == UNSEEN_CODE])))
        else:
            columns.append(np.zeros(len(df), dtype=np.int8))
    y = None
    if with_target:
        if tname not in cols:
            raise InputError(f"{source}: class column {tname!r} not found (columns: {', '.join(cols)})")
        s = df[tname]
        _check_dtype(s, tname, source)
        s, _ = _mask_tokens(s, tokens.difference(schema.classes))
        y = encode_classes(_typed_matches(s, _column_text(s, tname, source), schema.classes),
                           schema.classes, f"{source}: row", "is not one of the model's classes")
    return Dataset(schema, columns, y, source, unknown_tokens=unknown_tokens, unseen_values=unseen)


def encode_texts(texts: Iterable[str], a: Attribute, tokens: frozenset[str]) -> list[tuple[int, bool, bool]]:
    """Each text cell of discrete attribute `a` as encode_frame reads it, without pandas:
    (value code, whether it is an unknown token encode_frame counts, whether it is unseen).

    A token that is one of the values is that value; C4.5's '' and '?' are unknown, uncounted."""
    lookup = {v: i for i, v in enumerate(a.values)}
    masked = tokens.difference(a.values)
    out = []
    for t in texts:
        if t in masked or t in C45_UNKNOWN:
            out.append((UNKNOWN_CODE, t in masked and t not in C45_UNKNOWN, False))
        else:
            code = lookup.get(t, UNSEEN_CODE)
            out.append((code, False, code == UNSEEN_CODE))
    return out


def _typed_matches(s: pd.Series, txt: pd.Series, values: tuple[str, ...]) -> pd.Series:
    """`txt` with each bool or number cell that misses `values` renamed to the one value spelling it.

    Only for scoring: fitting made the values from these very texts. A text cell is matched as
    written ('1.0' stays unseen against '1'): only a typed cell's text is our own spelling.
    """
    if _text_values(s) is not None:
        return txt
    by_spelling = unique_spellings(values)
    known = set(values)
    alias = {t: by_spelling[key] for t in pd.unique(txt.dropna())
             if t not in known and (key := spelling(str(t))) in by_spelling}
    if not alias:
        return txt
    if pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
        typed = np.ones(len(s), dtype=bool)
    else:
        typed = s.astype(object).map(lambda v: isinstance(v, (bool, int, float, np.bool_, np.number))).to_numpy(bool)
    renamed = txt.map(alias)
    return txt.where(~(typed & renamed.notna().to_numpy()), renamed)


def spelling(text: str) -> str | None:
    """What `text` spells: 'bool:true' / 'bool:false' (any case), 'num:' and the repr of the
    number it parses as, or None. The exported Python module computes the same keys."""
    if text.lower() in ("true", "false"):
        return "bool:" + text.lower()
    try:
        number = float(text)
    except ValueError:
        return None
    return None if math.isnan(number) else "num:" + repr(number)


def unique_spellings(values: tuple[str, ...]) -> dict[str, str]:
    """spelling -> the value spelling it, for the spellings exactly one of `values` has."""
    by: dict[str, list[str]] = {}
    for v in values:
        key = spelling(v)
        if key is not None:
            by.setdefault(key, []).append(v)
    return {key: vs[0] for key, vs in by.items() if len(vs) == 1}


def read_table(path: str | os.PathLike, read: ReadOptions | None = None) -> pd.DataFrame:
    """Read a CSV (all cells as text, nothing guessed; `read`'s separator and encoding) or
    Parquet file into a DataFrame. Unknown tokens are left as text: the encoders read them."""
    read = read or DEFAULT_READ
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            return pd.read_parquet(path)
        except ImportError:
            raise InputError(f"{path}: reading Parquet needs pyarrow (pip install 'c45rules[parquet]')") from None
        except Exception as e:  # pyarrow raises many types for a corrupt file
            raise InputError(f"{path}: not a readable Parquet file ({e})") from None
    sep = read.separator(path)
    header, records = check_csv_layout(path, sep, read.encoding)
    frame = next(csv_frames(path, read, sep))
    if len(frame) != records or frame.shape[1] != len(header):
        raise InputError(f"{path}: read {len(frame)} rows of {frame.shape[1]} columns, but the file"
                         f" holds {records} records of {len(header)} fields (unusual quoting?)")
    return frame


def csv_frames(path: Path, read: ReadOptions, sep: str, chunksize: int | None = None) -> Iterator[pd.DataFrame]:
    """The cells of CSV file `path` as text frames: the whole file as one (`chunksize` None), or
    chunks of `chunksize` rows (a streamed read: data/batches.py); pandas' errors as InputErrors."""
    try:
        # every line is a record (a blank one: every value unknown) and no column is taken
        # as the index: pandas would otherwise drop blank lines and, when the data lines
        # have one field more than the header, shift every value one column to the left
        got = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, encoding=read.encoding,
                          sep=sep, skip_blank_lines=False, index_col=False, chunksize=chunksize)
        if chunksize is None:
            yield got
            return
        with got as reader:
            yield from reader
    except UnicodeDecodeError:
        raise not_decodable(path, read.encoding) from None
    except pd.errors.ParserError as e:
        raise InputError(f"{path}: {str(e).replace('Error tokenizing data. C error: ', '')}") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: empty file (expected a header row)") from None


def check_csv_layout(path: str | os.PathLike, sep: str = ",",
                     encoding: str = "utf-8") -> tuple[list[str], int]:
    """(header, number of records) of a CSV file, read as Python's csv module reads it.

    Refuses, naming the line, an empty file, duplicate column names, bytes that are not
    of `encoding` and a record whose number of fields differs from the header's; a blank
    line is a record whose values are all unknown (a one-column file writes a missing value so).
    """
    header, records, _ = csv_layout(path, sep, encoding)
    return header, records


def csv_layout(path: str | os.PathLike, sep: str = ",",
               encoding: str = "utf-8") -> tuple[list[str], int, bool]:
    """check_csv_layout's (header, records) and whether the file is plain: each record one
    line of fields as written (no quote, NUL, lone CR or blank line), in an encoding that
    writes ASCII as ASCII, so a line's text is its fields joined by `sep`."""
    path = Path(path)
    try:   # a file read twice in one run (predict checks, then reads) is looked at once
        stat = path.stat()
        header, records, plain = _csv_layout(path, sep, encoding, stat.st_size, stat.st_mtime_ns)
    except OSError:
        return _csv_layout.__wrapped__(path, sep, encoding, 0, 0)
    return list(header), records, plain


@functools.lru_cache(maxsize=8)
def _csv_layout(path: Path, sep: str, encoding: str, size: int, mtime: int) -> tuple[list[str], int, bool]:
    """csv_layout of `path` as it is at (`size`, `mtime`)."""
    records = 0
    text_encoding = ReadOptions(encoding=encoding).text_encoding
    try:
        with open(path, newline="", encoding=text_encoding) as f:
            header = next(csv.reader(f, delimiter=sep), None)
        if header is not None:
            counted = _plain_csv_records(path, sep, len(header), text_encoding)
            if counted is not None and len(set(header)) == len(header):
                return header, counted[0], not counted[1]
    except (UnicodeDecodeError, csv.Error):
        pass   # the full read below names the problem
    try:
        with open(path, newline="", encoding=text_encoding) as f:
            reader = csv.reader(f, delimiter=sep)
            header = next(reader, None)
            if header is None:
                raise InputError(f"{path}: empty file (expected a header row)")
            dups = sorted({h for h in header if header.count(h) > 1})
            if dups:
                raise InputError(f"{path}: duplicate column name(s) in the header:"
                                 f" {', '.join(map(repr, dups))}")
            for row in reader:
                if row and len(row) != len(header):
                    raise InputError(f"{path}:{reader.line_num}: {len(row)} field(s), but the"
                                     f" header has {len(header)}")
                records += 1
    except UnicodeDecodeError:
        raise not_decodable(path, encoding) from None
    except csv.Error as e:
        raise InputError(f"{path}: not a readable CSV file ({e})") from None
    return header, records, False


def not_decodable(path: Path, encoding: str = "utf-8") -> InputError:
    """The error naming the first byte of `path` that is not of `encoding` by its offset in the
    file and its line, and the option that names the file's encoding.

    A decoder's own offset counts from the start of its current buffer (8 KB blocks), not
    the file; whole lines decode independently in an encoding where a newline byte never
    sits inside a character (UTF-8 and the one-byte codecs; not UTF-16).
    """
    shown = "UTF-8" if encoding == "utf-8" else encoding
    hint = "; give the file's codec as encoding='latin-1' or another"
    if _ascii_compatible(encoding):
        offset, line = 0, 1
        for chunk in line_chunks(path):
            try:
                chunk.decode(encoding)
            except UnicodeDecodeError as e:
                line += chunk.count(b"\n", 0, e.start)
                return InputError(f"{path}: bytes that are not {shown} (at byte {offset + e.start})"
                                  f" on line {line}{hint}", params=("encoding",))
            offset += len(chunk)
            line += chunk.count(b"\n")
    return InputError(f"{path}: bytes that are not {shown}{hint}", params=("encoding",))


def _ascii_compatible(encoding: str) -> bool:
    """Whether `encoding` writes the ASCII characters as ASCII bytes, one each (so byte-level
    line and separator counting holds)."""
    probe = "a,;\t|\n\r\"0"
    try:
        return probe.encode(encoding) == probe.encode("ascii")
    except (LookupError, UnicodeError):
        return False


def _decodes(chunk: bytes, encoding: str) -> bool:
    """Whether `chunk` is text of `encoding`."""
    try:
        chunk.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _line_views(path: Path, size: int = 1 << 22) -> Iterator[memoryview]:
    """line_chunks' pieces of whole lines (the last given its missing line feed) as views of
    one buffer the file is read into: the layout pass copies no byte of a large file. Each
    view is valid until the next is asked for."""
    buf, kept = bytearray(size), 0
    try:
        with open(path, "rb", buffering=0) as f:
            while True:
                if kept == len(buf):   # a line longer than the buffer: a larger one
                    buf = buf + bytearray(len(buf))
                got = f.readinto(memoryview(buf)[kept:])
                if not got:
                    if kept:
                        yield memoryview(bytes(buf[:kept]) + b"\n")
                    return
                end = kept + got
                cut = buf.rfind(b"\n", 0, end) + 1
                if cut:
                    yield memoryview(buf)[:cut]
                    buf[:end - cut] = buf[cut:end]   # the same size: the views stay valid
                kept = end - cut if cut else end
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None


def _plain_csv_records(path: Path, sep: str, nfields: int,
                       encoding: str = "utf-8-sig") -> tuple[int, bool] | None:
    """(records after the header, whether one is a blank line) when no line needs csv's rules
    (no quote, NUL, lone CR or long line) and each has `nfields` fields or none; None
    otherwise (the csv module decides)."""
    # utf-8-sig's byte-order mark comes once, before the header: its text is UTF-8's
    if not _ascii_compatible("utf-8" if encoding == "utf-8-sig" else encoding):
        return None
    records = 0
    blanks = False
    header_done = False
    compiled = _plaincsv is not None and len(sep) == 1 and sep.isascii()
    for chunk in (_line_views(path) if compiled else line_chunks(path)):
        if compiled:   # the same test in one pass (data/_plaincsv.c layout)
            counted = _plaincsv.layout(chunk, sep, nfields, not header_done, csv.field_size_limit())
            if counted is None or not (counted[2] or _decodes(bytes(chunk), encoding)):
                return None
            records += counted[0]
            blanks = blanks or counted[1]
            header_done = True
            continue
        if (b'"' in chunk or b"\0" in chunk or chunk.count(b"\r") != chunk.count(b"\r\n")):
            return None
        if not (chunk.isascii() or _decodes(chunk, encoding)):
            return None
        buf = np.frombuffer(chunk, np.uint8)
        delim = np.flatnonzero((buf == ord(sep)) | (buf == ord("\n")))
        newline = np.flatnonzero(buf[delim] == ord("\n"))
        seps = np.diff(newline, prepend=-1) - 1
        line_end = delim[newline]
        length = line_end - np.concatenate(([-1], line_end[:-1])) - 1
        crlf_only = (length == 1) & (buf[np.maximum(line_end - 1, 0)] == ord("\r"))
        if not header_done:
            seps, length, crlf_only, header_done = seps[1:], length[1:], crlf_only[1:], True
        blank = (seps == 0) & ((length == 0) | crlf_only)   # csv reads [] and it is a record
        if not ((seps == nfields - 1) | blank).all() or length.max(initial=0) >= csv.field_size_limit():
            return None
        records += len(seps)
        blanks = blanks or bool(blank.any())
    return records, blanks


def read_csv(path: str | os.PathLike, target: str, *, read: ReadOptions | None = None,
             **kinds: Iterable[str]) -> Dataset:
    """Read a CSV/Parquet file with a target column into a Dataset (kinds as `from_frame`)."""
    return from_frame(read_table(path, read), target, source=str(path), read=read, **kinds)


def load_data(spec: str | os.PathLike, *, target: str | None = None,
              test: str | os.PathLike | bool | None = None, names: str | os.PathLike | None = None,
              read: ReadOptions | None = None, jobs: int = 1, **kinds: Iterable[str]
              ) -> tuple[Dataset, Dataset | None]:
    """Load training data (C4.5 stem, or CSV/Parquet with `target`) and optional test data.

    `test`: a file; None = a stem's STEM.test when it exists; False = none (not read).
    `read`: how a table's cells are read (reading.ReadOptions); a C4.5 stem refuses it.
    `jobs`: threads that may cut a large C4.5 data file's parts (as `-j`).
    """
    spec = str(spec)
    p = Path(spec)
    if not is_table(p):
        refuse_read_options(spec, read)
        stem = spec[:-5] if spec.endswith(".data") else spec[:-6] if spec.endswith(".names") else spec
        if not os.path.exists(stem + ".names"):
            raise InputError(f"{spec}: no such C4.5 stem ({stem}.names not found) and not a .csv/.parquet file")
        train, auto_test = load_stem(stem, test=test is None, jobs=jobs)
        if test is None or test is False:
            return train, auto_test
        return train, load_test(test, train.schema, target=target)
    read = read or DEFAULT_READ
    if names is not None:
        schema = read_names(names)
        df = read_table(p, read)
        train = _frame_with_names(df, schema, target, str(p), read)
    else:
        if target is None:
            raise InputError(f"{spec}: a CSV/Parquet file needs target=COLUMN", params=("target",))
        train = from_frame(read_table(p, read), target, source=str(p), read=read, **kinds)
    tst = None if test is None or test is False else load_test(test, train.schema, target=target, read=read)
    return train, tst


_READ_PARAMS = ("na_values", "keep_na_tokens", "sep", "decimal", "encoding")


def refuse_read_options(path: str, read: ReadOptions | None) -> None:
    """InputError when reading options are given for a C4.5 file, whose unknown value is '?'."""
    if read is None:
        return
    # strict has nothing to say of a C4.5 file (its .names declares every column), and is no fault
    if not replace(read, strict=False, fold_case=False).is_default:
        raise InputError(f"{path}: na_values, keep_na_tokens, sep, decimal and encoding apply"
                         " to CSV/Parquet data; a C4.5 file's unknown value is '?'", params=_READ_PARAMS)
    if read.fold_case:
        raise InputError(f"{path}: fold_case applies to CSV/Parquet data; a C4.5 .names file lists the classes",
                         params=("fold_case",))


def _frame_with_names(df: pd.DataFrame, pending: Schema, target: str | None, source: str,
                      read: ReadOptions = DEFAULT_READ) -> Dataset:
    names = [a.name for a in pending.attributes]
    tname = target or pending.target
    missing = [n for n in names + [tname] if n not in df.columns]
    if missing:
        raise InputError(f"{source}: column(s) named in the .names file are missing: {', '.join(map(repr, missing))}")
    raw = df[names + [tname]].set_axis(list(range(len(names) + 1)), axis=1)
    unknown_tokens: dict[str, dict[str, int]] = {}
    for j, a in enumerate(pending.attributes):
        # a token is unknown ('?' to the C4.5 reader) unless the .names file lists it as a value
        declared = a.values if a.is_discrete and a.values[:1] != ("\0discrete",) else ()
        column, counts = _mask_tokens(raw[j], read.tokens.difference(declared))
        if counts:
            raw[j] = column.fillna("?")
            unknown_tokens[a.name] = counts
    ds, schema = cases_from_frame(raw, pending, source, collect=True, lines_are_cases=False)
    ds.schema = Schema(schema.attributes, schema.classes, tname)
    ds.unknown_tokens = unknown_tokens
    warn_formula_values(ds.schema, source)
    return ds


def load_test(path: str | os.PathLike, schema: Schema, *, target: str | None = None,
              read: ReadOptions | None = None, require: Iterable[str] | None = None) -> Dataset:
    """Load evaluation cases for an existing schema: a C4.5 .test/.data file or a CSV/Parquet table
    (holding the class and the columns `require` names, default all; others missing are unknown)."""
    p = Path(path)
    if p.suffix.lower() in (".csv", ".parquet", ".pq", ".tsv"):
        return encode_frame(read_table(p, read), schema, with_target=True, target=target, source=str(p),
                            read=read, require=require)
    refuse_read_options(str(p), read)
    ds, _ = read_cases(p, schema)
    return ds
