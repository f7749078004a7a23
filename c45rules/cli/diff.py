"""`c45rules diff`: what changed between two models, rule by rule and (with data) decision by decision."""
from __future__ import annotations

import argparse
import json
import sys

from .io import data_path, load_model, progress
from .options import read_options, reading_options

HELP = "compare two models: rules added, removed and changed, and (with --data) the decisions that move"
EXAMPLE = ("c45rules diff last_quarter.yaml this_quarter.yaml\n"
           "  c45rules diff old.yaml new.yaml --data applications.csv --json")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The diff command's arguments."""
    p.add_argument("old", metavar="OLD.yaml")
    p.add_argument("new", metavar="NEW.yaml")
    p.add_argument("--data", metavar="DATA",
                   help="score these rows with both models and count the decisions that change")
    p.add_argument("--json", action="store_true",
                   help='print {"rules": {"added", "removed", "changed", "unchanged"}, "decisions": ...}')


def compare(args: argparse.Namespace, old, new):
    """The RuleDiff of two loaded models, scored on --data when given."""
    from ..govern.diff import diff_rulesets
    if not args.data:
        return diff_rulesets(old, new)
    import pandas as pd

    from ..data.frame import encode_frame
    from .cases import read_text_chunks
    progress(args, f"reading {args.data}")
    read = read_options(args)
    _, chunks = read_text_chunks(data_path(args.data), old.schema, 50_000, read)
    frames = list(chunks)
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    old_cases, new_cases = (encode_frame(frame, m.schema, require=m.used_attributes(), source=args.data,
                                         read=read) for m in (old, new))
    return diff_rulesets(old, new, old_cases, new_cases)


def diff_text(d, old, new, data: str | None) -> str:
    """The difference in words, one rule a line."""
    by_old = {r.id: r for r in old.rules}
    by_new = {r.id: r for r in new.rules}
    lines = [f"Rules: {len(d.added)} added, {len(d.removed)} removed, {len(d.changed)} changed,"
             f" {len(d.unchanged)} unchanged"]
    lines += [f"  added    {by_new[i]}" for i in d.added]
    lines += [f"  removed  {by_old[i]}" for i in d.removed]
    for o, n in d.changed:
        lines.append(f"  changed  {by_old[o]}")
        lines.append(f"       to  {by_new[n]}")
    if old.default_class != new.default_class:
        lines.append(f"Default class: {old.default_class} -> {new.default_class}")
    if d.rows is not None:
        lines.append(f"Decisions on {data}: {d.decisions_changed} of {d.rows} rows change")
        lines += [f"  {pair}: {n}" for pair, n in d.flips.items()]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Print the difference (exit 0 whatever it is)."""
    old = load_model(args.old)
    new = load_model(args.new)
    d = compare(args, old, new)
    if args.json:
        print(json.dumps(d.as_json()))
    else:
        sys.stdout.write(diff_text(d, old, new, args.data))
    return 0
