"""RecordDecider decides every record as RuleSet.predict does: same class, rule id, confidence.

Checked exhaustively on fitted rule sets of shared datasets with unknowns, infinities and
unseen values at every rule's edges (export_cases.probe_rows), against the batch path on a
DataFrame of the records, on the same records as CSV text (what `c45rules predict` reads)
and one by one; and with hypothesis on records of every JSON type, numbers written as text,
NA tokens and values the model never saw, against RuleSet on the single record.
"""
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "export"))
from export_cases import FIT_DATASETS, fit_scored, hostile_ruleset, probe_rows, random_rows  # noqa: E402

from c45rules.data.frame import encode_frame  # noqa: E402
from c45rules.data.reading import PANDAS_NA_TOKENS  # noqa: E402
from c45rules.errors import InputError  # noqa: E402
from c45rules.model.records import FieldError, RecordDecider  # noqa: E402


@pytest.fixture(scope="module", params=FIT_DATASETS)
def scored(request):
    return fit_scored(request.param)


def _csv_text(v) -> str:
    """A cell as a CSV file holds it: unknown as the empty cell, numbers as repr; an infinity
    as +-1e308, which every fitted threshold (single precision) compares as it: the text 'inf'
    is not a number (data/numbers.py)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and math.isinf(v):
        return "1e308" if v > 0 else "-1e308"
    return repr(v) if isinstance(v, float) else str(v)


def test_records_decide_as_the_batch_path(scored):
    rs, rows = scored.ruleset, scored.rows
    decider = RecordDecider(rs)
    one_by_one = np.array([decider.position(r) for r in rows])
    assert np.array_equal(decider.positions(rows), one_by_one)
    # the records as a DataFrame, and as the text cells `c45rules predict` reads from a CSV
    assert np.array_equal(rs.rule_index(pd.DataFrame(rows)), one_by_one)
    text = pd.DataFrame([{k: _csv_text(v) for k, v in r.items()} for r in rows], dtype=object)
    assert np.array_equal(rs.rule_index(text), one_by_one)
    assert np.array_equal(rs.rule_ids()[one_by_one], scored.rules)
    assert np.array_equal(decider.classes[one_by_one], scored.classes)
    assert np.array_equal(decider.confidences[one_by_one], rs.predict_confidence(pd.DataFrame(rows)))
    # a sample through RuleSet.predict on each single mapping (its own one-row frame)
    for r, k in list(zip(rows, one_by_one))[::max(1, len(rows) // 60)]:
        assert rs.predict_rule(r)[0] == rs.rule_ids()[k]
        assert rs.predict(r) == decider.classes[k]
    assert len(set(one_by_one.tolist())) > 2   # the probes reach several rules and the default


def _cells(attr_values: tuple[str, ...]):
    """Any JSON-like cell for an attribute: values, numbers and their texts, tokens, junk."""
    numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-2 ** 70, 2 ** 70)
    number_texts = numbers.map(repr) | numbers.map(lambda x: f"+{x!r}") | numbers.map(lambda x: f" {x!r} ")
    tokens = st.sampled_from(sorted(PANDAS_NA_TOKENS | {"", "?"}))
    cells = (st.none() | st.booleans() | numbers | number_texts | tokens
             | st.text(max_size=6) | st.sampled_from(["True", "false", "1.0", "01", "inf", "-0", "1e+5", "0x1A", "1_000",
                                      # pandas reads these a last digit off float(): its own reading counts
                                      "+3.30e-46", "+7972484969.844409077538737", "3757516074675.81268e+0"]))
    if attr_values:
        known = st.sampled_from(attr_values)
        cells = cells | known | known.map(lambda v: v.upper()) | known.map(lambda v: f" {v}")
    return cells


def _records(rs):
    attrs = [rs.schema.attribute(a) for a in rs.used_attributes()]
    fields = {a.name: _cells(a.values) for a in attrs}
    return st.fixed_dictionaries({}, optional=fields)


def _check_same(rs, decider, record) -> None:
    try:
        expected = int(rs.rule_index(record)[0])
    except InputError as e:
        with pytest.raises(FieldError) as got:
            decider.position(record)
        assert got.value.field in str(e)
        return
    assert decider.position(record) == expected
    assert decider.positions([record, record])[1] == expected
    # the cells themselves, bit for bit (a last-digit difference decides only at a threshold)
    frame = encode_frame(pd.DataFrame([record]) if record else pd.DataFrame(index=[0]), rs.schema, require=())
    reference = [frame.columns[rs.schema.index(a)][0] for a in decider.used]
    assert np.array_equal(np.array(decider.encode(record), dtype=float), np.array(reference, dtype=float),
                          equal_nan=True)


_HYPO = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ["crx", "hypo", "hostile"])
def test_any_record_decides_as_ruleset(name):
    rs = hostile_ruleset() if name == "hostile" else fit_scored(name).ruleset
    decider = RecordDecider(rs)

    @_HYPO
    @given(_records(rs))
    def check(record):
        _check_same(rs, decider, record)
    check()


def test_hostile_values_decide_as_ruleset():
    rs = hostile_ruleset()
    base = random_rows(rs, 300, seed=11)
    rows = base + probe_rows(rs, base, seed=5)
    decider = RecordDecider(rs)
    one_by_one = np.array([decider.position(r) for r in rows])
    assert np.array_equal(rs.rule_index(pd.DataFrame(rows)), one_by_one)
    # "NULL" and "1.0" are values of '"x"' here: read as those values, not as unknown or 1
    assert decider.position({'"x"': "1.0", "`tick` [br]": "b"}) == rs.rule_index(
        {'"x"': "1.0", "`tick` [br]": "b"})[0] == 7


def test_bad_fields_are_named():
    rs = fit_scored("crx").ruleset
    decider = RecordDecider(rs)
    continuous = next(a for a in rs.used_attributes() if rs.schema.attribute(a).is_continuous)
    with pytest.raises(FieldError, match=rf"{continuous}.*'abc' is not a number") as e:
        decider.position({continuous: "abc"})
    assert e.value.field == continuous
    with pytest.raises(FieldError, match="expected a number or null, got list"):
        decider.position({continuous: [1, 2]})
    with pytest.raises(FieldError, match="True is not a number"):
        decider.position({continuous: True})
    with pytest.raises(InputError) as e:
        decider.positions([{}, {continuous: "1"}, {continuous: "x"}])
    assert e.value.record == 2


def test_batch_columns_of_one_kind_decide_as_one_by_one():
    # positions() encodes a column of floats (and None), of texts, or of known values in one
    # pass each; a column that mixes kinds, or holds a text seen for the first time, cell by cell
    rs = fit_scored("crx").ruleset
    attrs = [rs.schema.attribute(a) for a in rs.used_attributes()]
    rng = np.random.default_rng(3)
    n = 400

    def column(a, kind):
        if a.is_continuous:
            numbers = rng.choice([0.0, 1.0, 2.5, 228.0, 228.5, 300.0, 1e6, -3.0, math.inf], n)
            if kind == "floats":
                return [None if i % 7 == 0 else float(x) for i, x in enumerate(numbers)]
            if kind == "texts":   # an infinity as text: _csv_text's 1e308 ('inf' is no number)
                return [["NA", "", "?"][i % 3] if i % 11 == 0 else _csv_text(float(x)) if i % 2
                        else f"{x:g}" if math.isfinite(x) else _csv_text(float(x)) for i, x in enumerate(numbers)]
            return [int(x) if i % 3 == 0 and math.isfinite(x) else None if i % 5 == 0
                    else _csv_text(float(x)) if i % 2 else float(x) for i, x in enumerate(numbers)]
        values = list(a.values)
        if kind in ("floats", "texts"):
            return [values[i % len(values)] for i in range(n)]
        return [None if i % 5 == 0 else "never seen" if i % 7 == 0 else values[i % len(values)] for i in range(n)]

    for kind in ("floats", "texts", "mixed"):
        cols = {a.name: column(a, kind) for a in attrs}
        records = [{name: cols[name][i] for name in cols} for i in range(n)]
        if kind == "mixed":   # some records leave a field out: the per-field path
            for i in range(0, n, 13):
                records[i].pop(attrs[i % len(attrs)].name)
        expected = np.array([RecordDecider(rs).position(r) for r in records])
        assert np.array_equal(RecordDecider(rs).positions(records), expected), kind
        assert np.array_equal(rs.rule_index(pd.DataFrame(records, dtype=object)), expected), kind
        assert len(set(expected.tolist())) > 3
