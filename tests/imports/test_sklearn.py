"""from_sklearn: a fitted scikit-learn tree as a RuleSet that decides as clf.predict on every row.

Each case fits a tree on the continuous columns of a shared dataset and checks RuleSet.predict,
the SQL export run in SQLite and in DuckDB, and the exported Python module against clf.predict
on the data with its own unknowns, the data with NaN injected at random, and probe rows at,
just above and just below every threshold (where float32 rounding decides).
"""
from __future__ import annotations

import importlib.util
import math
import sqlite3
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

sklearn_tree = pytest.importorskip("sklearn.tree")
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier  # noqa: E402

import c45rules  # noqa: E402
from c45rules import Condition, InputError, ModelError, from_sklearn  # noqa: E402
from c45rules.data import load_stem  # noqa: E402
from c45rules.data.frame import value_str  # noqa: E402
from c45rules.export import to_python, to_sql_select  # noqa: E402
from c45rules.export.pmml import to_pmml  # noqa: E402
from c45rules.export.yaml import dump_yaml, load_yaml  # noqa: E402

import reference  # noqa: E402

DATA = Path(reference.DATA)
SETS = ("iris", "credit-g", "crx", "glass")


def continuous_frame(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """(X of the set's continuous columns, unknowns as NaN; y as class texts) of a shared set."""
    ds, _ = load_stem(DATA / name / name)
    X = pd.DataFrame({a.name: c for a, c in zip(ds.schema.attributes, ds.columns) if a.is_continuous})
    return X, np.array(ds.schema.classes, dtype=object)[ds.y]


def with_nan(X: pd.DataFrame, share: float = 0.15, seed: int = 7) -> pd.DataFrame:
    """X with NaN at random in `share` of its cells."""
    rng = np.random.default_rng(seed)
    return X.mask(rng.random(X.shape) < share)


def probes(clf, X: pd.DataFrame) -> pd.DataFrame:
    """Rows of X with one feature set at each threshold, its double and float32 neighbours, or NaN."""
    tree = clf.tree_
    base = X.iloc[np.arange(len(X)) % 7 == 0].reset_index(drop=True)
    rows = []
    for node in np.flatnonzero(tree.children_left != -1)[:60]:
        f, t = int(tree.feature[node]), float(tree.threshold[node])
        t32 = np.float32(t)
        values = [t, math.nextafter(t, math.inf), math.nextafter(t, -math.inf), float(t32),
                  float(np.nextafter(t32, np.float32(np.inf))), float(np.nextafter(t32, np.float32(-np.inf))),
                  (float(t32) + float(np.nextafter(t32, np.float32(np.inf)))) / 2,
                  (float(t32) + float(np.nextafter(t32, np.float32(-np.inf)))) / 2, math.nan]
        # scikit-learn refuses values beyond float32 (an infinite threshold: only NaN goes right)
        values = [float(v) for v in values if not abs(float(v)) > float(np.finfo(np.float32).max)]
        for k, v in enumerate(values):
            row = base.iloc[(node + k) % len(base)].copy()
            row.iloc[f] = v
            rows.append(row)
    return pd.DataFrame(rows).reset_index(drop=True).astype(float)


def expected(clf, X: pd.DataFrame) -> np.ndarray:
    return np.array([value_str(v) for v in clf.predict(X)], dtype=object)


def sql_classes(rs, X: pd.DataFrame, engine: str) -> np.ndarray:
    """The SQL export's class for each row of X, run in SQLite or DuckDB."""
    frame = X.copy()
    frame.insert(0, "row_", np.arange(len(X)))
    sql = to_sql_select(rs, "cases", engine)
    if engine == "sqlite":
        con = sqlite3.connect(":memory:")
        frame.to_sql("cases", con, index=False)
        got = pd.read_sql_query(sql, con)
        con.close()
    else:
        con = duckdb.connect()
        con.register("cases", frame)
        got = con.execute(sql).df()
        con.close()
    return got.sort_values("row_")["predicted_class"].to_numpy(dtype=object)


def python_classes(rs, X: pd.DataFrame, tmp_path: Path) -> np.ndarray:
    path = tmp_path / "model_module.py"
    path.write_text(to_python(rs), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"exported_{abs(hash(str(path)))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return np.array([mod.predict(r) for r in X.to_dict("records")], dtype=object)


def assert_agrees(clf, rs, frames: list[pd.DataFrame], tmp_path: Path) -> None:
    """RuleSet.predict, SQLite, DuckDB and the Python module equal clf.predict on every row."""
    X = pd.concat(frames, ignore_index=True)   # one SQL text per engine: sqlglot writes it slowly
    want = expected(clf, X)
    assert (rs.predict(X) == want).all()
    assert (sql_classes(rs, X, "sqlite") == want).all()
    assert (sql_classes(rs, X, "duckdb") == want).all()
    assert (python_classes(rs, X, tmp_path) == want).all()


VARIANTS = {
    "full": lambda: DecisionTreeClassifier(random_state=0),
    "depth4": lambda: DecisionTreeClassifier(max_depth=4, random_state=0),
    "leaf5": lambda: DecisionTreeClassifier(min_samples_leaf=5, criterion="entropy", random_state=0),
    "extra": lambda: ExtraTreeClassifier(min_samples_leaf=3, random_state=0),
}


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_agrees_with_predict_on_every_row(name, variant, tmp_path):
    X, y = continuous_frame(name)
    clf = VARIANTS[variant]().fit(X, y)
    rs = from_sklearn(clf)
    assert len(rs.rules) == clf.get_n_leaves()
    assert rs.schema.names == tuple(X.columns)
    assert_agrees(clf, rs, [X, with_nan(X), probes(clf, X)], tmp_path)


@pytest.mark.parametrize("name", SETS)
def test_fit_on_nan_learns_where_unknowns_go_and_still_agrees(name, tmp_path):
    X, y = continuous_frame(name)
    Xn = with_nan(X, 0.2, seed=3)
    clf = DecisionTreeClassifier(max_depth=6, random_state=1).fit(Xn, y)
    rs = from_sklearn(clf)
    inner = clf.tree_.children_left != -1
    # learned from NaN in training: some nodes send unknowns left, and the rules say so
    assert clf.tree_.missing_go_to_left[inner].any()
    assert any(c.or_unknown and c.op == "<=" for r in rs.rules for c in r.conditions)
    assert_agrees(clf, rs, [Xn, with_nan(X, seed=11), probes(clf, Xn)], tmp_path)


def test_conditions_evidence_and_default_on_iris():
    X, y = continuous_frame("iris")
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    rs = from_sklearn(clf)
    # fit without NaN: unknowns go to the child that saw more cases (100 right of 0.8, 54 left of 1.75)
    assert [[str(c) for c in r.conditions] for r in rs.rules] == [
        ["petalwidth <= 0.8"], ["petalwidth > 0.8 or unknown", "petalwidth <= 1.75 or unknown"],
        ["petalwidth > 1.75"]]
    assert rs.rules[0].conditions[0].value == 0.8000000417232512   # float32(x) <= 0.8 exactly below
    assert [r.prediction for r in rs.rules] == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]
    assert [(r.id, r.covered, r.errors) for r in rs.rules] == [(1, 50, 0), (2, 54, 5), (3, 46, 1)]
    assert [r.error_rate for r in rs.rules] == [0.0273451, 0.133949, 0.0561053]
    assert rs.class_counts == (50, 50, 50)
    assert rs.default_class == "Iris-setosa"   # root majority: a three-way tie, the first class
    why = rs.explain({"petalwidth": None, "petallength": 5.5})
    assert why.rule.id == 2
    assert "  petalwidth > 0.8 or unknown   (petalwidth = unknown: yes)" in str(why)
    assert "rule 2: if (petalwidth > 0.8 or unknown) and (petalwidth <= 1.75 or unknown) then" in str(rs.rules[1])


def test_single_condition_per_direction_and_class_labels_ints_bools(tmp_path):
    X, y = continuous_frame("credit-g")
    for labels in ((y == "good").astype(int), y == "good"):
        clf = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, labels)
        rs = from_sklearn(clf)
        assert rs.schema.classes == tuple(value_str(c) for c in clf.classes_)
        assert set(rs.schema.classes) in ({"0", "1"}, {"False", "True"})
        for r in rs.rules:   # one test per feature and direction after merging the path
            keys = [(c.attribute, c.op) for c in r.conditions]
            assert len(keys) == len(set(keys))
        assert_agrees(clf, rs, [with_nan(X)], tmp_path)


def test_hostile_feature_names_are_escaped(tmp_path):
    X, y = continuous_frame("iris")
    hostile = ['a"; DROP TABLE cases; --', "b') or 1=1 #", "c\\ \"quoted\" 'x'", "d\nnew line"]
    X.columns = hostile
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    rs = from_sklearn(clf)
    assert set(rs.used_attributes()) <= set(hostile)
    assert_agrees(clf, rs, [with_nan(X), probes(clf, X)], tmp_path)


def test_feature_and_class_names_given(tmp_path):
    X, y = continuous_frame("glass")
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.to_numpy(), y)
    plain = from_sklearn(clf)
    assert plain.schema.names == tuple(f"x{i}" for i in range(X.shape[1]))
    named = from_sklearn(clf, feature_names=list(X.columns),
                         class_names=[f"type {c}" for c in clf.classes_])
    assert named.schema.names == tuple(X.columns)
    assert named.schema.classes[0] == f"type {clf.classes_[0]}"
    want = np.array([f"type {v}" for v in clf.predict(X.to_numpy())], dtype=object)
    assert (named.predict(X) == want).all()


def test_yaml_round_trip_keeps_or_unknown_and_old_models_stay_byte_identical():
    X, y = continuous_frame("crx")
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    rs = from_sklearn(clf)
    text = dump_yaml(rs)
    assert "or_unknown: true" in text
    back = load_yaml(text)
    assert back == rs
    assert sum(c.or_unknown for r in back.rules for c in r.conditions) == \
        sum(c.or_unknown for r in rs.rules for c in r.conditions) > 0
    # a condition without the flag writes no or_unknown key at all
    fitted = c45rules.fit(str(DATA / "golf" / "golf"))
    assert "or_unknown" not in dump_yaml(fitted)


def test_or_unknown_in_sql_text_and_yaml_refusals():
    X, y = continuous_frame("iris")
    rs = from_sklearn(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y))
    lite = to_sql_select(rs, "c", "sqlite", pretty=False)
    # the only tested column, petalwidth, read as a number once per row as "n"."c1" (export/sql.py)
    assert 'AS "c1"' in lite and '"t"."petalwidth"' in lite
    assert '("n"."c1" <= 1.7500000596046448 OR "n"."c1" IS NULL)' in lite
    assert '("n"."c1" > 0.8000000417232512 OR "n"."c1" IS NULL)' in lite
    duck = to_sql_select(rs, "c", "duckdb", pretty=False)
    assert ('("n"."c1" IS NULL OR NOT ("n"."c1" > 1.7500000596046448'
            " AND \"n\".\"c1\" <> CAST('NaN' AS DOUBLE)))") in duck
    assert '("n"."c1" IS NULL OR NOT ("n"."c1" <= 0.8000000417232512))' in duck
    text = dump_yaml(rs)
    flagged = 'op: "<=", value: 1.7500000596046448, or_unknown: true'
    assert flagged in text
    with pytest.raises(ModelError, match=r"rules\[1\]\.conditions\[1\]\.or_unknown: expected true or false"):
        load_yaml(text.replace(flagged, flagged.replace("true", '"yes"')))


def test_duckdb_nan_values_count_as_unknown():
    # DuckDB holds NaN apart from NULL and orders it above every number: still unknown
    X, y = continuous_frame("iris")
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    rs = from_sklearn(clf)
    Xn = with_nan(X, 0.3)
    con = duckdb.connect()
    con.register("raw", Xn.fillna(-12345.0))
    nan_cols = ", ".join(f"CASE WHEN \"{c}\" = -12345.0 THEN CAST('NaN' AS DOUBLE) ELSE \"{c}\" END AS \"{c}\""
                         for c in Xn.columns)
    con.execute(f"CREATE TABLE cases AS SELECT row_number() OVER () AS row_, {nan_cols} FROM raw")
    assert con.execute("SELECT count(*) FROM cases WHERE isnan(petallength)").fetchone()[0] > 0
    got = con.execute(to_sql_select(rs, "cases", "duckdb") + " ORDER BY row_").df()["predicted_class"]
    assert (got.to_numpy(dtype=object) == expected(clf, Xn)).all()


def test_pmml_export_refuses_or_unknown():
    X, y = continuous_frame("iris")
    rs = from_sklearn(DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y))
    with pytest.raises(ModelError, match=r"rules\[1\] \(id 2\)\.conditions\[0\]: petalwidth > 0\.8 or unknown accepts unknown"
                                         " values, which the PMML"
                                         " export does not write"):
        to_pmml(rs)


def test_refusals():
    X, y = continuous_frame("iris")
    with pytest.raises(InputError, match="DecisionTreeClassifier is not fitted"):
        from_sklearn(DecisionTreeClassifier())
    with pytest.raises(InputError, match="not sklearn.tree._classes.DecisionTreeRegressor"):
        from_sklearn(DecisionTreeRegressor().fit(X, np.arange(len(X))))
    with pytest.raises(InputError, match="not builtins.dict"):
        from_sklearn({})
    two = DecisionTreeClassifier(max_depth=2).fit(X, np.stack([y, y], axis=1))
    with pytest.raises(InputError, match="predicts 2 outputs"):
        from_sklearn(two)
    clf = DecisionTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(InputError, match="feature_names has 3 names; the tree was fit on 4 features"):
        from_sklearn(clf, feature_names=["a", "b", "c"])
    with pytest.raises(InputError, match="feature_names differ from the names the tree was fit with"):
        from_sklearn(clf, feature_names=["a", "b", "c", "d"])
    with pytest.raises(InputError, match="two classes are both written 'a'"):
        from_sklearn(clf, class_names=["a", "a", "b"])


def test_single_leaf_tree_gives_the_default_class_only():
    X, y = continuous_frame("iris")
    clf = DecisionTreeClassifier(max_depth=1, min_samples_split=1000).fit(X, y)
    rs = from_sklearn(clf)
    assert rs.rules == () and rs.default_class == value_str(clf.classes_[0])
    assert (rs.predict(X) == expected(clf, X)).all()


def test_with_data_runs_c45_rules_steps_on_the_tree():
    X, y = continuous_frame("crx")
    clf = DecisionTreeClassifier(min_samples_leaf=5, random_state=0).fit(X, y)
    imported = from_sklearn(clf)
    rs = from_sklearn(clf, data=(X, y))
    # C4.5-rules drops conditions and rules: fewer, shorter rules than leaves, none 'or unknown'
    assert 0 < len(rs.rules) < len(imported.rules)
    assert all(not c.or_unknown for r in rs.rules for c in r.conditions)
    # every threshold is one of the tree's (as float32 bounds), on the feature it split
    bounds = {(c.attribute, c.value) for r in imported.rules for c in r.conditions}
    assert all((c.attribute, c.value) in bounds for r in rs.rules for c in r.conditions)
    # evidence measured on the data: the cases each rule covers
    mask = np.ones(len(X), dtype=bool)
    for c in rs.rules[0].conditions:
        col = X[c.attribute].to_numpy()
        mask &= (col <= c.value) if c.op == "<=" else (col > c.value)
    assert rs.rules[0].covered == int(mask.sum())
    assert dict(rs.options)["imported_from"] == "sklearn DecisionTreeClassifier"
    with pytest.raises(InputError, match="y holds 'x', which is not a class of the tree"):
        from_sklearn(clf, data=(X, np.where(np.arange(len(y)) == 3, "x", y)))


# ---- c45rules import MODEL.joblib ---------------------------------------------------------------
def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `c45rules ARGV` in this process."""
    import contextlib
    import io

    from c45rules.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def test_cli_imports_a_joblib_tree(tmp_path):
    import joblib
    X, y = continuous_frame("crx")
    clf = DecisionTreeClassifier(max_depth=5, random_state=0).fit(with_nan(X), y)
    src, out = tmp_path / "tree.joblib", tmp_path / "model.yaml"
    joblib.dump(clf, src)
    code, stdout, err = run_cli(["import", str(src), "-o", str(out)])
    assert (code, err) == (0, "")
    rs = load_yaml(out)
    assert rs == from_sklearn(clf)
    assert stdout.startswith(f"{clf.get_n_leaves()} rules, default class ")
    assert_agrees(clf, rs, [with_nan(X, seed=5)], tmp_path)
    # found by its content whatever its name, compressed too
    other = tmp_path / "tree.bin"
    joblib.dump(clf, other, compress=3)
    assert run_cli(["import", str(other), "-o", str(tmp_path / "again.yaml")])[0] == 0
    assert load_yaml(tmp_path / "again.yaml") == rs


def test_cli_import_help_warns_that_loading_runs_code():
    code, stdout, _ = run_cli(["import", "--help"])
    text = " ".join(stdout.split())   # as wrapped to the terminal's width
    assert code == 0 and "loading one RUNS CODE stored in it, so import only files you trust" in text


@pytest.mark.parametrize("obj, message", [
    ({"a": 1}, "expected a fitted scikit-learn DecisionTreeClassifier or ExtraTreeClassifier, not builtins.dict"),
    (DecisionTreeClassifier(), "the DecisionTreeClassifier is not fitted"),
    (DecisionTreeRegressor(max_depth=2).fit([[0.0], [1.0]], [0.0, 1.0]),
     "not sklearn.tree._classes.DecisionTreeRegressor"),
])
def test_cli_import_refuses_what_is_not_a_fitted_tree_classifier(tmp_path, obj, message):
    import joblib
    src = tmp_path / "thing.joblib"
    joblib.dump(obj, src)
    out = tmp_path / "model.yaml"
    code, stdout, err = run_cli(["import", str(src), "-o", str(out)])
    assert code == 2 and stdout == ""
    assert err.startswith(f"c45rules: error: {src}: ") and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_cli_import_refuses_a_broken_joblib_file(tmp_path):
    src = tmp_path / "broken.joblib"
    src.write_bytes(b"\x80\x04this is not a pickle")
    code, _, err = run_cli(["import", str(src), "-o", str(tmp_path / "m.yaml")])
    assert code == 2 and err.startswith(f"c45rules: error: {src}: cannot be read as a joblib file (")
