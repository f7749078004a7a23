"""Real DMN tooling for the DMN export tests, from the npm registry (tests/dmn/package.json,
installed by `npm ci` in .ci/run): @hbtgmbh/dmn-eval-js evaluates DMN 1.1 files; dmn-moddle
reads DMN 1.3 files and @bpmn-io/feelin evaluates every entry of their tables under hit
policy FIRST (tests/dmn/evaluate.mjs). One node process decides all the records of a call.

Without node or tests/dmn/node_modules the tests skip, except under CI (env CI set), where
they fail.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DMN_DIR = Path(__file__).resolve().parent / "dmn"
ENGINES = {"1.1": "dmn-eval-js", "1.3": "feelin"}


def require_dmn_engines() -> None:
    """Skip (fail under CI) unless node and the npm packages of tests/dmn are installed."""
    problem = None
    if shutil.which("node") is None:
        problem = "node is not on PATH (apt-get install nodejs npm)"
    else:
        missing = [p for p in ("@hbtgmbh/dmn-eval-js", "dmn-moddle", "@bpmn-io/feelin")
                   if not (DMN_DIR / "node_modules" / p / "package.json").is_file()]
        if missing:
            problem = f"{', '.join(missing)} not installed (run `npm ci` in {DMN_DIR})"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"DMN engine tests must run under CI: {problem}")
        pytest.skip(problem)


def decide(version: str, dmn_text: str, records: list[dict], decision: str = "decision") -> list[dict | None]:
    """The engine's outputs for each record ({output name: value}; None when no rule matched),
    from the engine that reads DMN `version` (1.1: dmn-eval-js; 1.3: dmn-moddle + feelin)."""
    request = {"engine": ENGINES[version], "dmn": dmn_text, "decision": decision, "records": records}
    done = subprocess.run(["node", str(DMN_DIR / "evaluate.mjs")], input=json.dumps(request, allow_nan=False),
                          capture_output=True, text=True, encoding="utf-8", timeout=600, cwd=DMN_DIR)
    if done.returncode != 0:
        raise AssertionError(f"the DMN engine failed ({ENGINES[version]}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)
