"""Two independent PMML evaluators for the PMML tests: JPMML (jpmml-evaluator) and PMML4S
(pypmml), each in a JVM gateway process (py4j) started once per test session and ended with it. JPMML's default
jpype backend would start the JVM inside the test process, whose threads then hang the later
tests that fork (tests/test_jobs.py).

Without Java (or the packages) the tests skip, except under CI (env CI set), where they fail.
Rows are given as the export tests hold them (floats, None, NaN, text); PMML4S's batch call
carries numbers as text, so they are passed as exact repr() text (Java spells infinity
"Infinity") and unknowns as None.
"""
from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile

import pandas as pd
import pytest


def evaluators_missing() -> str | None:
    """Why the PMML evaluators cannot run here (no Java, no jpmml-evaluator or pypmml), or None."""
    if shutil.which("java") is None:
        return "java is not on PATH (the PMML evaluators need Java 17: apt-get install default-jre-headless)"
    try:
        import jpmml_evaluator  # noqa: F401
        import pypmml  # noqa: F401
    except ImportError as e:
        return f"{e.name} is not installed (pip install -e '.[test]')"
    return None


def require_evaluators() -> None:
    """Skip (fail under CI) unless Java, jpmml-evaluator and pypmml are all there."""
    problem = evaluators_missing()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"PMML evaluator tests must run under CI: {problem}")
        pytest.skip(problem)


def _frame(rows: list[dict], fields: list[str], text_numbers: bool) -> pd.DataFrame:
    def cell(v):
        if isinstance(v, float):
            if math.isnan(v):
                return None
            if text_numbers:
                return ("Infinity" if v > 0 else "-Infinity") if math.isinf(v) else repr(v)
        return v
    return pd.DataFrame([{f: cell(r.get(f)) for f in fields} for r in rows], columns=fields, dtype=object)


def jpmml_backend():
    """JPMML's py4j backend on a gateway that ends with this process (jpmml-evaluator's own
    launch leaves its JVM running after the tests)."""
    from jpmml_evaluator import _classpath
    from jpmml_evaluator.py4j import Py4JBackend
    from py4j.java_gateway import JavaGateway
    if Py4JBackend.gateway is None:
        Py4JBackend.gateway = JavaGateway.launch_gateway(classpath=os.pathsep.join(_classpath([])),
                                                         die_on_exit=True)
        atexit.register(Py4JBackend.destroyGateway)
    return Py4JBackend()


def jpmml(pmml_text: str, rows: list[dict], fields: list[str]) -> pd.DataFrame:
    """JPMML's results (the target and every output field, one row per row)."""
    from jpmml_evaluator import make_evaluator
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pmml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(pmml_text)
        evaluator = make_evaluator(path, backend=jpmml_backend()).verify()
    return evaluator.evaluateAll(_frame(rows, fields, text_numbers=False))


def pmml4s(pmml_text: str, rows: list[dict], fields: list[str]) -> pd.DataFrame:
    """PMML4S's results through pypmml (its output fields, one row per row)."""
    from pypmml import Model
    model = Model.fromString(pmml_text)
    model.setSupplementOutput(True)   # the predicted value too when the Output names none
    return model.predict(_frame(rows, fields, text_numbers=True))
