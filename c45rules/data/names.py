"""Read Quinlan's C4.5 format: STEM.names (schema), STEM.data / STEM.test (cases). Spec 1."""
from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from .schema import UNKNOWN_CODE, UNSEEN_CODE, Attribute, Dataset, Schema

_DELIMS = {",", ":", "\n", "|"}
# only these end a line of a data file (str.splitlines would also split at U+2028, \x0c, ...)
_LINE_END = re.compile(r"\r\n|\r|\n")


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: bytes that are not UTF-8 (at byte {e.start})") from None


def _tokens(text: str):
    """Yield (name, delimiter, line) as the reference's ReadName would (spec 1)."""
    i, n, line = 0, len(text), 1
    while True:
        while i < n and (text[i].isspace() or text[i] == "|"):
            if text[i] == "|":
                while i < n and text[i] != "\n":
                    i += 1
                continue
            if text[i] == "\n":
                line += 1
            i += 1
        if i >= n:
            return
        start_line = line
        out: list[str] = []
        delim = "\n"
        while i < n:
            c = text[i]
            if c in _DELIMS:
                delim = c
                break
            if c == "." and (i + 1 >= n or text[i + 1].isspace() or text[i + 1] == "|"):
                delim = "."
                i += 1
                break
            if c == "\\" and i + 1 < n:
                i += 1
                c = text[i]
            if c in " \t":
                if out and out[-1] != " ":
                    out.append(" ")
            else:
                out.append(c)
            i += 1
        if delim in (",", ":"):
            i += 1
        elif delim == "|":
            delim = "\n"  # the comment is skipped before the next name
        yield "".join(out).strip(), delim, start_line


def read_names(path: str | os.PathLike) -> Schema:
    """Parse a `.names` file into a Schema (class list first, then `attr: spec.` lines)."""
    path = Path(path)
    text = _read_text(path)
    toks = list(_tokens(text))
    if not toks:
        raise InputError(f"{path}: empty names file (expected a class list)")
    pos = 0
    classes: list[str] = []
    while True:
        if pos >= len(toks):
            break
        name, delim, line = toks[pos]
        pos += 1
        if delim == ":":
            raise InputError(f"{path}:{line}: expected the class list first, found attribute {name!r}")
        if not name:
            raise InputError(f"{path}:{line}: empty class name")
        classes.append(name)
        if delim != ",":
            break
    attributes: list[Attribute] = []
    while pos < len(toks):
        name, delim, line = toks[pos]
        pos += 1
        if delim != ":":
            raise InputError(f"{path}:{line}: expected 'attribute: spec.', found {name!r}")
        if not name:
            raise InputError(f"{path}:{line}: empty attribute name")
        if pos >= len(toks):
            raise InputError(f"{path}:{line}: attribute {name!r} has no specification")
        values: list[str] = []
        while pos < len(toks):
            v, d, _ = toks[pos]
            pos += 1
            values.append(v)
            if d != ",":
                break
        first = values[0].lower()
        if len(values) == 1 and first == "continuous":
            attributes.append(Attribute(name, "continuous"))
        elif len(values) == 1 and first == "ignore":
            attributes.append(Attribute(name, "ignore"))
        elif len(values) == 1 and first.startswith("discrete"):
            parts = first.split()
            if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) < 1:
                raise InputError(f"{path}:{line}: attribute {name!r}: expected 'discrete N'")
            # values are collected from the data; remember the limit in the kind marker
            attributes.append(Attribute(name, "discrete", ("\0discrete", parts[1])))
        elif len(values) == 1:
            raise InputError(f"{path}:{line}: attribute {name!r} has a single value {values[0]!r}"
                             " (a value list needs at least two)")
        else:
            if any(not v for v in values):
                raise InputError(f"{path}:{line}: attribute {name!r} has an empty value name")
            if len(set(values)) != len(values):
                raise InputError(f"{path}:{line}: attribute {name!r} lists a value twice")
            attributes.append(Attribute(name, "discrete", tuple(values)))
    if not attributes:
        raise InputError(f"{path}: no attributes declared")
    names = [a.name for a in attributes]
    for a in attributes:
        if names.count(a.name) > 1:
            raise InputError(f"{path}: attribute {a.name!r} declared twice")
    if len(set(classes)) != len(classes):
        raise InputError(f"{path}: a class is listed twice")
    return _PendingSchema(tuple(attributes), tuple(classes))


class _PendingSchema(Schema):
    """A schema whose `discrete N` attributes still need their values from the data."""

    def __post_init__(self) -> None:  # value lists are validated once complete
        pass


def _split_lines(path: Path, text: str, ncols: int) -> pd.DataFrame:
    """Split a C4.5 data file into a frame of raw strings, one column per field."""
    # fast path: the common file has no escapes and no comments
    if "\\" not in text and "|" not in text:
        # pandas cannot be trusted with the field count: a short line is padded with ''
        # (indistinguishable from an empty last value) and a long first line silently
        # becomes an index column, shifting every value one attribute to the left
        for lineno, line in enumerate(_LINE_END.split(text), 1):
            if line.count(",") != ncols - 1 and line.strip():
                raise InputError(f"{path}:{lineno}: expected {ncols} values,"
                                 f" found {line.count(',') + 1}")
        try:
            frame = pd.read_csv(io.StringIO(text), header=None, dtype=str, sep=",",
                                quoting=csv.QUOTE_NONE, keep_default_na=False,
                                skip_blank_lines=True, skipinitialspace=True,
                                names=list(range(ncols)), engine="c")
        except pd.errors.ParserError as e:
            raise InputError(f"{path}: {e}".replace("Error tokenizing data. C error: ", "")) from None
        if frame.isna().any().any():
            bad = int(np.flatnonzero(frame.isna().any(axis=1).to_numpy())[0])
            raise InputError(f"{path}: case {bad + 1} has fewer than {ncols} values")
        frame = frame.apply(lambda s: s.str.strip())
        last = frame[ncols - 1]
        frame[ncols - 1] = last.where(~last.str.endswith("."), last.str[:-1])
        return frame
    rows: list[list[str]] = []
    for lineno, raw in enumerate(_LINE_END.split(text), 1):
        fields, cur, i = [], [], 0
        while i < len(raw):
            c = raw[i]
            if c == "\\" and i + 1 < len(raw):
                cur.append(raw[i + 1])
                i += 2
                continue
            if c == "|":
                break
            if c == ",":
                fields.append("".join(cur).strip())
                cur = []
            else:
                cur.append(c)
            i += 1
        tail = "".join(cur).strip()
        if not fields and not tail:
            continue
        if tail.endswith("."):
            tail = tail[:-1].rstrip()
        fields.append(tail)
        if len(fields) != ncols:
            raise InputError(f"{path}:{lineno}: expected {ncols} values, found {len(fields)}")
        rows.append(fields)
    return pd.DataFrame(rows, columns=list(range(ncols)), dtype=str)


def read_cases(path: str | os.PathLike, schema: Schema, *, collect: bool = False) -> tuple[Dataset, Schema]:
    """Read a `.data`/`.test` file against `schema`; `collect` fills `discrete N` value lists."""
    path = Path(path)
    return cases_from_frame(split_cases(path, len(schema.attributes) + 1), schema, str(path), collect=collect)


def split_cases(path: str | os.PathLike, ncols: int) -> pd.DataFrame:
    """A C4.5 .data/.test file as a frame of raw text cells, `ncols` per case (checked)."""
    path = Path(path)
    return _split_lines(path, _read_text(path), ncols)


def cases_from_frame(frame: pd.DataFrame, schema: Schema, path: str, *, collect: bool = False,
                     lines_are_cases: bool = True) -> tuple[Dataset, Schema]:
    """Encode a frame of raw text cells (columns = attributes in `schema` order, then the class)."""
    ncols = len(schema.attributes) + 1
    if len(frame) == 0:
        raise InputError(f"{path}: no cases")
    attributes = list(schema.attributes)
    for j, a in enumerate(attributes):
        if a.is_discrete and a.values[:1] == ("\0discrete",):
            if not collect:
                raise InputError(f"{path}: attribute {a.name!r} has no value list")
            limit = int(a.values[1])
            col = frame[j]
            seen = list(dict.fromkeys(v for v in col[col != "?"]))
            if len(seen) > limit:
                raise InputError(f"{path}: attribute {a.name!r} declared 'discrete {limit}'"
                                 f" has {len(seen)} values")
            attributes[j] = Attribute(a.name, "discrete", tuple(seen))
    full = Schema(tuple(attributes), schema.classes, schema.target)
    columns = [encode_column(frame[j], a, path, lines_are_cases=lines_are_cases)
               for j, a in enumerate(attributes)]
    what = "case" if lines_are_cases else "row"
    y = encode_classes(frame[ncols - 1], full.classes, f"{path}: {what}", "is not in the class list")
    return Dataset(full, columns, y, path), full


def encode_classes(raw: pd.Series, classes: tuple[str, ...], where: str, problem: str) -> np.ndarray:
    """Class codes of a column of class names, or InputError at the first unknown one."""
    codes = raw.map({c: i for i, c in enumerate(classes)})
    if codes.isna().any():
        bad = int(np.flatnonzero(codes.isna().to_numpy())[0])
        raise InputError(f"{where} {bad + 1}: class {raw.iloc[bad]!r} {problem} ({', '.join(classes)})")
    return codes.to_numpy(dtype=np.int32)


def encode_column(raw: pd.Series, a: Attribute, where: str, *, lines_are_cases: bool = False,
                  unseen_ok: bool = False) -> np.ndarray:
    """Encode a column of raw strings for attribute `a` ('?' and '' are unknown)."""
    what = "case" if lines_are_cases else "row"
    if a.kind == "ignore":
        return np.zeros(len(raw), dtype=np.int8)
    unknown = raw.isna() | raw.isin(["?", ""])
    if a.is_continuous:
        num = pd.to_numeric(raw.where(~unknown), errors="coerce")
        bad = num.isna() & ~unknown
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(f"{where}: {what} {i + 1}: attribute {a.name!r}: {raw.iloc[i]!r} is not a number")
        out = num.to_numpy(dtype=np.float64)
        inf = np.isinf(out)
        if inf.any() and not unseen_ok:
            i = int(np.flatnonzero(inf)[0])
            raise InputError(f"{where}: {what} {i + 1}: attribute {a.name!r}: infinite value {raw.iloc[i]!r}")
        return out
    lookup = {v: i for i, v in enumerate(a.values)}
    codes = raw.map(lookup)
    bad = codes.isna() & ~unknown
    if bad.any() and not unseen_ok:
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{where}: {what} {i + 1}: attribute {a.name!r}: value {raw.iloc[i]!r}"
                         f" is not one of its declared values")
    out = codes.to_numpy(dtype=np.float64, na_value=np.nan)
    res = np.where(np.isnan(out), UNKNOWN_CODE, out).astype(np.int32)
    if unseen_ok:
        res[bad.to_numpy()] = UNSEEN_CODE
    return res


def load_stem(stem: str | os.PathLike, *, test: bool = False) -> tuple[Dataset, Dataset | None]:
    """Load STEM.names + STEM.data (and STEM.test if `test` and it exists)."""
    stem = str(stem)
    for suffix in (".names", ".data", ".test"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    pending = read_names(stem + ".names")
    train, schema = read_cases(stem + ".data", pending, collect=True)
    if schema.attributes and all(a.kind == "ignore" for a in schema.attributes):
        raise InputError(f"{stem}.names: every attribute is 'ignore'")
    schema = Schema(schema.attributes, schema.classes, schema.target)  # full validation
    train.schema = schema
    tst = None
    if test and os.path.exists(stem + ".test"):
        tst, _ = read_cases(stem + ".test", schema)
    return train, tst
