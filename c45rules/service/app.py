"""The decision service's routes (FastAPI on uvicorn; see cli/serve.py for the command).

    POST /v1/models/{name}/decide[?explain=true]  one JSON record, or a list of them
    GET  /v1/models                               name, fingerprint, classes, rules, trained_on
    GET  /v1/models/{name}                        the schema and the rules as JSON
    GET  /healthz                                 liveness (never needs the token)
    GET  /readyz                                  readiness: models served, audit store writable (no token)
    GET  /metrics                                 Prometheus text (service/metrics.py; needs the token)
    GET  /docs, /openapi.json                     the OpenAPI page

A list of records is a table whose columns are the union of its records' keys: a used
attribute that no record names is a missing column (422, as `predict` refuses a CSV without
it), a key left out of one record is an unknown cell. Each record is decided by the model's
RecordDecider, which decides as `predict` does. Every error is JSON {"error", "field", and
"record" for a bad record}; a client's mistake is a 4xx, never a 500. A decision is answered
only once its audit row has committed; if the store fails the answer is a 503 and no
decision is returned. A model with a challenger (`serve --shadow`, service/shadow.py) has the
challenger decide the same records, its decisions committed beside the row, never answered.
A regression model is answered with its number and the rules that fired (service/numbers.py).

The decide route is the hot one: DecideRoute answers it ahead of FastAPI (which still documents
it) with the same statuses and errors, and the answer is put together from JSON fragments made
once per model version (Answers). The other routes are FastAPI's.
"""
from __future__ import annotations

import asyncio
import datetime as dt
import gc
import hmac
import json
import logging
import os
import random
import time
import weakref
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import InputError
from . import metrics
from .audit import AuditWriter, now, open_store, outcome_texts, request_row
from .models import ModelFolder, ServedModel
from .shadow import load_challenger
from .workerfiles import WorkerSlot

log = logging.getLogger("c45rules.service")
_GC_ALLOCATIONS = 50_000   # a worker's cycle-collector threshold (see the lifespan)
CONFIG_ENV = "C45RULES_SERVE_CONFIG"   # how `serve` hands the settings to uvicorn's worker processes


@dataclass(frozen=True)
class ServiceConfig:
    """What one worker needs: the models folder, the audit store, the token, the body limit."""

    models_dir: str
    audit: str
    token: str | None = None
    max_body: int = 10 * 1024 * 1024
    poll_seconds: float = 1.0
    worker_lock: str | None = None   # where workers of a PostgreSQL store take their numbers (WorkerSlot)
    log_format: str = "text"         # "json": one JSON object a line, one line per request
    shadow: tuple = ()               # (served model name, challenger file) pairs (service/shadow.py)

    def to_env(self) -> str:
        """The settings as the environment variable's JSON text."""
        return json.dumps(asdict(self))

    @staticmethod
    def from_env() -> "ServiceConfig":
        """The settings `serve` put in the environment."""
        return ServiceConfig(**json.loads(os.environ[CONFIG_ENV]))


class WorkerFormatter(logging.Formatter):
    """Log lines that name their worker process: `PREFIX: worker N (pid P): LEVEL: message`.

    N is the worker's slot (service/workerfiles.py: with a SQLite audit, worker N writes
    PATH-N, worker 0 PATH itself); until a process has one (uvicorn's supervisor of several
    workers never does) its lines name the pid alone."""

    worker: str | None = None   # this process's "worker N", once its slot is taken

    def __init__(self, prefix: str = "c45rules serve") -> None:
        super().__init__(f"{prefix}: %(worker)s: %(levelname)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """The line, with the worker's name."""
        pid = f"pid {os.getpid()}"
        record.worker = f"{WorkerFormatter.worker} ({pid})" if WorkerFormatter.worker else pid
        return super().format(record)


# the request's fields a JSON log line carries when its record has them (see JsonFormatter)
_LOG_FIELDS = ("request_id", "audit_id", "method", "path", "model", "rule_id", "records", "status", "latency_ms")


class JsonFormatter(logging.Formatter):
    """Log lines as one JSON object each: time (UTC), level, logger, worker, pid, message, and
    the request's fields (request_id, model, rule_id, status, latency_ms, ...) when it has them."""

    def __init__(self, prefix: str = "c45rules serve") -> None:
        # `prefix` is taken as WorkerFormatter takes it (uvicorn's config names it); a JSON line
        # says where it comes from in its "logger" field instead
        super().__init__()

    def format(self, record: logging.LogRecord) -> str:
        """The line."""
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "level": record.levelname, "logger": record.name, "worker": WorkerFormatter.worker,
            "pid": os.getpid(), "message": record.getMessage()}
        for key in _LOG_FIELDS:
            if hasattr(record, key):
                line[key] = getattr(record, key)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=True, default=str)


def _formatter(log_format: str, prefix: str) -> logging.Formatter:
    return JsonFormatter(prefix) if log_format == "json" else WorkerFormatter(prefix)


def uvicorn_log_config(log_format: str = "text") -> dict[str, Any]:
    """uvicorn's logging (given to uvicorn.run), its lines naming their worker as ours do."""
    kind = JsonFormatter if log_format == "json" else WorkerFormatter
    return {"version": 1, "disable_existing_loggers": False,
            "formatters": {"worker": {"()": f"{__name__}.{kind.__name__}", "prefix": "uvicorn"}},
            "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "worker",
                                    "stream": "ext://sys.stderr"}},
            "loggers": {"uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False}}}


class ClientError(Exception):
    """A request the service refuses: its status, message and the field it names."""

    def __init__(self, status: int, message: str, field: str | None = None, record: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field, self.record = status, message, field, record


def _dumps(body: Any) -> str:
    return json.dumps(body, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(_dumps(body), status_code=status, media_type="application/json", headers=headers)


def _error_body(e: ClientError) -> bytes:
    body: dict[str, Any] = {"error": e.message, "field": e.field}
    if e.record is not None:
        body["record"] = e.record
    return _dumps(body).encode()


def _error(e: ClientError) -> Response:
    return Response(_error_body(e), status_code=e.status, media_type="application/json")


# the probes answer without the token: an orchestrator's probe holds no secret, and they tell
# nothing but "up" and "ready"; /metrics (model names, versions, decision rates) needs it
OPEN_PATHS = frozenset({"/healthz", "/readyz"})


class BearerAuth:
    """ASGI middleware: every route but the probes (OPEN_PATHS) needs `Authorization: Bearer TOKEN`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode("utf-8")

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        given = b""
        for key, value in scope["headers"]:
            if key == b"authorization":
                given = value
                break
        if hmac.compare_digest(given, self.expected):
            return await self.app(scope, receive, send)
        response = _json(401, {"error": "missing or wrong bearer token (Authorization: Bearer TOKEN)",
                               "field": "Authorization"}, {"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)


async def _receive_body(scope: dict, receive: Any, limit: int) -> bytes | None:
    """The request body, refused (413) past `limit` bytes whether or not a length is declared;
    None when the client went away before sending it all."""
    for key, value in scope["headers"]:
        if key == b"content-length":
            if value.isdigit() and int(value) > limit:
                raise ClientError(413, f"the body is {int(value)} bytes, over the {limit}-byte limit (--max-body)", "body")
            break
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise ClientError(413, f"the body is over the {limit}-byte limit (--max-body)", "body")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# the texts pydantic reads as a bool (any case), so `?explain=` is read as FastAPI documents it
_BOOLEAN_TEXTS = {"1": True, "on": True, "t": True, "true": True, "y": True, "yes": True,
                  "0": False, "off": False, "f": False, "false": False, "n": False, "no": False}


def explain_flag(query: bytes) -> bool:
    """The decide route's `explain` query parameter (the last one given; absent: False)."""
    value = None
    for key, text in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if key == "explain":
            value = text
    if value is None:
        return False
    flag = _BOOLEAN_TEXTS.get(value.lower())
    if flag is None:
        raise ClientError(422, "explain: Input should be a valid boolean, unable to interpret input", "explain")
    return flag


def _records(payload: Any, model: ServedModel) -> tuple[list[dict], bool]:
    """(the records, True for a single object) of a decide body; ClientError for a bad shape."""
    if isinstance(payload, dict):
        records, single = [payload], True
    elif isinstance(payload, list):
        records, single = payload, False
        if not records:
            raise ClientError(422, "an empty list: give one record or a list of records", "body")
        for i, r in enumerate(records):
            if not isinstance(r, dict):
                raise ClientError(422, f"record {i} is a JSON {type(r).__name__}, not an object", "body", i)
    else:
        raise ClientError(422, "expected a JSON object (one record) or a list of objects", "body")
    # a column is missing when no record names it (most often the first record names them all)
    missing = [a for a in model.decider.used if not any(a in r for r in records)]
    if missing:
        raise ClientError(422, f"missing field {missing[0]!r}: the model's rules test"
                          f" {', '.join(model.decider.used)} (send null for an unknown value)", missing[0])
    return records, single


class Answers:
    """A model version's answers made once, as bytes: the JSON head, and each rule_index
    position's decision fields (plain and explained) and audit outcome entry."""

    def __init__(self, model: ServedModel) -> None:
        d = model.decider
        # '{"model":...,"fingerprint":...,"request_id":"' : the request id and the rest follow
        self.head = _dumps({"model": model.name, "fingerprint": model.fingerprint})[:-1].encode() + b',"request_id":"'
        fields = [{"class": str(c), "rule_id": int(r), "confidence": float(p)}
                  for c, r, p in zip(d.classes, d.rule_ids, d.confidences)]
        self.plain = [_dumps(f)[1:-1].encode() for f in fields]
        self.explained = [_dumps({**f, "explanation": t})[1:-1].encode() for f, t in zip(fields, d.texts)]
        self.outcomes = outcome_texts(d.classes, d.rule_ids, d.confidences)
        self.counts = metrics.DecisionCounts(model.name, model.fingerprint, d.classes, d.rule_ids)

    def body(self, request_id: str, positions: list[int], single: bool, explain: bool,
             unseen: dict[int, list[str]] | None = None) -> bytes:
        """The 200 answer: one decision's fields beside the head, or the list of them; a
        decision whose record (by index in `unseen`) holds values not seen in training names
        their attributes in "unseen" (sorted), and the others have no "unseen"."""
        fields = self.explained if explain else self.plain
        rid = request_id.encode()
        parts = [fields[k] for k in positions]
        for i, names in (unseen or {}).items():
            parts[i] += b',"unseen":' + _dumps(sorted(names)).encode()
        if single:
            return b"".join((self.head, rid, b'",', parts[0], b"}"))
        return b"".join((self.head, rid, b'","decisions":[{', b"},{".join(parts), b"}]}"))


_answers: "weakref.WeakKeyDictionary[ServedModel, Answers]" = weakref.WeakKeyDictionary()


def answers(model: ServedModel) -> Answers:
    """The model version's Answers (made at its first request)."""
    made = _answers.get(model)
    if made is None:
        made = _answers[model] = Answers(model)
    return made


def _rules_json(model: ServedModel) -> dict[str, Any]:
    rs = model.ruleset
    if model.decides_numbers:
        return {**model.summary(),
                "attributes": [{"name": a.name, "kind": a.kind, "values": list(a.values)} for a in rs.schema.attributes],
                "committees": [{"rules": [{"id": r.id, "conditions": [{"attribute": c.attribute, "op": c.op,
                                                                      "value": list(c.value) if c.op == "in" else c.value}
                                                                     for c in r.conditions],
                                           "model": str(r.model), "cases": r.cases, "mean": r.mean,
                                           "range": [r.low, r.high], "error": r.error, "bounds": [r.lower, r.upper]}
                                          for r in c.rules], "default": str(c.default)} for c in rs.committees]}
    conf = model.decider.confidences
    return {**model.summary(),
            "attributes": [{"name": a.name, "kind": a.kind, "values": list(a.values)} for a in rs.schema.attributes],
            "rules": [{"id": r.id, "prediction": r.prediction,
                       "conditions": [{"attribute": c.attribute, "op": c.op,
                                       "value": list(c.value) if c.op == "in" else c.value} for c in r.conditions],
                       "confidence": float(conf[k]), "covered": r.covered, "errors": r.errors,
                       "fires": r.fires, "text": model.decider.texts[k], **({"note": r.note} if r.note else {})}
                      for k, r in enumerate(rs.rules, 1)],
            "default": {"class": rs.default_class, "rule_id": 0, "confidence": float(conf[0])}}


_DECIDE_BODY = {"requestBody": {"required": True, "content": {"application/json": {"schema": {
    "oneOf": [{"type": "object", "additionalProperties": True, "description": "one record"},
              {"type": "array", "items": {"type": "object", "additionalProperties": True}}]},
    "example": {"A9": "t", "A15": 300, "A10": None}}}}}


class DecisionFields(BaseModel):
    """One record's decision, as the decide route answers it (documentation of the answer)."""

    model_config = ConfigDict(populate_by_name=True)
    class_: str = Field(alias="class", description="the class decided")
    rule_id: int = Field(description="the deciding rule's id; 0: the default class")
    confidence: float = Field(description="the deciding rule's confidence")
    explanation: str | None = Field(None, description="the deciding rule in words (with ?explain=true only)")
    unseen: list[str] | None = Field(None, description="the attributes whose value in the record was not seen in"
                                     " training (they match no test), sorted; absent when there is none")


class OneDecision(DecisionFields):
    """The answer to one record (a JSON object)."""

    model: str
    fingerprint: str = Field(description="sha256 of the model file that decided")
    request_id: str = Field(description="the audit trail's key of this request (also the X-Request-ID header,"
                            " unless the client sent its own)")


class ManyDecisions(BaseModel):
    """The answer to a list of records: one decision each, in order."""

    model: str
    fingerprint: str
    request_id: str
    decisions: list[DecisionFields]


class FiredRule(BaseModel):
    """A rule of a regression model whose conditions held: its id and its model's bounded value."""

    committee: int | None = Field(None, description="its committee (from 1), when the model has several")
    id: int
    value: float


class NumberFields(BaseModel):
    """One record's number, as the decide route answers it for a regression model."""

    value: float = Field(description="the number predict gives the record")
    rules: list[FiredRule] = Field(description="the rules that fired (none: the default model's value)")
    explanation: str | None = Field(None, description="why, in words (with ?explain=true only)")


class OneNumber(NumberFields):
    """A regression model's answer to one record."""

    model: str
    fingerprint: str
    request_id: str


class ManyNumbers(BaseModel):
    """A regression model's answer to a list of records: one number each, in order."""

    model: str
    fingerprint: str
    request_id: str
    decisions: list[NumberFields]


def _settle(future: asyncio.Future, error: BaseException | None) -> None:
    if not future.done():
        future.set_result(error)


def create_app(config: ServiceConfig | None = None) -> Any:
    """The service as an ASGI app (uvicorn's factory: the settings come from the environment)."""
    config = config or ServiceConfig.from_env()
    if not logging.getLogger("c45rules").handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(_formatter(config.log_format, "c45rules serve"))
        logging.getLogger("c45rules").addHandler(handler)
        logging.getLogger("c45rules").setLevel(logging.INFO)
    state: dict[str, Any] = {}
    # request ids: 128 random bits as uuid4 has, drawn from a generator seeded once per worker
    # from os.urandom; os.urandom per request lets go of the GIL, and the answer waits to take it back
    ids = request_ids()

    async def lifespan(app: FastAPI):
        # this worker's own SQLite file (service/workerfiles.py); two connections to it: the
        # writer thread commits decisions, the poller stores model versions
        slot = WorkerSlot(config.audit, config.worker_lock)
        WorkerFormatter.worker = f"worker {slot.slot}"
        writer = AuditWriter(open_store(slot.url), metrics.audit_committed)
        folder = ModelFolder(config.models_dir, open_store(slot.url), _model_changed)
        challengers = {}
        for name, file in config.shadow:
            challengers[name] = challenger = load_challenger(name, file)
            writer.store.remember_model(name, challenger.model.fingerprint, challenger.model.text)
        state["challengers"] = challengers
        folder.start(config.poll_seconds)
        state.update(writer=writer, folder=folder)
        # What is loaded by now (modules, models) lives as long as the worker: frozen, the cycle
        # collector no longer scans it. And a request's objects are freed by their reference
        # counts (they hold no cycles), but 700 allocations (the default) start a collection:
        # a 10,000-record request made some 40 of them, scanning its own records each time, a
        # quarter of its time. Collections every 50,000 allocations cost it nothing measurable.
        gc.collect()
        gc.freeze()
        gc.set_threshold(_GC_ALLOCATIONS, *gc.get_threshold()[1:])
        try:
            yield
        finally:
            folder.stop()
            writer.close()   # the decisions queued are committed before the worker exits
            slot.release()
            metrics.worker_exited(os.getpid())

    app = FastAPI(title="c45rules decision service", lifespan=lifespan,
                  description="C4.5 rule sets as a decision service, with an audit trail.")

    @app.exception_handler(ClientError)
    async def client_error(request: Request, e: ClientError) -> Response:
        return _error(e)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> Response:
        return _json(e.status_code, {"error": str(e.detail), "field": None}, getattr(e, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, e: RequestValidationError) -> Response:
        first = e.errors()[0] if e.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or None
        return _json(422, {"error": f"{where}: {first.get('msg', 'invalid request')}", "field": where})

    @app.exception_handler(Exception)
    async def unexpected(request: Request, e: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return _json(500, {"error": f"internal error ({type(e).__name__})", "field": None})

    def served(name: str) -> ServedModel:
        model = state["folder"].get(name)
        if model is None:
            why = state["folder"].why_not(name)
            if why is not None:
                raise ClientError(404, f"model {name!r} is not served: {why} (GET /v1/models lists"
                                  " the models served)", "name")
            raise ClientError(404, f"no model named {name!r} (GET /v1/models lists them)", "name")
        return model

    async def decided(model: ServedModel, body: bytes, explain: bool,
                      info: dict[str, Any] | None = None) -> tuple[int, bytes, str | None]:
        """(status, JSON answer, request id) of a decide request's body, once its audit row committed."""
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError) as e:
            raise ClientError(400, f"malformed JSON: {e}", "body") from None
        records, single = _records(payload, model)
        if model.decides_numbers:
            return await decided_numbers(model, body, records, single, explain, info)
        try:
            if single:
                position, names = model.decider.decide(records[0])
                positions, unseen = [position], {0: names} if names else None
            else:
                found, unseen = model.decider.decide_many(records)
                positions = found.tolist()
        except InputError as e:
            record = 0 if single else getattr(e, "record", None)
            raise ClientError(422, str(e), getattr(e, "field", None), record) from None
        made = answers(model)
        request_id = f"{ids.getrandbits(128):032x}"
        if info is not None:
            info.update(audit_id=request_id, records=len(positions))
            if single:
                info["rule_id"] = int(model.decider.rule_ids[positions[0]])
        row = request_row(request_id, now(), model.name, model.fingerprint, body, positions, made.outcomes)
        if not await committed(model, request_id, row, records, single):
            return 503, _NOT_RECORDED, None
        made.counts.count(positions)
        return 200, made.body(request_id, positions, single, explain, unseen), request_id

    async def committed(model: ServedModel, request_id: str, row: tuple, records: list[dict], single: bool,
                        champion: list[float] | None = None) -> bool:
        """Submit a request's audit row, with its challenger's beside it when the model has one;
        True once committed, False (logged) when the store failed. `champion`: a regression
        model's numbers, which its challenger's are counted against (metrics)."""
        shadows = ()
        challenger = state["challengers"].get(model.name)
        if challenger is not None:
            try:
                shadows = (challenger.row(request_id, records, single, champion),)
            except InputError as e:   # the answer is the champion's whatever the challenger makes of it
                log.warning("challenger of %s did not decide request %s: %s", model.name, request_id, e)
        loop = asyncio.get_running_loop()
        done_future = loop.create_future()

        def done(error: BaseException | None) -> None:
            loop.call_soon_threadsafe(_settle, done_future, error)
        state["writer"].submit([row], done, shadows)
        error = await done_future
        if error is not None:
            log.error("audit store failed; %d decision(s) not answered: %s", row[4], error)
            return False
        return True

    async def decided_numbers(model: ServedModel, body: bytes, records: list[dict], single: bool, explain: bool,
                              info: dict[str, Any] | None) -> tuple[int, bytes, str | None]:
        """`decided` for a regression model (service/numbers.py): each record's number and fired rules."""
        decider = model.decider
        try:
            values, fired = decider.decide_many(records)
            texts = [decider.explanation(r) for r in records] if explain else None
        except InputError as e:
            record = 0 if single else getattr(e, "record", None)
            raise ClientError(422, str(e), getattr(e, "field", None), record) from None
        request_id = f"{ids.getrandbits(128):032x}"
        if info is not None:
            info.update(audit_id=request_id, records=len(values))
        row = request_row(request_id, now(), model.name, model.fingerprint, body, range(len(values)),
                          decider.entries(values, fired))
        if not await committed(model, request_id, row, records, single, values):
            return 503, _NOT_RECORDED, None
        metrics.NUMBERS.labels(model.name, model.fingerprint).inc(len(values))
        fields = [decider.answer_fields(v, f) for v, f in zip(values, fired)]
        if texts is not None:
            fields = [{**f, "explanation": t} for f, t in zip(fields, texts)]
        head = {"model": model.name, "fingerprint": model.fingerprint, "request_id": request_id}
        return 200, _dumps({**head, **fields[0]} if single else {**head, "decisions": fields}).encode(), request_id

    async def decide_route(scope: dict, receive: Any, send: Any, name: str) -> None:
        """POST /v1/models/{name}/decide as a plain ASGI handler (see DecideRoute)."""
        request_id = None
        info = scope.setdefault(_INFO, {})
        info["model"] = name
        try:
            explain = explain_flag(scope["query_string"])
            model = served(name)   # taken once: this request is answered by this version throughout
            body = await _receive_body(scope, receive, config.max_body)
            if body is None:
                return
            status, out, request_id = await decided(model, body, explain, info)
        except ClientError as e:
            status, out = e.status, _error_body(e)
        except Exception as e:  # noqa: BLE001 - a 500 in JSON, as FastAPI's handler gives
            log.exception("unexpected error on POST %s", scope["path"])
            status, out = 500, _dumps({"error": f"internal error ({type(e).__name__})", "field": None}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(out))]
        if request_id is not None:   # the client's own id, when it sent one, is echoed instead (Observed)
            headers.append((b"x-request-id", request_id.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": out})

    @app.get("/healthz")
    async def healthz() -> Response:
        """Liveness: ok, and how many models are served."""
        return _json(200, {"status": "ok", "models": len(state["folder"].all())})

    @app.get("/readyz")
    async def readyz() -> Response:
        """Readiness: 200 once a model is served and the audit store takes writes, else 503 saying why."""
        problems = []
        served_now = state["folder"].all()
        if not served_now:
            problems.append("no model is served (see the log for refused files)")
        loop = asyncio.get_running_loop()
        checked = loop.create_future()
        state["writer"].probe(lambda error: loop.call_soon_threadsafe(_settle, checked, error))
        try:
            error = await asyncio.wait_for(checked, READY_SECONDS)
        except asyncio.TimeoutError:
            error = TimeoutError(f"no answer within {READY_SECONDS:g} s")
        if error is not None:
            problems.append(f"the audit store takes no writes: {' '.join(str(error).split()) or type(error).__name__}")
        return _json(503 if problems else 200, {"status": "not ready" if problems else "ready",
                                                "models": len(served_now), "problems": problems})

    @app.get("/metrics")
    async def metrics_route() -> Response:
        """Prometheus' text format: decisions, latencies, errors, audit commits, model reloads."""
        text, content_type = metrics.scrape()
        return Response(text, media_type=content_type)

    @app.get("/v1/models")
    async def models() -> Response:
        """Every model served: name, fingerprint, classes, rule count, trained_on."""
        return _json(200, {"models": [m.summary() for m in state["folder"].all()]})

    @app.get("/v1/models/{name}")
    async def model(name: str) -> Response:
        """One model: its attributes and its rules in order, with the default class."""
        return _json(200, _rules_json(served(name)))

    @app.post("/v1/models/{name}/decide", openapi_extra=_DECIDE_BODY,
              responses={200: {"model": OneDecision | ManyDecisions | OneNumber | ManyNumbers,
                                   "description": "the decisions (a regression model's: numbers)"}})
    async def decide(name: str, request: Request, explain: bool = False) -> Response:
        """Decide one record (an object) or many (a list): class, rule_id (0: the default), confidence;
        for a regression model, value and the rules that fired (service/numbers.py)."""
        # served by DecideRoute, which answers before FastAPI; this route documents it, and the
        # tests check that both give the same answers
        model = served(name)
        body = await _receive_body(request.scope, request.receive, config.max_body)
        status, out, request_id = await decided(model, body if body is not None else b"", explain)
        return Response(out, status, media_type="application/json",
                        headers=None if request_id is None else {"X-Request-ID": request_id})

    outer: Any = DecideRoute(app, decide_route)
    if config.token:
        outer = BearerAuth(outer, token=config.token)
    outer = Observed(outer, ids, config.log_format == "json")
    outer.fastapi = app
    return outer


_NOT_RECORDED = _dumps({"error": "the audit store could not record the decision; nothing was decided",
                        "field": None}).encode()
_INFO = "c45rules"   # the scope key of what a request's log line and metrics name (Observed)
READY_SECONDS = 5.0  # /readyz waits this long for the audit store's answer
_REQUEST_ID_LIMIT = 128
_ROUTES = frozenset({"/healthz", "/readyz", "/metrics", "/v1/models"})


def request_ids() -> random.Random:
    """The generator of a worker's request ids (the audit keys): 128 random bits each, as
    uuid4 has, from a generator seeded from os.urandom, and seeded again in a child forked
    from this process (a server that forks its workers after making the app, as gunicorn's
    --preload does), whose copy would otherwise draw its parent's very ids."""
    ids = random.Random(os.urandom(32))
    os.register_at_fork(after_in_child=lambda: ids.seed(os.urandom(32)))
    return ids


def _model_changed(name: str, swapped: bool) -> None:
    (metrics.RELOADS if swapped else metrics.REFUSED).labels(name).inc()


def client_request_id(scope: dict) -> str | None:
    """The client's X-Request-ID (None when absent); ClientError unless it is 1 to 128 printable
    ASCII characters (it goes into log lines and back into a header)."""
    for key, value in scope["headers"]:
        if key == b"x-request-id":
            text = value.decode("latin-1")
            if not 0 < len(text) <= _REQUEST_ID_LIMIT or not text.isascii() or not text.isprintable():
                raise ClientError(400, f"X-Request-ID: expected 1 to {_REQUEST_ID_LIMIT} printable ASCII"
                                  f" characters, got {len(value)} bytes", "X-Request-ID")
            return text
    return None


class Observed:
    """ASGI: every HTTP request timed and counted (service/metrics.py), its X-Request-ID
    echoed (the client's when it sent one, else one made here or the decision's audit id),
    and with JSON logs one line per request."""

    def __init__(self, app: Any, ids: random.Random, log_requests: bool) -> None:
        self.app, self.ids, self.log_requests = app, ids, log_requests

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        info: dict[str, Any] = scope.setdefault(_INFO, {})
        status = 500
        try:
            given = client_request_id(scope)
        except ClientError as e:
            status = e.status
            await _error(e)(scope, receive, send)
            self._observe(scope, info, status, started)
            return

        async def sending(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", ()) if k != b"x-request-id"]
                made = dict(message.get("headers", ())).get(b"x-request-id")
                request_id = given or (made.decode() if made else f"{self.ids.getrandbits(128):032x}")
                info["request_id"] = request_id
                message = {**message, "headers": headers + [(b"x-request-id", request_id.encode())]}
            await send(message)
        try:
            await self.app(scope, receive, sending)
        finally:
            self._observe(scope, info, status, started)

    def _observe(self, scope: dict, info: dict[str, Any], status: int, started: float) -> None:
        seconds = time.perf_counter() - started
        path = scope["path"]
        route = "decide" if "model" in info else path if path in _ROUTES else "other"
        metrics.REQUEST_SECONDS.labels(route).observe(seconds)
        if status >= 400:
            metrics.ERRORS.labels(str(status)).inc()
        if self.log_requests:
            log.info("%s %s %d", scope["method"], path, status,
                     extra={**info, "method": scope["method"], "path": path, "status": status,
                            "latency_ms": round(seconds * 1000, 3)})


class DecideRoute:
    """ASGI: POST /v1/models/{name}/decide is answered by `handler`, everything else by FastAPI.

    FastAPI's routing, parameter validation and response classes cost several times the
    decision itself on a one-record request; the handler reads the body and the one query
    parameter itself and gives the same answers, statuses and errors as the documented route.
    """

    def __init__(self, app: Any, handler: Any) -> None:
        self.app, self.handler = app, handler

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            path = scope["path"]
            name = path[len("/v1/models/"):-len("/decide")]
            if path.startswith("/v1/models/") and path.endswith("/decide") and name and "/" not in name:
                return await self.handler(scope, receive, send, name)
        await self.app(scope, receive, send)
