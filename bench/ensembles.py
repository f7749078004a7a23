#!/usr/bin/env python3
"""Rules explaining a tree ensemble (c45rules.imports.ensemble.from_ensemble) on the shared binary sets.

Usage: python bench/ensembles.py [--model rf|gb|hgb|xgb|lgbm] [--trees 100] [--depth 6] [--max-rules N] [NAME ...]
Prints a markdown table, one row per set: the forest's test accuracy, the rules' fidelity to
the forest on the test rows (and on the training rows), the number of rules, the rules' test
accuracy against the true labels, and the seconds (wall and CPU) of fitting the forest and of
extracting the rules. Discrete columns are one-hot encoded (0/1 columns named COL=VALUE);
unknown continuous values stay NaN (scikit-learn's forests route them). Test rows: the set's
.test file where it has one, else a seeded third of the data. hypo: negative vs the rest.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as R  # noqa: E402

from c45rules.data import load_stem  # noqa: E402
from c45rules.imports.ensemble import from_ensemble  # noqa: E402

SETS = ("crx", "credit-g", "diabetes", "breast-cancer", "ionosphere", "sonar", "spambase", "hypo")


def frame(ds) -> pd.DataFrame:
    """The dataset's attributes as numbers: continuous as they are (NaN unknown), discrete one-hot."""
    cols: dict[str, np.ndarray] = {}
    for a, c in zip(ds.schema.attributes, ds.columns):
        if a.is_continuous:
            cols[a.name] = np.asarray(c, dtype=float)
        else:
            codes = np.asarray(c)
            for k, v in enumerate(a.values):
                cols[f"{a.name}={v}"] = (codes == k).astype(float)
    return pd.DataFrame(cols)


def load(name: str, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray]:
    """(X_train, y_train, X_test, y_test), labels as text (hypo: negative / other)."""
    train, test = load_stem(R.stem(name), test=True)
    if test is not None:
        both = [(frame(train), train), (frame(test), test)]
        Xtr, Xte = both[0][0], both[1][0].reindex(columns=both[0][0].columns, fill_value=0.0)
        ytr = np.array(train.schema.classes, dtype=object)[train.y]
        yte = np.array(test.schema.classes, dtype=object)[test.y]
    else:
        X, y = frame(train), np.array(train.schema.classes, dtype=object)[train.y]
        order = np.random.default_rng(seed).permutation(len(X))
        cut = 2 * len(X) // 3
        Xtr, Xte = X.iloc[order[:cut]].reset_index(drop=True), X.iloc[order[cut:]].reset_index(drop=True)
        ytr, yte = y[order[:cut]], y[order[cut:]]
    if name == "hypo":
        ytr, yte = (np.where(v == "negative", "negative", "other").astype(object) for v in (ytr, yte))
    return Xtr, ytr, Xte, yte


def timed(f):
    """(result, wall seconds, CPU seconds) of f()."""
    w, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - w, time.process_time() - c


def ensemble(kind: str, trees: int, depth: int):
    """An unfitted ensemble of `kind` (rf, gb, hgb, xgb, lgbm), single-threaded, seeded."""
    from sklearn import ensemble as E
    if kind == "rf":
        return E.RandomForestClassifier(n_estimators=trees, max_depth=depth, random_state=0, n_jobs=1)
    if kind == "gb":
        return E.GradientBoostingClassifier(n_estimators=trees, max_depth=depth, random_state=0)
    if kind == "hgb":
        return E.HistGradientBoostingClassifier(max_iter=trees, max_depth=depth, random_state=0)
    if kind == "lgbm":
        import lightgbm
        return lightgbm.LGBMClassifier(n_estimators=trees, max_depth=depth, num_leaves=2 ** depth, n_jobs=1,
                                       random_state=0, verbose=-1)
    import xgboost
    return xgboost.XGBClassifier(n_estimators=trees, max_depth=depth, n_jobs=1, random_state=0)


def row(name: str, kind: str, trees: int, depth: int, max_rules: int | None) -> list[str]:
    Xtr, ytr, Xte, yte = load(name)
    if kind in ("xgb", "lgbm"):   # XGBoost refuses [ ] < in names, LightGBM rewrites spaces: plain names
        plain = [re.sub(r"[^0-9A-Za-z_]", "_", c) + f"_{i}" for i, c in enumerate(Xtr.columns)]
        Xtr, Xte = Xtr.set_axis(plain, axis=1), Xte.set_axis(plain, axis=1)
    if kind == "gb":   # scikit-learn's GradientBoosting refuses NaN: median imputation
        Xtr, Xte = Xtr.fillna(Xtr.median()), Xte.fillna(Xtr.median())
    if kind == "xgb":  # XGBClassifier wants the labels as 0..K-1
        labels, ytr = np.unique(ytr, return_inverse=True)
        yte = np.searchsorted(labels, yte).astype(str)
    rf, fit_w, fit_c = timed(lambda: ensemble(kind, trees, depth).fit(Xtr, ytr))
    rs, ex_w, ex_c = timed(lambda: from_ensemble(rf, Xtr, max_rules=max_rules))
    forest_te = rf.predict(Xte).astype(str)
    rules_te = rs.predict(Xte)
    fid_te = (rules_te == forest_te).mean()
    fid_tr = (rs.predict(Xtr) == rf.predict(Xtr).astype(str)).mean()
    return [name, f"{len(Xtr)}/{len(Xte)}", f"{(forest_te == yte.astype(str)).mean():.1%}",
            f"{fid_te:.1%}", f"{fid_tr:.1%}", str(len(rs.rules)), f"{(rules_te == yte.astype(str)).mean():.1%}",
            f"{fit_w:.1f} ({fit_c:.1f})", f"{ex_w:.1f} ({ex_c:.1f})"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(SETS))
    ap.add_argument("--model", choices=("rf", "gb", "hgb", "xgb", "lgbm"), default="rf")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--max-rules", type=int, default=None)
    args = ap.parse_args()
    head = ["set", "train/test rows", "forest test acc", "fidelity test", "fidelity train", "rules",
            "rules test acc", "forest fit s wall (cpu)", "extract s wall (cpu)"]
    print(f"{args.model} {args.trees} trees, depth {args.depth}, max_rules {args.max_rules};"
          f" load average {os.getloadavg()[0]:.2f}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    fids, sizes = [], []
    for name in args.names:
        r = row(name, args.model, args.trees, args.depth, args.max_rules)
        fids.append(float(r[3].rstrip("%")))
        sizes.append(int(r[5]))
        print("| " + " | ".join(r) + " |", flush=True)
    print(f"\nmean test fidelity {np.mean(fids):.1f}%, mean rules {np.mean(sizes):.1f};"
          f" load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
