"""RuleSet semantics: first hit, unknowns, unseen values, never-firing rules, explain, proba."""
import math

import numpy as np
import pandas as pd
import pytest

import reference as R
from c45rules import Attribute, Condition, InputError, Rule, RuleSet, Schema, fit
from c45rules.data import load_stem

SCHEMA = Schema((Attribute("outlook", "discrete", ("sunny", "overcast", "rain")),
                 Attribute("humidity", "continuous"),
                 Attribute("windy", "discrete", ("true", "false"))),
                ("Play", "Don't Play"), "class")


def ruleset(extra=()):
    rules = (Rule(2, (Condition("outlook", "=", "overcast"),), "Play", 4, 0, 0.293, 1.09),
             Rule(1, (Condition("outlook", "=", "sunny"), Condition("humidity", ">", 75.0)),
                  "Don't Play", 3, 0, 0.37, 1.76),
             *extra)
    return RuleSet(SCHEMA, rules, "Play", (9, 5), (5, 2))


def test_first_hit_and_default():
    rs = ruleset()
    rows = pd.DataFrame({"outlook": ["overcast", "sunny", "sunny", "rain"],
                         "humidity": [90, 80, 75, 99], "windy": ["true"] * 4})
    assert list(rs.predict(rows)) == ["Play", "Don't Play", "Play", "Play"]
    assert list(rs.predict_rule(rows)) == [2, 1, 0, 0]


def test_unknown_and_unseen_values_satisfy_nothing():
    rs = ruleset()
    rows = pd.DataFrame({"outlook": ["sunny", "sunny", None, "?", "cloudy", ""],
                         "humidity": [np.nan, None, 99, 99, 99, 99], "windy": ["true"] * 6})
    # NaN humidity fails `> 75` (and would fail `<= 75`); unknown/unseen outlook fails `=`
    assert list(rs.predict_rule(rows)) == [0, 0, 0, 0, 0, 0]


def test_threshold_is_inclusive_below():
    rs = ruleset()
    assert rs.predict({"outlook": "sunny", "humidity": 75.0, "windy": "true"}) == "Play"
    assert rs.predict({"outlook": "sunny", "humidity": math.nextafter(75.0, 100), "windy": "true"}) == "Don't Play"


def test_rule_with_error_above_0_7_never_fires():
    weak = Rule(3, (Condition("windy", "=", "true"),), "Don't Play", 6, 3, 0.71, 0.9)
    rs = ruleset((weak,))
    assert rs.predict_rule({"outlook": "rain", "humidity": 1, "windy": "true"}) == [0]
    assert not weak.fires


def test_explain_says_a_rule_that_holds_never_fires():
    weak = Rule(3, (Condition("windy", "=", "true"),), "Don't Play", 6, 3, 0.71, 0.9)
    empty = Rule(4, (), "Don't Play", 6, 5, 0.8, 0.5)
    ex = ruleset((weak, empty)).explain({"outlook": "rain", "humidity": 1, "windy": "true"})
    assert ex.rule is None and [(rid, c) for rid, c, _ in ex.misses][2:] == [(3, None), (4, None)]
    assert "rule 4: its conditions hold, but it never fires (error above 70%)" in str(ex)


def test_explain_names_the_rule_and_values():
    rs = ruleset()
    ex = rs.explain({"outlook": "sunny", "humidity": 80, "windy": "false"})
    assert ex.rule.id == 1 and ex.prediction == "Don't Play"
    assert "humidity > 75   (humidity = 80: yes)" in str(ex)
    dflt = rs.explain({"outlook": "rain", "humidity": None, "windy": "false"})
    assert dflt.rule is None
    assert [(rid, str(c), v) for rid, c, v in dflt.misses] == \
        [(2, "outlook = overcast", "rain"), (1, "outlook = sunny", "rain")]



def test_explain_takes_one_case_as_a_mapping_or_series():
    rs = ruleset()
    row = pd.DataFrame({"outlook": ["sunny"], "humidity": [80], "windy": ["false"]}).iloc[0]
    assert rs.explain(row).rule.id == 1
    for bad in ("sunny", ["sunny"], 3):
        with pytest.raises(InputError, match="explain: expected one case as a mapping"):
            rs.explain(bad)

def test_predict_proba_meaning():
    rs = ruleset()
    p = rs.predict_proba(pd.DataFrame({"outlook": ["overcast", "rain"], "humidity": [1, 1],
                                       "windy": ["true", "true"]}))
    assert p[0].tolist() == pytest.approx([0.707, 0.293])
    assert p[1].tolist() == pytest.approx([6 / 9, 3 / 9])     # default: Laplace of (5, 2)
    assert np.allclose(p.sum(axis=1), 1)


def test_missing_column_is_a_clear_error():
    with pytest.raises(InputError, match="column 'humidity' is missing"):
        ruleset().predict(pd.DataFrame({"outlook": ["sunny"]}))


def test_equality_by_value_and_fit_determinism():
    a = fit(R.stem("crx"))
    b = fit(R.stem("crx"))
    assert a == b and a is not b
    assert a.fingerprint.startswith("sha256:")


def test_fingerprint_ignores_row_order():
    train, _ = load_stem(R.stem("golf"))
    perm = np.random.default_rng(0).permutation(train.n)
    assert train.fingerprint() == train.subset(perm).fingerprint()
    assert train.fingerprint() != train.subset(perm[:-1]).fingerprint()


def test_or_unknown_conditions_are_satisfied_by_unknown_values():
    from c45rules.errors import ModelError
    from c45rules.govern.diff import diff_rulesets
    from c45rules.export.report import render_report
    # four tests on one threshold, flagged and not, in one match plan
    rules = (Rule(1, (Condition("humidity", "<=", 70.0),), "Play", 4, 0, 0.2, 1.0),
             Rule(2, (Condition("humidity", ">", 90.0, or_unknown=True),
                      Condition("outlook", "=", "sunny")), "Don't Play", 3, 0, 0.3, 1.0),
             Rule(3, (Condition("humidity", "<=", 90.0, or_unknown=True),
                      Condition("humidity", ">", 70.0)), "Don't Play", 3, 0, 0.3, 1.0),
             Rule(4, (Condition("humidity", "<=", 70.0, or_unknown=True),), "Play", 3, 0, 0.3, 1.0))
    rs = RuleSet(SCHEMA, rules, "Play", (9, 5), (5, 2))
    rows = pd.DataFrame({"outlook": ["sunny", "sunny", "rain", "rain", "rain", None],
                         "humidity": [95, math.nan, math.nan, 80, 60, math.inf]})
    assert list(rs.predict_rule(rows)) == [2, 2, 4, 3, 1, 0]
    mask = rs.condition_mask(rules[1].conditions[0], rs._encode(rows))
    assert list(mask) == [True, True, True, False, False, True]
    assert str(rules[2]) == "rule 3: if (humidity <= 90 or unknown) and humidity > 70 then Don't Play [70.0%]"
    why = rs.explain({"outlook": "rain"})
    assert why.rule.id == 4 and why.as_dict()["conditions"][0]["or_unknown"] is True
    assert "humidity <= 70 or unknown   (humidity = unknown: yes)" in str(why)
    assert "(humidity &lt;= 90 or unknown) and humidity &gt; 70" in render_report(rs)
    # the flag is part of a condition's test: flipping it makes another rule, not a moved threshold
    plain = RuleSet(SCHEMA, rules[:3] + (Rule(4, (Condition("humidity", "<=", 70.0),), "Play", 3, 0, 0.3, 1.0),),
                    "Play", (9, 5), (5, 2))
    d = diff_rulesets(plain, rs)
    assert plain != rs and (d.removed, d.added, d.changed, len(d.unchanged)) == ((4,), (4,), (), 3)
    with pytest.raises(ModelError, match="'or unknown' is only for threshold tests"):
        RuleSet(SCHEMA, (Rule(1, (Condition("outlook", "=", "sunny", True),), "Play", 1, 0, 0.5, 1.0),),
                "Play", (9, 5), (5, 2)).predict(rows)
