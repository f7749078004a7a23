"""`rules -s` end to end: the compiled subset search (tree/_subset.c) leaves the rules of the
shared sets as the numpy search made them (numbers from the code before the module)."""
from __future__ import annotations

import json

import pytest

from .conftest import DATA, ok

# (set, options, rules, conditions, default class, training errors, test errors or None)
EXPECTED = [
    ("soybean", ["-s"], 31, 101, "frog-eye-leaf-spot", 20, None),
    ("soybean", ["-s", "-g"], 33, 108, "frog-eye-leaf-spot", 21, None),
    ("vote", ["-s", "-u"], 3, 4, "democrat", 13, 6),
    ("monk2", ["-s", "-u"], 8, 26, "1", 34, 152),
    ("monk2", ["-s", "-g"], 21, 84, "0", 14, None),
    ("crx", ["-s", "-g"], 10, 35, "-", 35, None),
    ("income", ["-s"], 48, 281, "[30.000-40.000)", 5873, None),
    ("income", ["-s", "-m", "5"], 37, 193, "[30.000-40.000)", 6049, None),
    ("synth_10k", ["-s", "-u"], 68, 420, "B", 1050, 1188),
]


@pytest.mark.parametrize("name,options,rules,conditions,default,train_errors,test_errors", EXPECTED,
                         ids=[f"{e[0]}{''.join(e[1])}" for e in EXPECTED])
def test_subset_rules_unchanged(name, options, rules, conditions, default, train_errors, test_errors):
    out = json.loads(ok("rules", DATA / name / name, *options, "-q", "--json").stdout)
    assert len(out.pop("rule_list")) == rules
    assert out == {"rules": rules, "conditions": conditions, "default_class": default,
                   "train_errors": train_errors, "test_errors": test_errors}
