"""RuleSet.rule_index against a per-case reference: first firing rule whose conditions all hold.

rule_index matches blocks of cases on bit-packed masks of distinct tests; these tests pin it
to the plain definition (spec 7.11) on fitted rulesets of shared datasets (with unknown
values, unseen codes and `in` tests) and on random rules and data holding NaN, +-inf,
unseen codes and thresholds that are NaN or infinite.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import c45rules.model.ruleset as ruleset_module
import reference as R
from c45rules import Attribute, Condition, Rule, RuleSet, Schema
from c45rules.data import load_stem
from c45rules.data.schema import UNKNOWN_CODE, UNSEEN_CODE, Dataset
from c45rules.learn.pipeline import fit_dataset


def reference_rule_index(rs: RuleSet, ds: Dataset) -> np.ndarray:
    """Per case, the 1-based position of the first firing rule whose conditions all hold, else 0."""
    schema = rs.schema

    def holds(cond: Condition, case: tuple) -> bool:
        a = schema.index(cond.attribute)
        v = case[a]
        if cond.op == "<=":
            return v <= cond.value          # False for NaN on either side
        if cond.op == ">":
            return v > cond.value
        values = schema.attributes[a].values
        allowed = (cond.value,) if cond.op == "=" else cond.value
        return 0 <= v < len(values) and values[v] in allowed

    cases = list(zip(*(c.tolist() for c in ds.columns)))
    return np.array([next((k for k, rule in enumerate(rs.rules, 1)
                           if rule.fires and all(holds(c, case) for c in rule.conditions)), 0)
                     for case in cases], dtype=np.int64)


def with_unknowns(ds: Dataset, rng: np.random.Generator) -> Dataset:
    """A copy with about 5% of the values unknown, unseen or infinite."""
    cols = []
    for attr, col in zip(ds.schema.attributes, ds.columns):
        col = col.copy()
        hit = rng.random(len(col)) < 0.05
        if attr.is_continuous:
            col[hit] = rng.choice([np.nan, np.inf, -np.inf], hit.sum())
        elif attr.is_discrete:
            col[hit] = rng.choice([UNKNOWN_CODE, UNSEEN_CODE], hit.sum())
        cols.append(col)
    return Dataset(ds.schema, cols, None, ds.source)


FITTED = {"letter": {}, "hypo": {}, "crx": {}, "income": {},
          "soybean": {}, "soybean+subset": {"subset": True}}


@pytest.fixture(scope="module", params=sorted(FITTED))
def fitted(request) -> tuple[RuleSet, Dataset]:
    """A shared dataset's ruleset and its cases (training and test together)."""
    name = request.param.split("+")[0]
    train, test = load_stem(R.stem(name), test=True)
    if name == "income":     # the full set takes 15 s to learn; 3000 cases give ~100 rules
        train = train.subset(np.arange(3000))
    rs = fit_dataset(train, **FITTED[request.param])[0]
    cases = train if test is None else Dataset(train.schema, [np.concatenate(p) for p in
                                                              zip(train.columns, test.columns)], None)
    return rs, cases


def test_fitted_rulesets_match_the_reference(fitted):
    rs, cases = fitted
    rng = np.random.default_rng(7)
    sample = cases.subset(rng.choice(cases.n, min(cases.n, 1500), replace=False))
    for ds in (sample, with_unknowns(sample, rng)):
        expected = reference_rule_index(rs, ds)
        assert np.array_equal(rs.rule_index(ds), expected)
        assert len(set(expected.tolist())) > 1


def test_fitted_rulesets_match_across_block_sizes(fitted, monkeypatch):
    rs, cases = fitted
    ds = with_unknowns(cases, np.random.default_rng(3))
    whole = rs.rule_index(ds)
    monkeypatch.setattr(ruleset_module, "_BLOCK", 1000)   # many blocks, the last one ragged
    assert np.array_equal(rs.rule_index(ds), whole)


# ---- random rules on random data -------------------------------------------------------

SCHEMA = Schema((Attribute("x", "continuous"), Attribute("c", "discrete", ("p", "q", "r")),
                 Attribute("y", "continuous"), Attribute("d", "discrete", ("u",)),
                 Attribute("skip", "ignore")),
                ("A", "B"), "class")
CUTS = [-math.inf, -1.5, 0.0, 0.5, math.nextafter(0.5, 1), 2.0, math.inf, math.nan]
VALUES = CUTS + [-0.0, 1e308, -1e308, 0.25, 3.0]

thresholds = st.sampled_from(CUTS) | st.floats(-3, 3)
condition = (
    st.builds(Condition, st.sampled_from(["x", "y"]), st.sampled_from(["<=", ">"]), thresholds)
    | st.builds(Condition, st.just("c"), st.just("="), st.sampled_from(["p", "q", "r"]))
    | st.builds(Condition, st.just("c"), st.just("in"),
                st.lists(st.sampled_from(["p", "q", "r"]), unique=True, max_size=3).map(tuple))
    | st.builds(Condition, st.just("d"), st.sampled_from(["=", "in"]), st.just("u"))
    .map(lambda c: Condition(c.attribute, c.op, ("u",) if c.op == "in" else "u"))
)
rule = st.builds(lambda conds, cls, err: Rule(0, tuple(conds), cls, 1, 0, err, 1.0),
                 st.lists(condition, max_size=4), st.sampled_from(["A", "B"]),
                 st.sampled_from([0.1, 0.5, 0.7, 0.71, 0.9]))


@st.composite
def rulesets_and_data(draw):
    rules = draw(st.lists(rule, max_size=12))
    rules = tuple(Rule(i, r.conditions, r.prediction, 1, 0, r.error_rate, 1.0) for i, r in enumerate(rules, 1))
    rs = RuleSet(SCHEMA, rules, "A", (1, 1), (1, 1))
    n = draw(st.integers(0, 120))
    real = st.sampled_from(VALUES) | st.floats(allow_nan=True, allow_infinity=True)
    cols = [np.array(draw(st.lists(real, min_size=n, max_size=n)), dtype=np.float64),
            np.array(draw(st.lists(st.integers(UNSEEN_CODE, 2), min_size=n, max_size=n)), dtype=np.int32),
            np.array(draw(st.lists(real, min_size=n, max_size=n)), dtype=np.float64),
            np.array(draw(st.lists(st.integers(UNSEEN_CODE, 0), min_size=n, max_size=n)), dtype=np.int32),
            np.zeros(n)]
    return rs, Dataset(SCHEMA, cols, None)


@settings(max_examples=200, deadline=None)
@given(rulesets_and_data(), st.sampled_from([1, 7, 64, 100, 1 << 18]))
def test_random_rules_match_the_reference(case, block):
    rs, ds = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ruleset_module, "_BLOCK", block)
        got = rs.rule_index(ds)
    assert got.dtype == np.int64 and got.shape == (ds.n,)
    assert np.array_equal(got, reference_rule_index(rs, ds))


def test_unconditional_rule_takes_every_case_left():
    rules = (Rule(1, (Condition("x", ">", 0.0),), "B", 1, 0, 0.1, 1.0),
             Rule(2, (), "A", 1, 0, 0.9, 1.0),          # never fires
             Rule(3, (), "B", 1, 0, 0.2, 1.0),
             Rule(4, (Condition("x", "<=", 0.0),), "A", 1, 0, 0.1, 1.0))
    rs = RuleSet(SCHEMA, rules, "A", (1, 1), (1, 1))
    x = np.array([1.0, -1.0, np.nan, np.inf])
    ds = Dataset(SCHEMA, [x, np.zeros(4, np.int32), x, np.zeros(4, np.int32), x], None)
    assert rs.rule_index(ds).tolist() == [1, 3, 3, 1]


def test_tests_no_value_can_pass_never_fire():
    rules = (Rule(1, (Condition("x", ">", math.nan),), "B", 1, 0, 0.1, 1.0),
             Rule(2, (Condition("y", "<=", math.nan),), "B", 1, 0, 0.1, 1.0),
             Rule(3, (Condition("c", "in", ()),), "B", 1, 0, 0.1, 1.0),
             Rule(4, (Condition("x", ">", -math.inf), Condition("c", "in", ("p", "r"))), "B", 1, 0, 0.1, 1.0))
    rs = RuleSet(SCHEMA, rules, "A", (1, 1), (1, 1))
    x = np.array([1.0, -1.0, np.nan, np.inf, -np.inf, 0.0])
    c = np.array([0, 1, 2, UNKNOWN_CODE, UNSEEN_CODE, 2], dtype=np.int32)
    ds = Dataset(SCHEMA, [x, c, x, np.zeros(6, np.int32), x], None)
    assert rs.rule_index(ds).tolist() == [4, 0, 0, 0, 0, 4]
    assert np.array_equal(rs.rule_index(ds), reference_rule_index(rs, ds))


# ---- first_two: each case's first and second firing rules (what evaluate reads) ----------

def reference_first_two(rs: RuleSet, ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """Per case, the 0-based positions of the first two firing rules whose conditions all hold (-1: none)."""
    one = RuleSet(rs.schema, (), rs.default_class, rs.class_counts, rs.default_counts)
    firsts, seconds = [], []
    for i in range(ds.n):
        case = ds.subset(np.array([i]))
        hits = [k for k, rule in enumerate(rs.rules)
                if reference_rule_index(RuleSet(rs.schema, (rule,), one.default_class, one.class_counts,
                                                one.default_counts), case)[0] == 1]
        firsts.append(hits[0] if hits else -1)
        seconds.append(hits[1] if len(hits) > 1 else -1)
    return np.array(firsts, dtype=np.int64), np.array(seconds, dtype=np.int64)


@settings(max_examples=100, deadline=None)
@given(rulesets_and_data(), st.sampled_from([1, 7, 64, 1 << 18]))
def test_random_rules_first_two_match_the_reference(case, block):
    rs, ds = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ruleset_module, "_BLOCK", block)
        first, second = rs.first_two(ds.columns, ds.n)
    want_first, want_second = reference_first_two(rs, ds)
    assert np.array_equal(first, want_first) and np.array_equal(second, want_second)


def test_first_two_reaches_past_an_unconditional_rule_but_not_past_two():
    rules = (Rule(1, (Condition("x", ">", 0.0),), "B", 1, 0, 0.1, 1.0),
             Rule(2, (), "A", 1, 0, 0.9, 1.0),          # never fires
             Rule(3, (), "B", 1, 0, 0.2, 1.0),
             Rule(4, (Condition("x", "<=", 0.0),), "A", 1, 0, 0.1, 1.0),
             Rule(5, (), "A", 1, 0, 0.3, 1.0),
             Rule(6, (Condition("x", ">", 5.0),), "A", 1, 0, 0.1, 1.0))
    rs = RuleSet(SCHEMA, rules, "A", (1, 1), (1, 1))
    x = np.array([1.0, -1.0, np.nan, np.inf])
    ds = Dataset(SCHEMA, [x, np.zeros(4, np.int32), x, np.zeros(4, np.int32), x], None)
    first, second = rs.first_two(ds.columns, ds.n)
    # the case x = -1 is first matched by rule 3 (no conditions), then by rule 4; NaN by rules 3 and 5
    assert first.tolist() == [0, 2, 2, 0]
    assert second.tolist() == [2, 3, 4, 2]


# ---- issue 52: the compiled match (model/_match.c) and a boosted model's shared masks ------------

@settings(max_examples=150, deadline=None)
@given(rulesets_and_data(), st.sampled_from([1, 64, 1 << 18]))
def test_random_rules_match_the_reference_without_the_compiled_match(case, block):
    """numpy's loop over the rules (the fallback when model/_match.c is not built) and the
    compiled one give the reference's positions."""
    rs, ds = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ruleset_module, "_BLOCK", block)
        compiled = rs.rule_index(ds)
        mp.setattr(ruleset_module, "_match", None)
        got = rs.rule_index(ds)
    assert np.array_equal(got, reference_rule_index(rs, ds)) and np.array_equal(compiled, got)


@settings(max_examples=150, deadline=None)
@given(st.lists(rulesets_and_data(), min_size=1, max_size=4), st.sampled_from([1, 64, 1 << 18]))
def test_trials_matched_on_shared_masks_match_each_alone(cases, block):
    """A boosted model's trials matched on one table of their tests (ruleset.trial_plans, one
    mask evaluation per block for all) give each trial's own positions (base: each trial
    evaluated its tests and matched alone)."""
    rulesets = [rs for rs, _ in cases]
    ds = cases[0][1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ruleset_module, "_BLOCK", block)
        got = ruleset_module.match_positions(ruleset_module.trial_plans(rulesets), ds)
    assert got.shape == (ds.n, len(rulesets))
    for t, rs in enumerate(rulesets):
        assert np.array_equal(got[:, t], reference_rule_index(rs, ds))


# ---- issue 52 (h52b): the test masks by compiled placement ---------------------------------------

either_unknown = st.builds(Condition, st.sampled_from(["x", "y"]), st.sampled_from(["<=", ">"]),
                           st.sampled_from(CUTS[:-1]) | st.floats(-3, 3), st.just(True))   # a number
rule_or_unknown = st.builds(lambda conds, cls: Rule(0, tuple(conds), cls, 1, 0, 0.1, 1.0),
                            st.lists(condition | either_unknown, max_size=4), st.sampled_from(["A", "B"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(rule_or_unknown, max_size=8), min_size=1, max_size=3), rulesets_and_data())
def test_masks_are_made_by_compiled_placement_bit_for_bit_as_numpy(trials, case):
    """The test masks of a block (_MatchPlan.masks) come from model/_match.c's placement of each
    case among the sorted thresholds (numpy's compare-and-pack is not called; here from one
    threshold on, by default from _PLACED_FROM), and equal numpy's bit for bit: every `<=`,
    `>`, `or unknown`, `=` and `in` row, past the last case too (base: numpy made them)."""
    _, ds = case
    plans = ruleset_module._MatchPlan.build_all([tuple(Rule(i, r.conditions, r.prediction, 1, 0, 0.1, 1.0)
                                                       for i, r in enumerate(rules, 1)) for rules in trials], SCHEMA)

    def no_packbits(*args, **kwargs):
        raise AssertionError("numpy's compare-and-pack made the masks")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ruleset_module, "_PLACED_FROM", 1)
        mp.setattr(ruleset_module.np, "packbits", no_packbits)
        compiled = plans[0].masks(ds.columns, ds.n) if ds.n else None
    if compiled is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ruleset_module, "_match", None)
        expected = plans[0].masks(ds.columns, ds.n)
    assert compiled.dtype == np.uint64 and np.array_equal(compiled, expected)


@pytest.mark.parametrize("placed_from", [1, None])
@pytest.mark.parametrize("spread", ["even", "crowded", "wide", "steps"])
def test_many_thresholds_are_placed_as_numpy_compares(spread, placed_from, monkeypatch):
    """A column of 8 or more thresholds places each case by buckets of the thresholds' range
    (model/_match.c below), or by a search where they crowd or are fewer: either way each
    `<=`, `>` and `or unknown` row is numpy's, for cases on, next to, between and beyond the
    thresholds. By default (placed_from None) a column of 32 or more is placed, fewer compared."""
    if placed_from is not None:
        monkeypatch.setattr(ruleset_module, "_PLACED_FROM", placed_from)
    rng = np.random.default_rng(len(spread))
    for m in (8, 9, 33, 200):
        ts = {"even": rng.uniform(-5, 5, m), "crowded": np.r_[rng.uniform(0, 1e-9, m - 2), -1e6, 1e6],
              "wide": np.r_[rng.uniform(-1, 1, m - 2), -1e300, 1e300],
              "steps": np.repeat(rng.uniform(-3, 3, -(-m // 3)), 3)[:m] + np.tile([0, 1e-12, 2e-12], m)[:m]}[spread]
        ts = np.unique(ts)
        rules = tuple(Rule(k, (Condition("x", op, float(t), or_unknown=bool(k % 3 == 0)),), "B", 1, 0, 0.1, 1.0)
                      for k, (op, t) in enumerate(((op, t) for t in ts for op in ("<=", ">")), 1))
        near = np.r_[ts, np.nextafter(ts, np.inf), np.nextafter(ts, -np.inf)]
        x = np.r_[near, rng.uniform(ts[0] - 1, ts[-1] + 1, 300), rng.choice(near, 300),
                  [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e308, -1e308]]
        rng.shuffle(x)
        cols = [x, np.zeros(len(x), np.int32), x[::-1].copy(), np.zeros(len(x), np.int32), np.zeros(len(x))]
        plan = ruleset_module._MatchPlan.build(rules, SCHEMA)
        calls, pack = [], np.packbits
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ruleset_module.np, "packbits", lambda *a, **k: calls.append(1) or pack(*a, **k))
            compiled = plan.masks(cols, len(x))
        assert bool(calls) == (placed_from is None and len(ts) < 32), (spread, m)   # compared, not placed
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ruleset_module, "_match", None)
            expected = plan.masks(cols, len(x))
        assert np.array_equal(compiled, expected), (spread, m)
