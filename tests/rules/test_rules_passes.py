"""c4.5rules in passes over batches (rules/passes.py, issue 50): the same RuleSet as learn_rules,
YAML for YAML, on every shared set, at batch sizes that put every stage across batch boundaries."""
import numpy as np
import pytest

import reference as R
from c45rules.rules import passes
from c45rules.data import load_stem
from c45rules.errors import InputError
from c45rules.export.yaml import dump_yaml
from c45rules.learn.pipeline import learn_rules, learn_tree
from c45rules.learn.pipeline import learn_rules_in_passes
from c45rules.rules.passes import PassReport

# big sets: batches of 997 (9973 for the largest) keep the file's time down; the rest: 7
BATCH = {"letter": 997, "income": 997, "shuttle": 997, "synth_10k": 997, "spambase": 997, "hypo": 97,
         "fertility": 9973, "synth_100k": 33334}
SLOW = {"synth_100k"}     # about 40 s: marked slow (pytest -m "not slow" leaves it out)


def batches(ds, k):
    """A batch source over an in-memory Dataset (h50src's dataset_batches, written inline)."""
    return lambda: (ds.subset(np.arange(i, min(i + k, ds.n))) for i in range(0, ds.n, k))


def both(name, k=None, **options):
    ds, _ = load_stem(R.stem(name))
    tree = learn_tree(ds)
    report = PassReport()
    memory, trace = learn_rules(tree, ds, **options)
    streamed, trace2 = learn_rules_in_passes(tree.unpruned_flat, batches(ds, k or BATCH.get(name, 7)),
                                             fingerprint=ds.fingerprint(), report=report, **options)
    return ds, memory, streamed, trace, trace2, report


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in R.datasets()])
def test_streamed_rules_equal_in_memory(name):
    ds, memory, streamed, trace, trace2, report = both(name)
    assert dump_yaml(streamed) == dump_yaml(memory)
    # the candidates and the rules before sifting alike too, and the sifted ones
    assert [(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in trace2.candidates] == \
        [(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in trace.candidates]
    assert [r.number for r in trace2.final] == [r.number for r in trace.final]
    assert trace2.dropped == trace.dropped
    # every case is in one group of each table; the generalisation took a pass per round, the
    # selection's tables (all classes at once) one more, the selected rules' table one more
    assert report.rows == ds.n
    assert report.passes == report.round_passes + (report.candidates > 0) + (report.selected > 0)
    # a pass counts one round, or two (a guess that held)
    assert report.round_passes <= report.rounds <= 2 * report.round_passes
    assert report.selected == len(trace2.final) and report.selected_patterns <= ds.n


@pytest.mark.parametrize("k", [1, 2, 64, 10_000])
def test_batch_size_changes_nothing(k):
    ds, memory, streamed, *_ = both("labor-neg" if k == 1 else "crx", k)
    assert dump_yaml(streamed) == dump_yaml(memory)


def test_options_fisher_redundancy_annealing():
    for options in ({"fisher": 25.0}, {"redundancy": 2.0}, {"annealing": True, "seed": 3}, {"cf": 0.1}):
        _, memory, streamed, *_ = both("vehicle", 13, **options)
        assert dump_yaml(streamed) == dump_yaml(memory), options


def test_unknown_values_cross_batches():
    # labor: a third of the cells unknown; soybean: discrete unknowns; hypo: 5%
    for name in ("labor", "soybean", "hypo"):
        _, memory, streamed, *_ = both(name, 3)
        assert dump_yaml(streamed) == dump_yaml(memory), name


def test_bad_batches():
    ds, _ = load_stem(R.stem("golf"))
    tree = learn_tree(ds).unpruned_flat
    with pytest.raises(InputError, match="no cases"):
        learn_rules_in_passes(tree, lambda: iter(()), fingerprint="x")
    weighted = ds.subset(np.arange(ds.n))
    weighted.weights = np.ones(ds.n)
    with pytest.raises(InputError, match="weighted"):
        learn_rules_in_passes(tree, lambda: iter([weighted]), fingerprint="x")
    other, _ = load_stem(R.stem("iris"))
    with pytest.raises(InputError, match="differ"):
        learn_rules_in_passes(tree, lambda: iter([ds, other]), fingerprint="x")
    unlabelled = ds.subset(np.arange(ds.n))
    unlabelled.y = None
    with pytest.raises(InputError, match="no class column"):
        learn_rules_in_passes(tree, lambda: iter([unlabelled]), fingerprint="x")


def test_costs():
    from c45rules.data.costs import cost_option, with_costs
    ds, _ = load_stem(R.stem("crx"))
    for costs in ({("+", "-"): 5}, {("-", "+"): 0.25, ("+", "-"): 3}):
        data = with_costs(ds, cost_option(costs))
        tree = learn_tree(data)
        memory, _ = learn_rules(tree, data)
        streamed, _ = learn_rules_in_passes(tree.unpruned_flat, batches(data, 7), fingerprint=data.fingerprint())
        assert dump_yaml(streamed) == dump_yaml(memory), costs
    # a tenth has no exact sums: refused, not a model that might differ in its last bit
    data = with_costs(ds, cost_option({("+", "-"): 0.1}))
    with pytest.raises(InputError, match="costs"):
        learn_rules_in_passes(learn_tree(data).unpruned_flat, batches(data, 7), fingerprint="x")


def test_one_leaf_tree_and_empty_batches():
    import pandas as pd
    from c45rules.data.frame import from_frame
    ds = from_frame(pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "class": ["n", "y", "n", "y", "n", "n"]}), "class")
    tree = learn_tree(ds)
    memory, _ = learn_rules(tree, ds)
    parts = [np.arange(0), np.arange(3), np.arange(0), np.arange(3, 6)]
    report = PassReport()
    streamed, _ = learn_rules_in_passes(tree.unpruned_flat, lambda: (ds.subset(p) for p in parts),
                                        fingerprint=ds.fingerprint(), report=report)
    assert dump_yaml(streamed) == dump_yaml(memory)
    assert (report.passes, report.candidates, report.rows) == (1, 0, 6)


# ---- the compiled kernels (round_tables, fire_rows, group_rows) against the numpy ones ----

def rule_lists(rules):
    """The compiled kernels' rule lists: the rules' truth rows one after another, and starts."""
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rules])]).astype(np.int64)
    return np.array([c for r in rules for c in r], dtype=np.int32), ptr


def test_compiled_and_numpy_passes_agree(monkeypatch):
    # the numpy fallback counts rounds, builds the firing table and groups it alike: same
    # rules; the compiled path is what the tests above run
    from c45rules.rules import passes
    if passes._native is None:
        pytest.skip("no compiled module")
    for name, k in (("crx", 7), ("labor", 3), ("vehicle", 97)):
        ds, memory, streamed, *_ = both(name, k)
        monkeypatch.setattr(passes, "_native", None)
        numpy_made, _ = learn_rules_in_passes(learn_tree(ds).unpruned_flat, batches(ds, k), fingerprint=ds.fingerprint())
        monkeypatch.undo()
        assert dump_yaml(numpy_made) == dump_yaml(streamed) == dump_yaml(memory), name


def test_round_tables_equal_numpy_counts():
    from c45rules.rules import passes
    if passes._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(5)
    n, n_rows, n_classes = 1000, 12, 3
    # sparse rows (words with no true case: the skipping) and dense ones, all-cases row last
    truth = rng.random((n_rows, n)) < rng.choice([0.02, 0.5, 0.95], size=(n_rows, 1))
    truth[-1] = True
    bits = passes._bits(truth)
    y = rng.integers(0, n_classes, n)
    wrong = passes._bits(np.arange(n_classes)[:, None] != y[None, :])
    rules = [list(rng.choice(n_rows - 1, size=m, replace=False)) for m in (1, 2, 3, 5, 8, 2, 1, 4)]
    klass = rng.integers(0, n_classes, len(rules))
    flat, ptr = rule_lists(rules)
    t0, e0 = np.zeros(len(rules), dtype=np.int64), np.zeros(len(rules), dtype=np.int64)
    td, ed = np.zeros((len(rules), 8), dtype=np.int64), np.zeros((len(rules), 8), dtype=np.int64)
    passes._native.round_tables(bits, n, wrong, flat, ptr, klass.astype(np.int32), t0, e0, td, ed)
    for i, rule in enumerate(rules):
        bad = y != klass[i]
        fails = (~truth[rule]).sum(axis=0)
        assert (t0[i], e0[i]) == ((fails == 0).sum(), ((fails == 0) & bad).sum())
        for d, c in enumerate(rule):
            but_d = (fails == 0) | ((fails == 1) & ~truth[c])
            assert (td[i, d], ed[i, d]) == (but_d.sum(), (but_d & bad).sum())
    with pytest.raises(ValueError, match="condition rows"):
        passes._native.round_tables(bits, n, wrong, flat + n_rows, ptr, klass.astype(np.int32), t0, e0, td, ed)


def test_fire_lists_and_group_lists():
    from c45rules.rules import passes
    if passes._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(8)
    n, n_rows = 9000, 6
    truth = rng.random((n_rows, n)) < 0.6
    rules = [[0], [1, 2], [3, 4, 5], [0, 5], [], [2, 3], [1], [4], [0, 1, 2, 3]]
    flat, ptr = rule_lists(rules)
    y = rng.integers(0, 300, n).astype(np.int32)
    at = np.empty(n + 1, dtype=np.int64)
    ids = np.frombuffer(passes._native.fire_lists(passes._bits(truth), n, flat, ptr, y, at), dtype=np.int32)
    fire = np.stack([truth[r].all(axis=0) for r in rules], axis=1)
    lists = [ids[at[c]:at[c + 1]].tolist() for c in range(n)]
    assert lists == [[int(y[c])] + np.flatnonzero(fire[c]).tolist() for c in range(n)]
    # packed, as the tables hold them: pack_lists' words, no byte of a list 0 (its padding's are)
    word_at = np.empty(n + 1, dtype=np.int64)
    words = np.frombuffer(passes._native.fire_lists(passes._bits(truth), n, flat, ptr, y, word_at, True),
                          dtype=np.int32)
    packed_at, packed = passes.pack_lists(at, ids)
    assert np.array_equal(word_at, packed_at) and np.array_equal(words, packed)
    assert words.nbytes < ids.nbytes / 2
    # grouping across several doublings of the table (lists and room): the distinct lists in
    # first-seen order, each with its summed count, and the numbers they hold
    table = passes._Lists()
    for lo in range(0, n, 500):
        hi = min(lo + 500, n)
        table.add(word_at[lo:hi + 1] - word_at[lo], words[word_at[lo]:word_at[hi]], np.full(hi - lo, 2, dtype=np.int64))
    key_at, keys = passes.unpack_lists(*table.merged()[:2])
    sums = table.merged()[2]
    seen: dict[tuple, int] = {}
    for one in lists:
        seen[tuple(one)] = seen.get(tuple(one), 0) + 2
    assert len(seen) > 4096       # past the first table's lists
    assert [tuple(keys[key_at[g]:key_at[g + 1]].tolist()) for g in range(len(sums))] == list(seen)
    assert sums.tolist() == list(seen.values())
    assert table.ids == sum(map(len, seen))
    assert np.array_equal(passes.list_labels(*table.merged()[:2]), [one[0] for one in seen])


@pytest.mark.parametrize("compiled", [True, False])
def test_threshold_and_value_rows(compiled, monkeypatch):
    from c45rules.rules import passes
    if not compiled:
        monkeypatch.setattr(passes, "_native", None)
    col = np.array([0.5, np.nan, -0.0, 2.0, 0.0, 7.0, 2.0, np.nan, -3.0] * 10)
    cuts = np.array([-0.0, 2.0, 2.5, 9.0])
    got, at_most, known = passes._at_most_rows(col, cuts, 2)
    with np.errstate(invalid="ignore"):
        assert (at_most == passes._bits(col[None, :] <= cuts[:, None])).all()
        assert (~at_most & known == passes._bits(col[None, :] > cuts[:, None])).all()
    codes = np.array([2, -1, 0, 2, 1] * 30)
    assert (passes._value_rows(codes, 3, 3) == passes._bits(codes[None, :] == np.arange(3)[:, None])).all()


@pytest.mark.parametrize("subset", [False, True])
def test_compiled_truth_rows_equal_numpy_ones(subset, monkeypatch):
    """The compiled slice_truth (one call a slice, without the GIL) makes the rows numpy makes:
    any rows chosen, any slice (not a multiple of 64 cases), thresholds of both sides sharing
    cuts, discrete and subset tests, unknown values (more of them made here) in none."""
    if passes._native is None:
        pytest.skip("no compiled module")
    ds, _ = load_stem(R.stem("crx"))
    tree = learn_tree(ds, subset=subset).unpruned_flat
    rng = np.random.default_rng(5)
    holed = ds.subset(np.arange(ds.n))
    for a, col in enumerate(holed.columns):
        gone = rng.random(ds.n) < 0.1
        if col.dtype.kind == "f":
            col[gone] = np.nan
        else:
            col[gone] = -1
    compiled, numpy_made = passes._Conditions(tree), passes._Conditions(tree)
    kinds = set(compiled.paths.kind.tolist())
    assert {passes.THRESHOLD, passes.DISCRETE if not subset else passes.SUBSET} <= kinds
    def numpy_rows(*args):
        raise AssertionError("the compiled truth made rows in numpy")
    for trial in range(12):
        used = np.flatnonzero(rng.random(compiled.count) < (1.0 if trial == 0 else rng.random()))
        row = compiled.rows_of(used)
        lo = int(rng.integers(0, ds.n - 1))
        hi = int(rng.integers(lo + 1, ds.n + 1))
        with monkeypatch.context() as m:
            m.setattr(passes, "_at_most_rows", numpy_rows)
            m.setattr(passes, "_value_rows", numpy_rows)
            got = compiled.truth(holed, lo, hi, row).copy()
        with monkeypatch.context() as m:
            m.setattr(passes, "_native", None)
            want = numpy_made.truth(holed, lo, hi, row)
        assert got.shape == want.shape and np.array_equal(got, want)
        # each made row is its condition's truth, unknown values in none
        for c in used[:40].tolist():
            with np.errstate(invalid="ignore"):
                holds = compiled.condition(c).holds(holed.columns[compiled.paths.attribute[c]][lo:hi])
            assert np.array_equal(got[row[c]], passes._bits(holds[None, :])[0])
        assert np.array_equal(got[row[compiled.count]], passes._bits(np.ones((1, hi - lo), dtype=bool))[0])


def test_slice_truth_ranks_values_among_any_cuts():
    """slice_truth's thresholds on random cuts (1 to 70 of them, values equal to cuts, unknown
    values): each side's row is the comparison's, the all-cases row every case."""
    if passes._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(1)
    for _ in range(200):
        cuts = np.unique(rng.integers(0, 100, int(rng.integers(1, 70))).astype(float))
        n, nc = int(rng.integers(1, 300)), len(cuts)
        x = rng.integers(-5, 105, n).astype(float)
        x[rng.random(n) < 0.1] = np.nan
        entries = np.array([[0, passes.THRESHOLD, side, j, 0, 2 * j + side] for j in range(nc) for side in (0, 1)],
                           dtype=np.int64)
        out = np.zeros((2 * nc + 1, -(-n // 64)), dtype=np.uint64)
        passes._native.slice_truth((x,), n, 0, n, entries, cuts, np.array([0, nc], dtype=np.int64),
                                   np.zeros(0, dtype=np.uint8), 2 * nc, out)
        with np.errstate(invalid="ignore"):
            want = np.concatenate([np.stack([x <= c, x > c]) for c in cuts] + [np.ones((1, n), dtype=bool)])
        assert np.array_equal(out, passes._bits(want))


def test_packed_covers_are_the_groups_of_each_rule():
    from c45rules.rules import passes
    rng = np.random.default_rng(2)
    fire = rng.random((5000, 21)) < rng.choice([0.0, 0.001, 0.3], size=21)
    at = np.concatenate([[0], np.cumsum(1 + fire.sum(axis=1))])
    ids = np.concatenate([[7] + np.flatnonzero(f).tolist() for f in fire]).astype(np.int32)
    covers = passes._covers(*passes.pack_lists(at, ids), 21)
    assert [c.unpack(np.int64).tolist() for c in covers] == [np.flatnonzero(f).tolist() for f in fire.T]
    assert len({id(c.data) for c in covers}) == 1      # one buffer: the subset search reads it in place


# ---- the grouped tables the selection and the ordering read, within a memory budget ----

def test_tables_within_a_budget_take_more_passes_same_rules():
    # the selection's per-class tables together exceed the budget: the largest are counted in
    # later passes, each pass's tables within it, and the rules do not change
    ds, _ = load_stem(R.stem("vehicle"))
    tree = learn_tree(ds)
    memory, _ = learn_rules(tree, ds)
    free = PassReport()
    learn_rules_in_passes(tree.unpruned_flat, batches(ds, 97), fingerprint=ds.fingerprint(), report=free)
    assert free.table_bytes > 0 and free.passes == free.round_passes + 2
    budget = free.table_bytes * 2 // 3
    bounded = PassReport()
    streamed, _ = learn_rules_in_passes(tree.unpruned_flat, batches(ds, 97), fingerprint=ds.fingerprint(),
                                        report=bounded, memory=budget)
    assert dump_yaml(streamed) == dump_yaml(memory)
    assert bounded.passes > free.passes and 0 < bounded.table_bytes <= budget
    assert (bounded.patterns, bounded.selected_patterns) == (free.patterns, free.selected_patterns)


def test_selection_groups_by_class_not_by_all_candidates():
    # a class's table groups the cases by that class's candidates only: fewer groups than
    # the distinct firing of all the candidates (the base's one table), and no more than 2
    # per distinct pattern of its own rules
    from c45rules.rules import passes
    ds, _ = load_stem(R.stem("vehicle"))
    tree = learn_tree(ds)
    report = PassReport()
    cands, totals, stages = passes.cases_in_passes(tree.unpruned_flat, batches(ds, 97), report=report)
    tables = stages.class_tables()
    fire = np.stack([np.logical_and.reduce([t.holds(ds.columns[t.attribute]) for t in r.conditions] or
                                           [np.ones(ds.n, dtype=bool)]) for r in cands], axis=1)
    live = np.array([passes.fires(r) for r in cands])
    every = {(int(y),) + tuple(f[live]) for y, f in zip(ds.y, fire)}
    for c, (positive, counts) in tables.items():
        mine = live & np.array([r.klass == c for r in cands])
        own = {(bool(y == c),) + tuple(f[mine]) for y, f in zip(ds.y, fire)}
        assert len(counts) == len(own) and counts.sum() == ds.n
        assert positive[counts > 0].sum() <= len(own)
        assert len(own) < len(every)
        assert counts[positive].sum() == (ds.y == c).sum()


def test_a_table_beyond_the_budget_is_refused_by_stage():
    ds, _ = load_stem(R.stem("vehicle"))
    tree = learn_tree(ds)
    with pytest.raises(InputError, match=r"^the rules' selection table of class '\w+' needs [\d.]+ kB after \d+ rows"
                                         r" of 846 \(about [\d.]+ kB at all of them\), beyond the memory budget"
                                         r" of 2 kB: give a larger budget \(--memory\), or learn fewer candidate"
                                         r" rules \(a larger -m\)$"):
        learn_rules_in_passes(tree.unpruned_flat, batches(ds, 97), fingerprint=ds.fingerprint(), memory=2048)


def test_the_largest_firing_table_is_reported():
    # fit --json's stream.rules names the largest table: its stage, class, groups, the numbers
    # its packed lists hold (each group's label and firing rules) and its bytes as budgeted
    ds, _ = load_stem(R.stem("vehicle"))
    tree = learn_tree(ds)
    report = PassReport()
    cands, totals, stages = passes.cases_in_passes(tree.unpruned_flat, batches(ds, 97), report=report)
    tables = stages.class_tables()
    largest = report.as_dict()["largest_table"]
    assert largest["stage"] == "selection" and largest["class"] in ds.schema.classes
    c = ds.schema.classes.index(largest["class"])
    mine = [r for r in cands if r.klass == c and passes.fires(r)]
    assert largest["groups"] == len(tables[c][1])
    if passes._native is not None:
        assert largest["numbers"] == largest["groups"] + sum(r.cases.count for r in mine)
    assert 0 < largest["bytes"] <= report.table_bytes


@pytest.mark.parametrize("compiled, later", [(True, "paths"), (True, "pools"), (False, "truth")])
def test_first_pass_from_pools_later_rounds_along_paths_or_guessed(compiled, later, monkeypatch):
    """Compiled, the first pass counts every leaf's path from its pool of the cases failing at
    most one condition and a later pass counts its rules along the tree's paths (many rules) or
    from their pools (few): no pass makes a condition's truth over the cases, and no round is
    guessed. Without the compiled module a later pass counts each rule's tables and those
    without its guessed next condition (the runner-up of its round before): when the round
    drops that one, two rounds in the pass. Same rules as in memory."""
    if compiled and passes._native is None:
        pytest.skip("no compiled module")
    if not compiled:
        monkeypatch.setattr(passes, "_native", None)
    # every later pass along the paths, or every one from pools
    monkeypatch.setattr(passes, "_PATH_RULES", 0 if later == "paths" else 1 << 40)
    monkeypatch.setattr(passes, "_POOL_RULES", -1 if later == "paths" else 1 << 40)
    seen = []
    counts = passes._round_counts
    truth = passes._Conditions.truth
    made = []

    def spy(conds, batches, rules, levels, targets, n_classes, tallies, schema, pools=False, **more):
        seen.append((len(rules), pools))
        made.append(0)
        try:
            return counts(conds, batches, rules, levels, targets, n_classes, tallies, schema, pools=pools, **more)
        finally:
            made.append(None)     # truth rows made after the pass are not the pass's

    def counted_truth(self, *args):
        if made[-1] is not None:
            made[-1] += 1
        return truth(self, *args)

    monkeypatch.setattr(passes, "_round_counts", spy)
    monkeypatch.setattr(passes._Conditions, "truth", counted_truth)
    ds, memory, streamed, trace, trace2, report = both("crx")
    assert dump_yaml(streamed) == dump_yaml(memory)
    made = [m for m in made if m is not None]
    assert [pools for _, pools in seen] == [True] + [later != "paths"] * (len(seen) - 1)
    assert report.rule_counts == sum(k for k, _ in seen) and report.round_passes == len(seen) > 2
    if compiled:
        # the first pass from the pools, the later ones along the paths or from pools: no
        # truth row of a condition over the cases, and one round a pass
        assert report.pool_counts == (seen[0][0] if later == "paths" else report.rule_counts)
        assert not any(made) and report.guessed_right == 0 and report.round_passes == report.rounds
    else:
        assert report.pool_counts == 0 and all(made)
        assert 0 < report.guessed_right and report.round_passes < report.rounds


def leaf_paths(name, subset):
    """A shared set, its unpruned tree (subset tests or not) and each leaf's path (path_table's
    condition numbers); skips without the compiled module, whose kernels the callers test."""
    if passes._native is None:
        pytest.skip("no compiled module")
    ds, _ = load_stem(R.stem(name))
    tree = learn_tree(ds, subset=subset).unpruned_flat
    p = passes._Conditions(tree).paths
    return ds, tree, [p.leaf_cond[p.leaf_ptr[r]:p.leaf_ptr[r + 1]].tolist() for r in range(len(p.leaf_class))]


@pytest.mark.parametrize("name, subset", [("crx", False), ("crx", True), ("vehicle", False), ("labor", True)])
def test_path_tables_equal_truth_counts(name, subset):
    # a later round's counts along the tree's paths (path_tables: each rule from its leaf's
    # path's rows over a batch) are the counts round_tables makes from every condition's truth
    # rows: unknown values, discrete, subset and threshold tests, some levels dropped, two lists
    # of a leaf, a list of no condition, the lists in no order of the leaves, batches that cut
    # the leaves' cases (5 and 37 cases) and runs of cases within a batch (_PATH_CASES), threads
    ds, tree, paths = leaf_paths(name, subset)
    rng = np.random.default_rng(5)
    conds = passes._Conditions(tree)
    leaves = list(range(len(paths))) * 2 + [0]
    kept = [[j for j in range(len(paths[r])) if rng.random() < 0.7] or [len(paths[r]) - 1] for r in leaves[:-1]]
    kept.append([])
    shuffle = rng.permutation(len(leaves)).tolist()
    leaves, kept = [leaves[i] for i in shuffle], [kept[i] for i in shuffle]
    levels = [[paths[r][j] for j in lv] for r, lv in zip(leaves, kept)]
    targets = rng.integers(0, len(ds.schema.classes), len(levels))
    for k, threads, cases in ((ds.n, 1, passes._PATH_CASES), (5, 2, passes._PATH_CASES), (37, 1, 8), (ds.n, 2, 64)):
        args = conds, batches(ds, k), list(range(len(levels))), levels, targets, len(ds.schema.classes), None, \
            ds.schema
        called = []
        on_paths = passes._Conditions.path_tables

        def spy(self, *a, **kw):
            called.append(1)
            return on_paths(self, *a, **kw)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(passes, "_PATH_CASES", cases)
            mp.setattr(passes._Conditions, "path_tables", spy)
            mp.setattr(passes, "_PATH_RULES", len(levels) + 1)
            passes._round_counts(*args, paths=(leaves, kept), threads=threads)
            assert not called      # too few rules: from truth rows
            mp.setattr(passes, "_PATH_RULES", len(levels))
            along = passes._round_counts(*args, paths=(leaves, kept), threads=threads)
        truth = passes._round_counts(*args, threads=threads)
        assert len(called) == -(-ds.n // k)
        for a, b in zip(along, truth):
            assert a.dtype == b.dtype and np.array_equal(a, b), (name, k)
    # a kept level beyond its leaf's path is refused, not read
    lists = passes._OnPaths.of([0], [[len(paths[0])]], np.zeros(1, dtype=np.int64))
    table = [np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros((1, 4), dtype=np.int64),
             np.zeros((1, 4), dtype=np.int64)]
    with pytest.raises(ValueError, match="path_tables: the lists do not agree"):
        conds.path_tables(ds, lists, table)
    # so is a threshold's rank beyond its column's known values
    rows = conds.path_rows(ds, 0, ds.n)
    lists = passes._OnPaths.of([0], [[0]], np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="path_tables: a cut's rank is out of range"):
        passes._native.path_tables(*rows[:-2], rows[-2] + ds.n + 1, lists.leaf, lists.ptr, lists.kept, rows[-1],
                                   lists.klass, lists.at, 0, 1, *table)


@pytest.mark.parametrize("name, subset", [("crx", False), ("vehicle", False), ("labor", True)])
def test_firing_along_paths_equals_truth(name, subset, monkeypatch):
    # the selection's and the ordering's firing lists found along the tree's paths (each
    # candidate's cover the AND of its leaf's kept levels' rows, path_fire_lists) are those of
    # every condition's truth rows: the same candidates, tables (groups in the same order),
    # covers; batches cutting the leaves' cases, runs of 8 and 64 cases, two threads
    if passes._native is None:
        pytest.skip("no compiled module")
    ds, _ = load_stem(R.stem(name))
    tree = learn_tree(ds, subset=subset).unpruned_flat
    along = []
    on_paths = passes._FireCounter.fired_on_paths

    def spy(self, *args):
        along[-1] += 1
        return on_paths(self, *args)
    monkeypatch.setattr(passes._FireCounter, "fired_on_paths", spy)
    made = []
    for least, cases, k, threads in ((1 << 40, passes._PATH_CASES, 37, 1), (0, passes._PATH_CASES, 37, 1),
                                     (0, 64, ds.n, 2), (0, 8, 5, 1)):
        monkeypatch.setattr(passes, "_PATH_RULES", least)
        monkeypatch.setattr(passes, "_PATH_CASES", cases)
        along.append(0)
        cands, totals, stages = passes.cases_in_passes(tree, batches(ds, k), threads=threads)
        tables = stages.class_tables()
        ordering = stages.selected_table(cands[::3])
        made.append(([(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in cands],
                     {c: [x.tolist() for x in t] for c, t in tables.items()}, [x.tolist() for x in ordering],
                     [r.cases.unpack(np.int64).tolist() for r in cands if r.cases is not None and len(r.cases)]))
    assert made[0] == made[1] == made[2] == made[3]
    assert along[0] == 0 and all(along[1:])


@pytest.mark.parametrize("name, subset", [("crx", False), ("crx", True), ("vehicle", False), ("labor", True)])
def test_pool_tables_equal_truth_counts(name, subset):
    # a batch's first-round counts of every leaf's whole path from the paths' pools are the
    # counts round_tables makes from the conditions' truth rows (unknown values, discrete,
    # subset and threshold tests; leaves sharing long prefixes, and a batch of a few cases)
    ds, tree, paths = leaf_paths(name, subset)
    rng = np.random.default_rng(3)
    for k in (ds.n, 5):
        conds = passes._Conditions(tree)
        p = conds.paths
        # every path whole (the first pass), and later rounds' lists: some levels dropped, in
        # no order of the leaves (the pools shared by the lists' common first conditions)
        kept = [[c for c in path if rng.random() < 0.7] or path[-1:] for path in paths]
        for levels in (paths, kept[::-1]):
            targets = rng.integers(0, len(ds.schema.classes), len(levels))
            args = conds, batches(ds, k), list(range(len(levels))), levels, targets, len(ds.schema.classes), None, \
                ds.schema
            pooled, truth = passes._round_counts(*args, pools=True), passes._round_counts(*args)
            for a, b in zip(pooled, truth):
                assert a.dtype == b.dtype and np.array_equal(a, b), name
    klass = p.leaf_class.astype(np.int32)
    t0, e0 = np.zeros(len(klass), dtype=np.int64), np.zeros(len(klass), dtype=np.int64)
    td, ed = np.zeros((len(klass), 1), dtype=np.int64), np.zeros((len(klass), 1), dtype=np.int64)
    with pytest.raises(ValueError, match="narrower"):
        passes._native.pool_tables(conds._compiled.columns_of(ds), *conds._compiled.conditions, p.leaf_ptr,
                                   p.leaf_cond, ds.n, conds._compiled.n_keys, ds.y.astype(np.int32), klass, t0, e0,
                                   td, ed)


class _Sent:
    """A batch source whose passes are reduced as a Spark job reduces them (learn/spark.py): each
    of two parts' tables and their merge pickled, as an executor sends them; the bytes kept per
    pass beside what the tables' arrays hold unpacked."""

    def __init__(self, ds, k):
        self.ds, self.k, self.sent, self.held = ds, k, [], []

    def __call__(self):
        return batches(self.ds, self.k)()

    def reduce(self, zero, count, merge):
        import pickle
        half = self.ds.n // 2
        parts = []
        for lo, hi in ((0, half), (half, self.ds.n)):
            table = zero()
            for i in range(lo, hi, self.k):
                table = count(table, self.ds.subset(np.arange(i, min(i + self.k, hi))))
            parts.append(pickle.loads(pickle.dumps(table)))
        table = merge(merge(zero(), parts[0]), parts[1])
        data = pickle.dumps(table)
        if isinstance(table, list):         # a generalisation round's count arrays
            arrays = [a for a in table if isinstance(a, np.ndarray)]
        elif isinstance(table, dict):       # the rules' firing tables, as lists
            arrays = [a for t in table["tables"].values() for a in t.merged()]
        else:
            arrays = []
        self.sent.append(len(data))
        self.held.append(sum(a.nbytes for a in arrays))
        return pickle.loads(data)


def test_rules_tables_sent_packed():
    """The rules passes' tables (the round counts, the firing tables) travel packed to a Spark
    driver, in under a third of their arrays' bytes, and come back exactly: the same rules."""
    ds, _ = load_stem(R.stem("letter"))
    tree = learn_tree(ds)
    memory, _ = learn_rules(tree, ds)
    source = _Sent(ds, 997)
    streamed, _ = learn_rules_in_passes(tree.unpruned_flat, source, fingerprint=ds.fingerprint())
    assert dump_yaml(streamed) == dump_yaml(memory)
    assert len(source.sent) >= 3
    assert sum(source.sent) < sum(source.held) / 3, (source.sent, source.held)
    # each large table alone shrinks too
    for sent, held in zip(source.sent, source.held):
        assert held < 100_000 or sent < held / 2, (sent, held)


def test_packed_counts_and_groups_round_trip():
    """pack_values/pack_counts give back every integer exactly, those beyond varints too, and the
    numpy fallback's firing table (_Groups) travels with its counts packed."""
    import pickle

    from c45rules.rules.cases import pack_counts, pack_values, unpack_counts, unpack_values
    for values in (np.zeros(0, np.int64), np.array([0, 1, 127, 128, 2**32 - 1]), np.array([5, -1, 2**40])):
        back = unpack_values(pack_values(values))
        assert back.dtype == np.int64 and back.tolist() == values.tolist()
    assert pack_values(np.arange(100)).nbytes == 100
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 3000, size=(40, 6, 6)) * (rng.random((40, 6, 6)) < 0.2)
    for a in (counts, np.zeros((3, 0), np.int64), np.array([2**40, 0, 7])):
        back = unpack_counts(*pack_counts(a))
        assert back.shape == a.shape and np.array_equal(back, a)
    assert len(pickle.dumps(pack_counts(counts))) < counts.nbytes / 4
    groups = passes._Groups(3)
    groups.add(rng.integers(0, 4, size=(5000, 3)).astype(np.uint8), np.ones(5000, dtype=np.int64))
    data = pickle.dumps(groups)
    back = pickle.loads(data)
    assert all(np.array_equal(a, b) for a, b in zip(groups.merged(), back.merged()))
    assert len(data) < 64 * 3 + 64 * 8            # 64 rows: 3 bytes each and a count in 1-2 bytes, not 8


def test_evaluation_counted_where_the_batches_are():
    """A source whose batches stay in its parts (Spark's: called, it yields one empty batch) is
    evaluated by a pass there: `fit --engine spark`'s train errors and each rule's use are the
    in-memory ones (they were 0: the empty batch was evaluated)."""
    from c45rules.rules.evaluate import evaluate

    class Remote(_Sent):
        def __call__(self):
            yield self.ds.subset(np.arange(0))

    ds, _ = load_stem(R.stem("crx"))
    ruleset, _ = learn_rules(learn_tree(ds), ds)
    here, there = evaluate(ruleset, ds), evaluate(ruleset, Remote(ds, 97))
    assert there.errors == here.errors > 0 and there.cases == ds.n
    for k in ("used", "wrong", "better", "worse", "confusion"):
        assert np.array_equal(getattr(there, k), getattr(here, k)), k
    assert (there.default_used, there.default_wrong) == (here.default_used, here.default_wrong)
    with pytest.raises(InputError, match="hold none"):
        evaluate(ruleset, lambda: iter(()))


# ---- the selection's groups as the subset search reads them (issue 50, h50r) ----

def _grouped(rules, y, c, counts_of):
    """The cases of `rules` (covers over cases, ascending) grouped as a class table groups them
    (is of c, which of the rules fire), each group standing for its cases (counts_of: per case
    the alike cases it stands for itself); the rules copied with covers over the groups."""
    from c45rules.rules.generalize import CandidateRule
    fire = np.zeros((len(y), len(rules)), dtype=bool)
    for i, r in enumerate(rules):
        fire[r.cover, i] = True
    keys, group = np.unique(np.column_stack([y == c, fire]), axis=0, return_inverse=True)
    group = group.reshape(-1)
    counts = np.bincount(group, weights=counts_of, minlength=len(keys)).astype(np.int64)
    grouped = [CandidateRule(r.number, r.conditions, r.klass, r.error, r.covered, r.errors,
                             np.flatnonzero(keys[:, 1 + i]).astype(np.int64)) for i, r in enumerate(rules)]
    return grouped, np.where(keys[:, 0], c, -1), counts


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("name", ["crx", "vehicle"])
def test_grouped_search_chooses_the_case_by_case_rules(name, compiled, monkeypatch):
    # the streamed selection searches each class's groups with their counts: the same rules
    # as the in-memory search over the cases one by one (compiled: the counted climb; without
    # it, the counts as whole weights), every class drawing from one stream
    from c45rules.rules import select
    from .test_select_speed import _inputs
    if compiled and select._native is None:
        pytest.skip("no compiled module")
    if not compiled:
        monkeypatch.setattr(select, "_native", None)
    cands, bits, y, n_classes = _inputs(name)
    by_cases, grouped, rng_a, rng_b = [], [], select.GlibcRandom(1), select.GlibcRandom(1)
    for c in range(n_classes):
        mine = [r for r in cands if r.klass == c]
        if not mine:
            continue
        by_cases += select.select_rules(mine, bits, np.where(y == c, c, -1), n_classes, rng=rng_a)
        rules, labels, counts = _grouped(mine, y, c, np.ones(len(y)))
        assert len(counts) < len(y)
        grouped += select.select_rules(rules, bits, labels, n_classes, counts=counts, rng=rng_b)
    assert [r.number for r in grouped] == [r.number for r in by_cases]
    assert len(by_cases) > 0


def test_counted_climb_equals_the_repeated_cases():
    # a case standing for several alike ones climbs as they do, to the same cost, bit for bit
    from c45rules.rules import select
    from c45rules.rules.generalize import CandidateRule
    if select._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(4)
    for trial in range(25):
        n, k = int(rng.integers(5, 300)), int(rng.integers(11, 40))
        y = rng.integers(0, 3, n)
        counts = rng.integers(1, 6, n)
        rules, cover_all = [], []
        for i in range(k):
            cover = np.flatnonzero(rng.random(n) < rng.choice([0.02, 0.1, 0.4]))
            rules.append(CandidateRule(i + 1, (), 0, float(rng.choice([0.05, 0.3, 0.69])), len(cover), 0, cover))
            cover_all.append(np.flatnonzero(np.isin(np.repeat(np.arange(n), counts), cover)))
        bits = rng.choice([0.5, 1.0, 2.0, 3.5, 7.25], k) + rng.integers(0, 20, k)
        repeated = [CandidateRule(r.number, (), 0, r.error, len(c), 0, c) for r, c in zip(rules, cover_all)]
        for start in (np.zeros(k, dtype=bool), rng.random(k) < 0.5):
            grouped = select._ClassSearch(rules, bits, y == 0, int(counts.sum()),
                                          select.WeightedExceptionCoder(float(counts.sum())), counts)
            one_by_one = select._ClassSearch(repeated, bits, np.repeat(y, counts) == 0, int(counts.sum()))
            (cost_a, best_a), (cost_b, best_b) = (s._native_trial(start, np.inf) for s in (grouped, one_by_one))
            assert cost_a == cost_b and np.array_equal(best_a, best_b), trial


@pytest.mark.parametrize("compiled", [True, False])
def test_covers_made_without_pair_arrays(compiled, monkeypatch):
    # a class table's lists become the rules' packed covers (ascending groups, one buffer)
    # holding about their packed bytes: the base made int64 arrays over every (rule, group)
    # pair, 40 bytes an entry, the selection's peak at 1M rows (2.66 GB)
    import tracemalloc
    from c45rules.rules import passes
    if compiled and passes._climb is None:
        pytest.skip("no compiled module")
    if not compiled:
        monkeypatch.setattr(passes, "_climb", None)
    rng = np.random.default_rng(3)
    k, g = 300, 20_000
    fire = rng.random((g, k)) < rng.uniform(0.0, 0.2, k)
    at = np.concatenate([[0], np.cumsum(1 + fire.sum(axis=1))]).astype(np.int64)
    ids = np.concatenate([[int(x)] + np.flatnonzero(f).tolist() for x, f in zip(rng.integers(0, 2, g), fire)]
                         ).astype(np.int32)
    word_at, words = passes.pack_lists(at, ids)
    tracemalloc.start()
    covers = passes._covers(word_at, words, k)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [c.unpack(np.int64).tolist() for c in covers] == [np.flatnonzero(f).tolist() for f in fire.T]
    assert len({id(c.data) for c in covers}) == 1
    packed = len(covers[0].data)
    if compiled:
        # the packed bytes, their offsets and the PackedCases: within 3 bytes an entry
        assert peak <= packed + 200 * k + 1_000_000 and peak < 3 * len(ids), (peak, len(ids))
    else:
        assert peak > 20 * len(ids)     # what the compiled covers avoid


@pytest.mark.parametrize("compiled", [True, False])
def test_slices_counted_on_threads_same_tables(compiled, monkeypatch):
    """A pass counts a batch's slices on several threads, each with its own truth rows and
    counts: the round counts, the class tables (their groups in the same order: slices added
    in slice order) and the rules are those of one thread, and more than one thread counted."""
    import threading
    if compiled and passes._native is None:
        pytest.skip("no compiled module")
    if not compiled:
        monkeypatch.setattr(passes, "_native", None)
        monkeypatch.setattr(passes, "_climb", None)
    monkeypatch.setattr(passes, "_CELLS", 1 << 12)      # slices of 64 cases: several a batch
    ds, _ = load_stem(R.stem("crx"))
    tree = learn_tree(ds).unpruned_flat
    seen: dict[int, set] = {}
    truth = passes._Conditions.truth

    def spied(self, batch, lo, hi, row, room=0):
        seen.setdefault(threads, set()).add(threading.get_ident())
        return truth(self, batch, lo, hi, row, room)
    monkeypatch.setattr(passes._Conditions, "truth", spied)
    made = []
    for threads in (1, 2, 3):
        cands, totals, stages = passes.cases_in_passes(tree, batches(ds, 300), threads=threads)
        tables = stages.class_tables()
        ordering = stages.selected_table(cands[::3])
        made.append(([(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in cands],
                     {c: [x.tolist() for x in t] for c, t in tables.items()}, [x.tolist() for x in ordering],
                     [r.cases.unpack(np.int64).tolist() for r in cands if r.cases is not None and len(r.cases)]))
    assert made[0] == made[1] == made[2]
    assert len(seen[1]) == 1 and len(seen[2]) > 1 and len(seen[3]) > 1


def test_sliced_results_in_slice_order_and_errors_stop_the_pass():
    ds, _ = load_stem(R.stem("crx"))
    conds = passes._Conditions(learn_tree(ds).unpruned_flat)
    spans = list(passes._slices(ds, passes._CELLS // 64))      # slices of 64 cases

    def work(room, lo, hi):
        assert 0 <= room < 4
        return lo, hi
    assert list(passes._sliced(conds, ds, passes._CELLS // 64, work, 4)) == spans
    assert len(conds._rows) == 4

    def failing(room, lo, hi):
        if lo >= 128:
            raise InputError("beyond the budget")
        return lo
    with pytest.raises(InputError, match="beyond the budget"):
        list(passes._sliced(conds, ds, passes._CELLS // 64, failing, 2))


def test_the_passes_count_on_as_many_threads_as_jobs_asks(monkeypatch):
    """--jobs means one thing everywhere: the streamed rules stages count a pass's slices on
    one thread by default (as the in-memory stages run), on `jobs` threads when asked (-1: one
    per core, at most _MAX_THREADS), and the model is the same."""
    import threading
    monkeypatch.setattr(passes, "_CELLS", 1 << 12)      # slices of 64 cases: several a batch
    ds, _ = load_stem(R.stem("crx"))
    tree = learn_tree(ds)
    seen: set = set()
    truth = passes._Conditions.truth

    def spied(self, batch, lo, hi, row, room=0):
        seen.add(threading.get_ident())
        return truth(self, batch, lo, hi, row, room)
    monkeypatch.setattr(passes._Conditions, "truth", spied)
    made = {}
    for jobs in (1, 2):
        seen.clear()
        rs, _ = learn_rules_in_passes(tree.unpruned_flat, batches(ds, 300), fingerprint=ds.fingerprint(), jobs=jobs)
        made[jobs] = (dump_yaml(rs), len(seen))
    assert made[1][0] == made[2][0]
    assert made[1][1] == 1 and made[2][1] > 1
    assert passes.slice_threads(1) == 1 and passes.slice_threads(64) == passes._MAX_THREADS
    assert 1 <= passes.slice_threads(-1) <= passes._MAX_THREADS


@pytest.mark.parametrize("name", ["crx", "soybean", "vehicle", "glass"])
def test_spilled_selection_learns_the_in_memory_rules(name, monkeypatch):
    # under a budget, each class's search reads its lists from files (here every class's,
    # through 96-byte buffers): the same rules, the files gone after
    import os
    from c45rules.rules import select
    if select._native is None:
        pytest.skip("no compiled module")
    spilled = []
    real = select._ClassSearch._spill

    def noted(self, *lists, chunk):
        spilled.append(chunk)
        return real(self, *lists, chunk=chunk)
    monkeypatch.setattr(select._ClassSearch, "_spill", noted)
    monkeypatch.setattr(select, "SPILL_SHARE", 10**9)
    monkeypatch.setattr(select, "SPILL_CHUNK", 96)
    ds, _ = load_stem(R.stem(name))
    tree = learn_tree(ds)
    memory, _ = learn_rules(tree, ds)
    fds = len(os.listdir("/proc/self/fd"))
    report = PassReport()
    streamed, _ = learn_rules_in_passes(tree.unpruned_flat, batches(ds, BATCH.get(name, 97)),
                                        fingerprint=ds.fingerprint(), memory=10**9, report=report)
    assert dump_yaml(streamed) == dump_yaml(memory)
    assert spilled and set(spilled) == {96} and report.spilled and set(report.spilled) <= set(ds.schema.classes)
    assert len(os.listdir("/proc/self/fd")) == fds
    # the budget counts a spilled search's table without its index (2 bytes a number)
    monkeypatch.setattr(select, "SPILL_SHARE", 1)
    kept = PassReport()
    learn_rules_in_passes(tree.unpruned_flat, batches(ds, BATCH.get(name, 97)), fingerprint=ds.fingerprint(),
                          memory=10**9, report=kept)
    assert kept.spilled == [] and kept.table_bytes >= report.table_bytes
    same = report.largest["stage"] == kept.largest["stage"] == "selection" and \
        kept.largest["class"] == report.largest["class"]
    assert same or name != "crx"
    if same:
        assert report.largest["class"] in report.spilled
        assert kept.largest["bytes"] - report.largest["bytes"] == 2 * report.largest["numbers"]


@pytest.mark.parametrize("compiled", [True, False])
def test_rounds_decided_at_once_without_fisher(compiled, monkeypatch):
    """Without Fisher's test each pass's round is decided for all its rules at once
    (generalize.drop_choices), not a Python call a rule (drop_choice: ~270,000 rules a round at
    1M cases), the guessed second rounds too (without the compiled module); with it, rule by
    rule. The same rules as in memory either way."""
    def refused(*args, **kwargs):
        raise AssertionError("a round decided rule by rule")
    if not compiled:
        monkeypatch.setattr(passes, "_native", None)
    elif passes._native is None:
        pytest.skip("no compiled module")
    monkeypatch.setattr(passes, "drop_choice", refused)
    ds, memory, streamed, trace, trace2, report = both("crx")
    assert dump_yaml(streamed) == dump_yaml(memory) and (report.guessed_right > 0) == (not compiled)
    monkeypatch.undo()
    ds, memory, streamed, *_ = both("crx", fisher=5)
    assert dump_yaml(streamed) == dump_yaml(memory)


def test_drop_choices_are_drop_choice_rule_by_rule():
    """drop_choices gives, rule for rule, drop_choice's condition dropped (ties to the later),
    its P0 float and the runner-up lowest_error gives, on random whole counts with ties, no
    errors, no cases, and pairs seen before (the rates' cache shared)."""
    from c45rules.rules.generalize import F32, _Rates, drop_choice, drop_choices, lowest_error
    rng = np.random.default_rng(5)
    n = 500
    rates = _Rates(0.25, n)
    k, wide = 3000, 7
    width = rng.integers(1, wide + 1, k)
    # few distinct values: many ties and pairs met again
    td = rng.choice([0, 3, 10, 40, 41, 200, n], (k, wide))
    ed = np.minimum(td, rng.choice([0, 0, 1, 2, 5, 30], (k, wide)))
    t0 = np.minimum(td.min(axis=1), rng.choice([0, 3, 10, 40], k))
    e0 = np.minimum(t0, np.minimum(ed.min(axis=1), rng.choice([0, 1, 2], k)))
    default = rng.choice(np.array([0.3, 0.45, 0.6], dtype=F32), k)
    best, p0, runner = drop_choices(t0, e0, td, ed, width, default, rates)
    fresh = _Rates(0.25, n)
    errors = []
    for i in range(k):
        m = int(width[i])
        b, p = drop_choice(int(t0[i]), int(e0[i]), td[i, :m].tolist(), ed[i, :m].tolist(), default[i], fresh, None,
                           errors)
        assert (best[i], p0[i]) == (-1 if b is None else b, p)
        if b is not None:
            assert runner[i] == lowest_error(errors, b)
    assert (best >= 0).any() and (best < 0).any() and (runner == -1).any()


def test_round_slices_widen_with_the_budget(monkeypatch):
    """A generalisation pass's slices hold up to an eighth of the budget of truth bits (at most
    _ROUND_CELLS a thread, at least _CELLS): fewer, wider slices, each rule set up once a slice.
    The selection's slices keep _CELLS (the budget is its tables'); the rules are the same."""
    monkeypatch.setattr(passes, "_CELLS", 1 << 12)
    monkeypatch.setattr(passes, "_ROUND_CELLS", 1 << 14)
    monkeypatch.setattr(passes, "_POOL_RULES", -1)      # the later passes from truth rows
    assert passes.round_cells(None) == 1 << 12 and passes.round_cells(1 << 13, 2) == 1 << 12
    assert passes.round_cells(1 << 14, 1) == passes.round_cells(1 << 40, 4) == 1 << 14
    ds, _ = load_stem(R.stem("crx"))
    tree = learn_tree(ds).unpruned_flat
    widths: list[tuple[int, int]] = []
    truth = passes._Conditions.truth

    def spied(self, batch, lo, hi, row, room=0):
        widths.append((int(row[self.count]) + 1, hi - lo))
        return truth(self, batch, lo, hi, row, room)
    monkeypatch.setattr(passes._Conditions, "truth", spied)
    made = []
    for memory in (None, 1 << 20):
        widths.clear()
        cands, totals, stages = passes.cases_in_passes(tree, batches(ds, 300), memory=memory)
        rounds = list(widths)
        stages.class_tables()
        selection = widths[len(rounds):]
        made.append(([(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in cands],
                     max(rows * cases for rows, cases in rounds), max(rows * cases for rows, cases in selection)))
    assert made[0][0] == made[1][0]
    assert made[0][1] <= 1 << 12 < made[1][1] <= 1 << 14
    assert made[0][2] <= 1 << 12 and made[1][2] <= 1 << 12


def test_kernels_refuse_rule_rows_out_of_range():
    """round_tables and fire_lists check every rule's condition rows (branch-free since h50u):
    a row past the truth rows, or negative, is a ValueError, never a read out of bounds."""
    if passes._native is None:
        pytest.skip("no compiled module")
    n, rows, k = 100, 5, 3
    words = -(-n // 64)
    bits = np.zeros(rows * words, dtype=np.uint64)
    ptr = np.array([0, 2, 3, 5], dtype=np.int64)
    wrong = np.zeros(2 * words, dtype=np.uint64)
    klass = np.zeros(k, dtype=np.int32)
    for bad in (rows, -1, np.iinfo(np.int32).max, np.iinfo(np.int32).min):
        conds = np.array([0, 1, 2, 3, bad], dtype=np.int32)
        t0, e0 = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
        td, ed = np.zeros(k * 2, dtype=np.int64), np.zeros(k * 2, dtype=np.int64)
        with pytest.raises(ValueError, match="condition rows"):
            passes._native.round_tables(bits, n, wrong, conds, ptr, klass, t0, e0, td, ed)
        with pytest.raises(ValueError, match="condition rows"):
            passes._native.fire_lists(bits, n, conds, ptr, np.zeros(n, dtype=np.int32),
                                      np.empty(n + 1, dtype=np.int64), True)
    conds = np.array([0, 1, 2, 3, rows - 1], dtype=np.int32)
    t0, e0 = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    td, ed = np.zeros(k * 2, dtype=np.int64), np.zeros(k * 2, dtype=np.int64)
    passes._native.round_tables(bits, n, wrong, conds, ptr, klass, t0, e0, td, ed)
    assert not t0.any() and td.reshape(k, 2)[:, 0].tolist() == [0, n, 0]
