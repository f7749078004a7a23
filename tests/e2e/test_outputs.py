"""Where the CLI writes: never over one of its own inputs, through symlinks, into streams."""
from __future__ import annotations

import os
import shutil
import threading

import pytest

from .conftest import DATA, cli, cli_err

GOLF = DATA / "golf" / "golf"


@pytest.fixture()
def golf(tmp_path):
    for ext in ("names", "data"):
        shutil.copy(f"{GOLF}.{ext}", tmp_path / f"golf.{ext}")
    shutil.copy(DATA / "golf" / "golf.csv", tmp_path / "golf.csv")
    code, _ = cli(["fit", str(tmp_path / "golf"), "-o", str(tmp_path / "m.yaml"), "-q"])
    assert code == 0
    return tmp_path


@pytest.mark.parametrize("argv,victim", [
    (["fit", "{d}/golf.csv", "--target", "class", "-o", "{d}/golf.csv"], "golf.csv"),
    (["fit", "{d}/golf", "-o", "{d}/golf.data"], "golf.data"),
    (["report", "{d}/m.yaml", "-o", "{d}/m.yaml"], "m.yaml"),
    (["predict", "{d}/m.yaml", "{d}/golf.csv", "-o", "{d}/m.yaml"], "m.yaml"),
    (["predict", "{d}/m.yaml", "{d}/golf.csv", "-o", "{d}/golf.csv"], "golf.csv"),
    (["export", "{d}/m.yaml", "--to", "sql", "-o", "{d}/m.yaml"], "m.yaml"),
])
def test_output_over_an_input_is_refused_and_the_input_kept(golf, argv, victim):
    before = (golf / victim).read_bytes()
    code, out, err = cli_err([a.replace("{d}", str(golf)) for a in argv])
    assert code == 2 and f"is {golf / victim}, an input of this command" in err
    assert (golf / victim).read_bytes() == before


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(golf):
    (golf / "real.csv").write_text("old\n")
    os.symlink("real.csv", golf / "link.csv")
    code, _ = cli(["predict", str(golf / "m.yaml"), str(golf / "golf.csv"), "-o", str(golf / "link.csv")])
    assert code == 0 and os.path.islink(golf / "link.csv")
    lines = (golf / "real.csv").read_text().splitlines()
    assert lines[0].endswith(",predicted_class,rule_id") and len(lines) == 15


def test_a_symlink_to_an_input_is_that_input(golf):
    os.symlink("golf.csv", golf / "alias.csv")
    code, _, err = cli_err(["predict", str(golf / "m.yaml"), str(golf / "golf.csv"), "-o", str(golf / "alias.csv")])
    assert code == 2 and "an input of this command" in err
    assert (golf / "golf.csv").read_text().startswith("outlook,")


def test_output_into_a_fifo_streams_and_keeps_the_fifo(golf):
    fifo = golf / "pipe.csv"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    code, _ = cli(["export", str(golf / "m.yaml"), "--to", "yaml", "-o", str(fifo)])
    reader.join(10)
    assert code == 0 and got and got[0].startswith('format: "c45rules-ruleset"\n')
    assert fifo.is_fifo()


def test_demo_outdir_that_is_a_file_is_a_usage_error(tmp_path):
    (tmp_path / "f").write_text("x")
    for outdir in (tmp_path / "f", tmp_path / "f" / "sub"):
        code, out, err = cli_err(["demo", str(outdir)])
        assert code == 2 and "not a directory" in err and "unexpected" not in err
    assert (tmp_path / "f").read_text() == "x"


def test_predict_quotes_a_field_holding_a_lone_cr(golf):
    import csv
    rows = list(csv.reader(open(golf / "golf.csv", newline="", encoding="utf-8")))
    rows = [rows[0] + ["note"]] + [r + ["a\rb" if i == 1 else "plain"] for i, r in enumerate(rows[1:])]
    with open(golf / "notes.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    code, _ = cli(["predict", str(golf / "m.yaml"), str(golf / "notes.csv"), "-o", str(golf / "out.csv")])
    back = list(csv.reader(open(golf / "out.csv", newline="", encoding="utf-8")))
    assert code == 0 and len(back) == len(rows) and [r[:len(rows[0])] for r in back[1:]] == rows[1:]


def test_output_to_dev_stdout_into_a_pipe(golf):
    from .conftest import ok
    p = ok("export", golf / "m.yaml", "--to", "sql", "-o", "/dev/stdout")
    assert p.stdout.startswith("SELECT\n") and p.stdout.rstrip().endswith(";")


def test_predict_to_dev_stdout_writes_the_csv_alone(golf):
    from .conftest import ok
    p = ok("predict", golf / "m.yaml", golf / "golf.csv", "-o", "/dev/stdout")
    lines = p.stdout.splitlines()
    assert lines[0].endswith(",predicted_class,rule_id") and len(lines) == 15 and "rows scored" not in p.stdout
