"""Cubist-style regression rules on the nine shared regression sets, beside RuleQuest's Cubist.

For each set: the fixed 10 folds (NAME.folds), mean RMSE and MAE over the folds, mean rule
count, next to the reference results (reference/cubist/results.json) for the default model
and for 10 committees; then a timed fit of all rows (CPU and wall seconds, peak memory).

    python bench/cubist.py [--committees N] [--neighbors K] [--full-fit] [NAME ...]

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


def run_folds(name: str, **options) -> dict:
    """Mean RMSE, MAE and rule count over the fixed folds of one set."""
    from c45rules.learn.regression import fit_regression, read_regression
    stem = shared() / "data-regression" / name / name
    ds, y = read_regression(stem)
    folds = np.loadtxt(f"{stem}.folds", dtype=int)
    rmse, mae, rules = [], [], []
    for k in range(10):
        test = folds == k
        model = fit_regression(subset(ds, ~test), y[~test], **options)
        pred = model.predict(subset(ds, test))
        err = pred - y[test]
        rmse.append(float(np.sqrt(np.mean(err ** 2))))
        mae.append(float(np.mean(np.abs(err))))
        rules.append(len(model.rules))
    return {"rmse": float(np.mean(rmse)), "mae": float(np.mean(mae)), "rules": float(np.mean(rules))}


def full_fit(name: str, **options) -> dict:
    """CPU and wall seconds of one fit on all rows, and the process's peak memory after it."""
    from c45rules.learn.regression import fit_regression, read_regression
    ds, y = read_regression(shared() / "data-regression" / name / name)
    cpu, wall = time.process_time(), time.perf_counter()
    model = fit_regression(ds, y, **options)
    return {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
            "rules": len(model.rules), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(SETS))
    ap.add_argument("--committees", type=int, default=1)
    ap.add_argument("--neighbors", type=int, default=0)
    ap.add_argument("--full-fit", action="store_true", help="also time one fit on all rows")
    args = ap.parse_args(argv)
    ref = reference()
    method = {(1, 0): "cubist_default", (10, 0): "cubist_c10", (10, 5): "cubist_c10_n5"}.get(
        (args.committees, args.neighbors))
    print(f"load average {os.getloadavg()[0]:.2f}; committees {args.committees}, neighbors {args.neighbors}")
    print(f"| dataset | RMSE ours | RMSE Cubist ({method}) | ratio | MAE ours | MAE Cubist | rules ours | rules Cubist |"
          + (" fit CPU s | fit wall s | peak MB |" if args.full_fit else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if args.full_fit else ""))
    better = within = 0
    for name in args.names:
        got = run_folds(name, committees=args.committees, neighbors=args.neighbors)
        r = ref.get((name, method), {})
        cub = r.get("mean_rmse", float("nan"))
        ratio = got["rmse"] / cub
        better += ratio <= 1
        within += ratio <= 1.05
        line = (f"| {name} | {got['rmse']:.4g} | {cub:.4g} | {ratio:.3f} | {got['mae']:.4g} |"
                f" {r.get('mean_mae', float('nan')):.4g} | {got['rules']:.1f} | {r.get('mean_size', float('nan')):.1f} |")
        if args.full_fit:
            f = full_fit(name, committees=args.committees, neighbors=args.neighbors)
            line += f" {f['cpu_s']:.2f} | {f['wall_s']:.2f} | {f['peak_mb']:.0f} |"
        print(line, flush=True)
    print(f"RMSE <= Cubist on {better} of {len(args.names)}; within 5% on {within} of {len(args.names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
