"""`c45rules predict`: score a file with a model, streaming CSV in chunks."""
from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from ..data.reading import BAD_CELLS
from ..errors import InputError
from .io import check_output, is_stdout, load_model, note_unknown, progress
from .options import jobs, positive_int, read_options, reading_options, scoring_options

HELP = "score a CSV (or Parquet, or C4.5 .data/.test) file with a model"
EXAMPLE = ("c45rules predict model.yaml new_cases.csv -o scored.csv\n"
           "  c45rules predict model.yaml new_cases.csv | head          (CSV on stdout)\n"
           "  c45rules predict model.yaml new_cases.csv -o scored.parquet\n"
           "  c45rules predict model.yaml big.parquet --engine spark -o scored.parquet")
PARENTS = (reading_options, scoring_options)
ENGINES = ("default", "duckdb", "spark")   # where the rows are scored: the library, or the exported SQL in DuckDB or Spark


def configure(p: argparse.ArgumentParser) -> None:
    """The predict command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("data", metavar="DATA")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="every input row, columns unchanged, then the class and the rule id;"
                        " '-' or left out: stdout (the CSV alone, no status line)")
    p.add_argument("--format", choices=("csv", "parquet"), dest="format",
                   help="output format (default: parquet when OUT ends in .parquet or .pq, else csv;"
                        " parquet needs pyarrow: pip install 'c45rules[parquet]')")
    p.add_argument("--engine", choices=ENGINES, default="default",
                   help="where the rows are scored: 'default' streams them through this process, in chunks;"
                        " 'duckdb' runs the exported SQL in DuckDB over a CSV or Parquet file, streaming in"
                        " bounded memory (pip install 'c45rules[duckdb]'); 'spark' runs the exported Spark SQL"
                        " in a Spark session that reads DATA and writes OUT (one CSV or Parquet file; pip"
                        " install 'c45rules[spark]' and Java); both need -o")
    p.add_argument("--bad-cells", choices=BAD_CELLS, default="error",
                   help="a continuous column's cell that is neither unknown nor a plain finite decimal number"
                        " ('inf', '1e999', '1_000', 'abc'): 'error' (default) stops with the row (counted"
                        " from 1 after the header), the column and the cell, writing no output file;"
                        " 'unknown' reads it as unknown, as the exported SQL does, with a note on stderr")
    p.add_argument("--csv-safe", action=argparse.BooleanOptionalAction, default=True,
                   help="in CSV output, write a predicted class that a spreadsheet would run as a formula"
                        " (starting with = + - @, tab or CR, and not a number) with a leading apostrophe"
                        " (default; --no-csv-safe writes it as it is); input columns are written as read")
    p.add_argument("--master", default="local[2]", metavar="URL",
                   help="with --engine spark: the Spark master (default local[2]; e.g. spark://host:7077)")
    p.add_argument("--chunksize", type=positive_int, default=50_000, metavar="N",
                   help="rows read and scored at a time (default 50000; bounds the memory used)")
    p.add_argument("-j", "--jobs", type=jobs, default=1, metavar="N",
                   help="with the default engine: worker processes that score a plain CSV's chunks (no quote,"
                        " UTF-8, commas), written in order, so the output does not depend on it (default 1;"
                        " -1: one per core); other inputs are scored in this process")
    p.add_argument("--prediction-column", default="predicted_class", metavar="NAME",
                   help="name of the output class column (default predicted_class)")
    p.add_argument("--rule-column", default="rule_id", metavar="NAME",
                   help="name of the output rule id column (default rule_id; 0 when the default class decides)")
    p.add_argument("--confidence", action="store_true",
                   help="add each row's confidence: the deciding rule's (1 - its pessimistic error), or the"
                        " default's (its Laplace share of the training cases reaching it), to 6 digits")
    p.add_argument("--confidence-column", default="confidence", metavar="NAME",
                   help="name of the --confidence column (default confidence)")
    p.add_argument("--explain", action="store_true",
                   help="add a column naming the deciding rule and its conditions in words")
    p.add_argument("--explain-column", default="explanation", metavar="NAME",
                   help="name of the --explain column (default explanation)")


def run(args: argparse.Namespace) -> int:
    """Score DATA into the output file or stdout."""
    from .cases import output_format, predict_file
    check_output(args, args.output)
    ahead = _layout_ahead(args)
    ruleset = load_model(args.model, args.data)
    if ahead is not None:
        ahead.join()
    from ..model.regression import RegressionModel
    if isinstance(ruleset, RegressionModel):
        return _run_regression(args, ruleset)
    if args.engine == "duckdb":
        return _run_duckdb(args, ruleset)
    if args.engine == "spark":
        return _run_spark(args, ruleset, output_format(args.output, args.format))
    progress(args, f"scoring {args.data}")
    unknown: dict[str, dict[str, int]] = {}
    n, unseen = predict_file(ruleset, args.data, args.output, chunksize=args.chunksize,
                             prediction_column=args.prediction_column, rule_column=args.rule_column,
                             read=read_options(args), unknown_tokens=unknown,
                             fmt=output_format(args.output, args.format), strict=args.strict,
                             confidence_column=args.confidence_column if args.confidence else None,
                             explain_column=args.explain_column if args.explain else None,
                             bad_cells=args.bad_cells, csv_safe=args.csv_safe, jobs=args.jobs)
    note_unknown(args, args.data, unknown)
    if unseen.note():
        print(unseen.note(), file=sys.stderr)
    if not is_stdout(args.output):   # the scored rows alone on stdout
        print(f"{n} rows scored, written to {args.output}")
    return 0


def _layout_ahead(args: argparse.Namespace) -> threading.Thread | None:
    """A CSV's layout pass (data/frame.py csv_layout, which predict_file reads first; it is
    kept for the file as it is) begun in a thread while the model loads: it reads the file
    in its compiled pass without the GIL. Its errors are left to predict_file to raise."""
    from .cases import CSV_SUFFIXES
    if args.engine != "default" or Path(args.data).suffix.lower() not in CSV_SUFFIXES:
        return None

    def layout() -> None:
        from ..data.frame import csv_layout
        try:
            read = read_options(args)
            csv_layout(args.data, read.separator(args.data), read.encoding)
        except Exception:   # noqa: BLE001  (predict_file reads it again and says what is wrong)
            pass
    thread = threading.Thread(target=layout, name="c45rules-layout", daemon=True)
    thread.start()
    return thread


def _run_regression(args: argparse.Namespace, model) -> int:
    """Score DATA (a CSV) with a regression model: each input row as read, then its number in
    column predicted_value (or `--prediction-column`); what only class rules have (rule ids, confidences, other engines) is
    refused by name."""
    import csv
    import io

    import pandas as pd
    for flag, given in (("--engine " + str(args.engine), args.engine != "default"), ("--confidence", args.confidence),
                        ("--explain", args.explain), ("-j", (args.jobs or 1) > 1)):
        if given:
            raise InputError(f"{flag} is not available for a regression model (predict writes each row's number)")
    if not str(args.data).lower().endswith(".csv"):
        raise InputError(f"{args.data}: predict scores a regression model on a CSV file"
                         " (Python: RegressionModel.predict takes any table)")
    progress(args, f"scoring {args.data}")
    read = read_options(args)      # the command's --encoding, --sep and unknown tokens, as for class rules
    try:
        cells = pd.read_csv(args.data, dtype=str, keep_default_na=False, na_filter=False,
                            sep=read.separator(args.data), encoding=read.encoding)
    except (OSError, ValueError) as e:
        raise InputError(f"{args.data}: cannot be read as a CSV file ({e})") from None
    # the number's column: predicted_value unless --prediction-column names another
    column = "predicted_value" if args.prediction_column == "predicted_class" else args.prediction_column
    if column in cells.columns:
        raise InputError(f"{args.data}: already has a column {column!r}: give --prediction-column")
    values = model.predict(cells.where(~cells.isin(list(read.tokens)), None), bad_cells=args.bad_cells)
    out = cells.copy()
    out[column] = [repr(float(v)) for v in values]
    text = io.StringIO()
    out.to_csv(text, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    if is_stdout(args.output):
        sys.stdout.write(text.getvalue())
        return 0
    from ..export._atomic import atomic_write_text
    atomic_write_text(args.output, text.getvalue())
    print(f"{len(out)} rows scored, written to {args.output}")
    return 0


def _run_duckdb(args: argparse.Namespace, ruleset) -> int:
    """Score DATA inside DuckDB (c45rules/engines/duckdb.py) into -o."""
    from ..engines.duckdb import score_file
    from .cases import output_format
    if is_stdout(args.output):
        raise InputError("--engine duckdb writes a file: give -o OUT (.csv or .parquet)")
    if args.explain:
        raise InputError("--explain is not available with --engine duckdb (use the default engine)")
    progress(args, f"scoring {args.data} in DuckDB")
    with _bad_cells_located(args, ruleset):
        n = score_file(ruleset, args.data, args.output, fmt=output_format(args.output, args.format),
                       prediction_column=args.prediction_column, rule_column=args.rule_column,
                       confidence_column=args.confidence_column if args.confidence else None,
                       read=read_options(args), strict=args.strict, bad_cells=args.bad_cells,
                       csv_safe=args.csv_safe, threads=_jobs(args))
    print(f"{n} rows scored, written to {args.output}")
    return 0


def _run_spark(args: argparse.Namespace, ruleset, fmt: str) -> int:
    """Score with --engine spark: the options it cannot honour are refused, not ignored."""
    from .spark import local_master, predict_spark
    for flag, given in (("--explain", args.explain), ("--strict", args.strict)):
        if given:
            raise InputError(f"{flag} is not available with --engine spark (use --engine default)")
    progress(args, f"scoring {args.data} in Spark ({args.master})")
    with _bad_cells_located(args, ruleset):
        n = predict_spark(ruleset, args.data, args.output, master=local_master(args.master, _jobs(args)),
                          fmt=fmt, prediction_column=args.prediction_column, rule_column=args.rule_column,
                          confidence_column=args.confidence_column if args.confidence else None,
                          read=read_options(args), bad_cells=args.bad_cells, csv_safe=args.csv_safe)
    print(f"{n} rows scored, written to {args.output}")
    return 0


def _jobs(args: argparse.Namespace) -> int | None:
    """-j N for DuckDB and Spark: N threads (-1: every core); None (the engine's own count: DuckDB
    every core, Spark --master's) when not given or 1, -j's default, which keeps those engines as
    they were."""
    from ..workers import resolve_jobs
    jobs = getattr(args, "jobs", None)
    return None if jobs in (None, 1) else resolve_jobs(jobs)


@contextlib.contextmanager
def _bad_cells_located(args: argparse.Namespace, ruleset) -> Iterator[None]:
    """An engine's bad-cell error (no row: DuckDB and Spark stop without telling it) as the
    default engine gives it, with the row (cases.locate_bad_cell)."""
    from ..data.frame import BadCell
    from .cases import locate_bad_cell
    try:
        yield
    except BadCell as e:
        progress(args, f"finding the row of {e.cell!r}")
        raise locate_bad_cell(ruleset, args.data, e, read_options(args), args.chunksize) from None
