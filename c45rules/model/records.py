"""Records decided one at a time, as RuleSet.predict decides them, without a DataFrame.

RuleSet.predict on one mapping builds a one-row DataFrame and encodes it (about 10 ms); a
service answering one record per request cannot afford that. RecordDecider encodes each
field of a record (a mapping of attribute name to a JSON-like value) with the rules of
data.frame.encode_frame applied to a column of one cell, and then matches the rules:
one record in plain Python, many records as numpy columns through RuleSet's match plan.

Common cells (text, float, int) take a fast path checked against the encoder by the tests
(a text is a number as data/numbers.py says, `number_or_none`); any other cell (a bool, a
number beyond int64, a text that is not a number) is encoded by encode_frame itself on a one-cell frame, so the two paths cannot drift apart.
A field left out is unknown, as None is; fields that are not attributes are ignored.
"""
from __future__ import annotations

import functools
import math
import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data.frame import BadCell, encode_frame
from ..data.numbers import number_or_none
from ..data.reading import C45_UNKNOWN, DEFAULT_READ, ReadOptions
from ..data.schema import UNKNOWN_CODE, UNSEEN_CODE, Attribute, Schema
from ..errors import InputError, shown
from .ruleset import RuleSet, checked_condition

_INT64 = 2 ** 63
_SCALARS = (str, int, float, bool, type(None))
_FLOAT_OR_NONE = frozenset({float, type(None)})
_TEXT = frozenset({str})
_TEXT_NUMBERS = 65_536   # numbers-as-text a continuous column remembers (a batch repeats them)


class FieldError(InputError):
    """A record's field that cannot be read for its attribute; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class _Column:
    """One attribute's cell encoder: a float (NaN unknown) or a value code (-1 unknown, -2 unseen)."""

    def __init__(self, attr: Attribute, schema: Schema, read: ReadOptions) -> None:
        self.attr = attr
        self.name = attr.name
        self.continuous = attr.is_continuous
        self._one = Schema((attr,), schema.classes, schema.target)
        self._read = read
        if self.continuous:
            self._unknown_texts = read.tokens
            # text -> its float, for the batch path: the unknown tokens, then plain numbers as met
            self.text_numbers: dict[str, float] = dict.fromkeys(read.tokens, math.nan)
        else:
            # the tokens are unknown except where one is a value (encode_frame), '' and '?' always
            codes: dict[str, int] = {t: UNKNOWN_CODE for t in read.tokens}
            codes.update((v, i) for i, v in enumerate(attr.values))
            codes.update((t, UNKNOWN_CODE) for t in C45_UNKNOWN)
            self.text_codes = codes
        self._by_encoder = functools.lru_cache(maxsize=4096)(self._encoder_cell)

    def cell(self, value: Any) -> float | int:
        """The encoded value of one cell (FieldError when it is not one for this attribute)."""
        kind = type(value)
        if self.continuous:
            if kind is float:
                return value
            if value is None:
                return math.nan
            if kind is int and -_INT64 < value < _INT64:
                return float(value)
            if kind is str:
                if value in self._unknown_texts:
                    return math.nan
                number = number_or_none(value)   # the one rule (data/numbers.py)
                if number is not None:
                    if len(self.text_numbers) < _TEXT_NUMBERS:
                        self.text_numbers[value] = number
                    return number
        else:
            if kind is str:
                code = self.text_codes.get(value)
                if code is not None:
                    return code
                if value.isascii():   # matches no value: unseen (no ASCII text is bad Unicode)
                    return UNSEEN_CODE
            elif value is None:
                return UNKNOWN_CODE
        return self._cached(value)

    def _cached(self, value: Any) -> float | int:
        if not isinstance(value, _SCALARS):
            want = "a number" if self.continuous else "a text, a number or a boolean"
            raise FieldError(self.name, f"field {self.name!r}: expected {want} or null,"
                             f" got {type(value).__name__}")
        if isinstance(value, float) and math.isnan(value):
            return math.nan if self.continuous else UNKNOWN_CODE
        # keyed by type: True, 1 and 1.0 are equal keys but may encode differently
        return self._by_encoder(type(value), value)

    def _encoder_cell(self, kind: type, value: Any) -> float | int:
        """encode_frame's answer for a frame of this one cell (the reference; cached)."""
        frame = pd.DataFrame({self.name: pd.Series([value], dtype=object if kind is str else None)})
        try:
            encoded = encode_frame(frame, self._one, require=(), source="record", read=self._read)
        except BadCell:
            raise FieldError(self.name, f"field {self.name!r}: {shown(value)} is not a number") from None
        except InputError as e:   # the encoder's own words, after its 'record: row 1: column NAME: '
            problem = str(e).split(f"column {self.name!r}", 1)[-1].lstrip(": ")
            raise FieldError(self.name, f"field {self.name!r}: {problem}") from None
        except (TypeError, ValueError, OverflowError) as e:   # a value pandas cannot hold in a column
            raise FieldError(self.name, f"field {self.name!r}: {value!r} cannot be read ({e})") from None
        out = encoded.columns[0][0]
        return float(out) if self.continuous else int(out)


class RecordDecider:
    """Decide records as `ruleset.predict` does (same class, rule id and confidence), fast.

    `position(record)` is the record's `RuleSet.rule_index` position (0: the default class);
    `positions(records)` the same for many, matched together in numpy.
    """

    def __init__(self, ruleset: RuleSet, read: ReadOptions | None = None) -> None:
        self.ruleset = ruleset
        schema = ruleset.schema
        read = read or DEFAULT_READ
        self.used = ruleset.used_attributes()
        self._columns = [_Column(schema.attribute(name), schema, read) for name in self.used]
        slot = {name: i for i, name in enumerate(self.used)}
        plan = ruleset._plan   # validates every condition against the schema (ModelError)
        self._plan = plan
        reachable = {k for k, _ in plan.rules}
        self._rules: list[tuple[int, tuple[tuple[int, str, Any], ...]]] = []
        for k, rule in enumerate(ruleset.rules, 1):
            if k not in reachable:
                continue
            tests = []
            for cond in rule.conditions:
                attr, values = checked_condition(cond, schema, f"rule {rule.id}")
                if cond.op in ("<=", ">"):
                    tests.append((slot[cond.attribute], cond.op, float(cond.value)))
                else:
                    tests.append((slot[cond.attribute], "in", frozenset(attr.values.index(v) for v in values)))
            self._rules.append((k, tuple(tests)))
        self.classes = np.array([ruleset.default_class] + [r.prediction for r in ruleset.rules], dtype=object)
        self.rule_ids = ruleset.rule_ids()
        self.confidences = ruleset.decision_confidences()
        self.texts = ruleset.decision_texts()
        self._slots = [schema.index(name) for name in self.used]
        self._getter = operator.itemgetter(*self.used) if self.used else None

    def encode(self, record: Mapping[str, Any]) -> list[float | int]:
        """The record's value of each used attribute, encoded (a field left out is unknown)."""
        if not isinstance(record, Mapping):
            raise InputError(f"a record is a mapping of attribute name to value, not {type(record).__name__}")
        return [c.cell(record.get(c.name)) for c in self._columns]

    def position(self, record: Mapping[str, Any]) -> int:
        """The rule_index position of one record: 1-based in `rules`, 0 for the default."""
        return self._first_rule(self.encode(record))

    def decide(self, record: Mapping[str, Any]) -> tuple[int, list[str]]:
        """position(record), and the used attributes whose value in it was not seen in training."""
        values = self.encode(record)
        if UNSEEN_CODE not in values:   # the common case, in one C-level pass (a float may equal it too)
            return self._first_rule(values), []
        return self._first_rule(values), [c.name for c, v in zip(self._columns, values)
                                          if v == UNSEEN_CODE and not c.continuous]

    def _first_rule(self, values: list[float | int]) -> int:
        for k, tests in self._rules:
            for slot, op, operand in tests:
                v = values[slot]
                # NaN (unknown) fails both comparisons; negative codes are in no value set
                if not (v <= operand if op == "<=" else v > operand if op == ">" else v in operand):
                    break
            else:
                return k
        return 0

    def _cells(self, records: Sequence[Mapping[str, Any]]) -> list[Sequence[Any]]:
        """Each used attribute's cells in the records' order (a field left out: None)."""
        if not self.used:
            return []
        try:   # every record names every used attribute: one C-level pass takes them all
            if len(self.used) == 1:
                return [list(map(self._getter, records))]
            return list(zip(*map(self._getter, records))) if records else [() for _ in self.used]
        except (KeyError, TypeError):
            return [[r.get(name) for r in records] for name in self.used]

    @staticmethod
    def _encoded(col: _Column, cells: Sequence[Any]) -> np.ndarray:
        """One column's cells encoded as cell() encodes each (common cases without a call per cell)."""
        if col.continuous:
            kinds = set(map(type, cells))
            if kinds <= _FLOAT_OR_NONE:   # None is NaN in a float array, as cell() reads it
                return np.array(cells, dtype=np.float64)
            texts = col.text_numbers
            if kinds == _TEXT:
                try:
                    return np.fromiter(map(texts.__getitem__, cells), np.float64, len(cells))
                except KeyError:
                    pass
            return np.array([v if type(v) is float else texts[v] if type(v) is str and v in texts else col.cell(v)
                             for v in cells], dtype=np.float64)
        codes = col.text_codes
        try:   # only texts are keys: any other cell fails the lookup and takes the careful way
            return np.fromiter(map(codes.__getitem__, cells), np.int32, len(cells))
        except (KeyError, TypeError):
            return np.array([codes[v] if type(v) is str and v in codes else col.cell(v) for v in cells],
                            dtype=np.int32)

    def positions(self, records: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """The rule_index position of each record (FieldError names the first bad field;
        its `record` attribute is the record's index)."""
        return self._matched(self._encoded_columns(records))

    def decide_many(self, records: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, dict[int, list[str]]]:
        """positions(records), and for each record holding any (by its index) the used
        attributes whose value in it was not seen in training."""
        columns = self._encoded_columns(records)
        unseen: dict[int, list[str]] = {}
        for slot, col in zip(self._slots, self._columns):
            if not col.continuous:
                for i in np.flatnonzero(columns[slot] == UNSEEN_CODE).tolist():
                    unseen.setdefault(i, []).append(col.name)
        return self._matched(columns), unseen

    def _encoded_columns(self, records: Sequence[Mapping[str, Any]]) -> list[np.ndarray]:
        """Every attribute's column of the records, encoded (unused ones all unknown)."""
        n = len(records)
        for i, r in enumerate(records):
            if type(r) is not dict and not isinstance(r, Mapping):
                e = InputError(f"record {i}: a record is a mapping of attribute name to value,"
                               f" not {type(r).__name__}")
                e.record = i
                raise e
        columns: list[np.ndarray] = [np.full(n, np.nan) if a.is_continuous else np.full(n, UNKNOWN_CODE, np.int32)
                                     for a in self.ruleset.schema.attributes]
        for slot, col, cells in zip(self._slots, self._columns, self._cells(records)):
            try:
                columns[slot] = self._encoded(col, cells)
            except InputError as e:
                # found again one by one to name the record (rare: only on bad input)
                for i, v in enumerate(cells):
                    try:
                        col.cell(v)
                    except InputError as bad:
                        bad.record = i
                        raise bad from None
                raise e
        return columns

    def _matched(self, columns: list[np.ndarray]) -> np.ndarray:
        out = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
        self._plan.match_block(columns, out)
        return out
