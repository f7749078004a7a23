"""`predict --engine spark` scores in a real local Spark session (reading and writing there) and
agrees with the default engine cell for cell (skipped without Java or pyspark, failed under CI)."""
from __future__ import annotations

import csv

import pandas as pd
import pytest

from .conftest import DATA, cli_err, ok

pytestmark = pytest.mark.usefixtures("spark_ready")


def _cells(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_crx_csv_is_byte_identical_to_the_default_engine(crx_model, crx_predicted, tmp_path):
    # in this process: a second JVM start would double the test's time (the console script runs
    # the same code; tests/e2e/test_cli.py covers its entry point)
    out = tmp_path / "spark.csv"
    code, stdout, _ = cli_err(["predict", str(crx_model), str(DATA / "crx" / "crx_test.csv"),
                               "--engine", "spark", "-o", str(out)])
    assert code == 0 and f"200 rows scored, written to {out}" in stdout
    assert out.read_bytes() == crx_predicted.read_bytes()
    assert [f.name for f in tmp_path.iterdir()] == ["spark.csv"]   # Spark's work directory is gone


@pytest.fixture(scope="module")
def hypo_messy(tmp_path_factory):
    """hypo's test CSV with unknowns spelled every way, hostile text, and its model."""
    d = tmp_path_factory.mktemp("hypo")
    model = d / "hypo.yaml"
    ok("fit", DATA / "hypo" / "hypo", "-o", model)
    frame = _cells(DATA / "hypo" / "hypo_test.csv")
    tokens = ["?", "NA", "NULL", "nan", "", "N/A", "<NA>", "None"]
    for j, column in enumerate(("TSH", "FTI", "T3", "TT4", "on thyroxine", "referral source", "sex")):
        rows = frame.index[j::5]
        frame.loc[rows, column] = [tokens[(i + j) % len(tokens)] for i in range(len(rows))]
    frame.loc[frame.index[1::7], "referral source"] = "never seen, \"quoted\"\nline"
    frame.insert(0, "note", [f"  it's, \"{i}\" \\ " for i in range(len(frame))])
    data = d / "messy.csv"
    frame.to_csv(data, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    return model, data


def test_hypo_with_unknowns_agrees_row_for_row_csv_and_parquet(hypo_messy, tmp_path):
    model, data = hypo_messy
    default, spark = tmp_path / "default.csv", tmp_path / "spark.csv"
    assert cli_err(["predict", str(model), str(data), "-o", str(default), "--confidence"])[0] == 0
    code, out, _ = cli_err(["predict", str(model), str(data), "--engine", "spark", "-o", str(spark),
                            "--confidence"])
    assert code == 0 and f"written to {spark}" in out
    want, got = _cells(default), _cells(spark)
    assert len(want) == 1258 and list(got.columns) == list(want.columns)
    assert got.equals(want)
    assert set(want["rule_id"]) > {"0"} and (want["referral source"] == "").sum() > 0
    pq = tmp_path / "spark.parquet"
    code, _, _ = cli_err(["predict", str(model), str(data), "--engine", "spark", "-o", str(pq)])
    assert code == 0
    frame = pd.read_parquet(pq)
    assert list(frame["predicted_class"]) == list(want["predicted_class"])
    assert frame["rule_id"].tolist() == [int(r) for r in want["rule_id"]]
    assert frame["note"].tolist() == want["note"].tolist()


def test_a_cell_that_is_not_a_number_fails_the_run_naming_it(hypo_messy, tmp_path):
    model, data = hypo_messy
    frame = _cells(data)
    frame.loc[17, "TSH"] = "1,5"
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    out = tmp_path / "out.csv"
    code, _, err = cli_err(["predict", str(model), str(bad), "--engine", "spark", "-o", str(out)])
    assert code == 2
    assert err.strip().splitlines()[-1] == (f"c45rules: error: {bad}: row 18: column 'TSH': '1,5' is not a number"
                                            " (rows count from 1 after the header; --bad-cells unknown reads"
                                            " such a cell as unknown)")
    assert not out.exists() and [f.name for f in tmp_path.iterdir()] == ["bad.csv"]
    hidden = tmp_path / "hidden.csv"
    frame.rename(columns={"note": "__c45rules_value_0__"}).to_csv(hidden, index=False)
    code, _, err = cli_err(["predict", str(model), str(hidden), "--engine", "spark", "-o", str(out)])
    assert code == 2 and "column '__c45rules_value_0__': names starting with" in err
    # the default engine refuses the same cell
    assert "'1,5' is not a number" in cli_err(["predict", str(model), str(bad), "-o", str(out)])[2]


BAD_TEXTS = ["inf", "1e999", "١٢", "1_000", "abc", "-Infinity", "NaN ", "0x10", " "]


def test_bad_cells_unknown_decides_as_the_other_engines_and_error_names_the_row(hypo_messy, tmp_path):
    pytest.importorskip("duckdb")
    model, data = hypo_messy
    frame = _cells(data)
    for k, text in enumerate(BAD_TEXTS):   # tested columns, rows that rules would decide otherwise
        frame.loc[frame.index[3 + 11 * k::97], "TSH" if k % 2 else "FTI"] = text
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False, lineterminator="\n")
    outs = {engine: tmp_path / f"{engine}.csv" for engine in ("default", "duckdb", "spark")}
    for engine, out in outs.items():
        code, _, err = cli_err(["predict", str(model), str(bad), "--engine", engine, "-o", str(out),
                                "--bad-cells", "unknown"])
        assert code == 0, err
    want = _cells(outs["default"])
    assert _cells(outs["duckdb"]).equals(want) and _cells(outs["spark"]).equals(want)
    # the bad cells decide as unknown cells do
    unknown = frame.mask(frame.isin(BAD_TEXTS), "")
    unknown.to_csv(tmp_path / "unknown.csv", index=False, lineterminator="\n")
    assert cli_err(["predict", str(model), str(tmp_path / "unknown.csv"), "-o", str(tmp_path / "u.csv")])[0] == 0
    assert _cells(tmp_path / "u.csv")["rule_id"].tolist() == want["rule_id"].tolist()
    # an error names the cell the default engine stops at: in a chunk, the first bad row of the
    # first column (model order) holding one; TSH comes before FTI
    message = (f"c45rules: error: {bad}: row 15: column 'TSH': '1e999' is not a number (rows count from 1"
               " after the header; --bad-cells unknown reads such a cell as unknown)")
    for engine in outs:
        code, _, err = cli_err(["predict", str(model), str(bad), "--engine", engine, "-o", str(tmp_path / "e.csv")])
        assert code == 2 and err.strip().splitlines()[-1] == message, engine
    assert not (tmp_path / "e.csv").exists()


def test_options_the_spark_engine_cannot_honour_are_refused(crx_model, tmp_path):
    for extra, flag in ((["--explain"], "--explain"), (["--strict"], "--strict")):
        code, _, err = cli_err(["predict", str(crx_model), str(DATA / "crx" / "crx_test.csv"),
                                "--engine", "spark", "-o", str(tmp_path / "o.csv"), *extra])
        assert code == 2 and err.strip() == (f"c45rules: error: {flag} is not available with"
                                              " --engine spark (use --engine default)")
    code, _, err = cli_err(["predict", str(crx_model), str(DATA / "crx" / "crx_test.csv"), "--engine", "spark"])
    assert code == 2 and "--engine spark writes a file: give -o OUT.csv" in err


def test_a_csv_of_plain_lines_is_read_in_parallel_pieces_and_joined_in_order(spark, crx_model, tmp_path):
    """Issue 52: a CSV whose every line is a record is cut into pieces Spark reads in parallel;
    their part files, joined in order under one header, equal the default engine's output."""
    from c45rules.cli.spark import _read
    from c45rules.data.reading import DEFAULT_READ
    data = tmp_path / "lf.csv"
    data.write_bytes((DATA / "crx" / "crx_test.csv").read_bytes().replace(b"\r\n", b"\n"))
    default, out = tmp_path / "default.csv", tmp_path / "spark.csv"
    assert cli_err(["predict", str(crx_model), str(data), "-o", str(default), "--confidence"])[0] == 0
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2048")   # pieces of about 30 rows
    try:
        frame, split = _read(spark, data, DEFAULT_READ)
        assert split and frame.rdd.getNumPartitions() > 3
        code, stdout, _ = cli_err(["predict", str(crx_model), str(data), "--engine", "spark", "-o", str(out),
                                   "--confidence"])
        assert code == 0 and f"200 rows scored, written to {out}" in stdout
        assert out.read_bytes() == default.read_bytes()
        quoted = tmp_path / "quoted.csv"   # a quote: a cell may hold a line break, read whole
        quoted.write_bytes(data.read_bytes().replace(b"\na,", b'\n"a",', 1))
        assert _read(spark, quoted, DEFAULT_READ)[1] is False
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert sorted(f.name for f in tmp_path.iterdir()) == ["default.csv", "lf.csv", "quoted.csv", "spark.csv"]


def test_a_number_in_a_discrete_parquet_column_decides_as_the_default_engine(spark, tmp_path):
    """Issue 52: Spark's decisions are the default engine's own code (encode_frame, the rule
    lookup) run on Arrow batches, so a discrete attribute stored as numbers (1.0 for the value
    '1') matches as there; Spark SQL's text of 1.0 is '1.0', which matched no value."""
    stem = tmp_path / "ab"
    stem.with_suffix(".names").write_text("yes, no.\n\na: 1, 2, 3.\nx: continuous.\n")
    rows = [(1 + i % 3, i % 10 / 10) for i in range(90)]
    stem.with_suffix(".data").write_text("".join(f"{a},{x},{'yes' if a == 1 or x > 0.7 else 'no'}\n"
                                                 for a, x in rows))
    model = tmp_path / "ab.yaml"
    ok("fit", stem, "-o", model)
    data = tmp_path / "ab.parquet"
    pd.DataFrame({"a": [float(a) for a, _ in rows], "x": [x for _, x in rows]}).to_parquet(data)
    outs = {engine: tmp_path / f"{engine}.parquet" for engine in ("default", "spark")}
    for engine, out in outs.items():
        code, _, err = cli_err(["predict", str(model), str(data), "--engine", engine, "-o", str(out)])
        assert code == 0, err
    want, got = pd.read_parquet(outs["default"]), pd.read_parquet(outs["spark"])
    assert got["rule_id"].tolist() == want["rule_id"].tolist()
    assert got["predicted_class"].tolist() == want["predicted_class"].tolist()
    assert (want["predicted_class"] == "yes").sum() > 30   # the discrete test fired


def test_jobs_give_a_local_master_its_cores():
    """Issue 52: predict -j N runs a local Spark master on N cores (-1: every core); 1, -j's
    default, and a cluster's master keep the master as given."""
    import argparse

    from c45rules.cli.predict import _jobs
    from c45rules.cli.spark import local_master
    from c45rules.workers import available_cores
    assert [local_master(m, 3) for m in ("local[2]", "local", "local[*]", "spark://h:7077")] == [
        "local[3]", "local[3]", "local[3]", "spark://h:7077"]
    assert local_master("local[2]", None) == "local[2]"
    assert [_jobs(argparse.Namespace(**kw)) for kw in ({}, {"jobs": 1}, {"jobs": 4}, {"jobs": -1})] == [
        None, None, 4, available_cores()]
