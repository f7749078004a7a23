#!/usr/bin/env python3
"""Weighted fits against unweighted ones, stage by stage (the weighted path's speed, for boosting).

Usage:
  python bench/weighted.py [--datasets synth_10k,synth_100k] [--weights none,uniform,boosted,whole]
                           [--before COMMIT] [--timeout 300] [--markdown BENCHMARKS.md]

Each (dataset, weights) runs in a fresh process doing what `rules STEM --json` does
(bench/stages.py's child: read, grow, prune, generalise, select, order, evaluate), the
training cases weighted by one of these draws (seeded, so every run fits the same model):

- none: no weights (the unweighted fit every other row is compared with);
- uniform: each case's weight uniform in (0.5, 2);
- boosted: 1 for most cases, uniform in (2, 10) for 5% of them (as after a boosting trial);
- whole: whole weights 1..3 (exact sums: the same model as the cases repeated).

With --before COMMIT the same runs are made with the package at that commit too (a
temporary git worktree, its C modules built), each cut off at --timeout seconds. With
--markdown the table becomes the `weighted` section of that file.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

KINDS = ("none", "uniform", "boosted", "whole")
STAGES = ("grow", "prune", "generalise", "select", "order", "evaluate")


def draw_weights(kind: str, n: int) -> np.ndarray | None:
    """The case weights of one kind (see the docstring) for n cases; None for 'none'."""
    rng = np.random.default_rng(20261204)
    if kind == "none":
        return None
    if kind == "uniform":
        return rng.uniform(0.5, 2.0, n)
    if kind == "boosted":
        return np.where(rng.random(n) < 0.05, rng.uniform(2.0, 10.0, n), 1.0)
    if kind == "whole":
        return rng.integers(1, 4, n).astype(np.float64)
    raise SystemExit(f"unknown weights {kind!r} (known: {', '.join(KINDS)})")


def run_all(datasets: list[str], kinds: list[str], root: Path, timeout: float | None) -> dict:
    """{(dataset, kind): the child's result, or None past the timeout}, the package from `root`."""
    from common import dataset_stem
    from stages import measure
    out = {}
    for name in datasets:
        for kind in kinds:
            print(f"{name} {kind} ({root.name}) ...", file=sys.stderr, flush=True)
            try:
                out[name, kind] = measure(dataset_stem(name), None if kind == "none" else kind, root, timeout)
            except subprocess.TimeoutExpired:
                out[name, kind] = None
    return out


def table(now: dict, before: dict | None, timeout: float | None) -> str:
    """One row per (dataset, weights): candidates, rules, stage seconds, the fit (grow to order),
    its ratio to the unweighted fit, and the fit before."""
    from common import markdown_table
    head = ["dataset", "weights", "candidates", "rules", *[f"{s} s" for s in STAGES], "fit s", "x unweighted"]
    if before is not None:
        head += ["fit s before", "speed-up"]
    fit = lambda r: sum(r["spent"][s] for s in STAGES if s != "evaluate")  # noqa: E731
    rows = []
    for (name, kind), r in now.items():
        plain = now.get((name, "none"))
        row = [name, kind, f"{r['candidates']:,}", f"{r['rules']:,}", *[f"{r['spent'][s]:.2f}" for s in STAGES],
               f"{fit(r):.2f}", f"{fit(r) / fit(plain):.1f}" if plain else ""]
        if before is not None:
            b = before.get((name, kind))
            row += [f"> {timeout:.0f}" if b is None else f"{fit(b):.2f}",
                    f"> {timeout / fit(r):.0f}" if b is None else f"{fit(b) / fit(r):.1f}"]
        rows.append(row)
    return markdown_table(head, rows)


def main() -> int:
    """Measure now (and before), print the table (and write it with --markdown)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="synth_10k,synth_100k")
    ap.add_argument("--weights", default=",".join(KINDS))
    ap.add_argument("--before", help="a commit to measure too (the package as it was there)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a run before is given")
    ap.add_argument("--markdown", type=Path)
    a = ap.parse_args()
    datasets, kinds = a.datasets.split(","), a.weights.split(",")
    before = None
    if a.before:
        with tempfile.TemporaryDirectory() as tmp:
            old = Path(tmp) / "before"
            subprocess.run(["git", "-C", str(BENCH.parent), "worktree", "add", "--detach", "-q", str(old), a.before],
                           check=True)
            try:
                subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=old, check=True,
                               capture_output=True)
                before = run_all(datasets, kinds, old, a.timeout)
            finally:
                subprocess.run(["git", "-C", str(BENCH.parent), "worktree", "remove", "--force", str(old)], check=True)
    now = run_all(datasets, kinds, BENCH.parent, None)
    text = table(now, before, a.timeout)
    print(text)
    if a.markdown:
        from common import put_section, written_by
        command = f"python bench/weighted.py{' --before ' + a.before if a.before else ''} --markdown BENCHMARKS.md"
        body = (f"## Weighted fits (case weights, the boosting trials' path)\n\n"
                f"{written_by(command)} Stage seconds as bench/stages.py "
                f"times them (wall, one process per row); fit = grow to order; the weights as the script's "
                f"docstring draws them. Weighted trees are larger than the unweighted one (more candidates), "
                f"so a weighted fit does more work than the unweighted fit it is compared with.\n\n{text}\n")
        put_section(a.markdown, "weighted", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
