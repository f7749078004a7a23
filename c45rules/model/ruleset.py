"""RuleSet: the hub every stage reads. Ordered rules, a default class, their evidence.

Semantics (spec 7.11, one policy everywhere): rules are tried in order and the first rule
whose conditions are all satisfied gives the class; otherwise the default class. A
condition on an unknown value (NaN, None, empty, `?`) is NOT satisfied, and neither is an
equality test on a value outside the attribute's value list. A rule whose pessimistic
error exceeds 0.7 never fires (spec 7.6.1); it is kept so the list matches c4.5rules.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..data.schema import UNSEEN_CODE, Attribute, Dataset, Schema
from ..errors import InputError

try:
    from . import _match
except ImportError:   # not built: numpy tries the rules (_MatchPlan.match_block)
    _match = None

if TYPE_CHECKING:
    from ..tree.node import Node

Op = Literal["<=", ">", "=", "in"]
NEVER_FIRES_ABOVE = 0.7  # spec 7.6.1: Strength is 0 when a rule's error exceeds 0.7
EVIDENCE_DIGITS = 6      # significant digits of the error rates a model keeps and prints


def evidence_rate(error: float) -> float:
    """A rule's error rate to EVIDENCE_DIGITS significant digits, on the same side of 0.7.

    The model keeps and prints the rounded value (readable, and the YAML reads back equal);
    more digits are kept only where rounding would move the rate across the never-fires
    bound, which would change what the rule decides.
    """
    for digits in range(EVIDENCE_DIGITS, 18):
        rounded = float(f"{error:.{digits}g}")
        if (rounded <= NEVER_FIRES_ABOVE) == (error <= NEVER_FIRES_ABOVE):
            return rounded
    return error
_BLOCK = 1 << 18          # cases rule_index scores together: big, so numpy's cost per call is spread
_MASK_BYTES = 1 << 24     # ... but small enough that the block's test masks stay within this
_PASS = 16                # tests compared in one 2-D numpy call: bounds its temporary bool array
_PLACED_FROM = 32         # thresholds on a column from which each case is placed among them (compiled)


@dataclass(frozen=True)
class Condition:
    """One test: `attribute <= value`, `> value`, `= value` or `in {values}`.

    `or_unknown` (threshold tests only) makes an unknown value satisfy the test too: how a
    tree imported from another tool routes unknowns down one branch (imports/sklearn.py);
    c4.5's own conditions never carry it, so an unknown value satisfies none of them.

    Attributes
    ----------
    attribute : str
        The name of the attribute tested (an attribute of the model's schema).
    op : {"<=", ">", "=", "in"}
        The test: a threshold on a continuous attribute, or a value (set) of a discrete one.
    value : float, str or tuple of str
        The threshold (``<=``, ``>``), the value (``=``) or the values (``in``).
    or_unknown : bool, default=False
        Whether an unknown value satisfies the test too (threshold tests only).

    Examples
    --------
    >>> from c45rules import Condition
    >>> print(Condition("A15", ">", 228.0))
    A15 > 228
    >>> print(Condition("A4", "in", ("u", "y")))
    A4 in {u, y}
    >>> Condition("x0", "<=", 0.5, or_unknown=True).as_dict()
    {'attribute': 'x0', 'op': '<=', 'value': 0.5, 'or_unknown': True}
    """

    attribute: str
    op: Op
    value: float | str | tuple[str, ...]
    or_unknown: bool = False

    def __str__(self) -> str:
        name = readable(self.attribute)
        if self.op == "in":
            return f"{name} in {{{', '.join(map(readable, self.value))}}}"
        if self.op == "=":
            return f"{name} = {readable(self.value)}"
        text = f"{name} {self.op} {format_threshold(self.value)}"
        return text + " or unknown" if self.or_unknown else text

    def as_dict(self) -> dict[str, Any]:
        """{"attribute", "op", "value"} (a list for "in"), and "or_unknown": true when set."""
        out = {"attribute": self.attribute, "op": self.op,
               "value": list(self.value) if self.op == "in" else self.value}
        if self.or_unknown:   # only when set, as in the YAML
            out["or_unknown"] = True
        return out


@dataclass(frozen=True)
class Rule:
    """IF all conditions THEN prediction, with its training evidence.

    Attributes
    ----------
    id : int
        The rule's number, as c4.5rules numbers it (ids start at 1; 0 stands for the default
        class in every output).
    conditions : tuple of Condition
        The tests, all of which must hold for the rule to fire.
    prediction : str
        The class the rule gives.
    covered : int or float
        Training cases satisfying every condition (their summed weight when weighted).
    errors : int or float
        Of those, the cases not of `prediction`.
    error_rate : float
        The pessimistic error rate (c4.5rules' "Error", spec 7.3); above 0.7 the rule never
        fires (spec 7.6.1).
    lift : float
        Confidence over the training frequency of `prediction`.
    used : int or float, default=0
        Training cases for which this is the first firing rule.
    wrong : int or float, default=0
        Of those, the misclassified ones.
    note : str, default=""
        A reviewer's text, kept through rescore and shown by the exports.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rule = fit(df, target="class").rules[0]
    >>> print(rule)
    rule 1: if a <= 2 then n [87.1%]
    >>> rule.covered, rule.errors, rule.error_rate, rule.fires
    (10, 0, 0.129449, True)
    """

    id: int
    conditions: tuple[Condition, ...]
    prediction: str
    covered: int            # training cases satisfying every condition
    errors: int             # of those, cases not of `prediction`
    error_rate: float       # pessimistic error rate (c4.5rules "Error"), spec 7.3
    lift: float             # confidence / training frequency of `prediction`
    used: int = 0           # training cases for which this is the first firing rule
    wrong: int = 0          # of those, misclassified
    note: str = ""          # a reviewer's text, kept through rescore and shown by the exports

    @property
    def confidence(self) -> float:
        """1 - pessimistic error rate: the `[x%]` c4.5rules prints.

        Returns
        -------
        float
        """
        return 1.0 - self.error_rate

    @property
    def fires(self) -> bool:
        """False for a rule too inaccurate to ever fire (error > 0.7, spec 7.6.1)."""
        return self.error_rate <= NEVER_FIRES_ABOVE

    def as_dict(self) -> dict[str, Any]:
        """The rule as JSON takes it.

        Returns
        -------
        dict
            {"id", "conditions": [Condition.as_dict()], "text" (the conditions as c4.5rules
            reads them), "class", "confidence", "covered", "errors", "error_rate", "lift",
            "used", "wrong"}, and "note" when it has one.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> d = fit(df, target="class").rules[1].as_dict()
        >>> d["text"], d["class"], d["confidence"]
        ('a > 2', 'y', 0.870551)
        """
        out = {"id": int(self.id), "conditions": [c.as_dict() for c in self.conditions],
               "text": conjunction(self.conditions), "class": self.prediction,
               "confidence": round(self.confidence, 6), "covered": self.covered, "errors": self.errors,
               "error_rate": self.error_rate, "lift": self.lift, "used": self.used, "wrong": self.wrong}
        if self.note:
            out["note"] = self.note
        return out

    def __str__(self) -> str:
        conds = conjunction(self.conditions)
        return f"rule {self.id}: if {conds} then {readable(self.prediction)} [{100 * self.confidence:.1f}%]"


def conjunction(conditions: Sequence[Condition]) -> str:
    """The conditions joined by 'and' on one line, each 'or unknown' one in parentheses so that
    it reads as one test."""
    return " and ".join(f"({c})" if c.or_unknown else str(c) for c in conditions)


def checked_condition(cond: Condition, schema: Schema, where: str) -> tuple["Attribute", tuple[str, ...]]:
    """The attribute a condition tests and its values (discrete), or ModelError naming `where`.

    Code generators call this before emitting a test, so a hand-edited model can never
    produce a test on an unknown attribute, of the wrong kind, or on a value outside the
    schema.
    """
    from ..errors import ModelError
    try:
        attr = schema.attribute(cond.attribute)
    except InputError:
        raise ModelError(f"{where}: {cond.attribute!r} is not an attribute of the schema") from None
    if cond.op in ("<=", ">"):
        if not attr.is_continuous:
            raise ModelError(f"{where}: threshold test on {attr.kind} attribute {attr.name!r}")
        if cond.or_unknown and not (isinstance(cond.value, (int, float)) and not math.isnan(cond.value)):
            raise ModelError(f"{where}: 'or unknown' needs a number as threshold, not {cond.value!r}")
        return attr, ()
    if cond.op not in ("=", "in"):
        raise ModelError(f"{where}: unknown operator {cond.op!r}")
    if cond.or_unknown:
        raise ModelError(f"{where}: 'or unknown' is only for threshold tests, not {cond.op!r}")
    if not attr.is_discrete:
        raise ModelError(f"{where}: value test on {attr.kind} attribute {attr.name!r}")
    values = (cond.value,) if cond.op == "=" else tuple(cond.value)
    for v in values:
        if not isinstance(v, str) or v not in attr.values:
            raise ModelError(f"{where}: {v!r} is not a value of attribute {attr.name!r}")
    return attr, values


def condition_operand(cond: Condition, schema: Schema, where: str) -> tuple[int, Any, Any]:
    """(column, numpy test, operand) that evaluates `cond` on a Dataset's encoded columns:
    `test(columns[column], operand)` is the mask of the cases satisfying it (unknown never
    does, unless `or_unknown`). Every model kind matches its conditions through this."""
    attr, values = checked_condition(cond, schema, where)
    a = schema.index(cond.attribute)
    if cond.op == "<=":
        return a, _or_unknown(np.less_equal) if cond.or_unknown else np.less_equal, float(cond.value)
    if cond.op == ">":
        return a, _or_unknown(np.greater) if cond.or_unknown else np.greater, float(cond.value)
    codes = [attr.values.index(v) for v in values]
    return (a, np.equal, codes[0]) if cond.op == "=" else (a, np.isin, np.array(codes))


def _or_unknown(test: Any) -> Any:
    """`test`, also satisfied by an unknown (NaN) value: a condition with or_unknown."""
    return lambda column, operand: test(column, operand) | np.isnan(column)


def format_threshold(v: float) -> str:
    """A threshold as c4.5 prints it (%g)."""
    return f"{v:g}"


# the words of rule text: a name or value spelled like one is quoted, so it cannot read as
# part of the rule around it ("A9 = t and A15 <= 5" is one test only when the value is quoted;
# a value "unknown" is not a missing one). `in` is not among them: it reads as a test only
# before a `{`, which a bare text never holds ("religious groups in schools", vote.names)
_KEYWORDS = frozenset({"and", "or", "not", "if", "then", "else", "unknown"})
# a word of a name or value shown bare when it holds spaces ("on thyroxine", "Don't Play"):
# letters, digits and these marks, nothing that reads as an operator, a set or a quote
_PLAIN_WORD = re.compile(r"[\w.'/-]+")
# what a name or value without spaces cannot hold and stay bare: a quote or escape would make
# the shown text ambiguous, a comma or brace would split an `in {...}` set
_NOT_BARE = re.compile(r'["\\,{}]')


def visible(text: str, keep: str = "") -> str:
    """`text` with every character that does not show itself (but those in `keep`) written as
    its Python escape: controls, line and paragraph separators, spaces other than ' ', format
    characters such as the bidi controls U+202A-U+202E and U+2066-U+2069, the zero-width ones
    and U+FEFF (`\\n`, `\\x00`, `\\u202e`, `\\U000e0001`), so that no text shown to a person
    can hide, reorder or break what it says."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else repr(ch)[1:-1] for ch in text)


def readable(text: str) -> str:
    """A name, value or class as every human-facing text shows it: bare when it reads as one
    item (words of letters, digits and `-_.'/` between single spaces, no keyword of rule text
    such as `and`; or one run without spaces, quotes, backslashes, commas or braces), else in
    double quotes with `"` and `\\` escaped and the characters `visible` escapes escaped.

    Bare covers every name and value of the reference datasets (`A9 = t`, `on thyroxine = f`,
    `checking_status = <0`), so printouts stay those of c4.5rules.
    """
    if text and text.isprintable() and text[0] not in "'\"":
        words = text.split(" ")
        if len(words) == 1:
            if text.lower() not in _KEYWORDS and not _NOT_BARE.search(text):
                return text
        elif all(_PLAIN_WORD.fullmatch(w) and w.lower() not in _KEYWORDS for w in words):
            return text
    return '"' + visible(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


@dataclass(frozen=True)
class Explanation:
    """Why a case got its class: the rule that fired, or each rule's first failed condition.

    Made by RuleSet.explain; `str()` gives the explanation as text, `as_dict()` as JSON takes it.

    Attributes
    ----------
    prediction : str
        The class the model gives the case.
    rule : Rule or None
        The rule that fired, None when the default class decided.
    checks : tuple of (Condition, value, bool)
        When a rule fired: each of its conditions, the case's value and whether it holds.
    misses : tuple of (int, Condition or None, value)
        When the default decided: for each rule, its id, its first failed condition and the
        case's value; (rule id, None, None) for a rule whose conditions hold but which never
        fires (error above 0.7, spec 7.6.1).
    bands : tuple of ((str, float), float, float), default=()
        The kept tree's soft bands (fit -p --keep-tree): ((attribute, cut), lower, upper).
    ensemble : str or None, default=None
        For rules explaining a tree ensemble (`from_ensemble`), when explained with it
        (imports.fidelity.explain_case): the ensemble's own class for the case (`agrees`
        compares it with `prediction`).

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> print(rs.explain({"a": 1.5}))
    class n by rule 1 [87.1%, covers 10, 0 errors]:
      a <= 2   (a = 1.5: yes)
    >>> print(rs.explain({}))
    class n by default: no rule fired
      rule 1: fails a <= 2   (a = unknown)
      rule 2: fails a > 2   (a = unknown)
    """

    prediction: str
    rule: Rule | None
    checks: tuple[tuple[Condition, Any, bool], ...]   # fired rule: (condition, value, satisfied)
    # default: (rule id, first failed condition, value); (rule id, None, None) for a rule whose
    # conditions hold but which never fires (error above 0.7, spec 7.6.1)
    misses: tuple[tuple[int, Condition | None, Any], ...]
    # the kept tree's soft bands (fit -p --keep-tree): ((attribute, cut), lower, upper)
    bands: tuple[tuple[tuple[str, float], float, float], ...] = ()
    ensemble: str | None = None

    @property
    def agrees(self) -> bool | None:
        """Whether the rules decide as the ensemble does (None: no ensemble was given)."""
        return None if self.ensemble is None else self.ensemble == self.prediction

    def _ensemble_line(self) -> list[str]:
        if self.ensemble is None:
            return []
        word = "agrees" if self.agrees else "disagrees: it decides " + readable(self.ensemble)
        return [f"the ensemble {word}"]

    def band(self, cond: Condition | None) -> tuple[float, float] | None:
        """The soft band (lower, upper) of a threshold condition's cut, when the model keeps one."""
        if cond is None or cond.op not in ("<=", ">"):
            return None
        for key, lower, upper in self.bands:
            if key == (cond.attribute, cond.value):
                return lower, upper
        return None

    def _closeness(self, cond: Condition | None, val: Any) -> str:
        """'; soft band [l, u]: inside it, d above the cut' for a known value and a banded cut."""
        band = self.band(cond)
        if band is None or not isinstance(val, float):
            return ""
        where = "inside it" if band[0] <= val <= band[1] else "outside it"
        side = "above" if val > cond.value else "at or below"
        return (f"; soft band [{format_threshold(band[0])}, {format_threshold(band[1])}]: {where},"
                f" {format_threshold(abs(val - cond.value))} {side} the cut")

    def check_lines(self) -> list[str]:
        """The deciding rule's conditions, each with the case's value and whether it holds."""
        return [f"{cond}   ({readable(cond.attribute)} = {_show(val)}: {'yes' if ok else 'no'}{self._closeness(cond, val)})"
                for cond, val, ok in self.checks]

    def __str__(self) -> str:
        lines = []
        if self.rule is not None:
            lines.append(f"class {readable(self.prediction)} by rule {self.rule.id}"
                         f" [{100 * self.rule.confidence:.1f}%, covers {self.rule.covered},"
                         f" {self.rule.errors} errors]:")
            lines += [f"  {line}" for line in self.check_lines()]
        else:
            lines.append(f"class {readable(self.prediction)} by default: no rule fired")
            for rid, cond, val in self.misses:
                if cond is None:
                    lines.append(f"  rule {rid}: its conditions hold, but it never fires (error above 70%)")
                else:
                    lines.append(f"  rule {rid}: fails {cond}   ({readable(cond.attribute)} = {_show(val)}"
                                 f"{self._closeness(cond, val)})")
        return "\n".join(lines + self._ensemble_line())


    def as_dict(self) -> dict[str, Any]:
        """The explanation as JSON takes it.

        Returns
        -------
        dict
            {"class", "rule_id" (0: the default class), "conditions": [{"rule", "attribute",
            "op", "value", "case_value", "satisfied"}]}: the deciding rule's conditions, or each
            rule's first failed one (attribute null for a rule that holds but never fires); a
            condition that unknown values satisfy too also has "or_unknown": true.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> fit(df, target="class").explain({"a": 3}).as_dict()
        {'class': 'y', 'rule_id': 2, 'conditions': [{'rule': 2, 'attribute': 'a', 'op': '>', 'value': 2.0, 'case_value': 3.0, 'satisfied': True}]}
        """
        def entry(rule_id: int, cond: Condition | None, val: Any, ok: bool) -> dict[str, Any]:
            out = {"rule": int(rule_id),
                   **({"attribute": None, "op": None, "value": None} if cond is None else cond.as_dict()),
                   "case_value": _plain(val), "satisfied": ok}
            band = self.band(cond)
            if band is not None:     # a model fitted with -p --keep-tree
                out["soft"] = {"lower": band[0], "upper": band[1],
                               "inside": isinstance(val, float) and band[0] <= val <= band[1]}
            return out

        if self.rule is not None:
            conditions = [entry(self.rule.id, c, v, ok) for c, v, ok in self.checks]
        else:
            conditions = [entry(rid, c, v, c is None) for rid, c, v in self.misses]
        out = {"class": self.prediction, "rule_id": 0 if self.rule is None else int(self.rule.id),
               "conditions": conditions}
        if self.ensemble is not None:
            out["ensemble"] = {"class": self.ensemble, "agrees": self.agrees}
        return out


def _plain(v: Any) -> Any:
    """A case value as JSON takes it: None, a finite float, or text (inf and unseen values as text)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (float, np.floating)) and math.isfinite(v):
        return float(v)
    return str(v)


def _show(v: Any) -> str:
    if v is None:
        return "unknown"
    if isinstance(v, float):
        return format_threshold(v)
    return readable(str(v))


def encode_cases(data: Any, schema: Schema, require: Sequence[str], bad_cells: str = "error") -> Dataset:
    """Encoded cases for scoring. A DataFrame must hold every column of `require` (a missing one
    is an InputError naming it); records (a mapping or a list of mappings) may leave fields out,
    which are then unknown, as in the exported Python module and `explain`. `bad_cells`: what a
    continuous text cell that is neither unknown nor a number is (data.frame.encode_frame)."""
    if isinstance(data, Dataset):
        return data
    # pandas only when cases come as a table or records: a model read and applied to
    # encoded data (the CLI's rules, tree, evaluate on .data files) never needs it
    import pandas as pd

    from ..data.frame import encode_frame
    from ..data.reading import to_pandas
    if isinstance(data, Mapping):
        data, require = pd.DataFrame([dict(data)]), ()
    elif isinstance(data, Sequence) and not isinstance(data, (str, bytes)) and data \
            and isinstance(data[0], Mapping):
        data, require = pd.DataFrame([dict(r) for r in data]), ()
    data = to_pandas(data)   # a polars DataFrame or pyarrow Table, at the edge
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"cannot score {type(data).__name__}: give a DataFrame, a mapping"
                         " or a list of mappings")
    return encode_frame(data, schema, require=require, bad_cells=bad_cells)


@dataclass(frozen=True)
class RuleSet:
    """An ordered rule list with a default class: value object, equality by value.

    Rules are tried in order; the first whose conditions all hold gives the class, else the
    default class (the module docstring: spec 7.11). Made by `fit`, `learn_rules`,
    `from_sklearn` or `c45rules.export.load_yaml`; never changed in place.

    Attributes
    ----------
    schema : Schema
        The attributes and classes of the data the model describes.
    rules : tuple of Rule
        The ordered rules.
    default_class : str
        The class of a case no rule fires for.
    class_counts : tuple of int
        Training cases per class (schema order; summed weights when weighted).
    default_counts : tuple of int
        Training cases reaching the default, per class.
    options : tuple of (str, value), default=()
        The options the model was learnt with (sorted pairs; see `options_dict`).
    fingerprint : str, default=""
        SHA-256 of the training data (Dataset.fingerprint).
    version : str, default=""
        The c45rules version that made the model (not compared by ``==``).
    notes : str, default=""
        The model's reviewer text, kept like Rule.note.
    tree : Node or None, default=None
        The pruned tree the rules came from, when kept (fit --keep-tree): for pictures only,
        never for deciding, and not compared by ``==``.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> print(rs)  # doctest: +NORMALIZE_WHITESPACE
    Rule 1:
        a <= 2
        ->  class n  [87.1%]
    <BLANKLINE>
    Rule 2:
        a > 2
        ->  class y  [87.1%]
    <BLANKLINE>
    Default class: n
    <BLANKLINE>
    <BLANKLINE>
    >>> rs.predict(pd.DataFrame({"a": [1.5, 3.5]})).tolist()
    ['n', 'y']
    """

    schema: Schema
    rules: tuple[Rule, ...]
    default_class: str
    class_counts: tuple[int, ...]          # training cases per class (schema order)
    default_counts: tuple[int, ...]        # training cases reaching the default, per class
    options: tuple[tuple[str, Any], ...] = ()
    fingerprint: str = ""
    version: str = field(default="", compare=False)
    notes: str = ""                        # the model's reviewer text, kept like Rule.note
    # the pruned tree the rules came from, when kept (fit --keep-tree): for pictures only,
    # never for deciding, so two models with the same rules are equal with or without it
    tree: "Node | None" = field(default=None, compare=False, repr=False)

    # ---- matching -------------------------------------------------------------------
    def _encode(self, data: Any, bad_cells: str = "error") -> Dataset:
        """Encoded cases (see encode_cases), requiring the columns the rules test."""
        return encode_cases(data, self.schema, self.used_attributes(), bad_cells)

    @functools.cached_property
    def _plan(self) -> "_MatchPlan":
        """The rules compiled for rule_index (every condition checked against the schema)."""
        return _MatchPlan.build(self.rules, self.schema)

    def _operand(self, cond: Condition, where: str) -> tuple[int, Any, Any]:
        """(column, numpy test, operand) that evaluates `cond` on encoded columns."""
        return condition_operand(cond, self.schema, where)

    def used_attributes(self) -> tuple[str, ...]:
        """Names of the attributes the rules test, in schema order.

        Returns
        -------
        tuple of str
            The columns a table of cases must hold to be scored.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "b": ["x", "y"] * 10,
        ...                    "class": ["n", "n", "y", "y"] * 5})
        >>> fit(df, target="class").used_attributes()
        ('a',)
        """
        used = {c.attribute for r in self.rules for c in r.conditions}
        return tuple(a for a in self.schema.names if a in used)

    def condition_mask(self, cond: Condition, data: Dataset, rows: np.ndarray | None = None) -> np.ndarray:
        """Which cases (of `rows`, default all) satisfy `cond`; unknown never does."""
        a, test, operand = self._operand(cond, str(cond))
        return test(data.columns[a] if rows is None else data.columns[a][rows], operand)

    @functools.cached_property
    def _plan_two(self) -> "_MatchPlan":
        """The rules compiled for first_two."""
        return _MatchPlan.build(self.rules, self.schema, second=True)

    def first_two(self, columns: Sequence[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions (0-based) of the first and second firing rules that match each of the `n`
        cases of encoded `columns` (in this schema's order), -1 for none."""
        plan = self._plan_two
        first, second = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        block = min(_BLOCK, max(1 << 12, _MASK_BYTES * 8 // max(1, plan.size)))
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            plan.first_two_block([c[lo:hi] for c in columns], first[lo:hi], second[lo:hi])
        return first - 1, second - 1

    def rule_index(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """Position (1-based) in `rules` of the first firing rule per case, 0 for the default.

        `bad_cells` ("error" or "unknown"), for every method that takes cases: what a
        continuous text cell is that is neither unknown nor a number (data/numbers.py: `inf`,
        `1_000` are not): an InputError naming its row and column, or an unknown value.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases. A table must hold every column the rules test (InputError naming a
            missing one); a mapping or a list of mappings may leave fields out, which are then
            unknown.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is: an InputError
            naming its row and column, or an unknown value.

        Returns
        -------
        numpy.ndarray of int64
            One position per case; index `rule_ids()`, `decision_confidences()` or
            `decision_texts()` with it.

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.rule_index(pd.DataFrame({"a": [1.5, 3.5, None]})).tolist()
        [1, 2, 0]
        """
        ds = self._encode(data, bad_cells)
        plan = self._plan
        out = np.zeros(ds.n, dtype=np.int64)
        # the blocks are matched one after another, so memory stays bounded at any row count
        block = min(_BLOCK, max(1 << 12, _MASK_BYTES * 8 // max(1, plan.size)))
        for lo in range(0, ds.n, block):
            hi = min(ds.n, lo + block)
            plan.match_block([c[lo:hi] for c in ds.columns], out[lo:hi])
        return out

    def rule_ids(self) -> np.ndarray:
        """The rule id of each `rule_index` position: 0 (the default class decided), then the rules' ids.

        The one rule-id convention of every output (predict's column, SQL, the Python module,
        explain, evaluate --json): a rule's own id, 0 when no rule fired (ids start at 1).

        Returns
        -------
        numpy.ndarray of int64
            ``len(rules) + 1`` ids.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.rule_ids().tolist()
        [0, 1, 2]
        """
        return np.array([0] + [r.id for r in self.rules], dtype=np.int64)

    def decision_confidences(self) -> np.ndarray:
        """The confidence of each `rule_index` position, to EVIDENCE_DIGITS significant digits.

        A rule's is its confidence (1 - pessimistic error); the default's is the Laplace share of
        the default class among the training cases that reached it, as predict_proba gives it.
        Every export that reports a confidence (predict, SQL, the Python module) uses these.

        Returns
        -------
        numpy.ndarray of float
            ``len(rules) + 1`` confidences, the default's first.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.decision_confidences().tolist()
        [0.5, 0.870551, 0.870551]
        """
        dc = np.asarray(self.default_counts, dtype=float)
        C = len(self.schema.classes)
        default = (dc[self.schema.classes.index(self.default_class)] + 1) / (dc.sum() + C)
        values = [default] + [r.confidence if C > 1 else 1.0 for r in self.rules]
        return np.array([float(f"{v:.{EVIDENCE_DIGITS}g}") for v in values])

    def decision_texts(self) -> np.ndarray:
        """Each `rule_index` position in words: 'rule 28: A9 = t and A15 > 228', 'default class'.

        Returns
        -------
        numpy.ndarray of str (dtype object)
            ``len(rules) + 1`` texts, the default's first.

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.decision_texts()[rs.rule_index({"a": 3.5})].tolist()
        ['rule 2: a > 2']
        """
        return np.array(["default class: no rule fired"]
                        + [f"rule {r.id}: {conjunction(r.conditions)}" for r in self.rules],
                        dtype=object)

    def predict_confidence(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """The confidence of the decision for each case (see decision_confidences).

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases. A table must hold every column the rules test (InputError naming a
            missing one); a mapping or a list of mappings may leave fields out, which are then
            unknown.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is: an InputError
            naming its row and column, or an unknown value.

        Returns
        -------
        numpy.ndarray of float
            One confidence per case.

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.predict_confidence(pd.DataFrame({"a": [1.5, None]})).tolist()
        [0.870551, 0.5]
        """
        return self.decision_confidences()[self.rule_index(data, bad_cells=bad_cells)]

    def predict_rule(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """Id of the rule that fired for each case; 0 means the default class applied.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases. A table must hold every column the rules test (InputError naming a
            missing one); a mapping or a list of mappings may leave fields out, which are then
            unknown.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is: an InputError
            naming its row and column, or an unknown value.

        Returns
        -------
        numpy.ndarray of int64
            One rule id per case (see `rule_ids`).

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.predict_rule([{"a": 1.5}, {"a": 3.5}, {}]).tolist()
        [1, 2, 0]
        """
        return self.rule_ids()[self.rule_index(data, bad_cells=bad_cells)]

    def predict(self, data: Any, *, bad_cells: str = "error") -> np.ndarray | str:
        """Predicted class per case (a str for a single mapping).

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases. A table must hold every column the rules test (InputError naming a
            missing one); a mapping or a list of mappings may leave fields out, which are then
            unknown.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is: an InputError
            naming its row and column, or an unknown value.

        Returns
        -------
        numpy.ndarray of str (dtype object), or str
            One class per case; for a single mapping, its class.

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.predict(pd.DataFrame({"a": [1.5, 3.5]})).tolist()
        ['n', 'y']
        >>> rs.predict({"a": 3.5})
        'y'
        """
        pos = self.rule_index(data, bad_cells=bad_cells)
        labels = np.array([self.default_class] + [r.prediction for r in self.rules], dtype=object)
        out = labels[pos]
        return out[0] if isinstance(data, Mapping) else out

    def predict_proba(self, data: Any, *, bad_cells: str = "error") -> np.ndarray:
        """Class probabilities (columns in `schema.classes` order).

        A case decided by rule r gets r's confidence (1 - pessimistic error) for r's class
        and the rest spread over the other classes in proportion to their training
        frequency; a case reaching the default gets the Laplace-smoothed class distribution
        of the training cases that reached the default.

        Parameters
        ----------
        data : DataFrame (pandas, polars, pyarrow), mapping, list of mappings, or Dataset
            The cases. A table must hold every column the rules test (InputError naming a
            missing one); a mapping or a list of mappings may leave fields out, which are then
            unknown.
        bad_cells : {"error", "unknown"}, default="error"
            What a continuous text cell that is neither unknown nor a number is: an InputError
            naming its row and column, or an unknown value.

        Returns
        -------
        numpy.ndarray of float, shape (cases, classes)

        Raises
        ------
        InputError
            Cases that cannot be scored: a missing column, a bad cell (with ``bad_cells="error"``).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.schema.classes
        ('n', 'y')
        >>> rs.predict_proba(pd.DataFrame({"a": [1.5, None]})).round(6).tolist()
        [[0.870551, 0.129449], [0.5, 0.5]]
        """
        pos = self.rule_index(data, bad_cells=bad_cells)
        C = len(self.schema.classes)
        prior = np.asarray(self.class_counts, dtype=float)
        table = np.zeros((len(self.rules) + 1, C))
        dc = np.asarray(self.default_counts, dtype=float)
        table[0] = (dc + 1) / (dc.sum() + C)
        for k, r in enumerate(self.rules, 1):
            c = self.schema.classes.index(r.prediction)
            rest = prior.copy()
            rest[c] = 0
            tot = rest.sum()
            rest = rest / tot if tot > 0 else np.full(C, 0 if C == 1 else 1 / (C - 1))
            rest[c] = 0
            table[k] = (1 - r.confidence) * rest
            table[k, c] = r.confidence if C > 1 else 1.0
        return table[pos]

    def explain(self, case: Mapping[str, Any], *, read: Any = None) -> Explanation:
        """Which rule fired for one case and why (or why the default applied).

        Attributes the case does not mention are unknown; `read` (data.reading.ReadOptions)
        says which texts are unknown.

        Parameters
        ----------
        case : mapping or pandas.Series
            One case: attribute name -> value.
        read : ReadOptions or None, default=None
            How texts are read (which are unknown); None: the defaults.

        Returns
        -------
        Explanation

        Raises
        ------
        InputError
            When `case` is not one case (a mapping or a Series).

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> print(rs.explain({"a": 3.5}))
        class y by rule 2 [87.1%, covers 10, 0 errors]:
          a > 2   (a = 3.5: yes)
        """
        import pandas as pd

        from ..data.frame import encode_frame
        if not isinstance(case, (Mapping, Dataset, pd.Series)):
            raise InputError(f"explain: expected one case as a mapping of attribute name to value"
                             f" (a dict or a pandas Series), not {type(case).__name__}")
        ds = case if isinstance(case, Dataset) else encode_frame(pd.DataFrame([dict(case)]), self.schema, require=(), read=read)
        k = int(self.rule_index(ds)[0])

        def value(attr: str) -> Any:
            a = self.schema.index(attr)
            v = ds.columns[a][0]
            at = self.schema.attributes[a]
            if at.is_continuous:
                return None if math.isnan(v) else float(v)
            if v == UNSEEN_CODE:
                return case.get(attr)
            return None if v < 0 else at.values[int(v)]

        bands = tuple(((self.schema.attributes[n.attribute].name, n.cut), n.soft[0], n.soft[1])
                      for n in (self.tree.walk() if self.tree is not None else ()) if n.soft is not None)
        if k:
            rule = self.rules[k - 1]
            checks = tuple((c, value(c.attribute), True) for c in rule.conditions)
            return Explanation(rule.prediction, rule, checks, (), bands)
        misses = []
        for rule in self.rules:
            for c in rule.conditions:
                if not self.condition_mask(c, ds)[0]:
                    misses.append((rule.id, c, value(c.attribute)))
                    break
            else:
                if not rule.fires:
                    misses.append((rule.id, None, None))
        return Explanation(self.default_class, None, (), tuple(misses), bands)

    @property
    def options_dict(self) -> dict[str, Any]:
        """The fitting options as a dict.

        Returns
        -------
        dict

        Examples
        --------
        >>> import pandas as pd
        >>> from c45rules import fit
        >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
        >>> rs = fit(df, target="class")
        >>> rs.options_dict["cf"], rs.options_dict["min_objs"]
        (0.25, 2)
        """
        return dict(self.options)

    def __str__(self) -> str:
        return format_rules(self)


def format_rules(ruleset: RuleSet) -> str:
    """The ordered rules with `[confidence%]` and the default class, as c4.5rules prints them."""
    out = []
    for r in ruleset.rules:
        out.append(f"Rule {r.id}:")
        out.extend(f"    \t{c}" for c in r.conditions)
        out.append(f"\t->  class {readable(r.prediction)}  [{100 * r.confidence:.1f}%]")
        out.append("")
    out.append(f"Default class: {readable(ruleset.default_class)}")
    return "\n".join(out) + "\n\n"


def trial_plans(rulesets: Sequence["RuleSet"]) -> tuple["_MatchPlan", ...]:
    """The rulesets' match plans on one table of their tests (_MatchPlan.build_all), for
    match_positions: a boosted model's trials."""
    return _MatchPlan.build_all([rs.rules for rs in rulesets], rulesets[0].schema)


def match_positions(plans: Sequence["_MatchPlan"], data: Dataset,
                    masks: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """(cases, plans) int64: each plan's rule_index positions for the encoded cases `data`,
    the plans made together (trial_plans): each block's test masks evaluated once for all.
    `masks`: those of `data` made already (block_masks)."""
    out = np.zeros((len(plans), data.n), dtype=np.int64)
    block = _mask_block(plans)
    for i, lo in enumerate(range(0, data.n, block)):
        hi = min(data.n, lo + block)
        made = masks[i] if masks is not None else plans[0].masks([c[lo:hi] for c in data.columns], hi - lo)
        for t, plan in enumerate(plans):
            plan.match_masks(made, out[t, lo:hi])
    return np.ascontiguousarray(out.T)


def block_masks(plans: Sequence["_MatchPlan"], data: Dataset) -> list[np.ndarray]:
    """The test masks of the encoded cases `data` for plans made together (trial_plans), a
    block of cases at a time as match_positions takes them: made ahead, matched later
    (predict makes a boosted model's in its scan thread and matches them on the main one)."""
    block = _mask_block(plans)
    return [plans[0].masks([c[lo:lo + block] for c in data.columns], min(data.n, lo + block) - lo)
            for lo in range(0, data.n, block)]


def _mask_block(plans: Sequence["_MatchPlan"]) -> int:
    """The cases whose test masks are made together: within _MASK_BYTES, at most _BLOCK."""
    return min(_BLOCK, max(1 << 12, _MASK_BYTES * 8 // max(1, plans[0].size if plans else 0)))


@dataclass(frozen=True, eq=False)
class _ContinuousTests:
    """The distinct thresholds the rules test on one continuous column, and their mask rows."""

    column: int
    thresholds: np.ndarray   # distinct, none NaN; `<= thresholds[j]` is mask row first + j
    first: int
    above: np.ndarray        # j of each `> thresholds[j]` tested, at rows first + len(thresholds) + i
    # j of each `> thresholds[j] or unknown`, then of each `<= thresholds[j] or unknown`, in the
    # rows after those of `above`, in turn
    above_or_unknown: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    below_or_unknown: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))


@dataclass(frozen=True, eq=False)
class _DiscreteTests:
    """The distinct value sets the rules test on one discrete column, and their mask rows."""

    column: int
    codes: np.ndarray        # distinct codes in any set; `= codes[j]` is mask row first + j
    first: int
    unions: tuple[np.ndarray, ...]   # j of each set of two or more codes, at rows first + len(codes) + i


def _every_case(words: int, n: int) -> np.ndarray:
    """A bit mask of `words` 64-bit words with the first `n` bits (one per case) set."""
    out = np.zeros(words, dtype=np.uint64)
    out.view(np.uint8)[:-(-n // 8)] = np.packbits(np.ones(n, dtype=bool), bitorder="little")
    return out


def _set_bits(words: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The case positions of the set bits of `words`, the mask's words numbered `at`."""
    bits = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little"))
    return at[bits >> 6] * 64 + (bits & 63)


def _words_hit(hit: np.ndarray, masks: np.ndarray, rows: Sequence[int]) -> np.ndarray:
    """AND the rule's test rows of `masks` into `hit` in place; the numbers of its nonzero words."""
    for r in rows:
        np.bitwise_and(hit, masks[r], out=hit)
    return np.flatnonzero(hit)


@dataclass(frozen=True, eq=False)
class _MatchPlan:
    """The rules that can fire, as rows of a table of distinct tests evaluated once per block.

    Each distinct test (column, op, operand) is evaluated once per block of cases into one bit
    per case (uint64 words); a rule's cases are the AND of its tests' rows and the still
    undecided cases, so trying a rule costs a few kB of word operations however many rules
    share its tests (letter's 544 rules hold 4217 conditions but far fewer distinct tests).
    `= v` is the set test `in {v}`; `> t` is `not <= t` on known values; `> t or unknown` is
    `not <= t`, `<= t or unknown` is `<= t` or not known.
    """

    continuous: tuple[_ContinuousTests, ...]
    discrete: tuple[_DiscreteTests, ...]
    rules: tuple[tuple[int, np.ndarray], ...]   # (1-based position in the rule list, its mask rows)
    size: int                                   # mask rows

    @staticmethod
    def build(rules: Sequence[Rule], schema: Schema, second: bool = False) -> "_MatchPlan":
        """Plan for `rules` (ModelError on a condition that does not fit `schema`); `second`:
        for first_two_block, up to the second rule without conditions (not the first)."""
        return _MatchPlan.build_all([rules], schema, second)[0]

    @staticmethod
    def build_all(rule_lists: Sequence[Sequence[Rule]], schema: Schema,
                  second: bool = False) -> tuple["_MatchPlan", ...]:
        """A plan per list of `rule_lists` (build), all on one table of the tests of every
        list: a boosted model's trials share the masks of a block (BoostedRuleSet.trial_index),
        each distinct test evaluated once for all of them."""
        thresholds: dict[int, dict[float, set[str]]] = {}
        value_sets: dict[int, dict[frozenset[int], None]] = {}
        every: list[list[tuple[int, list[tuple[int, str, Any]]]]] = []
        for rules in rule_lists:
            every.append(_MatchPlan._reachable(rules, schema, second, thresholds, value_sets))
        return _MatchPlan._tables(thresholds, value_sets, every)

    @staticmethod
    def _reachable(rules: Sequence[Rule], schema: Schema, second: bool, thresholds: dict[int, dict[float, set[str]]],
                   value_sets: dict[int, dict[frozenset[int], None]]) -> list[tuple[int, list[tuple[int, str, Any]]]]:
        """(1-based position, tests) of the rules that can fire, up to the first (with `second`,
        the second) without conditions; their tests gathered into `thresholds` and `value_sets`."""
        reachable: list[tuple[int, list[tuple[int, str, Any]]]] = []
        for k, rule in enumerate(rules, 1):
            tests = []
            for cond in rule.conditions:
                attr, values = checked_condition(cond, schema, f"rule {rule.id}")
                a = schema.index(cond.attribute)
                if cond.op in ("<=", ">"):
                    tests.append((a, cond.op + "?" if cond.or_unknown else cond.op, float(cond.value)))
                else:
                    tests.append((a, "in", frozenset(attr.values.index(v) for v in values)))
            # no value is <= or > a NaN threshold, none is in an empty set: such a rule never fires
            if not rule.fires or any(op == "in" and not v or op in ("<=", ">") and math.isnan(v) for _, op, v in tests):
                continue
            for a, op, v in tests:
                if op == "in":
                    value_sets.setdefault(a, {})[v] = None
                else:
                    thresholds.setdefault(a, {}).setdefault(v, set()).add(op)
            reachable.append((k, tests))
            if not tests:   # fires for every case still undecided, so no later rule decides one
                if not second or any(not t for _, t in reachable[:-1]):
                    break   # (nor is second for one, past a second such rule)
        return reachable

    @staticmethod
    def _tables(thresholds: dict[int, dict[float, set[str]]], value_sets: dict[int, dict[frozenset[int], None]],
                every: list[list[tuple[int, list[tuple[int, str, Any]]]]]) -> tuple["_MatchPlan", ...]:
        """The plans of build_all: the tests' mask rows, then each list's rules as rows."""
        row: dict[tuple[int, str, Any], int] = {}
        continuous, discrete = [], []
        size = 0
        for a in sorted(thresholds):
            ts = sorted(thresholds[a])
            first = size
            row.update(((a, "<=", t), size + j) for j, t in enumerate(ts))
            size += len(ts)
            derived = []
            for op in (">", ">?", "<=?"):
                js = [j for j, t in enumerate(ts) if op in thresholds[a][t]]
                row.update(((a, op, ts[j]), size + i) for i, j in enumerate(js))
                derived.append(np.array(js, dtype=np.intp))
                size += len(js)
            continuous.append(_ContinuousTests(a, np.array(ts, dtype=np.float64), first, *derived))
        for a in sorted(value_sets):
            codes = sorted(set().union(*value_sets[a]))
            unions = [c for c in value_sets[a] if len(c) > 1]
            row.update(((a, "in", frozenset([c])), size + j) for j, c in enumerate(codes))
            row.update(((a, "in", c), size + len(codes) + i) for i, c in enumerate(unions))
            discrete.append(_DiscreteTests(a, np.array(codes, dtype=np.int64), size,
                                           tuple(np.array([codes.index(v) for v in sorted(c)], dtype=np.intp)
                                                 for c in unions)))
            size += len(codes) + len(unions)
        return tuple(_MatchPlan(tuple(continuous), tuple(discrete),
                                tuple((k, np.array(sorted({row[t] for t in tests}), dtype=np.intp))
                                      for k, tests in reachable), size)
                     for reachable in every)

    @functools.cached_property
    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rules for the compiled match (model/_match.c): their mask rows end to end, where
        each rule's start, and their positions."""
        rows = [r for _, r in self.rules]
        starts = np.zeros(len(rows) + 1, dtype=np.intp)
        np.cumsum([len(r) for r in rows], out=starts[1:])
        return (np.concatenate(rows).astype(np.intp) if rows else np.zeros(0, dtype=np.intp), starts,
                np.array([k for k, _ in self.rules], dtype=np.int64))

    @functools.cached_property
    def _derived(self) -> tuple[np.ndarray, ...]:
        """Per continuous column, its derived rows for the compiled masks (model/_match.c below):
        the counts of `>`, `> or unknown` and `<= or unknown` rows, then their thresholds' j."""
        return tuple(np.concatenate([[len(t.above), len(t.above_or_unknown), len(t.below_or_unknown)],
                                     t.above, t.above_or_unknown, t.below_or_unknown]).astype(np.intp)
                     for t in self.continuous)

    @functools.cached_property
    def _unions(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """Per discrete column, its unions' members end to end and where each begins (_match.equal)."""
        out = []
        for d in self.discrete:
            starts = np.zeros(len(d.unions) + 1, dtype=np.intp)
            np.cumsum([len(u) for u in d.unions], out=starts[1:])
            members = np.concatenate(d.unions).astype(np.intp) if d.unions else np.zeros(0, dtype=np.intp)
            out.append((members, starts))
        return tuple(out)

    def masks(self, columns: Sequence[np.ndarray], n: int) -> np.ndarray:
        """(tests, words) uint64: bit i of row r (in memory order) says whether case i passes test r."""
        words, nbytes = -(-n // 64), -(-n // 8)
        coded = _match is not None and n > 0
        # a column of many thresholds: each case placed among them once, compiled; of a few,
        # numpy's compare of every case with each costs less (model/_match.c below)
        placed = [coded and len(t.thresholds) >= _PLACED_FROM for t in self.continuous]
        # the compiled code writes its rows whole: no zeros first (a block's masks are some 20 MB)
        out = (np.empty if coded and all(placed) else np.zeros)((self.size, words), dtype=np.uint64)
        as_bytes = out.view(np.uint8)
        for t, derived, place in zip(self.continuous, self._derived, placed):
            x = columns[t.column]
            if place:
                _match.below(np.ascontiguousarray(x, dtype=np.float64), t.thresholds, derived, out, words, t.first)
                continue
            m = len(t.thresholds)
            for j in range(0, m, _PASS):
                below = t.thresholds[j:j + _PASS, None] >= x     # NaN is never <= a threshold
                as_bytes[t.first + j:t.first + j + len(below), :nbytes] = np.packbits(below, axis=1, bitorder="little")
            if t.above.size or t.below_or_unknown.size:
                known = np.zeros(words, dtype=np.uint64)
                known.view(np.uint8)[:nbytes] = np.packbits(~np.isnan(x), bitorder="little")
            row = t.first + m
            if t.above.size:
                out[row:row + len(t.above)] = ~out[t.first + t.above] & known
                row += len(t.above)
            if t.above_or_unknown.size:
                out[row:row + len(t.above_or_unknown)] = ~out[t.first + t.above_or_unknown]
                row += len(t.above_or_unknown)
            if t.below_or_unknown.size:
                out[row:row + len(t.below_or_unknown)] = out[t.first + t.below_or_unknown] | ~known
        for d, (members, starts) in zip(self.discrete, self._unions):
            x = columns[d.column]
            if coded:
                _match.equal(np.ascontiguousarray(x, dtype=np.int64), d.codes, members, starts, out, words, d.first)
                continue
            m = len(d.codes)
            # unknown and unseen codes are negative: equal to no code of the value list
            for j in range(0, m, _PASS):
                equal = d.codes[j:j + _PASS, None] == x
                as_bytes[d.first + j:d.first + j + len(equal), :nbytes] = np.packbits(equal, axis=1, bitorder="little")
            for i, union in enumerate(d.unions):
                np.bitwise_or.reduce(out[d.first + union], axis=0, out=out[d.first + m + i])
        return out

    def first_two_block(self, columns: Sequence[np.ndarray], first: np.ndarray, second: np.ndarray) -> None:
        """Write into `first` and `second` (zeros) the positions of each case's first and second
        firing rules (a plan built with `second`): match_block's word operations, with the
        cases matched once so far kept apart from those matched by none."""
        n = len(first)
        if n == 0 or not self.rules:
            return
        masks = self.masks(columns, n)
        none = _every_case(masks.shape[1], n)
        once = np.zeros_like(none)
        hit = np.empty_like(none)
        for k, rows in self.rules:
            np.bitwise_or(none, once, out=hit)
            live = _words_hit(hit, masks, rows)
            if live.size == 0:
                continue
            words = hit[live]
            new_first, new_second = words & none[live], words & once[live]
            for got, out in ((new_first, first), (new_second, second)):
                out[_set_bits(got, live)] = k
            none[live] ^= new_first
            once[live] ^= new_second ^ new_first
            if not (none.any() or once.any()):
                break

    def match_block(self, columns: Sequence[np.ndarray], out: np.ndarray) -> None:
        """Write into `out` (zeros) the position of the first firing rule of each case."""
        n = len(out)
        if n == 0 or not self.rules:
            return
        self.match_masks(self.masks(columns, n), out)

    def match_masks(self, masks: np.ndarray, out: np.ndarray) -> None:
        """Write into `out` (zeros) the position of the first firing rule of each case, from the
        block's test `masks` (those of this plan's tests, or of a plan build_all made with it)."""
        n = len(out)
        if n == 0 or not self.rules:
            return
        if _match is not None:
            _match.first(masks, masks.shape[1], *self.flat, out)
            return
        undecided = _every_case(masks.shape[1], n)
        for k, rows in self.rules:
            hit = undecided.copy()
            live = _words_hit(hit, masks, rows)
            if live.size == 0:
                continue
            fired = hit[live]
            out[_set_bits(fired, live)] = k
            undecided[live] ^= fired
            if not undecided.any():
                break
