#!/usr/bin/env python3
"""Growth of the unpruned tree in memory (load_data + grow_tree) against growth in passes
(open_batches + grow_in_passes, the budget fit_batches gives it), from one Parquet or CSV
file, issue 50.

Usage:
  python bench/stream_growth.py --data synth_1m.parquet [--target class] [--batch-rows 100000]
                                [--repeat 1] [--profile OUT.prof]

Each variant runs in a fresh process, the two alternating (`--repeat` rounds); printed: the
read's and the growth's wall and CPU seconds, the process's peak resident set (VmHWM), the
passes over the data and rows per second per pass. `--profile` runs the passes variant once
under cProfile instead and writes its statistics.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from stream_memory import _kb, run_variants  # noqa: E402  (the process's VmHWM; a variant in a fresh process)


def child(variant: str, data: str, target: str, batch_rows: int) -> dict:
    """Run one variant in this process and measure it."""
    import numpy  # noqa: F401  the imports are counted before the read, in both variants
    import pandas  # noqa: F401
    from c45rules.data.batches import open_batches
    from c45rules.data.frame import load_data
    from c45rules.learn.stream import DEFAULT_TABLE_MEMORY
    from c45rules.tree.grow import grow_tree
    from c45rules.tree.grow_passes import grow_in_passes
    t0, c0 = time.perf_counter(), time.process_time()
    passes = 0
    if variant == "in-memory":
        ds = load_data(data, target=target)[0]
        rows = ds.n
        t1, c1 = time.perf_counter(), time.process_time()
        tree = grow_tree(ds)
    else:
        source = open_batches(data, target, batch_rows=batch_rows)
        rows = source.n
        t1, c1 = time.perf_counter(), time.process_time()
        tree, info = grow_in_passes(source, source.schema, memory=DEFAULT_TABLE_MEMORY)
        passes = info["passes"]
    t2, c2 = time.perf_counter(), time.process_time()
    return {"variant": variant, "rows": rows, "nodes": tree.size(), "peak_mb": _kb("VmHWM") / 1024,
            "read_wall": t1 - t0, "read_cpu": c1 - c0, "grow_wall": t2 - t1, "grow_cpu": c2 - c1,
            "passes": passes, "rows_s_pass": rows * passes / (t2 - t1) if passes else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--target", default="class")
    ap.add_argument("--batch-rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--variants", default="in-memory,passes")
    ap.add_argument("--profile")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.profile:
        import cProfile
        cProfile.runctx("child('passes', args.data, args.target, args.batch_rows)", globals(), locals(),
                        args.profile)
        return
    if args.child:
        print(json.dumps(child(args.child, args.data, args.target, args.batch_rows)))
        return
    run_variants(__file__, args, args.variants.split(","),
                 "| variant | rows | nodes | read wall / CPU s | growth wall / CPU s | peak RSS MB | passes"
                 " | rows/s a pass |\n|---|---:|---:|---:|---:|---:|---:|---:|",
                 lambda r: f"| {r['variant']} | {r['rows']:,} | {r['nodes']} | {r['read_wall']:.1f} / {r['read_cpu']:.1f}"
                           f" | {r['grow_wall']:.1f} / {r['grow_cpu']:.1f} | {r['peak_mb']:.0f} | {r['passes'] or '-'}"
                           f" | {r['rows_s_pass']:,.0f} |")

if __name__ == "__main__":
    main()
