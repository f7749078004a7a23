"""The decision service's routes (FastAPI on uvicorn; see cli/serve.py for the command).

    POST /v1/models/{name}/decide[?explain=true]  one JSON record, or a list of them
    GET  /v1/models                               name, fingerprint, classes, rules, trained_on
    GET  /v1/models/{name}                        the schema and the rules as JSON
    GET  /healthz                                 liveness (never needs the token)
    GET  /docs, /openapi.json                     the OpenAPI page

A list of records is a table whose columns are the union of its records' keys: a used
attribute that no record names is a missing column (422, as `predict` refuses a CSV without
it), a key left out of one record is an unknown cell. Each record is decided by the model's
RecordDecider, which decides as `predict` does. Every error is JSON {"error", "field", and
"record" for a bad record}; a client's mistake is a 4xx, never a 500. A decision is answered
only once its audit row has committed; if the store fails the answer is a 503 and no
decision is returned.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import InputError
from ..records import FieldError
from .audit import AuditWriter, now, open_store, record_json
from .models import ModelFolder, ServedModel

log = logging.getLogger("c45rules.service")
CONFIG_ENV = "C45RULES_SERVE_CONFIG"   # how `serve` hands the settings to uvicorn's worker processes


@dataclass(frozen=True)
class ServiceConfig:
    """What one worker needs: the models folder, the audit store, the token, the body limit."""

    models_dir: str
    audit: str
    token: str | None = None
    max_body: int = 10 * 1024 * 1024
    poll_seconds: float = 1.0

    def to_env(self) -> str:
        """The settings as the environment variable's JSON text."""
        return json.dumps(asdict(self))

    @staticmethod
    def from_env() -> "ServiceConfig":
        """The settings `serve` put in the environment."""
        return ServiceConfig(**json.loads(os.environ[CONFIG_ENV]))


class ClientError(Exception):
    """A request the service refuses: its status, message and the field it names."""

    def __init__(self, status: int, message: str, field: str | None = None, record: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field, self.record = status, message, field, record


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(body, ensure_ascii=True, allow_nan=False, separators=(",", ":")),
                    status_code=status, media_type="application/json", headers=headers)


def _error(e: ClientError) -> Response:
    body: dict[str, Any] = {"error": e.message, "field": e.field}
    if e.record is not None:
        body["record"] = e.record
    return _json(e.status, body)


class BearerAuth:
    """ASGI middleware: every route but /healthz needs `Authorization: Bearer TOKEN`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode("utf-8")

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] == "/healthz":
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


async def _body(request: Request, limit: int) -> bytes:
    """The request body, refused (413) past `limit` bytes whether or not a length is declared."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ClientError(413, f"the body is {int(declared)} bytes, over the {limit}-byte limit (--max-body)", "body")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ClientError(413, f"the body is over the {limit}-byte limit (--max-body)", "body")
        chunks.append(chunk)
    return b"".join(chunks)


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
    named = set().union(*records) if len(records) > 1 else records[0].keys()
    missing = [a for a in model.decider.used if a not in named]
    if missing:
        raise ClientError(422, f"missing field {missing[0]!r}: the model's rules test"
                          f" {', '.join(model.decider.used)} (send null for an unknown value)", missing[0])
    return records, single


def _decision(model: ServedModel, k: int, explain: bool) -> dict[str, Any]:
    d = model.decider
    out = {"class": d.classes[k], "rule_id": int(d.rule_ids[k]), "confidence": float(d.confidences[k])}
    if explain:
        out["explanation"] = d.texts[k]
    return out


def _rules_json(model: ServedModel) -> dict[str, Any]:
    rs = model.ruleset
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


def create_app(config: ServiceConfig | None = None) -> FastAPI:
    """The service as an ASGI app (uvicorn's factory: the settings come from the environment)."""
    config = config or ServiceConfig.from_env()
    if not logging.getLogger("c45rules").handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("c45rules serve: %(levelname)s: %(message)s"))
        logging.getLogger("c45rules").addHandler(handler)
        logging.getLogger("c45rules").setLevel(logging.INFO)
    state: dict[str, Any] = {}

    async def lifespan(app: FastAPI):
        # two connections: the writer thread commits decisions, the poller stores model versions
        writer = AuditWriter(open_store(config.audit))
        folder = ModelFolder(config.models_dir, open_store(config.audit))
        folder.start(config.poll_seconds)
        state.update(writer=writer, folder=folder)
        try:
            yield
        finally:
            folder.stop()
            writer.close()

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
            raise ClientError(404, f"no model named {name!r} (GET /v1/models lists them)", "name")
        return model

    @app.get("/healthz")
    async def healthz() -> Response:
        """Liveness: ok, and how many models are served."""
        return _json(200, {"status": "ok", "models": len(state["folder"].all())})

    @app.get("/v1/models")
    async def models() -> Response:
        """Every model served: name, fingerprint, classes, rule count, trained_on."""
        return _json(200, {"models": [m.summary() for m in state["folder"].all()]})

    @app.get("/v1/models/{name}")
    async def model(name: str) -> Response:
        """One model: its attributes and its rules in order, with the default class."""
        return _json(200, _rules_json(served(name)))

    @app.post("/v1/models/{name}/decide", openapi_extra=_DECIDE_BODY)
    async def decide(name: str, request: Request, explain: bool = False) -> Response:
        """Decide one record (an object) or many (a list): class, rule_id (0: the default), confidence."""
        model = served(name)   # taken once: this request is answered by this version throughout
        body = await _body(request, config.max_body)
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError) as e:
            raise ClientError(400, f"malformed JSON: {e}", "body") from None
        records, single = _records(payload, model)
        try:
            if single:
                positions = [model.decider.position(records[0])]
            else:
                positions = model.decider.positions(records).tolist()
        except InputError as e:
            record = 0 if single else getattr(e, "record", None)
            raise ClientError(422, str(e), getattr(e, "field", None), record) from None
        request_id = uuid.uuid4().hex
        decisions = [_decision(model, k, explain) for k in positions]
        at = now()
        rows = [(at, request_id, i, model.name, model.fingerprint, record_json(r), d["class"], d["rule_id"],
                 d["confidence"]) for i, (r, d) in enumerate(zip(records, decisions))]
        loop = asyncio.get_running_loop()
        committed = loop.create_future()

        def done(error: BaseException | None) -> None:
            loop.call_soon_threadsafe(lambda: committed.done() or committed.set_result(error))
        state["writer"].submit(rows, done)
        error = await committed
        if error is not None:
            log.error("audit store failed; %d decision(s) not answered: %s", len(rows), error)
            return _json(503, {"error": "the audit store could not record the decision; nothing was decided",
                               "field": None})
        head = {"model": model.name, "fingerprint": model.fingerprint, "request_id": request_id}
        body_out = {**head, **decisions[0]} if single else {**head, "decisions": decisions}
        return _json(200, body_out, {"X-Request-ID": request_id})

    if config.token:
        app.add_middleware(BearerAuth, token=config.token)
    return app
