"""`c45rules rules|fit|cv` on a numeric target: Cubist-style regression rules.

The learner is chosen by the target's type: a Cubist stem (its .names names a continuous
attribute first), or a CSV/Parquet file whose --target column holds numbers that are not class
labels (a non-integral number, or more than CLASS_LIKE_LIMIT distinct integers).
"""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import InputError
from .vocabulary import flags

CLASS_LIKE_LIMIT = 50   # more distinct integers than this in a target column: a number, not classes


def regression_options(shown: bool = True) -> argparse.ArgumentParser:
    """--committees and --neighbors (regression rules only); `shown`: listed in --help (fit's
    help keeps under 200 lines: there docs/options.md lists them)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(*flags("--committees"), type=int, default=None, metavar="N",
                   help="numeric target: committee members, 1-100 (default 1)" if shown else argparse.SUPPRESS)
    p.add_argument(*flags("--neighbors"), type=int, default=None, metavar="K",
                   help="numeric target: nearest cases correcting it, 0-9 (default 0)" if shown else argparse.SUPPRESS)
    return p


def is_regression(args: argparse.Namespace) -> bool:
    """Whether DATA's target is a number (module docstring); regression options need one."""
    from ..data.reading import is_table
    from ..learn.regression import is_cubist_stem
    data = args.data
    if not is_table(data):
        numeric = not getattr(args, "names", None) and is_cubist_stem(data)
    elif getattr(args, "names", None) or not getattr(args, "target", None):
        numeric = False
    else:
        numeric = _numeric_column(data, args.target, args)
    if not numeric and (args.committees is not None or args.neighbors is not None):
        raise InputError("--committees and --neighbors apply to a numeric target (regression rules)")
    return numeric


def _numeric_column(path: str, target: str, args: argparse.Namespace) -> bool:
    """Whether the column holds numbers that are not class labels; read in chunks (with the
    command's reading options: --encoding, --sep, the unknown tokens), stopping at the first text
    (classes) or the first proof of a number (memory stays bounded on a big table, which the
    class learner may stream)."""
    import numpy as np   # here, not at import: the CLI's parser stays light (tests/e2e/test_cli.py)
    from pathlib import Path

    import pandas as pd

    from ..data.batches import _parquet_frames
    from ..data.frame import csv_frames
    from ..data.numbers import parse_number_texts
    from .options import read_options
    read = read_options(args)
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        if not p.exists():
            raise InputError(f"{p}: file not found")
        # a chunk at a time, as a CSV: the whole file in pandas took 10.6 GB at 20M rows
        chunks = _parquet_frames(p, 1 << 16)()
    else:
        chunks = csv_frames(p, read, read.separator(p), chunksize=1 << 16)
    distinct: set[float] = set()
    for chunk in chunks:
        if target not in chunk.columns:
            return False
        texts = chunk[target].astype(object)
        known = texts.notna() & ~texts.astype(str).isin(read.tokens)
        y = parse_number_texts(texts[known].astype(str).to_numpy())[0] if known.any() else np.zeros(0)
        if np.isnan(y).any() or pd.api.types.is_bool_dtype(chunk[target]):
            return False
        distinct.update(np.unique(y).tolist())
        if (y != np.round(y)).any() or len(distinct) > CLASS_LIKE_LIMIT:
            return True
    return False


def _options(args: argparse.Namespace) -> dict:
    return {"committees": args.committees, "neighbors": args.neighbors}


def _errors(model, ds, y) -> tuple[float, float]:
    import numpy as np
    err = model.predict(ds) - y
    return float(np.sqrt(np.mean(err ** 2))), float(np.mean(np.abs(err)))


def _learn(args: argparse.Namespace):
    from ..learn.regression import fit_regression, read_regression
    ds, y = read_regression(args.data, getattr(args, "target", None))
    return fit_regression(ds, y, **_options(args)), ds, y


def _text(model, ds, y) -> str:
    rmse, mae = _errors(model, ds, y)
    return (f"{model}\nEvaluation on training data ({ds.n} cases):\n\n"
            f"    RMSE                {rmse:.6g}\n    Average |error|     {mae:.6g}\n"
            f"    Rules               {len(model.rules)}\n")


def run_rules(args: argparse.Namespace) -> int:
    """`rules`: print the rules and their training errors (or JSON)."""
    model, ds, y = _learn(args)
    if getattr(args, "json", False):
        rmse, mae = _errors(model, ds, y)
        print(json.dumps({"cases": ds.n, "rules": len(model.rules), "rmse": rmse, "mae": mae}))
    else:
        sys.stdout.write(_text(model, ds, y))
    return 0


def run_fit(args: argparse.Namespace) -> int:
    """`fit`: write the model's YAML, then print its rules unless the model went to stdout."""
    from ..export.yaml import dump_yaml
    from .io import check_output, is_stdout, write_text
    check_output(args, args.output)
    model, ds, y = _learn(args)
    write_text(args.output, dump_yaml(model))
    if not is_stdout(args.output):
        sys.stdout.write(_text(model, ds, y))
        print(f"Model written to {args.output}")
    return 0


def run_cv(args: argparse.Namespace) -> int:
    """`cv`: RMSE and MAE per fold (random folds seeded by --seed), and their means."""
    import numpy as np   # here, not at import: the CLI's parser stays light (tests/e2e/test_cli.py)
    from ..data.schema import Dataset
    from ..learn.regression import fit_regression, read_regression
    ds, y = read_regression(args.data, getattr(args, "target", None))
    k = args.cv_folds or 10
    if not 2 <= k <= ds.n:
        raise InputError(f"--cv-folds {k}: expected 2 to {ds.n} folds for {ds.n} cases")
    perm = np.random.default_rng(args.seed or 0).permutation(ds.n)
    fold = np.empty(ds.n, dtype=int)
    fold[perm] = np.arange(ds.n) % k
    rows = []
    for f in range(k):
        test = fold == f
        part = [Dataset(ds.schema, [c[m] for c in ds.columns], None, ds.source) for m in (~test, test)]
        model = fit_regression(part[0], y[~test], **_options(args))
        rmse, mae = _errors(model, part[1], y[test])
        rows.append({"fold": f, "cases": int(test.sum()), "rmse": rmse, "mae": mae, "rules": len(model.rules)})
    means = {key: float(np.mean([r[key] for r in rows])) for key in ("rmse", "mae", "rules")}
    if args.json:
        print(json.dumps({"k": k, "seed": args.seed or 0, "folds": rows,
                          **{f"mean_{key}": v for key, v in means.items()}}))
        return 0
    print("Fold   Cases     RMSE      MAE  Rules")
    for r in rows:
        print(f"{r['fold'] + 1:4d} {r['cases']:7d} {r['rmse']:8.4g} {r['mae']:8.4g} {r['rules']:6d}")
    print(f"Mean          {means['rmse']:8.4g} {means['mae']:8.4g} {means['rules']:6.1f}")
    return 0
