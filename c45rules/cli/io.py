"""What the commands share off the command line: reading data and models, writing outputs."""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..data.reading import TABLE_SUFFIXES, is_table
from ..errors import InputError
from .options import kinds, read_options

if TYPE_CHECKING:
    from ..data.schema import Dataset
    from ..learn.spark import SparkBatches
    from ..model.boosted import BoostedRuleSet
    from ..model.ruleset import RuleSet
    from ..tree.node import Tree
    from .progress import Reporter

DATA_SUFFIXES = (*TABLE_SUFFIXES, ".data", ".test", ".names")
MODEL_SUFFIXES = (".yaml", ".yml")

# DATA naming a table of Spark's catalog (fit/rules --engine spark), as duckdb:FILE.db names a database
SPARK_TABLE = "spark:"


def progress(args: argparse.Namespace, message: str) -> None:
    """A step of the command on the progress line (cli/progress.py: drawn only for a person
    watching a terminal, not with -q)."""
    reporter = getattr(args, "reporter", None)
    if reporter is not None:
        reporter.note(message)


def learner_progress(args: argparse.Namespace) -> Reporter | None:
    """The `progress` callback to give the learners: the command's Reporter, or None."""
    return getattr(args, "reporter", None)


def load_training(args: argparse.Namespace) -> tuple[Dataset, Dataset | None]:
    """(train, test or None) for tree/rules/fit from DATA, --test/-u and the kind options."""
    from ..data.frame import load_data
    column_kinds = kinds(args)
    read = read_options(args)
    table = is_table(args.data)
    if not table and (column_kinds or args.names):
        opts = ", ".join(f"--{k}" for k in [*column_kinds, *(["names"] if args.names else [])])
        raise InputError(f"{args.data}: {opts} apply to CSV/Parquet data; a C4.5 stem's .names"
                         " file declares the attributes")
    test = getattr(args, "test", None)
    unseen = getattr(args, "unseen", False)
    if unseen and test:
        raise InputError("give -u (evaluate on STEM.test) or --test FILE, not both")
    if unseen:
        if table:
            raise InputError(f"{args.data}: -u needs a C4.5 stem with a STEM.test file;"
                             " use --test FILE with CSV data")
        stem = data_stem(args.data)
        if not Path(stem + ".test").exists():
            raise InputError(f"{stem}.test: file not found (needed by -u)")
    if Path(args.data).suffix.lower() in MODEL_SUFFIXES:
        raise InputError(f"{args.data}: is a model file, but '{args.command}' learns from data (a C4.5"
                         " stem or a CSV/Parquet file); to use a model: c45rules evaluate|predict|explain"
                         " MODEL.yaml DATA")
    progress(args, f"reading {args.data}")
    # -u: the stem's own STEM.test; neither -u nor --test: no test file is read at all
    train, tst = load_data(args.data, target=args.target, test=test or (None if unseen else False),
                           names=args.names, read=read, jobs=getattr(args, "jobs", 1), **column_kinds)
    for data in (train, tst):
        if data is not None:
            note_unknown(args, data.source, data.unknown_tokens)
    return with_weights(args, train, tst)


def streamed_training(args: argparse.Namespace) -> tuple[Any, Dataset | None, int | None, str] | None:
    """(batch source, test or None, budget, flag) when DATA is to be learnt in passes (--stream,
    a duckdb: input, or a table beyond --memory: learn/stream.py), else None."""
    from ..data.frame import load_test
    from ..learn.stream import needs_rows, open_for_passes
    stream, memory = getattr(args, "stream", False), getattr(args, "memory", None)
    if getattr(args, "engine", "default") == "spark" or str(args.data).startswith(SPARK_TABLE):
        return spark_training(args)
    if not (stream or memory is not None or args.query is not None or str(args.data).startswith("duckdb:")):
        return None
    if args.names:
        raise InputError("--names is not read in passes: drop --stream/--memory, or give a C4.5 stem")
    opened = open_for_passes(args.data, args.target, read=read_options(args), stream=stream, memory=memory,
                             batch_rows=args.batch_rows, query=args.query,
                             weighted=args.weights is not None or args.class_weights is not None,
                             flags=("--stream", "--memory"), **kinds(args))
    if opened is None:
        return None
    source, budget, flag = opened
    for option, what in (("tune", "--tune"), ("keep_tree", "--keep-tree (the pruned tree)"),
                         ("window_trials", "windowing (-t)"), ("window", "windowing (-w)"), ("increment", "windowing (-i)")):
        if getattr(args, option, None):
            raise needs_rows(what, flag)
    note_unknown(args, source.source, source.unknown_tokens)
    test = None
    if getattr(args, "unseen", False) or getattr(args, "test", None):
        if getattr(args, "unseen", False) and args.test:
            raise InputError("give -u (evaluate on STEM.test) or --test FILE, not both")
        path = args.test or data_stem(args.data) + ".test"
        if not Path(path).exists():
            raise InputError(f"{path}: file not found")
        test = load_test(path, source.schema, target=args.target, read=read_options(args))
    return source, test, budget, flag


def with_weights(args: argparse.Namespace, train: Dataset, tst: Dataset | None
                 ) -> tuple[Dataset, Dataset | None]:
    """(train, test) with --weights COL taken out of the attributes and, with --class-weights,
    set as the training cases' weights (data/weights.py)."""
    from ..data.weights import parse_class_weights, split_weights, weighted
    column, classes = getattr(args, "weights", None), getattr(args, "class_weights", None)
    if column is None and classes is None:
        return train, tst
    w = None
    if column is not None:
        train, w = split_weights(train, column)
        if tst is not None and column in tst.schema.names:
            tst, _ = split_weights(tst, column)
    return weighted(train, w, None if classes is None else parse_class_weights(classes),
                    name=column or "sample_weight"), tst


def spark_training(args: argparse.Namespace) -> tuple[SparkBatches, None, int | None, str]:
    """streamed_training's answer for --engine spark: DATA (a CSV/Parquet path, or spark:db.tbl a
    catalog table) as a Spark DataFrame on --master, learnt in passes as Spark jobs (learn/spark.py)."""
    from ..learn.spark import open_spark
    from ..learn.stream import needs_rows, parse_memory
    from .spark import _read, _session
    flag = "--engine spark"
    if args.engine != "spark":
        raise InputError(f"{args.data}: names a table of Spark's catalog: add --engine spark")
    if args.query is not None or args.names:
        raise InputError(f"{'--query' if args.query is not None else '--names'} does not apply to {flag}")
    if args.weights is not None or args.class_weights is not None:
        raise needs_rows("case and class weights", flag)
    for option, what in (("tune", "--tune"), ("keep_tree", "--keep-tree (the pruned tree)"),
                         ("window_trials", "windowing (-t)"), ("window", "windowing (-w)"), ("increment", "windowing (-i)"),
                         ("unseen", "-u"), ("test", "--test")):
        if getattr(args, option, None):
            raise needs_rows(what, flag)
    budget = None if args.memory is None else parse_memory(args.memory)
    read = read_options(args)
    spark, _ = _session(args.master)
    text = False
    if str(args.data).startswith(SPARK_TABLE):
        try:
            frame = spark.table(str(args.data)[len(SPARK_TABLE):])
        except Exception as e:   # no such table: Spark's AnalysisException
            raise InputError(f"{args.data}: not a table Spark knows ({str(e).strip().splitlines()[0]})") from None
    else:
        path = Path(args.data)
        if not path.exists():
            raise InputError(f"{path}: file not found")
        frame, _ = _read(spark, path, read)
        text = path.suffix.lower() not in (".parquet", ".pq")
    source = open_spark(frame, args.target, read=read, batch_rows=args.batch_rows, text=text, source=str(args.data),
                        **kinds(args))
    note_unknown(args, source.source, source.unknown_tokens)
    return source, None, budget, flag


def note_unknown(args: argparse.Namespace, source: str, counts: dict[str, dict[str, int]]) -> None:
    """One stderr note per column on the cells read as unknown: by a token, or (predict
    --bad-cells unknown, a column declared continuous) as texts that are not numbers; not with -q."""
    if getattr(args, "quiet", False):
        return
    for column, tokens in counts.items():
        n = sum(tokens.values())
        shown = ", ".join(list(tokens)[:_SHOWN]) + (", ..." if len(tokens) > _SHOWN else "")
        print(f"c45rules: note: {source}: {n} value{'s' * (n != 1)} of {column} read as unknown"
              f" ({shown})", file=sys.stderr)


_SHOWN = 8   # distinct texts a note shows per column (bad cells may be many)


def load_model(path: str, data: str | None = None, prepare: Callable[[Any], Any] | None = None
               ) -> RuleSet | BoostedRuleSet:
    """The RuleSet in a YAML model file (InputError/ModelError naming the file otherwise).

    `data` is the command's data argument, if any: a data file given where the model goes
    and a model where the data goes is told as arguments in the wrong order. `prepare` goes
    to load_yaml (rescore: rules written without evidence).
    """
    from ..export.yaml import load_yaml
    if Path(path).suffix.lower() in DATA_SUFFIXES or (Path(path).suffix == "" and Path(path + ".names").exists()):
        if data is not None and Path(data).suffix.lower() in MODEL_SUFFIXES:
            raise InputError(f"arguments in the wrong order: {path} is data and {data} a model;"
                             " the model comes first: MODEL.yaml DATA")
        raise InputError(f"{path}: is a data file, not a model; the first argument is the model"
                         " YAML written by 'c45rules fit'")
    return load_yaml(Path(path), prepare)


def data_stem(path: str) -> str:
    """A C4.5 stem as given, or as its .names or .data path names it."""
    return re.sub(r"\.(names|data)$", "", path)


def data_path(path: str) -> str:
    """A C4.5 stem or .names path stands for its .data file; other paths are kept."""
    p = Path(path)
    if p.suffix == ".names":
        return str(p.with_suffix(".data"))
    if not p.exists() and not is_table(path) and Path(path + ".data").exists():
        return path + ".data"
    return path


def load_labelled(path: str, ruleset: RuleSet | BoostedRuleSet, target: str | None = None,
                  args: argparse.Namespace | None = None, *, scoring: bool = False) -> Dataset:
    """Labelled cases encoded against the model's schema (C4.5 file/stem or CSV/Parquet).

    With `args`: read with its reading options, and the tokens read as unknown noted.
    `scoring`: a table needs only the class and the columns the rules test, not all.
    """
    from ..data.frame import load_test
    path = data_path(path)
    if not Path(path).exists():
        raise InputError(f"{path}: file not found")
    require = ruleset.used_attributes() if scoring else None
    if args is None:
        return load_test(path, ruleset.schema, target=target, require=require)
    data = load_test(path, ruleset.schema, target=target, read=read_options(args), require=require)
    note_unknown(args, data.source, data.unknown_tokens)
    return data


def relearn_tree(args: argparse.Namespace, ruleset: RuleSet, path: str, target: str | None) -> Tree:
    """Re-grow the model's tree from its training data, refusing other data."""
    from ..learn.pipeline import DEFAULTS, grow_with
    if "trials_built" in ruleset.options_dict:
        raise InputError("a boosted model grew one tree per trial on reweighted cases: its trees cannot be"
                         " re-grown from the training data")
    progress(args, f"reading {path}")
    train = load_labelled(path, ruleset, target, args)
    if ruleset.fingerprint and train.fingerprint() != ruleset.fingerprint:
        raise InputError(f"{path}: not the data this model was fitted on (its fingerprint differs"
                         " from the model's); the tree can only be re-grown from the training data")
    o = {**DEFAULTS, **ruleset.options_dict}
    if "weights" in o or "class_weight" in o:
        raise InputError(f"{path}: the model was learnt from weighted cases, which its file does not hold;"
                         " its tree cannot be re-grown: fit it again with --keep-tree")
    if "trials" in ruleset.options_dict:   # recorded by windowing (o always has boosting's default)
        raise InputError("this model's rules come from windowing (fit -t): its trees cannot be re-grown"
                         " here; fit it with --keep-tree to keep the best trial's pruned tree")
    progress(args, "growing and pruning the tree")
    return grow_with(train, o, progress=learner_progress(args)), train


def write_text(path: str | None, text: str) -> None:
    """Text to a file (atomically; the command has checked the path) or, for None or '-', to stdout."""
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    from ..export import atomic_write_text
    atomic_write_text(path, text)


def _input_files(args: argparse.Namespace) -> Iterator[str]:
    """The files a command's arguments name, a C4.5 stem's .names/.data/.test included."""
    for key, value in vars(args).items():
        if key in ("output", "outdir") or not isinstance(value, str):
            continue
        for name in (value, f"{value}.names", f"{value}.data", f"{value}.test"):
            if os.path.isfile(name):
                yield name


def is_stdout(path: str | None) -> bool:
    """Whether output to `path` lands on our stdout ('-', or /dev/stdout and the like)."""
    if path is None or path == "-":
        return True
    try:
        here, there = os.fstat(sys.stdout.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):   # stdout closed or not a real file
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def check_output(args: argparse.Namespace, path: str | None) -> None:
    """Refuse an output path in a missing directory, a directory, or a file the command reads."""
    from ..export._atomic import checked_target
    if path is None or path == "-":
        return
    target = checked_target(path)
    if target is not None and target.exists():
        for name in _input_files(args):
            if os.path.samefile(name, target):
                raise InputError(f"{path}: is {name}, an input of this command; write the output to"
                                 " another file")
