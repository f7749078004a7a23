#!/usr/bin/env python3
"""Fidelity table: our trees and rulesets against C4.5 R8's outputs on every shared dataset.

Usage: python bench/fidelity.py [--trees-only | --rules-only | --cart | --j48 | --chaid | --window | --soft]
                              [--jobs N] [NAME ...]
Prints markdown tables, one row per dataset: ours vs the reference, match yes/no. A
ruleset matches when every rule (id, conditions as printed, class, order, confidence),
the default class and the train/test error counts equal what c4.5rules printed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as R  # noqa: E402

from c45rules.data import load_stem  # noqa: E402
from c45rules.tree.classify import classify  # noqa: E402
from c45rules.tree.grow import grow_tree  # noqa: E402
from c45rules.tree.prune import prune_tree  # noqa: E402
from c45rules.tree.report import format_tree  # noqa: E402
from c45rules.learn.pipeline import learn_rules, learn_tree  # noqa: E402
import numpy as np  # noqa: E402


JOBS = 1   # --jobs


def errors(tree, data):
    return None if data is None else int((classify(tree, data) != data.y).sum())


def tree_row(name: str) -> tuple[list, bool]:
    ref = R.tree_summary()[name]
    train, test = load_stem(R.stem(name), test=True)
    t = time.perf_counter()
    u = grow_tree(train, jobs=JOBS)
    p = prune_tree(u, train)
    secs = time.perf_counter() - t
    ours = [u.size(), errors(u, train), errors(u, test), p.size(), errors(p, train), errors(p, test),
            f"{100 * p.errors / train.n:.1f}"]
    theirs = [ref[k] for k in ("u_size", "u_train", "u_test", "p_size", "p_train", "p_test", "estimate")]
    ok = [str("-" if o is None else o) == str(r) for o, r in zip(ours, theirs)]
    same_text = _same_printed_tree(format_tree(u, train.schema), R.tree_text(name))
    return [name, *(f"{o if o is not None else '-'}" + ("" if k else f" ({r})") for o, r, k in zip(ours, theirs, ok)),
            same_text, f"{secs:.2f}", ref["wall"]], all(ok)


def _same_printed_tree(ours: str, ref: str) -> str:
    """'yes' when the texts are equal; c4.5 prints at most 99 separate subtrees and writes
    `[S??]` for the rest, so then every line it did print must appear in ours, in order."""
    if ours == ref:
        return "yes"
    if "[S??]" not in ref:
        return "no"
    mine = iter(ours.splitlines())
    for line in ref.splitlines():
        want = line.replace("[S??]", "").rstrip()
        if not any(m.rstrip() == want for m in mine):
            return "no"
    return "yes (all c4.5 printed; it elided subtrees as [S??])"


def rules_row(name: str) -> tuple[list, str]:
    """Our ruleset vs c4.5rules' on one dataset; verdict 'yes', 'NO' or 'no reference'."""
    refs = R.rules_summary()[name]
    ref = R.rules(name)
    train, test = load_stem(R.stem(name), test=True)
    t = time.perf_counter()
    tree = learn_tree(train, jobs=JOBS)
    rs, _ = learn_rules(tree, train, jobs=JOBS)
    secs = time.perf_counter() - t
    classes = np.array(train.schema.classes, dtype=object)
    err = lambda d: None if d is None else int((rs.predict(d) != classes[d.y]).sum())  # noqa: E731
    conds = sum(len(r.conditions) for r in rs.rules)
    ours = [len(rs.rules), conds, rs.default_class, err(train), err(test)]
    ref_wall = float(R.tree_summary()[name]["wall"]) + float(refs["wall"])
    if ref is None:
        return [name, *("-" if v is None else v for v in ours), "-", f"{secs:.2f}",
                f"> {ref_wall:.0f} (not finished)"], "no reference"
    # conditions counted on the printed final rules after "Drop rule" (SUMMARY.md counts
    # them before the drops while it counts rules after them)
    theirs = [len(ref.rules), sum(len(r.conditions) for r in ref.rules), refs["default"],
              int(refs["train_err"]), None if refs["test_err"] == "-" else int(refs["test_err"])]
    mine = [(r.id, [str(c) for c in r.conditions], r.prediction, f"{100 * r.confidence:.1f}")
            for r in rs.rules]
    printed = [(r.id, r.conditions, r.klass, r.confidence) for r in ref.rules]
    same_rules = mine == printed
    cells = [f"{'-' if o is None else o}" + ("" if o == r else f" ({'-' if r is None else r})")
             for o, r in zip(ours, theirs)]
    ok = same_rules and ours == theirs
    return [name, *cells, "yes" if same_rules else _first_difference(mine, printed), f"{secs:.2f}",
            f"{ref_wall:.2f}"], "yes" if ok else "NO"


def _first_difference(mine: list, printed: list) -> str:
    for a, b in zip(mine, printed):
        if a != b:
            return f"no: rule {a[0]} vs {b[0]}"
    return f"no: {len(mine)} vs {len(printed)} rules"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--trees-only", action="store_true")
    ap.add_argument("--rules-only", action="store_true")
    ap.add_argument("--cart", action="store_true",
                    help="only the table of the cart grower against R rpart 4.1.19 (../shared/reference/rpart)")
    ap.add_argument("--j48", action="store_true",
                    help="only the table of the j48 grower against Weka 3.6.14's J48 (../shared/reference/j48)")
    ap.add_argument("--chaid", action="store_true",
                    help="only the table of the chaid grower against the CHAID package (PyPI; the test extra)")
    ap.add_argument("--window", action="store_true",
                    help="only the tables of windowing (-t 10) and the composite rulesets against"
                         " ../shared/reference/c45r8-options")
    ap.add_argument("--soft", action="store_true", help="only the table of soft thresholds (-p)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (the results must not change)")
    args = ap.parse_args()
    global JOBS
    JOBS = args.jobs
    if args.window:
        window_tables(args.names or R.option_sets("tree_t10"))
        return
    if args.soft:
        soft_table(args.names or R.option_sets("tree_p"))
        return
    if args.cart:
        cart_table(args.names or R.rpart_datasets())
        return
    if args.j48:
        j48_table(args.names or R.j48_datasets())
        return
    if args.chaid:
        chaid_table(args.names or [n for n in R.datasets() if n not in CHAID_TOO_LARGE])
        return
    names = args.names or R.datasets()
    if not args.rules_only:
        trees(names)
    if not args.trees_only:
        rules(names)


def rules(names: list[str]) -> None:
    print("\n## Rulesets (ours, with the reference in parentheses where different)\n")
    print("| dataset | rules | conditions | default class | train err | test err | same rules | ours s (tree+rules) | ref s (c4.5 + c4.5rules) | match |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    for n in names:
        row, verdict = rules_row(n)
        verdicts.append(verdict)
        print("| " + " | ".join(map(str, row)) + f" | {verdict} |", flush=True)
    with_ref = [v for v in verdicts if v != "no reference"]
    print(f"\nRulesets matching the reference exactly: {with_ref.count('yes')}/{len(with_ref)}"
          f" ({len(verdicts) - len(with_ref)} without a reference ruleset)")


def trees(names: list[str]) -> None:
    print("## Trees (ours, with the reference in parentheses where different)\n")
    print("| dataset | unpruned size | train err | test err | pruned size | train err | test err | estimate % | same printed tree | ours s | ref s | match |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    matched = 0
    for n in names:
        row, ok = tree_row(n)
        matched += ok
        print("| " + " | ".join(map(str, row)) + f" | {'yes' if ok else 'NO'} |", flush=True)
    print(f"\nTrees matching the reference (size, errors, estimate): {matched}/{len(names)}")


def window_tables(names: list[str]) -> None:
    """Windowing (c4.5 -t 10) and the composite rulesets (c4.5rules on its trees) against the
    reference: the whole printed -t output, and c4.5rules' closing trial tables."""
    from c45rules.rules.composite import composite_rules
    from c45rules.rules.evaluate import evaluate
    from c45rules.rules.report import format_composite, trial_table
    from c45rules.tree.report import format_windowing
    from c45rules.tree.window import window_trees
    tree_rows, rule_rows = [], []
    for n in names:
        train, test = load_stem(R.stem(n), test=True)
        t = time.perf_counter()
        run = window_trees(train, trials=10)
        tree_secs = time.perf_counter() - t
        best = run.trials[run.best]
        same = format_windowing(run, train, test) == R.windowing_text(n)
        tree_rows.append([n, run.window, run.increment, sum(len(x.cycles) for x in run.trials), run.best,
                          best.pruned.size(), errors(best.pruned, train), "-" if test is None else errors(best.pruned, test),
                          f"{tree_secs:.1f}", "yes" if same else "NO"])
        t = time.perf_counter()
        comp = composite_rules([x.unpruned for x in run.trials], train)
        rule_secs = time.perf_counter() - t
        rulesets = [rs for rs, _ in comp.trials] + [comp.ruleset]
        datas = [train] if test is None else [train, test]
        tables = [trial_table(rulesets, [evaluate(rs, d).errors for rs in rulesets], d.n) for d in datas]
        text = (R.OPTIONS / f"{n}.rules_t10.txt").read_text()
        theirs = [("\nTrial   Size      Errors\n" + part[:part.index("\n", part.index("Av size")) + 1])
                  for part in text.split("\nTrial   Size      Errors\n")[1:]]
        whole = R.undated(format_composite(comp, train, test, n)) == R.composite_text(n)
        rule_rows.append([n, len(comp.ruleset.rules), evaluate(comp.ruleset, train).errors,
                          "-" if test is None else evaluate(comp.ruleset, test).errors,
                          f"{sum(len(rs.rules) for rs in rulesets[:-1]) / 10:.1f}", f"{rule_secs:.1f}",
                          "yes" if tables == theirs else "NO", "yes" if whole else "NO"])
    print("## Windowing (-t 10)\n")
    print("| dataset | window | increment | cycles | best trial | pruned size | train err | test err | ours s |"
          " same output as c4.5 -t 10 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in tree_rows:
        print("| " + " | ".join(map(str, row)) + " |")
    print(f"\nSets whose whole -t 10 output equals c4.5's: {sum(r[-1] == 'yes' for r in tree_rows)}/{len(tree_rows)}")
    print("\n## Composite rulesets\n")
    print("| dataset | composite rules | train err | test err | mean rules per trial | ours s (rules only) |"
          " same trial tables as c4.5rules | same whole text |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rule_rows:
        print("| " + " | ".join(map(str, row)) + " |")
    print(f"\nSets whose per-trial and composite rules and errors equal c4.5rules': "
          f"{sum(r[-2] == 'yes' for r in rule_rows)}/{len(rule_rows)}")
    print(f"Sets whose whole c4.5rules output (its banner's run date aside) is c4.5rules': "
          f"{sum(r[-1] == 'yes' for r in rule_rows)}/{len(rule_rows)}")


def soft_table(names: list[str]) -> None:
    """Soft thresholds (c4.5 -p) against the reference: the bands and the trees printed with them."""
    from c45rules.tree.report import format_soft
    from c45rules.tree.soft import soften
    from c45rules.tree.window import read_order_tree
    print("## Soft thresholds (-p)\n")
    print("| dataset | cuts softened | tree s | bands s | same trees and bands as c4.5 -p |")
    print("|---|---|---|---|---|")
    same_n = 0
    for n in names:
        train, _ = load_stem(R.stem(n), test=False)
        t = time.perf_counter()
        # the two steps of pipeline.soft_tree (what `tree -p` and `fit -p` run), timed apart
        unpruned, pruned = read_order_tree(train)     # c4.5's order of the cases
        grow_secs = time.perf_counter() - t
        t = time.perf_counter()
        soften(pruned, train)
        secs = time.perf_counter() - t
        text = (R.OPTIONS / f"{n}.tree_p.txt").read_text()
        same = format_soft(unpruned, pruned, train.schema) + "\n" == \
            text[text.index("Decision Tree:"):text.index("Tree saved")]
        same_n += same
        cuts = sum(node.soft is not None for node in pruned.walk())
        print(f"| {n} | {cuts} | {grow_secs:.2f} | {secs:.2f} | {'yes' if same else 'NO'} |", flush=True)
    print(f"\nSets whose -p trees and bands equal c4.5's: {same_n}/{len(names)}")


def cart_rows(name: str) -> list[tuple[str, dict, dict]]:
    """(control, ours, rpart's) for each control of NAME.rpart.txt; each a dict of leaves and errors."""
    from c45rules.tree.growers import cart
    train, test = load_stem(R.stem(name), test=True)
    refs = R.rpart_summary(name)
    out = []
    for control, options in R.RPART_CONTROLS.items():
        tree = cart.grow(train, options)
        use = tree.options["usesurrogate"]
        errors = lambda d: None if d is None else int((cart.predict(tree.pruned, d, use) != d.y).sum())  # noqa: E731
        ours = {"leaves": tree.pruned.leaves(), "train_errors": errors(train), "test_errors": errors(test)}
        out.append((control, ours, refs[control]))
    return out


def cart_table(names: list[str]) -> None:
    """The markdown table CART vs rpart 4.1.19: per set and control, ours/rpart, agree yes/no."""
    print("## CART vs rpart 4.1.19\n")
    print("| dataset | control | leaves ours/rpart | train errors ours/rpart | test errors ours/rpart | agree |")
    print("|---|---|---|---|---|---|")
    agree = total = 0
    for n in names:
        for control, ours, ref in cart_rows(n):
            ok = ours == ref
            agree += ok
            total += 1
            cell = lambda k: f"{'-' if ours[k] is None else ours[k]}/{'-' if ref[k] is None else ref[k]}"  # noqa: E731
            print(f"| {n} | {control} | {cell('leaves')} | {cell('train_errors')} | {cell('test_errors')} |"
                  f" {'yes' if ok else 'no'} |", flush=True)
    print(f"\nAgreement (same leaves, training and test errors): {agree}/{total} = {100 * agree / total:.1f}%")


def j48_rows(name: str) -> list[tuple[str, dict | None, dict | None, float]]:
    """(option, ours, J48's, our seconds) per J48 reference file of NAME; J48's None when the
    file is empty (Weka 3.6.14 has no -J: it printed nothing), ours None then too."""
    from c45rules.tree.growers import j48, tree_classes
    train, test = load_stem(R.stem(name), test=True)
    out = []
    for option, options in R.J48_OPTIONS.items():
        if (R.J48 / f"{name}.j48_{option}.txt").stat().st_size == 0:
            out.append((option, None, None, 0.0))
            continue
        t = time.perf_counter()
        tree = j48.grow(train, dict(options))
        secs = time.perf_counter() - t
        errors = lambda d: None if d is None else int((tree_classes(tree, d) != d.y).sum())  # noqa: E731
        ours = {"leaves": tree.pruned.leaves(), "size": tree.pruned.size(), "train_errors": errors(train),
                "test_errors": errors(test)}
        out.append((option, ours, R.j48_summary(name, option), secs))
    return out


def j48_table(names: list[str]) -> None:
    """The markdown table J48 vs Weka 3.6.14: per set and option, ours/J48's, agree yes/no."""
    print("## J48 vs Weka 3.6.14\n")
    print("| dataset | option | leaves ours/J48 | size ours/J48 | train errors ours/J48 | test errors ours/J48"
          " | agree | ours s |")
    print("|---|---|---|---|---|---|---|---|")
    agree = total = 0
    per_option: dict[str, list[int]] = {}
    for n in names:
        for option, ours, ref, secs in j48_rows(n):
            if ref is None:
                continue
            ok = ours == ref
            agree += ok
            total += 1
            per_option.setdefault(option, [0, 0])
            per_option[option][0] += ok
            per_option[option][1] += 1
            cell = lambda k: f"{'-' if ours[k] is None else ours[k]}/{'-' if ref[k] is None else ref[k]}"  # noqa: E731
            print(f"| {n} | {option} | {cell('leaves')} | {cell('size')} | {cell('train_errors')} |"
                  f" {cell('test_errors')} | {'yes' if ok else 'no'} | {secs:.2f} |", flush=True)
    print("\nPer option: " + ", ".join(f"{o} {a}/{t}" for o, (a, t) in per_option.items()))
    print(f"\nAgreement (same leaves, size, training and test errors): {agree}/{total} = {100 * agree / total:.1f}%")


# sets the comparison leaves out: the package takes too long on them (its ordinal merging
# re-tests every pair in every round)
CHAID_TOO_LARGE = ("fertility", "synth_10k", "synth_100k")


def chaid_table(names: list[str]) -> None:
    """The markdown table chaid vs the CHAID package: same tree (splits, groups, leaves), as is
    and with the package's two departures from Kass reproduced (bench/chaid_package.py)."""
    import chaid_package as P
    print("# CHAID vs the CHAID package\n")
    print(f"Parameters: {', '.join(f'{k} {v}' for k, v in P.PARAMS.items())}; ours without Bonferroni, alpha_split 1.\n")
    print("| dataset | cases | leaves ours/package | same tree | first difference | same with the package's"
          " departures reproduced | ours s | package s |")
    print("|---|---|---|---|---|---|---|---|")
    same = same_reproduced = 0
    for n in names:
        train, _ = load_stem(R.stem(n), test=True)
        t = time.perf_counter()
        ours = P.our_tree(train, **P.PARAMS)
        t1 = time.perf_counter()
        theirs = P.package_tree(train, **P.PARAMS)
        t2 = time.perf_counter()
        reproduced = P.with_package_departures(train, **P.PARAMS)
        d, dr = P.first_difference(ours, theirs), P.first_difference(reproduced, theirs)
        same += d is None
        same_reproduced += dr is None
        print(f"| {n} | {train.n} | {P.leaves(ours)}/{P.leaves(theirs)} | {'yes' if d is None else 'no'} |"
              f" {d or ''} | {'yes' if dr is None else 'no: ' + dr} | {t1 - t:.2f} | {t2 - t1:.2f} |", flush=True)
    k = len(names)
    print(f"\nSame tree: {same}/{k} = {100 * same / k:.1f}%; with the package's departures from Kass"
          f" reproduced: {same_reproduced}/{k} = {100 * same_reproduced / k:.1f}%")


if __name__ == "__main__":
    main()
