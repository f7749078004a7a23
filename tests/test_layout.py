"""The package's layout (docs/layout.md): the import graph of c45rules has no circles, and the
models and learning stages do not reach up into the outputs.

The graph is built statically from every c45rules/**/*.py, counting every import statement
wherever it stands: an import inside a function (kept lazy so that `--help` stays light) is
still a dependency, and so is one under `if TYPE_CHECKING:`.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

import c45rules

PACKAGE = Path(c45rules.__file__).parent
# the lower packages and what they must never import (STYLE.md's last section)
LOWER = ("tree", "rules", "model")
UPPER = ("export", "service", "cli")


def module_names(root: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package) for every module of the package."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def imported_modules(node: ast.AST, package: str, modules: dict) -> list[str]:
    """The package's modules that one import statement loads (relative imports resolved,
    `from X import name` counted as X.name when that is a module, else as X)."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
    else:
        return []
    found = []
    for target in targets:
        while target not in modules and "." in target:     # `import c45rules.x.y` names x.y's module
            target = target.rpartition(".")[0]
        if target in modules:
            found.append(target)
    return found


def import_graph(root: Path = PACKAGE) -> nx.DiGraph:
    """module -> module for every import statement of the package's own modules."""
    modules = module_names(root)
    graph = nx.DiGraph()
    for name, (path, is_package) in modules.items():
        graph.add_node(name)
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in imported_modules(node, package, modules):
                if target != name:
                    graph.add_edge(name, target)
    return graph


def layer(module: str) -> str:
    """The first package under c45rules ('tree', 'cli', ...), or the module's own name."""
    return module.split(".")[1] if "." in module else ""


def test_the_graph_sees_relative_lazy_and_package_imports():
    # the parser itself, on edges known to be there (a test that found no edges would pass)
    graph = import_graph()
    assert graph.has_edge("c45rules.cli.io", "c45rules.errors")            # from ..errors import
    assert graph.has_edge("c45rules.cli.tune", "c45rules.learn.crossval")  # inside a function
    assert graph.has_edge("c45rules.model.boosted", "c45rules.model.ruleset")
    assert graph.number_of_edges() > 300


def test_the_package_has_no_import_circles():
    graph = import_graph()
    circles = sorted(" -> ".join([*c, c[0]]) for c in nx.simple_cycles(graph))
    assert circles == [], "import circles:\n" + "\n".join(circles)


def test_models_and_stages_do_not_import_the_outputs():
    graph = import_graph()
    upward = sorted(f"{a} -> {b}" for a, b in graph.edges if layer(a) in LOWER and layer(b) in UPPER)
    assert upward == [], "lower packages importing export/, service/ or cli/:\n" + "\n".join(upward)


def test_data_imports_nothing_above_it():
    # data/ is the floor every stage reads from: it may use the top-level helpers, no package
    graph = import_graph()
    floor = {"c45rules", "c45rules.errors", "c45rules._lazy", "c45rules.libm", "c45rules.workers"}
    upward = sorted(f"{a} -> {b}" for a, b in graph.edges
                    if layer(a) == "data" and layer(b) != "data" and b not in floor)
    assert upward == [], "data/ importing above it:\n" + "\n".join(upward)


def test_the_decision_models_live_in_model_and_the_stages_in_learn():
    modules = module_names()
    for name in ("ruleset", "boosted", "records"):
        assert f"c45rules.model.{name}" in modules
    for name in ("pipeline", "crossval", "winnow"):
        assert f"c45rules.learn.{name}" in modules


def test_the_old_module_paths_warn_and_give_the_moved_modules():
    import importlib
    import sys

    import c45rules.model.ruleset
    sys.modules.pop("c45rules.ruleset", None)
    with pytest.warns(DeprecationWarning, match="c45rules.ruleset moved to c45rules.model.ruleset"):
        old = importlib.import_module("c45rules.ruleset")
    assert old is c45rules.model.ruleset
    from c45rules import RuleSet
    assert old.RuleSet is RuleSet


def test_a_model_pickled_under_an_old_class_path_still_loads():
    # joblib/pickle files name a class by module and name: one written before the move says
    # c45rules.ruleset.Condition; protocol 0 spells the path out, so it can be written as before
    import pickle
    import sys

    from c45rules import Condition
    sys.modules.pop("c45rules.ruleset", None)
    new = pickle.dumps(Condition("A9", "=", "t"), protocol=0)
    old = new.replace(b"c45rules.model.ruleset", b"c45rules.ruleset")
    assert old != new
    with pytest.warns(DeprecationWarning):
        assert pickle.loads(old) == pickle.loads(new)
