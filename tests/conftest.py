"""Shared test setup."""
import sys
from pathlib import Path

# the reference-output parsers live in bench/reference.py (used by the fidelity tests)
_BENCH = str(Path(__file__).resolve().parents[1] / "bench")
if _BENCH not in sys.path:
    sys.path.insert(0, _BENCH)
