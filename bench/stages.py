#!/usr/bin/env python3
"""Where `c45rules rules STEM --json` spends its time, stage by stage (issue 33's profile).

Usage:
  python bench/stages.py [--datasets synth_100k,synth_1m,synth_1m_u5,income,letter]
                         [--markdown BENCHMARKS.md] [--trials N]

Each dataset runs in a fresh process doing what `rules STEM --json` does (read STEM.data and
STEM.test, grow, prune, generalise, select, order, evaluate), with the pipeline's own step
functions wrapped by timers, so the stages are the real ones and add up to the whole run:

- start: the interpreter and the imports of `c45rules rules` (whole-process wall minus the rest);
- read: STEM.data and STEM.test parsed and encoded (I/O);
- grow: the unpruned tree (spec 2; on data with unknowns this includes their fractional weights);
- prune: the pessimistic pruning of the tree (spec 3);
- generalise: one candidate rule per leaf, conditions dropped (spec 7.2-7.4);
- select: coding costs and the subset search per class (spec 7.5-7.7);
- order: class order, default class, sifting and the public rules (spec 7.8-7.9);
- reweight: boosting only (--trials N): each trial's ruleset classifying the training cases
  and the new weights (rules/boost.py);
- evaluate: training and test errors of the ruleset;
- other: the rest of the process (exit, freeing).

With --trials N the rules are boosted (`rules STEM --trials N --json`) and the stage times of
each trial are printed too (stderr, one line per trial).

With --markdown the table becomes the `stages` section of that file. Datasets as in
bench/vs_c50.py (synth_1m and synth_1m_u5 generated into bench/data when missing).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

T0 = time.perf_counter()
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

STAGES = ("start", "read", "grow", "prune", "generalise", "select", "order", "reweight", "evaluate", "other")
DEFAULT = "synth_100k,synth_1m,synth_1m_u5,income,letter"


def child(stem: str, weights: str | None = None, jobs: int = 1, trials: int = 1) -> None:
    """Run the rules command's work on STEM with timers around each step; print the times.
    `weights`: the training cases weighted by bench/weighted.py's draw of that kind; `jobs`
    as `rules -j`; `trials` as `rules --trials` (boosting)."""
    spent: dict[str, float] = {s: 0.0 for s in STAGES}
    # CPU seconds of the process, its threads included: on a loaded machine the wall times
    # stretch with the load, these much less; with -j their ratio to the wall is the parallelism
    cpu: dict[str, float] = {s: 0.0 for s in STAGES}

    def timed(stage: str, fn):
        def wrapper(*a, **k):
            t, c = time.perf_counter(), time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[stage] += time.perf_counter() - t
                cpu[stage] += time.process_time() - c
        return wrapper

    import c45rules.learn.pipeline as pipeline
    from common import wrap_pipeline_steps
    import c45rules.rules.boost as boost
    from c45rules.data.names import load_stem
    from c45rules.rules.evaluate import evaluate
    spent["start"], cpu["start"] = time.perf_counter() - T0, time.process_time()
    wrap_pipeline_steps(timed)
    boost.decided_classes = timed("reweight", boost.decided_classes)
    per_trial: list[dict[str, float]] = []
    fit_once = pipeline._fit_once

    def trial(*a, **k):
        # the stage times of this trial alone: the running totals' change over the call
        before = dict(spent)
        out = fit_once(*a, **k)
        per_trial.append({s: spent[s] - before[s] for s in ("grow", "prune", "generalise", "select", "order")})
        # candidates (one per generalised leaf, duplicates merged) against rules kept: the
        # trials' trees are alike in size, their selections are not (issue 34.5)
        per_trial[-1]["candidates"] = len(out[2].candidates)
        per_trial[-1]["rules"] = len(out[0].rules)
        return out
    pipeline._fit_once = trial

    t, c = time.perf_counter(), time.process_time()
    train, test = load_stem(stem, test=True, jobs=jobs)
    if weights:
        from c45rules.data.weights import weighted as with_weights
        from weighted import draw_weights
        train = with_weights(train, draw_weights(weights, train.n))
    spent["read"], cpu["read"] = time.perf_counter() - t, time.process_time() - c
    ruleset, tree, trace = pipeline.fit_dataset(train, jobs=jobs, trials=trials)
    t, c = time.perf_counter(), time.process_time()
    if trials > 1:
        from c45rules.rules.evaluate import evaluate_votes
        errors = [evaluate_votes(ruleset, d).errors for d in (train, test) if d is not None]
    else:
        errors = [evaluate(ruleset, d).errors for d in (train, test) if d is not None]
    spent["evaluate"], cpu["evaluate"] = time.perf_counter() - t, time.process_time() - c
    print(json.dumps({"spent": spent, "cpu": {**cpu, "whole": time.process_time()}, "rows": train.n,
                      "rules": sum(len(r.rules) for r in ruleset.trials) if trials > 1 else len(ruleset.rules),
                      "per_trial": per_trial, "candidates": len(trace.candidates),
                      "errors": errors, "nodes": len(tree.unpruned_flat),
                      "unknown_cells": int(sum((c < 0).sum() if c.dtype.kind == "i" else
                                               (c != c).sum() for c in train.columns))}))
    sys.stdout.flush()


def measure(stem: str, weights: str | None = None, root: Path = BENCH.parent,
            timeout: float | None = None, jobs: int = 1, trials: int = 1) -> dict:
    """Whole-process wall of the child and its per-stage times ('other' = the unaccounted rest),
    the package imported from `root` (subprocess.TimeoutExpired past `timeout` seconds)."""
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{BENCH}"}
    t = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", stem, *(["--weights", weights] if weights else []),
                          *(["--jobs", str(jobs)] if jobs != 1 else []),
                          *(["--trials", str(trials)] if trials != 1 else [])],
                         env=env, check=True, capture_output=True, text=True, timeout=timeout).stdout
    wall = time.perf_counter() - t
    res = json.loads(out.strip().splitlines()[-1])
    inside = sum(res["spent"].values())
    res["spent"]["other"] = max(wall - inside, 0.0)
    res["wall"] = wall
    return res


def table(results: dict[str, dict]) -> str:
    """The stage table: seconds and share of the whole run per stage."""
    from common import markdown_table
    head = ["dataset", "rows", "unknown cells", "tree nodes", "whole s", "whole CPU s",
            *[f"{s} s (%)" for s in STAGES]]
    rows = []
    for name, r in results.items():
        cells = [f"{r['spent'][s]:.2f} ({100 * r['spent'][s] / r['wall']:.0f}%)" for s in STAGES]
        rows.append([name, f"{r['rows']:,}", f"{r['unknown_cells']:,}", f"{r['nodes']:,}",
                     f"{r['wall']:.2f}", f"{r['cpu']['whole']:.2f}", *cells])
    return markdown_table(head, rows)


def main() -> int:
    """Measure each dataset in its own process; print the table (and write it with --markdown)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=DEFAULT)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=1, help="worker processes, as `rules -j` (default 1)")
    ap.add_argument("--trials", type=int, default=1, help="boosting trials, as `rules --trials` (default 1)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--weights", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child, a.weights, a.jobs, a.trials)
        return 0
    if a.markdown and a.trials > 1:
        # the stages section is the single fit's profile: a boosted table would replace it
        raise SystemExit("--markdown writes the single fit's stages section: leave out --trials")
    from common import bytecode_compiled, dataset_stem, put_section, written_by
    bytecode_compiled()
    results = {}
    for name in a.datasets.split(","):
        load = os.getloadavg()[0]
        print(f"{name} ...", file=sys.stderr, flush=True)
        results[name] = measure(dataset_stem(name), jobs=a.jobs, trials=a.trials)
        for i, t in enumerate(results[name].get("per_trial", []) if a.trials > 1 else [], 1):
            print(f"  trial {i}: " + " ".join(f"{k} {v:.2f}" if k not in ("rules", "candidates") else f"{k} {v}"
                                            for k, v in t.items()), file=sys.stderr)
        results[name]["load"] = (load, os.getloadavg()[0])
    text = table(results)
    print(text)
    if a.markdown:
        loads = ", ".join(f"{n} {r['load'][0]:.2f} -> {r['load'][1]:.2f}" for n, r in results.items())
        body = (f"## Where the time goes: `rules STEM --json` by stage (issue 33)\n\n"
                f"{written_by('python bench/stages.py --markdown BENCHMARKS.md')} One fresh process per dataset doing what "
                f"`rules STEM --json` does, the pipeline's own step functions timed (see the "
                f"script's docstring for what each stage covers). Load average at start -> end: "
                f"{loads}.\n\n{text}\n")
        put_section(a.markdown, "stages", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
