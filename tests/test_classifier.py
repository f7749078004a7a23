"""C45Rules follows scikit-learn's estimator conventions; c45rules.fit takes every input kind."""
import numpy as np
import pandas as pd
import pytest

import reference as R
from c45rules import C45Rules, InputError, fit

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
    m = clone(C45Rules(cf=0.1, min_objs=3))
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
