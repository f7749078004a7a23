"""Learning Cubist-style regression rules: data in, committees of rules out.

The stages: tree/model_tree.py grows, fits, prunes and smooths a model tree; rules/regression.py
turns its paths into rules; this module reads the data, runs the committees and keeps the
instances. Committees (Cubist's, as its documentation and the R package's vignette describe
them): the first member learns the targets; each next member learns adjusted targets
``y - (p - y)``, p the previous member's value for the case, so where a member predicted too
high the next one aims lower; the members' values are averaged when scoring.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..data.schema import Dataset
from ..errors import InputError
from ..model.regression import (Committee, Instances, LinearModel, RegressionModel, RegressionRule,
                                prediction_range, regression_schema, rule_bounds)
from ..model.ruleset import Condition
from ..rules.regression import every_node_rules, rule_factor, rules_from_tree
from ..tree.model_tree import (Columns, counts_leaf_parameters, fit_and_prune, grow_model_tree, fit_linear,
                               leaf_minimum, smoothed_leaf_models)

DEFAULTS = {"committees": 1, "neighbors": 0, "max_rules": 500, "extrapolation": 0.05, "min_cases": 5}


# ---- data -------------------------------------------------------------------------------
def is_cubist_stem(spec: str | os.PathLike) -> bool:
    """Whether `spec` (a stem, STEM.names or STEM.data) has a Cubist .names file: its first
    name is an attribute declared continuous (the target), not a class list."""
    from ..data.names import read_names
    stem = _stem(spec)
    if not os.path.exists(stem + ".names"):
        return False
    pending = read_names(stem + ".names")
    return len(pending.classes) == 1 and any(a.name == pending.classes[0] and a.is_continuous
                                             for a in pending.attributes)


def _stem(spec: str | os.PathLike) -> str:
    spec = str(spec)
    return spec[:-5] if spec.endswith(".data") else spec[:-6] if spec.endswith(".names") else spec


def read_regression(spec: str | os.PathLike, target: str | None = None, read: Any = None) -> tuple[Dataset, np.ndarray]:
    """(attributes as a Dataset, targets) from a Cubist stem or a CSV/Parquet file with `target`.

    Cases whose target is unknown are skipped, as Cubist skips them."""
    from ..data.frame import encode_frame, read_table
    from ..data.names import read_names, split_cases
    from ..data.reading import is_table
    if is_table(spec):
        if target is None:
            raise InputError(f"{spec}: a CSV/Parquet file needs target=COLUMN", params=("target",))
        return regression_frame(read_table(spec, read), target, source=str(spec), read=read)
    stem = _stem(spec)
    if not is_cubist_stem(stem):
        raise InputError(f"{stem}.names: not a Cubist .names file (its first name must be a continuous attribute, the target)")
    pending = read_names(stem + ".names")
    name = pending.classes[0]
    if target is not None and target != name:
        raise InputError(f"{stem}.names: the target is {name!r}, not {target!r}", params=("target",))
    cells = split_cases(stem + ".data", len(pending.attributes))
    frame = cells.set_axis([a.name for a in pending.attributes], axis=1).replace({"?": None, "": None})
    attrs = [a for a in pending.attributes if a.name != name]
    kinds = {kind: [a.name for a in attrs if a.kind == kind] for kind in ("discrete", "continuous", "ignore")}
    ds, y = regression_frame(frame, name, source=f"{stem}.data", kinds=kinds)
    # the declared value lists (and their order) rather than those seen in the data
    schema = regression_schema(attrs, name)
    kept = frame[frame[name].notna()]
    return encode_frame(kept[[a.name for a in attrs]], schema, source=f"{stem}.data"), y


def regression_frame(df: Any, target: str, *, source: str = "<DataFrame>", read: Any = None,
                     kinds: dict | None = None) -> tuple[Dataset, np.ndarray]:
    """(attributes as a Dataset, float targets) from a DataFrame holding a numeric `target` column."""
    import pandas as pd

    from ..data.frame import from_frame
    from ..data.numbers import parse_number_texts
    from ..data.reading import to_pandas
    df = to_pandas(df, source)
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{source}: expected a DataFrame, got {type(df).__name__}")
    if target not in df.columns:
        raise InputError(f"{source}: no target column {target!r}", params=("target",))
    raw = df[target]
    if pd.api.types.is_bool_dtype(raw):
        raise InputError(f"{source}: target column {target!r} holds booleans, not numbers")
    if pd.api.types.is_numeric_dtype(raw):
        y = raw.to_numpy(dtype=float, na_value=np.nan)
    else:
        texts = raw.astype(object).where(raw.notna(), None)
        unknown = texts.isna() | texts.isin(["?", ""])
        y = np.full(len(raw), np.nan)
        known = ~unknown.to_numpy()
        y[known] = parse_number_texts(np.asarray(texts[known], dtype=str))[0]
        bad = known & np.isnan(y)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{source}: row {i + 1}: target {target!r} holds {raw.iloc[i]!r}, not a number")
    if np.isinf(y).any():
        raise InputError(f"{source}: target column {target!r} holds an infinite value")
    keep = ~np.isnan(y)
    if not keep.any():
        raise InputError(f"{source}: target column {target!r} has no known value")
    df = df.loc[keep]
    y = y[keep]
    ds = from_frame(df.assign(**{target: "_"}), target, source=source, read=read, **(kinds or {}))
    ds.schema = regression_schema(ds.schema.attributes, target)
    ds.y = None
    return ds, y


# ---- learning -----------------------------------------------------------------------------
def _columns(ds: Dataset) -> tuple[Columns, np.ndarray]:
    """The learner's matrices, and each continuous attribute's training mean."""
    cont_at = [i for i, a in enumerate(ds.schema.attributes) if a.is_continuous]
    disc_at = [i for i, a in enumerate(ds.schema.attributes) if a.is_discrete]
    cont = np.column_stack([ds.columns[i].astype(float) for i in cont_at]) if cont_at else np.zeros((ds.n, 0))
    disc = np.column_stack([ds.columns[i] for i in disc_at]) if disc_at else np.zeros((ds.n, 0), dtype=np.int32)
    with np.errstate(invalid="ignore"):
        means = np.array([np.nanmean(cont[:, j]) if (~np.isnan(cont[:, j])).any() else 0.0
                          for j in range(cont.shape[1])])
    xf = np.where(np.isnan(cont), means, cont) if cont.size else cont
    sizes = [len(ds.schema.attributes[i].values) for i in disc_at]
    return Columns(cont, cont_at, disc, disc_at, sizes, xf), means


def _condition(cols: Columns, ds: Dataset, test: tuple) -> Condition:
    a, op, v = test
    attr = ds.schema.attributes[cols.cont_at[a] if a < cols.n_cont else cols.disc_at[a - cols.n_cont]]
    if op in ("<=", ">"):
        return Condition(attr.name, op, float(v))
    values = tuple(attr.values[c] for c in sorted(v))
    return Condition(attr.name, "=", values[0]) if len(values) == 1 else Condition(attr.name, "in", values)


def _linear(cols: Columns, ds: Dataset, intercept: float, columns: np.ndarray, coefs: np.ndarray) -> LinearModel:
    pairs = tuple((ds.schema.attributes[cols.cont_at[int(j)]].name, float(c)) for j, c in zip(columns, coefs)
                  if c != 0.0)
    return LinearModel(float(intercept), pairs)


def _committee(cols: Columns, ds: Dataset, t: np.ndarray, opts: dict, floor: float, ceiling: float) -> Committee:
    rows = np.arange(t.size)
    root = grow_model_tree(cols, t, rows, leaf_minimum(t.size, opts["min_cases"]))
    fit_and_prune(root, cols, t, counts_leaf_parameters(t.size, opts["min_cases"]))
    every_node = every_node_rules(opts["committees"])
    smoothed = smoothed_leaf_models(root, cols.n_cont, cols, t, every_node)
    e = opts["extrapolation"]
    # the default (no rule applies) is the training mean, as Cubist's model file keeps it
    # (`globalmean`), not the root's linear model: the cases no rule covers are the unusual
    # ones, where a linear model extrapolates furthest (ames fold 3: a 5,642 sq ft house
    # sold for 160,000, the root model said 792,111, the fold's RMSE 46,116 against 32,323)
    m = fit_linear(cols.xf, t, np.zeros(0, dtype=np.intp))
    default = m.values(cols.xf).clip(floor, ceiling)
    drafts = rules_from_tree(root, smoothed, cols, t, opts["max_rules"],
                             lambda low, high: rule_bounds(low, high, e, floor, ceiling), default,
                             rule_factor(t.size, m.columns.size + 1), every_node)
    rules = []
    for k, d in enumerate(drafts, 1):
        cover = t[d.covered]
        low, high = float(cover.min()), float(cover.max())
        rules.append(RegressionRule(
            k, tuple(_condition(cols, ds, test) for test in d.tests),
            _linear(cols, ds, d.model.intercept, d.model.columns, d.model.coefs),
            int(d.covered.size), float(cover.mean()), low, high, float(d.estimate),
            *rule_bounds(low, high, e, floor, ceiling)))
    return Committee(tuple(rules), _linear(cols, ds, m.intercept, m.columns, m.coefs))


def check_options(opts: dict) -> dict:
    """The learning options with defaults filled in; InputError naming a bad one."""
    unknown = sorted(set(opts) - set(DEFAULTS))
    if unknown:
        raise InputError(f"unknown option(s): {', '.join(unknown)}")
    out = {**DEFAULTS, **{k: v for k, v in opts.items() if v is not None}}
    for name, low, high in (("committees", 1, 100), ("neighbors", 0, 9), ("min_cases", 1, 10 ** 9),
                            ("max_rules", 1, 10 ** 9)):
        v = out[name]
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not low <= v <= high:
            raise InputError(f"{name}: expected an integer from {low} to {high}, got {v!r}", params=(name,))
        out[name] = int(v)
    e = out["extrapolation"]
    if not isinstance(e, (int, float, np.floating)) or isinstance(e, bool) or not 0 <= e <= 1:
        raise InputError(f"extrapolation: expected a number from 0 to 1, got {e!r}", params=("extrapolation",))
    out["extrapolation"] = float(e)
    return out


def fit_regression(ds: Dataset, y: np.ndarray, **options: Any) -> RegressionModel:
    """Learn a RegressionModel from encoded attributes `ds` and float targets `y`.

    Options: committees (1), neighbors (0), max_rules (500), extrapolation (0.05),
    min_cases (5: the fewest cases a split may leave in a branch, raised to one case in 2,500
    on large sets: tree/model_tree.leaf_minimum)."""
    opts = check_options(options)
    y = np.asarray(y, dtype=float)
    if y.shape != (ds.n,):
        raise InputError(f"{ds.n} cases but {y.size} target values")
    if ds.n < 2:
        raise InputError(f"{ds.source}: a regression model needs at least 2 cases, got {ds.n} sample(s)")
    cols, means = _columns(ds)
    low, high = float(y.min()), float(y.max())
    e = opts["extrapolation"]
    floor, ceiling = prediction_range(low, high, e)
    mean_pairs = tuple((ds.schema.attributes[i].name, float(m)) for i, m in zip(cols.cont_at, means))
    committees = []
    t = y
    for _ in range(opts["committees"]):
        committee = _committee(cols, ds, t, opts, floor, ceiling)
        committees.append(committee)
        if len(committees) < opts["committees"]:
            one = RegressionModel(ds.schema, (committee,), low, high, e, mean_pairs)
            t = y - (one.committee_values(ds)[0] - y)
    instances = None
    if opts["neighbors"]:
        instances = Instances(tuple(_instance_rows(ds)), tuple(float(v) for v in y))
    return RegressionModel(ds.schema, tuple(committees), low, high, e, mean_pairs, opts["neighbors"],
                           instances, tuple(sorted(opts.items())), ds.fingerprint() if hasattr(ds, "fingerprint") else "")


def _instance_rows(ds: Dataset) -> list[tuple]:
    out_cols = []
    for a, col in zip(ds.schema.attributes, ds.columns):
        if a.is_continuous:
            out_cols.append([float(v) for v in col])
        elif a.is_discrete:
            out_cols.append([a.values[c] if c >= 0 else None for c in col])
        else:
            out_cols.append([None] * ds.n)
    return list(zip(*out_cols))
