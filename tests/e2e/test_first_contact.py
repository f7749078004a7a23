"""First contact (issue 49.4): what `c45rules demo` says around its rules, and what a model file
from a newer c45rules says."""
from __future__ import annotations

import pytest

from c45rules import ModelError
from c45rules.export.yaml import FORMAT_SINCE, FORMAT_VERSION, load_yaml

from .conftest import fails, ok


@pytest.fixture(scope="module")
def model_text(tmp_path_factory) -> str:
    """The crx model as written by `c45rules demo` (and so the bundled data found)."""
    out = tmp_path_factory.mktemp("demo")
    ok("demo", out / "out", "-q", cwd=out)
    return (out / "out" / "model.yaml").read_text()


def _newer(text: str, version: int, written_by: str) -> str:
    text = text.replace(f"format_version: {FORMAT_VERSION}\n", f"format_version: {version}\n", 1)
    head, rest = text.split("library_version: ", 1)
    return f'{head}library_version: "{written_by}"\n{rest.split(chr(10), 1)[1]}'


def test_a_newer_format_version_asks_for_the_release_that_wrote_it(model_text, tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text(_newer(model_text, FORMAT_VERSION + 1, "7.2.0"))
    with pytest.raises(ModelError) as e:
        load_yaml(path)
    assert str(e.value) == (f"{path}: format version {FORMAT_VERSION + 1} is newer than this c45rules"
                            f" reads ({FORMAT_VERSION}); upgrade c45rules to 7.2.0 or later")
    assert fails("evaluate", path, tmp_path / "x.csv").endswith("upgrade c45rules to 7.2.0 or later")


def test_a_newer_format_version_without_a_usable_writer_version(model_text, tmp_path):
    import c45rules
    path = tmp_path / "model.yaml"
    path.write_text(_newer(model_text, FORMAT_VERSION + 3, "dev"))
    with pytest.raises(ModelError, match=f"upgrade c45rules to a release newer than {c45rules.__version__}"
                                         " or later"):
        load_yaml(path)


def test_every_format_version_has_its_first_release():
    import c45rules
    from c45rules.export.yaml import _release
    assert sorted(FORMAT_SINCE) == list(range(1, FORMAT_VERSION + 1))
    assert _release(FORMAT_SINCE[FORMAT_VERSION]) <= _release(c45rules.__version__)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """`c45rules demo out/` run from a directory of its own: (stdout, output directory)."""
    where = tmp_path_factory.mktemp("demo_text")
    p = ok("demo", "out", cwd=where)
    return p.stdout, where / "out"


def test_demo_says_what_the_data_is(demo_run):
    text, _ = demo_run
    assert text.startswith(
        "The data: Quinlan's credit-approval data (crx, the UCI 'Credit Approval' set): 690 anonymised"
        " credit card applications,\n")
    assert ("15 attributes (6 continuous, 9 discrete), class + / -; 490 cases train the rules,"
            " 200 held-out cases test them.\n") in text


def test_demo_explains_a_rule_and_the_table_on_its_own_numbers(demo_run):
    text, _ = demo_run
    # the numbers quoted are those of the table's first row (rule 28 on crx's training data)
    assert "\n  28     2   3.6%   106      2 (1.9%)\t     8 (9|1) \t+\n" in text
    assert "  Rule 28 -> class +  [96.4%]: the percentage is the rule's confidence,\n" in text
    assert "    100% minus its pessimistic error estimate (the Error column, 3.6%).\n" in text
    assert "Used = cases it decided (106 on the training data),\n" in text
    assert ("    Wrong = those it got wrong (2), and Advantage 8 (9|1) = 9 cases it gets right\n"
            "    that the next rule (or the default) would get wrong, minus 1 it gets wrong that they would"
            " get right.\n") in text
    assert "a case no rule covers gets the default class (-)." in text


def test_demo_ends_with_what_to_open_next(demo_run):
    text, out = demo_run
    tail = text[text.index("200 of 200 rows agree"):]
    assert "\nNext: open out/report.html in a browser" in tail
    assert "  out/rules.sql (the rules as one SQLite SELECT;" in tail
    assert "docs/errors.md lists every warning and error" in tail
    for name in ("report.html", "rules.sql", "rules.py", "model.yaml", "rules.txt"):
        assert (out / name).stat().st_size > 0


def test_demo_data_is_inside_the_package():
    """The bundled data lives in the package (so a wheel has it), not only in the repository."""
    import c45rules
    from c45rules.cli.demo import EXAMPLE_STEM
    package = __import__("pathlib").Path(c45rules.__file__).resolve().parent
    assert EXAMPLE_STEM.parent == package / "examples" / "crx"
    for suffix in (".names", ".data", ".test"):
        assert EXAMPLE_STEM.with_suffix(suffix).is_file()
