"""Cases as text for the command line: streamed scoring to CSV, one case for `explain`.

Input cells are read as text (CSV: `dtype=str`, no NA guessing), so the scored file repeats
every input column byte-for-byte in value and in order; the model parses only the columns
it tests, reading unknown tokens, separator, decimal comma and encoding as the
ReadOptions say (data/reading.py). Every input is streamed, so memory does not grow with the
file: CSV/TSV and C4.5 `.data`/`.test` files `chunksize` rows at a time, Parquet a batch of
`chunksize` rows at a time.

A plain CSV (no quote, no blank line, commas, UTF-8 in and out: `_copies_lines`) is not
rewritten cell by cell: each line is copied as read and its decision appended, since pandas
would write its cells back unchanged; the compiled scanner (data/_plaincsv.c) reads only
the attributes' cells (plain numbers as numbers, discrete texts once each), else pyarrow
parses them as dictionaries. The tests hold the paths to the same bytes.
"""
from __future__ import annotations

import codecs
import contextlib
import csv
import io
import itertools
import os
import re
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .._lazy import LazyModule
from ..data.frame import BadCell, encode_frame, encode_texts, refuse_read_options
from ..data.names import _texts, coded_chunks
from ..data.reading import DEFAULT_READ, ReadOptions, add_counts, data_file
from ..data.schema import Dataset, Schema
from ..data.spreadsheet import escapes
from ..errors import InputError, shown
from ..export._atomic import atomic_open, checked_target
from ..model.boosted import BoostedRuleSet, distinct_rows
from ..model.ruleset import RuleSet
from ..workers import fork_imap

try:
    from ..data import _plaincsv
except ImportError:   # not built: pyarrow cuts the lines (_plain_csv_chunks)
    _plaincsv = None
try:
    from ..model import _match
except ImportError:   # not built: a boosted model's votes are spelled in Python (_spelled)
    _match = None

pd = LazyModule("pandas")   # for CSV input only: a .data file is read without it

CSV_SUFFIXES = (".csv", ".tsv")
PARQUET_SUFFIXES = (".parquet", ".pq")


def read_text_chunks(path: str | os.PathLike, schema: Schema, chunksize: int,
                     read: ReadOptions | None = None) -> tuple[list[str], Iterator[pd.DataFrame]]:
    """(column names, frames of text cells in file order) for CSV/TSV, Parquet or C4.5 files.

    `read` gives a CSV's separator and encoding; its tokens are for the encoder (encode_frame).
    """
    read = read or DEFAULT_READ
    p = data_file(path)
    suffix = p.suffix.lower()
    if suffix in CSV_SUFFIXES:
        sep = read.separator(p)
        from ..data.frame import check_csv_layout, not_decodable
        header, _ = check_csv_layout(p, sep, read.encoding)   # refuses short/long records, naming the line

        def chunks() -> Iterator[pd.DataFrame]:
            try:
                with pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_filter=False,
                                 encoding=read.encoding, chunksize=chunksize, skip_blank_lines=False,
                                 index_col=False) as reader:
                    # a blank line is a record of unknown values (as read_table reads it)
                    for chunk in reader:
                        yield chunk.fillna("")
            except UnicodeDecodeError:
                raise not_decodable(p, read.encoding) from None
            except pd.errors.ParserError as e:
                raise InputError(f"{p}: {str(e).replace('Error tokenizing data. C error: ', '')}") from None
            except pd.errors.EmptyDataError:
                return
        return header, chunks()
    if suffix in PARQUET_SUFFIXES:
        return _parquet_chunks(p, chunksize)
    refuse_read_options(str(p), read)
    names = [*schema.names, schema.target]

    def cases() -> Iterator[pd.DataFrame]:   # streamed: pieces of whole lines, at most chunksize rows
        for cells in coded_chunks(p, len(names)):
            frame = pd.DataFrame({name: pd.Series(_texts(values)[codes], dtype=str)
                                  for name, (codes, values) in zip(names, cells)})
            for lo in range(0, len(frame), chunksize):
                yield frame.iloc[lo:lo + chunksize]
    return names, cases()


def _parquet_chunks(path: Path, chunksize: int, batches: bool = False) -> tuple[list[str], Iterator[Any]]:
    """(column names, frames of at most `chunksize` rows) of a Parquet file, streamed: each
    batch converted as pandas.read_parquet converts the whole file (its stored schema); with
    `batches`, the Arrow record batches themselves (_ArrowBatches.frame converts one)."""
    from ..data.frame import read_table
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        read_table(path)   # its error: reading Parquet needs pyarrow
        raise
    try:
        reader = pq.ParquetFile(path)
        schema = reader.schema_arrow
    except Exception as e:  # pyarrow raises many types for a corrupt file (as read_table)
        raise InputError(f"{path}: not a readable Parquet file ({e})") from None
    # pandas names the columns by the file's own names unless its metadata says otherwise
    # (an index stored as columns): only then is pandas asked (issue 52: predict on Parquet
    # does not import pandas)
    names = [str(c) for c in (pa.Table.from_batches([], schema=schema).to_pandas().columns
                              if schema.metadata and b"pandas" in schema.metadata else schema.names)]

    def frames() -> Iterator[pd.DataFrame]:
        read = reader.iter_batches(batch_size=chunksize)
        while True:
            try:
                batch = next(read, None)
                if batch is None:
                    return
                frame = batch if batches else pa.Table.from_batches([batch], schema=schema).to_pandas()
            except Exception as e:
                raise InputError(f"{path}: not a readable Parquet file ({e})") from None
            yield frame
    return names, frames()


# Arrow types that pandas converts and converts back as they are (_ArrowBatches.direct: floats
# without NaN, integers and booleans without nulls)
_ARROW_KINDS = ("string", "large_string", "double", "float", "int8", "int16", "int32", "int64",
                "uint8", "uint16", "uint32", "uint64", "bool")


@dataclass
class _ArrowBatches:
    """A Parquet input scored into Parquet without pandas (issue 52): each record batch decided
    on its Arrow columns (numbers as they are, texts once each) and written with its decision
    columns appended, the same table as the pandas round trip makes (to_pandas, then
    from_pandas cast to the writer's schema). A batch that pandas would change (a float NaN
    written back as null, an integer or boolean column with nulls read as floats or objects)
    goes through pandas. When the first batch may go the direct way, the writer's schema is
    the one from_pandas would give it (`written`), so pandas is not imported; when it goes
    through pandas, the writer's schema is from_pandas's, and the direct way is taken for the
    next batches only if it gives that batch the same cases and table (`check` sets `ok`)."""

    schema: Schema
    arrow: Any                  # the file's Arrow schema
    plan: _ScanPlan
    at: dict[str, int]          # each column's position
    ok: bool = True

    @staticmethod
    def of(data: str | os.PathLike, header: list[str], schema: Schema,
           used: tuple[str, ...]) -> "_ArrowBatches | None":
        """The direct way for the Parquet file `data`, or None when its columns are not all
        kinds in _ARROW_KINDS, named as pandas names them, with every attribute `used`."""
        path = Path(data)
        if path.suffix.lower() not in PARQUET_SUFFIXES:
            return None
        import pyarrow.parquet as pq
        try:
            arrow = pq.ParquetFile(path).schema_arrow
        except Exception:   # read_text_chunks has read it: a file changed since goes the pandas way
            return None
        names = list(arrow.names)
        if (names != header or len(set(names)) != len(names) or any(str(t) not in _ARROW_KINDS for t in arrow.types)
                or not set(used) <= set(names)):
            return None
        # a file with pandas' metadata (dtypes or an index pandas restores): its first batch
        # goes through pandas and is checked
        return _ArrowBatches(schema, arrow, _ScanPlan.of(header, schema), {n: i for i, n in enumerate(names)},
                             ok=not (arrow.metadata and b"pandas" in arrow.metadata))

    @staticmethod
    def frame(batch: Any) -> pd.DataFrame:
        """`batch` as pandas.read_parquet converts it (the file's stored schema)."""
        import pyarrow as pa
        return pa.Table.from_batches([batch]).to_pandas()

    def direct(self, batch: Any) -> bool:
        """Whether `batch` may be scored and written the direct way: `ok` (the file's first batch
        through pandas checked, when it went that way), and holding no cell the pandas round
        trip would change."""
        import pyarrow.compute as pc
        if not self.ok:
            return False
        for column in batch.columns:
            t = str(column.type)
            if t in ("double", "float"):
                if column.null_count < len(column) and pc.any(pc.is_nan(column)).as_py():
                    return False
            elif t not in ("string", "large_string") and column.null_count:
                return False
        return True

    def encode(self, batch: Any, source: str, read: ReadOptions | None, bad_cells: str) -> Dataset:
        """The batch's cases as encode_frame encodes its pandas frame: typed numbers as floats,
        each distinct text once; a column holding what only pandas reads as encode_frame does
        (nulls in a text column, unknown tokens or bad cells in a number column, booleans)
        through the batch's frame."""
        import pyarrow as pa
        import pyarrow.compute as pc
        schema, n = self.schema, batch.num_rows
        columns: list[np.ndarray] = []
        unseen: dict[str, tuple[str, ...]] = {}
        unknown: dict[str, dict[str, int]] = {}
        frame: list[pd.DataFrame] = []

        def through_pandas(name: str) -> np.ndarray:
            if not frame:
                frame.append(self.frame(batch))
            one = encode_frame(frame[0][[name]], schema, require=[name], source=source, read=read,
                               bad_cells=bad_cells)
            unseen.update(one.unseen_values)
            unknown.update(one.unknown_tokens)
            return one.columns[schema.index(name)]

        for a in schema.attributes:
            i = self.at.get(a.name)
            if i is None:   # not in the file (and not used: `of`)
                columns.append(np.full(n, np.nan) if a.is_continuous else np.full(n, -1, dtype=np.int32))
                continue
            cells = batch.column(i)
            text = pa.types.is_string(cells.type) or pa.types.is_large_string(cells.type)
            if a.is_continuous:
                if pa.types.is_integer(cells.type) or pa.types.is_floating(cells.type):
                    columns.append(_numpy_of(pc.cast(cells, pa.float64(), safe=False)))
                    continue
                if text and not cells.null_count:
                    coded = pc.dictionary_encode(cells)
                    distinct = coded.dictionary.to_numpy(zero_copy_only=False)
                    try:
                        one = encode_frame(pd.DataFrame({a.name: pd.Series(distinct, dtype=object)}), schema,
                                           require=[a.name], source=source, read=read, bad_cells=bad_cells)
                    except BadCell:   # found again, at its row, through pandas
                        one = None
                    if one is not None and not one.unknown_tokens:   # tokens are counted by rows there
                        columns.append(one.columns[schema.index(a.name)][coded.indices.to_numpy(zero_copy_only=False)])
                        continue
                columns.append(through_pandas(a.name))
            elif a.is_discrete:
                if text and not cells.null_count:
                    coded = pc.dictionary_encode(cells)
                    columns.append(self.plan.discrete_cells(a.name, _numpy_of(coded.indices),
                                                            coded.dictionary.to_pylist(), schema, read,
                                                            unseen, unknown))
                else:
                    columns.append(through_pandas(a.name))
            else:
                columns.append(np.zeros(n, dtype=np.int8))
        return _dataset(schema, columns, source, unseen, unknown)

    def written(self, names: list[str], values: list[np.ndarray]) -> Any:
        """The writer's schema for the input's columns then the added columns `names` (their
        `values`' dtypes: texts, int64 or float64), as from_pandas gives it for a batch the
        direct way takes: texts large_string (pandas' str), the other kinds as they are, and
        from_pandas' metadata (pandas' version read from its installed files, not imported)."""
        import json
        from importlib import metadata

        import pyarrow as pa
        fields, described = [], []
        for name, kind in [*zip(self.arrow.names, self.arrow.types),
                           *((n, pa.from_numpy_dtype(v.dtype) if v.dtype.kind in "if" else pa.string())
                             for n, v in zip(names, values))]:
            text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
            fields.append(pa.field(name, pa.large_string() if text else kind))
            numpy_type = "str" if text else kind.to_pandas_dtype().__name__
            described.append({"name": name, "field_name": name, "pandas_type": "object" if text else numpy_type,
                              "numpy_type": numpy_type, "metadata": None})
        try:
            version = metadata.version("pandas")
        except metadata.PackageNotFoundError:
            version = ""
        described_all = {"index_columns": [], "column_indexes": [], "columns": described, "attributes": {},
                         "creator": {"library": "pyarrow", "version": pa.__version__}, "pandas_version": version}
        return pa.schema(fields, metadata={b"pandas": json.dumps(described_all).encode()})

    def table(self, batch: Any, values: list[np.ndarray], schema: Any) -> Any:
        """`batch` with the decision columns `values` appended, as the table of the writer's `schema`."""
        import pyarrow as pa
        width = batch.num_columns
        columns = [c if c.type == f.type else c.cast(f.type) for c, f in zip(batch.columns, schema)]
        for v, f in zip(values, list(schema)[width:]):
            cells = _arrow_of(v)
            columns.append(cells if cells.type == f.type else cells.cast(f.type))
        return pa.Table.from_arrays(columns, schema=schema)

    def check(self, batch: Any, values: list[np.ndarray], table: Any, encoded: Dataset, source: str,
              read: ReadOptions | None, bad_cells: str) -> None:
        """Take the direct way (`ok`) if the first `batch` gives the same cases as `encoded` and
        the same `table` (with the decision `values`) as through pandas."""
        self.ok = True
        try:
            same = (self.direct(batch) and self.table(batch, values, table.schema).equals(table, check_metadata=True)
                    and _same_cases(self.encode(batch, source, read, bad_cells), encoded))
        except Exception:   # anything the direct way cannot do, pandas does
            same = False
        self.ok = same


# pyarrow imports pandas (0.2 s) the first time it converts to or from numpy arrays: the direct
# way's columns pass through their buffers instead, where they have no nulls (or NaN)
def _numpy_of(cells: Any) -> np.ndarray:
    """An Arrow column of numbers as to_numpy gives it, read from its buffers: integers without
    nulls, floats with nulls as NaN."""
    import pyarrow as pa
    floats = pa.types.is_floating(cells.type)
    if not (pa.types.is_integer(cells.type) and not cells.null_count or floats):
        return cells.to_numpy(zero_copy_only=False)
    kind = np.dtype(cells.type.to_pandas_dtype())
    values = np.frombuffer(cells.buffers()[1], kind, len(cells), cells.offset * kind.itemsize)
    if cells.null_count:
        valid = np.unpackbits(np.frombuffer(cells.buffers()[0], np.uint8), bitorder="little")
        values = np.where(valid[cells.offset:cells.offset + len(cells)].astype(bool), values, np.nan)
    return values


def _arrow_of(values: np.ndarray) -> Any:
    """Added column `values` (texts, or numbers) as pa.array(values, from_pandas=True) makes it
    (NaN as null), a text column as large_string; from buffers where there is no NaN or None."""
    import pyarrow as pa
    if values.dtype.kind in "iuf" and not (values.dtype.kind == "f" and np.isnan(values).any()):
        return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                     [None, pa.py_buffer(np.ascontiguousarray(values))])
    cells = values.tolist()
    if values.dtype.kind != "O" or not set(map(type, cells)) <= {str}:
        return pa.array(values, from_pandas=True)
    data = [c.encode("utf-8") for c in cells]
    ends = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, data), np.int64, len(data)), out=ends[1:])
    return pa.Array.from_buffers(pa.large_string(), len(data), [None, pa.py_buffer(ends), pa.py_buffer(b"".join(data))])


def _same_cases(a: Dataset, b: Dataset) -> bool:
    """Whether two encodings of the same rows are equal: columns, unseen values, unknown tokens."""
    return (all(_same(x, y) for x, y in zip(a.columns, b.columns)) and len(a.columns) == len(b.columns)
            and list(a.unseen_values.items()) == list(b.unseen_values.items())
            and list(a.unknown_tokens.items()) == list(b.unknown_tokens.items()))


def _offset_rows(error: InputError, source: str, offset: int) -> InputError:
    """Renumber the `row N` of an encoding error from chunk-relative to file-relative."""
    pattern = re.compile(rf"^{re.escape(source)}: row (\d+):")
    text = pattern.sub(lambda m: f"{source}: row {int(m.group(1)) + offset}:", str(error), count=1)
    return InputError(text)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, *, binary: bool = False) -> Iterator:
    """A file that replaces `path` only when the block succeeds (export._atomic.atomic_open)."""
    checked_target(path)
    with atomic_open(path, binary=binary) as f:
        yield f


@dataclass
class Unseen:
    """Values not seen in training, gathered over the chunks of one input: per column (schema
    order) the cases holding one and the distinct values."""

    source: str
    counts: dict[str, int] = field(default_factory=dict)
    values: dict[str, set[str]] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)   # the schema's column order

    def add(self, data: Dataset) -> "Unseen":
        """Count `data`'s unseen values in (Dataset.unseen_counts, Dataset.unseen_values)."""
        self.order = {a: i for i, a in enumerate(data.schema.names)}
        return self.merge(data.unseen_counts(), data.unseen_values)

    def merge(self, counts: dict[str, int], values: dict[str, Any]) -> "Unseen":
        """Count in another chunk's unseen `counts` and `values` (as gathered by add)."""
        for name, n in counts.items():
            self.counts[name] = self.counts.get(name, 0) + n
            self.values.setdefault(name, set()).update(values.get(name, ()))
        self.counts = dict(sorted(self.counts.items(), key=lambda kv: self.order.get(kv[0], 0)))
        return self

    def check(self, strict: bool) -> None:
        """With `strict`, an InputError naming the first column and its first value not seen."""
        if strict and self.counts:
            name, n = next(iter(self.counts.items()))
            shown = min(self.values[name]) if self.values.get(name) else "?"
            raise InputError(f"{self.source}: column {name!r}: value {shown!r} was not seen in training"
                             f" ({_rows(n)} in that column; without --strict such values match no test"
                             " and are reported as a note)")

    def note(self) -> str | None:
        """The one-line note for stderr, or None when every value was seen in training."""
        if not self.counts:
            return None
        parts = []
        for name, n in self.counts.items():
            values = sorted(self.values.get(name, ()))
            shown = ", ".join(map(repr, values[:_SHOWN])) + (", ..." if len(values) > _SHOWN else "")
            parts.append(f"{name} {_rows(n)} ({shown})")
        return f"c45rules: note: {self.source}: values not seen in training: {'; '.join(parts)}"


def _escaped(values: list[np.ndarray], escaped: dict[str, str]) -> list[np.ndarray]:
    """predict's added `values` with the class column (the first) escaped as `escaped` says."""
    if escaped:
        values[0] = pd.Series(values[0], dtype=object).replace(escaped).to_numpy(dtype=object)
    return values


@dataclass
class _Scored:
    """A plain CSV chunk scored (predict_file's `scored`, maybe in a worker process): its rows,
    their text with the decisions, what Unseen gathered and the unknown tokens read; or the
    error met: (row in the chunk, column, cell) of a bad cell, or an InputError's text."""

    n: int
    text: bytes
    counts: dict[str, int] = field(default_factory=dict)
    values: dict[str, set[str]] = field(default_factory=dict)
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)
    error: tuple[int, str, object] | str | None = None

    def write(self, out: BinaryIO, rows: int, unseen: Unseen, strict: bool,
              unknown_tokens: dict[str, dict[str, int]] | None) -> int:
        """Write the chunk after `rows` rows, as predict_file's loop does a chunk: its error
        raised with the row counted in the file, its unseen values added to `unseen` (checked
        with `strict`), its tokens to `unknown_tokens`; the rows written."""
        if isinstance(self.error, tuple):
            raise bad_cell_error(unseen.source, self.error[0] + rows, self.error[1], self.error[2])
        if self.error is not None:
            raise _offset_rows(InputError(self.error), unseen.source, rows)
        unseen.merge(self.counts, self.values).check(strict)
        if unknown_tokens is not None:
            add_counts(unknown_tokens, self.tokens)
        out.write(self.text)
        return self.n


_SHOWN = 5   # distinct unseen values a note shows per column


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def report_unseen(data: Dataset, source: str, strict: bool) -> dict[str, int]:
    """Print the note on `data`'s unseen values on stderr (--strict: InputError); their counts."""
    unseen = Unseen(source).add(data)
    unseen.check(strict)
    if unseen.note():
        print(unseen.note(), file=sys.stderr)
    return unseen.counts


def output_format(output: str | None, fmt: str | None) -> str:
    """'csv' or 'parquet': `fmt` when given, else parquet for an .parquet/.pq output, else csv."""
    if fmt:
        return fmt
    return "parquet" if output and Path(output).suffix.lower() in PARQUET_SUFFIXES else "csv"


def predict_file(ruleset: RuleSet | BoostedRuleSet, data: str | os.PathLike, output: str | os.PathLike | None, *,
                 chunksize: int = 50_000, prediction_column: str = "predicted_class",
                 rule_column: str = "rule_id", read: ReadOptions | None = None,
                 unknown_tokens: dict[str, dict[str, int]] | None = None, fmt: str = "csv",
                 strict: bool = False, confidence_column: str | None = None,
                 explain_column: str | None = None, bad_cells: str = "error",
                 csv_safe: bool = True, jobs: int = 1) -> tuple[int, Unseen]:
    """Score `data` into `output` (None or '-': stdout) as CSV or Parquet: all input columns, then
    the class and the rule id (0: the default class), and when named the decision's confidence
    and the deciding rule in words; (rows written, values not seen in training).

    `unknown_tokens`, when given, is filled with the cells read as unknown (Dataset.unknown_tokens).
    With `strict`, a value not seen in training is an InputError (an output file is then not
    written; on stdout the chunks before it have been). `bad_cells`: a continuous cell that is
    neither unknown nor a number (data/numbers.py) is an InputError naming its row, counted
    from 1 after the header, and column ("error"), or is read as unknown and counted in
    `unknown_tokens` ("unknown"). `csv_safe`: CSV output's class column escapes a class a
    spreadsheet would run as a formula (data/spreadsheet.py). `jobs` (-1: one per core): worker
    processes that score a plain CSV's chunks (_copies_lines), written in order: the same output.
    """
    source = str(data)
    to_stdout = output is None or str(output) == "-"
    if fmt == "parquet":
        if to_stdout and sys.stdout.isatty():
            raise InputError("--format parquet writes binary data: give -o FILE.parquet or redirect"
                             " stdout to a file or pipe")
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError("writing Parquet needs pyarrow (pip install 'c45rules[parquet]')") from None
    elif fmt != "csv":
        raise InputError(f"--format must be csv or parquet, not {fmt!r}")
    header, chunks = read_text_chunks(data, ruleset.schema, chunksize, read)
    arrow = _ArrowBatches.of(data, header, ruleset.schema, ruleset.used_attributes()) if fmt == "parquet" else None
    if arrow is not None:   # the next batch read in a thread (pyarrow reads without the GIL)
        _, batches = _parquet_chunks(data_file(data), chunksize, batches=True)
        chunks = (read.result() for read in _scanned_ahead(lambda batch: batch, batches))
    added, score = decision_columns(ruleset, prediction_column, rule_column, confidence_column, explain_column)
    for i, (name, flag) in enumerate(added):
        if not name:
            raise InputError(f"{flag}: the output column name cannot be empty")
        if name in header:
            raise InputError(f"{source}: the input already has a column {name!r}; name the output"
                             f" column differently with {flag} NAME")
        for other, other_flag in added[:i]:
            if name == other:
                raise InputError(f"{other_flag} and {flag} are both {name!r}")
    names = [name for name, _ in added]
    escaped = escapes(ruleset.schema.classes) if csv_safe and fmt == "csv" else {}
    used = ruleset.used_attributes()
    unseen = Unseen(source, order={a: i for i, a in enumerate(ruleset.schema.names)})
    rows = 0
    plain = None
    if to_stdout:
        sink = contextlib.nullcontext(sys.stdout.buffer if fmt == "parquet" else sys.stdout)
    else:
        sink = atomic_output(output, binary=fmt == "parquet")
    with sink as out, contextlib.ExitStack() as on_failure, _Behind() as behind:
        # a failed run leaves the Parquet writer unclosed (no footer: the output is not a valid
        # file, and the temp file goes); without this its finaliser writes to the closed file
        on_failure.callback(lambda: writer is not None and setattr(writer, "is_open", False))
        writer = None
        if fmt == "csv":
            csv.writer(out, lineterminator="\n").writerow([*header, *names])
            scans = _scans(read, header, used)
            if _copies_lines(ruleset, data, header, out, read, escaped, explain_column is not None, scans):
                out.flush()   # the header, before the lines go to the bytes underneath
                if scans:
                    plan = _ScanPlan.of(header, ruleset.schema)

                    # a boosted model's test masks are made in the scan thread too (compiled,
                    # without the GIL) while this thread matches, tallies and writes the block
                    # before: so the two threads' shares are about even (issue 52)
                    match = ruleset._trial_masks if isinstance(ruleset, BoostedRuleSet) else None

                    def prepared(lines: tuple[Any, int]) -> tuple[_ScannedChunk, Dataset, list[np.ndarray] | None]:
                        chunk = _scan_block(data, *lines, plan)
                        encoded = chunk.encode(ruleset.schema, used, source, read, bad_cells)
                        return chunk, encoded, match(encoded) if match is not None else None

                    def scored(lines: tuple[Any, int] | Future) -> _Scored:
                        try:
                            chunk, encoded, matched = lines.result() if isinstance(lines, Future) else prepared(lines)
                        except BadCell as e:
                            return _Scored(0, b"", error=(e.row, e.column, e.cell))
                        except InputError as e:
                            return _Scored(0, b"", error=str(e))
                        seen = Unseen(source).add(encoded)
                        return _Scored(chunk.n, chunk.text(names, _escaped(score(encoded, matched), escaped)),
                                       seen.counts, seen.values, encoded.unknown_tokens)
                    blocks = _line_blocks(data, chunksize)
                    if jobs != 1:   # sent to the workers: bytes, not views
                        chunks = fork_imap(scored, ((bytes(view), n) for view, n in blocks), jobs)
                    else:
                        chunks = map(scored, _scanned_ahead(prepared, blocks))
                else:
                    chunks = _plain_csv_chunks(data, header, ruleset.schema, chunksize)
        for chunk in chunks:
            if isinstance(chunk, _Scored):
                rows += chunk.write(out.buffer, rows, unseen, strict, unknown_tokens)
                continue
            batch = None
            if arrow is not None:   # a Parquet batch: as it is, or through pandas (_ArrowBatches)
                batch = chunk
                chunk = None if arrow.direct(batch) else arrow.frame(batch)
            if isinstance(chunk, _PlainChunk):
                plain, chunk = chunk, chunk.frame
            try:
                if chunk is None:
                    encoded = arrow.encode(batch, source, read, bad_cells)
                else:
                    encoded = encode_frame(chunk, ruleset.schema, require=used, source=source, read=read,
                                           bad_cells=bad_cells)
            except BadCell as e:
                raise bad_cell_error(source, e.row + rows, e.column, e.cell) from None
            except InputError as e:
                raise _offset_rows(e, source, rows) from None
            unseen.add(encoded).check(strict)
            if unknown_tokens is not None:
                add_counts(unknown_tokens, encoded.unknown_tokens)
            values = _escaped(score(encoded), escaped)
            if plain is not None:
                rows += plain.write(out.buffer, names, values)
                plain = None
                continue
            if chunk is None:
                if writer is None:
                    writer = pq.ParquetWriter(out, arrow.written(names, values))
                behind.do(writer.write_table, arrow.table(batch, values, writer.schema))
                rows += batch.num_rows
                continue
            chunk = chunk.assign(**dict(zip(names, values)))
            if fmt == "parquet":
                table = pa.Table.from_pandas(chunk, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(out, table.schema)
                    if arrow is not None:
                        arrow.check(batch, values, table.cast(writer.schema), encoded, source, read, bad_cells)
                behind.do(writer.write_table, table.cast(writer.schema))
            else:
                # a lone CR in a field must be quoted, which the "\n"-terminated writer does not do
                # (before Python 3.12): a chunk holding one is written with every field quoted
                text = chunk.select_dtypes(include=["object", "string"])
                cr = any(text[c].astype(str).str.contains("\r", regex=False).any() for c in text.columns)
                chunk.to_csv(out, header=False, index=False, lineterminator="\n",
                             quoting=csv.QUOTE_ALL if cr else csv.QUOTE_MINIMAL)
            rows += len(chunk)
        if fmt == "parquet":
            if writer is None:   # no rows: still a valid file with the input's columns
                kinds = {confidence_column: pa.float64()}
                if not isinstance(ruleset, BoostedRuleSet):    # a boosted model's rule column is text
                    kinds[rule_column] = pa.int64()
                writer = pq.ParquetWriter(out, pa.schema([(n, kinds.get(n, pa.string()))
                                                          for n in [*header, *names]]))
            behind.wait()
            writer.close()
        on_failure.pop_all()
        out.flush()
    return rows, unseen


class _Behind:
    """Calls run in order in one thread, one at a time, while the caller goes on (predict writes
    a Parquet row group, which pyarrow encodes without the GIL, while it decides the next).
    `do` first waits for the call before, so at most one is pending and its error is raised in
    the caller; leaving the block waits for the last, so no write outlives its file."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="c45rules-write")
        self._pending: Future | None = None

    def do(self, call: Callable[..., Any], *args: Any) -> None:
        """Wait for the call before (raising its error), then begin `call(*args)` in the thread."""
        self.wait()
        self._pending = self._pool.submit(call, *args)

    def wait(self) -> None:
        """Wait for the pending call, raising its error."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> "_Behind":
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True)


@dataclass
class _PlainChunk:
    """Rows of a plain CSV (csv_layout): the cells the model reads, and each row's line as read."""

    frame: pd.DataFrame
    lines: list[bytes]

    def write(self, out: BinaryIO, names: list[str], values: list[np.ndarray]) -> int:
        """Write each line followed by its added cells as pandas' to_csv writes them; the rows."""
        which, cells = added_cells(names, values)
        out.write(b"".join(map(_line, self.lines, np.array(cells, dtype=object)[which].tolist())))
        return len(self.lines)


def added_cells(names: list[str], values: list[np.ndarray]) -> tuple[np.ndarray, list[bytes]]:
    """(each row's index into the cells, the distinct added cells as CSV text, no line end):
    predict's added columns `values` written as pandas' to_csv writes them.

    A row's added cells follow from its rule column (one rule, or each trial's, decides the
    class and confidence; _Decided's codes say so): pandas formats each distinct decision once."""
    known = getattr(values, "codes", None)
    if getattr(values, "distinct", None) is not None:   # each distinct decision known already
        codes, decided = np.asarray(known), values.distinct
    else:
        codes = known if known is not None else pd.factorize(values[1])[0]
        first, codes = _distinct_codes(np.asarray(codes))
        decided = [v[first] for v in values]
        if known is None and not all(_same(v, d[codes]) for v, d in zip(values, decided)):
            codes, decided = np.arange(len(values[1])), values
    cells = _csv_lines(names, decided).encode("utf-8").split(b"\n")
    if len(cells) != len(decided[0]) + 1:   # _copies_lines refuses added text with a line break
        raise AssertionError("an added column's text holds a line break")
    cells.pop()
    return codes.astype(np.int64, copy=False), cells


def _distinct_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a row holding each distinct code, each row's index into them): rule positions and
    factorized codes are small, so a table indexed by code replaces np.unique's sort."""
    if not len(codes) or codes.min() < 0 or codes.max() >= 4 * len(codes) + 1024:
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        return first, inverse
    row = np.full(int(codes.max()) + 1, -1, dtype=np.int64)
    row[codes] = np.arange(len(codes))   # some row of each code: added_cells needs any one
    present = np.flatnonzero(row >= 0)
    at = np.zeros(len(row), dtype=np.int64)
    at[present] = np.arange(len(present))
    return row[present], at[codes]


def _csv_lines(names: list[str], columns: list[np.ndarray]) -> str:
    """The rows of `columns` as pandas' to_csv writes them (no header or index, QUOTE_MINIMAL,
    "\n" after each row), without importing pandas where the columns are numbers or text."""
    texts = [_csv_texts(c) for c in columns]
    if any(t is None for t in texts):
        return pd.DataFrame(dict(zip(names, columns))).to_csv(
            header=False, index=False, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    if len(texts) > 1 and texts[0] and not any(c in text for text in map("\0".join, texts) for c in ',"\r\n'):
        # nothing to quote (a lone empty cell is quoted only on a row of one): the writer's lines
        return "\n".join(map(",".join, zip(*texts))) + "\n"
    out = io.StringIO()
    # the writer pandas' to_csv hands its cells to, with the options it gives it
    csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL).writerows(zip(*texts))
    return out.getvalue()


def _csv_texts(column: np.ndarray) -> list[str] | None:
    """A column's cells as pandas spells them for CSV with QUOTE_MINIMAL (numpy's text of
    each number, NaN empty), or None for an object column holding anything but text."""
    kind = column.dtype.kind
    if kind == "f":
        text = column.astype(str).astype(object)
        text[np.isnan(column)] = ""
        return text.tolist()
    if kind in "iub":
        return column.astype(str).tolist()
    cells = column.tolist()
    return cells if kind == "O" and set(map(type, cells)) <= {str} else None


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two columns of added values are equal cell for cell (NaN equal to NaN)."""
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def _line(text: bytes, added: bytes) -> bytes:
    return text + b"," + added + b"\n"


def _copies_lines(model: RuleSet | BoostedRuleSet, data: str | os.PathLike, header: list[str], out: Any,
                  read: ReadOptions | None, escaped: dict[str, str], explain: bool, scans: bool = False) -> bool:
    """True when predict may copy each input line as it is and add its decision: a plain
    UTF-8 CSV of commas (data/frame.py csv_layout) of two columns or more, written as UTF-8,
    whose added text holds no line break, and either the compiled scanner reads its cells
    (`scans`: _scans) or pyarrow does; else False (the rows are read and written by pandas).

    pandas writes a plain file's cells back as they were: a cell with no quote, separator or
    line break is written unquoted, so the line is the cells joined by commas."""
    read = read or DEFAULT_READ
    path = Path(data)
    if (path.suffix.lower() not in CSV_SUFFIXES or read.encoding != "utf-8" or len(header) < 2
            or getattr(out, "buffer", None) is None
            or codecs.lookup(getattr(out, "encoding", None) or "ascii").name != "utf-8"
            or getattr(out, "errors", "strict") != "strict"):
        return False
    if not scans:   # pyarrow cuts the lines (_plain_csv_chunks); imported only then, it is slow to import
        try:
            import pyarrow.csv  # noqa: F401
        except ImportError:
            return False
    texts = [*model.schema.classes, *escaped.values()]
    if explain:
        texts.extend(model.decision_texts())
    if any("\n" in t or "\r" in t for t in texts):
        return False
    from ..data.frame import csv_layout
    sep = read.separator(path)
    _, _, plain = csv_layout(path, sep, read.encoding)
    return plain and sep == ","


def _plain_csv_chunks(data: str | os.PathLike, header: list[str], schema: Schema,
                      chunksize: int) -> Iterator[_PlainChunk]:
    """A plain CSV (_copies_lines) `chunksize` lines at a time: the lines, without their line
    end, and the attributes' cells parsed from them by pyarrow as Categoricals of their texts."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    columns = [c for c in header if c in set(schema.names)]
    options = dict(
        read_options=pacsv.ReadOptions(column_names=header),
        parse_options=pacsv.ParseOptions(delimiter=",", quote_char=False, newlines_in_values=False,
                                         ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(column_types={c: pa.dictionary(pa.int32(), pa.string()) for c in columns},
                                             include_columns=columns, strings_can_be_null=False,
                                             null_values=[], quoted_strings_can_be_null=False))
    with open(data, "rb") as f:
        f.readline()   # the header, read by csv_layout
        while lines := list(itertools.islice(f, chunksize)):
            block = b"".join(lines)
            table = pacsv.read_csv(io.BytesIO(block), **options).unify_dictionaries()
            frame = pd.DataFrame({c: _categorical(table.column(c)) for c in columns}, index=range(len(lines)))
            if not block.endswith(b"\n"):
                block += b"\n"
            # csv_layout allows CR only before LF: pandas reads CRLF as the line end
            text = (block.replace(b"\r\n", b"\n") if b"\r" in block else block).split(b"\n")
            text.pop()
            if len(text) != len(frame):
                raise InputError(f"{data}: read {len(frame)} rows from {len(text)} lines (unusual layout?)")
            yield _PlainChunk(frame, text)


def _scans(read: ReadOptions | None, header: list[str], used: tuple[str, ...]) -> bool:
    """Whether the compiled scanner (data/_plaincsv.c) can read a plain CSV's cells as the
    encoder would: it is built, the `header` holds every `used` column (else encode_frame
    names the one missing), numbers have a decimal point, and no unknown token is itself a
    plain number (such a cell is unknown, which the scanner cannot tell)."""
    read = read or DEFAULT_READ
    return (_plaincsv is not None and read.decimal == "." and set(used) <= set(header)
            and not any(_plaincsv.number(t.encode("utf-8", "surrogatepass")) is not None for t in read.tokens))


_SCAN_BLOCK = 1 << 24   # bytes read at a time by _line_blocks
_KEPT_TEXTS = 1 << 16   # _ScanPlan.encoded keeps at most this many texts


@dataclass
class _ScannedChunk:
    """Rows of a plain CSV cut by the compiled scanner: the block of lines and each line's
    (start, end) in it; the attributes' cells by name: a continuous one's as numbers (NaN where
    a cell is not a plain number, `flagged` naming those rows), a discrete one's as (codes,
    distinct texts); `plan`, what was read (_ScanPlan)."""

    n: int
    block: Any
    bounds: np.ndarray
    cells: dict[str, Any]
    flagged: dict[str, np.ndarray]
    plan: "_ScanPlan"

    def encode(self, schema: Schema, used: tuple[str, ...], source: str, read: ReadOptions | None,
               bad_cells: str) -> Dataset:
        """The cases as encode_frame encodes the rows' texts (a BadCell's row counted in the
        chunk): a cell that is not a plain number is read from its line's text, and each
        distinct text of a discrete column once."""
        rows = np.unique(np.concatenate(list(self.flagged.values()))) if self.flagged else np.zeros(0, np.intp)
        unknown: dict[str, dict[str, int]] = {}
        if len(rows):
            fields = self.plan.fields
            split = [bytes(self.block[self.bounds[2 * r]:self.bounds[2 * r + 1]]).decode("utf-8").split(",")
                     for r in rows.tolist()]
            counted = self._tokens_only(dict(zip(rows.tolist(), split)), schema, read)
            if counted is not None:   # each such cell is NaN already
                unknown.update(counted)
                rows = rows[:0]
        if len(rows):
            texts = pd.DataFrame({name: pd.Series([cells[f] for cells in split], dtype=object)
                                  for name, f in fields.items()})
            try:
                part = encode_frame(texts, schema, require=list(fields), source=source, read=read,
                                    bad_cells=bad_cells)
            except BadCell as e:
                raise BadCell(source, int(rows[e.row - 1]) + 1, e.column, e.cell) from None
            for name in fields:
                self.cells[name][rows] = part.columns[schema.index(name)]
            unknown.update(part.unknown_tokens)
        columns: list[np.ndarray] = []
        unseen: dict[str, tuple[str, ...]] = {}
        for a in schema.attributes:
            cells = self.cells.get(a.name)
            if cells is None:   # not in the file (and not needed: _scans)
                columns.append(np.full(self.n, np.nan) if a.is_continuous else np.full(self.n, -1, dtype=np.int32))
            elif a.is_continuous or a.kind == "ignore":
                columns.append(cells)
            else:
                columns.append(self.plan.discrete_cells(a.name, *cells, schema, read, unseen, unknown))
        return _dataset(schema, columns, source, unseen, unknown)

    def _tokens_only(self, split: dict[int, list[str]], schema: Schema,
                     read: ReadOptions | None) -> dict[str, dict[str, int]] | None:
        """The unknown tokens encode_frame counts in the continuous columns, when every cell the
        scanner flagged (`split`: its row's fields by row) is an unknown token; else None
        (encode_frame reads those rows: numbers with spaces, bad cells). Without pandas."""
        tokens = (read or DEFAULT_READ).tokens
        counts: dict[str, dict[str, int]] = {}
        for name, rows in self.flagged.items():
            at = self.plan.fields[name]
            seen: dict[str, int] = {}
            for r in rows.tolist():
                text = split[r][at]
                seen[text] = seen.get(text, 0) + 1
            coded = encode_texts(seen, schema.attributes[schema.index(name)], tokens)
            if any(unseen for _, _, unseen in coded):   # not a token: a number to read, or a bad cell
                return None
            # _mask_tokens counts them in the order of their texts
            found = sorted((t, n) for (t, n), (_, token, _) in zip(seen.items(), coded) if token)
            if found:
                counts[name] = dict(found)
        return counts

    def text(self, names: list[str], values: list[np.ndarray]) -> bytes:
        """Each line followed by its added cells (added_cells) and a line feed."""
        which, cells = added_cells(names, values)
        return _plaincsv.join(self.block, self.bounds, len(which), which, cells)


def _scanned_ahead(scan: Callable[[Any], Any], blocks: Iterator[Any]) -> Iterator[Future]:
    """scan(block) of each block, in order, as a Future: the next block is read and scanned in
    a thread (the compiled scan and the reads run without the GIL) while the caller decides
    and writes this one, as pyarrow's copy reads in threads; its error is raised by result()."""
    end = object()

    def step() -> Any:
        block = next(blocks, end)
        return end if block is end else scan(block)
    with ThreadPoolExecutor(1, thread_name_prefix="c45rules-scan") as pool:
        future = pool.submit(step)
        while True:
            following = pool.submit(step)   # begun before this one is used
            try:
                if future.result() is end:
                    return
            except Exception:   # raised by result() in the caller, in its place
                pass
            yield future
            future = following


def _line_blocks(data: str | os.PathLike, chunksize: int) -> Iterator[tuple[memoryview, int]]:
    """A plain CSV's lines after the header, `chunksize` whole lines at a time (the last one
    may lack its line feed): (a view of the lines, their number), what _scan_block reads.
    The file is read in large blocks, each line copied once, into its block."""
    with open(data, "rb", buffering=0) as f:
        f.readline()   # the header, read by csv_layout
        left, final = b"", False
        while not final:
            block = bytearray(len(left) + max(_SCAN_BLOCK, 2 * len(left)))
            block[:len(left)] = left
            got = len(left)
            while got < len(block):   # a raw read may return less than asked
                read = f.readinto(memoryview(block)[got:])
                if not read:
                    final = True
                    break
                got += read
            view, pos = memoryview(block)[:got], 0
            while pos < got:
                n, used = _plaincsv.cut(view[pos:], chunksize, final)
                if n < chunksize and not final:
                    break   # the block ends within the chunk: read more
                yield view[pos:pos + used], n
                pos += used
            left = bytes(view[pos:])


@dataclass(frozen=True)
class _ScanPlan:
    """What _scan_block reads of each line of a file with `header` for a model's `schema`."""

    nfields: int
    columns: tuple[int, ...]      # field positions read, ascending
    kinds: bytes                  # b"c" (continuous) or b"d" (discrete) per position
    continuous: tuple[str, ...]
    discrete: tuple[str, ...]
    ignored: tuple[str, ...]
    fields: dict[str, int]        # each continuous attribute's field position
    # (attribute, text) -> what encode_frame makes of a discrete cell: (value code, whether it
    # is a counted unknown token, whether it is unseen), kept for the next chunks
    encoded: dict[tuple[str, str], tuple[int, bool, bool]] = field(default_factory=dict, compare=False)

    def texts_of(self, name: str, distinct: list[str], schema: Schema, read: ReadOptions | None,
                 ) -> tuple[np.ndarray, tuple[str, ...], list[int]]:
        """Discrete attribute `name`'s `distinct` texts as encode_frame reads them: (their value
        codes, the unseen ones sorted, the positions of the unknown tokens it counts, in the
        order it counts them). encode_frame reads each text on its own, so each is read once."""
        if len(self.encoded) > _KEPT_TEXTS:   # bounded: a column of ids would keep every text
            self.encoded.clear()
        new = [t for t in dict.fromkeys(distinct) if (name, t) not in self.encoded]
        if new:   # as encode_frame would read them, without pandas
            tokens = (read or DEFAULT_READ).tokens
            for t, coded in zip(new, encode_texts(new, schema.attributes[schema.index(name)], tokens)):
                self.encoded[(name, t)] = coded
        known = [self.encoded[(name, t)] for t in distinct]
        unseen_texts = tuple(sorted(t for t, (_, _, u) in zip(distinct, known) if u))
        # _mask_tokens counts the tokens in the order of their texts
        tokens = sorted((i for i, (_, k, _) in enumerate(known) if k), key=lambda i: distinct[i])
        return np.array([c for c, _, _ in known], dtype=np.int32), unseen_texts, tokens

    def discrete_cells(self, name: str, codes: np.ndarray, distinct: list[str], schema: Schema,
                       read: ReadOptions | None, unseen: dict[str, tuple[str, ...]],
                       unknown: dict[str, dict[str, int]]) -> np.ndarray:
        """Discrete attribute `name`'s cells, given as `codes` into their `distinct` texts, as
        encode_frame encodes them: their value codes; the unseen texts and the unknown tokens
        read (with their rows) go into `unseen` and `unknown`."""
        value_codes, unseen_texts, tokens = self.texts_of(name, distinct, schema, read)
        if unseen_texts:
            unseen[name] = unseen_texts
        if tokens:   # counted once per distinct text: count the rows
            seen = np.bincount(codes, minlength=len(distinct))
            unknown[name] = {distinct[i]: int(seen[i]) for i in tokens}
        return value_codes[codes]

    @staticmethod
    def of(header: list[str], schema: Schema) -> "_ScanPlan":
        """The plan for a file with `header` and a model's `schema`."""
        at = {name: i for i, name in enumerate(header)}
        read = sorted((a for a in schema.attributes if a.name in at and a.kind != "ignore"), key=lambda a: at[a.name])
        return _ScanPlan(len(header), tuple(at[a.name] for a in read),
                         b"".join(b"c" if a.is_continuous else b"d" for a in read),
                         tuple(a.name for a in read if a.is_continuous),
                         tuple(a.name for a in read if not a.is_continuous),
                         tuple(a.name for a in schema.attributes if a.name in at and a.kind == "ignore"),
                         {a.name: at[a.name] for a in read if a.is_continuous})


def _dataset(schema: Schema, columns: list[np.ndarray], source: str, unseen: dict[str, tuple[str, ...]],
             unknown: dict[str, dict[str, int]]) -> Dataset:
    """The encoded cases, their unknown tokens in the schema's order (as encode_frame gives them)."""
    order = {name: i for i, name in enumerate(schema.names)}
    return Dataset(schema, columns, None, source, unseen_values=unseen,
                   unknown_tokens=dict(sorted(unknown.items(), key=lambda kv: order[kv[0]])))


def _scan_block(data: str | os.PathLike, block: Any, rows: int, plan: _ScanPlan) -> _ScannedChunk:
    """The `rows` rows of `block` (whole lines of a plain CSV, _line_blocks) cut by the
    compiled scanner."""
    bounds = np.empty(2 * rows, dtype=np.int64)
    numbers = np.empty((len(plan.continuous), rows), dtype=np.float64)
    flags = np.empty((len(plan.continuous), rows), dtype=np.uint8)
    codes = np.empty((len(plan.discrete), rows), dtype=np.int32)
    try:
        n, _, distinct = _plaincsv.scan(block, plan.nfields, rows, True, bounds, plan.columns, plan.kinds,
                                        numbers, flags, codes)
    except ValueError as e:
        raise InputError(f"{data}: a line has another number of fields than the header"
                         " (the file changed while read?)") from e
    cells, flagged = {}, {}
    for i, name in enumerate(plan.continuous):
        bad = np.flatnonzero(flags[i])
        if len(bad):
            numbers[i, bad] = np.nan
            flagged[name] = bad
        cells[name] = numbers[i]
    for i, name in enumerate(plan.discrete):
        cells[name] = (codes[i], [t.decode("utf-8") for t in distinct[i]])
    for name in plan.ignored:
        cells[name] = np.zeros(n, dtype=np.int8)
    return _ScannedChunk(n, block, bounds, cells, flagged, plan)


def _categorical(cells: Any) -> pd.Categorical:
    """A dictionary-encoded Arrow column as a pandas Categorical: the encoder reads each
    distinct text once (to_pandas would make each category a pandas str first, slowly)."""
    import pyarrow as pa
    cells = cells.combine_chunks() if isinstance(cells, pa.ChunkedArray) else cells
    categories = pd.Index(cells.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    return pd.Categorical.from_codes(cells.indices.to_numpy(zero_copy_only=False), categories=categories)


def bad_cell_error(source: str, row: int, column: str, cell: object) -> InputError:
    """predict's error for a continuous cell that is neither unknown nor a number, at `row`
    (counted from 1, after a CSV's header)."""
    counted = " after the header" if Path(source).suffix.lower() in CSV_SUFFIXES else ""
    return InputError(f"{source}: row {row}: column {column!r}: {shown(cell)} is not a number (rows count"
                      f" from 1{counted}; --bad-cells unknown reads such a cell as unknown)")


def locate_bad_cell(ruleset: RuleSet | BoostedRuleSet, data: str | os.PathLike, bad: BadCell,
                    read: ReadOptions | None = None, chunksize: int = 50_000) -> InputError:
    """The default engine's error for the bad cell it stops at in `data` (bad_cell_error: the
    same row, column and cell), found by reading the file as it does: a scoring engine (DuckDB,
    Spark) stops at a bad cell `bad` without its row, and not always the first. `bad` itself
    when that reading finds none."""
    _, chunks = read_text_chunks(data, ruleset.schema, chunksize, read)
    rows = 0
    for chunk in chunks:
        try:
            encode_frame(chunk, ruleset.schema, require=ruleset.used_attributes(), source=str(data), read=read)
        except BadCell as e:
            return bad_cell_error(str(data), e.row + rows, e.column, e.cell)
        rows += len(chunk)
    return bad


class _Decided(list):
    """predict's added columns' values (decision_columns), one array per column, and `codes`:
    a number per row that decides all of them (the deciding rule, or the trials' rules), so
    added_cells spells each distinct decision once without comparing the rows' values."""

    def __init__(self, values: list[np.ndarray], codes: np.ndarray, distinct: list[np.ndarray] | None = None) -> None:
        super().__init__(values)
        self.codes = codes
        # with `distinct`, each code is a row of those values, and every row is some row's code
        self.distinct = distinct


def decision_columns(model: RuleSet | BoostedRuleSet, prediction_column: str, rule_column: str,
                     confidence_column: str | None, explain_column: str | None,
                     ) -> tuple[list[tuple[str, str]], Callable[..., list[np.ndarray]]]:
    """predict's added columns, as ([(column name, the option naming it)], (encoded cases, and
    optionally their rule_index, or a boosted model's test masks, when made already) -> the
    columns' values). A single ruleset's values are looked up by the deciding rule; a boosted
    model's class and confidence are the vote's, its rule column each trial's deciding rule id as
    text, "1:12 2:0 3:5" (trial:rule, 0 = that trial's default class)."""
    if isinstance(model, BoostedRuleSet):
        if explain_column is not None:
            raise InputError("--explain names one deciding rule: a boosted model decides by the vote of its"
                             " trials (see `c45rules explain` for every trial's vote)")
        added = [(prediction_column, "--prediction-column"), (rule_column, "--rule-column")]
        if confidence_column is not None:
            added.append((confidence_column, "--confidence-column"))

        def voted(enc: Dataset, masks: list[np.ndarray] | None = None) -> list[np.ndarray]:
            # the trials' rules matched once (on `masks`, their test masks when made already:
            # BoostedRuleSet._trial_masks); each distinct vote spelled once
            rows, classes, rules, confidences = model._distinct_decisions(enc, "error", masks)
            distinct = [classes, _spelled(rules), confidences][:len(added)]
            return _Decided([v[rows] for v in distinct], rows, distinct)
        return added, voted
    columns = [(prediction_column, "--prediction-column",
                np.array([model.default_class] + [r.prediction for r in model.rules], dtype=object)),
               (rule_column, "--rule-column", model.rule_ids())]
    if confidence_column is not None:
        columns.append((confidence_column, "--confidence-column", model.decision_confidences()))
    if explain_column is not None:
        columns.append((explain_column, "--explain-column", model.decision_texts()))

    def looked_up(enc: Dataset, matched: np.ndarray | None = None) -> list[np.ndarray]:
        # once per chunk, whatever the number of columns (`matched`: its rule_index, when known)
        pos = model.rule_index(enc) if matched is None else matched
        return _Decided([values[pos] for _, _, values in columns], pos)
    return [(n, f) for n, f, _ in columns], looked_up


def trial_rule_text(ids: np.ndarray) -> np.ndarray:
    """Each row of (cases, trials) rule ids as "1:12 2:0 3:5" (trial:rule id)."""
    if not len(ids):
        return np.full(0, "", dtype=object)
    first, rows = distinct_rows(ids)   # each distinct vote once
    return _spelled(ids[first])[rows]


def _spelled(ids: np.ndarray) -> np.ndarray:
    """Each row of (votes, trials) rule ids as trial_rule_text spells it."""
    out = np.empty(len(ids), dtype=object)
    if not len(ids) or not ids.shape[1]:
        out[:] = [""] * len(ids)
        return out
    words: list[str] = []
    at = np.empty(ids.shape, dtype=np.int64)
    for t in range(ids.shape[1]):
        # each trial's rule ids spelled once ("1:12"), not each row's
        first, at[:, t] = _distinct_codes(ids[:, t])
        at[:, t] += len(words)
        words += [f"{t + 1}:{i}" for i in ids[first, t].tolist()]
    if _match is None:
        out[:] = list(map(" ".join, np.array(words, dtype=object)[at].tolist()))
        return out
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)), out=offsets[1:])   # ASCII: numbers
    out[:] = _match.spell(at, at.shape[1], offsets, "".join(words).encode("ascii")).decode("ascii").split("\n")
    return out


def case_from_file(path: str | os.PathLike, schema: Schema, number: int,
                   read: ReadOptions | None = None) -> dict:
    """Data row `number` (1-based) of a CSV/Parquet or C4.5 file, as {column: text}."""
    header, chunks = read_text_chunks(path, schema, 10_000, read)
    seen = 0
    for chunk in chunks:
        if number <= seen + len(chunk):
            return chunk.iloc[number - seen - 1].to_dict()
        seen += len(chunk)
    raise InputError(f"{path}: --row-number {number} but the file has {seen} data rows")
