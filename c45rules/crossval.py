"""Cross-validation and tuning: stratified folds, fold errors, and a grid of options chosen by
inner cross-validation. Pure functions over a Dataset; the learning is pipeline.fit_dataset."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .data.schema import Dataset
from .errors import InputError

# `tune`'s grid when none is given: the pruning confidence, -m and -s, the options that move
# C4.5's error most on small and medium data.
DEFAULT_GRID: dict[str, tuple[Any, ...]] = {"cf": (5, 10, 25, 50), "m": (1, 2, 5, 10), "s": (0, 1)}
# grid names (as on the command line) -> fit_dataset options and how a grid value becomes one
GRID_KEYS: dict[str, tuple[str, Callable[[float], Any]]] = {
    "cf": ("cf", lambda v: v / 100.0),
    "m": ("min_objs", lambda v: int(v) if float(v).is_integer() else float(v)),
    "s": ("subset", lambda v: bool(v)),
    "g": ("gain_ratio", lambda v: not bool(v)),
    "r": ("redundancy", float),
}


def stratified_folds(y: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """The fold (0..k-1) of every case: each class's cases, shuffled, dealt to the folds in turn,
    continuing where the previous class stopped, so folds differ by at most one case in size
    and in each class's count."""
    y = np.asarray(y)
    if k < 2:
        raise InputError(f"cross-validation needs at least 2 folds, got {k}")
    if len(y) < k:
        raise InputError(f"{k} folds need at least {k} cases, the data has {len(y)}")
    rng = np.random.default_rng(seed)
    fold = np.empty(len(y), dtype=np.int32)
    dealt = 0
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        rng.shuffle(idx)
        fold[idx] = (dealt + np.arange(len(idx))) % k
        dealt += len(idx)
    return fold


@dataclass(frozen=True)
class FoldResult:
    """One fold: its repeat, number, test cases, test errors and the model's rule count."""

    repeat: int
    fold: int
    cases: int
    errors: int
    rules: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def error_pct(self) -> float:
        """Test errors as a percentage of the fold's cases."""
        return 100.0 * self.errors / self.cases


@dataclass(frozen=True)
class CVResult:
    """Every fold of every repeat, and their mean error and its standard error."""

    k: int
    repeats: int
    seed: int
    folds: tuple[FoldResult, ...]

    @property
    def mean_error_pct(self) -> float:
        """Mean of the fold error percentages."""
        return float(np.mean([f.error_pct for f in self.folds]))

    @property
    def se_error_pct(self) -> float:
        """Standard error of that mean (sample standard deviation / sqrt(folds))."""
        e = [f.error_pct for f in self.folds]
        return float(np.std(e, ddof=1) / math.sqrt(len(e))) if len(e) > 1 else 0.0

    def as_json(self) -> dict[str, Any]:
        """{"k", "repeats", "seed", "folds": [{"repeat", "fold", "cases", "errors", "error_pct",
        "rules"}], "mean_error_pct", "se_error_pct"} (tuned folds also give their options)."""
        return {"k": self.k, "repeats": self.repeats, "seed": self.seed,
                "folds": [{"repeat": f.repeat, "fold": f.fold, "cases": f.cases, "errors": f.errors,
                           "error_pct": round(f.error_pct, 4), "rules": f.rules,
                           **({"options": f.options} if f.options else {})} for f in self.folds],
                "mean_error_pct": round(self.mean_error_pct, 4), "se_error_pct": round(self.se_error_pct, 4)}


def fold_splits(data: Dataset, k: int, seed: int, repeats: int = 1):
    """(repeat, fold, train rows, test rows) for every fold of every repeat (repeat r shuffles
    with seed + r)."""
    if data.y is None:
        raise InputError(f"{data.source}: cross-validation needs the class of every case")
    if repeats < 1:
        raise InputError(f"repeats must be at least 1, got {repeats}")
    for r in range(repeats):
        fold = stratified_folds(data.y, k, seed + r)
        for f in range(k):
            yield r, f, np.flatnonzero(fold != f), np.flatnonzero(fold == f)


def fold_error(train: Dataset, test: Dataset, options: dict[str, Any]) -> tuple[int, int]:
    """(test errors, rules) of the ruleset learned on `train` with `options` (boosted: the vote's
    errors and every trial's rules)."""
    from .boosted import BoostedRuleSet
    from .pipeline import fit_dataset
    from .rules.evaluate import evaluate, evaluate_votes
    model = fit_dataset(train, **options)[0]
    if isinstance(model, BoostedRuleSet):
        return evaluate_votes(model, test).errors, sum(len(rs.rules) for rs in model.trials)
    return evaluate(model, test).errors, len(model.rules)


def cross_validate(data: Dataset, k: int = 10, *, seed: int = 0, repeats: int = 1,
                   options: dict[str, Any] | None = None, grid: dict[str, tuple] | None = None,
                   inner_k: int = 10) -> CVResult:
    """k-fold stratified cross-validation of fit_dataset(options); with `grid`, each outer
    fold's options are chosen by `tune` on that fold's training cases alone (nested)."""
    options = dict(options or {})
    folds = []
    for r, f, train_rows, test_rows in fold_splits(data, k, seed, repeats):
        train, test = data.subset(train_rows), data.subset(test_rows)
        chosen = {}
        if grid:
            chosen = tune(train, grid, k=inner_k, seed=seed, options=options).best
        errors, rules = fold_error(train, test, {**options, **grid_options(chosen)})
        folds.append(FoldResult(r, f, len(test_rows), errors, rules, chosen))
    return CVResult(k, repeats, seed, tuple(folds))


def parse_grid(items: list[str]) -> dict[str, tuple[float, ...]]:
    """{'cf': (5, 10), ...} from ['cf=5,10', 'm=1,2']; InputError naming a bad item."""
    grid: dict[str, tuple[float, ...]] = {}
    for item in items:
        name, eq, values = item.partition("=")
        name = name.strip()
        if not eq or name not in GRID_KEYS:
            raise InputError(f"--grid {item!r}: expected NAME=V1,V2,... with NAME one of "
                             f"{', '.join(GRID_KEYS)}")
        try:
            vals = tuple(float(v) for v in values.split(",") if v.strip())
        except ValueError:
            raise InputError(f"--grid {item!r}: the values must be numbers") from None
        if not vals or not all(math.isfinite(v) for v in vals):
            raise InputError(f"--grid {item!r}: give at least one finite number")
        grid[name] = tuple(int(v) if v.is_integer() else v for v in vals)
    return grid


def grid_options(point: dict[str, Any]) -> dict[str, Any]:
    """fit_dataset options from one grid point ({'cf': 25, 'm': 2} -> cf 0.25, min_objs 2)."""
    return {GRID_KEYS[name][0]: GRID_KEYS[name][1](v) for name, v in point.items()}


@dataclass(frozen=True)
class TuneResult:
    """Every grid point's cross-validated error, and the best point."""

    k: int
    seed: int
    points: tuple[tuple[dict[str, Any], float, float], ...]   # (point, mean error %, mean rules)
    best: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        """{"k", "seed", "grid": [{"options", "mean_error_pct", "mean_rules"}], "best"}."""
        return {"k": self.k, "seed": self.seed,
                "grid": [{"options": p, "mean_error_pct": round(e, 4), "mean_rules": round(n, 2)}
                         for p, e, n in self.points], "best": self.best}


def tune(data: Dataset, grid: dict[str, tuple] | None = None, *, k: int = 10, seed: int = 0,
         options: dict[str, Any] | None = None) -> TuneResult:
    """Cross-validate every point of the grid on the same folds; the best has the lowest mean
    error, then the fewest rules (the simpler model), then comes first in the grid."""
    grid = dict(grid or DEFAULT_GRID)
    for name in grid:
        if name not in GRID_KEYS:
            raise InputError(f"unknown grid option {name!r} (known: {', '.join(GRID_KEYS)})")
    names = list(grid)
    points = [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]
    splits = [(data.subset(tr), data.subset(te)) for _, _, tr, te in fold_splits(data, k, seed)]
    base = dict(options or {})
    scored = []
    for p in points:
        res = [fold_error(tr, te, {**base, **grid_options(p)}) + (te.n,) for tr, te in splits]
        scored.append((p, float(np.mean([100.0 * e / n for e, _, n in res])),
                       float(np.mean([r for _, r, _ in res]))))
    best = min(range(len(scored)), key=lambda i: (round(scored[i][1], 9), scored[i][2], i))
    return TuneResult(k, seed, tuple(scored), scored[best][0])
