"""Replicas (issue 55, point 3): two `serve` processes on two ports, as on two machines behind
a load balancer, writing one PostgreSQL audit store and serving one shared models folder.

Under load from clients spread over both, a model file is swapped in the folder (both replicas
must serve it within the documented bound: --poll plus its load), then one replica is killed
with SIGKILL. Every decision either replica acknowledged must be in the store exactly once, as
it was answered and with the version that made it, and `audit --replay` must reproduce them all.
"""
from __future__ import annotations

import os
import time

import pytest

from c45rules.service.app import request_ids
from c45rules.service.audit import model_fingerprint
from c45rules.service.workerfiles import open_audit

from e2e.conftest import ok
from .conftest import Load, Server, crx_test_records, serving, wait_for

CLIENTS = 4
POLL = 0.2          # the replicas' --poll (conftest's Server)
LOAD_MARGIN = 3.0   # seconds for reading and compiling a model on a loaded shared machine


def test_request_ids_differ_in_a_forked_child():
    # the audit key of a decision: a worker forked after the app was made (gunicorn --preload)
    # must not draw its parent's ids, or two processes would write the same keys
    ids = request_ids()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: its first id, then out without running the parent's cleanup
        os.write(write, b"%032x" % ids.getrandbits(128))
        os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert len(child) == 32 and child != f"{ids.getrandbits(128):032x}"


@pytest.mark.postgres
def test_two_replicas_one_store_a_swap_and_a_kill(models, pg_url, crx_versions):
    a = Server(models, pg_url).start()
    b = Server(models, pg_url, "--workers", "2").start()
    replicas = [a, b]
    # round robin over both, as a load balancer spreads requests
    load = Load(lambda turn: replicas[turn % 2].url, crx_test_records(), CLIENTS, batch=4)
    acked, failures = load.acked, load.failures
    old = model_fingerprint(crx_versions[0].read_bytes())
    new_bytes = crx_versions[1].read_bytes()
    new = model_fingerprint(new_bytes)
    try:
        time.sleep(2.0)
        (models / ".crx.new").write_bytes(new_bytes)
        swapped_at = time.monotonic()
        (models / ".crx.new").rename(models / "crx.yaml")
        # every replica serves the new version within the bound (b's two workers too: six
        # answers in a row, from whichever worker takes each connection)
        picked = {}
        for r in replicas:
            assert wait_for(lambda: serving(r) == new, timeout=30, times=6)
            picked[r.port] = time.monotonic() - swapped_at
        assert max(picked.values()) <= POLL + LOAD_MARGIN, picked
        time.sleep(2.0)
        killed_at = time.monotonic()
        a.kill()   # SIGKILL, mid-load
        time.sleep(2.0)
    finally:
        load.stop()
        a.kill()
        b.stop()

    assert not [f for f in failures if f[2].startswith("HTTP")], failures[:5]
    assert not [f for f in failures if f[0] < killed_at or f[1] != a.url], failures[:5]
    assert [f for f in failures if f[1] == a.url]   # the kill did cut a's share of the load
    late = [fp for rid, fp, _ in acked]
    assert late.count(old) > 20 and late.count(new) > 20
    # every acknowledged decision, from either replica, is in the one store once, as answered
    store = open_audit(pg_url)
    load.check_stored(store)
    store.close()
    p = ok("audit", pg_url, "--replay", timeout=180)
    assert "0 differ" in p.stderr and "of 2 model versions" in p.stderr
