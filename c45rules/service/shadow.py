"""Shadow models (champion/challenger): `serve --shadow NAME=FILE`.

The model served as NAME (the champion, from the models folder) answers every request; the
challenger read from FILE decides the same records too, and its decisions are written to the
audit store beside the champion's (c45rules_shadow, in the request's own transaction), never
into the answer. `audit --compare` then counts, over the store, how often and where the two
disagree, and reports it as `diff --data` does (govern/diff.py).
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import C45RulesError, InputError
from .audit import outcome_texts, picks_of, shadow_row
from .models import ServedModel, load_version
from .numbers import is_number_entry, numbers_differ


@dataclass(frozen=True, eq=False)
class Challenger:
    """A challenger model version and its outcome entries (outcome_texts), made once."""

    model: ServedModel
    outcomes: list[str]

    def row(self, request_id: str, records: Sequence[Mapping[str, Any]], single: bool,
            champion: Sequence[float] | None = None) -> tuple:
        """The shadow_row of the challenger's decisions of a request's records (InputError
        for a record it cannot read, or when it and the champion decide different kinds of
        thing). `champion`: a regression champion's numbers; the records where the
        challenger's differ are counted (metrics.SHADOW_DISAGREEMENTS)."""
        decider = self.model.decider
        if self.model.decides_numbers != (champion is not None):
            kinds = ("numbers", "classes") if self.model.decides_numbers else ("classes", "numbers")
            raise InputError(f"the challenger decides {kinds[0]} and the served model {kinds[1]}")
        if champion is not None:
            values, fired = decider.decide_many(records)
            differ = sum(numbers_differ(a, b) for a, b in zip(champion, values))
            if differ:
                from . import metrics   # prometheus_client: the service's, not `audit --compare`'s
                metrics.SHADOW_DISAGREEMENTS.labels(self.model.name).inc(differ)
            return shadow_row(request_id, self.model.fingerprint, range(len(values)), decider.entries(values, fired))
        positions = [decider.position(records[0])] if single else decider.positions(records)
        return shadow_row(request_id, self.model.fingerprint, positions, self.outcomes)


def parse_shadow(text: str) -> tuple[str, Path]:
    """NAME=FILE of `--shadow` as (the served model's name, the challenger's file)."""
    name, sep, file = text.partition("=")
    if not sep or not name or not file:
        raise InputError(f"--shadow {text!r}: expected NAME=FILE, e.g. credit=credit_v2.yaml (NAME: the served model)")
    if not name.isprintable() or "/" in name:
        raise InputError(f"--shadow {text!r}: {name!r} is not a model name")
    return name, Path(file)


def load_challenger(name: str, path: str | Path) -> Challenger:
    """The challenger of model `name` from its file (InputError naming `--shadow` when it does not load)."""
    from ..export.yaml import read_model_bytes
    try:
        version = load_version(name, read_model_bytes(Path(path)))
    except C45RulesError as e:
        raise InputError(f"--shadow {name}={path}: {' '.join(str(e).split())}") from None
    d = version.decider
    if version.decides_numbers:   # a number's entries are made per record (service/numbers.py)
        return Challenger(version, [])
    return Challenger(version, outcome_texts(d.classes, d.rule_ids, d.confidences))


PairCounts = dict[tuple[str, str, str], Counter]


def count_pairs(rows: Iterable[tuple], numbers: dict | None = None) -> PairCounts:
    """(model, champion fingerprint, challenger fingerprint) -> Counter of (champion class,
    champion rule id, challenger class, challenger rule id) -> records, over the rows of
    AuditStore.shadowed. The rows of regression models go to `numbers` instead, when given:
    the same key -> [(champion's number, challenger's number), ...] (else they are refused)."""
    out: PairCounts = {}
    for model, champion, c_outcomes, c_picks, challenger, s_outcomes, s_picks in rows:
        mine, theirs = json.loads(c_outcomes), json.loads(s_outcomes)
        a, b = picks_of(c_picks).astype(np.uint64), picks_of(s_picks).astype(np.uint64)
        if len(a) != len(b):
            raise InputError(f"audit store: a shadowed request of {model} holds {len(a)} champion and"
                             f" {len(b)} challenger decisions")
        if any(is_number_entry(e) for e in mine + theirs):
            if numbers is None or not all(is_number_entry(e) for e in mine + theirs):
                raise InputError(f"audit store: a shadowed request of {model} holds numbers where classes are read")
            numbers.setdefault((model, champion, challenger), []).extend(
                (float(mine[i]["value"]), float(theirs[j]["value"])) for i, j in zip(a.tolist(), b.tolist()))
            continue
        # one pass over the records: each (champion outcome, challenger outcome) pair as one number
        pairs, counts = np.unique((a << np.uint64(32)) | b, return_counts=True)
        tally = out.setdefault((model, champion, challenger), Counter())
        for pair, n in zip(pairs.tolist(), counts.tolist()):
            (k1, r1, _), (k2, r2, _) = mine[pair >> 32], theirs[pair & 0xFFFFFFFF]
            tally[(k1, r1, k2, r2)] += n
    return out
