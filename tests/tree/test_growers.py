"""Every grower feeds the same rules, exports, explain, rescore and report; the registry,
the options each grower records, and the id3 grower."""
from __future__ import annotations

import pickle
import sqlite3

import numpy as np
import pytest

import c45rules
import reference as R
from c45rules import InputError
from c45rules.data import load_stem
from c45rules.export import dump_yaml, load_yaml, to_python, to_sql_select
from c45rules.govern.rescore import rescore
from c45rules.learn.pipeline import fit_dataset
from c45rules.export.report import render_report
from c45rules.tree.growers import NAMES, get_grower, tree_classes
from c45rules.tree.node import Node


def _stem(name):
    return load_stem(R.stem(name), test=True)


def test_registry_finds_each_grower_by_name():
    assert NAMES == ("c45", "cart", "id3", "j48", "chaid", "quest")
    train, _ = _stem("iris")
    leaves = {name: get_grower(name)(train, {}).pruned.leaves() for name in NAMES}
    assert leaves == {"c45": 5, "cart": 3, "id3": 9, "j48": 5, "chaid": 2, "quest": 3}
    with pytest.raises(InputError, match="unknown grower 'c50' \\(known: c45, cart, id3, j48, chaid, quest\\)"):
        get_grower("c50")


def test_c45_through_the_registry_is_the_tree_as_before():
    from c45rules.tree.classify import classify
    from c45rules.tree.grow import grow_tree
    from c45rules.tree.prune import prune_tree
    train, test = _stem("crx")
    tree = get_grower("c45")(train, {"cf": 0.25})
    pruned = prune_tree(grow_tree(train), train)
    assert tree.pruned.size() == pruned.size() == 58
    assert (classify(tree.pruned, test) == classify(pruned, test)).all()
    assert (tree_classes(tree, test) == classify(pruned, test)).all()


@pytest.mark.parametrize("grower", ["cart", "id3", "j48", "chaid", "quest"])
def test_rules_yaml_sql_python_and_rescore_from_any_grower(grower, tmp_path):
    train, test = _stem("crx")
    rs, tree, _ = fit_dataset(train, grower=grower)
    assert tree.options["grower"] == grower
    assert dict(rs.options)["grower"] == grower
    # YAML round trip, equal and byte-identical again
    text = dump_yaml(rs)
    back = load_yaml(text)
    assert back == rs and dump_yaml(back) == text
    # SQL on SQLite decides as the library, row for row
    expected = rs.predict(test)
    cols = [a for a in train.schema.attributes if a.kind != "ignore"]
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (" + ", ".join(f'"{a.name}" {"REAL" if a.is_continuous else "TEXT"}' for a in cols) + ")")
    rows = [tuple(None if (a.is_continuous and np.isnan(test.columns[i][r])) or (a.is_discrete and test.columns[i][r] < 0)
                  else float(test.columns[i][r]) if a.is_continuous else a.values[test.columns[i][r]]
                  for i, a in enumerate(train.schema.attributes) if a.kind != "ignore") for r in range(test.n)]
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(cols))})", rows)
    got = [r[0] for r in con.execute(f"SELECT predicted_class FROM ({to_sql_select(rs, 't', 'sqlite')})")]
    assert got == list(expected)
    # the standalone Python module decides alike
    path = tmp_path / "model.py"
    path.write_text(to_python(rs))
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    records = [dict(zip([a.name for a in cols], r)) for r in rows]
    assert [ns["predict"](rec) for rec in records] == list(expected)
    # rescore on the training data keeps the model as it is
    assert dump_yaml(rescore(rs, train)) == text
    # explain and the report take it too
    assert [rs.explain(rec).prediction for rec in records[:20]] == list(expected[:20])
    assert "<svg" in render_report(rs, tree, test)


def test_cart_rules_come_from_the_cart_tree():
    train, _ = _stem("iris")
    rs, tree, _ = fit_dataset(train, grower="cart")
    tests = {(c.attribute, c.op, c.value) for r in rs.rules for c in r.conditions}
    # the thresholds are the double just below rpart's midpoints 2.45 and 1.75
    assert ("petallength", "<=", float(np.nextafter(2.45, -np.inf))) in tests
    assert {a for a, _, _ in tests} <= {"petallength", "petalwidth"}
    assert int((rs.predict(train) != np.array(train.schema.classes)[train.y]).sum()) == 6


def test_options_recorded_per_grower_and_c45_models_unchanged():
    train, _ = _stem("golf")
    c45 = dict(fit_dataset(train)[0].options)
    assert set(c45) == {"cf", "min_objs", "gain_ratio", "subset", "rules_cf", "fisher", "redundancy",
                        "annealing", "seed"}          # as before growers: no grower key
    cart = dict(fit_dataset(train, grower="cart", cp=0.0, minsplit=2)[0].options)
    assert cart == {"cf": 0.25, "rules_cf": None, "fisher": None, "redundancy": 1.0, "annealing": False,
                    "seed": None, "grower": "cart", "cp": 0.0, "minsplit": 2, "minbucket": None, "maxdepth": 30,
                    "usesurrogate": 2, "maxsurrogate": 5, "xval": 0}
    assert dict(fit_dataset(train, grower="id3")[0].options)["grower"] == "id3"


def test_an_option_of_another_grower_is_refused():
    train, _ = _stem("golf")
    with pytest.raises(InputError, match=r"option\(s\) cp belong to another grower, not to grower 'c45'"):
        fit_dataset(train, cp=0.02)
    with pytest.raises(InputError, match=r"option\(s\) min_objs belong to another grower, not to grower 'cart'"):
        fit_dataset(train, grower="cart", min_objs=5)
    with pytest.raises(InputError, match="option grower must be one of c45, cart, id3, j48, chaid, quest, got 'c50'"):
        fit_dataset(train, grower="c50")


def test_fit_and_estimator_take_grower():
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(R.DATA / "iris" / "iris.csv")
    target = frame.columns[-1]
    rs = c45rules.fit(frame, target=target, grower="cart")
    assert dict(rs.options)["grower"] == "cart"
    with pytest.warns(FutureWarning, match=r"use C45Rules\(tree=CART\(cp=0.0, minbucket=1, minsplit=2\)\)"):
        model = c45rules.C45Rules(grower="cart", cp=0.0, minsplit=2, minbucket=1)   # the flat spelling, deprecated
    model.fit(frame.drop(columns=[target]), frame[target])
    assert model.tree_.options["grower"] == "cart" and model.tree_.pruned.leaves() == 9
    assert model.get_params()["tree"].name == "cart"
    new = c45rules.C45Rules(tree=c45rules.CART(cp=0.0, minsplit=2, minbucket=1)).fit(frame.drop(columns=[target]),
                                                                                    frame[target])
    assert new.ruleset_ == model.ruleset_


def test_nodes_pickled_before_the_cart_fields_load_with_their_defaults():
    node = Node(1, 3.0, 0.0, np.array([0.0, 3.0]))
    state = (None, {name: getattr(node, name) for name in ("klass", "items", "errors", "class_dist", "kind",
                                                          "attribute", "cut", "subsets", "branches")})
    old = Node.__new__(Node)
    old.__setstate__(state)
    assert (old.complexity, old.surrogates, old.majority) == (0.0, (), -1)
    again = pickle.loads(pickle.dumps(old))
    assert again.klass == 1 and again.majority == -1


# ---- id3 ---------------------------------------------------------------------------------------
def test_id3_on_golf_is_the_textbook_tree():
    train, _ = _stem("golf")
    root = get_grower("id3")(train, {}).pruned
    schema = train.schema
    assert schema.attributes[root.attribute].name == "outlook" and root.kind == "discrete"
    by_value = {schema.attributes[root.attribute].values[v]: b for v, b in enumerate(root.branches)}
    assert by_value["overcast"].is_leaf and schema.classes[by_value["overcast"].klass] == "Play"
    sunny, rain = by_value["sunny"], by_value["rain"]
    assert (schema.attributes[sunny.attribute].name, sunny.kind, sunny.cut) == ("humidity", "threshold", 70.0)
    assert schema.attributes[rain.attribute].name == "windy"
    assert root.leaves() == 5 and all(n.errors == 0 for n in root.walk() if n.is_leaf)


def test_id3_is_unpruned_and_stops_only_at_pure_nodes_or_no_gain():
    train, test = _stem("crx")
    tree = get_grower("id3")(train, {})
    assert tree.pruned is tree.unpruned
    leaves = [n for n in tree.pruned.walk() if n.is_leaf]
    assert sum(n.items for n in leaves) == train.n
    # every impure leaf has no attribute left with a positive gain: conflicting cases
    assert int((tree_classes(tree, train) != train.y).sum()) == 0
    assert int((tree_classes(tree, test) != test.y).sum()) == 48
    # conflicting identical cases make an impure leaf
    monk = _stem("monk1")[0]
    t = get_grower("id3")(monk, {})
    assert int((tree_classes(t, monk) != monk.y).sum()) == 2


def test_id3_sends_unknown_values_down_the_largest_branch():
    train, _ = _stem("vote_weka")
    tree = get_grower("id3")(train, {})
    root = tree.pruned
    sizes = [b.items for b in root.branches]
    assert root.majority == int(np.argmax(sizes))
    case = train.subset(np.array([0]))
    case.columns[root.attribute] = np.array([-1], dtype=case.columns[root.attribute].dtype)
    from c45rules.tree.growers.cart import node_of_cases
    (node, rows), = node_of_cases(root, case, 2)
    path_root = root.branches[root.majority]
    assert any(node is n for n in path_root.walk())
