"""Batch sources (data/batches.py, issue 50): the schema pass and the encoded passes of a streamed
read equal the in-memory read, bit for bit, on every shared set as C4.5 stem, CSV, Parquet and
(a few) DuckDB; a file changed between passes is an error naming it."""
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from c45rules.data.batches import dataset_batches, open_batches
from c45rules.data.frame import from_frame, load_data
from c45rules.data.reading import ReadOptions
from c45rules.data.schema import Dataset
from c45rules.errors import DataWarning, InputError

DATA = Path(os.environ.get("C45RULES_SHARED", "/work/shared")) / "data"
# synth_100k: bench/stream_memory.py reads it (its 31 MB would take half a minute here)
SETS = sorted(p.name for p in DATA.iterdir() if (p / f"{p.name}.names").exists()
              and p.name != "synth_100k") if DATA.exists() else []
BIG = {"letter", "income", "shuttle", "synth_10k", "synth_100k", "fertility", "spambase", "hypo", "segment"}
pytestmark = pytest.mark.skipif(not SETS, reason="shared data not found")


def rows_for(name: str) -> int:
    """Small batches on small sets, larger on big ones (the file's time stays under a minute)."""
    return 9973 if name == "fertility" else 997 if name in BIG else 7


def joined(batches, schema) -> Dataset:
    parts = list(batches())
    assert parts and all(p.schema is schema or p.schema == schema for p in parts)
    cols = [np.concatenate([p.columns[j] for p in parts]) for j in range(len(schema.attributes))]
    return Dataset(schema, cols, np.concatenate([p.y for p in parts]))


def assert_same(source, ds: Dataset, rows: int) -> None:
    assert repr(source.schema) == repr(ds.schema)
    assert source.n == ds.n
    parts = list(source())
    assert max(p.n for p in parts) <= rows
    got = joined(source, source.schema)
    for a, c, d in zip(ds.schema.attributes, got.columns, ds.columns):
        assert c.dtype == d.dtype, a.name
        assert c.tobytes() == d.tobytes(), a.name
    assert got.y.dtype == ds.y.dtype and got.y.tobytes() == ds.y.tobytes()
    assert source.fingerprint() == ds.fingerprint()
    assert source.unknown_tokens == ds.unknown_tokens


def quiet(f, *args, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(*args, **kw)
    return out, [str(w.message) for w in caught]


@pytest.mark.parametrize("name", SETS)
def test_stem_batches_equal_in_memory(name):
    stem = str(DATA / name / name)
    ds, _ = load_data(stem, test=False)
    k = rows_for(name)
    assert_same(open_batches(stem, batch_rows=k), ds, k)


@pytest.mark.parametrize("name", [s for s in SETS if s != "fertility"])   # its stem is read above
def test_csv_and_parquet_batches_equal_in_memory(name, tmp_path):
    csv = DATA / name / f"{name}.csv"
    with open(csv, encoding="utf-8") as f:
        target = f.readline().rstrip("\r\n").split(",")[-1]   # the class is the last column
    k = rows_for(name)
    ds, said = quiet(load_data, csv, target=target)
    ds = ds[0]
    source, streamed_said = quiet(open_batches, csv, target, batch_rows=k)
    assert streamed_said == said
    assert_same(source, ds, k)
    if name in BIG and name != "letter":   # Parquet: the small sets and one big one (time)
        return
    pq = tmp_path / f"{name}.parquet"
    import pandas as pd
    pd.read_csv(csv, dtype=str, keep_default_na=False).to_parquet(pq, row_group_size=50)
    ds_pq = quiet(load_data, pq, target=target)[0][0]
    assert_same(quiet(open_batches, pq, target, batch_rows=k)[0], ds_pq, k)


@pytest.mark.parametrize("name", ["labor", "crx", "credit-g", "hypo"])
def test_duckdb_batches_equal_the_query_read_whole(name, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    target = load_data(str(DATA / name / name), test=False)[0].schema.target
    csv = DATA / name / f"{name}.csv"
    pq = tmp_path / f"{name}.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_csv('{csv}', all_varchar=true)) TO '{pq}' (FORMAT parquet)")
    db = tmp_path / "t.db"
    with duckdb.connect(str(db)) as con:
        con.execute(f"CREATE TABLE t AS SELECT * FROM '{pq}'")
        whole = con.sql("SELECT * FROM t").to_arrow_table()
    ds = quiet(from_frame, whole, target, source=f"duckdb:{db}")[0]
    source = quiet(open_batches, f"duckdb:{db}", target, query="SELECT * FROM t", batch_rows=7)[0]
    assert_same(source, ds, 7)
    direct = quiet(open_batches, f"duckdb:{pq}", target, batch_rows=7)[0]
    assert repr(direct.schema) == repr(ds.schema) and direct.fingerprint() == ds.fingerprint()


def test_dataset_batches_cover_the_cases():
    ds, _ = load_data(str(DATA / "labor" / "labor"), test=False)
    parts = list(dataset_batches(ds, 7)())
    assert [p.n for p in parts] == [7] * 8 + [1]
    assert joined(dataset_batches(ds, 7), ds.schema).columns[0].tobytes() == ds.columns[0].tobytes()
    with pytest.raises(InputError, match="batch_rows"):
        dataset_batches(ds, 0)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_misread_columns_warn_and_fail_as_in_memory(tmp_path):
    """Stray strings, decimal commas, dates and case variants of labels met in a later batch
    are warned about, and errors raised, as the whole read does."""
    lines = ["a,b,c,d,y"] + [f"{i},{i}.5,2021-01-{i % 28 + 1:02d} 10:{i % 60:02d},{i},{'Yes' if i % 2 else 'no'}"
                             for i in range(40)]
    lines += ["oops,1;5,2021-02-01 11:00,x,yes", "5,2;5,2021-02-02 11:00,3,No ", "6,7,8,9,no"]
    csv = write(tmp_path / "t.csv", "\n".join(lines) + "\n")
    for read in (ReadOptions(), ReadOptions(fold_case=True)):
        ds, said = quiet(load_data, csv, target="y", read=read)
        source, streamed = quiet(open_batches, csv, "y", read=read, batch_rows=3)
        assert streamed == said and said
        assert_same(source, ds[0], 3)
    declared = dict(continuous=["a"])
    ds, said = quiet(load_data, csv, target="y", **declared)
    source, streamed = quiet(open_batches, csv, "y", batch_rows=3, **declared)
    assert streamed == said
    assert_same(source, ds[0], 3)
    with pytest.raises(InputError) as whole:
        load_data(csv, target="y", continuous=["c"])
    with pytest.raises(InputError) as streamed:
        open_batches(csv, "y", continuous=["c"], batch_rows=3)
    assert str(streamed.value) == str(whole.value)


def test_column_numeric_for_many_rows_then_text_is_discrete(tmp_path, monkeypatch):
    """A column all numbers past TEXT_CAP distinct texts drops them; a later text makes it
    discrete, and one more pass gathers its values: the same schema as the whole read."""
    import c45rules.data.batches as batches
    monkeypatch.setattr(batches, "TEXT_CAP", 5)
    lines = ["a,y"] + [f"{i},{'p' if i % 3 else 'q'}" for i in range(30)] + ["zz,p"] * 5
    csv = write(tmp_path / "t.csv", "\n".join(lines) + "\n")
    ds, said = quiet(load_data, csv, target="y")
    source, streamed = quiet(open_batches, csv, "y", batch_rows=4)
    assert streamed == said
    assert source.schema.attributes[0].is_discrete
    assert_same(source, ds[0], 4)


def test_errors_in_later_batches_name_the_first_bad_row(tmp_path):
    rows = ["1,2,a"] * 20 + ["1,x,a", "1e39,2,a", "1,2,?"]
    names = write(tmp_path / "s.names", "a, b.\n\nx: continuous.\nz: continuous.\n")
    write(tmp_path / "s.data", "\n".join(rows) + "\n")
    for stem in (str(tmp_path / "s"),):
        with pytest.raises(InputError) as whole:
            load_data(stem)
        with pytest.raises(InputError) as streamed:
            open_batches(stem, batch_rows=2)
        assert str(streamed.value) == str(whole.value)
        assert "case 22" in str(whole.value) and names.exists()
    csv = write(tmp_path / "t.csv", "x,z,y\n" + "\n".join(rows[:20] + ["1e39,2,a", "1,2,"]) + "\n")
    with pytest.raises(InputError) as whole:
        load_data(csv, target="y")
    with pytest.raises(InputError) as streamed:
        open_batches(csv, "y", batch_rows=2)
    assert str(streamed.value) == str(whole.value)


def test_file_changed_between_passes_is_an_error_naming_it(tmp_path):
    csv = write(tmp_path / "t.csv", "a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(50)))
    source = open_batches(csv, "y", batch_rows=10)
    assert sum(b.n for b in source()) == 50
    write(csv, "a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(60)))
    with pytest.raises(InputError, match=r"t\.csv: changed since its schema was read"):
        list(source())
    stem = tmp_path / "s"
    write(tmp_path / "s.names", "a, b.\n\nx: continuous.\n")
    write(tmp_path / "s.data", "1,a\n2,b\n" * 10)
    source = open_batches(stem, batch_rows=3)
    st = os.stat(tmp_path / "s.data")
    write(tmp_path / "s.data", "1,a\n2,c\n" * 10)   # same size, a class the schema lacks
    os.utime(tmp_path / "s.data", ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(InputError, match=r"s\.data: changed since its schema was read.*class 'c'"):
        list(source())


def test_bad_arguments(tmp_path):
    csv = write(tmp_path / "t.csv", "a,y\n1,0\n")
    with pytest.raises(InputError, match="batch_rows"):
        open_batches(csv, "y", batch_rows=0)
    with pytest.raises(InputError, match="query"):
        open_batches(csv, "y", query="SELECT 1")
    with pytest.raises(InputError, match="needs target"):
        open_batches(csv)
    with pytest.raises(InputError, match="file not found"):
        open_batches(tmp_path / "missing.csv", "y")


def test_weights_column_as_fit_reads_it(tmp_path):
    """--weights COL: the column leaves the attributes, weight-0 cases leave the batches, all-1
    weights are no weights, and a bad weight in a later batch is the whole read's error."""
    import argparse
    from c45rules.cli.io import with_weights
    body = "".join(f"{i % 7},{['x', 'y'][i % 2]},{(i % 4) * 0.5},{'ab'[i % 3 == 0]}\n" for i in range(60))
    csv = write(tmp_path / "t.csv", "a,b,w,y\n" + body)
    args = argparse.Namespace(weights="w", class_weights=None)
    for text in (body, body.replace(",0.0,", ",1.0,").replace(",0.5,", ",1.0,").replace(",1.5,", ",1.0,")):
        write(csv, "a,b,w,y\n" + text)
        whole, _ = with_weights(args, load_data(csv, target="y")[0], None)
        source = open_batches(csv, "y", weights="w", batch_rows=4)
        assert_same(source, whole, 4)
        got = [b.weights for b in source()]
        if whole.weights is None:
            assert all(w is None for w in got)
        else:
            assert np.concatenate(got).tobytes() == whole.weights.tobytes()
        assert all(b.weight_record == whole.weight_record for b in source())
    write(csv, "a,b,w,y\n" + body + "1,x,-1,a\n" + body + "1,x,,a\n")
    with pytest.raises(InputError) as whole_error:
        with_weights(args, load_data(csv, target="y")[0], None)
    with pytest.raises(InputError) as streamed:
        open_batches(csv, "y", weights="w", batch_rows=4)
    assert str(streamed.value) == str(whole_error.value) and "NaN" in str(streamed.value)
    with pytest.raises(InputError, match="not numeric"):
        open_batches(csv, "y", weights="b")


def test_stem_in_small_chunks_mixes_plain_and_general_lines(tmp_path, monkeypatch):
    """Chunks of a few lines: some plain (the compiled cutter), some with comments, escapes and a
    CRLF (the general splitter); the same cases, and a bad line named by its line in the file."""
    import c45rules.data.names as names
    monkeypatch.setattr(names, "_CHUNK_BYTES", 40)
    write(tmp_path / "s.names", "yes, no.\n\nx: continuous.\nc: discrete 5.\nz: a, b\\,c, d.\n")
    lines = [f"{i}.5,{'pqr'[i % 3]},{'a' if i % 2 else 'd'},{'yes' if i % 3 else 'no'}" for i in range(40)]
    lines[7] += " | a comment"
    lines[12] = "3,q,b\\,c,yes."
    lines[20] = "\n"
    lines[25] += "\r"
    write(tmp_path / "s.data", "\n".join(lines) + "\n")
    stem = str(tmp_path / "s")
    ds, _ = load_data(stem)
    assert_same(open_batches(stem, batch_rows=3), ds, 3)
    write(tmp_path / "s.data", "\n".join(lines[:30] + ["1,p,a"] + lines[30:]) + "\n")
    with pytest.raises(InputError) as whole:
        load_data(stem)
    with pytest.raises(InputError) as streamed:
        open_batches(stem, batch_rows=3)
    assert str(streamed.value) == str(whole.value) and ":32:" in str(whole.value)
    (tmp_path / "s.data").write_bytes(("\n".join(lines[:33]) + "\n1,p,\xff,yes\n").encode("latin-1"))
    with pytest.raises(InputError) as whole:
        load_data(stem)
    with pytest.raises(InputError) as streamed:
        open_batches(stem, batch_rows=3)
    assert str(streamed.value) == str(whole.value)


def test_read_ahead_order_errors_and_early_exit():
    import threading

    from c45rules.data.batches import read_ahead

    def items(fail_at=None):
        for i in range(50):
            if i == fail_at:
                raise InputError(f"bad item {i}")
            yield i
    assert list(read_ahead(items)) == list(range(50))
    got = []
    with pytest.raises(InputError, match="bad item 7"):
        for i in read_ahead(lambda: items(7)):
            got.append(i)
    assert got == list(range(7))           # every item before the error, in order
    before = threading.active_count()
    it = read_ahead(items)
    assert next(it) == 0
    it.close()                              # leaving a pass early stops its reader thread
    assert threading.active_count() == before


def test_batches_are_whole_not_pieces(tmp_path):
    # a Parquet pass reads whole batches (up to ARROW_ROWS rows), and a CSV's 4,096-row pieces
    # are joined into batches: every batch but the last holds batch_rows cases
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    n = 10_000
    df = pd.DataFrame({"x": np.arange(n, dtype=float), "c": np.where(np.arange(n) % 3, "a", "b")})
    df.to_parquet(tmp_path / "t.parquet")
    source = open_batches(tmp_path / "t.parquet", "c", batch_rows=n)
    assert [b.n for b in source()] == [n]
    assert [b.n for b in open_batches(tmp_path / "t.parquet", "c", batch_rows=3000)()] == [3000, 3000, 3000, 1000]
    df.to_csv(tmp_path / "t.csv", index=False)
    csv = open_batches(tmp_path / "t.csv", "c", batch_rows=6000)
    parts = list(csv())
    assert [b.n for b in parts] == [6000, 4000]
    whole = load_data(tmp_path / "t.csv", target="c")[0]
    assert np.array_equal(np.concatenate([b.columns[0] for b in parts]), whole.columns[0])
    assert np.array_equal(np.concatenate([b.y for b in parts]), whole.y)


def test_later_passes_read_the_spilled_batches(tmp_path, monkeypatch):
    # the first whole pass spills the encoded batches; later passes read them back, the same
    # arrays, without parsing the file again; no room on the disk: every pass parses
    import c45rules.data.batches as B
    n = 5000
    rng = np.random.default_rng(2)
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"x": rng.random(n), "k": rng.choice(["u", "v", "?"], n), "c": rng.choice(["a", "b"], n)})
    df.to_csv(tmp_path / "t.csv", index=False)
    for room, parses in [(B.SPILL_ROOM, 1), (10**12, 3)]:
        monkeypatch.setattr(B, "SPILL_ROOM", room)
        source = open_batches(tmp_path / "t.csv", "c", batch_rows=999)
        first = next(iter(source()))               # a pass left early spills nothing
        assert source._spill is None and first.n == 999
        calls = []
        parse = source._parse
        monkeypatch.setattr(source, "_parse", lambda: (calls.append(1), parse())[1])
        passes = [list(source()) for _ in range(3)]
        assert len(calls) == parses
        for later in passes[1:]:
            assert [b.n for b in later] == [b.n for b in passes[0]]
            for a, b in zip(passes[0], later):
                assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.columns + [a.y], b.columns + [b.y]))
        whole = load_data(tmp_path / "t.csv", target="c")[0]
        assert np.array_equal(np.concatenate([b.columns[1] for b in passes[2]]), whole.columns[1])
        (tmp_path / "t.csv").touch()
        with pytest.raises(InputError, match="changed since its schema was read"):
            list(source())                      # a spilled pass still checks the file
        os.utime(tmp_path / "t.csv")
