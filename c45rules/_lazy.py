"""Package attributes imported on first use, so that `c45rules --help` and the light commands
start without numpy, pandas or sqlglot (issue 33)."""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


def lazy_exports(package: str, where: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(__getattr__, __dir__) for `package`: each name of `where` is imported from its
    submodule (relative to the package) when first read, then kept in the package."""
    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__


class LazyModule:
    """A stand-in for `import NAME as alias` that imports NAME at the first attribute read:
    the C4.5-file path (.names/.data, a model file) then runs without pandas' 0.3 s import."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
