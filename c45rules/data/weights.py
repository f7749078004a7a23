"""Case weights and class weights: checked, combined, and set on a Dataset (issue 32, point 6).

A case's weight is the weight c4.5 starts it with (spec 2.7 scales it for unknown values);
every count of the tree, the rules and their evidence then sums weights. A case of weight 0
is left out, exactly as if its row were removed.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from ..errors import InputError, shown
from .schema import Dataset, Schema

BALANCED = "balanced"


def case_weights(raw: Any, n: int, name: str = "sample_weight") -> np.ndarray:
    """`raw` as float64 weights for n cases, or InputError naming `name` and the first bad row."""
    try:
        w = np.asarray(raw, dtype=object if not isinstance(raw, np.ndarray) else None)
    except Exception:   # noqa: BLE001 - anything that is no sequence
        raise InputError(f"{name}: expected one number per case, got {type(raw).__name__}") from None
    if w.ndim != 1 or len(w) != n:
        raise InputError(f"{name}: expected one number per case ({n}), got shape {w.shape}")
    if w.dtype.kind not in "iuf":
        bad = [i for i, v in enumerate(w.tolist())
               if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))]
        if bad:
            raise InputError(f"{name}: row {bad[0] + 1}: weight {shown(w[bad[0]])} is not a number")
    w = w.astype(np.float64)
    for error in weight_errors(w, name):
        if error is not None:
            raise error
    if n and not (w > 0).any():
        raise all_zero(name)
    return w


def weight_errors(w: np.ndarray, name: str, first: int = 0) -> list[InputError | None]:
    """Per problem (NaN, infinite, negative: the order in which they are told), the error at the
    first float64 weight of `w` that has it, else None; `first` rows before these."""
    out: list[InputError | None] = []
    for problem, mask in (("is NaN (unknown)", np.isnan(w)), ("is infinite", np.isinf(w)),
                          ("is negative", w < 0)):
        i = int(np.flatnonzero(mask)[0]) if mask.any() else -1
        out.append(None if i < 0 else InputError(f"{name}: row {first + i + 1}: weight {float(w[i])!r} {problem};"
                                                 " weights must be finite and >= 0"))
    return out


def all_zero(name: str) -> InputError:
    """The error for case weights that are all zero."""
    return InputError(f"{name}: every weight is zero: no case is left to learn from")


def parse_class_weights(text: str) -> dict[str, float] | str:
    """'A=2,B=1' as {'A': 2.0, 'B': 1.0}, or 'balanced' (the --class-weights syntax)."""
    if text.strip() == BALANCED:
        return BALANCED
    out: dict[str, float] = {}
    for part in text.split(","):
        name, eq, value = part.rpartition("=")
        if not eq or not name.strip():
            raise InputError(f"class_weight: expected CLASS=WEIGHT pairs separated by commas or 'balanced',"
                             f" got {part!r}", params=("class_weight",))
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise InputError(f"class_weight: class {name.strip()!r}: weight {value!r} is not a number",
                             params=("class_weight",)) from None
    return out


def class_factors(spec: Mapping[Any, Any] | str, data: Dataset, base: np.ndarray | None) -> np.ndarray:
    """Each class's factor: given per class name (absent classes 1), or 'balanced' as
    scikit-learn defines it, n / (k * count_c), over the (weighted) cases."""
    classes = data.schema.classes
    if isinstance(spec, str):
        if spec != BALANCED:
            raise InputError(f"class_weight must be a mapping class -> weight or 'balanced', got {spec!r}",
                             params=("class_weight",))
        counts = np.bincount(data.y, weights=base, minlength=len(classes))
        present = counts > 0
        out = np.ones(len(classes))
        out[present] = counts.sum() / (present.sum() * counts[present])
        return out
    if not isinstance(spec, Mapping):
        raise InputError(f"class_weight must be a mapping class -> weight or 'balanced', got {type(spec).__name__}",
                         params=("class_weight",))
    out = np.ones(len(classes))
    by_text = {str(k): v for k, v in spec.items()}
    unknown = sorted(set(by_text) - set(classes))
    if unknown:
        raise InputError(f"class_weight: unknown class(es) {', '.join(map(repr, unknown))}"
                         f" (classes: {', '.join(map(repr, classes))})", params=("class_weight",))
    for c, v in by_text.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not math.isfinite(v) or v < 0:
            raise InputError(f"class_weight: class {c!r}: weight {shown(v)} must be a finite number >= 0",
                             params=("class_weight",))
        out[classes.index(c)] = float(v)
    return out


def class_weight_text(spec: Mapping[Any, Any] | str) -> str:
    """How a model file records class weights: 'balanced' or 'A=2.0,B=1.0' (classes as given)."""
    if isinstance(spec, str):
        return spec
    return ",".join(f"{k}={float(v)!r}" for k, v in spec.items())


def weighted(data: Dataset, sample_weight: Any = None, class_weight: Mapping[Any, Any] | str | None = None,
             name: str = "sample_weight") -> Dataset:
    """`data` with its cases' weights set (sample weights times class factors), cases of weight
    0 left out; `data` itself when neither is given. All weights 1 leave data.weights None,
    so that the model is the unweighted one, byte for byte."""
    if sample_weight is None and class_weight is None:
        return data
    w = np.ones(data.n) if sample_weight is None else case_weights(sample_weight, data.n, name)
    if class_weight is not None:
        if data.y is None:
            raise InputError("class_weight needs labelled cases", params=("class_weight",))
        w = w * class_factors(class_weight, data, None if sample_weight is None else w)[data.y]
        if data.n and not (w > 0).any():
            raise InputError("class_weight: every case's weight is zero: no case is left to learn from",
                             params=("class_weight",))
    keep = w > 0
    # a new Dataset either way: the caller's is never changed
    out = replace(data, weights=None) if keep.all() else data.subset(np.flatnonzero(keep))
    w = w[keep]
    out.weights = None if (w == 1).all() else w
    record = [] if sample_weight is None else [("weights", name)]
    if class_weight is not None:
        record.append(("class_weight", class_weight_text(class_weight)))
    out.weight_record = tuple(record)
    return out


def sums_are_exact(w: np.ndarray) -> bool:
    """True when every sum of some of the weights `w`, added in any order, is exact in float64:
    each is a whole multiple of one power of two 2^-q and all of them add up to less than
    2^53 * 2^-q (whole weights, halves, quarters, ... of a modest total). Then every count
    is the same whatever order its weights are added in."""
    w = np.asarray(w, dtype=np.float64)
    if not len(w) or not np.isfinite(w).all():
        return False
    frac, exp = np.frexp(w)                                   # w = frac 2^exp, frac in [0.5, 1)
    whole = (frac * 2.0**53).astype(np.int64)                 # exact: w = whole 2^(exp - 53)
    low = whole & -whole                                      # its lowest set bit
    # bits after the point: 53 - exp less the trailing zero bits of `whole`
    point = 53 - exp - (np.frexp(low.astype(np.float64))[1] - 1)
    q = int(point[whole != 0].max(initial=0))
    if q > 1100:
        return False
    try:
        return math.ldexp(math.fsum(w.tolist()), q) < 2.0**53
    except OverflowError:
        return False


def split_weights(data: Dataset, column: str, label: str = "sample_weight") -> tuple[Dataset, np.ndarray]:
    """(data without attribute `column`, that column's values as weights): --weights COL, where the
    column is read with the data (declared continuous in a .names file) but is not an attribute.
    `label` starts the error messages (the option or parameter that named the column)."""
    names = data.schema.names
    if column not in names:
        raise InputError(f"{label}: no column {column!r} in {data.source}"
                         f" (columns: {', '.join(map(repr, names))})", params=(label,))
    i = names.index(column)
    attr = data.schema.attributes[i]
    if not attr.is_continuous:
        values = ", ".join(map(repr, attr.values[:3]))
        raise InputError(f"{label}: column {column!r} of {data.source} is not numeric"
                         f" (read as {attr.kind}{': ' + values if values else ''}); weights must be numbers",
                         params=(label,))
    keep = [j for j in range(len(names)) if j != i]
    schema = Schema(tuple(data.schema.attributes[j] for j in keep), data.schema.classes, data.schema.target)
    out = replace(data, schema=schema, columns=[data.columns[j] for j in keep], _sorted_values={}, _value_ranks={})
    return out, data.columns[i]
