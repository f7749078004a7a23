#!/usr/bin/env python3
"""Ours against RuleQuest's C5.0 in one run (issue 33): whole processes, wall time and peak memory.

Usage:
  python bench/vs_c50.py [--datasets synth_100k,synth_1m,synth_1m_u5,income,letter]
                         [--jobs-row synth_1m] [--repeat 1] [--markdown BENCHMARKS.md]

For each dataset, one after the other on the same machine: `c45rules rules STEM --json` (with
-u where STEM.test exists) and `c5.0 -f STEM -r` (rulesets; it evaluates on STEM.test by itself)
on a copy of the data (c5.0 writes STEM.rules next to its input). `--jobs-row NAME` adds ours
with `-j 2` on that dataset. Wall time is the whole process from start to exit (best of
--repeat); peak memory is the process's resident high-water mark (ru_maxrss), for ours with
workers the larger of that and the sampled summed PSS of it and its workers. The targets of
issue 33 are printed beside each row: wall ratio <= 0.8 (income <= 1.0; synth_1m with -j 2 <=
0.5) and peak <= max(1.5 x C5.0's, C5.0's + 64 MB). With --markdown the table becomes the
`vs-c50` section of that file (bench/run.py keeps it). synth_1m and synth_1m_u5 are made by
../shared/tools/make_synth.py into bench/data when missing; the anchor is
../shared/anchors/c5.0.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import reference as R  # noqa: E402
from common import ROOT, TreePss, bytecode_compiled, dataset_stem, machine, markdown_table, put_section, run_stamp  # noqa: E402

C50 = R.SHARED / "anchors" / "c5.0"
DEFAULT = "synth_100k,synth_1m,synth_1m_u5,income,letter"
# issue 33's wall-time targets (ours / C5.0); every other row: 0.8
RATIO_TARGET = {"income": 1.0, "synth_1m -j2": 0.5}


def measure(cmd: list[str], sample: bool) -> dict:
    """Run a whole process: wall seconds, peak kB (ru_maxrss, or with `sample` also the summed
    PSS of its process tree), stdout."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreePss(proc.pid) if sample else None
    if sampler:
        sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    peak = _child_maxrss_kb()
    if sampler:
        peak = max(peak, sampler.stop())
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-2000:]}")
    return {"wall": wall, "peak_kb": peak, "stdout": out}


def _child_maxrss_kb() -> int:
    # RUSAGE_CHILDREN's ru_maxrss is the largest of all children so far: run_one measures
    # each command from a fresh helper process so that the number is that command's
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def run_one(cmd: list[str], sample: bool) -> dict:
    """`measure` in a fresh Python helper process, so ru_maxrss is this command's alone."""
    code = ("import json, sys; sys.path.insert(0, %r); import vs_c50; "
            "r = vs_c50.measure(json.loads(sys.argv[1]), %r); print(json.dumps(r))") % (str(BENCH), sample)
    done = subprocess.run([sys.executable, "-c", code, json.dumps(cmd)], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout)


def copy_stem(stem: str, into: Path) -> str:
    """The dataset's .names/.data/.test copied into `into` (c5.0 writes beside its input)."""
    name = Path(stem).name
    for ext in (".names", ".data", ".test"):
        if Path(stem + ext).exists():
            shutil.copyfile(stem + ext, into / (name + ext))
    return str(into / name)


def best_of(n: int, cmd: list[str], sample: bool) -> dict:
    """The fastest of n runs (peak: the highest of them)."""
    runs = [run_one(cmd, sample) for _ in range(n)]
    fastest = min(runs, key=lambda r: r["wall"])
    return {**fastest, "peak_kb": max(r["peak_kb"] for r in runs)}


def compare(name: str, jobs: int, repeat: int, boost: bool = False) -> dict:
    """Both programs on one dataset, one after the other (`boost`: both with -b, 10 trials)."""
    from c45rules.cli.c50 import evaluation_result
    stem = dataset_stem(name)
    with tempfile.TemporaryDirectory(prefix="vs-c50-") as tmp:
        copy = copy_stem(stem, Path(tmp))
        has_test = Path(copy + ".test").exists()
        ours_cmd = [sys.executable, "-m", "c45rules", "rules", copy, "--json", *(["-u"] if has_test else []),
                    *(["-j", str(jobs)] if jobs > 1 else []), *(["-b"] if boost else [])]
        load0 = os.getloadavg()[0]
        ours = best_of(repeat, ours_cmd, sample=jobs > 1)
        theirs = best_of(repeat, [str(C50), "-f", copy, "-r", *(["-b"] if boost else [])], sample=False)
    got = json.loads(ours["stdout"])
    c_test, c_train = (evaluation_result(theirs["stdout"], which) for which in ("test", "training"))
    return {"dataset": name + (f" -j{jobs}" if jobs > 1 else "") + (" -b" if boost else ""), "rows": c_train[0],
            "ours": {"wall": ours["wall"], "peak_kb": ours["peak_kb"], "rules": got["rules"],
                     "test_errors": got.get("test_errors"), "train_errors": got["train_errors"]},
            "c50": {"wall": theirs["wall"], "peak_kb": theirs["peak_kb"], "rules": c_train[1],
                    "test_errors": c_test[2] if c_test else None, "train_errors": c_train[2]},
            "load": [load0, os.getloadavg()[0]]}


def rows(results: list[dict]) -> list[list[str]]:
    """Table rows: times, ratio, memory, targets met, and both programs' rules and errors."""
    out = []
    for r in results:
        o, c = r["ours"], r["c50"]
        ratio = o["wall"] / c["wall"]
        target = RATIO_TARGET.get(r["dataset"], 0.8)
        mem_cap = max(1.5 * c["peak_kb"], c["peak_kb"] + 64 * 1024)
        errs = (f"{o['test_errors']} / {c['test_errors']}" if o["test_errors"] is not None
                else f"{o['train_errors']} / {c['train_errors']} (train)")
        out.append([r["dataset"], f"{r['rows']:,}", f"{o['wall']:.2f}", f"{c['wall']:.2f}", f"{ratio:.2f}",
                    f"{'yes' if ratio <= target else 'no'} (<= {target})",
                    f"{o['peak_kb'] / 1024:.0f} / {c['peak_kb'] / 1024:.0f}",
                    f"{'yes' if o['peak_kb'] <= mem_cap else 'no'} (<= {mem_cap / 1024:.0f})",
                    f"{o['rules']} / {c['rules']}", errs, f"{r['load'][0]:.2f} -> {r['load'][1]:.2f}"])
    return out


HEADER = ["dataset", "rows", "ours s", "C5.0 s", "ratio", "time target met", "peak MB ours / C5.0",
          "memory target met", "rules ours / C5.0", "errors ours / C5.0", "load avg"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=DEFAULT)
    ap.add_argument("--jobs-row", default="synth_1m", help="dataset also run with -j 2 ('' for none)")
    ap.add_argument("--boost-row", default="synth_100k",
                    help="dataset also run boosted, ours -b against c5.0 -r -b ('' for none)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args(argv)
    if not os.access(C50, os.X_OK):
        raise SystemExit(f"{C50}: the C5.0 anchor is missing or not executable")
    bytecode_compiled()
    # ours is this checkout's package (the one just compiled), wherever the script runs from
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    plan = [(n.strip(), 1, False) for n in args.datasets.split(",") if n.strip()]
    if args.jobs_row:
        plan.append((args.jobs_row, 2, False))
    if args.boost_row:
        plan.append((args.boost_row, 1, True))
    results = []
    for name, jobs, boost in plan:
        print(f"{name}{f' -j{jobs}' if jobs > 1 else ''}{' -b' if boost else ''} ...", file=sys.stderr, flush=True)
        results.append(compare(name, jobs, args.repeat, boost))
        print(markdown_table(HEADER, rows(results[-1:])).splitlines()[-1], file=sys.stderr, flush=True)
    table = markdown_table(HEADER, rows(results))
    print(table)
    if args.markdown:
        stamp, mach = run_stamp(), machine()
        body = "\n".join([
            "## Ours against C5.0, whole processes (issue 33)", "",
            f"Written by `python bench/vs_c50.py --repeat {args.repeat}`, measured {stamp['date']} at commit "
            f"{stamp['commit']} on {mach['cpu']}, {mach['cores']} cores, {mach['ram']}.", "",
            "`c45rules rules STEM --json` (-u with a test file) against RuleQuest's `c5.0 -f STEM -r` "
            "(GPL release 2.07, ../shared/anchors/c5.0), one after the other on a copy of the data. "
            "Wall: the whole process, best of the repeats; peak: resident high-water mark (with -j 2 also "
            "the sampled summed PSS of our workers). Targets: ratio <= 0.8 (income <= 1.0, synth_1m -j2 "
            "<= 0.5), peak <= max(1.5 x C5.0's, C5.0's + 64 MB). Errors: on the test file, else training."
            " The -b row: both boosted with 10 trials (ours `rules -b`, C5.0 `-r -b`); rules over all trials.",
            "", table, ""])
        put_section(args.markdown, "vs-c50", body)
        print(f"wrote the vs-c50 section of {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
