"""`predict --engine duckdb`: DuckDB runs the exported SQL and must score as the default engine does."""
from __future__ import annotations

import csv
import os
import random

import numpy as np
import pandas as pd
import pytest

from c45rules.data.reading import PANDAS_NA_TOKENS
from c45rules.errors import InputError
from c45rules.export import load_yaml

from .conftest import DATA, fails, ok

pytest.importorskip("duckdb")


def _text(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _both(model, data, tmp_path, *extra, suffix=".csv") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(default engine's output, duckdb's output) of `predict MODEL DATA EXTRA`."""
    a, b = tmp_path / f"default{suffix}", tmp_path / f"duckdb{suffix}"
    ok("predict", "-q", model, data, "-o", a, *extra)
    p = ok("predict", "-q", model, data, "-o", b, "--engine", "duckdb", *extra)
    assert p.stdout.strip().endswith(f"written to {b}")
    read = pd.read_parquet if suffix == ".parquet" else _text
    return read(a), read(b)


@pytest.fixture(scope="module")
def hypo_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "hypo.yaml"
    ok("fit", DATA / "hypo" / "hypo", "-o", path)
    return path


def test_crx_test_csv_is_scored_byte_for_byte_as_the_default_engine(crx_model, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    ok("predict", crx_model, DATA / "crx" / "crx_test.csv", "-o", a, "--confidence")
    ok("predict", crx_model, DATA / "crx" / "crx_test.csv", "-o", b, "--confidence", "--engine", "duckdb")
    assert b.read_bytes() == a.read_bytes()
    ruleset = load_yaml(crx_model)
    cases = _text(DATA / "crx" / "crx_test.csv")
    scored = _text(b)
    assert scored["predicted_class"].tolist() == ruleset.predict(cases).tolist()
    assert scored["rule_id"].astype(int).tolist() == ruleset.predict_rule(cases).tolist()
    assert len(scored) == 200


def test_hypo_with_unknowns_agrees_row_for_row(hypo_model, tmp_path):
    data = DATA / "hypo" / "hypo_test.csv"
    assert (_text(data) == "").to_numpy().sum() > 1000   # the test is about unknowns (empty cells)
    a, b = _both(hypo_model, data, tmp_path, "--confidence")
    pd.testing.assert_frame_equal(b, a)
    assert set(b["predicted_class"]) >= {"negative", "primary hypothyroid", "compensated hypothyroid"}


def _messy_crx(path) -> None:
    """crx_test.csv with pandas' NA tokens, '?', empty cells, and in discrete columns unseen values."""
    rows = list(csv.reader(open(DATA / "crx" / "crx_test.csv", newline="")))
    header, body = rows[0], rows[1:]
    continuous = {header.index(c) for c in ("A2", "A3", "A8", "A11", "A14", "A15")}
    tokens = sorted(PANDAS_NA_TOKENS | {"?"})
    rng = random.Random(7)
    for row in body:
        for j in range(len(row) - 1):
            if rng.random() < 0.2:
                row[j] = rng.choice(tokens + ([] if j in continuous else ["zz", "U", "t "]))
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header, *body])


def test_na_tokens_and_unseen_categories_agree_row_for_row(crx_model, tmp_path):
    data = tmp_path / "messy.csv"
    _messy_crx(data)
    a, b = _both(crx_model, data, tmp_path, "--confidence")
    pd.testing.assert_frame_equal(b, a)
    assert b["rule_id"].nunique() >= 6 and (b["rule_id"] == "0").sum() > 0
    assert (b["A9"] == "zz").any() and (b["A15"] == "NA").any()


def test_parquet_in_and_out_agree(hypo_model, tmp_path):
    # numbers stored as doubles (unknown as NaN) and discrete columns as text
    frame = pd.read_csv(DATA / "hypo" / "hypo_test.csv")
    assert (frame.dtypes == "float64").sum() == 7
    data = tmp_path / "hypo.parquet"
    frame.to_parquet(data)
    a, b = _both(hypo_model, data, tmp_path, "--confidence", suffix=".parquet")
    assert b.columns.tolist() == a.columns.tolist()
    assert b["rule_id"].dtype == np.int64 and b["confidence"].dtype == np.float64
    pd.testing.assert_frame_equal(b, a, check_dtype=False)


def test_rows_keep_the_input_order_across_many_blocks(crx_model, tmp_path):
    from c45rules.engines.duckdb import score_file
    cases = _text(DATA / "crx" / "crx_test.csv")
    big = pd.concat([cases] * 1500, ignore_index=True)
    big.insert(0, "row", np.arange(len(big)).astype(str))
    data = tmp_path / "big.csv"
    big.to_csv(data, index=False)
    out = tmp_path / "out.csv"
    ruleset = load_yaml(crx_model)
    assert score_file(ruleset, data, out, threads=2) == 300_000
    scored = pd.read_csv(out, dtype={"row": np.int64, "predicted_class": str},
                         keep_default_na=False, usecols=["row", "predicted_class", "rule_id"])
    assert (scored["row"].to_numpy() == np.arange(300_000)).all()
    assert (scored["rule_id"].to_numpy() == np.tile(ruleset.predict_rule(cases), 1500)).all()


def test_a_text_that_is_no_number_stops_the_run_naming_its_row(crx_model, tmp_path):
    rows = list(csv.reader(open(DATA / "crx" / "crx_test.csv", newline="")))
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    # A2 is tested by no rule, but the default engine reads it all the same; DuckDB's own
    # cast would read 1_000 as 1000, nan (with --keep-na-tokens) as NaN, inf and 1e999 as inf
    for column, text, extra in (("A2", "1_000", ()), ("A14", "abc", ()), ("A14", "nan", ("--keep-na-tokens",)),
                                ("A15", "inf", ()), ("A15", "1e999", ()), ("A2", "١٢", ())):
        bad = [r[:] for r in rows]
        bad[5][rows[0].index(column)] = text
        bad[150][rows[0].index(column)] = text
        data = tmp_path / "bad.csv"
        with open(data, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(bad)
        expected = (f"c45rules: error: {data}: row 5: column '{column}': '{text}' is not a number (rows count"
                    " from 1 after the header; --bad-cells unknown reads such a cell as unknown)")
        assert fails("predict", crx_model, data, "-o", out, "--engine", "duckdb", *extra) == expected
        assert fails("predict", crx_model, data, "-o", out, *extra) == expected
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "out.csv"]   # no temp file left


def test_strict_stops_at_an_unseen_value(crx_model, tmp_path):
    data = tmp_path / "messy.csv"
    _messy_crx(data)
    message = fails("predict", crx_model, data, "-o", tmp_path / "o.csv", "--engine", "duckdb", "--strict")
    assert message.startswith(f"c45rules: error: {data}: column 'A1': value '")
    assert message.endswith("' was not seen in training (such values match no test unless scoring is strict)")
    assert not (tmp_path / "o.csv").exists()


def test_hostile_file_name_and_refused_options(crx_model, tmp_path):
    data = tmp_path / "it's'); DROP TABLE x; --.csv"
    data.write_bytes((DATA / "crx" / "crx_test.csv").read_bytes())
    out = tmp_path / "o'ut.csv"
    ok("predict", crx_model, data, "-o", out, "--engine", "duckdb", cwd=tmp_path)
    assert len(_text(out)) == 200
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([data.name, out.name])   # no .tmp, no tmp_
    assert fails("predict", crx_model, data, "--engine", "duckdb") == \
        "c45rules: error: --engine duckdb writes a file: give -o OUT (.csv or .parquet)"
    assert fails("predict", crx_model, data, "-o", out, "--engine", "duckdb", "--explain") == \
        "c45rules: error: --explain is not available with --engine duckdb (use the default engine)"
    assert fails("predict", crx_model, DATA / "crx" / "crx.test", "-o", out, "--engine", "duckdb") == \
        (f"c45rules: error: {DATA / 'crx' / 'crx.test'}: the DuckDB engine reads .csv, .tsv, .parquet or .pq"
         " files (use the default engine for C4.5 .data/.test files)")
    cases = _text(DATA / "crx" / "crx_test.csv").drop(columns=["A9"])
    cases.to_csv(tmp_path / "no_a9.csv", index=False)
    assert fails("predict", crx_model, tmp_path / "no_a9.csv", "-o", out, "--engine", "duckdb").startswith(
        f"c45rules: error: {tmp_path / 'no_a9.csv'}: column 'A9' is missing (the model needs: ")


def test_a_blank_line_is_refused_not_skipped(crx_model, tmp_path):
    """The default engine reads a blank line as a record of unknowns; DuckDB would drop the row."""
    from c45rules.engines import duckdb as engine
    lines = (DATA / "crx" / "crx_test.csv").read_bytes().replace(b"\r\n", b"\n").split(b"\n")
    data = tmp_path / "blank.csv"
    data.write_bytes(b"\n".join(lines[:5] + [b""] + lines[5:]))
    assert fails("predict", crx_model, data, "-o", tmp_path / "o.csv", "--engine", "duckdb") == \
        (f"c45rules: error: {data}:6: a blank line, which the default engine reads as a record of unknown"
         " values and DuckDB skips: remove it, or score with the default engine")
    assert ok("predict", crx_model, data, "-o", tmp_path / "o.csv").stdout.startswith("201 rows scored")
    engine._CHUNK = 7   # a blank line across two reads, CR LF too
    try:
        for text, line in ((b"ab,c\r\n1,2\r\n\r\n", 3), (b"abcdef\n\nx\n", 2), (b"a\nbcdef\n\n", 3)):
            data.write_bytes(text)
            with pytest.raises(InputError, match=rf"^{data}:{line}: a blank line"):
                engine._refuse_blank_lines(data)
        data.write_bytes(b"ab,c\r\n1,2\r\n3,4\r\n")
        engine._refuse_blank_lines(data)
    finally:
        engine._CHUNK = 1 << 24


def test_a_file_duckdb_cannot_parse_is_named(crx_model, tmp_path):
    text = (DATA / "crx" / "crx_test.csv").read_bytes()
    assert b"\r\n" in text
    data = tmp_path / "mixed.csv"
    data.write_bytes(text.replace(b"\r\n", b"\n", 3))   # line ends of two kinds
    message = fails("predict", crx_model, data, "-o", tmp_path / "o.csv", "--engine", "duckdb")
    assert message.startswith(f"c45rules: error: {data}: DuckDB cannot read it: ")
    assert message.endswith("(the default engine may: score with it)")
    assert not (tmp_path / "o.csv").exists()


def test_the_rule_conditions_are_tested_once_a_row(crx_model):
    """Issue 52: the class and the confidence follow from the rule id (an integer switch); the
    query holds one searched CASE over the rules, not one per output column."""
    from sqlglot import exp

    from c45rules.engines import duckdb as engine
    ruleset = load_yaml(crx_model)
    kinds = {a.name: "VARCHAR" for a in ruleset.schema.attributes}
    query = engine.scoring_query(ruleset, exp.to_table("cases"), kinds, source_name="cases",
                                 prediction_column="p", rule_column="r", confidence_column="c")
    firing = sum(r.fires for r in ruleset.rules)
    over_rules = [c for c in query.find_all(exp.Case) if c.this is None and len(c.args["ifs"]) >= firing - 1]
    assert len(over_rules) == 1


def test_the_compiled_line_scan_reads_a_file_as_a_plain_python_one(tmp_path, monkeypatch):
    """Issue 52: plain_lines finds the line feeds with data/_plaincsv.c (memchr over reads of a
    cache's size: 2.9 of the 20M-row file's CPU seconds were numpy's scan); it and the numpy
    scan count the same as a reading of the whole file, whatever the reads' sizes, lines
    spanning them, and lines at the field limit."""
    from c45rules.data import _plaincsv
    from c45rules.engines import lines
    limit = 12
    monkeypatch.setattr(csv, "field_size_limit", lambda: limit)

    def expected(text: bytes):
        if not text or any(b in text for b in (b'"', b"\r", b"\0")):
            return None
        *whole, tail = text.split(b"\n")
        if any(len(line) >= limit for line in whole) or len(tail) > limit:
            return None
        return len(whole), text.endswith(b"\n")

    data = tmp_path / "p.csv"
    rng = random.Random(52)
    plain = 0
    for _ in range(3000):
        odd = b'"\r\0' if rng.random() < 0.1 else b""
        text = bytes(rng.choice(b"ab,\n\n" + odd) for _ in range(rng.randint(0, 50)))
        data.write_bytes(text)
        monkeypatch.setattr(lines, "_CHUNK", rng.randint(1, 20))
        want = expected(text)
        for scan in (_plaincsv, None):   # compiled, and numpy's fallback
            monkeypatch.setattr(lines, "_plaincsv", scan)
            assert lines.plain_lines(data) == want, (text, lines._CHUNK, scan)
        plain += want is not None
    assert plain > 1000   # most files were plain, and counted


def test_a_file_of_plain_lines_is_counted_from_its_lines(crx_model, tmp_path):
    """Issue 52: a CSV whose every line is a record is counted by a byte scan (as the layout
    check counts it), any other is left to the layout check; a layout error the scan does not
    see is still named as the default engine names it, and nothing is written."""
    from pathlib import Path

    from c45rules.data.frame import check_csv_layout
    from c45rules.data.reading import DEFAULT_READ
    from c45rules.engines import duckdb as engine, lines
    data = tmp_path / "p.csv"
    chunk, lines._CHUNK = lines._CHUNK, 5   # lines across reads
    try:
        for text, counted in ((b"a,b\n1,2\n", 1), (b"a,b\n1,2", 1), (b"a,b", 0), (b"a,b\n\n1,2\n", 2),
                              (b"a,b\n" + b"1,2\n" * 9, 9), (b"a,a\n1,2\n", None), (b'a,"b"\n1,2\n', None),
                              (b"a,b\r\n1,2\r\n", None), (b"", None),
                              (b"a,b\n1," + b"2" * csv.field_size_limit() + b"\n", None)):
            data.write_bytes(text)
            got = engine._plain_header(Path(data), ",", DEFAULT_READ)
            assert (got and got[1]) == counted, text[:20]
            if got is not None:
                assert got == check_csv_layout(data)
    finally:
        lines._CHUNK = chunk
    text = (DATA / "crx" / "crx_test.csv").read_bytes().replace(b"\r\n", b"\n")
    rows = text.split(b"\n")
    for name, bad in (("few", rows[3].rsplit(b",", 1)[0]), ("many", rows[3] + b",x")):
        head = tmp_path / f"{name}.csv"
        head.write_bytes(b"\n".join(rows[:3] + [bad] + rows[4:]))
        out = tmp_path / f"{name}.out.csv"
        expected = fails("predict", crx_model, head, "-o", out)
        assert fails("predict", crx_model, head, "-o", out, "--engine", "duckdb") == expected
        assert expected.startswith(f"c45rules: error: {head}:4: ") and "field(s), but the header has" in expected
        assert not out.exists()


def test_an_unknown_token_that_reads_as_a_number_is_unknown(crx_model, tmp_path):
    """Issue 52: a token is tested on a cell read as a number only when it is one (--na-values 0,
    00000): such a cell is unknown in both engines, and the decisions change with it."""
    data = DATA / "crx" / "crx_test.csv"
    a, b = _both(crx_model, data, tmp_path, "--na-values", "0", "--na-values", "00000", "--confidence")
    pd.testing.assert_frame_equal(b, a)
    plain = _text(tmp_path / "duckdb.csv")   # _both's output before the next run overwrites it
    _both(crx_model, data, tmp_path, "--confidence")
    assert (plain["rule_id"] != _text(tmp_path / "duckdb.csv")["rule_id"]).sum() > 0


def test_each_distinct_rule_test_is_evaluated_once_and_outputs_are_list_elements(crx_model):
    """Issue 52: a threshold test that many rules share is one column of the query, computed once
    a row; the first firing rule is a position, and the class, rule id and confidence are
    elements of constant lists (no CASE over the rule ids)."""
    from sqlglot import exp

    from c45rules.engines import duckdb as engine
    ruleset = load_yaml(crx_model)
    kinds = {a.name: "VARCHAR" for a in ruleset.schema.attributes}
    query = engine.scoring_query(ruleset, exp.to_table("cases"), kinds, source_name="cases",
                                 prediction_column="p", rule_column="r", confidence_column="c")
    thresholds = [(c.attribute, c.op, c.value) for r in ruleset.rules if r.fires for c in r.conditions
                  if c.op in ("<=", ">")]
    assert len(set(thresholds)) < len(thresholds)   # rules share thresholds in this model
    assert len(list(query.find_all(exp.LTE, exp.GT))) == len(set(thresholds))
    assert not [c for c in query.find_all(exp.Case) if c.this is not None]   # no `CASE rule WHEN id`
    assert sum(1 for f in query.find_all(exp.Anonymous) if f.name.lower() == "list_extract") == 3


def test_texts_at_the_edge_of_duckdbs_number_cast_read_as_the_default_engine(crx_model, tmp_path):
    """Issue 52: DuckDB's own cast (the fast reading) reads `+-1`, `1_000` and `infinity` as
    numbers, data/numbers.py does not; the run's probe finds where the cast agrees, and the
    engine reads those texts as the default engine does (a bad cell, here unknown)."""
    import duckdb

    from c45rules.engines import duckdb as engine
    assert engine._fast_agrees(duckdb.connect())   # the fast reading is the one in use here
    frame = _text(DATA / "crx" / "crx_test.csv")
    edge = ["+-1", "1_000", "1e1_0", "infinity", "-nan", " 12 ", "+.5", "1e999", "1.e1", "\t3\t", "0x10", "+-.5e1"]
    for j, column in enumerate(("A2", "A3", "A8", "A11", "A14", "A15")):
        rows = frame.index[j::5][:len(edge)]
        frame.loc[rows, column] = edge[:len(rows)]
    data = tmp_path / "edge.csv"
    frame.to_csv(data, index=False)
    a, b = _both(crx_model, data, tmp_path, "--bad-cells", "unknown", "--confidence")
    pd.testing.assert_frame_equal(b, a)


def test_odd_texts_are_searched_once_a_row_and_each_cell_tested_where_found(crx_model, tmp_path):
    """Issue 52.2: '_' and '+-' (read as part of a number by DuckDB's cast, not by
    data/numbers.py) are searched once in the row's number cells joined; where that finds one,
    each cell is tested on its own, so a '+-' that only the joining makes ('1+' then '-2') leaves
    '-2' a number, and '1_0' split over two cells ('1_', '0') leaves '0' one."""
    import duckdb
    from sqlglot import exp

    from c45rules.engines import duckdb as engine
    cells = [exp.column(c) for c in ("a", "b")]
    con = duckdb.connect()
    for a, b, read in (("1+", "-2", (None, -2.0)), ("1_", "0", (None, 0.0)), ("1_000", "+-1", (None, None)),
                       ("1.5", "-2", (1.5, -2.0)), (None, "3", (None, 3.0))):
        numbers = ", ".join(engine._fast_number(c, engine._odd(cells)).sql(dialect="duckdb") for c in cells)
        assert con.execute(f"SELECT {numbers} FROM (SELECT ? AS a, ? AS b)", [a, b]).fetchone() == read
    frame = _text(DATA / "crx" / "crx_test.csv")
    for j, (a2, a3) in enumerate((("1+", "-2"), ("1_", "0"), ("7", "+-1"))):
        frame.loc[frame.index[j::3], ["A2", "A3"]] = [a2, a3]
    data = tmp_path / "odd.csv"
    frame.to_csv(data, index=False)
    a, b = _both(crx_model, data, tmp_path, "--bad-cells", "unknown", "--confidence")
    pd.testing.assert_frame_equal(b, a)


def _watch(monkeypatch, note) -> None:
    """duckdb.connect patched: `note(connection, sql)` is called before each statement runs."""
    import duckdb
    connect = duckdb.connect

    class Watched:
        def __init__(self, *args, **kwargs):
            self.con = connect(*args, **kwargs)

        def execute(self, sql, *args):
            note(self.con, sql)
            return self.con.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.con, name)

    monkeypatch.setattr(duckdb, "connect", Watched)


def _bytes(setting: str) -> float:
    """DuckDB's text of a memory size ('1.1 GiB', '488.2 MiB') in bytes."""
    number, unit = setting.split()
    return float(number) * 1024 ** ["KiB", "MiB", "GiB", "TiB"].index(unit) * 1024


def test_copy_writes_on_every_thread_duckdb_is_given(crx_model, tmp_path, monkeypatch):
    # DuckDB's batch writer (COPY keeping the input order) runs on
    # min(threads, (memory_limit / 4) // (4 MiB x output columns) + 1) threads: with the fixed
    # 512 MB it took 1 of 2 for the synth files' 33 columns, and with it the whole query ran on one core
    from c45rules.engines.duckdb import score_file
    seen = []
    _watch(monkeypatch, lambda con, sql: seen.append((con.execute(
        "SELECT current_setting('memory_limit'), current_setting('threads')").fetchone(), sql))
        if sql.startswith("COPY") else None)
    out = tmp_path / "out.csv"
    assert score_file(load_yaml(crx_model), DATA / "crx" / "crx_test.csv", out, threads=4) == 200
    [((limit, threads), sql)] = seen
    columns = len(_text(out).columns)
    assert int(threads) == 4 and columns == 18
    writers = min(int(threads), int(_bytes(limit) / 4 // (4 * 2 ** 20 * columns)) + 1)
    assert writers == 4
    # a memory_limit given is kept
    score_file(load_yaml(crx_model), DATA / "crx" / "crx_test.csv", out, threads=4, memory_limit="600MB")
    assert round(_bytes(seen[-1][0][0]) / 1e6) == 600
    from c45rules.engines.duckdb import writer_memory_limit
    # at least 512 MB, and never above 80% of the machine's memory
    assert writer_memory_limit(1, 1) == 512 * 2 ** 20
    assert writer_memory_limit(33, 2) == 16 * 33 * 2 * 2 ** 20
    assert writer_memory_limit(10 ** 6, 64) < os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def test_a_plain_csv_is_written_as_its_lines_beside_each_decisions_cells(crx_model, tmp_path, monkeypatch):
    """Issue 52.2: a CSV of plain lines is read as one text a line and split into its cells, and
    COPY writes one column, the line then the decision's cells (class escaped, rule id,
    confidence) as COPY wrote them from NULL cells: the writer's cost grew with the columns. The
    bytes are the default engine's, and those of the same cells read as a TSV (cell by cell);
    cells with spaces, empty ones, odd texts, a Latin-1 file and a last line without a line end
    included."""
    import sqlglot

    from c45rules.data.reading import ReadOptions
    from c45rules.engines.duckdb import score_file
    ruleset = load_yaml(crx_model)
    statements = []
    frame = _text(DATA / "crx" / "crx_test.csv")
    frame.loc[frame.index[::7], "A2"] = ""
    frame.loc[frame.index[1::7], "A3"] = ([" 1.5 ", "+-1", "1_0", "inf"] * 8)[:len(frame.index[1::7])]
    frame.loc[frame.index[2::7], "A4"] = " u"
    frame.loc[frame.index[3::7], "A1"] = "x+-_y"
    frame["note é"] = ["café", "", " a b ", "=1"] * 50
    for encoding in ("utf-8", "latin-1"):
        plain, cells = tmp_path / f"{encoding}.csv", tmp_path / f"{encoding}.tsv"
        frame.to_csv(plain, index=False, encoding=encoding, lineterminator="\n")
        plain.write_bytes(plain.read_bytes().rstrip(b"\n"))
        frame.to_csv(cells, index=False, encoding=encoding, sep="\t", lineterminator="\n")
        outs = [tmp_path / "default.csv", tmp_path / "lines.csv", tmp_path / "cells.csv"]
        if encoding == "utf-8":   # the default engine's bytes (Latin-1: those of the same cells read one by one)
            ok("predict", "-q", crx_model, plain, "-o", outs[0], "--confidence", "--bad-cells", "unknown")
        else:
            outs.pop(0)
        for data, out, columns in ((plain, outs[-2], 1), (cells, outs[-1], 20)):
            statements.clear()
            with monkeypatch.context() as m:
                _watch(m, lambda con, sql: statements.append(sql))
                assert score_file(ruleset, data, out, confidence_column="confidence", bad_cells="unknown",
                                  read=ReadOptions(encoding=encoding)) == 200
            written = sqlglot.parse_one(statements[-1], read="duckdb")
            assert len(written.this.this.expressions) == columns, (encoding, data)
        assert len({out.read_bytes() for out in outs}) == 1, encoding
        assert "café" in outs[-1].read_text() and ",=1,-," in outs[-1].read_text()   # as read


def test_each_decisions_cells_are_those_copy_writes_and_a_line_break_keeps_the_cells(tmp_path):
    """Issue 52.2: the texts written after a plain line are COPY's own for each decision position
    (quoted where it quotes); a decision whose text holds a line break (COPY would write it on
    two lines) gives None, and the engine writes cell by cell."""
    import duckdb
    from sqlglot import exp

    from c45rules.engines import duckdb as engine
    scored = engine._Scored(stage=exp.to_table("unused"), position="pos", decisions=3, outputs=[])
    options = "FORMAT csv, HEADER true, DELIMITER ','"

    def written(classes):
        def query(stage):
            at = exp.Add(this=exp.column("pos"), expression=exp.Literal.number(1))
            texts = exp.Array(expressions=[exp.Literal.string(c) for c in classes])
            return exp.select(exp.column("a"), exp.column("b"), exp.alias_(
                exp.Anonymous(this="list_extract", expressions=[texts, at]), "p, q", quoted=True),
                exp.alias_(exp.column("pos"), "r", quoted=True)).from_(stage)
        return query

    con = duckdb.connect()
    kinds = {"a": "VARCHAR", "b": "VARCHAR"}
    assert engine._written_decisions(con, scored, kinds, written(["x", 'y,"z', "é"]), options, str(tmp_path)) == \
        ('a,b,"p, q",r', [",x,0", ',"y,""z",1', ",é,2"])
    assert engine._written_decisions(con, scored, kinds, written(["x", "y\nz", "w"]), options, str(tmp_path)) is None
