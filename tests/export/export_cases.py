"""Test material for the export tests: real fitted rule sets with their cases, a hostile
hand-built rule set, and probe rows at every threshold (fixtures are in conftest.py).

A *scored case set* is a list of raw rows (dicts of Python values as a user or a database
holds them: floats, None, NaN, '?', '', unseen categories) together with what
`RuleSet.predict` / `RuleSet.predict_rule` say about them. The rows are encoded for the
library by `encode` below, which follows the encoding documented in
`c45rules/data/schema.py` (unknown -> NaN / -1, unseen category -> -2).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

import reference
from c45rules import Attribute, Condition, Rule, RuleSet, Schema
from c45rules.data import load_stem
from c45rules.data.schema import Dataset

DATA = reference.DATA
UNSEEN = "unseen 'x'; -- \"y\"\n"   # a category no model knows, hostile to SQL and CSV


# ---- rows <-> encoded datasets --------------------------------------------------------------
def encode(schema: Schema, rows: list[dict]) -> Dataset:
    """Encode raw rows as the schema module documents (unknown: None, NaN, '', '?')."""
    columns = []
    for a in schema.attributes:
        vals = [r.get(a.name) for r in rows]
        if a.is_continuous:
            columns.append(np.array([math.nan if v is None else float(v) for v in vals]))
        elif a.is_discrete:
            codes = []
            for v in vals:
                if v is None or v in ("", "?"):
                    codes.append(-1)
                else:
                    codes.append(a.values.index(v) if v in a.values else -2)
            columns.append(np.array(codes, dtype=np.int32))
        else:
            columns.append(np.zeros(len(rows), dtype=np.int8))
    return Dataset(schema, columns, None)


def decode(ds: Dataset) -> list[dict]:
    """Raw rows of an encoded dataset (continuous unknown -> None, discrete unknown -> None)."""
    rows = [{} for _ in range(ds.n)]
    for a, col in zip(ds.schema.attributes, ds.columns):
        if a.kind == "ignore":
            continue
        for r, v in zip(rows, col.tolist()):
            if a.is_continuous:
                r[a.name] = None if math.isnan(v) else v
            else:
                r[a.name] = None if v < 0 else a.values[v]
    return rows


# ---- probes ------------------------------------------------------------------------------------
def _variants(attr: Attribute, cond: Condition | None) -> list:
    if attr.is_continuous:
        out = [None, math.nan, math.inf, -math.inf]
        if cond is not None:
            t = float(cond.value)
            out += [t, math.nextafter(t, math.inf), math.nextafter(t, -math.inf)]
        return out
    return [None, "?", "", UNSEEN] + list(attr.values[:6])


def probe_rows(ruleset: RuleSet, base: list[dict], seed: int = 0, n_random: int = 200) -> list[dict]:
    """Rows that sit on every edge: each rule's conditions at, just above and just below the
    threshold, NaN/None/inf, '?', '', unseen categories, starting from rows the rule decides."""
    schema = ruleset.schema
    rng = random.Random(seed)
    decided = ruleset.predict_rule(encode(schema, base)) if base else np.array([])
    rows: list[dict] = []
    for rule in ruleset.rules:
        hits = [base[i] for i in np.flatnonzero(decided == rule.id)[:2]]
        starts = hits or [rng.choice(base)] if base else [{}]
        for start in starts:
            for cond in rule.conditions:
                attr = schema.attribute(cond.attribute)
                for v in _variants(attr, cond):
                    row = dict(start)
                    row[attr.name] = v
                    rows.append(row)
    thresholds: dict[str, list[float]] = {}
    for rule in ruleset.rules:
        for c in rule.conditions:
            if c.op in ("<=", ">"):
                thresholds.setdefault(c.attribute, []).append(float(c.value))
    for _ in range(n_random):
        row = dict(rng.choice(base)) if base else {}
        for a in schema.attributes:
            if a.kind == "ignore" or rng.random() < 0.6:
                continue
            choices = _variants(a, None)
            for t in thresholds.get(a.name, []):
                choices += [t, math.nextafter(t, math.inf), math.nextafter(t, -math.inf)]
            row[a.name] = rng.choice(choices)
        rows.append(row)
    rows.append({a.name: None for a in schema.attributes if a.kind != "ignore"})
    return rows


# ---- scored case sets --------------------------------------------------------------------------
@dataclass
class Scored:
    """A rule set, raw rows, and the library's answer for each row."""

    name: str
    ruleset: RuleSet
    rows: list[dict]
    classes: np.ndarray   # RuleSet.predict
    rules: np.ndarray     # RuleSet.predict_rule (0 = default)


def score(name: str, ruleset: RuleSet, rows: list[dict]) -> Scored:
    ds = encode(ruleset.schema, rows)
    return Scored(name, ruleset, rows, ruleset.predict(ds), ruleset.predict_rule(ds))


# +subset: `in` tests; +cart, +id3: rules from the other growers' trees (cart: subset tests and
# thresholds just below rpart's midpoints; id3: multiway tests, no pruning; chaid: subset tests, threshold
# chains, unknowns with the floating category in the tree)
FIT_DATASETS = ("golf", "vote_weka", "hypo", "labor", "crx", "income", "crx+subset", "crx+cart", "hypo+cart",
                "labor+id3", "crx+chaid", "hypo+chaid", "labor+chaid", "hypo+quest")


def fit_scored(name: str) -> Scored:
    from c45rules.pipeline import fit

    stem = name.split("+")[0]
    train, test = load_stem(DATA / stem / stem, test=True)
    learn = train
    options = {}
    if stem == "income":      # the full set takes 20 s to learn; 1200 cases give ~70 rules
        learn = train.subset(np.arange(1200))
    if name.endswith("+subset"):
        options["subset"] = True
    if name.endswith(("+cart", "+id3", "+chaid", "+quest")):
        options["grower"] = name.split("+")[1]
    if name.endswith("+chaid"):
        # smaller nodes than SPSS's defaults: deeper trees, groups of unknowns alone (labor)
        options.update(min_parent=10, min_child=3, max_depth=4)
    ruleset = fit(learn, **options)
    base = decode(train) + (decode(test) if test is not None else [])
    # the test encoding is the library's: decoded rows re-encode to the same decisions
    assert (ruleset.predict_rule(encode(train.schema, decode(train))) == ruleset.predict_rule(train)).all()
    return score(name, ruleset, base + probe_rows(ruleset, base))


# ---- hand-built rule sets ---------------------------------------------------------------------
def golf_ruleset() -> RuleSet:
    """A small hand-built golf rule set (rule 5 never fires: error 0.8)."""
    schema = Schema((Attribute("outlook", "discrete", ("sunny", "overcast", "rain")),
                     Attribute("temperature", "continuous"),
                     Attribute("humidity", "continuous"),
                     Attribute("windy", "discrete", ("true", "false"))),
                    ("Play", "Don't Play"))
    rules = (
        Rule(1, (Condition("outlook", "=", "sunny"), Condition("humidity", ">", 75.0)),
             "Don't Play", 3, 0, 0.37, 2.0, 3, 0),
        Rule(5, (Condition("windy", "=", "false"),), "Don't Play", 8, 6, 0.8, 0.4, 0, 0),
        Rule(2, (Condition("outlook", "=", "rain"), Condition("windy", "=", "true")),
             "Don't Play", 2, 0, 0.5, 1.8, 2, 0),
        Rule(3, (Condition("outlook", "=", "overcast"),), "Play", 4, 0, 0.2, 1.2, 4, 0),
        Rule(4, (Condition("humidity", "<=", 75.0),), "Play", 7, 1, 0.25, 1.1, 3, 0),
    )
    return RuleSet(schema, rules, "Play", (9, 5), (2, 1))


HOSTILE_VALUES = ("it's", "semi;colon", "-- comment", "new\nline", "O'Brien", "back\\slash",
                  "tab\tchar", "ünï©ødé ✓", '"dq"', "%_like", "*/", "$1", "{x}", "}}{{",
                  "__import__('os').system('echo pwned')", '"""', "'''", "\\'", "\r\n",
                  "\u2028sep", "x\\", "NULL", "null", "yes", "no", "1", "01", ":", "#", "1.0")


def hostile_ruleset() -> RuleSet:
    """Names and values that break naive quoting in SQL, YAML, CSV and Python source."""
    schema = Schema(
        (Attribute("select", "continuous"),
         Attribute('"x"', "discrete", HOSTILE_VALUES),
         Attribute("a b", "continuous"),
         Attribute("O'Brien", "discrete", ("yes", "no", "null", "1", "01")),
         Attribute("ünï ✓", "continuous"),
         Attribute("`tick` [br]", "discrete", ("a", "b", "c")),
         Attribute("def", "ignore"),
         Attribute("__import__('os')", "discrete", ("{0}", "f'{1}'", "\\N{BULLET}")),
         Attribute("-- x; DROP TABLE t", "continuous")),
        ("it's", "DROP TABLE t; --", 'ok\n"""', "{class}"),
        target="class")
    r = [
        Rule(1, (Condition('"x"', "=", "it's"), Condition("select", ">", 0.1 + 0.2)),
             "DROP TABLE t; --", 40, 2, 0.1, 2.0, 30, 1),
        Rule(2, (Condition("O'Brien", "in", ("null", "01")), Condition("a b", "<=", -1e-05)),
             'ok\n"""', 20, 1, 0.15, 1.5, 12, 0),
        Rule(7, (Condition("`tick` [br]", "=", "a"),), "{class}", 9, 6, 0.75, 0.4, 0, 0),
        Rule(3, (Condition("ünï ✓", ">", 1e300),
                 Condition('"x"', "in", ("new\nline", "-- comment", "ünï©ødé ✓", '"""', "\r\n"))),
             "{class}", 15, 3, 0.3, 1.2, 10, 2),
        Rule(4, (Condition("__import__('os')", "in", ("{0}", "\\N{BULLET}")),
                 Condition("-- x; DROP TABLE t", ">", -2.5)), "it's", 12, 0, 0.2, 1.1, 8, 0),
        Rule(5, (Condition("select", "<=", 5e-324),), 'ok\n"""', 10, 4, 0.45, 1.05, 5, 2),
        Rule(6, (Condition('"x"', "=", "1.0"), Condition("`tick` [br]", "in", ("b", "c"))),
             "DROP TABLE t; --", 8, 1, 0.25, 1.3, 4, 1),
    ]
    return RuleSet(schema, tuple(r), "it's", (50, 40, 30, 20), (20, 5, 3, 1),
                   (("cf", 0.25), ("min_objs", 2), ("fisher", None), ("subset", False),
                    ("note", "yes: no # not a comment\n'quoted'"), ("tolerance", 1e-05)),
                   "sha256:" + "ab" * 32)


def random_rows(ruleset: RuleSet, n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    thresholds: dict[str, list[float]] = {}
    for rule in ruleset.rules:
        for c in rule.conditions:
            if c.op in ("<=", ">"):
                thresholds.setdefault(c.attribute, []).append(float(c.value))
    rows = []
    for _ in range(n):
        row = {}
        for a in ruleset.schema.attributes:
            if a.is_continuous:
                near = [f(t) for t in thresholds.get(a.name, [0.0])
                        for f in (lambda t: t, lambda t: math.nextafter(t, math.inf),
                                  lambda t: math.nextafter(t, -math.inf))]
                row[a.name] = rng.choice(near + [rng.uniform(-10, 10), None, math.nan, 1e301])
            elif a.is_discrete:
                row[a.name] = rng.choice(list(a.values) * 2 + [None, "?", "", UNSEEN])
        rows.append(row)
    return rows
