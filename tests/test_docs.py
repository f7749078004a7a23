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
* Opt-outs, kept rare and counted: the line `<!-- not run: REASON -->` just before a block, or
  `# not run: REASON` at the end of a shell line.

The strict build runs here rather than as a separate CI step so that the README's one test
command checks the site too, locally as in CI.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import c45rules

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN = {"python", "bash", "console"}
NOT_RUN = {"text"}
OPT_OUT = re.compile(r"not run:\s*\S")
MAX_OPT_OUTS = 10  # the set-up commands, a server, Spark and Java: keep it this rare


@dataclass
class Block:
    page: Path
    line: int          # of the opening fence, counted from 1
    lang: str
    code: str
    skipped: bool      # opted out as a whole


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
        before = next((l for l in reversed(lines[:start]) if l.strip()), "")
        skipped = before.strip().startswith("<!--") and bool(OPT_OUT.search(before))
        found.append(Block(page, start + 1, lang, "\n".join(body) + "\n", skipped))
    return found


def opt_outs(page: Path) -> int:
    """Blocks and shell lines of a page marked `not run:`."""
    n = 0
    for b in blocks(page):
        if b.skipped:
            n += 1
        elif b.lang in ("bash", "console"):
            n += sum(1 for line in b.code.split("\n") if "#" in line and OPT_OUT.search(line.split("#", 1)[1]))
    return n


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
    counts = {p.name: opt_outs(p) for p in PAGES}
    assert sum(counts.values()) <= MAX_OPT_OUTS, counts


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(b.lang in RUN for b in blocks(p))], ids=lambda p: p.name)
def test_code_blocks_run(page, preamble, tmp_path, monkeypatch):
    """Every python, bash and console block of the page runs, in order, in the preamble's files."""
    import pandas as pd
    work = tmp_path / "page"
    shutil.copytree(preamble, work, ignore=shutil.ignore_patterns(".bin"))
    env = _env(work)
    monkeypatch.chdir(work)
    df = pd.read_csv("examples/crx/crx.csv")
    namespace = {"__name__": "__docs__", "df": df, "X": df.drop(columns="class"), "y": df["class"]}
    for b in blocks(page):
        if b.skipped or b.lang not in RUN:
            continue
        where = f"{page.name}:{b.line}"
        if b.lang == "python":
            exec(compile(b.code, where, "exec"), namespace)
            continue
        done = subprocess.run(["bash", "-c", shell_script(b)], cwd=work, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{where} exit {done.returncode}:\n{b.code}\n{done.stderr[-3000:]}"


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
