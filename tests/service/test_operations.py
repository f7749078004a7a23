"""The service in operation (issue 55): /metrics over every worker, /readyz following the audit
store, JSON logs with the client's X-Request-ID, and a graceful SIGTERM."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import threading
import time
import urllib.request
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from .conftest import HOST, Server, call, crx_test_records, wait_for
from e2e.conftest import command

RECORD = {"A4": "u", "A6": "c", "A7": "v", "A9": "t", "A11": 3, "A12": "f", "A13": "g", "A14": None, "A15": 300}


def scrape(server: Server, headers: dict | None = None) -> tuple[int, str]:
    """(status, text) of GET /metrics."""
    req = urllib.request.Request(server.url + "/metrics", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def samples(text: str, name: str) -> dict[tuple, float]:
    """The samples of metric `name` in a text exposition: {sorted label items: value}."""
    found = {}
    for line in text.splitlines():
        m = re.fullmatch(re.escape(name) + r"(?:\{(.*)\})? (\S+)", line)
        if m:
            labels = tuple(sorted(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1) or "")))
            found[labels] = float(m.group(2))
    return found


def test_metrics_count_every_workers_decisions(models, tmp_path):
    s = Server(models, f"sqlite:{tmp_path / 'audit.sqlite'}", "--workers", "2").start()
    try:
        # both workers up: each loaded the model once (the server answers once the first has)
        assert wait_for(lambda: samples(scrape(s)[1], "c45rules_model_reloads_total")
                        .get((("model", "crx"),)) == 2, timeout=60)
        records = crx_test_records()[:40]
        answers = [call("POST", s.url + "/v1/models/crx/decide", r)[1] for r in records]
        batch = call("POST", s.url + "/v1/models/crx/decide", records)[1]["decisions"]
        assert call("POST", s.url + "/v1/models/crx/decide", {"A4": "u"})[0] == 422
        assert call("POST", s.url + "/v1/models/nope/decide", RECORD)[0] == 404
        expected: dict[tuple, int] = {}
        for d in answers + batch:
            key = (d["class"], str(d["rule_id"]))
            expected[key] = expected.get(key, 0) + 1
        fingerprint = answers[0]["fingerprint"]
        # a request is timed once its answer is sent: the last ones may still be on their way
        assert wait_for(lambda: samples(scrape(s)[1], "c45rules_request_seconds_count")
                        .get((("route", "decide"),)) == len(records) + 3, timeout=60)
        # each scrape is answered by one worker, and sums what both workers counted
        for _ in range(4):
            status, text = scrape(s)
            assert status == 200
            counted = {(dict(k)["class"], dict(k)["rule_id"]): v
                       for k, v in samples(text, "c45rules_decisions_total").items() if v}
            assert counted == expected
            assert {dict(k)["fingerprint"] for k in samples(text, "c45rules_decisions_total")} == {fingerprint}
            errors = {dict(k)["status"]: v for k, v in samples(text, "c45rules_errors_total").items()}
            assert errors["422"] == 1 and errors["404"] == 1
            decide = samples(text, "c45rules_request_seconds_count")[(("route", "decide"),)]
            assert decide == len(records) + 3
            assert samples(text, "c45rules_audit_commit_seconds_count")[()] >= 1
            assert samples(text, "c45rules_audit_queue_depth")[()] == 0
            assert samples(text, "c45rules_model_reloads_total")[(("model", "crx"),)] == 2
        (models / "bad.yaml").write_text("not: a model\n")
        assert wait_for(lambda: samples(scrape(s)[1], "c45rules_model_refused_total")
                        .get((("model", "bad"),)) == 2, timeout=60, times=3)
    finally:
        s.stop()


def test_probes_are_open_and_metrics_need_the_token(models, tmp_path):
    token = tmp_path / "token"
    token.write_text("s3cret-token-0123456789\n")
    s = Server(models, f"sqlite:{tmp_path / 'audit.sqlite'}", "--token-file", str(token)).start()
    try:
        assert call("GET", s.url + "/readyz") == (200, {"status": "ready", "models": 1, "problems": []})
        assert scrape(s)[0] == 401
        bearer = {"Authorization": "Bearer s3cret-token-0123456789"}
        assert call("POST", s.url + "/v1/models/crx/decide", RECORD, bearer)[0] == 200
        status, text = scrape(s, bearer)
        assert status == 200 and sum(samples(text, "c45rules_decisions_total").values()) == 1
    finally:
        s.stop()


def test_readyz_without_models(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "broken.yaml").write_text("rules: [\n")
    s = Server(folder, f"sqlite:{tmp_path / 'audit.sqlite'}")   # its port and url; started here
    port = s.port
    import subprocess
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen([*command(), "serve", str(folder), "--host", HOST, "--port", str(port),
                             "--audit", f"sqlite:{tmp_path / 'audit.sqlite'}"], stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        assert wait_for(lambda: _status(s.url + "/healthz") == 200, timeout=60)
        status, body = call("GET", s.url + "/readyz")
        assert status == 503 and body["status"] == "not ready"
        assert body["problems"] == ["no model is served (see the log for refused files)"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


def _status(url: str) -> int | None:
    try:
        return call("GET", url, timeout=2)[0]
    except OSError:
        return None


class SocketProxy:
    """A Unix-socket proxy in front of PostgreSQL's socket that a test takes down and brings back:
    down, it listens no more and cuts every connection, as a server gone away does."""

    def __init__(self, folder, target: str) -> None:
        self.path, self.target = str(folder / ".s.PGSQL.5432"), target
        self.pairs: list[socket.socket] = []
        self.listener: socket.socket | None = None

    def up(self) -> None:
        """Listen (again)."""
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.path)
        self.listener.listen(64)
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def down(self) -> None:
        """Stop listening and cut every connection."""
        self.listener.close()
        os.unlink(self.path)
        for s in self.pairs:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.pairs.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.target)
            self.pairs += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def test_readyz_follows_a_postgresql_outage(models, tmp_path_factory, pg_url):
    query = dict(parse_qsl(urlsplit(pg_url).query))
    target = os.path.join(query["host"], f".s.PGSQL.{query.get('port', '5432')}")
    if not os.path.exists(target):
        pytest.skip("the PostgreSQL server is not reached through a Unix socket")
    folder = tmp_path_factory.mktemp("pgproxy")
    proxy = SocketProxy(folder, target)
    proxy.up()
    query.update(host=str(folder), port="5432")
    url = pg_url.split("?")[0] + "?" + urlencode(query)
    s = Server(models, url).start()
    try:
        assert call("GET", s.url + "/readyz")[0] == 200
        proxy.down()
        status, body = call("GET", s.url + "/readyz")
        assert status == 503 and body["problems"][0].startswith("the audit store takes no writes")
        assert call("POST", s.url + "/v1/models/crx/decide", RECORD)[0] == 503
        proxy.up()
        assert wait_for(lambda: call("GET", s.url + "/readyz")[0] == 200, timeout=60)
        status, decided = call("POST", s.url + "/v1/models/crx/decide", RECORD)
        assert status == 200
    finally:
        s.stop()
        proxy.down()
    import subprocess
    p = subprocess.run([*command(), "audit", pg_url, "--json"], capture_output=True, text=True, timeout=60)
    assert [json.loads(line)["request_id"] for line in p.stdout.splitlines()] == [decided["request_id"]]


def test_json_logs_and_the_clients_request_id(models, tmp_path):
    s = Server(models, f"sqlite:{tmp_path / 'audit.sqlite'}", "--log-format", "json").start()
    try:
        req = urllib.request.Request(s.url + "/v1/models/crx/decide", data=json.dumps(RECORD).encode(),
                                     headers={"X-Request-ID": "order-4711"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.headers["X-Request-ID"] == "order-4711"
            answer = json.loads(r.read())
        with urllib.request.urlopen(s.url + "/v1/models", timeout=30) as r:
            made = r.headers["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{32}", made)
        status, body = call("POST", s.url + "/v1/models/crx/decide", RECORD, {"X-Request-ID": "x" * 129})
        assert status == 400 and body["field"] == "X-Request-ID"
    finally:
        s.stop()
    lines = [json.loads(line) for line in s.read_log().splitlines() if line.startswith("{")]
    decided = [line for line in lines if line.get("request_id") == "order-4711"]
    assert len(decided) == 1
    line = decided[0]
    assert line["level"] == "INFO" and line["worker"] == "worker 0" and line["status"] == 200
    assert line["model"] == "crx" and line["rule_id"] == answer["rule_id"] and line["audit_id"] == answer["request_id"]
    assert line["latency_ms"] > 0 and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", line["time"])
    assert any(line.get("request_id") == made and line["path"] == "/v1/models" for line in lines)
    assert any(line.get("status") == 400 for line in lines)
    # every line the server wrote is one JSON object, uvicorn's too
    assert all(line.startswith("{") for line in s.read_log().splitlines() if not line.startswith("c45rules: serving"))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_finishes_the_request_in_flight(models, tmp_path, workers):
    audit = tmp_path / "audit.sqlite"
    s = Server(models, f"sqlite:{audit}", "--workers", workers).start()
    body = json.dumps(RECORD).encode()
    conn = socket.create_connection((HOST, s.port), timeout=30)
    conn.sendall(b"POST /v1/models/crx/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
    time.sleep(2.0)   # the request is in flight: the worker is reading its body (time on a loaded machine)
    os.kill(s.proc.pid, signal.SIGTERM)   # as `docker stop` does: to the main process alone
    time.sleep(1.0)
    assert s.proc.poll() is None   # still waiting for the request
    conn.sendall(body[10:])
    answer = conn.makefile("rb").read().decode()
    conn.close()
    assert answer.startswith("HTTP/1.1 200"), answer
    decision = json.loads(answer.split("\r\n\r\n", 1)[1])
    assert s.proc.wait(timeout=30) == 0
    s.log.close()
    import subprocess
    p = subprocess.run([*command(), "audit", f"sqlite:{audit}", "--json"], capture_output=True, text=True, timeout=60)
    assert [json.loads(line)["request_id"] for line in p.stdout.splitlines()] == [decision["request_id"]]
    with pytest.raises(OSError):   # no longer listening
        socket.create_connection((HOST, s.port), timeout=2).close()
