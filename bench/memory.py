#!/usr/bin/env python3
"""Where `c45rules rules STEM --json` holds its memory, stage by stage (issue 33's peak).

Usage:
  python bench/memory.py [--datasets synth_100k,synth_1m,synth_1m_u5,income,letter] [--trace]

Each dataset runs in a fresh process doing what `rules STEM --json -u` does, with the same
stage wrappers as bench/stages.py (read, grow, prune, generalise, select, order, evaluate).
For each stage: the resident set when it starts, its own high-water mark (the kernel's VmHWM,
reset before the stage through /proc/self/clear_refs, which resets ru_maxrss too) and the
resident set when it ends; the whole process's peak is the largest stage peak. With --trace, tracemalloc also reports the Python/numpy
bytes live at each stage's end and the stage's traced peak (slower: numbers for reading only).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

STAGES = ("start", "read", "grow", "prune", "generalise", "select", "order", "evaluate")
DEFAULT = "synth_100k,synth_1m,synth_1m_u5,income,letter"


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_hwm() -> None:
    # "5" resets the peak resident set (VmHWM) to the current one (Linux >= 4.0)
    Path("/proc/self/clear_refs").write_text("5")


def child(stem: str, trace: bool) -> None:
    """Run the rules command's work on STEM, recording memory around each stage; print JSON."""
    if trace:
        import tracemalloc
        tracemalloc.start()
    mem: dict[str, dict] = {}
    depth = [0]

    def enter(stage: str) -> None:
        m = mem.setdefault(stage, {"start_kb": _status_kb("VmRSS"), "peak_kb": 0, "end_kb": 0,
                                   "traced_mb": 0.0, "traced_peak_mb": 0.0})
        m.setdefault("start_kb", _status_kb("VmRSS"))
        _reset_hwm()
        if trace:
            tracemalloc.reset_peak()

    def leave(stage: str) -> None:
        m = mem[stage]
        m["peak_kb"] = max(m["peak_kb"], _status_kb("VmHWM"))
        m["end_kb"] = _status_kb("VmRSS")
        if trace:
            cur, peak = tracemalloc.get_traced_memory()
            m["traced_mb"] = cur / 2**20
            m["traced_peak_mb"] = max(m["traced_peak_mb"], peak / 2**20)

    def timed(stage: str, fn):
        def wrapper(*a, **k):
            depth[0] += 1
            outer = depth[0] == 1
            if outer:
                enter(stage)
            try:
                return fn(*a, **k)
            finally:
                if outer:
                    leave(stage)
                depth[0] -= 1
        return wrapper

    import c45rules.learn.pipeline as pipeline
    from common import wrap_pipeline_steps
    from c45rules.data.names import load_stem
    from c45rules.rules.evaluate import evaluate
    mem["start"] = {"start_kb": 0, "peak_kb": _status_kb("VmHWM"), "end_kb": _status_kb("VmRSS")}
    wrap_pipeline_steps(timed)
    load = timed("read", load_stem)
    train, test = load(stem, test=True)
    ruleset, tree, _ = pipeline.fit_dataset(train)
    ev = timed("evaluate", lambda: [evaluate(ruleset, d).errors for d in (train, test) if d is not None])
    errors = ev()
    print(json.dumps({"mem": mem, "rows": train.n, "rules": len(ruleset.rules), "errors": errors,
                      "maxrss_kb": max(m["peak_kb"] for m in mem.values())}))
    sys.stdout.flush()


def measure(stem: str, trace: bool = False, root: Path = BENCH.parent) -> dict:
    """The child's per-stage memory, the package imported from `root`."""
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{BENCH}"}
    out = subprocess.run([sys.executable, __file__, "--child", stem, *(["--trace"] if trace else [])],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def table(results: dict[str, dict], trace: bool) -> str:
    """Per dataset and stage: RSS at start, the stage's peak, RSS at end (MB)."""
    from common import markdown_table
    head = ["dataset", "rows", "whole peak MB", *[f"{s} MB" for s in STAGES]]
    rows = []
    for name, r in results.items():
        cells = []
        for s in STAGES:
            m = r["mem"].get(s)
            if m is None:
                cells.append("-")
                continue
            cell = f"{m['start_kb'] / 1024:.0f} / **{m['peak_kb'] / 1024:.0f}** / {m['end_kb'] / 1024:.0f}"
            if trace and "traced_mb" in m:
                cell += f" (py {m['traced_peak_mb']:.0f}/{m['traced_mb']:.0f})"
            cells.append(cell)
        rows.append([name, f"{r['rows']:,}", f"{r['maxrss_kb'] / 1024:.0f}", *cells])
    return markdown_table(head, rows)


def main() -> int:
    """Measure each dataset in its own process; print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=DEFAULT)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child, a.trace)
        return 0
    from common import dataset_stem
    results = {}
    for name in a.datasets.split(","):
        print(f"{name} ... (load {os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
        results[name] = measure(dataset_stem(name), a.trace)
    print("Cells: RSS at the stage's start / **the stage's peak** / RSS at its end (MB)"
          + ("; (py traced peak / traced at end, MB)" if a.trace else ""))
    print(table(results, a.trace))
    return 0


if __name__ == "__main__":
    sys.exit(main())
