"""Property-based tests on random small tables (hypothesis, profile "c45rules-hostile").

* `fit` on any table either succeeds or raises the library's own C45RulesError;
* a fitted model predicts the same through YAML, SQL (SQLite, DuckDB) and the standalone
  Python module as `RuleSet.predict` / `predict_rule`, on rows holding NaN, None, +-inf,
  values at and next to every threshold, '?', '' and unseen categories;
* fitting is deterministic, and invariant to the row order when no attribute value is
  unknown (see `test_row_order_does_not_matter_without_unknowns` for why only then).

Tables are built from a hostile alphabet (quotes of every kind, `;`, `--`, `/*`, newlines,
CR, backslashes, braces, RTL marks, combining accents) so names and values are exercised by
every exporter at once.
"""
from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import c45rules
import reference as R
from c45rules.data.frame import from_frame, value_str
from c45rules.data.reading import read_options
from c45rules.export import dump_yaml, load_yaml, to_python

from export_cases import decode, probe_rows, random_rows, score
from test_sql import run_duckdb, run_sqlite

PROFILE = settings.get_profile("c45rules-hostile")

CHARS = list("abXY09 _.,:;-/*'\"`\\{}$%#?!=()[]\n\r\t") + [
    "\u2018", "\u2019", "\u201c", "\u201d", "\u00e9", "e\u0301", "\u2713", "\u202e", "\u200f",
    "\u00a0", "\u4e2d", "\U0001f600"]
TOKENS = ["--", "/*", "*/", "'); DROP TABLE t; --", '"""', "'''", "{0}", "{x!r}", "?", "",
          "nan", "None", "NULL", "1", "01", "1.0", "-0", "yes", "__import__('os')", "\\N{BULLET}"]
RESERVED = {"__row__", "predicted_class", "rule_id"}   # columns the SQL helpers add


def hostile_text(min_size: int = 0) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from([t for t in TOKENS if len(t) >= min_size]),
                     st.lists(st.sampled_from(CHARS), min_size=max(min_size, 1), max_size=8).map("".join))


def _unknown() -> st.SearchStrategy:
    return st.sampled_from([None, math.nan, "", "?"])


@st.composite
def column(draw, n: int) -> list:
    """One attribute column of n cells, of a random kind."""
    kind = draw(st.sampled_from(["float", "int", "text", "mixed", "constant", "unknown"]))
    p_unknown = draw(st.sampled_from([0.0, 0.0, 0.1, 0.4]))
    if kind == "float":
        pool = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.integers(-5, 5).map(float),
                             min_size=1, max_size=8))
    elif kind == "int":
        pool = draw(st.lists(st.integers(-3, 12), min_size=1, max_size=5))
    elif kind == "text":
        pool = draw(st.lists(hostile_text(1).filter(lambda s: s not in ("", "?")), min_size=1, max_size=5))
    elif kind == "mixed":
        pool = draw(st.lists(st.integers(0, 3) | st.sampled_from(["two", "x", "1.5"]), min_size=2, max_size=5))
    elif kind == "constant":
        pool = [draw(st.integers(0, 9) | hostile_text(1).filter(lambda s: s not in ("", "?")))]
    else:
        pool = []
    cells = []
    for _ in range(n):
        if not pool or draw(st.floats(0, 1)) < p_unknown:
            cells.append(draw(_unknown()) if kind != "float" or not pool else math.nan)
        else:
            cells.append(draw(st.sampled_from(pool)))
    return cells


@st.composite
def tables(draw, unknowns: bool = True) -> tuple[pd.DataFrame, str]:
    """(DataFrame, target column name): 2-60 rows, 1-4 attributes, 1-4 classes."""
    n = draw(st.integers(2, 60))
    names = draw(st.lists(hostile_text(1).filter(lambda s: s.casefold() not in RESERVED),
                          min_size=2, max_size=5, unique_by=lambda s: s.casefold()))
    target, attrs = names[0], names[1:]
    classes = draw(st.lists(hostile_text(1).filter(lambda s: s not in ("", "?")),
                            min_size=1, max_size=4, unique=True))
    dominant = draw(st.booleans())
    y = [classes[0] if dominant and draw(st.floats(0, 1)) < 0.85 else draw(st.sampled_from(classes))
         for _ in range(n)]
    data = {}
    for a in attrs:
        cells = draw(column(n))
        if not unknowns:
            cells = [0.5 if (v is None or v in ("", "?") or isinstance(v, float) and math.isnan(v)) else v
                     for v in cells]
        data[a] = cells
    data[target] = y
    df = pd.DataFrame(data, columns=attrs + [target])
    if draw(st.booleans()):       # duplicate rows
        df = pd.concat([df, df.iloc[: max(1, n // 3)]], ignore_index=True)
    return df, target


def fit_or_none(df: pd.DataFrame, target: str, **options):
    # the hostile alphabet's 'nan', 'None' and 'NULL' are values here, as they were written
    options.setdefault("keep_na_tokens", True)
    try:
        return c45rules.fit(df, target, **options)
    except c45rules.C45RulesError as e:
        note(f"refused: {type(e).__name__}: {e}")
        return None


# ---- fit never crashes -------------------------------------------------------------------------
@PROFILE
@given(tables(), st.sampled_from([{}, {"min_objs": 1}, {"subset": True}, {"cf": 0.9, "min_objs": 1}]))
def test_fit_succeeds_or_raises_the_library_error(table, options):
    df, target = table
    try:
        rs = c45rules.fit(df, target, **options)
    except (c45rules.InputError, c45rules.ModelError):
        return
    assert isinstance(rs, c45rules.RuleSet)
    assert rs.default_class in rs.schema.classes
    assert sum(rs.class_counts) == len(df)


def test_the_table_strategy_reaches_the_cases_it_claims():
    """Guards the strategy itself: a derandomized sample holds hostile names, unknowns,
    several kinds and both outcomes of fit."""
    seen = {"fitted": 0, "refused": 0, "rules": 0}

    # 300 examples: hypothesis' derandomized sample shifts with state elsewhere in the process
    # (after an in-process CLI call, say), and 100 examples gave 11 to 39 rules by that alone;
    # 300 gave 62 and 69 rules from 190 and 165 fits in the two states measured
    @settings(PROFILE, max_examples=300)
    @given(tables())
    def probe(table):
        df, target = table
        rs = fit_or_none(df, target, min_objs=1)
        seen["refused" if rs is None else "fitted"] += 1
        seen["rules"] += 0 if rs is None else len(rs.rules)

    probe()
    assert seen["fitted"] >= 100 and seen["rules"] >= 30, seen


# ---- every export predicts as the library --------------------------------------------------------
def scoring_rows(rs: c45rules.RuleSet, df: pd.DataFrame, seed: int) -> list[dict]:
    """Training rows plus probes on every edge (export_cases helpers), discrete values
    written as the canonical text the exports compare with."""
    base = decode(from_frame(df, rs.schema.target, read=read_options(None, True)))
    return base + probe_rows(rs, base, seed=seed, n_random=40) + random_rows(rs, 40, seed)


def library_answers(rs: c45rules.RuleSet, rows: list[dict]) -> tuple[list, list]:
    frame = pd.DataFrame(rows, columns=[a.name for a in rs.schema.attributes if a.kind != "ignore"])
    classes, rules = list(rs.predict(frame)), [int(r) for r in rs.predict_rule(frame)]
    scored = score("hypothesis", rs, rows)      # the export tests' encoding agrees
    assert classes == list(scored.classes) and rules == [int(r) for r in scored.rules]
    return classes, rules


def _differences(want, got, rows) -> list:
    return [(i, rows[i], want[i], got[i]) for i in range(len(rows)) if want[i] != got[i]][:3]


@PROFILE
@given(tables(), st.integers(0, 3), st.sampled_from([{"min_objs": 1}, {"subset": True, "min_objs": 1}, {}]))
def test_yaml_sql_and_python_predict_as_the_library(table, seed, options):
    df, target = table
    rs = fit_or_none(df, target, **options)
    assume(rs is not None)
    # YAML: reads back equal, and byte-identical when written again
    text = dump_yaml(rs)
    back = load_yaml(text)
    assert back == rs and dump_yaml(back) == text

    rows = scoring_rows(rs, df, seed)
    classes, rules = library_answers(rs, rows)
    scored = score("hypothesis", rs, rows)

    # SQL, row for row (helpers of tests/export/test_sql.py: TEXT / DOUBLE columns, NaN kept)
    for run in (run_sqlite, run_duckdb):
        got = run(scored, "cases; --")
        assert [g[0] for g in got] == list(range(len(rows)))
        got_classes = [g[1] for g in got]
        got_rules = [g[2] for g in got]
        assert got_classes == classes, (run.__name__, _differences(classes, got_classes, rows))
        assert got_rules == rules, (run.__name__, _differences(rules, got_rules, rows))

    # the standalone module, exec'd in a fresh namespace, on the raw rows
    namespace: dict = {"__name__": "exported_model"}
    exec(compile(to_python(rs), "<exported model>", "exec"), namespace)
    got_classes = [namespace["predict"](r) for r in rows]
    got_rules = [namespace["predict_rule"](r) for r in rows]
    assert got_classes == classes, _differences(classes, got_classes, rows)
    assert got_rules == rules, _differences(rules, got_rules, rows)


@PROFILE
@given(tables(), st.integers(0, 2))
def test_predict_on_raw_cells_matches_the_canonical_text(table, seed):
    """Scoring the table's own raw cells (ints, floats, mixed objects, unknown spellings)
    gives what scoring their canonical text gives, through the library and the module."""
    df, target = table
    rs = fit_or_none(df, target, min_objs=1)
    assume(rs is not None)
    raw = df.drop(columns=[target])
    want = list(rs.predict(raw))
    text = raw.copy()
    for a in rs.schema.attributes:
        if a.is_discrete:
            text[a.name] = [None if v is None or isinstance(v, float) and math.isnan(v) or v in ("", "?")
                            else value_str(v) for v in raw[a.name]]
    assert list(rs.predict(text)) == want
    namespace: dict = {"__name__": "exported_model"}
    exec(compile(to_python(rs), "<exported model>", "exec"), namespace)
    records = raw.astype(object).to_dict("records")
    assert [namespace["predict"](r) for r in records] == want


# ---- determinism ---------------------------------------------------------------------------------
@PROFILE
@given(tables())
def test_the_same_data_gives_byte_identical_yaml(table):
    df, target = table
    first = fit_or_none(df, target, min_objs=1)
    assume(first is not None)
    assert dump_yaml(c45rules.fit(df.copy(), target, min_objs=1, keep_na_tokens=True)) == dump_yaml(first)


@PROFILE
@given(tables(unknowns=False), st.randoms(use_true_random=False), st.booleans())
def test_row_order_does_not_matter_without_unknowns(table, rnd, subset):
    """Shuffled rows give byte-identical YAML when no attribute value is unknown.

    Why only then: with every case weight 1, every count c4.5 computes is an exact integer
    in single precision, whatever the order it is summed in, and the schema (class and
    value order) comes from sorted values. An unknown value sends a case down every branch
    with a fractional weight (spec 2.7), and c4.5 sums those weights in float32 in case
    order (spec 11.11, reproduced on purpose): the node's known weight `cases - unknown`
    can then differ in the last bit between two orders of the same rows, and a comparison
    such as the cut window `low <= known - MinSplit` in `tree/split.py:best_cuts` flips
    (a 58-row table with 40% unknowns was found where it does; see docs/errors.md).
    """
    df, target = table
    options = {"min_objs": 1, "subset": subset}
    first = fit_or_none(df, target, **options)
    assume(first is not None)
    order = list(range(len(df)))
    rnd.shuffle(order)
    shuffled = df.iloc[order].reset_index(drop=True)
    assert dump_yaml(c45rules.fit(shuffled, target, keep_na_tokens=True, **options)) == dump_yaml(first)


@pytest.mark.parametrize("path", [str(R.DATA / "crx" / "crx.csv"), str(R.DATA / "vote_weka" / "vote_weka.csv")])
def test_real_data_shuffled_gives_byte_identical_yaml(path):
    """crx (continuous and discrete, 5% of rows with unknowns) and vote (many unknowns):
    three shuffles each give the same bytes as the file order (vote with subset tests too).
    With unknowns this is observed, not guaranteed (see the test above)."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    target = df.columns[-1]
    assert df.isin(["?", ""]).any().any()
    # subset tests on crx take seconds per fit: only vote runs them
    for options in ({},) if "crx" in path else ({}, {"subset": True}):
        want = dump_yaml(c45rules.fit(df, target, **options))
        for seed in (1, 2, 3):
            shuffled = df.sample(frac=1, random_state=seed)
            assert not shuffled.index.equals(df.index)
            assert dump_yaml(c45rules.fit(shuffled, target, **options)) == want, (options, seed)
