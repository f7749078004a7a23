"""The report's data check: the training data, held-out data (with --train), or, with only the
model's fingerprint to go by, data other than the training data as it is now."""
from __future__ import annotations

import html
import re

import pytest

import reference as R

from e2e.conftest import cli

CRX = R.DATA / "crx" / "crx"
MATCHES = "This data matches the model's fingerprint: it is the data the model was trained on."
HELD_OUT = "This is held-out data: it differs from the training data given to the report (--train)"
OTHER = ("This data does not match the model's fingerprint: it is other data than the model was trained on,"
         " or that data changed.")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """(the crx model, the same without its fingerprint)."""
    d = tmp_path_factory.mktemp("check")
    model = d / "model.yaml"
    assert cli(["fit", str(CRX), "-o", str(model), "-q"])[0] == 0
    bare = d / "bare.yaml"
    bare.write_text(re.sub(r'(?m)^fingerprint: ".*"$', 'fingerprint: ""', model.read_text()))
    return model, bare


def _check(model, tmp_path, *args: str) -> str:
    out = tmp_path / "report.html"
    assert cli(["report", str(model), "-o", str(out), *args])[0] == 0
    found = re.search(r'<p id="data-fingerprint">(.*?)</p>', out.read_text())
    return html.unescape(found.group(1)) if found else ""


def test_held_out_data_is_called_so_when_the_training_data_is_given(models, tmp_path):
    model, _ = models
    test = f"{CRX}.test"
    assert _check(model, tmp_path, "--train", str(CRX), "--data", test) == \
        HELD_OUT + ", which matches the model's fingerprint."
    assert _check(model, tmp_path, "--train", str(CRX)) == MATCHES          # the training data is the data
    assert _check(model, tmp_path, "--train", str(CRX), "--data", str(CRX)) == MATCHES
    # without the training data, a fingerprint that differs cannot tell held-out from changed data
    assert _check(model, tmp_path, "--data", test) == OTHER
    assert _check(model, tmp_path, "--data", str(CRX)) == MATCHES


def test_without_a_fingerprint_the_training_data_given_decides(models, tmp_path):
    _, bare = models
    test = f"{CRX}.test"
    assert _check(bare, tmp_path, "--train", str(CRX), "--data", test) == HELD_OUT + "."
    assert _check(bare, tmp_path, "--train", str(CRX), "--data", str(CRX)) == \
        "This data is the training data given to the report (--train)."
    assert _check(bare, tmp_path, "--data", test) == ""
