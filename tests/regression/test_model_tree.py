"""The model tree's smoothing (tree/model_tree.py step 4): M5's n / (n + k) blend with the
constant chosen on the shared folds, and Cubist's residual-weighted blend."""
import numpy as np
import pytest

import c45rules.tree.model_tree as mt
from c45rules.tree.model_tree import Columns, Fitted, MNode, smoothed_leaf_models, smoothing_weight


def two_leaf_tree() -> tuple[MNode, Columns, np.ndarray]:
    """One continuous column x; the root's model y = 10, a leaf of 6 cases with y = 2 x."""
    x = np.arange(12, dtype=float).reshape(-1, 1)
    y = np.where(x[:, 0] < 6, 2 * x[:, 0], 10.0)
    cols = Columns(x, [0], np.zeros((12, 0), dtype=np.int32), [], [], x)
    left = MNode(np.arange(6), model=Fitted(0.0, np.array([0]), np.array([2.0]), 0.0, 0.0))
    right = MNode(np.arange(6, 12), model=Fitted(10.0, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0))
    root = MNode(np.arange(12), attribute=0, cut=5.0, children=[left, right],
                 model=Fitted(10.0, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0))
    return root, cols, y


def test_m5_smoothing_uses_the_constant_measured_on_the_folds():
    # k = 3 (not Quinlan's 15): on the shared folds it lowered the mean RMSE ratio to Cubist
    assert mt.SMOOTHING_K == 3.0
    root, cols, y = two_leaf_tree()
    b0, c = smoothed_leaf_models(root, 1, cols, y)[id(root.children[0])]
    # p' = (n p + k q) / (n + k) with n = 6 cases, k = 3: the slope 2 becomes 2 * 6 / 9
    assert c[0] == pytest.approx(2 * 6 / 9)
    assert b0 == pytest.approx(10 * 3 / 9)


def test_cubist_smoothing_weighs_by_the_residuals(monkeypatch):
    # the leaf's model fits its cases exactly, so its blend with the root keeps the leaf's alone
    monkeypatch.setattr(mt, "SMOOTHING", "cubist")
    root, cols, y = two_leaf_tree()
    b0, c = smoothed_leaf_models(root, 1, cols, y)[id(root.children[0])]
    assert (b0, c[0]) == pytest.approx((0.0, 2.0))


def test_smoothing_weight_minimises_the_blend_variance():
    rng = np.random.default_rng(0)
    e = rng.normal(size=4000)
    f = rng.normal(size=4000)
    # two independent residuals of equal spread: half each
    assert smoothing_weight(e, f) == pytest.approx(0.5, abs=0.03)
    # a child twice as noisy: a = var_p / (var_p + var_c) = 1 / 5
    assert smoothing_weight(2 * e, f) == pytest.approx(0.2, abs=0.02)
    # the same residuals: nothing to choose, the child's model stays
    assert smoothing_weight(e, e) == 1.0
    # the weight stays a share
    assert 0.0 <= smoothing_weight(e, e + 0.01 * f) <= 1.0


def test_max_rules_drops_the_least_useful_rule_not_the_smallest():
    from c45rules.rules.regression import DraftRule, select_rules
    # 100 cases: y = 0 (60 cases), 1 (30), 10 (10); the default model says 5
    y = np.r_[np.zeros(60), np.ones(30), np.full(10, 10.0)]
    x = np.zeros((100, 1))
    cols = Columns(x, [0], np.zeros((100, 0), dtype=np.int32), [], [], x)

    def rule(value: float, covered: np.ndarray) -> DraftRule:
        return DraftRule([], Fitted(value, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0), covered, 0.0)

    every = rule(0.0, np.ones(100, dtype=bool))
    few = rule(10.0, np.arange(100) >= 90)                  # 10 cases, halves a large error
    many = rule(1.0, (np.arange(100) >= 60) & (np.arange(100) < 90))   # 30 cases, a small one
    drafts = [every, few, many]
    wide = (lambda low, high: (-1e9, 1e9))
    default = np.full(100, 5.0)
    # all three pay for themselves
    assert select_rules(drafts, cols, y, wide, default) == drafts
    # with room for two, the rule whose loss costs least goes, not the one covering fewest cases
    assert select_rules(drafts, cols, y, wide, default, max_rules=2) == [every, few]


@pytest.mark.parametrize("compiled", [True, False])
def test_rule_selection_charges_each_rule_its_own_parameters(monkeypatch, compiled):
    import c45rules.rules.regression as steps
    from c45rules.rules.regression import DraftRule, select_rules
    if not compiled:
        monkeypatch.setattr(steps, "_native", None)
    # 100 cases: y = 0 (90 cases), 1 (10); one rule says 0 everywhere, a second one says 0.6
    # on the ten cases of 1 with a model of 5 parameters (the default model says 0.5): averaged with the first it cuts their
    # error from 1 to 0.7
    y = np.r_[np.zeros(90), np.ones(10)]
    x = np.zeros((100, 4))
    cols = Columns(x, [0, 1, 2, 3], np.zeros((100, 0), dtype=np.int32), [], [], x)
    every = DraftRule([], Fitted(0.0, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0),
                      np.ones(100, dtype=bool), 0.0)
    small = DraftRule([], Fitted(0.6, np.arange(4), np.zeros(4), 0.0, 0.0), np.arange(100) >= 90, 0.0)
    wide = (lambda low, high: (-1e9, 1e9))
    default = np.full(100, 0.5)
    # over all 100 cases its 5 parameters cost little ((100 + 6) / (100 - 6)), and it stayed;
    # on its own 10 cases they treble its cases' error ((10 + 5) / (10 - 5)): it goes
    assert select_rules([every, small], cols, y, wide, default) == [every]
    # the same rule with one parameter (11 / 9) pays for itself
    cheap = DraftRule([], Fitted(0.6, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0), small.covered, 0.0)
    assert select_rules([every, cheap], cols, y, wide, default) == [every, cheap]


def test_default_model_is_the_training_mean():
    # no rule applies: Cubist gives the training mean (its model file's `globalmean`), not the
    # root's linear model, which extrapolates furthest on the unusual cases no rule covers
    from c45rules.learn.regression import regression_frame, fit_regression
    import pandas as pd
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 300)
    y = 3 * x + rng.normal(0, 0.5, 300)
    ds, t = regression_frame(pd.DataFrame({"x": x, "y": y}), "y")
    model = fit_regression(ds, t, committees=2)
    first, second = model.committees
    assert first.default.coefficients == ()
    assert first.default.intercept == pytest.approx(y.mean())
    # the next member's default: the mean of its adjusted targets 2 y - p
    assert second.default.coefficients == ()
    one = type(model)(model.schema, (first,), model.target_low, model.target_high, model.extrapolation, model.means)
    assert second.default.intercept == pytest.approx((2 * y - one.committee_values(ds)[0]).mean())


def test_large_sets_grow_leaves_of_at_least_one_case_in_leaf_share(monkeypatch):
    # a leaf keeps at least n / LEAF_SHARE_CASES cases (diamonds: 19 of 48,546, as Cubist's
    # smallest rules cover 20), and never fewer than min_cases
    import c45rules.learn.regression as learn
    import pandas as pd
    monkeypatch.setattr(mt, "LEAF_SHARE_CASES", 50, raising=False)
    grown = []

    def grow(cols, y, rows, min_cases):
        root = mt.grow_model_tree(cols, y, rows, min_cases)
        grown.append((min_cases, root))
        return root

    monkeypatch.setattr(learn, "grow_model_tree", grow)
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 100, 1000)
    y = np.sin(x) * 10 + rng.normal(0, 0.1, 1000)      # many small steps: leaves of 5 without the floor
    ds, t = learn.regression_frame(pd.DataFrame({"x": x, "y": y}), "y")
    learn.fit_regression(ds, t)
    (floor, root), = grown
    assert floor == 1000 // 50
    leaves, stack = [], [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.is_leaf:
            leaves.append(node.n)
    assert len(leaves) > 10 and min(leaves) >= 20
    assert mt.leaf_minimum(1000, 30) == 30


def _leaves(root: MNode) -> int:
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        count += node.is_leaf
    return count


def test_large_sets_charge_each_leaf_its_models_parameters_in_pruning(monkeypatch):
    # where growing raised the leaf minimum (large sets: diamonds), pruning weighs a subtree
    # with its leaves' models' parameters, as M5 does, not one per leaf: fewer, larger rules
    # (diamonds folds 0-2: 1.023 -> 0.997 of Cubist's RMSE); small sets keep one per leaf
    import c45rules.learn.regression as learn
    import pandas as pd
    assert mt.counts_leaf_parameters(48_546, 5) and not mt.counts_leaf_parameters(12_000, 5)
    rng = np.random.default_rng(3)
    n = 1000
    x = rng.uniform(0, 1, (n, 6))
    y = x @ np.array([3.0, -2.0, 1.0, 0.5, 2.0, -1.0]) + np.sin(8 * x[:, 0]) + rng.normal(0, 2.0, n)
    ds, t = learn.regression_frame(pd.DataFrame(x, columns=list("abcdef")).assign(y=y), "y")
    cols, _ = learn._columns(ds)
    pruned = {}
    for charge in (False, True):
        root = mt.grow_model_tree(cols, t, np.arange(n), 20)
        grown = _leaves(root)
        mt.fit_and_prune(root, cols, t, charge)
        pruned[charge] = _leaves(root)
    assert grown >= pruned[False] > 2 * pruned[True] >= 2
    # the learner charges the parameters exactly where the leaf minimum was raised
    flags = []
    real = learn.fit_and_prune

    def spy(root, cols, y, leaf_parameters=False):
        flags.append(leaf_parameters)
        return real(root, cols, y, leaf_parameters)

    monkeypatch.setattr(learn, "fit_and_prune", spy)
    learn.fit_regression(ds, t)
    monkeypatch.setattr(mt, "LEAF_SHARE_CASES", 50)
    learn.fit_regression(ds, t)
    learn.fit_regression(ds, t, min_cases=20)
    assert flags == [False, True, False]


def barely_useful_condition() -> tuple[Columns, np.ndarray, list]:
    """40 cases, x = 0..39; the test x <= 19 keeps 20 cases of absolute error 1 (under a model
    saying 0) and leaves out 20 of error 1.15: it lowers the error by 7% over 40 cases."""
    x = np.arange(40, dtype=float).reshape(-1, 1)
    sign = np.where(np.arange(40) % 2, 1.0, -1.0)
    y = np.where(x[:, 0] <= 19, 1.0, 1.15) * sign
    cols = Columns(x, [0], np.zeros((40, 0), dtype=np.int32), [], [], x)
    return cols, y, [(0, "<=", 19.0)]


@pytest.mark.parametrize("compiled", [True, False])
def test_condition_dropping_counts_each_condition_as_a_parameter(monkeypatch, compiled):
    import c45rules.rules.regression as steps
    if not compiled:
        monkeypatch.setattr(steps, "_native", None)
    cols, y, tests = barely_useful_condition()
    zero = Fitted(0.0, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0)
    # the model's one parameter alone: kept (1 * 21 / 19 = 1.105 against 1.075 * 41 / 39 =
    # 1.130); with the condition counted too (1 * 22 / 18 = 1.222) it does not pay for itself
    rule = steps.simplify(list(tests), zero, cols, y)
    assert rule.tests == []
    assert rule.covered.tolist() == list(range(40))
    # a condition that halves the error stays, and the estimate charges it its parameter
    y2 = np.where(cols.cont[:, 0] <= 19, 1.0, 3.0) * np.sign(y)
    kept = steps.simplify(list(tests), zero, cols, y2)
    assert kept.tests == tests
    assert kept.estimate == pytest.approx(min(steps.estimated_error(1.0, 20, 2), kept.model.estimate))
    assert kept.estimate >= steps.estimated_error(kept.model.error, 20, kept.model.columns.size + 2) - 1e-12


@pytest.mark.parametrize("compiled", [True, False])
def test_rule_selection_counts_a_rules_conditions_as_parameters(monkeypatch, compiled):
    import c45rules.rules.regression as steps
    from c45rules.rules.regression import DraftRule, select_rules
    if not compiled:
        monkeypatch.setattr(steps, "_native", None)
    # two rules saying the same on the same 50 cases, one with three conditions, one with none:
    # dropping either leaves the same values, so the one whose conditions cost more goes
    rng = np.random.default_rng(1)
    y = rng.normal(size=50)
    x = np.zeros((50, 1))
    cols = Columns(x, [0], np.zeros((50, 0), dtype=np.int32), [], [], x)
    model = Fitted(0.0, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0)
    plain = DraftRule([], model, np.arange(50), 0.0)
    tested = DraftRule([(0, "<=", 1.0), (0, ">", -1.0), (0, "<=", 2.0)], model, np.arange(50), 0.0)
    wide = (lambda low, high: (-1e9, 1e9))
    assert select_rules([plain, tested], cols, y, wide, np.zeros(50)) == [plain]


@pytest.mark.parametrize("compiled", [True, False])
def test_rule_selection_keeps_a_rule_that_alone_covers_a_case(monkeypatch, compiled):
    import c45rules.rules.regression as steps
    from c45rules.rules.regression import DraftRule, select_rules
    if not compiled:
        monkeypatch.setattr(steps, "_native", None)
    # 100 cases: y = 0 (90 cases), 1 (10); one rule says 0 on the 90, a second one 0.6 on the
    # ten with 5 parameters, and the default says 0.5: by the estimate alone the second goes
    # (its ten cases' error 0.4 times (10 + 5.5) / (10 - 5.5) is above the default's 0.5)
    y = np.r_[np.zeros(90), np.ones(10)]
    x = np.r_[np.zeros(90), np.ones(10)].reshape(-1, 1).repeat(4, axis=1)
    cols = Columns(x, [0, 1, 2, 3], np.zeros((100, 0), dtype=np.int32), [], [], x)
    none = np.array([], dtype=np.intp)
    zeros = DraftRule([(0, "<=", 0.5)], Fitted(0.0, none, np.zeros(0), 0.0, 0.0), np.arange(100) < 90, 0.0)
    ones = DraftRule([(0, ">", 0.5)], Fitted(0.6, np.arange(4), np.zeros(4), 0.0, 0.0), np.arange(100) >= 90, 0.0)
    wide = (lambda low, high: (-1e9, 1e9))
    default = np.full(100, 0.5)
    monkeypatch.setattr(steps, "COVER_EVERY_CASE", False)
    assert select_rules([zeros, ones], cols, y, wide, default) == [zeros]
    # as in Cubist's models, every training case keeps a rule while the estimate decides
    monkeypatch.setattr(steps, "COVER_EVERY_CASE", True)
    assert select_rules([zeros, ones], cols, y, wide, default) == [zeros, ones]
    # past max_rules any rule may go, the least harmful first
    assert select_rules([zeros, ones], cols, y, wide, default, max_rules=1) == [zeros]
    # a rule without conditions is not kept for its cases: the default (the training mean)
    # takes them, not the root's linear model (learn/regression.py)
    bare = DraftRule([], ones.model, ones.covered, 0.0)
    assert select_rules([zeros, bare], cols, y, wide, default) == [zeros]
    # a rule whose cases another rule covers may still go (here `ones`, while `every` covers
    # its ten), and then `every`, a rule without conditions, though it alone covers them
    every = DraftRule([], zeros.model, np.arange(100), 0.0)
    assert select_rules([every, zeros, ones], cols, y, wide, default) == [zeros]


def test_a_rare_term_stays_only_if_it_pays_for_itself_on_its_cases(monkeypatch):
    # ames' Pool_Area: a coefficient fit on 2 pools among 644 houses fits their residuals; with
    # RARE_TERM_ONE_IN a term acting on fewer than one case in that many must lower those
    # cases' error by Quinlan's (m + 1) / (m - 1) (here 3) to stay
    rng = np.random.default_rng(0)
    x1 = rng.uniform(0, 10, 100)
    pool = np.zeros(100)
    pool[[10, 20]] = [500.0, 600.0]
    y = 3 * x1 + rng.normal(0, 1, 100)
    y[10] += 100
    y[20] += 40
    xf = np.column_stack([x1, pool])
    monkeypatch.setattr(mt, "RARE_TERM_ONE_IN", 0)
    assert mt.fit_linear(xf, y, np.array([0, 1])).columns.tolist() == [0, 1]
    monkeypatch.setattr(mt, "RARE_TERM_ONE_IN", 10)
    alone = mt.fit_linear(xf, y, np.array([0, 1]))
    assert alone.columns.tolist() == [0]
    # the rest are refit without it: the least squares of y on x1 alone
    assert alone.coefs[0] == pytest.approx(np.polyfit(x1, y, 1)[0], rel=1e-6)
    # a two-valued attribute on half the cases is no rare term: left to the elimination
    half = (np.arange(100) % 2).astype(float)
    y2 = 3 * x1 + 5 * half + rng.normal(0, 1, 100)
    assert mt.fit_linear(np.column_stack([x1, half]), y2, np.array([0, 1])).columns.tolist() == [0, 1]


def test_every_nodes_smoothed_model_for_the_rules_from_inner_nodes():
    # the root has no ancestor: its own model; a leaf's blend is unchanged by the option
    root, cols, y = two_leaf_tree()
    leaves_only = smoothed_leaf_models(root, 1, cols, y)
    every = smoothed_leaf_models(root, 1, cols, y, every_node=True)
    assert id(root) not in leaves_only
    assert every[id(root)][0] == 10.0 and every[id(root)][1].tolist() == [0.0]
    for leaf in root.children:
        assert every[id(leaf)][0] == leaves_only[id(leaf)][0]
        assert every[id(leaf)][1].tolist() == leaves_only[id(leaf)][1].tolist()


def test_inner_nodes_propose_rules():
    # a tree x <= 19 | x > 19 over a target that is one line everywhere: the root's rule (no
    # conditions) is among the candidates and fits every case, so the selection keeps it alone
    import c45rules.rules.regression as steps
    x = np.arange(40, dtype=float).reshape(-1, 1)
    y = 3.0 * x[:, 0] + np.where(np.arange(40) % 2, 0.5, -0.5)
    cols = Columns(x, [0], np.zeros((40, 0), dtype=np.int32), [], [], x)
    line = mt.fit_linear(x, y, np.array([0]))
    left = MNode(np.arange(20), model=mt.fit_linear(x[:20], y[:20], np.array([0])))
    right = MNode(np.arange(20, 40), model=mt.fit_linear(x[20:], y[20:], np.array([0])))
    root = MNode(np.arange(40), attribute=0, cut=19.0, children=[left, right], model=line)
    tests = steps.path_tests(root, cols, every_node=True)
    assert [(node is root, t) for node, t in tests][0] == (True, [])
    assert len(tests) == 3 and len(steps.path_tests(root, cols)) == 2
    wide = (lambda low, high: (-1e9, 1e9))
    default = np.full(40, y.mean())
    rules = steps.rules_from_tree(root, smoothed_leaf_models(root, 1, cols, y, True), cols, y, None, wide, default,
                                  every_node=True)
    assert [r.tests for r in rules] == [[]]


def test_values_on_the_column_major_copy_are_the_same_bits():
    # simplify reads a model's values on every case from Columns.xf_by_column (no gather of
    # the rows): its conditions must be dropped on the very numbers the gathered matrix gives
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1e3, (5000, 4))
    cols = Columns(x, [0, 1, 2, 3], np.zeros((5000, 0), dtype=np.int32), [], [], x)
    assert cols.xf_by_column.flags.f_contiguous and np.array_equal(cols.xf_by_column, x)
    for columns in ([0, 1, 2, 3], [0, 2, 3], [1], [3, 0]):
        for _ in range(20):
            m = Fitted(rng.normal(), np.array(columns), rng.normal(0, 10, len(columns)), 0.0, 0.0)
            assert m.values(cols.xf_by_column).tobytes() == m.values(x).tobytes()



def test_a_leafs_region_left_partly_uncovered_gets_a_rule_of_its_own():
    # diamonds' fold 3: the one rule holding a leaf's region went in the selection (other
    # rules covered its training cases) and a test stone there got the training mean. Leaves
    # x <= 49.5 and x > 49.5, training cases up to x = 59: `near` ([49.5 < x <= 60]) is kept,
    # `wide` ([x > 49.5], which holds the second leaf's region) was dropped, so x > 60 is
    # covered by no rule: a rule of the leaf's tests with `wide`'s model takes it
    from c45rules.rules.regression import DraftRule, gap_rules
    x = np.arange(60, dtype=float).reshape(-1, 1)
    cols = Columns(x, [0], np.zeros((60, 0), dtype=np.int32), [], [], x)
    none = np.array([], dtype=np.intp)

    def rule(tests: list, value: float, estimate: float) -> DraftRule:
        covered = np.flatnonzero(np.logical_and.reduce([np.ones(60, dtype=bool)] + [
            x[:, 0] <= v if op == "<=" else x[:, 0] > v for _, op, v in tests]))
        return DraftRule(tests, Fitted(value, none, np.zeros(0), 0.0, 0.0), covered, estimate)

    low = rule([(0, "<=", 49.5)], 0.0, 1.0)
    near = rule([(0, ">", 49.5), (0, "<=", 60.0)], 10.0, 1.0)
    wide = rule([(0, ">", 49.5)], 5.0, 2.0)
    leaves = [[(0, "<=", 49.5)], [(0, ">", 49.5)]]
    got = gap_rules(leaves, [low, near, wide], [low, near], cols)
    assert len(got) == 1 and got[0].tests == [(0, ">", 49.5)] and got[0].model is wide.model
    assert got[0].covered.tolist() == list(range(50, 60))
    # the kept rules' union covers the leaf's region (no single one holds it): no rule added
    above = rule([(0, ">", 55.0)], 10.0, 1.0)
    assert gap_rules(leaves, [low, near, wide, above], [low, near, above], cols) == []
    # a discrete attribute: the leaf allows values {0, 1}, the kept rule only 0
    disc = (np.arange(60) % 3).astype(np.int32).reshape(-1, 1)
    cols2 = Columns(x, [0], disc, [1], [3], x)
    one = DraftRule([(1, "in", frozenset({0}))], low.model, np.flatnonzero(disc[:, 0] == 0), 1.0)
    both = DraftRule([(1, "in", frozenset({0, 1}))], near.model, np.flatnonzero(disc[:, 0] < 2), 3.0)
    got = gap_rules([[(1, "in", frozenset({0, 1}))], [(1, "in", frozenset({2}))]], [one, both], [one, both], cols2)
    assert got == []
    got = gap_rules([[(1, "in", frozenset({0, 1}))], [(1, "in", frozenset({2}))]], [one, both], [one], cols2)
    # the first leaf gets `both`'s model; the second is held by no draft, so it gets none
    assert len(got) == 1 and got[0].model is near.model and got[0].covered.tolist() == np.flatnonzero(disc[:, 0] < 2).tolist()
