"""Learning on Spark (issue 51): `fit --engine spark` and `c45rules.fit(spark_df)` learn in
passes as Spark jobs over a DataFrame's partitions, and write the in-memory fit's model byte for
byte on every shared set the streamed fit equals (test_stream_fit.py, docs/large-data.md); the
driver receives count tables, never the rows.

One local[2] session for the file; each DataFrame is cut into 3 partitions (repartition), so
every table merges across partitions, and cached, so that a pass does not read the CSV again.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules.cli import main
from c45rules.errors import InputError
from c45rules.export.yaml import dump_yaml
from c45rules.learn.pipeline import fit_batches
from c45rules.learn.spark import open_spark

from .conftest import DATA

# the streamed fit's sets (test_stream_fit.SETS, with unknowns: labor, breast-cancer, vote_weka,
# hypo, income); the quick ones by default, the rest marked slow
QUICK = ["golf", "iris", "crx", "labor-neg", "labor"]
SLOW = ["glass", "monk1", "monk2", "monk3", "vote", "diabetes", "credit-g", "sonar", "ionosphere",
        "segment", "breast-cancer", "vote_weka", "hypo", "shuttle", "income", "letter", "spambase", "synth_10k"]
# vehicle is left out: two of its columns' names differ only in case, which Spark renames on
# reading (the CLI refuses such a file by name: test_bad_input_named)


def csv_of(name: str):
    path = DATA / name / f"{name}.csv"
    return path, pd.read_csv(path, nrows=0).columns[-1]


def text_frame(spark, path, parts: int = 3):
    """The CSV as Spark reads it as text (as --engine spark does), in `parts` cached partitions."""
    return spark.read.csv(str(path), header=True, inferSchema=False, quote='"', escape='"',
                          multiLine=True).repartition(parts).cache()


# CI's 30 minutes: a sample of the slow sets (hypo: unknown values and several classes; segment:
# seven classes) runs by default, all of them with C45RULES_FULL=1
SAMPLE = ["hypo", "segment"]


@pytest.mark.parametrize("name", QUICK + [pytest.param(n, marks=pytest.mark.slow if n in SAMPLE else pytest.mark.full)
                                          for n in SLOW])
def test_spark_fit_is_the_in_memory_model(spark, name):
    path, target = csv_of(name)
    frame = text_frame(spark, path)
    source = open_spark(frame, target, text=True, batch_rows=97, source=str(path))
    ruleset, _, facts = fit_batches(source)
    assert dump_yaml(ruleset) == dump_yaml(c45rules.fit(path, target=target))
    assert facts.rows == source.n and len(facts.driver_bytes) == len(source.pass_bytes)
    frame.unpersist()


def cli(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in args])
    return code, out.getvalue()


def test_cli_parquet_table_and_python_dataframe(spark, tmp_path):
    path, target = csv_of("crx")
    pq = tmp_path / "crx.parquet"
    pd.read_csv(path).to_parquet(pq, row_group_size=100)
    plain = dump_yaml(c45rules.fit(pq, target=target))
    # a Parquet path
    code, out = cli("fit", pq, "--target", target, "--engine", "spark", "-o", tmp_path / "a.yaml", "--json")
    assert code == 0 and (tmp_path / "a.yaml").read_text() == plain
    stream = json.loads(out)["stream"]
    # the train errors and each rule's use: counted by a pass in Spark, the in-memory ones
    _, plain_out = cli("fit", pq, "--target", target, "-o", tmp_path / "p.yaml", "--json")
    for key in ("train_errors", "rule_list"):
        assert json.loads(out)[key] == json.loads(plain_out)[key], key
    sent = stream["driver_bytes_per_pass"]
    # a job per pass (the schema pass's: two or three); the fingerprint's: 8 bytes a row
    assert len(sent) > stream["passes"] and 8 * stream["rows"] in sent
    # a table of the catalog
    spark.read.parquet(str(pq)).repartition(3).createOrReplaceTempView("crx_view")
    code, _ = cli("fit", "spark:crx_view", "--target", target, "--engine", "spark", "-o", tmp_path / "b.yaml",
                  "-q")
    assert code == 0 and (tmp_path / "b.yaml").read_text() == plain
    # a DataFrame in Python
    assert dump_yaml(c45rules.fit(spark.table("crx_view"), target=target)) == plain


def test_driver_receives_tables_not_rows(spark):
    """Eight times the rows (the same distinct values) in one partition against the rows once in
    3: the schema pass's jobs, the root's count and the root level's tables send the driver no
    more bytes (the partitions' tables are combined in Spark: one table reaches the driver); the
    fingerprint's sends 8 bytes a row. test_driver_memory_flat checks every pass at 10x the rows."""
    path, target = csv_of("crx")
    once = text_frame(spark, path)
    eight = once
    for _ in range(3):
        eight = eight.unionByName(eight)
    eight = eight.repartition(1).cache()
    sent = []
    for frame in (once, eight):
        source = open_spark(frame, target, text=True)
        fit_batches(source)
        sent.append(source.pass_bytes)
    small, big = sent
    assert small.index(8 * 490) > 4 and big.index(8 * 8 * 490) > 4
    for a, b in zip(small[:4], big[:4]):
        assert b <= 1.25 * a + 64, (small, big)


def test_bad_input_named(spark, tmp_path):
    path, target = csv_of("iris")
    frame = text_frame(spark, path, 2)
    with pytest.raises(InputError, match="target column 'nope' not found"):
        open_spark(frame, "nope", text=True)
    with pytest.raises(InputError, match="weights"):
        c45rules.fit(frame, target=target, sample_weight=[1.0] * 150)
    with pytest.raises(InputError, match="boosting"):
        c45rules.fit(frame, target=target, trials=3)
    code, _ = cli("fit", "spark:iris_view", "--target", target, "-o", tmp_path / "m.yaml")
    assert code == 2
    alike = tmp_path / "alike.csv"      # names that differ only in case: Spark renames one on reading
    alike.write_text("Width,width,class\n1,2,a\n3,4,b\n")
    code, _ = cli("fit", alike, "--target", "class", "--engine", "spark", "--master", "local[1]", "-o",
                  tmp_path / "alike.yaml")
    assert code == 2 and not (tmp_path / "alike.yaml").exists()


def concept_table(path, n: int) -> None:
    """n rows of a clean concept with few distinct values (class yes iff a >= 5 and b is not r;
    c and d noise), as Parquet: the same tree from 100k rows as from 1M."""
    rng = np.random.default_rng(n)
    a, c = rng.integers(0, 10, n), rng.integers(0, 5, n)
    b, d = rng.choice(np.array(["p", "q", "r"]), n), rng.choice(np.array(["u", "v"]), n)
    pd.DataFrame({"a": a, "b": b, "c": c, "d": d,
                  "class": np.where((a >= 5) & (b != "r"), "yes", "no")}).to_parquet(path)


def _status(field: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS: the resident memory; VmHWM: its peak)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))


def driver_growth(fit) -> int:
    """The driver's (this Python's) peak resident memory during fit(), above its memory before."""
    with open("/proc/self/clear_refs", "w") as f:   # the peak (VmHWM) from here on
        f.write("5")
    before = _status("VmRSS")
    fit()
    return _status("VmHWM") - before


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="reads the driver's memory from Linux's /proc")
def test_driver_memory_flat(spark, tmp_path):
    """From 100k rows in 2 partitions to 1M in 4 (the same tree), the driver's peak memory
    stays within 16 MB (the 1M rows' codes alone are 40 MB, their table several times that)
    and no pass sends it more bytes (its own accounting, `pass_bytes`), but the first (a row
    count per partition) and the fingerprint's, which streams 8 bytes a row range by range: the
    driver never collects the rows, and the partitions' tables reach it as one table."""
    sent, grew = [], []
    for n, parts in ((100_000, 2), (1_000_000, 4)):
        path = tmp_path / f"concept_{n}.parquet"
        concept_table(path, n)
        frame = spark.read.parquet(str(path)).repartition(parts).cache()
        source = open_spark(frame, "class")
        got = {}
        grew.append(driver_growth(lambda: got.setdefault("fit", fit_batches(source))))
        sent.append(source.pass_bytes)
        if n == 100_000:   # the in-memory model
            assert dump_yaml(got["fit"][0]) == dump_yaml(c45rules.fit(path, target="class"))
        frame.unpersist()
    (small, big), (hundred_k, million) = sent, (100_000, 1_000_000)
    assert len(small) == len(big) and small.count(8 * hundred_k) == 1 and big.count(8 * million) == 1, (small, big)
    # the first job sends each partition's row count (about 17 bytes a partition)
    assert big[0] <= 32 * 4, big
    for a, b in zip(small[1:], big[1:]):
        if b != 8 * million:
            assert b <= 1.25 * a + 256, (small, big)
    assert grew[1] <= grew[0] + 16 * 2 ** 20, grew


def crx_on_spark(spark):
    """(crx's cached frame, its Spark source) after a fit on Spark that gave the in-memory model."""
    path, target = csv_of("crx")
    frame = text_frame(spark, path)
    source = open_spark(frame, target, text=True, source=str(path))
    ruleset, _, _ = fit_batches(source)
    assert dump_yaml(ruleset) == dump_yaml(c45rules.fit(path, target=target))
    return frame, source


def test_tables_in_pieces(spark, monkeypatch):
    """A pass's table reaches the driver (and the merging task) in rows of at most _PIECE_BYTES,
    put together again in order: a table in many pieces gives the in-memory model."""
    import c45rules.learn.spark as spark_learning
    monkeypatch.setattr(spark_learning, "_PIECE_BYTES", 1000)
    frame, source = crx_on_spark(spark)
    assert max(source.pass_bytes) > 10 * 1000     # the largest table came in more than 10 pieces
    frame.unpersist()


def test_codes_cached_in_small_rows(spark, monkeypatch):
    """The encoded codes are cached in rows of at most _BLOB_BYTES (a 100,000-row batch in one
    row was copied whole by the JVM as it cached it: 5M rows ran a 1 GB executor out of heap),
    and joined again into batches of batch_rows for the passes: the in-memory model."""
    import c45rules.learn.spark as spark_learning
    monkeypatch.setattr(spark_learning, "_BLOB_BYTES", 2000)
    frame, source = crx_on_spark(spark)
    sizes = [len(b) for b in source._encoded().toPandas()["blob"]]
    assert len(sizes) >= 20 and max(sizes) < 2000 + 1000    # 690 rows: codes of at most 2000 bytes a row, and the pickle
    assert source.last_batches == 3     # one batch a partition, joined again
    # cached on disk: the JVM's heap is left to the passes (5M rows' codes ran it out of heap)
    level = source._encoded().storageLevel
    assert level.useDisk and not level.useMemory
    frame.unpersist()


def test_stopped_jvm_named():
    """A JVM that stopped (a task out of heap ends it) is named with the remedy, and releasing
    the cached codes afterwards does not replace that error with its own ConnectionRefusedError."""
    from c45rules.learn.spark import SparkBatches, _spark_failed
    message = str(_spark_failed(ConnectionRefusedError(111, "Connection refused")))
    assert message.startswith("Spark failed: its JVM stopped ([Errno 111] Connection refused)")
    assert "spark.driver.memory" in message and "spark.executor.memory" in message

    class Gone:
        def unpersist(self):
            raise ConnectionRefusedError(111, "Connection refused")
    source = object.__new__(SparkBatches)
    source._cache = Gone()
    source.release()
    assert source._cache is None


@pytest.mark.skipif(shutil.which("java") is None, reason="needs Java")
def test_driver_jvm_ends_at_its_first_out_of_memory_error():
    """The command line's Spark driver runs with -XX:+ExitOnOutOfMemoryError: a task's result
    too large for the heap stopped only Spark's thread that receives results, and the noisy 5M
    fit on local[2] then waited forever; a stopped JVM is named (test_stopped_jvm_named). In a
    process of its own, so that no session is already active."""
    pytest.importorskip("pyspark")
    code = ("import c45rules.cli.spark as s; session, ours = s._session('local[1]'); "
            "bean = session.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean(); "
            "print(list(bean.getInputArguments())); session.stop()")
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_SUBMIT_ARGS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "-XX:+ExitOnOutOfMemoryError" in out.stdout.strip().splitlines()[-1]


def test_failed_python_task_named():
    """A Spark job whose Python task failed: the one-line error names the Python error (Spark's
    first line does not), not a Java frame."""
    from c45rules.learn.spark import _spark_failed
    text = ("An exception was thrown from the Python worker:\nTraceback (most recent call last):\n"
            '  File "x.py", line 3, in together\nMemoryError: cannot allocate 2 GB\n'
            "\tat org.apache.spark.api.python.BasePythonRunner.read(PythonRunner.scala:1)\n"
            "org.apache.spark.api.python.PythonException: [PYTHON_EXCEPTION] more")
    assert str(_spark_failed(RuntimeError(text))) == ("Spark failed: An exception was thrown from the Python worker:"
                                                      " (MemoryError: cannot allocate 2 GB)")
    assert str(_spark_failed(RuntimeError("Job aborted\n\tat x.y(Z.scala:1)"))) == "Spark failed: Job aborted"


def test_java_error_named():
    """A Spark job that failed in the JVM (py4j's error): the one-line error names the Java
    exception and its root cause, not only py4j's call (synth_1m's fifth run said no more than
    "An error occurred while calling o1410.getResult.")."""
    from c45rules.learn.spark import _spark_failed
    text = ("An error occurred while calling o1410.getResult.\n"
            ": org.apache.spark.SparkException: Exception thrown in awaitResult: \n"
            "\tat org.apache.spark.util.SparkThreadUtils$.awaitResult(SparkThreadUtils.scala:56)\n"
            "Caused by: org.apache.spark.SparkException: Job aborted\n\tat x.y(Z.scala:1)\n"
            "Caused by: java.lang.OutOfMemoryError: Java heap space\n\tat x.y(Z.scala:2)")
    assert str(_spark_failed(RuntimeError(text))) == (
        "Spark failed: An error occurred while calling o1410.getResult. (org.apache.spark.SparkException:"
        " Exception thrown in awaitResult:; caused by java.lang.OutOfMemoryError: Java heap space)")


def test_spread_keeps_the_rows_in_order(spark):
    # a table read by one task is spread over the cores before encoding: each partition a run
    # of consecutive rows, so that the passes sum fractional weights in the file's case order
    from c45rules.learn.spark import spread_in_order
    frame = spark.range(0, 60000, numPartitions=1).withColumnRenamed("id", "i")
    spread = spread_in_order(frame, 3)
    parts = spread.rdd.glom().map(lambda rows: [r.i for r in rows]).collect()
    assert sum(1 for p in parts if p) > 1
    assert [i for p in parts for i in p] == list(range(60000))
