"""`c45rules audit` exports every record whatever it holds: hostile values a client sent through
the real app (lone surrogates, NUL and control characters, very long and deeply nested values,
bodies in UTF-16 or with a BOM), and hostile values in the fields the service writes (model,
class, request id, time; bytes that are not UTF-8 in a SQLite text column). Each --json line is
ASCII JSON that parses back to the stored values; the plain listing keeps one line a decision."""
from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from c45rules.service.app import ServiceConfig, create_app
from c45rules.service.audit import open_store, outcome_texts, request_row

from e2e.conftest import ok
from .conftest import crx_test_records
from .test_app import _lifespan, _request

HOSTILE = ["\ud800", "\udfff", "x\udcff", "\ud83d", "\u0000", "a\u0000b", "\u0001\u001f\n\r\t\b\f\u001b[31m",
           "\u007f\u0085\u009f", "\u2028\u2029", "\ufeff", "\uffff\ufffe", "\U0001f600", "\u202egnp.exe",
           "\"\\/", "", " ", "é" * 1000, "x" * 1_000_000 + "\ud800"]


def _hostile_bodies() -> list[bytes]:
    """Decide bodies as a client may send them, each accepted by the service."""
    base = crx_test_records()[0]
    bodies = [json.dumps({**base, "value": v, v: "key"}).encode() for v in HOSTILE]
    bodies.append(json.dumps([{**base, f"k{i}": v} for i, v in enumerate(HOSTILE[:-1])]).encode())
    # values of attributes the rules test: not seen in training, so decided as unseen
    bodies.append(json.dumps({**base, "A4": "u\u0000\n", "A9": "\U0001f600"}).encode())
    bodies.append(json.dumps({**base, "x": "\ud800"}).encode("utf-16"))             # read as json.loads reads bytes
    bodies.append(b"\xef\xbb\xbf" + json.dumps({**base, "x": "bom"}).encode())
    bodies.append(json.dumps(base)[:-1].encode() + b', "raw": "\xed\xa0\x80\xc3\xa9"}')   # UTF-8 of a surrogate
    return bodies


def _records(body: bytes) -> list:
    payload = json.loads(body)
    return [payload] if isinstance(payload, dict) else payload


def _audit_lines(store: str, *args: str) -> list[str]:
    p = ok("audit", store, *args)
    assert p.stdout.isascii() and p.stderr == ""
    return p.stdout.splitlines()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_every_hostile_record_a_client_sent_comes_out(backend, models, tmp_path, request):
    store = f"sqlite:{tmp_path / 'audit.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    app = create_app(ServiceConfig(str(models), store))
    bodies = _hostile_bodies()

    async def work():
        answers = [await _request(app, "POST", "/v1/models/crx/decide", b"", body) for body in bodies]
        # the deepest nesting the service accepts is stored too, and must come out
        base = json.dumps(crx_test_records()[0])[:-1]
        for depth in range(1000, 100, -20):
            deep = f'{base}, "deep": {"[" * depth}{"]" * depth}}}'.encode()
            status, _, _ = await _request(app, "POST", "/v1/models/crx/decide", b"", deep)
            if status == 200:
                return answers, deep
        raise AssertionError("no nesting accepted")
    answers, deep = asyncio.run(_lifespan(app, work))
    assert [a[0] for a in answers] == [200] * len(bodies), [a[2][:200] for a in answers if a[0] != 200]
    bodies.append(deep)
    sent = [r for body in bodies for r in _records(body)]

    lines = _audit_lines(store, "--json")
    got = [json.loads(line) for line in lines]
    assert len(got) == len(sent)
    # oldest first: the records come back as the client sent them, lone surrogates included
    assert [d["record"] for d in got] == sent
    assert '"value": "\\ud800"' in lines[0] and '"\\u0000": "key"' in lines[4]
    assert all(d["model"] == "crx" and d["class"] in ("+", "-") for d in got)
    # the plain listing: one line a decision, ASCII escapes where a text is not printable
    plain = _audit_lines(store)
    assert len(plain) == len(sent) and '"value":"\\ud800"' in plain[0]
    # replay re-decides every record, the hostile ones included
    p = ok("audit", store, "--replay")
    assert f"replayed {len(sent)} decisions of 1 model version: 0 differ" in p.stderr


def test_hostile_values_the_service_writes_come_out(tmp_path):
    path = tmp_path / "audit.sqlite"
    store = open_store(f"sqlite:{path}")
    texts = ["cr\u0000x\n", "\ud800", "\U0001f600 \u2028", "\x1b[2J"]
    outcomes = outcome_texts(texts, [0, 1, 2, 3], [0.5, 0.25, 0.125, 1.0])
    store.append([request_row(rid, "2026-01-01T00:00:0%d.000000Z" % i, model, "sha256:" + model, body, [i], outcomes)
                  for i, (rid, model, body) in enumerate([("id\u0000\n", "m\t1", b'{"a": "\\u0000"}'),
                                                           ("\u2028", "m\u0085", b'{"\\udfff": 1}'),
                                                           ("r" * 100_000, "m" * 10_000, b"{}"),
                                                           ("bytes", "x", b'{"b": 2}')])])
    store.close()
    with sqlite3.connect(path) as db:   # text columns holding bytes that are not UTF-8 (another program's)
        db.execute("UPDATE c45rules_requests SET model = CAST(x'63ff72c3' AS TEXT),"
                   " time = CAST(x'32303236fe' AS TEXT) WHERE request_id = 'bytes'")
    got = [json.loads(line) for line in _audit_lines(f"sqlite:{path}", "--json")]
    assert [(d["request_id"], d["model"], d["class"], d["record"]) for d in got] == [
        ("id\u0000\n", "m\t1", "cr\u0000x\n", {"a": "\u0000"}),
        ("\u2028", "m\u0085", "\ud800", {"\udfff": 1}),
        ("r" * 100_000, "m" * 10_000, "\U0001f600 \u2028", {}),
        ("bytes", "c\udcffr\udcc3", "\x1b[2J", {"b": 2})]   # byte ff: \udcff; a lone lead byte c3: \udcc3
    assert got[3]["time"] == "2026\udcfe"
    plain = _audit_lines(f"sqlite:{path}")
    assert len(plain) == 4
    assert plain[0].startswith('2026-01-01T00:00:00.000000Z  "m\\t1"  "sha256:m\\t1"  "id\\u0000\\n"/0  class "cr\\u0000x\\n"')
    assert plain[3].startswith('"2026\\udcfe"  "c\\udcffr\\udcc3"')
