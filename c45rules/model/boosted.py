"""BoostedRuleSet: the rulesets of boosting trials, voting. The hub of a boosted model.

Semantics (one policy for predict and every export):
- each trial is an ordinary RuleSet and decides a case as RuleSet.predict does: its first
  firing rule, else its default class;
- the trial votes for the class it decided with the confidence of that decision
  (RuleSet.decision_confidences: the rule's confidence, or the default's Laplace share);
- a class's total is the sum of the votes it received, added in trial order starting from 0.0
  (so an export that adds one CASE term per trial, left to right, in IEEE double gets the same
  bits);
- the class with the highest total wins; a tie goes to the class listed first in the schema;
- the decision's confidence is the winner's total over the sum of all the votes (in trial order).

With misclassification costs (the option `costs`, recorded in the model's options; C5.0's -b
with a .costs file), each trial is a single costed model (its rules' and default classes chosen
by expected cost) and the vote decides by cost too, as C5.0 does: the class totals, over their
sum, are the case's class probabilities, and the class of least expected cost wins, predicting
k costing sum_c cost(k, c) * total_c (data/costs.vote_costs: added in class order from 0.0,
terms of cost 0 left out; dividing every class's cost by the sum of the votes would not change
which is least, so it is not done). A tie goes to the class listed first. The confidence is
still the winner's total over the sum of the votes (its probability), and predict_proba the
shares. Without costs (or with all-1 costs, which are none) the decision is the highest total.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.costs import cost_matrix, vote_costs
from ..data.distinct import factorize, first_positions, hash_codes
from ..data.schema import Dataset, Schema
from ..errors import InputError
from .ruleset import Explanation, RuleSet, block_masks, encode_cases, match_positions, readable, trial_plans


@dataclass(frozen=True)
class Vote:
    """One trial's say on a case: its decision explained, the class and the vote's weight."""

    trial: int                  # 1-based
    explanation: Explanation
    weight: float


@dataclass(frozen=True)
class BoostedExplanation:
    """Why a case got its class from a boosted model: every trial's vote and the totals."""

    prediction: str
    votes: tuple[Vote, ...]
    totals: tuple[tuple[str, float], ...]      # (class, total) in schema order
    costs: tuple[tuple[str, float], ...] | None = None   # (class, cost of predicting it), with costs

    @property
    def confidence(self) -> float:
        """The winner's total over the sum of every vote (added in trial order), as predict_confidence."""
        everything = 0.0
        for v in self.votes:
            everything += v.weight
        return dict(self.totals)[self.prediction] / everything

    def __str__(self) -> str:
        lines = [f"class {readable(self.prediction)} by the vote of {len(self.votes)} trials"
                 f" (confidence {self.confidence:.6g}):"]
        for v in self.votes:
            e = v.explanation
            if e.rule is None:
                lines.append(f"  trial {v.trial}: {readable(e.prediction)} by its default class (no rule fired),"
                             f" vote {v.weight:.6g}")
                continue
            lines.append(f"  trial {v.trial}: {readable(e.prediction)} by rule {e.rule.id}, vote {v.weight:.6g}:")
            lines += [f"    {line}" for line in e.check_lines()]
        # totals that 6 digits would show alike but differ (a tie missed by a rounding) in full
        shown = [f"{t:.6g}" for _, t in self.totals]
        if len(set(shown)) < len({t for _, t in self.totals}):
            shown = [repr(t) for _, t in self.totals]
        if self.costs is None:
            lines.append("  totals: " + ", ".join(f"{readable(c)} {t}" for (c, _), t in zip(self.totals, shown))
                         + " (the highest wins; a tie goes to the class listed first)")
            return "\n".join(lines)
        lines.append("  totals: " + ", ".join(f"{readable(c)} {t}" for (c, _), t in zip(self.totals, shown)))
        costs = [f"{t:.6g}" for _, t in self.costs]
        if len(set(costs)) < len({t for _, t in self.costs}):
            costs = [repr(t) for _, t in self.costs]
        lines.append("  expected costs (sum of cost x total): "
                     + ", ".join(f"{readable(c)} {t}" for (c, _), t in zip(self.costs, costs))
                     + " (the least wins; a tie goes to the class listed first)")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """{"class", "confidence", "votes": [{"trial", "class", "rule_id", "vote", "conditions"}],
        "totals": {class: total}}, and "expected_costs": {class: cost} for a model with costs."""
        out = {"class": self.prediction, "confidence": self.confidence,
               "votes": [{"trial": v.trial, "vote": v.weight, **v.explanation.as_dict()} for v in self.votes],
               "totals": {c: t for c, t in self.totals}}
        if self.costs is not None:
            out["expected_costs"] = {c: t for c, t in self.costs}
        return out


def distinct_rows(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each distinct row of `ids` (cases, columns), each row's distinct row
    number): the rows read as one number each, column by column (1-d uniques, not a sort of rows)."""
    if not len(ids) or ids.min() < 0:
        _, first, rows = np.unique(ids, axis=0, return_index=True, return_inverse=True)
        return first, rows.reshape(-1)
    key, most = np.zeros(len(ids), dtype=np.int64), 0
    for t in range(ids.shape[1]):
        base = int(ids[:, t].max()) + 1
        if (most + 1) * base >= 2 ** 62:   # renumber the rows' keys 0.. before they overflow
            key = _numbered(key)
            most = int(key.max())
        key = key * base + ids[:, t]
        most = most * base + base - 1
    rows = _numbered(key)
    return first_positions(rows), rows


def _numbered(key: np.ndarray) -> np.ndarray:
    """The distinct values of `key` (int64) numbered 0, 1, ... by first appearance: hashed
    without the GIL (data/_distinct.c), which costs a third of np.unique's sort."""
    codes = hash_codes(key)
    if codes is None:
        codes, _ = factorize(key, hashed=False)
    return codes


@dataclass(frozen=True)
class BoostedRuleSet:
    """The rulesets of boosting trials, in trial order, voting (see the module docstring).

    Each trial decides a case as RuleSet.predict does and votes for its class with the
    confidence of that decision; the highest total wins (with costs, the least expected
    cost), a tie going to the class listed first. Made by `fit` with ``trials`` > 1.

    Parameters
    ----------
    trials : tuple of RuleSet
        The trials' rulesets, in trial order; all of one schema.
    options : tuple of (str, value), default=()
        The options the model was learnt with (sorted pairs).
    fingerprint : str, default=""
        SHA-256 of the training data (Dataset.fingerprint).
    version : str, default=""
        The c45rules version that made the model (not compared by ``==``).
    notes : str, default=""
        The model's reviewer text.

    Attributes
    ----------
    schema : Schema
        The data description all the trials share.
    costs : numpy.ndarray or None
        The cost matrix the vote decides with, None without costs.

    Raises
    ------
    InputError
        No trial, or trials of different schemas.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
    ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
    >>> model = fit(df, target="class", trials=3)
    >>> len(model.trials)
    3
    >>> print(model.trials[1].rules[0])
    rule 1: if a <= 1 then n [66.0%]
    >>> model.predict(df.head(3)).tolist()
    ['n', 'y', 'y']
    """

    trials: tuple[RuleSet, ...]
    options: tuple[tuple[str, Any], ...] = ()
    fingerprint: str = ""
    version: str = field(default="", compare=False)
    notes: str = ""

    def __post_init__(self) -> None:
        if not self.trials:
            raise InputError("a boosted model needs at least one trial's ruleset")
        first = self.trials[0].schema
        for t, rs in enumerate(self.trials[1:], 2):
            if rs.schema != first:
                raise InputError(f"trial {t}'s ruleset has another schema than trial 1's: the trials"
                                 " of a boosted model must describe the same data")

    @property
    def schema(self) -> Schema:
        """The data description all the trials share.

        Returns
        -------
        Schema
        """
        return self.trials[0].schema

    @property
    def options_dict(self) -> dict[str, Any]:
        """The fitting options as a dict.

        Returns
        -------
        dict

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.options_dict["trials"], model.options_dict["trials_built"]
        (3, 3)
        """
        return dict(self.options)

    @property
    def costs(self) -> np.ndarray | None:
        """The cost matrix the vote decides with (data/costs.cost_matrix), None without costs.

        Returns
        -------
        numpy.ndarray or None
            ``costs[k, c]``: the cost of predicting class k for a case of class c.
        """
        return cost_matrix(self.options_dict.get("costs"), self.schema.classes)

    def used_attributes(self) -> tuple[str, ...]:
        """Names of the attributes any trial's rules test, in schema order.

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.used_attributes()
        ('a', 'b')
        """
        used = {a for rs in self.trials for a in rs.used_attributes()}
        return tuple(a for a in self.schema.names if a in used)

    def _encode(self, data: Any, bad_cells: str = "error") -> Dataset:
        return encode_cases(data, self.schema, self.used_attributes(), bad_cells)

    def trial_index(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """(cases, trials): each trial's rule_index (1-based position of its firing rule, 0 = default).
        `bad_cells`, for every method that takes cases, as in RuleSet.rule_index: "error" or "unknown".

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is (as in
            RuleSet.rule_index).

        Returns
        -------
        numpy.ndarray of int64, shape (cases, trials)

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.trial_index(df.head(2)).tolist()
        [[1, 1, 0], [2, 0, 0]]
        """
        ds = self._encode(data, bad_cells)
        return match_positions(self._plans, ds)

    def _trial_masks(self, data: Dataset) -> list[np.ndarray]:
        """The encoded cases' test masks for the trials' rules (ruleset.block_masks), which
        _distinct_decisions matches: predict makes them in its scan thread."""
        return block_masks(self._plans, data)

    @functools.cached_property
    def _plans(self) -> tuple[Any, ...]:
        """The trials' rules compiled on one table of their tests (ruleset.trial_plans)."""
        return trial_plans(self.trials)

    def trial_rules(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """(cases, trials): the id of each trial's deciding rule, 0 where its default class decided.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is (as in
            RuleSet.rule_index).

        Returns
        -------
        numpy.ndarray of int64, shape (cases, trials)

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.trial_rules(df.head(2)).tolist()
        [[1, 1, 0], [2, 0, 0]]
        """
        pos = self.trial_index(data, bad_cells=bad_cells)
        return np.stack([rs.rule_ids()[pos[:, t]] for t, rs in enumerate(self.trials)], axis=1) \
            if len(pos) else pos

    @functools.cached_property
    def _ballot_tables(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """Per trial, (class code, vote weight) of each rule_index position: made once, as
        predict tallies a block at a time."""
        classes = self.schema.classes
        return tuple((np.array([classes.index(rs.default_class)] + [classes.index(r.prediction) for r in rs.rules],
                               dtype=np.int64), rs.decision_confidences()) for rs in self.trials)

    def _ballots(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class code, vote weight) per case and trial, for rule_index positions `pos`."""
        codes = np.empty(pos.shape, dtype=np.int64)
        weights = np.empty(pos.shape, dtype=float)
        for t, (decided, confidences) in enumerate(self._ballot_tables):
            codes[:, t] = decided[pos[:, t]]
            weights[:, t] = confidences[pos[:, t]]
        return codes, weights

    def _tally(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class totals (cases, classes), sum of all votes per case), added in trial order."""
        codes, weights = self._ballots(pos)
        n = len(pos)
        totals = np.zeros((n, len(self.schema.classes)))
        everything = np.zeros(n)
        rows = np.arange(n)
        for t in range(len(self.trials)):
            totals[rows, codes[:, t]] += weights[:, t]
            everything += weights[:, t]
        return totals, everything

    def votes(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """(cases, classes): each class's total vote, columns in schema.classes order.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is (as in
            RuleSet.rule_index).

        Returns
        -------
        numpy.ndarray of float, shape (cases, classes)
            The totals, each added in trial order from 0.0.

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.votes(df.head(2)).round(6).tolist()
        [[1.819819, 0.0], [0.593906, 1.25307]]
        """
        return self._tally(self.trial_index(data, bad_cells=bad_cells))[0]

    def expected_costs(self, data: Any) -> np.ndarray:
        """(cases, classes): what predicting each class costs by the vote (data/costs.vote_costs);
        InputError for a model without costs.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.

        Returns
        -------
        numpy.ndarray of float, shape (cases, classes)
            ``sum_c cost(k, c) * total_c`` for each class k.

        Raises
        ------
        InputError
            For a model without costs, or cases that cannot be scored.
        """
        costs = self.costs
        if costs is None:
            raise InputError("this boosted model has no misclassification costs: its vote has no expected costs")
        return vote_costs(self.votes(data), costs)

    def decisions(self, data: Any, *, bad_cells: str = "error") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(predict, trial_rules, predict_confidence) of `data` from one pass of the trials'
        rules (each method alone matches them again), for a scorer that writes all three.

        `data` and `bad_cells` as in predict; for a single mapping too, arrays of one case.
        """
        rows, classes, rules, confidences = self._distinct_decisions(data, bad_cells)
        return classes[rows], rules[rows], confidences[rows]

    def _distinct_decisions(self, data: Any, bad_cells: str, masks: list[np.ndarray] | None = None,
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(each case's row in the others, then decisions' three values for each distinct row of
        the trials' deciding rules): the vote follows from those rules, so it is tallied, and a
        scorer spells it, once per distinct row. `masks`: those of the encoded cases `data` when
        made already (_trial_masks: predict makes a block's in its scan thread, cli/cases.py)."""
        if masks is None:
            pos = self.trial_index(data, bad_cells=bad_cells)
        else:   # the compiled match runs without the GIL, while the scan thread reads ahead
            pos = match_positions(self._plans, data, masks)
        if not len(pos):
            return np.zeros(0, dtype=np.intp), np.array([], dtype=object), pos, np.zeros(0)
        first, rows = distinct_rows(pos)
        pos = pos[first]
        totals, everything = self._tally(pos)
        winners = self._winners(totals)
        rules = np.stack([rs.rule_ids()[pos[:, t]] for t, rs in enumerate(self.trials)], axis=1)
        return (rows, np.array(self.schema.classes, dtype=object)[winners], rules,
                totals[np.arange(len(totals)), winners] / everything)

    def _winners(self, totals: np.ndarray) -> np.ndarray:
        """The winning class code per case from its class totals: the highest total, or with costs
        the least expected cost; a tie to the first class either way."""
        costs = self.costs
        if costs is None:
            return np.argmax(totals, axis=1)
        return np.argmin(vote_costs(totals, costs), axis=1)

    def predict(self, data: Any, *, bad_cells: str = "error") -> np.ndarray | str:
        """Predicted class per case (a str for a single mapping): the highest total (with costs, the
        least expected cost), ties to the first class.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is (as in
            RuleSet.rule_index).

        Returns
        -------
        numpy.ndarray of str (dtype object), or str
            One class per case; for a single mapping, its class.

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.predict(df.head(3)).tolist()
        ['n', 'y', 'y']
        >>> model.predict({"a": 6.0, "b": "y"})
        'y'
        """
        totals = self.votes(data, bad_cells=bad_cells)
        out = np.array(self.schema.classes, dtype=object)[self._winners(totals)] if len(totals) else \
            np.array([], dtype=object)
        return out[0] if isinstance(data, Mapping) else out

    def predict_confidence(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """The winner's total over the sum of every vote, per case.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is (as in
            RuleSet.rule_index).

        Returns
        -------
        numpy.ndarray of float

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.predict_confidence(df.head(2)).round(6).tolist()
        [1.0, 0.678444]
        """
        totals, everything = self._tally(self.trial_index(data, bad_cells=bad_cells))
        if not len(totals):
            return np.zeros(0)
        return totals[np.arange(len(totals)), self._winners(totals)] / everything

    def predict_proba(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """Each class's share of the votes (columns in schema.classes order).

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases, as RuleSet.predict takes them.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is (as in
            RuleSet.rule_index).

        Returns
        -------
        numpy.ndarray of float, shape (cases, classes)

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> model.predict_proba(df.head(2)).round(6).tolist()
        [[1.0, 0.0], [0.321556, 0.678444]]
        """
        totals, everything = self._tally(self.trial_index(data, bad_cells=bad_cells))
        return totals / everything[:, None]

    def explain(self, case: Mapping[str, Any], *, read: Any = None) -> BoostedExplanation:
        """Every trial's vote on one case (its deciding rule or default) and the class totals.

        Parameters
        ----------
        case : mapping or pandas.Series
            One case: attribute name -> value (those left out are unknown).
        read : ReadOptions or None, default=None
            How texts are read (which are unknown), as in RuleSet.explain.

        Returns
        -------
        BoostedExplanation
            `str()` gives it as text, `as_dict()` as JSON takes it.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
        ...                    "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
        >>> model = fit(df, target="class", trials=3)
        >>> print(model.explain({"a": 3.0, "b": "y"}))
        class y by the vote of 3 trials (confidence 0.678444):
          trial 1: y by rule 2, vote 0.635423:
            b = y   (b = y: yes)
          trial 2: y by its default class (no rule fired), vote 0.617647
          trial 3: n by its default class (no rule fired), vote 0.593906
          totals: n 0.593906, y 1.25307 (the highest wins; a tie goes to the class listed first)
        """
        exps = [rs.explain(case, read=read) for rs in self.trials]
        # each explanation names its deciding rule; the ballots need its position in the list
        pos = np.array([[0 if e.rule is None else rs.rules.index(e.rule) + 1
                         for e, rs in zip(exps, self.trials)]], dtype=np.int64)
        _, weights = self._ballots(pos)
        totals, _ = self._tally(pos)
        classes = self.schema.classes
        votes = tuple(Vote(t + 1, e, float(weights[0, t])) for t, e in enumerate(exps))
        costs = None if self.costs is None else \
            tuple((c, float(v)) for c, v in zip(classes, vote_costs(totals, self.costs)[0]))
        return BoostedExplanation(classes[int(self._winners(totals)[0])], votes,
                                  tuple((c, float(totals[0, k])) for k, c in enumerate(classes)), costs)

    def __str__(self) -> str:
        parts = []
        for t, rs in enumerate(self.trials, 1):
            parts.append(f"trial {t}:\n{rs}")
        return "\n\n".join(parts)
