#!/usr/bin/env python3
"""10-fold cross-validation of the quest grower against the cart grower on the shared sets.

Usage:
  python bench/quest_cv.py [NAME ...] [-k 10] [--seed 0] [--max-rows 5000] [--markdown FIDELITY.md]

For each dataset (default: every shared set with at most --max-rows training cases), on the
stratified folds of `c45rules cv` (c45rules/learn/crossval.py, --seed), both growers with their
defaults learn on the same training cases: the tree's test errors (each tree classifying as
its grower does, surrogates included), the C4.5-style rules' test errors, the tree's leaves
and the seconds to fit both. Prints the mean fold error rates; with --markdown writes the table
as the `quest-cv` section of that file (the rest of the file is kept).
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
from common import markdown_table, put_section  # noqa: E402

GROWERS = ("quest", "cart")


def datasets(max_rows: int) -> list[str]:
    """The shared sets with at most `max_rows` training cases (synthetic sets left out)."""
    out = []
    for d in sorted(p for p in R.DATA.iterdir() if (p / f"{p.name}.names").exists()):
        if d.name.startswith("synth"):
            continue
        with open(d / f"{d.name}.data") as f:
            rows = sum(1 for line in f if line.strip())
        if rows <= max_rows:
            out.append(d.name)
    return out


def cross_validate(name: str, k: int, seed: int) -> dict[str, dict[str, float]]:
    """Per grower: mean tree error %, mean rules error %, mean leaves, seconds (all folds)."""
    from c45rules.learn.crossval import fold_splits
    from c45rules.data import load_stem
    from c45rules.learn.pipeline import fit_dataset
    from c45rules.rules.evaluate import evaluate
    from c45rules.tree.growers import tree_classes
    data, _ = load_stem(str(R.DATA / name / name))
    out = {}
    for grower in GROWERS:
        tree_err, rule_err, leaves, seconds = [], [], [], 0.0
        for _, _, train_rows, test_rows in fold_splits(data, k, seed):
            train, test = data.subset(train_rows), data.subset(test_rows)
            t = time.perf_counter()
            rs, tree, _ = fit_dataset(train, grower=grower)
            seconds += time.perf_counter() - t
            tree_err.append(100.0 * float((tree_classes(tree, test) != test.y).mean()))
            rule_err.append(100.0 * evaluate(rs, test).errors / test.n)
            leaves.append(tree.pruned.leaves())
        out[grower] = {"tree": float(np.mean(tree_err)), "rules": float(np.mean(rule_err)),
                       "leaves": float(np.mean(leaves)), "seconds": seconds}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-rows", type=int, default=5000)
    p.add_argument("--markdown", type=Path)
    args = p.parse_args()
    names = args.names or datasets(args.max_rows)
    rows, means = [], {g: [] for g in GROWERS}
    for name in names:
        r = cross_validate(name, args.k, args.seed)
        rows.append([name] + [f"{r[g]['tree']:.1f}" for g in GROWERS] + [f"{r[g]['rules']:.1f}" for g in GROWERS]
                    + [f"{r[g]['leaves']:.1f}" for g in GROWERS] + [f"{r[g]['seconds']:.1f}" for g in GROWERS])
        for g in GROWERS:
            means[g].append(r[g])
        print(" | ".join(rows[-1]), flush=True)
    rows.append(["mean"] + [f"{np.mean([m['tree'] for m in means[g]]):.1f}" for g in GROWERS]
                + [f"{np.mean([m['rules'] for m in means[g]]):.1f}" for g in GROWERS]
                + [f"{np.mean([m['leaves'] for m in means[g]]):.1f}" for g in GROWERS]
                + [f"{sum(m['seconds'] for m in means[g]):.1f}" for g in GROWERS])
    header = (["dataset", "tree err % quest", "tree err % cart", "rules err % quest", "rules err % cart",
               "leaves quest", "leaves cart", "fit s quest", "fit s cart"])
    text = (f"{args.k}-fold stratified cross-validation (seed {args.seed}), both growers at their defaults"
            f" (quest: alpha 0.05, min node 10, 10-fold pruning with the 1-SE rule; cart: cp 0.01,"
            f" minsplit 20).\n\n" + markdown_table(header, rows) + "\n")
    print(text)
    if args.markdown:
        put_section(args.markdown, "quest-cv", text)


if __name__ == "__main__":
    main()
