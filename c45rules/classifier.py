"""`C45Rules`: the scikit-learn style estimator (fit/predict/predict_proba/score).

Kept apart from pipeline.py so that importing c45rules (and starting the command line)
does not import scikit-learn; `c45rules.C45Rules` loads this module on first use.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .data.frame import encode_frame, from_frame, value_str
from .data.schema import Dataset
from .errors import InputError
from .pipeline import DEFAULTS, _kinds, fit_dataset


try:  # join scikit-learn's estimator protocol when it is installed; it is not required
    from sklearn.base import BaseEstimator as _Base, ClassifierMixin as _Mixin
    _BASES: tuple = (_Mixin, _Base)
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    class _Base:  # minimal get_params/set_params so clone-like code works
        def get_params(self, deep: bool = True) -> dict[str, Any]:
            return {k: getattr(self, k) for k in _PARAMS}

        def set_params(self, **params: Any) -> "_Base":
            for k, v in params.items():
                if k not in _PARAMS:
                    raise ValueError(f"invalid parameter {k!r}")
                setattr(self, k, v)
            return self
    _BASES = (_Base,)

_PARAMS = ("cf", "min_objs", "gain_ratio", "subset", "rules_cf", "fisher", "redundancy",
           "annealing", "seed", "jobs", "discrete", "continuous", "ignore")


class C45Rules(*_BASES):
    """C4.5 tree + C4.5-rules as an estimator: fit(X, y) -> self, predict, predict_proba, score."""

    def __init__(self, cf: float = 0.25, min_objs: int = 2, gain_ratio: bool = True, subset: bool = False,
                 rules_cf: float | None = None, fisher: float | None = None, redundancy: float = 1.0,
                 annealing: bool = False, seed: int | None = None, jobs: int = 1, discrete: tuple = (),
                 continuous: tuple = (), ignore: tuple = ()):
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

    def _options(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in DEFAULTS}

    @staticmethod
    def _frame(X: Any) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            return X
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise InputError(f"X must be 2-dimensional, got shape {arr.shape}")
        return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])

    def fit(self, X: Any, y: Any = None) -> "C45Rules":
        """Learn from X (DataFrame or 2-D array) and labels y; returns self."""
        if y is None:
            if isinstance(X, Dataset):
                train = X
                labels = list(X.schema.classes)
            else:
                raise InputError("fit needs labels y (or a labelled Dataset)")
        else:
            frame = self._frame(X).copy()
            frame.columns = [str(c) for c in frame.columns]
            target = "class"
            while target in frame.columns:
                target = "_" + target
            yv = pd.Series(np.asarray(y, dtype=object), index=frame.index)
            if len(yv) != len(frame):
                raise InputError(f"X has {len(frame)} rows but y has {len(yv)} labels")
            frame[target] = yv
            train = from_frame(frame, target, **_kinds(self.discrete, self.continuous, self.ignore))
            first: dict[str, Any] = {}
            for v in yv:
                first.setdefault(value_str(v), v)
            labels = [first[c] for c in train.schema.classes]
        self.ruleset_, self.tree_, self.trace_ = fit_dataset(train, **self._options())
        self.classes_ = np.array(labels, dtype=object)
        if all(isinstance(v, (int, np.integer)) for v in labels):
            self.classes_ = np.array(labels)
        self.n_features_in_ = len(train.schema.attributes)
        self.feature_names_in_ = np.array(train.schema.names, dtype=object)
        return self

    def _encoded(self, X: Any) -> Dataset:
        if isinstance(X, Dataset):
            return X
        frame = self._frame(X)
        frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
        return encode_frame(frame, self.ruleset_.schema, require=self.ruleset_.used_attributes())

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels (same type as the y given to fit)."""
        pos = self.ruleset_.rule_index(self._encoded(X))
        schema = self.ruleset_.schema
        codes = np.array([schema.classes.index(self.ruleset_.default_class)]
                         + [schema.classes.index(r.prediction) for r in self.ruleset_.rules])
        return self.classes_[codes[pos]]

    def predict_rule(self, X: Any) -> np.ndarray:
        """Id of the rule that decides each row of X; 0 when the default class does (RuleSet.predict_rule)."""
        return self.ruleset_.predict_rule(self._encoded(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities in `classes_` order (see RuleSet.predict_proba)."""
        return self.ruleset_.predict_proba(self._encoded(X))

    def score(self, X: Any, y: Any) -> float:
        """Accuracy on X, y."""
        return float(np.mean(self.predict(X) == np.asarray(y)))
