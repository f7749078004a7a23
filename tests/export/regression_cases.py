"""Regression models for the export tests (issue 54): each of the nine shared sets learnt on one
fold and scored on another, and a hand-made model with every kind of unknown value."""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from c45rules.data.schema import Attribute, Dataset
from c45rules.learn.regression import fit_regression, read_regression
from c45rules.model.regression import Committee, LinearModel, RegressionModel, RegressionRule, regression_schema
from c45rules.model.ruleset import Condition

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("C45RULES_SHARED", REPO.parent / "shared")) / "data-regression"
NINE = ("airquality", "cpus", "auto", "diabetes", "boston", "concrete", "friedman1", "ames", "diamonds")
ROW = "row"


@dataclass(frozen=True)
class RegScored:
    """A model, the cases it scores (a frame: continuous columns float, discrete text or None)
    and predict's numbers for them."""

    name: str
    model: RegressionModel
    frame: pd.DataFrame
    want: np.ndarray


def _frame(model: RegressionModel, df: pd.DataFrame) -> pd.DataFrame:
    out = {}
    for a in model.schema.attributes:
        col = df[a.name]
        out[a.name] = (pd.to_numeric(col).astype(float) if a.is_continuous
                       else col.map(lambda v: None if pd.isna(v) else str(v)).astype(object))
    return pd.DataFrame(out)


@functools.lru_cache(maxsize=None)
def fold_scored(name: str, committees: int = 2) -> RegScored:
    """`name` learnt on fold 0 (committees), scored on fold 1 (the CSV's cells)."""
    if not DATA.is_dir():
        pytest.skip("shared regression data not found")
    stem = DATA / name / name
    ds, y = read_regression(stem)
    folds = np.loadtxt(f"{stem}.folds", dtype=int)
    train = folds == 0
    model = fit_regression(Dataset(ds.schema, [c[train] for c in ds.columns], None), y[train],
                           committees=committees)
    csv = pd.read_csv(f"{stem}.csv", dtype=str, keep_default_na=False, na_values=[""])
    frame = _frame(model, csv[folds == 1].reset_index(drop=True))
    return RegScored(name, model, frame, model.predict(frame))


def hand_model(committees: int = 2) -> RegressionModel:
    """x, z continuous and colour discrete; overlapping rules, a rule with no condition in the
    second committee, linear models on x and z (unknown: their means 5 and -2)."""
    schema = regression_schema((Attribute("x", "continuous"), Attribute("z", "continuous"),
                                Attribute("colour", "discrete", ("red", "blue", "green"))), "y")
    r1 = RegressionRule(1, (Condition("x", "<=", 6.0),), LinearModel(1.0, (("x", 2.0), ("z", 0.5))), 10, 7.0, 1.0,
                        13.0, 0.5, 0.0, 14.0)
    r2 = RegressionRule(2, (Condition("x", ">", 4.0), Condition("colour", "in", ("red", "green"))),
                        LinearModel(100.0, (("z", -3.0),)), 5, 100.0, 90.0, 110.0, 1.0, 90.0, 110.0)
    r3 = RegressionRule(1, (), LinearModel(20.0, (("x", 1.5),)), 30, 25.0, 0.0, 60.0, 2.0, 0.0, 60.0)
    first = Committee((r1, r2), LinearModel(50.0, (("z", 1.0),)))
    second = Committee((r3,), LinearModel(0.0))
    return RegressionModel(schema, (first, second)[:committees], 0.0, 100.0, 0.05, (("x", 5.0), ("z", -2.0)))


def hand_rows() -> list[dict]:
    """Rows on every edge: thresholds, unknowns (None, NaN), unseen categories, bounds."""
    rows = []
    for x in (None, float("nan"), -50.0, 0.0, 4.0, 4.5, 6.0, 6.5, 30.0, 1e6):
        for z in (None, float("nan"), -40.0, 0.0, 2.5, 200.0):
            for colour in (None, "red", "blue", "green", "purple"):
                rows.append({"x": x, "z": z, "colour": colour})
    return rows


def close(got, want) -> bool:
    """Equal to 6 significant digits (and NULL nowhere)."""
    got = np.array([np.nan if v is None else float(v) for v in got])
    return bool(np.all(np.isfinite(got))) and bool(np.allclose(got, want, rtol=1e-6, atol=1e-9))
