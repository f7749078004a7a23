"""A fitted tree ensemble (scikit-learn forests and boosting, XGBoost, LightGBM) -> one short
ordered RuleSet that explains its decisions.

c4.5rules' own steps in a new setting: the candidates are the root-to-leaf paths of every
tree of the ensemble (read as `PathTree`s, boosted.py, that route a row as the library does,
thresholds as float32-exact bounds where the library compares float32); each path's
conditions are dropped by pessimistic error (spec 7.3-7.4), every tree's paths in one pass
(with more than two classes, also the paths of c4.5's own tree grown on the rows labelled by
the ensemble), the rules of all trees pooled through the duplicate check of 7.5 (identical
paths, and paths that generalise to the same rule, become one), then selected per class by
description length, ordered, given a default class and sifted (7.6-7.9), as the composite
ruleset of several trees is (7.10).

The labels all of this is judged against are the ensemble's decisions on the training table
(`model.predict(X)`), not the true labels: the rules describe the model. Each node of each
tree is labelled by those decisions on the rows reaching it (`labelled_flat`), as c4.5
labels a leaf by its cases: a forest's own leaf classes (its bootstrap sample's labels) say
less about the forest's vote (measured: FIDELITY.md, "Rules from tree ensembles"). With
`synthetic=N` the table gets N times as many rows near its own (`near_rows`), labelled by the
ensemble, so the rules are judged on more of its decision surface; with `validate=N` the
sifted list is then pruned against N times as many other such rows (refine.py) and given the
pooled rules that gain most there, within a budget of rules (`max_rules`; with more than two
classes by default half the leaves of c4.5's tree on the ensemble's decisions, `rule_budget`).

Unknown values (NaN): the target is what the ensemble decides for such rows (scikit-learn
>= 1.4 forests route NaN by their learnt `missing_go_to_left`); a model that refuses NaN makes
`from_ensemble` refuse it too (InputError). The rules treat an unknown value as c4.5rules
does: a condition on it is not satisfied, so such a row falls to a later rule or the default.

The RuleSet's options record the ensemble it explains: `explains` (the model's class) and
`ensemble_sha256`, a SHA-256 of its classes, feature names and every tree's arrays.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from ..data.frame import from_frame
from ..errors import InputError
from ..model.ruleset import RuleSet
from .boosted import PathTree, gb_trees, hgb_trees, labelled_flat, lgbm_trees, trees_fingerprint, xgb_trees
from .sklearn import _CF, _check_tree, _class_names, _feature_names, _target_name

if TYPE_CHECKING:
    from ..data.schema import Dataset
    from ..rules.generalize import CandidateRule

_SWAP = 0.5
# with two classes, by default: judged on 4x and pruned against 8x rows near the training rows
# (8 binary sets, mean over three seeds: RF 92.8% -> 94.6%, XGBoost 88.8% -> 90.2% held-out
# fidelity, fewer rules; FIDELITY.md). With more classes the list is pruned only, against
# 4x rows mixed within one class (a row mixed from two letters is no letter: pruning against
# those lost on letter, RF: 83.7% -> 77.2%; within a class, a third to two thirds fewer rules);
# a boosted ensemble's against its training rows too (against the made rows alone XGBoost letter
# fell to 73.9-75.2%, below the distilled tree's 75.4%; with them 76.6-77.0%)
TWO_CLASS_SYNTHETIC, TWO_CLASS_VALIDATE = 4, 8
MANY_CLASS_VALIDATE = 4
# with more classes a pooled rule is inserted where it gains 1 in 1,000 of the check rows (two
# classes: refine.POOL_SHARE, 1 in 200): XGBoost income's list had no rule gaining 1 in 200
# where the ensemble's noisy decisions lie (60.5-61.2% held-out fidelity, under the distilled
# tree's 61.5%; at 1 in 1,000 62.0-63.8%, 1 in 2,000 63.9-65.3% for 15-20% more CPU, over the
# 10x of the fit at times), affordable since the search keeps its counts between insertions
# (refine._Insertions; FIDELITY.md, h53)
MANY_CLASS_POOL_SHARE = 0.001
_FOREST_CLASSES = ("RandomForestClassifier", "ExtraTreesClassifier")
_BOOSTED_CLASSES = ("GradientBoostingClassifier", "HistGradientBoostingClassifier")
_XGB_OBJECTIVES = ("binary:logistic", "binary:logitraw", "binary:hinge", "multi:softprob", "multi:softmax")
KINDS = ("scikit-learn RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier or"
         " HistGradientBoostingClassifier, an XGBoost XGBClassifier or Booster, or a LightGBM LGBMClassifier"
         " or Booster")


def _is_lgbm(model: Any) -> bool:
    module = type(model).__module__ or ""
    return module.startswith("lightgbm.") and type(model).__name__ in ("LGBMClassifier", "Booster")


def _is_xgb(model: Any) -> bool:
    module = type(model).__module__ or ""
    return module.startswith("xgboost.") and type(model).__name__ in ("XGBClassifier", "Booster")


def check_forest(model: Any) -> list[Any]:
    """The ensemble's fitted trees (scikit-learn estimators; for XGBoost its Booster in a list),
    or InputError unless `model` is a fitted single-output ensemble of a kind `from_ensemble` reads."""
    kind = type(model).__name__
    module = type(model).__module__ or ""
    if _is_lgbm(model):
        booster = model if kind == "Booster" else getattr(model, "_Booster", None)
        if booster is None:
            raise InputError(f"the {kind} is not fitted: call fit(X, y) first")
        objective = booster.dump_model(num_iteration=0)["objective"].split()[0]
        if objective not in ("binary", "multiclass", "multiclassova"):
            raise InputError(f"the LightGBM model's objective is {objective!r}; a RuleSet explains a classifier")
        return [booster]
    if _is_xgb(model):
        booster = model if kind == "Booster" else _xgb_booster(model)
        objective = _xgb_config(booster)["learner"]["objective"]["name"]
        if objective not in _XGB_OBJECTIVES:
            raise InputError(f"the XGBoost model's objective is {objective!r}; a RuleSet explains a classifier"
                             f" ({', '.join(_XGB_OBJECTIVES)})")
        return [booster]
    if kind not in _FOREST_CLASSES + _BOOSTED_CLASSES or not module.startswith("sklearn."):
        raise InputError(f"expected a fitted {KINDS}, not {module + '.' if module else ''}{kind}")
    trees = getattr(model, "_predictors" if kind == "HistGradientBoostingClassifier" else "estimators_", None)
    if trees is None or len(trees) == 0 or not hasattr(model, "classes_"):
        raise InputError(f"the {kind} is not fitted: call fit(X, y) first")
    if getattr(model, "n_outputs_", 1) != 1:
        raise InputError(f"the {kind} predicts {model.n_outputs_} outputs; a RuleSet predicts one class")
    if kind in _FOREST_CLASSES:
        for t in trees:
            _check_tree(t)
    return list(trees)


def _xgb_booster(model: Any) -> Any:
    try:
        return model.get_booster()
    except Exception:   # xgboost's NotFittedError and kin
        raise InputError(f"the {type(model).__name__} is not fitted: call fit(X, y) first") from None


def _xgb_doc(booster: Any) -> dict[str, Any]:
    from .boosted import xgb_booster_json
    return xgb_booster_json(booster)


def _xgb_config(booster: Any) -> dict[str, Any]:
    # the learner's parameters without its trees: the objective and the classes read from it,
    # not from the whole model (read once per extraction: 0.2 s a time for 900 trees)
    import json
    return json.loads(booster.save_config())


def _path_trees(model: Any) -> list[PathTree]:
    """A boosted ensemble's trees as PathTrees (boosted.py)."""
    kind = type(model).__name__
    if _is_lgbm(model):
        return lgbm_trees(check_forest(model)[0].dump_model())
    if _is_xgb(model):
        return xgb_trees(_xgb_doc(check_forest(model)[0]))
    # a forest's trees read as GradientBoosting's are: nodes labelled by the ensemble's decisions
    return hgb_trees(model) if kind == "HistGradientBoostingClassifier" else gb_trees(model)


def fingerprint(model: Any) -> str:
    """SHA-256 (hex) of the ensemble's kind, classes, feature names and every tree's structure,
    thresholds and leaf values: the same for the same fitted model, different for any change
    that can change a decision."""
    return _fingerprint(model, [] if type(model).__name__ in _FOREST_CLASSES else _path_trees(model))


def _fingerprint(model: Any, paths: list[PathTree]) -> str:
    """fingerprint, a boosted ensemble's trees read already (`paths`)."""
    if type(model).__name__ not in _FOREST_CLASSES:
        return trees_fingerprint(type(model).__name__, class_names(model), feature_names(model), paths)
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
    """The names of the features the ensemble was fit on (x0, x1, ... when it had none)."""
    if _is_lgbm(model) and type(model).__name__ == "Booster":
        return tuple(model.feature_name())
    if _is_xgb(model) and type(model).__name__ == "Booster":
        names = model.feature_names
        return tuple(names) if names else tuple(f"x{i}" for i in range(model.num_features()))
    return _feature_names(model, None)


def class_names(model: Any) -> tuple[str, ...]:
    """The ensemble's classes as text (an XGBoost Booster's: 0, 1, ... K-1)."""
    if _is_lgbm(model) and type(model).__name__ == "Booster":
        return tuple(str(i) for i in range(max(int(model.dump_model(num_iteration=0)["num_class"]), 2)))
    if _is_xgb(model) and type(model).__name__ == "Booster":
        k = int(_xgb_config(model)["learner"]["learner_model_param"]["num_class"])
        return tuple(str(i) for i in range(max(k, 2)))
    return _class_names(model, None)


def _decisions(model: Any, frame: pd.DataFrame, classes: tuple[str, ...]) -> list[str]:
    """The ensemble's decision for each row of `frame`, as one of `classes`."""
    if _is_xgb(model) and type(model).__name__ == "Booster":
        import xgboost
        objective = _xgb_config(model)["learner"]["objective"]["name"]
        p = np.asarray(model.predict(xgboost.DMatrix(frame.to_numpy(dtype=np.float64), missing=np.nan,
                                                     feature_names=model.feature_names)))
        # as XGBClassifier.predict decides on each objective's output
        if objective == "multi:softprob":
            k = np.argmax(p.reshape(len(frame), -1), axis=1)
        elif objective in ("multi:softmax", "binary:hinge"):
            k = p.astype(np.int64)
        else:
            k = (p > (0.5 if objective == "binary:logistic" else 0.0)).astype(np.int64)
        return [classes[i] for i in k]
    if _is_lgbm(model) and type(model).__name__ == "Booster":
        p = np.asarray(model.predict(frame.to_numpy(dtype=np.float64)))
        k = np.argmax(p, axis=1) if p.ndim == 2 else (p > 0.5).astype(np.int64)   # as LGBMClassifier.predict
        return [classes[i] for i in k]
    plain = (_is_xgb(model) or _is_lgbm(model)) and getattr(model, "feature_names_in_", None) is None
    decided = model.predict(frame.to_numpy(dtype=np.float64) if plain else frame)
    by_label = dict(zip(map(str, model.classes_), classes))
    return [by_label[str(v)] for v in decided]


def _features(model: Any, X: Any) -> tuple[tuple[str, ...], pd.DataFrame]:
    """The model's feature names and X's columns of them, as a DataFrame in the model's order."""
    names = feature_names(model)
    if isinstance(X, pd.DataFrame):
        named = getattr(model, "feature_names_in_", None) is not None or (
            _is_xgb(model) and type(model).__name__ == "Booster" and bool(model.feature_names)) or (
            _is_lgbm(model) and type(model).__name__ == "Booster")
        if named:
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


def _library(model: Any) -> str:
    return "xgboost" if _is_xgb(model) else "lightgbm" if _is_lgbm(model) else "sklearn"


def from_ensemble(model: Any, X: Any, *, max_rules: int | None = None, cf: float = _CF,
                  synthetic: int | None = None, validate: int | None = None, seed: int = 0) -> RuleSet:
    """An ordered RuleSet that explains a fitted tree ensemble's decisions (module docstring).

    Parameters
    ----------
    model : a fitted tree ensemble classifier
        scikit-learn RandomForest/ExtraTrees/GradientBoosting/HistGradientBoosting classifier,
        XGBoost XGBClassifier or Booster, LightGBM LGBMClassifier or Booster (binary or
        multi-class; a Booster's classes are 0 .. K-1).
    X : DataFrame or 2-D array
        The training table: a DataFrame holding (at least) the columns the forest was fit on
        (``feature_names_in_``; other columns are left out), or, for a forest fit without
        names, exactly its features in order (named x0, x1, ...). Numeric; NaN is an unknown
        value. The rules' target is ``model.predict(X)``; each tree's nodes are labelled by
        the ensemble's decisions on the rows reaching them (not by the tree's own leaves).
    max_rules : int or None, default=None
        Keep at most N rules: with the pruning (`validate`), a budget it meets by deleting, while
        the list is longer, the rule whose deletion loses least agreement on the check rows, and
        no pool rule inserted beyond it; without (`validate=0`), the first N rules of the
        ordered list. The default class is then the one most frequent among the ensemble's
        decisions on the rows none of them covers (spec 7.8). None: no budget for two classes;
        for more, `rule_budget` of c4.5's tree grown on the ensemble's decisions on the
        training rows (half its leaves: the issue's size target; FIDELITY.md, h53z).
    cf : float, default=0.25
        The confidence level of the pessimistic error rates that drop conditions.
    synthetic : int or None, default=None
        Also judge the rules on `synthetic` times as many rows near X's (`near_rows`: each
        a row of X with about half its features taken from another row; with two classes the
        0/1 columns of a one-hot encoded attribute are taken together, `exclusive_blocks`),
        labelled by the ensemble: more of its decisions seen (FIDELITY.md, "Rules from tree
        ensembles").
        None: 4 for an ensemble of two classes, 0 (none) for more.
    validate : int or None, default=None
        Then prune the sifted list against `validate` times as many other rows near X's,
        labelled by the ensemble (refine.py): a rule is deleted where that loses no agreement
        with the ensemble there, a condition dropped where that gains some: fewer rules
        (FIDELITY.md); a generalised path of any tree is also inserted where that gains
        agreement on at least 1 in 200 of those rows (with more than two classes since h53z:
        XGBoost segment seed 2 95.9% -> 97.0%; with more than two, 1 in 1,000 since h53:
        XGBoost income 60.5-61.2% -> 62.0-63.8%), and, with two classes, a forest's rule whose
        deletion neither gains nor loses agreement there is kept where deleting it loses some on
        the rows the list was chosen on. With more than two classes the made rows mix only rows
        the ensemble decides alike, rules are then also deleted while that shortens the list's
        description on them, the default class is chosen again as rules go, and no condition is
        dropped that would leave its rule firing nowhere (refine.py); a boosted ensemble's list
        is pruned against its training rows too. None: 8 for two classes, 4 for more; 0 turns
        it off. Before `max_rules`.
    seed : int, default=0
        The seed of those rows (the same rules for the same arguments).

    Returns
    -------
    RuleSet
        An ordinary ruleset (every export works on it); its options record ``explains``
        and ``ensemble_sha256`` (`fingerprint`).

    Raises
    ------
    InputError
        Not a fitted ensemble of those kinds, or one with a split no rule on numbers
        expresses (categorical; LightGBM's zero-as-missing); X without the model's columns or rows; NaN in
        X that the model refuses; `max_rules` not a positive whole number, `synthetic` or `validate` negative.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from c45rules import from_ensemble
    >>> X = pd.DataFrame({"a": [1.0, 2, 3, 4] * 10})
    >>> rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, ["n", "n", "y", "y"] * 10)
    >>> rs = from_ensemble(rf, X)
    >>> [str(r) for r in rs.rules], rs.default_class
    (['rule 2: if a > 2.5 then y [98.6%]'], 'n')
    """
    from ..learn.pipeline import learn_tree, rules_from_candidates
    from ..rules.generalize import generalise_rules
    check_forest(model)
    if max_rules is not None and (isinstance(max_rules, bool) or not isinstance(max_rules, (int, np.integer))
                                  or max_rules < 1):
        raise InputError(f"max_rules must be a whole number >= 1, not {max_rules!r}", params=("max_rules",))
    for name, v in (("synthetic", synthetic), ("validate", validate)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0):
            raise InputError(f"{name} must be a whole number >= 0, not {v!r}", params=(name,))
    # read the trees first: a split no rule can express (categorical) is refused before any work
    paths = _path_trees(model)
    names, frame = _features(model, X)
    if len(frame) == 0:
        raise InputError("X has no rows")
    classes = class_names(model)
    two = len(classes) == 2
    synthetic = (TWO_CLASS_SYNTHETIC if two else 0) if synthetic is None else int(synthetic)
    forest = type(model).__name__ in _FOREST_CLASSES
    if validate is None:
        validate = TWO_CLASS_VALIDATE if two else MANY_CLASS_VALIDATE
    validate = int(validate)
    own = _decided(model, frame, classes)
    every = list(own)
    if synthetic or validate:
        # one seeded stream: the rows the rules are judged on first, then those they are pruned
        # against. Partners of any class: rows between the classes are where the lists differ
        # (partners the ensemble decides alike: 2.8 points less on the binary sets)
        # more classes: partners the ensemble decides alike, so a made row stays in one class's
        # region (a row mixed from two letters is no letter: pruning against those lost on letter)
        # two classes: a one-hot attribute's columns swapped as one, so a made row holds one of
        # its values, not two or none (8 binary sets, three seeds: XGBoost 90.2% -> 90.4%
        # held-out fidelity, RF as faithful with a rule less; FIDELITY.md)
        grid = frame.to_numpy(dtype=np.float64)
        extra = pd.DataFrame(near_rows(grid, synthetic + validate, seed=seed, alike=None if two else np.asarray(own),
                                       blocks=exclusive_blocks(grid) if two else None), columns=frame.columns)
        every += _decided(model, extra, classes)
        frame = pd.concat([frame, extra], ignore_index=True)
    judged = len(own) * (1 + synthetic)
    checked, decided, frame = frame.iloc[judged:], every[:judged], frame.iloc[:judged]
    target = _target_name(names)
    table = frame.copy()
    table[target] = decided
    ds = from_frame(table, target, continuous=list(names), source="<from_ensemble X>")
    index = {c: i for i, c in enumerate(ds.schema.classes)}
    codes = np.array([index[c] for c in decided], dtype=np.int64)
    values = frame.to_numpy(dtype=np.float64)
    trees = [labelled_flat(t, values, codes, len(index)) for t in paths]
    budget = max_rules
    if len(classes) > 2:
        # c4.5's own tree on the ensemble's decisions: one partition of every class at once,
        # where each boosted tree scores one class and a forest's shallow trees split few
        # (income: 85.1% -> 88.7% held-out fidelity; binary sets: no gain, FIDELITY.md)
        own_tree = learn_tree(ds, cf=cf)
        trees.append(own_tree.unpruned_flat)
        if budget is None and validate:
            # the default size: half the leaves of c4.5's tree on the ensemble's decisions on
            # the training rows (the target: no more rules than half a distilled tree's
            # leaves), so the pruning goes on deleting where that loses least until within it
            distilled = learn_tree(ds.subset(np.arange(len(own))), cf=cf) if synthetic else own_tree
            budget = rule_budget(distilled.pruned.leaves(), len(classes))
    # every tree's leaves in one pass, repeats dropped as composite.pooled drops them
    candidates = generalise_rules(trees, ds, cf=cf)
    options: dict[str, Any] = {"explains": f"{_library(model)} {type(model).__name__} ({len(paths)} trees)",
                               "ensemble_sha256": _fingerprint(model, paths)}
    if max_rules is not None:
        options["max_rules"] = int(max_rules)
    if synthetic:
        options["synthetic"] = synthetic
    refine = None
    if validate:
        options["validate"] = validate
        refine = _pruning(checked.to_numpy(dtype=np.float64), every[judged:], values, codes, index, cf, ds,
                          pool=candidates, ties=two and forest,
                          with_training=not forest and not two, budget=budget)
    if synthetic or validate:
        options["seed"] = int(seed)
    rs, _ = rules_from_candidates(candidates, ds, options=options, max_rules=max_rules, refine=refine)
    return rs


def _pruning(values: np.ndarray, decided: list[str], train: np.ndarray, codes: np.ndarray,
             index: dict[str, int], cf: float, ds: Dataset, *, pool: list[CandidateRule] | None = None,
             ties: bool = False, with_training: bool = False, budget: int | None = None
             ) -> Callable[[list[CandidateRule], int], list[CandidateRule]]:
    """rules_from_candidates' `refine`: the sifted list pruned against the ensemble's
    decisions on the check rows `values` (refine.py), covers recounted on the training rows
    `train` (of `ds`, classes `codes`); with more than two classes, rules that do not pay for
    their bits deleted, the default class chosen again as rules go, and no condition dropped
    that would leave its rule firing nowhere (its error on `train` over spec 7.6.1's bound).
    With a `pool` (the generalised rules), rules from it inserted where they gain enough; with
    `ties`, a rule the check rows are indifferent to (its deletion neither gains nor loses
    agreement there) kept where the rows it was chosen on need it (two classes, a forest: RF
    94.6% -> 95.1% on the 8 binary sets, XGBoost 91.0% either way with 0.4 rules more,
    FIDELITY.md). `with_training`: the training rows are check rows too."""
    from .refine import prune_against, recount
    # a class the ensemble gives only to check rows cannot be a rule's: those rows count as missed
    check_codes = np.array([index.get(c, -1) for c in decided], dtype=np.int64)
    if with_training:
        values, check_codes = np.concatenate([values, train]), np.concatenate([check_codes, codes])


    def refine(kept: list[CandidateRule], default: int) -> list[CandidateRule]:
        bits, many = None, len(index) > 2
        if many:
            # the theory bits the subset selection charges each rule (spec 7.6, half weight).
            # Not with two classes: their lists are short already (12 rules a set on the 8
            # binary sets), and it was not measured there
            from ..learn.pipeline import candidate_bits
            from ..rules.coding import CODE_WEIGHT, branch_bits
            got = candidate_bits(kept + list(pool or ()), ds.schema, branch_bits(ds), 1.0)
            bits = {k: CODE_WEIGHT * v for k, v in got.items()}
        # with many classes (not measured with two: their defaults are another study's), the
        # default class is chosen again as rules go, as it is after the pruning (spec 7.8), and a
        # condition is not dropped where the rule would then never fire once recounted
        pruned = prune_against(kept, values, check_codes, default, bits=bits, n_classes=len(index),
                               train=(train, codes, cf) if many else None, pool=pool,
                               judged=(train, codes) if ties else None, budget=budget,
                               share=MANY_CLASS_POOL_SHARE if many else None)
        before = {r.number: r for r in kept}
        return [r if r.number in before and r.conditions == before[r.number].conditions
                else recount(r, train, codes, cf) for r in pruned]
    return refine


def rule_budget(leaves: int, n_classes: int) -> int:
    """The most rules `from_ensemble` keeps by default with more than two classes: half the
    leaves of c4.5's tree grown on the ensemble's decisions (rounded down), but at least one
    rule per class but the default's."""
    return max(n_classes - 1, leaves // 2)


def _decided(model: Any, frame: pd.DataFrame, classes: tuple[str, ...]) -> list[str]:
    """_decisions, or InputError where the library refuses the rows (NaN, non-numbers)."""
    try:
        return _decisions(model, frame, classes)
    except ValueError as e:   # the library's word on NaN or non-numbers it refuses
        raise InputError(f"the {type(model).__name__} cannot decide X's rows: {e}") from None


def near_rows(values: np.ndarray, factor: int, *, swap: float = _SWAP, seed: int = 0,
              alike: np.ndarray | None = None, blocks: np.ndarray | None = None) -> np.ndarray:
    """`factor` times as many rows as `values`, each near one of them: a copy of row i whose
    features are, each with probability `swap`, the values of a partner row drawn at random
    (seeded: the same rows for the same arguments); with `alike` (a label per row), drawn among
    the rows of row i's label only; with `blocks` (a block number per column, 0 .. B-1,
    `exclusive_blocks`), the columns of a block taken together. Rows the ensemble was never
    shown, in the region its training rows span, for the rules to be judged on more of its
    decisions."""
    rng = np.random.default_rng(seed)
    n, d = values.shape
    out = [np.empty((0, d))]
    if alike is not None:
        if len(alike) != n:
            raise InputError(f"alike has {len(alike)} labels for {n} rows")
        order = np.argsort(alike, kind="stable")
        ranked = np.asarray(alike)[order]
        start = np.searchsorted(ranked, alike, side="left")
        count = np.searchsorted(ranked, alike, side="right") - start
    for _ in range(factor):
        if alike is None:
            mate = rng.integers(0, n, size=n)
        else:
            mate = order[start + np.minimum((rng.random(n) * count).astype(np.int64), count - 1)]
        taken = rng.random((n, d if blocks is None else int(blocks.max()) + 1)) < swap
        out.append(np.where(taken if blocks is None else taken[:, blocks], values[mate], values))
    return np.concatenate(out)


def exclusive_blocks(values: np.ndarray) -> np.ndarray:
    """Per column of `values`, the number of its block (0, 1, ... left to right): a run of
    neighbouring 0/1 columns no row has two ones in (the columns of a one-hot encoded
    attribute, as encoders write them: side by side), or the column alone."""
    d = values.shape[1]
    binary = np.all((values == 0) | (values == 1), axis=0) if len(values) else np.zeros(d, dtype=bool)
    block = np.zeros(d, dtype=np.int64)
    ones = values[:, 0].copy() if d and binary[0] else None   # per row, the ones in the open block
    for j in range(1, d):
        if binary[j] and ones is not None and not np.any(ones + values[:, j] > 1):
            block[j] = block[j - 1]
            ones = ones + values[:, j]
        else:
            block[j] = block[j - 1] + 1
            ones = values[:, j].copy() if binary[j] else None
    return block
