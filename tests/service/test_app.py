"""The decide route in-process (no server): DecideRoute, the plain ASGI handler that answers it,
gives what the FastAPI route it bypasses gives (status, headers, body), and its bytes are the
JSON the service always answered."""
from __future__ import annotations

import asyncio
import json
import re

import pytest

from c45rules.export.yaml import load_yaml
from c45rules.service.app import ServiceConfig, _dumps, create_app, explain_flag, ClientError
from c45rules.service.workerfiles import open_audit

from .conftest import crx_test_records


def _scope(method: str, path: str, query: bytes, body: bytes) -> dict:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": path, "raw_path": path.encode(), "root_path": "", "query_string": query,
            "headers": [(b"host", b"test"), (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}


async def _request(app, method: str, path: str, query: bytes = b"", body: bytes = b"") -> tuple[int, dict, bytes]:
    messages, chunks = [], [body[:7], body[7:]]   # the body in two parts, as a socket may give it

    async def receive():
        if chunks:
            part = chunks.pop(0)
            return {"type": "http.request", "body": part, "more_body": bool(chunks)}
        await asyncio.sleep(3600)

    async def send(message):
        messages.append(message)
    await app(_scope(method, path, query, body), receive, send)
    head = {k.decode().lower(): v.decode() for k, v in messages[0]["headers"]}
    return messages[0]["status"], head, b"".join(m.get("body", b"") for m in messages[1:])


async def _lifespan(app, work):
    """Run `work()` between the app's lifespan startup and shutdown."""
    inbox: asyncio.Queue = asyncio.Queue()
    outbox: asyncio.Queue = asyncio.Queue()
    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    assert (await outbox.get())["type"] == "lifespan.startup.complete"
    try:
        return await work()
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await outbox.get()
        await task


def test_the_fast_route_answers_as_the_fastapi_route(models, tmp_path):
    app = create_app(ServiceConfig(str(models), f"sqlite:{tmp_path / 'audit.sqlite'}", max_body=3000))
    rs = load_yaml(models / "crx.yaml")
    records = crx_test_records()[:6]
    full = {a: None for a in rs.used_attributes()}
    cases = [("crx", b"", json.dumps(records[0]).encode()), ("crx", b"explain=TRUE", json.dumps(records).encode()),
             ("crx", b"explain=yes&explain=0", json.dumps(records[:3]).encode()), ("crx", b"explain=on", b"[{}]"),
             ("crx", b"explain=perhaps", b"{}"), ("crx", b"explain=", b"{}"), ("none", b"", b"{}"),
             ("crx", b"", b'{"A9": '), ("crx", b"", json.dumps({**full, "A15": [1]}).encode()),
             ("crx", b"", json.dumps([full, {**full, "A11": "x"}]).encode()), ("crx", b"", b"[]"),
             ("crx", b"", json.dumps(crx_test_records()[:40]).encode())]   # over --max-body

    async def both():
        out = []
        for name, query, body in cases:
            path = f"/v1/models/{name}/decide"
            out.append((await _request(app, "POST", path, query, body), await _request(app.fastapi, "POST", path, query, body)))
        return out
    answered = asyncio.run(_lifespan(app, both))
    statuses = []
    for (fast, slow), (name, query, body) in zip(answered, cases):
        same_id = re.compile(rb'"request_id":"[0-9a-f]{32}"')
        assert fast[0] == slow[0] and same_id.sub(b"", fast[2]) == same_id.sub(b"", slow[2]), (query, body, fast, slow)
        assert fast[1]["content-type"] == slow[1]["content-type"] == "application/json"
        assert int(fast[1]["content-length"]) == len(fast[2])
        # a decision's X-Request-ID is its audit key; every other answer has one made for the logs
        decided_id = json.loads(fast[2]).get("request_id")
        assert fast[1]["x-request-id"] == decided_id if decided_id else re.fullmatch("[0-9a-f]{32}", fast[1]["x-request-id"])
        statuses.append(fast[0])
    assert statuses == [200, 200, 200, 422, 422, 422, 404, 400, 422, 422, 422, 413]
    # the answer's bytes: the JSON the service always wrote, keys in the same order
    one = json.loads(answered[0][0][2])
    assert list(one) == ["model", "fingerprint", "request_id", "class", "rule_id", "confidence"]
    assert answered[0][0][2] == _dumps(one).encode()
    many = json.loads(answered[1][0][2])
    assert [list(d) for d in many["decisions"]] == [["class", "rule_id", "confidence", "explanation"]] * 6
    assert answered[1][0][2] == _dumps(many).encode()
    assert [d["rule_id"] for d in many["decisions"]] == [int(r) for r in rs.predict_rule(
        __import__("pandas").DataFrame(records))]
    # every 200 is in the audit, once; nothing refused is
    files = open_audit(f"sqlite:{tmp_path / 'audit.sqlite'}")
    logged = [d.request_id for d in files.decisions()]
    files.close()
    assert len(logged) == 2 * (1 + 6 + 3) and len(set(logged)) == 2 * 3


@pytest.mark.parametrize("text", ["1", "0", "true", "False", "YES", "no", "on", "OFF", "t", "F", "y", "N", "",
                                  "2", "truth", " true", "true ", "nope"])
def test_explain_is_read_as_pydantic_reads_a_bool(text):
    from pydantic import TypeAdapter, ValidationError
    try:
        expected = TypeAdapter(bool).validate_python(text)
    except ValidationError:
        expected = None
    try:
        got = explain_flag(b"explain=" + text.encode())
    except ClientError as e:
        assert e.status == 422 and e.field == "explain"
        got = None
    assert got == expected
    assert explain_flag(b"other=1") is False


def test_a_failing_store_answers_503_and_no_decision(models, tmp_path):
    import sqlite3
    app = create_app(ServiceConfig(str(models), f"sqlite:{tmp_path / 'audit.sqlite'}"))
    record = json.dumps(crx_test_records()[0]).encode()

    async def work():
        ok = await _request(app, "POST", "/v1/models/crx/decide", b"", record)
        with sqlite3.connect(tmp_path / "audit.sqlite") as db:   # the worker's file loses its table
            db.execute("DROP TABLE c45rules_requests")
        return ok, await _request(app, "POST", "/v1/models/crx/decide", b"", record)
    ok, failed = asyncio.run(_lifespan(app, work))
    assert ok[0] == 200 and "x-request-id" in ok[1]
    assert failed[0] == 503 and failed[1]["x-request-id"] != ok[1]["x-request-id"]   # the log's id, not an audit key
    assert json.loads(failed[2]) == {"error": "the audit store could not record the decision; nothing was decided",
                                     "field": None}
