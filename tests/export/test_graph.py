"""Tree graphs: networkx attributes, GraphML that reads back, DOT with every label escaped."""
from __future__ import annotations

import os
import re

import networkx as nx
import numpy as np
import pytest

from c45rules import Attribute, Schema
from c45rules.export import to_dot, tree_to_networkx, write_graphml
from c45rules.tree.node import Node

SCHEMA = Schema((Attribute("A15", "continuous"),
                 Attribute("A9", "discrete", ("f", "t")),
                 Attribute('A4 "q"\n\\', "discrete", ("u", "y", 'l"\0<&>'))),
                ("+", "-", '<b>&amp;"\n'))


def leaf(klass: int, items: float, errors: float) -> Node:
    dist = np.zeros(3)
    dist[klass] = items
    return Node(klass, items, errors, dist)


def small_tree() -> Node:
    """A15 <= 228: (A9 = f: -, A9 = t: A4 in {u, y}: +, A4 = l"...: hostile class), A15 > 228: +."""
    subset = Node(0, 30.0, 4.0, np.array([26.0, 0.0, 4.0]), "subset", 2,
                  subsets=(frozenset({0, 1}), frozenset({2})),
                  branches=[leaf(0, 26.0, 1.5), leaf(2, 4.0, 0.0)])
    a9 = Node(1, 100.0, 20.0, np.array([30.0, 70.0, 0.0]), "discrete", 1,
              branches=[leaf(1, 70.0, 10.25), subset])
    return Node(1, 150.0, 40.0, np.array([80.0, 70.0, 0.0]), "threshold", 0, cut=228.0,
                branches=[a9, leaf(0, 50.0, 0.0)])


NODES = [
    (0, {"kind": "threshold", "class": "-", "items": 150.0, "errors": 40.0, "label": "A15",
         "attribute": "A15", "threshold": 228.0}),
    (1, {"kind": "discrete", "class": "-", "items": 100.0, "errors": 20.0, "label": "A9", "attribute": "A9"}),
    (2, {"kind": "leaf", "class": "-", "items": 70.0, "errors": 10.25, "label": "- (70.0/10.2)"}),
    (3, {"kind": "subset", "class": "+", "items": 30.0, "errors": 4.0, "label": 'A4 "q"\n\\',
         "attribute": 'A4 "q"\n\\'}),
    (4, {"kind": "leaf", "class": "+", "items": 26.0, "errors": 1.5, "label": "+ (26.0/1.5)"}),
    (5, {"kind": "leaf", "class": '<b>&amp;"\n', "items": 4.0, "errors": 0.0, "label": '<b>&amp;"\n (4.0)'}),
    (6, {"kind": "leaf", "class": "+", "items": 50.0, "errors": 0.0, "label": "+ (50.0)"}),
]
EDGES = [(0, 1, {"label": "<= 228", "branch": 0}), (0, 6, {"label": "> 228", "branch": 1}),
         (1, 2, {"label": "= f", "branch": 0}), (1, 3, {"label": "= t", "branch": 1}),
         (3, 4, {"label": "in {u, y}", "branch": 0}), (3, 5, {"label": '= l"\0<&>', "branch": 1})]


def test_networkx_nodes_and_edges():
    g = tree_to_networkx(small_tree(), SCHEMA)
    assert isinstance(g, nx.DiGraph)
    assert list(g.nodes(data=True)) == NODES
    assert sorted(g.edges(data=True)) == EDGES
    assert nx.is_tree(g) and [n for n, d in g.in_degree() if d == 0] == [0]


def test_a_leaf_alone():
    g = tree_to_networkx(leaf(0, 3.0, 1.0), SCHEMA)
    assert list(g.nodes(data=True)) == [(0, {"kind": "leaf", "class": "+", "items": 3.0, "errors": 1.0,
                                             "label": "+ (3.0/1.0)"})]
    assert to_dot(tree_to_networkx(leaf(0, 3.0, 1.0), SCHEMA)).splitlines()[3] == '  n0 [label="+ (3.0/1.0)", shape=box];'


def test_graphml_reads_back(tmp_path):
    path = tmp_path / "tree.graphml"
    write_graphml(tree_to_networkx(small_tree(), SCHEMA), path)
    assert os.listdir(tmp_path) == ["tree.graphml"]
    back = nx.read_graphml(path, node_type=int)
    got = {n: d for n, d in back.nodes(data=True)}
    for n, attrs in NODES:
        assert got[n] == attrs
    edges = {(a, b): d for a, b, d in back.edges(data=True)}
    assert edges[(3, 5)] == {"label": '= l"\\x00<&>', "branch": 1}     # NUL cannot be XML: shown escaped
    assert {k: v for k, v in edges.items() if k != (3, 5)} == {(a, b): d for a, b, d in EDGES if (a, b) != (3, 5)}


_LABEL = re.compile(r'label="((?:[^"\\\n]|\\.)*)"')


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def test_dot_is_exact_and_every_label_escaped():
    dot = to_dot(tree_to_networkx(small_tree(), SCHEMA))
    assert dot == (
        "digraph tree {\n"
        '  node [fontname="Helvetica"];\n'
        '  edge [fontname="Helvetica"];\n'
        '  n0 [label="A15", shape=ellipse];\n'
        '  n1 [label="A9", shape=ellipse];\n'
        '  n2 [label="- (70.0/10.2)", shape=box];\n'
        '  n3 [label="A4 \\"q\\"\\n\\\\", shape=ellipse];\n'
        '  n4 [label="+ (26.0/1.5)", shape=box];\n'
        '  n5 [label="<b>&amp;\\"\\n (4.0)", shape=box];\n'
        '  n6 [label="+ (50.0)", shape=box];\n'
        '  n0 -> n1 [label="<= 228"];\n'
        '  n0 -> n6 [label="> 228"];\n'
        '  n1 -> n2 [label="= f"];\n'
        '  n1 -> n3 [label="= t"];\n'
        '  n3 -> n4 [label="in {u, y}"];\n'
        '  n3 -> n5 [label="= l\\"\\\\x00<&>"];\n'
        "}\n")
    # one statement per line, and each label reads back as the text it shows
    labels = [_unescape(m) for m in _LABEL.findall(dot)]
    shown = [d["label"] for _, d in NODES] + [d["label"] for _, _, d in EDGES]
    assert labels == [s.replace("\0", "\\x00") for s in shown]
    assert "\0" not in dot


def test_graphml_keeps_line_breaks_other_than_lf(tmp_path):
    # an XML reader turns a raw CR into LF, and the old writer split lines at CR, NEL and U+2028
    names = ["cr\rx", "crlf\r\ny", "nel\x85z", "ls\u2028w"]
    for s in names:
        schema = Schema((Attribute(s, "discrete", ("v1", s + "v")),), ("p", s + "k"))
        root = Node(0, 6.0, 0.0, np.array([3.0, 3.0]), "discrete", 0,
                    branches=[Node(0, 3.0, 0.0, np.array([3.0, 0.0])), Node(1, 3.0, 0.0, np.array([0.0, 3.0]))])
        write_graphml(tree_to_networkx(root, schema), tmp_path / "t.graphml")
        g = nx.read_graphml(tmp_path / "t.graphml", node_type=int)
        assert (g.nodes[0]["attribute"], g.edges[0, 2]["label"], g.nodes[2]["class"]) == (s, f"= {s}v", f"{s}k")


# ---- pictures from the model alone -------------------------------------------------------------
def _golf_model():
    from c45rules.data import load_stem
    from c45rules.learn.pipeline import fit_dataset
    import reference as R
    train, _ = load_stem(str(R.DATA / "golf" / "golf"))
    rs, tree, _ = fit_dataset(train)
    return rs, tree, train


def test_rule_list_graph_from_the_ruleset_alone():
    from c45rules.export import rules_to_networkx
    rs, _, _ = _golf_model()
    g = rules_to_networkx(rs)
    assert g.number_of_nodes() == 2 * len(rs.rules) + 1 == 9
    assert g.nodes[0]["label"] == "Rule 2\noutlook = overcast" and g.nodes[0]["rule_id"] == 2
    assert g.nodes[1]["label"] == "Play [70.7%]"
    assert g.nodes[8] == {"kind": "default", "label": "default: Play", "class": "Play"}
    assert [(a, b, d["label"]) for a, b, d in g.edges(data=True)][:3] == [
        (0, 1, "all hold"), (0, 2, "else"), (2, 3, "all hold")]
    dot = to_dot(g, "rules")
    assert dot.splitlines()[:5] == ["digraph rules {", "  rankdir=LR;", '  node [fontname="Helvetica"];',
                                    '  edge [fontname="Helvetica"];',
                                    '  n0 [label="Rule 2\\noutlook = overcast", shape=note];']
    assert '  n6 -> n8 [label="else"];' in dot


@pytest.mark.parametrize("name, opts", [("golf", {}), ("crx", {}), ("soybean", {"subset": True}),
                                        ("hypo", {}), ("letter", {})])
def test_a_kept_tree_reads_back_and_draws_as_the_regrown_one(name, opts, tmp_path):
    from dataclasses import replace
    import reference as R
    from c45rules.data import load_stem
    from c45rules.export import dump_yaml, load_yaml
    from c45rules.learn.pipeline import fit_dataset
    train, _ = load_stem(str(R.DATA / name / name))
    rs, tree, _ = fit_dataset(train, **opts)
    kept = replace(rs, tree=tree.pruned)
    text = dump_yaml(kept)
    back = load_yaml(text)
    assert back == rs and dump_yaml(back) == text
    assert to_dot(tree_to_networkx(back.tree, rs.schema)) == to_dot(tree_to_networkx(tree.pruned, rs.schema))
    assert dump_yaml(rs) == text[:text.index("tree:\n")]   # the tree is an optional last section


@pytest.mark.parametrize("old, new, message", [
    ('  - {kind: "threshold", class: "Don\'t Play"', '  - {kind: "cut", class: "Don\'t Play"', "tree[1].kind: 'cut' is not one of"),
    (", branches: 2}", ", branches: 3}", "tree[1].branches: a threshold test has 2 branches"),
    ('attribute: "humidity"', 'attribute: "outlook"', "tree[1].kind: a threshold test on discrete attribute 'outlook'"),
    ('attribute: "outlook", branches: 3}', 'attribute: "outlook", branches: 2}', "tree[0].branches: 2 branches for the 3 values"),
])
def test_a_bad_kept_tree_is_refused_naming_the_node(old, new, message):
    from dataclasses import replace
    from c45rules import ModelError
    from c45rules.export import dump_yaml, load_yaml
    rs, tree, _ = _golf_model()
    text = dump_yaml(replace(rs, tree=tree.pruned))
    tree_text = text[text.index("tree:\n"):]
    assert old in tree_text, tree_text
    with pytest.raises(ModelError) as e:
        load_yaml(text[:text.index("tree:\n")] + tree_text.replace(old, new, 1))
    assert message in str(e.value)


def test_a_truncated_tree_is_refused():
    from dataclasses import replace
    from c45rules import ModelError
    from c45rules.export import dump_yaml, load_yaml
    rs, tree, _ = _golf_model()
    text = dump_yaml(replace(rs, tree=tree.pruned))
    with pytest.raises(ModelError, match=r"tree: the node list ends inside a test"):
        load_yaml(text.rstrip("\n").rsplit("\n", 1)[0] + "\n")
