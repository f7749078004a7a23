"""Replicas (issue 55, point 3): two `serve` processes on two ports, as on two machines behind
a load balancer, writing one PostgreSQL audit store and serving one shared models folder.

Under load from clients spread over both, a model file is swapped in the folder (both replicas
must serve it within the documented bound: --poll plus its load), then one replica is killed
with SIGKILL. Every decision either replica acknowledged must be in the store exactly once, as
it was answered and with the version that made it, and `audit --replay` must reproduce them all.
"""
from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.error
import urllib.request

import pytest

from c45rules.service.app import request_ids
from c45rules.service.audit import model_fingerprint
from c45rules.service.workerfiles import open_audit

from e2e.conftest import ok
from .conftest import Server, crx_test_records, serving

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
    records = crx_test_records()
    acked: list[tuple[str, str, list]] = []    # (request_id, fingerprint, [(class, rule, confidence)])
    sent: dict[str, list] = {}
    failures: list[tuple[float, int, str]] = []
    stop = threading.Event()
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        for turn in range(5000):   # bounded whatever the timing
            if stop.is_set():
                return
            target = replicas[turn % 2]   # round robin, as a load balancer spreads them
            batch = rng.random() < 0.2
            body = [rng.choice(records) for _ in range(4)] if batch else rng.choice(records)
            req = urllib.request.Request(target.url + "/v1/models/crx/decide", data=json.dumps(body).encode(),
                                         method="POST")
            try:
                with urllib.request.urlopen(req, timeout=20) as r:
                    answer = json.loads(r.read())
            except urllib.error.HTTPError as e:
                with lock:
                    failures.append((time.monotonic(), target.port, f"HTTP {e.code}: {e.read()[:200]!r}"))
                continue
            except OSError as e:   # the killed replica: not acknowledged, so nothing is owed
                with lock:
                    failures.append((time.monotonic(), target.port, f"connection: {e}"))
                time.sleep(0.01)
                continue
            decisions = answer["decisions"] if batch else [answer]
            with lock:
                acked.append((answer["request_id"], answer["fingerprint"],
                              [(d["class"], d["rule_id"], d["confidence"]) for d in decisions]))
                sent[answer["request_id"]] = body if batch else [body]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    old = model_fingerprint(crx_versions[0].read_bytes())
    new_bytes = crx_versions[1].read_bytes()
    new = model_fingerprint(new_bytes)
    try:
        time.sleep(2.0)
        (models / ".crx.new").write_bytes(new_bytes)
        swapped_at = time.monotonic()
        (models / ".crx.new").rename(models / "crx.yaml")
        # every replica (each of b's two workers too) serves the new version within the bound
        picked = {}
        while len(picked) < 2 and time.monotonic() < swapped_at + 30:
            for r in replicas:
                if r.port not in picked and serving(r) == new:
                    picked[r.port] = time.monotonic() - swapped_at
            time.sleep(0.02)
        assert len(picked) == 2 and max(picked.values()) <= POLL + LOAD_MARGIN, picked
        time.sleep(2.0)
        killed_at = time.monotonic()
        a.kill()   # SIGKILL, mid-load
        time.sleep(2.0)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        a.kill()
        b.stop()

    assert not [f for f in failures if f[2].startswith("HTTP")], failures[:5]
    assert not [f for f in failures if f[0] < killed_at or f[1] != a.port], failures[:5]
    assert [f for f in failures if f[1] == a.port]   # the kill did cut a's share of the load
    late = [fp for rid, fp, _ in acked]
    assert late.count(old) > 20 and late.count(new) > 20
    # every acknowledged decision, from either replica, is in the one store once, as answered
    store = open_audit(pg_url)
    stored: dict[tuple[str, int], list] = {}
    for d in store.decisions():
        stored.setdefault((d.request_id, d.seq), []).append((d.fingerprint, json.loads(d.record),
                                                            (d.klass, d.rule_id, d.confidence)))
    store.close()
    for request_id, fp, decisions in acked:
        for seq, decision in enumerate(decisions):
            assert stored.get((request_id, seq)) == [(fp, sent[request_id][seq], decision)], request_id
    assert len(stored) >= sum(len(d) for _, _, d in acked)
    p = ok("audit", pg_url, "--replay", timeout=180)
    assert "0 differ" in p.stderr and "of 2 model versions" in p.stderr
