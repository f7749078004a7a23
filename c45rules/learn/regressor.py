"""`CubistRules`: Cubist-style regression rules as a scikit-learn regressor (fit/predict/score).

`score` is R^2 (scikit-learn's RegressorMixin). X may be a DataFrame (text columns become
discrete attributes, numeric ones continuous) or an array (columns x0, x1, ...); NaN and None
are unknown values. The learned model is `model_`, a RegressionModel (c45rules.model.regression)
that every export reads.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ..errors import InputError
from ..model.regression import RegressionModel
from .regression import DEFAULTS, fit_regression, regression_frame

_TARGET = "__target__"


class CubistRules(RegressorMixin, BaseEstimator):
    """Regression rules with linear models, committees and instances (Quinlan's Cubist).

    Parameters
    ----------
    n_committees : int, default=1
        Committee members (1 to 100); each next one learns targets adjusted by the previous
        member's errors, and their values are averaged.
    neighbors : int, default=0
        Nearest training cases (0 to 9) that correct each prediction (0: none).
    max_rules : int, default=500
        The most rules a committee member keeps.
    extrapolation : float, default=0.05
        The share of the training targets' range a prediction may go beyond it.
    min_cases : int, default=5
        The fewest training cases a split of the model tree may leave in a branch (raised to
        one case in 2,500 on large training sets).

    Attributes
    ----------
    model_ : RegressionModel
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fit on a DataFrame with text column names.

    Examples
    --------
    >>> import numpy as np
    >>> from c45rules import CubistRules
    >>> X = np.arange(40.0).reshape(-1, 1)
    >>> est = CubistRules().fit(X, 3 * X[:, 0] + 1)
    >>> float(np.round(est.predict([[10.0]])[0], 6))
    31.0
    """

    def __init__(self, n_committees: int = 1, neighbors: int = 0, max_rules: int = DEFAULTS["max_rules"],
                 extrapolation: float = DEFAULTS["extrapolation"], min_cases: int = DEFAULTS["min_cases"]) -> None:
        self.n_committees = n_committees
        self.neighbors = neighbors
        self.max_rules = max_rules
        self.extrapolation = extrapolation
        self.min_cases = min_cases

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _frame(self, X: Any, reset: bool) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, skip_check_array=True)
            return X.set_axis([str(c) for c in X.columns], axis=1)
        arr = validate_data(self, X, reset=reset, ensure_all_finite="allow-nan", dtype="numeric")
        return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])

    def fit(self, X: Any, y: Any) -> "CubistRules":
        """Learn the rules from cases X and numeric targets y."""
        frame = self._frame(X, reset=True)
        y = column_or_1d(np.asarray(y), warn=True)
        try:
            y = y.astype(float)
        except (TypeError, ValueError):
            raise InputError("y: expected numbers (CubistRules is a regressor)") from None
        if not np.isfinite(y).all():
            raise InputError("y: holds NaN or infinite values; drop those cases")
        if len(y) != len(frame):
            raise InputError(f"X has {len(frame)} rows but y has {len(y)} values")
        if _TARGET in frame.columns:
            raise InputError(f"X has a column named {_TARGET!r}, which CubistRules reserves")
        ds, target = regression_frame(frame.assign(**{_TARGET: y}), _TARGET)
        self.model_: RegressionModel = fit_regression(
            ds, target, committees=self.n_committees, neighbors=self.neighbors, max_rules=self.max_rules,
            extrapolation=self.extrapolation, min_cases=self.min_cases)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The predicted number for each case of X."""
        check_is_fitted(self, "model_")
        return self.model_.predict(self._frame(X, reset=False))
