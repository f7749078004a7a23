#!/usr/bin/env python3
"""Speed and memory benchmark (issue 6): our tree and rules against scikit-learn and C4.5 R8.

Usage:
  python bench/run.py [--datasets synth_10k,synth_100k,synth_1m,letter,shuttle,fertility,income,synth_100k_u5]
                      [--repeat 1] [--markdown BENCHMARKS.md] [--skip-sklearn]
                      [--timeout 900] [--timeout-per-stage S] [--fresh] [--profile DIR]
                      [--jobs N]

Prints one table: dataset, rows, stage (load, tree, rules, total = tree + rules, predict on the
data, and predict 1M: the same rules on the data repeated to 1,000,000 rows),
wall and CPU seconds, peak memory, scikit-learn's DecisionTreeClassifier(criterion='entropy')
fit time on the same data in the same run, and the wall seconds of the reference C programs
(from ../shared/reference/SUMMARY.md). With --markdown it also (re)writes that file: the
machine, the date, the table, the scaling 10k/100k/1M and the issue's targets with yes/no.

Each dataset runs in fresh subprocesses (one for ours, one for scikit-learn), so that peak
memory is that dataset's alone and one slow stage cannot block the rest: a dataset that runs
past --timeout seconds in all (or a stage past --timeout-per-stage) is killed and reported as
'timeout'. A dataset name is any directory of ../shared/data, or synth_1m, synth_100k_u5 or
synth_1m_u5 (the _u5 sets with 5% of every attribute unknown: make_synth --missing 0.05), which are generated
into bench/data/ (gitignored) by ../shared/tools/make_synth.py when missing.

Peak memory is the resident-set high-water mark of the child during the stage (VmHWM, reset
before each stage through /proc/self/clear_refs after a gc and malloc_trim) minus the RSS of
the interpreter once numpy, pandas and c45rules are imported. It includes the loaded Dataset
and, during rules, the tree. 'data MB' is the encoded data: the nbytes of every column plus y.

When the markdown file already holds results of this script, datasets not run this time keep
their earlier rows (with the date and commit they were measured at); --fresh drops them.
--jobs N gives our tree and rules stages N worker processes (the `jobs` option); such runs are
stored as "NAME -jN", next to the one-process rows, with their own scaling and targets.
CPU seconds then include the workers', and the peak is the larger of the VmHWM above and
the sampled (every 0.1 s) proportional set size of the process and its workers together,
so memory shared between them counts once.

--profile DIR runs each stage under cProfile instead of timing it, writes DIR/NAME.STAGE.prof
and prints the top functions by own time; it writes no markdown (profiled times are inflated).
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import math
import os
import queue
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))
import reference as R  # noqa: E402
from common import (TreePss, dataset_stem, kept_sections, machine,  # noqa: E402
                    markdown_table, run_stamp)

DEFAULT_DATASETS = "synth_10k,synth_100k,synth_1m,letter,shuttle,fertility,income,synth_100k_u5"
OUR_STAGES = ("load", "tree", "rules", "predict", "predict 1M")
TABLE_STAGES = ("load", "tree", "rules", "total", "predict", "predict 1M")
MILLION = 1_000_000
EVENT = "@bench "
RESULTS_MARK = "<!-- bench/run.py results"
SCALING = ("synth_10k", "synth_100k", "synth_1m")


# ----------------------------------------------------------------------------- child side

def _emit(**event) -> None:
    print(EVENT + json.dumps(event), flush=True)


def _status_kb(field: str) -> int | None:
    try:
        m = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def _cpu() -> float:
    """CPU seconds of this process and of its finished workers."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def _release_memory() -> None:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class _Peak:
    """Resident high-water mark of this process since `reset` (kB)."""

    def __init__(self) -> None:
        self.per_stage = self._clear()

    @staticmethod
    def _clear() -> bool:
        try:
            Path("/proc/self/clear_refs").write_text("5")
            return _status_kb("VmHWM") is not None
        except OSError:
            return False

    def reset(self) -> None:
        _release_memory()
        if self.per_stage:
            self._clear()

    def read(self) -> int:
        if self.per_stage:
            return _status_kb("VmHWM")
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # since start: an upper bound


def _stage(name: str, peak: _Peak, baseline: int, fn, profile: str | None, dataset: str,
           workers: bool = False):
    _emit(event="start", stage=name)
    peak.reset()
    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        w0 = time.perf_counter()
        out = prof.runcall(fn)
        wall = time.perf_counter() - w0
        path = Path(profile) / f"{dataset}.{name}.prof"
        prof.dump_stats(path)
        st = pstats.Stats(prof, stream=sys.stderr)
        print(f"\n===== {dataset} {name}: {wall:.2f} s under cProfile -> {path}", file=sys.stderr)
        st.sort_stats("tottime").print_stats(15)
        st.sort_stats("cumulative").print_stats(15)
        _emit(event="done", stage=name, wall=wall, cpu=None, peak_kb=peak.read() - baseline)
        return out
    sampler = TreePss() if workers else None
    if sampler:
        sampler.start()
    w0, c0 = time.perf_counter(), _cpu()
    out = fn()
    wall, cpu = time.perf_counter() - w0, _cpu() - c0
    high = max(peak.read(), sampler.stop() if sampler else 0)
    _emit(event="done", stage=name, wall=wall, cpu=cpu, peak_kb=high - baseline)
    return out


def child_ours(stem: str, dataset: str, profile: str | None, jobs: int = 1) -> None:
    import numpy as np  # noqa: F401  (imported before the baseline is read)
    import pandas  # noqa: F401
    from c45rules.data.names import load_stem
    from c45rules.learn.pipeline import learn_rules, learn_tree

    peak = _Peak()
    _release_memory()
    baseline = _status_kb("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _emit(event="baseline", rss_kb=baseline, per_stage_peak=peak.per_stage, jobs=jobs)
    data = _stage("load", peak, baseline, lambda: load_stem(stem)[0], profile, dataset)
    encoded = sum(c.nbytes for c in data.columns) + data.y.nbytes
    _emit(event="info", rows=data.n, data_bytes=encoded, columns=len(data.columns))
    tree = _stage("tree", peak, baseline, lambda: learn_tree(data, jobs=jobs), profile, dataset,
                  workers=jobs != 1)
    rules, trace = _stage("rules", peak, baseline, lambda: learn_rules(tree, data, jobs=jobs), profile,
                          dataset, workers=jobs != 1)
    # the rules stage's own intermediate output: one candidate per leaf, each with the cases
    # it covers, which the subset search reads (see candidate_rows)
    _emit(event="info", unpruned_size=len(tree.unpruned_flat), pruned_size=tree.pruned.size(),
          rules=len(rules.rules), candidates=len(trace.candidates),
          candidate_cover=int(sum(c.covered for c in trace.candidates)))
    _stage("predict", peak, baseline, lambda: rules.predict(data), profile, dataset)
    if data.n != MILLION:  # RuleSet.predict at 1M rows even where learning at 1M is out of reach
        big = _repeated(data, MILLION)
        _stage("predict 1M", peak, baseline, lambda: rules.predict(big), profile, dataset)
    _emit(event="end")


def _repeated(data, rows: int):
    """The cases repeated (cyclically) to exactly `rows` cases."""
    import numpy as np
    from c45rules.data.schema import Dataset
    take = np.arange(rows) % data.n
    return Dataset(data.schema, [c[take] for c in data.columns], data.y[take], data.source)


def sklearn_matrix(data):
    """Columns as float32 for sklearn: continuous as is, discrete codes ordinal, unknown NaN."""
    import numpy as np
    keep = [j for j, a in enumerate(data.schema.attributes) if a.kind != "ignore"]
    X = np.empty((data.n, len(keep)), dtype=np.float32)
    for k, j in enumerate(keep):
        col = data.columns[j]
        if data.schema.attributes[j].is_discrete:
            col = np.where(col < 0, np.nan, col.astype(np.float32))
        X[:, k] = col
    return X


def child_sklearn(stem: str, dataset: str) -> None:
    import numpy as np  # noqa: F401
    import sklearn
    from sklearn.tree import DecisionTreeClassifier

    from c45rules.data.names import load_stem

    data = load_stem(stem)[0]
    X, y = sklearn_matrix(data), data.y
    _emit(event="info", sklearn_version=sklearn.__version__, rows=data.n)
    _emit(event="start", stage="fit")
    model = DecisionTreeClassifier(criterion="entropy", random_state=0)
    w0, c0 = time.perf_counter(), time.process_time()
    model.fit(X, y)
    _emit(event="done", stage="fit", wall=time.perf_counter() - w0, cpu=time.process_time() - c0,
          leaves=int(model.get_n_leaves()))
    _emit(event="end")


# ----------------------------------------------------------------------------- parent side

def run_child(argv: list[str], timeout: float, stage_timeout: float | None) -> dict:
    """Run a child, collecting its events (progress on stderr); kill it past either timeout."""
    proc = subprocess.Popen([sys.executable, __file__, *argv], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines: queue.Queue = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    got: dict = {"stages": {}, "info": {}, "status": "ok"}
    start = time.monotonic()
    stage, stage_start = None, start
    while True:
        deadline = start + timeout
        if stage is not None and stage_timeout:
            deadline = min(deadline, stage_start + stage_timeout)
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            proc.kill()
            proc.wait()
            print(f"    {stage or 'between stages'}: timeout", file=sys.stderr, flush=True)
            got["status"] = "timeout"
            if stage is not None:
                got["stages"][stage] = {"status": "timeout",
                                        "after": round(time.monotonic() - stage_start, 1)}
            return got
        if line is None:
            break
        if not line.startswith(EVENT):
            continue
        ev = json.loads(line[len(EVENT):])
        kind = ev.pop("event")
        if kind == "start":
            stage, stage_start = ev["stage"], time.monotonic()
        elif kind == "done":
            name = ev.pop("stage")
            print(f"    {name}: {ev['wall']:.2f} s", file=sys.stderr, flush=True)
            got["stages"][name] = ev
            stage = None
        elif kind in ("info", "baseline"):
            got["info"].update(ev)
    if proc.wait() != 0:
        got["status"] = "error"
        if stage is not None:
            got["stages"][stage] = {"status": "error"}
    return got


def _merged(runs: list[dict]) -> dict:
    """Repeats, each its own child, as one result: per stage the best wall time and the
    highest peak (a repeat inside one process would start above the baseline, with the
    previous repeat's leftovers; the first that failed or timed out stands for all)."""
    for got in runs:
        if got["status"] != "ok":
            return got
    out = runs[0]
    for got in runs[1:]:
        for name, ev in got["stages"].items():
            old = out["stages"].get(name)
            if old is None or "wall" not in old or "wall" not in ev:
                out["stages"].setdefault(name, ev)
                continue
            peak = max(old.get("peak_kb", 0), ev.get("peak_kb", 0))
            if ev["wall"] < old["wall"]:
                out["stages"][name] = ev
            if "peak_kb" in old or "peak_kb" in ev:
                out["stages"][name]["peak_kb"] = peak
    return out


def run_dataset(name: str, args) -> dict:
    stem = dataset_stem(name)
    load_start = round(os.getloadavg()[0], 2)
    print(f"[{time.strftime('%H:%M:%S')}] {name}: ours ...", file=sys.stderr, flush=True)
    ours = _merged([run_child(["--child-ours", name, "--stem", stem, "--jobs", str(args.jobs)]
                              + (["--profile", args.profile] if args.profile else []),
                              args.timeout, args.timeout_per_stage) for _ in range(args.repeat)])
    res = {"ours": ours, "measured": run_stamp(), "load_avg": [load_start]}
    if not args.skip_sklearn and not args.profile:
        print(f"[{time.strftime('%H:%M:%S')}] {name}: scikit-learn ...", file=sys.stderr, flush=True)
        res["sklearn"] = _merged([run_child(["--child-sklearn", name, "--stem", stem],
                                            args.timeout, args.timeout_per_stage) for _ in range(args.repeat)])
    res["load_avg"].append(round(os.getloadavg()[0], 2))
    return res


# ----------------------------------------------------------------------------- the table

def stage_results(res: dict) -> dict[str, dict]:
    """Per table stage: wall/cpu/peak_kb, or a status ('timeout', 'error', 'not run')."""
    ours = res["ours"]
    out = {}
    for s in OUR_STAGES:
        # a stage after one that timed out or failed never started
        out[s] = ours["stages"].get(s, {"status": "not run"})
    tr, ru = out["tree"], out["rules"]
    if "wall" in tr and "wall" in ru:
        out["total"] = {"wall": tr["wall"] + ru["wall"],
                        "cpu": None if tr["cpu"] is None else tr["cpu"] + ru["cpu"],
                        "peak_kb": max(tr["peak_kb"], ru["peak_kb"])}
    else:
        bad = next(x for x in (tr, ru) if "wall" not in x)
        out["total"] = {"status": bad["status"]}
    return out


def sklearn_fit(res: dict) -> dict | None:
    sk = res.get("sklearn")
    if sk is None:
        return None
    return sk["stages"].get("fit", {"status": sk["status"] if sk["status"] != "ok" else "not run"})


def reference_walls(name: str) -> dict[str, str]:
    """c4.5 and c4.5rules wall seconds from SUMMARY.md as table cells."""
    tree = R.tree_summary().get(name, {}).get("wall")
    rules_row = R.rules_summary().get(name, {})
    out = {}
    if tree:
        out["tree"] = tree
    if rules_row:
        unfinished = rules_row.get("rules", "").startswith("not finished")
        out["rules"] = rules_row["rules"] if unfinished else rules_row["wall"]
        if tree:
            out["total"] = (f"> {float(tree) + float(rules_row['wall']):.4g} (rules {rules_row['rules']})"
                            if unfinished else f"{float(tree) + float(rules_row['wall']):.4g}")
    return out


def reference_total(name: str) -> tuple[float | None, bool]:
    """(c4.5 + c4.5rules wall, finished?) or (None, False) without a reference run."""
    tree = R.tree_summary().get(name, {}).get("wall")
    rules_row = R.rules_summary().get(name, {})
    if not tree or not rules_row:
        return None, False
    return float(tree) + float(rules_row["wall"]), not rules_row["rules"].startswith("not finished")


def _secs(x: dict, key: str = "wall") -> str:
    if "wall" not in x:
        return x["status"] + (f" (> {x['after']:.0f} s)" if "after" in x else "")
    v = x.get(key)
    return "-" if v is None else f"{v:.3f}" if v < 10 else f"{v:.1f}"


def _with_unit(x: dict) -> str:
    return _secs(x) + (" s" if "wall" in x else "")


def _mb(kb: float) -> str:
    mb = kb / 1024
    return f"{mb:.1f}" if mb >= 1 else f"{mb:.3f}"


def run_key(name: str, jobs: int) -> str:
    """Where a run's results are kept: the dataset, plus " -jN" for N workers."""
    return name if jobs == 1 else f"{name} -j{jobs}"


def _suffix(key: str) -> str:
    return key[key.index(" -j"):] if " -j" in key else ""


def _base(key: str) -> str:
    return key[:len(key) - len(_suffix(key))]


def table_rows(results: dict[str, dict]) -> list[list[str]]:
    rows = []
    for name, res in results.items():
        info = res["ours"]["info"]
        st = stage_results(res)
        sk = sklearn_fit(res)
        ref = reference_walls(_base(name))
        data_kb = info.get("data_bytes", 0) / 1024
        for s in TABLE_STAGES:
            x = st[s]
            peak = _mb(x["peak_kb"]) if "peak_kb" in x else "-"
            ratio_mem = f"{x['peak_kb'] / data_kb:.1f}" if "peak_kb" in x and data_kb else "-"
            if s == "predict 1M":  # its data is not the data of the other rows
                ratio_mem = ""
            sk_cell = ratio = ""
            if s in ("tree", "total") and sk is not None:
                sk_cell = _secs(sk)
                if "wall" in sk and "wall" in x:
                    ratio = f"{x['wall'] / sk['wall']:.2f}"
            load = res.get("load_avg", [])
            rows.append([name, f"{info.get('rows', '?')}", s, _secs(x), _secs(x, "cpu"), peak,
                         _mb(data_kb) if s == "load" and data_kb else "", ratio_mem if s != "load" else "",
                         sk_cell, ratio, ref.get(s, ""),
                         " -> ".join(map(str, load)) if s == "load" else ""])
    return rows


HEADER = ["dataset", "rows", "stage", "wall s", "CPU s", "peak MB", "data MB", "peak/data",
          "sklearn fit s", "ours/sklearn", "C4.5 R8 wall s", "load avg"]


# ----------------------------------------------------------------------------- targets

def _wall(results, name, stage) -> float | None:
    if name not in results:
        return None
    return stage_results(results[name])[stage].get("wall")


def _nlogn(n1: int, n2: int) -> float:
    return (n2 * math.log(n2)) / (n1 * math.log(n1))


def scaling_rows(results: dict) -> list[list[str]]:
    have = [n for n in SCALING if n in results]
    if len(have) < 2:
        return []
    rows = []
    for s in TABLE_STAGES[:-1]:  # predict 1M is 1M rows at every size
        cells, walls = [s], []
        for n in SCALING:
            w = _wall(results, n, s)
            walls.append(w)
            cells.append("-" if n not in results else _secs(stage_results(results[n])[s]))
        for a, b in ((0, 1), (1, 2)):
            na, nb = (results.get(SCALING[i], {}).get("ours", {}).get("info", {}).get("rows")
                      for i in (a, b))
            if walls[a] and walls[b]:
                cells.append(f"{walls[b] / walls[a]:.1f} (n log n: {_nlogn(na, nb):.1f})")
            else:
                cells.append("-")
        rows.append(cells)
    return rows


def candidate_rows(results: dict) -> list[list[str]]:
    """The rules stage's output at 10k/100k/1M: candidates, their summed covers, and time per case.

    c4.5rules keeps one candidate rule per leaf and needs the cases each one covers (the subset
    search counts over them), so a run of the exact method does work at least proportional to
    the summed covers, however it counts; the last row shows whether the stage is linear in it.
    """
    have = [n for n in SCALING if n in results]
    if len(have) < 2:
        return []
    info = {n: results[n]["ours"]["info"] for n in have}
    if not all("candidate_cover" in i for i in info.values()):
        return []
    rows = []
    for label, value, fmt in (
            ("candidate rules", lambda n: info[n]["candidates"], "{:,}"),
            ("summed candidate covers", lambda n: info[n]["candidate_cover"], "{:,}"),
            ("rules wall s per million covered cases",
             lambda n: (_wall(results, n, "rules") or math.nan) / info[n]["candidate_cover"] * 1e6, "{:.3f}")):
        vals = [value(n) if n in info else None for n in SCALING]
        cells = [label] + ["-" if v is None else fmt.format(v) for v in vals]
        for a, b in ((0, 1), (1, 2)):
            ok = vals[a] is not None and vals[b] is not None and vals[a] > 0
            cells.append(f"{vals[b] / vals[a]:.1f}" if ok else "-")
        rows.append(cells)
    return rows


SCALE_SLACK = 1.5  # "near n log n": growth at most 1.5x the n log n factor per 10x rows


def targets(results: dict) -> list[list[str]]:
    def yn(ok):
        return "?" if ok is None else "yes" if ok else "no"

    out = []
    t1m = _wall(results, "synth_1m", "total")
    st1m = stage_results(results["synth_1m"]) if "synth_1m" in results else None
    out.append(["synth 1M: tree + rules < 60 s wall", yn(None if st1m is None else (t1m is not None and t1m < 60)),
                "not run" if st1m is None else _with_unit(st1m["total"])])

    if st1m is not None and "data_bytes" in results["synth_1m"]["ours"]["info"]:
        data_kb = results["synth_1m"]["ours"]["info"]["data_bytes"] / 1024
        peaks = [st1m[s]["peak_kb"] for s in ("tree", "rules") if "peak_kb" in st1m[s]]
        ok = len(peaks) == 2 and max(peaks) < 3 * data_kb
        detail = (f"peak over baseline {_mb(max(peaks))} MB during tree/rules vs 3 x {_mb(data_kb)} MB"
                  if peaks else "tree/rules did not finish")
        if "peak_kb" in st1m["load"]:
            detail += f" (load itself peaks at {_mb(st1m['load']['peak_kb'])} MB)"
        out.append(["synth 1M: peak memory < 3x the encoded data", yn(ok if peaks else False), detail])
    else:
        out.append(["synth 1M: peak memory < 3x the encoded data", "?", "not run"])

    t100 = _wall(results, "synth_100k", "total")
    out.append(["synth 100k: tree + rules < 6 s wall",
                yn(None if "synth_100k" not in results else (t100 is not None and t100 < 6)),
                "not run" if "synth_100k" not in results
                else _with_unit(stage_results(results["synth_100k"])["total"])])

    sk = sklearn_fit(results["synth_1m"]) if st1m is not None else None
    if sk is not None and "wall" in sk and t1m is not None:
        out.append(["ours (tree + rules) / sklearn fit <= 1.0 at 1M", yn(t1m / sk["wall"] <= 1.0),
                    f"{t1m:.1f} s / {sk['wall']:.1f} s = {t1m / sk['wall']:.2f}"])
    else:
        out.append(["ours (tree + rules) / sklearn fit <= 1.0 at 1M", "?" if sk is None or t1m is None and
                    st1m is None else "no",
                    "not measured" if sk is None else f"ours {_secs(st1m['total'])}, sklearn {_secs(sk)}"])

    srows = scaling_rows(results)
    if srows and all(n in results for n in SCALING):
        bad, unknown = [], []
        for s in TABLE_STAGES[:-1]:
            w = [_wall(results, n, s) for n in SCALING]
            if None in w:
                unknown.append(s)
                continue
            ns = [results[n]["ours"]["info"]["rows"] for n in SCALING]
            for i in (0, 1):
                if w[i + 1] / w[i] > SCALE_SLACK * _nlogn(ns[i], ns[i + 1]):
                    note = ""
                    covers = [results[n]["ours"]["info"].get("candidate_cover") for n in SCALING[i:i + 2]]
                    if s == "rules" and all(covers):
                        note = f" (its summed candidate covers x{covers[1] / covers[0]:.1f})"
                    bad.append(f"{s} {SCALING[i]}->{SCALING[i + 1]} x{w[i + 1] / w[i]:.1f}{note}")
        detail = "; ".join(bad + ([f"no 1M time for {', '.join(unknown)}"] if unknown else [])) or "all stages"
        out.append([f"every stage near n log n (growth per 10x rows <= {SCALE_SLACK} x n log n factor)",
                    yn(not bad and not unknown), detail + " (see the scaling table)"])
    else:
        out.append(["every stage near n log n", "?", "needs synth_10k, synth_100k and synth_1m"])

    p, where = None, ""
    if st1m is not None and "wall" in st1m["predict"]:
        p, where = st1m["predict"], "synth_1m rules on synth_1m"
    elif "synth_100k" in results and "wall" in stage_results(results["synth_100k"])["predict 1M"]:
        p, where = stage_results(results["synth_100k"])["predict 1M"], "synth_100k rules on its cases x10"
    others = [f"{n} {stage_results(r)['predict 1M']['wall']:.2f}" for n, r in results.items()
              if "wall" in stage_results(r)["predict 1M"]]
    out.append(["RuleSet.predict on 1M rows < 2 s (synth)", yn(None if p is None else p["wall"] < 2),
                ("not run" if p is None else f"{_secs(p)} s ({where})")
                + (f"; predict 1M on every dataset: {', '.join(others)} s" if others else "")])

    lines, verdict = [], []
    for name, res in results.items():
        rows = res["ours"]["info"].get("rows", 0)
        ref, finished = reference_total(name)
        if rows <= 10_000 or ref is None:
            continue
        ours = stage_results(res)["total"].get("wall")
        ok = ours is not None and ours < ref
        verdict.append(ok)
        lines.append(f"{name} {'?' if ours is None else f'{ours:.1f}'} vs {'' if finished else '> '}{ref:.1f}")
    out.append(["faster than C4.5 R8 (c4.5 + c4.5rules wall) on every dataset over 10k rows",
                yn(all(verdict) if verdict else None), "; ".join(lines) or "no such dataset run"])
    return out


# ----------------------------------------------------------------------------- report

def read_previous(path: Path) -> dict:
    if not path.exists():
        return {}
    text = path.read_text()
    i = text.find(RESULTS_MARK)
    if i < 0:
        return {}
    body = text[i + len(RESULTS_MARK):text.index("-->", i)]
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        return {}


def render_markdown(results: dict, mach: dict, args) -> str:
    stamps = {json.dumps(r["measured"], sort_keys=True) for r in results.values()}
    latest = max((r["measured"] for r in results.values()), key=lambda s: s["date"])
    out = ["# Benchmarks", "",
           "Written by `python bench/run.py` (issue 6); re-run it to refresh this file. "
           "Times are seconds, best of `--repeat` (each repeat a fresh process; peak MB: the highest of them); "
           "the machine is shared, so expect noise of 10-20%.", "",
           f"Measured {latest['date']} at commit {latest['commit']}"
           + ("" if len(stamps) == 1 else " (some datasets earlier, see below)") + ".", "",
           "Machine: " + ", ".join(f"{k} {v}" for k, v in mach.items()) + ".", "",
           "- stage `total` = tree + rules (the fit; load excluded, as it is from sklearn's fit time).",
           "- `peak MB`: resident high-water mark during the stage minus the interpreter's RSS after "
           "imports (fresh process per dataset); `data MB`: encoded data (column nbytes + y); "
           "`peak/data` = peak MB / data MB.",
           "- `sklearn fit s`: `DecisionTreeClassifier(criterion='entropy')` grown in full on the same "
           "loaded data (discrete columns as ordinal codes, unknown as NaN, float32), in its own "
           "process; `ours/sklearn` = our stage wall / sklearn fit wall.",
           "- `C4.5 R8 wall s`: the reference programs on this kind of machine, from "
           "`../shared/reference/SUMMARY.md` (tree row: c4.5, rules row: c4.5rules, total: both).",
           "- `predict`: `RuleSet.predict` on the training data (1M rows for synth_1m); `predict 1M`: "
           "the same rules on the training cases repeated to 1,000,000 rows.",
           "- `load avg`: the machine's 1-minute load average when the dataset started and ended "
           "(above 1 means something else competed for the 2 cores).",
           "- `NAME -jN` rows: tree and rules with N worker processes (option `jobs`); their CPU s "
           "include the workers' and their peak is the larger of the parent's high-water mark and the "
           "sampled summed PSS of parent and workers (shared pages counted once).", "",
           "## Results", "", markdown_table(HEADER, table_rows(results)), ""]
    if len(stamps) > 1:
        out += ["Measured at: " + "; ".join(f"{n} {r['measured']['date']} ({r['measured']['commit']})"
                                          for n, r in results.items()), ""]
    for suffix in sorted({_suffix(k) for k in results}):
        # each worker count on its own: the same targets and scaling, over that count's runs
        view = {_base(k): r for k, r in results.items() if _suffix(k) == suffix}
        which = "" if not suffix else f" with {suffix.strip()[2:]} workers ({suffix.strip()})"
        srows = scaling_rows(view)
        if srows:
            out += [f"## Scaling in rows{which}", "",
                    "Wall seconds at 10k, 100k and 1M rows of the synthetic data, and the growth factor per "
                    "10x rows next to what n log n would give.", "",
                    markdown_table(["stage", "10k", "100k", "1M", "10k -> 100k", "100k -> 1M"], srows), ""]
            crows = candidate_rows(view)
            if crows:
                out += ["What the rules stage produces along the way: c4.5rules generalises one candidate "
                        "rule per leaf of the unpruned tree and keeps, for each, the training cases it "
                        "covers, which the subset search then counts over. An exact implementation does "
                        "work at least proportional to the summed covers, so once fixed costs are small "
                        "the stage cannot grow more slowly than they do.", "",
                        markdown_table(["rules stage", "10k", "100k", "1M", "10k -> 100k", "100k -> 1M"],
                                       crows), ""]
        out += [f"## Targets (issue 6){which}", "",
                markdown_table(["target", "met", "detail"], targets(view)), ""]
    extra = []
    for n, r in results.items():
        i = r["ours"]["info"]
        if "rules" in i:
            extra.append(f"{n}: unpruned tree {i['unpruned_size']} nodes, pruned {i['pruned_size']}, "
                         f"{i['rules']} rules")
    if extra:
        out += ["Model sizes: " + "; ".join(extra) + ".", ""]
    out += [RESULTS_MARK, json.dumps(results, indent=None, sort_keys=True), "-->", ""]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=DEFAULT_DATASETS)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--markdown", default=None, help="write the report to this file (BENCHMARKS.md)")
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per dataset and side")
    ap.add_argument("--timeout-per-stage", type=float, default=None)
    ap.add_argument("--fresh", action="store_true", help="drop earlier results kept in --markdown")
    ap.add_argument("--profile", default=None, metavar="DIR")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for our tree and rules stages")
    ap.add_argument("--rerender", action="store_true",
                    help="run nothing: rewrite --markdown from the results stored in it")
    ap.add_argument("--child-ours", help=argparse.SUPPRESS)
    ap.add_argument("--child-sklearn", help=argparse.SUPPRESS)
    ap.add_argument("--stem", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_ours:
        child_ours(args.stem, args.child_ours, args.profile, args.jobs)
        return 0
    if args.child_sklearn:
        child_sklearn(args.stem, args.child_sklearn)
        return 0
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)

    names = [] if args.rerender else [n.strip() for n in args.datasets.split(",") if n.strip()]
    stems = {n: dataset_stem(n) for n in names}  # fail on an unknown name before running anything
    del stems
    results = {run_key(n, args.jobs): run_dataset(n, args) for n in names}
    if results:
        print(markdown_table(HEADER, table_rows(results)))
    if args.markdown and not args.profile:
        path = Path(args.markdown)
        merged = {} if args.fresh else read_previous(path)
        merged.update(results)
        known = DEFAULT_DATASETS.split(",")
        order = sorted(merged, key=lambda k: (_suffix(k), known.index(_base(k)) if _base(k) in known else len(known),
                                             _base(k)))
        merged = {n: merged[n] for n in order}
        kept = kept_sections(path.read_text()) if path.exists() else []
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("\n".join([render_markdown(merged, machine(), args), *kept]))
        os.replace(tmp, path)
        print(f"\nwrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
