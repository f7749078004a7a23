"""No data lost: reading a CSV for scoring (read_table -> encode_frame -> RuleSet.predict)
keeps every record, in file order, as Python's csv module reads the file.

Decisions (docs/errors.md): a blank line is a record whose values are all unknown (pandas
would skip it; some writers spell a missing value of a one-column file so); a record
with more or fewer fields than the header is refused naming the line (pandas would pad it,
or take the first column as an index and shift every value); a trailing delimiter on every
line, header included, is an extra column of empty cells; a BOM is not part of the first
column's name; quoted newlines, CRLF and CR line ends are ordinary.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest

from c45rules import Attribute, Condition, InputError, Rule, RuleSet, Schema
from c45rules.data.frame import encode_frame, read_table

SCHEMA = Schema((Attribute("a", "continuous"), Attribute("b", "discrete", ("x", "y\nz", 'q"'))), ("hi", "lo"))
RULES = RuleSet(SCHEMA, (Rule(1, (Condition("a", ">", 5.0),), "hi", 3, 0, 0.2, 1.5),
                         Rule(2, (Condition("b", "in", ("y\nz", 'q"')),), "hi", 2, 0, 0.3, 1.4)),
                "lo", (5, 5), (0, 5))


def csv_records(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def expected_class(header: list[str], record: list[str]) -> str:
    """The rules by hand on one csv-module record (blank record: every value unknown)."""
    cells = dict(zip(header, record)) if record else {}
    a = cells.get("a", "")
    if a not in ("", "?") and float(a) > 5.0:
        return "hi"
    return "hi" if cells.get("b") in ("y\nz", 'q"') else "lo"


FILES = {
    "blank lines inside": "a,b\n1,x\n\n7,x\n\n\n2,\"y\nz\"\n",
    "blank line at the end": "a,b\n9,x\n1,x\n\n",
    "quoted newlines": 'a,b,note\n1,"y\nz","multi\nline, with comma"\n6,x,"a ""q"""\n2,"q""",\n',
    "trailing delimiter on every line": "a,b,\n1,x,\n8,x,\n2,\"q\"\"\",\n",
    "CRLF": "a,b\r\n1,x\r\n\r\n9,x\r\n2,\"y\nz\"\r\n",
    "CR only": "a,b\r1,x\r9,x\r",
    "BOM": "\ufeffa,b\n1,x\n9,x\n",
    "unknown spellings": "a,b\n?,?\n,\n6,\n",
    "one column, blank line is a missing value": "a\n1\n\n9\n",
    "extra columns in any order": "id,b,z,a\n1,x,,0\n2,\"y\nz\",,0\n3,x,,99\n",
}


@pytest.mark.parametrize("text", FILES.values(), ids=FILES.keys())
def test_every_record_is_kept_in_order(tmp_path, text):
    path = tmp_path / "in.csv"
    path.write_text(text, encoding="utf-8", newline="")
    header, *records = csv_records(path)
    frame = read_table(path)
    assert len(frame) == len(records)
    assert [str(c) for c in frame.columns][: len(header)] == [h or str(c) for h, c in zip(header, frame.columns)]
    for i, record in enumerate(records):          # cells as the csv module reads them
        want = record if record else [""] * len(header)
        assert list(frame.iloc[i]) == want, i
    ds = encode_frame(frame, SCHEMA, require=("a",) if "a" in header and "b" not in header else None)
    assert ds.n == len(records)
    got = list(RULES.predict(ds))
    assert got == [expected_class(header, r) for r in records]


def test_a_one_column_file_keeps_its_missing_values(tmp_path):
    """Some writers spell a missing value of a one-column file as a blank line, others
    (pandas 3) as `""`: both are a record with that value unknown."""
    blank = tmp_path / "blank.csv"
    blank.write_text("a\n1.0\n\n9.0\n\n", encoding="utf-8")
    quoted = tmp_path / "quoted.csv"
    pd.DataFrame({"a": [1.0, None, 9.0, None]}).to_csv(quoted, index=False)
    for path in (blank, quoted):
        back = read_table(path)
        assert list(back["a"]) == ["1.0", "", "9.0", ""]
        assert list(RULES.predict(back.assign(b="x"))) == ["lo", "lo", "hi", "lo"]


@pytest.mark.parametrize("text, line", [
    ("a,b\n1,x\n2,x,\n", 3),          # a trailing delimiter on data lines only
    ("a,b\n1,x,9\n", 2),              # one field too many: pandas made 'a' the index
    ("a,b\n1\n", 2),                  # one field too few: pandas padded it
    ("a,b\n1,x\n  \n", 3),            # a line of spaces is one field, not a blank line
])
def test_records_that_do_not_fit_the_header_are_refused_naming_the_line(tmp_path, text, line):
    path = tmp_path / "in.csv"
    path.write_text(text, encoding="utf-8", newline="")
    with pytest.raises(InputError, match=rf"in\.csv:{line}: \d field\(s\), but the header has 2"):
        read_table(path)


def test_a_large_file_keeps_its_row_count(tmp_path):
    rows = [[str(i), "x" if i % 3 else 'y\nz'] for i in range(20_000)]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(["a", "b"])
    for i, r in enumerate(rows):
        writer.writerow(r)
        if i % 997 == 0:
            buf.write("\r\n")           # a blank line now and then
    path = tmp_path / "big.csv"
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")
    header, *records = csv_records(path)
    frame = read_table(path)
    assert len(frame) == len(records) == 20_000 + len(range(0, 20_000, 997))
    assert list(RULES.predict(frame)) == [expected_class(header, r) for r in records]
