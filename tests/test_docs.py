"""The documentation: the site builds with `mkdocs build --strict`, every public name has an API
section, and every code block of README.md and docs/*.md runs.

How the blocks run (docs/index.md, "The examples", says the same to readers):
* Each page runs in a fresh temporary directory holding the preamble: a copy of `examples/`
  (so `examples/crx/crx...` works as from the repository's root), `model.yaml` (what
  `c45rules fit examples/crx/crx -o model.yaml` writes) and `new.csv` (examples/crx/crx.csv
  without its class column); Python blocks also start with `df` (crx.csv read by pandas),
  `X` (df without `class`) and `y` (df's `class`).
* Blocks run in the page's order. ```python blocks share one namespace per page; ```bash
  blocks run as bash scripts (`set -e`), ```console blocks run their `$ ` lines; ```text
  blocks are output and are not run. A fence without a language is refused, so that no
  block is left out unnoticed.
* `<!-- needs: WHAT -->` just before a block: it runs when WHAT is there (`spark`: Java and
  pyspark; `jpmml`: Java and the PMML evaluators), else it is left out and the page's test skips
  after running the rest (under CI, where everything must be there, it fails). A JPMML block's
  JVM runs in a py4j gateway process rather than inside the test process (see
  tests/pmml_evaluators.py for why).
* `<!-- background: ready when URL answers -->` just before a shell block: a server. It starts
  in the background, the next block runs once URL answers, and it is stopped when the page is
  done. The URL's port is replaced, in that block and the page's later ones, by a free port.
* Opt-outs, kept rare and counted: the line `<!-- not run: REASON -->` just before a block, or
  `# not run: REASON` at the end of a shell line. Only what cannot run inside a test is left out
  (an install from PyPI into a new venv), and the reason names the CI script that runs it.

The strict build runs here rather than as a separate CI step so that the README's one test
command checks the site too, locally as in CI.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

import c45rules
from spark_env import spark_missing
from pmml_evaluators import evaluators_missing, jpmml_backend

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN = {"python", "bash", "console"}
NOT_RUN = {"text"}
OPT_OUT = re.compile(r"not run:\s*\S")
MAX_OPT_OUTS = 4  # the set-up commands (a venv and pip install): nothing else is left out
NEEDS = {"spark": spark_missing, "jpmml": evaluators_missing}  # why each cannot run here, or None


@dataclass
class Block:
    page: Path
    line: int          # of the opening fence, counted from 1
    lang: str
    code: str
    skipped: bool      # opted out as a whole
    marker: str        # the non-blank line just before the opening fence
    reason: str = ""   # an opt-out's reason

    @property
    def needs(self) -> list[str]:
        """What the block needs that a test machine may lack (`<!-- needs: a, b -->`)."""
        m = re.match(r"<!--\s*needs:\s*(.*?)\s*-->$", self.marker)
        return [w.strip() for w in m.group(1).split(",")] if m else []

    @property
    def ready_url(self) -> str | None:
        """For a server started in the background, the URL that answers once it is up."""
        m = re.match(r"<!--\s*background:\s*ready when (\S+) answers\s*-->$", self.marker)
        return m.group(1) if m else None


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order."""
    found, lines, i = [], page.read_text(encoding="utf-8").split("\n"), 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+)\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        before = next((l for l in reversed(lines[:start]) if l.strip()), "").strip()
        skipped = before.startswith("<!--") and bool(OPT_OUT.search(before))
        found.append(Block(page, start + 1, lang, "\n".join(body) + "\n", skipped, before,
                           before.split("not run:", 1)[1].removesuffix("-->").strip() if skipped else ""))
    return found


def opt_outs(page: Path) -> list[str]:
    """The reasons of the blocks and shell lines of a page marked `not run:`."""
    found = []
    for b in blocks(page):
        if b.skipped:
            found.append(b.reason)
        elif b.lang in ("bash", "console"):
            found += [line.split("not run:", 1)[1] for line in b.code.split("\n")
                      if "#" in line and OPT_OUT.search(line.split("#", 1)[1])]
    return found


def shell_script(b: Block) -> str:
    """The commands of a bash or console block, opted-out lines left out."""
    lines = b.code.split("\n")
    if b.lang == "console":
        lines = [l[2:] for l in lines if l.startswith("$ ")]
    kept = [l for l in lines if not ("#" in l and OPT_OUT.search(l.split("#", 1)[1]))]
    return "set -eo pipefail\n" + "\n".join(kept) + "\n"


@pytest.fixture(scope="module")
def preamble(tmp_path_factory) -> Path:
    """The files every page starts with (see the module's docstring), made once."""
    base = tmp_path_factory.mktemp("preamble")
    shutil.copytree(ROOT / "examples", base / "examples")
    env = _env(base)
    subprocess.run([sys.executable, "-m", "c45rules", "-q", "fit", "examples/crx/crx", "-o", "model.yaml"],
                   cwd=base, env=env, check=True, capture_output=True)
    import pandas as pd
    pd.read_csv(base / "examples/crx/crx.csv", dtype=str).drop(columns="class").to_csv(base / "new.csv", index=False)
    return base


def _env(where: Path) -> dict[str, str]:
    """The environment shell blocks run in, as in an activated venv: `c45rules` on PATH is this
    checkout's command and `python` this interpreter."""
    bin_dir = where / ".bin"
    bin_dir.mkdir(exist_ok=True)
    for name, run in (("c45rules", f'"{sys.executable}" -m c45rules'), ("python", f'"{sys.executable}"')):
        cmd = bin_dir / name
        cmd.write_text(f'#!/bin/sh\nexec {run} "$@"\n')
        cmd.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_block_has_a_language(page):
    """A bare fence would be neither run nor known to be output: every block names its kind."""
    bad = [f"{page.name}:{b.line}: {b.lang or 'no language'}" for b in blocks(page)
           if b.lang not in RUN | NOT_RUN]
    assert not bad, f"fenced blocks must be one of {sorted(RUN | NOT_RUN)}: {bad}"


def test_opt_outs_are_rare():
    """Blocks not run are the exception, each with its reason."""
    counts = {p.name: len(opt_outs(p)) for p in PAGES}
    assert sum(counts.values()) <= MAX_OPT_OUTS, counts


def test_opt_outs_name_the_ci_script_that_runs_them():
    """What the tests leave out, CI runs: each opt-out's reason names an existing .ci/ script
    (a server, Spark or Java are no reason to leave a block out: see `needs:` and `background:`)."""
    bad = []
    for page in PAGES:
        for reason in opt_outs(page):
            scripts = re.findall(r"\.ci/[\w.-]+", reason)
            if not scripts or not all((ROOT / s).is_file() for s in scripts):
                bad.append(f"{page.name}: {reason.strip()}")
    assert not bad, bad


def test_the_set_up_commands_are_the_ones_ci_runs():
    """README's two set-up commands, left out here, are what CI runs: .ci/run installs the same
    extras into a fresh venv and runs the same test command; .ci/wheel.sh runs the same demo."""
    [setup] = [b for b in blocks(ROOT / "README.md") if b.skipped]
    demo, tests = [l for l in setup.code.split("\n") if l.startswith("python3 -m venv")]
    ci, wheel = (ROOT / ".ci" / "run").read_text(), (ROOT / ".ci" / "wheel.sh").read_text()
    assert demo.endswith("&& c45rules demo out/") and '/bin/c45rules" demo out/' in wheel
    install, run = tests.split(" && ")[2:]
    assert install == "pip install -e '.[test,docs]'" and "-e '.[test,docs]'" in ci
    assert run == "python -m pytest -q" and "\npython -m pytest -q\n" in ci
    assert [b.code for b in blocks(ROOT / "docs" / "index.md") if b.skipped] == [setup.code]


def test_block_markers_are_known():
    """A misspelt `needs:` or `background:` line would leave a block to fail or hang unexplained."""
    bad = []
    for page in PAGES:
        for b in blocks(page):
            if b.marker.startswith("<!--") and not b.skipped:
                if re.match(r"<!--\s*needs:", b.marker) and not set(b.needs) <= NEEDS.keys():
                    bad.append(f"{page.name}:{b.line}: {b.marker} (known: {sorted(NEEDS)})")
                elif re.match(r"<!--\s*background:", b.marker) and not (b.ready_url and b.lang == "bash"):
                    bad.append(f"{page.name}:{b.line}: {b.marker}")
    assert not bad, bad


def _free_port() -> int:
    """A TCP port nothing listens on now (the OS's choice), for a documented server."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(script: str, url: str, cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    """A documented server, started in its own process group, once URL answers."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server ended (exit {proc.returncode}) before {url} answered:\n"
                        f"{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return proc
        except OSError:
            time.sleep(0.2)
    _stop(proc)
    pytest.fail(f"{url} did not answer within 120 s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    """End a server started by _start and everything it started (its process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(b.lang in RUN for b in blocks(p))], ids=lambda p: p.name)
def test_code_blocks_run(page, preamble, tmp_path, monkeypatch):
    """Every python, bash and console block of the page runs, in order, in the preamble's files;
    servers in the background, blocks needing what is not here left out (failed under CI)."""
    import pandas as pd
    work = tmp_path / "page"
    shutil.copytree(preamble, work, ignore=shutil.ignore_patterns(".bin"))
    env = _env(work)
    monkeypatch.chdir(work)
    df = pd.read_csv("examples/crx/crx.csv")
    namespace = {"__name__": "__docs__", "df": df, "X": df.drop(columns="class"), "y": df["class"]}
    ports: dict[str, str] = {}      # documented port -> the free one used instead
    servers: list[subprocess.Popen] = []
    left_out: list[str] = []
    try:
        for b in blocks(page):
            if b.skipped or b.lang not in RUN:
                continue
            where = f"{page.name}:{b.line}"
            missing = [why for why in (NEEDS[n]() for n in b.needs) if why]
            if missing:
                if os.environ.get("CI"):
                    pytest.fail(f"{where} must run under CI: {'; '.join(missing)}")
                left_out.append(f"{where} ({'; '.join(missing)})")
                continue
            url = b.ready_url
            if url:
                documented = str(urllib.parse.urlsplit(url).port)
                ports.setdefault(documented, str(_free_port()))
            code = b.code
            for documented, port in ports.items():
                code = re.sub(rf"(?<![\w.]){documented}(?![\w.])", port, code)
                url = url and re.sub(rf":{documented}\b", f":{port}", url)
            if b.lang == "python":
                if "jpmml_evaluator" in code:
                    import jpmml_evaluator
                    monkeypatch.setattr(jpmml_evaluator, "make_backend", lambda alias: jpmml_backend())
                    # the gateway's JVM keeps the working directory of the test that started it,
                    # so the page's relative file names are resolved here, in the page's directory
                    made = jpmml_evaluator.make_evaluator
                    monkeypatch.setattr(jpmml_evaluator, "make_evaluator",
                                        lambda path, *a, **k: made(os.path.abspath(path), *a, **k))
                exec(compile(code, where, "exec"), namespace)
                continue
            script = shell_script(Block(b.page, b.line, b.lang, code, False, b.marker))
            if url:
                servers.append(_start(script, url, work, env, tmp_path / f"server-{b.line}.log"))
                continue
            done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=600)
            assert done.returncode == 0, f"{where} exit {done.returncode}:\n{code}\n{done.stderr[-3000:]}"
    finally:
        for proc in servers:
            _stop(proc)
    if left_out:
        pytest.skip(f"blocks left out, what they need is missing: {left_out}")


def _documented_names() -> set[str]:
    """Names the API page renders: `::: module.NAME` sections and headed names."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    return ({m.rsplit(".", 1)[-1] for m in re.findall(r"^:::\s*(\S+)", text, re.M)}
            | set(re.findall(r"^#+\s*`([^`]+)`", text, re.M)))


def test_api_reference_covers_all_public_names():
    """No undocumented public name: every name of c45rules.__all__ has a section in docs/api.md,
    rendered from the object it is (the section's path resolves to that very object)."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    missing = set(c45rules.__all__) - _documented_names()
    assert not missing, f"public names without an API section: {sorted(missing)}"
    import importlib
    for path in re.findall(r"^:::\s*(\S+)", text, re.M):
        module, name = path.rsplit(".", 1)
        assert getattr(importlib.import_module(module), name) is getattr(c45rules, name), path


def test_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: no broken link, no warning; the CLI reference holds every
    command's help and the API page every public name."""
    try:
        import mkdocs  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError as e:
        if os.environ.get("CI"):
            pytest.fail(f"the docs extra must be installed under CI: {e}")
        pytest.skip(f"the docs extra is not installed: {e}")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    from c45rules.cli import _MODULES
    cli = (site / "cli-reference" / "index.html").read_text(encoding="utf-8")
    for name in _MODULES:
        assert f"c45rules {name}" in cli and f"usage: c45rules {name}" in cli, name
    api = re.sub(r"<[^>]+>", "", (site / "api" / "index.html").read_text(encoding="utf-8"))
    for name in c45rules.__all__:
        assert name in api, name
    assert not (site / "hooks").exists(), "the build hook is not a page"
