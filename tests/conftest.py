"""Shared test setup."""
import os
import sys
from pathlib import Path

import pytest

# the reference-output parsers live in bench/reference.py (used by the fidelity tests)
_BENCH = str(Path(__file__).resolve().parents[1] / "bench")
if _BENCH not in sys.path:
    sys.path.insert(0, _BENCH)


# ---- where each test runs, and the full comparisons ----------------------------------------------
# Under pytest-xdist (pyproject's addopts), the tests needing local Spark share one worker, so
# that one JVM (the session-scoped `spark` below) serves them all; the standalone cluster's tests
# share another group, so that it starts once, on whichever worker is free. Modules whose tests
# share a cache of costly fits (an lru_cache read by a summary test as well as by each case's
# test) run on one worker each, so that the fits are made once.
CACHE_GROUPS = {"test_j48.py": "j48", "test_cart.py": "cart", "test_chaid.py": "chaid",
                "test_window_fidelity.py": "window-fidelity",
                **dict.fromkeys(("test_regression_sql.py", "test_regression_pmml.py", "test_regression_cli.py",
                                 "test_regression_python.py"), "regression-exports")}


def xdist_group_of(fixtures: set[str], module: str) -> str | None:
    """The xdist group of a test using these fixtures in this module (a file name): one per
    costly JVM it starts, or per cache of fits it shares."""
    if "cluster" in fixtures:
        return "spark-cluster"
    if fixtures & {"spark", "spark_ready"}:
        return "spark"
    return CACHE_GROUPS.get(module)


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = xdist_group_of(set(getattr(item, "fixturenames", ())), item.path.name)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # CI must finish in 30 minutes, so a slow comparison whose point a sample already proves is
    # marked `full` and runs only with C45RULES_FULL=1 (the README's test command, with it set,
    # runs them all)
    if os.environ.get("C45RULES_FULL"):
        return
    skip = pytest.mark.skip(reason="a full comparison: C45RULES_FULL=1 runs it")
    for item in items:
        if item.get_closest_marker("full") is not None:
            item.add_marker(skip)


# ---- Spark -------------------------------------------------------------------------------------
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
