"""The benchmark scripts run end to end on tiny data and write their tables (timings never asserted)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from reference import SHARED as R_SHARED  # noqa: E402


def test_bench_runs_on_golf_and_writes_the_table(tmp_path):
    md = tmp_path / "BENCH.md"
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--datasets", "golf",
                          "--skip-sklearn", "--markdown", str(md)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for text in (out.stdout, md.read_text()):
        rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in text.splitlines()
                if ln.startswith("| golf |")]
        assert [r[2] for r in rows] == ["load", "tree", "rules", "total", "predict", "predict 1M"]
        for r in rows:
            assert r[1] == "14"
            float(r[3])  # a wall time, not 'timeout' or 'error'
    report = md.read_text()
    assert "## Targets (issue 6)" in report and "Machine:" in report
    # the rules stage's output size is stored with the run: golf's candidates, as learn_rules makes them
    from c45rules.data.names import load_stem
    from c45rules.learn.pipeline import learn_rules, learn_tree
    import reference as R    # honours C45RULES_SHARED, as the benchmark itself does
    data, _ = load_stem(str(R.DATA / "golf" / "golf"))
    cands = learn_rules(learn_tree(data), data)[1].candidates
    info = _bench().read_previous(md)["golf"]["ours"]["info"]
    assert (info["candidates"], info["candidate_cover"]) == (len(cands), sum(len(c.cover) for c in cands))
    assert info["candidate_cover"] > 0


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import run as bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return bench


def test_candidate_rows_show_the_rules_stage_output_and_time_per_case():
    def res(rows, rules_s, cands, cover):
        return {"ours": {"info": {"rows": rows, "candidates": cands, "candidate_cover": cover},
                         "status": "ok", "stages": {"rules": {"wall": rules_s}}}}
    results = {"synth_10k": res(10_000, 0.05, 1000, 100_000), "synth_100k": res(100_000, 1.0, 10_000, 2_500_000),
               "synth_1m": res(1_000_000, 22.0, 100_000, 55_000_000)}
    bench = _bench()
    rows = bench.candidate_rows(results)
    assert rows == [["candidate rules", "1,000", "10,000", "100,000", "10.0", "10.0"],
                    ["summed candidate covers", "100,000", "2,500,000", "55,000,000", "25.0", "22.0"],
                    ["rules wall s per million covered cases", "0.500", "0.400", "0.400", "0.8", "1.0"]]
    # runs stored before the covers were recorded show no such table
    del results["synth_1m"]["ours"]["info"]["candidate_cover"]
    assert bench.candidate_rows(results) == []


def test_bench_with_workers_keeps_its_rows_apart(tmp_path):
    md = tmp_path / "BENCH.md"
    for extra in ([], ["--jobs", "2"]):
        out = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--datasets", "crx",
                              "--skip-sklearn", "--markdown", str(md), *extra],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
    report = md.read_text()
    for name in ("crx", "crx -j2"):
        rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in report.splitlines()
                if ln.startswith(f"| {name} |")]
        assert [r[2] for r in rows] == ["load", "tree", "rules", "total", "predict", "predict 1M"]
        rules = rows[2]
        assert float(rules[3]) > 0 and float(rules[4]) > 0 and float(rules[5]) > 0   # wall, CPU, peak
    assert "## Targets (issue 6) with 2 workers (-j2)" in report
    assert "## Targets (issue 6)\n" in report


def test_repeats_merge_to_the_best_time_and_the_highest_peak():
    bench = _bench()
    one = {"status": "ok", "info": {}, "stages": {"tree": {"wall": 2.0, "peak_kb": 100}, "rules": {"wall": 5.0}}}
    two = {"status": "ok", "info": {}, "stages": {"tree": {"wall": 1.5, "peak_kb": 90}, "rules": {"wall": 6.0}}}
    got = bench._merged([one, two])
    assert got["stages"]["tree"] == {"wall": 1.5, "peak_kb": 100} and got["stages"]["rules"] == {"wall": 5.0}
    late = {"status": "timeout", "info": {}, "stages": {"tree": {"status": "timeout", "after": 9.0}}}
    assert bench._merged([one, late]) is late


def test_engines_bench_checks_each_engine_against_the_default_and_keeps_its_section(tmp_path):
    md = tmp_path / "BENCH.md"
    md.write_text("# Benchmarks\n\nsomething bench/run.py wrote\n")
    cmd = [sys.executable, str(ROOT / "bench" / "engines.py"), "--rows", "3000", "--sample", "1000",
           "--train", "synth_10k", "--engines", "default,duckdb", "--data-dir", str(tmp_path / "data"),
           "--markdown", str(md), "--copies"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in out.stdout.splitlines()
            if ln.startswith("| d")]
    # every engine on the sample (every 3rd row), DuckDB also on all rows; each agrees with default;
    # DuckDB's copy of the same rows with no decision after each of its runs, and the default engine
    # on the sample as Parquet (issue 52)
    assert [(r[0], r[1], r[7]) for r in rows] == [("default", "1,000", "yes"), ("duckdb", "1,000", "yes"),
                                                  ("duckdb-copy", "1,000", "-"), ("duckdb", "3,000", "yes"),
                                                  ("duckdb-copy", "3,000", "-"), ("default, Parquet", "1,000", "-")]
    text = md.read_text()
    assert text.startswith("# Benchmarks\n\nsomething bench/run.py wrote\n")
    assert text.count("<!-- section engines -->") == 1 and "## Scoring a file with the three engines" in text
    # run again: the section is replaced, not appended; bench/run.py's rewrite keeps it
    assert subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300).returncode == 0
    assert md.read_text().count("<!-- section engines -->") == 1
    subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--datasets", "golf", "--skip-sklearn",
                    "--markdown", str(md)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    text = md.read_text()
    assert "| golf |" in text and text.count("<!-- section engines -->") == 1
    assert "| duckdb | 3,000 |" in text


@pytest.mark.skipif(not os.access(R_SHARED / "anchors" / "c5.0", os.X_OK) and not os.environ.get("CI"),
                    reason="no C5.0 anchor")
def test_vs_c50_runs_both_programs_and_reports_their_rules_and_errors(tmp_path):
    md = tmp_path / "BENCH.md"
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "vs_c50.py"), "--datasets", "golf,crx",
                          "--jobs-row", "", "--boost-row", "crx", "--markdown", str(md)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = {r[0]: r for r in ([c.strip() for c in ln.strip("|").split("|")] for ln in out.stdout.splitlines()
                              if ln.startswith("| golf |") or ln.startswith("| crx |"))}
    # rules ours / C5.0 and errors (crx: on crx.test) as both programs print them
    assert (rows["golf"][8], rows["golf"][9]) == ("4 / 4", "0 / 0 (train)")
    assert (rows["crx"][1], rows["crx"][8], rows["crx"][9]) == ("490", "14 / 13", "31 / 32")
    # the boosted row: ours -b's 10 trials against c5.0 -r -b's, rules over all trials, test errors
    boosted = next([c.strip() for c in ln.strip("|").split("|")] for ln in out.stdout.splitlines()
                   if ln.startswith("| crx -b |"))
    assert (boosted[8], boosted[9]) == ("185 / 146", "32 / 36")
    assert "<!-- section vs-c50 -->" in md.read_text()
