"""The quest grower (Loh & Shih 1997): its p-values, its split point, its pruning, its trees,
and the unbiased choice of the split attribute."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import reference as R
from c45rules import InputError
from c45rules.data import load_stem
from c45rules.export import dump_yaml
from c45rules.learn.pipeline import fit_dataset
from c45rules.tree.significance import chi2_sf, f_p, incomplete_beta
from c45rules.tree.growers import cart, get_grower, quest, tree_classes
from c45rules.tree.node import Node
from c45rules.tree.report import format_tree

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import quest_bias  # noqa: E402


def _stem(name):
    return load_stem(R.stem(name), test=True)


# ---- p-values -----------------------------------------------------------------------------
@pytest.mark.parametrize("statistic, df, p", [
    (3.841458820694124, 1, 0.05),          # the 95% points of chi-square tables
    (5.991464547107979, 2, 0.05),
    (42.55696780429269, 29, 0.05),
    (6.634896601021214, 1, 0.01),
    (2.0, 2, math.exp(-1.0)),              # df 2: exp(-x / 2) exactly
    (0.0, 3, 1.0),
])
def test_chi_square_p_values_are_the_tables(statistic, df, p):
    assert float(chi2_sf(statistic, df)) == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize("statistic, df1, df2, p", [
    (4.102821015130399, 2, 10, 0.05),      # the 95% points of F tables
    (3.8414588206941285, 1, 1e9, 0.05),    # F(1, inf) is chi-square(1)
    (161.44763879758606, 1, 1, 0.05),
    (2.4472077, 4, 50, 0.0583),            # rounded: a table's 4 digits
])
def test_f_p_values_are_the_tables(statistic, df1, df2, p):
    assert f_p(statistic, df1, df2) == pytest.approx(p, rel=1e-6 if p != 0.0583 else 1e-3)


def test_incomplete_functions_match_closed_forms_and_scipy():
    # I_x(1, 1) = x; I_x(a, 1) = x**a; Q(1, x) = exp(-x)
    assert incomplete_beta(1, 1, 0.3) == pytest.approx(0.3, rel=1e-13)
    assert incomplete_beta(2.5, 1, 0.7) == pytest.approx(0.7 ** 2.5, rel=1e-13)
    assert float(chi2_sf(6.0, 2)) == pytest.approx(math.exp(-3.0), rel=1e-13)
    stats = pytest.importorskip("scipy.stats")
    for x in (0.01, 0.9, 4.0, 30.0, 400.0):
        for df in (1, 3, 9, 29, 299):
            assert float(chi2_sf(x, df)) == pytest.approx(stats.chi2.sf(x, df), rel=1e-9, abs=1e-300)
    for f in (0.05, 1.0, 3.3, 50.0):
        for d1, d2 in ((1, 5), (2, 97), (6, 1000), (29, 3)):
            assert f_p(f, d1, d2) == pytest.approx(stats.f.sf(f, d1, d2), rel=1e-8)


def test_the_tests_of_the_attribute_choice():
    # two classes, means 1 and 3, within sum of squares 4 on 4 df: F = 8 / (4 / 4) = 8 on (1, 4)
    x = np.array([0.0, 1.0, 2.0, 2.0, 3.0, 4.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    assert quest.anova_f_p(x, y, 2) == pytest.approx(f_p(6.0, 1, 4), rel=1e-12)
    # Levene: |x - mean| is (1, 0, 1) in both classes: no difference at all
    assert quest.levene_p(x, y, 2) == 1.0
    # a 2 x 2 table with chi-square 200 * (60*60 - 40*40)**2 / (100**4) = 8 on 1 df
    table = np.array([[60.0, 40.0], [40.0, 60.0]])
    assert quest.chi_square_table_p(table) == pytest.approx(float(chi2_sf(8.0, 1)), rel=1e-12)
    # an empty row does not count: still 1 df
    assert quest.chi_square_table_p(np.vstack([table, [0.0, 0.0]])) == quest.chi_square_table_p(table)


# ---- the split point ----------------------------------------------------------------------
def test_qda_cut_is_where_the_weighted_densities_meet():
    a = np.array([-1.0, 0.0, 1.0])              # mean 0, variance 1
    b = np.array([1.0, 2.0, 3.0])               # mean 2, variance 1
    assert quest.qda_cut(a, b) == pytest.approx(1.0)
    # three times as many on the left, both variances 0.75: the cut moves right by
    # variance * log(3) / (difference of the means)
    c = math.sqrt(0.75)
    assert quest.qda_cut(np.tile(a, 3), np.array([2 - c, 2.0, 2 + c])) == pytest.approx(
        1.0 + 0.75 * math.log(3.0) / 2, rel=1e-9)
    # unequal variances: the root between the means, where both weighted densities are equal
    wide = np.array([-2.0, 2.0, 6.0])            # mean 2, variance 16
    cut = quest.qda_cut(a, wide)
    dens = [n * math.exp(-(cut - m) ** 2 / (2 * v)) / math.sqrt(v) for n, m, v in ((3, 0, 1), (3, 2, 16))]
    assert 0 < cut < 2 and dens[0] == pytest.approx(dens[1], rel=1e-9)
    # the root nearer A's mean: A narrow at 0, B wide at 0.5, roots either side of A
    narrow, spread = np.array([-0.1, 0.0, 0.1]), np.array([-9.5, 0.5, 10.5])
    cut = quest.qda_cut(narrow, spread)
    assert cut == min(_qda_roots(narrow, spread), key=abs) and cut < 0.5
    # a constant group: its value, on its side (branch 0 is value <= cut)
    assert quest.qda_cut(np.array([5.0, 5.0]), np.array([1.0, 2.0, 3.0])) == np.nextafter(5.0, -np.inf)
    assert quest.qda_cut(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5])) == 0.5
    # both constant: the midpoint
    assert quest.qda_cut(np.array([1.0, 1.0]), np.array([4.0])) == 2.5


def _qda_roots(xa, xb):
    ma, mb, va, vb = xa.mean(), xb.mean(), xa.var(ddof=1), xb.var(ddof=1)
    a, b = 1 / va - 1 / vb, -2 * (ma / va - mb / vb)
    c = ma * ma / va - mb * mb / vb + math.log(va / vb) - 2 * math.log(len(xa) / len(xb))
    d = math.sqrt(b * b - 4 * a * c)
    return ((-b - d) / (2 * a), (-b + d) / (2 * a))


def test_super_classes_by_two_means():
    sizes = np.array([5, 9, 9, 1])
    assert quest.super_classes(np.array([0.0, 0.1, 5.0, 5.2]), sizes).tolist() == [0, 0, 1, 1]
    assert quest.super_classes(np.array([9.0, 0.0, 4.0]), sizes[:3]).tolist() == [1, 0, 0]
    # every mean the same: the largest class (the first of equals) against the others
    assert quest.super_classes(np.array([2.0, 2.0, 2.0, 2.0]), sizes).tolist() == [1, 0, 1, 1]


def test_crimcoord_is_the_first_canonical_coordinate_of_the_dummy_variables():
    # Loh & Shih's CRIMCOORD: the eigenvector of T^-1 B of the dummy variables (one dropped,
    # so that T is invertible) scores the categories; ours is the same up to an affine map
    rng = np.random.default_rng(3)
    for _ in range(3):
        table = rng.integers(1, 30, (6, 3)).astype(float)
        counts = table.ravel().astype(int)
        category = np.repeat(np.repeat(np.arange(6), 3), counts)
        klass = np.repeat(np.tile(np.arange(3), 6), counts)
        dummies = np.eye(6)[category][:, :-1]
        mean = dummies.mean(axis=0)
        total = (dummies - mean).T @ (dummies - mean)
        between = sum((klass == j).sum() * np.outer(dummies[klass == j].mean(axis=0) - mean,
                                                    dummies[klass == j].mean(axis=0) - mean) for j in range(3))
        values, vectors = np.linalg.eig(np.linalg.solve(total, between))
        canonical = np.append(np.real(vectors[:, np.argmax(np.real(values))]), 0.0)
        assert abs(np.corrcoef(canonical, quest.crimcoord(table))[0, 1]) == pytest.approx(1.0, abs=1e-9)


def test_crimcoord_orders_categories_by_their_class_share():
    table = np.array([[10.0, 0.0], [5.0, 5.0], [1.0, 9.0], [8.0, 2.0]])
    score = quest.crimcoord(table)
    assert np.argsort(score).tolist() == [0, 3, 1, 2]


# ---- pruning (cart's functions) ---------------------------------------------------------------
def test_weakest_link_complexities_and_the_se_rule():
    def leaf(errors, n):
        return Node(0, n, errors, np.array([n - errors, errors]))
    # root risk 10; left split saves 4 errors with one split (g = 4), right saves 1 (g = 1):
    # cut back first the right (alpha 1), then the root's (R 10 -> 10 - 4 = 6 with 2 leaves...)
    left = Node(0, 20.0, 5.0, np.array([15.0, 5.0]), "threshold", 0, 1.0, branches=[leaf(0, 10), leaf(1, 10)])
    right = Node(0, 20.0, 3.0, np.array([17.0, 3.0]), "threshold", 0, 2.0, branches=[leaf(1, 10), leaf(1, 10)])
    root = Node(0, 40.0, 10.0, np.array([30.0, 10.0]), "threshold", 0, 0.0, branches=[left, right])
    cart.weakest_link_complexity(root)
    # right: (3 - 2) / 1 = 1; then root with leaves 1 + 2 (errors 1 + 3 = 4): (10 - 4) / 2 = 3,
    # left alone (5 - 1) / 1 = 4: the root goes first at 3, taking left with it
    assert (root.complexity, left.complexity, right.complexity) == (0.3, 0.3, 0.1)
    assert cart.prune_cp(root, 0.1).leaves() == 3 and cart.prune_cp(root, 0.3).leaves() == 1
    # the SE rule: 20 errors of 100 at best, SE 4: 23 is within one SE, 25 is not
    table = [0.3, 0.1, 0.0]
    assert cart.chosen_cp(table, np.array([30.0, 23.0, 20.0]), 100, 1.0) == 0.1
    assert cart.chosen_cp(table, np.array([30.0, 23.0, 20.0]), 100, 0.0) == 0.0
    assert cart.chosen_cp(table, np.array([30.0, 25.0, 20.0]), 100, 1.0) == 0.0


# ---- trees -----------------------------------------------------------------------------------
def test_iris_tree_is_the_qda_splits():
    train, _ = _stem("iris")
    tree = get_grower("quest")(train, {})
    text = format_tree(tree.pruned, train.schema)
    assert text.splitlines() == [
        "petallength <= 2.09702 : Iris-setosa (50.0)",
        "petallength > 2.09702 :",
        "|   petalwidth <= 1.64421 : Iris-versicolor (52.0/4.0)",
        "|   petalwidth > 1.64421 : Iris-virginica (48.0/2.0)"]
    assert (tree_classes(tree, train) != train.y).sum() == 6
    assert tree.options == {"grower": "quest", "quest_alpha": 0.05, "min_node": 10, "prune_folds": 10,
                            "se_rule": 1.0}


def test_pruning_by_cross_validation_and_the_se_rule():
    train, test = _stem("hypo")
    full = get_grower("quest")(train, {"prune_folds": 0})
    best = get_grower("quest")(train, {"se_rule": 0.0})
    one_se = get_grower("quest")(train, {})
    sizes = (full.pruned.leaves(), best.pruned.leaves(), one_se.pruned.leaves())
    assert sizes[0] >= sizes[1] >= sizes[2] and sizes[0] > sizes[2]
    # no seed draws the folds of seed 0, as the cart grower's cross-validation
    again = get_grower("quest")(train, {"seed": 0})
    assert format_tree(again.pruned, train.schema) == format_tree(one_se.pruned, train.schema)
    errors = [(tree_classes(t, test) != test.y).sum() for t in (full, best, one_se)]
    assert max(errors) < 0.02 * test.n      # hypo: 1,258 test cases, a few per cent unknown


def test_unknown_values_go_by_surrogates():
    train, test = _stem("hypo")
    tree = get_grower("quest")(train, {})
    tested = [n for n in tree.pruned.walk() if not n.is_leaf]
    assert any(n.surrogates for n in tested)
    # a case whose split value is unknown goes where the first surrogate sends it
    node = next(n for n in tested if n.surrogates)
    rows = np.arange(test.n)
    col = test.columns[node.attribute].copy()
    blank = test.subset(rows)
    blank.columns = list(test.columns)
    blank.columns[node.attribute] = np.full_like(col, np.nan if col.dtype.kind == "f" else -1)
    side = cart.case_branch(node, blank, rows, 2)
    s = node.surrogates[0]
    by_surrogate = cart._surrogate_branch(s, test.columns[s.attribute])
    known = by_surrogate >= 0
    assert known.any() and (side[known] == by_surrogate[known]).all()


def test_models_are_deterministic_and_record_the_options():
    train, _ = _stem("crx")
    a, _, _ = fit_dataset(train, grower="quest", min_node=20, seed=3)
    b, _, _ = fit_dataset(train, grower="quest", min_node=20, seed=3)
    assert dump_yaml(a) == dump_yaml(b)
    options = dict(a.options)
    assert (options["grower"], options["min_node"], options["seed"], options["se_rule"]) == ("quest", 20, 3, 1.0)
    assert "cp" not in options and "min_objs" not in options


def test_bad_options_are_refused():
    train, _ = _stem("golf")
    for bad, message in (({"quest_alpha": 1.5}, "quest_alpha must be a number in \\(0, 1\\)"),
                         ({"min_node": 1}, "min_node must be a whole number >= 2"),
                         ({"prune_folds": 1}, "prune_folds must be 0 \\(no pruning\\) or at least 2"),
                         ({"se_rule": -1}, "se_rule must be a number >= 0")):
        with pytest.raises(InputError, match=message):
            fit_dataset(train, grower="quest", **bad)
    with pytest.raises(InputError, match=r"option\(s\) min_node belong to another grower"):
        fit_dataset(train, grower="cart", min_node=5)


# ---- the unbiased choice (FIDELITY.md, "QUEST: unbiased choice of split attribute") -----------
def test_quest_chooses_among_uninformative_attributes_without_bias():
    # 200 replications: an unbiased choice leaves each share within the binomial 99.9% band of
    # 1/5 ([0.107, 0.293]) with probability 0.995 over the five (Bonferroni)
    n = 200
    low, high = quest_bias.band(n)
    got = quest_bias.root_frequencies("quest", n)
    assert ((got >= low) & (got <= high)).all(), got
    # C4.5's gain ratio and CART's Gini choose the 30-valued attribute nearly every time, and
    # the continuous ones and the 2-valued one almost never
    for grower in ("c45", "cart"):
        f = quest_bias.root_frequencies(grower, n)
        thirty = quest_bias.ATTRIBUTES.index("thirty")
        assert f[thirty] > high and f[thirty] > 0.9, (grower, f)
        assert (f[:3] < low).all(), (grower, f)


def test_the_bench_scripts_run_and_write_their_sections(tmp_path):
    import subprocess
    bench = Path(__file__).resolve().parents[2] / "bench"
    md = tmp_path / "F.md"
    md.write_text("# F\n")
    for args in (["quest_bias.py", "--replications", "20"], ["quest_cv.py", "golf", "iris", "-k", "2"]):
        out = subprocess.run([sys.executable, str(bench / args[0]), *args[1:], "--markdown", str(md)],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
    text = md.read_text()
    assert "<!-- section quest-bias -->\n20 replications of 200 cases, seed 0" in text
    assert "| quest | " in text and "| c45 | " in text and "| cart | " in text
    rows = [line for line in text.splitlines() if line.startswith(("| golf |", "| iris |"))]
    assert [r.split("|")[1].strip() for r in rows] == ["golf", "iris"]
