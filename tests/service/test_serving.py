"""Serving as documented: `serve --help`'s example decides, "serving on" is printed once the
service answers (with several workers too), each log line names its worker, and values not seen
in training are named in the answer ("unseen")."""
from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

from c45rules.service.app import ServiceConfig, create_app

from e2e.conftest import command, ok
from .conftest import HOST, Server, call, crx_test_records, free_port
from .test_app import _lifespan, _request

REPO = Path(__file__).resolve().parents[2]


def test_the_help_example_decides(tmp_path):
    lines = [line.strip() for line in ok("serve", "--help").stdout.split("example:\n", 1)[1].strip().splitlines()]
    [curl] = [line for line in lines if line.startswith("curl ")]
    (tmp_path / "models").mkdir()
    ok("fit", REPO / "examples" / "crx" / "crx", "-o", tmp_path / "models" / "credit.yaml")
    s = Server(tmp_path / "models", f"sqlite:{tmp_path / 'audit.sqlite'}").start()
    try:
        assert "localhost:8080" in curl
        p = subprocess.run(shlex.split(curl.replace("localhost:8080", f"{HOST}:{s.port}")) + ["-w", "\n%{http_code}"],
                           capture_output=True, text=True, timeout=30)
    finally:
        s.stop()
    body, status = p.stdout.rsplit("\n", 1)
    assert status == "200", body
    answer = json.loads(body)
    assert answer["model"] == "credit" and answer["class"] in ("+", "-") and "unseen" not in answer
    assert answer["rule_id"] == 28 and answer["explanation"] == "rule 28: A9 = t and A15 > 228"
    # the example's first line makes that model, as a shell runs it from the repository's top
    [fit] = [line for line in lines if " fit " in line]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "examples").symlink_to(REPO / "examples")
    p = subprocess.run(["bash", "-c", f"c45rules() {{ {shlex.join(command())} \"$@\"; }}\n{fit}"], cwd=tmp_path / "run",
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "run" / "models" / "credit.yaml").read_bytes() == (tmp_path / "models" / "credit.yaml").read_bytes()


class _Stderr:
    """A process's stderr lines as they come, each with the moment it came."""

    def __init__(self, stream) -> None:
        self.lines: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append((time.monotonic(), line.decode(errors="replace").rstrip("\n")))

    def matching(self, pattern: str) -> list[str]:
        return [line for _, line in self.lines if re.search(pattern, line)]


def test_serving_is_printed_once_answering_and_log_lines_name_their_worker(models, tmp_path):
    port = free_port()
    proc = subprocess.Popen([*command(), "serve", str(models), "--host", HOST, "--port", str(port), "--workers", "2",
                             "--audit", f"sqlite:{tmp_path / 'audit.sqlite'}", "--poll", "0.2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    err = _Stderr(proc.stderr)
    try:
        deadline = time.monotonic() + 60
        while not err.matching("^c45rules: serving ") and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.001)
        [line] = err.matching("^c45rules: serving ")
        # the moment the line is there, the service answers (no retry, a short timeout)
        status, body = call("GET", f"http://{HOST}:{port}/healthz", timeout=2)
        assert status == 200 and body["models"] == 1
        assert f"on http://{HOST}:{port} (2 workers" in line
        # each worker logs that it serves crx, naming itself: two workers, two pids
        deadline = time.monotonic() + 30
        while len(err.matching("model crx: serving")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        named = [re.match(r"c45rules serve: worker (\d+) \(pid (\d+)\): INFO: model crx: serving", line)
                 for line in err.matching("model crx: serving")]
        assert len(named) == 2 and all(named), err.lines
        assert sorted(m.group(1) for m in named) == ["0", "1"] and named[0].group(2) != named[1].group(2)
        assert all(int(m.group(2)) != proc.pid for m in named)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    # every c45rules log line named its worker
    logged = err.matching(r"^c45rules serve: ")
    assert logged and all(re.match(r"c45rules serve: worker \d+ \(pid \d+\): ", line) for line in logged)


def test_values_not_seen_in_training_are_named(models, tmp_path):
    app = create_app(ServiceConfig(str(models), f"sqlite:{tmp_path / 'audit.sqlite'}"))
    seen = crx_test_records()[0]
    # A15 = -2: a number equal to the code of an unseen value, yet no unseen value
    odd = {**seen, "A9": "maybe", "A4": "zz", "A13": None, "A15": -2, "A1": "not tested by the rules"}
    cases = [(b"", odd), (b"explain=true", odd), (b"", seen), (b"explain=1", [seen, odd, seen, {**seen, "A7": "?"},
                                                                                {**seen, "A13": "q"}]),
             (b"", {**odd, "A4": None, "A9": None})]

    async def work():
        return [(await _request(app, "POST", "/v1/models/crx/decide", query, json.dumps(body).encode()),
                 await _request(app.fastapi, "POST", "/v1/models/crx/decide", query, json.dumps(body).encode()))
                for query, body in cases]
    answered = asyncio.run(_lifespan(app, work))
    for fast, slow in answered:   # the fast route answers as the documented one
        assert fast[0] == slow[0] == 200
        assert re.sub(rb'"request_id":"\w+"', b"", fast[2]) == re.sub(rb'"request_id":"\w+"', b"", slow[2])
    one, explained, plain, many, unknown = (json.loads(a[0][2]) for a in answered)
    assert one["unseen"] == ["A4", "A9"] and list(one)[-1] == "unseen"
    assert explained["unseen"] == ["A4", "A9"] and "explanation" in explained
    assert "unseen" not in plain   # none: no key, the answer as before
    assert [d.get("unseen") for d in many["decisions"]] == [None, ["A4", "A9"], None, None, ["A13"]]
    # the decision is the one made with those values unknown: they match no test
    assert one["rule_id"] == unknown["rule_id"] and "unseen" not in unknown
    # the OpenAPI page documents the field
    spec = app.fastapi.openapi()
    assert "unseen" in spec["components"]["schemas"]["DecisionFields"]["properties"]
