"""The streamed fit (issue 50): the same model as `fit`, learnt in passes over record batches.

This module opens the batch sources and decides when to stream; learn/pipeline.py's
`fit_batches` joins the streamed stages: the tree grown one pass per level
(tree/grow_passes.py), then c4.5rules in passes (rules/passes.py), the model's fingerprint from
one more pass. Every stage sums counts that add up exactly over any split of the cases into
batches, so on data without unknown values the model file is byte for byte the in-memory one.
With unknown values the growth sums fractional weights exactly (int64 fixed point) where c4.5
adds float32 weights one case at a time: the counts may then differ in their last bits from
the in-memory fit's (and, rarely, a test), and do not depend on the batch size
(docs/large-data.md).

What needs the rows in memory is refused by name (`refuse_in_memory`): boosting, windowing,
winnowing, other growers, subset tests, soft thresholds, case weights, misclassification costs
(growth in passes labels empty branches otherwise), tuning. Pruning (c4.5's
subtree raising re-routes a node's cases through its largest branch) needs them too: the rules
come from the unpruned tree, so `fit` and `rules` need no pruned tree, but `tree` and
`fit --keep-tree` do.

`--memory BUDGET` streams only when the in-memory fit would not fit the budget, estimated as
rows x columns x IN_MEMORY_CELL_BYTES.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from ..data.costs import with_costs
from ..data.passes import reduce_batches
from ..data.schema import Dataset, Schema
from ..errors import InputError
from ..tree.grow_passes import size_text
from ..workers import give_back_memory

# bytes of the in-memory fit's peak per table cell (rows x columns, the class included):
# BENCHMARKS.md's synth_1m (31 columns) peaks at 536 MB growing the tree (17 bytes a cell),
# synth_1m_u5 (5% unknowns) at 994 MB (32 bytes a cell); the larger, to stay within a budget
IN_MEMORY_CELL_BYTES = 32
AVC_ENTRY_BYTES = 8        # one int64 fixed-point sum per (value, class) of an AVC group
DEFAULT_TABLE_MEMORY = 1 << 30   # the growth's tables' budget without --memory (tree/grow_passes.py)
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_memory(text: str | int | float, name: str = "--memory") -> int:
    """A memory budget in bytes from ``2GB``, ``512M``, ``1.5G``, ``4096`` (K, M, G, T: powers of 1024).

    Examples
    --------
    >>> parse_memory("2GB"), parse_memory("512m"), parse_memory(1000)
    (2147483648, 536870912, 1000)
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool) and text > 0:
        return int(text)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", str(text), re.IGNORECASE)
    if m is None or float(m.group(1)) <= 0:
        raise InputError(f"{name} must be a size such as 2GB, 512MB or 1.5G, got {text!r}",
                         params=("memory",))
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def in_memory_bytes(rows: int, schema: Schema) -> int:
    """The estimated peak of the in-memory fit of `rows` cases of `schema` (module docstring)."""
    return rows * (len(schema.attributes) + 1) * IN_MEMORY_CELL_BYTES


def fits_in_memory(rows: int, schema: Schema, budget: int) -> bool:
    """Whether the in-memory fit's estimated peak is within `budget` bytes."""
    return in_memory_bytes(rows, schema) <= budget


# what needs the rows in memory: (option, its default, how it is named)
_IN_MEMORY = (
    ("trials", 1, "boosting (option trials, --trials/-b)"),
    ("grower", "c45", "a grower other than c45 (option grower, --grower)"),
    ("subset", False, "subset tests (option subset, -s/--subset)"),
    ("winnow", False, "winnowing (option winnow, --winnow)"),
    ("soft", False, "soft thresholds (option soft, -p)"),
)


def refuse_in_memory(options: dict[str, Any], flag: str) -> None:
    """InputError naming the first option that needs the rows in memory (`flag`: how the
    caller asked for passes, e.g. ``--stream``)."""
    for key, default, what in _IN_MEMORY:
        if options.get(key, default) != default:
            raise needs_rows(what, flag)


def needs_rows(what: str, flag: str) -> InputError:
    """The error for `what` asked for with learning in passes."""
    if "memory" in flag:
        return InputError(f"{what} needs the rows in memory, and the table does not fit the budget {flag}:"
                          f" give a larger budget, or drop {what.split(' (')[0]}")
    return InputError(f"{what} needs the rows in memory; drop {flag}")


class _Counted:
    """A batch source that counts the whole passes and the batches of the last one, and gives
    each batch the model's costs (a pass left after its first batch is not counted)."""

    def __init__(self, source: Callable[[], Iterable[Dataset]], costs: Any) -> None:
        self.source, self.costs = source, costs
        self.passes, self.batches = 0, 0

    def __call__(self) -> Iterator[Dataset]:
        k = 0
        for batch in self.source():
            k += 1
            yield with_costs(batch, self.costs)
        self.passes, self.batches = self.passes + 1, k

    def reduce(self, zero: Callable[[], Any], count: Callable[[Any, Dataset], Any],
               merge: Callable[[Any, Any], Any]) -> Any:
        """One pass through the source's own executor when it has one (data/passes.py), else here."""
        run = getattr(self.source, "reduce", None)
        if run is None:
            return reduce_batches(lambda: self(), zero, count, merge)   # a lambda: no reduce, read here
        costs = self.costs

        def counted(table: Any, batch: Dataset) -> Any:
            return count(table, with_costs(batch, costs))
        table = run(zero, counted, merge)
        self.passes, self.batches = self.passes + 1, getattr(self.source, "last_batches", 0)
        return table


@dataclass
class StreamFacts:
    """How a streamed fit went: passes over the data (the schema pass included), batches per
    pass, the largest AVC group the growth held (attribute, tree level, entries, bytes), the
    growth's passes per tree level, the most bytes of tables one pass held and their budget,
    the rules stages' passes and tables (rules.passes.PassReport.as_dict), the tree levels
    whose fractional weights were summed exactly, not in c4.5's order, the growths and whether
    every fractional weight was c4.5's (docs/large-data.md, "Sums")."""

    passes: int = 0
    batches: int = 0
    batch_rows: int = 0
    rows: int = 0
    largest_group: dict[str, Any] = field(default_factory=dict)
    passes_per_level: list[int] = field(default_factory=list)
    table_bytes: int = 0
    table_budget: int = 0
    driver_bytes: list[int] = field(default_factory=list)
    rules: dict[str, int] = field(default_factory=dict)   # rules.passes.PassReport.as_dict
    exact_sum_levels: list[int] = field(default_factory=list)   # grow_passes.grow_in_passes
    growths: int = 1            # grow_in_passes' growths (more where a growth's weights did not check)
    settled: int = 0            # and its passes settling the factors between them
    exact_weights: bool = True  # False: the growths stopped at their limit, or sums were folded
    planned_bytes: int = 0      # the most bytes the growth's plan gave one pass (grow_passes._PassGrower.plan)
    tree_bytes: int = 0         # the most the growth's tree held beside the tables (_PassGrower.tree_bytes)
    accounted_bytes: int = 0    # the most a growth pass was given, tree included (<= table_budget)

    def as_dict(self) -> dict[str, Any]:
        """The facts as `fit --json` prints them under "stream" (learnt on Spark: the bytes each
        pass sent the driver, learn/spark.py, and that the fractional weights of cases with an
        unknown tested value were summed in the partitions' order, docs/large-data.md "Sums")."""
        spark = {"driver_bytes_per_pass": self.driver_bytes, "case_order": "partitions"} if self.driver_bytes else {}
        return {**spark, "passes": self.passes, "batches_per_pass": self.batches, "batch_rows": self.batch_rows,
                "rows": self.rows, "largest_avc_group": self.largest_group,
                "growth_passes_per_level": self.passes_per_level, "peak_table_bytes": self.table_bytes,
                "planned_table_bytes": self.planned_bytes, "tree_bytes": self.tree_bytes,
                "accounted_bytes": self.accounted_bytes, "table_budget": self.table_budget,
                "exact_sum_levels": self.exact_sum_levels,
                "growths": self.growths, "settled": self.settled, "exact_weights": self.exact_weights,
                "rules": self.rules}


def open_for_passes(data: Any, target: str | None, *, read: Any, stream: bool, memory: str | int | None,
                    batch_rows: int, query: str | None, weighted: bool, flags: tuple[str, str],
                    **kinds: Any) -> tuple[Any, int | None, str] | None:
    """(batch source, budget in bytes or None, the flag that asked) when `data` is to be learnt
    in passes: with `stream`, for a ``duckdb:`` input, or when the in-memory fit's estimate
    exceeds `memory`; None when it fits (the caller reads the rows as usual). `flags`: how
    stream and memory are spelt to the caller (CLI or Python), for the errors."""
    from ..data.batches import DUCKDB_PREFIX, open_batches
    budget = None if memory is None else parse_memory(memory, flags[1].rstrip("="))
    if not isinstance(data, (str, os.PathLike)):
        if stream or memory is not None:
            raise InputError(f"{flags[0] if stream else flags[1]}: learning in passes reads a file, a C4.5 stem or a"
                             " duckdb: query; these rows are in memory already", params=("stream", "memory"))
        return None
    duck = str(data).startswith(DUCKDB_PREFIX)
    source = open_batches(data, target, read=read, batch_rows=batch_rows, query=query, **kinds)
    give_back_memory()      # the schema pass's reading (data/passes.py)
    if not (stream or duck) and fits_in_memory(source.n, source.schema, budget):
        return None
    flag = flags[0] if stream or duck else (
        f"{flags[1].rstrip('=')} {size_text(budget)} (the in-memory fit would need about"
        f" {size_text(in_memory_bytes(source.n, source.schema))})")
    if weighted:
        raise needs_rows("case and class weights", flag)
    return source, budget, flag
