"""Security of generated code: rule sets *fitted* on tables whose column names, category
values and classes come from a corpus of hostile strings give SQL that runs on SQLite and
DuckDB with RuleSet.predict's answers (and drops nothing: a canary table survives) and a
Python module that compiles, runs and treats every string as data (an injected
os.system would create a marker file). Loading a model never runs code from it.
"""
from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import c45rules
from c45rules import ModelError
from c45rules.export import dump_yaml, load_yaml, to_python, to_sql_case, to_sql_select

from export_cases import UNSEEN, Scored, score


def corpus(marker: Path) -> list[str]:
    """Hostile identifiers and values; `marker` is the file an injection would create."""
    shell = f"touch {marker}"
    return [
        "-- comment", "/* block */", "*/ x /*", "it's", 'say "hi"', "`tick`", "[bracket]",
        "\u2018curly\u2019 \u201cdouble\u201d", "semi;colon", "'); DROP TABLE canary; --",
        '"); DROP TABLE canary; --', "back\\slash", "\\'", "trail\\", "new\nline", "cr\rreturn",
        "crlf\r\n", "tab\there", '"""', "'''", "\"\"\"; __import__('os').system('" + shell + "'); \"\"\"",
        "{0}", "{__import__('os').system('" + shell + "')}", "f'{x}'", "}}{{",
        f"__import__('os').system('{shell}')", "\\N{BULLET}", "\\x41\\u0041", "\u202eevil\u202c",
        "\u200fRTL", "\u2028line sep", "\ufeffbom", "$1; $$x$$", "%s %(x)s", "?", "NULL", "x" * 10_000,
        "ünï©ødé ✓ 中文 😀",
    ]


def hostile_tables(marker: Path) -> list[tuple[pd.DataFrame, str]]:
    """Small tables where a hostile discrete column decides the class and a hostile
    continuous column decides within it, so that fitted rules test both."""
    words = [w for w in corpus(marker) if w != "?"]
    out = []
    for k in range(0, len(words), 3):
        name, value, klass = words[k], words[(k + 1) % len(words)], words[(k + 2) % len(words)]
        other_value, other_class = words[(k + 4) % len(words)], words[(k + 5) % len(words)]
        number = words[(k + 7) % len(words)]
        df = pd.DataFrame({
            name: [value] * 12 + [other_value] * 12,
            number: [float(i % 6) for i in range(24)],
            words[(k + 8) % len(words)]: [klass] * 12 + [other_class if i % 6 < 3 else klass for i in range(12)],
        })
        out.append((df, df.columns[-1]))
    return out


@pytest.fixture(scope="module")
def fitted(tmp_path_factory) -> list[tuple[Scored, Path]]:
    marker = tmp_path_factory.mktemp("inj") / "pwned"
    out = []
    for i, (df, target) in enumerate(hostile_tables(marker)):
        # keep_na_tokens: 'NULL' is one of the hostile texts, not pandas' missing value here
        rs = c45rules.fit(df, target, min_objs=1, keep_na_tokens=True)
        assert rs.rules, f"table {i} learned no rule"
        attrs = [a.name for a in rs.schema.attributes]
        rows = df.drop(columns=[target]).astype(object).to_dict("records")
        probes = [{attrs[0]: v, attrs[1]: x} for v in (None, "?", "", UNSEEN, *rs.schema.attributes[0].values)
                  for x in (None, math.nan, math.inf, -math.inf, 0.0, 2.0, 2.5, 3.0)]
        out.append((score(f"hostile{i}", rs, rows + probes), marker))
    return out


def test_the_corpus_reaches_names_values_classes_and_rules(fitted):
    tested_names, tested_values, classes = set(), set(), set()
    for scored, _ in fitted:
        rs = scored.ruleset
        classes |= set(rs.schema.classes)
        for r in rs.rules:
            for c in r.conditions:
                tested_names.add(c.attribute)
                if c.op in ("=", "in"):
                    tested_values |= {c.value} if c.op == "=" else set(c.value)
    everything = tested_names | tested_values | classes
    for needle in ("'); DROP TABLE canary; --", "-- comment", "/* block */", "new\nline", '"""', "{0}",
                   "\\N{BULLET}", "x" * 10_000, "\u202eevil\u202c"):
        assert needle in everything, needle
    assert any("os').system" in s for s in tested_names)
    assert any("os').system" in s for s in tested_values | classes)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _load(con, scored: Scored, table: str) -> None:
    cols = [a for a in scored.ruleset.schema.attributes if a.kind != "ignore"]
    ddl = ", ".join(["__row__ INTEGER"] + [f"{_q(a.name)} {'DOUBLE' if a.is_continuous else 'TEXT'}" for a in cols])
    con.execute(f"CREATE TABLE {_q(table)} ({ddl})")
    rows = [(i,) + tuple(None if isinstance(r.get(a.name), float) and math.isnan(r[a.name]) else r.get(a.name)
                         for a in cols) for i, r in enumerate(scored.rows)]
    con.executemany(f"INSERT INTO {_q(table)} VALUES ({', '.join('?' * (len(cols) + 1))})", rows)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_generated_sql_runs_and_gives_the_library_answers(fitted, engine):
    con = sqlite3.connect(":memory:") if engine == "sqlite" else duckdb.connect()
    for scored, marker in fitted:
        con.execute("CREATE TABLE canary (x INTEGER)")
        con.execute("INSERT INTO canary VALUES (42)")
        table = "cases '); DROP TABLE canary; --"
        _load(con, scored, table)
        inner = to_sql_select(scored.ruleset, table, engine)
        got = con.execute(f"SELECT __row__, predicted_class, rule_id FROM ({inner}) AS s ORDER BY __row__").fetchall()
        assert [g[1] for g in got] == list(scored.classes), scored.name
        assert [g[2] for g in got] == [int(r) for r in scored.rules], scored.name
        # the class CASE alone, too
        case = to_sql_case(scored.ruleset, engine)
        alone = con.execute(f"SELECT {case} FROM {_q(table)} ORDER BY __row__").fetchall()
        assert [a[0] for a in alone] == list(scored.classes)
        # nothing was dropped or added: the canary and the scored table are intact
        assert con.execute("SELECT x FROM canary").fetchall() == [(42,)]
        assert con.execute(f"SELECT count(*) FROM {_q(table)}").fetchone()[0] == len(scored.rows)
        con.execute(f"DROP TABLE {_q(table)}")
        con.execute("DROP TABLE canary")
        assert not marker.exists()


def test_generated_python_compiles_runs_and_treats_strings_as_data(fitted, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for scored, marker in fitted:
        source = to_python(scored.ruleset)
        code = compile(source, f"<{scored.name}>", "exec")
        namespace: dict = {"__name__": "exported_model"}
        exec(code, namespace)
        assert namespace["CLASSES"] == scored.ruleset.schema.classes
        assert namespace["TARGET"] == scored.ruleset.schema.target
        got = [namespace["predict"](r) for r in scored.rows]
        assert got == list(scored.classes), scored.name
        assert [namespace["predict_rule"](r) for r in scored.rows] == [int(r) for r in scored.rules]
        assert not marker.exists(), f"{scored.name}: a string ran as code"
    assert list(tmp_path.iterdir()) == []


def test_yaml_round_trips_the_corpus_and_loading_runs_nothing(fitted):
    for scored, marker in fitted:
        text = dump_yaml(scored.ruleset)
        assert load_yaml(text) == scored.ruleset
        assert "!!" not in text.replace("\\", "")     # every string is a quoted scalar
    marker = fitted[0][1]
    for tag in ("!!python/object/apply:os.system", "!!python/object/new:os.system"):
        evil = text.replace('fingerprint: "', f'fingerprint: {tag} ["touch {marker}"]\nx: "', 1)
        with pytest.raises(ModelError):
            load_yaml(evil)
    assert not marker.exists()


def test_nul_is_refused_by_sql_and_kept_by_yaml_and_python():
    """NUL cannot be said in SQL (C strings end there, PostgreSQL refuses it): the SQL
    export raises ModelError naming it; YAML and Python carry it as an escape."""
    df = pd.DataFrame({"a\0b": ["x\0y"] * 6 + ["z"] * 6, "n": [float(i) for i in range(12)],
                       "cls": ["p\0"] * 6 + ["q"] * 6})
    rs = c45rules.fit(df, "cls", min_objs=1)
    assert any(c.attribute == "a\0b" for r in rs.rules for c in r.conditions)
    for engine in ("sqlite", "duckdb", "postgres"):
        with pytest.raises(ModelError, match="NUL"):
            to_sql_select(rs, "t", engine)
    assert load_yaml(dump_yaml(rs)) == rs
    assert "\0" not in dump_yaml(rs) and "\0" not in to_python(rs)
    namespace: dict = {"__name__": "m"}
    exec(compile(to_python(rs), "<nul>", "exec"), namespace)
    assert [namespace["predict"]({"a\0b": v}) for v in ("x\0y", "z", None)] == list(
        rs.predict(pd.DataFrame({"a\0b": ["x\0y", "z", None]})))


# ---- boosted models: the vote's code paths quote as the rule lists' do -------------------------------
@pytest.fixture(scope="module")
def boosted(fitted) -> list[tuple[Scored, Path]]:
    """Each hostile rule set voting with a copy of itself whose rules run in reverse order, its
    default the last class: the trials disagree, and every class name reaches the vote."""
    from c45rules.model.boosted import BoostedRuleSet
    from c45rules.model.ruleset import RuleSet

    from export_cases import score_boosted
    out = []
    for scored, marker in fitted:
        rs = scored.ruleset
        other = RuleSet(rs.schema, rs.rules[::-1], rs.schema.classes[-1], rs.class_counts, rs.default_counts)
        model = BoostedRuleSet((rs, other))
        out.append((score_boosted(scored.name, model, scored.rows), marker))
    return out


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_boosted_sql_runs_and_gives_the_library_answers(boosted, engine):
    con = sqlite3.connect(":memory:") if engine == "sqlite" else duckdb.connect()
    con.execute("CREATE TABLE canary (x INTEGER)")
    con.execute("INSERT INTO canary VALUES (42)")
    for scored, marker in boosted:
        table = "cases '); DROP TABLE canary; --"
        _load(con, scored, table)
        inner = to_sql_select(scored.ruleset, table, engine, confidence_column="c")
        got = con.execute(f"SELECT __row__, predicted_class, c, rule_id_1, rule_id_2 FROM ({inner}) AS s"
                          " ORDER BY __row__").fetchall()
        assert [g[1] for g in got] == list(scored.classes), scored.name
        assert [g[2] for g in got] == scored.confidence.tolist(), scored.name
        assert [list(g[3:]) for g in got] == scored.rules.tolist(), scored.name
        assert con.execute("SELECT x FROM canary").fetchall() == [(42,)]
        con.execute(f"DROP TABLE {_q(table)}")
        assert not marker.exists()


def test_boosted_python_and_pmml_treat_strings_as_data(boosted, tmp_path, monkeypatch):
    import xml.etree.ElementTree as ET

    from c45rules.export import to_pmml
    monkeypatch.chdir(tmp_path)
    for scored, marker in boosted:
        namespace: dict = {"__name__": "exported_model"}
        exec(compile(to_python(scored.ruleset), f"<{scored.name}>", "exec"), namespace)
        assert [namespace["predict"](r) for r in scored.rows] == list(scored.classes), scored.name
        assert [list(namespace["predict_rules"](r)) for r in scored.rows] == scored.rules.tolist()
        # PMML: well-formed, every class an attribute value read back exactly
        root = ET.fromstring(to_pmml(scored.ruleset))
        tree_scores = [n.get("score") for n in root.iter("{http://www.dmg.org/PMML-4_4}Node")][1:]
        assert tree_scores == list(scored.ruleset.schema.classes)
        assert not marker.exists(), f"{scored.name}: a string ran as code"
    assert list(tmp_path.iterdir()) == []
