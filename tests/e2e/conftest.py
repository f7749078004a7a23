"""End-to-end helpers: run the installed `c45rules` command in a subprocess."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# the shared datasets and reference outputs: one locator for every test (bench/reference.py)
from reference import DATA, REF as REFERENCE  # noqa: E402,F401  (re-exported to the tests)
REPO = Path(__file__).resolve().parents[2]


def command() -> list[str]:
    """The installed console script beside this interpreter, else `python -m c45rules`."""
    beside = Path(sys.executable).parent / "c45rules"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("c45rules")
    return [found] if found else [sys.executable, "-m", "c45rules"]


def run(*args: str | os.PathLike, cwd: str | os.PathLike | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `c45rules ARGS`, capturing text output (stdin closed, stderr not a terminal)."""
    return subprocess.run([*command(), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, stdin=subprocess.DEVNULL)


def ok(*args, **kw) -> subprocess.CompletedProcess:
    """Run and require exit status 0 and no error text."""
    p = run(*args, **kw)
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def fails(*args, **kw) -> str:
    """Run, require exit status 2 with one `c45rules: error:` line and no traceback; its text."""
    p = run(*args, **kw)
    assert p.returncode == 2, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    # an old option spelling's warning (issue 49) may come before the error
    lines = [x for x in p.stderr.strip().splitlines() if not re.match(r"c45rules: warning: \S+ is deprecated, use ", x)]
    assert len(lines) == 1 and lines[0].startswith("c45rules: error: "), p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


@pytest.fixture(scope="session")
def crx_model(tmp_path_factory) -> Path:
    """crx fitted once from its C4.5 stem with default options."""
    path = tmp_path_factory.mktemp("model") / "crx.yaml"
    ok("fit", DATA / "crx" / "crx", "-o", path)
    return path


@pytest.fixture(scope="session")
def crx_predicted(crx_model, tmp_path_factory) -> Path:
    """`c45rules predict` of the crx model on crx_test.csv."""
    out = tmp_path_factory.mktemp("predicted") / "crx_test_scored.csv"
    ok("predict", crx_model, DATA / "crx" / "crx_test.csv", "-o", out)
    return out


def cli_err(argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `c45rules ARGV` run in this process.

    For the many variations of one failure path; each path also has a subprocess test.
    """
    import contextlib
    import io

    from c45rules.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:   # argparse: --help and usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()


def cli(argv: list[str]) -> tuple[int, str]:
    """(exit status, stdout) of `c45rules ARGV` run in this process; stderr must be empty."""
    code, out, err = cli_err(argv)
    assert err == "", err
    return code, out
