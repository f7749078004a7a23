"""Rules read as they decide (issue 47.3): a name, value or class that could read as rule syntax is
quoted, and characters that do not show themselves (bidi controls, zero-width ones) are escaped, in
every text a person reads: the rules printout, explain, the HTML report, the SQL and Python comments
and the diff."""
from __future__ import annotations

import ast
import html
import json

import pytest

from c45rules import Attribute, Condition, Rule, RuleSet, Schema
from c45rules.export import dump_yaml, to_python
from c45rules.export.sql import to_sql_select
from c45rules.export.report import render_report
from c45rules.model.ruleset import format_rules

from e2e.conftest import cli

TRICKY = "t and A15 <= 5"          # one value that reads as two conditions when shown bare
RLO = "\u202e"                     # RIGHT-TO-LEFT OVERRIDE: reverses what follows on screen
BIDI_NAME = f"x{RLO}y"
BIDI_VALUE = f"v{RLO}"


def _model(note: str = "") -> RuleSet:
    schema = Schema((Attribute("A9", "discrete", (TRICKY, "f")), Attribute("A15", "continuous"),
                     Attribute(BIDI_NAME, "discrete", (BIDI_VALUE, "w"))), ("+", f"-{RLO}"), "class")
    rules = (Rule(1, (Condition("A9", "=", TRICKY),), "+", 10, 1, 0.2, 1.5, 10, 1, note),
             Rule(2, (Condition(BIDI_NAME, "=", BIDI_VALUE), Condition("A15", "<=", 5.0)), f"-{RLO}",
                  8, 0, 0.1, 1.8, 8, 0))
    return RuleSet(schema, rules, "+", (12, 8), (2, 0), notes=note)


def test_readable_quotes_what_reads_as_syntax_and_leaves_plain_names_bare():
    from c45rules.model.ruleset import readable, visible
    for plain in ("t", "A9", "on thyroxine", "Don't Play", "<0", "0<=X<200", "30-34", "religious groups in schools"):
        assert readable(plain) == plain
    assert readable(TRICKY) == f'"{TRICKY}"'
    assert readable("x <= 5") == '"x <= 5"'
    assert readable("unknown") == '"unknown"'     # not a missing value
    assert readable("a, b") == '"a, b"' and readable("a,b") == '"a,b"'   # not two values of a set
    assert readable("") == '""' and readable(" t") == '" t"'
    assert readable('say "hi"\\') == r'"say \"hi\"\\"'
    assert readable(BIDI_VALUE) == '"v\\u202e"'
    for ch in "\u202a\u202e\u2066\u2069\u200e\u200f\u200b\u200d\ufeff\u2028\u2029\u00a0\x00\x1b":
        assert ch not in readable(f"a{ch}b") and ch not in visible(f"a{ch}b")
    assert visible("a\u200bb") == "a\\u200bb" and visible("a b") == "a b"


def test_rules_printout_and_rule_text_quote_and_escape():
    rs = _model()
    text = format_rules(rs)
    assert f'A9 = "{TRICKY}"' in text
    assert '"x\\u202ey" = "v\\u202e"' in text and '->  class "-\\u202e"' in text
    assert RLO not in text
    assert str(rs.rules[0]) == f'rule 1: if A9 = "{TRICKY}" then + [80.0%]'
    assert all(RLO not in t for t in rs.decision_texts())
    assert str(Condition("A9", "in", (TRICKY, "f"))) == f'A9 in {{"{TRICKY}", f}}'


def test_explain_shows_the_value_of_the_case_quoted(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(dump_yaml(_model()))
    code, out = cli(["explain", str(path), "--row", json.dumps({"A9": TRICKY, "A15": 3})])
    assert code == 0
    assert f'A9 = "{TRICKY}"   (A9 = "{TRICKY}": yes)' in out
    code, out = cli(["explain", str(path), "--row", json.dumps({"A9": "f", BIDI_NAME: BIDI_VALUE, "A15": 3})])
    assert code == 0 and RLO not in out
    assert '"x\\u202ey" = "v\\u202e"   ("x\\u202ey" = "v\\u202e": yes)' in out
    assert 'class "-\\u202e" by rule 2' in out


def test_report_html_quotes_then_html_escapes():
    page = render_report(_model())
    assert RLO not in page
    assert html.escape(f'A9 = "{TRICKY}"', quote=True) in page
    assert html.escape('"x\\u202ey" = "v\\u202e"', quote=True) in page


def test_sql_and_python_comments_show_escapes():
    rs = _model(note=f"check {RLO}this")
    sql = to_sql_select(rs, "input_table")
    comments = [line for line in sql.splitlines() if line.lstrip().startswith("--")]
    assert comments and all(RLO not in line for line in comments)
    assert any("check \\u202ethis" in line for line in comments)
    src = to_python(rs)
    doc = ast.get_docstring(ast.parse(src), clean=False)
    assert RLO not in doc                      # help(model) shows the escapes, not a reversed line
    assert f'rule 1: if A9 = "{TRICKY}" then' in doc
    assert 'rule 2: if "x\\u202ey" = "v\\u202e" and A15 <= 5 then' in doc
    python_comments = [line for line in src.splitlines() if line.lstrip().startswith("#")]
    assert all(RLO not in line for line in python_comments)
    assert any("check \\u202ethis" in line for line in python_comments)


def test_diff_output_quotes_and_escapes(tmp_path):
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    rs = _model()
    old.write_text(dump_yaml(rs))
    new.write_text(dump_yaml(RuleSet(rs.schema, rs.rules[1:], f"-{RLO}", rs.class_counts, rs.default_counts)))
    code, out = cli(["diff", str(old), str(new)])
    assert code == 0 and RLO not in out
    assert f'removed  rule 1: if A9 = "{TRICKY}" then +' in out
    assert 'Default class: + -> "-\\u202e"' in out


@pytest.mark.parametrize("stem", ["golf", "hypo", "credit-g", "vote"])
def test_the_reference_datasets_names_stay_bare(stem):
    # the fidelity tests compare printed conditions with c4.5rules': names with spaces,
    # apostrophes and comparison signs in these files must print as before
    from c45rules.data import load_stem
    from c45rules.model.ruleset import readable
    from reference import stem as reference_stem
    schema = load_stem(reference_stem(stem))[0].schema
    for text in (*schema.classes, *schema.names, *(v for a in schema.attributes for v in a.values)):
        assert readable(text) == text


def test_chaid_printout_quotes_and_escapes_like_the_rules():
    import numpy as np
    from c45rules.data.schema import Dataset
    from c45rules.tree.chaid_report import format_chaid
    from c45rules.tree.growers.chaid import check, grow_chaid
    schema = Schema((Attribute(BIDI_NAME, "discrete", (TRICKY, "f")),), ("+", f"-{RLO}"), "class")
    x = np.array([0] * 40 + [1] * 40, dtype=np.int32)
    y = np.array([0] * 38 + [1] * 2 + [1] * 38 + [0] * 2, dtype=np.int32)
    text = format_chaid(grow_chaid(Dataset(schema, [x], y), check({"min_parent": 10, "min_child": 5})), schema)
    assert f'"x\\u202ey" = "{TRICKY}"' in text and '"-\\u202e"' in text
    assert RLO not in text
