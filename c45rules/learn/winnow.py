"""Winnowing: screen out the attributes that do not help before the model is learnt (C5.0's -w).

C5.0 describes its winnowing as deciding, on training data held back, which attributes are at
best marginally useful, and then learning from the others. Its procedure is not published in
detail; this is ours, stated so that a reviewer can check it:

1. Deal the training cases into FOLDS (5) folds, stratified by class (folds.stratified_folds
   with the model's seed, 0 when none is set). The held-back error of a set of attributes is
   the number of cases misclassified by the pruned tree (the model's grower and options) grown
   on the other folds, summed over the folds.
2. The attributes tested by none of the folds' pruned trees are winnowed together, unless
   that raises the held-back error (then they are tried one at a time in step 3).
3. The attributes that are left are tried one at a time, the least used first (by the training
   weight passing through the nodes that test them, summed over the trees): an attribute is
   winnowed when learning without it gives a held-back error no higher than the current one
   (which then becomes the current error): of two models as accurate, the one needing fewer
   attributes is kept.
4. The winnowing stands only if its held-back error is no higher than that of all the
   attributes; otherwise nothing is winnowed. At least one attribute is always kept, and data
   with fewer than MIN_CASES (100) cases or fewer than two usable attributes is not winnowed:
   on the shared sets, five folds of fewer cases gave estimates too noisy to drop anything on
   (golf, labor: the cross-validated error went up).

Winnowing returns the names to drop; the model is then learnt on all the training cases as if
those attributes were declared `ignore` (which is also how C4.5 would see a data set without
them: the coding costs and the gain-ratio test count the attributes that are left). The model
keeps the full schema and the training data's fingerprint; the winnowed names are recorded in
its options.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import numpy as np

from ..data.schema import Attribute, Dataset
from .folds import stratified_folds

FOLDS = 5
MIN_CASES = 100


def without(data: Dataset, names: set[str]) -> Dataset:
    """The same cases with the attributes `names` declared ignore (columns and order kept)."""
    attrs = tuple(replace(a, kind="ignore") if a.name in names else a for a in data.schema.attributes)
    return replace(data, schema=replace(data.schema, attributes=attrs))   # weights kept too


def _usable(data: Dataset) -> list[Attribute]:
    return [a for a in data.schema.attributes if a.kind != "ignore"]


def _use_by_attribute(root: Any, n_attributes: int) -> np.ndarray:
    """Training weight reaching the test nodes of each attribute (0 for an untested one)."""
    use = np.zeros(n_attributes)
    for node in root.walk():
        if not node.is_leaf:
            use[node.attribute] += node.items
    return use


def winnow(data: Dataset, grow: Callable[[Dataset], Any], classify: Callable[[Any, Dataset], np.ndarray],
           seed: int = 0) -> tuple[str, ...]:
    """Names of the attributes to winnow from `data` (schema order), by the procedure above.

    `grow(dataset)` returns a grown Tree (its `.pruned` root is read) and `classify(tree,
    dataset)` the class code of each case, both with the model's own grower and options.
    """
    if len(_usable(data)) < 2 or data.n < MIN_CASES:
        return ()
    fold = stratified_folds(data.y, FOLDS, seed)
    parts = [(data.subset(np.flatnonzero(fold != f)), data.subset(np.flatnonzero(fold == f)))
             for f in range(FOLDS)]
    n_attr = len(data.schema.attributes)

    def held_back(drop: set[str]) -> tuple[float, np.ndarray]:
        errors, use = 0, np.zeros(n_attr)
        for train, test in parts:
            tree = grow(without(train, drop))
            wrong = classify(tree, without(test, drop)) != test.y
            # weighted cases count by their weight, as everywhere else
            errors += int(wrong.sum()) if test.weights is None else float(test.weights[wrong].sum())
            use += _use_by_attribute(tree.pruned, n_attr)
        return errors, use

    everything, use = held_back(set())
    usable = [i for i, a in enumerate(data.schema.attributes) if a.kind != "ignore"]
    dropped = {data.schema.attributes[i].name for i in usable if use[i] == 0}
    if len(dropped) == len(usable):      # no tree tested anything: keep the data as it is
        return ()
    current = everything
    if dropped:
        current = held_back(dropped)[0]
        if current > everything:      # together they did help: try them one at a time below
            dropped, current = set(), everything
    # least used first, ties in schema order
    for i in sorted((i for i in usable if data.schema.attributes[i].name not in dropped),
                    key=lambda i: (use[i], i)):
        if len(usable) - len(dropped) <= 1:
            break
        name = data.schema.attributes[i].name
        errors, _ = held_back(dropped | {name})
        if errors <= current:
            dropped.add(name)
            current = errors
    if current > everything:
        return ()
    return tuple(a.name for a in data.schema.attributes if a.name in dropped)
