#!/usr/bin/env python3
"""`c45rules predict` of this tree against another (a commit's source with its modules built):
the same output bytes, messages and exit status on every shared set's files (issue 52).

Usage:
  python bench/predict_identical.py --base DIR [--work DIR] [--sets crx,hypo,...] [--big FILE MODEL]

For each shared dataset (bench/reference.py's DATA): a model fitted once by the base tree on
its C4.5 stem (crx and hypo also boosted, 10 trials); then every CSV, .test and .data file of
the set is scored by both trees, as CSV and as Parquet (each plain, and with --confidence
--chunksize 97; the last CSV also written as Parquet, of text columns and typed, in). `--big FILE MODEL`
adds one large file (e.g. the 1M-row synth CSV). Prints each difference; exit status 1 if any.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import reference as R  # noqa: E402

VARIANTS = ([], ["--confidence", "--chunksize", "97"])
BOOSTED = ("crx", "hypo")


def c45rules(tree: Path, *args: str | os.PathLike) -> subprocess.CompletedProcess:
    """`c45rules ARGS` run from the source tree `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    # run in the tree: `python -m` puts the working directory before PYTHONPATH, so run from
    # another checkout both sides would import that one
    return subprocess.run([sys.executable, "-m", "c45rules", *map(str, args)], capture_output=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=1800, cwd=tree)


def inputs(name: str, work: Path) -> list[Path]:
    """The set's CSV, .test and .data files, and its last CSV as Parquet: of text columns
    written by pandas, and typed as pyarrow infers them, written by pyarrow (no pandas
    metadata: predict's direct way from the first batch)."""
    folder = R.DATA / name
    found = sorted(p for p in folder.iterdir() if p.suffix in (".csv", ".test", ".data"))
    csvs = [p for p in found if p.suffix == ".csv"]
    if csvs:
        import pandas as pd
        import pyarrow.csv as pacsv
        import pyarrow.parquet as papq
        pq, typed = work / f"{name}.parquet", work / f"{name}.typed.parquet"
        if not pq.exists():
            pd.read_csv(csvs[-1], dtype=str, keep_default_na=False).to_parquet(pq)
        if not typed.exists():
            papq.write_table(pacsv.read_csv(csvs[-1]), typed)
        found += [pq, typed]
    return found


def compare(base: Path, new: Path, model: Path, data: Path, args: list[str], out: Path) -> str | None:
    """None when both trees give the same bytes, messages and status; else what differs."""
    got = []
    for tree, tag in ((base, "base"), (new, "new")):
        target = out.with_name(f"{out.stem}.{tag}{out.suffix}")
        target.unlink(missing_ok=True)
        p = c45rules(tree, "predict", model, data, "-o", target, *args)
        text = p.stdout.replace(str(target).encode(), b"OUT")
        got.append((p.returncode, text, p.stderr, target.read_bytes() if target.exists() else None))
        target.unlink(missing_ok=True)
    if got[0] == got[1]:
        return None
    what = [k for k, a, b in zip(("status", "stdout", "stderr", "output"), *got) if a != b]
    return f"{data.name} {' '.join(args)} -> {out.suffix}: {', '.join(what)} differ"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the other source tree (its .so modules built)")
    ap.add_argument("--work", type=Path, default=BENCH / "data" / "identical")
    ap.add_argument("--sets", default="", help="comma-separated shared sets (default: all)")
    ap.add_argument("--big", nargs=2, type=Path, metavar=("FILE", "MODEL"))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    args.base, args.work = args.base.resolve(), args.work.resolve()   # each run's directory is its tree
    if args.big:
        args.big = [p.resolve() for p in args.big]
    new = BENCH.parent
    args.work.mkdir(parents=True, exist_ok=True)
    names = [s for s in args.sets.split(",") if s] or sorted(
        p.name for p in R.DATA.iterdir() if (p / f"{p.name}.names").exists())
    runs = []
    for name in names:
        models = [args.work / f"{name}.yaml"]
        if name in BOOSTED:
            models.append(args.work / f"{name}.b10.yaml")
        for model in models:
            if not model.exists():
                extra = ["--trials", "10"] if model.name.endswith(".b10.yaml") else []
                p = c45rules(args.base, "fit", "-q", R.DATA / name / name, "-o", model, *extra)
                if p.returncode:
                    print(f"{name}: fit failed: {p.stderr.decode()[-300:]}")
                    break
            for data in inputs(name, args.work):
                for variant in VARIANTS:
                    runs.append((model, data, variant, ".csv"))
                runs += [(model, data, variant, ".parquet") for variant in VARIANTS]
    if args.big:
        runs += [(args.big[1], args.big[0], variant, ".csv") for variant in VARIANTS]

    def one(run: tuple) -> str | None:
        model, data, variant, suffix = run
        out = args.work / f"{model.stem}.{data.name}.{len(variant)}{suffix}"
        return compare(args.base, new, model, data, variant, out)
    problems = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for problem in pool.map(one, runs):
            if problem:
                problems.append(problem)
                print(problem, flush=True)
    print(f"{len(runs)} runs, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
