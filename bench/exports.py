#!/usr/bin/env python3
"""Export measurements (issue 4): generation time and size of every export for the largest
ruleset among the shared datasets, and DuckDB scoring of 1M synth rows next to
RuleSet.predict (row-for-row equality checked), and (issue 47) the exported SQL's rows/s on a
table whose continuous columns are typed (REAL / DOUBLE) against the same table all text.

Usage: python bench/exports.py [--rows 1000000] [--text-rows 200000] [--only-text]
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
