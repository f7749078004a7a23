"""`C45Rules`: the scikit-learn style estimator (fit/predict/predict_proba/score).

Kept apart from pipeline.py so that importing c45rules (and starting the command line)
does not import scikit-learn; `c45rules.C45Rules` loads this module on first use.
With scikit-learn installed the class follows its estimator protocol as checked by
`sklearn.utils.estimator_checks.check_estimator` (tags, NotFittedError, n_features_in_,
feature_names_in_, label checks); without it, the same learning with the plain checks below.
"""
from __future__ import annotations

import inspect
from html import escape as html_escape
import os
import sys
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..data.frame import encode_frame, from_frame, value_str
from ..data.reading import read_options, to_pandas
from ..data.schema import Dataset
from ..data.weights import weighted
from ..errors import C45RulesError, InputError
from ..model.boosted import BoostedRuleSet
from ..model.views import decision_path, rule_importances, rules_frame, rules_html
from ..rules.evaluate import class_codes
from .growers import GROWERS, Grower, ParamsBase, check_grower, renamed
from .pipeline import DEFAULTS, _kinds, check_options, fit_dataset


try:  # join scikit-learn's estimator protocol when it is installed; it is not required
    from sklearn.base import BaseEstimator as _Base, ClassifierMixin as _Mixin
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, column_or_1d
    _BASES: tuple = (_Mixin, _Base)
    try:
        from sklearn.utils.validation import validate_data   # scikit-learn >= 1.6
    except ImportError:   # 1.3 - 1.5: the same checks as a private method
        def validate_data(estimator: Any, X: Any, *, reset: bool, skip_check_array: bool) -> Any:
            """n_features_in_ / feature_names_in_ set (reset) or checked, X unconverted."""
            return estimator._validate_data(X, reset=reset, cast_to_ndarray=not skip_check_array)
except ImportError:
    class NotFittedError(C45RulesError, ValueError, AttributeError):
        """predict before fit (scikit-learn's class of the same name when it is installed)."""

    def check_is_fitted(estimator: Any, attributes: str) -> None:
        """NotFittedError unless `attributes` was learned."""
        if not hasattr(estimator, attributes):
            raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet:"
                                 " call 'fit' first")

    def column_or_1d(y: Any, *, warn: bool) -> np.ndarray:
        """y as a 1-D array; a column vector is flattened (with a warning)."""
        arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 1:
            if warn:
                warnings.warn("A column-vector y was passed when a 1d array was expected;"
                              " it is flattened", UserWarning, stacklevel=3)
            return arr.ravel()
        if arr.ndim != 1:
            raise InputError(f"y should be a 1d array, got an array of shape {arr.shape} instead")
        return arr

    def check_classification_targets(y: np.ndarray) -> None:
        """ValueError for a continuous (regression) y: classes are distinct values, not numbers."""
        if y.dtype.kind == "f" and not np.all(np.isnan(y) | (y == np.round(y))):
            raise InputError("Unknown label type: continuous; C45Rules is a classifier:"
                             " give class labels (strings or integers)")

    def validate_data(estimator: Any, X: Any, *, reset: bool, skip_check_array: bool) -> Any:
        """n_features_in_ set (reset) or checked, X unconverted."""
        if reset:
            estimator.n_features_in_ = X.shape[1]
        elif X.shape[1] != estimator.n_features_in_:
            raise InputError(f"X has {X.shape[1]} features, but {type(estimator).__name__}"
                             f" is expecting {estimator.n_features_in_} features as input")
        return X

    class _Base(ParamsBase):  # get_params/set_params so clone-like code works
        def score(self, X: Any, y: Any) -> float:
            """Accuracy on X, y."""
            return float(np.mean(self.predict(X) == column_or_1d(y, warn=True)))
    _BASES = (_Base,)


def _table(X: Any) -> pd.DataFrame | np.ndarray:
    """X as a DataFrame (kept) or a 2-D array, or a one-line error for what C4.5 cannot read."""
    sparse = sys.modules.get("scipy.sparse")   # a scipy sparse X implies scipy is imported
    if sparse is not None and sparse.issparse(X):
        raise InputError(f"Sparse data was passed for X ({type(X).__name__}), but C45Rules does not"
                         " support sparse input: convert it with X.toarray()")
    X = to_pandas(X)   # polars and pyarrow, at the edge
    if isinstance(X, pd.DataFrame):
        table = X
    else:
        table = np.asarray(X)
        if table.ndim != 2:
            raise InputError(f"Expected a 2-D X (cases by attributes), got shape {table.shape}:"
                             " Reshape your data with X.reshape(-1, 1) for one attribute"
                             " or X.reshape(1, -1) for one case")
        if np.iscomplexobj(table):
            raise InputError("Complex data not supported: C4.5's attributes are numbers or text")
    if table.shape[1] == 0:
        raise InputError(f"Found array with 0 feature(s) (shape={table.shape}) while a minimum"
                         " of 1 is required: C4.5 needs at least one attribute")
    return table


# the rule stage's parameters and the data's: every C45Rules parameter but `tree`
_RULE_PARAMS = ("cf", "fisher", "redundancy", "annealing", "trials", "winnow", "class_weight", "costs",
                "discrete", "continuous", "ignore", "na_values", "keep_na_tokens", "random_state", "n_jobs")
# the flat spellings of before the split (one release, FutureWarning): the estimator's own
_RENAMED_FLAT = {"rules_cf": "cf", "seed": "random_state", "jobs": "n_jobs"}
# ... and each grower's, by the option name models record (pipeline.DEFAULTS'): its parameter
_TREE_FLAT = {name: {cls._RECORDED.get(k, k): k for k in cls._get_param_names() if k != "cf"}
              for name, cls in GROWERS.items()}
_FLAT = {"grower", *_RENAMED_FLAT, *(k for own in _TREE_FLAT.values() for k in own)}


class C45Rules(*_BASES):
    """C4.5-rules as a scikit-learn classifier: a tree grower, then c4.5rules' rule stage.

    The learning has two stages, and the parameters are split the same way. ``tree`` holds
    the first stage: one grower's parameter object (:class:`C45`, :class:`CART`, :class:`ID3`,
    :class:`J48`, :class:`CHAID`, :class:`QUEST`) with only that grower's own parameters and
    defaults. The remaining parameters belong to the rule stage (generalising, selecting and
    ordering the rules, spec 7), to boosting, and to how the data are read. One estimator
    class with a nested parameter object, rather than one estimator class per grower, keeps
    a grower choice a parameter like any other: ``GridSearchCV`` can search
    ``{"tree": [C45(), CART()]}`` as well as ``tree__cp``, and the rule stage, which every
    grower shares, is documented and validated once (docs/estimator.md).

    Parameters
    ----------
    tree : C45, CART, ID3, J48, CHAID, QUEST or None, default=None
        The grower and its parameters; None: ``C45()`` (Quinlan's C4.5 Release 8).
    cf : float in (0, 1], default=0.25
        Confidence level of the rules' pessimistic error estimates (c4.5rules' ``-c``): a
        condition is dropped from a rule when that does not raise the estimate. A grower
        that prunes with a confidence level (C45, J48) prunes with this one unless its own
        ``cf`` is set.
    fisher : float in (0, 100] or None, default=None
        Keep a condition only when Fisher's exact test finds it significant at this
        percentage (c4.5rules' ``-F``); None: no test.
    redundancy : float > 0, default=1.0
        Weight of the redundant-attribute term in the rules' coding cost (c4.5rules' ``-r``).
    annealing : bool, default=False
        Select rules by simulated annealing rather than exhaustively (c4.5rules' ``-a``).
    trials : int, default=1
        Boosting trials (C5.0's ``-t``, tree C45 only); above 1, ``ruleset_`` is a
        BoostedRuleSet that votes.
    winnow : bool, default=False
        Screen attributes out before learning (C5.0's ``-w``).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each case's weight by its class's.
    costs : dict or str or None, default=None
        ``{(predicted, true): cost}`` or a C5.0 ``.costs`` file: classes minimise the expected cost.
    discrete, continuous, ignore : sequence of str, default=()
        Columns to read as discrete, as continuous, or to leave out.
    na_values : sequence of str, default=()
        More cell texts that mean unknown.
    keep_na_tokens : bool, default=False
        Read only ``?`` and empty cells (and ``na_values``) as unknown.
    random_state : int, numpy RandomState or None, default=None
        Seed of the annealing, of cart's and quest's cross-validation folds, of J48's
        reduced-error folds and of winnowing (the CLI's ``--seed``). A RandomState draws one
        seed per fit.
    n_jobs : int or None, default=None
        Worker threads; None: 1, -1: one per core, -2: all cores but one (the CLI's ``--jobs``).

    Attributes
    ----------
    ruleset_ : RuleSet or BoostedRuleSet
        The learned model (what ``c45rules fit`` writes; every export reads it).
    tree_ : Tree
        The grown tree (of the first trial when boosting).
    classes_ : ndarray of shape (n_classes,)
        The class labels, of the type given to ``fit``.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Their names, when X had string column names.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Each attribute's share of the training cases the rules get right beyond the default
        class (see ``feature_importances_`` in docs/estimator.md).
    rules_ : pandas.DataFrame
        The rules, one row each (:meth:`rules_frame`).

    See Also
    --------
    c45rules.fit : the same learning in one call, returning the RuleSet.
    c45rules.export_text : the rules as text.

    Notes
    -----
    The flat parameters of earlier releases (``grower="cart", cp=0.01``, ``maxdepth``,
    ``rules_cf``, ``seed``, ``jobs``, ...) still work for one release: they warn with a
    FutureWarning naming the new spelling and are turned into it at construction, so
    ``get_params`` and ``clone`` show only the new parameters.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import C45Rules, CART
    >>> X = pd.DataFrame({"outlook": ["sunny", "sunny", "rain", "rain", "overcast", "overcast"] * 4,
    ...                   "humidity": [90, 70, 85, 60, 80, 65] * 4})
    >>> y = ["no", "yes", "no", "yes", "yes", "yes"] * 4
    >>> model = C45Rules().fit(X, y)
    >>> model.predict(pd.DataFrame({"outlook": ["sunny"], "humidity": [95]}))
    array(['no'], dtype=object)
    >>> model.n_classes_, model.get_n_leaves()
    (2, 3)
    >>> from sklearn.model_selection import GridSearchCV
    >>> search = GridSearchCV(C45Rules(tree=CART(minsplit=2)),
    ...                       {"tree__cp": [0.0, 0.1], "cf": [0.25, 0.5]}, cv=2).fit(X, y)
    >>> sorted(search.best_params_)
    ['cf', 'tree__cp']
    """

    def __init__(self, tree: Grower | None = None, cf: float = 0.25, fisher: float | None = None,
                 redundancy: float = 1.0, annealing: bool = False, trials: int = 1, winnow: bool = False,
                 class_weight: Any = None, costs: Any = None, discrete: tuple = (), continuous: tuple = (),
                 ignore: tuple = (), na_values: tuple = (), keep_na_tokens: bool = False,
                 random_state: Any = None, n_jobs: int | None = None, **deprecated: Any):
        self.tree = tree
        self.cf = cf
        self.fisher = fisher
        self.redundancy = redundancy
        self.annealing = annealing
        self.trials = trials
        self.winnow = winnow
        self.class_weight = class_weight
        self.costs = costs
        self.discrete = discrete
        self.continuous = continuous
        self.ignore = ignore
        self.na_values = na_values
        self.keep_na_tokens = keep_na_tokens
        self.random_state = random_state
        self.n_jobs = n_jobs
        if deprecated:
            given = {k for k in deprecated if k in _FLAT}
            unknown = sorted(set(deprecated) - given)
            if unknown:
                raise TypeError(f"C45Rules() got an unexpected keyword argument {unknown[0]!r}")
            if tree is not None and given & ({k for own in _TREE_FLAT.values() for k in own} | {"grower"}):
                raise InputError(f"C45Rules: give the tree's parameters inside tree={tree!r}, not as"
                                 f" {', '.join(sorted(given))}")
            self._set_flat(deprecated)

    # the documented signature, which scikit-learn reads for get_params and its checks: the
    # flat spellings of before the split are accepted (**deprecated) but not parameters
    __init__.__signature__ = inspect.signature(__init__).replace(  # type: ignore[attr-defined]
        parameters=[p for p in inspect.signature(__init__).parameters.values() if p.kind != p.VAR_KEYWORD])

    def _set_flat(self, flat: dict[str, Any]) -> None:
        """Turn the flat parameters of before the split into the new ones, warning for each."""
        flat = dict(flat)
        new: dict[str, Any] = {}
        for old, name in _RENAMED_FLAT.items():
            if old in flat:
                new[name] = flat.pop(old)
        tree_cf = None
        if "cf" in new:        # rules_cf given: the old cf prunes the tree, rules_cf makes the rules
            tree_cf = self.cf
        grower = flat.pop("grower", None)
        current = check_grower(self.tree) if "tree" not in new else None
        if grower is None:
            cls = type(current)
            params = current.get_params(deep=False)
        else:
            if grower not in GROWERS:
                raise InputError(f"C45Rules: grower must be one of {', '.join(GROWERS)}, got {grower!r}")
            cls = GROWERS[grower]
            params = {}
        own = _TREE_FLAT[cls.name]
        for k, v in flat.items():
            if k in own:
                params[own[k]] = v
            elif not _same(v, DEFAULTS[k]):
                owner = next(GROWERS[g] for g, opts in _TREE_FLAT.items() if k in opts)
                raise InputError(f"C45Rules: {k}={v!r} is a parameter of {owner.__name__}, not of grower"
                                 f" {cls.name!r}: use tree={owner.__name__}({_TREE_FLAT[owner.name][k]}={v!r})")
        if tree_cf is not None and "cf" in cls._get_param_names():
            params["cf"] = tree_cf
        tree = cls(**params)
        old = [*(["grower"] if grower is not None else []), *flat,
               *(o for o, n in _RENAMED_FLAT.items() if n in new)]
        spelled = "".join(f", {k}={v!r}" for k, v in new.items())
        warnings.warn(f"C45Rules({', '.join(old)}) is deprecated and will be removed in the next release:"
                      f" use C45Rules(tree={tree!r}{spelled})", FutureWarning, stacklevel=3)
        self.tree = tree
        for k, v in new.items():
            setattr(self, k, v)

    def set_params(self, **params: Any) -> "C45Rules":
        """Set parameters (``tree__cp`` for the grower's); the flat spellings of before the
        split are turned into the new ones with a FutureWarning. Returns self."""
        flat = {k: params.pop(k) for k in list(params) if k in _FLAT}
        if flat:
            self._set_flat(flat)
        return super().set_params(**params) if params else self

    def _grower(self) -> Grower:
        return check_grower(self.tree)

    def _seed(self) -> int | None:
        rs = self.random_state
        if isinstance(rs, np.random.RandomState):
            return int(rs.randint(0, 2**31 - 1))
        return rs

    def _jobs(self) -> Any:
        n = self.n_jobs
        if n is None:
            return 1
        if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n < -1:
            return max(1, (os.cpu_count() or 1) + 1 + int(n))   # joblib's meaning: all cores but -n - 1
        return n

    def _options(self) -> dict[str, Any]:
        """The pipeline options of these parameters, checked: InputError naming the parameter as
        spelled here."""
        tree = self._grower()
        out = {**tree.options(self.cf), "fisher": self.fisher, "redundancy": self.redundancy,
               "annealing": self.annealing, "seed": self._seed(), "jobs": self._jobs(), "winnow": self.winnow,
               "trials": self.trials, "costs": self.costs}
        labels = {**tree.labels(), "cf": "C45Rules parameter cf", "rules_cf": "C45Rules parameter cf",
                  "seed": "C45Rules parameter random_state", "jobs": "C45Rules parameter n_jobs",
                  "trials": "C45Rules parameter trials"}
        if out.get("rules_cf") is not None:   # the grower's own cf prunes
            labels["cf"] = f"{type(tree).__name__} parameter cf"
        try:
            check_options({k: v for k, v in out.items() if k != "costs"})
        except InputError as e:
            raise InputError(renamed(str(e), labels)) from None
        if isinstance(self.costs, dict):
            # keyed by the labels as given (1, 'a'), the classes by their text
            out["costs"] = {tuple(value_str(c) for c in pair) if isinstance(pair, tuple) else pair: v
                            for pair, v in self.costs.items()}
        return out

    def __sklearn_tags__(self) -> Any:
        """scikit-learn >= 1.6 tags: unknown values (NaN) and text columns are C4.5's own input."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags

    def _more_tags(self) -> dict[str, Any]:
        """The same tags for scikit-learn < 1.6."""
        return {"allow_nan": True, "X_types": ["2darray", "string", "categorical"]}

    def _read(self):
        # a column of dates would be a category with a value per row: refused, as scikit-learn's
        # estimators refuse datetime columns (fit and the command line only warn)
        return replace(read_options(self.na_values, self.keep_na_tokens), refuse_dates=True)

    @staticmethod
    def _frame(table: pd.DataFrame | np.ndarray, names: Any = None) -> pd.DataFrame:
        """A DataFrame with text column names: `names` by position, else the frame's own
        names or x0, x1, ... for an array."""
        if names is None:
            names = ([str(c) for c in table.columns] if isinstance(table, pd.DataFrame)
                     else [f"x{i}" for i in range(table.shape[1])])
        if isinstance(table, pd.DataFrame):
            return table.set_axis(list(names), axis=1)
        return pd.DataFrame(table, columns=list(names))

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> "C45Rules":
        """Learn from X (DataFrame or 2-D array) and labels y, each case weighing its
        `sample_weight` (default 1; a case of weight 0 is left out); returns self."""
        if y is None:
            if not isinstance(X, Dataset):
                raise InputError("C45Rules requires y to be passed, but the target y is None"
                                 " (give the labels, or a labelled Dataset as X)")
            train = X
            labels = list(X.schema.classes)
            n_features = len(X.schema.attributes)
            self.__dict__.pop("feature_names_in_", None)   # a Dataset's names are not a frame's
        else:
            table = _table(X)
            labels_in = column_or_1d(_labels(y), warn=True)
            check_classification_targets(labels_in)
            if len(labels_in) != table.shape[0]:
                raise InputError(f"X has {table.shape[0]} rows but y has {len(labels_in)} labels")
            validate_data(self, table, reset=True, skip_check_array=True)
            n_features = table.shape[1]
            frame = self._frame(table).copy()
            target = "class"
            while target in frame.columns:
                target = "_" + target
            yv = pd.Series(np.asarray(labels_in, dtype=object), index=frame.index)
            frame[target] = yv
            train = from_frame(frame, target, read=self._read(),
                               **_kinds(self.discrete, self.continuous, self.ignore))
            first: dict[str, Any] = {}
            for v in yv:
                first.setdefault(value_str(v), v)
            labels = [first[c] for c in train.schema.classes]
        class_weight = self.class_weight
        if isinstance(class_weight, dict):
            # keyed by the labels as given (1, 'a'), the classes by their text
            class_weight = {value_str(k): v for k, v in class_weight.items()}
        train = weighted(train, sample_weight, class_weight)
        self.ruleset_, self.tree_, self.trace_ = fit_dataset(train, **self._options())
        self.classes_ = np.array(labels, dtype=object)
        if all(isinstance(v, (int, np.integer)) for v in labels):
            self.classes_ = np.array(labels)
        self.n_features_in_ = n_features
        self.n_classes_ = len(self.classes_)
        self.feature_importances_ = rule_importances(self.ruleset_, train)
        return self

    def _encoded(self, X: Any) -> Dataset:
        check_is_fitted(self, "ruleset_")
        if isinstance(X, Dataset):
            return X
        table = _table(X)
        validate_data(self, table, reset=False, skip_check_array=True)
        # columns by position, as scikit-learn reads them: the names (when fit had names)
        # were just checked to be the same, in the same order
        frame = self._frame(table, self.ruleset_.schema.names)
        return encode_frame(frame, self.ruleset_.schema, require=self.ruleset_.used_attributes(),
                            read=self._read())

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels (same type as the y given to fit)."""
        data = self._encoded(X)   # first: NotFittedError before any learned attribute is read
        return self.classes_[class_codes(self.ruleset_.predict(data), self.ruleset_.schema.classes)]

    def predict_rule(self, X: Any) -> np.ndarray:
        """Id of the rule that decides each row of X; 0 when the default class does (RuleSet.predict_rule).
        A boosted model gives (rows, trials): each trial's deciding rule (BoostedRuleSet.trial_rules)."""
        data = self._encoded(X)
        if isinstance(self.ruleset_, BoostedRuleSet):
            return self.ruleset_.trial_rules(data)
        return self.ruleset_.predict_rule(data)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities in `classes_` order (see RuleSet.predict_proba)."""
        data = self._encoded(X)
        return self.ruleset_.predict_proba(data)

    # ---- DecisionTreeClassifier's habits (docs/estimator.md) ---------------------------

    def apply(self, X: Any) -> np.ndarray:
        """The id of the rule that decides each row, 0 for the default class: the rule list's
        "leaf" (a boosted model: one column per trial, as RandomForestClassifier.apply).

        Parameters
        ----------
        X : DataFrame or array of shape (n_samples, n_features_in_)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_trials)
        """
        return self.predict_rule(X)

    def decision_path(self, X: Any) -> Any:
        """Which rules' conditions all hold for each row, as a sparse 0/1 matrix.

        Column i is the rule of id i (column 0 the default class, set for the rows no rule
        decides), so ``decision_path(X)[r, apply(X)[r]]`` is 1 for every row r. Every rule
        whose conditions hold is marked, not only the first: the rules after it are the
        ones that would decide were it removed.

        Parameters
        ----------
        X : DataFrame or array of shape (n_samples, n_features_in_)

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, largest rule id + 1)
        """
        data = self._encoded(X)
        return decision_path(self._single("decision_path"), data)

    def get_depth(self) -> int:
        """The most conditions any rule has (0 without rules): a rule is a generalised path
        of the tree, so this is the rule list's depth (a boosted model: over its trials)."""
        check_is_fitted(self, "ruleset_")
        return max([len(r.conditions) for rs in self._trials() for r in rs.rules] + [0])

    def get_n_leaves(self) -> int:
        """The number of outcomes ``apply`` can give: the rules plus the default class
        (a boosted model: summed over its trials, as a forest's leaves)."""
        check_is_fitted(self, "ruleset_")
        return sum(len(rs.rules) + 1 for rs in self._trials())

    def rules_frame(self) -> pd.DataFrame:
        """The rules as a DataFrame (c45rules.model.views.rules_frame): id, conditions, class,
        confidence, covered, errors, lift, used, wrong (and trial when boosted)."""
        check_is_fitted(self, "ruleset_")
        return rules_frame(self.ruleset_)

    @property
    def rules_(self) -> pd.DataFrame:
        """The rules as a DataFrame (see rules_frame)."""
        return self.rules_frame()

    def _trials(self) -> tuple:
        rs = self.ruleset_
        return rs.trials if isinstance(rs, BoostedRuleSet) else (rs,)

    def _single(self, what: str) -> Any:
        check_is_fitted(self, "ruleset_")
        if isinstance(self.ruleset_, BoostedRuleSet):
            raise InputError(f"{what} is for a single rule list; this model is boosted"
                             f" ({len(self.ruleset_.trials)} trials that vote): use apply() for each trial's rule")
        return self.ruleset_

    def _repr_html_inner(self) -> str:
        """scikit-learn's diagram, and once fitted the decision list as a picture and the rules as
        a table (Jupyter's view; both of the first report.NOTEBOOK_RULES rules)."""
        head = super()._repr_html_inner() if hasattr(super(), "_repr_html_inner") else html_escape(repr(self))
        if not hasattr(self, "ruleset_"):
            return head
        from ..export.report import NOTEBOOK_RULES, decision_list_svg
        return (head + f'<div style="overflow-x:auto">{decision_list_svg(self.ruleset_, NOTEBOOK_RULES)}</div>'
                + rules_html(self.ruleset_, NOTEBOOK_RULES))

    def _repr_html_(self) -> str:
        """The HTML view (scikit-learn's diagram, the decision list's picture and the rules table)."""
        return self._repr_html_inner()


def _same(a: Any, b: Any) -> bool:
    """a equals b (a value given for a parameter and its default); False where == is no answer."""
    try:
        return bool(a is b or a == b)
    except (TypeError, ValueError):
        return False


def _labels(y: Any) -> Any:
    """Labels as a list or array: a polars Series or pyarrow array as a list of its values."""
    if type(y).__module__.split(".")[0] in ("polars", "pyarrow") and hasattr(y, "to_list"):
        return y.to_list()
    if type(y).__module__.split(".")[0] == "pyarrow" and hasattr(y, "to_pylist"):
        return y.to_pylist()
    return y
