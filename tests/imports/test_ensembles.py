"""from_ensemble and `c45rules import FOREST --data`: rules explaining a scikit-learn forest.

Fidelity = agreement with the forest's own decisions on held-out rows. Its floor: the median
fidelity of the forest's single trees on the same rows, each tree read exactly (from_sklearn
decides as the tree does). A rule list drawn from the whole forest that explained it worse than
one of its own trees would be pointless.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier  # noqa: E402

from c45rules import InputError  # noqa: E402
from c45rules.export.yaml import dump_yaml, load_yaml  # noqa: E402
from c45rules.imports.ensemble import fingerprint, from_ensemble  # noqa: E402
from c45rules.imports.fidelity import explain_case  # noqa: E402
from test_sklearn import continuous_frame, python_classes, run_cli, sql_classes, with_nan  # noqa: E402


def split(name: str, nan: bool = False, seed: int = 0):
    """(X_train, y_train, X_test) of a shared set's continuous columns, 2/3 for training."""
    X, y = continuous_frame(name)
    if nan:
        X = with_nan(X, 0.1, seed=3)
    order = np.random.default_rng(seed).permutation(len(X))
    cut = 2 * len(X) // 3
    tr, te = order[:cut], order[cut:]
    return X.iloc[tr].reset_index(drop=True), y[tr], X.iloc[te].reset_index(drop=True)


def single_tree_fidelity(model, X: pd.DataFrame) -> float:
    want = model.predict(X)
    return float(np.median([(model.classes_[t.predict(X.to_numpy()).astype(int)] == want).mean()
                            for t in model.estimators_]))


@pytest.mark.parametrize("name, kind", [("crx", RandomForestClassifier), ("iris", RandomForestClassifier),
                                        ("crx", ExtraTreesClassifier), ("glass", RandomForestClassifier)])
def test_rules_explain_the_forest_on_held_out_rows(name, kind):
    X, y, X_test = split(name)
    model = kind(n_estimators=30, max_depth=6, random_state=0).fit(X, y)
    rs = from_ensemble(model, X)
    want = model.predict(X_test).astype(str)
    fidelity = float((rs.predict(X_test) == want).mean())
    floor = single_tree_fidelity(model, X_test)
    print(f"{name} {kind.__name__}: fidelity {fidelity:.3f} (single tree median {floor:.3f}),"
          f" {len(rs.rules)} rules")
    assert fidelity >= floor
    assert set(rs.schema.classes) == set(map(str, np.unique(model.predict(X))))
    assert dict(rs.options)["ensemble_sha256"] == fingerprint(model)


def test_exports_agree_with_predict_and_yaml_round_trips(tmp_path):
    X, y, X_test = split("iris")
    model = RandomForestClassifier(n_estimators=20, max_depth=4, random_state=1).fit(X, y)
    rs = from_ensemble(model, X)
    assert len(rs.schema.classes) == 3 and rs.rules
    got = rs.predict(X_test)
    assert (sql_classes(rs, X_test, "sqlite") == got).all()
    assert (python_classes(rs, X_test, tmp_path) == got).all()
    back = load_yaml(dump_yaml(rs))
    assert back == rs
    assert dict(back.options)["ensemble_sha256"] == fingerprint(model)


def test_fingerprint_tells_models_apart():
    X, y, _ = split("crx")
    a = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    b = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=1).fit(X, y)
    assert fingerprint(a) == fingerprint(a) != fingerprint(b)
    assert len(fingerprint(a)) == 64


def test_unknown_values_follow_the_forests_decisions(tmp_path):
    X, y, X_test = split("crx", nan=True)
    assert X.isna().any().any() and X_test.isna().any().any()
    model = RandomForestClassifier(n_estimators=30, max_depth=6, random_state=0).fit(X, y)
    rs = from_ensemble(model, X)
    got = rs.predict(X_test)
    assert (got == model.predict(X_test).astype(str)).mean() >= single_tree_fidelity(model, X_test)
    # the exports read an unknown value as the RuleSet does
    assert (sql_classes(rs, X_test, "sqlite") == got).all()
    assert (python_classes(rs, X_test, tmp_path) == got).all()


def test_a_model_that_refuses_nan_is_refused_by_name():
    from sklearn.ensemble import AdaBoostClassifier  # noqa: F401  (a model of another kind below)
    X, y, _ = split("crx")
    model = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    # scikit-learn refuses infinity: the forest cannot decide, and says why
    bad = X.copy()
    bad.iloc[0, 0] = np.inf
    with pytest.raises(InputError, match="cannot decide X's rows"):
        from_ensemble(model, bad)
    with pytest.raises(InputError, match="expected a fitted scikit-learn RandomForestClassifier"):
        from_ensemble(AdaBoostClassifier(), X)
    with pytest.raises(InputError, match="is not fitted"):
        from_ensemble(RandomForestClassifier(), X)
    with pytest.raises(InputError, match="X has no column 'A2'"):
        from_ensemble(model, X.drop(columns="A2"))
    with pytest.raises(InputError, match="max_rules must be a whole number >= 1"):
        from_ensemble(model, X, max_rules=0)


def test_max_rules_keeps_the_first_rules_and_chooses_the_default_again():
    # without the pruning (validate=0), max_rules cuts the ordered list after N rules
    X, y, _ = split("glass")
    model = RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0).fit(X, y)
    full = from_ensemble(model, X, validate=0)
    assert len(full.rules) > 3
    short = from_ensemble(model, X, max_rules=3, validate=0)
    assert [r.conditions for r in short.rules] == [r.conditions for r in full.rules[:3]]
    # the default: the forest's most frequent decision on the rows none of the 3 rules covers
    decided = model.predict(X).astype(str)
    left = pd.Series(decided[short.rule_index(X) == 0]).value_counts()
    assert left[short.default_class] == left.max()
    assert dict(short.options)["max_rules"] == 3


def test_max_rules_is_a_budget_the_pruning_meets_by_deleting_where_that_loses_least():
    # with the pruning (the default), the rules over max_rules are not cut from the end: the
    # pruning deletes, one at a time, the rule whose deletion loses least agreement on its
    # check rows, so the short list follows the forest there at least as closely as the cut one
    from c45rules.imports.ensemble import near_rows
    X, y, _ = split("glass")
    model = RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0).fit(X, y)
    cut = from_ensemble(model, X, validate=0)
    assert len(cut.rules) > 3
    budgeted = from_ensemble(model, X, max_rules=3)
    assert 1 <= len(budgeted.rules) <= 3 and dict(budgeted.options)["max_rules"] == 3
    grid = X.to_numpy(dtype=float)
    check = pd.DataFrame(near_rows(grid, 4, seed=7, alike=model.predict(X).astype(str)), columns=X.columns)
    theirs = model.predict(check).astype(str)
    cut3 = from_ensemble(model, X, validate=0, max_rules=3)
    assert (budgeted.predict(check) == theirs).mean() >= (cut3.predict(check) == theirs).mean()


def test_many_classes_keep_at_most_half_the_leaves_of_c45s_tree_on_the_ensembles_decisions():
    # the default size with more than two classes: rule_budget of c4.5's tree grown on the
    # ensemble's decisions on the training rows (the target, half a distilled tree's
    # leaves); the unbudgeted pruning kept more here
    from c45rules.data.frame import from_frame
    from c45rules.imports.ensemble import rule_budget
    from c45rules.learn.pipeline import learn_tree
    X, y, _ = split("glass")
    model = RandomForestClassifier(n_estimators=30, max_depth=8, random_state=1).fit(X, y)
    table = X.copy()
    table["class"] = model.predict(X).astype(str)
    tree = learn_tree(from_frame(table, "class", continuous=list(X.columns)))
    budget = rule_budget(tree.pruned.leaves(), len(model.classes_))
    rs = from_ensemble(model, X)
    assert len(rs.rules) <= budget
    assert "max_rules" not in dict(rs.options)
    assert rule_budget(3, 4) == 3 and rule_budget(40, 4) == 20 and rule_budget(41, 3) == 20


def test_cli_imports_a_pickled_forest_with_its_training_table(tmp_path):
    import joblib
    X, y, X_test = split("crx")
    model = RandomForestClassifier(n_estimators=10, max_depth=5, random_state=0).fit(X, y)
    src, table, out = tmp_path / "forest.pkl", tmp_path / "train.csv", tmp_path / "rules.yaml"
    joblib.dump(model, src)
    X.assign(label=y).to_csv(table, index=False)
    code, stdout, err = run_cli(["import", str(src), "--data", str(table), "--target", "label", "-o", str(out),
                                 "--max-rules", "5"])
    assert (code, err) == (0, ""), err
    rs = load_yaml(out)
    assert rs == from_ensemble(model, X, max_rules=5)
    assert len(rs.rules) <= 5 and stdout.startswith(f"{len(rs.rules)} rules")
    # without its table a forest is refused by name, and nothing is written
    code, _, err = run_cli(["import", str(src), "-o", str(tmp_path / "no.yaml")])
    assert code == 2 and "add --data TRAIN --target COL" in err and not (tmp_path / "no.yaml").exists()
    code, _, err = run_cli(["import", str(src), "--max-rules", "3", "-o", str(tmp_path / "no.yaml")])
    assert code == 2 and "go with --data" in err


def test_cli_import_names_its_options_and_counts_one_rule_in_the_singular(tmp_path):
    import joblib
    X, y, _ = split("crx")
    model = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    src, table = tmp_path / "forest.pkl", tmp_path / "train.csv"
    joblib.dump(model, src)
    X.assign(label=y).to_csv(table, index=False)
    base = ["import", str(src), "--data", str(table), "--target", "label"]
    # a bad count is said in the command line's words, and nothing is written
    for flag, value in (("--max-rules", "0"), ("--synthetic", "-1"), ("--validate", "-2")):
        out = tmp_path / "no.yaml"
        code, _, err = run_cli(base + [flag, value, "-o", str(out)])
        assert code == 2 and f"{flag} must be a whole number" in err, err
        assert not out.exists()
    out = tmp_path / "one.yaml"
    code, stdout, err = run_cli(base + ["--max-rules", "1", "-o", str(out)])
    assert (code, err) == (0, ""), err
    assert len(load_yaml(out).rules) == 1 and stdout.startswith("1 rule, default class ")


def test_cli_import_help_says_pickles_run_code():
    code, stdout, _ = run_cli(["import", "--help"])
    text = " ".join(stdout.split())
    assert code == 0 and "RUNS CODE" in text and "--max-rules" in text


# Boosted ensembles: their trees are regression trees on the gradient, so no single one of them
# is a classifier to compare with. The floor instead: a decision tree distilled on the ensemble's
# own training decisions with as many leaves as the ruleset has rules (the anchor issue 53
# names), the same budget of root-to-leaf conditions read as one list.
def _boosted(kind: str, X: pd.DataFrame, y: np.ndarray):
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
    if kind == "gb":
        return GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    if kind == "hgb":
        return HistGradientBoostingClassifier(max_iter=30, max_depth=4, random_state=0).fit(X, y)
    if kind == "lgbm":
        lightgbm = pytest.importorskip("lightgbm")
        return lightgbm.LGBMClassifier(n_estimators=30, max_depth=3, num_leaves=8, n_jobs=1, verbose=-1).fit(X, y)
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBClassifier(n_estimators=30, max_depth=3, n_jobs=1).fit(X, np.unique(y, return_inverse=True)[1])


def distilled_fidelity(model, X: pd.DataFrame, X_test: pd.DataFrame, leaves: int) -> float:
    from sklearn.tree import DecisionTreeClassifier
    tree = DecisionTreeClassifier(max_leaf_nodes=max(leaves, 2), random_state=0)
    tree.fit(X, model.predict(X).astype(str))
    return float((tree.predict(X_test) == model.predict(X_test).astype(str)).mean())


@pytest.mark.parametrize("name, kind", [("crx", "hgb"), ("glass", "gb"), ("glass", "xgb"), ("crx", "xgb"),
                                        ("iris", "hgb"), ("crx", "lgbm"), ("glass", "lgbm")])
def test_rules_explain_a_boosted_ensemble_on_held_out_rows(name, kind):
    X, y, X_test = split(name)
    if kind == "gb":   # scikit-learn's GradientBoosting refuses NaN
        X, X_test = X.fillna(X.median()), X_test.fillna(X.median())
    model = _boosted(kind, X, y)
    rs = from_ensemble(model, X)
    want = model.predict(X_test).astype(str)
    fidelity = float((rs.predict(X_test) == want).mean())
    floor = distilled_fidelity(model, X, X_test, len(rs.rules))
    print(f"{name} {kind}: fidelity {fidelity:.3f} (distilled tree {floor:.3f}), {len(rs.rules)} rules")
    assert fidelity >= floor
    assert dict(rs.options)["ensemble_sha256"] == fingerprint(model)
    assert type(model).__name__ in dict(rs.options)["explains"]


@pytest.mark.parametrize("kind", ["gb", "hgb", "xgb", "lgbm"])
def test_boosted_rules_export_and_round_trip(kind, tmp_path):
    X, y, X_test = split("iris" if kind != "hgb" else "crx", nan=kind != "gb")
    model = _boosted(kind, X, y)
    rs = from_ensemble(model, X)
    assert rs.rules
    got = rs.predict(X_test)
    assert (sql_classes(rs, X_test, "sqlite") == got).all()
    assert (python_classes(rs, X_test, tmp_path) == got).all()
    back = load_yaml(dump_yaml(rs))
    assert back == rs and dict(back.options)["ensemble_sha256"] == fingerprint(model)


def test_boosted_node_labels_are_the_ensembles_decisions_routed_as_it_routes():
    # every training row reaches exactly one leaf of each tree, NaN by the learnt routing: the
    # leaves' counts of the ensemble's decisions add up to the root's, and each leaf's class is
    # its majority decision
    from c45rules.imports.boosted import hgb_trees, labelled_nodes
    X, y, _ = split("crx", nan=True)
    model = _boosted("hgb", X, y)
    decided = model.predict(X).astype(str)
    classes = sorted(set(decided))
    codes = np.array([classes.index(c) for c in decided])
    values = X.to_numpy(dtype=float)
    tree = hgb_trees(model)[0]
    root = labelled_nodes(tree, values, codes, len(classes))
    leaves, stack = [], [root]
    while stack:
        n = stack.pop()
        stack += n.branches
        leaves += [n] if n.is_leaf else []
    assert np.allclose(sum(n.class_dist for n in leaves), np.bincount(codes))
    assert all(n.klass == int(np.argmax(n.class_dist)) for n in leaves if n.items)


def _leaf_scores(tree, values: np.ndarray) -> np.ndarray:
    """Each row's leaf score in a PathTree, walked row by row (the test's own reading)."""
    out = np.empty(len(values))
    for r, x in enumerate(values):
        i = 0
        while tree.left[i] != -1:
            v = x[tree.feature[i]]
            i = tree.left[i] if (tree.nan_left[i] if np.isnan(v) else v <= tree.bound[i]) else tree.right[i]
        out[r] = tree.value[i]
    return out


@pytest.mark.parametrize("kind", ["gb", "hgb", "xgb", "lgbm"])
def test_path_trees_route_rows_as_the_library_does(kind):
    # a one-tree binary ensemble: its raw score is a constant plus the row's leaf score, so the
    # PathTree's routing (float32 bounds, NaN) must reach the leaf the library reaches on every row
    from c45rules.imports.boosted import gb_trees, hgb_trees, lgbm_trees, xgb_trees
    from c45rules.imports.ensemble import _xgb_doc
    X, y, X_test = split("crx", nan=kind != "gb")
    if kind == "gb":
        X, X_test = X.fillna(X.median()), X_test.fillna(X.median())
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
    if kind == "gb":
        model = GradientBoostingClassifier(n_estimators=1, max_depth=5, learning_rate=1.0).fit(X, y)
        tree, raw = gb_trees(model)[0], model.decision_function(X_test) - model._raw_predict_init(X_test).ravel()
    elif kind == "hgb":
        model = HistGradientBoostingClassifier(max_iter=1, max_depth=5, learning_rate=1.0).fit(X, y)
        tree, raw = hgb_trees(model)[0], model.decision_function(X_test) - model._baseline_prediction.ravel()
    elif kind == "lgbm":   # the first tree's leaves hold the initial score too
        lightgbm = pytest.importorskip("lightgbm")
        model = lightgbm.LGBMClassifier(n_estimators=1, num_leaves=20, verbose=-1, n_jobs=1).fit(X, y)
        tree, raw = lgbm_trees(model.booster_.dump_model())[0], model.predict(X_test, raw_score=True)
    else:
        xgboost = pytest.importorskip("xgboost")
        model = xgboost.XGBClassifier(n_estimators=1, max_depth=5, n_jobs=1, base_score=0.5)
        model.fit(X, np.unique(y, return_inverse=True)[1])
        tree = xgb_trees(_xgb_doc(model.get_booster()))[0]
        raw = model.predict(X_test, output_margin=True)
    scores = _leaf_scores(tree, X_test.to_numpy(dtype=float))
    if kind != "xgb":
        assert np.allclose(scores, raw)
    else:   # base_weights are the leaves' unscaled weights: compare which leaf, not the value
        assert len(set(zip(scores.round(6), np.asarray(raw).round(6)))) == len(set(scores.round(6)))


@pytest.mark.parametrize("booster", [False, True])
def test_boosted_trees_are_read_once_and_generalised_in_one_pass(monkeypatch, booster):
    # issue 53's speed on XGBoost income (100 rounds x 9 classes): the model's JSON was read five
    # times and each of its 900 trees generalised in a pass of its own, whose setup (the cases
    # sorted by every tested column) cost more than the tree. Now: read once, one pass in all
    xgboost = pytest.importorskip("xgboost")
    import c45rules.imports.boosted as boosted
    import c45rules.rules.generalize as generalize
    X, y, _ = split("iris", nan=True)
    model = xgboost.XGBClassifier(n_estimators=20, max_depth=3, n_jobs=1).fit(X, np.unique(y, return_inverse=True)[1])
    model = model.get_booster() if booster else model
    want = dump_yaml(from_ensemble(model, X))
    calls = {"json": 0, "pass": 0}

    def counted(name, f):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return f(*args, **kwargs)
        return wrapper
    monkeypatch.setattr(boosted, "xgb_booster_json", counted("json", boosted.xgb_booster_json))
    monkeypatch.setattr(generalize, "_generalise_all", counted("pass", generalize._generalise_all))
    assert dump_yaml(from_ensemble(model, X)) == want
    assert calls == {"json": 1, "pass": 1}


def test_categorical_splits_and_other_models_are_refused_by_name():
    from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier
    X, y, _ = split("crx")
    X = X.fillna(0.0).assign(kind=pd.Categorical(np.where(X["A2"] > 30, "old", "young")))
    model = HistGradientBoostingClassifier(max_iter=3, categorical_features="from_dtype").fit(X, y)
    with pytest.raises(InputError, match="categorical"):
        from_ensemble(model, X)
    with pytest.raises(InputError, match="GradientBoostingClassifier"):
        from_ensemble(AdaBoostClassifier(), X)


def test_cli_explains_an_xgboost_json_model_file(tmp_path):
    xgboost = pytest.importorskip("xgboost")
    X, y, _ = split("crx", nan=True)
    labels = np.unique(y, return_inverse=True)[1]
    booster = xgboost.XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1).fit(X, labels).get_booster()
    src, table, out = tmp_path / "xgb.json", tmp_path / "train.csv", tmp_path / "rules.yaml"
    booster.save_model(src)
    X.assign(label=labels).to_csv(table, index=False)
    code, stdout, err = run_cli(["import", str(src), "--data", str(table), "--target", "label", "-o", str(out)])
    assert (code, err) == (0, ""), err
    rs = load_yaml(out)
    loaded = xgboost.Booster(model_file=str(src))
    assert rs == from_ensemble(loaded, X)
    assert dict(rs.options)["ensemble_sha256"] == fingerprint(loaded)
    # the Booster decides as the classifier did: the rules' target is its decisions
    assert (rs.predict(X) == labels.astype(str)).mean() > 0.8
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, _, err = run_cli(["import", str(bad), "--data", str(table), "--target", "label", "-o", str(out) + "2"])
    assert code == 2 and "cannot be read as an XGBoost model" in err
    # a table without some of the model's features: named in the model's words, no option the user never gave
    X.drop(columns=["A2", "A14"]).assign(label=labels).to_csv(table, index=False)
    code, _, err = run_cli(["import", str(src), "--data", str(table), "--target", "label", "-o", str(out) + "3"])
    assert code == 2 and "has no column 'A2', 'A14', which the ensemble was fit on" in err, err
    assert "--continuous" not in err and not (tmp_path / "rules.yaml3").exists()


def test_cli_explains_a_lightgbm_text_model_file(tmp_path):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, _ = split("glass", nan=True)
    model = lightgbm.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, n_jobs=1).fit(X, y)
    src, table, out = tmp_path / "lgbm.txt", tmp_path / "train.csv", tmp_path / "rules.yaml"
    model.booster_.save_model(str(src))
    X.assign(label=y).to_csv(table, index=False)
    code, stdout, err = run_cli(["import", str(src), "--data", str(table), "--target", "label", "-o", str(out)])
    assert (code, err) == (0, ""), err
    rs = load_yaml(out)
    loaded = lightgbm.Booster(model_file=str(src))
    assert rs == from_ensemble(loaded, X) and len(rs.schema.classes) > 2
    assert dict(rs.options)["ensemble_sha256"] == fingerprint(loaded)
    # the Booster's decisions (class indices) are the classifier's, numbered
    index = {c: str(i) for i, c in enumerate(model.classes_)}
    assert (rs.predict(X) == np.array([index[c] for c in model.predict(X)])).mean() > 0.8
    with pytest.raises(InputError, match="zero_as_missing"):
        from_ensemble(lightgbm.LGBMClassifier(n_estimators=2, zero_as_missing=True, verbose=-1).fit(X, y), X)


# explain and report with the ensemble the rules explain (issue 53, point 3)
def _rf_rules(name: str = "crx", seed: int = 0):
    X, y, X_test = split(name)
    model = RandomForestClassifier(n_estimators=20, max_depth=5, random_state=seed).fit(X, y)
    return model, from_ensemble(model, X), X, y, X_test


def test_explain_says_whether_the_ensemble_agrees():
    model, rs, X, _, X_test = _rf_rules()
    theirs = model.predict(X_test).astype(str)
    ours = rs.predict(X_test)
    for i in [int(np.flatnonzero(ours == theirs)[0]), int(np.flatnonzero(ours != theirs)[0])]:
        e = explain_case(rs, X_test.iloc[i], model)
        assert e.prediction == ours[i] and e.ensemble == theirs[i] and e.agrees == (ours[i] == theirs[i])
        assert e.as_dict()["ensemble"] == {"class": theirs[i], "agrees": bool(ours[i] == theirs[i])}
        last = str(e).splitlines()[-1]
        assert last == ("the ensemble agrees" if e.agrees else f"the ensemble disagrees: it decides {theirs[i]}")
    assert "ensemble" not in rs.explain(X_test.iloc[0]).as_dict()
    other = RandomForestClassifier(n_estimators=20, max_depth=5, random_state=1).fit(X, split("crx")[1])
    with pytest.raises(InputError, match="different model from the one the rules explain"):
        explain_case(rs, X_test.iloc[0], other)


def test_agreement_counts_by_class_and_rule():
    from c45rules.data.frame import encode_frame
    from c45rules.imports.fidelity import agreement
    model, rs, _, _, X_test = _rf_rules("glass")
    a = agreement(rs, model, encode_frame(X_test, rs.schema, require=()))
    theirs, ours = model.predict(X_test).astype(str), rs.predict(X_test)
    assert (a.rows, a.agreed) == (len(X_test), int((theirs == ours).sum())) and a.agreed < a.rows
    assert {c: (n, ok) for c, n, ok in a.by_class} == {
        c: (int((theirs == c).sum()), int(((theirs == c) & (ours == c)).sum())) for c in set(theirs)}
    first = rs.rule_index(X_test)
    ids = [0] + [r.id for r in rs.rules]
    for rid, klass, n, wrong in a.by_rule:
        k = ids.index(rid)
        assert n == int((first == k).sum()) and wrong == int(((first == k) & (theirs != ours)).sum()) > 0
        assert klass == (rs.default_class if rid == 0 else rs.rules[k - 1].prediction)
    assert [w for *_, w in a.by_rule] == sorted((w for *_, w in a.by_rule), reverse=True)
    assert sum(w for *_, w in a.by_rule) == a.rows - a.agreed


def test_cli_explain_and_report_with_the_ensemble(tmp_path):
    import joblib
    model, rs, X, y, X_test = _rf_rules()
    src, table, rules, held = tmp_path / "forest.pkl", tmp_path / "train.csv", tmp_path / "rules.yaml", tmp_path / "test.csv"
    joblib.dump(model, src)
    X.assign(label=y).to_csv(table, index=False)
    X_test.assign(label=model.predict(X_test)).to_csv(held, index=False)
    assert run_cli(["import", str(src), "--data", str(table), "--target", "label", "-o", str(rules)])[0] == 0
    theirs, ours = model.predict(X_test).astype(str), rs.predict(X_test)
    i = int(np.flatnonzero(ours != theirs)[0])
    code, out, err = run_cli(["explain", str(rules), "--row-number", str(i + 1), "--data", str(held),
                              "--ensemble", str(src), "--json"])
    assert (code, err) == (0, ""), err
    import json
    assert json.loads(out)["ensemble"] == {"class": theirs[i], "agrees": False}
    page = tmp_path / "report.html"
    code, _, err = run_cli(["report", str(rules), "--data", str(held), "--target", "label", "--ensemble", str(src),
                            "-o", str(page)])
    assert (code, err) == (0, ""), err
    html = page.read_text()
    agreed = int((theirs == ours).sum())
    assert f'id="fid-rows">{len(X_test)}<' in html and f'id="fid-agreed">{agreed}<' in html
    assert 'id="fid-classes"' in html and 'id="fid-rules"' in html
    # another forest: refused by name, nothing written
    other = tmp_path / "other.pkl"
    joblib.dump(RandomForestClassifier(n_estimators=3, max_depth=2, random_state=5).fit(X, y), other)
    for argv in (["explain", str(rules), "--row-number", "1", "--data", str(held), "--ensemble", str(other)],
                 ["report", str(rules), "--data", str(held), "--target", "label", "--ensemble", str(other),
                  "-o", str(tmp_path / "no.html")]):
        code, _, err = run_cli(argv)
        assert code == 2 and "other.pkl: the ensemble given is a different model" in err, err
    assert not (tmp_path / "no.html").exists()
    code, _, err = run_cli(["report", str(rules), "--ensemble", str(src), "-o", str(tmp_path / "no.html")])
    assert code == 2 and "--ensemble goes with --data" in err


# rows near the training rows, labelled by the ensemble (issue 53, point 2)
def test_synthetic_rows_are_seeded_and_judge_the_rules_on_more_decisions(tmp_path):
    from c45rules.imports.ensemble import near_rows
    X, y, X_test = split("crx", nan=True)
    values = X.to_numpy(dtype=float)
    near = near_rows(values, 2, seed=4)
    assert near.shape == (2 * len(X), X.shape[1]) and np.array_equal(near, near_rows(values, 2, seed=4), equal_nan=True)
    assert not np.array_equal(near, near_rows(values, 2, seed=5), equal_nan=True)
    # each synthetic value is its row's own or the same column's value of another training row
    for j in range(values.shape[1]):
        seen = set(values[~np.isnan(values[:, j]), j])
        assert set(near[~np.isnan(near[:, j]), j]) <= seen
    X, y, X_test = split("crx")
    model = _boosted("xgb", X, y)
    rs = from_ensemble(model, X, synthetic=2, seed=4)
    assert rs == from_ensemble(model, X, synthetic=2, seed=4)
    assert sum(rs.class_counts) == 3 * len(X)           # judged on the table and twice as many near rows
    assert (dict(rs.options)["synthetic"], dict(rs.options)["seed"]) == (2, 4)
    want = model.predict(X_test).astype(str)
    fidelity = float((rs.predict(X_test) == want).mean())
    assert fidelity >= distilled_fidelity(model, X, X_test, len(rs.rules))
    with pytest.raises(InputError, match="synthetic must be a whole number >= 0"):
        from_ensemble(model, X, synthetic=-1)
    # the command line: --synthetic N, the same rules
    import joblib
    src, table, out = tmp_path / "m.pkl", tmp_path / "train.csv", tmp_path / "rules.yaml"
    joblib.dump(model, src)
    X.assign(label=np.unique(y, return_inverse=True)[1]).to_csv(table, index=False)
    code, _, err = run_cli(["import", str(src), "--data", str(table), "--target", "label", "--synthetic", "2",
                            "-o", str(out)])
    assert (code, err) == (0, ""), err
    assert load_yaml(out).rules == from_ensemble(model, X, synthetic=2).rules
