"""Regression models as PMML (issue 54): JPMML and PMML4S both give predict's number."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from regression_cases import NINE, close, fold_scored, hand_model, hand_rows

from c45rules.errors import InputError
from c45rules.export import to_pmml
from c45rules.export.regression_pmml import to_regression_pmml
from c45rules.model.regression import Instances, RegressionModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pmml_evaluators import jpmml, pmml4s, require_evaluators  # noqa: E402


def _rows(frame: pd.DataFrame) -> list[dict]:
    return [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
            for r in frame.to_dict("records")]


def _both(model, rows: list[dict], want) -> None:
    require_evaluators()
    text = to_regression_pmml(model)
    fields = [a.name for a in model.schema.attributes]
    assert close(jpmml(text, rows, fields)["predicted_value"].tolist(), want), "JPMML"
    assert close(pmml4s(text, rows, fields)["predicted_value"].tolist(), want), "PMML4S"


@pytest.mark.parametrize("name", NINE)
def test_both_evaluators_give_predict_on_the_nine_sets(name):
    s = fold_scored(name)
    _both(s.model, _rows(s.frame), s.want)


def test_unknowns_unseen_categories_and_bounds():
    model = hand_model()
    rows = hand_rows()
    _both(model, [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()} for r in rows],
          model.predict(pd.DataFrame(rows)))
    one = hand_model(committees=1)   # a single committee, whose default is reached
    _both(one, [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()} for r in rows],
          one.predict(pd.DataFrame(rows)))


def test_layout_and_refusal():
    text = to_regression_pmml(hand_model())
    with pytest.raises(InputError, match="to_regression_pmml"):
        to_pmml(hand_model())
    assert text.count('multipleModelMethod="selectFirst"') == 2 and '<Target field="y" min="-5.0" max="105.0"/>' in text
    m = hand_model()
    knn = RegressionModel(m.schema, m.committees, 0.0, 100.0, 0.05, m.means, 1, Instances(((1.0, 0.0, "red"),), (3.0,)))
    with pytest.raises(InputError, match="PMML cannot express"):
        to_regression_pmml(knn)
