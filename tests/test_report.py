"""The HTML review report: content, escaping, size caps, atomic writes, and a real browser."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules.data.schema import Attribute, Dataset, Schema
from c45rules.errors import InputError
from c45rules.export.report import _CLASS_W, _COND_X, _MIN_SCALE, _PAGE_W, MAX_TREE_NODES, render_report, render_tree_svg, write_report
from c45rules.model.ruleset import Condition, Rule, RuleSet, readable
from c45rules.tree.node import Node

PLAY, DONT = "Play", "Don't Play"
GOLF = Schema((Attribute("outlook", "discrete", ("sunny", "overcast", "rain")),
               Attribute("temperature", "continuous"),
               Attribute("humidity", "continuous"),
               Attribute("windy", "discrete", ("true", "false"))),
              (PLAY, DONT), "play")
GOLF_ROWS = [
    ("sunny", 85, 85, "false", DONT), ("sunny", 80, 90, "true", DONT),
    ("overcast", 83, 78, "false", PLAY), ("rain", 70, 96, "false", PLAY),
    ("rain", 68, 80, "false", PLAY), ("rain", 65, 70, "true", DONT),
    ("overcast", 64, 65, "true", PLAY), ("sunny", 72, 95, "false", DONT),
    ("sunny", 69, 70, "false", PLAY), ("rain", 75, 80, "false", PLAY),
    ("sunny", 75, 70, "true", PLAY), ("overcast", 72, 90, "true", PLAY),
    ("overcast", 81, 75, "false", PLAY), ("rain", 71, 80, "true", DONT),
]


def encode(schema: Schema, rows: list[tuple], source: str) -> Dataset:
    """Encode rows by hand (None = unknown), so these tests lean on no loader."""
    columns = []
    for a, raw in zip(schema.attributes, zip(*rows)):
        if a.is_continuous:
            columns.append(np.array([np.nan if v is None else float(v) for v in raw]))
        else:
            columns.append(np.array([-1 if v is None else a.values.index(v) for v in raw], dtype=np.int32))
    y = np.array([schema.classes.index(r[-1]) for r in rows], dtype=np.int32)
    return Dataset(schema, columns, y, source)


def golf_data() -> Dataset:
    return encode(GOLF, GOLF_ROWS, "golf.data")


def golf_rules() -> RuleSet:
    """Deliberately incomplete: the two rainy windy days fall to the default (Play)."""
    rules = (
        Rule(1, (Condition("outlook", "=", "overcast"),), PLAY, 4, 0, 0.206, 1.23),
        Rule(2, (Condition("outlook", "=", "sunny"), Condition("humidity", ">", 75.0)), DONT, 3, 0, 0.37, 2.2),
        Rule(3, (Condition("outlook", "in", ("rain",)), Condition("windy", "=", "false")), PLAY, 3, 0, 0.37, 1.1),
        Rule(4, (Condition("temperature", "<=", 60.5),), DONT, 1, 1, 0.9, 0.5),   # never fires
    )
    return RuleSet(GOLF, rules, PLAY, (9, 5), (2, 2),
                   options=(("cf", 0.25), ("min_objs", 2), ("redundancy", 1.0), ("subset", False)),
                   fingerprint="sha256:golf-fingerprint")


def leaf(klass: int, items: float, errors: float = 0.0) -> Node:
    return Node(klass, items, errors, np.zeros(2))


def golf_tree() -> Node:
    humidity = Node(1, 5, 0, np.zeros(2), "threshold", 2, 75.0, (), [leaf(0, 2), leaf(1, 3)])
    windy = Node(0, 5, 0, np.zeros(2), "discrete", 3, 0.0, (), [leaf(1, 2), leaf(0, 3, 1.2)])
    return Node(0, 14, 0, np.zeros(2), "discrete", 0, 0.0, (), [humidity, leaf(0, 4), windy])


class Tables(HTMLParser):
    """Every <table> of a page as rows of cell texts, keyed by the table's class (or '')."""

    def __init__(self, html: str):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._table = self.tables.setdefault(dict(attrs).get("class") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag in ("li", "div") and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self._table[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def svgs(page: str, kind: str) -> list[str]:
    """The inline SVG figures of one kind ('tree', 'rulecard', 'coverage', 'heatmap'), in order."""
    return re.findall(rf'<svg class="fig {kind}".*?</svg>', page, flags=re.S)


def assert_self_contained(page: str) -> None:
    low = page.lower()
    for bad in ("http://", "https://", "<script", "<link", "@import", "url(", "<img", "src=", "<iframe"):
        assert bad not in low, bad


# ---- content ---------------------------------------------------------------------------------

def test_rules_table_lists_each_rule_in_order_with_its_evidence():
    page = render_report(golf_rules())
    rows = Tables(page).tables["rules"]
    assert rows[0][:7] == ["Rule", "Conditions (all must hold)", "Class", "Covered", "Errors",
                           "Confidence", "Lift"]
    assert [r[0] for r in rows[1:]] == ["1", "2", "3", "4"]
    assert rows[1][1:7] == ["outlook = overcast", PLAY, "4", "0", "79.4%", "1.23"]
    assert rows[2][1].startswith("outlook = sunny") and "humidity > 75" in rows[2][1]
    assert rows[3][1:3] == ["outlook in {rain} windy = false", PLAY]
    assert rows[1][7] == "28.6%"                       # 4 of 14 training cases
    assert "never fires" in rows[4][1]
    # one condition per line
    assert "<li>outlook = sunny</li><li>humidity &gt; 75</li>" in page
    assert_self_contained(page)


def test_default_class_and_the_training_cases_that_reach_it():
    page = render_report(golf_rules())
    assert re.search(r'class is <strong>Play</strong>\. <span id="default-reach">4</span> of 14 training cases',
                     page)
    assert "(Play: 2, Don&#x27;t Play: 2)" in page


def test_without_data_the_class_counts_come_from_the_model():
    page = render_report(golf_rules())
    rows = Tables(page).tables[""]
    assert ["Play", "9", "64.3%"] in rows and ["Don't Play", "5", "35.7%"] in rows
    assert 'id="evaluation"' not in page and 'id="tree"' not in page


def test_options_and_fingerprint_are_shown():
    page = render_report(golf_rules())
    rows = Tables(page).tables[""]
    assert ["cf", "0.25"] in rows and ["min_objs", "2"] in rows and ["subset", "false"] in rows
    assert "sha256:golf-fingerprint" in page


def test_confusion_matrix_and_errors_on_given_data():
    data = golf_data()
    rs = golf_rules()
    page = render_report(rs, data=data)
    cm = Tables(page).tables["cm"]
    assert cm[0][1:] == [PLAY, DONT, "Total"]
    assert cm[1] == [PLAY, "9", "0", "9"]
    assert cm[2] == [DONT, "2", "3", "5"]          # the two rainy windy days go to the default
    assert cm[3] == ["Total", "11", "3", "14"]
    assert '<span class="big" id="eval-errors">2</span>' in page
    # the same numbers as predict() gives
    predicted = rs.predict(data)
    actual = np.array(GOLF.classes, dtype=object)[data.y]
    assert int((predicted != actual).sum()) == 2


def test_data_summary_counts_rows_missing_values_and_classes():
    data = golf_data()
    data.columns[2][[0, 5]] = np.nan        # two unknown humidities
    data.columns[0][3] = -1                 # one unknown outlook
    rows = Tables(render_report(golf_rules(), data=data)).tables[""]
    assert ["1", "outlook", "discrete", "3: sunny, overcast, rain", "1 (7.1%)"] in rows
    assert ["3", "humidity", "continuous", "65 \u2013 96", "2 (14.3%)"] in rows
    assert ["Play", "9", "64.3%"] in rows


def test_fingerprint_match_is_reported():
    data = golf_data()
    rs = golf_rules()
    same = RuleSet(rs.schema, rs.rules, rs.default_class, rs.class_counts, rs.default_counts,
                   rs.options, data.fingerprint())
    assert "This data matches the model's fingerprint: it is the data the model was trained on." in \
        html.unescape(render_report(same, data=data))
    assert "This data does not match the model's fingerprint" in html.unescape(render_report(rs, data=data))


def test_decisions_per_rule_on_the_data():
    rows = Tables(render_report(golf_rules(), data=golf_data())).tables[""]
    assert ["rule 1", PLAY, "4", "0"] in rows
    assert ["rule 2", DONT, "3", "0"] in rows
    assert ["default class", PLAY, "4", "2"] in rows


def test_tree_picture_labels_branches_and_leaves():
    page = render_report(golf_rules(), tree=golf_tree())
    [svg] = svgs(page, "tree")
    for text in ("outlook", "humidity", "windy", "= sunny", "= overcast", "= rain",
                 "&lt;= 75", "&gt; 75", "= true", "= false", "(2.0)", "(3.0/1.2)", "(4.0)"):
        assert f">{text}</text>" in svg, text
    assert svg.count('<g class="leaf">') == 5 and svg.count('<g class="test">') == 3
    assert "8 nodes, 5 leaves, depth 2" in page
    assert "not drawn" not in page


def test_tree_accepts_a_tree_object_with_a_pruned_attribute():
    class Holder:
        pruned = golf_tree()
    assert render_report(golf_rules(), tree=Holder()) == render_report(golf_rules(), tree=golf_tree())


def test_subset_branches_show_their_value_sets():
    root = Node(0, 14, 0, np.zeros(2), "subset", 0, 0.0,
                (frozenset({0, 2}), frozenset({1})), [leaf(1, 10, 3), leaf(0, 4)])
    svg, elided = render_tree_svg(root, GOLF)
    assert ">in {sunny, rain}</text>" in svg and ">= overcast</text>" in svg and elided == 0


def full_tree(depth: int) -> Node:
    if depth == 0:
        return leaf(depth % 2, 3.0, 1.0)
    return Node(0, 2.0 ** depth, 0, np.zeros(2), "threshold", 1, float(depth),
                (), [full_tree(depth - 1), full_tree(depth - 1)])


def test_large_trees_are_capped_and_the_rest_counted():
    root = full_tree(12)                     # 8191 nodes
    page = render_report(golf_rules(), tree=root)
    [svg] = svgs(page, "tree")
    drawn = svg.count("<g class=")
    assert drawn <= MAX_TREE_NODES
    elided = int(re.search(r'<span id="tree-elided">(\d+)</span>', page).group(1))
    assert drawn + elided == root.size() == 8191
    assert svg.count('<g class="cut">') > 0 and "nodes not drawn" in svg
    assert len(page.encode()) < 150_000
    # the way to the whole tree speaks today's option (--data is export's deprecated spelling)
    assert "c45rules export MODEL --to dot --train TRAIN</code> draws the whole tree" in page


def test_tiny_cap_draws_only_the_root():
    svg, elided = render_tree_svg(golf_tree(), GOLF, max_nodes=2)
    assert svg.count("<g class=") == 1 and elided == 7 and "+7 nodes not drawn" in svg


def test_output_is_deterministic_and_dated_only_on_request():
    kw = dict(tree=golf_tree(), data=golf_data())
    a = render_report(golf_rules(), **kw)
    assert a == render_report(golf_rules(), **kw)
    assert "generated" not in a
    assert "generated 2024-01-02" in render_report(golf_rules(), generated="2024-01-02", **kw)


def test_data_must_be_a_dataset():
    with pytest.raises(InputError):
        render_report(golf_rules(), data=pd.DataFrame(GOLF_ROWS))


# ---- the pictures ----------------------------------------------------------------------------

def svg_texts(svg: str) -> list[str]:
    """The texts an SVG shows (its <title> tooltips left out), parsed as XML: an SVG that is
    not well-formed XML fails here."""
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) if t.find("title") is None else (t.find("title").tail or "")
            for t in root.iter("text")]


def groups(svg: str, cls: str) -> list[ET.Element]:
    """The <g> elements of an SVG whose class is exactly `cls`."""
    return [g for g in ET.fromstring(svg).iter("g") if g.get("class") == cls]


def test_every_figure_is_an_inline_svg_scaled_to_the_page_width():
    page = render_report(golf_rules(), tree=golf_tree(), data=golf_data())
    figures = re.findall(r"<svg [^>]*>", page)
    assert len(figures) == len(svgs(page, "tree")) + len(svgs(page, "rulecard")) + len(svgs(page, "coverage")) \
        + len(svgs(page, "heatmap")) == 1 + 5 + 1 + 1
    for tag in figures:
        w, h = re.search(r'width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)"', tag).group(1, 2)
        assert re.search(rf'viewBox="0 0 {w} {h}" style="max-width:{w}px"', tag), tag
        assert "xmlns" not in tag
    assert "svg.fig{display:block;width:100%;height:auto" in page


def test_rule_list_is_drawn_as_one_card_per_rule_in_order_then_the_default():
    page = render_report(golf_rules())
    cards = svgs(page, "rulecard")
    assert len(cards) == 5
    texts = [svg_texts(c) for c in cards]
    assert texts[0][:2] == ["Rule 1", "if outlook = overcast"] and PLAY in texts[0]
    assert "confidence 79.4% \u00b7 lift 1.23" in texts[0]
    assert texts[1][:2] == ["Rule 2", "if outlook = sunny and humidity > 75"] and DONT in texts[1]
    assert texts[2][:2] == ["Rule 3", "if outlook in {rain} and windy = false"]
    assert texts[3][:2] == ["Rule 4", "if temperature <= 60.5"]
    assert "never fires (error above 70%)" in texts[3] and groups(cards[3], "rule nofire")
    assert texts[4][:2] == ["Default", "otherwise (no rule fires)"] and PLAY in texts[4]
    assert "4 training cases reach it" in texts[4]
    # every card but the last links down to the next with 'else'
    assert [t.count("else") for t in texts] == [1, 1, 1, 1, 0]


def test_rule_card_wraps_long_conditions_within_the_page():
    conds = tuple(Condition(f"attribute_number_{i}", ">", 1000.5 + i) for i in range(12))
    rs = RuleSet(GOLF, (Rule(1, conds, PLAY, 4, 0, 0.2, 1.2),), DONT, (9, 5), (0, 5))
    [card, _] = svgs(render_report(rs), "rulecard")
    lines = svg_texts(card)[1:]
    body = [t for t in lines if "attribute_number_" in t]
    assert len(body) >= 3                                      # wrapped, not one long line
    assert " ".join(body) == "if " + " and ".join(str(c) for c in conds)
    assert max(len(t) for t in body) * 7.0 <= _PAGE_W - _CLASS_W - 40 - _COND_X


def bars(svg: str, cls: str = "bar rule") -> list[tuple[str, float, float, str]]:
    """(label, covered bar width, error bar width, number text) per bar of a coverage chart."""
    out = []
    for g in groups(svg, cls):
        texts = [t.text for t in g.iter("text")]
        widths = {r.get("class"): float(r.get("width")) for r in g.iter("rect")}
        out.append((texts[0], widths["ok"], widths.get("err", 0.0), texts[1]))
    return out


def test_coverage_chart_without_data_shows_the_training_evidence():
    [chart] = svgs(render_report(golf_rules()), "coverage")
    got = bars(chart)
    assert [(label, num) for label, _, _, num in got] == [
        ("rule 1 \u2192 Play", "4"), ("rule 2 \u2192 Don't Play", "3"), ("rule 3 \u2192 Play", "3"),
        ("rule 4 \u2192 Don't Play", "1, 1 error")]
    unit = got[0][1] / 4                                       # bar length is proportional to the count
    assert got[1][1] == pytest.approx(3 * unit, abs=0.1) and got[3][1] == pytest.approx(unit, abs=0.1)
    assert got[3][2] == pytest.approx(unit, abs=0.1) and got[0][2] == 0.0
    assert not groups(chart, "bar default")
    texts = svg_texts(chart)
    assert "training cases covered by the rule (red: of another class)" in texts
    assert "rule (in order)" in texts
    assert [t.text for t in ET.fromstring(chart).iter("text") if t.get("class") == "tick"] == ["0", "1", "2", "3", "4"]


def test_coverage_chart_on_given_data_counts_each_rules_decisions():
    page = render_report(golf_rules(), data=golf_data())
    [chart] = svgs(page, "coverage")
    assert [(label, num) for label, _, _, num in bars(chart)] == [
        ("rule 1 \u2192 Play", "4"), ("rule 2 \u2192 Don't Play", "3"), ("rule 3 \u2192 Play", "3"),
        ("rule 4 \u2192 Don't Play", "0")]
    [(label, covered, wrong, num)] = bars(chart, "bar default")
    assert (label, num) == ("default \u2192 Play", "4, 2 wrong") and wrong == pytest.approx(covered / 2)
    assert "cases decided by the rule (red: wrong)" in svg_texts(chart)
    assert "Cases of <code>golf.data</code> each rule decides" in page


def many_rules(n: int) -> RuleSet:
    rules = tuple(Rule(i, (Condition("temperature", ">", float(i)),), PLAY, i, i % 3, 0.3, 1.1)
                  for i in range(1, n + 1))
    return RuleSet(GOLF, rules, PLAY, (9, 5), (0, 0))


def test_long_rule_lists_are_charted_in_parts_that_share_one_scale():
    charts = svgs(render_report(many_rules(95)), "coverage")
    assert len(charts) == 3
    got = [b for c in charts for b in bars(c)]
    assert [int(num.split(",")[0]) for _, _, _, num in got] == list(range(1, 96))
    unit = got[0][1]
    assert all(w == pytest.approx(i * unit, abs=0.1) for i, (_, w, _, _) in enumerate(got, 1))
    ticks = [[t.text for t in ET.fromstring(c).iter("text") if t.get("class") == "tick"] for c in charts]
    assert ticks[0] == ticks[1] == ticks[2] == ["0", "20", "40", "60", "80", "100"]


def test_confusion_heatmap_has_a_cell_per_pair_of_classes_with_its_count():
    page = render_report(golf_rules(), data=golf_data())
    [heat] = svgs(page, "heatmap")
    cells = groups(heat, "cell")
    assert [c.find("text").text for c in cells] == ["9", "0", "2", "3"]       # rows: actual, columns: predicted
    assert cells[2].find("title").text == "actual Don't Play, predicted Play: 2 (40.0% of actual Don't Play)"
    texts = svg_texts(heat)
    assert "predicted class \u2192" in texts and "actual class" in texts
    assert texts.count(PLAY) == 2 and texts.count(DONT) == 2                  # each axis names each class
    shade = [float(re.search(r"fill-opacity:([\d.]+)", ET.tostring(c.find("rect"), "unicode")).group(1))
             for c in cells]
    assert shade[1] == 0.0 and shade[0] > shade[3] > shade[2] > 0           # 9/9 > 3/5 > 2/5


def test_heatmap_lists_classes_only_the_data_has():
    schema = Schema(GOLF.attributes, (PLAY, DONT, "Maybe"), "play")
    rows = GOLF_ROWS + [("overcast", 70, 70, "false", "Maybe")]
    [heat] = svgs(render_report(golf_rules(), data=encode(schema, rows, "golf.data")), "heatmap")
    cells = groups(heat, "cell")
    assert len(cells) == 9
    assert [c.find("text").text for c in cells[6:]] == ["1", "0", "0"]        # 'Maybe' was called Play


def test_the_tree_is_collapsed_to_stay_readable_at_the_page_width():
    for depth in (3, 6, 12):
        svg, elided = render_tree_svg(full_tree(depth), GOLF)
        width = float(re.search(r'viewBox="0 0 (\d+) ', svg).group(1))
        assert width <= _PAGE_W / _MIN_SCALE
        assert (elided == 0) == (depth == 3)
    # the small tree is drawn whole and at its natural size: no wider than the page
    svg, _ = render_tree_svg(golf_tree(), GOLF)
    assert float(re.search(r'viewBox="0 0 (\d+) ', svg).group(1)) <= _PAGE_W


def test_data_path_is_shown_relative_to_the_current_directory_or_by_name(tmp_path, monkeypatch):
    inside = tmp_path / "project"
    (inside / "data").mkdir(parents=True)
    monkeypatch.chdir(inside)
    for source, shown in ((str(inside / "data" / "golf.csv"), "data/golf.csv"),
                          ("data/golf.csv", "data/golf.csv"),
                          (str(tmp_path / "elsewhere" / "golf.csv"), "golf.csv"),
                          ("../elsewhere/golf.csv", "golf.csv"),
                          ("<DataFrame>", "&lt;DataFrame&gt;")):
        data = golf_data()
        data.source = source
        page = render_report(golf_rules(), data=data)
        assert f'<code id="data-source">{shown}</code>' in page
        assert str(tmp_path) not in page


def test_the_fingerprint_is_described_as_identifying_the_training_data():
    page = render_report(golf_rules())
    assert ('Fingerprint <code id="fingerprint">sha256:golf-fingerprint</code>: identifies the exact training'
            ' data this model was fitted on' in page)
    unrecorded = render_report(many_rules(1))
    assert "Fingerprint: none recorded." in unrecorded and 'id="fingerprint"' not in unrecorded


GLOSSARY_ALWAYS = ("Rule", "Condition", "Rule order", "Default class", "Cases covered", "Errors", "Coverage",
                   "Confidence", "Pessimistic error rate", "Lift", "Reach the default", "Fingerprint")


def test_glossary_explains_every_figure_shown():
    full = render_report(golf_rules(), tree=golf_tree(), data=golf_data())
    terms = re.findall(r"<dt>(.*?)</dt>", full)
    assert terms == [*GLOSSARY_ALWAYS[:11], "Fingerprint", "Used", "Wrong", "Error rate", "Confusion matrix",
                     "Pruned tree", "Leaf (n/e)"]
    assert "<dt>Lift</dt><dd>The rule's confidence divided by how common its class is" in full
    bare = re.findall(r"<dt>(.*?)</dt>", render_report(golf_rules()))
    assert bare == list(GLOSSARY_ALWAYS)                  # no data, no tree: their terms are left out
    # the columns and labels the page shows are the terms it explains
    for shown in ("Covered", "Errors", "Confidence", "Lift", "Coverage", "Used", "Wrong", "error rate"):
        assert shown in full


def test_print_stylesheet_unrolls_containers_and_keeps_rules_and_charts_whole():
    page = render_report(golf_rules(), tree=golf_tree(), data=golf_data())
    css = page[page.index("@media print{"):page.index("</style>")]
    assert ".figbox,.treebox{overflow:visible;border:none}" in css
    assert "tr,figure,svg,dl.glossary dt,dl.glossary dd{break-inside:avoid;page-break-inside:avoid}" in css
    assert "color:#000;background:#fff" in css and "svg text" in css and "fill:#000" in css
    assert "nav{display:none}" in css
    # outside print nothing scrolls sideways: no overflow:auto/scroll anywhere in the page
    assert not re.search(r"overflow(-x)?:(auto|scroll)", page)


def test_no_network_reference_anywhere():
    for page in (render_report(golf_rules(), tree=golf_tree(), data=golf_data()), evil_report()):
        assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, flags=re.I)
        assert "http://" not in page and "https://" not in page and "xmlns" not in page
    assert_self_contained(render_report(golf_rules(), tree=golf_tree(), data=golf_data()))


# ---- hostile names -----------------------------------------------------------------------

EVIL_CLASS = "<script>alert(1)</script>"
EVIL_ATTR = 'a"><img src=x onerror=alert(2)>'
EVIL_VALUE = "<b>bold</b>&amp;"
EVIL_SCHEMA = Schema((Attribute(EVIL_ATTR, "discrete", (EVIL_VALUE, "plain")),
                      Attribute("x'<i>", "continuous")),
                     (EVIL_CLASS, "ok"), "<u>target</u>")


def evil_report() -> str:
    rs = RuleSet(EVIL_SCHEMA,
                 (Rule(1, (Condition(EVIL_ATTR, "=", EVIL_VALUE), Condition("x'<i>", ">", 1.5)),
                       EVIL_CLASS, 2, 0, 0.2, 1.5),
                  Rule(2, (Condition(EVIL_ATTR, "in", (EVIL_VALUE, "plain")),), "ok", 1, 0, 0.5, 1.0)),
                 "ok", (2, 2), (0, 1),
                 options=(("<opt>", "<img src=y onerror=alert(3)>"),), fingerprint="<fp>")
    data = encode(EVIL_SCHEMA, [(EVIL_VALUE, 2.0, EVIL_CLASS), (EVIL_VALUE, 3.0, EVIL_CLASS),
                                ("plain", 0.5, "ok"), (None, None, "ok")], "<src>.csv")
    tree = Node(1, 4, 0, np.zeros(2), "discrete", 0, 0.0, (),
                [Node(0, 2, 0, np.zeros(2), "threshold", 1, 1.5, (), [leaf(1, 0), leaf(0, 2)]), leaf(1, 2)])
    return render_report(rs, tree=tree, data=data, title="<h1>T", generated="<now>")


def test_every_name_is_escaped():
    page = evil_report()
    for raw in (EVIL_CLASS, EVIL_ATTR, "<b>", "<i>", "<u>", "<opt>", "<img", "<fp>", "<src>", "<now>",
                "<h1>T"):
        assert raw not in page, raw
    for escaped in ("&lt;script&gt;alert(1)&lt;/script&gt;", "a&quot;&gt;&lt;img src=x onerror=alert(2)&gt;",
                    "&lt;b&gt;bold&lt;/b&gt;&amp;amp;", "x&#x27;&lt;i&gt;", "&lt;opt&gt;",
                    "&lt;img src=y onerror=alert(3)&gt;", "&lt;fp&gt;", "&lt;src&gt;.csv", "&lt;now&gt;",
                    "<title>&lt;h1&gt;T</title>"):
        assert escaped in page, escaped
    assert page.count("<script") == 0 and page.count("<img") == 0
    cm = Tables(page).tables["cm"]
    assert cm[1] == [EVIL_CLASS, "2", "0", "2"]       # parsed back to the original text


def test_hostile_names_are_escaped_in_every_picture():
    page = evil_report()
    figures = {k: svgs(page, k) for k in ("tree", "rulecard", "coverage", "heatmap")}
    assert all(figures.values())
    texts = {k: [t for s in v for t in svg_texts(s)] for k, v in figures.items()}   # well-formed XML
    assert EVIL_CLASS in texts["tree"] and "<script>alert(1)</scrip\u2026" in texts["rulecard"]
    card_titles = [t.text for t in ET.fromstring(figures["rulecard"][0]).iter("title")]
    # names shown as rules show them: the attribute holding a quote and spaces in quotes
    assert card_titles == [f"rule 1: if {readable(EVIL_ATTR)} = {EVIL_VALUE} and x'<i> > 1.5 then {EVIL_CLASS}", EVIL_CLASS]
    assert "<script>alert(1)</s\u2026" in texts["heatmap"]                  # cut, the full name in its tooltip
    titles = [t.text for s in figures["heatmap"] for t in ET.fromstring(s).iter("title")]
    assert f"actual {EVIL_CLASS}, predicted {EVIL_CLASS}: 2 (100.0% of actual {EVIL_CLASS})" in titles
    assert f"if {readable(EVIL_ATTR)} = {EVIL_VALUE} and x'<i> > 1.5" in texts["rulecard"]
    assert f"rule 1 \u2192 {_cut14(EVIL_CLASS)}" in texts["coverage"]
    assert f"= {EVIL_VALUE}" in texts["tree"]
    for svg in (s for v in figures.values() for s in v):
        assert "<script" not in svg and "<img" not in svg and "<b>" not in svg


def _cut14(s: str) -> str:
    return s if len(s) <= 14 else s[:13] + "\u2026"


def test_control_characters_in_names_leave_the_pictures_well_formed():
    schema = Schema((Attribute("a\x00b", "discrete", ("x\x1b", "y")),), ("p\x07", "q\x0b"), "t")
    rs = RuleSet(schema, (Rule(1, (Condition("a\x00b", "=", "x\x1b"),), "p\x07", 2, 0, 0.2, 1.5),),
                 "q\x0b", (2, 2), (0, 2))
    data = encode(schema, [("x\x1b", "p\x07"), ("y", "q\x0b")], "d.csv")
    tree = Node(0, 2, 0, np.zeros(2), "discrete", 0, 0.0, (), [leaf(0, 1), leaf(1, 1)])
    page = render_report(rs, tree=tree, data=data)
    for kind in ("tree", "rulecard", "coverage", "heatmap"):
        for svg in svgs(page, kind):
            texts = svg_texts(svg)
            assert not [c for t in texts for c in t if ord(c) < 32]
    assert 'if "a\\x00b" = "x\\x1b"' in svg_texts(svgs(page, "rulecard")[0])


def test_write_report_is_atomic(tmp_path):
    target = tmp_path / "report.html"
    write_report(golf_rules(), target, tree=golf_tree(), data=golf_data())
    first = target.read_text(encoding="utf-8")
    assert first == render_report(golf_rules(), tree=golf_tree(), data=golf_data())
    with pytest.raises(InputError):
        write_report(golf_rules(), target, data=pd.DataFrame(GOLF_ROWS))
    assert target.read_text(encoding="utf-8") == first
    write_report(golf_rules(), target)
    assert target.read_text(encoding="utf-8") == render_report(golf_rules())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


# ---- real data ---------------------------------------------------------------------------

def shared_stem(name: str) -> Path:
    import reference
    return Path(reference.stem(name))


@pytest.mark.skipif(not hasattr(c45rules, "fit"), reason="c45rules.fit is not written yet")
def test_report_on_a_fitted_crx_model(tmp_path):
    from c45rules.data import load_stem
    stem = shared_stem("crx")
    train, test = load_stem(stem, test=True)
    rs = c45rules.fit(str(stem))
    tree = c45rules.C45Rules().fit(train).tree_
    page = render_report(rs, tree=tree, data=test)
    rows = Tables(page).tables["rules"]
    assert [r[0] for r in rows[1:]] == [str(r.id) for r in rs.rules]
    for rule in rs.rules:
        for cond in rule.conditions:
            assert f"<li>{html.escape(str(cond))}</li>" in page
    errors = int((rs.predict(test) != np.array(rs.schema.classes, dtype=object)[test.y]).sum())
    assert f'id="eval-errors">{errors}</span>' in page
    assert f'id="default-reach">{sum(rs.default_counts)}</span>' in page
    assert f"{tree.pruned.size()} nodes, {tree.pruned.leaves()} leaves" in page
    assert_self_contained(page)
    write_report(rs, tmp_path / "crx.html", tree=tree, data=test)
    assert (tmp_path / "crx.html").read_text(encoding="utf-8") == page


# ---- a real browser ------------------------------------------------------------------------

def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed, and CI must run the browser tests")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return exe


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


@pytest.mark.browser
def test_chromium_renders_the_rules(tmp_path):
    path = write_report(golf_rules(), tmp_path / "golf.html", tree=golf_tree(), data=golf_data())
    res = run_chromium(tmp_path, "--dump-dom", path.as_uri())
    dom = res.stdout
    assert res.returncode == 0, res.stderr[-2000:]
    assert "<li>outlook = sunny</li><li>humidity &gt; 75</li>" in dom
    assert 'id="rule-3"' in dom and "<svg" in dom


@pytest.mark.browser
def test_chromium_keeps_hostile_names_as_text(tmp_path):
    path = tmp_path / "evil.html"
    path.write_text(evil_report(), encoding="utf-8")
    res = run_chromium(tmp_path, "--dump-dom", path.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in res.stdout
    assert "<script" not in res.stdout and "<img" not in res.stdout


@pytest.mark.browser
def test_chromium_screenshot(tmp_path):
    path = write_report(golf_rules(), tmp_path / "golf.html", tree=golf_tree(), data=golf_data())
    png = tmp_path / "golf.png"
    res = run_chromium(tmp_path, f"--screenshot={png}", "--window-size=1200,2000", path.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (1200, 2000)
    assert png.stat().st_size > 20_000            # a blank page compresses to a few kB


def test_control_characters_are_shown_as_escapes_not_written_raw():
    df = pd.DataFrame({"a\x00b": ["x"] * 6 + ["z\x1b[31m"] * 6, "y": ["p\x00q"] * 6 + ["r\x07"] * 6})
    page = render_report(c45rules.fit(df, "y", min_objs=1))
    assert not [c for c in page if ord(c) < 32 and c not in "\t\n\r"]
    assert "p\\x00q" in page and "a\\x00b" in page and "z\\x1b[31m" in page


# The report forbids scripts (its Content-Security-Policy); the measuring copy allows one
# inline script, which writes the layout's numbers into the DOM that --dump-dom prints.
_MEASURE = """<script>
const vw = window.innerWidth;
const right = e => e.getBoundingClientRect().right;
const svgs = [...document.querySelectorAll('svg')];
const m = {vw: vw, scrollWidth: document.documentElement.scrollWidth,
  svgRight: Math.max(...svgs.map(right)),
  elementRight: Math.max(...[...document.body.querySelectorAll('*')].map(right)),
  svgCount: svgs.length,
  widest: [...document.body.querySelectorAll('*')].filter(e => right(e) > vw).slice(0, 5).map(
    e => e.tagName + '.' + e.getAttribute('class') + ' ' + Math.round(right(e))),
  treeScale: [...document.querySelectorAll('svg.tree')].map(
    s => s.getBoundingClientRect().width / s.viewBox.baseVal.width)};
const out = document.createElement('pre');
out.id = 'measure';
out.textContent = JSON.stringify(m);
document.body.appendChild(out);
</script>"""


def measure_in_chromium(tmp_path: Path, page: str, width: int = 1280) -> dict:
    """Lay `page` out in headless Chromium at `width` px and return its measurements."""
    csp = "default-src 'none'; style-src 'unsafe-inline'"
    assert csp in page
    probe = page.replace(csp, csp + "; script-src 'unsafe-inline'").replace("</body>", _MEASURE + "</body>")
    path = tmp_path / "measure.html"
    path.write_text(probe, encoding="utf-8")
    res = run_chromium(tmp_path, "--dump-dom", f"--window-size={width},900", path.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    found = re.search(r'<pre id="measure">(.*?)</pre>', res.stdout)
    assert found, res.stdout[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.browser
@pytest.mark.parametrize("name", ["crx", "letter"])
def test_chromium_nothing_overflows_a_1280px_window(tmp_path, name):
    """crx, and letter's 2131-node tree, 544 rules and 26 x 26 classes, fit the window."""
    from c45rules.data import load_stem
    train, test = load_stem(shared_stem(name), test=True)
    model = c45rules.C45Rules().fit(train)
    page = render_report(model.ruleset_, tree=model.tree_, data=test)
    if name == "letter":
        assert model.tree_.pruned.leaves() > 500 and len(model.ruleset_.rules) > 300
    m = measure_in_chromium(tmp_path, page)
    assert m["vw"] == 1280
    assert m["scrollWidth"] <= 1280, m["widest"]
    assert m["svgRight"] <= 1280 and m["elementRight"] <= 1280, m["widest"]
    assert m["svgCount"] == page.count("<svg ")
    [scale] = m["treeScale"]
    assert scale >= _MIN_SCALE - 0.01                    # the tree is never drawn too small to read


def wide_report() -> str:
    """Long names everywhere: 30 classes of 60 characters, a 200-value attribute, a rule on
    a set of 150 of its values, a 60-character attribute name in the tree."""
    classes = tuple(f"class_{i:02d}_" + "w" * 51 for i in range(30))
    values = tuple(f"value_{i:03d}" for i in range(200))
    long_name = "an_attribute_with_a_rather_long_name_" + "x" * 23
    schema = Schema((Attribute(long_name, "discrete", values), Attribute("n", "continuous")), classes, "t")
    rules = (Rule(1, (Condition(long_name, "in", values[:150]), Condition("n", ">", 123456.789)),
                  classes[0], 150, 3, 0.05, 20.0),
             *(Rule(i + 1, (Condition("n", "<=", float(i)),), classes[i], i, 0, 0.3, 2.0) for i in range(1, 30)))
    rs = RuleSet(schema, rules, classes[1], tuple([10] * 30), tuple([1] * 30))
    rows = [(values[i % 200], float(i), classes[i % 30]) for i in range(300)]
    tree = Node(0, 300, 0, np.zeros(30), "discrete", 0, 0.0, (),
                [leaf(i % 30, 1.5) for i in range(200)])
    return render_report(rs, tree=tree, data=encode(schema, rows, "wide.csv"))


@pytest.mark.browser
def test_chromium_long_names_do_not_widen_the_page(tmp_path):
    m = measure_in_chromium(tmp_path, wide_report())
    assert m["scrollWidth"] <= 1280, m["widest"]
    assert m["svgRight"] <= 1280 and m["elementRight"] <= 1280, m["widest"]
    assert m["treeScale"][0] >= _MIN_SCALE - 0.01


@pytest.mark.browser
def test_chromium_old_report_layout_would_overflow(tmp_path):
    """The measurement can fail: a page with a fixed-width picture wider than the window does."""
    page = render_report(golf_rules()).replace("</body>", '<svg width="1500" height="10"></svg></body>')
    m = measure_in_chromium(tmp_path, page)
    assert m["scrollWidth"] > 1280 and m["svgRight"] > 1280


# ---- governed rules: notes, the previous model, a kept tree -----------------------------------
def _golf_fit():
    from c45rules.data import load_stem
    from c45rules.learn.pipeline import fit_dataset
    train, _ = load_stem(str(_shared_golf()))
    rs, tree, _ = fit_dataset(train)
    return rs, tree, train


def _shared_golf() -> Path:
    import reference as R
    return R.DATA / "golf" / "golf"


def test_notes_are_shown_escaped():
    from dataclasses import replace
    rs, _, _ = _golf_fit()
    rules = list(rs.rules)
    rules[1] = replace(rules[1], note="checked by <compliance> & risk")
    page = render_report(replace(rs, rules=tuple(rules), notes="Q3 review: \"windy\" rule kept"))
    assert f'<div class="note reviewer" id="note-{rules[1].id}">Note: checked by &lt;compliance&gt; &amp; risk</div>' in page
    assert '<p class="reviewer" id="model-notes">Q3 review: &quot;windy&quot; rule kept</p>' in page
    assert '<a href="#notes">Notes</a>' in page


def test_compare_section_lists_the_changes_and_the_moved_decisions():
    from dataclasses import replace
    from c45rules.govern.diff import diff_rulesets
    from c45rules.govern.rescore import rescore
    rs, _, train = _golf_fit()
    rules = [replace(r, conditions=tuple(replace(c, value=90.0) if c.op == ">" else c for c in r.conditions))
             for r in rs.rules]
    new = rescore(replace(rs, rules=tuple(rules)), train)
    diff = diff_rulesets(rs, new, train)
    page = render_report(new, data=train, previous=rs, diff=diff)
    assert ('<tr class="changed"><td>changed</td><td>rule 1: if outlook = sunny and humidity &gt; 75 then'
            " Don&#x27;t Play [63.0%]</td><td>rule 1: if outlook = sunny and humidity &gt; 90 then Don&#x27;t Play")\
        in page
    # rescored, rule 1 covers one case (humidity 95): its pessimistic error 0.75 is above 0.7, so it
    # never fires and all three sunny Don't Play rows reach the default, Play
    assert re.search(r'id="changes-decisions">On golf.data: <span class="big">3</span> of 14 rows change decision',
                     page)
    assert "<tr><td>Don&#x27;t Play -&gt; Play</td><td class=\"num\">3</td></tr>" in page
    assert page.index('id="changes"') < page.index('id="data"')


def test_cli_report_compare_and_a_kept_tree(tmp_path):
    from e2e.conftest import cli
    golf = str(_shared_golf())
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    assert cli(["fit", golf, "-o", str(old), "-q", "--keep-tree"])[0] == 0
    new.write_text(old.read_text().replace("value: 75.0}", "value: 90.0}"))
    assert cli(["report", str(new), "--compare", str(old), "--data", golf, "-o", str(tmp_path / "r.html")])[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert '<span class="big">1</span> changed' in page and 'class="big">2</span> of 14 rows change' in page
    # the model keeps its tree: the report draws it without --train
    assert 'id="tree"' in page and "6 leaves" not in page and "5 leaves" in page


# ---- boosted models ---------------------------------------------------------------------------------
def _boosted_hostile():
    """Two trials over hostile names: each votes for a class named like markup."""
    from c45rules.model.boosted import BoostedRuleSet
    evil = "<script>alert('x')</script>"
    schema = Schema((Attribute("a<b>", "continuous"), Attribute("c&d", "discrete", ("<i>", "&amp;"))),
                    (evil, "ok\"&"), "t<")
    t1 = RuleSet(schema, (Rule(1, (Condition("a<b>", ">", 5.0),), evil, 10, 1, 0.25, 1.2, 8, 1),),
                 "ok\"&", (10, 10), (2, 6))
    t2 = RuleSet(schema, (Rule(1, (Condition("c&d", "=", "<i>"),), "ok\"&", 10, 1, 0.4, 1.2, 8, 1),),
                 evil, (10, 10), (5, 1))
    return BoostedRuleSet((t1, t2)), evil


def test_boosted_report_has_a_section_per_trial_and_the_vote_escaped():
    model, evil = _boosted_hostile()
    case = {"a<b>": 7.0, "c&d": "<i>"}
    page = render_report(model, case=case)
    assert "<script" not in page and html.escape(evil) in page
    assert re.findall(r'<section id="([^"]+)"', page) == ["data", "options", "trial-1", "trial-2", "vote",
                                                         "glossary"]
    assert 'id="trial-1-rule-1"' in page and 'id="trial-2-rule-1"' in page
    # trial 1: rule 1 votes 0.75 for the script class; trial 2: rule 1 votes 0.6 for ok"&
    rows = re.findall(r'<tr id="vote-trial-(\d)">.*?</td><td>(.*?)</td><td class="num">([\d.]+)</td></tr>', page)
    assert [(t, v) for t, _, v in rows] == [("1", "0.75"), ("2", "0.6")]
    assert f'<strong id="vote-class">{html.escape(evil)}</strong>' in page
    assert '<span id="vote-confidence">0.555556</span>' in page   # 0.75 / (0.75 + 0.6)
    assert model.predict_confidence([case])[0] == 0.75 / (0.75 + 0.6)
    with pytest.raises(InputError, match="no tree"):
        render_report(model, tree=object())
