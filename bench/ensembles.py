#!/usr/bin/env python3
"""Rules explaining a tree ensemble (c45rules.imports.ensemble.from_ensemble) on the shared binary sets.

Usage: python bench/ensembles.py [--model rf|gb|hgb|xgb|lgbm] [--trees 100] [--depth 6] [--max-rules N]
                                 [--synthetic N] [--anchors] [--multi] [--sample N] [--seed N]
                                 [--seeds S,S,...] [--medians] [NAME ...]
Prints a markdown table, one row per set: the forest's test accuracy, the rules' fidelity to
the forest on the test rows (and on the training rows), the number of rules, the rules' test
accuracy against the true labels, and the seconds (wall and CPU) of fitting the forest and of
extracting the rules (--synthetic N, --validate N: from_ensemble's options; left out, its defaults). Discrete columns are
one-hot encoded (0/1 columns named COL=VALUE);
unknown continuous values stay NaN (scikit-learn's forests route them), or with --medians are filled
with the training medians (the anchors' protocol, below). --seed N: the seed of from_ensemble's
made rows; --seeds 0,1,2: a table per seed, then the means over the seeds. Test rows: the set's
.test file where it has one, else a seeded third of the data. hypo: negative vs the rest.

--anchors: the same ensembles explained in the same run by the anchors of issue 53: TE2Rules
(binary RF/XGBoost only; a fresh process per run, stopped after --timeout seconds), imodels'
RuleFit, BoostedRules and SkopeRules (binary only), and a decision tree distilled on the
ensemble's training decisions (min_samples_leaf 5). Unknown values are imputed with the
training medians for every method (the anchors refuse NaN), so all explain one ensemble.
Prints, per set, each method's test fidelity and size (rules; RuleFit: terms of its sum;
tree: leaves), then each method's mean fidelity, size, test accuracy and failures.
--multi: the multi-class sets (hypo, segment, iris, income, letter), ours vs the distilled
tree; --sample N keeps N training rows (seeded) of a larger set (said in its row).
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
MULTI = ("hypo", "segment", "iris", "income", "letter")
TIMEOUT = 120.0


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


def load(name: str, seed: int = 0, multi: bool = False) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray]:
    """(X_train, y_train, X_test, y_test), labels as text (hypo: negative / other unless `multi`)."""
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
    if name == "hypo" and not multi:
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


def row(name: str, kind: str, trees: int, depth: int, max_rules: int | None, synthetic: int | None = None,
        validate: int | None = None, seed: int = 0, medians: bool = False) -> list[str]:
    """One set's row of the rows table (module docstring); `seed`: from_ensemble's made rows';
    `medians`: unknown values filled with the training medians (the anchors' protocol)."""
    Xtr, ytr, Xte, yte = load(name)
    if kind in ("xgb", "lgbm"):   # XGBoost refuses [ ] < in names, LightGBM rewrites spaces: plain names
        plain = [re.sub(r"[^0-9A-Za-z_]", "_", c) + f"_{i}" for i, c in enumerate(Xtr.columns)]
        Xtr, Xte = Xtr.set_axis(plain, axis=1), Xte.set_axis(plain, axis=1)
    if kind == "gb" or medians:   # scikit-learn's GradientBoosting refuses NaN: median imputation
        med = Xtr.median().fillna(0.0)   # a column unknown throughout: 0, as compared() fills it
        Xtr, Xte = Xtr.fillna(med), Xte.fillna(med)
    if kind == "xgb":  # XGBClassifier wants the labels as 0..K-1
        labels, ytr = np.unique(ytr, return_inverse=True)
        yte = np.searchsorted(labels, yte).astype(str)
    rf, fit_w, fit_c = timed(lambda: ensemble(kind, trees, depth).fit(Xtr, ytr))
    rs, ex_w, ex_c = timed(lambda: from_ensemble(rf, Xtr, max_rules=max_rules, synthetic=synthetic,
                                                 validate=validate, seed=seed))
    forest_te = rf.predict(Xte).astype(str)
    rules_te = rs.predict(Xte)
    fid_te = (rules_te == forest_te).mean()
    fid_tr = (rs.predict(Xtr) == rf.predict(Xtr).astype(str)).mean()
    return [name, f"{len(Xtr)}/{len(Xte)}", f"{(forest_te == yte.astype(str)).mean():.1%}",
            f"{fid_te:.1%}", f"{fid_tr:.1%}", str(len(rs.rules)), f"{(rules_te == yte.astype(str)).mean():.1%}",
            f"{fit_w:.1f} ({fit_c:.1f})", f"{ex_w:.1f} ({ex_c:.1f})"]


def _te2rules(model, Xtr: pd.DataFrame, decided: np.ndarray, Xte: pd.DataFrame, out) -> None:
    """TE2Rules on the ensemble (run in its own process): (test predictions, rules) into `out`."""
    try:
        from te2rules.explainer import ModelExplainer
        explainer = ModelExplainer(model=model, feature_names=list(Xtr.columns))
        rules = explainer.explain(X=Xtr.to_numpy(), y=decided.tolist())
        out.put((np.asarray(explainer.predict(Xte.to_numpy())), len(rules)))
    except Exception as e:   # an anchor's failure is reported in its row, not raised
        out.put((None, f"{type(e).__name__}: {str(e).splitlines()[0][:60] if str(e) else ''}"))


def te2rules(model, Xtr: pd.DataFrame, decided: np.ndarray, Xte: pd.DataFrame, timeout: float):
    """(test predictions 0/1 or None, rules or why not) of TE2Rules, stopped after `timeout` s."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    proc = ctx.Process(target=_te2rules, args=(model, Xtr, decided, Xte, out))
    proc.start()
    try:
        got = out.get(timeout=timeout)
    except Exception:   # queue.Empty: no answer in time
        got = (None, f"timeout {timeout:.0f} s")
    proc.terminate()
    proc.join()
    return got


def anchor_rows(model, Xtr: pd.DataFrame, Xte: pd.DataFrame, yte: np.ndarray, binary: bool, timeout: float):
    """[(method, test predictions as text or None, size or why not, seconds)] of every anchor."""
    from sklearn.tree import DecisionTreeClassifier
    decided = model.predict(Xtr).astype(str)
    out = []
    tree, w, c = timed(lambda: DecisionTreeClassifier(min_samples_leaf=5, random_state=0).fit(Xtr, decided))
    out.append(("distilled tree", tree.predict(Xte).astype(str), int(tree.get_n_leaves()), w))
    if not binary:
        return out
    positive = str(model.classes_[1])
    ones = (decided == positive).astype(int)
    as_text = np.array([str(model.classes_[0]), positive], dtype=object)
    w0 = time.perf_counter()
    pred, size = te2rules(model, Xtr, ones, Xte, timeout)
    out.append(("TE2Rules", None if pred is None else as_text[np.asarray(pred, dtype=int)], size,
                time.perf_counter() - w0))
    try:
        import imodels
    except ImportError as e:
        return out + [(m, None, f"cannot import imodels: {e}", 0.0) for m in ("RuleFit", "BoostedRules", "SkopeRules")]
    for name, make in (("RuleFit", lambda: imodels.RuleFitClassifier(random_state=0)),
                       ("BoostedRules", lambda: imodels.BoostedRulesClassifier(n_estimators=10)),
                       ("SkopeRules", lambda: imodels.SkopeRulesClassifier(random_state=0))):
        try:
            m, w, c = timed(lambda: make().fit(Xtr.to_numpy(), ones))
            pred = np.asarray(m.predict(Xte.to_numpy())).astype(int)
            out.append((name, as_text[pred], int(round(getattr(m, "complexity_", -1))), w))
        except Exception as e:   # an anchor's failure is reported in its row, not raised
            out.append((name, None, f"{type(e).__name__}: {str(e)[:60]}", 0.0))
    return out


def compared(name: str, kind: str, trees: int, depth: int, synthetic: int | None, timeout: float, multi: bool,
             sample: int | None, validate: int | None = None, seed: int = 0) -> tuple[list[str], list[tuple]]:
    """One set's row of the anchors table, and each method's (name, fidelity, size, accuracy, failed)."""
    Xtr, ytr, Xte, yte = load(name, multi=multi)
    note = ""
    if sample and len(Xtr) > sample:
        keep = np.sort(np.random.default_rng(0).permutation(len(Xtr))[:sample])
        Xtr, ytr, note = Xtr.iloc[keep].reset_index(drop=True), ytr[keep], f" (sample of {sample})"
    # TE2Rules takes only plain names; the anchors refuse NaN: training medians, for every method
    plain = [re.sub(r"[^0-9A-Za-z_]", "_", c) + f"_{i}" for i, c in enumerate(Xtr.columns)]
    if kind == "xgb":   # TE2Rules reads XGBoost's feature names as f0, f1, ...
        plain = [f"f{i}" for i in range(len(plain))]
    med = Xtr.median().fillna(0.0)   # a column unknown throughout: 0
    Xtr, Xte = (X.fillna(med).set_axis(plain, axis=1) for X in (Xtr, Xte))
    labels, codes = np.unique(ytr, return_inverse=True)
    yte = yte.astype(str)
    model, fit_w, fit_c = timed(lambda: ensemble(kind, trees, depth).fit(Xtr, codes))
    theirs = labels[model.predict(Xte).astype(int)].astype(str)
    rs, ex_w, ex_c = timed(lambda: from_ensemble(model, Xtr, synthetic=synthetic, validate=validate, seed=seed))
    index = {str(i): str(c) for i, c in enumerate(labels)}
    methods = [("ours", np.array([index[v] for v in rs.predict(Xte)], dtype=object), len(rs.rules), ex_w)]
    for method, pred, size, secs in anchor_rows(model, Xtr, Xte, yte, len(labels) == 2 and kind in ("rf", "xgb"),
                                                timeout):
        methods.append((method, None if pred is None else np.array([index[v] for v in pred], dtype=object),
                        size, secs))
    cells = [name + note, f"{len(Xtr)}/{len(Xte)}", f"{(theirs == yte).mean():.1%}", f"{fit_w:.1f} ({fit_c:.1f})",
             f"{ex_w:.1f} ({ex_c:.1f})"]
    scores = []
    for method, pred, size, secs in methods:
        if pred is None:
            cells.append(f"- ({size})")
            scores.append((method, None, None, None, True))
            continue
        fid, acc = float((pred == theirs).mean()), float((pred == yte).mean())
        cells.append(f"{fid:.1%} ({size})")
        scores.append((method, fid, size, acc, False))
    return cells, scores


def anchors_table(args: argparse.Namespace) -> None:
    """The anchors table (module docstring), one row per set, then each method's means."""
    names = args.names or list(MULTI if args.multi else SETS)
    methods = ["ours", "distilled tree"] + ([] if args.multi else ["TE2Rules", "RuleFit", "BoostedRules", "SkopeRules"])
    head = ["set", "train/test rows", "ensemble test acc", "ensemble fit s wall (cpu)", "ours extract s wall (cpu)"]
    head += [f"{m} fidelity (size)" for m in methods]
    print(f"{args.model} {args.trees} trees, depth {args.depth}, synthetic {args.synthetic}, validate"
          f" {args.validate}, seed {args.seed}, TE2Rules timeout"
          f" {args.timeout:.0f} s; load average {os.getloadavg()[0]:.2f}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    import sklearn.ensemble  # noqa: F401  (imported before the first fit is timed)
    every: dict[str, list[tuple]] = {m: [] for m in methods}
    for name in names:
        cells, scores = compared(name, args.model, args.trees, args.depth, args.synthetic, args.timeout, args.multi,
                                 args.sample if name in ("income", "letter") else None, args.validate, args.seed)
        print("| " + " | ".join(cells + ["-"] * (len(head) - len(cells))) + " |", flush=True)
        for s in scores:
            every.setdefault(s[0], []).append(s)
    print("\n| method | mean test fidelity | mean size | mean test accuracy | failed or timed out |")
    print("|---|---:|---:|---:|---:|")
    for m, got in every.items():
        ok = [g for g in got if not g[4]]
        if not ok:
            print(f"| {m} | - | - | - | {len(got)} of {len(got)} |")
            continue
        print(f"| {m} | {np.mean([g[1] for g in ok]):.1%} | {np.mean([g[2] for g in ok]):.1f} |"
              f" {np.mean([g[3] for g in ok]):.1%} | {len(got) - len(ok)} of {len(got)} |")
    print(f"\nload average {os.getloadavg()[0]:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--model", choices=("rf", "gb", "hgb", "xgb", "lgbm"), default="rf")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--max-rules", type=int, default=None)
    # None: from_ensemble's own default (4 and 8 for two classes, 0 for more)
    ap.add_argument("--synthetic", type=int, default=None)
    ap.add_argument("--validate", type=int, default=None)
    ap.add_argument("--anchors", action="store_true")
    ap.add_argument("--multi", action="store_true")
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=TIMEOUT)
    # the seed of from_ensemble's made rows (--anchors / --multi tables): how stable a figure is
    ap.add_argument("--seed", type=int, default=0)
    # the rows table: several seeds of the made rows (a table each, then the mean over them),
    # and the anchors' protocol (unknown values filled with the training medians)
    ap.add_argument("--seeds", type=lambda v: [int(s) for s in v.split(",")], default=None, metavar="S,S,...")
    ap.add_argument("--medians", action="store_true")
    args = ap.parse_args()
    if args.anchors or args.multi:
        anchors_table(args)
        return 0
    args.names = args.names or list(SETS)
    head = ["set", "train/test rows", "forest test acc", "fidelity test", "fidelity train", "rules",
            "rules test acc", "forest fit s wall (cpu)", "extract s wall (cpu)"]
    means = []
    for seed in args.seeds or [args.seed]:
        print(f"{args.model} {args.trees} trees, depth {args.depth}, max_rules {args.max_rules}, synthetic"
              f" {args.synthetic}, validate {args.validate}, seed {seed},"
              f" unknown values {'filled with medians' if args.medians else 'kept'};"
              f" load average {os.getloadavg()[0]:.2f}\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        got = []
        for name in args.names:
            r = row(name, args.model, args.trees, args.depth, args.max_rules, args.synthetic, args.validate,
                    seed, args.medians)
            got.append([float(r[3].rstrip("%")), int(r[5]), float(r[6].rstrip("%"))])
            print("| " + " | ".join(r) + " |", flush=True)
        means.append(np.mean(got, axis=0))
        print(f"\nseed {seed}: mean test fidelity {means[-1][0]:.1f}%, mean rules {means[-1][1]:.1f}, mean rules"
              f" test accuracy {means[-1][2]:.1f}%; load average {os.getloadavg()[0]:.2f}\n")
    if len(means) > 1:
        m = np.mean(means, axis=0)
        print(f"over seeds {','.join(map(str, args.seeds))}: mean test fidelity {m[0]:.2f}%, mean rules {m[1]:.1f},"
              f" mean rules test accuracy {m[2]:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
