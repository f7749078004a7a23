"""fit --stream / --memory (issue 50): the model learnt in passes over record batches is the
in-memory fit's, byte for byte, on every shared set without unknown values (and crx, labor-neg),
from CSV, C4.5 stems, Parquet and DuckDB; what needs the rows in memory is refused by name."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import c45rules
from c45rules.data.batches import open_batches
from c45rules.errors import InputError
from c45rules.export.yaml import dump_yaml
from c45rules.learn.pipeline import fit_batches
from c45rules.learn.stream import parse_memory
from c45rules.tree.grow import grow_tree
from c45rules.tree.grow_passes import grow_in_passes
from c45rules.data.frame import load_data
from c45rules.tree.report import format_tree

from .conftest import DATA, fails, ok, run

# every shared set without unknown values or weights, and crx and labor-neg (whose unknowns
# grow alike); batch sizes that cross many boundaries yet keep the file fast
SETS = [("golf", 7), ("iris", 7), ("glass", 7), ("monk1", 7), ("monk2", 7), ("monk3", 7), ("vote", 7),
        ("diabetes", 97), ("credit-g", 97), ("sonar", 97), ("ionosphere", 97), ("vehicle", 97), ("segment", 97),
        ("crx", 7), ("labor-neg", 7),
        ("shuttle", 997),
        # 11-14 s each
        *(pytest.param(name, 997, marks=pytest.mark.slow) for name in ("letter", "spambase", "synth_10k"))]


def stem(name: str) -> str:
    return str(DATA / name / name)


@pytest.mark.parametrize("name,k", SETS)
def test_streamed_fit_writes_the_same_model(name, k, tmp_path):
    plain, streamed = tmp_path / "plain.yaml", tmp_path / "streamed.yaml"
    a = ok("fit", stem(name), "-o", plain, "--json")
    b = ok("fit", stem(name), "-o", streamed, "--json", "--stream", "--batch-rows", k)
    assert plain.read_bytes() == streamed.read_bytes()
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    facts = jb.pop("stream")
    assert {**ja, "model": None} == {**jb, "model": None}
    n = open_batches(stem(name)).n
    assert facts["rows"] == n and facts["batch_rows"] == k and facts["batches_per_pass"] == -(-n // k)
    assert facts["passes"] >= 4 and facts["largest_avc_group"]["bytes"] == 8 * facts["largest_avc_group"]["entries"] > 0


def test_rules_printout_and_test_evaluation_equal():
    a = ok("rules", stem("crx"), "-u")
    b = ok("rules", stem("crx"), "-u", "--stream", "--batch-rows", "33")
    assert a.stdout == b.stdout and "Evaluation on test data" in b.stdout


def test_csv_and_parquet_inputs(tmp_path):
    import pandas as pd
    csv = DATA / "crx" / "crx.csv"
    pq = tmp_path / "crx.parquet"
    pd.read_csv(csv).to_parquet(pq, row_group_size=50)
    plain = ok("fit", csv, "--target", "class", "-o", tmp_path / "plain.yaml")
    for data in (csv, pq):
        out = tmp_path / f"{data.suffix}.yaml"
        streamed = ok("fit", data, "--target", "class", "-o", out, "--stream", "--batch-rows", "61", "-q")
        assert out.read_bytes() == (tmp_path / "plain.yaml").read_bytes()
        assert streamed.stdout.replace(str(out), "") == plain.stdout.replace(str(tmp_path / "plain.yaml"), "")


def test_duckdb_query_source(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    db = tmp_path / "w.db"
    with duckdb.connect(str(db)) as con:
        con.execute(f"CREATE TABLE iris AS SELECT * FROM read_csv_auto('{DATA / 'iris' / 'iris.csv'}')")
    import pandas as pd
    frame = pd.read_csv(DATA / "iris" / "iris.csv")
    klass = frame.columns[-1]
    ok("fit", DATA / "iris" / "iris.csv", "--target", klass, "-o", tmp_path / "plain.yaml")
    ok("fit", f"duckdb:{db}", "--query", "SELECT * FROM iris", "--target", klass, "-o", tmp_path / "duck.yaml",
       "--batch-rows", "13")
    assert (tmp_path / "duck.yaml").read_bytes() == (tmp_path / "plain.yaml").read_bytes()


def test_python_fit_stream_equals_fit():
    for name in ("crx", "monk2"):
        assert dump_yaml(c45rules.fit(stem(name), stream=True, batch_rows=11)) == dump_yaml(c45rules.fit(stem(name)))
    csv = DATA / "crx" / "crx.csv"
    assert dump_yaml(c45rules.fit(csv, "class", memory="200kB", batch_rows=50, cf=0.5)) == \
        dump_yaml(c45rules.fit(csv, "class", cf=0.5))


def test_streamed_tree_prints_as_grown_in_memory():
    # the rules come from the unpruned tree: it is the in-memory one, printed alike
    ds, _ = load_data(stem("vehicle"), test=False)
    _, tree, _ = fit_batches(open_batches(stem("vehicle"), batch_rows=97))
    assert format_tree(tree, ds.schema) == format_tree(grow_tree(ds), ds.schema)


# every shared set with unknown values: the fractional weights of the cases whose tested value is
# unknown are summed in c4.5's order (grow_passes._Replay), so the model is the in-memory one;
# batches small enough to cross many boundaries (hypo's 2,514 cases in batches of 7 take 19 s)
UNKNOWNS = [("labor", 7), ("breast-cancer", 7), ("vote_weka", 7), ("soybean", 7), ("hypo", 251),
            pytest.param("income", 997, marks=pytest.mark.slow)]    # 9 s


@pytest.mark.parametrize("name,k", UNKNOWNS)
def test_unknowns_give_the_in_memory_model(name, k):
    assert dump_yaml(fit_batches(open_batches(stem(name), batch_rows=k))[0]) == dump_yaml(c45rules.fit(stem(name)))


def test_unknowns_sums_in_c45_order():
    # soybean's root tests an attribute with unknown values: the cases with an unknown value go down
    # every branch weighing its share, and come first in its sums, the others add 1 each in float32
    # (branch 0 weighs 58.151928; the exact sum rounded once is 58.15192); branch 1 takes the
    # share of weights that c4.5's multiply-then-divide over branch 0 left a bit off (deeper
    # nodes too, where such a case's value is unknown again inside an earlier branch:
    # tests/tree/test_grow_passes.py::test_unknowns_every_sum_as_in_memory)
    ds, _ = load_data(stem("soybean"), test=False)
    plain = grow_tree(ds)
    streamed, _ = grow_in_passes(open_batches(stem("soybean"), batch_rows=7), ds.schema)
    for a, b in [(plain, streamed), (plain.branches[0], streamed.branches[0]), (plain.branches[1], streamed.branches[1])]:
        assert (a.attribute, a.items) == (b.attribute, b.items)
        assert a.class_dist.tobytes() == np.asarray(b.class_dist, np.float32).tobytes()


@pytest.mark.parametrize("args,words", [
    (["-b"], "boosting (option trials, --trials/-b) needs the rows in memory; drop --stream"),
    (["-t", "3"], "windowing (-t) needs the rows in memory; drop --stream"),
    (["--winnow"], "winnowing (option winnow, --winnow) needs the rows in memory; drop --stream"),
    (["--grower", "cart"], "a grower other than c45 (option grower, --grower) needs the rows in memory"),
    (["-s"], "subset tests (option subset, -s/--subset) needs the rows in memory"),
    (["--tune"], "--tune needs the rows in memory; drop --stream"),
    (["--keep-tree"], "--keep-tree (the pruned tree) needs the rows in memory; drop --stream"),
    (["--weights", "A15"], "case and class weights needs the rows in memory; drop --stream"),
    (["--class-weights", "balanced"], "case and class weights needs the rows in memory; drop --stream"),
    (["--costs", "COSTS"], "misclassification costs (option costs, --costs) needs the rows in memory"),
])
def test_what_needs_the_rows_is_refused(args, words, tmp_path):
    (tmp_path / "c.costs").write_text("+, -: 5\n")
    args = [str(tmp_path / "c.costs") if a == "COSTS" else a for a in args]
    p = run("fit", stem("crx"), "-o", tmp_path / "m.yaml", "--stream", *args)
    assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "m.yaml").exists()


def test_tree_stream_refused_and_memory_budget():
    p = run("tree", stem("crx"), "--stream")
    assert p.returncode == 2 and "pruning (c4.5's subtree raising" in p.stderr and "drop --stream" in p.stderr
    # within the budget: in memory, the plain printout
    assert ok("tree", stem("crx"), "--memory", "1GB").stdout == ok("tree", stem("crx")).stdout
    p = run("tree", stem("crx"), "--memory", "100kB")
    assert p.returncode == 2 and "does not fit the budget --memory 100 kB" in p.stderr


def test_memory_budget_and_avc_groups(tmp_path):
    # 490 rows x 16 columns: about 245 kB in memory; within 1 GB, in memory (no "stream" facts)
    j = json.loads(ok("fit", stem("crx"), "-o", tmp_path / "a.yaml", "--json", "--memory", "1GB").stdout)
    assert "stream" not in j
    j = json.loads(ok("fit", stem("crx"), "-o", tmp_path / "b.yaml", "--json", "--memory", "200kB").stdout)
    assert j["stream"]["largest_avc_group"]["attribute"] == "A2"
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()
    p = run("fit", stem("crx"), "-o", tmp_path / "c.yaml", "--memory", "2kB")
    assert p.returncode == 2 and "attribute 'A2'" in p.stderr and "round or bin A2" in p.stderr
    assert not (tmp_path / "c.yaml").exists()
    p = run("fit", stem("crx"), "-o", tmp_path / "c.yaml", "--memory", "lots")
    assert p.returncode == 2 and "--memory must be a size such as 2GB" in p.stderr


def test_parse_memory_and_python_refusals():
    assert parse_memory("2GB") == 2 << 30 and parse_memory("1.5k") == 1536
    with pytest.raises(InputError, match="boosting .* drop stream=True"):
        c45rules.fit(stem("crx"), stream=True, trials=3)
    with pytest.raises(InputError, match="case and class weights needs the rows in memory"):
        c45rules.fit(DATA / "crx" / "crx.csv", "class", stream=True, class_weight="balanced")
    import pandas as pd
    with pytest.raises(InputError, match="in memory already"):
        c45rules.fit(pd.read_csv(DATA / "crx" / "crx.csv"), "class", stream=True)
    assert np.isfinite(parse_memory(10))


def test_memory_budget_bounds_the_growth_tables(tmp_path):
    # --stream within 150 kB: a level's nodes over several passes, the tables and the tree
    # beside them never beyond the budget, the model the in-memory one
    ok("fit", stem("crx"), "-o", tmp_path / "a.yaml")
    j = json.loads(ok("fit", stem("crx"), "-o", tmp_path / "b.yaml", "--json", "--stream", "--memory", "150kB",
                      "--batch-rows", "50").stdout)["stream"]
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()
    assert j["table_budget"] == 153600 >= j["accounted_bytes"] > j["peak_table_bytes"] > 0 and j["tree_bytes"] > 0
    assert sum(j["growth_passes_per_level"]) > len(j["growth_passes_per_level"])


def test_a_tree_beyond_the_budget_is_refused_by_name(tmp_path):
    # issue 50.4: the tree grows with the tree, not the rows; where what it leaves of the budget
    # cannot hold a node's tables the fit stops with one line naming the tree and the remedy
    # (80d2780 went on with the tables given the whole budget beside the tree)
    msg = fails("fit", stem("crx"), "-o", tmp_path / "c.yaml", "--stream", "--memory", "48kB", "--batch-rows", "50")
    assert "the tree grown to level 5 (49 nodes, 37 open) needs 51.8 kB of the memory budget of 48 kB" in msg
    assert "give a larger budget (--memory)" in msg and not (tmp_path / "c.yaml").exists()


def test_json_reports_the_growths(tmp_path):
    # labor: a case's weight comes back from an earlier branch's subtree off in its last bit, so
    # the first growth's weights do not check: its factors are settled, it grows again, checks
    ok("fit", stem("labor"), "-o", tmp_path / "a.yaml")
    j = json.loads(ok("fit", stem("labor"), "-o", tmp_path / "b.yaml", "--json", "--stream", "--batch-rows", "7").stdout)
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()
    assert (j["stream"]["growths"], j["stream"]["settled"], j["stream"]["exact_weights"]) == (2, 1, True)
    # crx: the first growth's weights check
    j = json.loads(ok("fit", stem("crx"), "-o", tmp_path / "c.yaml", "--json", "--stream").stdout)["stream"]
    assert (j["growths"], j["settled"], j["exact_weights"]) == (1, 0, True)


def test_json_reports_the_rule_stages_tables(tmp_path):
    out = json.loads(ok("fit", stem("crx"), "-o", tmp_path / "m.yaml", "--json", "--stream", "--batch-rows", "50").stdout)
    rules = out["stream"]["rules"]
    assert set(rules) == {"passes", "rounds", "round_passes", "candidates", "selection_groups", "selected", "selected_groups",
                          "round_table_bytes", "peak_table_bytes", "largest_table", "spilled_searches"}
    # a pass per generalisation pass (one round each compiled; two for a guessed rule without
    # the compiled module), one for the selection's tables, one for the selected rules'
    assert rules["passes"] == rules["round_passes"] + 2 and 2 < rules["round_passes"] <= rules["rounds"]
    assert 0 < rules["selected"] < rules["candidates"] and 0 < rules["selected_groups"] <= 490
    assert 0 < rules["round_table_bytes"] and 0 < rules["peak_table_bytes"] <= out["stream"]["table_budget"]
    # the largest table named: a class's selection table, within the pass's peak
    largest = rules["largest_table"]
    assert set(largest) == {"stage", "class", "groups", "numbers", "bytes"}
    assert largest["stage"] == "selection" and largest["class"] in ("+", "-")
    assert 0 < largest["groups"] <= rules["selection_groups"] and largest["groups"] < largest["numbers"]
    assert 0 < largest["bytes"] <= rules["peak_table_bytes"]


def test_rule_tables_beyond_the_budget_fail_by_name(tmp_path, monkeypatch, capsys):
    # breast-cancer's growth fits 12 kB; the selection's grouped cases do not (packed, crx's now
    # fit beside its growth's 18 kB), and no model is written. The growth's tree (counted against
    # the budget too) is left out here: the rules stage is what this tests
    from c45rules.cli import main
    from c45rules.tree.grow_passes import _PassGrower
    monkeypatch.setattr(_PassGrower, "tree_bytes", lambda self, S: 0)
    assert main(["fit", str(stem("breast-cancer")), "-o", str(tmp_path / "m.yaml"), "--memory", "12kB",
                 "--batch-rows", "50"]) == 2
    msg = capsys.readouterr().err.strip()
    assert not (tmp_path / "m.yaml").exists() and len(msg.splitlines()) == 1
    assert re.search(r"the rules' selection table of class '[a-z-]+' needs [\d.]+ kB after \d+ rows of 286 \(about"
                     r" [\d.]+ kB at all of them\), beyond the memory budget of 12 kB: give a larger budget"
                     r" \(--memory\), or learn fewer candidate rules \(a larger -m\)", msg), msg


def test_parquet_target_check_reads_a_chunk_not_the_table(tmp_path, monkeypatch, capsys):
    # whether a Parquet table's target is numeric (regression) is read from its first chunks, as
    # a CSV's: the whole table in pandas took 10.6 GB at 20M rows before the streamed fit began
    import pandas as pd
    from c45rules.cli import main
    from c45rules.data import frame
    pq = tmp_path / "crx.parquet"
    pd.read_csv(DATA / "crx" / "crx.csv").to_parquet(pq, row_group_size=50)

    def whole(*args, **kwargs):
        raise AssertionError("read the whole table")
    monkeypatch.setattr(frame, "read_table", whole)
    assert main(["fit", str(pq), "--target", "class", "-o", str(tmp_path / "m.yaml"), "--stream", "-q"]) == 0
    ok("fit", DATA / "crx" / "crx.csv", "--target", "class", "-o", tmp_path / "plain.yaml")
    assert (tmp_path / "m.yaml").read_bytes() == (tmp_path / "plain.yaml").read_bytes()
