"""Reliability under load (loopback, about 20 s): two workers, each with its SQLite audit file, a model
swap in the middle, the whole server killed with SIGKILL once and restarted on the same port.

Every acknowledged decision must be in the audit store exactly once, as it was answered;
replay must find no difference; the swap must cost no request (the only failures allowed are
connection errors between the kill and the restart).
"""
from __future__ import annotations

import time

from c45rules.service.audit import model_fingerprint
from c45rules.service.workerfiles import open_audit, worker_files

from e2e.conftest import ok
from .conftest import Load, Server, crx_test_records

CLIENTS = 6


def test_acknowledged_decisions_survive_a_swap_and_a_kill(models, tmp_path, crx_versions):
    audit = tmp_path / "audit.sqlite"
    server = Server(models, f"sqlite:{audit}", "--workers", "2").start()
    load = Load(lambda turn: server.url, crx_test_records(), CLIENTS)
    acked, failures = load.acked, load.failures
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
        load.stop()
        server.stop()

    old = model_fingerprint(crx_versions[0].read_bytes())
    assert not [f for f in failures if f[2].startswith("HTTP")], failures[:5]
    assert [f for f in failures if f[0] >= killed_at]   # the kill did cut the load
    assert not [f for f in failures if not killed_at <= f[0] <= ready_at + 1.0], failures[:5]
    fingerprints = [fp for _, fp, _ in acked]
    assert fingerprints.count(old) > 50 and fingerprints.count(new) > 50
    assert swapped_at < ready_at
    # every acknowledged decision is in the store exactly once, as it was answered
    # (each worker wrote its own file: audit.sqlite and audit.sqlite-1, read as one store)
    assert [p.name for p in worker_files(audit)] == ["audit.sqlite", "audit.sqlite-1"]
    files = open_audit(f"sqlite:{audit}")
    load.check_stored(files)
    files.close()
    p = ok("audit", f"sqlite:{audit}", "--replay", timeout=120)
    assert "0 differ" in p.stderr and "of 2 model versions" in p.stderr
