"""What the commands share off the command line: reading data and models, writing outputs."""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .options import kinds

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")


def progress(args: argparse.Namespace, message: str) -> None:
    """A progress line on stderr, only for a person watching a terminal."""
    if not getattr(args, "quiet", False) and sys.stderr.isatty():
        print(f"c45rules: {message}...", file=sys.stderr, flush=True)


def is_table(path: str) -> bool:
    """True for a CSV/TSV/Parquet path (anything else is a C4.5 file or stem)."""
    return Path(path).suffix.lower() in TABLE_SUFFIXES


def load_training(args: argparse.Namespace):
    """(train, test or None) for tree/rules/fit from DATA, --test/-u and the kind options."""
    from ..data.frame import load_data
    column_kinds = kinds(args)
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
        stem = re.sub(r"\.(names|data)$", "", args.data)
        if not Path(stem + ".test").exists():
            raise InputError(f"{stem}.test: file not found (needed by -u)")
    progress(args, f"reading {args.data}")
    # -u: the stem's own STEM.test; neither -u nor --test: no test file is read at all
    return load_data(args.data, target=args.target, test=test or (None if unseen else False),
                     names=args.names, **column_kinds)


def load_model(path: str):
    """The RuleSet in a YAML model file (ModelError naming the file otherwise)."""
    from ..export.yaml import load_yaml
    return load_yaml(Path(path))


def data_path(path: str) -> str:
    """A C4.5 stem or .names path stands for its .data file; other paths are kept."""
    p = Path(path)
    if p.suffix == ".names":
        return str(p.with_suffix(".data"))
    if not p.exists() and not is_table(path) and Path(path + ".data").exists():
        return path + ".data"
    return path


def load_labelled(path: str, ruleset, target: str | None = None, *, scoring: bool = False):
    """Labelled cases encoded against the model's schema (C4.5 file/stem or CSV/Parquet);
    `scoring`: a table needs only the class and the columns the rules test, not all."""
    from ..data.frame import load_test
    path = data_path(path)
    if not Path(path).exists():
        raise InputError(f"{path}: file not found")
    return load_test(path, ruleset.schema, target=target,
                     require=ruleset.used_attributes() if scoring else None)


def relearn_tree(args: argparse.Namespace, ruleset, path: str, target: str | None):
    """Re-grow the model's tree from its training data, refusing other data."""
    from ..pipeline import DEFAULTS, learn_tree
    progress(args, f"reading {path}")
    train = load_labelled(path, ruleset, target)
    if ruleset.fingerprint and train.fingerprint() != ruleset.fingerprint:
        raise InputError(f"{path}: not the data this model was fitted on (its fingerprint differs"
                         " from the model's); the tree can only be re-grown from the training data")
    o = {**DEFAULTS, **ruleset.options_dict}
    progress(args, "growing and pruning the tree")
    return learn_tree(train, cf=o["cf"], min_objs=o["min_objs"], gain_ratio=o["gain_ratio"],
                      subset=o["subset"]), train


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
