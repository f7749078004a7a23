"""Cross-validation and tuning: stratified folds, fold errors, and a grid of options chosen by
inner cross-validation. Pure functions over a Dataset; the learning is pipeline.fit_dataset."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from ..data.schema import Dataset
from ..errors import InputError
from ..progress import Progress, report
from .folds import stratified_folds

# `tune`'s grid when none is given: the pruning confidence, -m and -s, the options that move
# C4.5's error most on small and medium data.
DEFAULT_GRID: dict[str, tuple[Any, ...]] = {"cf": (5, 10, 25, 50), "m": (1, 2, 5, 10), "s": (0, 1)}
# grid names (as on the command line) -> the fit_dataset option, how a grid value becomes one,
# and back (to find the untuned options' point of the grid)
GRID_KEYS: dict[str, tuple[str, Callable[[float], Any], Callable[[Any], float]]] = {
    "cf": ("cf", lambda v: v / 100.0, lambda o: round(o * 100.0, 9)),
    "m": ("min_objs", lambda v: int(v) if float(v).is_integer() else float(v), float),
    "s": ("subset", lambda v: bool(v), lambda o: float(bool(o))),
    "g": ("gain_ratio", lambda v: not bool(v), lambda o: float(not o)),
    "r": ("redundancy", float, float),
}


def standard_error(values: list[float]) -> float:
    """The standard error of the values' mean: sample standard deviation / sqrt(count)."""
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0


@dataclass(frozen=True)
class FoldResult:
    """One fold: its repeat, number, test cases, test errors and the model's rule count."""

    repeat: int
    fold: int
    cases: int
    errors: int
    rules: int
    options: dict[str, Any] = field(default_factory=dict)
    cost: float | None = None     # the test cases' misclassification cost (learning with costs)

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
        """Standard error of that mean."""
        return standard_error([f.error_pct for f in self.folds])

    @property
    def mean_cost(self) -> float | None:
        """Mean of the folds' cost per test case (None without costs)."""
        if any(f.cost is None for f in self.folds):
            return None
        return float(np.mean([f.cost / f.cases for f in self.folds]))

    def as_json(self) -> dict[str, Any]:
        """{"k", "repeats", "seed", "folds": [{"repeat", "fold", "cases", "errors", "error_pct",
        "rules"}], "mean_error_pct", "se_error_pct"} (tuned folds also give their options)."""
        return {"k": self.k, "repeats": self.repeats, "seed": self.seed,
                "folds": [{"repeat": f.repeat, "fold": f.fold, "cases": f.cases, "errors": f.errors,
                           "error_pct": round(f.error_pct, 4), "rules": f.rules,
                           **({"options": f.options} if f.options else {}),
                           **({"cost": f.cost} if f.cost is not None else {})} for f in self.folds],
                "mean_error_pct": round(self.mean_error_pct, 4), "se_error_pct": round(self.se_error_pct, 4),
                **({"mean_cost_per_case": round(self.mean_cost, 6)} if self.mean_cost is not None else {})}


def fold_splits(data: Dataset, k: int, seed: int, repeats: int = 1
                ) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
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


def fold_error(train: Dataset, test: Dataset, options: dict[str, Any],
               progress: Progress | None = None) -> tuple[int, int, float | None]:
    """(test errors, rules, test cost or None without costs) of the model learned on `train` with
    `options` (boosted: the vote's errors and every trial's rules)."""
    return fold_errors(train, test, [options], progress)[0]


def fold_errors(train: Dataset, test: Dataset, option_sets: list[dict[str, Any]],
                progress: Progress | None = None) -> list[tuple[int, int, float | None]]:
    """fold_error for each of the option sets (pipeline.fit_rulesets: one tree grown for the sets
    differing in cf alone; boosted sets are fitted one by one); `progress` told of each."""
    from ..model.boosted import BoostedRuleSet
    from ..rules.evaluate import evaluate, evaluate_votes
    from .pipeline import fit_dataset, fit_rulesets, report_candidate
    if any(o.get("trials", 1) != 1 for o in option_sets):
        models = []
        for i, o in enumerate(option_sets):
            report_candidate(progress, i, len(option_sets))
            models.append(fit_dataset(train, progress=progress, **o)[0])
    else:
        models = fit_rulesets(train, option_sets, progress)
    out: list[tuple[int, int, float | None]] = []
    for model in models:
        if isinstance(model, BoostedRuleSet):
            ev = evaluate_votes(model, test)
            out.append((ev.errors, sum(len(rs.rules) for rs in model.trials), ev.cost))
        else:
            ev = evaluate(model, test)
            out.append((ev.errors, len(model.rules), ev.cost))
    return out


def cross_validate(data: Dataset, k: int = 10, *, seed: int = 0, repeats: int = 1,
                   options: dict[str, Any] | None = None, grid: dict[str, tuple] | None = None,
                   inner_k: int = 10, progress: Progress | None = None) -> CVResult:
    """k-fold stratified cross-validation of fit_dataset(options); with `grid`, each outer
    fold's options are chosen by `tune` on that fold's training cases alone (nested).
    `progress` is told of each fold (stage fold, c45rules/progress.py) and the stages in it."""
    options = dict(options or {})
    folds = []
    for r, f, train_rows, test_rows in fold_splits(data, k, seed, repeats):
        report(progress, "fold", r * k + f, k * repeats)
        train, test = data.subset(train_rows), data.subset(test_rows)
        chosen = {}
        if grid:
            chosen = tune(train, grid, k=inner_k, seed=seed, options=options, progress=progress).best
        errors, rules, cost = fold_error(train, test, {**options, **grid_options(chosen)}, progress)
        folds.append(FoldResult(r, f, len(test_rows), errors, rules, chosen, cost))
    return CVResult(k, repeats, seed, tuple(folds))


def parse_grid(items: list[str]) -> dict[str, tuple[float, ...]]:
    """{'cf': (5, 10), ...} from ['cf=5,10', 'm=1,2']; InputError naming a bad item."""
    grid: dict[str, tuple[float, ...]] = {}
    for item in items:
        name, eq, values = item.partition("=")
        name = name.strip()
        if not eq or name not in GRID_KEYS:
            raise InputError(f"grid {item!r}: expected NAME=V1,V2,... with NAME one of "
                             f"{', '.join(GRID_KEYS)}", params=("grid",))
        try:
            vals = tuple(float(v) for v in values.split(",") if v.strip())
        except ValueError:
            raise InputError(f"grid {item!r}: the values must be numbers", params=("grid",)) from None
        if not vals or not all(math.isfinite(v) for v in vals):
            raise InputError(f"grid {item!r}: give at least one finite number", params=("grid",))
        grid[name] = tuple(int(v) if v.is_integer() else v for v in vals)
    return grid


def grid_options(point: dict[str, Any]) -> dict[str, Any]:
    """fit_dataset options from one grid point ({'cf': 25, 'm': 2} -> cf 0.25, min_objs 2)."""
    return {GRID_KEYS[name][0]: GRID_KEYS[name][1](v) for name, v in point.items()}


def untuned_point(names: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """The grid point of the options a fit uses untuned: `options`, else fit_dataset's defaults
    (cf=25, m=2, s=0, g=0, r=1)."""
    from .pipeline import DEFAULTS
    point = {}
    for name in names:
        key, _, back = GRID_KEYS[name]
        v = back(options.get(key, DEFAULTS[key]))
        point[name] = int(v) if float(v).is_integer() else v
    return point


@dataclass(frozen=True)
class GridPoint:
    """One grid point's cross-validation: its options, mean test error (%) over the folds, the
    standard error of that mean and the mean rule count."""

    options: dict[str, Any]
    error_pct: float
    se_pct: float
    rules: float


@dataclass(frozen=True)
class TuneResult:
    """Every grid point's cross-validated error, the lowest, the untuned options' point and the
    choice between them by the one-standard-error rule."""

    k: int
    seed: int
    points: tuple[GridPoint, ...]
    lowest: GridPoint
    untuned: GridPoint
    best: dict[str, Any]

    @property
    def limit_pct(self) -> float:
        """The one-standard-error limit: the lowest mean error plus its standard error."""
        return self.lowest.error_pct + self.lowest.se_pct

    @property
    def chosen(self) -> GridPoint:
        """The chosen point's cross-validation."""
        return self.untuned if self.best == self.untuned.options else self.lowest

    def as_json(self) -> dict[str, Any]:
        """{"k", "seed", "grid": [{"options", "mean_error_pct", "se_error_pct", "mean_rules"}],
        "lowest", "untuned", "limit_pct", "best"}."""
        return {"k": self.k, "seed": self.seed,
                "grid": [{"options": p.options, "mean_error_pct": round(p.error_pct, 4),
                          "se_error_pct": round(p.se_pct, 4), "mean_rules": round(p.rules, 2)}
                         for p in self.points],
                "lowest": self.lowest.options, "untuned": self.untuned.options,
                "limit_pct": round(self.limit_pct, 4), "best": self.best}


def choose(points: list[GridPoint], untuned: GridPoint) -> tuple[GridPoint, GridPoint]:
    """(lowest, chosen): the point of lowest mean error (then fewest rules, then first in the
    grid), and the choice by the one-standard-error rule: the untuned options unless their
    error exceeds the lowest by more than the lowest's standard error, else the lowest.
    A change of options must earn its place: on small data the folds' errors vary so much that
    the lowest is often luck, and the untuned options are then kept."""
    lowest = min(points, key=lambda p: (round(p.error_pct, 9), p.rules))
    within = round(untuned.error_pct, 9) <= round(lowest.error_pct + lowest.se_pct, 9)
    return lowest, untuned if within else lowest


def tune(data: Dataset, grid: dict[str, tuple] | None = None, *, k: int = 10, seed: int = 0,
         options: dict[str, Any] | None = None, progress: Progress | None = None) -> TuneResult:
    """Cross-validate every point of the grid, and the untuned options' point when the grid
    lacks it, on the same folds; the best is `choose`'s. `progress` is told of each fold (stage
    tune fold), each point on it (candidate) and their stages (c45rules/progress.py)."""
    grid = dict(grid or DEFAULT_GRID)
    for name in grid:
        if name not in GRID_KEYS:
            raise InputError(f"unknown grid option {name!r} (known: {', '.join(GRID_KEYS)})")
    names = list(grid)
    base = dict(options or {})
    points = [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]
    untuned = untuned_point(names, base)
    if untuned not in points:
        points.append(untuned)
    splits = [(data.subset(tr), data.subset(te)) for _, _, tr, te in fold_splits(data, k, seed)]
    # fold by fold, every point at once: the points differing in cf alone share the fold's tree
    res = []
    for i, (tr, te) in enumerate(splits):
        report(progress, "tune fold", i, len(splits))
        res.append(fold_errors(tr, te, [{**base, **grid_options(p)} for p in points], progress))
    scored = []
    for i, p in enumerate(points):
        pct = [100.0 * r[i][0] / te.n for r, (_, te) in zip(res, splits)]
        scored.append(GridPoint(p, float(np.mean(pct)), standard_error(pct), float(np.mean([r[i][1] for r in res]))))
    lowest, chosen = choose(scored, scored[points.index(untuned)])
    return TuneResult(k, seed, tuple(scored), lowest, scored[points.index(untuned)], chosen.options)
