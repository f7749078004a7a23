"""One pass over a batch source as a reduction: where the batches are counted (issues 50, 51).

Every pass of the learner in passes (tree/grow_passes.py, rules/passes.py) sums count tables
over the batches. `reduce_batches` runs such a pass through its source's executor: a source
with a `reduce` method (learn/spark.py's, whose batches live in a Spark DataFrame's partitions)
counts each partition's batches where they are and merges the partitions' tables; any other
source is read here, batch after batch, into one table (`merge` is then not needed).

The functions must not hold the source (a Spark job ships them to the executors): the state
they read, e.g. the tree grown so far, travels with them, never the rows.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar

from ..workers import give_back_memory
from .schema import Dataset

T = TypeVar("T")


def reduce_batches(batches: Callable[[], Iterable[Dataset]], zero: Callable[[], T],
                   count: Callable[[T, Dataset], T], merge: Callable[[T, T], T]) -> T:
    """One pass: `count(table, batch)` folded over the batches from `zero()`; a source with
    `reduce(zero, count, merge)` folds each of its parts so and merges the parts' tables.

    Parameters
    ----------
    batches : batch source
        A zero-argument callable returning a fresh iterable of Dataset batches (one pass).
    zero : callable
        A new empty table.
    count : callable
        Adds one batch to a table, returns the table (it may change it in place).
    merge : callable
        Two tables of disjoint cases as one (it may change the first in place).

    Returns
    -------
    The table of all the cases.

    Examples
    --------
    >>> from c45rules.cli.demo import EXAMPLE_STEM
    >>> from c45rules.data.batches import open_batches
    >>> reduce_batches(open_batches(EXAMPLE_STEM, batch_rows=200), lambda: 0, lambda t, b: t + b.n,
    ...                lambda a, b: a + b)
    490
    """
    run: Any = getattr(batches, "reduce", None)
    if run is not None:
        return run(zero, count, merge)
    table = zero()
    for batch in batches():
        table = count(table, batch)
    # what the batches held (Arrow's pool, glibc's heap) given back: a pass's reading is not
    # left resident under the tables that follow (180 MB a pass of 1M Parquet rows)
    give_back_memory()
    return table
