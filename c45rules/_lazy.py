"""Package attributes imported on first use, so that `c45rules --help` and the light commands
start without numpy, pandas or sqlglot (issue 33)."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
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


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The old dotted paths of modules that moved into packages (issue 49.6): importing one
    warns (DeprecationWarning) and gives the module at its new path, the same object, so that
    old imports and models pickled under the old class paths still load."""

    def __init__(self, moved: dict[str, str]):
        self.moved = moved

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for an old path, None for every other name."""
        return importlib.util.spec_from_loader(name, self) if name in self.moved else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        """The import system's default module: exec_module replaces it."""
        return None

    def exec_module(self, module: Any) -> None:
        """Put the module at the new path in the old path's place (the import system returns
        what sys.modules holds once this returns)."""
        new = self.moved[module.__name__]
        warnings.warn(f"{module.__name__} moved to {new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(new)
