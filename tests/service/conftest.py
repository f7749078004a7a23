"""The decision service run for real: `c45rules serve` in a subprocess on a free loopback port."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from e2e.conftest import command
import reference as R

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port nobody listens on now (loopback)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def call(method: str, url: str, body=None, headers: dict | None = None, timeout: float = 30) -> tuple[int, dict]:
    """(status, parsed JSON body) of one request; `body` is JSON-encoded unless bytes."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Server:
    """A `c45rules serve` process group (its uvicorn workers included)."""

    def __init__(self, models: Path, audit: str, *extra: str, port: int | None = None) -> None:
        self.models, self.audit, self.extra = models, audit, extra
        self.port = port or free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30) -> "Server":
        """Start and wait until /healthz answers with a model served."""
        self.log = open(self.models.parent / f"serve-{self.port}.log", "ab")
        self.proc = subprocess.Popen([*command(), "serve", str(self.models), "--host", HOST, "--port", str(self.port),
                                      "--audit", self.audit, "--poll", "0.2", *self.extra],
                                     stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"serve exited {self.proc.returncode}: {self.read_log()}")
            try:
                status, body = call("GET", self.url + "/healthz", timeout=2)
                if status == 200 and body["models"] > 0:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"serve did not come up: {self.read_log()}")

    def read_log(self) -> str:
        return (self.models.parent / f"serve-{self.port}.log").read_text(errors="replace")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send `sig` to the whole process group and wait for the main process."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=30)
        self.log.close()

    def stop(self) -> None:
        """End gracefully (SIGTERM), else kill."""
        try:
            self.kill(signal.SIGTERM)
        except subprocess.TimeoutExpired:
            self.kill(signal.SIGKILL)
        if self.proc is not None:
            try:   # workers left behind by a killed supervisor
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def serving(server: Server, name: str = "crx") -> str | None:
    """The fingerprint the server serves as model `name` (None: not served)."""
    return {m["name"]: m["fingerprint"] for m in call("GET", server.url + "/v1/models")[1]["models"]}.get(name)


def wait_for(predicate, timeout: float = 15.0, times: int = 1) -> bool:
    """True once `predicate()` held `times` times in a row (with several workers, each request
    may reach another one), False after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    run = 0
    while time.monotonic() < deadline:
        run = run + 1 if predicate() else 0
        if run >= times:
            return True
        time.sleep(0.1 if run == 0 else 0.01)
    return False


def fit_model(path: Path, *args: str) -> Path:
    """`c45rules fit` of crx into `path` (extra fit options in `args`)."""
    p = subprocess.run([*command(), "fit", str(R.DATA / "crx" / "crx"), "-o", str(path), *args],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return path


@pytest.fixture(scope="session")
def crx_versions(tmp_path_factory) -> tuple[Path, Path]:
    """Two crx models of one schema: the default fit and one pruned harder (-c 5)."""
    d = tmp_path_factory.mktemp("versions")
    return fit_model(d / "crx.yaml"), fit_model(d / "crx_c5.yaml", "-c", "5")


@pytest.fixture
def models(tmp_path, crx_versions) -> Path:
    """A models folder holding crx.yaml (the default fit)."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "crx.yaml").write_bytes(crx_versions[0].read_bytes())
    return folder


@pytest.fixture
def server(models, tmp_path):
    """A running service (1 worker) on the models folder, audit in tmp_path/audit.sqlite."""
    s = Server(models, f"sqlite:{tmp_path / 'audit.sqlite'}").start()
    yield s
    s.stop()


def crx_test_records() -> list[dict]:
    """crx_test.csv's rows as text records, as `c45rules predict` reads the file (no class)."""
    import csv
    with open(R.DATA / "crx" / "crx_test.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r.pop("class", None)
    return rows


PG_ENV = "C45RULES_PG_DSN"


@pytest.fixture
def pg_url():
    """A postgresql:// URL into a fresh schema of the C45RULES_PG_DSN server (dropped after);
    skipped without the variable, failed under CI (as tests/export's PostgreSQL tests)."""
    dsn = os.environ.get(PG_ENV)
    if not dsn:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL tests must run under CI: {PG_ENV} is not set")
        pytest.skip(f"{PG_ENV} is not set")
    import uuid
    from urllib.parse import quote, urlencode

    import psycopg
    from psycopg.conninfo import conninfo_to_dict
    schema = f"c45rules_audit_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    parts = {k: str(v) for k, v in conninfo_to_dict(dsn).items()}
    user = quote(parts.pop("user", ""), safe="")
    password = parts.pop("password", None)
    dbname = quote(parts.pop("dbname", ""), safe="")
    parts["options"] = f"-csearch_path={schema}"
    auth = f"{user}{':' + quote(password, safe='') if password else ''}@" if user else ""
    yield f"postgresql://{auth}/{dbname}?{urlencode(parts)}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
