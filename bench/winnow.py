#!/usr/bin/env python3
"""Winnowing on the shared sets: 10-fold CV error with and without --winnow on the same folds (issue 34).

Usage:
  python bench/winnow.py [NAME ...] [-k 10] [--seed 0] [--max-rows 5000] [--markdown FIDELITY.md]

For each dataset (default: every shared set with at most --max-rows training cases, plus the
synthetic set of tests/test_winnow.py with 20 noise columns), on the stratified folds of
`c45rules cv` (--seed): the mean fold error of our rulesets without and with winnowing, the
attributes winnowing screens out of the whole training data, and the mean over the datasets.
With --markdown the table becomes the `winnow` section of that file.
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

from c45rules.learn.crossval import fold_error, fold_splits  # noqa: E402
from c45rules.data.names import load_stem  # noqa: E402
from c45rules.learn.pipeline import fit_dataset  # noqa: E402

NOISY = "noise20 (synthetic)"


def noisy_dataset():
    """The synthetic set of tests/test_winnow.py: 3 deciding attributes and 20 noise ones."""
    sys.path.insert(0, str(BENCH.parent / "tests"))
    from test_winnow import noisy_frame

    from c45rules.learn.pipeline import as_dataset
    return as_dataset(noisy_frame(), "class")[0]


def one(name: str, data, k: int, seed: int) -> dict:
    """Fold errors with and without winnowing, and what winnowing drops from all the data."""
    splits = [(tr, te) for _, _, tr, te in fold_splits(data, k, seed)]
    t = time.perf_counter()
    plain = [100.0 * fold_error(data.subset(tr), data.subset(te), {})[0] / len(te) for tr, te in splits]
    t_plain = time.perf_counter() - t
    t = time.perf_counter()
    winnowed = [100.0 * fold_error(data.subset(tr), data.subset(te), {"winnow": True})[0] / len(te)
                for tr, te in splits]
    t_winnow = time.perf_counter() - t
    dropped = fit_dataset(data, winnow=True)[0].options_dict["winnowed"]
    usable = sum(a.kind != "ignore" for a in data.schema.attributes)
    return {"name": name, "rows": data.n, "plain": float(np.mean(plain)),
            "winnow": float(np.mean(winnowed)), "attributes": usable, "dropped": dropped,
            "secs": (t_plain, t_winnow)}


def main() -> int:
    """Run every dataset, print the table, write it with --markdown."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-rows", type=int, default=5000)
    ap.add_argument("--markdown", type=Path)
    a = ap.parse_args()
    names = a.names or [n for n in R.datasets() if load_stem(R.stem(n))[0].n <= a.max_rows] + [NOISY]
    rows = []
    for name in names:
        print(f"{name} ...", file=sys.stderr, flush=True)
        data = noisy_dataset() if name == NOISY else load_stem(R.stem(name))[0]
        r = one(name, data, a.k, a.seed)
        shown = ", ".join(r["dropped"][:6]) + (f" (+{len(r['dropped']) - 6})" if len(r["dropped"]) > 6 else "")
        rows.append([name, f"{r['rows']:,}", f"{r['plain']:.1f}", f"{r['winnow']:.1f}",
                     f"{r['attributes'] - len(r['dropped'])} / {r['attributes']}", shown or "-",
                     f"{r['secs'][0]:.1f} / {r['secs'][1]:.1f}"])
        print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    means = [np.mean([float(r[i]) for r in rows]) for i in (2, 3)]
    rows.append(["**mean**", "", f"**{means[0]:.2f}**", f"**{means[1]:.2f}**", "", "", ""])
    table = markdown_table(["dataset", "cases", "error % plain", "error % --winnow", "attributes kept",
                            "winnowed (whole training data)", "CV s plain / winnow"], rows)
    print(table)
    if a.markdown:
        stamp = run_stamp()
        put_section(a.markdown, "winnow", (
            f"# Winnowing (--winnow) on the shared sets\n\n"
            f"Written by `python bench/winnow.py --markdown FIDELITY.md` at commit {stamp['commit']}, "
            f"{stamp['date']}: {a.k}-fold stratified cross-validation (seed {a.seed}, the folds of "
            f"`c45rules cv`), our default rulesets without and with winnowing on the same folds; "
            f"the winnowed attributes are those screened out of the whole training data.\n\n{table}\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
