"""The trees of a gradient-boosted ensemble as plain arrays, for `from_ensemble`.

A boosted ensemble's trees are regression trees on the gradient: their leaves hold scores,
not classes. What c4.5rules needs of them is their root-to-leaf paths (conditions on the
features) and, for each node, the classes of the training cases reaching it: `labelled_nodes`
routes the training table through a tree exactly as the ensemble does and counts the
ensemble's own decisions there, as c4.5 labels a leaf by its cases.

Each reader turns one kind's trees into `PathTree`s whose test is `x <= bound` on doubles,
deciding as the library does on every double x:

* scikit-learn GradientBoosting: `float32(x) <= threshold`, the bound float32-exact (`_bound`);
* scikit-learn HistGradientBoosting: `x <= num_threshold` on doubles, the bound as it is;
  categorical splits are refused (InputError);
* XGBoost: `float32(x) < split_condition` goes to "yes" (left), the bound float32-exact for `<`;
* LightGBM: `x <= threshold` on doubles, the bound as it is.

An unknown value (NaN) goes left where `nan_left` says (the library's learnt or default routing).
"""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from .pmml import float32_bounds
from .sklearn import _bounds

if TYPE_CHECKING:
    from ..tree.node import FlatTree, Node

_MAX = sys.float_info.max


@dataclass(frozen=True)
class PathTree:
    """A binary tree: node i sends x to `left[i]` when `x[feature[i]] <= bound[i]`, else to
    `right[i]`, an unknown x to the left where `nan_left[i]`; `left[i] == -1` at a leaf, whose
    score is `value[i]` (kept for the fingerprint only)."""

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    bound: np.ndarray
    nan_left: np.ndarray
    value: np.ndarray


def _tree(left: Any, right: Any, feature: Any, bound: Any, nan_left: Any, value: Any) -> PathTree:
    leaf = np.asarray(left, dtype=np.int64) == -1
    bounds = np.minimum(np.asarray(bound, dtype=np.float64), _MAX)   # +inf: only the unknowns go right
    return PathTree(np.asarray(left, dtype=np.int64), np.where(leaf, -1, np.asarray(right, dtype=np.int64)),
                    np.where(leaf, 0, np.asarray(feature, dtype=np.int64)), np.where(leaf, 0.0, bounds),
                    np.asarray(nan_left, dtype=bool) & ~leaf, np.asarray(value, dtype=np.float64).ravel())


def gb_trees(model: Any) -> list[PathTree]:
    """scikit-learn GradientBoostingClassifier: every stage's regression tree (one per class,
    or one in all for two classes), thresholds compared on float32 as scikit-learn does; a
    RandomForest's or ExtraTrees' trees are read the same way (`value` their first column)."""
    out = []
    for est in np.asarray(model.estimators_).ravel():
        t = est.tree_
        nan_left = getattr(t, "missing_go_to_left", np.zeros(t.node_count, dtype=bool))
        bound = np.where(t.children_left != -1, _bounds(t.threshold), 0.0)
        out.append(_tree(t.children_left, t.children_right, t.feature, bound, nan_left, t.value[:, 0, 0]))
    return out


def hgb_trees(model: Any) -> list[PathTree]:
    """scikit-learn HistGradientBoostingClassifier: every iteration's trees, their real-valued
    bin edges (`num_threshold`) compared on doubles; InputError for a categorical split."""
    if getattr(model, "_preprocessor", None) is not None or np.any(getattr(model, "is_categorical_", None) or False):
        raise InputError("the HistGradientBoostingClassifier has categorical features, whose splits a rule on"
                         " numbers cannot express: one-hot encode them and fit it again")
    out = []
    for stage in model._predictors:
        for pred in stage:
            n = pred.nodes
            if np.any(n["is_categorical"] & ~n["is_leaf"].astype(bool)):
                raise InputError("the HistGradientBoostingClassifier has a categorical split, which a rule on"
                                 " numbers cannot express")
            leaf = n["is_leaf"].astype(bool)
            left = np.where(leaf, -1, n["left"].astype(np.int64))   # uint32 in the predictor: -1 would wrap
            out.append(_tree(left, n["right"].astype(np.int64), n["feature_idx"], n["num_threshold"],
                             n["missing_go_to_left"], n["value"]))
    return out


def xgb_booster_json(booster: Any) -> dict[str, Any]:
    """The booster's model as XGBoost's JSON document (what `save_model('m.json')` writes)."""
    return json.loads(bytes(booster.save_raw(raw_format="json")).decode())


def xgb_trees(doc: dict[str, Any]) -> list[PathTree]:
    """XGBoost's trees from its JSON model: `float32(x) < split_condition` goes left ("yes"), an
    unknown value left where `default_left`; InputError for a linear booster or a categorical split."""
    gb = doc["learner"]["gradient_booster"]
    if gb.get("name") == "dart":
        gb = gb["gbtree"]
    if gb.get("name") != "gbtree":
        raise InputError(f"the XGBoost model's booster is {gb.get('name')!r}; only tree boosters give rules")
    out = []
    for t in gb["model"]["trees"]:
        if any(int(v) != 0 for v in t.get("split_type", ())):
            raise InputError("the XGBoost model has a categorical split, which a rule on numbers cannot express")
        left = np.asarray(t["left_children"], dtype=np.int64)
        conditions = np.asarray(t["split_conditions"], dtype=np.float32).astype(np.float64)
        bound = np.where(left != -1, float32_bounds(conditions, "<")[1], 0.0)
        out.append(_tree(left, t["right_children"], t["split_indices"], bound, t["default_left"],
                         t.get("base_weights", t["split_conditions"])))
    return out


def lgbm_trees(dump: dict[str, Any]) -> list[PathTree]:
    """LightGBM's trees from `Booster.dump_model()`: `x <= threshold` on doubles goes left; an
    unknown value goes left where `default_left` (missing_type NaN) or, where the tree has no
    missing routing (None), as LightGBM reads it, as 0; InputError for a categorical split or
    zero-as-missing (a test no rule on numbers expresses)."""
    out = []
    for info in dump["tree_info"]:
        rows: list[list[Any]] = []   # left, right, feature, bound, nan_left, value
        stack = [(info["tree_structure"], -1, 0)]
        while stack:   # not recursive: a deep tree would pass Python's frame limit
            n, parent, side = stack.pop()
            i = len(rows)
            if parent >= 0:
                rows[parent][side] = i
            if "split_feature" not in n:
                rows.append([-1, -1, 0, 0.0, False, float(n["leaf_value"])])
                continue
            if n["decision_type"] != "<=":
                raise InputError("the LightGBM model has a categorical split, which a rule on numbers cannot express")
            if n["missing_type"] == "Zero":
                raise InputError("the LightGBM model reads 0 as missing (zero_as_missing), which a rule on numbers"
                                 " cannot express: fit it with zero_as_missing=False")
            t = float(n["threshold"])
            nan_left = bool(n["default_left"]) if n["missing_type"] == "NaN" else 0.0 <= t
            rows.append([-1, -1, int(n["split_feature"]), t, nan_left, float(n.get("internal_value", 0.0))])
            stack += [(n["right_child"], i, 1), (n["left_child"], i, 0)]
        a = list(zip(*rows))
        out.append(_tree(*a))
    return out


def labelled_nodes(tree: PathTree, X: np.ndarray, codes: np.ndarray, n_classes: int) -> "Node":
    """The tree as our Node tree, each node's class distribution the count of the decisions
    `codes` of the rows of X that reach it (routed as the ensemble routes them); a node no row
    reaches takes its parent's class."""
    return labelled_flat(tree, X, codes, n_classes).rebuilt()


def labelled_flat(tree: PathTree, X: np.ndarray, codes: np.ndarray, n_classes: int) -> "FlatTree":
    """labelled_nodes' tree as a FlatTree (depth first, the `<=` branch first), made without a
    node: the rows are routed a level at a time, all at once (a node at a time cost numpy's
    per-call time at every node: 900 boosted trees' nodes were a third of their extraction)."""
    from ..rules.extract import THRESHOLD
    from ..tree.node import FlatTree
    C, m = n_classes, len(tree.left)
    counts = np.zeros(m * C, dtype=np.float64)
    at, rows = np.zeros(len(X), dtype=np.int64), np.arange(len(X))
    while len(at):
        counts += np.bincount(at * C + codes[rows], minlength=m * C)
        inner = tree.left[at] != -1
        at, rows = at[inner], rows[inner]
        x = X[rows, tree.feature[at]]
        go_left = np.where(np.isnan(x), tree.nan_left[at], x <= tree.bound[at])
        at = np.where(go_left, tree.left[at], tree.right[at])
    dist = counts.reshape(m, C)
    items, klass = dist.sum(axis=1), np.argmax(dist, axis=1)
    # depth first, each node after its parent: a node no row reaches takes its parent's class
    order: list[int] = []
    left, right, reached = tree.left.tolist(), tree.right.tolist(), (items > 0).tolist()
    stack = [0]
    while stack:   # not recursive: a deep tree would pass Python's frame limit
        i = stack.pop()
        order.append(i)
        if left[i] != -1:
            for kid in (left[i], right[i]):
                if not reached[kid]:
                    klass[kid] = klass[i]
            stack += [right[i], left[i]]
    at = np.array(order, dtype=np.int64)
    inner = tree.left[at] != -1
    return FlatTree.of_arrays(klass[at], items[at], (items - dist.max(axis=1))[at], np.where(inner, THRESHOLD, 0),
                              np.where(inner, tree.feature[at], -1), np.where(inner, tree.bound[at], 0.0),
                              np.where(inner, 2, 0), dist[at])


def trees_fingerprint(kind: str, classes: Any, names: Any, trees: list[PathTree]) -> str:
    """SHA-256 (hex) of the ensemble's kind, classes, feature names and every tree's arrays."""
    h = hashlib.sha256()
    h.update(kind.encode())
    h.update(repr([str(c) for c in classes]).encode())
    h.update(repr([str(c) for c in names]).encode())
    for t in trees:
        for a in (t.left, t.right, t.feature, t.bound, t.nan_left, t.value):
            arr = np.ascontiguousarray(a)
            h.update(str(arr.dtype).encode() + str(arr.shape).encode())
            h.update(arr.tobytes())
    return h.hexdigest()
