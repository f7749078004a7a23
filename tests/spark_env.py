"""Whether Spark can run here, for the Spark fixtures (tests/conftest.py) and the docs' Spark
block (tests/test_docs.py): a module of its own, since `conftest` names a different module
in each test folder."""
from __future__ import annotations

import os
import shutil


def spark_missing() -> str | None:
    """Why Spark tests cannot run here (no Java, no pyspark), or None when they can."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not installed (Spark needs a JVM: apt-get install openjdk-17-jre-headless)"
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install pyspark, part of the test extra)"
    return None
