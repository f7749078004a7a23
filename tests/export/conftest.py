"""Fixtures of the export tests: fitted rule sets with scored cases, the hostile rule set,
and a PostgreSQL connection (skipped without C45RULES_PG_DSN, failed under CI)."""
from __future__ import annotations

import os
import uuid

import pytest

from export_cases import (COSTED_BOOSTED, Scored, boosted_scored, costed_boosted_scored, fit_scored, hostile_ruleset,
                          probe_rows, random_rows, score, score_boosted, tie_costed_model, tie_model, tie_rows)

PG_ENV = "C45RULES_PG_DSN"


@pytest.fixture(scope="session")
def fitted():
    """fitted(name) -> Scored for a dataset of the shared data (cached per session)."""
    cache: dict[str, Scored] = {}

    def get(name: str) -> Scored:
        if name not in cache:
            cache[name] = fit_scored(name)
        return cache[name]
    return get


@pytest.fixture(scope="session")
def hostile() -> Scored:
    """The hostile rule set with random rows and probes on every edge."""
    rs = hostile_ruleset()
    base = random_rows(rs, 600, seed=7)
    return score("hostile", rs, base + probe_rows(rs, base, seed=3))


@pytest.fixture(scope="session")
def boosted():
    """boosted(name) -> Scored for a boosted model of a shared set, or "tie" (cached per session)."""
    cache: dict[str, Scored] = {}

    def get(name: str) -> Scored:
        if name not in cache:
            if name == "tie":
                cache[name] = score_boosted(name, tie_model(), tie_rows())
            elif name == "tie+costs":
                cache[name] = score_boosted(name, tie_costed_model(), tie_rows())
            elif name in COSTED_BOOSTED:
                cache[name] = costed_boosted_scored(name)
            else:
                cache[name] = boosted_scored(name)
        return cache[name]
    return get


# ---- PostgreSQL ----------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """The libpq DSN of a PostgreSQL server; skip without one, but fail under CI."""
    dsn = os.environ.get(PG_ENV)
    if not dsn:
        message = f"{PG_ENV} is not set (a libpq DSN such as 'host=/tmp/pgsock dbname=postgres user=postgres')"
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL tests must run under CI: {message}")
        pytest.skip(message)
    return dsn


@pytest.fixture
def pg(pg_dsn):
    """A connection (autocommit) whose search_path is a fresh schema, dropped afterwards."""
    import psycopg
    from psycopg import sql

    conn = psycopg.connect(pg_dsn, autocommit=True)
    schema = f"c45rules_test_{uuid.uuid4().hex[:12]}"
    conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
    try:
        yield conn
    finally:
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
        conn.close()
