"""Misclassification costs (issue 34, point 4): the .costs reader, the class of least expected
cost, all-1 costs giving today's model exactly, and a dearer error made rarer."""
import numpy as np
import pytest

import reference as R
from c45rules import C45Rules, InputError, ModelError
from c45rules.data.costs import cheapest_class, cost_matrix, cost_option, read_costs, total_cost
from c45rules.data.names import load_stem
from c45rules.export.yaml import dump_yaml, load_yaml
from c45rules.govern.rescore import rescore
from c45rules.learn.pipeline import fit, fit_dataset
from c45rules.rules.evaluate import evaluate, evaluation_summary
from c45rules.rules.generalize import CandidateRule
from c45rules.rules.order import default_class, order_rules, sift_rules
from c45rules.rules.report import format_evaluation


def stem(name):
    return R.DATA / name / name


def all_ones(tmp_path, classes):
    path = tmp_path / "ones.costs"
    path.write_text("| every error costs 1\n"
                    + "".join(f"{a}, {b}: 1\n" for a in classes for b in classes if a != b))
    return path


# ---- all-1 costs are no costs: the same model, byte for byte -----------------------------------

@pytest.mark.parametrize("name", ["crx", "credit-g", "breast-cancer", "diabetes", "glass"])
def test_all_ones_file_gives_todays_model(tmp_path, name):
    train, test = load_stem(stem(name), test=True)
    base = fit_dataset(train)[0]
    ones = fit_dataset(train, costs=all_ones(tmp_path, train.schema.classes))[0]
    assert dump_yaml(ones) == dump_yaml(base)
    assert "costs" not in dump_yaml(ones)
    for data in (train, test):
        if data is not None:
            assert (ones.predict(data) == base.predict(data)).all()
            assert evaluate(ones, data).cost is None


def test_zero_cost_of_a_correct_prediction_is_no_cost():
    assert cost_option({("good", "good"): 0, ("good", "bad"): 1.0, ("bad", "good"): 1}) is None
    assert cost_option({("bad", "good"): 2, ("good", "bad"): 5}) == (("bad", "good", 2.0), ("good", "bad", 5.0))


# ---- raising one error's cost makes that error rarer ---------------------------------------------

@pytest.mark.parametrize("name,cheap,dear,expected", [
    # (cost, rules, training errors, training errors predicting `cheap` for a `dear` case, held-out same)
    ("credit-g", "good", "bad", [(1, 15, 139, 97, 83, 57), (2, 14, 156, 49, 90, 38), (5, 12, 222, 23, 110, 20)]),
    ("diabetes", "tested_negative", "tested_positive",
     [(1, 6, 113, 81, 51, 31), (2, 6, 124, 31, 56, 14), (5, 5, 169, 12, 94, 5)]),
])
def test_dearer_error_is_made_less_often(name, cheap, dear, expected):
    data = load_stem(stem(name))[0]
    cut = int(0.7 * data.n)      # the first 70% to learn from, the rest held out
    train, held = data.subset(np.arange(cut)), data.subset(np.arange(cut, data.n))
    classes = data.schema.classes
    t, p = classes.index(dear), classes.index(cheap)
    got = []
    for cost, *_ in expected:
        rs = fit_dataset(train, costs={(cheap, dear): cost})[0]
        ev_train, ev_held = evaluate(rs, train), evaluate(rs, held)
        got.append((cost, len(rs.rules), ev_train.errors, int(ev_train.confusion[t, p]), ev_held.errors,
                    int(ev_held.confusion[t, p])))
        if cost != 1:
            matrix = cost_matrix(((cheap, dear, float(cost)),), classes)
            assert ev_held.cost == total_cost(ev_held.confusion, matrix)
            assert ev_held.cost == ev_held.errors + (cost - 1) * ev_held.confusion[t, p]
    assert got == expected


def test_every_leaf_and_the_default_minimise_the_expected_cost():
    train = load_stem(stem("credit-g"))[0]
    rs, tree, _ = fit_dataset(train, costs={("good", "bad"): 5})
    matrix = cost_matrix((("good", "bad", 5.0),), train.schema.classes)
    for root in (tree.pruned, tree.unpruned):
        leaves = [n for n in root.walk() if n.is_leaf and n.items > 0]
        assert [n.klass for n in leaves] == [int(np.argmin(matrix @ n.class_dist)) for n in leaves]
    base = fit_dataset(train)[0]
    # the cases no rule covers: 101 good and 79 bad, so predicting good costs 79 * 5 = 395, bad 101
    assert (rs.default_class, rs.default_counts) == ("bad", (101, 79))
    assert base.default_class == "good"
    # fewer rules conclude bad, but the default does
    assert [(len(m.rules), sum(r.prediction == "bad" for r in m.rules)) for m in (base, rs)] == [(19, 8), (20, 7)]


# ---- the class of least expected cost on hand-made distributions ----------------------------------

def test_cheapest_class_by_hand():
    classes = ("good", "bad")
    m = cost_matrix((("good", "bad", 5.0),), classes)
    # predicting good costs 30 * 5 = 150, predicting bad 70 * 1 = 70
    assert cheapest_class(np.array([70.0, 30.0]), m) == 1
    # 90 good, 10 bad: good costs 50, bad 90
    assert cheapest_class(np.array([90.0, 10.0]), m) == 0
    # a tie (good 5 * 10 = 50 = bad 50 * 1) goes to the lower class, or stays with the node's own
    assert cheapest_class(np.array([50.0, 10.0]), m) == 0
    assert cheapest_class(np.array([50.0, 10.0]), m, 1) == 1
    rows = np.array([[70.0, 30.0], [90.0, 10.0], [50.0, 10.0]], dtype=np.float32)
    assert cheapest_class(rows, m).tolist() == [1, 0, 0]
    assert cheapest_class(rows, m, np.array([0, 1, 1])).tolist() == [1, 0, 1]
    # no costs: the most frequent class, ties to the lowest or kept
    assert cheapest_class(np.array([3.0, 3.0, 1.0]), None) == 0
    assert cheapest_class(np.array([3.0, 3.0, 1.0]), None, 1) == 1
    # three classes: a = 10, b = 6, c = 4 cases; predicting a costs 6*1 + 4*9 = 42, b 10 + 4 = 14,
    # c 10*2 + 6 = 26
    m3 = cost_matrix((("a", "c", 9.0), ("c", "a", 2.0)), ("a", "b", "c"))
    assert (m3 @ np.array([10.0, 6.0, 4.0])).tolist() == [42.0, 14.0, 26.0]
    assert cheapest_class(np.array([10.0, 6.0, 4.0]), m3) == 1


def test_default_class_by_expected_cost():
    y = np.array([0] * 6 + [1] * 4 + [2] * 3)
    # nothing covered: most cases are class 0, but missing a class-2 case costs 4
    m = cost_matrix((("a", "c", 4.0), ("b", "c", 4.0)), ("a", "b", "c"))
    assert default_class([], y, 3) == 0
    # a: 4 + 3*4 = 16; b: 6 + 12 = 18; c: 6 + 4 = 10
    assert default_class([], y, 3, costs=m) == 2
    # a tie between a (4 + 3*2 = 10) and c (6 + 4 = 10; b: 6 + 3*2 = 12) goes to the class with
    # more cases overall
    m = cost_matrix((("a", "c", 2.0), ("b", "c", 2.0)), ("a", "b", "c"))
    assert default_class([], y, 3, costs=m) == 0


def test_sifting_by_cost():
    # rule 1 says class 1 (bad) for cases 0-9: 4 are bad, 6 good; the default is good.
    # By errors it harms 6 cases and helps 4: dropped. At cost 5 for calling a bad case good
    # its decisions cost 6, the default's 4 * 5 = 20: kept.
    y = np.array([1] * 4 + [0] * 6 + [0] * 10)
    rule = CandidateRule(1, (), 1, 0.5, 10, 6, np.arange(10))
    assert sift_rules([rule], y, 0)[1] == [1]
    m = cost_matrix((("good", "bad", 5.0),), ("good", "bad"))
    kept, dropped, _ = sift_rules([rule], y, 0, costs=m)
    assert ([r.number for r in kept], dropped) == ([1], [])
    # at cost 1.4 the default costs 5.6 < 6: dropped again
    m = cost_matrix((("good", "bad", 1.4),), ("good", "bad"))
    assert sift_rules([rule], y, 0, costs=m)[1] == [1]


def test_class_order_by_cost_of_false_positives():
    # class 0's rule covers cases 0-5, two of them of class 1; class 1's covers 6-11, three of class 0
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0])
    rules = [CandidateRule(1, (), 0, 0.3, 6, 2, np.arange(6)), CandidateRule(2, (), 1, 0.4, 6, 3, np.arange(6, 12))]
    assert [r.number for r in order_rules(rules, y, 2)] == [1, 2]
    # calling a class-1 case class 0 costs 5: class 0's false positives cost 10, class 1's 3
    m = cost_matrix((("a", "b", 5.0),), ("a", "b"))
    assert [r.number for r in order_rules(rules, y, 2, costs=m)] == [2, 1]


# ---- the .costs reader ------------------------------------------------------------------------------

def test_reader(tmp_path):
    path = tmp_path / "g.costs"
    path.write_text("| comment line\n"
                    "good, bad: 5   | trailing comment\n"
                    "bad , good : 0.5.\n"
                    "odd\\, name, good: 2\n")
    got = read_costs(path, ("good", "bad", "odd, name"))
    assert got == {("good", "bad"): 5.0, ("bad", "good"): 0.5, ("odd, name", "good"): 2.0}


@pytest.mark.parametrize("text,message", [
    ("good, bad: 5\ngood, ugly: 2\n", "g.costs:2: unknown class 'ugly' (classes: good, bad)"),
    ("good, bad: five\n", "g.costs:1: cost 'five' is not a number"),
    ("good, bad: -1\n", "g.costs:1: cost -1.0 is negative; costs must be >= 0"),
    ("good, bad: inf\n", "g.costs:1: cost inf is not a finite number"),
    ("good, bad: 5\n\nbad, good: 2\ngood, bad: 3\n",
     "g.costs:4: the cost of predicting 'good' when the class is 'bad' is given twice (first on line 1)"),
    ("good, good: 2\n", "g.costs:1: predicting 'good' when the class is 'good' is correct and costs 0;"
                        " it cannot cost 2"),
    ("good bad: 5\n", "g.costs:1: expected 'predicted class, true class: cost', found 'good bad 5'"),
    ("good, bad: 5\nbad, good\n", "g.costs:2: expected 'predicted class, true class: cost', found 'bad good'"),
    ("good, bad, 5\n", "g.costs:1: expected 'predicted class, true class: cost', found 'good bad 5'"),
])
def test_reader_errors(tmp_path, text, message):
    path = tmp_path / "g.costs"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        read_costs(path, ("good", "bad"))
    assert str(e.value) == f"{path.parent}/{message}"


def test_missing_costs_file(tmp_path):
    with pytest.raises(InputError, match=r"nope.costs: file not found"):
        fit(stem("crx"), costs=tmp_path / "nope.costs")


@pytest.mark.parametrize("costs,message", [
    ({("+", "x"): 2}, "option costs: unknown class 'x' (classes: +, -)"),
    ({("+", "-"): -2}, "option costs: ('+', '-'): cost -2.0 is negative; costs must be >= 0"),
    ({("+", "+"): 3}, "option costs: predicting '+' when the class is '+' is correct and costs 0; it cannot cost 3"),
    ({"+": 3}, "option costs: key '+' must be a pair (predicted class, true class)"),
    ([("+", "-", 2), ("+", "-", 3)],
     "option costs: the cost of predicting '+' when the class is '-' is given twice (first as 2)"),
    (5, "option costs must be a mapping {(predicted, true): cost}, got int"),
])
def test_option_errors(costs, message):
    with pytest.raises(InputError) as e:
        fit(stem("crx"), costs=costs)
    assert str(e.value) == message


def test_costs_refused_by_other_growers():
    with pytest.raises(InputError, match="misclassification costs are supported by the c45 grower only,"
                                         " not by grower 'cart'"):
        fit(stem("crx"), costs={("+", "-"): 2}, grower="cart")


# ---- the model keeps its costs ------------------------------------------------------------------------

def test_model_file_keeps_the_costs(tmp_path):
    train = load_stem(stem("credit-g"))[0]
    rs = fit_dataset(train, costs={("good", "bad"): 5, ("bad", "good"): 1})[0]
    text = dump_yaml(rs)
    assert '  "costs": [["good", "bad", 5.0]]\n' in text
    # the same costs from a file, or with the unit pair left out, make the same bytes
    (tmp_path / "g.costs").write_text("good, bad: 5\n")
    assert dump_yaml(fit_dataset(train, costs=tmp_path / "g.costs")[0]) == text
    assert dump_yaml(fit_dataset(train, costs=[("good", "bad", 5.0)])[0]) == text
    path = tmp_path / "m.yaml"
    path.write_text(text)
    back = load_yaml(path)
    assert back == rs and dump_yaml(back) == text
    again = rescore(back, train)
    assert dict(again.options)["costs"] == (("good", "bad", 5.0),)
    ev = evaluate(back, train)
    assert (ev.errors, ev.cost) == (260, 424.0)
    assert evaluation_summary(back, ev)["cost"] == 424.0
    assert evaluation_summary(back, ev)["cost_per_case"] == 0.424
    assert "Tested 1000, errors 260 (26.0%)   <<\nCost 424 (0.424 per case)\n" in format_evaluation(back, train)
    # a cost for a class the model lacks
    path.write_text(text.replace('[["good", "bad", 5.0]]', '[["good", "ugly", 5.0]]'))
    with pytest.raises(ModelError, match=r"options.costs: unknown class 'ugly' \(classes: good, bad\)"):
        load_yaml(path)


def test_estimator_costs_by_label():
    train = load_stem(stem("diabetes"))[0]
    X = np.column_stack(train.columns)
    y = np.where(train.y == 1, 1, 0)     # tested_positive as 1
    plain = C45Rules().fit(X, y)
    model = C45Rules(costs={(0, 1): 5}).fit(X, y)
    assert model.get_params()["costs"] == {(0, 1): 5}
    assert dict(model.ruleset_.options)["costs"] == (("0", "1", 5.0),)
    missed = lambda m: int(((m.predict(X) == 0) & (y == 1)).sum())  # noqa: E731
    assert (missed(plain), missed(model)) == (107, 34)
