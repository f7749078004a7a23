"""How far rules made by `from_ensemble` agree with the ensemble they explain, on given rows.

The rules record the ensemble's fingerprint (`ensemble_sha256`); every function here first
checks that the ensemble given is that one (InputError naming both fingerprints otherwise),
so an agreement is never measured against another model by mistake.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import InputError

if TYPE_CHECKING:
    from ..data.schema import Dataset
    from ..model.ruleset import Explanation, RuleSet


def check_explains(ruleset: "RuleSet", model: Any) -> None:
    """InputError unless `ruleset` was made by `from_ensemble` from `model` (same fingerprint)."""
    from .ensemble import check_forest, fingerprint
    recorded = dict(ruleset.options).get("ensemble_sha256")
    if recorded is None:
        raise InputError("the rules do not explain an ensemble (they record no ensemble_sha256: made by"
                         " from_ensemble / c45rules import --data?)")
    check_forest(model)
    got = fingerprint(model)
    if got != recorded:
        raise InputError(f"the ensemble given is a different model from the one the rules explain"
                         f" (its fingerprint {got[:12]}..., the rules record {str(recorded)[:12]}...)")


def ensemble_decisions(ruleset: "RuleSet", model: Any, data: "Dataset") -> np.ndarray:
    """The ensemble's class (text) for each case of `data` (encoded against the ruleset's
    schema, whose attributes are the ensemble's features), after `check_explains`."""
    from .ensemble import _decisions, class_names, feature_names
    check_explains(ruleset, model)
    schema = ruleset.schema
    missing = [n for n in feature_names(model) if n not in schema.names]
    if missing:
        raise InputError(f"the rules have no attribute {missing[0]!r}, which the ensemble was fit on")
    frame = pd.DataFrame({n: np.asarray(data.columns[schema.index(n)], dtype=np.float64)
                          for n in feature_names(model)})
    try:
        return np.asarray(_decisions(model, frame, class_names(model)), dtype=object)
    except ValueError as e:   # the library's word on values it refuses (infinity)
        raise InputError(f"the {type(model).__name__} cannot decide the rows: {e}") from None


def explain_case(ruleset: "RuleSet", case: Any, model: Any, *, read: Any = None) -> "Explanation":
    """`ruleset.explain(case)` that also says whether `model`, the ensemble the rules explain
    (checked against the fingerprint they record), decides the case the same way.

    Parameters
    ----------
    ruleset : RuleSet
        Rules made by `from_ensemble` / `c45rules import --data`.
    case : mapping or pandas.Series
        One case: attribute name -> value (left out: unknown).
    model : fitted tree ensemble
        The ensemble the rules explain.
    read : ReadOptions or None, default=None
        How texts are read (which are unknown); None: the defaults.

    Returns
    -------
    Explanation
        With `ensemble` set to the ensemble's class (`agrees` compares it).

    Raises
    ------
    InputError
        When `model` is not the ensemble the rules explain, or `case` is not one case.
    """
    from ..data.frame import encode_frame
    explanation = ruleset.explain(case, read=read)   # checks that `case` is one case
    ds = encode_frame(pd.DataFrame([dict(case)]), ruleset.schema, require=(), read=read)
    return replace(explanation, ensemble=str(ensemble_decisions(ruleset, model, ds)[0]))


@dataclass(frozen=True)
class Agreement:
    """How often the rules decide as the ensemble does on some rows.

    Attributes
    ----------
    rows : int
        The number of rows compared.
    agreed : int
        The rows where the rules' class is the ensemble's.
    by_class : tuple of (str, int, int)
        For each class the ensemble decides: (class, rows, rows where the rules agree).
    by_rule : tuple of (int, str, int, int)
        For each rule that decides a row where the two disagree: (rule id, 0 for the default
        class; the class it gives; rows it decides; rows of them the ensemble decides
        otherwise), most disagreements first.
    """

    rows: int
    agreed: int
    by_class: tuple[tuple[str, int, int], ...]
    by_rule: tuple[tuple[int, str, int, int], ...]

    @property
    def fidelity(self) -> float:
        """The share of rows where the rules agree with the ensemble (nan for no rows)."""
        return self.agreed / self.rows if self.rows else float("nan")


def agreement(ruleset: "RuleSet", model: Any, data: "Dataset") -> Agreement:
    """Where the rules and the ensemble they explain agree on `data`'s cases, and where not.

    Parameters
    ----------
    ruleset : RuleSet
        Rules made by `from_ensemble` (or `c45rules import --data`).
    model : fitted tree ensemble
        The ensemble they explain (checked against their recorded fingerprint).
    data : Dataset
        The rows, encoded against the ruleset's schema (their class column is not used).

    Returns
    -------
    Agreement

    Raises
    ------
    InputError
        `model` is not the ensemble the rules explain, or it cannot decide the rows.
    """
    theirs = ensemble_decisions(ruleset, model, data)
    ours = np.asarray(ruleset.predict(data), dtype=object)
    first = np.asarray(ruleset.rule_index(data), dtype=np.int64)
    same = ours == theirs
    classes = sorted(set(theirs.tolist()))
    by_class = tuple((c, int((theirs == c).sum()), int((same & (theirs == c)).sum())) for c in classes)
    m = len(ruleset.rules) + 1
    decided = np.bincount(first, minlength=m)
    wrong = np.bincount(first[~same], minlength=m)
    gives = [ruleset.default_class] + [r.prediction for r in ruleset.rules]
    ids = [0] + [int(r.id) for r in ruleset.rules]
    order = sorted((k for k in range(m) if wrong[k]), key=lambda k: (-wrong[k], k))
    return Agreement(len(theirs), int(same.sum()), by_class,
                     tuple((ids[k], gives[k], int(decided[k]), int(wrong[k])) for k in order))
