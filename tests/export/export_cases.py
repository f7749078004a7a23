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
from c45rules.model.boosted import BoostedRuleSet
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
    rules: np.ndarray     # RuleSet.predict_rule (0 = default); of a boosted model, trial_rules
    confidence: np.ndarray | None = None   # predict_confidence (boosted models)


def score(name: str, ruleset: RuleSet, rows: list[dict]) -> Scored:
    ds = encode(ruleset.schema, rows)
    return Scored(name, ruleset, rows, ruleset.predict(ds), ruleset.predict_rule(ds))


# +subset: `in` tests; +cart, +id3: rules from the other growers' trees (cart: subset tests and
# thresholds just below rpart's midpoints; id3: multiway tests, no pruning; chaid: subset tests, threshold
# chains, unknowns with the floating category in the tree)
FIT_DATASETS = ("golf", "vote_weka", "hypo", "labor", "crx", "income", "crx+subset", "crx+cart", "hypo+cart",
                "labor+id3", "crx+chaid", "hypo+chaid", "labor+chaid", "hypo+quest")


def fit_scored(name: str) -> Scored:
    from c45rules.learn.pipeline import fit

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


# ---- boosted models ----------------------------------------------------------------------------
# shared sets with unknowns, with the number of trials fitted for them
BOOSTED_DATASETS = {"crx": 4, "breast-cancer": 3, "hypo": 3, "soybean": 3, "income": 2}


def boosted_model(name: str, trials: int) -> BoostedRuleSet:
    """Trials fitted on reweighted copies of a shared set: each next trial's training weights are
    doubled on the cases the trials so far misclassify (as boosting would), so the trials differ."""
    from c45rules.data.weights import weighted
    from c45rules.learn.pipeline import fit_dataset

    train, _ = load_stem(DATA / name / name, test=True)
    if name == "income":
        train = train.subset(np.arange(1200))
    fitted = [fit_dataset(train)[0]]
    w = np.ones(train.n)
    labelled = np.asarray(train.y) >= 0
    for _ in range(trials - 1):
        wrong = labelled & (BoostedRuleSet(tuple(fitted)).predict(train)
                            != np.array(train.schema.classes, dtype=object)[np.asarray(train.y)])
        w = np.where(wrong, w * 2.0, w)
        fitted.append(fit_dataset(weighted(train, w, None, "w"))[0])
    return BoostedRuleSet(tuple(fitted))


def score_boosted(name: str, model: BoostedRuleSet, rows: list[dict]) -> Scored:
    """The rows with the boosted model's class, each trial's deciding rule and the confidence."""
    ds = encode(model.schema, rows)
    return Scored(name, model, rows, model.predict(ds), model.trial_rules(ds), model.predict_confidence(ds))


def boosted_scored(name: str) -> Scored:
    """A boosted model of a shared set with its training and test cases and every trial's probes."""
    model = boosted_model(name, BOOSTED_DATASETS[name])
    train, test = load_stem(DATA / name / name, test=True)
    base = decode(train) + (decode(test) if test is not None else [])
    base = base[:3000]   # the first 3,000 cases (income has 48,842): enough unknowns, and quick
    probes = []
    for t, rs in enumerate(model.trials):
        rows = probe_rows(rs, base, seed=t, n_random=60)
        probes += rows[::-(-len(rows) // 1500)]   # 1,500 of each trial's probes at most, evenly spread
    return score_boosted(name, model, base + probes)


# boosted models learnt with misclassification costs (fit --trials N --costs): the vote decides by
# least expected cost (boosted.py). crx: two classes, one dear error; hypo: five classes, costs
# below and above 1 on several pairs, so a class's expected cost adds several terms
COSTED_BOOSTED = {
    "crx+costs": (5, {("+", "-"): 5.0}),
    "hypo+costs": (3, {("negative", "primary hypothyroid"): 5.0, ("negative", "compensated hypothyroid"): 3.0,
                       ("compensated hypothyroid", "negative"): 0.5, ("primary hypothyroid", "hyperthyroid"): 2.0,
                       ("negative", "hyperthyroid"): 4.0}),
}


def costed_boosted_scored(name: str) -> Scored:
    """A boosted model fitted with costs on a shared set (fit's own trials), scored on its training
    and test cases (unknowns among them) and every trial's probes."""
    from c45rules.learn.pipeline import fit

    stem = name.split("+")[0]
    trials, costs = COSTED_BOOSTED[name]
    model = fit(DATA / stem / stem, trials=trials, costs=costs)
    train, test = load_stem(DATA / stem / stem, test=True)
    base = decode(train) + (decode(test) if test is not None else [])
    probes = []
    for t, rs in enumerate(model.trials):
        rows = probe_rows(rs, base, seed=t, n_random=60)
        probes += rows[::-(-len(rows) // 1500)]
    return score_boosted(name, model, base + probes)


def tie_costed_model() -> BoostedRuleSet:
    """tie_model's trials with costs 2 both ways: each class's expected cost is twice the other's
    total (exact in double), so the costs keep tie_model's ties (to "no", the first class) and its
    miss by one unit in the last place."""
    model = tie_model()
    return BoostedRuleSet(model.trials, (("costs", (("no", "yes", 2.0), ("yes", "no", 2.0))),))


def _vote_rule(rid: int, cond: Condition, klass: str, confidence: float) -> Rule:
    return Rule(rid, (cond,), klass, 10, 2, 1.0 - confidence, 1.0, 5, 1)


def tie_model() -> BoostedRuleSet:
    """Hand-built trials whose votes tie exactly, or miss a tie by one unit in the last place when
    added in trial order. Classes ("no", "yes"): a tie goes to "no", the first class.
    x <= 5 or unknown: yes 0.75 + 0.75, no 0.75 + 0.375 + 0.375 (the defaults' Laplace shares, and
    with y = a trial 1's and 2's rule 2): a tie, so no, though trial 1 votes yes.
    x > 5: no ((0.596 + 0.502) + 0.474 = 1.5719999999999998) against yes (0.616 + 0.956 = 1.572):
    yes; added in another order (0.596 + (0.502 + 0.474) = 1.572) it would be a tie, so no."""
    schema = Schema((Attribute("x", "continuous"), Attribute("y", "discrete", ("a", "b"))), ("no", "yes"))
    high, is_a = Condition("x", ">", 5.0), Condition("y", "=", "a")
    # Laplace shares (n + 1) / (total + 2): (2, 0) -> no 0.75, (0, 2) -> yes 0.75, (2, 4) -> no 0.375
    t1 = RuleSet(schema, (_vote_rule(1, high, "no", 0.596), _vote_rule(2, is_a, "yes", 0.75)), "no", (5, 5), (2, 0))
    t2 = RuleSet(schema, (_vote_rule(1, high, "yes", 0.616), _vote_rule(2, is_a, "no", 0.75)), "yes", (5, 5), (0, 2))
    t3 = RuleSet(schema, (_vote_rule(1, high, "no", 0.502),), "yes", (5, 5), (0, 2))
    t4 = RuleSet(schema, (_vote_rule(1, high, "yes", 0.956),), "no", (5, 5), (2, 4))
    t5 = RuleSet(schema, (_vote_rule(1, high, "no", 0.474),), "no", (5, 5), (2, 4))
    return BoostedRuleSet((t1, t2, t3, t4, t5))


def tie_rows() -> list[dict]:
    """Every combination of x (both sides of 5, the threshold, unknown) and y (a, b, unknown, unseen)."""
    return [{"x": x, "y": y} for x in (1.0, 5.0, 7.0, None, math.nan) for y in ("a", "b", None, "?", UNSEEN)]
