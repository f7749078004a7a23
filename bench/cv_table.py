#!/usr/bin/env python3
"""10-fold cross-validation over the shared sets, the same folds for every learner (issue 32).

Usage:
  python bench/cv_table.py [NAME ...] [-k 10] [--seed 0] [--max-rows 5000]
                           [--grid cf=10,25,50 m=2,5 s=0,1] [--tune-folds 5] [--no-c50py]
                           [--markdown FIDELITY.md]

For each dataset (default: every shared set with at most --max-rows training cases), on the
stratified folds of `c45rules cv` (c45rules/crossval.py, --seed): our rulesets with the default
options, our rulesets tuned by nested cross-validation over --grid (`cv --tune`), RuleQuest's
C5.0 rulesets (`c5.0 -r`, ../shared/anchors/c5.0) and the PyPI package c50py's
C5RulesClassifier (default parameters; discrete attributes given as categorical columns,
unknowns as NaN) on the very same training and test cases. Prints the mean fold error of each,
per dataset and over the datasets; with --markdown writes the table as the `cv` section of
that file (the rest of the file is kept).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))
import reference as R  # noqa: E402
from common import markdown_table, put_section, run_stamp  # noqa: E402

from c45rules.cli.c50 import fold_errors as c50_fold_errors  # noqa: E402
from c45rules.crossval import fold_error, fold_splits, grid_options, parse_grid, tune  # noqa: E402
from c45rules.data.names import load_stem  # noqa: E402

C50 = R.SHARED / "anchors" / "c5.0"


def frame_of(data):
    """The Dataset as a DataFrame c50py reads: discrete columns as text (unknown: None),
    continuous as floats (unknown: NaN)."""
    import pandas as pd
    cols = {}
    for a, col in zip(data.schema.attributes, data.columns):
        if a.kind == "ignore":
            continue
        if a.kind == "discrete":
            values = np.array(list(a.values) + [None], dtype=object)
            cols[a.name] = pd.Series(values[np.where(col < 0, len(a.values), col)], dtype=object)
        else:
            cols[a.name] = pd.Series(np.asarray(col, dtype=float))
    return pd.DataFrame(cols)


def c50py_errors(data, splits) -> list[float]:
    """c50py's C5RulesClassifier error percentage on each split."""
    from c50py import C5RulesClassifier
    X, y = frame_of(data), np.asarray(data.y)
    cats = [a.name for a in data.schema.attributes if a.kind == "discrete"]
    out = []
    for train, test in splits:
        clf = C5RulesClassifier(categorical_features=cats or None)
        clf.fit(X.iloc[train].reset_index(drop=True), y[train])
        out.append(100.0 * float(np.mean(clf.predict(X.iloc[test].reset_index(drop=True)) != y[test])))
    return out


def one(name: str, args) -> dict:
    """Every learner's fold errors on one dataset."""
    data, _ = load_stem(R.stem(name))
    splits = [(tr, te) for _, _, tr, te in fold_splits(data, args.k, args.seed)]
    res, secs = {}, {}
    t = time.perf_counter()
    res["ours"] = [100.0 * fold_error(data.subset(tr), data.subset(te), {})[0] / len(te) for tr, te in splits]
    secs["ours"] = time.perf_counter() - t
    t = time.perf_counter()
    tuned = []
    for tr, te in splits:
        best = tune(data.subset(tr), args.grid, k=args.tune_folds, seed=args.seed).best
        tuned.append(100.0 * fold_error(data.subset(tr), data.subset(te), grid_options(best))[0] / len(te))
    res["ours tuned"], secs["ours tuned"] = tuned, time.perf_counter() - t
    t = time.perf_counter()
    res["C5.0"] = [100.0 * e / n for e, n, _ in
                   c50_fold_errors(str(C50), R.stem(name), splits, len(data.schema.attributes) + 1)]
    secs["C5.0"] = time.perf_counter() - t
    if not args.no_c50py:
        t = time.perf_counter()
        try:
            res["c50py"] = c50py_errors(data, splits)
        except Exception as e:   # a peer failing on a set is a result to report, not a crash
            print(f"  c50py failed on {name}: {type(e).__name__}: {e}", file=sys.stderr)
            res["c50py"] = None
        secs["c50py"] = time.perf_counter() - t
    return {"name": name, "rows": data.n, "errors": res, "secs": secs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-rows", type=int, default=5000)
    ap.add_argument("--grid", nargs="+", default=["cf=10,25,50", "m=2,5", "s=0,1"])
    ap.add_argument("--tune-folds", type=int, default=5)
    ap.add_argument("--no-c50py", action="store_true")
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args(argv)
    args.grid = parse_grid(args.grid)
    names = args.names
    if not names:
        names = [n for n in R.datasets() if not n.startswith("synth")
                 and load_stem(R.stem(n))[0].n <= args.max_rows]
    learners = ["ours", "ours tuned", "C5.0"] + ([] if args.no_c50py else ["c50py"])
    results = []
    for n in names:
        print(f"{n} ...", file=sys.stderr, flush=True)
        results.append(one(n, args))
        r = results[-1]
        print("  " + ", ".join(f"{k} {np.mean(v):.1f}%" for k, v in r["errors"].items() if v is not None),
              file=sys.stderr, flush=True)
    rows = []
    for r in results:
        rows.append([r["name"], f"{r['rows']:,}"] + [
            "failed" if r["errors"].get(k) is None else f"{np.mean(r['errors'][k]):.1f}" for k in learners])
    complete = [r for r in results if all(r["errors"].get(k) is not None for k in learners)]
    means = {k: np.mean([np.mean(r["errors"][k]) for r in complete]) for k in learners}
    rows.append([f"mean over {len(complete)} sets", ""] + [f"**{means[k]:.2f}**" for k in learners])
    wins = sum(np.mean(r["errors"]["ours tuned"]) <= np.mean(r["errors"]["C5.0"]) for r in complete)
    table = markdown_table(["dataset", "rows", *(f"{k} error %" for k in learners)], rows)
    print(table)
    print(f"\nours tuned at or below C5.0 on {wins} of {len(complete)} sets", file=sys.stderr)
    if args.markdown:
        stamp = run_stamp()
        grid = " ".join(f"{k}={','.join(map(str, v))}" for k, v in args.grid.items())
        put_section(args.markdown, "cv", "\n".join([
            f"# {args.k}-fold cross-validation: ours, ours tuned, C5.0 and c50py on the same folds (issue 32)", "",
            f"Written by `python bench/cv_table.py` on {stamp['date']} at commit {stamp['commit']}: stratified "
            f"folds (seed {args.seed}) of every shared set with at most {args.max_rows:,} cases; each learner "
            "trained and tested on the very same cases. `ours`: default options; `ours tuned`: options "
            f"chosen per fold by {args.tune_folds}-fold cross-validation on that fold's training part over "
            f"`{grid}` (`cv --tune`); `C5.0`: `c5.0 -r` (GPL 2.07); `c50py`: PyPI c50py's "
            "C5RulesClassifier with default parameters. Mean fold error in percent.", "",
            table, "",
            f"Ours tuned is at or below C5.0 on {wins} of {len(complete)} sets.", ""]))
        print(f"wrote the cv section of {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
