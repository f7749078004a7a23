"""Score a CSV or Parquet file inside DuckDB with the exported SQL, streaming, in bounded memory.

The file is read by DuckDB's own scanner (a CSV's cells all as text), the model's CASE
expressions (export/sql.py) decide each row, and COPY ... TO writes CSV or Parquet, so the
rows never pass through Python and memory does not grow with the file (`memory_limit`).

The file is read by its name literally (a link to it in a directory of our own: DuckDB would
take `[`, `*`, `?` in a name as a glob), and a CSV must give DuckDB as many records as the
default engine's reader finds (cli/cases.py), else the run fails and writes nothing.

Cells are read as the default engine reads them (cli/cases.py, data/frame.py encode_frame):
* a continuous column's text is unknown when it is one of the ReadOptions' tokens (empty,
  `?`, pandas' NA, NULL, nan, ...); otherwise it is a number when data/numbers.py says so
  (NUMBER_REGEX, then a finite DOUBLE); any other cell (`inf`, `1_000`) is a bad cell, which
  stops the run naming the column and the cell (BadCell, without the row: DuckDB does not
  tell it) or, with bad_cells="unknown", is NULL;
* a discrete column is compared as text; tokens and values never seen in training match no
  test, as there (with `strict`, an unseen value is an error naming the column);
* every input column is written back as read, then the class, the rule id (0: the default
  class) and, when named, the decision's confidence.
A CSV file of plain lines (engines/lines.py: no quote, CR or NUL, so each line is one record
and each cell the text between two commas) is read as one text a line, split into its cells
in SQL, and written as the line then the decision's cells: COPY's writer, whose cost grows
with the columns, writes one column (`_line_source`, `_written_decisions`).
Output rows keep the input's order: `preserve_insertion_order` stays on (with it off,
DuckDB's parallel CSV reader writes blocks in whichever order its threads finish them).
COPY then writes through DuckDB's batch writer, which keeps the blocks read ahead of the one
being written in memory and runs as many threads as its share of `memory_limit` holds
(`writer_memory_limit`): a fixed 512 MB ran it on one thread for a file of 33 columns.
"""
from __future__ import annotations

import codecs
import csv
import glob
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Callable, NamedTuple

from sqlglot import exp

from ..data.frame import BadCell, check_bad_cells, check_csv_layout, engine_bad_cell, engine_bad_cell_of
from ..data.numbers import number_or_none
from ..data.reading import DEFAULT_READ, ReadOptions, data_file
from ..data.spreadsheet import escaped_sql, escapes
from ..errors import InputError
from ..export._atomic import atomic_path, checked_target
from ..export.sql import decision_values, shared_tests, sql_as_number
from ..export.sql_decision import decision_case
from ..model.ruleset import RuleSet
from .lines import plain_lines

DIALECT = "duckdb"
MEMORY_LIMIT = "512MB"   # the least memory_limit score_file gives DuckDB
_MIB = 1 << 20
# DuckDB's batch writer (COPY with the insertion order kept) asks for 4 MiB per output column
# per thread and is granted at most a quarter of memory_limit; it runs on
# min(threads, granted // (4 MiB x columns) + 1) threads (physical_batch_copy_to_file.cpp)
_WRITER_MIB_PER_COLUMN = 4
_WRITER_SHARE = 4
CSV_SUFFIXES = (".csv", ".tsv")
PARQUET_SUFFIXES = (".parquet", ".pq")
# Python codec name -> DuckDB's read_csv encoding (the ones it reads without an extension)
ENCODINGS = {"utf-8": "utf-8", "utf-16": "utf-16", "latin-1": "latin-1", "iso8859-1": "latin-1"}
_NUMERIC_TYPES = ("DOUBLE", "FLOAT", "REAL", "DECIMAL", "TINYINT", "SMALLINT", "INTEGER", "BIGINT",
                  "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")
_ALIAS = "t"


def _literal(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _column(name: str, table: str | None = _ALIAS) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True),
                      table=exp.to_identifier(table, quoted=True) if table else None)


def _named(name: str, value: exp.Expression) -> exp.Expression:
    """`name = value`, a named argument of a DuckDB table function."""
    return exp.EQ(this=exp.column(name), expression=value)


def _csv_source(path: Path, scan: Path, read: ReadOptions, by_line: bool = False
                ) -> tuple[exp.Expression, list[str], int, str | None]:
    """(the read_csv call of `scan`, a name of `path` (every column VARCHAR, named as the header
    names it), the header, the number of records the default engine reads in `path`, None).

    `by_line`, for a file of plain lines separated by commas (the output's separator): the
    source also has each line as read, in a column whose name is the last item (see
    `_line_source`).
    """
    encoding = ENCODINGS.get(codecs.lookup(read.encoding).name)
    if encoding is None:
        raise InputError(f"encoding: the DuckDB engine reads UTF-8, UTF-16 or Latin-1 text, not {read.encoding!r}"
                         " (use the default engine)", params=("encoding",))
    sep = read.separator(path)
    # the default engine's record count, which DuckDB's must equal: counted from the lines when
    # no record can span lines, else by the layout check (checked_layout), in full, first
    plain = _plain_header(path, sep, read)
    header, records = plain if plain is not None else check_csv_layout(path, sep, read.encoding)
    options = [_named("header", exp.true()), _named("auto_detect", exp.false())]
    tail = [_named("encoding", _literal(encoding)), _named("strict_mode", exp.true()),
            _named("null_padding", exp.false())]
    if by_line and plain is not None and sep == ",":
        line = _fresh("__c45rules_line", set(header))
        # one column: a NUL (no plain line has one) as the separator, no quotes (nor has it those)
        call = exp.ReadCSV(this=_literal(str(scan)), expressions=[
            *options, _named("columns", exp.Struct(expressions=[
                exp.PropertyEQ(this=_literal(line), expression=_literal("VARCHAR"))])),
            _named("delim", exp.Anonymous(this="chr", expressions=[exp.Literal.number(0)])),
            _named("quote", _literal("")), _named("escape", _literal("")), *tail])
        return _line_source(exp.Table(this=call), header, line, str(path)), header, records, line
    # the header's names given as the columns, so that DuckDB neither guesses nor renames any
    columns = exp.Struct(expressions=[exp.PropertyEQ(this=_literal(h), expression=_literal("VARCHAR"))
                                      for h in header])
    call = exp.ReadCSV(this=_literal(str(scan)), expressions=[
        *options, _named("columns", columns), _named("delim", _literal(sep)), _named("quote", _literal('"')),
        _named("escape", _literal('"')), *tail])
    return exp.Table(this=call), header, records, None


def _line_source(lines: exp.Expression, header: list[str], line: str, source: str) -> exp.Expression:
    """SELECT the `line` column of `lines` (each record of a plain CSV file as one text) and each
    of its cells, named as `header` names them and read as DuckDB's CSV reader reads them.

    Read so, the line is written back as it is, one text column instead of every cell (the CSV
    writer's cost grows with the columns); DuckDB's reader would give each cell as the text
    between two commas, an empty one as NULL, a line of more or fewer cells than the header's
    an error (strict_mode): so does this (the layout check then names the line, score_file).
    """
    parts = _column("__c45rules_cells", None)
    text = _column(line, None)
    split = exp.Anonymous(this="string_split", expressions=[text.copy(), _literal(",")])
    fields = exp.Anonymous(this="len", expressions=[parts.copy()])
    # the line is kept only where it has the header's count of cells: it is written, so this
    # check is made on every row
    kept = exp.Case(ifs=[exp.If(this=exp.EQ(this=fields, expression=exp.Literal.number(len(header))),
                                true=text.copy())],
                    default=_error([_literal(f"{source}: a line without the header's {len(header)} fields")]))
    cells = [exp.alias_(exp.Nullif(this=exp.Anonymous(this="list_extract", expressions=[
        parts.copy(), exp.Literal.number(i + 1)]), expression=_literal("")), name, quoted=True)
        for i, name in enumerate(header)]
    inner = exp.select(text.copy(), exp.alias_(split, parts.name, quoted=True)).from_(lines)
    return exp.Subquery(this=exp.select(exp.alias_(kept, line, quoted=True), *cells).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("__c45rules_lines", quoted=True)))),
        alias=exp.TableAlias(this=exp.to_identifier("__c45rules_cells", quoted=True)))


def _plain_header(path: Path, sep: str, read: ReadOptions) -> tuple[list[str], int] | None:
    """(header, records after it) of a UTF-8 or Latin-1 CSV file each of whose lines is one
    record (lines.plain_lines) and whose names are distinct; None for any other file.

    Such a file's record count is its line count, a byte scan instead of the layout check's
    field count per line: a line of too many or too few fields DuckDB refuses itself
    (strict_mode), and the layout check then names it as the default engine does (score_file).
    """
    if ENCODINGS.get(codecs.lookup(read.encoding).name) not in ("utf-8", "latin-1"):
        return None
    lines = plain_lines(path)
    if lines is None:
        return None
    try:
        with open(path, newline="", encoding=read.text_encoding) as text:
            header = next(csv.reader(text, delimiter=sep), None)
    except (UnicodeDecodeError, csv.Error):
        return None
    if not header or len(set(header)) != len(header):
        return None   # the layout check names the problem
    newlines, ends_with_one = lines
    return header, newlines - 1 + (not ends_with_one)


_BLANK = re.compile(rb"\n\r?\n")
_CHUNK = 1 << 24


def _refuse_blank_lines(path: Path) -> None:
    """InputError naming the first blank line: the default engine reads one as a record of
    unknown values, DuckDB's reader skips it, so the outputs would differ by a row."""
    lines, tail = 1, b""
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            data = tail + chunk
            found = _BLANK.search(data)
            if found:
                line = lines + data.count(b"\n", 0, found.start()) + 1
                raise InputError(f"{path}:{line}: a blank line, which the default engine reads as a record of"
                                 " unknown values and DuckDB skips: remove it, or score with the default engine")
            keep = 2   # a blank line may straddle two chunks
            lines += data.count(b"\n", 0, len(data) - keep)
            tail = data[-keep:]


def _literal_name(path: Path, directory: str) -> Path:
    """A name of file `path` that DuckDB reads as it is: a link in our own `directory`.

    DuckDB's readers take `*`, `?` and `[...]` in a name as a glob pattern (`g[1].csv` would
    read g1.csv) and have no switch to read a name literally in every version.
    """
    link = Path(directory) / f"input{path.suffix.lower()}"
    if glob.has_magic(str(link)):
        raise InputError(f"{path}: the temporary directory {directory} has a glob character in its name,"
                         " which DuckDB would expand: set TMPDIR to another directory")
    try:
        os.symlink(path.resolve(), link)
    except OSError as e:
        raise InputError(f"{path}: cannot link it for DuckDB to read ({e.strerror})") from None
    return link


def _parquet_source(con, scan: Path) -> tuple[exp.Expression, dict[str, str]]:
    """The read_parquet call of `scan` and {column: DuckDB type}."""
    call = exp.Table(this=exp.Anonymous(this="read_parquet", expressions=[_literal(str(scan))]))
    described = con.execute(f"DESCRIBE SELECT * FROM {call.sql(dialect=DIALECT)}").fetchall()
    return call, {str(row[0]): str(row[1]) for row in described}


def _is_text(kind: str) -> bool:
    return kind == "VARCHAR"


def _is_number(kind: str) -> bool:
    return kind.split("(")[0] in _NUMERIC_TYPES


def _error(message: list[exp.Expression]) -> exp.Expression:
    """`error(...)`: stops the query with the concatenated message."""
    text = message[0]
    for part in message[1:]:
        text = exp.DPipe(this=text, expression=part)
    return exp.Anonymous(this="error", expressions=[text])


def _in(cell: exp.Expression, texts: frozenset[str] | tuple[str, ...]) -> exp.Expression:
    return exp.In(this=cell.copy(), expressions=[_literal(t) for t in sorted(texts)])


def _number(name: str, kind: str, read: ReadOptions, source: str, bad_cells: str, raw: str,
            fast: exp.Expression | None) -> tuple[exp.Expression | None, exp.Expression, exp.Expression | None]:
    """(the number of a text cell, to be computed once as column `raw`, or None; the column as
    DOUBLE, NULL when unknown; the test of a cell that is not a number, or None).

    A text cell is read by the exported SQL's own reading (export.sql.sql_as_number, which
    follows data/numbers.py), or, given `fast` (the row's `_odd` flag), by `_fast_number`,
    which this DuckDB has been found to read the same (`_fast_agrees`); with `bad_cells`
    "unknown" any other text that is
    not an unknown token is NULL too.
    """
    cell = _column(name, None)
    if _is_number(kind):
        value = exp.cast(cell, "DOUBLE")
        # a NaN in a numeric column is unknown, as pandas reads a float column
        nan = exp.Anonymous(this="isnan", expressions=[value.copy()])
        return None, exp.Case(ifs=[exp.If(this=nan, true=exp.null())], default=value), None
    if not _is_text(kind):
        raise InputError(f"{source}: column {name!r} has type {kind}: a continuous attribute needs numbers"
                         " or text")
    text = cell if read.decimal == "." else exp.Anonymous(
        this="translate", expressions=[cell, _literal(",."), _literal(".,")])
    number = _fast_number(text, fast) if fast is not None else sql_as_number(text, DIALECT)   # NULL if no number
    value = _column(raw, None)
    is_null = exp.Is(this=value.copy(), expression=exp.null())
    # the unknown tokens are tested only where they can matter: on a number, the (rare) tokens
    # that read as one; on any other cell, all of them (a CASE tests a WHEN on the rows left)
    numeric = frozenset(t for t in read.tokens if number_or_none(t.translate(_SWAP) if read.decimal == "," else t)
                        is not None)
    read_as = exp.Case(ifs=[exp.If(this=_in(cell, numeric), true=exp.null())], default=value.copy()) if numeric \
        else value.copy()
    if bad_cells == "unknown":
        return number, read_as, None
    unknown = exp.or_(exp.Is(this=cell.copy(), expression=exp.null()), _in(cell, read.tokens))
    bad = exp.Case(ifs=[exp.If(this=is_null.copy(), true=exp.not_(unknown))], default=exp.false())
    # no error() here: a CASE evaluates a rule's test only for the rows no earlier rule
    # decided, so the check runs in its own, always evaluated, place (see scoring_query)
    head, tail = engine_bad_cell(source, name)
    return number, read_as, exp.If(this=bad, true=_error([_literal(head), cell.copy(), _literal(tail)]))


_ODD = ("_", "+-")   # what DuckDB's cast reads as part of a number and data/numbers.py does not


def _odd(cells: list[exp.Expression]) -> exp.Expression:
    """Whether any of the text `cells` holds one of _ODD: searched once in the row's cells
    joined (concat skips NULL), a fifth of the cost of searching each cell. Joining can make a
    '+-' of two cells ('1+', '-2'), never hide one: a true flag only sends the row's cells to
    the exact test of each (`_fast_number`)."""
    joined = exp.Anonymous(this="concat", expressions=[c.copy() for c in cells]) if len(cells) > 1 else cells[0].copy()
    return exp.or_(*(exp.Anonymous(this="contains", expressions=[joined.copy(), _literal(bad)]) for bad in _ODD))


def _fast_number(text: exp.Expression, odd: exp.Expression) -> exp.Expression:
    """A VARCHAR cell as DOUBLE by DuckDB's own cast, which reads every text of data/numbers.py's
    grammar as float() does (white space around, the correctly rounded double), and beyond it
    (DuckDB 2.0, all texts of up to 5 characters tried) only 'inf', 'nan', 'infinity' (not
    finite: refused here), digits grouped by `_` and a sign `+-` (refused here, tested in the
    cell only where `odd`, the row's `_odd` flag, holds): a fraction of the regular
    expression's cost (sql_as_number). Used only where `_fast_agrees` finds it so in the
    running DuckDB."""
    value = exp.TryCast(this=text.copy(), to=exp.DataType.build("DOUBLE"))
    plain = exp.and_(exp.Anonymous(this="isfinite", expressions=[value]),
                     exp.not_(exp.and_(odd.copy(), exp.paren(_odd([text]), copy=False))))
    return exp.Case(ifs=[exp.If(this=plain, true=value.copy())])


# texts at the edges of the grammar and of DuckDB's reading (sign, point, exponent, white space,
# words, digit grouping, other bases, other scripts' digits and spaces, range), probed at every run
_PROBES = ("0", "1", "-1", "+1", "1.", ".5", "+.5", "-.5", ".", "-", "+", "", " ", "1e5", "1E+05", "1e-5",
           "1e", "1e+", "e5", ".e5", "1.e5", "1.5e", "1e1.5", "1.2.3", "++1", "-+1", "+-1", " +-1", "+-.5e1", "1e+-5", "1-", "1+1",
           " 1", "1 ", "\t1\n", "\v1\f", "\r1", "1 2", "1,5", "1_000", "_1", "1_", "1__0",
           "1e1_0", "0x10", "0X1A", "0b1", "0o7", "1d", "1f", "1L", "1j", "inf", "-inf", "+inf", "Inf",
           "infinity", "-Infinity", "nan", "NaN", "-nan", "1e308", "1.8e308", "1e999", "-1e999", "1e-400",
           "2.2250738585072014e-308", "4.9e-324", "0.1", "00012.500", "9007199254740993",
           "0.30000000000000004", "\u0661", "\uff11", "1\u00a0", "\u20001", "\u30001", "1\u2028")


def _fast_agrees(con) -> bool:
    """Whether `_fast_number` reads each of _PROBES as sql_as_number does in this DuckDB."""
    cell = exp.column("p")
    differ = exp.select(exp.func("count", exp.Star())).from_(exp.Table(this=exp.Anonymous(
        this="unnest", expressions=[exp.Array(expressions=[_literal(p) for p in _PROBES])]), alias=exp.TableAlias(
        this=exp.to_identifier("probes"), columns=[exp.to_identifier("p")]))).where(
        exp.NullSafeNEQ(this=_fast_number(cell, _odd([cell])), expression=sql_as_number(cell, DIALECT)))
    return con.execute(differ.sql(dialect=DIALECT)).fetchone()[0] == 0


_SWAP = str.maketrans(",.", ".,")


def _unseen(name: str, values: tuple[str, ...], read: ReadOptions, source: str) -> exp.If:
    """With --strict: stop at a discrete text cell that is neither a known value nor unknown."""
    cell = _column(name, None)
    known = frozenset(values) | read.tokens
    test = exp.and_(exp.not_(exp.Is(this=cell, expression=exp.null())), exp.not_(_in(cell, known)))
    return exp.If(this=test, true=_error([
        _literal(f"{source}: column {name!r}: value '"), cell.copy(),
        _literal("' was not seen in training (such values match no test unless scoring is strict)")]))


def scoring_query(ruleset: RuleSet, source: exp.Expression, kinds: dict[str, str], *, source_name: str,
                  prediction_column: str, rule_column: str, confidence_column: str | None = None,
                  read: ReadOptions = DEFAULT_READ, strict: bool = False, bad_cells: str = "error",
                  fast: bool = False) -> exp.Select:
    """SELECT every input column, the class, the rule id and (if named) the confidence from `source`,
    whose columns and their DuckDB types are `kinds`; `fast`: text cells read by `_fast_number`
    (the steps: `_scoring`)."""
    scored = _scoring(ruleset, source, kinds, source_name=source_name, prediction_column=prediction_column,
                      rule_column=rule_column, confidence_column=confidence_column, read=read, strict=strict,
                      bad_cells=bad_cells, fast=fast)
    return exp.select(*[_column(name, None) for name in kinds], *scored.outputs).from_(scored.stage)


class _Scored(NamedTuple):
    stage: exp.Expression          # the last step: the source's columns and the rule's position
    position: str                  # the name of that position's column (0: the default decision)
    decisions: int                 # the number of positions
    outputs: list[exp.Expression]  # the class, rule id (and confidence) columns, read from the position


def _scoring(ruleset: RuleSet, source: exp.Expression, kinds: dict[str, str], *, source_name: str,
             prediction_column: str, rule_column: str, confidence_column: str | None = None,
             read: ReadOptions = DEFAULT_READ, strict: bool = False, bad_cells: str = "error",
             fast: bool = False, line: str | None = None) -> _Scored:
    """The steps of scoring_query; `line`: the name of a column of `source` that holds each
    record's text as read (a plain CSV line, all of its cells), in which the odd texts are
    searched instead of in the number cells joined.

    Steps, each a SELECT over the one before: with `fast`, whether the row's number cells hold
    a text DuckDB reads as a number and data/numbers.py does not (`_odd`); each text cell's
    number once; the tested columns as DOUBLE; each distinct rule test once (export.sql.shared_tests:
    many rules share a test); the first rule whose tests all hold, as its
    position in the rule list (export.sql_decision.decision_case: nested CASEs that split on
    the tests), from which the outputs are read as list elements (no CASE over the rule ids).
    """
    used = ruleset.used_attributes()
    missing = [a.name for a in ruleset.schema.attributes if a.name in used and a.name not in kinds]
    if missing:
        raise InputError(f"{source_name}: column {missing[0]!r} is missing"
                         f" (the model needs: {', '.join(sorted(used))})")
    outputs = [(prediction_column, "prediction_column"), (rule_column, "rule_column")]
    if confidence_column is not None:
        outputs.append((confidence_column, "confidence_column"))
    for i, (name, flag) in enumerate(outputs):
        if not name:
            raise InputError(f"{flag}: the output column name cannot be empty", params=(flag,))
        if name in kinds:
            raise InputError(f"{source_name}: the input already has a column {name!r}; name the output"
                             f" column differently with {flag}=NAME", params=(flag,))
        for other, other_flag in outputs[:i]:
            if name == other:
                raise InputError(f"{other_flag} and {flag} are both {name!r}", params=(other_flag, flag))
    typed: list[exp.Expression] = [exp.Star()]
    renamed: dict[str, exp.Expression] = {}
    checks: list[exp.If] = []
    numbers: list[exp.Expression] = []   # each text cell's number, computed once
    taken = set(kinds) | ({line} if line else set())
    read_cells = [_column(a.name, None) for a in ruleset.schema.attributes
                  if a.is_continuous and a.name in kinds and _is_text(kinds[a.name])]
    odd = _column(_fresh("__c45rules_odd", taken), None) if fast and read_cells else None
    if line is not None:   # a line holds each of its cells, and no '+-' across two (a comma between)
        read_cells = [_column(line, None)]
    # every attribute column present is read, tested by the rules or not, as encode_frame reads
    # them: a cell that is not a number stops the run, and so does (--strict) an unseen value
    for a in ruleset.schema.attributes:
        if a.name not in kinds or not (a.name in used or a.is_continuous or (strict and a.is_discrete)):
            continue
        if a.is_continuous:
            raw = _fresh(f"__c45rules_n{len(numbers)}", taken)
            number, read_as, bad = _number(a.name, kinds[a.name], read, source_name, bad_cells, raw, odd)
            if number is not None:
                numbers.append(exp.alias_(number, raw, quoted=True))
            if bad is not None:
                checks.append(bad)
            if a.name in used:
                renamed[a.name] = _column(_fresh(f"__c45rules_{len(renamed)}", taken), None)
                typed.append(exp.alias_(read_as, renamed[a.name].name, quoted=True))
        elif not _is_text(kinds[a.name]):
            raise InputError(f"{source_name}: column {a.name!r} has type {kinds[a.name]}: the DuckDB engine"
                             " compares discrete attributes as text (cast the column to text, or use the"
                             " default engine)")
        elif strict:
            checks.append(_unseen(a.name, a.values, read, source_name))

    # the tested continuous columns are DOUBLE already (`_number`, by data/numbers.py's rule)
    tests, rules, catch_all = shared_tests(ruleset, DIALECT, typed=renamed)
    names = [_fresh(f"__c45rules_t{i}", taken) for i in range(len(tests))]
    tested = [exp.Star(), *(exp.alias_(test, name, quoted=True) for test, name in zip(tests, names))]
    # each test computed once a row as a column; the CASEs that split on them read booleans
    position = decision_case(tests, [positions for positions, _ in rules],
                             written=[_column(name, None) for name in names]) if rules else exp.Literal.number(0)
    # the first WHEN of a CASE is tested on every row, so every check runs on every row
    checked = exp.Case(ifs=[c.copy() for c in checks], default=position) if checks else position
    position_name = _fresh("__c45rules_rule", taken)
    stage = source
    for step in ([exp.Star(), exp.alias_(_odd(read_cells), odd.name, quoted=True)] if odd is not None else None,
                 [exp.Star(), *numbers] if numbers else None, typed, tested,
                 [exp.Star(), exp.alias_(checked, position_name, quoted=True)]):
        if step is not None:
            stage = exp.Subquery(this=exp.select(*step).from_(stage), alias=exp.TableAlias(
                this=exp.to_identifier(_fresh("__c45rules_step", taken), quoted=True)))
    at = exp.Add(this=_column(position_name, None), expression=exp.Literal.number(1))   # lists count from 1

    def of_rule(output: str) -> exp.Expression:
        values = decision_values(ruleset, [rule for _, rule in rules], catch_all, DIALECT, output)
        return exp.Anonymous(this="list_extract", expressions=[exp.Array(expressions=values), at.copy()])

    outputs = [exp.alias_(of_rule("class"), prediction_column, quoted=True),
               exp.alias_(exp.cast(of_rule("rule"), "BIGINT"), rule_column, quoted=True)]
    if confidence_column is not None:
        outputs.append(exp.alias_(exp.cast(of_rule("confidence"), "DOUBLE"), confidence_column, quoted=True))
    return _Scored(stage, position_name, len(rules) + 1, outputs)


def _written_decisions(con, scored: _Scored, kinds: dict[str, str], written: Callable[[exp.Expression], exp.Select],
                       options: str, directory: str) -> tuple[str, list[str]] | None:
    """(the header line, then for each decision position the text after an input line's cells,
    its leading comma included) that COPY ... TO (`options`) writes for query `written` over
    `scored`'s rules; None when a decision's text holds a line break (the query then writes
    more than one line per decision).

    COPY writes them itself, from a row of unknown (NULL: no text) input cells per position,
    so they are the texts it writes for any input (a class quoted or escaped, a confidence's
    digits) and are written beside a line kept as read (score_file).
    """
    at = _column("__c45rules_i", "__c45rules_decisions")
    positions = exp.select(*[exp.alias_(exp.cast(exp.null(), "VARCHAR"), name, quoted=True) for name in kinds],
                           exp.alias_(at, scored.position, quoted=True)).from_(exp.Table(
        this=exp.Anonymous(this="range", expressions=[exp.Literal.number(scored.decisions)]),
        alias=exp.TableAlias(this=exp.to_identifier("__c45rules_decisions", quoted=True),
                             columns=[exp.to_identifier("__c45rules_i", quoted=True)])))
    target = Path(directory) / "decisions.csv"
    query = written(exp.Subquery(this=positions, alias=exp.TableAlias(
        this=exp.to_identifier("__c45rules_positions", quoted=True))))
    con.execute(f"COPY ({query.sql(dialect=DIALECT, identify=True)}) TO"
                f" {exp.Literal.string(str(target)).sql(dialect=DIALECT)} ({options})")
    head, *rows = target.read_bytes().decode("utf-8").split("\n")[:-1]
    cells = "," * len(kinds)   # the unknown input cells: no text, each before a comma
    if len(rows) != scored.decisions or not all(row.startswith(cells) for row in rows):
        return None
    return head, [row[len(kinds) - 1:] for row in rows]


def _outputs(query: exp.Select) -> list[str]:
    """The names of the columns scoring_query adds after the input's."""
    return [e.alias for e in query.expressions if isinstance(e, exp.Alias)]


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def writer_memory_limit(columns: int, threads: int) -> int:
    """The memory_limit, in bytes, with which DuckDB's batch writer runs `threads` threads over
    rows of `columns` columns (at least MEMORY_LIMIT, at most 80% of this machine's memory, DuckDB's
    own default). Below it the writer takes fewer threads, and at one the whole query, read and
    decision included, runs on one core whatever `threads` says."""
    wanted = _WRITER_SHARE * _WRITER_MIB_PER_COLUMN * _MIB * max(columns, 1) * max(threads, 1)
    least = int(MEMORY_LIMIT.removesuffix("MB")) * _MIB
    try:
        most = int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * 0.8)
    except (AttributeError, ValueError, OSError):
        most = wanted
    return max(least, min(wanted, most))


def score_file(ruleset: RuleSet, data: str | os.PathLike, output: str | os.PathLike, *, fmt: str = "csv",
               prediction_column: str = "predicted_class", rule_column: str = "rule_id",
               confidence_column: str | None = None, read: ReadOptions | None = None,
               strict: bool = False, memory_limit: str | None = None, threads: int | None = None,
               bad_cells: str = "error", csv_safe: bool = True) -> int:
    """Score CSV/TSV or Parquet file `data` into `output` (CSV or Parquet) inside DuckDB; the rows written.

    `bad_cells` as encode_frame's: "error" raises BadCell (its row None: DuckDB does not tell
    it; cli/cases.locate_bad_cell finds it), "unknown" reads such a cell as NULL. `csv_safe`:
    a CSV's class column escapes a class a spreadsheet would run as a formula (data/spreadsheet.py).
    `memory_limit` (DuckDB's text, such as "2GB"): by default writer_memory_limit of the output's
    columns and DuckDB's threads, so that COPY writes on every thread.
    """
    try:
        import duckdb
    except ImportError:
        raise InputError("the DuckDB engine needs the duckdb package (pip install 'c45rules[duckdb]')") from None
    read = read or DEFAULT_READ
    check_bad_cells(bad_cells)
    path = data_file(data)
    if fmt not in ("csv", "parquet"):
        raise InputError(f"fmt must be 'csv' or 'parquet', not {fmt!r}", params=("fmt",))
    checked_target(output)
    # DuckDB spills what passes memory_limit to temp_directory, by default '.tmp' in the working
    # directory: a directory of our own instead, removed afterwards
    spill = tempfile.mkdtemp(prefix="c45rules-duckdb-")
    con = duckdb.connect(config={"memory_limit": memory_limit or MEMORY_LIMIT, "preserve_insertion_order": True,
                                 "temp_directory": spill, **({"threads": threads} if threads else {})})
    try:
        suffix = path.suffix.lower()
        records, line = None, None
        if suffix in CSV_SUFFIXES:
            source, header, records, line = _csv_source(path, _literal_name(path, spill), read,
                                                        by_line=fmt == "csv")
            kinds = {h: "VARCHAR" for h in header}
        elif suffix in PARQUET_SUFFIXES:
            if read.sep is not None or read.decimal != "." or read.encoding != "utf-8":
                raise InputError(f"{path}: sep, decimal and encoding are for CSV files, not Parquet",
                                 params=("sep", "decimal", "encoding"))
            source, kinds = _parquet_source(con, _literal_name(path, spill))
        else:
            raise InputError(f"{path}: the DuckDB engine reads .csv, .tsv, .parquet or .pq files"
                             " (use the default engine for C4.5 .data/.test files)")
        scored = _scoring(ruleset, source, kinds, source_name=str(path),
                          prediction_column=prediction_column, rule_column=rule_column,
                          confidence_column=confidence_column, read=read, strict=strict,
                          bad_cells=bad_cells, fast=_fast_agrees(con), line=line)
        escaped = escapes(ruleset.schema.classes) if csv_safe and fmt == "csv" else {}

        def written(stage: exp.Expression) -> exp.Select:
            """The input columns and the outputs over `stage`, the class column escaped."""
            query = exp.select(*[_column(name, None) for name in kinds], *scored.outputs).from_(stage)
            if not escaped:
                return query
            safe = escaped_sql(_column(prediction_column, None), escaped)
            return exp.select(*[exp.alias_(safe, prediction_column, quoted=True) if name == prediction_column
                                else _column(name, None) for name in [*kinds, *_outputs(query)]]).from_(
                exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier("scored", quoted=True))))

        options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true, DELIMITER ','"
        by_line = _written_decisions(con, scored, kinds, written, options, spill) if line is not None else None
        if by_line is not None:   # each line as read, then its decision's cells as COPY writes them
            head, ends = by_line
            at = exp.Add(this=_column(scored.position, None), expression=exp.Literal.number(1))
            end = exp.Anonymous(this="list_extract", expressions=[
                exp.Array(expressions=[_literal(e) for e in ends]), at])
            query = exp.select(exp.alias_(exp.DPipe(this=_column(line, None), expression=end), head,
                                          quoted=True)).from_(scored.stage)
            options = "FORMAT csv, HEADER true, QUOTE ''"   # the texts are written as they are
        else:
            query = written(scored.stage)
        if memory_limit is None:   # the output's width is known now
            workers = int(con.execute("SELECT current_setting('threads')").fetchone()[0])
            limit = writer_memory_limit(len(query.expressions), workers)
            con.execute(f"SET memory_limit = '{limit // _MIB}MiB'")
        # atomic_path gives a temp file already: DuckDB's own (tmp_NAME, then renamed) is not needed
        options = "USE_TMP_FILE false, " + options
        with atomic_path(output) as tmp:
            target = exp.Literal.string(str(tmp)).sql(dialect=DIALECT)
            try:
                result = con.execute(f"COPY ({query.sql(dialect=DIALECT, identify=True)}) TO {target}"
                                     f" ({options})").fetchone()
            except duckdb.Error as e:
                error = _error_of(e, path, ruleset)
                if records is not None and not isinstance(error, BadCell):
                    check_csv_layout(path, read.separator(path), read.encoding)   # names a layout error
                    if line is not None:   # read by line, a blank line is a line of no cell
                        _refuse_blank_lines(path)
                raise error from None
            rows = int(result[0]) if result else 0
            if records is not None and rows != records:   # raised here, the output is not written
                check_csv_layout(path, read.separator(path), read.encoding)
                _refuse_blank_lines(path)   # the likeliest cause, named with its line
                raise InputError(f"{path}: DuckDB read {rows} rows where the default engine reads {records}"
                                 " (quoting DuckDB reads otherwise, such as a line break in a quoted header"
                                 " cell): score with the default engine")
        return rows
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def _error_of(error: Exception, path: Path, ruleset: RuleSet) -> InputError:
    """DuckDB's error as one line: a bad cell's (error() in the query) a BadCell, another of
    ours (naming the file) as it is, any other (a CSV its reader cannot parse, say) after the
    file's name."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    for prefix in ("Invalid Input Error: ", "Conversion Error: ", "IO Error: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text.startswith(f"{path}: "):
        return engine_bad_cell_of(text, str(path), ruleset.schema) or InputError(text)
    return InputError(f"{path}: DuckDB cannot read it: {text} (the default engine may: score with it)")
