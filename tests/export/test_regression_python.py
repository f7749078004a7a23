"""Regression models as a standalone Python module (issue 54): predict's number to 6 significant digits."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from regression_cases import NINE, close, fold_scored, hand_model, hand_rows

from c45rules.errors import InputError
from c45rules.export import to_python
from c45rules.export.regression_python import to_regression_python
from c45rules.model.regression import Instances, RegressionModel


def _module(model) -> dict:
    namespace: dict = {}
    exec(compile(to_regression_python(model), "<regression module>", "exec"), namespace)
    return namespace


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in row.items()}
            for row in frame.to_dict("records")]


@pytest.mark.parametrize("name", NINE)
def test_module_gives_predict_on_the_nine_sets(name):
    s = fold_scored(name)
    predict = _module(s.model)["predict"]
    assert close([predict(r) for r in _records(s.frame)], s.want)


def test_unknowns_bounds_and_fired_rules():
    model = hand_model()
    rows = hand_rows()
    ns = _module(model)
    frame = pd.DataFrame(rows)
    assert close([ns["predict"](r) for r in rows], model.predict(frame))
    # a field left out is unknown; numbers as text are read; a bad text is refused by name
    assert ns["predict"]({"colour": "red"}) == pytest.approx(float(model.predict({"x": None, "z": None,
                                                                                  "colour": "red"})[0]))
    assert ns["predict"]({"x": "4.5", "z": " 2.5 ", "colour": "red"}) == \
        pytest.approx(float(model.predict({"x": 4.5, "z": 2.5, "colour": "red"})[0]), rel=1e-12)
    with pytest.raises(ValueError, match="field 'x'"):
        ns["predict"]({"x": "abc"})
    # committee 1: rules 1 and 2 hold at x = 5 red; committee 2: its one rule always
    assert ns["predict_rules"]({"x": 5.0, "z": 0.0, "colour": "red"}) == ((1, 2), (1,))
    assert ns["predict_rules"]({"x": None, "colour": "blue"}) == ((), (1,))


def test_csv_scorer(tmp_path):
    model = hand_model()
    path = tmp_path / "model.py"
    path.write_text(to_regression_python(model))
    with pytest.raises(InputError, match="to_regression_python"):
        to_python(model)
    (tmp_path / "in.csv").write_text("x,z,colour\n5,0,red\n,,blue\n")
    out = subprocess.run([sys.executable, str(path), str(tmp_path / "in.csv")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "x,z,colour,predicted_value,rules"
    want = model.predict(pd.DataFrame({"x": [5.0, None], "z": [0.0, None], "colour": ["red", "blue"]}))
    assert [float(line.split(",")[3]) for line in lines[1:]] == pytest.approx(want.tolist(), rel=1e-12)
    assert [line.split(",")[4] for line in lines[1:]] == ["1+2 1", "0 1"]


def test_instances_are_refused():
    m = hand_model()
    knn = RegressionModel(m.schema, m.committees, 0.0, 100.0, 0.05, m.means, 1,
                          Instances(((1.0, 0.0, "red"),), (3.0,)))
    with pytest.raises(InputError, match="standalone Python module cannot express"):
        to_regression_python(knn)
