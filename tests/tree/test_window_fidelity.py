"""Windowing (c4.5 -t 10) equal to C4.5 R8's output on every shared set (c45r8-options/*.tree_t10.txt)."""
import functools

import pytest

import reference as R
from c45rules.data import load_stem
from c45rules.tree.report import format_windowing
from c45rules.tree.window import default_increment, default_window, target_profile, window_trees

# sets whose replay does not yet reach c4.5's output, with what was found (none now: crx,
# labor and labor-neg matched once each continuous attribute's gains were summed in the
# order c4.5's Quicksort leaves the cases, see window.py)
DIFFER: dict[str, str] = {}
SLOW = {"spambase", "vehicle", "credit-g"}     # 34 s, 5 s, 4 s here
FULL = {"spambase"}                             # CI samples the rest (C45RULES_FULL=1 runs it)


def _case(name):
    marks = []
    if name in DIFFER:
        marks.append(pytest.mark.xfail(strict=True, reason=DIFFER[name]))
    if name in SLOW:
        marks.append(pytest.mark.slow)
    if name in FULL:
        marks.append(pytest.mark.full)
    return pytest.param(name, marks=marks)


_RUNS: dict = {}


def windowed(name):
    """(train, test, c4.5 -t 10's trials) of a shared set, run once for the tree and rules tests."""
    if name not in _RUNS:
        train, test = load_stem(R.stem(name), test=True)
        _RUNS[name] = (train, test, window_trees(train, trials=10))
    return _RUNS[name]


@pytest.mark.parametrize("name", [_case(n) for n in R.option_sets("tree_t10")])
def test_windowing_output_is_c45s(name):
    train, test, run = windowed(name)
    assert format_windowing(run, train, test) == R.windowing_text(name)


def test_every_reference_set_is_covered():
    assert len(R.option_sets("tree_t10")) == 22


def test_defaults_as_c45():
    # besttree.c: max(2 sqrt(N), N/5) and max(window/5, 1)
    assert (default_window(14), default_window(490), default_window(43500)) == (7, 98, 8700)
    assert (default_increment(7), default_increment(98)) == (1, 19)


def test_target_profile_is_as_uniform_as_the_counts_allow():
    import numpy as np
    y = np.array([0] * 9 + [1] * 5 + [2] * 1)
    # rarest first: class 2 gets its 1 case, class 1 min(5, 9 // 2) = 4, class 0 the other 5
    assert target_profile(y, 3, 10) == [5, 4, 1]


def test_golf_trials_and_best():
    train, _ = load_stem(R.stem("golf"), test=False)
    run = window_trees(train, trials=3, window=7, increment=1)
    assert [len(t.cycles) for t in run.trials] == [5, 5, 3]
    assert [(c.window, c.window_errors, c.other_errors) for c in run.trials[2].cycles] == \
        [(7, 1, 2), (8, 1, 1), (9, 0, 0)]
    assert run.best == 0 and run.trials[0].pruned.size() == 8


# ---- soft thresholds (c4.5 -p): c45r8-options/*.tree_p.txt ----------------------------------
@pytest.mark.parametrize("name", R.option_sets("tree_p"))
def test_soft_thresholds_are_c45s(name):
    # pipeline.soft_tree, as `tree -p` and `fit -p` grow it: the tree grown and pruned in c4.5's
    # Item order (labor: 17 nodes as c4.5, where the default grower's sums of fractional weights
    # give 22), then its bands
    from c45rules.learn.pipeline import check_options, grower_options, soft_tree
    from c45rules.tree.report import format_soft
    train, _ = load_stem(R.stem(name), test=False)
    tree = soft_tree(train, grower_options(check_options({"soft": True})))
    text = (R.OPTIONS / f"{name}.tree_p.txt").read_text()
    expected = text[text.index("Decision Tree:"):text.index("Tree saved")]
    assert format_soft(tree.unpruned, tree.pruned, train.schema) + "\n" == expected


def test_every_soft_reference_set_is_covered():
    assert len(R.option_sets("tree_p")) == 22


def test_read_order_tree_is_the_default_tree_with_whole_weights():
    # no unknown values: every sum is an exact integer, so the order does not matter
    from c45rules.learn.pipeline import learn_tree
    from c45rules.tree.report import format_tree
    from c45rules.tree.window import read_order_tree
    train, _ = load_stem(R.stem("glass"), test=False)
    unpruned, pruned = read_order_tree(train)
    tree = learn_tree(train)
    assert format_tree(unpruned, train.schema) == format_tree(tree.unpruned, train.schema)
    assert format_tree(pruned, train.schema) == format_tree(tree.pruned, train.schema)


def test_read_order_tree_grows_c45s_labor_tree():
    # labor's default tree is 22 nodes (FIDELITY.md: a cut c4.5 refuses at K = 7.4999995);
    # in c4.5's order of the cases it is c4.5's 17-node tree, pruned to 5 as c4.5 -p prints
    from c45rules.learn.pipeline import learn_tree
    from c45rules.tree.window import read_order_tree
    train, _ = load_stem(R.stem("labor"), test=False)
    unpruned, pruned = read_order_tree(train)
    assert (learn_tree(train).unpruned.size(), unpruned.size(), pruned.size()) == (22, 17, 5)


def test_golf_band_by_hand():
    # humidity <= 75 over the 5 sunny cases (70, 70, 85, 90, 95): base errors 0, limit =
    # 0 + sqrt(0.5 * 5.5 / 6) = 0.677; errors with the cut at 70: 0, at 85: 1, so upper =
    # 70 + (85 - 70) * 0.677 / 1 = 80.155; lower = min(cut, lowest value) = 70
    from c45rules.learn.pipeline import learn_tree
    from c45rules.tree.soft import soften_thresholds
    train, _ = load_stem(R.stem("golf"), test=False)
    tree = learn_tree(train)
    (band,) = soften_thresholds(tree.pruned, train)
    assert f"{band.lower:g},{band.upper:g}" == "70,80.155"


# ---- composite rulesets (c4.5rules on the -t 10 trees): c45r8-options/*.rules_t10.txt -----------
RULES_SLOW = SLOW | {"shuttle", "sonar", "segment"}     # 8 s, 8 s, 5 s here (with the trees)
# sets whose printed composite differs from c4.5rules' (none now: glass and shuttle matched once
# equally costly subsets of a greedy search were told apart by their rules' summed Error, select.py)
RULES_DIFFER: dict[str, str] = {}


def _rules_case(name):
    marks = []
    if name in DIFFER:
        marks.append(pytest.mark.xfail(strict=True, reason="its windowing trees differ (above)"))
    if name in RULES_SLOW:
        marks.append(pytest.mark.slow)
    if name in FULL:
        marks.append(pytest.mark.full)
    return pytest.param(name, marks=marks)


def _trial_tables(text: str) -> list[str]:
    """c4.5rules' closing 'Trial Size Errors' tables (training, then test data)."""
    out = []
    for part in text.split("\nTrial   Size      Errors\n")[1:]:
        end = part.index("Av size")
        out.append("\nTrial   Size      Errors\n" + part[:part.index("\n", end) + 1])
    return out


@functools.lru_cache(maxsize=None)
def _composite_text(name):
    """Our c4.5rules output on a set's -t 10 trees, undated (R.undated)."""
    from c45rules.rules.composite import composite_rules
    from c45rules.rules.report import format_composite
    train, test, run = windowed(name)
    comp = composite_rules([t.unpruned for t in run.trials], train)
    return R.undated(format_composite(comp, train, test, name))


@pytest.mark.parametrize("name", [_rules_case(n) for n in R.option_sets("rules_t10")])
def test_composite_rulesets_trial_tables_are_c45rules(name):
    # each trial's ruleset (rules after sifting, training errors), the composite's (**) and the
    # averages, on training and test data, as c4.5rules prints them
    assert _trial_tables(_composite_text(name)) == _trial_tables(R.composite_text(name))


@pytest.mark.parametrize("name", [pytest.param(n, marks=[*_rules_case(n).marks, *(
    [pytest.mark.xfail(strict=True, reason=RULES_DIFFER[n])] if n in RULES_DIFFER else [])])
    for n in R.option_sets("rules_t10")])
def test_composite_rulesets_print_as_c45rules(name):
    # the whole text: every tree's rules before sifting, the composite's, every ruleset's
    # evaluation with each "Drop rule" step and its table, the confusion matrices, the trial
    # tables; only the banner's run date is taken out
    assert _composite_text(name) == R.composite_text(name)


def test_every_rules_reference_set_is_covered():
    assert len(R.option_sets("rules_t10")) == 22 and set(RULES_DIFFER) <= set(R.option_sets("rules_t10"))


def test_without_the_compiled_loops_the_python_ones_give_the_same_trials(monkeypatch):
    # an install without a C compiler replays the same swaps in Python (labor-neg: unknown values)
    from c45rules.tree import window
    train, test = load_stem(R.stem("labor-neg"), test=True)
    monkeypatch.setattr(window, "_native", None)
    assert format_windowing(window_trees(train, trials=10), train, test) == R.windowing_text("labor-neg")
