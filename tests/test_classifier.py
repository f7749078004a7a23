"""C45Rules follows scikit-learn's estimator conventions; c45rules.fit takes every input kind."""
import numpy as np
import pandas as pd
import pytest

import reference as R
from c45rules import C45, C45Rules, InputError, fit

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402


@pytest.fixture(scope="module")
def crx():
    df = pd.read_csv(R.DATA / "crx" / "crx.csv", dtype=str, keep_default_na=False)
    return df.drop(columns=["class"]), df["class"]


def test_fit_returns_self_and_learned_attributes(crx):
    X, y = crx
    m = C45Rules()
    assert m.fit(X, y) is m
    assert list(m.classes_) == ["+", "-"]
    # the CSV carries no value lists: A4's never-seen value 't' has no branch, so the pruned
    # tree has one empty leaf fewer than from crx.names (57 vs 58); the rules still agree
    assert len(m.ruleset_.rules) == 14 and m.tree_.pruned.size() == 57
    assert m.score(X, y) == pytest.approx(1 - 34 / 490)


def test_clone_pipeline_and_cross_validation(crx):
    X, y = crx
    m = clone(C45Rules(cf=0.1, tree=C45(min_objs=3)))
    assert m.get_params()["cf"] == 0.1 and not hasattr(m, "ruleset_")
    pipe = Pipeline([("rules", C45Rules())])
    pipe.fit(X, y)
    assert (pipe.predict(X) == C45Rules().fit(X, y).predict(X)).all()
    scores = cross_val_score(C45Rules(), X, y, cv=3)
    assert scores.tolist() == pytest.approx([0.682927, 0.944785, 0.840491], abs=1e-6)


def test_integer_labels_come_back_as_integers():
    X = pd.DataFrame({"x": np.arange(40.0)})
    y = (np.arange(40) >= 20).astype(int)
    m = C45Rules().fit(X, y)
    assert m.predict(X).tolist() == y.tolist()
    assert m.classes_.tolist() == [0, 1]


def test_fit_accepts_stem_csv_and_dataframe(crx):
    X, y = crx
    a = fit(R.stem("crx"))
    b = fit(str(R.DATA / "crx" / "crx.csv"), target="class")
    c = fit(X.assign(cls=y), target="cls")
    assert [str(r) for r in b.rules] == [str(r) for r in c.rules]
    assert len(a.rules) == len(b.rules) == 14
    assert sorted(" and ".join(map(str, r.conditions)) for r in a.rules) == \
        sorted(" and ".join(map(str, r.conditions)) for r in b.rules)
    with pytest.raises(InputError, match="target column 'nope' not found"):
        fit(X.assign(cls=y), target="nope")


def test_bad_options_are_named():
    with pytest.raises(InputError, match="cf must be a confidence level"):
        fit(R.stem("golf"), cf=0)
    with pytest.raises(InputError, match="unknown option"):
        fit(R.stem("golf"), pruning=True)
    # rates are kept as floats: fit(fisher=50) writes the model `c45rules fit -F 50` writes
    opts = fit(R.stem("golf"), fisher=50, cf=1).options_dict
    assert (opts["fisher"], opts["cf"]) == (50.0, 1.0) and isinstance(opts["fisher"], float)
    for seed in (10**5000, -1, 2**32):   # glibc's srandom takes an unsigned int
        with pytest.raises(InputError, match=r"seed must be an integer in \[0, 2\*\*32\)"):
            fit(R.stem("golf"), seed=seed)


def test_csv_with_a_names_file_learns_exactly_what_the_stem_learns():
    # the .names file gives the value order and kinds, so the rules (and ids) are the stem's
    from c45rules.data import load_data
    train, test = load_data(str(R.DATA / "crx" / "crx.csv"), target="class",
                            names=str(R.DATA / "crx" / "crx.names"),
                            test=str(R.DATA / "crx" / "crx_test.csv"))
    stem = fit(R.stem("crx"))
    rs = fit(train)
    assert [str(r) for r in rs.rules] == [str(r) for r in stem.rules]
    classes = np.array(train.schema.classes, dtype=object)
    assert int((rs.predict(test) != classes[test.y]).sum()) == 31


# --- scikit-learn's estimator protocol (check_estimator and the behaviours it probes) ---

from sklearn.exceptions import DataConversionWarning, NotFittedError  # noqa: E402


@pytest.fixture(scope="module")
def iris():
    df = pd.read_csv(R.DATA / "iris" / "iris.csv")
    return df.drop(columns=["class"]), df["class"]


SKLEARN_1_6 = tuple(int(p) for p in sklearn.__version__.split(".")[:2]) >= (1, 6)


@pytest.mark.parametrize("trials", [1, 3])
def test_check_estimator_passes_every_check(trials):
    # about 3 s; the array-API check skips unless SCIPY_ARRAY_API is set, as for any estimator
    # (trials=3: a boosted model, issue 34)
    from sklearn.utils.estimator_checks import check_estimator
    if SKLEARN_1_6:
        results = check_estimator(C45Rules(trials=trials), on_fail=None)
        failed = [f"{r['check_name']}: {r['exception']}" for r in results if r["status"] == "failed"]
        assert sum(r["status"] == "passed" for r in results) >= 50
    else:   # 1.4 - 1.5 have no on_fail: run the generated checks one by one
        from unittest import SkipTest
        failed = []
        for estimator, check in check_estimator(C45Rules(trials=trials), generate_only=True):
            try:
                check(estimator)
            except SkipTest:
                pass
            except Exception as e:  # noqa: BLE001 - every failure is collected and shown
                failed.append(f"{getattr(check, 'func', check).__name__}: {e!r}")
    assert failed == []


def test_boosted_estimator(iris):
    X, y = iris
    model = C45Rules(trials=10).fit(X, y)
    # C5.0's gentle reweighting (rules/boost.py): no trial classifies every case, all 10 are built
    assert type(model.ruleset_).__name__ == "BoostedRuleSet" and len(model.ruleset_.trials) == 10
    assert model.score(X, y) == 149 / 150
    assert (model.predict(X) == model.ruleset_.predict(X)).all()
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (model.classes_[proba.argmax(axis=1)] == model.predict(X)).all()
    assert model.predict_rule(X).shape == (150, 10)
    assert clone(model).get_params()["trials"] == 10


def test_tags_declare_what_c45_reads():
    if not SKLEARN_1_6:
        tags = C45Rules()._get_tags()
        assert tags["allow_nan"] and tags["X_types"] == ["2darray", "string", "categorical"]
        assert not (tags["multioutput"] or tags["poor_score"] or tags["_xfail_checks"])
        return
    from sklearn.utils import get_tags
    tags = get_tags(C45Rules())
    assert tags.estimator_type == "classifier"
    assert (tags.input_tags.allow_nan, tags.input_tags.string, tags.input_tags.categorical) == (True, True, True)
    assert (tags.input_tags.sparse, tags.input_tags.two_d_array, tags.input_tags.one_d_array) == (False, True, False)
    assert tags.classifier_tags.multi_class and not tags.classifier_tags.poor_score
    assert not tags.target_tags.multi_output and tags.target_tags.required
    assert tags.requires_fit


def test_the_classifier_learns_what_fit_learns(crx, iris):
    X, y = crx
    assert C45Rules().fit(X, y).ruleset_ == fit(X.assign(**{"class": y}), target="class")
    # '?' as NaN: the same unknowns, the same rules
    assert C45Rules().fit(X.replace("?", np.nan), y).ruleset_ == fit(X.assign(**{"class": y}), target="class")
    # an array's columns are x0, x1, ...: the rules are those of the frame under those names
    Xi, yi = iris
    arr = C45Rules().fit(Xi.to_numpy(), yi.to_numpy())
    named = Xi.set_axis([f"x{i}" for i in range(4)], axis=1)
    assert arr.ruleset_ == fit(named.assign(**{"class": yi}), target="class")
    assert arr.classes_.tolist() == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]


def test_predict_before_fit_raises_not_fitted(iris):
    X, _ = iris
    for method in ("predict", "predict_proba", "score"):
        args = (X, np.zeros(len(X))) if method == "score" else (X,)
        with pytest.raises(NotFittedError, match="This C45Rules instance is not fitted yet"):
            getattr(C45Rules(), method)(*args)


def test_sparse_input_is_refused_naming_sparse_data(iris):
    scipy_sparse = pytest.importorskip("scipy.sparse")
    X, y = iris
    for sparse in (scipy_sparse.csr_matrix(X.to_numpy()), scipy_sparse.csc_array(X.to_numpy())):
        with pytest.raises(InputError, match="Sparse data was passed for X .* does not support sparse input"):
            C45Rules().fit(sparse, y)
    m = C45Rules().fit(X.to_numpy(), y)
    with pytest.raises(InputError, match="does not support sparse input: convert it with X.toarray"):
        m.predict(scipy_sparse.csr_matrix(X.to_numpy()))


def test_continuous_target_is_refused_as_unknown_label_type(iris):
    X, _ = iris
    y = np.linspace(0.0, 1.0, len(X))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        C45Rules().fit(X, y)
    # integral floats are class labels, as scikit-learn reads them
    m = C45Rules().fit(X, (np.arange(len(X)) >= 75).astype(float))
    assert m.classes_.tolist() == [0.0, 1.0]


def test_column_vector_y_is_flattened_with_a_warning(iris):
    X, y = iris
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed when a 1d array was expected"):
        m = C45Rules().fit(X, y.to_numpy().reshape(-1, 1))
    assert m.ruleset_ == C45Rules().fit(X, y).ruleset_
    assert m.predict(X).shape == (len(X),)
    with pytest.raises(ValueError, match=r"y should be a 1d array, got an array of shape \(150, 2\)"):
        C45Rules().fit(X, np.column_stack([y, y]))


def test_one_sample_and_one_class_are_refused_naming_one_class():
    with pytest.raises(InputError, match=r"all 1 cases are of class 'a'; learning needs at least two classes,"
                                         " not one class"):
        C45Rules().fit(np.array([[1.0, 2.0]]), ["a"])
    with pytest.raises(InputError, match="all 4 cases are of class '7'.* not one class"):
        C45Rules().fit(np.arange(8.0).reshape(4, 2), [7, 7, 7, 7])


def test_feature_names_only_for_string_column_names(iris):
    X, y = iris
    m = C45Rules().fit(X, y)
    assert m.n_features_in_ == 4
    assert m.feature_names_in_.tolist() == ["sepallength", "sepalwidth", "petallength", "petalwidth"]
    a = C45Rules().fit(X.to_numpy(), y)
    assert a.n_features_in_ == 4 and not hasattr(a, "feature_names_in_")
    i = C45Rules().fit(X.set_axis([10, 11, 12, 13], axis=1), y)
    assert i.n_features_in_ == 4 and not hasattr(i, "feature_names_in_")
    # refitting on an array forgets the names of an earlier DataFrame
    assert not hasattr(m.fit(X.to_numpy(), y), "feature_names_in_")


def test_predict_checks_the_number_and_names_of_features(iris):
    X, y = iris
    m = C45Rules().fit(X, y)
    expected = m.predict(X)
    with pytest.raises(ValueError, match="X has 3 features, but C45Rules is expecting 4 features as input"):
        m.predict(X.to_numpy()[:, :3])
    with pytest.raises(ValueError, match="The feature names should match those that were passed during fit"):
        m.predict(X.rename(columns={"petalwidth": "width"}))
    with pytest.raises(ValueError, match="The feature names should match those that were passed during fit"):
        m.predict(X[X.columns[::-1]])
    with pytest.warns(UserWarning, match="X does not have valid feature names, but C45Rules was fitted with"):
        by_position = m.predict(X.to_numpy())
    assert by_position.tolist() == expected.tolist()
    a = C45Rules().fit(X.to_numpy(), y)
    with pytest.warns(UserWarning, match="X has feature names, but C45Rules was fitted without feature names"):
        assert a.predict(X).tolist() == a.predict(X.to_numpy()).tolist() == expected.tolist()


def test_bad_shapes_and_kinds_of_x_are_named(iris):
    X, y = iris
    with pytest.raises(ValueError, match=r"Expected a 2-D X .* got shape \(150,\): Reshape your data"):
        C45Rules().fit(X["sepallength"].to_numpy(), y)
    m = C45Rules().fit(X, y)
    with pytest.raises(ValueError, match=r"got shape \(4,\): Reshape your data"):
        m.predict(X.to_numpy()[0])
    with pytest.raises(ValueError, match=r"Found array with 0 feature\(s\) \(shape=\(150, 0\)\) while a minimum of 1"):
        C45Rules().fit(np.empty((150, 0)), y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        C45Rules().fit(X.to_numpy() + 1j, y)
    with pytest.raises(ValueError, match="C45Rules requires y to be passed, but the target y is None"):
        C45Rules().fit(X)


def test_nan_and_text_cells_are_read_as_c45_reads_them():
    X = pd.DataFrame({"colour": ["red", "blue", None, "red", "blue", "green"] * 5,
                      "size": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0] * 5})
    y = ["yes", "no", "yes", "yes", "no", "no"] * 5
    m = C45Rules(tree=C45(min_objs=1)).fit(X, y)
    assert m.predict(X).tolist() == y
    assert m.predict_proba(X).sum(axis=1) == pytest.approx(np.ones(30))


def test_parameters_stored_untouched_and_validated_in_fit(iris):
    X, y = iris
    discrete = ["sepallength"]
    m = C45Rules(cf=0, discrete=discrete, random_state=3)   # no check at construction
    assert m.get_params()["discrete"] is discrete and m.cf == 0
    with pytest.raises(InputError, match=r"C45Rules parameter cf must be a confidence level in \(0, 1\], got 0"):
        m.fit(X, y)
    c = clone(C45Rules(cf=0.1, tree=C45(min_objs=5, subset=True), discrete=discrete))
    # the grower objects compare by identity (as scikit-learn's); their parameters by value
    deep = C45Rules(cf=0.1, tree=C45(min_objs=5, subset=True), discrete=discrete).get_params()
    assert {k: v for k, v in c.get_params().items() if k != "tree"} == {k: v for k, v in deep.items() if k != "tree"}
    assert c.set_params(cf=0.3).cf == 0.3
    assert repr(clone(c.fit(X, y))) == repr(c) and not hasattr(clone(c), "ruleset_")


def test_without_scikit_learn_the_plain_checks_still_hold():
    # a fresh interpreter where `import sklearn` fails: the fallbacks, not scikit-learn's helpers
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent("""
        import sys, warnings
        sys.modules["sklearn"] = None
        import numpy as np
        from c45rules import C45Rules, C45RulesError
        from c45rules.learn.classifier import NotFittedError
        X = np.arange(40.0).reshape(20, 2); y = np.arange(20) >= 10
        try:
            C45Rules().predict(X)
        except NotFittedError as e:
            assert isinstance(e, C45RulesError) and isinstance(e, AttributeError)
            print("unfitted:", e)
        try:
            C45Rules().fit(X, np.linspace(0, 1, 20))
        except ValueError as e:
            print("continuous:", e)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = C45Rules().fit(X, y.reshape(-1, 1))
        print("column:", caught[0].message, m.score(X, y), m.get_params()["cf"], m.n_features_in_)
        try:
            m.predict(X[:, :1])
        except ValueError as e:
            print("features:", e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "unfitted: This C45Rules instance is not fitted yet: call 'fit' first",
        "continuous: Unknown label type: continuous; C45Rules is a classifier: give class labels"
        " (strings or integers)",
        "column: A column-vector y was passed when a 1d array was expected; it is flattened 1.0 0.25 2",
        "features: X has 1 features, but C45Rules is expecting 2 features as input",
    ]


def test_soft_learns_from_c45s_own_tree_and_bands_it():
    # labor's unknown values make weights fractional: the default grower's tree has 22 nodes and
    # 4 rules, c4.5's (soft=True, as c4.5 -p and fit -p grow it) 17 and c4.5rules' 3
    df = pd.read_csv(R.DATA / "labor" / "labor.csv")
    X, y = df.drop(columns=["class"]), df["class"]
    plain, soft = C45Rules().fit(X, y), clone(C45Rules(tree=C45(soft=True))).fit(X, y)
    assert (len(plain.ruleset_.rules), plain.tree_.unpruned.size()) == (4, 22)
    assert (len(soft.ruleset_.rules), soft.tree_.unpruned.size()) == (3, 17)
    assert [n.soft for n in soft.tree_.pruned.walk() if n.soft is not None] == \
        [(2.1597213745117188, 2.903472661972046), (9.275480270385742, 10.167197227478027)]
    assert soft.ruleset_.options_dict["soft"] is True and "soft" not in plain.ruleset_.options_dict
    assert len(fit(R.stem("labor"), soft=True).rules) == 3
