"""Reliability under load (loopback, about 20 s): two workers, each with its SQLite audit file, a model
swap in the middle, the whole server killed with SIGKILL once and restarted on the same port.

Every acknowledged decision must be in the audit store exactly once, as it was answered;
replay must find no difference; the swap must cost no request (the only failures allowed are
connection errors between the kill and the restart).
"""
from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request

from c45rules.service.audit import model_fingerprint
from c45rules.service.workerfiles import open_audit, worker_files

from e2e.conftest import ok
from .conftest import Server, call, crx_test_records

CLIENTS = 6


def test_acknowledged_decisions_survive_a_swap_and_a_kill(models, tmp_path, crx_versions):
    audit = tmp_path / "audit.sqlite"
    server = Server(models, f"sqlite:{audit}", "--workers", "2").start()
    records = crx_test_records()
    acked: list[tuple[str, str, list]] = []      # (request_id, fingerprint, [(class, rule, confidence)]) + records
    sent: dict[str, list] = {}
    failures: list[tuple[float, str]] = []
    stop = threading.Event()
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        sent_requests = 0
        while not stop.is_set() and sent_requests < 5000:   # bounded whatever the timing
            sent_requests += 1
            batch = rng.random() < 0.2
            body = [rng.choice(records) for _ in range(5)] if batch else rng.choice(records)
            req = urllib.request.Request(server.url + "/v1/models/crx/decide", data=json.dumps(body).encode(),
                                         method="POST")
            try:
                with urllib.request.urlopen(req, timeout=20) as r:
                    answer = json.loads(r.read())
            except urllib.error.HTTPError as e:
                with lock:
                    failures.append((time.monotonic(), f"HTTP {e.code}: {e.read()[:200]!r}"))
                continue
            except OSError as e:   # refused or reset: the server is down (allowed only while killed)
                with lock:
                    failures.append((time.monotonic(), f"connection: {e}"))
                time.sleep(0.02)
                continue
            decisions = answer["decisions"] if batch else [answer]
            with lock:
                acked.append((answer["request_id"], answer["fingerprint"],
                              [(d["class"], d["rule_id"], d["confidence"]) for d in decisions]))
                sent[answer["request_id"]] = body if batch else [body]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    try:
        time.sleep(2.5)
        new_bytes = crx_versions[1].read_bytes()
        swapped_at = time.monotonic()
        (models / ".crx.new").write_bytes(new_bytes)
        (models / ".crx.new").rename(models / "crx.yaml")
        new = model_fingerprint(new_bytes)
        deadline = time.monotonic() + 15
        while not any(fp == new for _, fp, _ in list(acked)) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(2.0)
        killed_at = time.monotonic()
        server.kill()
        time.sleep(0.5)
        server = Server(models, f"sqlite:{audit}", "--workers", "2", port=server.port).start()
        ready_at = time.monotonic()
        time.sleep(2.5)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        server.stop()

    old = model_fingerprint(crx_versions[0].read_bytes())
    assert not [f for f in failures if f[1].startswith("HTTP")], failures[:5]
    assert [f for f in failures if f[0] >= killed_at]   # the kill did cut the load
    assert not [f for f in failures if not killed_at <= f[0] <= ready_at + 1.0], failures[:5]
    fingerprints = [fp for _, fp, _ in acked]
    assert fingerprints.count(old) > 50 and fingerprints.count(new) > 50
    assert swapped_at < ready_at
    # every acknowledged decision is in the store exactly once, as it was answered
    # (each worker wrote its own file: audit.sqlite and audit.sqlite-1, read as one store)
    assert [p.name for p in worker_files(audit)] == ["audit.sqlite", "audit.sqlite-1"]
    files = open_audit(f"sqlite:{audit}")
    stored: dict[tuple[str, int], list] = {}
    for d in files.decisions():
        stored.setdefault((d.request_id, d.seq), []).append((d.fingerprint, json.loads(d.record),
                                                            (d.klass, d.rule_id, d.confidence)))
    files.close()
    for request_id, fp, decisions in acked:
        for seq, decision in enumerate(decisions):
            assert stored.get((request_id, seq)) == [(fp, sent[request_id][seq], decision)], request_id
    assert len(stored) >= sum(len(d) for _, _, d in acked)   # plus any decided but not acknowledged
    p = ok("audit", f"sqlite:{audit}", "--replay", timeout=120)
    assert "0 differ" in p.stderr and "of 2 model versions" in p.stderr
