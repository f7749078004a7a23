"""The data model: attributes, classes, and the encoded arrays the hot loops use.

Encoding (never a sentinel a real value can collide with):
* continuous attribute -> float64 column, unknown = NaN;
* discrete attribute   -> int32 column of value codes 0..k-1, unknown = -1,
  and (only when scoring new data) a value outside the schema = -2;
* ignored attribute    -> kept in the schema, never encoded for learning.
"""
from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..errors import InputError
from .distinct import sorted_distinct

Kind = Literal["continuous", "discrete", "ignore"]
UNKNOWN_CODE = -1
UNSEEN_CODE = -2
# C4.5 computes in single precision (spec 11.11): a threshold is the float midpoint of two
# values, which overflows to infinity above FLT_MAX / 2 (3.4e38 / 2), and the reference then
# splits without end; at most this, no midpoint of two values can overflow
SINGLE_PRECISION_LIMIT = 1.7e38


def check_single_precision(column: np.ndarray, at: str, label: str, first: int = 0) -> None:
    """InputError at the first infinite or beyond-single-precision value of a continuous training column.

    `at` names the file and the kind of line ('t.csv: row'), `label` the column; the row
    number follows `at` (`first` rows before the column's: a batch of a streamed read).
    Unknown values (NaN) pass.
    """
    # the extremes first, NaN skipped and nothing allocated (|column| of 1M values would take
    # 8 MB of fresh pages); an all-unknown column's extremes are NaN and pass too
    if column.size == 0 or not (np.fmax.reduce(column) > SINGLE_PRECISION_LIMIT
                                or np.fmin.reduce(column) < -SINGLE_PRECISION_LIMIT):
        return
    with np.errstate(invalid="ignore"):
        beyond = np.abs(column) > SINGLE_PRECISION_LIMIT
    if not beyond.any():
        return
    i = int(np.flatnonzero(beyond)[0])
    value = float(column[i])
    problem = ("infinite value; replace it or mark it unknown" if math.isinf(value) else
               f"value {value!r} is beyond single precision's range (|value| <= 1.7e38): C4.5 computes in float")
    raise InputError(f"{at} {first + i + 1}: {label}: {problem}")


@dataclass(frozen=True)
class Attribute:
    """One input column: its name, kind and (for discrete) its ordered values.

    Attributes
    ----------
    name : str
        The column's name.
    kind : {"continuous", "discrete", "ignore"}
        Continuous: numbers, tested by thresholds; discrete: values, tested by equality;
        ignore: kept in the schema, never learnt from.
    values : tuple of str, default=()
        A discrete attribute's values, in order (their codes are their positions).

    Examples
    --------
    >>> from c45rules import Attribute
    >>> colour = Attribute("colour", "discrete", ("red", "green"))
    >>> colour.is_discrete, colour.values.index("green")
    (True, 1)
    >>> Attribute("age", "continuous").is_continuous
    True
    """

    name: str
    kind: Kind
    values: tuple[str, ...] = ()

    @property
    def is_continuous(self) -> bool:
        """True for a continuous (numeric, threshold-tested) attribute."""
        return self.kind == "continuous"

    @property
    def is_discrete(self) -> bool:
        """True for a discrete (value-tested) attribute."""
        return self.kind == "discrete"


@dataclass(frozen=True)
class Schema:
    """Attributes in a fixed order, the class values in a fixed order, and the target name.

    Attributes
    ----------
    attributes : tuple of Attribute
        The input columns, in order (a Dataset's columns follow it).
    classes : tuple of str
        The class values, in order (class codes are their positions).
    target : str, default="class"
        The name of the class column.

    Raises
    ------
    InputError
        Duplicate attribute names or class values, no class value, an unknown kind, or
        duplicate values in an attribute's value list.

    Examples
    --------
    >>> from c45rules import Attribute, Schema
    >>> schema = Schema((Attribute("age", "continuous"), Attribute("colour", "discrete", ("red", "green"))),
    ...                 ("no", "yes"))
    >>> schema.names, schema.index("colour"), schema.class_index("yes")
    (('age', 'colour'), 1, 1)
    >>> schema.attribute("colour").values
    ('red', 'green')
    """

    attributes: tuple[Attribute, ...]
    classes: tuple[str, ...]
    target: str = "class"

    def __post_init__(self) -> None:
        dup = sorted(n for n, k in Counter(a.name for a in self.attributes).items() if k > 1)
        if dup:
            raise InputError(f"duplicate attribute name(s): {', '.join(map(repr, dup))}")
        if len(self.classes) < 1:
            raise InputError("the schema has no class values")
        if len(set(self.classes)) != len(self.classes):
            raise InputError("duplicate class values in the schema")
        for a in self.attributes:
            if a.kind not in ("continuous", "discrete", "ignore"):
                raise InputError(f"attribute {a.name!r}: unknown kind {a.kind!r}")
            if len(set(a.values)) != len(a.values):
                raise InputError(f"attribute {a.name!r}: duplicate values in its value list")

    def index(self, name: str) -> int:
        """Position of the attribute called `name`.

        Parameters
        ----------
        name : str

        Returns
        -------
        int

        Raises
        ------
        InputError
            When no attribute has that name.
        """
        for i, a in enumerate(self.attributes):
            if a.name == name:
                return i
        raise InputError(f"unknown attribute {name!r}")

    def attribute(self, name: str) -> Attribute:
        """The attribute called `name`.

        Parameters
        ----------
        name : str

        Returns
        -------
        Attribute

        Raises
        ------
        InputError
            When no attribute has that name.
        """
        return self.attributes[self.index(name)]

    def class_index(self, name: str) -> int:
        """Position of class value `name`.

        Parameters
        ----------
        name : str

        Returns
        -------
        int

        Raises
        ------
        InputError
            When `name` is not a class value.
        """
        try:
            return self.classes.index(name)
        except ValueError:
            raise InputError(f"unknown class value {name!r}") from None

    @property
    def names(self) -> tuple[str, ...]:
        """Attribute names in order."""
        return tuple(a.name for a in self.attributes)


@dataclass(eq=False)
class Dataset:
    """Encoded cases: one array per attribute (see module docstring) and class codes.

    A continuous attribute is a float64 column, unknown = NaN; a discrete one an int32 column
    of value codes, unknown = -1 (and, only when scoring new data, a value outside the schema
    = -2). Made by the readers (`c45rules.data.frame.from_frame`, `load_data`) rather than by
    hand; `fit`, `fit_dataset` and every RuleSet method that takes cases accept one.

    Attributes
    ----------
    schema : Schema
        What the columns and class codes mean.
    columns : list of numpy.ndarray
        One array per attribute of the schema, in its order.
    y : numpy.ndarray or None
        int32 class codes, None when the data has no class column.
    source : str, default="<data>"
        Where the cases came from, for messages.
    weights : numpy.ndarray or None, default=None
        Learning only: each case's starting weight; None: every case weighs 1.
    costs : numpy.ndarray or None, default=None
        Learning only: ``costs[k, c]``, the cost of predicting class k for a case of class c;
        None: every error costs 1.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules.data.frame import from_frame
    >>> ds = from_frame(pd.DataFrame({"a": [1.0, None, 3.0], "b": ["x", "y", "x"],
    ...                               "class": ["n", "y", "n"]}), "class")
    >>> ds.n, ds.schema.names, ds.schema.classes
    (3, ('a', 'b'), ('n', 'y'))
    >>> ds.columns[0].tolist(), ds.columns[1].tolist(), ds.y.tolist()
    ([1.0, nan, 3.0], [0, 1, 0], [0, 1, 0])
    """

    schema: Schema
    columns: list[np.ndarray]
    y: np.ndarray | None  # int32 class codes, None when the data has no class column
    source: str = "<data>"
    _sorted_values: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    # the compiled growth's value ranks of these columns (tree/grow.py), kept only by boosting's
    # later trials, which share the columns (a reweighted copy shares this dict too)
    _value_ranks: dict[tuple[int, ...], tuple] = field(default_factory=dict, repr=False)
    # scoring only: per discrete attribute, the distinct texts encoded as UNSEEN_CODE (sorted)
    unseen_values: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    # column -> {token: cells}: texts read as unknown by a table reader's tokens (not '' or '?')
    unknown_tokens: dict[str, dict[str, int]] = field(default_factory=dict, repr=False)
    # learning only: each case's starting weight (data/weights.py); None: every case weighs 1
    weights: np.ndarray | None = field(default=None, repr=False)
    # what the model file records of how the weights were given: (("weights", column), ...)
    weight_record: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    # learning only: costs[k, c], the cost of predicting class k for a case of class c
    # (data/costs.py); None: every error costs 1, and the classes are chosen as c4.5 chooses them
    costs: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        """Number of cases.

        Returns
        -------
        int
        """
        return 0 if not self.columns else len(self.columns[0])

    def sorted_values(self, a: int) -> np.ndarray:
        """Distinct known values of continuous attribute `a`, ascending (cached)."""
        if a not in self._sorted_values:
            col = self.columns[a]
            self._sorted_values[a] = sorted_distinct(col[~np.isnan(col)])
        return self._sorted_values[a]

    def unseen_counts(self) -> dict[str, int]:
        """{discrete attribute: cases holding a value outside its value list}, those above 0, in schema order."""
        counts = {}
        for a, column in zip(self.schema.attributes, self.columns):
            n = int(np.count_nonzero(column == UNSEEN_CODE)) if a.is_discrete else 0
            if n:
                counts[a.name] = n
        return counts

    def subset(self, rows: np.ndarray) -> "Dataset":
        """The cases at positions `rows` (a new Dataset sharing the schema, and their weights).

        Parameters
        ----------
        rows : numpy.ndarray
            Case positions (or a boolean mask).

        Returns
        -------
        Dataset
        """
        return Dataset(self.schema, [c[rows] for c in self.columns],
                       None if self.y is None else self.y[rows], self.source,
                       weights=None if self.weights is None else self.weights[rows],
                       weight_record=self.weight_record, costs=self.costs)

    @property
    def total_weight(self) -> float:
        """The cases' summed weight (their number when unweighted)."""
        return float(self.n) if self.weights is None else float(self.weights.sum())

    def class_weights(self) -> np.ndarray:
        """Summed weight of each class's cases (float64; counts when unweighted)."""
        return np.bincount(self.y, weights=self.weights, minlength=len(self.schema.classes))

    def fingerprint(self) -> str:
        """SHA-256 of the schema and the multiset of encoded cases (row order does not matter).

        Returns
        -------
        str
            ``"sha256:"`` and 64 hex digits: what a model records as its `fingerprint`.
        """
        return fingerprint_of(self.schema, [self.row_hashes()])

    def row_hashes(self) -> np.ndarray:
        """One uint64 hash per case of its encoded values and class (what `fingerprint` sorts)."""
        rows = np.zeros(self.n, dtype=np.uint64)
        cols = list(self.columns) + ([] if self.y is None else [self.y.astype(np.int64)])
        with np.errstate(over="ignore"):
            for c in cols:
                bits = np.ascontiguousarray(c.astype(np.float64)).view(np.uint64)
                # splitmix-style mixing so that equal rows collide and different rows do not
                rows = (rows ^ bits) * np.uint64(0x9E3779B97F4A7C15)
                rows ^= rows >> np.uint64(31)
        return rows


def fingerprint_of(schema: Schema, row_hashes: list[np.ndarray]) -> str:
    """Dataset.fingerprint of the cases whose `row_hashes` (Dataset.row_hashes, of any parts
    of the cases in any order) are given: the multiset is sorted, so the order does not matter."""
    h = hashlib.sha256()
    h.update(repr(schema).encode("utf-8"))
    rows = np.concatenate(row_hashes) if row_hashes else np.zeros(0, dtype=np.uint64)
    h.update(np.sort(rows).tobytes())
    return "sha256:" + h.hexdigest()


def class_counts(data: Dataset) -> np.ndarray:
    """Number of training cases of each class."""
    return np.bincount(data.y, minlength=len(data.schema.classes))
