"""`c45rules audit`: query the decision service's audit trail, and replay it."""
from __future__ import annotations

import argparse
import json
import sys

from .options import positive_int, whole

HELP = "list the decisions a service logged (by model, time, rule), or replay them with the logged models"
EXAMPLE = ("c45rules audit sqlite:audit.sqlite --model credit --since 2026-03-01 --rule 0\n"
           "  c45rules audit sqlite:audit.sqlite --replay\n"
           "  c45rules audit sqlite:audit.sqlite --compare --model credit")
PARENTS = ()


def configure(p: argparse.ArgumentParser) -> None:
    """The audit command's arguments."""
    p.add_argument("store", metavar="STORE", help="sqlite:PATH (or a path; its workers' files PATH-1, PATH-2, ..."
                   " are read with it) or postgresql://...")
    p.add_argument("--model", metavar="NAME", help="only the decisions of this model name")
    p.add_argument("--since", metavar="TIME", help="only decisions at or after this ISO 8601 date or"
                   " time (no zone: UTC), e.g. 2026-03-01 or 2026-03-01T14:30:00Z")
    p.add_argument("--rule", type=whole, metavar="ID", help="only decisions of this rule id (0: the default class;"
                   " a regression model's decisions where rule ID fired)")
    p.add_argument("--limit", type=positive_int, metavar="N", help="at most N decisions (the oldest first)")
    p.add_argument("--json", action="store_true",
                   help='one JSON object a line, in ASCII: {"time", "request_id", "seq", "model", "fingerprint",'
                        ' "record", "class", "rule_id", "confidence"} (for a regression model "value" and "rules" in place'
                        ' of the last three); every stored value comes out, a'
                        ' character beyond ASCII as a \\uXXXX escape (a lone surrogate as \\udXXX, a'
                        ' stored byte that is not UTF-8 as \\udcXX)')
    p.add_argument("--replay", action="store_true",
                   help="decide every selected record again with the model version that decided it and"
                        " report each difference (exit 1 if any)")
    p.add_argument("--compare", action="store_true",
                   help="champion against challenger (`serve --shadow`): for each pair of model versions,"
                        " the rules that differ and how many logged records the two decide differently,"
                        " by class pair and by rule, as `diff --data` reports (--json: its JSON)")


def run(args: argparse.Namespace) -> int:
    """Print the selected decisions, or replay them."""
    from ..service.audit import export_text as t, parse_since
    from ..service.workerfiles import open_audit
    since = None if args.since is None else parse_since(args.since)
    if args.compare and (args.replay or args.rule is not None or args.limit is not None):
        from ..errors import InputError
        raise InputError("--compare takes --model and --since (not --replay, --rule or --limit)")
    # the listing writes stored texts as they are where printable: a character this terminal's
    # encoding lacks comes out escaped rather than stopping the listing
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    store = open_audit(args.store)   # a SQLite store with its workers' files, or PostgreSQL
    if args.compare:
        try:
            return _compare(store, args, since)
        finally:
            store.close()
    rows = store.decisions(args.model, since, args.rule, args.limit)
    try:
        if args.replay:
            return _replay(store, rows, args)
        out = sys.stdout
        for d in rows:
            if args.json:
                out.write(d.json_line() + "\n")
            else:
                head = f"{t(d.time)}  {t(d.model)}  {t(d.fingerprint[:19])}  {t(d.request_id)}/{d.seq}"
                if d.value is not None:   # a regression model's number, and the rules that fired
                    several = any(k > 1 for k, _, _ in d.rules)   # committee:rule when there are committees
                    fired = ",".join(f"{k}:{r}" if several else str(r) for k, r, _ in d.rules) or "none"
                    out.write(f"{head}  value {d.value:.6g}  rules {fired}  {t(d.record)}\n")
                else:
                    out.write(f"{head}  class {t(d.klass)}  rule {d.rule_id}  {d.confidence:g}  {t(d.record)}\n")
        return 0
    finally:
        del rows   # its cursors close before their connections
        store.close()


def _replayed(version, d) -> str | None:
    """How a logged decision differs when its record is decided again by `version` (None: it does not)."""
    from ..errors import C45RulesError
    try:
        record = json.loads(d.record)
        if version.decides_numbers:   # a regression model: the number and the rules fired, exactly
            values, fired = version.decider.decide_many([record])
            if (values[0], tuple(fired[0])) == (d.value, d.rules):
                return None
            return f"logged value {d.value!r} (rules {list(d.rules)}), now {values[0]!r} (rules {fired[0]})"
        k = version.decider.position(record)
    except (C45RulesError, ValueError) as e:
        return f"the record no longer decides: {e}"
    now = (version.decider.classes[k], int(version.decider.rule_ids[k]), float(version.decider.confidences[k]))
    logged = (d.klass, d.rule_id, d.confidence)
    return None if now == logged else (f"logged class {logged[0]} rule {logged[1]} confidence"
                                       f" {logged[2]:g}, now class {now[0]} rule {now[1]}"
                                       f" confidence {now[2]:g}")


def _replay(store, rows, args: argparse.Namespace) -> int:
    """Re-decide each logged record with its logged model; print the differences."""
    from ..errors import C45RulesError
    from ..service.audit import export_json, export_text as t
    from ..service.models import load_version
    versions: dict = {}
    total = differ = 0
    for d in rows:
        total += 1
        if d.fingerprint not in versions:
            text = store.model_text(d.fingerprint)
            try:
                versions[d.fingerprint] = None if text is None else load_version(d.model, text.encode("utf-8", "surrogateescape"))
            except C45RulesError as e:
                versions[d.fingerprint] = e
        version = versions[d.fingerprint]
        if version is None or isinstance(version, Exception):
            why = "not in the store" if version is None else f"does not load ({version})"
            problem = f"model version {d.fingerprint} {why}"
        else:
            problem = _replayed(version, d)
        if problem is not None:
            differ += 1
            if args.json:
                print(export_json({"request_id": d.request_id, "seq": d.seq, "model": d.model,
                                   "fingerprint": d.fingerprint, "problem": problem}))
            else:
                print(f"{t(d.time)}  {t(d.model)}  {t(d.request_id)}/{d.seq}: {t(problem)}")
    summary = (f"replayed {total} decision{'s' * (total != 1)} of {len(versions)} model"
               f" version{'s' * (len(versions) != 1)}: {differ} differ")
    print(f"c45rules: {summary}", file=sys.stderr)
    return 1 if differ else 0


def _compare(store, args: argparse.Namespace, since: str | None) -> int:
    """Each champion/challenger pair of versions as `diff --data` reports two models (exit 0)."""
    from dataclasses import replace

    from ..errors import InputError
    from ..govern.diff import decision_changes, describe, diff_rulesets
    from ..service.audit import export_text as t
    from ..service.models import load_version
    from ..service.numbers import compare_numbers
    from ..service.shadow import count_pairs
    numbers: dict = {}
    pairs = count_pairs(store.shadowed(args.model, since), numbers)

    def version(name: str, fingerprint: str):
        text = store.model_text(fingerprint)
        if text is None:
            raise InputError(f"audit store: model version {fingerprint} of {name} is not in the store")
        return load_version(name, text.encode("utf-8", "surrogateescape")).ruleset
    for (name, champion, challenger), counts in sorted(pairs.items()):
        old, new = version(name, champion), version(name, challenger)
        d = replace(diff_rulesets(old, new), **decision_changes(counts))
        if args.json:
            print(json.dumps({"model": name, "champion": champion, "challenger": challenger, **d.as_json()}))
        else:
            print(f"Model {t(name)}: champion {champion} -> challenger {challenger}")
            sys.stdout.write(describe(d, old, new, "the logged records"))
    for (name, champion, challenger), values in sorted(numbers.items()):
        # numbers (regression models): how many records disagree, and by how much
        summary = compare_numbers(values)
        if args.json:
            print(json.dumps({"model": name, "champion": champion, "challenger": challenger, **summary}))
        else:
            print(f"Model {t(name)}: champion {champion} -> challenger {challenger}\n"
                  f"  {summary['records']} logged records, {summary['disagree']} decided differently"
                  f" ({summary['disagreement']}); largest difference {summary['largest_difference']:.6g},"
                  f" mean difference (challenger - champion) {summary['mean_difference'] or 0:.6g}")
    if not pairs and not numbers:
        print("c45rules: no decisions of a shadow model in the store (serve --shadow NAME=FILE logs them)",
              file=sys.stderr)
    return 0
