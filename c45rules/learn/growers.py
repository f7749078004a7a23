"""The tree growers' parameters as scikit-learn objects: ``C45``, ``CART``, ``ID3``, ``J48``,
``CHAID`` and ``QUEST``, passed to ``C45Rules(tree=...)``.

The learning runs in two stages (spec 2-7): a grower grows a tree, then c4.5rules turns the
tree's paths into rules and generalises, selects and orders them. Each object here holds the
first stage's parameters of one grower, and only those, so a grid search can tune them as
``tree__cp`` beside the rule stage's ``cf``. The objects hold values only; they are checked
when ``C45Rules.fit`` runs (scikit-learn's convention), by the pipeline's one set of checks
(pipeline.check_options), with the message naming the parameter as spelled here.
"""
from __future__ import annotations

import inspect
import re
from typing import Any, ClassVar

from ..errors import InputError

try:  # scikit-learn's BaseEstimator gives get_params/set_params/clone/repr; it is not required
    from sklearn.base import BaseEstimator as ParamsBase
except ImportError:
    class ParamsBase:   # type: ignore[no-redef]
        """get_params/set_params from the constructor's signature (scikit-learn's protocol)."""

        @classmethod
        def _get_param_names(cls) -> list[str]:
            return [p.name for p in inspect.signature(cls.__init__).parameters.values()
                    if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]

        def get_params(self, deep: bool = True) -> dict[str, Any]:
            """The constructor parameters (with ``deep``, a nested object's as ``name__param``)."""
            out = {}
            for k in self._get_param_names():
                v = getattr(self, k)
                out[k] = v
                if deep and hasattr(v, "get_params") and not isinstance(v, type):
                    out.update((f"{k}__{kk}", vv) for kk, vv in v.get_params().items())
            return out

        def set_params(self, **params: Any) -> "ParamsBase":
            """Set constructor parameters (``name__param`` for a nested object's); returns self."""
            valid = self._get_param_names()
            for k, v in params.items():
                key, _, sub = k.partition("__")
                if key not in valid:
                    raise InputError(f"invalid parameter {key!r} for {type(self).__name__}"
                                     f" (valid: {', '.join(valid)})")
                if sub:
                    getattr(self, key).set_params(**{sub: v})
                else:
                    setattr(self, key, v)
            return self

        def __repr__(self) -> str:
            changed = [f"{k}={v!r}" for k, v in self.get_params(deep=False).items()
                       if v is not inspect.signature(type(self).__init__).parameters[k].default]
            return f"{type(self).__name__}({', '.join(changed)})"


class Grower(ParamsBase):
    """A grower's parameters; subclasses name the grower and how each parameter is recorded.

    ``name`` is the grower's name in the pipeline and in model files; ``_RECORDED`` maps a
    parameter spelled here to the option name models record when the two differ (the names
    this API shares with scikit-learn and the CLI, such as ``max_depth``, against the names
    model files have kept since before, such as rpart's ``maxdepth``).
    """

    name: ClassVar[str] = ""
    _RECORDED: ClassVar[dict[str, str]] = {}

    def options(self, rules_cf: float) -> dict[str, Any]:
        """The pipeline options (pipeline.DEFAULTS' names) of this grower's parameters.

        ``rules_cf`` is the rule stage's confidence level: a grower that prunes with a
        confidence level (c45, j48) prunes with it unless its own ``cf`` is set.
        """
        out: dict[str, Any] = {"grower": self.name}
        for k, v in self.get_params(deep=False).items():
            if k == "cf":
                continue
            out[self._RECORDED.get(k, k)] = v
        return out

    def labels(self) -> dict[str, str]:
        """How an error message names each recorded option: ``CART parameter max_depth``."""
        return {self._RECORDED.get(k, k): f"{type(self).__name__} parameter {k}"
                for k in self.get_params(deep=False)}


class C45(Grower):
    """Quinlan's C4.5 Release 8 tree: gain ratio, fractional unknowns, pessimistic pruning.

    Parameters
    ----------
    cf : float in (0, 1] or None, default=None
        Confidence level of the pessimistic pruning (c4.5's ``-c``). None: the rule stage's
        ``C45Rules.cf``, as c4.5 and c4.5rules run with one ``-c``. The rules come from the
        unpruned tree, so this changes the pruned tree (``tree_``, the report's picture,
        boosting's leaf budget), not the rules.
    min_objs : int, default=2
        At least two branches of a test must hold this many cases (c4.5's ``-m``).
    gain_ratio : bool, default=True
        Choose tests by gain ratio; False: by information gain (c4.5's ``-g``).
    subset : bool, default=False
        Test discrete attributes on subsets of their values (c4.5's ``-s``).
    soft : bool, default=False
        Grow the tree as c4.5 ``-p`` does (cases in the order read) and give each threshold
        its soft band; not with weights, costs or boosting.

    Examples
    --------
    >>> from c45rules import C45, C45Rules
    >>> C45Rules(tree=C45(min_objs=5)).get_params()["tree__min_objs"]
    5
    """

    name = "c45"

    def __init__(self, cf: float | None = None, min_objs: int = 2, gain_ratio: bool = True,
                 subset: bool = False, soft: bool = False):
        self.cf = cf
        self.min_objs = min_objs
        self.gain_ratio = gain_ratio
        self.subset = subset
        self.soft = soft

    def options(self, rules_cf: float) -> dict[str, Any]:
        """The pipeline options; the pruning confidence level is ``cf``, else ``rules_cf``."""
        return {**super().options(rules_cf), **_pruning_cf(self.cf, rules_cf)}


class CART(Grower):
    """Breiman's CART as R's rpart 4.1 (method "class"): Gini, binary splits,
    cost-complexity pruning, surrogate splits; rpart.control's names and defaults.

    Parameters
    ----------
    cp : float in [0, 1], default=0.01
        Complexity parameter: a split must cut the relative error by at least ``cp``.
    minsplit : int, default=20
        Fewest cases in a node for a split to be tried.
    minbucket : int or None, default=None
        Fewest cases in a leaf; None: ``round(minsplit / 3)`` as in rpart.
    max_depth : int in [1, 30], default=30
        Deepest node (the root at depth 0): rpart's ``maxdepth``.
    usesurrogate : {0, 1, 2}, default=2
        How a case with the split's attribute unknown is sent on (rpart's meanings).
    maxsurrogate : int, default=5
        Surrogate splits kept per node.
    prune_folds : int, default=0
        Cross-validation folds that choose the pruning cp (rpart's ``xval``); 0: prune at ``cp``.

    Examples
    --------
    >>> from c45rules import CART, C45Rules
    >>> C45Rules(tree=CART(cp=0.02, max_depth=4)).get_params()["tree__max_depth"]
    4
    """

    name = "cart"
    _RECORDED = {"max_depth": "maxdepth", "prune_folds": "xval"}

    def __init__(self, cp: float = 0.01, minsplit: int = 20, minbucket: int | None = None,
                 max_depth: int = 30, usesurrogate: int = 2, maxsurrogate: int = 5,
                 prune_folds: int = 0):
        self.cp = cp
        self.minsplit = minsplit
        self.minbucket = minbucket
        self.max_depth = max_depth
        self.usesurrogate = usesurrogate
        self.maxsurrogate = maxsurrogate
        self.prune_folds = prune_folds


class ID3(Grower):
    """Quinlan's ID3: information gain, multiway splits, no pruning; no parameters of its own.

    Examples
    --------
    >>> from c45rules import ID3, C45Rules
    >>> C45Rules(tree=ID3()).tree
    ID3()
    """

    name = "id3"


class J48(Grower):
    """Weka 3.6's J48 (C4.5 as Weka ports it), with its command-line options.

    Parameters
    ----------
    cf : float in (0, 1] or None, default=None
        Pruning confidence (J48's ``-C``); None: the rule stage's ``C45Rules.cf``.
    min_objs : int, default=2
        Fewest cases per leaf (``-M``).
    unpruned : bool, default=False
        Do not prune (``-U``).
    binary_splits : bool, default=False
        Binary splits on nominal attributes (``-B``).
    reduced_error_pruning : bool, default=False
        Reduced-error pruning on a held-out fold (``-R``).
    prune_folds : int, default=3
        Folds of reduced-error pruning, one held out (``-N``).
    subtree_raising : bool, default=True
        Consider subtree raising when pruning (False: ``-S``).
    mdl_correction : bool, default=True
        MDL correction of the info gain of numeric splits (False: ``-J``).
    laplace : bool, default=False
        Laplace-smoothed leaf counts (``-A``).
    collapse : bool, default=True
        Collapse the tree before pruning (False: ``-O``).

    Examples
    --------
    >>> from c45rules import J48
    >>> J48(prune_folds=5, reduced_error_pruning=True).options(0.25)["folds"]
    5
    """

    name = "j48"
    _RECORDED = {"prune_folds": "folds"}

    def __init__(self, cf: float | None = None, min_objs: int = 2, unpruned: bool = False,
                 binary_splits: bool = False, reduced_error_pruning: bool = False, prune_folds: int = 3,
                 subtree_raising: bool = True, mdl_correction: bool = True, laplace: bool = False,
                 collapse: bool = True):
        self.cf = cf
        self.min_objs = min_objs
        self.unpruned = unpruned
        self.binary_splits = binary_splits
        self.reduced_error_pruning = reduced_error_pruning
        self.prune_folds = prune_folds
        self.subtree_raising = subtree_raising
        self.mdl_correction = mdl_correction
        self.laplace = laplace
        self.collapse = collapse

    def options(self, rules_cf: float) -> dict[str, Any]:
        """The pipeline options; the pruning confidence level is ``cf``, else ``rules_cf``."""
        return {**super().options(rules_cf), **_pruning_cf(self.cf, rules_cf)}


class CHAID(Grower):
    """Kass's (1980) CHAID: chi-square merging of categories, multiway splits, stopping by
    Bonferroni-adjusted significance; SPSS's defaults.

    Parameters
    ----------
    alpha_merge : float in (0, 1), default=0.05
        Categories whose difference is less significant than this are merged.
    alpha_split : float in (0, 1), default=0.05
        A node is split only on an attribute this significant.
    max_depth : int, default=3
        Deepest split.
    min_parent : int, default=100
        Fewest cases in a node for a split to be tried.
    min_child : int, default=50
        Fewest cases in a child node.
    bins : int or None, default=None
        Equal-frequency bins of a continuous attribute; None: every distinct value a category.
    bonferroni : bool, default=True
        Bonferroni-adjust the p-values.

    Examples
    --------
    >>> from c45rules import CHAID
    >>> CHAID(max_depth=2).options(0.25)["max_depth"]
    2
    """

    name = "chaid"

    def __init__(self, alpha_merge: float = 0.05, alpha_split: float = 0.05, max_depth: int = 3,
                 min_parent: int = 100, min_child: int = 50, bins: int | None = None,
                 bonferroni: bool = True):
        self.alpha_merge = alpha_merge
        self.alpha_split = alpha_split
        self.max_depth = max_depth
        self.min_parent = min_parent
        self.min_child = min_child
        self.bins = bins
        self.bonferroni = bonferroni


class QUEST(Grower):
    """Loh & Shih's QUEST: unbiased attribute choice by F and chi-square tests, split points by
    quadratic discriminant analysis, cost-complexity pruning with the SE rule.

    Parameters
    ----------
    alpha : float in (0, 1), default=0.05
        Significance level of the attribute-choice tests.
    min_node : int, default=10
        Fewest cases in a node for a split to be tried.
    prune_folds : int, default=10
        Cross-validation folds of the pruning; 0: no pruning.
    se_rule : float, default=1.0
        Prune to the smallest tree within this many standard errors of the best.

    Examples
    --------
    >>> from c45rules import QUEST
    >>> sorted(QUEST(alpha=0.01).options(0.25).items())[:2]
    [('grower', 'quest'), ('min_node', 10)]
    """

    name = "quest"
    _RECORDED = {"alpha": "quest_alpha"}

    def __init__(self, alpha: float = 0.05, min_node: int = 10, prune_folds: int = 10, se_rule: float = 1.0):
        self.alpha = alpha
        self.min_node = min_node
        self.prune_folds = prune_folds
        self.se_rule = se_rule


def _pruning_cf(cf: float | None, rules_cf: float) -> dict[str, Any]:
    """The pipeline's ``cf`` (pruning, and the rules' unless ``rules_cf`` is set) and ``rules_cf``
    for a grower's pruning ``cf`` and the rule stage's level: one level records as before."""
    if cf is None or cf is rules_cf or cf == rules_cf:
        return {"cf": rules_cf, "rules_cf": None}
    return {"cf": cf, "rules_cf": rules_cf}


GROWERS: dict[str, type[Grower]] = {cls.name: cls for cls in (C45, CART, ID3, J48, CHAID, QUEST)}


def renamed(message: str, labels: dict[str, str]) -> str:
    """A pipeline error message with each ``option NAME`` it names spelled as ``labels`` says."""
    return re.sub(r"\boption (\w+)", lambda m: labels.get(m.group(1), m.group(0)), message)


def check_grower(tree: Any) -> Grower:
    """``tree`` when it is a grower's parameters (None: ``C45()``), else InputError."""
    if tree is None:
        return C45()
    if isinstance(tree, Grower):
        return tree
    raise InputError(f"parameter tree must be one of {', '.join(c.__name__ + '(...)' for c in GROWERS.values())}"
                     f" or None, got {tree!r}")


def parameter_table() -> str:
    """The Markdown table of every grower's parameters, defaults and the option name model files
    record (docs/estimator.md holds it; a test keeps the two the same).

    Examples
    --------
    >>> print(parameter_table().splitlines()[2])
    | C45 | `cf` | `None` | `cf` |
    """
    rows = ["| grower | parameter | default | recorded as |", "|---|---|---|---|"]
    for cls in GROWERS.values():
        params = inspect.signature(cls.__init__).parameters
        names = [k for k in params if k != "self" and params[k].kind == params[k].POSITIONAL_OR_KEYWORD]
        if not names:
            rows.append(f"| {cls.__name__} | (none) | | |")
        for k in names:
            rows.append(f"| {cls.__name__} | `{k}` | `{params[k].default!r}` | `{cls._RECORDED.get(k, k)}` |")
    return "\n".join(rows)
