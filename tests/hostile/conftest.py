"""Setup of the hostile-input tests: a fixed hypothesis profile and the export test helpers.

The profile is derandomized (the same examples on every run and machine), has no
per-example deadline (DuckDB's first connection is slow) and a bounded number of examples,
so the folder is reproducible in CI and finishes in well under two minutes. A failure
prints the reproduction blob.

The profile is applied per test (`@settings.get_profile("c45rules-hostile")`), not loaded
globally, so it cannot change hypothesis tests in other folders.
"""
from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# export_cases.py (rows <-> encoded datasets, scoring helpers) and test_sql.py (loading a
# table into SQLite / DuckDB) live in tests/export, which is not a package
_EXPORT = str(Path(__file__).resolve().parents[1] / "export")
if _EXPORT not in sys.path:
    sys.path.insert(0, _EXPORT)

settings.register_profile(
    "c45rules-hostile",
    derandomize=True,
    deadline=None,
    max_examples=50,
    print_blob=True,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.data_too_large),
)
