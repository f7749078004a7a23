"""`c45rules serve` for real: decisions equal `c45rules predict`'s, models listed, bad requests
refused with a JSON 4xx naming the field, models swapped live, bearer tokens, the audit
trail and `c45rules audit` (query and replay)."""
from __future__ import annotations

import csv
import json
import re
import sqlite3
import subprocess
import sys
import zlib

import numpy as np
import pytest

from c45rules.export.yaml import load_yaml
from c45rules.service.audit import model_fingerprint

from e2e.conftest import command, fails, ok
from .conftest import Server, call, crx_test_records, serving, wait_for


def _predicted(model, tmp_path) -> list[dict]:
    out = tmp_path / "scored.csv"
    import reference as R
    ok("predict", model, R.DATA / "crx" / "crx_test.csv", "--confidence", "--explain", "-o", out)
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def test_decisions_are_predicts(server, models, tmp_path):
    records = crx_test_records()
    expected = _predicted(models / "crx.yaml", tmp_path)
    status, body = call("POST", server.url + "/v1/models/crx/decide?explain=true", records)
    assert status == 200, body
    assert body["fingerprint"] == model_fingerprint((models / "crx.yaml").read_bytes())
    got = body["decisions"]
    assert len(got) == len(expected) == 200
    for g, e in zip(got, expected):
        assert (g["class"], g["rule_id"], g["confidence"], g["explanation"]) == \
            (e["predicted_class"], int(e["rule_id"]), float(e["confidence"]), e["explanation"])
    assert len({g["rule_id"] for g in got}) > 5
    # one record at a time: the same answers, a flat object each
    for record, e in list(zip(records, expected))[:25]:
        status, one = call("POST", server.url + "/v1/models/crx/decide", record)
        assert status == 200 and (one["class"], one["rule_id"]) == (e["predicted_class"], int(e["rule_id"]))
        assert "explanation" not in one and len(one["request_id"]) == 32


def test_unknowns_and_unseen_values_decide_as_ruleset(server, models):
    rs = load_yaml(models / "crx.yaml")
    used = rs.used_attributes()
    base = {a: None for a in used}
    cases = [{**base, "A9": "t", "A15": 300}, {**base, "A9": "t", "A15": "NA"}, {**base, "A9": "?", "A15": 300},
             {**base, "A9": "t", "A15": ""}, {**base, "A9": "never seen", "A4": "u"},
             {**base, "A9": "t", "A11": "4"}, {**base, "A9": "t", "A11": 3.5, "A15": "NULL"}]
    status, body = call("POST", server.url + "/v1/models/crx/decide", cases)
    assert status == 200, body
    got = [d["rule_id"] for d in body["decisions"]]
    assert got == [int(rs.predict_rule(c)[0]) for c in cases]
    # 'NA' and '' are unknown, so A15 > 228 fails; an unseen A9 matches no A9 test
    assert got[0] == 28 and got[1] != 28 and got[3] == got[1] and got[4] == 0
    # a key left out of one record of a list is an unknown cell, as a blank CSV cell is
    partial = [dict(cases[0]), {"A9": "t", "A15": 300}]
    status, body = call("POST", server.url + "/v1/models/crx/decide", partial)
    assert status == 200 and [d["rule_id"] for d in body["decisions"]] == [28, 28]


def test_models_are_listed(server, models):
    rs = load_yaml(models / "crx.yaml")
    status, body = call("GET", server.url + "/v1/models")
    assert status == 200
    [m] = body["models"]
    assert m["name"] == "crx" and m["classes"] == ["+", "-"] and m["rules"] == len(rs.rules)
    assert m["trained_on"] == rs.fingerprint and m["fingerprint"] == model_fingerprint((models / "crx.yaml").read_bytes())
    status, one = call("GET", server.url + "/v1/models/crx")
    assert status == 200
    assert [r["id"] for r in one["rules"]] == [r.id for r in rs.rules]
    first = rs.rules[0]
    assert one["rules"][0]["conditions"] == [{"attribute": c.attribute, "op": c.op, "value": c.value}
                                             for c in first.conditions]
    assert one["default"] == {"class": rs.default_class, "rule_id": 0,
                              "confidence": float(rs.decision_confidences()[0])}
    status, api = call("GET", server.url + "/openapi.json")
    assert status == 200 and "/v1/models/{name}/decide" in api["paths"]


def test_bad_requests_get_a_4xx_naming_the_field(server, models):
    rs = load_yaml(models / "crx.yaml")
    full = {a: None for a in rs.used_attributes()}
    url = server.url + "/v1/models/crx/decide"
    cases = [
        (b'{"A9": "t", ', 400, "body", "malformed JSON"),
        ({**full, "A15": "lots"}, 422, "A15", "'lots' is not a number"),
        ({**full, "A15": True}, 422, "A15", "True is not a number"),
        ({**full, "A15": [1]}, 422, "A15", "got list"),
        ({k: v for k, v in full.items() if k != "A14"}, 422, "A14", "missing field 'A14'"),
        ([full, 3], 422, "body", "record 1 is a JSON int"),
        ([], 422, "body", "empty list"),
        ("text", 422, "body", "expected a JSON object"),
    ]
    for body, status, field, message in cases:
        got, answer = call("POST", url, body)
        assert got == status and answer["field"] == field and message in answer["error"], (body, answer)
    got, answer = call("POST", url, [full, {**full, "A11": "x"}])
    assert got == 422 and answer["record"] == 1 and answer["field"] == "A11"
    got, answer = call("POST", server.url + "/v1/models/other/decide", full)
    assert got == 404 and answer["field"] == "name"
    got, answer = call("GET", server.url + "/v1/models/../../etc/passwd")
    assert got == 404
    got, answer = call("POST", url + "?explain=perhaps", full)
    assert got == 422 and answer["field"] == "explain"
    # nothing refused reached the audit trail
    assert _rows(server) == 0


def _rows(server) -> int:
    path = server.audit.split(":", 1)[1]
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM c45rules_requests").fetchone()[0]


def test_body_over_the_limit_is_413(models, tmp_path):
    s = Server(models, f"sqlite:{tmp_path / 'a.sqlite'}", "--max-body", "2KB").start()
    try:
        records = crx_test_records()[:5]
        status, body = call("POST", s.url + "/v1/models/crx/decide", records)
        assert status == 200
        status, body = call("POST", s.url + "/v1/models/crx/decide", crx_test_records())
        assert status == 413 and body["field"] == "body" and "2000-byte limit" in body["error"]
    finally:
        s.stop()


def test_models_swap_live_and_bad_files_are_refused(server, models, crx_versions):
    old = model_fingerprint((models / "crx.yaml").read_bytes())
    new_bytes = crx_versions[1].read_bytes()
    new = model_fingerprint(new_bytes)
    assert old != new and serving(server) == old
    (models / ".crx.tmp").write_bytes(new_bytes)
    (models / ".crx.tmp").rename(models / "crx.yaml")
    assert wait_for(lambda: serving(server) == new)
    record = {a: None for a in load_yaml(crx_versions[1]).used_attributes()} | {"A9": "t", "A15": 300}
    status, body = call("POST", server.url + "/v1/models/crx/decide", record)
    assert status == 200 and body["fingerprint"] == new
    # a broken file is refused and logged; the version served stays
    (models / "crx.yaml").write_text(new_bytes.decode().replace("op: \"<=\"", "op: \"<<\""))
    assert wait_for(lambda: "refused" in server.read_log())
    assert "crx.yaml refused" in server.read_log() and "still serving " + new in server.read_log()
    assert serving(server) == new
    # a new file is a new model; a removed one is no longer served
    (models / "harder.yaml").write_bytes(new_bytes)
    assert wait_for(lambda: serving(server, "harder") == new)
    (models / "harder.yaml").unlink()
    assert wait_for(lambda: serving(server, "harder") is None)
    # the store keeps every version served, for replay
    with sqlite3.connect(server.audit.split(":", 1)[1]) as db:
        kept = dict(db.execute("SELECT fingerprint, yaml FROM c45rules_models"))
    assert set(kept) == {old, new} and kept[new].encode() == new_bytes


def test_bearer_token(models, tmp_path):
    token = tmp_path / "token"
    token.write_text("s3cret-token-0123456789\n")
    s = Server(models, f"sqlite:{tmp_path / 'a.sqlite'}", "--token-file", str(token)).start()
    try:
        assert call("GET", s.url + "/healthz")[0] == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-token-0123456789"}):
            status, body = call("GET", s.url + "/v1/models", headers=headers)
            assert status == 401 and body["field"] == "Authorization"
            assert call("POST", s.url + "/v1/models/crx/decide", {}, headers=headers)[0] == 401
            assert call("GET", s.url + "/openapi.json", headers=headers)[0] == 401
        status, body = call("GET", s.url + "/v1/models", headers={"Authorization": "Bearer s3cret-token-0123456789"})
        assert status == 200 and body["models"][0]["name"] == "crx"
    finally:
        s.stop()


def test_audit_query_and_replay(server, models, tmp_path):
    records = crx_test_records()[:40]
    status, body = call("POST", server.url + "/v1/models/crx/decide", records)
    assert status == 200
    status, one = call("POST", server.url + "/v1/models/crx/decide", records[0])
    store = server.audit
    lines = ok("audit", store, "--json").stdout.splitlines()
    logged = [json.loads(line) for line in lines]
    assert len(logged) == 41
    batch = [d for d in logged if d["request_id"] == body["request_id"]]
    assert [d["seq"] for d in batch] == list(range(40))
    assert [(d["class"], d["rule_id"], d["confidence"]) for d in batch] == \
        [(d["class"], d["rule_id"], d["confidence"]) for d in body["decisions"]]
    assert batch[3]["record"] == records[3] and batch[3]["fingerprint"] == body["fingerprint"]
    rule = body["decisions"][0]["rule_id"]
    by_rule = [json.loads(line) for line in ok("audit", store, "--json", "--rule", str(rule)).stdout.splitlines()]
    assert by_rule and all(d["rule_id"] == rule for d in by_rule)
    assert len(by_rule) == sum(d["rule_id"] == rule for d in body["decisions"]) + (one["rule_id"] == rule)
    assert ok("audit", store, "--since", "2999-01-01").stdout == ""
    assert ok("audit", store, "--model", "other").stdout == ""
    text = ok("audit", store, "--limit", "1").stdout
    assert text.count("\n") == 1 and f"{body['request_id']}/0" in text or f"{one['request_id']}/0" in text
    p = ok("audit", store, "--replay")
    assert "replayed 41 decisions of 1 model version: 0 differ" in p.stderr
    # a logged decision that the logged model would not make is reported, exit 1
    with sqlite3.connect(store.split(":", 1)[1]) as db:   # record 5 now points at an outcome of its own
        outcomes, picks = db.execute("SELECT outcomes, picks FROM c45rules_requests WHERE request_id = ?",
                                     (body["request_id"],)).fetchone()
        legend, chosen = json.loads(outcomes), np.frombuffer(zlib.decompress(picks), "<u4").copy()
        klass, rule_id, confidence = legend[chosen[5]]
        legend.append([klass, rule_id + 1000, confidence])
        chosen[5] = len(legend) - 1
        db.execute("UPDATE c45rules_requests SET outcomes = ?, picks = ? WHERE request_id = ?",
                   (json.dumps(legend), zlib.compress(chosen.tobytes()), body["request_id"]))
    p = subprocess.run([*command(), "audit", store, "--replay"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "1 differ" in p.stderr
    assert f"{body['request_id']}/5: logged class" in p.stdout


def test_command_errors(tmp_path):
    assert "not a folder of models" in fails("serve", tmp_path / "none")
    assert "no audit store there" in fails("audit", f"sqlite:{tmp_path / 'none.sqlite'}")
    assert "--since" in fails("audit", f"sqlite:{tmp_path / 'none.sqlite'}", "--since", "yesterday")
    (tmp_path / "short").write_text("abc\n")
    assert "at least 16" in fails("serve", tmp_path, "--token-file", tmp_path / "short")
    with __import__("socket").create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        assert "cannot listen on 127.0.0.1" in fails("serve", tmp_path, "--port", str(port),
                                                     "--audit", f"sqlite:{tmp_path / 'a.sqlite'}")


def test_help_does_not_import_the_web_stack():
    code = ("import sys, c45rules.cli as c; c.build_parser();"
            " print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'uvicorn', 'starlette')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "[]", p.stderr
    assert "serve" in ok("--help").stdout and "audit" in ok("--help").stdout


@pytest.mark.postgres
def test_postgresql_audit_store(models, tmp_path, pg_url):
    s = Server(models, pg_url, "--workers", "2").start()   # both workers write the one store
    try:
        records = crx_test_records()[:10]
        status, body = call("POST", s.url + "/v1/models/crx/decide", records)
        assert status == 200
        singles = [call("POST", s.url + "/v1/models/crx/decide", r)[1] for r in records[:6]]
        # the server answers once one worker is up; on a loaded machine the other may come later
        assert wait_for(lambda: len(set(re.findall(r"worker (\d+) \(pid \d+\): INFO: model crx: serving",
                                                   s.read_log()))) == 2, timeout=30)
    finally:
        s.stop()
    # one store, yet each worker has a number of its own for its log lines
    workers = re.findall(r"worker (\d+) \(pid \d+\): INFO: model crx: serving", s.read_log())
    assert sorted(workers) == ["0", "1"], s.read_log()
    logged = [json.loads(line) for line in ok("audit", pg_url, "--json").stdout.splitlines()]
    assert [(d["request_id"], d["seq"], d["rule_id"]) for d in logged] == \
        [(body["request_id"], i, d["rule_id"]) for i, d in enumerate(body["decisions"])] + \
        [(one["request_id"], 0, one["rule_id"]) for one in singles]
    assert [d["record"] for d in logged] == records + records[:6]
    assert "0 differ" in ok("audit", pg_url, "--replay").stderr
