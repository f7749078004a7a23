"""Cubist-style regression rules on the nine shared regression sets, beside RuleQuest's Cubist.

For each set: the fixed 10 folds (NAME.folds), mean RMSE and MAE over the folds, mean rule
count, next to the reference results (reference/cubist/results.json) for the default model
and for 10 committees; then a timed fit of all rows (CPU and wall seconds, peak memory).

    python bench/cubist.py [--committees 1 10] [--neighbors K] [--folds 0,1] [--full-fit]
                           [--markdown OUT.md] [NAME ...]

Needs C45RULES_SHARED (or ../shared) for the data and the reference.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

SETS = ("airquality", "cpus", "auto", "diabetes", "boston", "concrete", "friedman1", "ames", "diamonds")


def shared() -> Path:
    return Path(os.environ.get("C45RULES_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def reference() -> dict[tuple[str, str], dict]:
    doc = json.loads((shared() / "reference" / "cubist" / "results.json").read_text())
    return {(r["dataset"], r["method"]): r for r in doc["results"]}


def subset(ds, rows):
    from c45rules.data.schema import Dataset
    return Dataset(ds.schema, [c[rows] for c in ds.columns], None, ds.source)


def run_folds(name: str, folds_wanted: list[int] | None = None, **options) -> dict:
    """Per-fold RMSE, MAE and rule count over the fixed folds of one set (all ten, or those
    in `folds_wanted`), with their means."""
    from c45rules.learn.regression import fit_regression, read_regression
    stem = shared() / "data-regression" / name / name
    ds, y = read_regression(stem)
    folds = np.loadtxt(f"{stem}.folds", dtype=int)
    chosen = list(range(10)) if folds_wanted is None else folds_wanted
    rmse, mae, rules = [], [], []
    for k in chosen:
        test = folds == k
        model = fit_regression(subset(ds, ~test), y[~test], **options)
        pred = model.predict(subset(ds, test))
        err = pred - y[test]
        rmse.append(float(np.sqrt(np.mean(err ** 2))))
        mae.append(float(np.mean(np.abs(err))))
        rules.append(len(model.rules))
    return {"folds": chosen, "rmse": float(np.mean(rmse)), "mae": float(np.mean(mae)),
            "rules": float(np.mean(rules))}


def reference_on(r: dict, folds: list[int]) -> dict:
    """Cubist's mean RMSE, MAE and rule count on the same folds as ours."""
    by = {f["fold"]: f for f in r.get("folds", [])}
    if not all(k in by for k in folds):
        return {"rmse": float("nan"), "mae": float("nan"), "rules": float("nan")}
    return {key: float(np.mean([by[k][field] for k in folds]))
            for key, field in (("rmse", "rmse"), ("mae", "mae"), ("rules", "size"))}


def full_fit(name: str, **options) -> dict:
    """CPU and wall seconds of one fit on all rows, and the process's peak memory after it."""
    from c45rules.learn.regression import fit_regression, read_regression
    ds, y = read_regression(shared() / "data-regression" / name / name)
    cpu, wall = time.process_time(), time.perf_counter()
    model = fit_regression(ds, y, **options)
    return {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
            "rules": len(model.rules), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


METHODS = {(1, 0): "cubist_default", (10, 0): "cubist_c10", (10, 5): "cubist_c10_n5"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(SETS))
    ap.add_argument("--committees", type=int, nargs="+", default=[1],
                    help="one run per count, side by side (e.g. --committees 1 10)")
    ap.add_argument("--neighbors", type=int, default=0)
    ap.add_argument("--folds", help="only these folds, e.g. 0,1,2 (Cubist's figures on the same folds)")
    ap.add_argument("--full-fit", action="store_true", help="also time one fit on all rows")
    ap.add_argument("--markdown", help="also write the table to this file (for FIDELITY.md)")
    args = ap.parse_args(argv)
    ref = reference()
    chosen = [int(k) for k in args.folds.split(",")] if args.folds else None
    head = f"load average {os.getloadavg()[0]:.2f}; neighbors {args.neighbors}" + (
        f"; folds {args.folds}" if args.folds else "; all 10 folds")
    cells = ["dataset"]
    for c in args.committees:
        cells += [f"RMSE ours c{c}", f"RMSE Cubist c{c}", "ratio", f"rules ours c{c}", f"rules Cubist c{c}"]
    cells += ["fit CPU s", "fit wall s", "peak MB"] if args.full_fit else []
    lines = [head, "", "| " + " | ".join(cells) + " |", "|---|" + "---:|" * (len(cells) - 1)]
    print("\n".join(lines), flush=True)
    tally = {c: [0, 0] for c in args.committees}
    for name in args.names:
        row = [name]
        for c in args.committees:
            got = run_folds(name, chosen, committees=c, neighbors=args.neighbors)
            cub = reference_on(ref.get((name, METHODS.get((c, args.neighbors), "")), {}), got["folds"])
            ratio = got["rmse"] / cub["rmse"]
            tally[c][0] += ratio <= 1
            tally[c][1] += ratio <= 1.05
            row += [f"{got['rmse']:.4g}", f"{cub['rmse']:.4g}", f"{ratio:.3f}", f"{got['rules']:.1f}",
                    f"{cub['rules']:.1f}"]
        if args.full_fit:
            f = full_fit(name, committees=args.committees[0], neighbors=args.neighbors)
            row += [f"{f['cpu_s']:.2f}", f"{f['wall_s']:.2f}", f"{f['peak_mb']:.0f}"]
        lines.append("| " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    lines.append("")
    for c, (better, within) in tally.items():
        lines.append(f"- {c} committee(s): RMSE <= Cubist on {better} of {len(args.names)}; within 5% on "
                     f"{within} of {len(args.names)}")
    print("\n".join(lines[-len(tally):]))
    if args.markdown:
        Path(args.markdown).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
