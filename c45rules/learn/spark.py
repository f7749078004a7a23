"""Learning on Spark (issue 51): the learner in passes with a Spark DataFrame's partitions as its batches.

`open_spark(frame, target)` is a batch source (data/batches.py's contract) whose rows stay in
Spark. The first pass that reads them encodes each partition's rows (pandas chunks, Arrow) with
the driver's Schema into the same Dataset batches as a file read in passes, and keeps their
codes in a DataFrame persisted on the executors' disks (rows of pickled column arrays of at
most 1 MB, the table's partitions): every later pass reads the codes, not the table. Each pass of the learner is one
reduction (data/passes.reduce_batches): the count function travels to the executors with the
state it reads (the tree grown so far, the rules' conditions), each partition's batches are
counted into one table, and, with several partitions, one more Spark task merges the tables in
partition order, so that one table (pickled) reaches the driver. The driver holds tables,
never the rows: `pass_bytes` records the bytes each pass sent it.

The schema pass is such a job too: each partition sums data/batches.py's per-column summary
(`_Summary`, its row numbers offset by the rows of the partitions before it), merged in
partition order as a pass's tables are, so the same Schema, warnings and errors follow as from
the file read in memory. The fingerprint's pass sends 8 bytes a row (the sorted row hashes the
model's fingerprint digests), by ranges of hash values, one range at a time (about 2^17
hashes, 1 MB, a range): the one pass whose traffic grows with the rows, though not what the
driver holds at once.

A CSV read by Spark as text (every column a string) is read as the default engine reads it:
an empty cell is "" (Spark's null), so the same tokens are unknown.
"""
from __future__ import annotations

import pickle
import re
from itertools import chain
from typing import Any, Callable, Iterator

import numpy as np

from .._lazy import LazyModule
from ..data.batches import TEXT_CAP, _add, _check_rows, _column_text, _cut, _joined, _mask_tokens, _Summary, \
    _text_counts, table_encoder
from ..data.frame import training_columns
from ..data.reading import DEFAULT_READ, ReadOptions
from ..data.schema import Dataset, Schema
from ..errors import InputError, ModelError

pd = LazyModule("pandas")

_BLOB = "part int, blob binary"
_PIECES = "part int, piece int, blob binary"
_PIECE_BYTES = 16 << 20   # a pass's table reaches the driver in rows of this many bytes at most
# A cached row of codes holds at most this many bytes. A batch of 100,000 rows in one row (25 MB
# for synth's 31 columns) is copied whole several times by the JVM as it caches it, each copy one
# contiguous object: a 1 GB executor ran out of heap on 5M rows (1.2 GB of codes) that way.
_BLOB_BYTES = 1 << 20
# the fingerprint's row hashes are sorted by ranges of their top bits: at least 2^_HASH_BITS
# ranges, more for more rows, so that a range the driver receives holds about _RANGE_ROWS hashes
_HASH_BITS = 4
_RANGE_ROWS = 1 << 17
# rows from which a table in too few partitions is spread over the cores (one shuffle of the rows)
_SPREAD_ROWS = 50_000


def is_spark_frame(data: Any) -> bool:
    """Whether `data` is a pyspark DataFrame (without importing pyspark)."""
    return type(data).__module__.startswith("pyspark.sql") and hasattr(data, "mapInPandas")


def _part() -> int:
    from pyspark import TaskContext
    return TaskContext.get().partitionId()


def _chunks(frames: Iterator[Any], cols: list[str], text: bool) -> Iterator[Any]:
    """A partition's pandas chunks with the schema pass's column names; Spark's null "" in a CSV read as text."""
    for df in frames:
        if len(df):
            df = df.set_axis(cols, axis=1)
            yield df.fillna("") if text else df


def _blob_rows(ds: Dataset, size: int) -> int:
    """Rows of `ds` in one cached row of at most `size` bytes of codes (at least one)."""
    width = sum(c.dtype.itemsize for c in ds.columns) + (0 if ds.y is None else ds.y.dtype.itemsize)
    return max(1, size // max(1, width))


def _blob(part: int, table: Any) -> Any:
    return pd.DataFrame({"part": [part], "blob": [pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)]})


def _pieces(part: int, table: Any, size: int) -> Any:
    """A partition's table pickled, in rows of at most `size` bytes (a whole table in one row is
    copied several times over by the JVM on its way to Python: _run)."""
    data = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    n = max(1, -(-len(data) // size))
    return pd.DataFrame({"part": [part] * n, "piece": list(range(n)),
                         "blob": [data[i * size:(i + 1) * size] for i in range(n)]})


def _tables(parts: Any, pieces: Any, blobs: Any) -> list[tuple[int, Any]]:
    """[(partition, its table)] in partition order, from the rows of _pieces in any order."""
    got: dict[int, list[tuple[int, bytes]]] = {}
    for part, piece, blob in zip(parts, pieces, blobs):
        got.setdefault(int(part), []).append((int(piece), blob))
    return [(part, pickle.loads(b"".join(b for _, b in sorted(got[part])))) for part in sorted(got)]


def _run(frame: Any, job: Callable[[Iterator[Any], int], Any],
         combine: Callable[[list[tuple[int, Any]]], Any] | None = None) -> tuple[list[tuple[int, Any]], int]:
    """([(partition, its table)] in partition order, bytes sent to the driver): `job(frames,
    partition)` on the pandas chunks of every partition of `frame`; with `combine`, the
    partitions' tables (in partition order) are combined into one in one more Spark task (after
    a shuffle), which alone sends its table to the driver: [(0, the combined table)]. An
    InputError or ModelError raised in a partition is raised here (the first partition's first).
    The tables travel as Arrow (DataFrame.toArrow) in pieces of _PIECE_BYTES: a binary cell
    collected as rows is pickled by the JVM through a UTF-16 string, several times its size at once."""
    size = _PIECE_BYTES

    def task(frames: Iterator[Any]) -> Iterator[Any]:
        part = _part()
        try:
            table = job(frames, part)
        except (InputError, ModelError) as e:
            table = _Failed(e)
        yield _pieces(part, table, size)

    def together(frames: Iterator[Any]) -> Iterator[Any]:
        got = list(frames)
        parts = _tables(*(list(chain.from_iterable(df[c] for df in got)) for c in ("part", "piece", "blob")))
        failed = [t for _, t in parts if isinstance(t, _Failed)]
        try:
            table = failed[0] if failed else combine(parts)   # type: ignore[misc]
        except (InputError, ModelError) as e:   # a merged table beyond the memory budget
            table = _Failed(e)
        yield _pieces(0, table, size)
    try:
        counted = frame.mapInPandas(task, _PIECES)
        if combine is not None:
            counted = counted.repartition(1).mapInPandas(together, _PIECES)
        got = counted.toArrow()
        parts = 1 if combine is not None else frame.rdd.getNumPartitions()
    except Exception as e:   # a failed Spark job: a Java exception, one line of it
        raise _spark_failed(e) from None
    blobs = got.column("blob").to_pylist()
    sent = sum(len(b) for b in blobs)
    tables = _tables(got.column("part").to_pylist(), got.column("piece").to_pylist(), blobs)
    del got, blobs
    if len(tables) != parts:   # the JVM lost the results (out of memory, logged on stderr) but raised nothing
        raise InputError(f"Spark failed: {len(tables)} of the job's {parts} results reached the driver (out of"
                         " memory? give the driver more: spark.driver.memory)")
    for _, t in tables:
        if isinstance(t, _Failed):
            raise t.error
    return tables, sent


class _Failed:
    """An error raised in a partition, sent to the driver as its table."""

    def __init__(self, error: Exception) -> None:
        self.error = error


class SparkBatches:
    """A batch source (data/batches.py) over a Spark DataFrame's rows, which stay in Spark.

    Each pass is a Spark job through `reduce` (data/passes.reduce_batches); called, it yields
    one empty batch of the schema (what the learner reads of a first batch: its schema), never
    rows. `pass_bytes`: per pass run (the schema pass's jobs first), the bytes sent to the driver.

    Attributes
    ----------
    schema : Schema
    n : int
        Rows (cases).
    source : str
        The data, for messages.
    unknown_tokens : dict
        Per column, the cells read as unknown by a token.
    batch_rows : int
        Cases per batch at most, within a partition.
    """

    def __init__(self, frame: Any, cols: list[str], text: bool, encode: Callable[[Any, int], Dataset], schema: Schema,
                 n: int, unknown_tokens: dict[str, dict[str, int]], source: str, batch_rows: int,
                 pass_bytes: list[int]) -> None:
        self.frame, self.cols, self.text, self.encode = frame, cols, text, encode
        self.schema, self.n, self.unknown_tokens, self.source = schema, n, unknown_tokens, source
        self.batch_rows, self.pass_bytes, self.last_batches = batch_rows, pass_bytes, 0
        self.partitions, self._cache = frame.rdd.getNumPartitions(), None

    def __call__(self) -> Iterator[Dataset]:
        """The schema's empty batch (the rows are counted in Spark, by `reduce`)."""
        yield Dataset(self.schema, [np.zeros(0, np.float64 if a.is_continuous else np.int32)
                                    for a in self.schema.attributes], np.zeros(0, np.int32), self.source)

    def _encoded(self) -> Any:
        """The rows encoded once (the first pass that reads them fills the cache): a DataFrame
        of the same partitions, one row per batch, its column arrays pickled; every later pass
        reads these codes instead of parsing and encoding the table again."""
        if self._cache is None:
            cols, text, encode, batch_rows, size = self.cols, self.text, self.encode, self.batch_rows, _BLOB_BYTES

            def task(frames: Iterator[Any]) -> Iterator[Any]:
                part = _part()
                try:
                    for df in _chunks(frames, cols, text):
                        ds = encode(df, 0)
                        for b in _cut(ds, min(batch_rows, _blob_rows(ds, size))):
                            yield _blob(part, (b.columns, b.y))
                except (InputError, ModelError) as e:
                    yield _blob(part, _Failed(e))
            from pyspark import StorageLevel
            # on disk, not in the JVM's heap, which the passes' tables and Spark's reading need:
            # kept in memory, 5M rows' codes (1.2 GB) ran a 2 GB local driver and 1 GB executors
            # out of heap; read back each pass, they come from the OS's page cache
            self._cache = self.frame.mapInPandas(task, _BLOB).persist(StorageLevel.DISK_ONLY)
        return self._cache

    def release(self) -> None:
        """Drop the cached codes (the learning is over)."""
        cache, self._cache = self._cache, None
        if cache is not None:
            try:
                cache.unpersist()
            except Exception:   # noqa: BLE001 - the JVM has stopped (the error on its way says why): nothing left to free
                pass

    def _batches(self) -> Callable[[Iterator[Any]], Iterator[Dataset]]:
        """A partition's cached blobs -> its Dataset batches: a function holding the schema, not the source."""
        schema, source, batch_rows = self.schema, self.source, self.batch_rows

        def batches(frames: Iterator[Any]) -> Iterator[Dataset]:
            # the cached rows, small (_BLOB_BYTES), joined again into batches of batch_rows
            parts: list[Dataset] = []
            rows = 0
            for df in frames:
                for blob in df["blob"]:
                    got = pickle.loads(blob)
                    if isinstance(got, _Failed):
                        raise got.error
                    parts.append(Dataset(schema, *got, source))
                    rows += parts[-1].n
                    if rows >= batch_rows:
                        yield _joined(parts)
                        parts, rows = [], 0
            if parts:
                yield _joined(parts)
        return batches

    def reduce(self, zero: Callable[[], Any], count: Callable[[Any, Dataset], Any],
               merge: Callable[[Any, Any], Any]) -> Any:
        """One pass as a Spark job: each partition's batches counted into `zero()` by `count`;
        the partitions' tables merged by `merge`, in partition order, in one more Spark task
        when there are several, so that the driver receives one table, not one per partition."""
        batches = self._batches()

        def job(frames: Iterator[Any], part: int) -> Any:
            table, k = zero(), 0
            for batch in batches(frames):
                table, k = count(table, batch), k + 1
            return table, k

        def combine(parts: list[tuple[int, Any]]) -> Any:
            table, k = zero(), 0
            for _, (one, n) in parts:
                table, k = merge(table, one), k + n
            return table, k
        parts, sent = _run(self._encoded(), job, combine if self.partitions > 1 else None)
        self.pass_bytes.append(sent)
        (_, (table, self.last_batches)), = parts
        return table

    def fingerprint(self) -> str:
        """Dataset.fingerprint of all the rows: their hashes sorted in Spark by ranges of their top
        bits, each range's sorted hashes sent to the driver in turn and digested."""
        import hashlib
        batches = self._batches()
        bits = max(_HASH_BITS, int(self.n - 1).bit_length() - _RANGE_ROWS.bit_length() + 1)
        ranges = 1 << bits

        def hashes(frames: Iterator[Any]) -> Iterator[Any]:
            import pandas   # not the module's lazy `pd`: this function is pickled by value
            got = [b.row_hashes() for b in batches(frames)]
            rows = np.concatenate(got) if got else np.zeros(0, dtype=np.uint64)
            top = (rows >> np.uint64(64 - bits)).astype(np.int64)
            for r in np.unique(top).tolist():
                yield pandas.DataFrame({"part": [r], "blob": [rows[top == r].tobytes()]})

        def sort(pairs: Iterator[tuple[int, Any]]) -> Iterator[bytes]:
            for _, blobs in pairs:
                yield np.sort(np.concatenate([np.frombuffer(b, dtype=np.uint64) for b in blobs])).tobytes()
        h = hashlib.sha256()
        h.update(repr(self.schema).encode("utf-8"))
        sent = 0
        try:
            by_range = (self._encoded().mapInPandas(hashes, _BLOB).rdd.map(lambda r: (r.part, bytes(r.blob)))
                        .groupByKey(ranges, partitionFunc=lambda r: r).mapPartitions(sort))
            for part in by_range.toLocalIterator():
                h.update(part)
                sent += len(part)
        except Exception as e:
            raise _spark_failed(e) from None
        self.pass_bytes.append(sent)
        return "sha256:" + h.hexdigest()


def _spark_failed(error: Exception) -> InputError:
    """A failed Spark job (a Java exception) as one line: its first, and the Python error of a
    failed Python task (the last line of its traceback, e.g. MemoryError), which the first does
    not name."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else type(error).__name__
    if isinstance(error, ConnectionError) or type(error).__name__ == "Py4JNetworkError":
        # the JVM is gone: a task out of heap ends the executor, in local mode the driver's JVM
        return InputError(f"Spark failed: its JVM stopped ({first}); out of memory? give it more:"
                          " spark.driver.memory with a local master, spark.executor.memory on a cluster")
    causes = [line for line in lines[1:] if _PYTHON_ERROR.match(line) and "PythonException" not in line]
    if not causes:
        # py4j's first line names only the call ("An error occurred while calling o1410.getResult."):
        # the Java exception follows as ": NAME: message", its root as the last "Caused by: ..."
        causes = [line[2:] for line in lines[1:2] if line.startswith(": ")]
        causes += [line[len("Caused by: "):] for line in lines[1:] if line.startswith("Caused by: ")][-1:]
    return InputError(f"Spark failed: {first}" + (f" ({'; caused by '.join(c.strip()[:300] for c in causes[-2:])})"
                                                  if causes else ""))


# the last line of a Python traceback: an exception's name (and its message)
_PYTHON_ERROR = re.compile(r"[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b(:.*)?$")


def open_spark(frame: Any, target: str | None, *, read: ReadOptions | None = None, batch_rows: int = 100_000,
               discrete: Any = (), continuous: Any = (), ignore: Any = (), text: bool = False,
               source: str = "<Spark DataFrame>") -> SparkBatches:
    """A batch source over a Spark DataFrame, its schema built as `from_frame` builds it from the
    same table in pandas (same kinds, value and class orders, warnings and errors), by Spark jobs
    that send the driver per-column summaries, never rows.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
    target : str
        The class column.
    read : ReadOptions, optional
        How cells are read (unknown tokens, decimal comma ...).
    batch_rows : int, default=100000
        Cases per batch at most, within a partition (memory on the executors only).
    discrete, continuous, ignore : iterable of str
        Column kinds as `from_frame` takes them.
    text : bool, default=False
        Every column is a CSV's text (Spark's CSV reader without inferSchema): Spark's null
        (an empty cell) is read as "", as the default engine reads it.
    source : str
        The data's name, for messages.

    Returns
    -------
    SparkBatches

    Raises
    ------
    InputError
        What `fit` raises for the same table in pandas; a failed Spark job, in one line.
    """
    _check_rows(batch_rows)
    read = read or DEFAULT_READ
    if target is None:
        raise InputError(f"{source}: a Spark table needs target=COLUMN", params=("target",))
    kinds = tuple(set(map(str, k)) for k in (discrete, continuous, ignore))
    cols, target, (discrete, continuous, ignore) = training_columns(pd.DataFrame(columns=list(frame.columns)),
                                                                     target, kinds, source)
    # plain names for Spark, which reads a dot in a column's name as a field of a struct (vehicle's
    # "D.Circ"); each partition's pandas chunks get the table's own names back (_chunks)
    frame = frame.toDF(*[f"c{i}" for i in range(len(frame.columns))])
    pass_bytes: list[int] = []
    # each partition's row numbers (in messages) follow those of the partitions before it
    sizes, sent = _run(frame, lambda frames, part: sum(len(df) for df in frames))
    pass_bytes.append(sent)
    offsets, n = {}, 0
    for part, rows in sizes:
        offsets[part], n = n, n + rows
    if n == 0:
        raise InputError(f"{source}: no rows")

    def summarise(frames: Iterator[Any], part: int) -> _Summary:
        summary = _Summary(cols, target, discrete, ignore, read, source)
        summary.n = offsets.get(part, 0)
        for df in _chunks(frames, cols, text):
            summary.add(df)
        return summary
    def absorbed(parts: list[tuple[int, _Summary]]) -> _Summary:
        summary = parts[0][1]
        for _, other in parts[1:]:
            _absorb(summary, other)
        return summary
    spread = frame.rdd.getNumPartitions() > 1
    parts, sent = _run(frame, summarise, absorbed if spread else None)
    pass_bytes.append(sent)
    summary = parts[0][1]
    summary.n = n

    def more_texts(names: list[str]) -> dict[str, dict[str, int]]:
        def gather(frames: Iterator[Any], part: int) -> dict[str, dict[str, int]]:
            texts: dict[str, dict[str, int]] = {name: {} for name in names}
            for df in _chunks(frames, cols, text):
                for name in names:
                    s, _ = _mask_tokens(df[name], read.tokens)
                    _add(texts[name], *_text_counts(_column_text(s, name, source)))
            return texts
        def joined(got: list[tuple[int, dict[str, dict[str, int]]]]) -> dict[str, dict[str, int]]:
            texts = got[0][1]
            for _, more in got[1:]:
                for name, counts in more.items():
                    _add(texts[name], counts, counts.values())
            return texts
        got, sent = _run(frame, gather, joined if spread else None)
        pass_bytes.append(sent)
        return got[0][1]

    schema, variants, strays, unknown_tokens = summary.schema(continuous, more_texts)
    encode = table_encoder(schema, variants, strays, target, read, source)
    # rows in fewer partitions than Spark runs tasks at once (a Parquet file of one row group is
    # read by one task): spread over the cores before they are encoded, so that every pass uses them
    spread = frame.sparkSession.sparkContext.defaultParallelism
    if n >= _SPREAD_ROWS and sum(1 for _, rows in sizes if rows) < spread:
        frame = spread_in_order(frame, spread)
    return SparkBatches(frame, cols, text, encode, schema, n, unknown_tokens, source, batch_rows, pass_bytes)


def spread_in_order(frame: Any, parts: int) -> Any:
    """`frame`'s rows over `parts` partitions, each a run of consecutive rows, in order.

    Spark's plain repartition deals the rows round-robin, which would change the order the
    passes sum fractional weights in (the in-memory fit's case order, docs/large-data.md
    "Sums"); a range split on each row's position keeps it."""
    from pyspark.sql import functions as F
    at = "__c45rules_position"
    return (frame.withColumn(at, F.monotonically_increasing_id()).repartitionByRange(parts, at)
            .sortWithinPartitions(at).drop(at))


def _absorb(into: _Summary, other: _Summary) -> None:
    """The schema pass's summary of the rows after `into`'s added to it (`into`'s first
    findings stay first)."""
    into.yunknown += other.yunknown
    into.first_yunknown = into.first_yunknown or other.first_yunknown
    _add(into.labels, other.labels, other.labels.values())
    for name, st in into.columns.items():
        o = other.columns[name]
        _add(st.tokens, o.tokens, o.tokens.values())
        st.known += o.known
        st.numeric = st.numeric and o.numeric
        # kept while the column was all numbers: it matters only if it still is
        st.beyond = st.beyond or o.beyond
        st.nbad += o.nbad
        st.first_bad = st.first_bad or o.first_bad
        if st.bad is not None and o.bad is not None:
            _add(st.bad, o.bad, o.bad.values())
        st.bad = None if st.bad is None or o.bad is None or len(st.bad) > 3 else st.bad
        if st.texts is not None and o.texts is not None:
            _add(st.texts, o.texts, o.texts.values())
        # as the one-pass summary: a column all numbers keeps at most TEXT_CAP texts
        if st.texts is None or o.texts is None or (st.numeric and not st.keep and len(st.texts) > TEXT_CAP):
            st.texts = None
