"""C4.5 case files: the numpy path for plain files gives exactly what the general splitter gives.

`read_cases` cuts a plain file (no `\\`, `|`, NUL or lone CR) into cells with numpy and runs
every rule on distinct cell texts only; the general path splits lines in Python and encodes
whole columns. Both must yield the same encoded columns and schema, or the same error. The
compiled cutter (data/_cells.c), which the plain path takes when it is built, must give the
numpy cutter's cells exactly.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c45rules.data import names
from c45rules.data.schema import Attribute, Schema
from c45rules.errors import InputError

DATA = Path("/work/shared/data")
STEMS = sorted(p for p in DATA.glob("*/*.names")) if DATA.exists() else []


def _general(path: Path, schema: Schema, *, collect: bool):
    frame = names._split_lines(path, names._read_text(path), len(schema.attributes) + 1)
    return names.cases_from_frame(frame, schema, str(path), collect=collect)


def _outcome(read, path, schema, collect):
    try:
        ds, schema = read(path, schema, collect=collect)
    except InputError as e:
        return ("error", str(e))
    return ("ok", schema, [(c.dtype, c.tolist()) for c in ds.columns], ds.y.dtype, ds.y.tolist())


def _same(a, b) -> bool:
    """Equal outcomes, NaN equal to NaN."""
    return repr(a) == repr(b)


@pytest.mark.parametrize("names_file", STEMS, ids=lambda p: p.stem)
def test_shared_datasets_plain_path_equals_general(names_file):
    pending = names.read_names(names_file)
    data = names_file.with_suffix(".data")
    fast = _outcome(names.read_cases, data, pending, True)
    assert _same(fast, _outcome(_general, data, pending, True))
    test = names_file.with_suffix(".test")
    if test.exists() and fast[0] == "ok":
        assert _same(_outcome(names.read_cases, test, fast[1], False),
                     _outcome(_general, test, fast[1], False))


SCHEMA = Schema((Attribute("c", "continuous"), Attribute("d", "discrete", ("\0discrete", "6")),
                 Attribute("e", "discrete", ("x", "y y", "1.5")), Attribute("i", "ignore")),
                ("A", "B", "C."))
CELLS = ["1", "-2.5", "1e3", " 7 ", "\t3\t", "?", "", "1_000", "٣", "nan", "inf", "-inf", "NaN",
         "0x10", "1.", "x", "y y", "y  y", "1.5", "A", "B", "C.", "B .", "B.", "A..", "é", "\u00a0A",
         "A\u00a0", "\ufeffA", "\x0cB", "\"A\"", "'x'", "#1", "  ", "." , "A ."]
ENDS = ["\n", "\n", "\r\n", "\r", ""]
# cells that mostly fit each column, so that many files load and are compared value by value
POOLS = [["1", "-2.5", "1e3", " 7 ", "\t3\t", "?", "", "1_000", "٣", "nan", "inf", "0x10", "1.", "x"],
         ["x", "?", "", " x", "é", "1", "2", "3", "y"],
         ["x", "y y", "y  y", " 1.5", "?", "", "z"],
         CELLS,
         ["A", "B", "C.", "B .", "B.", "A..", "C..", "\u00a0A", "A\u00a0", "\ufeffA", "\x0cB", "A ."]]


@st.composite
def case_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["case"] * 8 + ["blank", "blank", "short", "noise"]))
        if kind == "case":
            cells = [draw(st.sampled_from(pool)) for pool in POOLS]
        elif kind == "short":
            cells = [draw(st.sampled_from(CELLS)) for _ in range(draw(st.integers(1, 7)))]
        elif kind == "blank":
            cells = [draw(st.sampled_from(["", " ", "\t", "\x0c", "\u00a0", "\r"]))]
        else:
            cells = [draw(st.text(st.sampled_from(",. \t?1|\\x\x00é\r"), max_size=6))]
        lines.append(",".join(cells) + draw(st.sampled_from(ENDS)))
    text = "".join(lines).encode("utf-8")
    if draw(st.integers(0, 9)) == 0 and text:   # now and then a byte that is not UTF-8
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + b"\xff" + text[at:]
    return text


@pytest.mark.parametrize("chunk_bytes", [16, 1 << 23])
@settings(max_examples=400, deadline=None)
@given(text=case_files())
def test_tricky_files_plain_path_equals_general(tmp_path_factory, chunk_bytes, text):
    path = tmp_path_factory.mktemp("cases") / "x.data"
    path.write_bytes(text)
    saved = names._CHUNK_BYTES, names._SPLIT_READ_BYTES
    names._CHUNK_BYTES, names._SPLIT_READ_BYTES = chunk_bytes, 7
    try:
        fast = _outcome(names.read_cases, path, SCHEMA, True)
        if names._native_cells is not None:     # the compiled cutter's cells are numpy's
            numpy_cells = _cells_outcome(path, 5, False)
            assert _cells_outcome(path, 5, True) == numpy_cells
            # and so are those of the file cut in parts by threads (-j), their tables joined
            assert _cells_outcome(path, 5, True, jobs=3) == numpy_cells
    finally:
        names._CHUNK_BYTES, names._SPLIT_READ_BYTES = saved
    assert _same(fast, _outcome(_general, path, SCHEMA, True))


def _cells_outcome(path: Path, ncols: int, compiled: bool, jobs: int = 1):
    cells = names._plain_cells(path, ncols, compiled=compiled, jobs=jobs)
    return None if cells is None else [(c.dtype, c.tolist(), list(v)) for c, v in cells]


needs_cutter = pytest.mark.skipif(names._native_cells is None, reason="the compiled cutter is not built")


def test_compiled_cutter_is_built_under_ci():
    # CI builds it: a missing module there is a broken build, not a machine without gcc
    assert names._native_cells is not None or not os.environ.get("CI")


@needs_cutter
@pytest.mark.parametrize("names_file", STEMS, ids=lambda p: p.stem)
def test_shared_datasets_compiled_cutter_equals_numpy_cells(names_file):
    ncols = len(names.read_names(names_file).attributes) + 1
    for path in (names_file.with_suffix(".data"), names_file.with_suffix(".test")):
        if path.exists():
            assert _cells_outcome(path, ncols, True) == _cells_outcome(path, ncols, False)


@needs_cutter
def test_cutter_widens_codes_past_2_15_values_and_compares_long_texts(tmp_path, monkeypatch):
    path = tmp_path / "x.data"
    # 40,000 distinct numbers in column 0 (16-bit codes no longer do), texts of 1 to 40 bytes
    # in column 1 (keys of up to 8 bytes are the text itself, longer ones a hash), in chunks
    rows = [f"{i},{'w' * (1 + i % 40)}{i % 3},A\n" for i in range(40_000)] + ["7,ww1,B\n"]
    path.write_text("".join(rows))
    monkeypatch.setattr(names, "_CHUNK_BYTES", 1 << 16)
    fast, slow = _cells_outcome(path, 3, True), _cells_outcome(path, 3, False)
    assert fast == slow
    monkeypatch.setattr(names, "_SPLIT_READ_BYTES", 1 << 18)     # 4 parts, a thread each
    assert _cells_outcome(path, 3, True, jobs=4) == slow
    assert fast[0][0] == np.int32 and len(fast[0][2]) == 40_000 and fast[0][1][-1] == 7
    assert fast[1][0] == np.int16 and len(fast[1][2]) == 120 and fast[1][1][-1] == fast[1][1][1]


def test_plain_path_is_taken_for_plain_files(tmp_path):
    path = tmp_path / "x.data"
    path.write_bytes(b"1,x,y y,0,A\r\n\r\n  \n2.5 , x , 1.5,9,B .\n")
    assert names._plain_cells(path, 5) is not None
    ds, schema = names.read_cases(path, SCHEMA, collect=True)
    assert schema.attributes[1].values == ("x",)
    assert ds.columns[0].tolist() == [1.0, 2.5] and ds.y.tolist() == [0, 1]
    path.write_bytes(b"1,x,y y,0,A | comment\n")
    assert names._plain_cells(path, 5) is None


def test_distinct_values_across_chunks_keep_first_seen_order(tmp_path, monkeypatch):
    path = tmp_path / "x.data"
    rows = [f"{i % 7},v{(i * 5) % 6},x,0,{'ABC'[i % 3]}\n" for i in range(200)]
    rows.insert(50, "0,a_very_long_value_spanning_several_words,x,0,A\n")
    path.write_text("".join(rows))
    schema = Schema(SCHEMA.attributes[:1] + (Attribute("d", "discrete", ("\0discrete", "9")),)
                    + SCHEMA.attributes[2:], ("A", "B", "C"))
    monkeypatch.setattr(names, "_CHUNK_BYTES", 40)
    fast = _outcome(names.read_cases, path, schema, True)
    assert fast[1].attributes[1].values[:2] == ("v0", "v5")
    assert _same(fast, _outcome(_general, path, schema, True))


def test_split_cases_gives_the_text_cells(tmp_path):
    path = tmp_path / "x.data"
    path.write_bytes(b"1 ,x,y y,0,A.\n?,x,,7,B\n")
    frame = names.split_cases(path, 5)
    assert frame.values.tolist() == [["1", "x", "y y", "0", "A"], ["?", "x", "", "7", "B"]]
    assert list(frame.columns) == [0, 1, 2, 3, 4]


CSV_CELLS = ["1", "a", "", " ", "\"q\"", "x\"y", "é", "\x00", "?", "\t", ";", "\u2028"]


@st.composite
def csv_files(draw) -> bytes:
    ncols = draw(st.integers(1, 3))
    header = ",".join(f"h{i}" for i in range(ncols)) if draw(st.integers(0, 9)) else "h,h"
    lines = [("\ufeff" if draw(st.booleans()) else "") + header]
    for _ in range(draw(st.integers(0, 8))):
        width = ncols if draw(st.integers(0, 5)) else draw(st.integers(0, 4))
        lines.append(",".join(draw(st.sampled_from(CSV_CELLS)) for _ in range(width)))
    text = "".join(line + draw(st.sampled_from(ENDS)) for line in lines).encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        text = text + b"\xff"
    return text


@settings(max_examples=400, deadline=None)
@given(text=csv_files())
def test_csv_layout_check_without_csv_module_equals_csv_module(tmp_path_factory, text):
    from c45rules.data import frame

    path = tmp_path_factory.mktemp("csv") / "x.csv"
    path.write_bytes(text)

    def outcome():
        try:
            return frame.check_csv_layout(path)
        except InputError as e:
            return str(e)
    fast = outcome()
    saved = frame._plain_csv_records
    frame._plain_csv_records = lambda *args: None
    try:
        assert fast == outcome()
    finally:
        frame._plain_csv_records = saved


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(st.sampled_from(CELLS + [None, float("nan"), "18446744073709551615", "-1",
                                               "9007199254740993"]), max_size=12),
       as_str=st.booleans())
def test_frame_columns_parsed_once_per_distinct_value_equal_whole_column(cells, as_str):
    import pandas as pd

    from c45rules.data import frame

    s = pd.Series(cells, dtype=str if as_str else object)
    num, ok = frame._numeric(s)
    whole_num, whole_ok = frame._parse_numbers(s)
    assert ok == whole_ok and repr(num.tolist()) == repr(whole_num.tolist())
    unk = frame._is_unknown(s)
    whole_txt = s.astype(object).map(frame.value_str).where(~unk, None)
    txt = frame._as_strings(s)
    assert txt.dtype == whole_txt.dtype and repr(txt.tolist()) == repr(whole_txt.tolist())


def test_numbers_parsed_in_arrow_are_the_grammars_numbers():
    """parse_number_texts' Arrow path (predict's: RE2 and Arrow's cast) reads every text as
    number_or_none does, to the last bit: signs, points, exponents, spaces, overflow, junk."""
    import random

    from c45rules.data.numbers import number_or_none, parse_number_texts
    rng = random.Random(3)
    texts = ["".join(rng.choice("0123456789.eE+- \t\nx_") for _ in range(rng.randint(0, 9))) for _ in range(20_000)]
    texts += ["1e999", "-1e-400", "4.9e-324", "9007199254740993", "0.1000000000000000055511151231257827", "١٢", None]
    values, ok = parse_number_texts(np.array(texts, dtype=object), arrow=True)
    want = [number_or_none(t) if isinstance(t, str) else None for t in texts]
    assert [repr(float(v)) if o else None for v, o in zip(values, ok)] == [None if w is None else repr(w) for w in want]
