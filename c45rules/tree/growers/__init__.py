"""The tree growers, found by name: each module's `grow(data, options) -> Tree`.

* c45:  C4.5 Release 8 (gain ratio, fractional unknowns, pessimistic pruning); the default;
* cart: R's rpart 4.1.19, method="class" (Gini, binary splits, cost-complexity pruning, surrogates);
* id3:  the classic ID3 (information gain, no pruning);
* j48:  Weka 3.6's J48 (C4.5 as Weka ports it, with its options -U -B -R -S -J -A -O);
* chaid: Kass's (1980) CHAID (chi-square merging of categories, multiway splits, Bonferroni-
  adjusted p-values, stopping by significance);
* quest: Loh & Shih's QUEST (unbiased attribute choice by F and chi-square tests, split points
  by quadratic discriminant analysis, cart's cost-complexity pruning with the 1-SE rule).

Every grower returns the same `Tree` of `Node`s, so the rules, the exports, explain, rescore
and the report take a tree from any of them. `OPTIONS` lists each grower's own options with
their defaults (the options every grower shares, such as `cf` and `seed` for the rules, are
the pipeline's).
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np

from ...errors import InputError
from .options import NAMES, OPTIONS


def get_grower(name: str) -> Callable:
    """The `grow(data, options) -> Tree` function of the grower called `name`."""
    if name not in OPTIONS:
        raise InputError(f"unknown grower {name!r} (known: {', '.join(NAMES)})")
    return importlib.import_module(f"{__name__}.{name}").grow


def tree_classes(tree: Any, data: Any) -> np.ndarray:
    """Class code per case of a grown Tree, each grower's tree classifying as its grower does
    (c45: c4.5's weighted branches for unknowns; cart and quest: rpart's predict with their
    surrogates; id3: unknowns down the branch of most training cases; j48: J48's class
    probabilities; chaid: unknowns with Kass's floating category)."""
    name = tree.options.get("grower", "c45")
    if name == "c45":
        from ..classify import classify
        return classify(tree.pruned, data)
    if name == "j48":
        from .j48 import predict as j48_predict
        return j48_predict(tree.pruned, data, tree.options.get("laplace", False))
    if name == "chaid":
        from .chaid import predict as chaid_predict
        return chaid_predict(tree.pruned, data)
    from .cart import predict
    return predict(tree.pruned, data, tree.options.get("usesurrogate", 2))
