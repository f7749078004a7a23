"""`c45rules predict`: every input row and cell unchanged, in order, streamed, written atomically."""
from __future__ import annotations

import csv
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from c45rules.data.frame import load_test
from c45rules.export.yaml import load_yaml

from .conftest import DATA, cli, cli_err, command, fails, ok

CRX_TEST_CSV = DATA / "crx" / "crx_test.csv"


def test_predict_keeps_every_cell_and_matches_the_ruleset(crx_model, crx_predicted):
    rs = load_yaml(crx_model)
    test = load_test(CRX_TEST_CSV, rs.schema)
    inp = CRX_TEST_CSV.read_text().splitlines()
    out = crx_predicted.read_text().splitlines()
    assert out[0] == inp[0] + ",predicted_class,rule_id"
    assert len(out) == len(inp) == 201
    # text cells such as A14 = 00202 and A11 = 01 come back exactly as they were
    assert all(o.startswith(i + ",") for i, o in zip(inp, out))
    frame = pd.read_csv(crx_predicted, dtype=str, keep_default_na=False)
    assert list(frame["predicted_class"]) == list(rs.predict(test))
    assert list(frame["rule_id"]) == [str(r) for r in rs.predict_rule(test)]
    assert (frame["predicted_class"] != frame["class"]).sum() == 31      # c4.5rules' test errors
    # rule id 0: the default class decided (crx's default is '-'); never an empty cell
    assert frame["rule_id"].eq("0").sum() > 0 and frame["rule_id"].ne("").all()
    assert set(frame.loc[frame["rule_id"] == "0", "predicted_class"]) == {rs.default_class} == {"-"}


def test_predict_a_c45_test_file(crx_model, crx_predicted, tmp_path):
    out = tmp_path / "scored.csv"
    assert "200 rows scored" in ok("predict", crx_model, DATA / "crx" / "crx.test", "-o", out).stdout
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    want = pd.read_csv(crx_predicted, dtype=str, keep_default_na=False)
    assert list(got.columns) == list(want.columns)   # the model's attribute and class names
    # crx.test holds the rows of crx_test.csv, unknowns spelled '?' rather than ''
    assert got.equals(want.replace("", "?").assign(rule_id=want["rule_id"]))


def test_output_column_collisions(crx_model, tmp_path):
    clash = tmp_path / "clash.csv"
    frame = pd.read_csv(CRX_TEST_CSV, dtype=str, keep_default_na=False)
    frame.insert(0, "predicted_class", "old")
    frame.to_csv(clash, index=False)
    out = tmp_path / "out.csv"
    msg = fails("predict", crx_model, clash, "-o", out)
    assert "clash.csv" in msg and "'predicted_class'" in msg and "--prediction-column" in msg
    assert not out.exists()
    code, stdout = cli(["predict", str(crx_model), str(clash), "-o", str(out),
                        "--prediction-column", "model_class"])
    assert code == 0
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(scored.columns[-3:]) == ["class", "model_class", "rule_id"]
    assert (scored["predicted_class"] == "old").all()
    code, _, err = cli_err(["predict", str(crx_model), str(clash), "-o", str(out),
                            "--prediction-column", "x", "--rule-column", "x"])
    assert code == 2 and "both 'x'" in err


def test_failure_halfway_leaves_the_old_output_untouched(crx_model, tmp_path):
    frame = pd.read_csv(CRX_TEST_CSV, dtype=str, keep_default_na=False)
    frame = pd.concat([frame] * 5, ignore_index=True)
    frame.loc[599, "A15"] = "lots"          # A15 is continuous and tested by rule 28
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    out = tmp_path / "out.csv"
    out.write_text("previous results\n")
    msg = fails("predict", crx_model, bad, "-o", out, "--chunksize", "100")
    assert msg == "c45rules: error: " + (f"{bad}: row 600: column 'A15': 'lots' is not a number (rows count"
                                         " from 1 after the header; --bad-cells unknown reads such a cell as unknown)")
    assert out.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "out.csv"]   # no temp file


def test_missing_model_column(crx_model, tmp_path):
    thin = tmp_path / "thin.csv"
    thin.write_text("A9,A1\nt,a\n")
    code, _, err = cli_err(["predict", str(crx_model), str(thin), "-o", str(tmp_path / "o.csv")])
    assert code == 2 and "thin.csv: column 'A4' is missing" in err


N_ROWS = 1_000_000
MAX_RSS_MB = 400   # measured ~260 MB at --chunksize 50000; the whole file as text cells takes > 1 GB


@pytest.mark.slow
def test_one_million_rows_stream_in_bounded_memory(crx_model, tmp_path):
    base = pd.read_csv(CRX_TEST_CSV, dtype=str, keep_default_na=False)
    reps = N_ROWS // len(base)
    big = pd.DataFrame({c: np.tile(base[c].to_numpy(), reps) for c in base.columns})
    big.insert(0, "row_no", np.arange(N_ROWS).astype(str))
    src = tmp_path / "big.csv"
    big.to_csv(src, index=False)
    del big
    out = tmp_path / "big_scored.csv"
    # the child's peak memory, measured by a parent that runs nothing else
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:])\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(r.returncode)\n")
    p = subprocess.run([sys.executable, "-c", probe, *command(), "predict", str(crx_model), str(src),
                        "-o", str(out), "--chunksize", "50000"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    peak_mb = int(p.stdout.strip().splitlines()[-1]) / 1024
    print(f"predict of {N_ROWS} rows: peak RSS {peak_mb:.0f} MB")
    assert peak_mb < MAX_RSS_MB, f"peak RSS {peak_mb:.0f} MB"

    scored = pd.read_csv(out, dtype=str, keep_default_na=False,
                         usecols=["row_no", "predicted_class", "rule_id"])
    assert len(scored) == N_ROWS
    assert (scored["row_no"].to_numpy() == np.arange(N_ROWS).astype(str)).all()   # order kept
    rs = load_yaml(crx_model)
    test = load_test(CRX_TEST_CSV, rs.schema)
    expected_class = np.tile(rs.predict(test), reps)
    expected_rule = np.tile(rs.predict_rule(test).astype(str), reps)   # "0": the default class
    assert (scored["predicted_class"].to_numpy() == expected_class).all()
    assert (scored["rule_id"].to_numpy() == expected_rule).all()
    sample = np.random.default_rng(5).choice(N_ROWS, 50, replace=False)
    keep = {0, *(int(i) + 1 for i in sample)}          # the header and the sampled lines
    direct = rs.predict(pd.read_csv(src, dtype=str, keep_default_na=False,
                                    skiprows=lambda i: i not in keep))
    assert list(direct) == list(scored["predicted_class"].to_numpy()[np.sort(sample)])
    with open(src, newline="") as a, open(out, newline="") as b:   # every input cell unchanged
        for line_in, line_out in zip(csv.reader(a), csv.reader(b)):
            if line_out[:-2] != line_in:
                pytest.fail(f"row changed: {line_in} -> {line_out}")


# --- issue 52: a plain CSV's lines are copied as read and their decision appended -----------------
# The line-copying path (cli/cases.py _copies_lines) must write what the pandas path writes, byte
# for byte; the pandas path is forced by turning the check off.

from pathlib import Path  # noqa: E402

from c45rules.cli import cases  # noqa: E402
from c45rules.data.frame import check_csv_layout  # noqa: E402
from c45rules.errors import InputError  # noqa: E402
from c45rules.export import write_yaml  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from test_no_data_lost import FILES, RULES  # noqa: E402  (the tricky-file corpus)

COPIES_LINES = cases._copies_lines
PLAIN_SETS = ("crx", "hypo", "income", "labor-neg", "vote", "iris")


def _shared_csv(name: str) -> Path:
    """The set's test CSV, else its data as CSV."""
    test = DATA / name / f"{name}_test.csv"
    return test if test.exists() else DATA / name / f"{name}.csv"


@pytest.fixture(scope="module")
def shared_models(tmp_path_factory) -> dict[str, Path]:
    """A model per shared set (and boosted crx and hypo), fitted once for these tests."""
    root = tmp_path_factory.mktemp("models")
    models = {}
    for name in PLAIN_SETS:
        models[name] = root / f"{name}.yaml"
        ok("fit", DATA / name / name, "-o", models[name])
    for name in ("crx", "hypo"):
        models[f"{name} boosted"] = root / f"{name}.boost.yaml"
        ok("fit", DATA / name / name, "--trials", "3", "-o", models[f"{name} boosted"])
    return models


def _both_paths(monkeypatch, model: Path, data: Path, tmp_path: Path, **options) -> tuple[bytes, bytes, bool]:
    """(line-copying output, pandas output, whether the first took the line-copying path)."""
    rs = load_yaml(model)
    copied = []

    def spy(*args, **kw):
        copied.append(COPIES_LINES(*args, **kw))
        return copied[-1]
    monkeypatch.setattr(cases, "_copies_lines", spy)
    cases.predict_file(rs, data, tmp_path / "fast.csv", **options)
    monkeypatch.setattr(cases, "_copies_lines", lambda *a, **k: False)
    cases.predict_file(rs, data, tmp_path / "pandas.csv", **options)
    return (tmp_path / "fast.csv").read_bytes(), (tmp_path / "pandas.csv").read_bytes(), copied == [True]


@pytest.mark.parametrize("name", [*PLAIN_SETS, "crx boosted", "hypo boosted"])
def test_copied_lines_equal_the_pandas_output_on_the_shared_sets(shared_models, monkeypatch, tmp_path, name):
    data = _shared_csv(name.split()[0])
    for options in ({}, {"confidence_column": "confidence"}, {"chunksize": 101, "csv_safe": False}):
        fast, slow, copied = _both_paths(monkeypatch, shared_models[name], data, tmp_path, **options)
        assert fast == slow, options
        assert copied == (b'"' not in data.read_bytes())   # a file with quotes goes through pandas


def test_a_plain_file_is_copied_not_rewritten_by_pandas(crx_model, monkeypatch, tmp_path):
    """The input columns are not re-written cell by cell, nor the decision columns by pandas'
    to_csv (base: every input column went through it, 7-30x the file's copy time; then the
    decision columns alone; now the csv module spells them as to_csv would: added_cells)."""
    written = []
    real = pd.DataFrame.to_csv

    def spy(self, *args, **kw):
        written.append(list(self.columns))
        return real(self, *args, **kw)
    monkeypatch.setattr(pd.DataFrame, "to_csv", spy)
    out = tmp_path / "out.csv"
    cases.predict_file(load_yaml(crx_model), CRX_TEST_CSV, out, confidence_column="confidence")
    assert written == []
    monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    inp = CRX_TEST_CSV.read_bytes().splitlines()
    assert all(o.startswith(i + b",") for i, o in zip(inp, out.read_bytes().splitlines()))


def test_a_plain_utf8_file_is_counted_without_the_csv_module(monkeypatch, tmp_path):
    """check_csv_layout's byte-level count held for no UTF-8 file (utf-8-sig was judged not
    ASCII-compatible), so every file was read record by record by Python's csv module."""
    path = tmp_path / "plain.csv"
    path.write_text("a,b\n" + "1,é\n" * 1000 + ",\n", encoding="utf-8")
    records = []
    real = csv.reader

    def counting(*args, **kw):
        for row in real(*args, **kw):
            records.append(row)
            yield row
    monkeypatch.setattr(csv, "reader", counting)
    assert check_csv_layout(path) == (["a", "b"], 1001)
    assert len(records) <= 1   # the header alone


@pytest.mark.parametrize("text", [*FILES.values(), "a,b,n\n1,x,=1+2\n7,y\nz,@x\n", "a,b,n\n1,x,NA\n 6 ,x,  \n7,x,null",
                                  "a,b,n\r\n1,x,é\r\n9,x,\u00a0\r\n", "\ufeffa,b,n\n8,x,'\n"],
                         ids=[*FILES.keys(), "formula cells", "NA tokens, spaces, no final newline",
                              "CRLF, non-ASCII", "BOM, plain"])
def test_the_tricky_files_come_out_as_the_pandas_path_writes_them(monkeypatch, tmp_path, text):
    model = tmp_path / "m.yaml"
    write_yaml(RULES, model)
    data = tmp_path / "in.csv"
    data.write_text(text, encoding="utf-8", newline="")
    try:
        fast, slow, copied = _both_paths(monkeypatch, model, data, tmp_path, confidence_column="confidence")
    except InputError as e:   # refused alike by both paths
        monkeypatch.setattr(cases, "_copies_lines", lambda *a, **k: False)
        with pytest.raises(InputError, match=re.escape(str(e))):
            cases.predict_file(load_yaml(model), data, tmp_path / "x.csv")
        return
    assert fast == slow
    header = text.lstrip("\ufeff").split("\n")[0]
    # only a file of unquoted lines is copied; quotes, lone CRs and blank lines go through pandas
    assert copied == ('"' not in text and "\r\n\r\n" not in text and "\n\n" not in text
                      and text.count("\r") == text.count("\r\n") and header.count(",") >= 1
                      and not text.endswith("\n\n"))


def test_stdout_gets_the_file_output(crx_model, tmp_path):
    out = tmp_path / "out.csv"
    ok("predict", crx_model, CRX_TEST_CSV, "-o", out, "--confidence")
    piped = subprocess.run([*command(), "predict", str(crx_model), str(CRX_TEST_CSV), "--confidence"],
                           capture_output=True)
    assert piped.returncode == 0 and piped.stdout == out.read_bytes()


def test_a_boosted_models_decisions_in_one_pass_equal_its_three_methods():
    """predict writes a boosted model's class, trial rules and confidence from one match of the
    trials' rules (BoostedRuleSet.decisions); each equals the method that gives it alone."""
    from c45rules import fit
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6] * 4, "b": ["x", "y", "y"] * 8,
                       "class": ["n", "n", "y", "n", "y", "y", "n", "y", "y", "y", "n", "y"] * 2})
    model = fit(df, target="class", trials=3)
    classes, rules, confidences = model.decisions(df)
    assert classes.tolist() == model.predict(df).tolist()
    assert rules.tolist() == model.trial_rules(df).tolist()
    assert confidences.tolist() == model.predict_confidence(df).tolist()
    text = cases.trial_rule_text(rules)
    assert text.tolist() == [" ".join(f"{t + 1}:{r}" for t, r in enumerate(row)) for row in rules.tolist()]


# --- issue 52: the compiled scanner (data/_plaincsv.c), streamed .data and Parquet, -j ----------------
# The scanner reads a plain CSV's cells itself; whatever it cannot read as a plain number goes
# through encode_frame from its text. Each test holds it to the pandas path: the same bytes,
# the same unknown-token counts (in order), the same unseen values, the same errors.

from c45rules.data.numbers import number_or_none  # noqa: E402
from c45rules.model.ruleset import Condition, Rule, RuleSet  # noqa: E402
from c45rules.data.schema import Attribute, Schema  # noqa: E402


needs_scanner = pytest.mark.skipif(cases._plaincsv is None, reason="data/_plaincsv.c is not built"
                                   " (python setup.py build_ext --inplace)")


@needs_scanner
def test_the_scanner_reads_a_number_exactly_as_number_or_none():
    """Random texts over the grammar's characters and the spellings of random doubles: the
    scanner's number is number_or_none's, bit for bit (sign of zero too), or it declines a
    cell with surrounding space (read by encode_frame from its text)."""
    import math
    import random
    rnd = random.Random(52)
    texts = ["".join(rnd.choice("0123456789+-.eE x_") for _ in range(rnd.randint(0, 22))) for _ in range(60_000)]
    for _ in range(30_000):
        x = rnd.random() * 10 ** rnd.randint(-30, 30) * rnd.choice([1, -1])
        texts += [repr(x), f"{x:.4f}", f"{x:.17g}", f"{x:.25f}", f"{x:e}", f"{rnd.randint(-10**25, 10**25)}"]
    texts += ["-0", "+.5", "5.", ".", "1e999", "1e-999", "-0.0e0", "9007199254740993", "0.1e23", "1_0"]
    for t in texts:
        got, want = cases._plaincsv.number(t.encode()), number_or_none(t)
        if got is None and want is not None:
            assert t != t.strip(" \t\n\v\f\r"), t
            continue
        assert (got is None) == (want is None), t
        if got is not None:
            assert got == want and math.copysign(1, got) == math.copysign(1, want), t


def _mixed_model(tmp_path: Path) -> Path:
    """A model with continuous and discrete attributes, an ignored one and a rule on each kind."""
    schema = Schema((Attribute("a", "continuous"), Attribute("b", "discrete", ("x", "y", "NA")),
                     Attribute("c", "continuous"), Attribute("skip", "ignore")), ("n", "p", "=q"))
    rules = (Rule(1, (Condition("a", "<=", 2.5), Condition("b", "=", "x")), "p", 4, 1, 0.3, 1.2),
             Rule(2, (Condition("c", ">", 0.0),), "=q", 3, 0, 0.2, 1.5),
             Rule(3, (Condition("b", "=", "NA"),), "p", 2, 0, 0.3, 1.1))
    model = tmp_path / "mixed.yaml"
    write_yaml(RuleSet(schema, rules, "n", (3, 3, 3), (1, 1, 1)), model)
    return model


def _scored(monkeypatch, model: Path, data: Path, tmp_path: Path, scanner: bool, **options):
    """(output bytes, unknown tokens, unseen note) of predict_file, by the scanner or by pandas;
    the InputError's text when it fails."""
    monkeypatch.setattr(cases, "_copies_lines", COPIES_LINES if scanner else (lambda *a, **k: False))
    spent = []
    real = cases._scan_block
    monkeypatch.setattr(cases, "_scan_block", lambda *a: spent.append(1) or real(*a))
    tokens: dict = {}
    out = tmp_path / ("scanned.csv" if scanner else "pandas.csv")
    try:
        _, unseen = cases.predict_file(load_yaml(model), data, out, unknown_tokens=tokens, **options)
    except InputError as e:
        return str(e), bool(spent)
    return (out.read_bytes(), list(tokens.items()), unseen.note()), bool(spent)


HOSTILE_CELLS = [
    "a,b,c,skip\n1,x,-1,k\n2.5,y,3,k\n?,NA,,k\n 4 ,x,1e3,k\n+.5,z,-0,k\n3.,x,\t7,k\n",
    "skip,c,b,a\nq,1e-999,x,0.1e23\nq,-1.5E+2,x,.25\nq,NA,x,2\nq,nan,w,1\n",
    "a,b,c,skip\r\n1,x,2,k\r\n?,?,?,k\r\n1.0000000000000000001,x,-2,k\r\n",
    "a,b,c,skip\n1,x,inf,k\n2,x,3,k\n",
    "a,b,c,skip\n1,x,3,k\n2,x,1_000,k\n5,y,1e999,k",
    "\ufeffa,b,c,skip\n1,x,3,k\n2,é,null,k\n7,null,2,k\n8,null,NA,k\n9,NA,2,k\n",
    "a,b,c,skip\n" + "".join(f"{i * 0.37:.3f},{'xyz'[i % 3]},{'?' if i % 7 == 0 else i - 40},k\n" for i in range(90)),
]


@pytest.mark.parametrize("text", HOSTILE_CELLS, ids=[f"cells{i}" for i in range(len(HOSTILE_CELLS))])
@pytest.mark.parametrize("options", [{}, {"bad_cells": "unknown", "confidence_column": "confidence"},
                                     {"chunksize": 2, "bad_cells": "unknown"}, {"chunksize": 3, "strict": True}],
                         ids=["default", "bad-unknown", "chunks of 2", "strict, chunks of 3"])
def test_the_scanner_agrees_with_pandas_on_hostile_cells(monkeypatch, tmp_path, text, options):
    model = _mixed_model(tmp_path)
    data = tmp_path / "in.csv"
    data.write_text(text, encoding="utf-8", newline="")
    scanned, used = _scored(monkeypatch, model, data, tmp_path, True, **options)
    assert used == (cases._plaincsv is not None)   # the scanner read it, when it is built
    assert scanned == _scored(monkeypatch, model, data, tmp_path, False, **options)[0]


def test_a_numeric_unknown_token_leaves_the_scanner_out(monkeypatch, tmp_path):
    """--na-values -1: a cell '-1' is unknown, which the scanner (reading it as a number) cannot
    tell, so pyarrow cuts the lines; the output is the pandas path's."""
    from c45rules.data.reading import ReadOptions
    model = _mixed_model(tmp_path)
    data = tmp_path / "in.csv"
    data.write_text("a,b,c,skip\n1,x,-1,k\n2,y,3,k\n", encoding="utf-8")
    read = ReadOptions(na_values=("-1",))
    scanned, used = _scored(monkeypatch, model, data, tmp_path, True, read=read)
    assert not used
    assert scanned == _scored(monkeypatch, model, data, tmp_path, False, read=read)[0]


@needs_scanner
def test_a_plain_csv_is_cut_without_pyarrow(crx_model, monkeypatch, tmp_path):
    """The scanner cuts the lines and reads the cells (base: pyarrow's CSV reader parsed every
    attribute column, then the encoder read each distinct text: 5 of 7 CPU s at 1M rows)."""
    import pyarrow.csv as pacsv
    slow = tmp_path / "slow.csv"
    monkeypatch.setattr(cases, "_copies_lines", lambda *a, **k: False)
    cases.predict_file(load_yaml(crx_model), CRX_TEST_CSV, slow, confidence_column="confidence")
    monkeypatch.setattr(cases, "_copies_lines", COPIES_LINES)

    def refused(*a, **k):
        raise AssertionError("pyarrow's CSV reader was used")
    monkeypatch.setattr(pacsv, "read_csv", refused)
    fast = tmp_path / "fast.csv"
    monkeypatch.setattr(cases, "_SCAN_BLOCK", 100)   # lines across the blocks read
    cases.predict_file(load_yaml(crx_model), CRX_TEST_CSV, fast, confidence_column="confidence", chunksize=37)
    assert fast.read_bytes() == slow.read_bytes()


@pytest.mark.parametrize("suffix", [".data", ".parquet"])
def test_data_and_parquet_files_are_streamed_in_chunks(crx_model, tmp_path, suffix):
    """A C4.5 .data file and a Parquet file come in frames of at most `chunksize` rows (base:
    each was read whole, one frame), and predict's output is what the whole read gives."""
    rs = load_yaml(crx_model)
    if suffix == ".data":
        data = DATA / "crx" / "crx.test"
    else:
        data = tmp_path / "crx.parquet"
        pd.read_csv(CRX_TEST_CSV, dtype=str, keep_default_na=False).to_parquet(data)
    _, frames = cases.read_text_chunks(data, rs.schema, 16)
    sizes = [len(f) for f in frames]
    assert max(sizes) <= 16 and len(sizes) >= 12
    out_small = tmp_path / f"small{suffix}.csv"
    out_whole = tmp_path / f"whole{suffix}.csv"
    cases.predict_file(rs, data, out_small, chunksize=16, confidence_column="confidence")
    cases.predict_file(rs, data, out_whole, chunksize=10**6, confidence_column="confidence")
    assert out_small.read_bytes() == out_whole.read_bytes()
    assert out_small.read_bytes().count(b"\n") == sum(sizes) + 1


def test_predict_jobs_gives_the_same_output_and_errors(crx_model, tmp_path):
    """`predict -j 2` scores a plain CSV's chunks in two worker processes and writes them in
    order: the same bytes, the same notes, the same first bad cell (base: no -j option)."""
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    a = ok("predict", crx_model, CRX_TEST_CSV, "-o", one, "--chunksize", "17", "--confidence")
    b = ok("predict", crx_model, CRX_TEST_CSV, "-o", two, "--chunksize", "17", "--confidence", "-j", "2")
    assert one.read_bytes() == two.read_bytes() and a.stderr == b.stderr
    lines = CRX_TEST_CSV.read_text().splitlines()
    cells = lines[150].split(",")
    column = lines[0].split(",")[1]   # A2: continuous
    cells[1] = "1_000"
    lines[150] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    errors = [fails("predict", crx_model, bad, "-o", tmp_path / "x.csv", "--chunksize", "17", *j)
              for j in ([], ["-j", "2"])]
    assert errors[0] == errors[1] and "row 150" in errors[0] and repr(column) in errors[0]
    assert not (tmp_path / "x.csv").exists()


LAYOUTS = [*FILES.values(), "a,b\n1,2\n\n3,4\n", "a,b\r\n1,2\r\n\r\n", "a,b\n1,2\r3,4\n", "a;b\n1;2\n3;4",
           "a,b\n1,2,3\n", "a,b\n", "a,b\n1\n", "a,b\n1,2\n" + "x" * 200 + ",y\n", "a,b\n1,\0\n", "\ufeffa,b\nя,2\n"]


@pytest.mark.parametrize("text", LAYOUTS, ids=[f"layout{i}" for i in range(len(LAYOUTS))])
def test_the_compiled_layout_test_agrees_with_numpy(monkeypatch, tmp_path, text):
    """frame._plain_csv_records in one compiled pass (data/_plaincsv.c layout) gives numpy's
    answer: the records and blank lines of a plain file, None for any other."""
    from c45rules.data import frame
    path = tmp_path / "in.csv"
    path.write_text(text, encoding="utf-8", newline="")
    monkeypatch.setattr(csv, "field_size_limit", lambda: 100)   # the 200-byte line is too long
    sep = ";" if ";" in text else ","
    nfields = text.lstrip("\ufeff").split("\n")[0].count(sep) + 1
    compiled = frame._plain_csv_records(path, sep, nfields)
    monkeypatch.setattr(frame, "_plaincsv", None)
    assert compiled == frame._plain_csv_records(path, sep, nfields)


def test_the_scanners_kept_texts_may_be_dropped(monkeypatch, tmp_path):
    """The discrete texts the scanner keeps between chunks are bounded (_KEPT_TEXTS): dropped
    every chunk, the output is the same."""
    monkeypatch.setattr(cases, "_KEPT_TEXTS", 1)
    model = _mixed_model(tmp_path)
    data = tmp_path / "in.csv"
    data.write_text(HOSTILE_CELLS[-1].replace(",x,", ",NA,", 5), encoding="utf-8")
    scanned, used = _scored(monkeypatch, model, data, tmp_path, True, chunksize=7, bad_cells="unknown")
    assert used == (cases._plaincsv is not None)
    assert scanned == _scored(monkeypatch, model, data, tmp_path, False, chunksize=7, bad_cells="unknown")[0]


# --- issue 52: Parquet to Parquet without the pandas round trip (cli/cases.py _ArrowBatches) -------
# After the first batch each batch is decided on its Arrow columns and written as it is with the
# decision columns appended; every case is held to the pandas route: the same file, byte for
# byte, the same unknown tokens (in order), the same unseen note, the same errors.

def _arrow_table(kind: str):
    """A table of 11 rows for _mixed_model in Arrow types: the cells a batch may hold."""
    import pyarrow as pa
    nan = float("nan")
    a = {"double": pa.array([1.0, 2.5, None, 4.0, -0.0, 3.0, 2.0, 1.5, 0.5, 9.0, 2.0]),
         "nan": pa.array([1.0, 2.5, None, 4.0, nan, 3.0, 2.0, 1.5, 0.5, 9.0, nan]),
         "int": pa.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], pa.int64()),
         "int nulls": pa.array([1, 2, 3, 4, None, 6, 7, 8, 9, 10, None], pa.int32()),
         "text": pa.array(["1", "2.5", "?", " 4 ", "+.5", "3.", "1e-999", "NA", "2", "x", "1_000"]),
         "text nulls": pa.array(["1", None, "2", "3", "4", "5", "6", "7", "8", None, "0.1"], pa.large_string()),
         "bool": pa.array([True, False] * 5 + [None]),
         }[kind]
    b = pa.array(["x", "y", "NA", "x", "z", "?", "x", "", "y", "w", "x"])
    c = pa.array(["-1", "3", "", "1e3", "-0", "2", "?", "5", "-2", "4", "inf"])
    return pa.table({"a": a, "b": b, "c": c, "skip": pa.array([1.5] * 11), "other": pa.array(["k"] * 11)})


def _parquet_scored(monkeypatch, model: Path, data: Path, tmp_path: Path, direct: bool, **options):
    """(output bytes, unknown tokens, unseen note) of predict_file into Parquet, the direct way
    or through pandas; the InputError's text when it fails; and whether a batch went directly."""
    real_of, real_table = cases._ArrowBatches.of, cases._ArrowBatches.table
    spent = []
    monkeypatch.setattr(cases._ArrowBatches, "of", staticmethod(real_of if direct else (lambda *a: None)))
    monkeypatch.setattr(cases._ArrowBatches, "table", lambda self, *a: spent.append(1) or real_table(self, *a))
    tokens: dict = {}
    out = tmp_path / ("direct.parquet" if direct else "pandas.parquet")
    try:
        _, unseen = cases.predict_file(load_yaml(model), data, out, fmt="parquet", unknown_tokens=tokens, **options)
    except InputError as e:
        return str(e), len(spent) > 1   # check() builds the first batch's table once
    return (out.read_bytes(), list(tokens.items()), unseen.note()), len(spent) > 1


@pytest.mark.parametrize("kind", ["double", "nan", "int", "int nulls", "text", "text nulls", "bool"])
@pytest.mark.parametrize("options", [{"chunksize": 2, "bad_cells": "unknown", "confidence_column": "confidence"},
                                     {"chunksize": 3}, {"chunksize": 4, "strict": True},
                                     {"chunksize": 5, "bad_cells": "unknown", "explain_column": "why"}],
                         ids=["chunks of 2", "chunks of 3, bad cells stop", "strict", "explain"])
def test_parquet_batches_decided_directly_agree_with_pandas(monkeypatch, tmp_path, kind, options):
    """Typed and text numbers, NaN and nulls (which pandas changes: such a batch goes through
    it), tokens, bad cells, unseen values: the direct way writes the pandas route's file (base:
    every batch went through pandas, to_pandas then from_pandas)."""
    import pyarrow.parquet as pq
    model = _mixed_model(tmp_path)
    data = tmp_path / "in.parquet"
    pq.write_table(_arrow_table(kind), data)
    direct, used = _parquet_scored(monkeypatch, model, data, tmp_path, True, **options)
    assert direct == _parquet_scored(monkeypatch, model, data, tmp_path, False, **options)[0]
    if kind in ("double", "int") and options["chunksize"] == 2:
        assert used   # batches after the first went the direct way


def test_a_parquet_file_written_by_pandas_is_scored_directly(crx_model, monkeypatch, tmp_path):
    """crx's test rows written by pandas (its metadata, text columns): the direct way, the same
    file as through pandas; a boosted model's rule column (text) too."""
    data = tmp_path / "crx.parquet"
    pd.read_csv(CRX_TEST_CSV, dtype=str, keep_default_na=False).to_parquet(data)
    direct, used = _parquet_scored(monkeypatch, crx_model, data, tmp_path, True, chunksize=30,
                                   confidence_column="confidence")
    assert used and direct == _parquet_scored(monkeypatch, crx_model, data, tmp_path, False, chunksize=30,
                                              confidence_column="confidence")[0]


# --- issue 52: predict's fixed start: a plain CSV scored without importing pandas -----------------

def test_predict_on_a_plain_csv_does_not_import_pandas(crx_model, tmp_path):
    """The compiled scanner reads the file, the NA tokens are our own list, the discrete texts
    and the added cells are spelled without pandas (base: pandas imported for its NA list and
    the added cells, about 0.4 s of a 2-row file's 0.67 s)."""
    out = tmp_path / "out.csv"
    assert _imported_by_predict(crx_model, CRX_TEST_CSV, "-o", out, "--confidence") == "[]"
    want = tmp_path / "want.csv"
    cases.predict_file(load_yaml(crx_model), CRX_TEST_CSV, want, confidence_column="confidence",
                       chunksize=50_000)
    assert out.read_bytes() == want.read_bytes()


def _imported_by_predict(*args: object) -> str:
    """Which of pandas and pyarrow a `predict -q ARGS` process imported, as a printed list."""
    probe = ("import sys, runpy\n"
             "sys.argv = ['c45rules', 'predict', '-q', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('c45rules', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             "print(sorted(m for m in ('pandas', 'pyarrow') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", probe, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip().splitlines()[-1]


def test_predict_from_parquet_to_parquet_does_not_import_pandas(monkeypatch, tmp_path):
    """A Parquet file of plain kinds scored into Parquet: its batches read and decided by pyarrow
    and written with the schema from_pandas would give (_ArrowBatches.written), so pandas is not
    imported (base: the first batch went through pandas, 0.2 s to import); the file is the
    pandas route's, byte for byte."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    model = _mixed_model(tmp_path)
    data = tmp_path / "in.parquet"
    table = _arrow_table("double")   # its number columns typed, its text column discrete
    pq.write_table(table.set_column(2, "c", pa.array([-1.0, 3, None, 1e3, -0.0, 2, 7, 5, -2, 4, 0.5])), data)
    assert _imported_by_predict(model, data, "-o", tmp_path / "probe.parquet", "--confidence") == "['pyarrow']"
    direct, _ = _parquet_scored(monkeypatch, model, data, tmp_path, True, confidence_column="confidence")
    assert direct[0] == (tmp_path / "probe.parquet").read_bytes()
    assert direct == _parquet_scored(monkeypatch, model, data, tmp_path, False, confidence_column="confidence")[0]


def test_discrete_texts_are_encoded_as_encode_frame_encodes_them():
    """encode_texts (the scanner's and the Parquet batches' discrete cells, without pandas)
    gives each text encode_frame's code, counted token and unseen flag: values, a token that
    is a value ('NA'), other tokens, C4.5's '' and '?', unseen texts, spaces, case."""
    from c45rules.data.frame import encode_frame, encode_texts
    from c45rules.data.reading import ReadOptions
    schema = Schema((Attribute("b", "discrete", ("x", "y", "NA", "1")),), ("n", "p"))
    texts = ["x", "y", "NA", "1", "1.0", "", "?", "null", "N/A", "nan", " x", "X", "z", "None", "#N/A", "-1"]
    for read in (ReadOptions(), ReadOptions(na_values=("z", "x")), ReadOptions(keep_na_tokens=True)):
        one = encode_frame(pd.DataFrame({"b": pd.Series(texts, dtype=object)}), schema, read=read)
        counted, unseen = one.unknown_tokens.get("b", {}), set(one.unseen_values.get("b", ()))
        want = [(c, t in counted, t in unseen) for t, c in zip(texts, one.columns[0].tolist())]
        assert encode_texts(texts, schema.attributes[0], read.tokens) == want, read


def test_added_cells_are_spelled_as_pandas_to_csv_writes_them():
    """predict's added columns as CSV text without pandas (cases._csv_lines) equal pandas'
    to_csv: numbers of each kind (NaN empty), text needing quotes, and an object column of
    other values (left to pandas)."""
    columns = [np.array(["p", "a,b", 'say "hi"', "", "x\ty"], dtype=object),
               np.array([0, 12, -3, 2**40, 7], dtype=np.int64),
               np.array([0.5, float("nan"), 1e-7, 0.948276, 1e16]),
               np.array([True, False, True, True, False]),
               np.array([1, "a", None, 2.5, "b"], dtype=object)]
    names = ["c0", "c1", "c2", "c3", "c4"]
    for cut in (2, 3, 4, 5):
        want = pd.DataFrame(dict(zip(names[:cut], columns[:cut]))).to_csv(
            header=False, index=False, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        assert cases._csv_lines(names[:cut], columns[:cut]) == want, cut


@needs_scanner
def test_the_next_block_is_scanned_in_a_thread(crx_model, monkeypatch, tmp_path):
    """predict reads and scans the next block of lines in a thread (the compiled scan runs
    without the GIL) while this one is decided and written (base: one thread did it all, and
    the copy's threads made pyarrow 2x faster in wall time); the bytes are those of one thread."""
    import threading
    threads = []
    real = cases._scan_block
    monkeypatch.setattr(cases, "_scan_block", lambda *a: threads.append(threading.current_thread()) or real(*a))
    monkeypatch.setattr(cases, "_SCAN_BLOCK", 100)   # lines across the blocks read
    ahead, alone = tmp_path / "ahead.csv", tmp_path / "alone.csv"
    cases.predict_file(load_yaml(crx_model), CRX_TEST_CSV, ahead, confidence_column="confidence", chunksize=7)
    assert len(threads) >= 28 and threading.main_thread() not in threads
    monkeypatch.setattr(cases, "_scanned_ahead", lambda scan, blocks: blocks)   # each block in the caller
    cases.predict_file(load_yaml(crx_model), CRX_TEST_CSV, alone, confidence_column="confidence", chunksize=7)
    assert threading.main_thread() in threads
    assert ahead.read_bytes() == alone.read_bytes()


def test_a_boosted_models_masks_are_made_in_the_scan_thread_and_matched_on_the_main(monkeypatch, tmp_path):
    """predict makes a boosted model's test masks for the next block in the scan thread (the
    compiled masks run without the GIL) while this one is matched, tallied and written on the
    main thread (base: masks and match both in the scan thread, which then took twice the main
    thread's share: 1.1 against 0.6 CPU s at 1M rows); the bytes are those of one thread."""
    import threading

    from c45rules.model import boosted as boosted_module
    model = tmp_path / "boosted.yaml"
    ok("fit", DATA / "crx" / "crx", "--trials", "3", "-o", model)
    boosted = load_yaml(model)
    made, matched = [], []
    masks, match = boosted_module.block_masks, boosted_module.match_positions
    monkeypatch.setattr(boosted_module, "block_masks",
                        lambda *a: made.append(threading.current_thread()) or masks(*a))
    monkeypatch.setattr(boosted_module, "match_positions",
                        lambda *a: matched.append((threading.current_thread(), len(a))) or match(*a))
    ahead, alone = tmp_path / "ahead.csv", tmp_path / "alone.csv"
    cases.predict_file(boosted, CRX_TEST_CSV, ahead, confidence_column="confidence", chunksize=7)
    assert len(made) >= 28 and threading.main_thread() not in made
    assert len(matched) == len(made) and set(matched) == {(threading.main_thread(), 3)}   # on the masks made
    monkeypatch.setattr(cases, "_scanned_ahead", lambda scan, blocks: blocks)   # each block in the caller
    cases.predict_file(boosted, CRX_TEST_CSV, alone, confidence_column="confidence", chunksize=7)
    assert threading.main_thread() in made
    assert ahead.read_bytes() == alone.read_bytes()


def test_a_boosted_models_votes_are_told_apart_by_hashing(monkeypatch):
    """The distinct rows of the trials' deciding rules (the vote is tallied and spelled once per
    distinct row) are numbered by data/_distinct's hash, without the GIL, not by np.unique's
    sort (base), also when the rows' keys must be renumbered before they overflow 62 bits."""
    from c45rules.model import boosted as boosted_module
    rng = np.random.default_rng(52)
    for trials, top in ((3, 4), (10, 300), (1, 1)):
        ids = rng.integers(0, top, (5000, trials))
        with monkeypatch.context() as mp:
            mp.setattr(boosted_module.np, "unique", lambda *a, **k: pytest.fail("np.unique's sort"))
            first, rows = boosted_module.distinct_rows(ids)
        assert np.array_equal(ids[first][rows], ids)                     # each row's own
        assert len(first) == len({tuple(r) for r in ids.tolist()})      # each distinct row once


def test_a_boosted_models_rule_column_is_spelled_compiled(monkeypatch, tmp_path):
    """predict spells a boosted model's rule column ("1:12 2:0 3:5") by the compiled
    model/_match.c spell, which joins the trials' words without the GIL (base: Python joined
    each vote's words): the bytes the Python join gives."""
    from c45rules.model import _match
    model = tmp_path / "boosted.yaml"
    ok("fit", DATA / "crx" / "crx", "--trials", "4", "-o", model)
    boosted = load_yaml(model)
    spelled = []

    class Spy:
        first, below, equal = _match.first, _match.below, _match.equal

        @staticmethod
        def spell(*args):
            spelled.append(args[1])
            return _match.spell(*args)
    compiled, python = tmp_path / "compiled.csv", tmp_path / "python.csv"
    monkeypatch.setattr(cases, "_match", Spy)
    cases.predict_file(boosted, CRX_TEST_CSV, compiled, confidence_column="confidence", chunksize=7)
    assert len(spelled) >= 28 and set(spelled) == {4}
    monkeypatch.setattr(cases, "_match", None)
    cases.predict_file(boosted, CRX_TEST_CSV, python, confidence_column="confidence", chunksize=7)
    assert compiled.read_bytes() == python.read_bytes()
    rules = np.array([[3, 0, 12], [0, 0, 0], [3, 0, 12], [1, 22, 7]])
    assert cases.trial_rule_text(rules).tolist() == ["1:3 2:0 3:12", "1:0 2:0 3:0", "1:3 2:0 3:12", "1:1 2:22 3:7"]
    with pytest.raises(ValueError, match="out of range"):
        _match.spell(np.array([0, 2]), 2, np.array([0, 3, 6]), b"1:3 2:0")


def test_added_cells_with_nothing_to_quote_are_joined_as_the_csv_writer_writes_them():
    """_csv_lines joins the added cells itself when none holds a separator, quote or line
    break, and leaves any other to the csv writer: pandas' to_csv bytes either way."""
    classes = np.array(["a", "b c", "", "=1", "x,y", 'q"', "r\rs", "t\nu"], dtype=object)
    rng = np.random.default_rng(52)
    for pick in ([0, 1, 2, 3], [0, 1, 2, 3, 4], [5, 0], [6, 0], [7, 1], [2], []):
        for rows in (0, 1, 5):
            column = classes[rng.choice(pick, rows)] if pick else classes[:0]
            columns = [column, rng.integers(0, 9, len(column)), rng.random(len(column)).round(6)]
            expected = pd.DataFrame(dict(zip("abc", columns))).to_csv(
                header=False, index=False, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
            assert cases._csv_lines(list("abc"), columns) == expected, (pick, rows)
            assert cases._csv_lines(["a"], columns[:1]) == pd.DataFrame({"a": column}).to_csv(
                header=False, index=False, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)


def test_distinct_codes_give_each_row_its_own_decision():
    """added_cells' table of distinct codes (no sort) maps each row to a row of its code."""
    rng = np.random.default_rng(52)
    for codes in (rng.integers(0, 9, 1000), rng.integers(0, 10**9, 50), np.array([3]), np.zeros(0, np.int64),
                  np.array([-1, 2, 2, -1])):
        first, inverse = cases._distinct_codes(codes)
        assert np.array_equal(codes[first][inverse], codes)
        assert len(first) == len(set(codes.tolist()))


def test_the_layout_pass_runs_while_the_model_loads(crx_model, monkeypatch, tmp_path):
    """predict begins a CSV's layout pass (csv_layout, its first read of the file) in a thread
    before loading the model, and predict_file finds it done (base: it began after the model
    loaded); the output is the same."""
    import shutil
    import threading
    from c45rules.data import frame
    data = tmp_path / "in.csv"
    shutil.copy(CRX_TEST_CSV, data)
    names = []
    real = frame.csv_layout
    monkeypatch.setattr(frame, "csv_layout", lambda *a: names.append(threading.current_thread().name) or real(*a))
    before = frame._csv_layout.cache_info().misses
    out = tmp_path / "out.csv"
    assert cli(["predict", "-q", str(crx_model), str(data), "-o", str(out)])[0] == 0
    assert names[0] == "c45rules-layout" and threading.main_thread().name in names[1:]
    assert frame._csv_layout.cache_info().misses == before + 1   # the file read once for its layout
    want = tmp_path / "want.csv"
    cases.predict_file(load_yaml(crx_model), data, want)
    assert out.read_bytes() == want.read_bytes()


@needs_scanner
@pytest.mark.parametrize("size", [1, 3, 64])
def test_the_layout_pass_reads_into_one_buffer_as_line_chunks_cut(monkeypatch, tmp_path, size):
    """frame._line_views (the layout pass's reading, no copy of the file: base copied each 4 MB
    piece twice) gives line_chunks' pieces' bytes, lines longer than its buffer too, and the
    compiled layout test on them numpy's answer."""
    from c45rules.data import frame
    from c45rules.data.names import line_chunks
    for i, text in enumerate(LAYOUTS):
        path = tmp_path / f"in{i}.csv"
        path.write_text(text, encoding="utf-8", newline="")
        views = [bytes(v) for v in frame._line_views(path, size)]
        assert all(v.endswith(b"\n") for v in views)
        assert b"".join(views) == b"".join(line_chunks(path))
        sep = ";" if ";" in text else ","
        nfields = text.lstrip("\ufeff").split("\n")[0].count(sep) + 1
        real = frame._line_views
        monkeypatch.setattr(frame, "_line_views", lambda p: real(p, size))
        compiled = frame._plain_csv_records(path, sep, nfields)
        monkeypatch.setattr(frame, "_plaincsv", None)
        assert compiled == frame._plain_csv_records(path, sep, nfields), text
        monkeypatch.undo()
