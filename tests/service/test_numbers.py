"""A regression model served (issue 54, point 4): POST the records as for class rules; the answer
is the number `predict` gives, the rules that fired (id and value) and the fingerprint; the audit
store keeps the number (listing, --replay); a challenger's numbers are compared (relative
difference > 1e-6, service/numbers.py) by `audit --compare` and counted in /metrics."""
from __future__ import annotations

import hashlib
import json
import os
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from c45rules.export.yaml import load_yaml
from c45rules.model.regression_explain import explain_regression
from c45rules.service.numbers import numbers_differ

from e2e.conftest import ok
from .conftest import Server, call

REPO = Path(__file__).resolve().parents[2]
CPUS = Path(os.environ.get("C45RULES_SHARED", REPO.parent / "shared")) / "data-regression" / "cpus"
pytestmark = pytest.mark.skipif(not CPUS.is_dir(), reason="shared regression data not found")


@pytest.fixture(scope="module")
def cpus_versions(tmp_path_factory) -> tuple[Path, Path]:
    """Two cpus regression models: the default fit, and one of 3 committees."""
    d = tmp_path_factory.mktemp("cpus")
    ok("fit", str(CPUS / "cpus"), "-o", str(d / "cpus.yaml"))
    ok("fit", str(CPUS / "cpus"), "-o", str(d / "cpus_c3.yaml"), "--committees", "3")
    return d / "cpus.yaml", d / "cpus_c3.yaml"


def records(n: int = 40) -> list[dict]:
    """cpus rows as JSON records (the target left out), one unknown cell among them."""
    frame = pd.read_csv(CPUS / "cpus.csv").drop(columns=["perf"]).head(n)
    out = [{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()} for r in frame.to_dict("records")]
    out[3]["mmax"] = None
    return out


def expected(path: Path, recs: list[dict]) -> list[dict]:
    """Each record's number (RegressionModel.predict) and fired rules (explain_regression)."""
    model = load_yaml(path.read_text())
    values = model.predict(recs)
    several = len(model.committees) > 1
    out = []
    for r, v in zip(recs, values.tolist()):
        why = explain_regression(model, r)
        fired = [{**({"committee": k} if several else {}), "id": f.id, "value": f.value}
                 for k, c in enumerate(why.committees, 1) for f in c.rules]
        out.append({"value": v, "rules": fired})
    return out


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_a_regression_model_is_served_audited_and_replayed(backend, cpus_versions, tmp_path, request):
    champion = cpus_versions[0]
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "cpus.yaml").write_bytes(champion.read_bytes())
    store = f"sqlite:{tmp_path / 'audit.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    recs = records()
    fingerprint = "sha256:" + hashlib.sha256(champion.read_bytes()).hexdigest()
    s = Server(folder, store).start()
    try:
        status, one = call("POST", s.url + "/v1/models/cpus/decide", recs[0])
        assert status == 200, one
        status, many = call("POST", s.url + "/v1/models/cpus/decide", recs[1:])
        assert status == 200, many
        status, explained = call("POST", s.url + "/v1/models/cpus/decide?explain=true", recs[3])
        assert status == 200 and "rule" in explained["explanation"] and explained["value"] == many["decisions"][2]["value"]
        status, listed = call("GET", s.url + "/v1/models")
        assert listed["models"][0]["kind"] == "regression" and listed["models"][0]["fingerprint"] == fingerprint
        status, bad = call("POST", s.url + "/v1/models/cpus/decide", {"myct": "fast", "mmin": 1})
        assert status == 422 and bad["field"] is not None
    finally:
        s.stop()
    want = expected(champion, recs)
    assert one["fingerprint"] == fingerprint and one["model"] == "cpus" and len(one["request_id"]) == 32
    assert {"value": one["value"], "rules": one["rules"]} == want[0]
    assert many["decisions"] == want[1:]
    assert any(len(d["rules"]) > 1 for d in want)   # overlapping rules: their values averaged
    # the audit store holds each number and its rules, as answered
    lines = [json.loads(x) for x in ok("audit", store, "--json").stdout.splitlines()]
    assert [d["value"] for d in lines[:len(recs)]] == [d["value"] for d in want]
    assert [[r[1] for r in d["rules"]] for d in lines[:len(recs)]] == [[r["id"] for r in d["rules"]] for d in want]
    assert "value " in ok("audit", store, "--limit", "1").stdout
    rule = next(d["rules"][0]["id"] for d in want if d["rules"])
    picked = [json.loads(x) for x in ok("audit", store, "--json", "--rule", str(rule)).stdout.splitlines()]
    assert picked and all(any(r[1] == rule for r in d["rules"]) for d in picked)
    # replayed with the stored version: the same numbers
    assert "0 differ" in ok("audit", store, "--replay").stderr


def test_a_regression_challenger_is_compared_by_its_numbers(cpus_versions, tmp_path):
    champion, challenger = cpus_versions
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "cpus.yaml").write_bytes(champion.read_bytes())
    store = f"sqlite:{tmp_path / 'audit.sqlite'}"
    recs = records(60)
    s = Server(folder, store, "--shadow", f"cpus={challenger}").start()
    try:
        status, many = call("POST", s.url + "/v1/models/cpus/decide", recs)
        assert status == 200
        req = urllib.request.Request(s.url + "/metrics")
        with urllib.request.urlopen(req, timeout=30) as r:
            scraped = r.read().decode()
    finally:
        s.stop()
    mine = [d["value"] for d in many["decisions"]]
    theirs = load_yaml(challenger.read_text()).predict(recs).tolist()
    differ = sum(numbers_differ(a, b) for a, b in zip(mine, theirs))
    assert 0 < differ <= len(recs)
    got = json.loads(ok("audit", store, "--compare", "--json").stdout)
    assert got["records"] == len(recs) and got["disagree"] == differ
    assert got["largest_difference"] == pytest.approx(float(np.max(np.abs(np.subtract(theirs, mine)))))
    assert f'c45rules_shadow_disagreements_total{{model="cpus"}} {float(differ)}' in scraped
    text = ok("audit", store, "--compare").stdout
    assert f"{len(recs)} logged records, {differ} decided differently" in text
