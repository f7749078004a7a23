"""Shadow models (issue 55, point 4): `serve --shadow crx=FILE` answers with the served model,
logs the challenger's decisions of the same records beside them, and `audit --compare` reports
where the two disagree as `diff --data` reports two models on the same rows."""
from __future__ import annotations

import json
from collections import Counter

import pytest

import reference as R
from c45rules.export.yaml import load_yaml
from c45rules.model.records import RecordDecider
from c45rules.service.workerfiles import open_audit

from e2e.conftest import fails, ok
from .conftest import Server, call, crx_test_records


def _decisions(path, records) -> list[tuple[str, int, float]]:
    d = RecordDecider(load_yaml(path.read_text()))
    return [(str(d.classes[k]), int(d.rule_ids[k]), float(d.confidences[k])) for k in d.positions(records)]


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_a_challenger_is_logged_beside_and_compared_as_diff_does(backend, models, tmp_path, crx_versions, request):
    champion, challenger = crx_versions
    store = f"sqlite:{tmp_path / 'audit.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    records = crx_test_records()
    s = Server(models, store, "--shadow", f"crx={challenger}").start()
    try:
        status, many = call("POST", s.url + "/v1/models/crx/decide", records[:150])
        assert status == 200
        singles = [call("POST", s.url + "/v1/models/crx/decide", r)[1] for r in records[150:]]
    finally:
        s.stop()
    # the answers are the champion's alone
    answered = [(d["class"], d["rule_id"], d["confidence"]) for d in many["decisions"] + singles]
    mine, theirs = _decisions(champion, records), _decisions(challenger, records)
    assert answered == mine and mine != theirs
    assert all(set(d) == {"class", "rule_id", "confidence"} for d in many["decisions"])
    # the store holds both, request by request (the rows the compare reads)
    audit = open_audit(store)
    pairs = Counter()
    for row in audit.shadowed():
        pairs[row[0], row[1][:7], row[4][:7]] += 1
    audit.close()
    assert sum(pairs.values()) == 1 + len(records[150:]) and len(pairs) == 1
    # audit --compare: the same report, in JSON and in text, as diff --data over the same records
    got = json.loads(ok("audit", store, "--compare", "--json").stdout)
    want = json.loads(ok("diff", champion, challenger, "--data", R.DATA / "crx" / "crx_test.csv", "--json").stdout)
    assert got["model"] == "crx" and got["champion"] != got["challenger"]
    assert got["rules"] == want["rules"]
    rule_flips = Counter(f"rule {a[1]} -> rule {b[1]}" for a, b in zip(mine, theirs) if a[0] != b[0])
    assert got["decisions"] == {**want["decisions"], "rule_flips": dict(rule_flips)}
    assert got["decisions"]["changed"] > 0 and got["decisions"]["rows"] == len(records)
    text = ok("audit", store, "--compare", "--model", "crx").stdout
    assert f"Decisions on the logged records: {want['decisions']['changed']} of {len(records)} rows change" in text
    for pair, n in want["decisions"]["flips"].items():
        assert f"\n  {pair}: {n}\n" in text
    top, n = rule_flips.most_common(1)[0]
    assert f"  by rule (old -> new):\n    {top}: {n}\n" in text
    assert text.startswith("Model crx: champion sha256:") and "\nRules: " in text
    # another model's name selects nothing
    assert ok("audit", store, "--compare", "--model", "other").stdout == ""


def test_shadow_and_compare_refuse_bad_input(models, tmp_path, crx_versions):
    audit = f"sqlite:{tmp_path / 'audit.sqlite'}"
    assert "expected NAME=FILE" in fails("serve", models, "--audit", audit, "--shadow", "crx")
    assert "not found" in fails("serve", models, "--audit", audit, "--shadow", f"crx={tmp_path / 'nope.yaml'}")
    (tmp_path / "bad.yaml").write_text("rules: [\n")
    assert "--shadow crx=" in fails("serve", models, "--audit", audit, "--shadow", f"crx={tmp_path / 'bad.yaml'}")
    assert "two challengers" in fails("serve", models, "--audit", audit, "--shadow", f"crx={crx_versions[1]}",
                                      "--shadow", f"crx={crx_versions[0]}")
    Server(models, audit).start().stop()   # a store with no shadow decisions
    assert "--compare takes" in fails("audit", audit, "--compare", "--replay")
    p = ok("audit", audit, "--compare")
    assert p.stdout == "" and "no decisions of a shadow model" in p.stderr
    # a store written before shadow models (no c45rules_shadow table) has none either
    import sqlite3
    with sqlite3.connect(tmp_path / "audit.sqlite") as db:
        db.execute("DROP TABLE c45rules_shadow")
    p = ok("audit", audit, "--compare")
    assert p.stdout == "" and "no decisions of a shadow model" in p.stderr
