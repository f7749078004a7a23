#!/usr/bin/env python3
"""Peak resident memory of reading a table whole (load_data) against a streamed pass over it
(data/batches.py open_batches: the schema pass, then one pass of encoded batches), issue 50.

Usage:
  python bench/stream_memory.py [--data /work/shared/data/synth_100k/synth_100k.csv] [--target class]
                                [--batch-rows 10000] [--repeat 2]

Each variant runs in a fresh process (alternating, `--repeat` times); it prints the process's
peak resident set (VmHWM), the resident set before reading (the imports), wall and CPU seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("C45RULES_SHARED", "/work/shared"))


def _kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def child(variant: str, data: str, target: str, batch_rows: int) -> dict:
    """Run one variant in this process and measure it."""
    import numpy  # noqa: F401  the imports are counted before the read, in both variants
    import pandas  # noqa: F401
    from c45rules.data.batches import open_batches
    from c45rules.data.frame import load_data
    base = _kb("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    if variant == "in-memory":
        ds = load_data(data, target=target)[0]
        rows = ds.n
    else:
        source = open_batches(data, target, batch_rows=batch_rows)
        rows = sum(b.n for b in source())
    return {"variant": variant, "rows": rows, "peak_mb": _kb("VmHWM") / 1024, "base_mb": base / 1024,
            "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}


def run_child(script: str, variant: str, args: argparse.Namespace) -> dict:
    """`script --child VARIANT` (its data, target and batch rows from `args`) run in a fresh
    process on this checkout: the JSON it prints last."""
    out = subprocess.run([sys.executable, script, "--child", variant, "--data", args.data, "--target", args.target,
                          "--batch-rows", str(args.batch_rows)],
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_variants(script: str, args: argparse.Namespace, variants: Iterable[str], header: str,
                 row: Callable[[dict], str]) -> None:
    """Print the input and load average, `header`, then `row` of each variant run in a fresh
    process (run_child), alternating, `args.repeat` rounds, then the load average after."""
    print(f"{args.data}, batch_rows={args.batch_rows}, load average {os.getloadavg()[0]:.2f}")
    print(header)
    for _ in range(args.repeat):
        for variant in variants:
            print(row(run_child(script, variant, args)), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(SHARED / "data" / "synth_100k" / "synth_100k.csv"))
    ap.add_argument("--target", default="class")
    ap.add_argument("--batch-rows", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.data, args.target, args.batch_rows)))
        return
    run_variants(__file__, args, ("in-memory", "streamed"),
                 "| variant | rows | peak RSS MB | RSS before read MB | wall s | CPU s |\n|---|---|---|---|---|---|",
                 lambda r: f"| {r['variant']} | {r['rows']} | {r['peak_mb']:.0f} | {r['base_mb']:.0f} |"
                           f" {r['wall_s']:.2f} | {r['cpu_s']:.2f} |")

if __name__ == "__main__":
    main()
