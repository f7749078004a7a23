"""Regression rules from a pruned model tree (tree/model_tree.py), as Cubist forms them.

1. Each leaf's path becomes a rule: its tests, merged per attribute (the tightest `<=` and
   `>` of a continuous attribute; the intersection of a discrete one's value sets), and the
   leaf's smoothed linear model. Choice (RULES_FROM_EVERY_NODE, h54b): every inner node's
   path does too, with the node's model smoothed with its ancestors' as a leaf's is. Pruning
   keeps leaves of a few cases (friedman1: 267 of 289 leaves, median 6 cases), and a rule
   grown from one only widens as far as dropping conditions takes it; Cubist's rules cover
   regions of 25-300 cases that barely overlap (a friedman1 test case is covered by 1.25 of
   them, by 5.6 of our leaves' rules), and its conditions with our refit models give its
   accuracy (1.004 of its RMSE against our 1.042). With the inner nodes' rules among the
   candidates the selection keeps such regions where they pay (friedman1 1.042 -> 1.003,
   airquality 1.004 -> 0.987, cpus 0.918 -> 0.877, diamonds 1.001 -> 0.963, ames 0.960 ->
   0.972, the other four within 1%: 7 of the 9 shared sets at or below Cubist's RMSE instead of 5). In a
   committee's members they do harm: the later members fit y' = 2 y - p, and an inner node's
   rule keeps about its node's mid-sized region, which those targets overfit (ten
   committees: cpus 0.978 -> 1.026, diabetes 0.993 -> 1.015; in the first member alone cpus
   1.019). So a model without committees takes rules from every node, and each member of a
   committee from its leaves (`every_node_rules`; FIDELITY.md, "Regression rules
   against Cubist", the table now).
2. Conditions are dropped greedily: each round drops the condition whose removal gives the
   lowest estimated error of the rule's model on the cases it would then cover (mean absolute
   error times (n + v) / (n - v)), while that is not above the current estimate. Choice: the
   model stays the leaf's smoothed one during this search. Choice (CONDITION_PARAMETERS, fifth
   round on issue 54): v counts the rule's remaining conditions beside its model's parameters,
   one each, since each threshold or value set was chosen on these cases as the coefficients
   were; a condition must now lower the error by more than its own charge to stay, so rules
   come out more general, as Cubist's are (friedman1: 99.7 rules a fold -> 59; Cubist 20).
3. Each rule's model is then refit on the cases it covers (fit_linear, with elimination)
   when that lowers its estimated error: dropping conditions widened its cases.
4. Rules with the same conditions are merged (the first kept).
5. Rules are dropped while the committee's estimated error on the training cases does not
   grow (`select_rules`; a choice, in the spirit of c4.5rules' subset selection: Cubist says
   only that rules are pruned or combined). The estimate inflates each case's error by the
   M5 factor (n + v) / (n - v) of the rules covering it, each with its own cases n and
   parameters v (their mean where several cover it; the default model's where none does):
   Quinlan's estimate of a model's error on the cases it was fit on. Before, one factor
   (N + V) / (N - V) over all N cases and all rules' V parameters charged a rule of ten cases
   almost nothing for its parameters and kept rules that fit their few cases and no others;
   the per-rule factor keeps more, larger, overlapping rules whose average generalises
   better: over the fixed folds of the seven small shared sets the geometric mean of our RMSE
   over Cubist's fell from 0.993 to 0.944 (friedman1 1.123 -> 1.033, boston 1.033 -> 0.938,
   concrete 0.979 -> 0.892; diabetes 1.026 -> 1.011), with 2-5 times Cubist's rule counts.
   Each rule's v counts its conditions too, at SELECTION_CONDITION_PARAMETERS each (a half:
   measured, tree/model_tree.py's docstring, fifth round: a whole one cost cpus' ten
   committees 1.005 -> 1.072).
6. At most `max_rules` are kept: step 5 goes on dropping the rule whose removal raises the
   estimate least until no more remain (before, the rules covering fewest cases were cut,
   which on diamonds left cases to the default model: fold 0's RMSE was 892, Cubist's 602).
   They are ordered by their mean target, as Cubist's printed models run.
7. Choice (GAP_RULES, off): the selection judges rules on the training cases only, so a rule
   whose cases other rules also cover may go though part of its region is covered by no
   other rule: a case falling there gets the default, the training mean (diamonds' fold 3: a
   2.32-carat stone of 18,080 fell in the region of one dropped rule, which said 18,086, and
   got 3,938; that case alone is the fold's loss against Cubist). Over diamonds' ten folds,
   8-36 test cases a fold (0.4%) are covered by none of our rules; on the others our RMSE is
   0.9905 of Cubist's, with them 1.0009. With the switch, each leaf whose region the kept rules
   leave partly uncovered (checked exactly, box by box) gets a rule of its path's tests and
   the model of the draft of lowest estimate holding its region. By default airquality 1.004
   -> 0.995, diabetes 1.008 -> 1.001, diamonds 1.001 -> 0.992 (fold 3 1.067 -> 0.993), but with
   ten committees cpus 0.978 -> 1.040 and diabetes 0.993 -> 1.007: off (tree/model_tree.py's
   docstring, eighth round).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..tree import model_tree
from ..tree.model_tree import Columns, Fitted, MNode, estimated_error, fit_linear

try:
    # the compiled searches (setup.py builds them when a C compiler is there): the same
    # steps on the same doubles as the numpy ones below, which run without it
    from . import _regress as _native
except ImportError:     # pragma: no cover - depends on the install
    _native = None

# a path test: (attribute position in Columns, "<=" | ">" | "in", threshold or frozenset of codes)
Test = tuple[int, str, object]


@dataclass
class DraftRule:
    """A rule under construction: its tests, its model, the cases it covers (their numbers,
    ascending) and their evidence."""

    tests: list[Test]
    model: Fitted
    covered: np.ndarray
    estimate: float

    def __post_init__(self) -> None:
        # a mask over the training cases is taken too (as before), kept as the numbers
        if self.covered.dtype == np.bool_:
            self.covered = np.flatnonzero(self.covered)


# cases read by the compiled condition search, summed over the fits of this process: the
# bench and tests/regression/test_regression_speed.py read it (a work count, not a time)
WORK = {"searches": 0, "searched_cases": 0}
# the fewest training cases for which the searches read only the cases near each rule (Scope):
# below it a branch-free pass over every case costs less than the tree walk and the re-runs
# (friedman1, same run: 20,000 rows 16.3 CPU s with the walk against 10.7 without; 50,000
# about even; 100,000 see BENCHMARKS.md); the two learn the same rules
SCOPE_FROM_ROWS = 60_000
# a rule's conditions were chosen on its cases as its model's coefficients were: each counts
# as this many parameters in the rule's M5 estimate while conditions are dropped (step 2), and
# in the committee's estimate while rules are selected (step 5); module docstring, step 2
CONDITION_PARAMETERS = 1.0
SELECTION_CONDITION_PARAMETERS = 0.5
# True: while the estimate decides (step 5), a rule that alone covers a training case stays, so
# every training case keeps a rule, as in Cubist's models (its rules leave no training case to
# the default); past `max_rules` (step 6) any may go. COVER_WITHOUT_CONDITIONS: a rule without
# conditions counts too. Measured and off (tree/model_tree.py's docstring, seventh round): ames
# 1.039 -> 1.047 of Cubist's RMSE, 1.110 with rules without conditions; diabetes' committees
# 0.999 -> 1.001
COVER_EVERY_CASE = False
COVER_WITHOUT_CONDITIONS = False
# every node of the pruned tree proposes a rule (its path's tests, its smoothed model), not
# only the leaves: the selection may then keep a region larger than a leaf (step 1). True:
# in a model of one committee member (the default model); EVERY_NODE_IN_COMMITTEES: in
# every member of a committee model too. Measured (tree/model_tree.py's docstring, ninth
# round): by default 7 of the 9 shared sets at or below Cubist's RMSE instead of 5; in the
# members of ten committees cpus' and diabetes' RMSE go above Cubist's (0.978 -> 1.026,
# 0.993 -> 1.015), in the first member alone cpus' does (1.019), so committees keep the
# leaves' rules
RULES_FROM_EVERY_NODE = True
EVERY_NODE_IN_COMMITTEES = False
# after the selection (step 7), each leaf's region that the kept rules leave partly uncovered
# gets a rule of its own: the leaf's path tests and the model of the best rule holding the
# region, so no part of the attribute space the tree covers falls to the default. Off: ten
# committees put cpus and diabetes above Cubist (module docstring, step 7), and on ames (80
# attributes) the box search in numpy took over 14 CPU minutes for ten folds (base 65 s)
GAP_RULES = False
# the most boxes a leaf's uncovered part is cut into while it is searched: beyond it the leaf
# counts as having a gap (the search stops; a rule too many rather than a hole)
GAP_BOXES = 5000


class Scope:
    """The pruned model tree's leaves as the cases a rule's condition search must read.

    A case can join a rule's covered cases, or fail only one of its tests, only if no two of
    the tests fail every case of its leaf; the splits on the leaf's path say which tests do
    (rules/_regress.c scope). Searching those leaves' cases rather than all cases keeps the
    search's cost near the size of the rule's neighbourhood: with a leaf per few cases, a
    search of every case per leaf grew with the square of the training set (issue 54)."""

    def __init__(self, root: MNode, cols: Columns, n: int):
        attr, cut, child, set_at, leaf = [], [], [], [], []
        sets: list[np.ndarray] = []
        self.rows: list[np.ndarray] = []
        at = 0
        stack = [(root, 0)]
        nodes = [root]
        while stack:
            node, i = stack.pop()
            # each node's slot is filled in order of numbering, children numbered as met
            while len(attr) <= i:
                attr.append(-1); cut.append(0.0); child.extend((0, 0)); set_at.append(0); leaf.append(-1)
            if node.is_leaf:
                leaf[i] = len(self.rows)
                self.rows.append(node.rows)
                continue
            attr[i], cut[i] = node.attribute, float(node.cut)
            if node.attribute >= cols.n_cont:
                table = np.zeros(cols.disc_sizes[node.attribute - cols.n_cont], dtype=np.uint8)
                table[list(node.left_values)] = 1
                set_at[i] = at
                sets.append(table)
                at += table.size
            for side, c in enumerate(node.children):
                child[2 * i + side] = len(nodes)
                stack.append((c, len(nodes)))
                nodes.append(c)
        self.attr = np.array(attr, dtype=np.int32)
        self.cut = np.array(cut, dtype=np.float64)
        self.child = np.array(child, dtype=np.int32)
        self.set_at = np.array(set_at, dtype=np.int64)
        self.sets = np.concatenate(sets) if sets else np.zeros(0, dtype=np.uint8)
        self.leaf = np.array(leaf, dtype=np.int32)
        self.sizes = np.array(cols.disc_sizes, dtype=np.int32)
        self.n_cont = cols.n_cont
        self.cat = np.concatenate(self.rows).astype(np.int64)
        self.at = np.concatenate([[0], np.cumsum([r.size for r in self.rows])]).astype(np.int64)
        # each case's values together, the leaves' cases one after another: the walk reads
        # a leaf's cases from one stretch of memory
        self.rcont = np.ascontiguousarray(cols.cont[self.cat], dtype=np.float64)
        self.rdisc = np.ascontiguousarray(cols.disc[self.cat], dtype=np.int32)
        self.mark = np.zeros(n, dtype=np.uint8)
        self._out = np.zeros(n, dtype=np.int64)

    def cases(self, encoded: tuple, alive: np.ndarray) -> np.ndarray:
        """The cases failing at most one of the `alive` tests and not marked, ascending;
        they are marked (`unmark` clears the marks)."""
        kind, col, thr, lut_at, lut = encoded
        found = _native.scope(self.attr, self.cut, self.child, self.set_at, self.sets, self.leaf, self.sizes,
                              self.n_cont, self.cat, self.at, self.rcont, self.rdisc, self.rdisc.shape[1],
                              self.mark, kind, col, thr, lut_at, lut, alive, self._out)
        new = np.sort(self._out[:found])
        self.mark[new] = 1
        return new

    def unmark(self, rows: np.ndarray) -> None:
        """Clear the marks of `rows` (the cases a search read)."""
        self.mark[rows] = 0


def every_node_rules(committees: int) -> bool:
    """Whether each inner node of a model of `committees` members proposes a rule (step 1)."""
    return RULES_FROM_EVERY_NODE and (committees == 1 or EVERY_NODE_IN_COMMITTEES)


def path_tests(root: MNode, cols: Columns, every_node: bool = False) -> list[tuple[MNode, list[Test]]]:
    """Each leaf (with `every_node`, each node, before those below it) with its path's tests,
    merged per attribute (step 1)."""
    out = []
    stack: list[tuple[MNode, list[Test]]] = [(root, [])]
    while stack:
        node, tests = stack.pop()
        if node.is_leaf or every_node:
            out.append((node, _merged(tests)))
        if node.is_leaf:
            continue
        a = node.attribute
        if a < cols.n_cont:
            left, right = (a, "<=", node.cut), (a, ">", node.cut)
        else:
            everything = frozenset(range(cols.disc_sizes[a - cols.n_cont]))
            left, right = (a, "in", node.left_values), (a, "in", everything - node.left_values)
        stack.append((node.children[1], tests + [right]))
        stack.append((node.children[0], tests + [left]))
    return out


def _merged(tests: list[Test]) -> list[Test]:
    upper: dict[int, float] = {}
    lower: dict[int, float] = {}
    sets: dict[int, frozenset] = {}
    order: list[tuple[int, str]] = []
    for a, op, v in tests:
        if (a, op) not in order:
            order.append((a, op))
        if op == "<=":
            upper[a] = min(upper.get(a, np.inf), v)
        elif op == ">":
            lower[a] = max(lower.get(a, -np.inf), v)
        else:
            sets[a] = sets.get(a, v) & v
    return [(a, op, upper[a] if op == "<=" else lower[a] if op == ">" else sets[a]) for a, op in order]


def test_mask(cols: Columns, test: Test) -> np.ndarray:
    """Which training cases satisfy a test (an unknown value never does)."""
    a, op, v = test
    if op == "<=":
        return cols.cont[:, a] <= v
    if op == ">":
        return cols.cont[:, a] > v
    codes = cols.disc[:, a - cols.n_cont]
    return np.isin(codes, np.fromiter(v, dtype=codes.dtype, count=len(v)))


def _estimate(pred: np.ndarray, y: np.ndarray, mask: np.ndarray, v: int) -> float:
    n = int(mask.sum())
    if n == 0:
        return np.inf
    return estimated_error(float(np.abs(y[mask] - pred[mask]).mean()), n, v)


def simplify(tests: list[Test], model: Fitted, cols: Columns, y: np.ndarray,
             scope: Scope | None = None, refits: dict[bytes, tuple[np.ndarray, Fitted]] | None = None) -> DraftRule:
    """Drop conditions while the estimated error does not grow (step 2), then refit (step 3);
    `scope` (the tree the tests come from) limits the compiled search to the cases it may meet;
    `refits` (a digest of the covered cases' numbers -> those numbers and their model) keeps
    the refits of one tree's rules, so rules ending on the same cases (common with
    RULES_FROM_EVERY_NODE) share one fit."""
    v = model.columns.size + 1
    # the compiled search counts a case's failed tests in a byte
    if _native is not None and len(tests) < 256:
        tests, covered, n, abs_sum, current = _drop_conditions_native(tests, cols, y, model, v, scope)
    else:
        tests, mask, n, abs_sum, current = _drop_conditions(tests, cols, y, model.values(cols.xf_by_column), v)
        covered = np.flatnonzero(mask)
    # keyed by a digest, not the cases' bytes: a tree's keys would otherwise copy every cover;
    # the cover kept beside the fit makes a match exact
    key = _digest(covered)
    shared = refits.get(key) if refits is not None else None
    if shared is not None and np.array_equal(shared[0], covered):
        fitted = shared[1]
    else:
        fitted = fit_linear(cols.xf[covered], y[covered], np.arange(cols.n_cont))
        if refits is not None:
            refits[key] = (covered, fitted)
    # a copy: the estimate below depends on this rule's conditions, the fit only on its cases
    refit = replace(fitted)
    if CONDITION_PARAMETERS:
        # compared with `current` on the same terms: the conditions counted beside the model
        refit.estimate = estimated_error(refit.error, covered.size,
                                         refit.columns.size + 1 + CONDITION_PARAMETERS * len(tests))
    if refit.estimate < current:
        return DraftRule(tests, refit, covered, refit.estimate)
    return DraftRule(tests, Fitted(model.intercept, model.columns, model.coefs, abs_sum / max(n, 1), current),
                     covered, current)


def _drop_conditions(tests: list[Test], cols: Columns, y: np.ndarray, pred: np.ndarray,
                     v: int) -> tuple[list[Test], np.ndarray, int, float, float]:
    """Step 2 in numpy: (the tests kept, the cases they cover, how many, the summed absolute
    error of `pred` on them, its estimate).

    Each case's count of failed conditions is kept; dropping condition i adds the cases that
    fail it alone, so a trial costs those cases only."""
    masks = [test_mask(cols, t) for t in tests]
    fails = np.zeros(y.size, dtype=np.int16)
    for m in masks:
        fails += ~m
    covered = fails == 0
    n = int(covered.sum())
    abs_sum = float(np.abs(y[covered] - pred[covered]).sum())
    current = estimated_error(abs_sum / n, n, v + CONDITION_PARAMETERS * len(masks)) if n else np.inf
    while masks:
        one = np.flatnonzero(fails == 1)
        best, best_i, best_add = np.inf, -1, 0.0
        for i, m in enumerate(masks):
            added = one[~m[one]]
            k = n + added.size
            if not k:
                continue
            add = float(np.abs(y[added] - pred[added]).sum())
            e = estimated_error((abs_sum + add) / k, k, v + CONDITION_PARAMETERS * (len(masks) - 1))
            if e < best:
                best, best_i, best_add = e, i, add
        if best_i < 0 or best > current:
            break
        fails -= ~masks[best_i]
        covered = fails == 0
        n = int(covered.sum())
        abs_sum += best_add
        current = best
        del masks[best_i]
        del tests[best_i]
    return tests, covered, n, abs_sum, current


def _drop_conditions_native(tests: list[Test], cols: Columns, y: np.ndarray, model: Fitted, v: int,
                            scope: Scope | None) -> tuple[list[Test], np.ndarray, int, float, float]:
    """`_drop_conditions` in the compiled module (same steps, same doubles), reading only the
    cases of the scope's leaves that may fail at most one test, the covered ones as numbers.

    Which cases those are depends on the tests still in the rule, known at the end: the search
    runs on those failing at most one of the first tests, and again on more when one failing
    at most one of the tests it kept was not read (a case fails no fewer of the kept tests
    than of those of any earlier round, so once none is missing, none was at any round)."""
    kind = np.array([0 if op == "<=" else 1 if op == ">" else 2 for _, op, _ in tests], dtype=np.int8)
    col = np.array([a if a < cols.n_cont else a - cols.n_cont for a, _, _ in tests], dtype=np.int32)
    thr = np.array([val if op != "in" else 0.0 for _, op, val in tests], dtype=np.float64)
    tables = [np.zeros(cols.disc_sizes[a - cols.n_cont] if op == "in" else 0, dtype=np.uint8) for a, op, _ in tests]
    for table, (_, op, val) in zip(tables, tests):
        if op == "in":
            table[list(val)] = 1
    lut_at = np.cumsum([0] + [t.size for t in tables[:-1]], dtype=np.int64)
    lut = np.concatenate(tables) if tables else np.zeros(0, dtype=np.uint8)
    cont, disc = cols.column_major
    encoded = (kind, col, thr, lut_at, lut)
    alive = np.ones(len(tests), dtype=np.uint8)
    WORK["searches"] += 1
    rows = np.arange(y.size, dtype=np.int64) if scope is None else scope.cases(encoded, alive)
    while True:
        covered = np.zeros(rows.size, dtype=np.bool_)
        WORK["searched_cases"] += int(rows.size)
        # every case searched: the values on all rows without copying them first (the same
        # matrix, so the same bits as the model's values on rows 0..n-1)
        every = rows.size == y.size
        dropped, n, abs_sum, current = _native.simplify(
            y.size, rows, cont, disc, kind, col, thr, lut_at, lut,
            np.ascontiguousarray(y if every else y[rows], dtype=np.float64),
            np.ascontiguousarray(model.values(cols.xf_by_column, None if every else rows), dtype=np.float64),
            covered.view(np.uint8), v, CONDITION_PARAMETERS)
        if scope is None or not dropped:
            break
        alive[:] = 1
        alive[list(dropped)] = 0
        more = scope.cases(encoded, alive)
        if not more.size:
            break
        rows = np.sort(np.concatenate([rows, more]))
    if scope is not None:
        scope.unmark(rows)
    gone = set(dropped)
    return [t for i, t in enumerate(tests) if i not in gone], rows[covered], n, abs_sum, current


def rule_factor(n: float, v: float) -> float:
    """Quinlan's inflation (n + v) / (n - v) of a model's error on its n cases, v parameters;
    kept finite and growing past v = n, so a rule with more parameters than cases still counts
    (and is shed first) instead of making every sum infinite."""
    return (n + v) / (n - v) if n > v else (n + v) * (2 + v - n)


def select_rules(drafts: list[DraftRule], cols: Columns, y: np.ndarray,
                 bounds: Callable[[float, float], tuple[float, float]], default: np.ndarray,
                 max_rules: int | None = None, default_factor: float = 1.0) -> list[DraftRule]:
    """Drop rules while the whole committee's estimated error does not grow (step 5), and
    beyond that, the least harmful first, while more than `max_rules` remain (step 6).

    The committee's value on the training cases is the average of the covering rules' bounded
    values (the default where none covers). Its estimated error is the mean, over the training
    cases, of each case's absolute error times its covering rules' mean `rule_factor` (each
    rule's own M5 inflation, from its own cases and parameters: the estimate Quinlan applies to
    a model on the cases it was fit on), or `default_factor` (the default model's) where none
    covers. Each round drops the rule whose removal gives the lowest estimate; a removal only
    changes the cases the rule covers, so each trial costs those cases alone."""
    n = y.size
    rows = [d.covered for d in drafts]
    starts = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
    # each rule's bounded values on its cases, one stretch of one array a rule
    flat_values = np.empty(int(starts[-1]))
    values = []
    for d, a, b in zip(drafts, starts[:-1].tolist(), starts[1:].tolist()):
        lo, hi = bounds(float(y[d.covered].min()), float(y[d.covered].max()))
        values.append(np.clip(d.model.values(cols.xf_by_column, d.covered), lo, hi, out=flat_values[a:b]))
    factors = np.array([rule_factor(r.size, d.model.columns.size + 1 + SELECTION_CONDITION_PARAMETERS * len(d.tests))
                        for r, d in zip(rows, drafts)], dtype=float)
    total, count, factor_total = np.zeros(n), np.zeros(n), np.zeros(n)
    for r, v, f in zip(rows, values, factors):
        total[r] += v
        count[r] += 1
        factor_total[r] += f
    pred = np.where(count > 0, total / np.maximum(count, 1), default)
    # which rules cover each case, as (case, rule) pairs sorted by case: after a removal only
    # the rules sharing a case with the removed one need their trial recomputed
    # (32-bit: with rules from every node a case has a pair per node above it, 15M pairs at
    # 1M cases; the compiled loop reads them so)
    pair_rule = np.repeat(np.arange(len(drafts), dtype=np.int32), [r.size for r in rows])
    pair_case = np.concatenate(rows).astype(np.int32) if rows else np.zeros(0, dtype=np.int32)

    def weighted(error: np.ndarray, factor_sum: np.ndarray, c: np.ndarray) -> float:
        # the summed errors, each times its case's mean factor (the default's when uncovered)
        return float((error * np.where(c > 0, factor_sum / np.maximum(c, 1), default_factor)).sum())

    def delta(k: int) -> float:
        r = rows[k]
        c = count[r] - 1
        new = np.where(c > 0, (total[r] - values[k]) / np.maximum(c, 1), default[r])
        return (weighted(np.abs(y[r] - new), factor_total[r] - factors[k], c)
                - weighted(np.abs(y[r] - pred[r]), factor_total[r], count[r]))

    abs_sum = weighted(np.abs(y - pred), factor_total, count)
    current = abs_sum / n
    # the rules kept while they alone cover a training case (COVER_EVERY_CASE)
    covering = np.array([COVER_EVERY_CASE and (COVER_WITHOUT_CONDITIONS or bool(d.tests)) for d in drafts],
                        dtype=bool)
    if _native is not None:
        # the same loop compiled (same doubles); it reads a case's rules from the pairs by case
        rule_by_case = pair_rule[np.argsort(pair_case, kind="stable")]
        del pair_rule
        alive8 = np.ones(len(drafts), dtype=np.uint8)
        _native.select_rules(
            np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(default, dtype=np.float64),
            pred, total, count, starts, pair_case, flat_values, factors,
            np.concatenate([[0], np.cumsum(np.bincount(pair_case, minlength=n))]).astype(np.int64),
            rule_by_case, alive8, abs_sum, current,
            -1 if max_rules is None else int(max_rules), factor_total, float(default_factor),
            covering.astype(np.uint8))
        return [drafts[k] for k in np.flatnonzero(alive8).tolist()]
    deltas = np.array([delta(k) for k in range(len(drafts))])
    # which rules alone cover some case
    sole = np.array([bool((count[r] == 1).any()) for r in rows], dtype=bool)
    alive = np.ones(len(drafts), dtype=bool)
    while alive.sum() > 1:
        guarded = max_rules is None or alive.sum() <= max_rules
        live = np.flatnonzero(alive & ~(sole & covering)) if guarded else np.flatnonzero(alive)
        if not live.size:
            break
        trials = (abs_sum + deltas[live]) / n
        j = int(np.argmin(trials))
        if not trials[j] <= current and (max_rules is None or alive.sum() <= max_rules):
            break
        k = int(live[j])
        r = rows[k]
        total[r] -= values[k]
        count[r] -= 1
        factor_total[r] -= factors[k]
        pred[r] = np.where(count[r] > 0, total[r] / np.maximum(count[r], 1), default[r])
        abs_sum += deltas[k]
        current = float(trials[j])
        alive[k] = False
        hit = np.zeros(n, dtype=bool)
        hit[r] = True
        for other in np.unique(pair_rule[hit[pair_case]]):
            if alive[other]:
                deltas[other] = delta(int(other))
                sole[other] = bool((count[rows[other]] == 1).any())
    kept = np.flatnonzero(alive).tolist()
    return [drafts[k] for k in kept]


def _box(tests: list[Test], cols: Columns) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The region of a conjunction of tests: per continuous attribute the interval (low, high],
    per discrete one the values allowed."""
    low = np.full(cols.n_cont, -np.inf)
    high = np.full(cols.n_cont, np.inf)
    values = [np.ones(size, dtype=bool) for size in cols.disc_sizes]
    for a, op, v in tests:
        if op == "<=":
            high[a] = min(high[a], v)
        elif op == ">":
            low[a] = max(low[a], v)
        else:
            allowed = np.zeros(cols.disc_sizes[a - cols.n_cont], dtype=bool)
            allowed[list(v)] = True
            values[a - cols.n_cont] &= allowed
    return low, high, values


def _is_empty(box: tuple) -> bool:
    """Whether a box holds no point."""
    low, high, values = box
    return bool((low >= high).any()) or any(not v.any() for v in values)


def _outside(box: tuple, rule: tuple) -> list[tuple]:
    """The part of `box` outside the region `rule`, as disjoint boxes: peeled off one
    attribute at a time (what fails its first bound, then what passes it and fails the next)."""
    low, high, values = box[0].copy(), box[1].copy(), [v.copy() for v in box[2]]
    r_low, r_high, r_values = rule
    out = []
    for a in np.flatnonzero(r_high < high):
        piece = (np.where(np.arange(low.size) == a, r_high[a], low), high.copy(), [v.copy() for v in values])
        if not _is_empty(piece):
            out.append(piece)
        high[a] = r_high[a]
    for a in np.flatnonzero(r_low > low):
        piece = (low.copy(), np.where(np.arange(low.size) == a, r_low[a], high), [v.copy() for v in values])
        if not _is_empty(piece):
            out.append(piece)
        low[a] = r_low[a]
    for j, allowed in enumerate(r_values):
        rest = values[j] & ~allowed
        if rest.any():
            out.append((low.copy(), high.copy(), [rest if i == j else v.copy() for i, v in enumerate(values)]))
            values[j] = values[j] & allowed
    return out


def _stacked(boxes: list[tuple], cols: Columns) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Boxes (`_box`) as arrays, one row per box."""
    m = len(boxes)
    return (np.array([b[0] for b in boxes]).reshape(m, cols.n_cont),
            np.array([b[1] for b in boxes]).reshape(m, cols.n_cont),
            [np.array([b[2][j] for b in boxes]).reshape(m, size) for j, size in enumerate(cols.disc_sizes)])


def _holding(stacked: tuple, box: tuple) -> np.ndarray:
    """Which of the stacked boxes hold all of `box`."""
    s_low, s_high, s_values = stacked
    low, high, values = box
    holds = (s_low <= low).all(axis=1) & (s_high >= high).all(axis=1)
    for j, allowed in enumerate(values):
        holds &= ~(~s_values[j] & allowed).any(axis=1)
    return holds


def _has_gap(box: tuple, rules: list[tuple]) -> bool:
    """Whether some point of `box` lies in none of the `rules`' regions (GAP_BOXES bounds the search)."""
    pending = [box]
    for rule in rules:
        pending = [piece for b in pending for piece in _outside(b, rule)]
        if not pending:
            return False
        if len(pending) > GAP_BOXES:
            return True
    return True


def gap_rules(leaves: list[list[Test]], drafts: list[DraftRule], kept: list[DraftRule],
              cols: Columns) -> list[DraftRule]:
    """Step 7 (GAP_RULES): for each leaf whose region the `kept` rules leave partly uncovered,
    a rule of the leaf's path tests with the model of the draft of lowest estimate holding the
    region (the leaf's own draft holds it), covering the training cases its tests hold."""
    k_low, k_high, k_values = _stacked([_box(d.tests, cols) for d in kept], cols)
    d_boxes = _stacked([_box(d.tests, cols) for d in drafts], cols)
    out = []
    for tests in leaves:
        low, high, values = box = _box(tests, cols)
        if _holding((k_low, k_high, k_values), box).any():
            continue
        # the kept rules meeting the leaf's region: only they can cover part of it
        meets = (np.maximum(k_low, low) < np.minimum(k_high, high)).all(axis=1)
        for j, allowed in enumerate(values):
            meets &= (k_values[j] & allowed).any(axis=1)
        if not _has_gap(box, [(k_low[i], k_high[i], [v[i] for v in k_values]) for i in np.flatnonzero(meets)]):
            continue
        holders = _holding(d_boxes, box)
        covered = np.arange(cols.xf.shape[0])
        for t in tests:
            covered = covered[test_mask(cols, t)[covered]]
        if not holders.any() or not covered.size:
            continue
        best = min(np.flatnonzero(holders), key=lambda i: drafts[i].estimate)
        out.append(DraftRule(list(tests), drafts[best].model, covered, drafts[best].estimate))
    return out


def _digest(cases: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(cases, dtype=np.intp), digest_size=16).digest()


def node_fits(root: MNode) -> dict[bytes, tuple[np.ndarray, Fitted]]:
    """The refits (`simplify`'s `refits`) the pruned tree already holds: with every column a
    candidate of every node's model (model_tree.ALL_CANDIDATES), a node's model is the fit of
    its cases, ascending, that a rule covering exactly them would make. Most rules end so (a
    node's own rule keeps its conditions: friedman1 at 300,000 rows, 819 of 999 rules, 97% of
    the refits' cases), and then no fit is made again."""
    out: dict[bytes, tuple[np.ndarray, Fitted]] = {}
    if not model_tree.ALL_CANDIDATES:
        return out
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.model is not None:
            out.setdefault(_digest(node.rows), (node.rows, node.model))
    return out


def rules_from_tree(root: MNode, smoothed: dict[int, tuple[float, np.ndarray]], cols: Columns,
                    y: np.ndarray, max_rules: int | None,
                    bounds: Callable[[float, float], tuple[float, float]] | None = None,
                    default: np.ndarray | None = None,
                    default_factor: float = 1.0, every_node: bool = False) -> list[DraftRule]:
    """The rules of a pruned, smoothed model tree (steps 1 to 5 of the module docstring),
    from its leaves (with `every_node`, from each of its nodes: `every_node_rules`);
    `bounds(low, high)` gives a rule's output bounds, `default` the committee's default value
    per case (both for step 5, which is skipped without them), `default_factor` the default
    model's M5 inflation (`select_rules`)."""
    drafts = []
    scope = Scope(root, cols, y.size) if _native is not None and y.size >= SCOPE_FROM_ROWS else None
    # a refit depends only on the cases a rule covers: rules ending on the same cases share it
    refits = node_fits(root)
    paths = path_tests(root, cols, every_node)
    for leaf, tests in paths:
        b0, dense = smoothed[id(leaf)]
        used = np.flatnonzero(dense)
        model = Fitted(b0, used, dense[used], 0.0, 0.0)
        drafts.append(simplify(list(tests), model, cols, y, scope, refits))
    seen: set = set()
    unique = []
    for d in drafts:
        key = frozenset((a, op, v) for a, op, v in d.tests)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    if bounds is not None and default is not None and len(unique) > 1:
        kept = select_rules(unique, cols, y, bounds, default, max_rules, default_factor)
        if GAP_RULES:
            kept += gap_rules([t for node, t in paths if node.is_leaf], unique, kept, cols)
            if max_rules is not None and len(kept) > max_rules:
                # the limit holds: step 6 on the whole list
                kept = select_rules(kept, cols, y, bounds, default, max_rules, default_factor)
        unique = kept
    if max_rules is not None and len(unique) > max_rules:
        unique = sorted(unique, key=lambda d: -int(d.covered.size))[:max_rules]
    return sorted(unique, key=lambda d: float(y[d.covered].mean()))

