"""A fitted model shows its decision list as a picture in a notebook (issue 49): C45Rules'
`_repr_html_` embeds export.report.decision_list_svg, which also draws a RuleSet or a
BoostedRuleSet. The picture is one
self-contained SVG document (well-formed XML, its styles inside and scoped to it), every name
escaped, and bounded (the first 50 rules, with a note) however long the rule list."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd

import c45rules
from c45rules.export.report import decision_list_svg
import reference as R

HOSTILE = "<script>alert(1)</script>"


def _frame(values: int) -> pd.DataFrame:
    """One discrete attribute of `values` values, three cases each, its class a function of it:
    a rule per value, classes named as a page would run them."""
    x = np.repeat(np.arange(values), 3)
    return pd.DataFrame({"x": [f"v{i}" for i in x],
                         "class": np.where(x % 3 == 0, HOSTILE, np.where(x % 3 == 1, 'a"&b', "c"))})


def _check_picture(svg: str) -> ET.Element:
    root = ET.fromstring(svg)   # well-formed: an escaped name cannot open an element
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.find("{http://www.w3.org/2000/svg}style").text.startswith("svg.c45rules-rules ")
    assert HOSTILE not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "href" not in svg and "<script" not in svg
    return root


def test_a_ruleset_draws_its_decision_list_escaped():
    small = c45rules.fit(_frame(6), target="class")
    svg = decision_list_svg(small)
    _check_picture(svg)
    assert svg.count(">Rule ") == len(small.rules) and ">Default<" in svg
    assert "more are not" not in svg


def test_a_long_rule_list_is_cut_to_fifty_rules_with_a_note():
    ruleset = c45rules.fit(_frame(150), target="class")
    assert len(ruleset.rules) > 100
    svg = decision_list_svg(ruleset)
    _check_picture(svg)
    assert svg.count(">Rule ") == 50
    assert f"The first 50 of {len(ruleset.rules)} rules are drawn; {len(ruleset.rules) - 50} more are not" in svg
    assert len(svg) < 80_000


def test_a_boosted_model_draws_each_trial():
    boosted = c45rules.fit(str(R.DATA / "golf" / "golf"), trials=3)
    assert isinstance(boosted, c45rules.BoostedRuleSet)
    svg = decision_list_svg(boosted)
    ET.fromstring(svg)
    for t in range(1, len(boosted.trials) + 1):
        assert f">Trial {t} of {len(boosted.trials)}<" in svg
    assert svg.count(">Default<") == len(boosted.trials)


def test_the_estimator_html_embeds_the_picture():
    df = _frame(150)
    model = c45rules.C45Rules().fit(df[["x"]], df["class"])
    page = model._repr_html_()
    start = page.index('<svg xmlns="http://www.w3.org/2000/svg" class="c45rules-rules"')
    _check_picture(page[start:page.index("</svg></div>", start) + len("</svg>")])
    assert HOSTILE not in page
    assert page.count(">Rule ") == 50 and "more are not" in page
    assert "c45rules-rules" not in c45rules.C45Rules()._repr_html_()   # unfitted: no picture
