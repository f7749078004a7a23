"""The jobs option: workers (forked, or threads for compiled steps) give exactly what one process gives."""
import os

import numpy as np
import pytest

import reference as R
from c45rules import fit
from c45rules.data import load_stem
from c45rules.errors import InputError
from c45rules.learn.pipeline import learn_tree
from c45rules.export.yaml import dump_yaml
from c45rules.rules import generalize, select
from c45rules.rules.coding import attribute_test_bits, branch_bits, rule_bits
from c45rules.rules.generalize import generalise_rules
from c45rules.tree import grow
from c45rules.workers import fork_map, thread_map


def _pid_and_square(i: int) -> tuple[int, int]:
    return os.getpid(), i * i


def test_fork_map_keeps_task_order_and_runs_in_other_processes():
    out = fork_map(_pid_and_square, 7, 2)
    assert [sq for _, sq in out] == [0, 1, 4, 9, 16, 25, 36]
    pids = {pid for pid, _ in out}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    # one job: this process, same results
    assert fork_map(_pid_and_square, 3, 1) == [(os.getpid(), 0), (os.getpid(), 1), (os.getpid(), 4)]


def test_fork_map_without_fork_runs_in_this_process(monkeypatch):
    import multiprocessing
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert fork_map(_pid_and_square, 3, 2) == [(os.getpid(), 0), (os.getpid(), 1), (os.getpid(), 4)]


def test_one_job_per_core_and_more_jobs_than_tasks():
    from c45rules.workers import available_cores, resolve_jobs
    assert resolve_jobs(-1) == available_cores() >= 1 and resolve_jobs(3) == 3
    out = fork_map(_pid_and_square, 2, 8)        # at most one worker per task
    assert [sq for _, sq in out] == [0, 1]
    assert [sq for _, sq in fork_map(_pid_and_square, 3, -1)] == [0, 1, 4]


def test_fork_map_passes_a_workers_error_on():
    def boom(i: int) -> int:
        if i == 2:
            raise ValueError("task 2 failed")
        return i
    with pytest.raises(ValueError, match="task 2 failed"):
        fork_map(boom, 4, 2)
    # and the next call works normally
    assert fork_map(lambda i: i + 1, 3, 2) == [1, 2, 3]


def _shape(node) -> tuple:
    return (node.kind, node.attribute, node.cut, node.klass, node.items, node.errors,
            tuple(node.class_dist.tolist()), tuple(_shape(b) for b in node.branches))


@pytest.mark.parametrize("name", ["letter", "crx", "shuttle"])
def test_tree_grown_with_two_workers_equals_one_process(name, monkeypatch):
    train, _ = load_stem(R.stem(name))
    one = grow.grow_tree(train)
    calls = []

    def spying(pool_map):
        def spy(fn, count, jobs):
            calls.append(jobs)
            return pool_map(fn, count, jobs)
        return spy
    # forked workers, or threads where the compiled passes do the work
    monkeypatch.setattr(grow, "fork_map", spying(fork_map))
    monkeypatch.setattr(grow, "thread_map", spying(thread_map))
    monkeypatch.setattr(grow, "_FORK_WORK", 0)     # fork at every level, however small
    two = grow.grow_tree(train, jobs=2)
    assert _shape(two) == _shape(one) and one.size() > 50
    assert calls.count(2) >= 4


def _candidates(name):
    train, _ = load_stem(R.stem(name))
    return train, learn_tree(train)


@pytest.mark.parametrize("name", ["crx", "credit-g", "soybean"])
def test_generalisation_in_two_workers_equals_one_process(name, monkeypatch):
    monkeypatch.setattr(generalize, "_SPLIT_WORK", 0)      # runs in workers even on small data
    train, tree = _candidates(name)
    one = generalise_rules(tree.unpruned, train, jobs=1)
    two = generalise_rules(tree.unpruned, train, jobs=2)
    assert len(one) == len(two) > 20
    for a, b in zip(one, two):
        assert (a.number, a.conditions, a.klass, a.error, a.covered, a.errors) == \
            (b.number, b.conditions, b.klass, b.error, b.covered, b.errors)
        assert np.array_equal(a.cover, b.cover) and a.cover.dtype == b.cover.dtype
    if generalize._native is not None:
        # the runs' covers joined per class: the subset search reads each class's where they lie
        for klass in {r.klass for r in two}:
            mine = [r.cases for r in two if r.klass == klass]
            assert all(c.data is mine[0].data for c in mine)


def test_one_process_keeps_every_rule_c45rules_keeps_on_data_with_unknowns(tmp_path):
    # leaves reaching the same conditions by deleting conditions at other places print them
    # in another order (c4.5rules' sort), and c4.5rules' duplicate test is order by order:
    # both are candidates. A shortcut that stopped a leaf reaching an earlier leaf's state
    # lost such rules in one process (149 rules here instead of 126), not with workers
    import subprocess
    import sys
    subprocess.run([sys.executable, str(R.SHARED / "tools" / "make_synth.py"), "--sizes", "100k", "--missing",
                    "0.05", "--outroot", str(tmp_path)], check=True, capture_output=True)
    train, _ = load_stem(str(tmp_path / "synth_100k" / "synth_100k"))
    tree = learn_tree(train)
    one = generalise_rules(tree.unpruned_flat, train, jobs=1)
    generalize._SPLIT_WORK, saved = 0, generalize._SPLIT_WORK
    try:
        two = generalise_rules(tree.unpruned_flat, train, jobs=2)
    finally:
        generalize._SPLIT_WORK = saved
    assert len(one) == len(two) == 13373
    assert [(r.conditions, r.klass, r.covered, r.errors) for r in one] == \
        [(r.conditions, r.klass, r.covered, r.errors) for r in two]
    assert fit(train).rules.__len__() == 126


@pytest.mark.parametrize("name", ["crx", "monk2", "soybean"])
@pytest.mark.parametrize("compiled", [True, False])
def test_greedy_trials_in_two_workers_choose_the_same_rules(name, compiled, monkeypatch):
    """Compiled climbs go in threads (they let go of the GIL), numpy ones in forked workers."""
    if not compiled:
        monkeypatch.setattr(select, "_native", None)
    train, tree = _candidates(name)
    cands = generalise_rules(tree.unpruned, train)
    bb = branch_bits(train)
    nvals = [len(a.values) for a in train.schema.attributes]
    bits = {r.number: rule_bits(r.conditions, bb, attribute_test_bits(bb), nvals, 1.0) for r in cands}
    C = len(train.schema.classes)
    one = [r.number for r in select.select_rules(cands, bits, train.y, C, jobs=1)]
    calls = []

    def spy(name, pool_map):
        def mapped(fn, count, jobs):
            calls.append((name, count, jobs))
            return pool_map(fn, count, jobs)
        return mapped
    monkeypatch.setattr(select, "fork_map", spy("fork", fork_map))
    monkeypatch.setattr(select, "thread_map", spy("thread", thread_map))
    monkeypatch.setattr(select, "_FORK_PAIRS", 0)     # workers even for these small classes
    two = [r.number for r in select.select_rules(cands, bits, train.y, C, jobs=2)]
    assert two == one and len(one) > 0
    way = "thread" if compiled and select._native is not None else "fork"
    assert calls and all(c == (way, 11, 2) for c in calls)


def test_generalisation_splits_only_work_worth_splitting(monkeypatch):
    # one run below the threshold (each run starts its pools and caches afresh), else two per worker
    assert generalize._chunks(16623, 2, 100_000 * 16623) == [(0, 16623)]
    assert generalize._chunks(143949, 2, 1e6 * 143949) == [(0, 35987), (35987, 71974), (71974, 107961),
                                                           (107961, 143949)]
    assert generalize._chunks(3, 4, 1e12) == [(0, 1), (1, 2), (2, 3)]
    assert generalize._chunks(143949, 1, 1e12) == [(0, 143949)]
    runs = []

    def in_turn(fn, count, jobs):
        runs.append((fn.__name__, count))
        return [fn(i) for i in range(count)]

    monkeypatch.setattr(generalize, "thread_map", in_turn)
    monkeypatch.setattr(generalize, "fork_map", in_turn)
    train, tree = _candidates("crx")
    generalise_rules(tree.unpruned, train, jobs=2)
    monkeypatch.setattr(generalize, "_SPLIT_WORK", 0)
    generalise_rules(tree.unpruned, train, jobs=2)
    # each call first gathers crx's 15 columns in threads, then runs its chunks
    assert runs == [("column", 15), ("run", 1), ("column", 15), ("run", 4)]


def test_fit_with_jobs_writes_the_same_yaml_and_does_not_record_jobs():
    one = dump_yaml(fit(R.stem("crx")))
    two = dump_yaml(fit(R.stem("crx"), jobs=2))
    assert one == two
    assert "jobs" not in one


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2", None])
def test_bad_jobs_are_named(bad):
    with pytest.raises(InputError, match="option jobs must be a whole number >= 1, or -1"):
        fit(R.stem("golf"), jobs=bad)


def test_fork_map_from_two_threads_and_inside_a_worker():
    import threading
    results = {}

    def nested(i: int) -> list:
        # inside a worker: no second pool, the tasks run in the worker itself
        return [pid == os.getpid() for pid, _ in fork_map(_pid_and_square, 2, 2)]

    def call(name: str, fn) -> None:
        results[name] = fork_map(fn, 4, 2)
    threads = [threading.Thread(target=call, args=("squares", _pid_and_square)),
               threading.Thread(target=call, args=("nested", nested))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [sq for _, sq in results["squares"]] == [0, 1, 4, 9]
    assert results["nested"] == [[True, True]] * 4


def test_no_collection_pauses_and_restores_the_collector():
    import gc

    from c45rules.workers import no_collection
    assert gc.isenabled()
    with no_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with no_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()       # left as the caller had it
    finally:
        gc.enable()
    with pytest.raises(KeyError):
        with no_collection():
            raise KeyError("x")
    assert gc.isenabled()


def _resident_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/status") or os.uname().sysname != "Linux"
                    or __import__("platform").libc_ver()[0] != "glibc", reason="glibc on Linux only")
def test_give_back_memory_returns_freed_heap_blocks_to_the_system():
    from c45rules.workers import give_back_memory
    big = np.ones(30 << 17)         # 30 MB, mapped alone; freeing it raises glibc's mmap threshold
    del big
    blocks = [np.ones(2 << 17) for _ in range(100)]     # 2 MB each, now from the heap: 200 MB
    last = blocks[-1]           # on top: the heap cannot shrink from its end by itself
    del blocks
    before = _resident_mb()
    assert give_back_memory() is True
    after = _resident_mb()
    assert before - after > 150, (before, after)
    assert last.sum() == 2 << 17
