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
