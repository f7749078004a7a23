"""Fit times of Cubist-style regression rules beside RuleQuest's Cubist, in the same run (issue 54).

Each fit runs in its own process, so that its CPU seconds (user + sys), wall seconds and peak
resident memory are its own; ours and Cubist's alternate when --repeat > 1.

    python bench/regression_speed.py [--repeat N] [--rows N ...] [--skip-diamonds]

Sets: diamonds (all 53,940 rows of the shared set) and friedman1 made by scikit-learn's
make_friedman1 (noise 1, seed 0) at each --rows size (default 1,000,000). Cubist is the PyPI
package `cubist` (the `bench` extra); without it its rows say so.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r'''
import json, os, sys, time, resource
import numpy as np
import pandas as pd
spec = json.loads(sys.argv[1])
if spec["data"] == "diamonds":
    df = pd.read_csv(os.path.join(spec["shared"], "data-regression", "diamonds", "diamonds.csv"))
    target = "price"
else:
    from sklearn.datasets import make_friedman1
    x, y = make_friedman1(n_samples=spec["rows"], noise=1.0, random_state=0)
    df = pd.DataFrame(x, columns=[f"x{i}" for i in range(x.shape[1])]).assign(y=y)
    target = "y"
before = resource.getrusage(resource.RUSAGE_SELF)
wall = time.perf_counter()
if spec["who"] == "ours":
    from c45rules.learn.regression import fit_regression, regression_frame
    ds, y = regression_frame(df, target)
    rules = len(fit_regression(ds, y).rules)
else:
    from cubist import Cubist
    # the package adds a column named y of its own (reference/cubist/README.md)
    x = df.drop(columns=[target]).rename(columns={"y": "y_"})
    model = Cubist().fit(x, df[target])
    # one row of coefficients per rule (of every committee)
    rules = len(model.coeffs_) if getattr(model, "coeffs_", None) is not None else -1
wall = time.perf_counter() - wall
after = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu_s": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
                  "wall_s": wall, "peak_mb": after.ru_maxrss / 1024, "rules": rules}))
'''


def shared() -> Path:
    return Path(os.environ.get("C45RULES_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def has_cubist() -> bool:
    """Whether the `cubist` package is importable where the fits run: asked in a fresh process
    (as the fits are), since this script's own folder holds a bench/cubist.py of ours that an
    import here would find first (the check said "not installed" when it was)."""
    probe = subprocess.run([sys.executable, "-c", "from cubist import Cubist"], capture_output=True)
    return probe.returncode == 0


def one_fit(who: str, data: str, rows: int) -> dict:
    """One fit in a fresh process: its CPU s, wall s, peak MB and rule count."""
    spec = json.dumps({"who": who, "data": data, "rows": rows, "shared": str(shared())})
    out = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="*", default=[1_000_000])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-diamonds", action="store_true")
    args = ap.parse_args(argv)
    cubist = has_cubist()
    sets = ([] if args.skip_diamonds else [("diamonds", 53_940)]) + [("friedman1", n) for n in args.rows]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; Cubist "
          + ("installed" if cubist else "not installed (pip install -e .[bench])"))
    print("| set | rows | fit | CPU s | wall s | peak MB | rules |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for data, rows in sets:
        for _ in range(args.repeat):
            for who in ("ours", "cubist"):
                if who == "cubist" and not cubist:
                    print(f"| {data} | {rows:,} | Cubist | not installed | | | |", flush=True)
                    continue
                r = one_fit(who, data, rows)
                print(f"| {data} | {rows:,} | {who} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} | {r['peak_mb']:.0f} |"
                      f" {r['rules']} |", flush=True)
    print(f"load average after {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
