"""Labelled data for a regression model's commands (report, rescore): the cases encoded for the
model's schema, and their target numbers."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError

if TYPE_CHECKING:
    from ..data.schema import Dataset
    from ..model.regression import RegressionModel


def load_regression_labelled(path: str, model: RegressionModel, target: str | None = None
                             ) -> tuple[Dataset, np.ndarray]:
    """(Dataset encoded for `model`'s schema, float targets) of a C4.5 stem or a CSV/Parquet file
    whose column `target` (default: the model's target) holds the numbers."""
    import pandas as pd

    from ..learn.regression import read_regression
    from ..model.ruleset import encode_cases
    data, y = read_regression(path, target or model.target)
    missing = [a for a in model.used_attributes() if a not in data.schema.names]
    if missing:
        raise InputError(f"{path}: no column {missing[0]!r}, which the model uses")
    cells = {}
    for a, col in zip(data.schema.attributes, data.columns):   # values, to encode under the model's schema
        if a.is_continuous:
            cells[a.name] = col
        elif a.is_discrete:
            cells[a.name] = [a.values[c] if c >= 0 else None for c in np.asarray(col, dtype=int)]
    return encode_cases(pd.DataFrame(cells), model.schema, model.used_attributes()), np.asarray(y, dtype=float)
