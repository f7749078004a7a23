"""Printing a RuleSet's evaluation in the layout of c4.5rules (the rules themselves: ruleset.format_rules)."""
from __future__ import annotations

from ..data.schema import Dataset
from ..boosted import BoostedRuleSet
from ..ruleset import RuleSet
from ..tree.report import format_confusion
from .evaluate import RuleEvaluation, VoteEvaluation, evaluate, evaluate_votes


def format_evaluation(ruleset: RuleSet, data: Dataset, what: str = "training data",
                      ev: RuleEvaluation | None = None) -> str:
    """The 'Rule Size Error Used Wrong Advantage' table, error count and confusion matrix,
    headed `Evaluation on <what> (N items):` (c4.5rules: 'training data', 'test data')."""
    ev = evaluate(ruleset, data) if ev is None else ev
    lines = [f"Evaluation on {what} ({ev.cases} items):", "",
             "Rule  Size  Error  Used  Wrong\t          Advantage",
             "----  ----  -----  ----  -----\t          ---------"]
    for i, r in enumerate(ruleset.rules):
        if not ev.used[i]:
            continue
        pct = 100.0 * ev.wrong[i] / ev.used[i]
        lines.append(f"{r.id:4d}  {len(r.conditions):4d}  {100 * r.error_rate:4.1f}%  {ev.used[i]:4d}  "
                     f"{ev.wrong[i]:5d} ({pct:.1f}%)\t{ev.better[i] - ev.worse[i]:6d} "
                     f"({ev.better[i]}|{ev.worse[i]}) \t{r.prediction}")
    pct = 100.0 * ev.errors / ev.cases if ev.cases else 0.0
    lines += ["", f"Tested {ev.cases}, errors {ev.errors} ({pct:.1f}%)   <<", "", ""]
    return "\n".join(lines) + format_confusion(ev.confusion, ruleset.schema.classes)


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
    lines += [f"boost  {sum(len(rs.rules) for rs in model.trials):5d}  {ev.errors:5d}({pct:4.1f}%)   <<", "", ""]
    return "\n".join(lines) + format_confusion(ev.confusion, model.schema.classes)
