"""How table cells are read: unknown-value tokens, separators, decimal commas, encodings, and
other frame libraries (polars, pyarrow) converted to pandas at the edge.

Unknown tokens: pandas' own default missing-value list (`NA`, `N/A`, `NULL`, `NaN`, `nan`,
`None`, `#N/A`, `<NA>`, the empty cell, ...) plus C4.5's `?`, in every text column of a CSV,
Parquet file or DataFrame; `na_values` adds tokens; `keep_na_tokens` reads pandas' tokens as
ordinary values (the empty cell and `?` stay unknown). When scoring against a model, a token
that is one of the attribute's known discrete values (or one of the classes) is that value,
not unknown: a model learned with `keep_na_tokens` reads its region `NA` back as `NA`.

Separator: `sep` is `,` `;` tab or `|` (`\\t` and `tab` name the tab). Not given: a `.tsv` file
is tab-separated; otherwise the header and the first lines decide (the candidate that splits
every sampled line into as many fields as the header, the most fields winning; `,` when
none does, so that the layout check names the first odd line). Decimal `,` (`1,5` is 1.5)
applies where a column is read as numbers: a cell is parsed with `,` and `.` swapped, so
`1.234` is not a number there (it could be a thousands separator); a discrete column keeps
its cells as written. Encoding: any codec Python knows (default UTF-8, a BOM skipped).

Training tables only: `fold_case` reads class labels that differ only in case or surrounding
spaces (`ADELIE`, `Adelie `, `adelie`) as one class, spelled as its most frequent spelling
(spaces stripped; a tie: the first in sorted order), where without it the reader warns;
`strict` turns the reader's warnings about a misread column (stray strings, decimal commas,
such class labels, dates read as categories: data/frame.py) into InputErrors.
"""
from __future__ import annotations

import codecs
import csv
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lazy import LazyModule
from ..errors import InputError

pd = LazyModule("pandas")


def is_table(path: str | os.PathLike) -> bool:
    """True for a CSV/TSV/Parquet path (anything else is a C4.5 file or stem)."""
    return Path(path).suffix.lower() in TABLE_SUFFIXES


# pandas' default missing-value list (read_csv's documented `na_values` defaults), kept here so
# that reading a CSV without pandas (the compiled scanner) need not import it for the list;
# tests/data/test_messy_tables.py::test_our_na_token_list_is_pandas_own holds it equal to pandas' own
PANDAS_NA_TOKENS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
    "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})


C45_UNKNOWN = frozenset({"", "?"})
# what scoring does with a continuous cell that is neither unknown nor a number (numbers.py)
BAD_CELLS = ("error", "unknown")
# the files read as tables (a header row, or Parquet); any other path is a C4.5 file or stem
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
SEPARATORS = {",": ",", ";": ";", "\t": "\t", "\\t": "\t", "tab": "\t", "|": "|"}
_SNIFF_BYTES = 1 << 16
_SNIFF_LINES = 50


@dataclass(frozen=True)
class ReadOptions:
    """How cells of a table are read (see the module docstring); the default is `DEFAULT_READ`."""

    na_values: tuple[str, ...] = ()
    keep_na_tokens: bool = False
    sep: str | None = None
    decimal: str = "."
    encoding: str = "utf-8"
    # training tables only (data/frame.py from_frame): merge class labels that differ only in
    # case or surrounding spaces; make the reader's DataWarnings on a misread column errors
    fold_case: bool = False
    strict: bool = False
    # a column of dates read as a category: an error even without `strict` (the estimator refuses
    # it as scikit-learn's do; `fit` and the command line warn)
    refuse_dates: bool = False

    def __post_init__(self) -> None:
        na = self.na_values
        na = (na,) if isinstance(na, str) else tuple(na)
        bad = [v for v in na if not isinstance(v, str)]
        if bad:
            raise InputError(f"na_values: expected text, got {bad[0]!r}", params=("na_values",))
        object.__setattr__(self, "na_values", tuple(sorted(set(na))))
        for flag in ("keep_na_tokens", "fold_case", "strict", "refuse_dates"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.sep is not None:
            if self.sep not in SEPARATORS:
                raise InputError(f"sep: expected ',', ';', tab ('\\t' or 'tab') or '|', got {self.sep!r}",
                                 params=("sep",))
            object.__setattr__(self, "sep", SEPARATORS[self.sep])
        if self.decimal not in (".", ","):
            raise InputError(f"decimal: expected '.' or ',', got {self.decimal!r}", params=("decimal",))
        if self.decimal == "," and self.sep == ",":
            raise InputError("decimal=',' needs another separator than ',' (give sep=';', tab or '|')",
                             params=("decimal", "sep"))
        try:
            name = codecs.lookup(self.encoding).name
        except (LookupError, TypeError):
            raise InputError(f"encoding: unknown encoding {self.encoding!r}"
                             " (e.g. utf-8, latin-1, cp1252)", params=("encoding",)) from None
        object.__setattr__(self, "encoding", "utf-8" if name == "utf-8" else self.encoding)

    @property
    def tokens(self) -> frozenset[str]:
        """Cell texts read as unknown."""
        base = C45_UNKNOWN if self.keep_na_tokens else PANDAS_NA_TOKENS | C45_UNKNOWN
        return base | frozenset(self.na_values)

    @property
    def is_default(self) -> bool:
        """True when no option differs from the default."""
        return self == DEFAULT_READ

    @property
    def text_encoding(self) -> str:
        """The encoding for Python's open(): UTF-8 skips a byte-order mark, as pandas does."""
        return "utf-8-sig" if self.encoding == "utf-8" else self.encoding

    def separator(self, path: str | os.PathLike) -> str:
        """The field separator of CSV file `path`: `sep`, else tab for .tsv, else sniffed."""
        if self.sep is not None:
            return self.sep
        if Path(path).suffix.lower() == ".tsv":
            return "\t"
        return sniff_separator(path, self)

    def as_numbers_text(self, text: pd.Series) -> pd.Series:
        """Text cells as to_numeric should read them: with decimal ',' the ',' and '.' swapped."""
        if self.decimal == ".":
            return text
        return text.map(lambda v: v.translate(_SWAP) if isinstance(v, str) else v)


_SWAP = str.maketrans({",": ".", ".": ","})
DEFAULT_READ = ReadOptions()


def sniff_separator(path: str | os.PathLike, read: ReadOptions) -> str:
    """The candidate separator that cuts the header and the first lines into equal field counts."""
    candidates = [s for s in (",", ";", "\t", "|") if not (s == "," and read.decimal == ",")]
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF_BYTES)
            more = f.read(1) != b""
    except OSError:
        return candidates[0]   # the read proper reports the problem
    if more and b"\n" in head:   # a cut line would count short
        head = head[:head.rindex(b"\n") + 1]
    text = head.decode(read.text_encoding, errors="replace")
    lines = text.splitlines(keepends=True)[:_SNIFF_LINES]
    best, best_fields = candidates[0], 1
    for sep in candidates:
        try:
            rows = [r for r in csv.reader(io.StringIO("".join(lines)), delimiter=sep)]
        except csv.Error:
            continue
        if not rows:
            continue
        width = len(rows[0])
        # a multi-line quoted field cut at the sample's end makes a short last row
        body = [r for r in rows[1:-1] if r] if len(rows) > 2 else [r for r in rows[1:] if r]
        if width > best_fields and all(len(r) == width for r in body):
            best, best_fields = sep, width
    if best_fields == 1 and read.decimal == "," and lines and len(next(csv.reader(lines[:1]))) > 1:
        raise InputError(f"{path}: its fields are separated by ',', which decimal=',' cannot share;"
                         " give the separator with sep", params=("decimal", "sep"))
    return best


def read_options(na_values: Any = (), keep_na_tokens: bool = False, sep: str | None = None,
                 decimal: str = ".", encoding: str = "utf-8", fold_case: bool = False,
                 strict: bool = False) -> ReadOptions:
    """ReadOptions from the keyword arguments of `fit` and `C45Rules` (None: no extra tokens)."""
    return ReadOptions(() if na_values is None else na_values, keep_na_tokens, sep, decimal, encoding,
                       fold_case, strict)


def data_file(path: str | os.PathLike) -> Path:
    """`path` as a Path, or InputError when it is missing or a directory (every scoring reader)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: file not found")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, not a data file")
    return p


def add_counts(total: dict[str, dict[str, int]], part: dict[str, dict[str, int]]) -> None:
    """Add `part`'s per-column token counts (Dataset.unknown_tokens) into `total`."""
    for column, counts in part.items():
        into = total.setdefault(column, {})
        for token, n in counts.items():
            into[token] = into.get(token, 0) + n


# ---- other frame libraries, converted at the edge ----------------------------------------

def _library(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_frame(obj: Any) -> bool:
    """True for a pandas or polars DataFrame or a pyarrow Table."""
    # a pandas DataFrame exists only once pandas is imported: no import just to ask
    pandas = sys.modules.get("pandas")
    return (pandas is not None and isinstance(obj, pandas.DataFrame)) or _foreign_kind(obj) is not None


def _foreign_kind(obj: Any) -> str | None:
    lib = _library(obj)
    if lib == "polars" and type(obj).__name__ in ("DataFrame", "LazyFrame"):
        return "polars"
    if lib == "pyarrow" and type(obj).__name__ in ("Table", "RecordBatch"):
        return "pyarrow"
    return None


def to_pandas(obj: Any, source: str = "<DataFrame>") -> Any:
    """A polars DataFrame or pyarrow Table as a pandas DataFrame; anything else unchanged.

    Columns keep their values: numbers as float/int (null as NaN), text and categories as
    text (null as None), booleans as booleans; date and time columns are refused here, by name.
    """
    kind = _foreign_kind(obj)
    if kind == "polars":
        return _from_polars(obj, source)
    if kind == "pyarrow":
        return _from_arrow(obj, source)
    return obj


def _refuse_column(name: str, dtype: Any, source: str) -> None:
    raise InputError(f"{source}: column {str(name)!r} has dtype {dtype}: convert it to numbers or text first")


def _from_polars(df: Any, source: str) -> pd.DataFrame:
    import polars as pl
    if isinstance(df, pl.LazyFrame):
        df = df.collect()
    columns: dict[str, Any] = {}
    for name in df.columns:
        s = df.get_column(name)
        dtype = s.dtype
        if dtype.is_temporal() or dtype == pl.Object or dtype.is_nested() or dtype == pl.Binary:
            _refuse_column(name, dtype, source)
        if dtype.is_numeric():
            if dtype.is_decimal():
                s = s.cast(pl.Float64)
            columns[name] = s.to_numpy() if not s.has_nulls() else s.cast(pl.Float64).to_numpy()
        elif dtype == pl.Boolean:
            values = s.to_list()
            columns[name] = pd.Series(values, dtype=bool if not s.has_nulls() else object)
        else:   # String, Categorical, Enum, Null: text with None for null
            columns[name] = pd.Series(s.cast(pl.String).to_list(), dtype=object)
    return pd.DataFrame({k: pd.Series(v).reset_index(drop=True) for k, v in columns.items()},
                        columns=list(df.columns))


def _from_arrow(table: Any, source: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.types as t
    for field in table.schema:
        typ = field.type
        inner = typ.value_type if t.is_dictionary(typ) else typ
        if (t.is_temporal(inner) or t.is_nested(inner) or t.is_binary(inner) or t.is_large_binary(inner)
                or t.is_fixed_size_binary(inner)):
            _refuse_column(field.name, typ, source)
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    # dictionaries become categories, text pandas' text, as pandas reads Parquet
    return table.to_pandas()
