"""Winnowing (C5.0's -w, issue 34 point 3): noise attributes screened out, the model otherwise a
plain RuleSet over the data's full schema."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules.data.names import load_stem
from c45rules.export.python import to_python
from c45rules.export.yaml import dump_yaml, load_yaml
from c45rules.govern.rescore import rescore
from c45rules.learn.pipeline import fit_dataset, grow_with, check_options, grower_options
from c45rules.learn.winnow import winnow, without
from reference import DATA

NOISE = [f"noise_{kind}{i}" for i in range(10) for kind in ("num", "cat")]


def noisy_frame(n: int = 1000, seed: int = 7) -> pd.DataFrame:
    """Three attributes that decide the class (5% of labels flipped) and 20 of pure noise."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x1": rng.normal(size=n).round(3), "x2": rng.uniform(0, 10, n).round(2),
                       "c1": rng.choice(list("abcd"), n)})
    for i in range(10):
        df[f"noise_num{i}"] = rng.normal(size=n).round(3)
        df[f"noise_cat{i}"] = rng.choice(list("pqrstu"), n)
    y = np.where((df.x1 > 0.3) & (df.c1 != "d"), "yes", np.where(df.x2 > 7, "yes", "no"))
    flip = rng.random(n) < 0.05
    df["class"] = np.where(flip, np.where(y == "yes", "no", "yes"), y)
    return df


@pytest.fixture(scope="module")
def noisy():
    df = noisy_frame()
    return df, c45rules.fit(df, "class", winnow=True), c45rules.fit(df, "class")


def test_the_twenty_noise_columns_are_winnowed_and_the_deciding_ones_kept(noisy):
    _, rs, plain = noisy
    assert sorted(rs.options_dict["winnowed"]) == sorted(NOISE)
    assert {c.attribute for r in rs.rules for c in r.conditions} == {"x1", "x2", "c1"}
    # without winnowing the same data gives rules that test noise
    assert {c.attribute for r in plain.rules for c in r.conditions} - {"x1", "x2", "c1"}


def test_winnowing_does_not_lose_accuracy_on_fresh_cases_of_the_same_kind(noisy):
    _, rs, plain = noisy
    fresh = noisy_frame(2000, seed=8)
    err = lambda m: float((m.predict(fresh) != fresh["class"].to_numpy()).mean())  # noqa: E731
    assert err(rs) <= err(plain)


def test_the_model_keeps_the_full_schema_and_the_datas_fingerprint(noisy):
    _, rs, plain = noisy
    assert rs.schema == plain.schema
    assert rs.fingerprint == plain.fingerprint
    assert dict(rs.options)["winnow"] is True


def test_a_model_without_winnowing_records_nothing_of_it(noisy):
    _, _, plain = noisy
    assert "winnow" not in plain.options_dict and "winnowed" not in plain.options_dict


def test_yaml_round_trip_is_byte_identical_and_deterministic(noisy):
    df, rs, _ = noisy
    text = dump_yaml(rs)
    assert dump_yaml(load_yaml(text)) == text
    assert dump_yaml(c45rules.fit(df, "class", winnow=True)) == text
    assert '"winnowed": ["noise_num0", "noise_cat0"' in text


def test_rescore_of_the_unedited_model_on_its_training_data_is_byte_identical():
    train, _ = load_stem(DATA / "crx" / "crx")
    rs = fit_dataset(train, winnow=True)[0]
    assert rs.options_dict["winnowed"] == ["A2", "A3", "A5", "A6", "A8", "A11"]
    assert dump_yaml(rescore(rs, train)) == dump_yaml(rs)


def test_predict_needs_no_winnowed_column_and_the_python_export_agrees(noisy):
    df, rs, _ = noisy
    fresh = noisy_frame(300, seed=9)
    kept = fresh[["x1", "x2", "c1"]]
    assert list(rs.predict(kept)) == list(rs.predict(fresh))
    namespace: dict = {}
    exec(to_python(rs), namespace)
    records = fresh.drop(columns="class").to_dict("records")
    assert [namespace["predict"](r) for r in records] == list(rs.predict(fresh))


def test_the_tree_regrown_from_a_winnowed_model_tests_no_winnowed_attribute(noisy):
    df, rs, _ = noisy
    from c45rules.learn.pipeline import as_dataset
    train, _ = as_dataset(df, "class")
    o = {**grower_options(check_options({})), "winnowed": rs.options_dict["winnowed"]}
    tree = grow_with(train, o)
    tested = {train.schema.attributes[n.attribute].name for n in tree.pruned.walk() if not n.is_leaf}
    assert tested and not tested & set(NOISE)
    assert tree.schema == train.schema


def test_without_declares_ignore_and_keeps_the_columns():
    train, _ = load_stem(DATA / "golf" / "golf")
    w = without(train, {"outlook"})
    assert [a.kind for a in w.schema.attributes] == ["ignore", "continuous", "continuous", "discrete"]
    assert w.columns is train.columns and w.n == train.n


def test_one_usable_attribute_is_never_winnowed():
    df = pd.DataFrame({"x": np.arange(400.0) % 7, "class": ["a"] * 200 + ["b"] * 200})
    rs = c45rules.fit(df, "class", winnow=True)
    assert rs.options_dict["winnowed"] == []


def test_data_below_min_cases_is_not_winnowed_but_above_it_is():
    from c45rules.learn.winnow import MIN_CASES
    df = noisy_frame(MIN_CASES - 1)
    assert c45rules.fit(df, "class", winnow=True).options_dict["winnowed"] == []
    assert c45rules.fit(noisy_frame(4 * MIN_CASES), "class", winnow=True).options_dict["winnowed"]


def test_winnow_reports_names_in_schema_order_and_is_seeded():
    train, _ = load_stem(DATA / "vote" / "vote")
    o = grower_options(check_options({}))
    from c45rules.tree.growers import tree_classes
    a = winnow(train, lambda d: grow_with(d, o), tree_classes, seed=0)
    assert list(a) == [n for n in train.schema.names if n in a]
    assert winnow(train, lambda d: grow_with(d, o), tree_classes, seed=0) == a
    assert "physician-fee-freeze" not in a     # the attribute vote's tree stands on


def test_the_estimator_takes_winnow():
    df = noisy_frame(400)
    clf = c45rules.C45Rules(winnow=True).fit(df.drop(columns="class"), df["class"])
    assert set(clf.ruleset_.options_dict["winnowed"]) <= set(NOISE)
    assert clf.get_params()["winnow"] is True


def test_winnowing_weighted_cases_counts_their_weights(noisy):
    df, rs, _ = noisy
    ones = c45rules.fit(df, "class", winnow=True, sample_weight=np.ones(len(df)))
    assert ones.options_dict["winnowed"] == rs.options_dict["winnowed"]
    assert ones.rules == rs.rules
    # a heavy class changes what the held-back errors weigh
    heavy = np.where(df["class"] == "yes", 3.0, 1.0)
    weighted = c45rules.fit(df, "class", winnow=True, sample_weight=heavy)
    assert weighted.options_dict["weights"] == "sample_weight"
    assert weighted.options_dict["winnowed"] == ["noise_num1", "noise_num3", "noise_num4", "noise_num5", "noise_cat5",
                                                 "noise_num6", "noise_cat6", "noise_cat7", "noise_cat8", "noise_num9"]
