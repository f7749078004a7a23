"""What the benchmark scripts share: process-tree memory, the run stamp, the machine, and
BENCHMARKS.md's tables and kept sections."""
from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import reference as R  # noqa: E402

# made on demand by make_synth.py, never committed: (size, extra arguments); the _u5 sets have
# 5% of every attribute unknown, so their trees grow node by node with fractional weights
GENERATED = {"synth_1m": ("1m", ()), "synth_100k_u5": ("100k", ("--missing", "0.05")),
             "synth_1m_u5": ("1m", ("--missing", "0.05"))}
DATA_DIR = ROOT / "bench" / "data"
# A section another script owns inside BENCHMARKS.md: bench/run.py rewrites the file but keeps
# these blocks, and each script replaces only its own.
_SECTION = re.compile(r"<!-- section (?P<name>[\w.-]+) -->\n.*?<!-- /section (?P=name) -->\n", re.S)


def bytecode_compiled(package: Path = ROOT / "c45rules") -> None:
    """Write the package's bytecode files, as `pip install` does. An editable checkout run
    with PYTHONDONTWRITEBYTECODE set (as on the shared bench machine) otherwise compiles
    every imported module again at each start: 0.09 s CPU of income's 0.48 s, a cost no
    installed copy pays, which the whole-process timings would charge to the program."""
    import compileall
    if not compileall.compile_dir(str(package), quiet=1):
        raise SystemExit(f"{package}: compiling the package's bytecode failed")


def pss_kb(pid: int) -> int:
    """Proportional set size of one process (kB; 0 once it is gone)."""
    try:
        m = re.search(r"^Pss:\s+(\d+) kB", Path(f"/proc/{pid}/smaps_rollup").read_text(), re.M)
    except OSError:
        return 0
    return int(m.group(1)) if m else 0


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children of all its threads, recursively)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                kids = [int(k) for k in Path(f"/proc/{p}/task/{t}/children").read_text().split()]
            except OSError:
                kids = []
            out += kids
            todo += kids
    return out


class TreePss(threading.Thread):
    """Sampled (every 0.1 s) peak of the summed PSS of a process and its descendants (kB)."""

    def __init__(self, pid: int | None = None) -> None:
        super().__init__(daemon=True)
        self.pid = pid or os.getpid()
        self.peak = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.1):
            self.peak = max(self.peak, pss_kb(self.pid) + sum(pss_kb(c) for c in descendants(self.pid)))

    def stop(self) -> int:
        self.halt.set()
        self.join()
        return self.peak


_STAMP: dict = {}


def run_stamp() -> dict:
    """Date and commit of this run (the commit marked +uncommitted when c45rules/ is edited)."""
    if not _STAMP:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                    capture_output=True).stdout.strip()
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "c45rules"],
                                   cwd=ROOT, text=True, capture_output=True).stdout.strip()
        except OSError:
            commit, dirty = "?", ""
        _STAMP.update(date=dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
                      commit=commit + ("+uncommitted" if dirty else ""))
    return dict(_STAMP)


def machine() -> dict:
    """The machine and the library versions a table was measured with."""
    cpu = "?"
    try:
        m = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = m.group(1).strip() if m else platform.processor() or "?"
    except OSError:
        pass
    try:
        kb = int(re.search(r"^MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text(), re.M).group(1))
        ram = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, AttributeError):
        ram = "?"
    import numpy
    import pandas
    try:
        import sklearn
        skv = sklearn.__version__
    except ImportError:
        skv = "not installed"
    return {"cpu": cpu, "cores": os.cpu_count(), "usable cores": len(os.sched_getaffinity(0)),
            "ram": ram, "python": platform.python_version(), "numpy": numpy.__version__,
            "pandas": pandas.__version__, "scikit-learn": skv,
            "os": f"{platform.system()} {platform.release()}"}


def written_by(command: str) -> str:
    """'Written by `command` at commit C, DATE; CPU, N cores.': how a section of BENCHMARKS.md was made."""
    stamp, mach = run_stamp(), machine()
    return (f"Written by `{command}` at commit {stamp.get('commit', '?')}, {stamp.get('date', '?')}; "
            f"{mach.get('cpu', '?')}, {mach.get('cores', '?')} cores.")


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table, numbers right-aligned (every column but the text ones)."""
    right = {i for i, h in enumerate(header) if h not in ("dataset", "stage", "target", "met", "detail",
                                                        "engine", "data", "agrees")}
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def kept_sections(text: str) -> list[str]:
    """The sections other scripts own in a BENCHMARKS.md text, in order."""
    return [m.group(0) for m in _SECTION.finditer(text)]


def put_section(path: Path, name: str, body: str) -> None:
    """Write `body` as section `name` of the markdown file: in place of its earlier text, or
    appended; the rest of the file is kept; written atomically."""
    block = f"<!-- section {name} -->\n{body.rstrip()}\n<!-- /section {name} -->\n"
    text = path.read_text() if path.exists() else ""
    for m in _SECTION.finditer(text):
        if m.group("name") == name:
            text = text[:m.start()] + block + text[m.end():]
            break
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def dataset_stem(name: str) -> str:
    """Path stem of a dataset, generating synth_1m and the _u5 sets into bench/data when missing."""
    if name in GENERATED:
        size, extra = GENERATED[name]
        # make_synth names its output synth_SIZE: variants get a directory of their own
        root = DATA_DIR if not extra else DATA_DIR / name
        stem = root / f"synth_{size}" / f"synth_{size}"
        if not (Path(f"{stem}.names").exists() and Path(f"{stem}.data").exists()):
            print(f"generating {name} into {root} ...", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, str(R.SHARED / "tools" / "make_synth.py"),
                            "--sizes", size, *extra, "--outroot", str(root)], check=True)
        return str(stem)
    if (DATA_DIR / name / f"{name}.names").exists():
        return str(DATA_DIR / name / name)
    if (R.DATA / name / f"{name}.names").exists():
        return R.stem(name)
    raise SystemExit(f"unknown dataset {name!r}: not in {R.DATA} nor {DATA_DIR}"
                     f" (known: {', '.join(R.datasets() + list(GENERATED))})")


def wrap_pipeline_steps(timed: Callable[[str, Callable], Callable]) -> None:
    """Replace the pipeline's step functions by `timed(stage, fn)` wrappers, stage by stage
    (grow, prune, generalise, select, order), for the per-stage benchmarks."""
    import c45rules.learn.pipeline as pipeline
    import c45rules.tree.growers.c45 as c45
    c45.grow_tree = timed("grow", c45.grow_tree)
    c45.prune_tree = timed("prune", c45.prune_tree)
    pipeline.generalise_rules = timed("generalise", pipeline.generalise_rules)
    for name in ("branch_bits", "attribute_test_bits", "rule_bits", "select_rules"):
        setattr(pipeline, name, timed("select", getattr(pipeline, name)))
    for name in ("order_rules", "default_class", "sift_rules", "_public_rule"):
        setattr(pipeline, name, timed("order", getattr(pipeline, name)))
