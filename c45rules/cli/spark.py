"""`predict --engine spark`: score a CSV or Parquet file inside a Spark session. Spark reads and
writes; the model's columns go to Spark's Python workers in Arrow batches (a pandas UDF), where
the default engine's own code decides them (`_Decide`: encode_frame, then the rule lookup), so
the decisions are the default engine's by construction (issue 52: a 222-rule CASE in Spark SQL
decided about 3,400 rows/s).

Reading matches the default engine: every CSV cell is text (RFC 4180 quoting, quoted line
breaks allowed, a record with too many or too few fields refused); a continuous column's cell
that is empty or one of the unknown tokens (`ReadOptions.tokens`: `?`, pandas' `NA`, `NULL`,
`nan`, ...; `--na-values` adds, `--keep-na-tokens` removes) is unknown, any other text must
be a number as data/numbers.py defines one (`--decimal ,` swaps `,` and `.` first), else it
is a bad cell: the run fails naming the column and the cell (`bad_cells` "error"; the
command line then finds its row) or the cell is unknown ("unknown"). Discrete columns are
compared as text, so a token there is unknown unless it is one of the model's values, as in
the default engine. Difference: a UTF-8 byte-order mark stays in the first column name.

Output: one file, as with the default engine -- CSV with a header (every input column's text
as read, then the class, the rule id and with --confidence the confidence) or Parquet (the
input's types, the class as STRING, the rule id as INT, the confidence as DOUBLE). Spark
writes into a temporary directory beside OUT; its part file (one partition), or for a CSV read
in parallel pieces its part files joined in order under one header, then replaces OUT, so a
failed run leaves OUT untouched. A CSV with no quote, carriage return or NUL byte (each line a
record: engines/lines.py) is read in pieces, in parallel; any other, whose quoted cells may
hold line breaks, whole by one task.
"""
from __future__ import annotations

import codecs
import contextlib
import os
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from sqlglot import exp

from ..data.frame import check_bad_cells, engine_bad_cell, engine_bad_cell_of
from ..data.reading import DEFAULT_READ, ReadOptions
from ..data.spreadsheet import escaped_sql, escapes
from ..errors import InputError
from ..export._atomic import checked_target
from ..export.sql import sql_identifier
from ..engines.lines import plain_lines
from ..model.ruleset import RuleSet
from .cases import CSV_SUFFIXES, PARQUET_SUFFIXES

DIALECT = "spark"
# mark our raise_error text in Spark's exception message, which adds its own words around it
_FAILED, _END = "c45rules-spark-error: ", " :c45rules-spark-error-end"
_HIDDEN = "__c45rules_value_{}__"     # names of the engine's work columns
_BATCH_ROWS = 50_000


def _session(master: str) -> tuple[Any, bool]:
    """(a Spark session on `master`, whether it was started here and so is ours to stop)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError("--engine spark needs pyspark and Java (pip install 'c45rules[spark]')") from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return _local_workers(active), False
    try:
        # Python tasks (learning: learn/spark.py; predict's _Decide) run this Python unless
        # PYSPARK_PYTHON names another
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = (SparkSession.builder.master(master).appName("c45rules")
                   .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                   # the decisions' Arrow batches (_Decide): fewer, larger calls into the library
                   .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(_BATCH_ROWS)))
        if not os.environ.get("PYSPARK_SUBMIT_ARGS"):
            # the driver's JVM ends at its first OutOfMemoryError, so that the error reaches us
            # (learn/spark.py names it): a task's result too large for its heap stopped Spark's
            # thread that receives results, and the job then waited for it forever (the noisy
            # 5M-row fit on local[2] with a 2 GB heap, BENCHMARKS.md "Learning on Spark")
            builder = builder.config("spark.driver.extraJavaOptions", _DRIVER_JAVA_OPTIONS)
            if master.startswith("local"):
                # local: the executors are the driver's JVM, which holds the cached codes of a
                # fit's rows and each pass's table (learn/spark.py): Spark's default 1 GB is
                # short of 1M rows
                builder = builder.config("spark.driver.memory", _LOCAL_MEMORY)
        session = builder.getOrCreate()
    except Exception as e:   # no Java, a master that does not answer
        raise InputError(f"--engine spark: cannot start a Spark session on {master!r}: {_first_line(e)}") from None
    # a failed task is logged with its stack trace; the failure is reported once, as our error
    session.sparkContext.setLogLevel("OFF")
    return _local_workers(session), True


_LOCAL_MEMORY = "2g"   # the JVM's heap with a local master
_DRIVER_JAVA_OPTIONS = "-XX:+ExitOnOutOfMemoryError"


def _local_workers(session: Any) -> Any:
    """`session`, whose Python workers (_Decide), when they run on this machine and no
    PYSPARK_PYTHON names their interpreter, run this one: it has c45rules and its packages,
    where `python3` on the PATH (Spark's default) may not."""
    context = session.sparkContext
    if context.master.startswith("local") and not os.environ.get("PYSPARK_PYTHON"):
        context.pythonExec = sys.executable
    return session


def local_master(master: str, cores: int | None) -> str:
    """`master`, or with `cores` (predict -j) and a local master, local[cores]: Spark's tasks in
    that many threads. A cluster's master keeps its own."""
    if cores is None or not re.fullmatch(r"local(\[[0-9*]+(,[0-9]+)?\])?", master):
        return master
    return f"local[{cores}]"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _read(spark: Any, path: Path, read: ReadOptions) -> tuple[Any, bool]:
    """(the file as a DataFrame, whether it is read in parallel pieces, in the file's order)."""
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        return spark.read.parquet(str(path)), False
    if suffix not in CSV_SUFFIXES:
        raise InputError(f"{path}: --engine spark reads CSV/TSV or Parquet files, not {suffix or 'this file'}")
    # a file each of whose lines is a record is cut into pieces read in parallel; one with a
    # quote (a cell may hold a line break) is read whole, by one task, as a multi-line CSV
    split = codecs.lookup(read.encoding).name in _SPLIT_ENCODINGS and plain_lines(path) is not None
    # every cell as text; '"' doubles itself (RFC 4180; Spark's default escape is a backslash)
    frame = spark.read.csv(str(path), header=True, inferSchema=False, sep=read.separator(path),
                           quote='"', escape='"', multiLine=not split, mode="FAILFAST",
                           encoding=read.encoding)
    import pandas as pd
    header = list(pd.read_csv(path, nrows=0, sep=read.separator(path), encoding=read.encoding).columns)
    if list(frame.columns) != header:   # Spark renames names alike but for case (vehicle's Sc.Var.Maxis/maxis)
        renamed = [f"{a!r} as {b!r}" for a, b in zip(header, frame.columns) if a != b]
        raise InputError(f"{path}: Spark reads the column {renamed[0] if renamed else 'names'} (names that differ"
                         " only in case, or repeat, are renamed): rename those columns, or use another engine")
    return frame, split


# encodings in which a line feed byte is a line end and nothing else (Spark cuts the pieces there)
_SPLIT_ENCODINGS = ("utf-8", "iso8859-1")


def _join_parts(parts: list[Path], target: Path) -> None:
    """Spark's CSV part files, each with the header line, as one file `target` with one header
    (the parts of a file read in pieces, in their order: part-00000 holds the first rows)."""
    with open(target, "wb") as out:
        header = False
        for part in parts:
            with open(part, "rb") as f:
                first = f.readline()
                if not first:
                    continue   # an empty piece may write an empty part
                if not header:
                    out.write(first)
                    header = True
                shutil.copyfileobj(f, out, 1 << 22)


class _Decide:
    """The default engine's decision (data/frame.encode_frame, then RuleSet.rule_index and the
    looked-up outputs of cases.decision_columns) on each Arrow batch of the model's columns,
    in Spark's Python workers: the same code, so the same decisions, and no CASE for Spark to
    evaluate (a 222-rule CASE ran about 3,400 rows/s in Spark, issue 52). Pickled to the workers."""

    def __init__(self, ruleset: RuleSet, read: ReadOptions, source: str, bad_cells: str,
                 outputs: dict[str, str]) -> None:
        self.ruleset, self.read, self.source, self.bad_cells = ruleset, read, source, bad_cells
        self.outputs = outputs

    def __call__(self, cells: Any) -> Any:
        """The outputs of the rows of `cells` (a pandas DataFrame of the attribute columns), as a
        DataFrame with one column per output, named by its kind."""
        import pandas as pd
        from ..data.frame import BadCell, encode_frame
        from .cases import decision_columns
        _, score = decision_columns(self.ruleset, self.outputs["class"], self.outputs["rule"],
                                    self.outputs.get("confidence"), None)
        try:
            encoded = encode_frame(cells, self.ruleset.schema, require=self.ruleset.used_attributes(),
                                   source=self.source, read=self.read, bad_cells=self.bad_cells)
        except BadCell as e:   # read back on the driver (engine_bad_cell_of), found there with its row
            head, tail = engine_bad_cell(self.source, e.column)
            raise RuntimeError(f"{_FAILED}{head}{e.cell}{tail}{_END}") from None
        return pd.DataFrame(dict(zip(self.outputs, score(encoded))), index=cells.index)


# the Spark type of each output, as the SQL engines give them
_OUTPUT_TYPES = {"class": "string", "rule": "int", "confidence": "double"}


def _decided(frame: Any, ruleset: RuleSet, read: ReadOptions, source: str, outputs: dict[str, str],
             bad_cells: str) -> Any:
    """`frame` with the outputs {kind: name} added after its columns, by `_Decide` in a pandas UDF
    over the model's attribute columns (every one present: encode_frame reads them all)."""
    from pyspark.sql import functions as F
    names = [a.name for a in ruleset.schema.attributes if a.name in frame.columns]
    fields = ", ".join(f"{kind}: {_OUTPUT_TYPES[kind]}" for kind in outputs)
    import pandas as pd
    decider = _Decide(ruleset, read, source, bad_cells, outputs)

    def decisions(cells):
        return decider(cells)
    # a DataFrame (the struct of the columns) to a DataFrame (the struct of the outputs); given as
    # objects, since this module's annotations are strings
    decisions.__annotations__ = {"cells": pd.DataFrame, "return": pd.DataFrame}
    with warnings.catch_warnings():   # pyspark 4.0 warns of pandas 3, whose parts used here it supports
        warnings.simplefilter("ignore", FutureWarning)
        from pyspark.sql.functions import pandas_udf
        decide = pandas_udf(decisions, returnType=f"struct<{fields}>")
    hidden = _HIDDEN.format("decision")
    with_decision = frame.withColumn(hidden, decide(F.struct(*(F.col(sql_identifier(n, DIALECT))
                                                               for n in names))))
    return with_decision.select(*(F.col(sql_identifier(c, DIALECT)) for c in frame.columns),
                                *(F.col(hidden)[kind].alias(name) for kind, name in outputs.items()))


def predict_spark(ruleset: RuleSet, data: str | os.PathLike, output: str | os.PathLike, *,
                  master: str = "local[2]", fmt: str = "csv", prediction_column: str = "predicted_class",
                  rule_column: str = "rule_id", confidence_column: str | None = None,
                  read: ReadOptions | None = None, bad_cells: str = "error", csv_safe: bool = True) -> int:
    """Score `data` (CSV/TSV or Parquet) into the file `output` (CSV or Parquet) in a Spark
    session on `master`; the number of rows written. `bad_cells` as the duckdb engine's
    score_file takes it (a BadCell without its row, or NULL); `csv_safe` as there (a CSV's
    class column escapes a class a spreadsheet would run as a formula)."""
    read = read or DEFAULT_READ
    check_bad_cells(bad_cells)
    source = str(data)
    path = Path(data)
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if output is None or str(output) == "-":
        raise InputError("--engine spark writes a file: give -o OUT.csv or -o OUT.parquet")
    target = checked_target(output)
    if target is None:
        raise InputError(f"{output}: --engine spark writes a regular file, not a stream")
    if fmt not in ("csv", "parquet"):
        raise InputError(f"--format must be csv or parquet, not {fmt!r}")
    if path.suffix.lower() not in CSV_SUFFIXES + PARQUET_SUFFIXES:
        raise InputError(f"{path}: --engine spark reads CSV/TSV or Parquet files, not {path.suffix or 'this file'}")
    outputs = {"class": prediction_column, "rule": rule_column}
    if confidence_column is not None:
        outputs["confidence"] = confidence_column
    spark, started = _session(master)
    from pyspark.sql import Observation, functions as F
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".spark"))
    try:
        frame, split = _read(spark, path, read)
        types = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
        missing = sorted(set(ruleset.used_attributes()) - set(types))
        if missing:
            raise InputError(f"{source}: column {missing[0]!r} is missing"
                             f" (the model needs: {', '.join(sorted(ruleset.used_attributes()))})")
        taken = [c for c in types if c.startswith(_HIDDEN.split("{")[0])]
        if taken:
            raise InputError(f"{source}: column {taken[0]!r}: names starting with"
                             f" {_HIDDEN.split('{')[0]!r} are kept for --engine spark's work columns")
        for flag, name in zip(("--prediction-column", "--rule-column", "--confidence-column"), outputs.values()):
            if name in types:
                raise InputError(f"{source}: the input already has a column {name!r}; name the output"
                                 f" column differently with {flag} NAME")
        scored = _decided(frame, ruleset, read, source, outputs, bad_cells)
        escaped = escapes(ruleset.schema.classes) if csv_safe and fmt == "csv" else {}
        if escaped:   # the class column replaced in place, the others as they are
            cell = exp.column(exp.to_identifier(prediction_column, quoted=True))
            safe = exp.alias_(escaped_sql(cell, escaped), prediction_column, quoted=True)
            scored = scored.selectExpr(*[safe.sql(dialect=DIALECT, identify=True) if name == prediction_column
                                         else sql_identifier(name, DIALECT) for name in scored.columns])
        counted = Observation("rows")
        scored = scored.observe(counted, F.count(F.lit(1)).alias("n"))
        # a CSV read in pieces is written in pieces, in order, and joined here; else one
        # partition (coalesce: the whole job in one task) writes the one part file
        split = split and fmt == "csv"
        if not split:
            scored = scored.coalesce(1)
        written = work / "out"
        if fmt == "parquet":
            scored.write.parquet(str(written))
        else:
            # Spark's writer trims cells and escapes quotes with '\' unless told otherwise
            scored.write.csv(str(written), header=True, quote='"', escape='"', escapeQuotes=True,
                             ignoreLeadingWhiteSpace=False, ignoreTrailingWhiteSpace=False,
                             lineSep="\n", encoding="utf-8")
        parts = sorted(written.glob("part-*"))
        rows = int(counted.get["n"])
        if split:
            _join_parts(parts, work / "joined")
            os.replace(work / "joined", target)
            return rows
        if len(parts) != 1:
            raise InputError(f"{source}: Spark wrote {len(parts)} part files, expected one")
        os.replace(parts[0], target)
        return rows
    except InputError:
        raise
    except Exception as e:   # Spark reports a failed job as a Java exception: one line of it
        text = str(e)
        ours = re.search(re.escape(_FAILED) + r"(.*?)" + re.escape(_END), text, re.S)
        if ours:
            raise engine_bad_cell_of(ours.group(1), source, ruleset.schema) or InputError(ours.group(1)) from None
        raise InputError(f"{source}: Spark failed: {_first_line(e)}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if started:
            with contextlib.suppress(Exception):
                spark.stop()
