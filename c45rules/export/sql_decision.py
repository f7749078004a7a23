"""The first rule whose tests all hold, as CASE expressions that split on the rules' tests.

A flat CASE (`CASE WHEN <rule 1> THEN 1 WHEN <rule 2> THEN 2 ... ELSE 0 END`) tries the
rules in order, so a row decided by the 150th rule is tested against 149 rules first. Many
rules share tests (the rules of a C4.5 tree's branch all test the branch's splits), so
`decision_case` splits on one test at a time instead: under `CASE WHEN t THEN A ELSE B END`,
A knows t holds and B that it does not (false or NULL), so each side keeps only the rules
that can still fire there, without the tests known to hold. What a test says about the
other tests on its column is used too (`x <= 0.5` holding decides `x <= 0.7` and `x > 0.7`,
`n = 'a'` holding decides `n = 'b'`). Below a depth the rules left are a flat CASE again.

The result is the position (1-based, in `rules`' order) of the first rule all of whose tests
are TRUE, else 0: the flat CASE's result for every row, as SQL's three-valued logic goes (a
NULL test is not TRUE, on either form). A test is read for its meaning only in the forms
export/sql.py writes on a column of doubles that holds no NaN (the DuckDB engine's typed
columns, `engines/duckdb._number`) or of text: `x <= c`, `x > c`, `x <> NaN` (there: x IS
NOT NULL), `x = 's'`, `x IN (...)`; any other test is taken as an opaque boolean, known only
once split on.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

# the flat CASE of the rules left below this many splits on a row's path
MAX_DEPTH = 8
# a side with this many rules or fewer is a flat CASE already
FLAT_RULES = 32


@dataclass(frozen=True)
class _Fact:
    """What one test asks of its column: `kind` "le" / "gt" (the double `value`), "known" (not
    NULL), "in" (one of the texts `value`), or "opaque" (test number `value`)."""
    kind: str
    column: str
    value: float | frozenset[str] | int


@dataclass(frozen=True)
class _Span:
    """The values a double column can still hold on a path: NULL if `null`, and v with
    lo < v <= hi (-inf: no lower bound, even -inf itself)."""
    null: bool = True
    lo: float = -math.inf
    hi: float = math.inf


@dataclass(frozen=True)
class _Texts:
    """The values a text column can still hold: any (`allowed` None) or one of `allowed`
    (not NULL), never one of `excluded`."""
    allowed: frozenset[str] | None = None
    excluded: frozenset[str] = frozenset()


def _number(node: exp.Expression) -> float | None:
    if isinstance(node, exp.Neg):
        inner = _number(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            value = float(node.this)
        except ValueError:
            return None
        return value if math.isfinite(value) else None
    return None


def _is_nan(node: exp.Expression) -> bool:
    return (isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string
            and node.this.this.lower() == "nan")


def _fact(test: exp.Expression, index: int) -> _Fact:
    """The meaning of `test` (see the module docstring), else an opaque fact of its own."""
    left = test.args.get("this")
    if isinstance(left, exp.Column):
        column = left.sql()
        if isinstance(test, (exp.LTE, exp.GT)):
            value = _number(test.expression)
            if value is not None:
                return _Fact("le" if isinstance(test, exp.LTE) else "gt", column, value)
        elif isinstance(test, exp.NEQ) and _is_nan(test.expression):
            return _Fact("known", column, 0.0)
        elif isinstance(test, exp.EQ) and isinstance(test.expression, exp.Literal) and test.expression.is_string:
            return _Fact("in", column, frozenset([test.expression.this]))
        elif isinstance(test, exp.In) and test.expressions and not test.args.get("query") and all(
                isinstance(e, exp.Literal) and e.is_string for e in test.expressions):
            return _Fact("in", column, frozenset(e.this for e in test.expressions))
    return _Fact("opaque", f"#{index}", index)


def _holds(fact: _Fact, state: object) -> bool | None:
    """Whether `fact`'s test is TRUE (True), not TRUE (False) for every value `state` allows, or either (None)."""
    if fact.kind == "opaque":
        return state   # type: ignore[return-value]  # None, or the outcome split on
    if fact.kind == "in":
        assert isinstance(state, _Texts)
        if state.allowed is not None:
            left = state.allowed - state.excluded
            if left <= fact.value:
                return True
            if not left & fact.value:
                return False
        elif fact.value <= state.excluded:
            return False
        return None
    assert isinstance(state, _Span)
    empty = state.lo >= state.hi
    if fact.kind == "known":
        return True if not state.null else False if empty else None
    c = fact.value
    below = empty or state.hi <= c   # every value (if any) <= c
    above = empty or state.lo >= c   # every value (if any) > c
    if fact.kind == "le":
        return True if below and not state.null and not empty else False if above else None
    return True if above and not state.null and not empty else False if below else None


def _learn(fact: _Fact, state: object, outcome: bool) -> object:
    """`state` once `fact`'s test is known TRUE (`outcome`) or not TRUE (false or NULL)."""
    if fact.kind == "opaque":
        return outcome
    if fact.kind == "in":
        assert isinstance(state, _Texts)
        if outcome:
            return replace(state, allowed=fact.value if state.allowed is None else state.allowed & fact.value)
        return replace(state, excluded=state.excluded | fact.value)
    assert isinstance(state, _Span)
    if fact.kind == "known":
        return replace(state, null=False) if outcome else replace(state, hi=state.lo)
    c = fact.value
    if (fact.kind == "le") == outcome:   # le TRUE, or gt not TRUE: v <= c (gt's NULL stays possible)
        return replace(state, hi=min(state.hi, c), null=state.null and not outcome)
    return replace(state, lo=max(state.lo, c), null=state.null and not outcome)


def _initial(fact: _Fact) -> object:
    return None if fact.kind == "opaque" else _Texts() if fact.kind == "in" else _Span()


# a rule on a path: (its position, the tests not yet known TRUE)
_Left = tuple[int, tuple[int, ...]]


def decision_case(tests: Sequence[exp.Expression], rules: Sequence[Sequence[int]], *,
                  written: Sequence[exp.Expression] | None = None, max_depth: int | None = None) -> exp.Expression:
    """The position (1-based) of the first of `rules` whose tests (positions in `tests`, ANDed)
    are all TRUE, else 0, as nested CASE expressions splitting on the tests (module docstring).

    Each test is written as `written`'s element (a column computed as that test below, say:
    DuckDB then compares each test once a row, and the CASEs only read booleans), else as
    itself (each row then evaluates only the tests on its path and in its flat CASE)."""
    facts = [_fact(t, i) for i, t in enumerate(tests)]
    kinds: dict[str, set[bool]] = {}
    for f in facts:
        kinds.setdefault(f.column, set()).add(f.kind == "in")
    # a column tested both as text and as a number: each of its tests taken on its own
    facts = [_Fact("opaque", f"#{i}", i) if len(kinds[f.column]) > 1 else f for i, f in enumerate(facts)]
    start = {f.column: _initial(f) for f in facts}
    left: list[_Left] = [(k + 1, tuple(dict.fromkeys(ts))) for k, ts in enumerate(rules)]
    return _node(tests if written is None else written, facts, left, start, MAX_DEPTH if max_depth is None else max_depth)


def _narrow(facts: list[_Fact], left: Sequence[_Left], state: dict[str, object]) -> list[_Left]:
    """The rules that can still fire under `state`, each without its tests known TRUE, up to
    the first that has none left (it fires for every row here)."""
    out: list[_Left] = []
    for position, ts in left:
        keep = []
        for t in ts:
            known = _holds(facts[t], state[facts[t].column])
            if known is False:
                break
            if known is None:
                keep.append(t)
        else:
            out.append((position, tuple(keep)))
            if not keep:
                break
    return out


def _node(tests: Sequence[exp.Expression], facts: list[_Fact], left: list[_Left], state: dict[str, object],
          depth: int) -> exp.Expression:
    """The decision among `left` (already narrowed to `state`), `depth` more splits allowed."""
    left = _narrow(facts, left, state)
    ifs: list[exp.If] = []
    while left and left[0][1] and depth > 0 and len(left) > FLAT_RULES:
        test = _split_test(facts, left, state)
        fact = facts[test]
        holds = {**state, fact.column: _learn(fact, state[fact.column], True)}
        state = {**state, fact.column: _learn(fact, state[fact.column], False)}
        ifs.append(exp.If(this=tests[test].copy(), true=_node(tests, facts, left, holds, depth - 1)))
        # the side where the test is not TRUE continues this CASE's WHEN list
        left = _narrow(facts, left, state)
        depth -= 1
    rest = _flat(tests, left)
    if not ifs:
        return rest
    return exp.Case(ifs=ifs, default=rest)


def _flat(tests: Sequence[exp.Expression], left: list[_Left]) -> exp.Expression:
    """The first-hit CASE of the rules `left`, else 0."""
    ifs = []
    for position, ts in left:
        if not ts:
            return exp.Case(ifs=ifs, default=exp.Literal.number(position)) if ifs else exp.Literal.number(position)
        ifs.append(exp.If(this=exp.and_(*(tests[t].copy() for t in ts)), true=exp.Literal.number(position)))
    return exp.Case(ifs=ifs, default=exp.Literal.number(0)) if ifs else exp.Literal.number(0)


def _split_test(facts: list[_Fact], left: list[_Left], state: dict[str, object]) -> int:
    """A test of the first rule left (every row here evaluates one of them first), the one whose
    outcome decides the most tests of the rules left, summed over its two outcomes."""
    uses: dict[int, int] = {}
    for _, ts in left:
        for u in ts:
            uses[u] = uses.get(u, 0) + 1
    on: dict[str, list[int]] = {}
    for u in uses:
        on.setdefault(facts[u].column, []).append(u)
    best, best_score = left[0][1][0], -1
    for t in left[0][1]:
        fact = facts[t]
        score = 0
        for outcome in (True, False):
            learnt = _learn(fact, state[fact.column], outcome)
            score += sum(uses[u] for u in on[fact.column] if _holds(facts[u], learnt) is not None)
        if score > best_score:
            best, best_score = t, score
    return best
