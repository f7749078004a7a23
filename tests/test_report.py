"""The HTML review report: content, escaping, size caps, atomic writes, and a real browser."""
from __future__ import annotations

import html
import os
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules.data.schema import Attribute, Dataset, Schema
from c45rules.errors import InputError
from c45rules.report import MAX_TREE_NODES, render_report, render_tree_svg, write_report
from c45rules.ruleset import Condition, Rule, RuleSet
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
