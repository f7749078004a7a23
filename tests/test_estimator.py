"""Issue 49.2: the estimator's parameters split by stage (a grower object, the rule stage),
scikit-learn's names, DecisionTreeClassifier's habits, and docstrings whose examples run."""
import doctest
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reference as R
import c45rules
from c45rules import C45, CART, CHAID, ID3, J48, QUEST, C45Rules, InputError
from c45rules.learn.growers import GROWERS, parameter_table
from c45rules.tree.growers import OPTIONS as GROWER_OPTIONS

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "estimator.md"


@pytest.fixture(scope="module")
def iris():
    df = pd.read_csv(R.DATA / "iris" / "iris.csv")
    return df.drop(columns=["class"]), df["class"]


# ---- 1. the split ------------------------------------------------------------------------

def test_grid_search_over_a_grower_parameter_and_a_rule_parameter(iris):
    X, y = iris
    search = GridSearchCV(C45Rules(tree=CART(minsplit=5)), {"tree__cp": [0.0, 0.05], "cf": [0.1, 0.25]}, cv=3)
    search.fit(X, y)
    assert sorted(search.best_params_) == ["cf", "tree__cp"]
    assert len(search.cv_results_["params"]) == 4
    best = search.best_estimator_
    assert best.ruleset_.options_dict["grower"] == "cart"
    assert best.ruleset_.options_dict["cp"] == search.best_params_["tree__cp"]
    # the grower itself is a parameter too
    assert GridSearchCV(C45Rules(), {"tree": [C45(), ID3()]}, cv=3).fit(X, y).best_score_ > 0.9


def test_each_grower_holds_its_own_options_with_the_pipelines_defaults():
    for name, cls in GROWERS.items():
        opts = cls().options(0.25)
        own = {k: v for k, v in opts.items() if k not in ("grower", "cf", "rules_cf", "soft")}
        assert own == GROWER_OPTIONS[name], name
    assert "cp" not in C45().get_params() and "min_objs" not in CART().get_params()
    assert set(C45Rules().get_params(deep=False)) >= {"tree", "random_state", "n_jobs", "cf"}
    for flat in ("maxdepth", "max_depth", "cp", "seed", "jobs", "grower", "rules_cf", "min_objs"):
        assert flat not in C45Rules().get_params(deep=False)


def test_old_flat_parameters_warn_naming_the_new_spelling_and_learn_the_same(iris):
    X, y = iris
    with pytest.warns(FutureWarning, match=re.escape("use C45Rules(tree=CART(cp=0.02, max_depth=4))")):
        old = C45Rules(grower="cart", cp=0.02, maxdepth=4)
    assert old.get_params()["tree__max_depth"] == 4
    new = C45Rules(tree=CART(cp=0.02, max_depth=4))
    assert old.fit(X, y).ruleset_ == new.fit(X, y).ruleset_
    with pytest.warns(FutureWarning, match=re.escape("tree=C45(cf=0.4, min_objs=3), cf=0.1, random_state=3")):
        old = C45Rules(cf=0.4, rules_cf=0.1, min_objs=3, seed=3, annealing=True)
    assert old.fit(X, y).ruleset_ == C45Rules(tree=C45(cf=0.4, min_objs=3), cf=0.1, random_state=3,
                                              annealing=True).fit(X, y).ruleset_
    with pytest.warns(FutureWarning, match=r"C45Rules\(jobs\) is deprecated.*n_jobs=2"):
        assert C45Rules(jobs=2).n_jobs == 2
    with pytest.warns(FutureWarning, match=re.escape("tree=CHAID(max_depth=2)")):
        assert C45Rules().set_params(grower="chaid", max_depth=2).tree.max_depth == 2
    # an old spelling keeps its old meaning: flat max_depth was CHAID's, not CART's
    with pytest.raises(InputError, match=re.escape("use tree=CHAID(max_depth=5)")):
        C45Rules(grower="cart", max_depth=5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'pruning'"):
        C45Rules(pruning=True)


def test_random_state_and_n_jobs_are_the_seed_and_the_jobs(iris):
    X, y = iris
    m = C45Rules(random_state=7, annealing=True, n_jobs=2).fit(X, y)
    assert m.ruleset_.options_dict["seed"] == 7
    rs = C45Rules(random_state=np.random.RandomState(0), annealing=True).fit(X, y)
    assert isinstance(rs.ruleset_.options_dict["seed"], int)
    assert C45Rules(n_jobs=-2)._jobs() >= 1 and C45Rules()._jobs() == 1


def test_bad_parameters_are_named_as_spelled_here(iris):
    X, y = iris
    with pytest.raises(InputError, match=r"CART parameter max_depth must be a whole number >= 1, got 0"):
        C45Rules(tree=CART(max_depth=0)).fit(X, y)
    with pytest.raises(InputError, match=r"J48 parameter prune_folds must be a whole number >= 2"):
        C45Rules(tree=J48(prune_folds=1)).fit(X, y)
    with pytest.raises(InputError, match=r"C45 parameter cf must be a confidence level"):
        C45Rules(tree=C45(cf=2.0)).fit(X, y)
    with pytest.raises(InputError, match=r"C45Rules parameter random_state must be an integer"):
        C45Rules(random_state=-1).fit(X, y)
    with pytest.raises(InputError, match=r"parameter tree must be one of C45\(...\)"):
        C45Rules(tree="cart").fit(X, y)


def test_docs_parameter_table_is_the_codes():
    assert parameter_table() in DOCS.read_text()


def test_docs_grid_search_snippet_runs():
    text = DOCS.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert any("GridSearchCV" in b and "tree__" in b for b in blocks)
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), {})


# ---- 2. DecisionTreeClassifier's habits --------------------------------------------------

def test_feature_importances_on_a_hand_made_model():
    # a: rule 1 decides 6 cases, 5 right, where the default (n) gets 1 right: gain 4, shared
    # with b (it tests a and b); rule 2 tests c only and decides 4 cases, all right, where the
    # default gets 0: gain 4. So a 2, b 2, c 4 -> 0.25, 0.25, 0.5; rule 3 is worse than the
    # default (gain < 0) and gives d nothing
    from c45rules import Condition, Rule, RuleSet
    from c45rules.data.frame import from_frame
    from c45rules.model.views import rule_importances
    df = pd.DataFrame({"a": [1.0] * 6 + [5.0] * 6, "b": ["x"] * 6 + ["z"] * 6,
                       "c": [0.0] * 6 + [9.0] * 4 + [0.0] * 2, "d": [0.0] * 10 + [3.0] * 2,
                       "class": ["y"] * 5 + ["n"] + ["y"] * 4 + ["n"] * 2})
    data = from_frame(df, "class", discrete=["b"])
    rules = (Rule(1, (Condition("a", "<=", 2.0), Condition("b", "=", "x")), "y", 6, 1, 0.2, 1.0),
             Rule(2, (Condition("c", ">", 5.0),), "y", 4, 0, 0.2, 1.0),
             Rule(3, (Condition("d", ">", 1.0),), "y", 2, 2, 0.6, 1.0))
    rs = RuleSet(data.schema, rules, "n", (3, 9), (2, 0))
    assert rule_importances(rs, data).tolist() == [0.25, 0.25, 0.5, 0.0]


def test_decision_tree_habits(iris):
    X, y = iris
    m = C45Rules().fit(X, y)
    assert m.n_classes_ == 3
    fi = m.feature_importances_
    assert fi.shape == (4,) and fi.sum() == pytest.approx(1) and fi.argmax() == 3   # petalwidth
    assert m.get_depth() == max(len(r.conditions) for r in m.ruleset_.rules) == 3
    assert m.get_n_leaves() == len(m.ruleset_.rules) + 1
    leaf = m.apply(X)
    assert set(leaf) <= {0, *(r.id for r in m.ruleset_.rules)}
    path = m.decision_path(X)
    assert path.shape == (150, max(r.id for r in m.ruleset_.rules) + 1)
    assert (path[np.arange(150), leaf] == 1).all()
    frame = m.rules_
    assert list(frame.columns) == ["id", "conditions", "class", "confidence", "covered", "errors", "lift", "used",
                                   "wrong"]
    assert frame["id"].tolist() == [r.id for r in m.ruleset_.rules] and frame["used"].sum() <= 150
    text = c45rules.export_text(m)
    assert text.splitlines()[0].startswith("rule 1  (confidence") and text.endswith("|   |--- class: Iris-setosa")
    assert "<table" in m._repr_html_() and "petalwidth &lt;= 0.6" in m._repr_html_()
    assert "class=\"c45rules\"" not in C45Rules()._repr_html_()
    assert not hasattr(C45Rules(), "rules_")


def test_boosted_models_are_handled_or_refused_clearly(iris):
    X, y = iris
    b = C45Rules(trials=3).fit(X, y)
    assert b.apply(X).shape == (150, len(b.ruleset_.trials))
    assert b.feature_importances_.sum() == pytest.approx(1)
    assert "trial" in b.rules_.columns and c45rules.export_text(b).startswith("trial 1\n")
    with pytest.raises(InputError, match="decision_path is for a single rule list; this model is boosted"):
        b.decision_path(X)


# ---- 3. the examples in the docstrings run ------------------------------------------------

# every public name: c45rules.__all__ (but the version string) and the exports users call
import c45rules.export  # noqa: E402

PUBLIC = [(c45rules, n) for n in c45rules.__all__ if n != "__version__"] + \
    [(c45rules.export, n) for n in c45rules.export.__all__ if callable(getattr(c45rules.export, n))]
# the methods users call on a model
MODEL_METHODS = {
    "RuleSet": ("predict", "predict_rule", "predict_proba", "predict_confidence", "rule_index", "rule_ids",
                "decision_confidences", "decision_texts", "explain", "used_attributes"),
    "BoostedRuleSet": ("predict", "predict_proba", "predict_confidence", "explain", "used_attributes",
                       "votes", "trial_index", "trial_rules"),
}
_DOCTEST_FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


@pytest.mark.parametrize("module", ["c45rules.learn.classifier", "c45rules.learn.growers", "c45rules.model.views"])
def test_docstring_examples_run(module):
    import importlib
    mod = importlib.import_module(module)
    result = doctest.testmod(mod, optionflags=_DOCTEST_FLAGS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("owner, name", PUBLIC, ids=[n for _, n in PUBLIC])
def test_public_docstring_examples_run(owner, name):
    # found from the object itself (its class's methods too), wherever its module lives, and run
    # with empty globals: each example imports what it uses, as a reader copying it would
    obj = getattr(owner, name)
    tests = [t for t in doctest.DocTestFinder().find(obj, name, globs={}) if t.examples]
    assert tests, f"{name}: no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=_DOCTEST_FLAGS)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} failed example(s) of {runner.tries}"


def _numpydoc(doc, name, sections):
    assert doc, f"{name}: no docstring"
    for section in sections:
        assert re.search(rf"^\s*{section}\n\s*-{{{len(section)}}}\n", doc, re.M), f"{name}: no {section} section"


def test_public_names_have_numpydoc_sections():
    import inspect
    for owner, name in PUBLIC:
        obj = getattr(owner, name)
        cls = isinstance(obj, type)
        takes = bool(inspect.signature(obj).parameters)   # ID3() takes nothing: nothing to describe
        described = "Attributes" if cls and "Attributes\n" in (obj.__doc__ or "") else "Parameters"
        _numpydoc(obj.__doc__, name, ["Examples"] + ([described] if takes else []) + ([] if cls else ["Returns"]))
    for cls, methods in MODEL_METHODS.items():
        for method in methods:
            fn = getattr(getattr(c45rules, cls), method)
            takes = len(inspect.signature(fn).parameters) > 1   # more than self
            _numpydoc(fn.__doc__, f"{cls}.{method}", ["Examples", "Returns"] + (["Parameters"] if takes else []))