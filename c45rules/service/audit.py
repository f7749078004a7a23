"""The audit trail: every decision the service returned, and every model version it served.

Two tables, in SQLite (`sqlite:PATH`, the default) or PostgreSQL (`postgresql://...`):

    c45rules_models     fingerprint (sha256 of the model file's bytes), name, yaml, first_seen
    c45rules_decisions  request_id, seq (the record's place in its request), time (UTC,
                        ISO 8601 with microseconds), model, fingerprint, record (JSON, ASCII),
                        class, rule_id (0: the default class), confidence

A model version is stored before any decision it makes, so `audit --replay` can re-decide
every logged record with the very model that decided it, whatever the folder holds now.
Times are fixed-width text, so comparing texts compares times in both databases.

Durability: a decision is answered only after the transaction holding its row committed
(AuditWriter groups the rows of concurrent requests into one commit). SQLite runs in WAL mode
with a busy timeout, so the service's worker processes share one file; each commit is synced
to the disk (synchronous=FULL) unless the URL says `?synchronous=normal`, which keeps every
commit through a crash or kill of the service (the WAL is written before the answer) but
not through a power cut, for a fraction of the cost per commit.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError

DEFAULT_STORE = "sqlite:c45rules-audit.sqlite"
BUSY_TIMEOUT_MS = 30_000
_GROUP_ROWS = 50_000        # rows one commit takes at most (a few 10,000-record batches)

_MODELS = ("CREATE TABLE IF NOT EXISTS c45rules_models (fingerprint TEXT PRIMARY KEY, name TEXT NOT NULL,"
           " yaml TEXT NOT NULL, first_seen TEXT NOT NULL)")
_DECISIONS = ("CREATE TABLE IF NOT EXISTS c45rules_decisions (request_id TEXT NOT NULL, seq INTEGER NOT NULL,"
              " time TEXT NOT NULL, model TEXT NOT NULL, fingerprint TEXT NOT NULL, record TEXT NOT NULL,"
              " class TEXT NOT NULL, rule_id INTEGER NOT NULL, confidence DOUBLE PRECISION NOT NULL,"
              " PRIMARY KEY (request_id, seq))")
_INDEX = "CREATE INDEX IF NOT EXISTS c45rules_decisions_time ON c45rules_decisions (time)"
_COLUMNS = "time, request_id, seq, model, fingerprint, record, class, rule_id, confidence"


def now() -> str:
    """The current UTC time as the store writes it (fixed width, so texts sort as times)."""
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_since(text: str) -> str:
    """A date or time given by a person (ISO 8601; no zone = UTC) as the store's time text."""
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"--since: {text!r} is not an ISO 8601 date or time"
                         " (e.g. 2026-03-01 or 2026-03-01T14:30:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def model_fingerprint(data: bytes) -> str:
    """The fingerprint of a model version: sha256 of its file's bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def record_json(record: Any) -> str:
    """A record as the store keeps it: JSON in ASCII (a lone surrogate escaped, not refused)."""
    return json.dumps(record, ensure_ascii=True, separators=(",", ":"))


@dataclass(frozen=True)
class Decision:
    """One logged decision (a row of c45rules_decisions)."""

    time: str
    request_id: str
    seq: int
    model: str
    fingerprint: str
    record: str
    klass: str
    rule_id: int
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON takes it (the record parsed back)."""
        return {"time": self.time, "request_id": self.request_id, "seq": self.seq, "model": self.model,
                "fingerprint": self.fingerprint, "record": json.loads(self.record), "class": self.klass,
                "rule_id": self.rule_id, "confidence": self.confidence}


class AuditStore:
    """An open audit store (SQLite or PostgreSQL: only the connection and the placeholder differ)."""

    def __init__(self, connection: Any, placeholder: str, url: str) -> None:
        self._db = connection
        self._p = placeholder
        self.url = url

    def _sql(self, text: str) -> str:
        return text.replace("?", self._p)

    def create(self) -> None:
        """Create the tables when missing."""
        with self._transaction() as cur:
            if self._p == "%s":   # two workers creating at once would race in PostgreSQL's catalog
                cur.execute("SELECT pg_advisory_xact_lock(4545004501)")
            for statement in (_MODELS, _DECISIONS, _INDEX):
                cur.execute(statement)

    def _transaction(self):
        store = self

        class _Tx:
            def __enter__(self):
                self.cur = store._db.cursor()
                if store._p == "?":
                    self.cur.execute("BEGIN IMMEDIATE")   # take the write lock now: no upgrade deadlock
                return self.cur

            def __exit__(self, kind, error, tb):
                if kind is None:
                    store._db.commit() if store._p == "%s" else self.cur.execute("COMMIT")
                else:
                    store._db.rollback()
                self.cur.close()
                return False
        return _Tx()

    def remember_model(self, name: str, fingerprint: str, text: str) -> None:
        """Keep a model version's YAML (once per fingerprint), before it decides anything."""
        with self._transaction() as cur:
            cur.execute(self._sql("INSERT INTO c45rules_models (fingerprint, name, yaml, first_seen)"
                                  " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"),
                        (fingerprint, name, text, now()))

    def append(self, rows: Sequence[tuple]) -> None:
        """Insert decision rows (in _COLUMNS order) in one transaction, committed on return."""
        with self._transaction() as cur:
            cur.executemany(self._sql(f"INSERT INTO c45rules_decisions ({_COLUMNS})"
                                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"), rows)

    def model_text(self, fingerprint: str) -> str | None:
        """The YAML of a logged model version, or None."""
        cur = self._db.cursor()
        cur.execute(self._sql("SELECT yaml FROM c45rules_models WHERE fingerprint = ?"), (fingerprint,))
        row = cur.fetchone()
        cur.close()
        return None if row is None else row[0]

    def decisions(self, model: str | None = None, since: str | None = None, rule: int | None = None,
                  limit: int | None = None) -> Iterator[Decision]:
        """The logged decisions, oldest first, filtered by model name, time and rule id."""
        where, args = [], []
        for column, value in (("model = ?", model), ("time >= ?", since), ("rule_id = ?", rule)):
            if value is not None:
                where.append(column)
                args.append(value)
        text = f"SELECT {_COLUMNS} FROM c45rules_decisions"
        if where:
            text += " WHERE " + " AND ".join(where)
        text += " ORDER BY time, request_id, seq"
        if limit is not None:
            text += f" LIMIT {int(limit)}"
        cur = self._db.cursor()
        try:
            cur.execute(self._sql(text), args)
            while batch := cur.fetchmany(1000):
                for row in batch:
                    yield Decision(*row)
        finally:
            cur.close()

    def close(self) -> None:
        """Close the connection."""
        self._db.close()


def open_store(url: str, *, create: bool = True) -> AuditStore:
    """The audit store at `url`: 'sqlite:PATH' (or a plain path) or 'postgresql://...'.

    With `create` the tables are made when missing; without it (queries) a store that does
    not exist is an InputError rather than a new empty file.
    """
    if url.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg
        except ImportError:
            raise InputError("a PostgreSQL audit store needs psycopg: pip install 'c45rules[postgres]'") from None
        try:
            connection = psycopg.connect(url)
        except psycopg.Error as e:
            raise InputError(f"audit store: cannot connect to PostgreSQL ({' '.join(str(e).split())})") from None
        store = AuditStore(connection, "%s", url)
    else:
        location, _, query = (url[len("sqlite:"):] if url.startswith("sqlite:") else url).partition("?")
        path = Path(location)
        synchronous = "FULL"
        if query:
            key, _, value = query.partition("=")
            if key != "synchronous" or value.upper() not in ("FULL", "NORMAL"):
                raise InputError(f"audit store {url!r}: the one option is ?synchronous=full (the default:"
                                 " each commit reaches the disk) or ?synchronous=normal (survives a crash of the"
                                 " service, not of the machine)")
            synchronous = value.upper()
        if not location:
            raise InputError("audit store: 'sqlite:' needs a file path, e.g. sqlite:audit.sqlite")
        if not create and not path.is_file():
            raise InputError(f"{path}: no audit store there (file not found)")
        try:
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                         check_same_thread=False)
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if create:
                connection.execute("PRAGMA journal_mode = WAL")
            connection.execute(f"PRAGMA synchronous = {synchronous}")
        except sqlite3.Error as e:
            raise InputError(f"{path}: cannot open the audit store ({e})") from None
        store = AuditStore(connection, "?", url)
    try:
        if create:
            store.create()
        else:
            store.model_text("")   # a file that is not an audit store fails here, not mid-query
    except (sqlite3.Error, Exception) as e:
        if isinstance(e, InputError):
            raise
        store.close()
        raise InputError(f"{url}: not a usable audit store ({' '.join(str(e).split())})") from None
    return store


class AuditWriter:
    """Group commit: rows of concurrent requests are appended together by one thread.

    `submit(rows, done)` queues the rows; `done(None)` is called once they are committed, or
    `done(error)` if the transaction failed (the caller then must not answer the decision).
    """

    def __init__(self, store: AuditStore) -> None:
        self.store = store
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="c45rules-audit", daemon=True)
        self._thread.start()

    def submit(self, rows: Sequence[tuple], done: Callable[[BaseException | None], None]) -> None:
        """Queue `rows` for the next commit; `done` is called from the writer thread."""
        self._queue.put((rows, done))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            group, n = [item], len(item[0])
            while n < _GROUP_ROWS:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                group.append(more)
                n += len(more[0])
            try:
                self.store.append([row for rows, _ in group for row in rows])
                error = None
            except Exception as e:  # noqa: BLE001 - reported to every waiting request
                error = e
            for _, done in group:
                try:
                    done(error)
                except Exception:  # noqa: BLE001 - e.g. its event loop closed: the others still wait
                    pass

    def close(self) -> None:
        """Commit what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout=30)
