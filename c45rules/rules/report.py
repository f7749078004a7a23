"""Printing a RuleSet's evaluation in the layout of c4.5rules (the rules themselves: ruleset.format_rules)."""
from __future__ import annotations

import time

from ..data.schema import Dataset
from ..learn.pipeline import sifting_stages
from ..model.boosted import BoostedRuleSet
from ..model.ruleset import RuleSet, format_rules, readable
from ..tree.report import format_confusion
from .composite import Composite
from .evaluate import RuleEvaluation, VoteEvaluation, evaluate, evaluate_votes


def format_evaluation(ruleset: RuleSet, data: Dataset, what: str = "training data",
                      ev: RuleEvaluation | None = None) -> str:
    """The 'Rule Size Error Used Wrong Advantage' table, error count and confusion matrix,
    headed `Evaluation on <what> (N items):` (c4.5rules: 'training data', 'test data')."""
    ev = evaluate(ruleset, data) if ev is None else ev
    lines = [f"Evaluation on {what} ({ev.cases} items):", "", *_use_table(ruleset, ev), "", _tested(ev, True)]
    if ev.cost is not None:   # models learnt with misclassification costs only
        lines.append(_cost_line(ev.cost, ev.cases))
    lines += ["", ""]
    return "\n".join(lines) + format_confusion(ev.confusion, ruleset.schema.classes)


def _cost_line(cost: float, cases: int) -> str:
    """'Cost N (x per case)': the decisions' total misclassification cost."""
    return f"Cost {cost:g} ({cost / cases if cases else 0.0:.3f} per case)"


def _use_table(ruleset: RuleSet, ev: RuleEvaluation) -> list[str]:
    """The table's lines: a row per rule that decided at least one case, in rule order."""
    lines = ["Rule  Size  Error  Used  Wrong\t          Advantage",
             "----  ----  -----  ----  -----\t          ---------"]
    for i, r in enumerate(ruleset.rules):
        if not ev.used[i]:
            continue
        pct = 100.0 * ev.wrong[i] / ev.used[i]
        lines.append(f"{r.id:4d}  {len(r.conditions):4d}  {100 * r.error_rate:4.1f}% {ev.used[i]:5d}  "
                     f"{ev.wrong[i]:5d} ({pct:.1f}%)\t{ev.better[i] - ev.worse[i]:6d} "
                     f"({ev.better[i]}|{ev.worse[i]}) \t{readable(r.prediction)}")
    return lines


def _tested(ev: RuleEvaluation, saved: bool) -> str:
    """'Tested N, errors E (P%)', marked `<<` for the ruleset c4.5rules saves."""
    pct = 100.0 * ev.errors / ev.cases if ev.cases else 0.0
    return f"Tested {ev.cases}, errors {ev.errors} ({pct:.1f}%)" + ("   <<" if saved else "")


def format_composite(comp: Composite, train: Dataset, test: Dataset | None, stem: str) -> str:
    """c4.5rules' whole output on the trees of a -t run (spec 7.10): each tree's rules, the
    composite ruleset, then on the training data every ruleset's evaluation with its sifting
    ("Drop rule N", spec 7.9), and with `test` their evaluation there; each part closed by the
    trial table. `train`: the data `comp` was learnt from; `stem`: the file stem as given,
    which c4.5rules echoes.

    The banner's run date is the one line that cannot be c4.5rules': it is today's.
    """
    stages = [sifting_stages(rs, trace, train) for rs, trace in [*comp.trials, (comp.ruleset, comp.trace)]]
    out = ["", f"C4.5 [release 8] rule generator\t{time.ctime()}", "-" * 31, "", "    Options:",
           f"\tFile stem <{stem}>", *(["\tRulesets evaluated on unseen cases"] if test is not None else []), "",
           f"Read {train.n} cases ({len(train.schema.attributes)} attributes) from {stem}", ""]
    text = "\n".join(out) + "\n"
    for t, trial in enumerate(stages[:-1]):
        text += f"------------------\nProcessing tree {t}\n\nFinal rules from tree {t}:\n\n" + format_rules(trial[0])
    text += "Composite ruleset:\n\n" + format_rules(stages[-1][0])
    text += "\n" + _evaluations(stages, train, "training data")
    if test is not None:
        text += "\n" + _evaluations([s[-1:] for s in stages], test, "test data")
    return text


def _evaluations(stages: list[list[RuleSet]], data: Dataset, what: str) -> str:
    """Every ruleset's evaluation on `data`, its sifting stages in turn, then the trial table.

    c4.5rules prints the confusion matrix of the composite and of each ruleset sifting changed.
    """
    lines = [f"Evaluation on {what} ({data.n} items):"]
    errors = []
    for k, steps in enumerate(stages):
        composite = k == len(stages) - 1
        lines += ["", "Composite ruleset:" if composite else f"Ruleset {k}:"]
        for s, stage in enumerate(steps):
            ev = evaluate(stage, data)
            if s:
                kept = {r.id for r in stage.rules}
                lines += ["", f"Drop rule {next(r.id for r in steps[s - 1].rules if r.id not in kept)}"]
            lines += ["", *_use_table(stage, ev)]
        lines += ["", _tested(ev, composite)]
        errors.append(ev.errors)
        if composite or len(steps) > 1:
            lines += ["", format_confusion(ev.confusion, stage.schema.classes)]
    return "\n".join(lines) + "\n" + trial_table([s[-1] for s in stages], errors, data.n)


def trial_table(rulesets: list[RuleSet], errors: list[int], cases: int) -> str:
    """c4.5rules' closing table of a -t run: each trial's rules and errors, the composite's (**)
    and the averages over all of them."""
    lines = ["", "Trial   Size      Errors", "-----   ----      ------"]
    for t, (rs, e) in enumerate(zip(rulesets, errors)):
        tag = f"{t:4d}" if t < len(rulesets) - 1 else "  **"
        lines.append(f"{tag}    {len(rs.rules):4d} {e:4d}({100 * e / cases:4.1f}%)")
    size = sum(len(rs.rules) for rs in rulesets) / len(rulesets)
    mean = sum(errors) / len(errors)
    lines.append(f"\t\t\t\tAv size = {size:.1f},  av errors = {mean:.1f} ({100 * mean / cases:.1f}%)")
    return "\n".join(lines) + "\n"


def format_vote_evaluation(model: BoostedRuleSet, data: Dataset, what: str = "training data",
                           ev: VoteEvaluation | None = None) -> str:
    """A boosted model's evaluation: each trial's rules and errors alone, then the vote's errors
    and confusion matrix, headed `Evaluation on <what> (N items):`."""
    ev = evaluate_votes(model, data) if ev is None else ev
    lines = [f"Evaluation on {what} ({ev.cases} items):", "",
             "Trial  Rules      Errors", "-----  -----      ------"]
    for t, (rs, te) in enumerate(zip(model.trials, ev.trials), 1):
        pct = 100.0 * te.errors / te.cases if te.cases else 0.0
        lines.append(f"{t:5d}  {len(rs.rules):5d}  {te.errors:5d}({pct:4.1f}%)")
    pct = 100.0 * ev.errors / ev.cases if ev.cases else 0.0
    lines.append(f"boost  {sum(len(rs.rules) for rs in model.trials):5d}  {ev.errors:5d}({pct:4.1f}%)   <<")
    if ev.cost is not None:   # models learnt with misclassification costs only: the vote's cost
        lines += ["", _cost_line(ev.cost, ev.cases)]
    lines += ["", ""]
    return "\n".join(lines) + format_confusion(ev.confusion, model.schema.classes)
