#!/usr/bin/env python3
"""Export measurements (issue 4): generation time and size of every export for the largest
ruleset among the shared datasets, and DuckDB scoring of 1M synth rows next to
RuleSet.predict (row-for-row equality checked), and (issue 47) the exported SQL's rows/s on a
table whose continuous columns are typed (REAL / DOUBLE) against the same table all text.

Usage: python bench/exports.py [--rows 1000000] [--text-rows 200000] [--only-text]
       python bench/exports.py --forms 1000000 [--engines sqlite,duckdb,postgres,spark]
       python bench/exports.py --forms 20000000 --engines duckdb   (1M rows 20 times, on disk)

--forms (issue 52): rows/s of the flat and the nested form of the exported SELECT (typed=True)
on a typed table in each engine the tests run, the rows aggregated in the engine (class and
summed rule id per class) so that fetching does not count.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as R  # noqa: E402

import c45rules  # noqa: E402
from c45rules.data import load_stem  # noqa: E402
from c45rules.export import dump_yaml, to_python, to_sql_select  # noqa: E402
from c45rules.export.sql import SQL_DIALECTS  # noqa: E402


def timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def frame_of(data) -> pd.DataFrame:
    """The cases as a table a warehouse would hold: continuous DOUBLE, discrete text."""
    cols = {}
    for a, col in zip(data.schema.attributes, data.columns):
        if a.is_continuous:
            cols[a.name] = col
        elif a.is_discrete:
            vals = np.array(a.values + (None,), dtype=object)
            cols[a.name] = vals[np.where(col < 0, len(a.values), col)]
    return pd.DataFrame(cols)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--text-rows", type=int, default=200_000)
    ap.add_argument("--only-text", action="store_true", help="only the typed-vs-text measurement")
    ap.add_argument("--forms", type=int, default=0, metavar="ROWS",
                    help="only the flat-vs-nested measurement, on ROWS rows (issue 52)")
    ap.add_argument("--engines", default="sqlite,duckdb,postgres,spark", help="with --forms")
    args = ap.parse_args()
    if args.forms:
        flat_vs_nested(args.forms, args.engines.split(","))
        return
    if args.only_text:
        typed_vs_text(args.text_rows)
        return

    print("## Exports of the largest ruleset among the shared datasets\n")
    sizes = {}
    for name in ("letter", "income", "synth_10k"):
        train, _ = load_stem(R.stem(name))
        sizes[name] = (c45rules.fit(train), train)
    name = max(sizes, key=lambda k: len(sizes[k][0].rules))
    rs, train = sizes[name]
    print(f"{name}: {len(rs.rules)} rules, {sum(len(r.conditions) for r in rs.rules)} conditions\n")
    print("| export | seconds | size (bytes) |")
    print("|---|---:|---:|")
    text, secs = timed(dump_yaml, rs)
    print(f"| YAML | {secs:.3f} | {len(text.encode()):,} |")
    text, secs = timed(to_python, rs)
    print(f"| Python module | {secs:.3f} | {len(text.encode()):,} |")
    for dialect in SQL_DIALECTS:
        text, secs = timed(to_sql_select, rs, "cases", dialect)
        print(f"| SQL SELECT ({dialect}) | {secs:.3f} | {len(text.encode()):,} |")

    import duckdb
    print(f"\n## Scoring {args.rows:,} synth rows: DuckDB SQL vs RuleSet.predict\n")
    train, _ = load_stem(R.stem("synth_10k"))
    rs = c45rules.fit(train)
    rows = np.random.default_rng(0).integers(0, train.n, args.rows)
    big = train.subset(rows)
    frame = frame_of(big)
    ours, t_ours = timed(rs.predict, big)
    con = duckdb.connect()
    con.register("frame", frame)
    con.execute("CREATE TABLE cases AS SELECT * FROM frame")
    sql = to_sql_select(rs, "cases", "duckdb")
    result, t_sql = timed(lambda: con.execute(sql).fetchnumpy())
    agree = int((np.asarray(result["predicted_class"], dtype=object) == ours).sum())
    print("| engine | seconds | rows agreeing with RuleSet.predict |")
    print("|---|---:|---:|")
    print(f"| RuleSet.predict (encoded data) | {t_ours:.3f} | - |")
    print(f"| DuckDB {duckdb.__version__} (SELECT, fetch) | {t_sql:.3f} | {agree:,} of {args.rows:,} |")

    typed_vs_text(args.text_rows)


def typed_vs_text(n: int) -> None:
    """Rows/s of the exported SELECT (fetched) on SQLite and DuckDB: on the typed table with typed=True
    SQL (no conversion) and with the default SQL (each continuous column converted once per row), and
    the default SQL on the all-text table."""
    import sqlite3

    import duckdb
    print(f"\n## Exported SQL on {n:,} synth_100k rows: continuous columns typed vs text (issue 47)\n")
    train, _ = load_stem(R.stem("synth_100k"))
    rs = c45rules.fit(train.subset(np.arange(20_000)))
    big = train.subset(np.random.default_rng(0).integers(0, train.n, n))
    typed = frame_of(big)
    text = typed.copy()
    for a in big.schema.attributes:   # each number as Python writes it (repr), unknown as ''
        if a.is_continuous:
            text[a.name] = [("" if v != v else repr(v)) for v in typed[a.name].tolist()]
    print(f"model: {len(rs.rules)} rules, {sum(len(r.conditions) for r in rs.rules)} conditions\n")
    print("| engine | table | SQL | seconds | rows/s | same decisions as typed |")
    print("|---|---|---|---:|---:|---:|")
    for engine in ("sqlite", "duckdb"):
        first = None
        for kind, frame, numbers in (("typed", typed, True), ("typed", typed, False), ("text", text, False)):
            sql = to_sql_select(rs, "cases", engine, typed=numbers)
            if engine == "sqlite":
                con = sqlite3.connect(":memory:")
                frame.to_sql("cases", con, index=False, dtype={c: ("REAL" if kind == "typed" and
                             frame[c].dtype.kind == "f" else "TEXT") for c in frame.columns})
                run = lambda: con.execute(sql).fetchall()   # noqa: E731
            else:
                con = duckdb.connect()
                con.register("frame", frame)
                con.execute("CREATE TABLE cases AS SELECT * FROM frame")
                run = lambda: con.execute(sql).fetchall()   # noqa: E731
            got, secs = timed(run)
            decisions = [g[-2:] for g in got]
            first = first or decisions
            same = sum(a == b for a, b in zip(decisions, first))
            version = sqlite3.sqlite_version if engine == "sqlite" else duckdb.__version__
            how = "typed=True" if numbers else "default"
            print(f"| {engine} {version} | {kind} | {how} | {secs:.2f} | {n / secs:,.0f} | {same:,} of {n:,} |")


def flat_vs_nested(n: int, engines: list[str], repeats: int = 2) -> None:
    """Rows/s of the flat and nested SELECT (typed=True) on an n-row typed table in each engine:
    the model of bench/engines.py (all synth_100k), rows drawn from synth_100k."""
    import os
    import resource
    import tempfile
    train, _ = load_stem(R.stem("synth_100k"))
    rs = c45rules.fit(train)
    # past 1M rows, the engines that can (DuckDB) hold the 1M rows repeated, on disk
    repeat = max(1, n // _HELD_ROWS)
    frame = frame_of(train.subset(np.random.default_rng(0).integers(0, train.n, n // repeat)))
    print(f"\n## Flat and nested SQL on {n:,} typed synth_100k rows (issue 52)\n")
    print(f"model: {len(rs.rules)} rules, {sum(len(r.conditions) for r in rs.rules)} conditions; "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| engine | form | seconds | CPU s (this process; not PostgreSQL's server) | rows/s | same decisions as flat |")
    print("|---|---|---:|---:|---:|---|")
    work = Path(tempfile.mkdtemp(prefix="forms-"))
    for engine in engines:
        dialect = "spark" if engine == "spark" else engine
        if repeat > 1 and engine != "duckdb":
            print(f"| {engine} | - | - | - | - | not measured: more than {_HELD_ROWS:,} rows only in DuckDB |")
            continue
        con, run, version = _forms_table(engine, frame, work, repeat)
        first = None
        for form in ("flat", "nested") * repeats:   # alternated: the machine's load moves both alike
            inner = to_sql_select(rs, "cases", dialect, typed=True, form=form, pretty=False)
            sql = (f"SELECT predicted_class, COUNT(*), SUM(rule_id) FROM ({inner}) s"
                   " GROUP BY predicted_class ORDER BY predicted_class")
            c0 = resource.getrusage(resource.RUSAGE_SELF)
            try:
                got, secs = timed(run, sql)
            except Exception as e:   # a form the engine cannot run (nesting limits): named
                print(f"| {engine} {version} | {form} | - | - | - | fails: {str(e).splitlines()[0][:80]} |")
                continue
            c1 = resource.getrusage(resource.RUSAGE_SELF)
            cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
            got = [tuple(str(v) for v in g) for g in got]
            first = first or got
            print(f"| {engine} {version} | {form} | {secs:.2f} | {cpu:.2f} | {n / secs:,.0f} |"
                  f" {'yes' if got == first else 'NO'} |", flush=True)
        if engine == "spark":
            con.stop()


_HELD_ROWS = 1_000_000


def _forms_table(engine: str, frame: pd.DataFrame, work: Path, repeat: int = 1):
    """(connection, run(sql) -> rows, version) with `frame` as the typed table `cases` (DuckDB:
    `repeat` times over, in a database file with a 2 GB memory limit)."""
    if engine == "sqlite":
        import sqlite3
        con = sqlite3.connect(":memory:")
        frame.to_sql("cases", con, index=False, dtype={c: "REAL" if frame[c].dtype.kind == "f" else "TEXT"
                                                          for c in frame.columns})
        return con, lambda sql: con.execute(sql).fetchall(), sqlite3.sqlite_version
    if engine == "duckdb":
        import duckdb
        con = duckdb.connect(str(work / "cases.duckdb"), config={"memory_limit": "2GB"})
        con.register("frame", frame)
        con.execute(f"CREATE TABLE cases AS SELECT frame.* FROM frame, range({repeat})")
        return con, lambda sql: con.execute(sql).fetchall(), duckdb.__version__
    if engine == "postgres":
        import os
        import psycopg
        con = psycopg.connect(os.environ["C45RULES_PG_DSN"], autocommit=True)
        schema = f"bench_forms_{os.getpid()}"
        con.execute(f"CREATE SCHEMA {schema}")
        con.execute(f"SET search_path TO {schema}")
        cols = ", ".join(f'"{c}" {"DOUBLE PRECISION" if frame[c].dtype.kind == "f" else "TEXT"}'
                         for c in frame.columns)
        con.execute(f"CREATE TABLE cases ({cols})")
        with con.cursor().copy(f"COPY cases FROM STDIN (FORMAT csv)") as copy:
            copy.write(frame.to_csv(index=False, header=False))
        con.execute("ANALYZE cases")
        import atexit
        atexit.register(lambda: con.execute(f"DROP SCHEMA {schema} CASCADE"))
        version = con.execute("SHOW server_version").fetchone()[0]
        return con, lambda sql: con.execute(sql).fetchall(), version
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    path = work / "cases.parquet"
    frame.to_parquet(path, index=False)
    spark.read.parquet(str(path)).cache().createOrReplaceTempView("cases")
    spark.sql("SELECT COUNT(*) FROM cases").collect()   # cached before the timed runs
    return spark, lambda sql: spark.sql(sql).collect(), spark.version


if __name__ == "__main__":
    main()
