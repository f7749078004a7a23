#!/usr/bin/env python3
"""Fidelity table: our trees and rulesets against C4.5 R8's outputs on every shared dataset.

Usage: python bench/fidelity.py [--trees-only] [NAME ...]
Prints one markdown table row per dataset: ours vs reference, match yes/no.
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


def errors(tree, data):
    return None if data is None else int((classify(tree, data) != data.y).sum())


def tree_row(name: str) -> tuple[list, bool]:
    ref = R.tree_summary()[name]
    train, test = load_stem(R.stem(name), test=True)
    t = time.perf_counter()
    u = grow_tree(train)
    p = prune_tree(u, train)
    secs = time.perf_counter() - t
    ours = [u.size(), errors(u, train), errors(u, test), p.size(), errors(p, train), errors(p, test),
            f"{100 * p.errors / train.n:.1f}"]
    theirs = [ref[k] for k in ("u_size", "u_train", "u_test", "p_size", "p_train", "p_test", "estimate")]
    ok = [str("-" if o is None else o) == str(r) for o, r in zip(ours, theirs)]
    same_text = format_tree(u, train.schema) == R.tree_text(name)
    return [name, *(f"{o if o is not None else '-'}" + ("" if k else f" ({r})") for o, r, k in zip(ours, theirs, ok)),
            "yes" if same_text else "no", f"{secs:.2f}", ref["wall"]], all(ok)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--trees-only", action="store_true")
    args = ap.parse_args()
    names = args.names or R.datasets()
    print("## Trees (ours, with the reference in parentheses where different)\n")
    print("| dataset | unpruned size | train err | test err | pruned size | train err | test err | estimate % | same printed tree | ours s | ref s | match |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    matched = 0
    for n in names:
        row, ok = tree_row(n)
        matched += ok
        print("| " + " | ".join(map(str, row)) + f" | {'yes' if ok else 'NO'} |", flush=True)
    print(f"\nTrees matching the reference (size, errors, estimate): {matched}/{len(names)}")


if __name__ == "__main__":
    main()
