"""Tables read in passes of record batches, never held whole: the input edge of streamed learning.

A batch source (`Batches`) is a zero-argument callable returning a fresh iterator of Dataset
batches, all sharing one Schema, in file order, each of at most `batch_rows` rows; each call
reads the data again from the start (one call = one pass).

`open_batches` reads CSV, Parquet, a C4.5 stem (.names + .data) or a DuckDB query. Its first
pass builds the schema exactly as the in-memory reader (`load_data`, `from_frame`) does, from
per-column summaries summed over the batches: the unknown tokens' counts, the known cells'
count, whether every cell reads as a number, the non-number cells (at most STRAY_DISTINCT of
them are kept: more make the column discrete anyway), and the distinct texts with their counts,
first seen first (dropped while a column is all numbers and has more than TEXT_CAP of them,
and gathered by one more pass if the column turns out discrete after all). The same kinds,
value orders, class orders, warnings and errors follow, and later passes yield encoded batches
whose concatenation equals the in-memory Dataset bit for bit.

A file that changes between passes (its size, modification time or number of rows) is an
InputError naming it, never a silently different model.
"""
from __future__ import annotations

import functools
import os
import queue
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .._lazy import LazyModule
from ..errors import InputError
from .frame import (_check_dtype, _column_text, _decimal_comma_warning, _dates_warning, _is_unknown,
                    _mask_tokens, _numeric, _sorted_values, _stray_warning, case_variants, check_csv_layout,
                    class_variants, csv_frames, dates_of, decimal_commas, encode_frame, fold_labels, misread,
                    refuse_read_options, stray_texts, training_columns)
from .names import _cases_from_cells, _encode_cells, _encode_class_cells, _texts, _unknown, coded_chunks, \
    read_names
from .reading import C45_UNKNOWN, DEFAULT_READ, ReadOptions, is_table, to_pandas
from .schema import Attribute, Dataset, Schema, check_single_precision, fingerprint_of
from .spreadsheet import warn_formula_values
from .weights import all_zero, split_weights, weight_errors

pd = LazyModule("pandas")

Batches = Callable[[], Iterable[Dataset]]
T = TypeVar("T")
# a column all numbers so far keeps at most this many distinct texts (it needs them only if a
# later cell is not a number; then one more pass gathers them)
TEXT_CAP = 1 << 12
# rows read at once from a table (then cut into batches of at most batch_rows): a chunk's
# Python strings bound the memory (synth_100k's 31 columns: 48 MB over the imports at 16384
# rows, 25 MB at 4096), and fewer rows cost more pandas calls per row
READ_ROWS = 1 << 12
# rows read at once from Parquet or DuckDB, whose texts arrive as Arrow dictionaries or
# deduplicated strings: up to a batch, as each chunk costs a pandas conversion and an encoding
# per column (4,096-row chunks spent most of a growth pass's time there at a million rows)
ARROW_ROWS = 1 << 17
DUCKDB_PREFIX = "duckdb:"


def dataset_batches(ds: Dataset, batch_rows: int) -> Batches:
    """A batch source over an in-memory Dataset: its cases in order, `batch_rows` at a time.

    Parameters
    ----------
    ds : Dataset
    batch_rows : int
        Cases per batch (the last may hold fewer).

    Returns
    -------
    Batches

    Examples
    --------
    >>> from c45rules.cli.demo import EXAMPLE_STEM
    >>> from c45rules.data.frame import load_data
    >>> ds, _ = load_data(EXAMPLE_STEM, test=False)
    >>> [b.n for b in dataset_batches(ds, 200)()]
    [200, 200, 90]
    """
    _check_rows(batch_rows)
    return lambda: (ds.subset(np.arange(i, min(i + batch_rows, ds.n))) for i in range(0, ds.n, batch_rows))


def _check_rows(batch_rows: int) -> None:
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, (int, np.integer)) or batch_rows < 1:
        raise InputError(f"batch_rows must be a whole number >= 1, got {batch_rows!r}", params=("batch_rows",))


def _cut(ds: Dataset, batch_rows: int) -> Iterator[Dataset]:
    """`ds` in pieces of at most `batch_rows` cases (itself when it is small enough)."""
    if ds.n <= batch_rows:
        yield ds
        return
    for i in range(0, ds.n, batch_rows):
        yield ds.subset(slice(i, i + batch_rows))


def _joined(parts: list[Dataset]) -> Dataset:
    """Consecutive batches of one source as one (the first's schema, source, weight record, costs)."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    weights = None
    if any(p.weights is not None for p in parts):
        weights = np.concatenate([np.ones(p.n) if p.weights is None else p.weights for p in parts])
    return Dataset(first.schema, [np.concatenate(c) for c in zip(*(p.columns for p in parts))],
                   None if first.y is None else np.concatenate([p.y for p in parts]), first.source,
                   weights=weights, weight_record=first.weight_record, costs=first.costs)


class _Column:
    """What the schema pass keeps of one table column (the module docstring)."""

    def __init__(self, keep_texts: bool) -> None:
        self.tokens: dict[str, int] = {}
        self.known = 0
        self.numeric = True
        self.bad: dict[object, int] | None = {}     # None: more than STRAY_DISTINCT distinct
        self.nbad = 0
        self.first_bad: tuple[int, object] | None = None
        self.beyond: InputError | None = None
        self.texts: dict[str, int] | None = {} if keep_texts else None
        self.keep = keep_texts     # declared discrete: always


def _add(into: dict, keys: Iterable, counts: Iterable[int]) -> None:
    for k, n in zip(keys, counts):
        into[k] = into.get(k, 0) + int(n)


def _text_counts(txt: pd.Series) -> tuple[list[str], np.ndarray]:
    """(distinct known texts first seen first, their counts) of a column of texts (None unknown)."""
    codes, uniq = pd.factorize(txt)
    known = codes >= 0
    return list(uniq), np.bincount(codes[known], minlength=len(uniq))


class _Summary:
    """The schema pass over table chunks: per-column summaries summed chunk by chunk."""

    def __init__(self, cols: list[str], target: str, discrete: set[str], ignore: set[str],
                 read: ReadOptions, source: str) -> None:
        self.cols, self.target, self.discrete, self.ignore = cols, target, discrete, ignore
        self.read, self.source, self.tokens = read, source, read.tokens
        self.n = 0
        self.yunknown = 0
        self.first_yunknown: tuple[int, object] | None = None
        self.labels: dict[str, int] = {}
        self.columns = {c: _Column(c in discrete) for c in cols if c != target and c not in ignore}

    def add(self, df: pd.DataFrame) -> None:
        """Sum chunk `df` (the next rows) into the summaries."""
        for name in self.cols:
            if name not in self.ignore:
                _check_dtype(df[name], name, self.source)
        ycol, _ = _mask_tokens(df[self.target], self.tokens)
        yunk = _is_unknown(ycol)
        if yunk.any():
            if self.first_yunknown is None:
                i = int(np.flatnonzero(yunk)[0])
                self.first_yunknown = (self.n + i, df[self.target].iloc[i])
            self.yunknown += int(yunk.sum())
        else:
            _add(self.labels, *_text_counts(_column_text(ycol, self.target, self.source)))
        for name, st in self.columns.items():
            self._add_column(name, st, df[name])
        self.n += len(df)

    def _add_column(self, name: str, st: _Column, raw: pd.Series) -> None:
        s, counts = _mask_tokens(raw, self.tokens)
        _add(st.tokens, counts, counts.values())
        unknown = _is_unknown(s)
        st.known += int((~unknown).sum())
        if name not in self.discrete:
            num, ok = _numeric(s, self.read)
            if not ok:
                bad = np.isnan(num) & ~unknown
                cells = s.to_numpy(dtype=object)[bad]
                if st.first_bad is None:
                    st.first_bad = (self.n + int(np.flatnonzero(bad)[0]), cells[0])
                st.numeric = False
                st.nbad += len(cells)
                if st.bad is not None:
                    codes, uniq = pd.factorize(pd.Series(cells, dtype=object))
                    _add(st.bad, uniq, np.bincount(codes))
                    if len(st.bad) > 3:   # stray_texts refuses more than STRAY_DISTINCT
                        st.bad = None
            elif st.beyond is None and st.numeric:
                try:
                    check_single_precision(num, f"{self.source}: row", f"column {name!r}", self.n)
                except InputError as e:
                    st.beyond = e
            typed = pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)
            if st.numeric and st.texts is not None and (typed or len(st.texts) > TEXT_CAP):
                st.texts = None   # numbers: texts needed only if a later chunk holds a non-number
            if st.texts is None:
                return
        if st.texts is not None:
            _add(st.texts, *_text_counts(_column_text(s, name, self.source)))

    def schema(self, continuous: set[str], more_texts: Callable[[list[str]], dict[str, dict[str, int]]]
               ) -> tuple[Schema, dict[str, str], dict[str, list[str]], dict[str, dict[str, int]]]:
        """(schema, class label merges, stray texts read as unknown per column, unknown token
        counts) as from_frame decides them, warnings and errors included, in its order;
        `more_texts(columns)` gathers the texts a column dropped (one more pass)."""
        source, target, read = self.source, self.target, self.read
        if self.n == 0:
            raise InputError(f"{source}: no rows")
        if self.yunknown:
            row, first = self.first_yunknown
            hint = (f", or use keep_na_tokens to read {first!r} as a class"
                    if isinstance(first, str) and first not in C45_UNKNOWN and first not in read.na_values else "")
            raise InputError(f"{source}: target column {target!r} has {self.yunknown} unknown value(s)"
                             f" (first at row {row + 1}); drop or label those rows{hint}",
                             params=("keep_na_tokens",) if hint else ())
        variants = class_variants(case_variants(self.labels.items()), target, source, read)
        classes = _sorted_values(fold_labels(pd.Series(list(self.labels), dtype=object), variants))
        need = [name for name, st in self.columns.items()
                if st.texts is None and not st.numeric and name not in continuous]
        if need:
            for name, texts in more_texts(need).items():
                self.columns[name].texts = texts
        attributes: list[Attribute] = []
        strays: dict[str, list[str]] = {}
        unknown_tokens: dict[str, dict[str, int]] = {}
        for name in self.cols:
            if name == target:
                continue
            if name in self.ignore:
                attributes.append(Attribute(name, "ignore"))
                continue
            st = self.columns[name]
            counts = dict(sorted(st.tokens.items()))
            all_numeric = name not in self.discrete and st.numeric
            stray = None if all_numeric or name in self.discrete else stray_texts(st.known, st.bad)
            if name in continuous and not all_numeric:
                if stray is None:
                    row, cell = st.first_bad
                    raise InputError(f"{source}: column {name!r} declared continuous but row {row + 1}"
                                     f" holds {cell!r}, not a number")
                _add(counts, [str(t) for t in st.bad], st.bad.values())
                counts = dict(sorted(counts.items()))
                strays[name] = list(st.bad)
                all_numeric = True
            elif stray is not None:
                misread(read, functools.partial(_stray_warning, name, stray, st.nbad, source))
            if counts:
                unknown_tokens[name] = counts
            if all_numeric and name not in self.discrete:
                if st.beyond is not None:
                    raise st.beyond
                attributes.append(Attribute(name, "continuous"))
                continue
            commas, others = ([], []) if name in self.discrete or stray is not None or read.decimal != "." \
                or not st.texts else decimal_commas(st.texts)
            if commas:
                misread(read, functools.partial(_decimal_comma_warning, name, commas, others, source))
            dated = None if name in self.discrete or stray is not None or commas else dates_of(st.texts, st.known)
            if dated is not None:
                misread(read, functools.partial(_dates_warning, name, dated, len(st.texts), st.known, source),
                        refuse=read.refuse_dates)
            attributes.append(Attribute(name, "discrete", _sorted_values(pd.Series(list(st.texts), dtype=object))))
        if not attributes:
            raise InputError(f"{source}: no attribute columns besides the target {target!r}")
        schema = Schema(tuple(attributes), classes, target)
        warn_formula_values(schema, source)
        return schema, variants, strays, unknown_tokens


class BatchSource:
    """A batch source over a file or query (`open_batches`): call it for a pass of batches.

    Attributes
    ----------
    schema : Schema
        What the in-memory reader would infer (the first pass built it).
    n : int
        Rows (cases).
    source : str
        The file or query, for messages.
    unknown_tokens : dict
        Per column, the cells read as unknown by a token, as Dataset.unknown_tokens.
    batch_rows : int
        Cases per batch at most.
    """

    def __init__(self, source: str, frames: Callable[[], Iterator[Any]], encode: Callable[[Any, int], Dataset],
                 schema: Schema, n: int, unknown_tokens: dict[str, dict[str, int]], batch_rows: int,
                 stamp: Callable[[], object], stamped: object) -> None:
        self.source, self.schema, self.n, self.batch_rows = source, schema, n, batch_rows
        self.unknown_tokens = unknown_tokens
        self._frames, self._encode, self._stamp = frames, encode, stamp
        self._stamped = stamped   # as the first pass began: a change during it counts too
        self.spill = True         # the first whole pass spills its batches (_Spill)
        self._spill: _Spill | None = None

    def __call__(self) -> Iterator[Dataset]:
        """One pass: the encoded batches in order (InputError when the input changed since the
        first pass), read and encoded one batch ahead in a thread (read_ahead). The first
        whole pass also spills the encoded batches to a temporary file (_Spill) when the disk
        has room; later passes read them back instead of parsing the input again."""
        return read_ahead(self._pass)

    def _pass(self) -> Iterator[Dataset]:
        self._check()
        spill = self._spill
        if spill is not None and spill.complete:
            yield from spill.read()
            self._check()
            return
        spill = _Spill.open(self.n) if self.spill else None
        try:
            for batch in self._parse():
                if spill is not None and not spill.write(batch):
                    spill.close()
                    spill = None
                yield batch
        except BaseException:
            if spill is not None:
                spill.close()
            raise
        if spill is not None:
            spill.complete = True
            self._spill = spill

    def forget(self) -> None:
        """Drop the spilled batches (the next pass parses the input again, and spills anew)."""
        spill, self._spill = self._spill, None
        if spill is not None:
            spill.close()

    def _parse(self) -> Iterator[Dataset]:
        rows = held = 0
        pending: list[Dataset] = []
        for part in self._frames():
            try:
                ds = self._encode(part, rows)
            except InputError as e:
                raise self._changed(f"a row no longer reads as the first pass read it: {e}") from None
            rows += ds.n
            if rows > self.n:
                raise self._changed(f"more than its {self.n} rows")
            # pieces joined into whole batches: each batch costs the growth a fixed overhead
            pending.append(ds)
            held += ds.n
            if held >= self.batch_rows:
                joined = _joined(pending)
                whole = held - held % self.batch_rows
                yield from _cut(joined.subset(slice(0, whole)), self.batch_rows)
                pending = [joined.subset(slice(whole, held))] if whole < held else []
                held -= whole
        if held:
            yield _joined(pending)
        if rows != self.n:
            raise self._changed(f"{rows} rows where the first pass read {self.n}")
        self._check()

    def _check(self) -> None:
        if self._stamp() != self._stamped:
            raise self._changed("its size or modification time differs")

    def _changed(self, why: str) -> InputError:
        return InputError(f"{self.source}: changed since its schema was read ({why}); read it again")

    def fingerprint(self) -> str:
        """Dataset.fingerprint of the whole input, in one pass.

        Holds one uint64 hash per row until the end (8 bytes a row: the fingerprint sorts them,
        so that the row order does not matter): the one per-row cost of a streamed read.
        """
        return fingerprint_of(self.schema, [b.row_hashes() for b in self()])


# spill the encoded batches only while the disk keeps this many times their bytes free
SPILL_ROOM = 2


class _Spill:
    """A pass's encoded batches in an anonymous temporary file (deleted when closed or when
    the process ends): later passes read the arrays back, one batch at a time, instead of
    parsing the input again (what a Parquet or CSV pass spent most of its time on). Memory
    stays one batch; the disk holds the encoded table (8 bytes a continuous cell, 4 a discrete
    one), and a pass that finds less than SPILL_ROOM times that free goes on without it."""

    def __init__(self, rows: int) -> None:
        self.rows, self.file = rows, tempfile.TemporaryFile(prefix="c45rules-spill-")
        self.at, self.complete = 0, False
        self.index: list[tuple[int, list[tuple[np.dtype, int]], Dataset]] = []
        # closed (its space freed) when the spill is dropped with its source
        self._closer = weakref.finalize(self, self.file.close)

    @classmethod
    def open(cls, rows: int) -> "_Spill | None":
        try:
            return cls(rows)
        except OSError:
            return None

    def write(self, batch: Dataset) -> bool:
        """Append one batch; False (the spill is given up) when the disk lacks room or fails."""
        arrays = list(batch.columns) + [batch.y] + ([] if batch.weights is None else [batch.weights])
        if any(a is None for a in arrays):
            return False
        try:
            if not self.index:
                need = sum(a.nbytes for a in arrays) * max(1, self.rows) // max(1, batch.n)
                if shutil.disk_usage(tempfile.gettempdir()).free < SPILL_ROOM * need:
                    return False
            start = self.at
            for a in arrays:
                view = memoryview(np.ascontiguousarray(a)).cast("B")
                while len(view):
                    done = os.pwrite(self.file.fileno(), view, self.at)
                    self.at, view = self.at + done, view[done:]
        except (OSError, TypeError, ValueError):
            return False
        shell = Dataset(batch.schema, [], None, batch.source, weight_record=batch.weight_record)
        self.index.append((start, [(a.dtype, len(a)) for a in arrays], shell))
        return True

    def read(self) -> Iterator[Dataset]:
        """The spilled batches, in order, each read back into fresh arrays."""
        for start, layout, shell in self.index:
            arrays, at = [], start
            for dtype, n in layout:
                a = np.empty(n, dtype)
                if os.preadv(self.file.fileno(), [a], at) != a.nbytes:
                    raise InputError("the spilled batches were cut short (the temporary file changed)")
                arrays.append(a)
                at += a.nbytes
            k = len(shell.schema.attributes)
            yield Dataset(shell.schema, arrays[:k], arrays[k], shell.source,
                          weights=arrays[k + 1] if len(arrays) > k + 1 else None, weight_record=shell.weight_record)

    def close(self) -> None:
        """Close the file (its space is freed)."""
        self._closer()


def read_ahead(make: Callable[[], Iterator[T]], ahead: int = 1) -> Iterator[T]:
    """The items of `make()` in order, produced by a thread `ahead` items before they are
    asked for: the next batch is parsed (pyarrow and numpy let go of the GIL) while the
    caller counts the current one, on another core. An exception of `make()` is raised
    where its item would have come; leaving the loop early stops the thread."""
    done = object()
    box: queue.Queue = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                box.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in make():
                if not put((item, None)):
                    return
            put((done, None))
        except BaseException as e:  # handed to the consumer, raised there
            put((done, e))

    worker = threading.Thread(target=produce, name="c45rules-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item, error = box.get()
            if error is not None:
                raise error
            if item is done:
                return
            yield item
    finally:
        stop.set()
        worker.join()


def _file_stamp(path: Path) -> Callable[[], object]:
    def stamp() -> object:
        try:
            st = path.stat()
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns
    return stamp


def open_batches(data: str | os.PathLike, target: str | None = None, *, read: ReadOptions | None = None,
                 batch_rows: int = 100_000, query: str | None = None, discrete: Iterable[str] = (),
                 continuous: Iterable[str] = (), ignore: Iterable[str] = (), weights: str | None = None
                 ) -> BatchSource:
    """A batch source over a CSV/Parquet file, a C4.5 stem or a DuckDB query, never holding its rows.

    The first pass builds the schema as `load_data` would (same kinds, value and class orders,
    warnings and errors); each later call is one pass of encoded batches whose concatenation
    equals `load_data`'s Dataset bit for bit.

    Parameters
    ----------
    data : str or path
        A .csv/.tsv/.parquet/.pq file, a C4.5 stem (or its .names/.data), or ``duckdb:FILE.db``
        (a DuckDB database, with `query`), or ``duckdb:PATH`` (any file DuckDB reads, all of it
        unless `query` says otherwise).
    target : str, optional
        The class column (a table needs it; a C4.5 stem's .names names it).
    read : ReadOptions, optional
        How a CSV's cells are read (reading.py); a C4.5 stem refuses it.
    batch_rows : int, default=100000
        Cases per batch at most.
    query : str, optional
        The SQL DuckDB runs (``duckdb:`` inputs only).
    discrete, continuous, ignore : iterable of str
        Column kinds as `from_frame` takes them (tables only).
    weights : str, optional
        A numeric column read as each case's weight, not an attribute (`fit --weights COL`):
        checked in one more pass; cases of weight 0 are left out of the batches.

    Returns
    -------
    BatchSource

    Raises
    ------
    InputError
        What `load_data` raises for the same input; a query for a non-DuckDB input.

    Examples
    --------
    >>> from c45rules.cli.demo import EXAMPLE_STEM
    >>> crx = open_batches(EXAMPLE_STEM, batch_rows=200)
    >>> crx.n, [b.n for b in crx()], crx.schema.classes
    (490, [200, 200, 90], ('+', '-'))
    """
    source = _open(data, target, read, batch_rows, query, discrete, continuous, ignore)
    return source if weights is None else _with_weights(source, weights)


def _open(data: str | os.PathLike, target: str | None, read: ReadOptions | None, batch_rows: int,
          query: str | None, discrete: Iterable[str], continuous: Iterable[str], ignore: Iterable[str]) -> BatchSource:
    _check_rows(batch_rows)
    spec = str(data)
    discrete, continuous, ignore = set(map(str, discrete)), set(map(str, continuous)), set(map(str, ignore))
    if spec.startswith(DUCKDB_PREFIX):
        return _duckdb_source(spec[len(DUCKDB_PREFIX):], target, query, read or DEFAULT_READ, batch_rows,
                              discrete, continuous, ignore)
    if query is not None:
        raise InputError(f"{spec}: a query applies to duckdb: inputs", params=("query",))
    if not is_table(spec):
        if discrete or continuous or ignore:
            raise InputError(f"{spec}: discrete, continuous and ignore apply to CSV/Parquet data;"
                             " a C4.5 stem's .names file declares the attributes")
        refuse_read_options(spec, read)
        return _stem_source(spec, batch_rows)
    read = read or DEFAULT_READ
    path = Path(spec)
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if target is None:
        raise InputError(f"{spec}: a CSV/Parquet file needs target=COLUMN", params=("target",))
    if path.suffix.lower() in (".parquet", ".pq"):
        frames, n = _parquet_frames(path, _arrow_rows(batch_rows)), None
    else:
        frames, n = _csv_frames(path, read)
    return _table_source(spec, frames, target, read, batch_rows, discrete, continuous, ignore,
                         _file_stamp(path), n)


def _table_source(source: str, frames: Callable[[], Iterator[Any]], target: str, read: ReadOptions,
                  batch_rows: int, discrete: set[str], continuous: set[str], ignore: set[str],
                  stamp: Callable[[], object], records: int | None = None) -> BatchSource:
    """A BatchSource over `frames()`, chunks of a table (pandas DataFrames, same columns each)."""
    stamped = stamp()
    it = frames()
    first = next(it, None)
    if first is None:
        raise InputError(f"{source}: no rows")
    cols, target, (discrete, continuous, ignore) = training_columns(first, target, (discrete, continuous, ignore),
                                                                     source)
    summary = _Summary(cols, target, discrete, ignore, read, source)

    def chunks() -> Iterator[Any]:
        for df in frames():
            yield df.set_axis(cols, axis=1)

    summary.add(first.set_axis(cols, axis=1))
    for df in it:
        summary.add(df.set_axis(cols, axis=1))
    if records is not None and summary.n != records:
        raise InputError(f"{source}: read {summary.n} rows, but the file holds {records} records (unusual quoting?)")

    def more_texts(names: list[str]) -> dict[str, dict[str, int]]:
        texts: dict[str, dict[str, int]] = {name: {} for name in names}
        for df in chunks():
            for name in names:
                s, _ = _mask_tokens(df[name], read.tokens)
                _add(texts[name], *_text_counts(_column_text(s, name, source)))
        return texts

    schema, variants, strays, unknown_tokens = summary.schema(continuous, more_texts)
    encode = table_encoder(schema, variants, strays, target, read, source)
    return BatchSource(source, chunks, encode, schema, summary.n, unknown_tokens, batch_rows, stamp, stamped)


def table_encoder(schema: Schema, variants: dict[str, str], strays: dict[str, list[str]], target: str,
                  read: ReadOptions, source: str) -> Callable[[Any, int], Dataset]:
    """`encode(chunk, rows)`: a table chunk (pandas, the columns named as the schema pass named
    them) as a Dataset of `schema`, as `_Summary.schema` decided (class label merges, stray
    texts of a column declared continuous read as unknown); InputError for a value the schema
    pass did not see."""
    def encode(df: Any, rows: int) -> Dataset:
        for name, texts in strays.items():   # declared continuous: its stray texts are unknown
            df[name] = df[name].where(~df[name].isin(texts).to_numpy(dtype=bool, na_value=False))
        if variants:
            df[target] = fold_labels(df[target], variants)
        ds = encode_frame(df, schema, with_target=True, target=target, source=source, read=read)
        if ds.unseen_values:
            name, texts = next(iter(ds.unseen_values.items()))
            raise InputError(f"column {name!r} holds {texts[0]!r}, not one of its values")
        return Dataset(schema, ds.columns, ds.y, source)
    return encode


def _csv_frames(path: Path, read: ReadOptions) -> tuple[Callable[[], Iterator[Any]], int]:
    """(chunks of a CSV file as read_table reads it, its number of records)."""
    sep = read.separator(path)
    header, records = check_csv_layout(path, sep, read.encoding)

    def frames() -> Iterator[Any]:
        for df in csv_frames(path, read, sep, READ_ROWS):
            if df.shape[1] != len(header):
                raise InputError(f"{path}: read {df.shape[1]} columns, but the header has {len(header)}"
                                 " (unusual quoting?)")
            yield df
    return frames, records


def _arrow_rows(batch_rows: int) -> int:
    """Rows per chunk read from Parquet or DuckDB: a batch, within READ_ROWS..ARROW_ROWS."""
    return max(READ_ROWS, min(batch_rows, ARROW_ROWS))


def _parquet_frames(path: Path, rows: int) -> Callable[[], Iterator[Any]]:
    """Chunks of `rows` rows of a Parquet file, as pandas' read_parquet converts the whole file."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"{path}: reading Parquet needs pyarrow (pip install 'c45rules[parquet]')") from None

    def frames() -> Iterator[Any]:
        try:
            f = pq.ParquetFile(path)
            schema = f.schema_arrow
            for batch in f.iter_batches(batch_size=rows):
                yield pa.Table.from_batches([batch], schema=schema).to_pandas()
        except InputError:
            raise
        except Exception as e:  # pyarrow raises many types for a corrupt file
            raise InputError(f"{path}: not a readable Parquet file ({e})") from None
    return frames


def _duckdb_source(where: str, target: str | None, query: str | None, read: ReadOptions, batch_rows: int,
                   discrete: set[str], continuous: set[str], ignore: set[str]) -> BatchSource:
    """A BatchSource over a DuckDB query: `where` a database file (with `query`) or a file DuckDB reads."""
    try:
        import duckdb
    except ImportError:
        raise InputError("duckdb: inputs need DuckDB (pip install 'c45rules[duckdb]')") from None
    if target is None:
        raise InputError(f"duckdb:{where}: a query's rows need target=COLUMN", params=("target",))
    path = Path(where) if where else None
    database = path is not None and path.suffix.lower() in (".db", ".duckdb")
    if path is not None and not path.exists():
        raise InputError(f"{where}: file not found")
    if query is None:
        if database or path is None:
            raise InputError(f"duckdb:{where}: give the query whose rows to read", params=("query",))
        query = "SELECT * FROM " + "'" + str(path).replace("'", "''") + "'"
    source = f"duckdb:{where}"

    def frames() -> Iterator[Any]:
        con = duckdb.connect(str(path) if database else ":memory:", read_only=database,
                             config={"preserve_insertion_order": True})
        try:
            try:
                reader = con.sql(query).to_arrow_reader(_arrow_rows(batch_rows))
            except duckdb.Error as e:
                raise InputError(f"{source}: the query failed ({str(e).splitlines()[0]})") from None
            for batch in reader:
                yield to_pandas(batch, source)
        finally:
            con.close()
    stamp = _file_stamp(path) if path is not None else (lambda: None)
    return _table_source(source, frames, target, read, batch_rows, discrete, continuous, ignore, stamp)


def _with_weights(source: BatchSource, column: str) -> BatchSource:
    """`source` with `column` taken out of the attributes as the cases' weights, as
    cli.io.with_weights does for the whole read (split_weights, then weighted): the weights are
    checked in a pass of their own, the same errors told, a case of weight 0 left out, and all
    weights 1 read as no weights."""
    empty = Dataset(source.schema, [np.zeros(0, np.float64 if a.is_continuous else np.int32)
                                    for a in source.schema.attributes], np.zeros(0, np.int32), source.source)
    schema = split_weights(empty, column)[0].schema   # the errors of a column missing or not numeric
    at = source.schema.index(column)
    errors: list[InputError | None] = [None, None, None]
    rows = kept = 0
    ones = True
    for batch in source():
        w = batch.columns[at]
        for k, error in enumerate(weight_errors(w, column, rows)):
            errors[k] = errors[k] or error
        rows += batch.n
        kept += int(np.count_nonzero(w > 0))
        ones = ones and bool((w[w > 0] == 1).all())
    for error in errors:
        if error is not None:
            raise error
    source.forget()    # the weighted source below spills its own batches
    if rows and not kept:
        raise all_zero(column)
    inner = source._encode

    def encode(part: Any, done: int) -> Dataset:
        ds, w = split_weights(inner(part, done), column)
        keep = w > 0
        if not keep.all():
            ds, w = ds.subset(np.flatnonzero(keep)), w[keep]
        ds.schema = schema
        ds.weights = None if ones else w
        ds.weight_record = (("weights", column),)
        return ds

    return BatchSource(source.source, source._frames, encode, schema, kept, source.unknown_tokens,
                       source.batch_rows, source._stamp, source._stamped)


# ---- C4.5 stems ----------------------------------------------------------------------------

def _stem_source(spec: str, batch_rows: int) -> BatchSource:
    """A BatchSource over STEM.data against STEM.names, as load_stem reads them."""
    stem = spec
    for suffix in (".names", ".data", ".test"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    if not os.path.exists(stem + ".names"):
        raise InputError(f"{spec}: no such C4.5 stem ({stem}.names not found) and not a .csv/.parquet file")
    pending = read_names(stem + ".names")
    path = Path(stem + ".data")
    ncols = len(pending.attributes) + 1
    stamp = _file_stamp(path)
    stamped = stamp()

    def chunks() -> Iterator[list]:
        return coded_chunks(path, ncols)

    collect = {j: {} for j, a in enumerate(pending.attributes)
               if a.is_discrete and a.values[:1] == ("\0discrete",)}
    errors: dict[int, InputError] = {}
    n = 0
    where = str(path)
    for cells in chunks():
        for j, seen in collect.items():
            values = _texts(cells[j][1])
            seen.update(dict.fromkeys(values[~_unknown(values)].tolist()))
        for j, a in enumerate(pending.attributes):
            if j not in collect and j not in errors:
                try:
                    _encode_cells(cells[j], a, where, "case", first=n)
                except InputError as e:
                    errors[j] = e
        if ncols - 1 not in errors:
            try:
                _encode_class_cells(cells[ncols - 1], pending.classes, f"{where}: case", "is not in the class list", n)
            except InputError as e:
                errors[ncols - 1] = e
        n += len(cells[0][0])
    if n == 0:
        raise InputError(f"{where}: no cases")
    attributes = list(pending.attributes)
    for j, seen in collect.items():
        a = attributes[j]
        limit = int(a.values[1])
        if len(seen) > limit:
            raise InputError(f"{where}: attribute {a.name!r} declared 'discrete {limit}' has {len(seen)} values")
        attributes[j] = Attribute(a.name, "discrete", tuple(seen))
    if errors:
        raise errors[min(errors)]
    if attributes and all(a.kind == "ignore" for a in attributes):
        raise InputError(f"{stem}.names: every attribute is 'ignore'")
    schema = Schema(tuple(attributes), pending.classes, pending.target)
    warn_formula_values(schema, f"{stem}.names")

    def encode(cells: list, rows: int) -> Dataset:
        ds, _ = _cases_from_cells(cells, schema, where)
        ds.schema = schema
        return ds

    return BatchSource(where, chunks, encode, schema, n, {}, batch_rows, stamp, stamped)
