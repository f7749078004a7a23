"""C5.0 (RuleQuest's GPL release) on the same folds as `cv`, for `cv --compare c50 PATH`."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ..errors import InputError

# an evaluation's summary: a ruleset's "    13   32(16.0%)   <<"; a boosted one's, a
# "   3\t    24   48(24.0%)" line per trial, then "boost\t         36(18.0%)   <<"
_HEAD = "Evaluation on {} data \\((\\d+) cases\\):"
_TRIAL_LINE = re.compile(r"^\s*\d+\s+(\d+)\s+\d+\(\s*[\d.]+%\)\s*$", re.M)
_BOOST_LINE = re.compile(r"^boost\s+(\d+)\(\s*[\d.]+%\)\s+<<", re.M)


def evaluation_result(stdout: str, which: str = "test") -> tuple[int, int, int] | None:
    """(cases, rules, errors) of c5.0 -r's evaluation on `which` ("test" or "training") data
    (boosted: the vote's errors and every trial's rules), None when the output has none."""
    head = re.search(_HEAD.format(which), stdout)
    if head is None:
        return None
    rest = stdout[head.end():]
    if which == "training":
        rest = rest.split("Evaluation on test data")[0]
    boost = _BOOST_LINE.search(rest)
    if boost is not None:
        rules = sum(int(m.group(1)) for m in _TRIAL_LINE.finditer(rest[:boost.start()]))
        return int(head.group(1)), rules, int(boost.group(1))
    m = re.search(r"^\s*(\d+)\s+(\d+)\(\s*[\d.]+%\)\s+<<", rest, re.M)
    return None if m is None else (int(head.group(1)), int(m.group(1)), int(m.group(2)))


def check_binary(path: str) -> str:
    """The C5.0 program's path, or InputError naming what is wrong with it."""
    p = Path(path)
    if not p.is_file() or not os.access(p, os.X_OK):
        raise InputError(f"{path}: not an executable file (cv --compare c50 needs RuleQuest's c5.0 program)")
    return str(p.resolve())


def _c45_cell(text: str) -> str:
    # C4.5 and C5.0 read '\' as an escape in .data files and end a cell at ',' or a line at '|'
    return re.sub(r"([\\,|])", r"\\\1", text)


def fold_errors(binary: str, stem: str, splits: list[tuple[Any, Any]], ncols: int,
                extra: tuple[str, ...] = ()) -> list[tuple[int, int, int]]:
    """(test errors, test cases, rules) of `c5.0 -r` (and the `extra` options: ("-t", "10")
    boosts) trained and tested on each split of the cases of STEM.data (rows as the C4.5 reader
    numbers them)."""
    from ..data.names import split_cases
    cells = split_cases(f"{stem}.data", ncols)
    lines = cells.apply(lambda row: ",".join(_c45_cell(v) for v in row), axis=1).to_numpy()
    out = []
    with tempfile.TemporaryDirectory(prefix="c45rules-c50-") as tmp:
        for i, (train, test) in enumerate(splits):
            fold = Path(tmp) / f"fold{i}"
            shutil.copyfile(f"{stem}.names", f"{fold}.names")
            Path(f"{fold}.data").write_text("\n".join(lines[train]) + "\n")
            Path(f"{fold}.test").write_text("\n".join(lines[test]) + "\n")
            done = subprocess.run([binary, "-f", str(fold), "-r", *extra], capture_output=True, text=True)
            found = evaluation_result(done.stdout)
            if done.returncode or not found:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
                raise InputError(f"{binary} failed on fold {i + 1} (exit {done.returncode}): {tail[0]}")
            cases, rules, errors = found
            if cases != len(test):
                raise InputError(f"{binary} read {cases} test cases of fold {i + 1}, not {len(test)}")
            out.append((errors, cases, rules))
    return out
