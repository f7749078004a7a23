"""The composite ruleset of several trees (c4.5rules on the trees of a -t run, spec 7.10).

Each tree gives its own ruleset (generalise, select, order, default, sift). The rules each
selection kept, tree by tree in their index order, are pooled through the duplicate check
of 7.5 (a repeat only raises the first one's error) and numbered anew in the order they
are accepted; 7.6-7.9 then run again on the pool. All the selections draw from one
random() stream, as the one c4.5rules process does.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..data.schema import Dataset
from ..learn.pipeline import RulesTrace, rules_from_candidates
from ..model.ruleset import RuleSet
from ..tree.node import Node
from .generalize import CandidateRule, _condition_key, _merge, generalise_rules
from .random import GlibcRandom


@dataclass
class Composite:
    """The ruleset of each tree and the composite one (the one a -t run keeps)."""

    trials: list[tuple[RuleSet, RulesTrace]]
    ruleset: RuleSet
    trace: RulesTrace


def composite_rules(trees: list[Node], data: Dataset, *, cf: float = 0.25, fisher: float | None = None,
                    redundancy: float = 1.0, annealing: bool = False, seed: int | None = None,
                    options: dict[str, Any] | None = None, jobs: int = 1) -> Composite:
    """c4.5rules on every tree of `trees` (unpruned, in trial order), then the composite ruleset."""
    rng = GlibcRandom(1 if seed is None else seed)
    common = dict(redundancy=redundancy, annealing=annealing, seed=seed, options=options, jobs=jobs, rng=rng)
    trials = []
    for tree in trees:
        cands = generalise_rules(tree, data, cf=cf, fisher=None if fisher is None else fisher / 100, jobs=jobs)
        trials.append(rules_from_candidates(cands, data, **common))
    pool = pooled([trace.final for _, trace in trials])
    ruleset, trace = rules_from_candidates(pool, data, **common)
    return Composite(trials, ruleset, trace)


def pooled(rulesets: list[list[CandidateRule]]) -> list[CandidateRule]:
    """The rules of every list in turn, repeats dropped (spec 7.5), numbered 1, 2, ... anew.

    A subset test is the same only within one tree (c4.5rules compares its value sets by
    identity), so its key carries the tree's position.
    """
    accepted: dict[tuple, CandidateRule] = {}
    for t, rules in enumerate(rulesets):
        for r in rules:
            key = (r.klass, tuple((t, _condition_key(c)) if c.kind == 3 else _condition_key(c)
                                  for c in r.conditions))
            _merge(accepted, key, replace(r, number=len(accepted) + 1))
    return list(accepted.values())
