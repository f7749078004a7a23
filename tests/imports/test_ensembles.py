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
    X, y, _ = split("glass")
    model = RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0).fit(X, y)
    full = from_ensemble(model, X)
    assert len(full.rules) > 3
    short = from_ensemble(model, X, max_rules=3)
    assert [r.conditions for r in short.rules] == [r.conditions for r in full.rules[:3]]
    # the default: the forest's most frequent decision on the rows none of the 3 rules covers
    decided = model.predict(X).astype(str)
    left = pd.Series(decided[short.rule_index(X) == 0]).value_counts()
    assert left[short.default_class] == left.max()
    assert dict(short.options)["max_rules"] == 3


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


def test_cli_import_help_says_pickles_run_code():
    code, stdout, _ = run_cli(["import", "--help"])
    text = " ".join(stdout.split())
    assert code == 0 and "RUNS CODE" in text and "--max-rules" in text
