"""Shared test setup."""
import sys
from pathlib import Path

# the reference-output parsers live in bench/reference.py (used by the fidelity tests)
_BENCH = str(Path(__file__).resolve().parents[1] / "bench")
if _BENCH not in sys.path:
    sys.path.insert(0, _BENCH)


# ---- Spark -------------------------------------------------------------------------------------
import os
import shutil

import pytest


def spark_missing() -> str | None:
    """Why Spark tests cannot run here (no Java, no pyspark), or None when they can."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not installed (Spark needs a JVM: apt-get install openjdk-17-jre-headless)"
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install pyspark, part of the test extra)"
    return None


@pytest.fixture(scope="session")
def spark_ready() -> None:
    """Skip without Java or pyspark, but fail under CI, where the Spark tests must run."""
    why = spark_missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"Spark tests must run under CI: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def spark(spark_ready):
    """A local[2] SparkSession for one test module (no UI, two shuffle partitions)."""
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("c45rules tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
