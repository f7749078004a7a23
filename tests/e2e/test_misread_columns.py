"""Tables misread without a word (issue 49.5): decimal commas beside an unknown token pandas
does not know, class labels that differ only in case or spaces, dates read as a category; each
a DataWarning naming the column and the fix, an InputError with strict (--strict)."""
from __future__ import annotations

import warnings

import pandas as pd
import pytest

import c45rules
from c45rules.data.frame import from_frame
from c45rules.data.reading import ReadOptions
from c45rules.errors import DataWarning, InputError

from .conftest import REPO, cli_err, fails


def _penguins(n: int = 60) -> pd.DataFrame:
    """A table with every misreading: weight with decimal commas and 'n.a.', species spelled
    three ways, a timestamp per row."""
    species = ["Gentoo" if i % 3 == 0 else "Adelie" for i in range(n)]
    species[1], species[2], species[4] = "ADELIE", " adelie ", "ADELIE"
    return pd.DataFrame({
        "length": [150 + (i * 7) % 80 for i in range(n)],
        "weight": ["n.a." if i % 13 == 0 else f"{30 + i % 25},{i % 10}" for i in range(n)],
        "when": [f"2021-03-{1 + i % 28:02d} 10:{i:02d}:00" for i in range(n)],
        "species": species,
    })


def _clean_labels() -> pd.DataFrame:
    return _penguins().assign(species=lambda d: d.species.str.strip().str.capitalize())


def _warnings(df: pd.DataFrame, read: ReadOptions = ReadOptions(), **kinds) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        ds = from_frame(df, "species", source="p.csv", read=read, **kinds)
    return ds, [str(w.message) for w in got if issubclass(w.category, DataWarning)]


def _cli_words(df: pd.DataFrame, **kinds) -> list[str]:
    """The same warnings as the command line prints them (DataWarning.cli: options, not parameters)."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        from_frame(df, "species", source="p.csv", **kinds)
    return [w.message.cli for w in got if issubclass(w.category, DataWarning)]


def test_decimal_commas_beside_an_unknown_token_are_warned_of():
    ds, said = _warnings(_clean_labels(), ignore=["when"])
    assert ds.schema.attribute("weight").is_discrete
    assert said == ["p.csv: column 'weight' holds numbers written with a decimal comma ('31,1', '32,2');"
                    " read as discrete; decimal=',' (with a separator other than ',') reads them as numbers,"
                    " and na_values=['n.a.'] reads 'n.a.' as unknown"]
    assert _cli_words(_clean_labels(), ignore=["when"]) == [
        "p.csv: column 'weight' holds numbers written with a decimal comma ('31,1', '32,2');"
        " read as discrete; --decimal , (with a separator other than ',') reads them as numbers,"
        " and --na-values n.a. reads 'n.a.' as unknown"]
    # the fix the warning gives reads the column as numbers, silently
    ds, said = _warnings(_clean_labels(), ignore=["when"], read=ReadOptions(na_values=("n.a.",), decimal=","))
    assert ds.schema.attribute("weight").is_continuous and said == []
    assert ds.unknown_tokens == {"weight": {"n.a.": 5}}


def test_class_labels_differing_in_case_are_warned_of_and_folded():
    df = _penguins()
    _, said = _warnings(df, ignore=["when", "weight"])
    assert said == ["p.csv: target column 'species' has class labels that differ only in case or surrounding"
                    " spaces (' adelie ', 'ADELIE', 'Adelie'), read as different classes; fold_case=True merges"
                    " each group into its most frequent spelling"]
    assert "; --fold-case merges each group" in _cli_words(df, ignore=["when", "weight"])[0]
    plain, _ = _warnings(df, ignore=["when", "weight"])
    assert plain.schema.classes == (" adelie ", "ADELIE", "Adelie", "Gentoo")
    folded, said = _warnings(df, ignore=["when", "weight"], read=ReadOptions(fold_case=True))
    assert said == [] and folded.schema.classes == ("Adelie", "Gentoo")   # the most frequent spelling
    assert list(folded.y[:5]) == [1, 0, 0, 1, 0]
    # a tie goes to the first spelling in sorted order, whatever the row order
    tie = pd.DataFrame({"x": [1, 2, 3, 4], "species": ["b", "B", "B", "b"]})
    for df in (tie, tie.iloc[::-1]):
        ds, _ = _warnings(df, read=ReadOptions(fold_case=True))
        assert ds.schema.classes == ("B",)


def test_a_date_column_read_as_a_category_is_warned_of():
    _, said = _warnings(_clean_labels(), ignore=["weight"])
    assert said == ["p.csv: column 'when' holds dates or timestamps (e.g. '2021-03-01 10:00:00'): read as"
                    " discrete with 60 values for 60 rows, which no rule can reuse on new dates; leave it out"
                    " with ignore=['when'], or convert it to numbers first (days since a date, the month, the"
                    " weekday)"]
    assert "leave it out with --ignore when, or" in _cli_words(_clean_labels(), ignore=["weight"])[0]
    for dates in (["03/04/2021", "17/05/2022", "2/1/23"] * 2, ["2021-03-04T10:00:00Z", "2021-03-05T11:30:00+01:00"]):
        df = pd.DataFrame({"d": dates + [f"2020-01-{i:02d}" for i in range(1, 20)], "species": "a"})
        assert any("column 'd' holds dates" in m for m in _warnings(df)[1])
    # a few dates over many rows are a category like any other; month 13 is no date
    few = pd.DataFrame({"d": ["2021-03-04", "2021-03-05"] * 30, "species": ["a", "b", "c"] * 20})
    not_dates = pd.DataFrame({"d": [f"2021-13-{i:02d}" for i in range(1, 29)], "species": "a"})
    assert _warnings(few)[1] == [] and _warnings(not_dates)[1] == []


def test_strict_makes_each_warning_an_error():
    df = _penguins()
    with pytest.raises(InputError, match=r"target column 'species' .* fold_case=True .*\(an error with strict=True\)"
                       ) as caught:
        from_frame(df, "species", read=ReadOptions(strict=True))
    assert caught.value.cli.endswith("--fold-case merges each group into its most frequent spelling"
                                     " (an error with --strict)")
    with pytest.raises(InputError, match=r"column 'weight' holds numbers written with a decimal comma"):
        from_frame(df, "species", read=ReadOptions(strict=True, fold_case=True), ignore=["when"])
    with pytest.raises(InputError, match=r"column 'when' holds dates or timestamps .* ignore=\['when'\]"):
        c45rules.fit(df, "species", strict=True, fold_case=True, decimal=",", na_values=["n.a."])
    rs = c45rules.fit(df, "species", strict=True, fold_case=True, decimal=",", na_values=["n.a."], ignore=["when"])
    assert rs.schema.classes == ("Adelie", "Gentoo")


@pytest.fixture
def penguins_csv(tmp_path):
    path = tmp_path / "p.csv"
    _penguins().to_csv(path, sep=";", index=False)
    return path


def test_cli_warnings_fixes_and_strict(penguins_csv, tmp_path):
    code, _, err = cli_err(["tree", str(penguins_csv), "--target", "species", "--json"])
    lines = err.splitlines()
    assert code == 0 and len(lines) == 3 and all(line.startswith("c45rules: warning: ") for line in lines)
    assert "'species' has class labels" in lines[0] and "--na-values n.a. reads 'n.a.' as unknown" in lines[1]
    assert "column 'when' holds dates" in lines[2]
    code, out, err = cli_err(["tree", str(penguins_csv), "--target", "species", "--json", "--fold-case",
                              "--decimal", ",", "--na-values", "n.a.", "--ignore", "when", "--strict"])
    assert code == 0 and "c45rules: warning:" not in err and out.startswith("{")
    for command in ("tree", "rules", "fit", "cv", "tune"):
        output = ["-o", str(tmp_path / "m.yaml")] if command == "fit" else []
        code, _, err = cli_err([command, str(penguins_csv), "--target", "species", "--strict", *output])
        assert code == 2 and err.startswith("c45rules: error: ") and "--fold-case merges" in err, command
    code, _, err = cli_err(["rules", str(REPO / "examples" / "crx" / "crx"), "--fold-case"])
    assert code == 2 and "--fold-case applies to CSV/Parquet data" in err
    code, _, err = cli_err(["rules", str(REPO / "examples" / "crx" / "crx"), "--strict", "--json"])
    assert code == 0 and not (tmp_path / "m.yaml").exists()


def test_strict_exits_2_with_one_line(penguins_csv):
    line = fails("fit", penguins_csv, "--target", "species", "--fold-case", "--strict", "-o",
                 penguins_csv.with_name("m.yaml"))
    assert "column 'weight'" in line and "--decimal ," in line and line.endswith("(an error with --strict)")
    assert not penguins_csv.with_name("m.yaml").exists()


def test_the_estimator_refuses_a_date_column_that_fit_warns_of():
    df = _clean_labels()[["when", "species"]]
    with pytest.raises(InputError, match=r"column 'when' holds dates or timestamps .* ignore=\['when'\]"):
        c45rules.C45Rules().fit(df[["when"]], df["species"])
    with pytest.warns(DataWarning, match="column 'when' holds dates"):
        c45rules.fit(df, "species")
