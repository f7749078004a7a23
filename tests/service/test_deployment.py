"""The deployment recipe (issue 55, point 6): the Dockerfile, deploy/compose.yaml and
deploy/nginx.conf that docs/deployment.md shows.

No image can be built on the test machines (no container engine runs there), so what is
checked is what the image would run: the Dockerfile installs extras the package has, on a
Python it supports; its ENTRYPOINT and each replica's compose `command` make a `serve` that
starts here (container paths mapped to temporary ones, the PostgreSQL URL to the test's) and
decides, both replicas into the one store; its HEALTHCHECK command passes against it; nginx's
upstream names exactly the compose replicas on the port the image listens on; and the page
shows these very files.
"""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import yaml

from c45rules.service.workerfiles import open_audit

from e2e.conftest import command
from .conftest import HOST, call, crx_test_records, free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "deploy" / "compose.yaml"
NGINX = ROOT / "deploy" / "nginx.conf"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, its text) of the Dockerfile's last stage, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    stages = [i for i, line in enumerate(lines) if line.startswith("FROM ")]
    return [tuple(line.split(None, 1)) for line in lines[stages[-1]:]]


def _one(kind: str) -> str:
    found = [text for k, text in _instructions() if k == kind]
    assert len(found) == 1, (kind, found)
    return found[0]


def _replicas() -> dict[str, list[str]]:
    """Each compose service that runs the image: its command."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    return {name: s["command"] for name, s in services.items() if s.get("image") == "c45rules-serve"}


def test_the_image_installs_extras_the_package_has_on_a_python_it_supports():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"])
    for kind, text in _instructions():
        for spec in re.findall(r"c45rules\[([a-z,]+)\]", text):
            assert set(spec.split(",")) <= extras, spec
    base = re.fullmatch(r"python:(\d+)\.(\d+)-slim", _one("FROM"))
    needed = re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"])
    assert base and needed and tuple(map(int, base.groups())) >= tuple(map(int, needed.groups()))
    assert _one("EXPOSE") == "8080"


def _mapped(args: list[str], models: Path, audit: str, token: Path, port: int) -> list[str]:
    """The container's command for this machine: its paths, address, port and store replaced."""
    out = list(args)
    for flag, value in (("--host", HOST), ("--port", str(port)), ("--audit", audit), ("--token-file", str(token))):
        if flag in out:
            out[out.index(flag) + 1] = value
    return [str(models) if a == "/models" else a for a in out]


@pytest.mark.postgres
def test_the_replicas_run_as_the_image_would(models, tmp_path, pg_url):
    entrypoint, cmd = json.loads(_one("ENTRYPOINT")), json.loads(_one("CMD"))
    assert entrypoint[:3] == ["c45rules", "serve", "/models"] and "--port" in entrypoint
    replicas = _replicas()
    assert len(replicas) >= 2 and all(c[:len(cmd)] == cmd for c in replicas.values()), (cmd, replicas)
    token = tmp_path / "token"
    token.write_text("a-test-token-of-some-length\n")
    procs, ports = [], []
    try:
        for name, args in replicas.items():
            port = free_port()
            argv = _mapped([*entrypoint, *args], models, pg_url, token, port)
            procs.append(subprocess.Popen([*command(), *argv[1:]], stdout=subprocess.DEVNULL,
                                          stderr=open(tmp_path / f"{name}.log", "wb"), start_new_session=True))
            ports.append(port)
        for port, proc in zip(ports, procs):
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, f"a replica exited {proc.returncode}"
                try:
                    if call("GET", f"http://{HOST}:{port}/readyz", timeout=2)[0] == 200:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "a replica did not get ready"
                time.sleep(0.2)
            # the image's HEALTHCHECK, on this replica's port
            check = json.loads(re.search(r"CMD (\[.*\])", _one("HEALTHCHECK")).group(1))
            check = [sys.executable if a == "python" else a.replace(":8080/", f":{port}/") for a in check]
            assert subprocess.run(check, timeout=30).returncode == 0
        auth = {"Authorization": "Bearer a-test-token-of-some-length"}
        answers = [call("POST", f"http://{HOST}:{port}/v1/models/crx/decide", crx_test_records()[0], auth)
                   for port in ports]
        assert [status for status, _ in answers] == [200] * len(ports)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        assert [proc.wait(timeout=30) for proc in procs] == [0] * len(procs)   # the graceful stop
    store = open_audit(pg_url)
    assert sorted(d.request_id for d in store.decisions()) == sorted(body["request_id"] for _, body in answers)
    store.close()


def test_nginx_spreads_over_the_compose_replicas():
    text = NGINX.read_text()
    upstream = re.search(r"upstream c45rules \{(.*?)\}", text, re.S).group(1)
    servers = re.findall(r"^\s*server (\S+):(\d+)", upstream, re.M)
    assert sorted(servers) == sorted((name, _one("EXPOSE")) for name in _replicas())
    assert "proxy_pass http://c45rules;" in text


def test_the_deployment_page_shows_these_files():
    page = (ROOT / "docs" / "deployment.md").read_text()
    for file in ("Dockerfile", "deploy/compose.yaml", "deploy/nginx.conf"):
        assert f'--8<-- "{file}"' in page, file
    assert "deployment.md" in (ROOT / "mkdocs.yml").read_text()
