#!/usr/bin/env python3
"""Boosting's accuracy: 10-fold cross-validation of single and boosted rulesets, ours and C5.0's,
on the same folds (issue 34, point 2).

Usage:
  python bench/boost_cv.py [NAME ...] [-k 10] [--seed 0] [--trials 10] [--max-rows 1000]
                           [--recompute | --recompute-boosted] [--markdown FIDELITY.md]

For each dataset (default: every shared set with at most --max-rows training cases), on the
stratified folds of `c45rules cv` (--seed): our single ruleset (default options), ours with
`--trials N`, RuleQuest's `c5.0 -r` and `c5.0 -r -t N` (`-b` is -t 10), each trained and tested
on the very same cases. Prints the mean fold error of each per dataset and over the datasets,
and the seconds each took; with --markdown writes the table as the `boost-cv` section of that
file (the rest of the file is kept).

Each dataset's results are kept in bench/boost_cv_cache.json (keyed by name, k, seed and trials,
with the commit that measured them), so that the large sets, measured once, join later tables;
`--recompute` measures the named sets again; `--recompute-boosted` only our boosted rulesets (the
other three learners' results kept from the cache: they do not change with boost.py), recording
the commit that measured them as `boosted_commit`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))
import reference as R  # noqa: E402
from common import markdown_table, put_section, run_stamp  # noqa: E402

from c45rules.cli.c50 import fold_errors as c50_fold_errors  # noqa: E402
from c45rules.learn.crossval import fold_error, fold_splits  # noqa: E402
from c45rules.data.names import load_stem  # noqa: E402

C50 = R.SHARED / "anchors" / "c5.0"
LEARNERS = ("ours", "ours boosted", "C5.0", "C5.0 boosted")
CACHE = BENCH / "boost_cv_cache.json"


def one(name: str, args, only_boosted: bool = False) -> dict:
    """Every learner's fold error percentages (and rule counts) on one dataset (only our boosted
    rulesets' with `only_boosted`)."""
    data, _ = load_stem(R.stem(name))
    splits = [(tr, te) for _, _, tr, te in fold_splits(data, args.k, args.seed)]
    errors, rules, secs = {}, {}, {}
    for learner, options in (("ours", {}), ("ours boosted", {"trials": args.trials})):
        if only_boosted and learner == "ours":
            continue
        t = time.perf_counter()
        res = [fold_error(data.subset(tr), data.subset(te), options)[:2] + (len(te),) for tr, te in splits]
        secs[learner] = time.perf_counter() - t
        errors[learner] = [100.0 * e / n for e, _, n in res]
        rules[learner] = [r for _, r, _ in res]
    if only_boosted:
        return {"errors": errors, "rules": rules, "secs": secs}
    for learner, extra in (("C5.0", ()), ("C5.0 boosted", ("-t", str(args.trials)))):
        t = time.perf_counter()
        res = c50_fold_errors(str(C50), R.stem(name), splits, len(data.schema.attributes) + 1, extra)
        secs[learner] = time.perf_counter() - t
        errors[learner] = [100.0 * e / n for e, n, _ in res]
        rules[learner] = [r for _, _, r in res]
    return {"name": name, "rows": data.n, "errors": errors, "rules": rules, "secs": secs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--recompute", action="store_true", help="measure the sets again even when cached")
    ap.add_argument("--recompute-boosted", action="store_true",
                    help="measure our boosted rulesets again, the other learners' results from the cache")
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args(argv)
    names = args.names or [n for n in R.datasets() if not n.startswith("synth")
                           and load_stem(R.stem(n))[0].n <= args.max_rows]
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    results = []
    for n in names:
        key = f"{n} k{args.k} seed{args.seed} trials{args.trials}"
        if key in cache and args.recompute_boosted:
            print(f"{n} (ours boosted) ...", file=sys.stderr, flush=True)
            new = one(n, args, only_boosted=True)
            entry = cache[key]
            for field in ("errors", "rules", "secs"):
                entry[field]["ours boosted"] = new[field]["ours boosted"]
            entry["boosted_commit"] = run_stamp()["commit"]
            results.append(entry)
            CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
            mean, secs = np.mean(entry["errors"]["ours boosted"]), entry["secs"]["ours boosted"]
            print(f"  ours boosted {mean:.1f}% ({secs:.1f}s)", file=sys.stderr, flush=True)
            continue
        if key in cache and not args.recompute:
            results.append(cache[key])
            print(f"{n}: cached (commit {cache[key]['commit']})", file=sys.stderr, flush=True)
            continue
        print(f"{n} ...", file=sys.stderr, flush=True)
        results.append(dict(one(n, args), commit=run_stamp()["commit"]))
        cache[key] = results[-1]
        CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
        r = results[-1]
        print("  " + ", ".join(f"{k} {np.mean(v):.1f}% ({r['secs'][k]:.1f}s)" for k, v in r["errors"].items()),
              file=sys.stderr, flush=True)
    rows = [[r["name"], f"{r['rows']:,}"] + [f"{np.mean(r['errors'][k]):.1f}" for k in LEARNERS]
            + [f"{np.mean(r['rules'][k]):.0f}" for k in ("ours boosted", "C5.0 boosted")]
            + [f"{r['secs']['ours boosted']:.1f}"] for r in results]
    means = {k: float(np.mean([np.mean(r["errors"][k]) for r in results])) for k in LEARNERS}
    rows.append([f"mean over {len(results)} sets", ""] + [f"**{means[k]:.2f}**" for k in LEARNERS] + ["", "", ""])
    # the smallest sets swing the mean most (golf: one case is 7 points of a fold's error)
    larger = [r for r in results if r["rows"] >= 100]
    if 0 < len(larger) < len(results):
        rows.append([f"mean over the {len(larger)} sets of 100+ cases", ""]
                    + [f"{np.mean([np.mean(r['errors'][k]) for r in larger]):.2f}" for k in LEARNERS] + ["", "", ""])
    table = markdown_table(["dataset", "rows", *(f"{k} error %" for k in LEARNERS),
                            "ours boosted rules", "C5.0 boosted rules", "ours boosted s"], rows)
    at_or_below = sum(np.mean(r["errors"]["ours boosted"]) <= np.mean(r["errors"]["C5.0 boosted"]) for r in results)
    beats_single = sum(np.mean(r["errors"]["ours boosted"]) < np.mean(r["errors"]["ours"]) for r in results)
    verdict = (f"Mean error of ours with {args.trials} trials {means['ours boosted']:.2f}% against C5.0 -r -t"
               f" {args.trials} {means['C5.0 boosted']:.2f}% and our single ruleset {means['ours']:.2f}%:"
               f" {'at or below' if means['ours boosted'] <= means['C5.0 boosted'] else 'ABOVE'} C5.0's boosted"
               f" rulesets, {'below' if means['ours boosted'] < means['ours'] else 'NOT below'} our single"
               f" ruleset. Per set: at or below C5.0 boosted on {at_or_below} of {len(results)}, below our single"
               f" ruleset on {beats_single} of {len(results)}.")
    summed = {k: sum(float(np.mean(r["rules"][k])) for r in results) for k in ("ours boosted", "C5.0 boosted")}
    verdict += (f" Rules (a fold's boosted model, the mean over the folds) summed over the sets: ours"
                f" {summed['ours boosted']:,.0f}, C5.0 {summed['C5.0 boosted']:,.0f}.")
    if 0 < len(larger) < len(results):
        big = {k: float(np.mean([np.mean(r["errors"][k]) for r in larger])) for k in LEARNERS}
        verdict += (f" Without the sets of fewer than 100 cases (one golf case is 7 points of a fold):"
                    f" ours boosted {big['ours boosted']:.2f}% against C5.0 boosted {big['C5.0 boosted']:.2f}%,"
                    f" {'at or below' if big['ours boosted'] <= big['C5.0 boosted'] else 'ABOVE'} it.")
    print(table)
    print("\n" + verdict, file=sys.stderr)
    if args.markdown:
        stamp = run_stamp()
        put_section(args.markdown, "boost-cv", "\n".join([
            f"# Boosting: {args.k}-fold cross-validation of single and boosted rulesets, ours and C5.0's (issue 34)",
            "",
            f"Written by `python bench/boost_cv.py` on {stamp['date']} (sets measured at commit"
            f" {', '.join(sorted({r.get('commit', '?') for r in results}))}"
            + (f"; ours boosted at {', '.join(sorted({r['boosted_commit'] for r in results if 'boosted_commit' in r}))}"
               if any("boosted_commit" in r for r in results) else "") + "): stratified"
            f" folds (seed {args.seed}) of {len(results)} shared sets; every learner trained and tested on the"
            f" very same cases. `ours`: default options; `ours boosted`: `--trials {args.trials}`"
            " (C5.0's gentle reweighting and leaf budget, c45rules/rules/boost.py); `C5.0`: `c5.0 -r`; `C5.0 boosted`:"
            f" `c5.0 -r -t {args.trials}` (GPL 2.07). Mean fold error in percent; the rules columns are the"
            " mean rules over all trials of a fold's model; `ours boosted s`: seconds for the 10 folds.", "",
            table, "", verdict, ""]))
        print(f"wrote the boost-cv section of {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
