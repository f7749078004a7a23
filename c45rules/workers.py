"""Running a step's independent pieces in forked worker processes (the `jobs` option).

Workers are forked, so they read the parent's arrays without copying or pickling them,
and send back only their results; results come back in task order, so the output never
depends on the number of jobs. Where fork is not available (Windows, or a platform that
refuses it) the pieces run one after another in this process. Pieces done in compiled
code that lets go of the GIL run in threads instead (thread_map), in task order too.
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import mmap
import os
import sys
import threading
from typing import Callable, Iterator, TypeVar

import numpy as np
from numpy.typing import DTypeLike

T = TypeVar("T")

_task: Callable[[int], object] | None = None      # what forked workers run (inherited)
# held while a pool runs: another thread, or a worker (which inherits it held), runs its
# tasks in-process instead of forking with the wrong _task
_busy = threading.Lock()


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_jobs(jobs: int) -> int:
    """The number of worker processes for `jobs` (-1: one per available core)."""
    return available_cores() if jobs == -1 else jobs


def shared_empty(shape: tuple[int, ...], dtype: DTypeLike) -> np.ndarray:
    """An uninitialised array in shared memory: what forked workers write, this process sees."""
    count = int(np.prod(shape))
    buf = mmap.mmap(-1, max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape)


def _call(i: int) -> object:
    assert _task is not None
    return _task(i)


def fork_map(fn: Callable[[int], T], count: int, jobs: int) -> list[T]:
    """[fn(0), ..., fn(count - 1)], computed by up to `jobs` forked workers."""
    global _task
    jobs = min(resolve_jobs(jobs), count)
    if jobs <= 1:
        return [fn(i) for i in range(count)]
    # imported here: multiprocessing and its imports are a tenth of a small run's start-up
    import multiprocessing
    if "fork" not in multiprocessing.get_all_start_methods():
        return [fn(i) for i in range(count)]
    if not _busy.acquire(blocking=False):
        return [fn(i) for i in range(count)]
    _task = fn
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return pool.map(_call, range(count), chunksize=1)
    finally:
        _task = None
        _busy.release()


def _call_on(item: object) -> object:
    assert _task is not None
    return _task(item)


def fork_imap(fn: Callable[[object], T], items: Iterator[object], jobs: int, ahead: int = 2) -> Iterator[T]:
    """fn(item) for each of `items`, in their order, computed by up to `jobs` forked workers
    while the items are still being read: at most `ahead` items per worker are in flight, so
    memory stays bounded (Pool.imap would read every item first). Without fork, or with one
    job, in this process."""
    global _task
    jobs = resolve_jobs(jobs)
    import multiprocessing
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods() or not _busy.acquire(blocking=False):
        yield from map(fn, items)
        return
    from collections import deque
    _task = fn
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            pending: deque = deque()
            for item in items:
                pending.append(pool.apply_async(_call_on, (item,)))
                if len(pending) >= jobs * ahead:
                    yield pending.popleft().get()
            while pending:
                yield pending.popleft().get()
    finally:
        _task = None
        _busy.release()


def thread_map(fn: Callable[[int], T], count: int, jobs: int) -> list[T]:
    """[fn(0), ..., fn(count - 1)] in up to `jobs` threads: for work done in compiled code
    that lets go of the GIL, where a fork would cost more than it saves."""
    jobs = min(resolve_jobs(jobs), count)
    if jobs <= 1:
        return [fn(i) for i in range(count)]
    from concurrent.futures import ThreadPoolExecutor    # as multiprocessing in fork_map
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(fn, range(count)))


@contextlib.contextmanager
def no_collection() -> Iterator[None]:
    """Pause Python's cyclic garbage collection for the block (restored after, as it was).

    The tree and rule steps make hundreds of thousands of long-lived objects (nodes,
    conditions, rules) and no reference cycles; with collection on, each full pass walks
    all of them again (copying the 1M-case tree took 3.5 s instead of 1.0 s)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _find_malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):     # not glibc: nothing to call
        return None


_malloc_trim = _find_malloc_trim()


def give_back_memory() -> bool:
    """Return the C heap's free pages to the system, and Arrow's pool's where pyarrow is
    loaded; False where glibc's cannot be asked for.

    glibc keeps freed blocks below its mmap threshold (which grows to 32 MB as big arrays
    come and go) mapped in the process, so the temporaries of one step (hundreds of MB in
    total at 1M cases) stayed resident under the next step's peak. Arrow's pool (mimalloc)
    keeps what a pass over a Parquet file freed: 180 MB after the schema pass of 1M rows."""
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True
