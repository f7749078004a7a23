"""A fitted scikit-learn tree classifier -> a RuleSet that decides as `clf.predict` does.

`from_sklearn(clf)` reads a DecisionTreeClassifier or ExtraTreeClassifier (one output) and
makes one rule per leaf, the path's tests as conditions in the schema's terms (feature
names from `feature_names_in_` or `feature_names`, else x0, x1, ...; classes from
`classes_` as canonical text, or `class_names`). Why the rules decide exactly as the tree:

* scikit-learn compares `float32(x) <= threshold`; each threshold becomes the largest
  double bound b with `x <= b` exactly when `float32(x) <= threshold` (the PMML import's
  float32_bound), so every double x takes the tree's branch. A threshold of +inf (scikit-learn's
  "only the missing values go right") becomes the largest double: infinite inputs, which
  scikit-learn refuses, are outside this promise;
* an unknown value (NaN) goes where the node's `missing_go_to_left` says (learned when the
  training data held NaN, else toward the child that saw more cases): the test on that
  side carries `or_unknown` (`x <= b or unknown`), which an unknown value satisfies;
* the tests of one path on one feature in one direction are merged into the tightest
  (accepting unknowns only if each did), so a path reads as c4.5rules' rules do;
* a leaf's class is `classes_[argmax(value)]`, as predict takes it. The leaves' rules are
  disjoint and cover every case, so their order is free: they come in the tree's depth-first
  order, left (`<=`) branch first, ids 1, 2, ...; the default class is the root's majority
  class (it decides only for a tree that is a single leaf, which gives no rules).

Evidence: covered = the leaf's weighted_n_node_samples, errors = covered minus the leaf's
weighted count of its class (both rounded to whole cases), the pessimistic error rate of
c4.5 (spec 7.3) at cf 0.25, held at 0.7 where it would be above (a rule above 0.7 never
fires, spec 7.6.1, but the tree's leaf always decides), with the rule's note saying so.

With `data=(X, y)` the tree's paths are generalised, selected and ordered by c4.5rules' own
steps (pipeline.learn_rules) on that data: the result is a C4.5-rules model, whose
conditions an unknown value never satisfies; it no longer decides as the tree does on every
row (unknowns above all), only as C4.5-rules would from this tree.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..data.frame import from_frame, value_str
from ..data.schema import Attribute, Schema
from ..errors import InputError
from ..estimate import pessimistic_rate
from ..model.ruleset import EVIDENCE_DIGITS, NEVER_FIRES_ABOVE, Condition, Rule, RuleSet, evidence_rate
from .pmml import float32_bounds

if TYPE_CHECKING:
    from ..tree.node import Node

_TREE_CLASSES = ("DecisionTreeClassifier", "ExtraTreeClassifier")
_CF = 0.25


def _check_tree(clf: Any) -> None:
    """InputError unless `clf` is a fitted single-output scikit-learn tree classifier."""
    kind = type(clf).__name__
    module = type(clf).__module__ or ""
    if kind not in _TREE_CLASSES or not module.startswith("sklearn."):
        raise InputError(f"expected a fitted scikit-learn DecisionTreeClassifier or ExtraTreeClassifier,"
                         f" not {module + '.' if module else ''}{kind}")
    if getattr(clf, "tree_", None) is None or not hasattr(clf, "classes_"):
        raise InputError(f"the {kind} is not fitted: call fit(X, y) first")
    if getattr(clf, "n_outputs_", 1) != 1:
        raise InputError(f"the {kind} predicts {clf.n_outputs_} outputs; a RuleSet predicts one class")


def _feature_names(clf: Any, given: Sequence[str] | None) -> tuple[str, ...]:
    n = int(clf.n_features_in_)
    fitted = getattr(clf, "feature_names_in_", None)
    names = None if given is None else tuple(given)
    if names is not None:
        if len(names) != n:
            raise InputError(f"feature_names has {len(names)} names; the tree was fit on {n} features")
        bad = [v for v in names if not isinstance(v, str) or not v]
        if bad:
            raise InputError(f"feature_names must be non-empty strings, not {bad[0]!r}")
        if fitted is not None and tuple(map(str, fitted)) != names:
            raise InputError("feature_names differ from the names the tree was fit with (feature_names_in_)")
    elif fitted is not None:
        names = tuple(str(v) for v in fitted)
    else:
        names = tuple(f"x{i}" for i in range(n))   # scikit-learn's own names for unnamed columns
    dup = sorted({v for v in names if names.count(v) > 1})
    if dup:
        raise InputError(f"feature name {dup[0]!r} is given twice")
    return names


def _class_names(clf: Any, given: Sequence[Any] | None) -> tuple[str, ...]:
    classes = list(clf.classes_)
    if given is not None:
        given = list(given)
        if len(given) != len(classes):
            raise InputError(f"class_names has {len(given)} names; the tree has {len(classes)} classes")
        classes = given
    names = tuple(value_str(c) for c in classes)
    if any(not v for v in names):
        raise InputError("a class name is empty")
    dup = sorted({v for v in names if names.count(v) > 1})
    if dup:
        raise InputError(f"two classes are both written {dup[0]!r}; pass class_names= to name them apart")
    return names


def _bound(threshold: float) -> float:
    """The largest double b with `x <= b` exactly when scikit-learn's `float32(x) <= threshold`."""
    return float(_bounds(np.array([threshold], dtype=np.float64))[0])


def _bounds(thresholds: np.ndarray) -> np.ndarray:
    """_bound of each threshold, as an array."""
    thresholds = np.asarray(thresholds, dtype=np.float64)
    with np.errstate(over="ignore"):
        t32 = thresholds.astype(np.float32)
    # the largest float32 not above the threshold
    t32 = np.where(t32.astype(np.float64) > thresholds, np.nextafter(t32, np.float32(-np.inf)), t32)
    return np.minimum(float32_bounds(t32.astype(np.float64), "<=")[1], sys.float_info.max)


def _target_name(features: tuple[str, ...]) -> str:
    for name in ("class", "target", "y"):
        if name not in features:
            return name
    k = 1
    while f"class_{k}" in features:
        k += 1
    return f"class_{k}"


def _merged(path: list[Condition]) -> tuple[Condition, ...]:
    """The path's conditions, those on one feature in one direction merged into the tightest."""
    merged: dict[tuple[str, str], Condition] = {}
    for c in path:
        key = (c.attribute, c.op)
        old = merged.get(key)
        if old is None:
            merged[key] = c
            continue
        value = min(old.value, c.value) if c.op == "<=" else max(old.value, c.value)
        merged[key] = Condition(c.attribute, c.op, value, old.or_unknown and c.or_unknown)
    return tuple(merged.values())


def _leaf_paths(tree: Any, names: tuple[str, ...]) -> list[tuple[int, list[Condition]]]:
    """(leaf node, the conditions on its path) in depth-first order, left branch first."""
    left, right = tree.children_left, tree.children_right
    feature, threshold = tree.feature, tree.threshold
    # before scikit-learn 1.3 trees had no missing_go_to_left, and predict refused NaN
    nan_left = getattr(tree, "missing_go_to_left", None)
    has_nan_routing = nan_left is not None
    if nan_left is None:
        nan_left = np.zeros(tree.node_count, dtype=bool)
    out = []
    stack: list[tuple[int, list[Condition]]] = [(0, [])]
    while stack:   # not recursive: a deep tree would pass Python's frame limit
        node, path = stack.pop()
        if left[node] == -1:
            out.append((node, path))
            continue
        name, bound, to_left = names[feature[node]], _bound(float(threshold[node])), bool(nan_left[node])
        stack.append((int(right[node]), path + [Condition(name, ">", bound, not to_left and has_nan_routing)]))
        stack.append((int(left[node]), path + [Condition(name, "<=", bound, to_left)]))
    return out


def _weighted_counts(tree: Any) -> np.ndarray:
    """(nodes, classes): each node's weighted training cases per class."""
    value = np.asarray(tree.value[:, 0, :], dtype=np.float64)
    total = value.sum(axis=1, keepdims=True)
    # scikit-learn >= 1.4 keeps fractions, earlier versions counts: scaled to the node's weight
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, value / total, 0.0)
    return share * np.asarray(tree.weighted_n_node_samples, dtype=np.float64)[:, None]


def from_sklearn(clf: Any, feature_names: Sequence[str] | None = None, class_names: Sequence[Any] | None = None,
                 data: tuple[Any, Any] | None = None) -> RuleSet:
    """A fitted scikit-learn DecisionTreeClassifier/ExtraTreeClassifier as a RuleSet (module docstring).

    One rule per leaf, in the tree's depth-first order, deciding exactly as ``clf.predict``
    does on every double input (its thresholds become float32-exact bounds, unknown values
    follow ``missing_go_to_left`` through ``or unknown`` conditions). With `data`, the paths
    are instead generalised, selected and ordered by c4.5rules' own steps on that data.

    Parameters
    ----------
    clf : DecisionTreeClassifier or ExtraTreeClassifier
        A fitted single-output tree classifier.
    feature_names : sequence of str or None, default=None
        The attributes' names; None: ``clf.feature_names_in_``, else x0, x1, ...
    class_names : sequence or None, default=None
        The classes' names, in ``clf.classes_`` order; None: ``clf.classes_`` as text.
    data : (X, y) or None, default=None
        Training cases for C4.5-rules' generalisation; the result then no longer decides as
        the tree does on every row (unknown values above all).

    Returns
    -------
    RuleSet
        Its evidence from the leaves (covered: the leaf's weighted cases; the pessimistic
        error at cf 0.25, held at 0.7 with a note where it would be above).

    Raises
    ------
    InputError
        Not a fitted single-output tree classifier; names of the wrong number, empty or
        repeated; `data` that is not a pair (X, y) of matching rows and the tree's classes.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from c45rules import from_sklearn
    >>> clf = DecisionTreeClassifier(random_state=0).fit([[1.0], [2.0], [3.0], [4.0]], ["n", "n", "y", "y"])
    >>> rs = from_sklearn(clf, feature_names=["a"])
    >>> for rule in rs.rules:
    ...     print(rule)
    rule 1: if a <= 2.5 then n [50.0%]
    rule 2: if (a > 2.5 or unknown) then y [50.0%]
    >>> rs.predict({"a": 2.6}), str(clf.predict([[2.6]])[0])
    ('y', 'y')
    """
    _check_tree(clf)
    names = _feature_names(clf, feature_names)
    classes = _class_names(clf, class_names)
    tree = clf.tree_
    if data is not None:
        return _c45_rules(clf, names, classes, data)
    schema = Schema(tuple(Attribute(n, "continuous") for n in names), classes, _target_name(names))
    value = np.asarray(tree.value[:, 0, :])
    counts = _weighted_counts(tree)
    root = np.rint(counts[0]).astype(np.int64)
    prior = counts[0] / counts[0].sum()
    rules = []
    # a tree that is one leaf gives no rule (a model's rules have conditions): the default decides
    leaves = _leaf_paths(tree, names) if tree.node_count > 1 else []
    for rid, (leaf, path) in enumerate(leaves, 1):
        k = int(np.argmax(value[leaf]))   # predict's choice, the first class on a tie
        covered = int(round(float(tree.weighted_n_node_samples[leaf])))
        errors = max(0, covered - int(round(float(counts[leaf, k]))))
        rate = float(pessimistic_rate(covered, errors, _CF)) if covered else 1.0
        note = ""
        if rate > NEVER_FIRES_ABOVE:
            note = (f"pessimistic error {rate:.6g} held at 0.7 so that the rule fires, as the tree's leaf"
                    " always decides")
            rate = NEVER_FIRES_ABOVE
        rate = evidence_rate(rate)
        lift = (1.0 - rate) / prior[k] if prior[k] > 0 else 0.0
        rules.append(Rule(rid, _merged(path), classes[k], covered, errors, rate,
                          float(f"{lift:.{EVIDENCE_DIGITS}g}"), covered, errors, note))
    default = classes[int(np.argmax(value[0]))]
    kind = type(clf).__name__
    notes = (f"Imported from scikit-learn {kind} ({len(rules)} leaves): one rule per leaf, the rules disjoint;"
             " an unknown value follows the tree's missing_go_to_left ('or unknown').")
    return RuleSet(schema, tuple(rules), default, tuple(int(v) for v in root),
                   tuple(0 for _ in classes), (), "", _version(), notes)


def _version() -> str:
    from .. import __version__
    return __version__


def _c45_rules(clf: Any, names: tuple[str, ...], classes: tuple[str, ...], data: tuple[Any, Any]) -> RuleSet:
    """C4.5-rules' generalisation, selection and ordering run on the tree's paths over `data`."""
    from ..learn.pipeline import learn_rules
    from ..tree.node import Tree
    try:
        X, y = data
    except (TypeError, ValueError):
        raise InputError("data must be a pair (X, y)") from None
    frame = pd.DataFrame(X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X), columns=list(names))
    labels = np.asarray(y).ravel()
    if len(labels) != len(frame):
        raise InputError(f"data: X has {len(frame)} rows and y {len(labels)}")
    by_label = {value_str(c): name for c, name in zip(clf.classes_, classes)}
    text = [by_label.get(value_str(v)) for v in labels]
    if any(t is None for t in text):
        stray = next(v for v, t in zip(labels, text) if t is None)
        raise InputError(f"data: y holds {stray!r}, which is not a class of the tree")
    target = _target_name(names)
    frame[target] = text
    ds = from_frame(frame, target, continuous=list(names), source="<from_sklearn data>")
    root = tree_nodes(clf.tree_, classes, ds.schema.classes)
    rs, _ = learn_rules(Tree(ds.schema, root, root, {}), ds, cf=_CF,
                        options={"imported_from": f"sklearn {type(clf).__name__}"})
    return rs


def tree_nodes(tree: Any, classes: tuple[str, ...], data_classes: tuple[str, ...]) -> "Node":
    """A scikit-learn `tree_` as our Node tree (its thresholds as float32-exact bounds), its
    value columns in `classes` order, the nodes' classes numbered as in `data_classes`."""
    from ..tree.node import Node
    index = {c: i for i, c in enumerate(data_classes)}
    value = np.asarray(tree.value[:, 0, :])
    counts = _weighted_counts(tree)
    C = len(data_classes)

    def node(i: int) -> Node:
        k = classes[int(np.argmax(value[i]))]
        dist = np.zeros(C)
        for j, c in enumerate(classes):
            if c in index:
                dist[index[c]] = counts[i, j]
        items = float(tree.weighted_n_node_samples[i])
        return Node(index.get(k, int(np.argmax(dist))), items, items - float(dist.max()), dist)

    root = node(0)
    stack = [(0, root)]
    while stack:   # not recursive: a deep tree would pass Python's frame limit
        i, made = stack.pop()
        if tree.children_left[i] == -1:
            continue
        made.kind, made.attribute, made.cut = "threshold", int(tree.feature[i]), _bound(float(tree.threshold[i]))
        kids = [node(int(tree.children_left[i])), node(int(tree.children_right[i]))]
        made.branches = kids
        stack += [(int(tree.children_left[i]), kids[0]), (int(tree.children_right[i]), kids[1])]
    return root
