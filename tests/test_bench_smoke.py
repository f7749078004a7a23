"""bench/run.py runs end to end on a tiny dataset and writes its table (timings never asserted)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import run as bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    one = {"status": "ok", "info": {}, "stages": {"tree": {"wall": 2.0, "peak_kb": 100}, "rules": {"wall": 5.0}}}
    two = {"status": "ok", "info": {}, "stages": {"tree": {"wall": 1.5, "peak_kb": 90}, "rules": {"wall": 6.0}}}
    got = bench._merged([one, two])
    assert got["stages"]["tree"] == {"wall": 1.5, "peak_kb": 100} and got["stages"]["rules"] == {"wall": 5.0}
    late = {"status": "timeout", "info": {}, "stages": {"tree": {"status": "timeout", "after": 9.0}}}
    assert bench._merged([one, late]) is late
