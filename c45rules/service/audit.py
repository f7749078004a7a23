"""The audit trail: every decision the service returned, and every model version it served.

In SQLite (`sqlite:PATH`, the default) or PostgreSQL (`postgresql://...`), schema version 2:

    c45rules_schema     version (2)
    c45rules_models     fingerprint (sha256 of the model file's bytes), name, yaml, first_seen
    c45rules_requests   one row per answered request: request_id, time (UTC, ISO 8601 with
                        microseconds), model, fingerprint, n (its records), records (the request
                        body as received, zlib-compressed: one JSON object or a list of them),
                        outcomes (JSON [[class, rule_id, confidence], ...], the request's distinct
                        decisions) and picks (for each record in order, its outcome's index:
                        little-endian uint32, zlib-compressed); a regression model's outcome
                        is the object {"value", "rules": [[committee, rule_id, value], ...]}
                        (service/numbers.py), one per record
    c45rules_shadow     one row per request a challenger model also decided (`serve --shadow`):
                        request_id (the c45rules_requests row it shadows), fingerprint (the
                        challenger's version), outcomes and picks (as in c45rules_requests: the
                        challenger's class, rule and confidence for each record), written in the
                        same transaction as the request's row

A request of 10,000 records is one row, not 10,000, and its records are not re-encoded:
that keeps the audit's cost per record far below the decision's. Reading expands each row
back into one Decision per record (seq: the record's place in its request). A version 1
store (one c45rules_decisions row per decision, no c45rules_schema) stays readable: its rows
are read beside any version 2 rows, and the service adds the version 2 tables when it opens
it. A store of a later version is refused rather than misread.

A model version is stored before any decision it makes, so `audit --replay` can re-decide
every logged record with the very model that decided it, whatever the folder holds now.
Times are fixed-width text, so comparing texts compares times in both databases.

Durability: a decision is answered only after the transaction holding its row committed
(AuditWriter groups the rows of concurrent requests into one commit). SQLite runs in WAL mode
with a busy timeout; each commit is synced to the disk (synchronous=FULL) unless the URL says
`?synchronous=normal`, which keeps every commit through a crash or kill of the service (the
WAL is written before the answer) but not through a power cut, for a fraction of the cost
per commit. Each worker process of the service writes its own SQLite file (see
service/workerfiles.py), so workers never wait on each other's write lock.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import heapq
import itertools
import json
import queue
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError

DEFAULT_STORE = "sqlite:c45rules-audit.sqlite"
BUSY_TIMEOUT_MS = 30_000
SCHEMA_VERSION = 2
_GROUP_RECORDS = 50_000     # records one commit takes at most (a few 10,000-record batches)
_ROWS_PER_INSERT = 1_000    # request rows one SQLite statement takes (8,000 parameters; SQLite allows 32,766)
_ZLIB_LEVEL = 1             # a 10,000-record body: 6 ms at level 1 against 19 ms at the default, 1.8x larger

_MODELS = ("CREATE TABLE IF NOT EXISTS c45rules_models (fingerprint TEXT PRIMARY KEY, name TEXT NOT NULL,"
           " yaml TEXT NOT NULL, first_seen TEXT NOT NULL)")
_SCHEMA = "CREATE TABLE IF NOT EXISTS c45rules_schema (version INTEGER NOT NULL)"
_REQUESTS = ("CREATE TABLE IF NOT EXISTS c45rules_requests (request_id TEXT PRIMARY KEY, time TEXT NOT NULL,"
             " model TEXT NOT NULL, fingerprint TEXT NOT NULL, n INTEGER NOT NULL, records {blob} NOT NULL,"
             " outcomes TEXT NOT NULL, picks {blob} NOT NULL)")
_SHADOW = ("CREATE TABLE IF NOT EXISTS c45rules_shadow (request_id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,"
           " outcomes TEXT NOT NULL, picks {blob} NOT NULL)")
_REQUESTS_INDEX = "CREATE INDEX IF NOT EXISTS c45rules_requests_time ON c45rules_requests (time)"
_REQUEST_COLUMNS = "request_id, time, model, fingerprint, n, records, outcomes, picks"
_V1_COLUMNS = "time, request_id, seq, model, fingerprint, record, class, rule_id, confidence"
_ONE_PICK = np.zeros(1, "<u4").tobytes()


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


def export_json(value: Any) -> str:
    """`value` as one line of JSON text in ASCII, for `audit`'s output: every stored value
    comes out, whatever it holds. Each code point beyond ASCII is a \\uXXXX escape (a
    character beyond U+FFFF a surrogate pair of them), so a lone surrogate a client sent
    comes out as the very escape it was sent as (\\ud800), and a byte of a SQLite text
    column that is not UTF-8 as \\udcXX (XX the byte, as Python's surrogateescape reads it);
    control characters, NUL included, are escaped as JSON escapes them. Any JSON parser reads
    the line back to the stored values."""
    return json.dumps(value, ensure_ascii=True)


def export_text(text: str) -> str:
    """A stored text as `audit`'s plain listing shows it on one line: as it is when every
    character is printable, else quoted and escaped as JSON writes it (export_json)."""
    return text if text.isprintable() else json.dumps(text, ensure_ascii=True)


def _lenient_text(data: bytes) -> str:
    # a SQLite text column may hold bytes that are not UTF-8 (written by another program):
    # read them as surrogateescape does, so that no stored value stops a query
    return data.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Decision:
    """One logged decision: one record of a request, as `audit` lists it."""

    time: str
    request_id: str
    seq: int
    model: str
    fingerprint: str
    record: str
    klass: str | None
    rule_id: int
    confidence: float | None
    value: float | None = None   # a regression model's number (klass and confidence None, rule_id 0)
    rules: tuple = ()            # and its fired rules: (committee, rule id, value) each

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON takes it (the record parsed back; a version 1 record that is not
        JSON, which only a damaged store holds, stays its text); a number's decision has
        "value" and "rules" ([[committee, rule_id, value], ...]) in place of class, rule_id
        and confidence."""
        try:
            record = json.loads(self.record)
        except ValueError:
            record = self.record
        head = {"time": self.time, "request_id": self.request_id, "seq": self.seq, "model": self.model,
                "fingerprint": self.fingerprint, "record": record}
        if self.value is not None:
            return {**head, "value": self.value, "rules": [list(r) for r in self.rules]}
        return {**head, "class": self.klass, "rule_id": self.rule_id, "confidence": self.confidence}

    def json_line(self) -> str:
        """The row as one line of JSON in ASCII, whatever it holds (see export_text)."""
        return export_json(self.as_dict())


def outcome_texts(classes: Sequence[str], rule_ids: Sequence[int], confidences: Sequence[float]) -> list[str]:
    """Each rule_index position's decision as the store's outcome entry: JSON [class, rule_id, confidence]."""
    return [json.dumps([str(c), int(r), float(p)], ensure_ascii=True, separators=(",", ":"))
            for c, r, p in zip(classes, rule_ids, confidences)]


def request_row(request_id: str, time: str, model: str, fingerprint: str, body: bytes,
                positions: Sequence[int] | np.ndarray, outcomes: Sequence[str]) -> tuple:
    """The c45rules_requests row of one answered request, before compression (AuditStore.append
    compresses): `body` as received (one JSON object or a list of them), `positions` its
    records' rule_index positions, `outcomes` each position's entry (outcome_texts)."""
    return (request_id, time, model, fingerprint, len(positions), body, *_legend_picks(positions, outcomes))


def shadow_row(request_id: str, fingerprint: str, positions: Sequence[int] | np.ndarray,
               outcomes: Sequence[str]) -> tuple:
    """The c45rules_shadow row of a request a challenger also decided (before compression):
    `positions` the challenger's rule_index positions of the request's records, `outcomes`
    each of its positions' entry (outcome_texts of the challenger)."""
    return (request_id, fingerprint, *_legend_picks(positions, outcomes))


def _legend_picks(positions: Sequence[int] | np.ndarray, outcomes: Sequence[str]) -> tuple[str, bytes]:
    """(the JSON list of the distinct outcomes, each record's index into it as uint32 bytes)."""
    if len(positions) == 1:
        return f"[{outcomes[int(positions[0])]}]", _ONE_PICK
    distinct, inverse = np.unique(np.asarray(positions), return_inverse=True)
    return "[" + ",".join(outcomes[k] for k in distinct.tolist()) + "]", inverse.astype("<u4").tobytes()


def picks_of(data: bytes) -> np.ndarray:
    """A stored `picks` column back as its uint32 indexes into the row's outcomes."""
    return np.frombuffer(zlib.decompress(data), "<u4")


def _compressed(row: tuple) -> tuple:
    # in the writer's thread, not the event loop's: zlib lets go of the GIL, and the event
    # loop's thread would then wait to take it back while the writer holds it
    request_id, time, model, fingerprint, n, body, legend, picks = row
    return (request_id, time, model, fingerprint, n, zlib.compress(body, _ZLIB_LEVEL), legend,
            zlib.compress(picks, _ZLIB_LEVEL))


def _expand(row: Sequence[Any]) -> list[Decision]:
    """The decisions of one c45rules_requests row, in the request's order."""
    request_id, time, model, fingerprint, n, records, outcomes, picks = row
    try:
        payload = json.loads(zlib.decompress(records))
        listed = [payload] if isinstance(payload, dict) else payload
        legend = json.loads(outcomes)
        chosen = picks_of(picks).tolist()
        if not (isinstance(listed, list) and len(listed) == len(chosen) == n):
            raise ValueError(f"{n} records announced, {len(listed)} stored, {len(chosen)} decisions")
        return [Decision(time, request_id, seq, model, fingerprint, record_json(record), *_outcome(legend[k]))
                for seq, (record, k) in enumerate(zip(listed, chosen))]
    except (ValueError, TypeError, IndexError, KeyError, zlib.error) as e:
        raise InputError(f"audit store: the row of request {request_id} is damaged ({e})") from None


def _outcome(entry: Any) -> tuple:
    """A stored outcome entry as Decision's fields from klass on: a class's [class, rule_id,
    confidence], or a number's {"value", "rules"}."""
    if isinstance(entry, dict):
        return None, 0, None, float(entry["value"]), tuple(tuple(r) for r in entry["rules"])
    return tuple(entry)


def _decided_by(d: Decision, rule: int) -> bool:
    """Whether rule `rule` decided it (a class rule's id; any committee's fired rule for a number)."""
    if d.value is not None:
        return any(r == rule for _, r, _ in d.rules)
    return d.rule_id == rule


def _order(d: Decision) -> tuple[str, str, int]:
    return d.time, d.request_id, d.seq


def merge_decisions(streams: Iterable[Iterable[Decision]], limit: int | None = None) -> Iterator[Decision]:
    """Sorted streams of decisions as one, oldest first (time, then request id and seq)."""
    merged = heapq.merge(*streams, key=_order)
    return merged if limit is None else itertools.islice(merged, limit)


class AuditStore:
    """An open audit store (SQLite or PostgreSQL: only the connection and the placeholder differ)."""

    def __init__(self, connection: Any, placeholder: str, url: str) -> None:
        self._db = connection
        self._p = placeholder
        self.url = url
        self.version = SCHEMA_VERSION
        self._v1 = False   # holds version 1 rows (c45rules_decisions)
        self._v2 = True    # holds the version 2 table (c45rules_requests)
        self._shadow = True   # holds c45rules_shadow (a store made before `serve --shadow` may not)

    def _sql(self, text: str) -> str:
        return text.replace("?", self._p)

    def _tables(self) -> set[str]:
        cur = self._db.cursor()
        if self._p == "?":
            cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        names = {row[0] for row in cur.fetchall()}
        cur.close()
        if self._p == "%s":
            self._db.commit()   # leave no transaction open on a connection that may wait a while
        return names

    def _read_version(self, cur: Any, tables: set[str]) -> int:
        """The store's schema version: c45rules_schema's, or 1 for a store made before it existed."""
        if "c45rules_schema" not in tables:
            return 1
        cur.execute("SELECT max(version) FROM c45rules_schema")
        version = cur.fetchone()[0]
        return 1 if version is None else int(version)

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise InputError(f"{self.url}: an audit store of schema version {version}, written by a newer"
                             f" c45rules; this one reads versions 1 to {SCHEMA_VERSION}")

    def create(self) -> None:
        """Create the tables when missing (a version 1 store gains the version 2 tables, its rows kept)."""
        with self._transaction() as cur:
            if self._p == "%s":   # two workers creating at once would race in PostgreSQL's catalog
                cur.execute("SELECT pg_advisory_xact_lock(4545004501)")
            blob = "BLOB" if self._p == "?" else "BYTEA"
            for statement in (_MODELS, _SCHEMA, _REQUESTS.format(blob=blob), _SHADOW.format(blob=blob), _REQUESTS_INDEX):
                cur.execute(statement)
            cur.execute("SELECT max(version) FROM c45rules_schema")
            version = cur.fetchone()[0]
            if version is None:
                cur.execute(self._sql("INSERT INTO c45rules_schema (version) VALUES (?)"), (SCHEMA_VERSION,))
            else:
                self._check_version(int(version))
        self._v1 = "c45rules_decisions" in self._tables()

    def check(self) -> None:
        """Check an existing store: its tables are there and its version is one this reads."""
        tables = self._tables()
        if "c45rules_models" not in tables:
            raise InputError(f"{self.url}: not an audit store (no c45rules_models table)")
        cur = self._db.cursor()
        try:
            self.version = self._read_version(cur, tables)
        finally:
            cur.close()
        self._check_version(self.version)
        self._v1 = "c45rules_decisions" in tables
        self._v2 = "c45rules_requests" in tables
        self._shadow = self._v2 and "c45rules_shadow" in tables

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

    def append(self, rows: Sequence[tuple], shadows: Sequence[tuple] = ()) -> None:
        """Insert request rows (request_row's) and the challengers' rows of some of them
        (shadow_row's) in one transaction, committed on return."""
        insert = f"INSERT INTO c45rules_requests ({_REQUEST_COLUMNS}) VALUES "
        if self._p == "?" and len(rows) <= _ROWS_PER_INSERT and not shadows:
            # one SQLite statement outside BEGIN ... COMMIT is a transaction of its own, in two
            # calls into SQLite instead of six: at each, the writer thread waits for the GIL while
            # the event loop's thread holds it (up to the switch interval), and the answers wait too
            cur = self._db.cursor()
            try:
                cur.execute(insert + ",".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows)),
                            [value for row in rows for value in _compressed(row)])
            finally:
                cur.close()
            return
        with self._transaction() as cur:
            cur.executemany(self._sql(insert + "(?, ?, ?, ?, ?, ?, ?, ?)"), [_compressed(row) for row in rows])
            if shadows:
                cur.executemany(self._sql("INSERT INTO c45rules_shadow (request_id, fingerprint, outcomes, picks)"
                                          " VALUES (?, ?, ?, ?)"),
                                [(r, f, legend, zlib.compress(picks, _ZLIB_LEVEL)) for r, f, legend, picks in shadows])

    def shadowed(self, model: str | None = None, since: str | None = None) -> Iterator[tuple]:
        """The requests a challenger also decided, oldest first: (model, champion fingerprint,
        champion outcomes, champion picks, challenger fingerprint, challenger outcomes,
        challenger picks), outcomes as stored (JSON text), picks compressed (picks_of reads them)."""
        if not self._shadow:
            return iter(())
        where, args = [], []
        for column, value in (("r.model = ?", model), ("r.time >= ?", since)):
            if value is not None:
                where.append(column)
                args.append(value)
        text = ("SELECT r.model, r.fingerprint, r.outcomes, r.picks, s.fingerprint, s.outcomes, s.picks"
                " FROM c45rules_requests r JOIN c45rules_shadow s ON s.request_id = r.request_id")
        text += (" WHERE " + " AND ".join(where)) if where else ""
        return self._rows(text + " ORDER BY r.time, r.request_id", args)

    def model_text(self, fingerprint: str) -> str | None:
        """The YAML of a logged model version, or None."""
        cur = self._db.cursor()
        cur.execute(self._sql("SELECT yaml FROM c45rules_models WHERE fingerprint = ?"), (fingerprint,))
        row = cur.fetchone()
        cur.close()
        return None if row is None else row[0]

    def _rows(self, text: str, args: Sequence[Any]) -> Iterator[tuple]:
        cur = self._db.cursor()
        try:
            cur.execute(self._sql(text), args)
            while batch := cur.fetchmany(1000):
                yield from batch
        finally:
            cur.close()

    def decisions(self, model: str | None = None, since: str | None = None, rule: int | None = None,
                  limit: int | None = None) -> Iterator[Decision]:
        """The logged decisions, oldest first, filtered by model name, time and rule id."""
        where, args = [], []
        for column, value in (("model = ?", model), ("time >= ?", since)):
            if value is not None:
                where.append(column)
                args.append(value)
        streams = []
        if self._v2:
            text = f"SELECT {_REQUEST_COLUMNS} FROM c45rules_requests"
            text += (" WHERE " + " AND ".join(where)) if where else ""
            rows = self._rows(text + " ORDER BY time, request_id", args)
            expanded = (d for row in rows for d in _expand(row))
            streams.append(expanded if rule is None else (d for d in expanded if _decided_by(d, rule)))
        if self._v1:
            where1, args1 = list(where), list(args)
            if rule is not None:
                where1.append("rule_id = ?")
                args1.append(rule)
            text = f"SELECT {_V1_COLUMNS} FROM c45rules_decisions"
            text += (" WHERE " + " AND ".join(where1)) if where1 else ""
            streams.append(Decision(*row) for row in self._rows(text + " ORDER BY time, request_id, seq", args1))
        return merge_decisions(streams, limit)

    def ping(self) -> None:
        """Raise unless the store takes a write now (SQLite: its write lock; PostgreSQL: a round
        trip), reconnecting first to a PostgreSQL server whose connection was lost."""
        if self._p == "?":
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("ROLLBACK")
            return
        self.reconnect()
        cur = self._db.cursor()
        try:
            cur.execute("SELECT 1")
        finally:
            cur.close()
        self._db.commit()

    def reconnect(self) -> None:
        """A new connection in place of a PostgreSQL connection that was lost (the server
        restarted, the network failed); nothing when it is open, or for SQLite."""
        if self._p == "%s" and (self._db.closed or self._db.broken):
            import psycopg
            self._db = psycopg.connect(self.url)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()


def sqlite_parts(url: str) -> tuple[Path, str] | None:
    """(the file, the synchronous setting) of a SQLite store's URL; None for PostgreSQL."""
    if url.startswith(("postgresql://", "postgres://")):
        return None
    location, _, query = (url[len("sqlite:"):] if url.startswith("sqlite:") else url).partition("?")
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
    return Path(location), synchronous


def open_store(url: str, *, create: bool = True) -> AuditStore:
    """The audit store at `url`: 'sqlite:PATH' (or a plain path) or 'postgresql://...'.

    With `create` the tables are made when missing; without it (queries) a store that does
    not exist is an InputError rather than a new empty file.
    """
    parts = sqlite_parts(url)
    if parts is None:
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
        path, synchronous = parts
        if not create and not path.is_file():
            raise InputError(f"{path}: no audit store there (file not found)")
        try:
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                         check_same_thread=False)
            connection.text_factory = _lenient_text
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
            store.check()   # a file that is not an audit store fails here, not mid-query
    except (sqlite3.Error, Exception) as e:
        store.close()
        if isinstance(e, InputError):
            raise
        raise InputError(f"{url}: not a usable audit store ({' '.join(str(e).split())})") from None
    return store


class AuditWriter:
    """Group commit: the rows of concurrent requests are appended together by one thread.

    `submit(rows, done, shadows)` queues request rows (request_row's) and their challengers'
    rows (shadow_row's); `done(None)` is called once they are committed, or `done(error)` if the transaction failed (the caller then must not
    answer the decision).
    """

    def __init__(self, store: AuditStore, on_commit: Callable[[float, int], None] | None = None) -> None:
        self.store = store
        # told each commit's seconds and how many submissions wait after it (the service's metrics)
        self._on_commit = on_commit
        self._queue: queue.SimpleQueue = queue.SimpleQueue()   # no Condition: put() is one C call
        self._thread = threading.Thread(target=self._run, name="c45rules-audit", daemon=True)
        self._thread.start()

    def submit(self, rows: Sequence[tuple], done: Callable[[BaseException | None], None],
               shadows: Sequence[tuple] = ()) -> None:
        """Queue `rows` (and `shadows`) for the next commit; `done` is called from the writer thread."""
        self._queue.put((rows, done, shadows))

    def probe(self, done: Callable[[BaseException | None], None]) -> None:
        """Check in the writer's thread that the store takes writes (AuditStore.ping): `done`
        gets None or the error, after the rows queued before it are committed."""
        self._queue.put((None, done, ()))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if item[0] is None:   # a probe (see probe())
                try:
                    self.store.ping()
                    error = None
                except Exception as e:  # noqa: BLE001 - the probe's answer
                    error = e
                item[1](error)
                continue
            group, n, count = [item], sum(row[4] for row in item[0]), len(item[0])
            while n < _GROUP_RECORDS and count < _ROWS_PER_INSERT:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None or more[0] is None:   # the end, or a probe: after this group
                    self._queue.put(more)
                    break
                group.append(more)
                n += sum(row[4] for row in more[0])
                count += len(more[0])
            started = time.perf_counter()
            try:
                self.store.reconnect()   # a PostgreSQL server back after an outage takes rows again
                self.store.append([row for rows, _, _ in group for row in rows],
                                  [row for _, _, shadows in group for row in shadows])
                error = None
            except Exception as e:  # noqa: BLE001 - reported to every waiting request
                error = e
            if self._on_commit is not None:
                self._on_commit(time.perf_counter() - started, self._queue.qsize())
            for _, done, _ in group:
                try:
                    done(error)
                except Exception:  # noqa: BLE001 - e.g. its event loop closed: the others still wait
                    pass

    def close(self) -> None:
        """Commit what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout=30)
