"""export --to dbt: the model dbt builds from the files agrees with RuleSet row for row, its tests pass,
and no name or value can inject Jinja or SQL."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from c45rules.data.reading import DEFAULT_READ
from c45rules.errors import InputError
from c45rules.export.dbt import dbt_model_sql, dbt_schema_yml, jinja_string, parse_source, write_dbt
from c45rules.learn.pipeline import fit

from reference import DATA

def _dbt() -> list[str]:
    """The dbt command of this environment; skip without it, but fail under CI."""
    beside = Path(sys.executable).parent / "dbt"
    found = str(beside) if beside.exists() else shutil.which("dbt")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("dbt must run under CI: pip install '.[test]' installs dbt-core and dbt-duckdb")
        pytest.skip("dbt is not installed (pip install '.[test]')")
    return [found]


def _load_table(con, schema: str, name: str, cases: pd.DataFrame, ruleset) -> None:
    """`cases` as table SCHEMA.NAME: continuous attributes DOUBLE (unknown NULL), the rest text."""
    table = cases.copy()
    for a in ruleset.schema.attributes:
        if a.is_continuous:
            cell = table[a.name]
            table[a.name] = pd.to_numeric(cell.where(~cell.isin(DEFAULT_READ.tokens)), errors="raise")
    con.register("cases_frame", table)
    quoted = ".".join('"' + part.replace('"', '""') + '"' for part in (schema, name))
    con.execute(f"CREATE TABLE {quoted} AS SELECT * FROM cases_frame")
    con.unregister("cases_frame")


def _hostile_frame() -> pd.DataFrame:
    """Cases whose column name, values and classes hold Jinja tags, quotes and literal look-alikes."""
    classes = {"{{ 7*7 }}": "{# no #}", "{% set x = 1 %}'": "it's {{", "plain": "01", "q": "{1}"}
    values = list(classes)
    return pd.DataFrame({"{{ c }}'": [values[i % 4] for i in range(80)],
                         "n": np.arange(80, dtype=float),
                         "class": [classes[values[i % 4]] for i in range(80)]})


@pytest.mark.slow
def test_dbt_run_and_test_build_the_rules_tables(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    dbt = _dbt()
    from c45rules.cli import main
    from c45rules.export import write_yaml
    crx = fit(DATA / "crx" / "crx")
    boosted = _boosted_crx(crx)
    hostile_cases = _hostile_frame()
    hostile = fit(hostile_cases, target="class")
    cases = pd.read_csv(DATA / "crx" / "crx_test.csv", dtype=str, keep_default_na=False)
    database = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(database)) as con:
        _load_table(con, "main", "crx test", cases, crx)
        con.execute("""CREATE SCHEMA "s'}}" """)
        _load_table(con, "s'}}", "t {{x}}", hostile_cases.drop(columns="class"), hostile)
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text(
        "name: c45rules_check\nversion: '1.0'\nprofile: c45rules_check\nmodel-paths: [models]\n")
    (tmp_path / "profiles.yml").write_text(yaml.safe_dump({"c45rules_check": {
        "target": "dev", "outputs": {"dev": {"type": "duckdb", "path": str(database), "threads": 1}}}}))
    # three models in one project (dbt starts slowly): crx, and the hostile and the boosted one in
    # their own folders (the boosted model is written by the library: its YAML is another task's)
    for ruleset, name, source, where in ((crx, "crx_scored", "main.crx test", project),
                                         (hostile, "hostile", "s'}}.t {{x}}", tmp_path / "hostile")):
        write_yaml(ruleset, tmp_path / f"{name}.yaml")
        assert main(["export", str(tmp_path / f"{name}.yaml"), "--to", "dbt", str(where),
                     "--source", source, "--name", name]) == 0
    write_dbt(boosted, tmp_path / "boosted", ("main", "crx test"), "crx_boosted")
    for folder, model in (("hostile", "hostile"), ("boosted", "crx_boosted")):   # dbt reads models/ recursively
        (project / "models" / folder).mkdir(exist_ok=True)
        for file in (f"{model}.sql", "schema.yml", "sources.yml"):
            (tmp_path / folder / "models" / file).rename(project / "models" / folder / file)
    # crx's sources.yml declares main."crx test" already (twice would be a conflict for dbt)
    (project / "models" / "boosted" / "sources.yml").unlink()
    env = {**os.environ, "DBT_PROFILES_DIR": str(tmp_path), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "DBT_LOG_PATH": str(tmp_path / "logs"), "DBT_TARGET_PATH": str(tmp_path / "target"),
           "DO_NOT_TRACK": "1"}
    for command in ("run", "test"):
        p = subprocess.run([*dbt, command, "--project-dir", str(project)], capture_output=True, text=True,
                           env=env, timeout=120, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    results = json.loads((tmp_path / "target" / "run_results.json").read_text())["results"]
    # schema.yml's three tests ran, for each model, and passed
    kinds = sorted(r["unique_id"].split(".")[2].split("_")[0] for r in results)
    assert kinds == ["accepted"] * 3 + ["not"] * 7    # the boosted model: the class and two rule ids
    assert {r["status"] for r in results} == {"pass"}
    with duckdb.connect(str(database), read_only=True) as con:
        built = con.execute("SELECT * FROM main.crx_scored").df()
        built_hostile = con.execute("SELECT * FROM main.hostile").df()
        built_boosted = con.execute("SELECT * FROM main.crx_boosted").df()
    assert built_boosted["predicted_class"].tolist() == boosted.predict(cases).tolist()
    assert built_boosted[["rule_id_1", "rule_id_2"]].to_numpy().tolist() == boosted.trial_rules(cases).tolist()
    assert np.array_equal(built_boosted["votes_1"].to_numpy(), boosted.votes(cases)[:, 0])
    assert len(built) == len(cases) == 200
    # the source's rows in its order (a table built from one scan keeps it in DuckDB)
    assert built["A1"].tolist() == cases["A1"].tolist()
    assert built["predicted_class"].tolist() == crx.predict(cases).tolist()
    assert built["rule_id"].to_numpy().tolist() == crx.predict_rule(cases).tolist()
    assert len(set(built["rule_id"])) >= 6
    assert built_hostile["predicted_class"].tolist() == hostile.predict(hostile_cases).tolist()
    assert built_hostile["rule_id"].tolist() == hostile.predict_rule(hostile_cases).tolist()
    assert set(built_hostile["predicted_class"]) == {"{# no #}", "it's {{", "01", "{1}"}


def _boosted_crx(crx):
    """crx's rules voting with rules fitted with crx's misclassified cases weighted 3."""
    from c45rules.model.boosted import BoostedRuleSet
    from c45rules.data import load_stem
    from c45rules.data.weights import weighted
    from c45rules.learn.pipeline import fit_dataset
    train, _ = load_stem(DATA / "crx" / "crx", test=True)
    wrong = crx.predict(train) != np.array(train.schema.classes, dtype=object)[train.y]
    return BoostedRuleSet((crx, fit_dataset(weighted(train, np.where(wrong, 3.0, 1.0), None, "w"))[0]))


def test_the_model_sql_renders_to_the_exported_select():
    """Jinja prints the SQL around source() unchanged, whatever braces the values hold."""
    jinja2 = pytest.importorskip("jinja2")
    from export_cases import hostile_ruleset
    from c45rules.export import to_sql_select
    from c45rules.model.boosted import BoostedRuleSet
    h = hostile_ruleset()
    voting = BoostedRuleSet((h, type(h)(h.schema, h.rules[::-1], "{class}", h.class_counts, (1, 2, 3, 9))))
    for ruleset in (hostile_ruleset(), fit(_hostile_frame(), target="class"), voting):
        text = dbt_model_sql(ruleset, ("raw data", "t {{x}}"), "duckdb")
        called = []
        rendered = jinja2.Environment().from_string(text).render(
            config=lambda **kw: called.append(kw) or "",
            source=lambda schema, table: called.append((schema, table)) or "SRC")
        assert called == [{"materialized": "table"}, ("raw data", "t {{x}}")]
        expected = to_sql_select(ruleset, "SRC", "duckdb").replace('"SRC"', "SRC")
        assert rendered == "\n" + expected   # Jinja drops the file's last newline
    # the cases that matter are there: a value with CR LF, a class with '{{'
    assert "'\r\n'" in to_sql_select(hostile_ruleset(), "SRC", "duckdb")
    assert "{{" in "".join(fit(_hostile_frame(), target="class").schema.classes)


def test_names_in_jinja_and_yaml():
    jinja2 = pytest.importorskip("jinja2")
    for name in ("s'}} {{ x }}", "a\\b\u2603\U0001F600", "{% raw %}", "01", "None"):
        literal = jinja_string(name)
        assert set(literal[1:-1]) <= set("\\uU0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZ_ghijklmnopqrstvwxyz")
        assert jinja2.Environment().from_string("{{ " + literal + " }}").render() == name
    assert parse_source("analytics.loans 2024.x") == ("analytics", "loans 2024.x")
    for bad in ("loans", ".loans", "analytics."):
        with pytest.raises(InputError, match=r"^source: expected SCHEMA\.TABLE, got"):
            parse_source(bad)
    ruleset = fit(_hostile_frame(), target="class")
    doc = yaml.safe_load(dbt_schema_yml(ruleset, "m", "duckdb"))
    column = doc["models"][0]["columns"][-2]
    assert column["name"] == "predicted_class"
    values = column["data_tests"][1]["accepted_values"]["arguments"]["values"]
    rendered = [jinja2.Environment().from_string(v).render() for v in values]
    assert rendered == ["'01'", "'it''s {{'", "'{# no #}'", "'{1}'"]
    with pytest.raises(InputError, match="^name: a dbt model name is letters"):
        write_dbt(ruleset, "unused", ("a", "b"), "my-model")


def test_a_projects_own_files_are_not_replaced(tmp_path):
    ruleset = fit(DATA / "golf" / "golf")
    written = write_dbt(ruleset, tmp_path, ("raw", "golf"), "golf_scored")
    assert [p.name for p in written] == ["golf_scored.sql", "schema.yml", "sources.yml"]
    assert write_dbt(ruleset, tmp_path, ("raw", "golf"), "golf_scored") == written   # ours: replaced
    own = tmp_path / "models" / "sources.yml"
    own.write_text("version: 2\nsources: []\n")
    with pytest.raises(InputError, match=rf"^{own}: exists and was not written by c45rules"):
        write_dbt(ruleset, tmp_path, ("raw", "golf"), "golf_scored")
    assert own.read_text() == "version: 2\nsources: []\n"
