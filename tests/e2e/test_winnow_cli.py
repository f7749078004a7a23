"""The CLI's --winnow: the screened-out attributes on stderr, in --json and in the model."""
from __future__ import annotations

import json

from c45rules.export.yaml import load_yaml

from .conftest import DATA, cli_err


def test_cli_reports_the_winnowed_attributes(tmp_path):
    code, out, err = cli_err(["rules", str(DATA / "crx" / "crx"), "--winnow", "--json"])
    assert code == 0
    assert json.loads(out)["winnowed"] == ["A2", "A3", "A5", "A6", "A8", "A11"]
    assert "winnowing screened out 6 of 15 attributes: A2, A3, A5, A6, A8, A11" in err
    code, out, err = cli_err(["rules", str(DATA / "crx" / "crx"), "--winnow", "--json", "-q"])
    assert code == 0 and err == ""
    model = tmp_path / "m.yaml"
    code, _, _ = cli_err(["fit", str(DATA / "crx" / "crx"), "--winnow", "-o", str(model), "-q"])
    assert code == 0 and load_yaml(model.read_text()).options_dict["winnow"] is True
