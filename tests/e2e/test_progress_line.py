"""The progress line of the long commands (issue 50.3): drawn in place on a terminal, naming
the stages (fold, tune fold, candidate, trial, grow, prune, generalise, select); nothing when
stderr is not a terminal or with -q; the outputs the same either way."""
from __future__ import annotations

import contextlib
import io
import os
import re
import threading

import pandas as pd
import pytest

from c45rules import fit
from c45rules.cli import main
from c45rules.export.yaml import dump_yaml

from .conftest import DATA

GOLF = str(DATA / "golf" / "golf")
LABOR = str(DATA / "labor-neg" / "labor-neg")
STAGES = ("grow", "prune", "generalise", "select 1/2")


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _run(argv: list[str], terminal: bool = True) -> tuple[int, str, str]:
    err = _Terminal() if terminal else io.StringIO()
    out = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _lines(err: str) -> list[str]:
    """The texts the line showed, in turn."""
    return [part.rstrip() for part in err.split("\r") if part.strip()]


def test_fit_on_a_pseudo_terminal_draws_the_stages_in_place(tmp_path):
    master, slave = os.openpty()
    seen = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:     # the slave side closed
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    tty = open(slave, "w", buffering=1, closefd=False)   # noqa: SIM115 - closed below
    try:
        out = io.StringIO()
        with contextlib.redirect_stderr(tty), contextlib.redirect_stdout(out):
            assert tty.isatty()
            code = main(["fit", LABOR, "-o", str(tmp_path / "m.yaml")])
        tty.flush()
    finally:
        tty.close()
        os.close(slave)
        reader.join(5)
        os.close(master)
    assert code == 0
    text = seen.decode()
    shown = _lines(text)
    for stage in STAGES:
        assert any(f"c45rules: {stage}, elapsed 0:0" in line for line in shown), (stage, shown)
    # rewritten in place, and gone at the end: no newline, the last write blanks the line
    assert "\n" not in text and re.search(r"\r +\r$", text)


def test_cv_tune_and_boosting_name_their_steps():
    code, _, err = _run(["cv", GOLF, "--cv-folds", "3", "-b"])
    assert code == 0
    shown = _lines(err)
    assert any(line.startswith("c45rules: fold 1/3, trial 1/10, grow,") for line in shown), shown
    assert any(line.startswith("c45rules: fold 3/3, trial 2/10, select 1/2,") for line in shown), shown
    # an estimate once a fold is done
    assert any("fold 2/3" in line and re.search(r"about \d+:\d\d left", line) for line in shown), shown
    code, _, err = _run(["tune", GOLF, "--cv-folds", "3", "--grid", "cf=10,25,50"])
    assert code == 0
    assert any(line.startswith("c45rules: tune fold 2/3, candidate 3/3, generalise,") for line in _lines(err))
    # the untuned cf=25 is the third candidate
    code, _, err = _run(["cv", GOLF, "--cv-folds", "3", "--tune", "--tune-folds", "3", "--grid", "cf=10,50"])
    assert code == 0
    assert any(line.startswith("c45rules: fold 3/3, tune fold 3/3, candidate 3/3, select")
               for line in _lines(err)), _lines(err)


def test_rules_tree_and_boosted_fit_report_too(tmp_path):
    _, _, err = _run(["tree", GOLF])
    assert {"c45rules: grow", "c45rules: prune"} <= {line.split(",")[0] for line in _lines(err)}
    _, _, err = _run(["fit", LABOR, "-b", "-o", str(tmp_path / "b.yaml")])
    assert any(line.startswith("c45rules: trial 10/10, generalise,") for line in _lines(err))


@pytest.mark.parametrize("argv", [["fit", GOLF, "-o", "-"], ["cv", GOLF, "--cv-folds", "3"],
                                  ["tune", GOLF, "--cv-folds", "3", "--grid", "cf=10,25"]])
def test_nothing_without_a_terminal_or_with_quiet(argv):
    code, _, err = _run(argv, terminal=False)
    assert code == 0 and err == ""
    code, _, err = _run(["-q", *argv])
    assert code == 0 and err == ""


@pytest.mark.parametrize("argv", [["fit", LABOR, "-b", "--json"], ["fit", GOLF, "--json"],
                                  ["cv", GOLF, "--cv-folds", "3", "--json"],
                                  ["tune", GOLF, "--cv-folds", "3", "--grid", "cf=10,25", "--json"]])
def test_outputs_are_the_same_with_and_without_the_line(tmp_path, argv):
    got = {}
    for terminal in (True, False):
        model = tmp_path / f"{terminal}.yaml"
        args = [*argv, "-o", str(model)] if argv[0] == "fit" else argv
        code, out, err = _run(args, terminal)
        assert code == 0 and bool(err) == terminal
        got[terminal] = (out.replace(str(model), "MODEL"), model.read_bytes() if model.exists() else None)
    assert got[True] == got[False]


def test_the_line_is_cleared_before_other_output():
    # --winnow's note goes to stderr after the learning has drawn its line
    code, _, err = _run(["rules", LABOR, "--winnow"])
    assert code == 0
    before, note, _ = err.partition("c45rules: note: winnowing")
    assert note and re.search(r"c45rules: select [12]/2, [^\r]*\r +\r$", before), before[-200:]


def test_the_library_takes_a_callback_and_learns_the_same():
    from c45rules.progress import report
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5] * 6, "b": list("xyzxy") * 6, "class": list("nnyyy") * 6})
    calls = []
    model = fit(df, target="class", trials=3, progress=lambda *a, **k: calls.append((*a, k)))
    assert dump_yaml(model) == dump_yaml(fit(df, target="class", trials=3))
    assert calls[:6] == [("trial", 0, 3, {}), ("grow", 0, None, {}), ("prune", 0, None, {}),
                         ("generalise", 0, None, {}), ("select", 0, 2, {}), ("select", 1, 2, {})]
    with pytest.raises(ValueError, match="'growing' is not one of fold"):
        report(lambda *a, **k: None, "growing")
    report(None, "growing")     # no callback: nothing is checked, nothing done


def test_a_streamed_pass_shows_its_level_rows_per_second_and_share():
    from c45rules.cli.progress import Reporter
    from c45rules.progress import report
    out = _Terminal()
    line = Reporter(out)
    report(line, "grow")
    report(line, "pass", 0, 4_000_000, number=2, level=3)
    report(line, "pass", 1_000_000, 4_000_000, number=2, level=3)
    stages = line.line(line._stages[-1].started + 0.5).split(", ")
    # 1M rows in the half second since the pass began; a quarter of the table
    assert stages[:2] == ["c45rules: grow", "pass 2 level 3 2.0M rows/s 25%"]
    report(line, "pass", 10, None, number=3, level=4)    # a new pass: its rate counts afresh
    assert line.line(line._stages[-1].started + 1.0).split(", ")[1] == "pass 3 level 4 10 rows/s"
    report(line, "select", 0, 2)                          # the pass ends with its stage
    assert line.line(line._stages[-1].started).split(", ")[0] == "c45rules: select 1/2"


def test_results_on_the_same_terminal_come_after_the_cleared_line():
    screen = _Terminal()
    with contextlib.redirect_stderr(screen), contextlib.redirect_stdout(screen):
        assert main(["rules", GOLF]) == 0
    _, _, plain = _run(["rules", GOLF], terminal=False)
    _, alone, _ = _run(["rules", GOLF], terminal=False)
    drawn, _, results = screen.getvalue().rpartition("\r")
    assert results == alone and plain == "" and "c45rules: select" in drawn
    assert re.search(r"\r +$", drawn)      # blanked before the rules were written
