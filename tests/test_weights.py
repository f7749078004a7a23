"""Case and class weights (issue 32, point 6): integer weights give exactly the model of the
repeated rows; weight 0 removes a row; fractional weights flow through every count."""
import numpy as np
import pandas as pd
import pytest

import reference as R
from c45rules import C45Rules, InputError
from c45rules.data.frame import load_data
from c45rules.data.weights import class_factors, weighted
from c45rules.export.yaml import dump_yaml, load_yaml
from c45rules.learn.pipeline import fit, fit_dataset
from c45rules.tree.grow import grow_tree


def stem(name):
    return load_data(R.DATA / name / name, test=False)[0]


def body(rs) -> str:
    """The model file up to its options: schema, rules with their evidence, default, counts."""
    text = dump_yaml(rs)
    return text[:text.index("\noptions:")]


def draws(n, seed=7, low=1, high=5):
    return np.random.default_rng(seed).integers(low, high, n)


def repeated(data, w):
    return data.subset(np.repeat(np.arange(data.n), w))


# ---- integer weights == each row repeated, exactly ------------------------------------------

@pytest.mark.parametrize("name", ["golf", "labor", "crx", "vote", "breast-cancer", "monk1", "monk2", "monk3",
                                  "iris", "glass", "sonar", "hypo"])
def test_integer_weights_give_the_repeated_rows_rules(name):
    data = stem(name)
    w = draws(data.n)
    by_weight = fit_dataset(weighted(data, w))[0]
    by_rows = fit_dataset(repeated(data, w))[0]
    assert body(by_weight) == body(by_rows)
    # the evidence is in weighted counts: class_counts are the classes' summed weights
    assert list(by_weight.class_counts) == np.bincount(data.y, weights=w).astype(int).tolist()
    assert dict(by_weight.options)["weights"] == "sample_weight"


@pytest.mark.parametrize("name,options", [("crx", {"annealing": True, "seed": 3}), ("crx", {"fisher": 20.0}),
                                          ("breast-cancer", {"subset": True}), ("vote", {"min_objs": 5, "cf": 0.1})])
def test_integer_weights_equal_repetition_under_options(name, options):
    data = stem(name)
    w = draws(data.n, seed=11)
    assert body(fit_dataset(weighted(data, w), **options)[0]) == body(fit_dataset(repeated(data, w), **options)[0])


def test_zero_weight_is_the_row_removed():
    data = stem("crx")
    w = draws(data.n, seed=5, low=0, high=4)       # a quarter of the rows weigh 0
    assert (w == 0).sum() > 100
    assert body(fit_dataset(weighted(data, w))[0]) == body(fit_dataset(repeated(data, w))[0])
    keep = np.flatnonzero(w > 0)
    ones = np.where(w > 0, 1, 0)
    assert body(fit_dataset(weighted(data, ones))[0]) == body(fit_dataset(data.subset(keep))[0])


def test_all_ones_is_the_unweighted_model_and_says_weights_were_given():
    data = stem("labor")
    plain = dump_yaml(fit_dataset(data)[0])
    ones = dump_yaml(fit_dataset(weighted(data, np.ones(data.n)))[0])
    assert ones.replace('  "weights": "sample_weight"\n', "") == plain


def test_soybean_differs_by_single_precision_rounding_of_unknowns_fractions():
    # pinned: unknown values' fractional weights are float sums (spec 2.7) and k copies of
    # w * f do not round as one k * w * f does; on soybean one gain tie then goes another way
    data = stem("soybean")
    w = draws(data.n)
    a, b = grow_tree(weighted(data, w)), grow_tree(repeated(data, w))
    items_a = [n.items for n in a.walk()][:40]
    items_b = [n.items for n in b.walk()][:40]
    assert items_a != items_b
    assert np.allclose(items_a, items_b, rtol=1e-5)
    ra, rb = fit_dataset(weighted(data, w))[0], fit_dataset(repeated(data, w))[0]
    assert (len(ra.rules), len(rb.rules)) == (51, 52)
    assert ra.class_counts == rb.class_counts


# ---- class weights ----------------------------------------------------------------------------

def test_class_weights_repeat_a_class():
    data = stem("crx")
    plus = data.schema.classes.index("+")
    w = np.where(data.y == plus, 3, 1)
    assert body(fit_dataset(weighted(data, class_weight={"+": 3, "-": 1}))[0]) == body(fit_dataset(repeated(data, w))[0])
    rs = fit_dataset(weighted(data, class_weight={"+": 3}))[0]
    assert dict(rs.options)["class_weight"] == "+=3.0"


def test_balanced_is_scikit_learns_and_multiplies_sample_weights():
    data = stem("crx")
    counts = np.bincount(data.y)
    f = class_factors("balanced", data, None)
    assert f.tolist() == (data.n / (2 * counts)).tolist()
    w = draws(data.n)
    both = weighted(data, w, "balanced")
    fw = class_factors("balanced", data, w.astype(float))
    assert np.array_equal(both.weights, w * fw[data.y])
    # balanced: every class weighs the same in total
    assert np.allclose(np.bincount(both.y, weights=both.weights), w.sum() / 2)


# ---- fractional weights: the evidence is the weights' sums ----------------------------------

def test_fractional_weights_evidence_sums_the_cases_weights():
    data = stem("crx")
    w = np.random.default_rng(3).uniform(0.2, 3.0, data.n)
    rs = fit_dataset(weighted(data, w))[0]
    first = rs.predict_rule(data)
    for r in rs.rules:
        mine = first == r.id
        assert r.used == pytest.approx(w[mine].sum(), rel=1e-11)
        assert r.wrong == pytest.approx(w[mine & (data.y != data.schema.classes.index(r.prediction))].sum(),
                                        rel=1e-11, abs=1e-12)
        assert r.covered >= r.used - 1e-9
    assert rs.class_counts == pytest.approx(np.bincount(data.y, weights=w).tolist(), rel=1e-11)
    assert rs.default_counts == pytest.approx(np.bincount(data.y[first == 0], weights=w[first == 0],
                                                          minlength=2).tolist(), rel=1e-11)
    assert any(not float(r.covered).is_integer() for r in rs.rules)
    # deterministic, and the YAML reads back to the same model
    text = dump_yaml(rs)
    assert dump_yaml(fit_dataset(weighted(data, w))[0]) == text
    assert dump_yaml(load_yaml(text)) == text


def test_weights_change_the_model():
    data = stem("crx")
    plain = fit_dataset(data)[0]
    heavy = fit_dataset(weighted(data, class_weight={"+": 5}))[0]
    assert body(plain) != body(heavy)
    plus_rules = lambda rs: sum(r.prediction == "+" for r in rs.rules)  # noqa: E731
    assert plus_rules(heavy) > plus_rules(plain)


# ---- scikit-learn estimator and pipeline.fit -------------------------------------------------

def test_estimator_sample_weight_and_class_weight():
    df = pd.read_csv(R.DATA / "iris" / "iris.csv")
    X, y = df.drop(columns=["class"]), df["class"]
    w = draws(len(y), seed=2)
    a = C45Rules().fit(X, y, sample_weight=w)
    b = C45Rules().fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
    assert body(a.ruleset_) == body(b.ruleset_)
    assert (a.predict(X) == b.predict(X)).all()
    c = C45Rules(class_weight={"Iris-setosa": 2}).fit(X, y)
    d = C45Rules().fit(X, y, sample_weight=np.where(y == "Iris-setosa", 2, 1))
    assert body(c.ruleset_) == body(d.ruleset_)
    assert C45Rules(class_weight="balanced").get_params()["class_weight"] == "balanced"


def test_pipeline_fit_takes_a_weight_column(tmp_path):
    df = pd.read_csv(R.DATA / "golf" / "golf.csv")
    w = draws(len(df), seed=4)
    by_array = fit(df, "class", sample_weight=w)
    by_column = fit(df.assign(weight=w), "class", sample_weight="weight")
    assert body(by_array) == body(by_column)
    assert "weight" not in by_column.schema.names
    assert dict(by_column.options)["weights"] == "weight"


# ---- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("w,message", [
    ([1, -1], "row 2: weight -1.0 is negative"),
    ([1, float("nan")], "row 2: weight nan is NaN"),
    ([1, float("inf")], "row 2: weight inf is infinite"),
    ([1, "x"], "row 2: weight 'x' is not a number"),
    ([1, 2, 3], "expected one number per case (2)"),
    ([0, 0], "every weight is zero"),
])
def test_bad_sample_weights_are_named(w, message):
    data = stem("golf").subset(np.array([0, 2]))
    with pytest.raises(InputError, match="sample_weight: .*" + message.replace("(", r"\(").replace(")", r"\)")):
        weighted(data, w)


def test_refused_combinations():
    data = stem("crx")
    with pytest.raises(InputError, match="unknown class"):
        weighted(data, class_weight={"yes": 2})
    with pytest.raises(InputError, match="c45 grower only"):
        fit_dataset(weighted(data, draws(data.n)), grower="cart")
    with pytest.raises(InputError, match="fisher"):
        fit_dataset(weighted(data, np.full(data.n, 0.5)), fisher=10.0)


# ---- command line ----------------------------------------------------------------------------

def test_cli_weights_column_csv_and_names(tmp_path):
    from c45rules.cli import main
    df = pd.read_csv(R.DATA / "golf" / "golf.csv")
    w = draws(len(df), seed=9)
    df.assign(w=w).to_csv(tmp_path / "g.csv", index=False)
    assert main(["fit", str(tmp_path / "g.csv"), "--target", "class", "--weights", "w", "-q",
                 "-o", str(tmp_path / "m.yaml")]) == 0
    from_cli = load_yaml(tmp_path / "m.yaml")
    assert body(from_cli) == body(fit(df, "class", sample_weight=w))
    assert dict(from_cli.options)["weights"] == "w"
    # a C4.5 stem: the weight column is declared continuous in the .names file
    names = (R.DATA / "golf" / "golf.names").read_text().rstrip("\n") + "\nw: continuous.\n"
    (tmp_path / "gw.names").write_text(names)
    rows = (R.DATA / "golf" / "golf.data").read_text().splitlines()
    lines = [",".join(r.split(",")[:-1] + [str(x), r.split(",")[-1]]) for r, x in zip(rows, w)]
    (tmp_path / "gw.data").write_text("\n".join(lines) + "\n")
    assert main(["fit", str(tmp_path / "gw"), "--weights", "w", "-q", "-o", str(tmp_path / "s.yaml")]) == 0
    plain = stem("golf")
    assert [str(r) for r in load_yaml(tmp_path / "s.yaml").rules] == \
        [str(r) for r in fit_dataset(weighted(plain, w))[0].rules]


@pytest.mark.parametrize("column,message", [("nope", "--weights: no column 'nope'"),
                                            ("outlook", "--weights: column 'outlook' .* is not numeric")])
def test_cli_weights_errors(tmp_path, capsys, column, message):
    from c45rules.cli import main
    code = main(["fit", str(R.DATA / "golf" / "golf.csv"), "--target", "class", "--weights", column,
                 "-o", str(tmp_path / "m.yaml")])
    assert code != 0
    import re
    assert re.search(message, capsys.readouterr().err)


def test_cli_class_weights(tmp_path):
    from c45rules.cli import main
    assert main(["fit", str(R.DATA / "crx" / "crx"), "--class-weights", "+=3,-=1", "-q",
                 "-o", str(tmp_path / "m.yaml")]) == 0
    data = stem("crx")
    expected = fit_dataset(weighted(data, class_weight={"+": 3.0, "-": 1.0}))[0]
    assert body(load_yaml(tmp_path / "m.yaml")) == body(expected)


def test_rescore_counts_cases_and_drops_the_weights_record():
    from c45rules.govern.rescore import rescore
    data = stem("crx")
    rs = fit_dataset(weighted(data, draws(data.n)))[0]
    again = rescore(rs, data)
    assert "weights" not in dict(again.options)
    assert again.class_counts == tuple(np.bincount(data.y).tolist())
    assert [r.used for r in again.rules] == np.bincount(again.rule_index(data), minlength=len(rs.rules) + 1)[1:].tolist()
