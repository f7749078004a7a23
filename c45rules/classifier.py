"""`C45Rules`: the scikit-learn style estimator (fit/predict/predict_proba/score).

Kept apart from pipeline.py so that importing c45rules (and starting the command line)
does not import scikit-learn; `c45rules.C45Rules` loads this module on first use.
With scikit-learn installed the class follows its estimator protocol as checked by
`sklearn.utils.estimator_checks.check_estimator` (tags, NotFittedError, n_features_in_,
feature_names_in_, label checks); without it, the same learning with the plain checks below.
"""
from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .boosted import BoostedRuleSet
from .data.frame import encode_frame, from_frame, value_str
from .data.reading import read_options, to_pandas
from .data.schema import Dataset
from .errors import C45RulesError, InputError
from .data.weights import weighted
from .pipeline import DEFAULTS, _kinds, fit_dataset
from .rules.evaluate import class_codes

_PARAMS = ("cf", "min_objs", "gain_ratio", "subset", "rules_cf", "fisher", "redundancy",
           "annealing", "seed", "jobs", "discrete", "continuous", "ignore", "na_values", "keep_na_tokens",
           "class_weight", "costs", "trials", "soft")

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

    class _Base:  # minimal get_params/set_params so clone-like code works
        def get_params(self, deep: bool = True) -> dict[str, Any]:
            """The constructor parameters."""
            return {k: getattr(self, k) for k in _PARAMS}

        def set_params(self, **params: Any) -> "_Base":
            """Set constructor parameters; returns self."""
            for k, v in params.items():
                if k not in _PARAMS:
                    raise InputError(f"invalid parameter {k!r}")
                setattr(self, k, v)
            return self

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


class C45Rules(*_BASES):
    """C4.5 tree (or grower="cart"/"id3"/"j48"/"chaid"/"quest") + C4.5-rules as an estimator: fit(X, y) -> self, predict, predict_proba, score."""

    def __init__(self, cf: float = 0.25, min_objs: int = 2, gain_ratio: bool = True, subset: bool = False,
                 rules_cf: float | None = None, fisher: float | None = None, redundancy: float = 1.0,
                 annealing: bool = False, seed: int | None = None, jobs: int = 1, discrete: tuple = (),
                 continuous: tuple = (), ignore: tuple = (), na_values: tuple = (),
                 keep_na_tokens: bool = False, grower: str = "c45", cp: float = 0.01, minsplit: int = 20,
                 minbucket: int | None = None, maxdepth: int = 30, usesurrogate: int = 2,
                 maxsurrogate: int = 5, xval: int = 0, unpruned: bool = False, binary_splits: bool = False,
                 reduced_error_pruning: bool = False, folds: int = 3, subtree_raising: bool = True,
                 mdl_correction: bool = True, laplace: bool = False, collapse: bool = True,
                 alpha_merge: float = 0.05, alpha_split: float = 0.05, max_depth: int = 3,
                 min_parent: int = 100, min_child: int = 50, bins: int | None = None,
                 bonferroni: bool = True, quest_alpha: float = 0.05, min_node: int = 10,
                 prune_folds: int = 10, se_rule: float = 1.0, winnow: bool = False, class_weight: Any = None,
                 costs: Any = None, trials: int = 1, soft: bool = False):
        self.cf = cf
        self.min_objs = min_objs
        self.gain_ratio = gain_ratio
        self.subset = subset
        self.rules_cf = rules_cf
        self.fisher = fisher
        self.redundancy = redundancy
        self.annealing = annealing
        self.seed = seed
        self.jobs = jobs
        self.discrete = discrete
        self.continuous = continuous
        self.ignore = ignore
        self.na_values = na_values
        self.keep_na_tokens = keep_na_tokens
        # the tree grower (c45, cart, id3, quest) and cart's options (R rpart.control's names)
        self.grower = grower
        self.cp = cp
        self.minsplit = minsplit
        self.minbucket = minbucket
        self.maxdepth = maxdepth
        self.usesurrogate = usesurrogate
        self.maxsurrogate = maxsurrogate
        self.xval = xval
        # grower="j48": Weka J48's options (-U -B -R -N -S -J -A -O; min_objs and cf are -M and -C)
        self.unpruned = unpruned
        self.binary_splits = binary_splits
        self.reduced_error_pruning = reduced_error_pruning
        self.folds = folds
        self.subtree_raising = subtree_raising
        self.mdl_correction = mdl_correction
        self.laplace = laplace
        self.collapse = collapse
        self.winnow = winnow        # C5.0's -w: screen attributes out before learning (winnow.py)
        # {label: weight} or "balanced": multiplies each case's weight by its class's
        self.class_weight = class_weight
        # {(predicted label, true label): cost}, or a C5.0 .costs file: the classes chosen minimise
        # the expected cost (data/costs.py)
        self.costs = costs
        # chaid's options (Kass 1980; the defaults SPSS's)
        self.alpha_merge = alpha_merge
        self.alpha_split = alpha_split
        self.max_depth = max_depth
        self.min_parent = min_parent
        self.min_child = min_child
        self.bins = bins
        self.bonferroni = bonferroni
        # quest's options (Loh & Shih's alpha, node size, pruning folds and SE rule)
        self.quest_alpha = quest_alpha
        self.min_node = min_node
        self.prune_folds = prune_folds
        self.se_rule = se_rule
        # C5.0's -t: boosting trials (rules/boost.py); ruleset_ is then a BoostedRuleSet
        self.trials = trials
        # c4.5 -p's tree (pipeline.soft_tree): grown in the order c4.5 reads the cases, which decides
        # float sums of fractional weights where values are unknown; the rules come from it
        self.soft = soft

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

    def _options(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in DEFAULTS}
        if isinstance(self.costs, dict):
            # keyed by the labels as given (1, 'a'), the classes by their text
            out["costs"] = {tuple(value_str(c) for c in pair) if isinstance(pair, tuple) else pair: v
                            for pair, v in self.costs.items()}
        return out

    def _read(self):
        return read_options(self.na_values, self.keep_na_tokens)

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


def _labels(y: Any) -> Any:
    """Labels as a list or array: a polars Series or pyarrow array as a list of its values."""
    if type(y).__module__.split(".")[0] in ("polars", "pyarrow") and hasattr(y, "to_list"):
        return y.to_list()
    if type(y).__module__.split(".")[0] == "pyarrow" and hasattr(y, "to_pylist"):
        return y.to_pylist()
    return y
