"""Cases as text for the command line: streamed scoring to CSV, one case for `explain`.

Input cells are read as text (CSV: `dtype=str`, no NA guessing), so the scored file repeats
every input column byte-for-byte in value and in order; the model parses only the columns
it tests, reading unknown tokens, separator, decimal comma and encoding as the
ReadOptions say (data/reading.py). CSV/TSV input is read `chunksize` rows at a time, so memory does not grow with
the file; Parquet and C4.5 `.data`/`.test` files are read whole.
"""
from __future__ import annotations

import contextlib
import csv
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.frame import encode_frame, refuse_read_options
from ..data.names import split_cases
from ..data.reading import DEFAULT_READ, ReadOptions, add_counts
from ..data.schema import Schema
from ..errors import InputError
from ..export._atomic import atomic_open, checked_target
from ..ruleset import RuleSet

CSV_SUFFIXES = (".csv", ".tsv")
PARQUET_SUFFIXES = (".parquet", ".pq")


def _c45_frame(path: Path, schema: Schema) -> pd.DataFrame:
    """A C4.5 .data/.test file as text columns named after the model's attributes and class."""
    frame = split_cases(path, len(schema.attributes) + 1)
    frame.columns = [*schema.names, schema.target]
    return frame


def read_text_chunks(path: str | os.PathLike, schema: Schema, chunksize: int,
                     read: ReadOptions | None = None) -> tuple[list[str], Iterator[pd.DataFrame]]:
    """(column names, frames of text cells in file order) for CSV/TSV, Parquet or C4.5 files.

    `read` gives a CSV's separator and encoding; its tokens are for the encoder (encode_frame).
    """
    read = read or DEFAULT_READ
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: file not found")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, not a data file")
    suffix = p.suffix.lower()
    if suffix in CSV_SUFFIXES:
        sep = read.separator(p)
        from ..data.frame import check_csv_layout, not_decodable
        header, _ = check_csv_layout(p, sep, read.encoding)   # refuses short/long records, naming the line

        def chunks() -> Iterator[pd.DataFrame]:
            try:
                with pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_filter=False,
                                 encoding=read.encoding, chunksize=chunksize, skip_blank_lines=False,
                                 index_col=False) as reader:
                    # a blank line is a record of unknown values (as read_table reads it)
                    for chunk in reader:
                        yield chunk.fillna("")
            except UnicodeDecodeError:
                raise not_decodable(p, read.encoding) from None
            except pd.errors.ParserError as e:
                raise InputError(f"{p}: {str(e).replace('Error tokenizing data. C error: ', '')}") from None
            except pd.errors.EmptyDataError:
                return
        return header, chunks()
    if suffix in PARQUET_SUFFIXES:
        from ..data.frame import read_table
        frame = read_table(p, read)
        return [str(c) for c in frame.columns], iter([frame])
    refuse_read_options(str(p), read)
    frame = _c45_frame(p, schema)
    return list(frame.columns), iter([frame])


def _offset_rows(error: InputError, source: str, offset: int) -> InputError:
    """Renumber the `row N` of an encoding error from chunk-relative to file-relative."""
    pattern = re.compile(rf"^{re.escape(source)}: row (\d+):")
    text = pattern.sub(lambda m: f"{source}: row {int(m.group(1)) + offset}:", str(error), count=1)
    return InputError(text)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator:
    """A text file that replaces `path` only when the block succeeds (export._atomic.atomic_open)."""
    checked_target(path)
    with atomic_open(path) as f:
        yield f


def predict_file(ruleset: RuleSet, data: str | os.PathLike, output: str | os.PathLike, *,
                 chunksize: int = 50_000, prediction_column: str = "predicted_class",
                 rule_column: str = "rule_id", read: ReadOptions | None = None,
                 unknown_tokens: dict[str, dict[str, int]] | None = None) -> int:
    """Score `data` into CSV `output` (all input columns, then class and rule id); rows written.

    `unknown_tokens`, when given, is filled with the cells read as unknown (Dataset.unknown_tokens).
    """
    source = str(data)
    header, chunks = read_text_chunks(data, ruleset.schema, chunksize, read)
    for name, flag in ((prediction_column, "--prediction-column"), (rule_column, "--rule-column")):
        if not name:
            raise InputError(f"{flag}: the output column name cannot be empty")
        if name in header:
            raise InputError(f"{source}: the input already has a column {name!r}; name the output"
                             f" column differently with {flag} NAME")
    if prediction_column == rule_column:
        raise InputError(f"--prediction-column and --rule-column are both {prediction_column!r}")
    used = ruleset.used_attributes()
    labels = np.array([ruleset.default_class] + [r.prediction for r in ruleset.rules], dtype=object)
    ids = np.array([""] + [str(r.id) for r in ruleset.rules], dtype=object)
    rows = 0
    with atomic_output(output) as out:
        csv.writer(out, lineterminator="\n").writerow([*header, prediction_column, rule_column])
        for chunk in chunks:
            try:
                encoded = encode_frame(chunk, ruleset.schema, require=used, source=source, read=read)
            except InputError as e:
                raise _offset_rows(e, source, rows) from None
            if unknown_tokens is not None:
                add_counts(unknown_tokens, encoded.unknown_tokens)
            pos = ruleset.rule_index(encoded)
            chunk = chunk.assign(**{prediction_column: labels[pos], rule_column: ids[pos]})
            # a lone CR in a field must be quoted, which the "\n"-terminated writer does not do
            # (before Python 3.12): a chunk holding one is written with every field quoted
            text = chunk.select_dtypes(include=["object", "string"])
            cr = any(text[c].astype(str).str.contains("\r", regex=False).any() for c in text.columns)
            chunk.to_csv(out, header=False, index=False, lineterminator="\n",
                         quoting=csv.QUOTE_ALL if cr else csv.QUOTE_MINIMAL)
            rows += len(chunk)
    return rows


def case_from_file(path: str | os.PathLike, schema: Schema, number: int,
                   read: ReadOptions | None = None) -> dict:
    """Data row `number` (1-based) of a CSV/Parquet or C4.5 file, as {column: text}."""
    header, chunks = read_text_chunks(path, schema, 10_000, read)
    seen = 0
    for chunk in chunks:
        if number <= seen + len(chunk):
            return chunk.iloc[number - seen - 1].to_dict()
        seen += len(chunk)
    raise InputError(f"{path}: --row-number {number} but the file has {seen} data rows")
