"""Standalone Python module of a boosted model: in a bare interpreter, predict / predict_rules /
predict_confidence / votes and the CSV scorer give BoostedRuleSet's answers row for row, ties,
unknowns and hostile names included."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from c45rules.model.boosted import BoostedRuleSet
from c45rules.export import to_python, write_python

from export_cases import Scored, hostile_ruleset, random_rows, score_boosted
from test_python import records, run_bare, write_csv


def check_module(tmp_path, scored: Scored) -> None:
    """The module's direct calls (records with unknowns in every spelling) and its CSV scorer."""
    model = scored.ruleset
    path = write_python(model, tmp_path / "model.py")
    recs = records(scored)
    (tmp_path / "records.json").write_text(json.dumps(recs), encoding="utf-8")
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import model\n"
        f"recs = json.load(open({str(tmp_path / 'records.json')!r}, encoding='utf-8'))\n"
        "json.dump([[model.predict(r), list(model.predict_rules(r)), model.predict_confidence(r),"
        " list(model.votes(r).values())] for r in recs], sys.stdout)\n"
        "assert not set(sys.modules) & {'numpy', 'pandas', 'c45rules'}\n")
    done = run_bare(["-c", script])
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert [g[0] for g in got] == list(scored.classes)
    assert np.array_equal(np.array([g[1] for g in got]), scored.rules)
    assert np.array_equal(np.array([g[2] for g in got]), scored.confidence)     # bit for bit
    assert np.array_equal(np.array([g[3] for g in got]), model.votes(recs))
    # the CSV scorer: every cell kept, the class, the trials' rule ids, the confidence
    table = write_csv(tmp_path / "in.csv", scored)
    done = run_bare([str(path), str(tmp_path / "in.csv"), "-o", str(tmp_path / "out.csv"),
                     "--confidence-column", "p"])
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as f:
        out = list(csv.reader(f))
    assert out[0] == table[0] + ["predicted_class", "rule_id", "p"]
    assert [row[:-3] for row in out[1:]] == table[1:]
    assert [row[-3] for row in out[1:]] == list(scored.classes)
    assert [[int(v) for v in row[-2].split(" ")] for row in out[1:]] == scored.rules.tolist()
    assert [float(row[-1]) for row in out[1:]] == scored.confidence.tolist()


@pytest.mark.parametrize("name", ("tie", "crx", "soybean", "hypo"))
def test_module_votes_as_the_library(name, boosted, tmp_path):
    check_module(tmp_path, boosted(name))


def test_tie_module_reads_as_trials_and_a_vote(boosted):
    text = to_python(boosted("tie").ruleset)
    assert "def _trial_5(record):" in text and "TRIALS = (_trial_1, _trial_2, _trial_3, _trial_4, _trial_5,)" in text
    assert "    {0: 0.75, 1: 0.596, 2: 0.75}," in text


def test_hostile_boosted_module_cannot_inject(tmp_path):
    hostile = hostile_ruleset()
    # the second trial: the same rules in reverse order, another default class
    other = BoostedRuleSet((hostile, type(hostile)(hostile.schema, hostile.rules[::-1], "{class}",
                                                   hostile.class_counts, (1, 2, 3, 9))))
    rows = random_rows(hostile, 400, seed=11)
    scored = score_boosted("hostile", other, rows)
    assert len(set(scored.classes)) >= 3
    check_module(tmp_path, scored)
    assert not (tmp_path / "pwned").exists()
