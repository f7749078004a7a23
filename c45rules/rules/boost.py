"""Boosting (C5.0's -t N / -b): trials of tree + c4.5rules over reweighted cases, one voting model.

Each trial learns a RuleSet from the training cases under the trial's weights (a c4.5 tree grown
and pruned on them, then the c4.5rules steps, every count a sum of weights), and the rulesets
vote as boosted.py defines. The weights change between trials by AdaBoost.M1 as Quinlan ran it
over C4.5 ("Bagging, Boosting, and C4.5", AAAI 1996):

- trial 1 starts from the user's own case and class weights (1 each when none are given), so
  trial 1's ruleset is the single model fit would learn;
- a trial's error e is the weight of the training cases its ruleset misclassifies over the total
  weight (the ruleset deciding as RuleSet.predict does: first firing rule, else the default);
- the weight of every case the trial classifies correctly is multiplied by e / (1 - e), and then
  all weights are scaled so that their total is the first trial's again (so that the tree's
  minimum branch weight, -m, keeps its meaning);
- boosting stops early, keeping the trials built so far, when a trial is too accurate or too
  poor to reweight from: e = 0 (the trial is kept: it classifies every training case correctly,
  the next weights would be degenerate) or e >= 0.5 (the trial is dropped, as in AdaBoost.M1,
  unless it is the first, which is then the whole model).

The model records `trials` (asked) and `trials_built` in its options.

With misclassification costs, `learn` is the costed single fit (the data carries the cost
matrix, kept by every trial's reweighted copy) and the vote decides by expected cost
(boosted.py); the error e and the reweighting count every misclassified case alike, as above.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ..data.schema import Dataset
from ..ruleset import RuleSet

TOO_POOR = 0.5    # a trial at or above this weighted error is no better than chance for M1


@dataclass(frozen=True)
class Trial:
    """One boosting trial: its ruleset, its weighted training error and whether it was kept."""

    ruleset: RuleSet
    error: float
    kept: bool


def decided_classes(ruleset: RuleSet, data: Dataset) -> np.ndarray:
    """The class code the ruleset gives each case (its first firing rule, else the default)."""
    classes = data.schema.classes
    codes = np.array([classes.index(ruleset.default_class)] + [classes.index(r.prediction) for r in ruleset.rules],
                     dtype=np.int64)
    return codes[ruleset.rule_index(data)]


def boost_trials(train: Dataset, trials: int, learn: Callable[[Dataset], RuleSet]) -> list[Trial]:
    """The trials of AdaBoost.M1 over `learn` (see the module docstring), up to `trials` of them;
    the last one is dropped (kept=False) when it stopped the boosting by being too poor."""
    base = np.ones(train.n) if train.weights is None else np.asarray(train.weights, dtype=np.float64)
    total = base.sum()
    weights = base
    out: list[Trial] = []
    data = train
    for t in range(trials):
        if t:
            # the same columns and their cached sorted values: only the weights change
            data = replace(train, weights=weights)
        rs = learn(data)
        wrong = decided_classes(rs, train) != train.y
        # to 12 digits: the sums' rounding must not keep a trial at half the weight (AdaBoost's
        # reweighting puts the previous trial's classifier at exactly 0.5)
        error = round(float(weights[wrong].sum() / weights.sum()), 12)
        if error >= TOO_POOR and t:
            out.append(Trial(rs, error, False))
            break
        out.append(Trial(rs, error, True))
        if error == 0.0 or error >= TOO_POOR:
            break
        weights = np.where(wrong, weights, weights * (error / (1.0 - error)))
        weights *= total / weights.sum()
    return out
