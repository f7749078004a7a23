"""`c45rules serve`: the models of a folder as an HTTP decision service, with an audit trail."""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from ..errors import InputError
from .options import positive_int

HELP = "serve the models of a folder over HTTP (decide, list, explain), every decision audited"
# the request names every attribute the rules of the bundled example's model test (the service
# refuses a record that leaves one out: a misspelt name must not pass for an unknown value)
EXAMPLE = ("mkdir models && c45rules fit examples/crx/crx -o models/credit.yaml\n"
           "  c45rules serve models/ --port 8080 --audit sqlite:audit.sqlite\n"
           "  curl -s 'localhost:8080/v1/models/credit/decide?explain=true' -d '{\"A4\": \"u\", \"A6\": \"c\","
           " \"A7\": \"v\", \"A9\": \"t\", \"A11\": 3, \"A12\": \"f\", \"A13\": \"g\", \"A14\": null,"
           " \"A15\": 300}'")
PARENTS = ()
# on SIGTERM, requests in flight get this long to finish (then the audit queue is committed)
SHUTDOWN_SECONDS = 10
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|kib|mib|gib)?", re.IGNORECASE)
_UNITS = {None: 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30}


def byte_size(text: str) -> int:
    """A size such as 10MB, 512KiB or 1000000 (bytes), at least 1 byte."""
    m = _SIZE.fullmatch(text.strip())
    if not m or float(m.group(1)) * _UNITS[(m.group(2) or "").lower() or None] < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 10MB, 512KB or 1000000")
    return int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower() or None])


def port(text: str) -> int:
    """A TCP port, 1..65535."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1..65535)")
    return value


def configure(p: argparse.ArgumentParser) -> None:
    """The serve command's arguments."""
    p.add_argument("models_dir", metavar="MODELS_DIR",
                   help="folder of model files: NAME.yaml is served as model NAME; new and replaced"
                        " files are validated and swapped in while serving (rename a new file over the old)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=port, default=8080, help="TCP port (default 8080)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="worker processes (default 1); with a SQLite audit each writes its own file"
                        " (PATH, PATH-1, ...; `audit PATH` reads them all)")
    p.add_argument("--audit", metavar="URL", default=None,
                   help="where every decision is logged: sqlite:PATH or postgresql://... (default"
                        " sqlite:c45rules-audit.sqlite in the current directory)")
    p.add_argument("--token-file", metavar="FILE",
                   help="a file holding a secret token: every route but /healthz then needs"
                        " 'Authorization: Bearer TOKEN'")
    p.add_argument("--max-body", type=byte_size, default=byte_size("10MB"), metavar="SIZE",
                   help="largest request body (default 10MB; e.g. 512KB, 1GiB); larger ones get 413")
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="text (default): one line per event; json: one JSON object a line (time, level,"
                        " worker, request id, model, rule id, status, latency), one line per request too")
    p.add_argument("--shadow", action="append", default=[], metavar="NAME=FILE",
                   help="champion/challenger: the model served as NAME still answers, and the model in FILE"
                        " also decides each of its records; both decisions go to the audit store (`audit"
                        " --compare` reports where they differ); repeat for other models")
    p.add_argument("--poll", type=float, default=1.0, metavar="SECONDS",
                   help="how often each worker looks for new or replaced model files (default 1): every"
                        " worker of every replica serves a replaced file within SECONDS plus its load time")


def _token(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise InputError(f"{path}: token file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read the token file ({getattr(e, 'strerror', None) or e})") from None
    if not text or any(c.isspace() for c in text) or not text.isprintable() or not text.isascii():
        raise InputError(f"{path}: the token must be one word of printable ASCII characters")
    if len(text) < 16:
        raise InputError(f"{path}: the token is {len(text)} characters; use at least 16"
                         " (e.g. python -c 'import secrets; print(secrets.token_urlsafe())')")
    return text


def run(args: argparse.Namespace) -> int:
    """Check the settings, then run uvicorn until interrupted."""
    try:
        import uvicorn  # noqa: F401
        import fastapi  # noqa: F401
        # found, not imported: prometheus_client picks its kind of values at import, and must
        # see PROMETHEUS_MULTIPROC_DIR (set below) by then
        import importlib.util
        if importlib.util.find_spec("prometheus_client") is None:
            raise ImportError("prometheus_client")
    except ImportError:
        raise InputError("serve needs FastAPI, uvicorn and prometheus_client: pip install 'c45rules[service]'") from None
    import shutil
    import tempfile
    # the workers' metrics meet in a folder of this process's own (service/metrics.py); set
    # before prometheus_client is imported here or in any worker
    metrics_dir = tempfile.mkdtemp(prefix="c45rules-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    try:
        return _serve(args)
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)


def _serve(args: argparse.Namespace) -> int:
    from ..service.app import CONFIG_ENV, ServiceConfig
    from ..service.audit import DEFAULT_STORE, open_store
    folder = Path(args.models_dir)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of models")
    if args.poll <= 0:
        raise InputError("--poll: expected a number of seconds > 0")
    token = _token(args.token_file)
    shadow = _challengers(args.shadow)
    try:
        import socket   # here: the other commands start without it
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as e:
        raise InputError(f"cannot listen on {args.host}:{args.port} ({e.strerror or e})") from None
    audit = args.audit or DEFAULT_STORE
    open_store(audit).close()   # a store that cannot be opened is told now, not by each worker
    import tempfile
    from ..service.audit import sqlite_parts
    worker_lock = None
    if sqlite_parts(audit) is None:   # the workers of one PostgreSQL store number themselves here
        handle, worker_lock = tempfile.mkstemp(prefix="c45rules-serve-", suffix=".lock")
        os.close(handle)
    config = ServiceConfig(str(folder.resolve()), audit, token, args.max_body, args.poll, worker_lock,
                           args.log_format, shadow)
    if not args.quiet:
        auth = "bearer token required" if config.token else "no authentication"
        announce_when_answering(args.host, args.port, f"c45rules: serving {folder} on http://{args.host}:{args.port}"
                                f" ({args.workers} worker{'s' * (args.workers > 1)}, audit {audit}, {auth})")
    os.environ[CONFIG_ENV] = config.to_env()   # the workers read their settings from here
    import signal
    import uvicorn
    from ..service.app import uvicorn_log_config
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again with the handler
    # found before it; the default one would end the process by the signal (status -15), where
    # a graceful stop must exit 0 (a SIGTERM before uvicorn listens exits 0 at once)
    signal.signal(signal.SIGTERM, _exit_zero)
    try:
        uvicorn.run("c45rules.service.app:create_app", factory=True, host=args.host, port=args.port,
                    workers=args.workers, log_level="warning", access_log=False,
                    timeout_graceful_shutdown=SHUTDOWN_SECONDS, log_config=uvicorn_log_config(args.log_format))
    finally:
        if worker_lock is not None:
            os.unlink(worker_lock)
    return 0


def _challengers(given: list[str]) -> tuple[tuple[str, str], ...]:
    """The --shadow NAME=FILE pairs, each file checked to load as a model (one per name)."""
    from ..service.shadow import load_challenger, parse_shadow
    pairs: dict[str, str] = {}
    for text in given:
        name, path = parse_shadow(text)
        if name in pairs:
            raise InputError(f"--shadow: two challengers for model {name!r}; give one")
        load_challenger(name, path)   # refused now rather than by every worker
        pairs[name] = str(path.resolve())
    return tuple(pairs.items())


def _exit_zero(signum: int, frame: object) -> None:
    raise SystemExit(0)


def announce_when_answering(host: str, port: int, line: str) -> None:
    """Print `line` on stderr once the service answers GET /healthz (from a daemon thread).

    A connection alone proves little: with several workers, uvicorn's supervisor listens before
    any worker is ready, and the kernel accepts connections that no worker takes yet."""
    import http.client
    import threading
    import time
    # an address that listens on every interface is reached through the loopback
    target = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)

    def wait() -> None:
        while True:
            connection = http.client.HTTPConnection(target, port, timeout=30)
            try:
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    print(line, file=sys.stderr, flush=True)
                    return
            except (OSError, http.client.HTTPException):
                pass
            finally:
                connection.close()
            time.sleep(0.05)
    threading.Thread(target=wait, name="c45rules-announce", daemon=True).start()
