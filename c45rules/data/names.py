"""Read Quinlan's C4.5 format: STEM.names (schema), STEM.data / STEM.test (cases). Spec 1."""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .._lazy import LazyModule
from ..errors import InputError
from ..workers import give_back_memory, resolve_jobs, thread_map
from .distinct import factorize, first_positions, is_missing
from .numbers import parse_number_texts
from .schema import UNKNOWN_CODE, UNSEEN_CODE, Attribute, Dataset, Schema, check_single_precision
from .spreadsheet import warn_formula_values

try:
    from . import _cells as _native_cells
except ImportError:     # pragma: no cover - depends on the install
    _native_cells = None

pd = LazyModule("pandas")

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
        return raw.decode("utf-8").removeprefix("\ufeff")   # a byte order mark is no text (as utf-8-sig)
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
            if "?" in values:
                raise InputError(f"{path}:{line}: attribute {name!r} lists the value '?', which"
                                 " means unknown and cannot be a value")
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
    # the class has no name in C4.5 files; it names the class column of their cases as text
    # (predict's output, --names CSVs), so it must not be an attribute's name too
    target = "class"
    while target in names:
        target = "_" + target
    return _PendingSchema(tuple(attributes), tuple(classes), target)


class _PendingSchema(Schema):
    """A schema whose `discrete N` attributes still need their values from the data."""

    def __post_init__(self) -> None:  # value lists are validated once complete
        pass


# A plain data file (no escape, comment, NUL or lone CR) is cut into cells by numpy on
# its bytes, in chunks of lines; each column is kept as codes into its distinct cell texts,
# so no Python string is made per cell. Every rule of the general splitter below is then
# applied to the distinct texts only (spec 1), which is why the two paths agree exactly.
# 4 MB: a chunk's masks, offsets and copies peaked at 12x its size, 100 MB of the
# 136 MB peak on synth_100k with 8 MB chunks (issue 33); smaller chunks cost more calls
_CHUNK_BYTES = 1 << 22
# from this size a file's cells are coded by pandas' hashing, whose import (0.3 s) then pays
HASH_FILE_BYTES = 4 << 20
# (codes into values, -1 = missing; the values as an object array, or as a numpy str array
# where a plain file's columns wait to be encoded: see _plain_cells)
Coded = tuple[np.ndarray, np.ndarray]


def _chunk_cells(chunk: bytes, ncols: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(starts, ends) offsets of the cells of whole lines, one row per case; None if not plain."""
    if (b"\\" in chunk or b"|" in chunk or b"\0" in chunk
            or chunk.count(b"\r") != chunk.count(b"\r\n")):
        return None
    buf = np.frombuffer(chunk, np.uint8)
    # one mask, or-ed in place: a chunk's byte masks were three chunk-sized arrays at once
    mask = buf == ord(",")
    mask |= buf == ord("\n")
    # offsets into a chunk (of whole lines: a longer one only for a line over 2 GB) fit in
    # 32 bits, half the memory of numpy's default int64
    delim = np.flatnonzero(mask).astype(np.int32 if len(chunk) < 2**31 else np.int64)
    del mask
    newline = np.flatnonzero(buf[delim] == ord("\n"))
    commas = np.diff(newline, prepend=-1) - 1
    line_end = delim[newline]
    line_start = np.concatenate(([0], line_end[:-1] + 1)).astype(delim.dtype)
    case = commas == ncols - 1
    if not case.all():
        other = np.flatnonzero(~case)
        if commas[other].any():
            return None
        for i in other[line_end[other] > line_start[other]]:   # a line of blanks is skipped
            try:
                if chunk[line_start[i]: line_end[i]].decode("utf-8").strip():
                    return None
            except UnicodeDecodeError:
                return None
    ends = delim[np.repeat(case, commas + 1)].reshape(-1, ncols)
    del delim
    starts = np.empty_like(ends)
    starts[:, 0] = line_start[case]
    starts[:, 1:] = ends[:, :-1] + 1
    return starts, ends


def _factorize_rows(words: np.ndarray, hashed: bool) -> np.ndarray:
    """Codes of the distinct rows of a 2-D uint64 array, numbered in order of first appearance."""
    codes, _ = factorize(words[:, 0], hashed)
    for k in range(1, words.shape[1]):
        more, uniq = factorize(words[:, k], hashed)
        codes, _ = factorize(codes * len(uniq) + more, hashed)
    return codes


_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _cell_words(padded: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Each cell's bytes as little-endian uint64 words, zero beyond its end (a plain file has no NUL)."""
    nwords = max(1, -(-int((ends - starts).max(initial=0)) // 8))
    # every offset read as the 8 bytes from there: one unaligned load per word of a cell
    window = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    words = np.empty((len(starts), nwords), dtype=np.uint64)
    last = len(window) - 1   # only a word wholly past a cell's end is clipped, and it is masked out
    for k in range(nwords):
        words[:, k] = window[np.minimum(starts + 8 * k, last)] & _LOW_BYTES[np.clip(ends - starts - 8 * k, 0, 8)]
    return words


def line_chunks(path: Path, lo: int = 0, hi: int | None = None) -> Iterator[bytes]:
    """The file in pieces of whole lines, the last one given its missing final newline; with
    `lo`/`hi`, only the lines that start at a byte in [lo, hi)."""
    try:
        with open(path, "rb") as f:
            if lo:
                f.seek(lo - 1)
                f.readline()        # the line holding byte lo - 1 is the previous part's
            at, carry = f.tell(), b""       # `at`: where `carry` starts in the file
            while block := f.read(_CHUNK_BYTES):
                data = carry + block
                if hi is not None:
                    if hi <= at:
                        return
                    # the line that starts last before hi ends at the first newline from hi - 1
                    end = data.find(b"\n", hi - at - 1)
                    if end >= 0:
                        yield data[:end + 1]
                        return
                cut = data.rfind(b"\n") + 1
                if cut:
                    yield data[:cut]
                carry = data[cut:]
                at += cut
            if carry:
                yield carry + b"\n"
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None


def _plain_cells(path: Path, ncols: int, compiled: bool = True, jobs: int = 1) -> list[Coded] | None:
    """The raw text cells of a plain data file, column by column; None if it is not plain.
    `compiled`: by the compiled cutter when it is built (the same cells, 2 s less at 1M cases)."""
    if ncols < 2:
        return None
    if compiled and _native_cells is not None:
        return _cut_cells(path, ncols, jobs)
    local: list[list[np.ndarray]] = [[] for _ in range(ncols)]
    uniques: list[list[np.ndarray]] = [[] for _ in range(ncols)]
    try:
        hashed = path.stat().st_size >= HASH_FILE_BYTES
    except OSError:
        hashed = False   # line_chunks says what is wrong with the path
    for k, chunk in enumerate(line_chunks(path)):
        if k == 0:
            chunk = chunk.removeprefix(b"\xef\xbb\xbf")   # a byte order mark (as _read_text)
        cells = _chunk_cells(chunk, ncols)
        if cells is None:
            return None
        padded = chunk + bytes(8)
        for j in range(ncols):
            words = _cell_words(padded, cells[0][:, j], cells[1][:, j])
            codes = _factorize_rows(words, hashed)
            first = first_positions(codes)
            local[j].append(codes.astype(np.int16 if len(first) < 2**15 else np.int32))
            uniques[j].append(words[first])
    columns: list[Coded] = []
    for j in range(ncols):
        nwords = max((u.shape[1] for u in uniques[j]), default=1)
        merged = np.concatenate([np.pad(u, ((0, 0), (0, nwords - u.shape[1]))) for u in uniques[j]]
                                or [np.zeros((0, nwords), np.uint64)])
        glob = _factorize_rows(merged, hashed) if len(merged) else np.zeros(0, np.int64)
        first = first_positions(glob)
        glob = glob.astype(np.int16 if len(first) < 2**15 else np.int32)
        offsets = np.cumsum([0] + [len(u) for u in uniques[j]])
        codes = np.concatenate([glob[offsets[c]:][chunk] for c, chunk in enumerate(local[j])]
                               or [np.zeros(0, glob.dtype)])
        local[j] = uniques[j] = []
        # the distinct texts as a numpy str array, not Python strings: every column's strings
        # alive at once (300k at 100k cases) left pymalloc arenas pinned by a few survivors,
        # 10 MB resident under the learning; each column becomes objects when it is encoded
        try:
            values = np.char.decode(merged[first].view(f"S{8 * nwords}").reshape(-1), "utf-8")
        except UnicodeDecodeError:
            return None
        columns.append((codes, values))
    return columns


def _cut_cells(path: Path, ncols: int, jobs: int = 1) -> list[Coded] | None:
    """_plain_cells by the compiled cutter (data/_cells.c): each cell looked up in its column's
    table of distinct texts as the lines are cut; with `jobs` > 1, a large file's parts cut in
    threads (the cutter lets go of the GIL) and their tables joined."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0    # line_chunks says what is wrong with the path
    parts = max(1, min(resolve_jobs(jobs), size // _SPLIT_READ_BYTES))
    bounds = [size * i // parts for i in range(parts + 1)]
    cutters = thread_map(lambda i: _cut_part(path, ncols, bounds[i], bounds[i + 1] if i + 1 < parts else None),
                         parts, parts)
    if any(c is None for c in cutters):
        return None
    columns: list[Coded] = []
    for j in range(ncols):
        codes, texts = _joined_column([c.column(j) for c in cutters])
        values = _decoded(texts)
        del texts
        if values is None:
            return None
        columns.append((codes, values))
    return columns


def _decoded(texts: list[bytes]) -> np.ndarray | None:
    """A cutter column's distinct raw texts as numpy text (as _plain_cells keeps them until a
    column is encoded), or None when one is not UTF-8 (the general reader names it)."""
    try:
        return np.char.decode(np.array(texts, dtype=bytes), "utf-8") if texts else np.array([], dtype=str)
    except UnicodeDecodeError:
        return None


# from this size a file's parts are cut in threads with -j (synth_1m's 146 MB: 1.1 s of cutting)
_SPLIT_READ_BYTES = 32 << 20


def _cut_part(path: Path, ncols: int, lo: int, hi: int | None):
    """A cutter fed the lines of `path` that start in [lo, hi) (None if they are not plain)."""
    cutter = _native_cells.Cutter(ncols)
    for k, chunk in enumerate(line_chunks(path, lo, hi)):
        if k == 0 and lo == 0:
            chunk = chunk.removeprefix(b"\xef\xbb\xbf")   # a byte order mark (as _read_text)
        if not _fed(cutter, chunk):
            return None
    return cutter


def _fed(cutter, chunk: bytes) -> bool:
    """Feed `chunk` (whole lines) to `cutter`: False when the lines are not plain."""
    asks = cutter.feed(chunk)
    if asks is None:
        return False
    for start, end in asks:     # comma-free lines beyond ASCII: plain only if blank
        try:
            if chunk[start:end].decode("utf-8").strip():
                return False
        except UnicodeDecodeError:
            return False
    return True


def chunk_cells(path: Path, chunk: bytes, ncols: int, lines: int = 0, at: int = 0) -> list[Coded]:
    """The cells of `chunk`, whole lines of C4.5 data file `path` that start at byte `at` after
    `lines` lines, as coded columns that `_read_cells` would give for them (a streamed read's
    batch: data/batches.py). A plain chunk goes through the compiled cutter, any other through
    the general splitter; the two agree (spec 1), so the chunks may take different paths."""
    if ncols >= 2 and _native_cells is not None:
        cutter = _native_cells.Cutter(ncols)
        if _fed(cutter, chunk):
            cells = [_joined_column([cutter.column(j)]) for j in range(ncols)]
            values = [_decoded(texts) for _, texts in cells]
            if all(v is not None for v in values):
                return _clean_cells([(codes, v) for (codes, _), v in zip(cells, values)])
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as e:
        line = lines + chunk[: e.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: bytes that are not UTF-8 (at byte {at + e.start})") from None
    frame = _split_lines(path, text, ncols, lines)
    return [_coded(frame.pop(j)) for j in range(ncols)]


def coded_chunks(path: Path, ncols: int) -> Iterator[list[Coded]]:
    """C4.5 data file `path` streamed: the cells of each piece of whole lines (line_chunks)
    holding a case, as chunk_cells codes them (errors name the line and byte in the file)."""
    lines = at = 0
    for k, chunk in enumerate(line_chunks(path)):
        size = len(chunk)
        if k == 0:
            chunk = chunk.removeprefix(b"\xef\xbb\xbf")   # a byte order mark (as _read_text)
        cells = chunk_cells(path, chunk, ncols, lines, at + size - len(chunk))
        lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
        at += size
        if len(cells[0][0]):
            yield cells


def _joined_column(pieces: list[tuple[bytes, int, list[bytes]]]) -> tuple[np.ndarray, list[bytes]]:
    """One column's codes and distinct texts over the parts' cutter.column results, numbered
    by first appearance over the whole file as one cutter numbers them."""
    arrays = [np.frombuffer(raw, dtype=np.int16 if itemsize == 2 else np.int32) for raw, itemsize, _ in pieces]
    texts = pieces[0][2]
    if len(pieces) == 1:
        return arrays[0], texts
    code = {t: i for i, t in enumerate(texts)}
    renumbered = [arrays[0]]
    for (_, _, more), codes in zip(pieces[1:], arrays[1:]):
        for t in more:
            if t not in code:
                code[t] = len(texts)
                texts.append(t)
        renumbered.append(np.array([code[t] for t in more], dtype=np.int32)[codes])
    # 16-bit while the codes fit below 2^15 - 1, as the cutter narrows them
    return np.concatenate(renumbered).astype(np.int16 if len(texts) <= 32767 else np.int32), texts


def _clean_cells(columns: list[Coded]) -> list[Coded]:
    """Apply the general splitter's rules (strip blanks; the last value loses a final '.') to distinct texts."""
    out: list[Coded] = []
    for j, (codes, values) in enumerate(columns):
        # each column's old codes go as its new ones are made: both sets at once were 62 MB
        # more at 1M cases
        columns[j] = None
        texts = [v.strip() for v in values.tolist()]
        if j == len(columns) - 1:
            texts = [t[:-1].rstrip() if t.endswith(".") else t for t in texts]
        new, distinct = factorize(np.array(texts, dtype=object))
        del texts
        # kept as numpy text (see _plain_cells); the str dtype's width is the longest value's
        out.append((new.astype(codes.dtype)[codes], np.array(distinct.tolist(), dtype=str)))
        del codes
    return out


def _texts(values: np.ndarray) -> np.ndarray:
    """A column's distinct values as an object array of Python strings (as the general reader gives them)."""
    return values if values.dtype == object else values.astype(object)


def _split_lines(path: Path, text: str, ncols: int, lines: int = 0) -> pd.DataFrame:
    """Split a C4.5 data file (or its part after `lines` lines) into a frame of raw strings,
    one column per field."""
    rows: list[list[str]] = []
    for lineno, raw in enumerate(_LINE_END.split(text), lines + 1):
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


def _read_cells(path: Path, ncols: int, jobs: int = 1) -> list[Coded]:
    """The cells of a C4.5 data file as coded columns (the plain path when the file allows it;
    `jobs` threads may cut a large one)."""
    cells = _plain_cells(path, ncols, jobs=jobs)
    if cells is not None:
        return _clean_cells(cells)
    frame = _split_lines(path, _read_text(path), ncols)
    return [_coded(frame.pop(j)) for j in range(ncols)]


def read_cases(path: str | os.PathLike, schema: Schema, *, collect: bool = False,
               jobs: int = 1) -> tuple[Dataset, Schema]:
    """Read a `.data`/`.test` file against `schema`; `collect` fills `discrete N` value lists;
    `jobs`: threads that may cut a large file's parts (as `-j`)."""
    path = Path(path)
    cells = _read_cells(path, len(schema.attributes) + 1, jobs)
    got = _cases_from_cells(cells, schema, str(path), collect=collect)
    # the chunks' codes and offsets, freed into the C heap, stayed resident under the
    # learning (30 MB on synth_100k)
    give_back_memory()
    return got


def split_cases(path: str | os.PathLike, ncols: int) -> pd.DataFrame:
    """A C4.5 .data/.test file as a frame of raw text cells, `ncols` per case (checked)."""
    cells = _read_cells(Path(path), ncols)
    return pd.DataFrame({j: pd.Series(_texts(values)[codes], dtype=str) for j, (codes, values) in enumerate(cells)},
                        columns=list(range(ncols)))


def _coded(raw: pd.Series) -> Coded:
    """(codes, distinct values in order of first appearance, a missing value included)."""
    return factorize(np.asarray(raw, dtype=object))


def _unknown(values: np.ndarray) -> np.ndarray:
    """Which distinct cell values are unknown: '?', '' or missing (None/NaN)."""
    return np.array([is_missing(v) or (isinstance(v, str) and v in ("?", "")) for v in values], dtype=bool)


def _numbers(values: np.ndarray, unknown: np.ndarray) -> np.ndarray:
    """The distinct cell texts as numbers (NaN for unknown and for what is not a number as
    numbers.py defines one: no `inf`, `nan`, `1_000`)."""
    out = np.full(len(values), np.nan)
    text = np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=len(values)) & ~unknown
    out[text] = parse_number_texts(values[text])[0]
    return out


def cases_from_frame(frame: pd.DataFrame, schema: Schema, path: str, *, collect: bool = False,
                     lines_are_cases: bool = True) -> tuple[Dataset, Schema]:
    """Encode a frame of raw text cells (columns = attributes in `schema` order, then the class)."""
    cells = [_coded(frame[j]) for j in range(len(schema.attributes) + 1)]
    return _cases_from_cells(cells, schema, path, collect=collect, lines_are_cases=lines_are_cases)


def _cases_from_cells(cells: list[Coded], schema: Schema, path: str, *, collect: bool = False,
                      lines_are_cases: bool = True) -> tuple[Dataset, Schema]:
    """Encode coded text columns; each column's codes are released once it is encoded."""
    ncols = len(schema.attributes) + 1
    if len(cells[0][0]) == 0:
        raise InputError(f"{path}: no cases")
    attributes = list(schema.attributes)
    for j, a in enumerate(attributes):
        if a.is_discrete and a.values[:1] == ("\0discrete",):
            if not collect:
                raise InputError(f"{path}: attribute {a.name!r} has no value list")
            limit = int(a.values[1])
            values = _texts(cells[j][1])   # every value occurs, first seen first
            seen = list(values[~_unknown(values)])
            if len(seen) > limit:
                raise InputError(f"{path}: attribute {a.name!r} declared 'discrete {limit}'"
                                 f" has {len(seen)} values")
            attributes[j] = Attribute(a.name, "discrete", tuple(seen))
    full = Schema(tuple(attributes), schema.classes, schema.target)
    what = "case" if lines_are_cases else "row"
    columns = []
    for j, a in enumerate(attributes):
        columns.append(_encode_cells(cells[j], a, path, what))
        cells[j] = None
    y = _encode_class_cells(cells[ncols - 1], full.classes, f"{path}: {what}", "is not in the class list")
    return Dataset(full, columns, y, path), full


def encode_classes(raw: pd.Series, classes: tuple[str, ...], where: str, problem: str) -> np.ndarray:
    """Class codes of a column of class names, or InputError at the first unknown one."""
    return _encode_class_cells(_coded(raw), classes, where, problem)


def _encode_class_cells(cells: Coded, classes: tuple[str, ...], where: str, problem: str,
                        first: int = 0) -> np.ndarray:
    """Class codes of coded class cells; `first`: the cases before these (a streamed read's batch)."""
    codes, values = cells[0], _texts(cells[1])
    lookup = {c: i for i, c in enumerate(classes)}
    mapped = np.array([lookup.get(v, -1) if isinstance(v, str) else -1 for v in values], dtype=np.int32)
    bad = mapped[codes] < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{where} {first + i + 1}: class {values[codes[i]]!r} {problem} ({', '.join(classes)})")
    return mapped[codes]


def encode_column(raw: pd.Series, a: Attribute, where: str, *, lines_are_cases: bool = False,
                  unseen_ok: bool = False) -> np.ndarray:
    """Encode a column of raw strings for attribute `a` ('?' and '' are unknown)."""
    return _encode_cells(_coded(raw), a, where, "case" if lines_are_cases else "row", unseen_ok=unseen_ok)


def _encode_cells(cells: Coded, a: Attribute, where: str, what: str, *, unseen_ok: bool = False,
                  first: int = 0) -> np.ndarray:
    """encode_column on a coded column: each rule runs once per distinct value (spec 1); `first`:
    the cases before these, for messages (a streamed read's batch)."""
    codes, values = cells[0], _texts(cells[1])
    if a.kind == "ignore":
        return np.zeros(len(codes), dtype=np.int8)
    unknown = _unknown(values)
    if a.is_continuous:
        num = _numbers(values, unknown)
        # the distinct texts first: a case-sized mask only to name the first bad case
        bad = np.isnan(num) & ~unknown
        if bad.any():
            i = int(np.flatnonzero(bad[codes])[0])
            raise InputError(f"{where}: {what} {first + i + 1}: attribute {a.name!r}: {values[codes[i]]!r}"
                             " is not a number")
        column = num[codes]
        if not unseen_ok:
            check_single_precision(column, f"{where}: {what}", f"attribute {a.name!r}", first)
        return column
    lookup = {v: i for i, v in enumerate(a.values)}
    found = np.array([lookup.get(v, -1) if isinstance(v, str) else -1 for v in values], dtype=np.int32)
    bad_value = (found < 0) & ~unknown
    if bad_value.any() and not unseen_ok:
        i = int(np.flatnonzero(bad_value[codes])[0])
        raise InputError(f"{where}: {what} {first + i + 1}: attribute {a.name!r}: value {values[codes[i]]!r}"
                         f" is not one of its declared values")
    res = np.where(found < 0, UNKNOWN_CODE, found).astype(np.int32)
    if unseen_ok:
        res[bad_value] = UNSEEN_CODE
    return res[codes]


def load_stem(stem: str | os.PathLike, *, test: bool = False, jobs: int = 1) -> tuple[Dataset, Dataset | None]:
    """Load STEM.names + STEM.data (and STEM.test if `test` and it exists; `jobs` as read_cases')."""
    stem = str(stem)
    for suffix in (".names", ".data", ".test"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    pending = read_names(stem + ".names")
    train, schema = read_cases(stem + ".data", pending, collect=True, jobs=jobs)
    if schema.attributes and all(a.kind == "ignore" for a in schema.attributes):
        raise InputError(f"{stem}.names: every attribute is 'ignore'")
    schema = Schema(schema.attributes, schema.classes, schema.target)  # full validation
    train.schema = schema
    warn_formula_values(schema, f"{stem}.names")
    tst = None
    if test and os.path.exists(stem + ".test"):
        tst, _ = read_cases(stem + ".test", schema)
    return train, tst
