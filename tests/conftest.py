"""Shared test setup."""
import sys
from pathlib import Path

# the reference-output parsers live in bench/reference.py (used by the fidelity tests)
_BENCH = str(Path(__file__).resolve().parents[1] / "bench")
if _BENCH not in sys.path:
    sys.path.insert(0, _BENCH)


# ---- the full comparisons ----------------------------------------------------------------------
# CI must finish in 30 minutes, so a slow comparison whose point a sample already proves is marked
# `full` and runs only with C45RULES_FULL=1 (the README's test command, with it set, runs them all)
# Under pytest-xdist (pyproject's addopts), the tests needing local Spark share one worker, so
# that one JVM (the session-scoped `spark` below) serves them all; the standalone cluster's tests
# share another group, so that it starts once, on whichever worker is free.
def xdist_group_of(fixtures: set[str]) -> str | None:
    """The xdist group of a test using these fixtures: one per costly JVM it starts."""
    if "cluster" in fixtures:
        return "spark-cluster"
    if fixtures & {"spark", "spark_ready"}:
        return "spark"
    return None


def pytest_collection_modifyitems(config, items):
    import os

    import pytest
    for item in items:
        group = xdist_group_of(set(getattr(item, "fixturenames", ())))
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if os.environ.get("C45RULES_FULL"):
        return
    skip = pytest.mark.skip(reason="a full comparison: C45RULES_FULL=1 runs it")
    for item in items:
        if item.get_closest_marker("full") is not None:
            item.add_marker(skip)


# ---- Spark -------------------------------------------------------------------------------------
import os

import pytest

from spark_env import spark_missing


@pytest.fixture(scope="session")
def spark_ready() -> None:
    """Skip without Java or pyspark, but fail under CI, where the Spark tests must run."""
    why = spark_missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"Spark tests must run under CI: {why}")
        pytest.skip(why)


@pytest.fixture(scope="session")
def spark(spark_ready):
    """A local[2] SparkSession for the test session (no UI, two shuffle partitions), whose Python
    tasks (learning on Spark) run this Python, with the package's dependencies: one JVM start
    for every Spark test (they share an xdist worker: pytest_collection_modifyitems)."""
    import sys
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    session = (SparkSession.builder.master("local[2]").appName("c45rules tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
