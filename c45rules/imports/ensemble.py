"""A fitted scikit-learn random forest (or extra-trees) -> one short ordered RuleSet that
explains its decisions.

c4.5rules' own steps in a new setting: the candidates are the root-to-leaf paths of every
tree of the ensemble (each tree read as `from_sklearn` reads one, thresholds as float32-exact
bounds); each path's conditions are dropped by pessimistic error (spec 7.3-7.4) tree by tree,
the rules of all trees pooled through the duplicate check of 7.5 (identical paths, and paths
that generalise to the same rule, become one), then selected per class by description length,
ordered, given a default class and sifted (7.6-7.9), as the composite ruleset of several
trees is (7.10). The labels all of this is judged against are the ensemble's decisions on
the training table (`model.predict(X)`), not the true labels: the rules describe the model.

Unknown values (NaN): the target is what the ensemble decides for such rows (scikit-learn
>= 1.4 forests route NaN by their learnt `missing_go_to_left`); a model that refuses NaN makes
`from_ensemble` refuse it too (InputError). The rules treat an unknown value as c4.5rules
does: a condition on it is not satisfied, so such a row falls to a later rule or the default.

The RuleSet's options record the ensemble it explains: `explains` (the model's class) and
`ensemble_sha256`, a SHA-256 of its classes, feature names and every tree's arrays.
"""
from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd

from ..data.frame import from_frame
from ..errors import InputError
from ..model.ruleset import RuleSet
from .sklearn import _CF, _check_tree, _class_names, _feature_names, _target_name, tree_nodes

_FOREST_CLASSES = ("RandomForestClassifier", "ExtraTreesClassifier")


def check_forest(model: Any) -> list[Any]:
    """The forest's fitted trees, or InputError unless `model` is a fitted single-output forest."""
    kind = type(model).__name__
    module = type(model).__module__ or ""
    if kind not in _FOREST_CLASSES or not module.startswith("sklearn."):
        raise InputError(f"expected a fitted scikit-learn RandomForestClassifier or ExtraTreesClassifier,"
                         f" not {module + '.' if module else ''}{kind}")
    trees = getattr(model, "estimators_", None)
    if not trees or not hasattr(model, "classes_"):
        raise InputError(f"the {kind} is not fitted: call fit(X, y) first")
    if getattr(model, "n_outputs_", 1) != 1:
        raise InputError(f"the {kind} predicts {model.n_outputs_} outputs; a RuleSet predicts one class")
    for t in trees:
        _check_tree(t)
    return list(trees)


def fingerprint(model: Any) -> str:
    """SHA-256 (hex) of the forest's kind, classes, feature names and every tree's structure,
    thresholds and leaf values: the same for the same fitted model, different for any change
    that can change a decision."""
    h = hashlib.sha256()
    h.update(type(model).__name__.encode())
    h.update(repr([str(c) for c in model.classes_]).encode())
    h.update(repr([str(c) for c in getattr(model, "feature_names_in_", ())]).encode())
    for est in model.estimators_:
        t = est.tree_
        for a in (t.children_left, t.children_right, t.feature, t.threshold, t.value,
                  getattr(t, "missing_go_to_left", np.zeros(0, dtype=np.uint8))):
            arr = np.ascontiguousarray(a)
            h.update(str(arr.dtype).encode() + str(arr.shape).encode())
            h.update(arr.tobytes())
    return h.hexdigest()


def feature_names(model: Any) -> tuple[str, ...]:
    """The names of the features the forest was fit on (x0, x1, ... when it had none)."""
    return _feature_names(model, None)


def _features(model: Any, X: Any) -> tuple[tuple[str, ...], pd.DataFrame]:
    """The model's feature names and X's columns of them, as a DataFrame in the model's order."""
    names = feature_names(model)
    if isinstance(X, pd.DataFrame):
        if getattr(model, "feature_names_in_", None) is not None:
            missing = [n for n in names if n not in X.columns]
            if missing:
                raise InputError(f"X has no column {missing[0]!r}, which the ensemble was fit on")
            return names, X.loc[:, list(names)]
        if X.shape[1] != len(names):
            raise InputError(f"X has {X.shape[1]} columns; the ensemble was fit on {len(names)} unnamed features")
        return names, pd.DataFrame(X.to_numpy(), columns=list(names), index=X.index)
    arr = np.asarray(X)
    if arr.ndim != 2 or arr.shape[1] != len(names):
        raise InputError(f"X must be a table of {len(names)} columns, not of shape {arr.shape}")
    return names, pd.DataFrame(arr, columns=list(names))


def from_ensemble(model: Any, X: Any, *, max_rules: int | None = None, cf: float = _CF) -> RuleSet:
    """An ordered RuleSet that explains a fitted scikit-learn forest's decisions (module docstring).

    Parameters
    ----------
    model : RandomForestClassifier or ExtraTreesClassifier
        A fitted single-output forest (binary or multi-class).
    X : DataFrame or 2-D array
        The training table: a DataFrame holding (at least) the columns the forest was fit on
        (``feature_names_in_``; other columns are left out), or, for a forest fit without
        names, exactly its features in order (named x0, x1, ...). Numeric; NaN is an unknown
        value. The rules' target is ``model.predict(X)``.
    max_rules : int or None, default=None
        Keep only the first N rules of the ordered list; the default class is then the one
        most frequent among the ensemble's decisions on the rows none of them covers (spec 7.8).
    cf : float, default=0.25
        The confidence level of the pessimistic error rates that drop conditions.

    Returns
    -------
    RuleSet
        An ordinary ruleset (every export works on it); its options record ``explains``
        and ``ensemble_sha256`` (`fingerprint`).

    Raises
    ------
    InputError
        Not a fitted forest of those kinds; X without the model's columns or rows; NaN in
        X that the model refuses; `max_rules` not a positive whole number.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from c45rules import from_ensemble
    >>> X = pd.DataFrame({"a": [1.0, 2, 3, 4] * 10})
    >>> rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, ["n", "n", "y", "y"] * 10)
    >>> rs = from_ensemble(rf, X)
    >>> [str(r) for r in rs.rules], rs.default_class
    (['rule 1: if a <= 2.5 then n [93.3%]', 'rule 2: if a > 2.5 then y [93.3%]'], 'n')
    """
    from ..learn.pipeline import rules_from_candidates
    from ..rules.composite import pooled
    from ..rules.generalize import generalise_rules
    trees = check_forest(model)
    if max_rules is not None and (isinstance(max_rules, bool) or not isinstance(max_rules, (int, np.integer))
                                  or max_rules < 1):
        raise InputError(f"max_rules must be a whole number >= 1, not {max_rules!r}")
    names, frame = _features(model, X)
    if len(frame) == 0:
        raise InputError("X has no rows")
    try:
        decided = model.predict(frame)
    except ValueError as e:   # scikit-learn's word on NaN or non-numbers it refuses
        raise InputError(f"the {type(model).__name__} cannot decide X's rows: {e}") from None
    classes = _class_names(model, None)
    by_label = dict(zip(map(str, model.classes_), classes))
    target = _target_name(names)
    table = frame.copy()
    table[target] = [by_label[str(v)] for v in decided]
    ds = from_frame(table, target, continuous=list(names), source="<from_ensemble X>")
    per_tree = [generalise_rules(tree_nodes(t.tree_, classes, ds.schema.classes), ds, cf=cf) for t in trees]
    options: dict[str, Any] = {"explains": f"sklearn {type(model).__name__} ({len(trees)} trees)",
                               "ensemble_sha256": fingerprint(model)}
    if max_rules is not None:
        options["max_rules"] = int(max_rules)
    rs, _ = rules_from_candidates(pooled(per_tree), ds, options=options, max_rules=max_rules)
    return rs
