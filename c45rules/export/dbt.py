"""RuleSet -> a dbt model: models/NAME.sql (the exported SELECT over a dbt source), schema.yml
(the model's columns and data tests) and sources.yml (the source it reads).

The SELECT is export/sql.py's, rendered by sqlglot with a placeholder table; only then does
the Jinja `{{ source('SCHEMA', 'TABLE') }}` take the placeholder's place, so sqlglot never sees
Jinja. dbt renders the whole file as a Jinja template, so the rendered SQL must not open a
Jinja tag: every `{` in it (a category value, a note) is written as `{{ '{' }}`, which Jinja
prints as `{` (and a carriage return, which Jinja would turn into a newline, likewise). The source's names sit in Jinja string literals with every character but
letters, digits and `_` written as a \\u escape, so no name can end the literal; sources.yml
asks dbt to quote the schema and table names in the SQL it renders.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from ..errors import InputError
from ..model.boosted import BoostedRuleSet
from ..model.regression import RegressionModel
from ..model.ruleset import RuleSet
from ._atomic import atomic_write_text
from .regression_sql import PREDICTION_COLUMN, regression_select
from .sql import _check_dialect, _identifier, _string, to_sql_select

_PLACEHOLDER = "c45rules_dbt_source"
MARK = "written by c45rules export --to dbt"   # the first line of each file: ours to replace
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def jinja_string(text: str) -> str:
    """`text` as a single-quoted Jinja string literal holding only ASCII letters, digits, `_` and escapes."""
    def escape(ch: str) -> str:
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            return ch
        return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"
    return "'" + "".join(escape(ch) for ch in text) + "'"


def _plain(text: str) -> bool:
    """Whether `text` reads as itself in every place dbt renders (Jinja, and Jinja's native
    mode, which reads 01 as 1 and None as None)."""
    return _PLAIN.match(text) is not None and text not in ("True", "False", "None")


def _source_argument(text: str) -> str:
    """A source() argument: a plain name as a literal, any other as an expression of one.

    dbt's static parser takes a literal's text without reading its escapes; `'' ~ '...'` is
    not a literal, so dbt renders it with Jinja, which does.
    """
    return f"'{text}'" if _plain(text) else f"'' ~ {jinja_string(text)}"


def _yaml_value(text: str) -> str:
    """A name or value for a YAML property that dbt renders: itself when plain, else one
    Jinja string expression, which renders to exactly `text` (natively too)."""
    return text if _plain(text) else f"{{{{ {jinja_string(text)} }}}}"


def _jinja_text(sql: str) -> str:
    """`sql` as template text that Jinja prints unchanged: no `{` left to open a tag, and no
    carriage return for Jinja to turn into a newline (in a value such as 'a\\r\\nb')."""
    return sql.replace("{", "{{ '{' }}").replace("\r", "{{ '\\u000d' }}")


def parse_source(source: str) -> tuple[str, str]:
    """('SCHEMA', 'TABLE') of 'SCHEMA.TABLE' (split at the first dot)."""
    schema, dot, table = source.partition(".")
    if not dot or not schema or not table:
        raise InputError(f"source: expected SCHEMA.TABLE, got {source!r}", params=("source",))
    return schema, table


def dbt_model_sql(ruleset: RuleSet | BoostedRuleSet, source: tuple[str, str], dialect: str = "duckdb", *,
                  prediction_column: str = "predicted_class", rule_column: str = "rule_id") -> str:
    """The text of models/NAME.sql: a table of every source row with its class and rule id."""
    placeholder = _PLACEHOLDER
    while True:   # a placeholder that nothing else in the SQL spells
        if isinstance(ruleset, RegressionModel):   # a number: the column predicted_value
            sql = regression_select(ruleset, placeholder, dialect)
        else:
            sql = to_sql_select(ruleset, placeholder, dialect, prediction_column=prediction_column,
                                rule_column=rule_column)
        quoted = _identifier(placeholder).sql(dialect=dialect)
        if sql.count(quoted) == 1:
            break
        placeholder += "_"
    before, after = sql.split(quoted)
    call = f"{{{{ source({_source_argument(source[0])}, {_source_argument(source[1])}) }}}}"
    return ("{{ config(materialized='table') }}\n"
            + _jinja_text(before) + call + _jinja_text(after) + "\n")


def dbt_schema_yml(ruleset: RuleSet | BoostedRuleSet, name: str, dialect: str = "duckdb", *,
                   prediction_column: str = "predicted_class", rule_column: str = "rule_id") -> str:
    """The text of models/schema.yml: the model's columns, the tested attributes described, and
    the tests: the class not null and one of the model's classes, the rule id not null (a
    regression model: its number, not null)."""
    used = ruleset.used_attributes()
    columns = [{"name": _yaml_value(a.name), "quote": True,
                "description": ("continuous attribute tested by the rules" if a.is_continuous
                                else "discrete attribute tested by the rules")}
               for a in ruleset.schema.attributes if a.name in used]
    if isinstance(ruleset, RegressionModel):
        columns.append({"name": _yaml_value(PREDICTION_COLUMN), "quote": True,
                        "description": f"the number the regression rules give, within [{ruleset.floor!r},"
                                       f" {ruleset.ceiling!r}]",
                        "data_tests": ["not_null"]})
        return yaml.safe_dump({"version": 2, "models": [{
            "name": name, "description": "Every row of the source with the number the regression rules give it",
            "columns": columns}]}, sort_keys=False, allow_unicode=True, width=1000)
    # dbt renders a test's arguments as Jinja (natively: '01' would become the number 1) and
    # pastes each value into '...' unescaped: so each class is given as the SQL literal of
    # the dialect (quote: false), inside one Jinja string expression that prints it unchanged
    classes = [_yaml_value(_sql_literal(c, dialect)) for c in ruleset.schema.classes]
    columns.append({"name": _yaml_value(prediction_column), "quote": True,
                    "description": ("the class the trials' vote gives" if isinstance(ruleset, BoostedRuleSet) else
                                    "the class the first firing rule gives (the default class when none fires)"),
                    "data_tests": ["not_null", {"accepted_values": {"arguments": {"values": classes,
                                                                                  "quote": False}}}]})
    if isinstance(ruleset, BoostedRuleSet):   # the vote of the trials: a rule id column per trial
        columns += [{"name": _yaml_value(f"{rule_column}_{t}"), "quote": True,
                     "description": f"id of the rule of trial {t} that fired; 0 when its default class decided",
                     "data_tests": ["not_null"]} for t in range(1, len(ruleset.trials) + 1)]
    else:
        columns.append({"name": _yaml_value(rule_column), "quote": True,
                        "description": "id of the rule that fired; 0 when the default class decided",
                        "data_tests": ["not_null"]})
    doc = {"version": 2, "models": [{
        "name": name,   # a plain name (write_dbt checks it)
        "description": "Every row of the source with the class the C4.5 rules give it",
        "columns": columns}]}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)


def _sql_literal(text: str, dialect: str) -> str:
    return _string(text, dialect).sql(dialect=dialect)


def dbt_sources_yml(source: tuple[str, str]) -> str:
    """The text of models/sources.yml declaring SCHEMA.TABLE, its names quoted in the SQL."""
    schema, table = source
    doc = {"version": 2, "sources": [{
        "name": _yaml_value(schema), "schema": _yaml_value(schema),
        "quoting": {"database": True, "schema": True, "identifier": True},
        "tables": [{"name": _yaml_value(table)}]}]}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)


def write_dbt(ruleset: RuleSet | BoostedRuleSet, directory: str | os.PathLike, source: tuple[str, str], name: str,
              dialect: str = "duckdb") -> list[Path]:
    """Write DIR/models/NAME.sql, schema.yml and sources.yml (each atomically); their paths."""
    _check_dialect(dialect)
    if not _plain(name):
        raise InputError(f"name: a dbt model name is letters, digits and '_' (not starting with a"
                         f" digit), not {name!r}", params=("name",))
    models = Path(directory) / "models"
    if Path(directory).exists() and not Path(directory).is_dir():
        raise InputError(f"{directory}: is not a directory")
    texts = {f"{name}.sql": "{# " + MARK + " #}\n" + dbt_model_sql(ruleset, source, dialect),
             "schema.yml": f"# {MARK}\n" + dbt_schema_yml(ruleset, name, dialect),
             "sources.yml": f"# {MARK}\n" + dbt_sources_yml(source)}
    for file in texts:   # a project's own files are not ours to replace
        path = models / file
        if path.exists() and MARK not in path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]:
            raise InputError(f"{path}: exists and was not written by c45rules; export into another"
                             " directory (dbt reads models/ and its subfolders) or move the file")
    models.mkdir(parents=True, exist_ok=True)
    return [atomic_write_text(models / file, text) for file, text in texts.items()]
