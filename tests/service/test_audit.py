"""The audit stores in-process: group commits, failures reported to every waiting request,
the times --since reads, and the SQLite options."""
from __future__ import annotations

import sqlite3
import threading

import pytest

from c45rules.errors import InputError
from c45rules.service.audit import AuditWriter, open_store, parse_since


def _row(request: str, seq: int) -> tuple:
    return ("2026-01-01T00:00:00.000000Z", request, seq, "m", "sha256:x", "{}", "+", 1, 0.5)


def test_group_commit_stores_every_row_and_reports_each(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'a.sqlite'}")
    writer = AuditWriter(store)
    results: list = []
    done = threading.Event()

    def report(error):
        results.append(error)
        if len(results) == 200:
            done.set()
    threads = [threading.Thread(target=lambda k=k: [writer.submit([_row(f"r{k}-{i}", 0), _row(f"r{k}-{i}", 1)], report)
                                                     for i in range(50)]) for k in range(4)]
    for t in threads:
        t.start()
    assert done.wait(30)
    writer.close()
    assert results == [None] * 200
    with sqlite3.connect(tmp_path / "a.sqlite") as db:
        assert db.execute("SELECT count(*), count(DISTINCT request_id) FROM c45rules_decisions").fetchone() == (400, 200)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_failed_commit_is_reported_and_nothing_half_written(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'a.sqlite'}")
    store.append([_row("dup", 0)])
    writer = AuditWriter(store)
    got = []
    event = threading.Event()
    writer.submit([_row("new", 0), _row("dup", 0)], lambda e: (got.append(e), event.set()))   # a key stored already
    assert event.wait(30)
    writer.close()
    assert isinstance(got[0], sqlite3.IntegrityError)
    with sqlite3.connect(tmp_path / "a.sqlite") as db:
        assert db.execute("SELECT request_id FROM c45rules_decisions").fetchall() == [("dup",)]


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
