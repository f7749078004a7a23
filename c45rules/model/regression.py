"""RegressionModel: Cubist-style rules for a number, as a value every export can read.

A model is one or more *committees*; a committee is a list of rules, each with conditions
(the same `Condition` as class rules) and a linear model on continuous attributes. How a
case is scored (`RegressionModel.predict`), step by step:

1. Per committee, each rule whose conditions all hold gives its linear model's value,
   bounded to the rule's own `[lower, upper]` (its training cases' range widened by the
   extrapolation share, Cubist's rule limits). The committee's value is the plain average of
   those values; when no rule holds, the committee's `default` model (bounded to the model's
   range) gives it: the learner makes it the constant training mean, as Cubist does
   (learn/regression.py); a model read from YAML may carry any linear default.
2. The committees' values are averaged (unweighted).
3. With instances (`neighbors` > 0), the value is corrected by the nearest training cases
   (Quinlan 1993): each neighbour i gives ``y_i + (value(x) - value(x_i))`` and they are
   averaged with weights ``1 / (0.5 + distance)``. The distance sums, over the attributes,
   ``|a - b| / range`` (continuous) or 0/1 (discrete, equal or not); an unknown on either side
   counts 1.
4. The result is bounded to ``[floor, ceiling]``: the training targets' range widened by
   `extrapolation` times its width on each side (Cubist's default extrapolation is 5%).

Unknown values: a condition on an unknown value does not hold (the policy of class rules,
ruleset.py); in a linear model an unknown value counts as the attribute's training mean
(`means`), as Cubist's model files record each attribute's mean for that purpose.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.schema import Dataset, Schema
from ..errors import InputError, ModelError
from .ruleset import Condition, condition_operand, conjunction, encode_cases, format_threshold, readable

REGRESSION_FORMAT = "c45rules-regression"
NEIGHBOR_BLOCK_BYTES = 1 << 25   # a block of instance distances stays within this


@dataclass(frozen=True)
class LinearModel:
    """``intercept + sum(coefficient * attribute)`` over continuous attributes.

    Attributes
    ----------
    intercept : float
    coefficients : tuple of (str, float)
        Attribute name and its coefficient, in the order the model prints them.

    Examples
    --------
    >>> print(LinearModel(2.5, (("x", 0.5), ("z", -1.0))))
    2.5 + 0.5 x - 1 z
    """

    intercept: float
    coefficients: tuple[tuple[str, float], ...] = ()

    @property
    def attributes(self) -> tuple[str, ...]:
        """The attributes the model uses, in its order."""
        return tuple(name for name, _ in self.coefficients)

    def evaluate(self, data: Dataset, means: Mapping[str, float]) -> np.ndarray:
        """The model's value on every case of `data` (unknown values as their training mean)."""
        out = np.full(data.n, float(self.intercept))
        for name, coef in self.coefficients:
            column = data.columns[data.schema.index(name)]
            out += coef * np.where(np.isnan(column), means[name], column)
        return out

    def __str__(self) -> str:
        text = format_threshold(self.intercept)
        for name, coef in self.coefficients:
            text += f" {'-' if coef < 0 else '+'} {format_threshold(abs(coef))} {readable(name)}"
        return text


@dataclass(frozen=True)
class RegressionRule:
    """IF conditions THEN a linear model, with its training evidence and output bounds.

    Attributes
    ----------
    id : int
        The rule's number within its committee (from 1).
    conditions : tuple of Condition
        All must hold for the rule to apply (none: it applies to every case).
    model : LinearModel
        The rule's value for a case it covers.
    cases : int
        Training cases covered.
    mean, low, high : float
        The covered cases' target mean, minimum and maximum.
    error : float
        The estimated error (mean absolute error times (n + v) / (n - v), Quinlan's M5).
    lower, upper : float
        The rule's value is bounded to this interval (Cubist's rule limits).
    """

    id: int
    conditions: tuple[Condition, ...]
    model: LinearModel
    cases: int
    mean: float
    low: float
    high: float
    error: float
    lower: float
    upper: float

    def __str__(self) -> str:
        return self.text()

    def text(self, target: str = "value") -> str:
        """The rule as Cubist prints it, the model's value named `target`."""
        head = (f"Rule {self.id}: [{self.cases} cases, mean {self.mean:.6g}, range {self.low:.6g} to"
                f" {self.high:.6g}, est err {self.error:.6g}]")
        conds = [f"\t{c}" for c in self.conditions] or ["\t(every case)"]
        return "\n".join([head, "    if", *conds, "    then", f"\t{readable(target)} = {self.model}"])


@dataclass(frozen=True)
class Committee:
    """One member of a committee model: rules whose values are averaged, and a default model.

    Attributes
    ----------
    rules : tuple of RegressionRule
    default : LinearModel
        The value of a case no rule covers.
    """

    rules: tuple[RegressionRule, ...]
    default: LinearModel


@dataclass(frozen=True)
class Instances:
    """The training cases kept for the nearest-neighbour correction (Quinlan 1993).

    Attributes
    ----------
    rows : tuple of tuple
        One tuple per case, in schema attribute order: a float (continuous, NaN = unknown),
        a value text or None (discrete, None = unknown); None for an ignored attribute.
    targets : tuple of float
        Each case's target value.
    """

    rows: tuple[tuple[Any, ...], ...]
    targets: tuple[float, ...]


@dataclass(frozen=True)
class RegressionModel:
    """A Cubist-style model: committees of regression rules, the target and its bounds.

    The module docstring gives the scoring semantics. Made by `c45rules.CubistRules` or
    `c45rules.learn.regression.fit_regression`, read by `c45rules.export.load_yaml`; never
    changed in place. Accessors for code generators: `committees` (each `rules` and
    `default`), each rule's `conditions`, `model` (`intercept`, `coefficients`), `lower` and
    `upper`; `means` (unknown values in linear models); `floor` and `ceiling`.

    Attributes
    ----------
    schema : Schema
        The input attributes (`target` names the predicted number; `classes` holds just the
        target's name, as Cubist's .names names it first).
    committees : tuple of Committee
    target_low, target_high : float
        The training targets' range.
    extrapolation : float
        The share of that range a prediction may go beyond it, on each side.
    means : tuple of (str, float)
        Each continuous attribute's training mean (for unknown values in linear models).
    neighbors : int, default=0
        How many nearest training cases correct a prediction (0: none).
    instances : Instances or None, default=None
        The training cases kept for that correction.
    options : tuple of (str, value), default=()
        The options the model was learnt with.
    fingerprint : str, default=""
    version : str, default=""
        The c45rules version that made it (not compared by ``==``).

    Examples
    --------
    >>> from c45rules import Condition
    >>> from c45rules.data.schema import Attribute, Schema
    >>> from c45rules.model.regression import Committee, LinearModel, RegressionModel, RegressionRule
    >>> schema = Schema((Attribute("x", "continuous"),), ("y",), "y")
    >>> low = RegressionRule(1, (Condition("x", "<=", 5.0),), LinearModel(0.0, (("x", 2.0),)),
    ...                      10, 5.0, 0.0, 10.0, 0.5, -0.5, 10.5)
    >>> model = RegressionModel(schema, (Committee((low,), LinearModel(20.0)),), 0.0, 40.0, 0.05,
    ...                         (("x", 10.0),))
    >>> model.predict({"x": 3.0}).tolist(), model.predict({"x": 8.0}).tolist()
    ([6.0], [20.0])
    """

    schema: Schema
    committees: tuple[Committee, ...]
    target_low: float
    target_high: float
    extrapolation: float
    means: tuple[tuple[str, float], ...]
    neighbors: int = 0
    instances: Instances | None = None
    options: tuple[tuple[str, Any], ...] = ()
    fingerprint: str = ""
    version: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        check_model(self)

    # ---- accessors ------------------------------------------------------------------
    @property
    def target(self) -> str:
        """The predicted attribute's name."""
        return self.schema.target

    @property
    def floor(self) -> float:
        """The lowest value a prediction can take."""
        return prediction_range(self.target_low, self.target_high, self.extrapolation)[0]

    @property
    def ceiling(self) -> float:
        """The highest value a prediction can take."""
        return prediction_range(self.target_low, self.target_high, self.extrapolation)[1]

    @property
    def rules(self) -> tuple[RegressionRule, ...]:
        """Every rule of every committee, committee by committee."""
        return tuple(r for c in self.committees for r in c.rules)

    @property
    def options_dict(self) -> dict[str, Any]:
        """The fitting options as a dict."""
        return dict(self.options)

    def used_attributes(self) -> tuple[str, ...]:
        """The attributes the rules test or the linear models use, in schema order."""
        used = {c.attribute for r in self.rules for c in r.conditions}
        used.update(a for m in self._models() for a in m.attributes)
        if self.neighbors:
            used.update(a.name for a in self.schema.attributes if a.kind != "ignore")
        return tuple(a for a in self.schema.names if a in used)

    def _models(self) -> list[LinearModel]:
        return [r.model for r in self.rules] + [c.default for c in self.committees]

    # ---- scoring --------------------------------------------------------------------
    def _encode(self, data: Any, bad_cells: str = "error") -> Dataset:
        return encode_cases(data, self.schema, self.used_attributes(), bad_cells)

    def rule_masks(self, data: Any, committee: int = 0) -> np.ndarray:
        """Which cases each rule of a committee covers: a bool array (rules x cases)."""
        ds = self._encode(data)
        return np.array([self._covers(r, ds) for r in self.committees[committee].rules], dtype=bool).reshape(
            len(self.committees[committee].rules), ds.n)

    def _covers(self, rule: RegressionRule, ds: Dataset) -> np.ndarray:
        mask = np.ones(ds.n, dtype=bool)
        for j, c in enumerate(rule.conditions):
            a, test, operand = condition_operand(c, self.schema, f"rule {rule.id} condition {j + 1}")
            mask &= test(ds.columns[a], operand)
        return mask

    def committee_values(self, data: Any) -> np.ndarray:
        """Each committee's value for each case (committees x cases), before instances and the
        final bounds."""
        ds = self._encode(data)
        means = dict(self.means)
        out = np.empty((len(self.committees), ds.n))
        for k, committee in enumerate(self.committees):
            total = np.zeros(ds.n)
            count = np.zeros(ds.n)
            for rule in committee.rules:
                mask = self._covers(rule, ds)
                if mask.any():
                    value = np.clip(rule.model.evaluate(_rows(ds, mask), means), rule.lower, rule.upper)
                    total[mask] += value
                    count[mask] += 1
            default = np.clip(committee.default.evaluate(ds, means), self.floor, self.ceiling)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[k] = np.where(count > 0, total / np.maximum(count, 1), default)
        return out

    def predict_models(self, data: Any) -> np.ndarray:
        """The committees' average for each case: the prediction without instances."""
        return np.clip(self.committee_values(data).mean(axis=0), self.floor, self.ceiling)

    def predict(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """The predicted number for each case (a DataFrame, a mapping, a list of mappings or a Dataset).

        Parameters
        ----------
        data : DataFrame, mapping, list of mappings or Dataset
            The cases; a DataFrame must hold every column the model uses.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous cell that is neither a number nor unknown is.

        Returns
        -------
        numpy.ndarray of float
            One number per case, within [floor, ceiling].

        Raises
        ------
        InputError
            A missing column or a bad cell.
        """
        ds = self._encode(data, bad_cells)
        value = self.committee_values(ds).mean(axis=0)
        if self.neighbors and self.instances is not None:
            value = self._instance_correction(ds, value)
        return np.clip(value, self.floor, self.ceiling)

    # ---- instances ------------------------------------------------------------------
    @functools.cached_property
    def _instance_data(self) -> tuple[Dataset, np.ndarray, np.ndarray, np.ndarray]:
        """The instances encoded, their targets, their model values, and the attribute ranges."""
        import pandas as pd
        inst = self.instances
        names = self.schema.names
        frame = pd.DataFrame([dict(zip(names, row)) for row in inst.rows], columns=list(names))
        ds = encode_cases(frame, self.schema, ())
        targets = np.asarray(inst.targets, dtype=float)
        model_values = self.committee_values(ds).mean(axis=0)
        ranges = np.array([_range(col) if a.is_continuous else 1.0
                           for a, col in zip(self.schema.attributes, ds.columns)])
        return ds, targets, model_values, ranges

    def _instance_correction(self, ds: Dataset, value: np.ndarray) -> np.ndarray:
        inst, targets, inst_values, ranges = self._instance_data
        k = min(self.neighbors, inst.n)
        out = np.empty(ds.n)
        block = max(1, NEIGHBOR_BLOCK_BYTES // (8 * max(inst.n, 1)))
        used = [i for i, a in enumerate(self.schema.attributes) if a.kind != "ignore"]
        for lo in range(0, ds.n, block):
            hi = min(ds.n, lo + block)
            dist = np.zeros((hi - lo, inst.n))
            for i in used:
                a, b = ds.columns[i][lo:hi, None], inst.columns[i][None, :]
                if self.schema.attributes[i].is_continuous:
                    with np.errstate(invalid="ignore"):
                        d = np.abs(a - b) / ranges[i]
                    dist += np.where(np.isnan(d), 1.0, np.minimum(d, 1.0))
                else:
                    dist += ((a != b) | (a < 0) | (b < 0))
            near = np.argpartition(dist, k - 1, axis=1)[:, :k] if k < inst.n else \
                np.broadcast_to(np.arange(inst.n), (hi - lo, inst.n))
            d = np.take_along_axis(dist, near, axis=1)
            w = 1.0 / (0.5 + d)
            adjusted = targets[near] + (value[lo:hi, None] - inst_values[near])
            out[lo:hi] = (w * adjusted).sum(axis=1) / w.sum(axis=1)
        return out

    # ---- people ---------------------------------------------------------------------
    def explain(self, case: Mapping[str, Any]) -> str:
        """Which rules apply to one case, each one's model and value, and the average."""
        ds = self._encode(case if not isinstance(case, Mapping) else [dict(case)])
        means = dict(self.means)
        lines = []
        for k, committee in enumerate(self.committees):
            lines.append(f"Committee {k + 1}:" if len(self.committees) > 1 else "Rules that apply:")
            values = []
            for rule in committee.rules:
                if self._covers(rule, ds)[0]:
                    v = float(np.clip(rule.model.evaluate(ds, means)[0], rule.lower, rule.upper))
                    values.append(v)
                    lines.append(f"  rule {rule.id} [{conjunction(rule.conditions) or 'every case'}]:"
                                 f" {readable(self.target)} = {rule.model} -> {v:.6g}")
            if not values:
                lines.append(f"  no rule applies: the default {committee.default}")
        lines.append(f"{readable(self.target)} = {float(self.predict(ds)[0]):.6g}")
        return "\n".join(lines)

    def __str__(self) -> str:
        out = []
        for k, committee in enumerate(self.committees):
            if len(self.committees) > 1:
                out.append(f"Model {k + 1}:\n")
            for rule in committee.rules:
                out.append(rule.text(self.target) + "\n")
            out.append(f"Default: {readable(self.target)} = {committee.default}\n")
        out.append(f"Predictions are bounded to [{self.floor:.6g}, {self.ceiling:.6g}]"
                   f" (extrapolation {self.extrapolation:g})"
                   + (f"; corrected by the {self.neighbors} nearest training cases" if self.neighbors else ""))
        return "\n".join(out) + "\n"


def prediction_range(low: float, high: float, extrapolation: float) -> tuple[float, float]:
    """(floor, ceiling) of a model's predictions: the training targets' range [low, high]
    widened by `extrapolation` of its width on each side. (Cubist's model files hold the floor
    at 0 when no target is negative; doing so changed cpus' error by 0.02% and airquality's by
    0.1%, and would change the decisions of models saved before, whose floor is not stored.)"""
    widen = extrapolation * (high - low)
    return low - widen, high + widen


def rule_bounds(low: float, high: float, extrapolation: float, floor: float, ceiling: float) -> tuple[float, float]:
    """A rule's output bounds: its cases' range widened by `extrapolation` of its width on each
    side, within the model's [floor, ceiling] (Cubist's rule limits)."""
    widen = extrapolation * (high - low)
    # a later committee member's adjusted targets may lie beyond the model's range: its
    # rule is then held at the nearer end rather than given an empty interval
    return min(max(floor, low - widen), ceiling), max(min(ceiling, high + widen), floor)


def _rows(ds: Dataset, mask: np.ndarray) -> Dataset:
    """The cases of `ds` that `mask` selects."""
    return Dataset(ds.schema, [c[mask] for c in ds.columns], None, ds.source)


def _range(column: np.ndarray) -> float:
    known = column[~np.isnan(column)]
    width = float(known.max() - known.min()) if known.size else 0.0
    return width if width > 0 else 1.0


def check_model(model: RegressionModel) -> None:
    """ModelError naming the first part of a hand-made model that cannot score."""
    schema = model.schema
    means = dict(model.means)
    if not model.committees:
        raise ModelError("committees: a model needs at least one committee")
    for name in ("target_low", "target_high", "extrapolation"):
        v = getattr(model, name)
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ModelError(f"{name}: expected a finite number, found {v!r}")
    if model.target_low > model.target_high:
        raise ModelError(f"target_low {model.target_low} is above target_high {model.target_high}")
    if model.extrapolation < 0:
        raise ModelError(f"extrapolation: must be >= 0, found {model.extrapolation}")
    if not isinstance(model.neighbors, int) or model.neighbors < 0:
        raise ModelError(f"neighbors: expected an integer >= 0, found {model.neighbors!r}")
    if model.neighbors and model.instances is None:
        raise ModelError("instances: a model with neighbors > 0 needs its training instances")
    for k, committee in enumerate(model.committees):
        models: list[tuple[str, LinearModel]] = [(f"committees[{k}].default", committee.default)]
        for i, rule in enumerate(committee.rules):
            where = f"committees[{k}].rules[{i}]"
            for j, c in enumerate(rule.conditions):
                condition_operand(c, schema, f"{where}.conditions[{j}]")
            if not rule.lower <= rule.upper:
                raise ModelError(f"{where}: lower bound {rule.lower} is above upper bound {rule.upper}")
            models.append((f"{where}.model", rule.model))
        for where, lm in models:
            for name, coef in lm.coefficients:
                try:
                    attr = schema.attribute(name)
                except InputError:
                    raise ModelError(f"{where}: {name!r} is not an attribute of the schema") from None
                if not attr.is_continuous:
                    raise ModelError(f"{where}: linear models use continuous attributes only, not {name!r}")
                if name not in means:
                    raise ModelError(f"{where}: no training mean recorded for {name!r} (means)")
                if not math.isfinite(coef):
                    raise ModelError(f"{where}: coefficient of {name!r} is not finite")


def regression_schema(attributes: Sequence[Any], target: str) -> Schema:
    """The schema of a regression model: the input attributes, and the target's name as its
    one 'class' (a Schema needs one; Cubist's .names names the target first)."""
    return Schema(tuple(attributes), (target,), target)
