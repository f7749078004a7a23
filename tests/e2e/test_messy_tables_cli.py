"""Messy tables through the command line: the reading options on every command that reads data,
the stderr note on tokens read as unknown and the stray-string warning."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from .conftest import cli_err, fails, ok

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
PENGUINS = FIXTURES / "penguins.csv"
REGIONS = FIXTURES / "regions.csv"


def _notes(source: Path) -> list[str]:
    return [f"c45rules: note: {source}: {text}" for text in (
        "2 values of bill_length_mm read as unknown (NA)", "1 value of bill_depth_mm read as unknown (NA)",
        "1 value of flipper_length_mm read as unknown (NA)", "1 value of body_mass_g read as unknown (NA)",
        "5 values of sex read as unknown (NA)")]


def test_rules_on_a_csv_with_NA_tests_thresholds_and_notes_the_counts():
    p = ok("rules", PENGUINS, "--target", "species")
    assert "\tbill_length_mm <= 40.7\n" in p.stdout and "\tflipper_length_mm > 206\n" in p.stdout
    assert re.findall(r"^Rule \d+:", p.stdout, re.M) == ["Rule 1:", "Rule 2:", "Rule 3:"]
    assert p.stderr.splitlines() == _notes(PENGUINS)
    assert ok("tree", PENGUINS, "--target", "species", "-q").stderr == ""


def test_fit_evaluate_predict_report_and_export_read_the_tokens(tmp_path):
    model = tmp_path / "m.yaml"
    p = ok("fit", PENGUINS, "--target", "species", "-o", model)
    assert p.stderr.splitlines() == _notes(PENGUINS)
    assert "kind: \"continuous\"" in model.read_text()
    p = ok("evaluate", model, PENGUINS)
    assert "Tested 150, errors 1 (0.7%)" in p.stdout
    assert p.stderr.splitlines() == _notes(PENGUINS)
    out = tmp_path / "scored.csv"
    p = ok("predict", model, PENGUINS, "-o", out, "--chunksize", "40")   # counts summed over chunks
    # scoring reads only the attributes the model knows; all five columns are in the schema
    assert p.stderr.splitlines() == _notes(PENGUINS)
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert scored["bill_length_mm"][3] == "NA"   # the input repeated as written
    assert (scored["predicted_class"] != scored["species"]).sum() == 1
    assert ok("report", model, "--data", PENGUINS, "-o", tmp_path / "r.html", "-q").stderr == ""
    p = ok("export", model, "--to", "dot", "--data", PENGUINS, "--target", "species")
    assert "bill_length_mm" in p.stdout


def test_na_values_through_the_cli(tmp_path):
    data = tmp_path / "d.csv"
    rows = [f"{i if i % 7 else 'missing'},{'pq'[i >= 20]}" for i in range(40)]
    data.write_text("x,y\n" + "\n".join(rows) + "\n")
    p = ok("fit", data, "--target", "y", "--na-values", "missing", "--na-values", "n.a.,-", "-o", tmp_path / "m.yaml")
    assert p.stderr == f"c45rules: note: {data}: 6 values of x read as unknown (missing)\n"
    assert "\tx <= 19\n" in p.stdout and "\tx > 19\n" in p.stdout
    # without it 'missing' is a value; 6 of 40 (85% numbers) is no stray: no warning either
    p = ok("fit", data, "--target", "y", "-o", tmp_path / "m2.yaml")
    assert p.stderr == ""
    assert '{name: "x", kind: "discrete"' in (tmp_path / "m2.yaml").read_text()


def test_keep_na_tokens_learns_NA_as_a_region_and_scoring_reads_it_back(tmp_path):
    model = tmp_path / "m.yaml"
    p = ok("fit", REGIONS, "--target", "plan", "--keep-na-tokens", "-o", model)
    assert p.stderr == ""
    assert "\tregion = NA\n" in p.stdout
    assert 'values: ["AS", "EU", "NA"]' in model.read_text()
    new = tmp_path / "new.csv"
    new.write_text("region,spend\nNA,20\nEU,20\n")
    out = tmp_path / "out.csv"
    ok("predict", model, new, "-o", out)   # no --keep-na-tokens needed: 'NA' is a known region
    assert pd.read_csv(out, dtype=str, keep_default_na=False)["predicted_class"].tolist() == ["premium", "basic"]
    p = ok("explain", model, "--row", '{"region": "NA", "spend": 20}')
    assert "region = NA" in p.stdout and "premium" in p.stdout
    p = ok("explain", model, "--row-number", "1", "--data", new)
    assert "premium" in p.stdout
    # learned without the option the file has no NA region, and the note says why
    p = ok("fit", REGIONS, "--target", "plan", "-o", tmp_path / "m2.yaml")
    assert p.stderr == f"c45rules: note: {REGIONS}: 20 values of region read as unknown (NA)\n"
    assert "region = NA" not in p.stdout


def _semicolon_decimal_comma(path: Path) -> Path:
    df = pd.read_csv(PENGUINS, dtype=str, keep_default_na=False)
    df = df.apply(lambda c: c.str.replace(".", ",", regex=False))
    df.to_csv(path, sep=";", index=False)
    return path


def test_a_semicolon_decimal_comma_file_gives_the_plain_model_and_predictions(tmp_path):
    messy = _semicolon_decimal_comma(tmp_path / "messy.csv")
    plain_model, messy_model = tmp_path / "plain.yaml", tmp_path / "messy.yaml"
    ok("fit", PENGUINS, "--target", "species", "-o", plain_model, "-q")
    ok("fit", messy, "--target", "species", "--decimal", ",", "-o", messy_model, "-q")
    assert messy_model.read_bytes() == plain_model.read_bytes()
    out_plain, out_messy = tmp_path / "a.csv", tmp_path / "b.csv"
    ok("predict", plain_model, PENGUINS, "-o", out_plain, "-q")
    ok("predict", plain_model, messy, "-o", out_messy, "--decimal", ",", "--chunksize", "7", "-q")
    a = pd.read_csv(out_plain, dtype=str)
    b = pd.read_csv(out_messy, dtype=str, sep=",")
    assert b["rule_id"].tolist() == a["rule_id"].tolist()
    assert "Tested 150, errors 1 (0.7%)" in ok("evaluate", plain_model, messy, "--decimal", ",", "-q").stdout
    p = ok("explain", plain_model, "--row-number", "1", "--data", messy, "--decimal", ",")
    assert "bill_length_mm <= 40.7   (bill_length_mm = 38.5: yes)" in p.stdout   # 38,5 in the file
    assert ok("rules", messy, "--target", "species", "--decimal", ",", "--sep", ";", "-q").stdout == \
        ok("rules", PENGUINS, "--target", "species", "-q").stdout


def test_sep_spellings_and_the_decimal_clash(tmp_path):
    tsv = tmp_path / "p.txt.csv"
    pd.read_csv(PENGUINS, dtype=str, keep_default_na=False).to_csv(tsv, sep="\t", index=False)
    base = ok("rules", PENGUINS, "--target", "species", "-q").stdout
    for spelling in ("tab", "\\t", "\t"):
        assert ok("rules", tsv, "--target", "species", "--sep", spelling, "-q").stdout == base
    assert fails("rules", PENGUINS, "--target", "species", "--sep", ",", "--decimal", ",") == \
        "c45rules: error: --decimal ',' needs another separator than ',' (give --sep ';', tab or '|')"
    assert fails("rules", PENGUINS, "--target", "species", "--decimal", ",").startswith(
        f"c45rules: error: {PENGUINS}: its fields are separated by ','")
    assert "--sep: expected" in fails("fit", PENGUINS, "--target", "species", "--sep", ":", "-o", tmp_path / "m")


def test_a_latin1_file_with_encoding(tmp_path):
    path = tmp_path / "towns.csv"
    rows = "".join(f"{t},{n},{c}\n" for t, n, c in [("Zürich", 3, "a"), ("Genève", 8, "b")] * 6)
    path.write_bytes(("town,n,class\n" + rows).encode("latin-1"))
    msg = fails("rules", path, "--target", "class")
    assert msg == (f"c45rules: error: {path}: bytes that are not UTF-8 (at byte 14) on line 2;"
                   " give the file's codec as --encoding 'latin-1' or another")
    model = tmp_path / "m.yaml"
    p = ok("fit", path, "--target", "class", "--encoding", "latin-1", "-o", model)
    assert "town = Zürich" in p.stdout or "n <= 3" in p.stdout
    out = tmp_path / "o.csv"
    ok("predict", model, path, "--encoding", "latin-1", "-o", out)
    assert "Zürich" in out.read_text(encoding="utf-8")
    assert "bytes that are not UTF-8" in fails("predict", model, path, "-o", tmp_path / "o2.csv")
    assert "unknown encoding 'nope'" in fails("evaluate", model, path, "--encoding", "nope")


def test_the_stray_string_warning_on_stderr(tmp_path):
    data = tmp_path / "data.csv"
    ages = [str(20 + i) for i in range(40)]
    ages[1], ages[4], ages[7] = "unknown", "n.a.", "unknown"
    data.write_text("age,y\n" + "".join(f"{a},{'ab'[i % 2]}\n" for i, a in enumerate(ages)))
    p = ok("fit", data, "--target", "y", "-o", tmp_path / "m.yaml")
    assert p.stderr == (f"c45rules: warning: {data}: column 'age' is numeric except for 'unknown', 'n.a.'"
                        " (3 rows); read as discrete; use --na-values to read them as unknown or"
                        " --continuous age\n")
    p = ok("fit", data, "--target", "y", "--continuous", "age", "-o", tmp_path / "m2.yaml")
    assert p.stderr == f"c45rules: note: {data}: 3 values of age read as unknown (n.a., unknown)\n"
    p = ok("fit", data, "--target", "y", "--na-values", "unknown,n.a.", "-o", tmp_path / "m3.yaml")
    assert p.stderr == f"c45rules: note: {data}: 3 values of age read as unknown (n.a., unknown)\n"


def test_reading_options_with_a_c45_stem_are_refused():
    stem = Path(__file__).resolve().parents[2] / "examples" / "crx" / "crx"
    code, _, err = cli_err(["rules", str(stem), "--na-values", "x"])
    assert code == 2 and "--na-values, --keep-na-tokens, --sep, --decimal and --encoding apply to CSV/Parquet" in err
