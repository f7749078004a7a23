"""Fixtures of the import tests: the export tests' fitted and hostile rule sets (export_cases)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

_EXPORT_TESTS = str(Path(__file__).resolve().parents[1] / "export")
if _EXPORT_TESTS not in sys.path:
    sys.path.insert(0, _EXPORT_TESTS)

from export_cases import Scored, fit_scored, hostile_ruleset, score  # noqa: E402


@pytest.fixture(scope="session")
def fitted():
    """fitted(name) -> Scored for a dataset of the shared data (cached per session)."""
    cache: dict[str, Scored] = {}

    def get(name: str) -> Scored:
        if name not in cache:
            cache[name] = fit_scored(name)
        return cache[name]
    return get


@pytest.fixture(scope="session")
def hostile() -> Scored:
    """The hostile rule set (no rows: the import tests read its model only)."""
    return score("hostile", hostile_ruleset(), [])
