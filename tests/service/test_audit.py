"""The audit stores in-process: request rows (schema 2) read back as decisions, group commits,
failures reported to every waiting request, version 1 stores still read, per-worker files,
the times --since reads, and the SQLite options."""
from __future__ import annotations

import json
import sqlite3
import threading
import zlib

import numpy as np
import pytest

from c45rules.errors import InputError
from c45rules.service.audit import AuditWriter, open_store, outcome_texts, parse_since, request_row
from c45rules.service.workerfiles import WorkerSlot, open_audit, worker_files

OUTCOMES = outcome_texts(["-", "+", "-", "+"], [0, 3, 7, 9], [0.5, 0.9, 0.75, 0.6])
T0 = "2026-01-01T00:00:00.000000Z"


def _row(request: str, positions=(1,), time: str = T0, body: bytes | None = None) -> tuple:
    if body is None:
        records = [{"x": i, "name": f"r{i}"} for i in range(len(positions))]
        body = json.dumps(records[0] if len(positions) == 1 else records).encode()
    return request_row(request, time, "m", "sha256:x", body, list(positions), OUTCOMES)


def test_a_request_row_reads_back_as_its_decisions(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'a.sqlite'}")
    body = json.dumps([{"x": 1.5, "t": "é"}, {"x": None}, {"y": [1, 2]}, {}, {"x": 2}]).encode("utf-8")
    store.append([_row("many", [3, 1, 1, 0, 3], body=body), _row("one", [2], time="2026-01-01T00:00:01.000000Z",
                                                                body=b' {"x": "\\ud800"} ')])
    got = [(d.request_id, d.seq, json.loads(d.record), d.klass, d.rule_id, d.confidence) for d in store.decisions()]
    assert got == [("many", 0, {"x": 1.5, "t": "é"}, "+", 9, 0.6), ("many", 1, {"x": None}, "+", 3, 0.9),
                   ("many", 2, {"y": [1, 2]}, "+", 3, 0.9), ("many", 3, {}, "-", 0, 0.5),
                   ("many", 4, {"x": 2}, "+", 9, 0.6), ("one", 0, {"x": "\ud800"}, "-", 7, 0.75)]
    assert [d.record for d in store.decisions(rule=3)] == ['{"y":[1,2]}', '{"x":null}'][::-1]
    assert [d.seq for d in store.decisions(limit=2)] == [0, 1]
    assert [d.request_id for d in store.decisions(since="2026-01-01T00:00:00.500000Z")] == ["one"]
    with sqlite3.connect(tmp_path / "a.sqlite") as db:
        (n, records, outcomes, picks), = db.execute("SELECT n, records, outcomes, picks FROM c45rules_requests"
                                                    " WHERE request_id = 'many'")
        assert db.execute("SELECT version FROM c45rules_schema").fetchall() == [(2,)]
    # one row per request: the body as received, the distinct outcomes once, a uint32 pick per record
    assert n == 5 and zlib.decompress(records) == body
    assert json.loads(outcomes) == [["-", 0, 0.5], ["+", 3, 0.9], ["+", 9, 0.6]]
    assert np.frombuffer(zlib.decompress(picks), "<u4").tolist() == [2, 1, 1, 0, 2]


def test_group_commit_stores_every_row_and_reports_each(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'a.sqlite'}")
    writer = AuditWriter(store)
    results: list = []
    done = threading.Event()

    def report(error):
        results.append(error)
        if len(results) == 200:
            done.set()
    threads = [threading.Thread(target=lambda k=k: [writer.submit([_row(f"r{k}-{i}", [1, 2])], report)
                                                     for i in range(50)]) for k in range(4)]
    for t in threads:
        t.start()
    assert done.wait(30)
    writer.close()
    assert results == [None] * 200
    with sqlite3.connect(tmp_path / "a.sqlite") as db:
        assert db.execute("SELECT count(*), sum(n) FROM c45rules_requests").fetchone() == (200, 400)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert len(list(open_store(f"sqlite:{tmp_path / 'a.sqlite'}", create=False).decisions())) == 400


def test_a_failed_commit_is_reported_and_nothing_half_written(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'a.sqlite'}")
    store.append([_row("dup")])
    writer = AuditWriter(store)
    got = []
    event = threading.Event()
    writer.submit([_row("new"), _row("dup")], lambda e: (got.append(e), event.set()))   # a key stored already
    assert event.wait(30)
    writer.close()
    assert isinstance(got[0], sqlite3.IntegrityError)
    with sqlite3.connect(tmp_path / "a.sqlite") as db:
        assert db.execute("SELECT request_id FROM c45rules_requests").fetchall() == [("dup",)]


def test_a_version_1_store_is_read_and_upgraded_and_a_later_one_refused(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:   # the tables as version 1 made them
        db.execute("CREATE TABLE c45rules_models (fingerprint TEXT PRIMARY KEY, name TEXT NOT NULL,"
                   " yaml TEXT NOT NULL, first_seen TEXT NOT NULL)")
        db.execute("CREATE TABLE c45rules_decisions (request_id TEXT NOT NULL, seq INTEGER NOT NULL, time TEXT NOT NULL,"
                   " model TEXT NOT NULL, fingerprint TEXT NOT NULL, record TEXT NOT NULL, class TEXT NOT NULL,"
                   " rule_id INTEGER NOT NULL, confidence DOUBLE PRECISION NOT NULL, PRIMARY KEY (request_id, seq))")
        db.executemany("INSERT INTO c45rules_decisions VALUES (?, ?, ?, 'm', 'sha256:x', ?, ?, ?, ?)",
                       [("v1a", 0, "2026-01-01T00:00:00.500000Z", '{"x":1}', "+", 3, 0.9),
                        ("v1a", 1, "2026-01-01T00:00:00.500000Z", '{"x":2}', "-", 0, 0.5)])
    reader = open_store(f"sqlite:{path}", create=False)
    assert reader.version == 1 and [d.rule_id for d in reader.decisions()] == [3, 0]
    reader.close()
    writer = open_store(f"sqlite:{path}")   # the service opens it: version 2 tables beside the old rows
    writer.append([_row("v2a", [2]), _row("v2b", [1, 3], time="2026-01-01T00:00:01.000000Z")])
    order = [(d.request_id, d.seq, d.rule_id) for d in writer.decisions()]
    assert order == [("v2a", 0, 7), ("v1a", 0, 3), ("v1a", 1, 0), ("v2b", 0, 3), ("v2b", 1, 9)]
    assert [(d.request_id, d.seq) for d in writer.decisions(rule=3)] == [("v1a", 0), ("v2b", 0)]
    writer.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE c45rules_schema SET version = 3")
    for create in (True, False):
        with pytest.raises(InputError, match="schema version 3, written by a newer c45rules"):
            open_store(f"sqlite:{path}", create=create)


def test_each_worker_writes_its_own_file_and_audit_reads_them_all(tmp_path):
    url = f"sqlite:{tmp_path / 'audit.sqlite'}?synchronous=normal"
    first, second = WorkerSlot(url), WorkerSlot(url)
    assert (first.slot, second.slot) == (0, 1)
    assert first.url == url and second.url == f"sqlite:{tmp_path / 'audit.sqlite-1'}?synchronous=normal"
    for slot, times in ((first, ["00", "02"]), (second, ["01", "03"])):
        store = open_store(slot.url)
        store.remember_model("m", f"sha256:{slot.slot}", f"yaml {slot.slot}")
        store.append([_row(f"w{slot.slot}-{t}", [slot.slot + 1], time=f"2026-01-01T00:00:{t}.000000Z") for t in times])
        store.close()
    second.release()
    assert WorkerSlot(url).slot == 1   # a released slot is taken again: the files stay few
    assert [p.name for p in worker_files(tmp_path / "audit.sqlite")] == ["audit.sqlite", "audit.sqlite-1"]
    files = open_audit(url)
    assert [d.request_id for d in files.decisions()] == ["w0-00", "w1-01", "w0-02", "w1-03"]
    assert [d.request_id for d in files.decisions(limit=3, since=parse_since("2026-01-01T00:00:01Z"))] == ["w1-01", "w0-02", "w1-03"]
    assert files.model_text("sha256:1") == "yaml 1" and files.model_text("sha256:9") is None
    files.close()
    with pytest.raises(InputError, match="no audit store there"):
        open_audit(f"sqlite:{tmp_path / 'none.sqlite'}")


def test_a_damaged_row_is_named(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'a.sqlite'}")
    store.append([_row("bad", [1, 2])])
    store._db.execute("UPDATE c45rules_requests SET n = 3")
    with pytest.raises(InputError, match="the row of request bad is damaged .3 records announced, 2 stored"):
        list(store.decisions())


def test_since_and_store_options(tmp_path):
    assert parse_since("2026-03-01") == "2026-03-01T00:00:00.000000Z"
    assert parse_since("2026-03-01T14:30:00+02:00") == "2026-03-01T12:30:00.000000Z"
    assert parse_since("2026-03-01T14:30:00Z") == "2026-03-01T14:30:00.000000Z"
    with pytest.raises(InputError, match="not an ISO 8601"):
        parse_since("last week")
    with pytest.raises(InputError, match=r"\?synchronous=normal"):
        open_store(f"sqlite:{tmp_path / 'a.sqlite'}?sync=off")
    store = open_store(f"sqlite:{tmp_path / 'b.sqlite'}?synchronous=normal")
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 1   # NORMAL
    store.close()
    (tmp_path / "junk.sqlite").write_text("not a database")
    with pytest.raises(InputError, match="junk.sqlite: cannot open the audit store .file is not a database"):
        open_store(f"sqlite:{tmp_path / 'junk.sqlite'}", create=False)
    sqlite3.connect(tmp_path / "other.sqlite").execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match="not an audit store .no c45rules_models table"):
        open_store(f"sqlite:{tmp_path / 'other.sqlite'}", create=False)
