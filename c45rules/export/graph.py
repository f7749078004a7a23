"""A C4.5 tree or a rule list as a graph: networkx DiGraph, GraphML file, Graphviz DOT text.

Tree: nodes are numbered 0, 1, ... depth first (branches in order), the root being 0. Node
attributes: `label` (the tested attribute, or `class (items/errors)` at a leaf), `kind`
(leaf, discrete, threshold, subset), `class` (majority class), `items`, `errors`, and for
tests `attribute` (and `threshold` for a cut). Edge attributes: `label` (`<= 228`, `> 228`,
`= t`, `in {a, b}`) and `branch` (its position among the node's branches).

Rule list (from the RuleSet alone): the rules in the order they are tried, each a node
(`kind` rule: `label` "Rule 28" and its conditions one a line, `rule_id`, `class`,
`confidence`, `covered`, `errors`) with an edge `all hold` to its class (a `kind` class
node) and an edge `else` to the next rule; after the last rule, the default class
(`kind` default). A rule that never fires (error above 0.7) is drawn with `fires` false.
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import networkx as nx

from ..data.schema import Schema
from ..errors import InputError
from ..model.ruleset import RuleSet, format_threshold
from ..tree.node import Node
from ._atomic import atomic_write_text


def _leaf_label(node: Node, schema: Schema) -> str:
    text = f"{schema.classes[node.klass]} ({node.items:.1f}"
    return text + (f"/{node.errors:.1f})" if node.errors > 0 else ")")


def _branch_label(node: Node, schema: Schema, v: int) -> str:
    attr = schema.attributes[node.attribute]
    if node.kind == "threshold":
        return f"{'<=' if v == 0 else '>'} {format_threshold(node.cut)}"
    if node.kind == "discrete":
        return f"= {attr.values[v]}"
    values = [attr.values[c] for c in sorted(node.subsets[v])]
    return f"= {values[0]}" if len(values) == 1 else f"in {{{', '.join(values)}}}"


def tree_to_networkx(node: Node, schema: Schema) -> nx.DiGraph:
    """The tree as a directed graph (root 0, children numbered depth first).

    Parameters
    ----------
    node : Node
        The tree's root (a Tree's ``pruned`` or ``unpruned``, or a kept model's ``tree``).
    schema : Schema
        The data description the tree's tests refer to.

    Returns
    -------
    networkx.DiGraph
        Nodes labelled with their test or class, edges with their branch.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import learn_tree
    >>> from c45rules.data.frame import from_frame
    >>> from c45rules.export import tree_to_networkx
    >>> ds = from_frame(pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5}), "class")
    >>> graph = tree_to_networkx(learn_tree(ds).pruned, ds.schema)
    >>> graph.number_of_nodes(), graph.number_of_edges()
    (3, 2)
    """
    graph = nx.DiGraph()
    # (node, its parent's id and Node, the branch leading to it); children pushed reversed
    stack: list[tuple[Node, int, Node | None, int]] = [(node, -1, None, 0)]
    while stack:
        current, parent_id, parent, branch = stack.pop()
        me = graph.number_of_nodes()
        attrs = {"kind": current.kind, "class": schema.classes[current.klass],
                 "items": float(current.items), "errors": float(current.errors)}
        if current.is_leaf:
            attrs["label"] = _leaf_label(current, schema)
        else:
            attrs["label"] = attrs["attribute"] = schema.attributes[current.attribute].name
            if current.kind == "threshold":
                attrs["threshold"] = float(current.cut)
        graph.add_node(me, **attrs)
        if parent is not None:
            graph.add_edge(parent_id, me, label=_branch_label(parent, schema, branch), branch=branch)
        for v in reversed(range(len(current.branches))):
            stack.append((current.branches[v], me, current, v))
    return graph


BOOSTED_GRAPH = ("a graph draws one rule list or tree; a boosted model has one per trial: see the report"
                 " (c45rules report) for each trial's rules")


def rules_to_networkx(ruleset: RuleSet) -> nx.DiGraph:
    """The rule list as a directed graph: rule k -> its class ('all hold'), -> rule k+1 ('else').

    Parameters
    ----------
    ruleset : RuleSet
        The model (a boosted one has no single rule list: InputError).

    Returns
    -------
    networkx.DiGraph

    Raises
    ------
    InputError
        For a BoostedRuleSet.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import rules_to_networkx
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> graph = rules_to_networkx(rs)
    >>> [graph.edges[e]["label"] for e in graph.edges]
    ['all hold', 'else', 'all hold', 'else']
    """
    if not isinstance(ruleset, RuleSet):
        raise InputError(BOOSTED_GRAPH)
    graph = nx.DiGraph()
    for k, r in enumerate(ruleset.rules):
        conds = "\n".join(str(c) for c in r.conditions)
        graph.add_node(2 * k, kind="rule", label=f"Rule {r.id}\n{conds}", rule_id=int(r.id),
                       **{"class": r.prediction}, confidence=float(r.confidence), covered=int(r.covered),
                       errors=int(r.errors), fires=bool(r.fires))
        graph.add_node(2 * k + 1, kind="class", label=f"{r.prediction} [{100 * r.confidence:.1f}%]",
                       **{"class": r.prediction})
        graph.add_edge(2 * k, 2 * k + 1, label="all hold")
        if k:
            graph.add_edge(2 * k - 2, 2 * k, label="else")
    last = 2 * len(ruleset.rules)
    graph.add_node(last, kind="default", label=f"default: {ruleset.default_class}",
                   **{"class": ruleset.default_class})
    if ruleset.rules:
        graph.add_edge(last - 2, last, label="else")
    return graph


# XML 1.0 cannot hold these characters at all, escaped or not
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(value):
    if isinstance(value, str):
        return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], value)
    return value


def write_graphml(graph: nx.DiGraph, path: str | os.PathLike) -> Path:
    """Write a tree's or a rule list's graph as GraphML (atomically); characters XML cannot
    hold are shown as Python escapes (`\\x00`).

    Parameters
    ----------
    graph : networkx.DiGraph
        From `tree_to_networkx` or `rules_to_networkx`.
    path : str or path
        The file to write (replaced whole, or left as it was on an error).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import rules_to_networkx, write_graphml
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_graphml(rules_to_networkx(rs), os.path.join(d, "rules.graphml"))
    ...     "<graphml" in path.read_text()
    True
    """
    for _, data in graph.nodes(data=True):
        data.update({k: _xml_safe(v) for k, v in data.items()})
    for _, _, data in graph.edges(data=True):
        data.update({k: _xml_safe(v) for k, v in data.items()})
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer, encoding="utf-8")
    # an XML reader turns a literal CR (and CRLF) into LF: written as a reference it stays a CR
    # (generate_graphml's lines were split at CR, U+2028 and the like, and joined with LF)
    text = buffer.getvalue().decode("utf-8").replace("\r", "&#13;")
    return atomic_write_text(path, text if text.endswith("\n") else text + "\n")


def _dot_string(text: str) -> str:
    """A DOT double-quoted label showing `text` literally (Graphviz escString rules)."""
    out = ['"']
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch.isprintable():
            out.append(ch)
        else:  # shown as its Python escape, so control characters stay visible and inert
            out.append(repr(ch)[1:-1].replace("\\", "\\\\"))
    out.append('"')
    return "".join(out)


_SHAPES = {"leaf": "box", "class": "box", "default": "box", "rule": "note"}


def to_dot(graph: nx.DiGraph, name: str = "tree") -> str:
    """A tree's or a rule list's graph as Graphviz DOT text (tests as ellipses, classes as boxes).

    Parameters
    ----------
    graph : networkx.DiGraph
        From `tree_to_networkx` or `rules_to_networkx`.
    name : str, default="tree"
        The digraph's name; "rules" also lays the graph out left to right.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import rules_to_networkx, to_dot
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> print(to_dot(rules_to_networkx(rs), "rules").splitlines()[-3])
      n2 -> n3 [label="all hold"];
    """
    lines = [f"digraph {name} {{", '  node [fontname="Helvetica"];', '  edge [fontname="Helvetica"];']
    if name == "rules":
        lines.insert(1, "  rankdir=LR;")
    for n, data in graph.nodes(data=True):
        shape = _SHAPES.get(data["kind"], "ellipse")
        style = ", style=dashed" if data.get("fires") is False else ""
        lines.append(f"  n{n} [label={_dot_string(data['label'])}, shape={shape}{style}];")
    for a, b, data in graph.edges(data=True):
        lines.append(f"  n{a} -> n{b} [label={_dot_string(data['label'])}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
