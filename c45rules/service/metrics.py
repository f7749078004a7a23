"""The decision service's Prometheus metrics (GET /metrics), one scrape over every worker.

`serve` points PROMETHEUS_MULTIPROC_DIR at a temporary folder of its own before any worker
starts (prometheus_client reads it at import): each worker process then keeps its counts in
memory-mapped files there, and a scrape answered by any worker sums them all. Without it (an
app made in-process, as tests do) the counts are this process's alone.

    c45rules_decisions_total{model,fingerprint,rule_id,class}   decisions made (records)
    c45rules_number_decisions_total{model,fingerprint}           numbers decided (a regression model's records)
    c45rules_shadow_disagreements_total{model}                   a regression model's records whose challenger's
                                                                 number differs (service/numbers.py numbers_differ)
    c45rules_request_seconds{route}                              request latency (histogram)
    c45rules_errors_total{status}                                answers of status >= 400
    c45rules_audit_commit_seconds                                audit commit latency (histogram)
    c45rules_audit_queue_depth                                   requests waiting, after each commit
    c45rules_model_reloads_total{model}, c45rules_model_refused_total{model}
"""
from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram,
                               generate_latest, multiprocess)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)

DECISIONS = Counter("c45rules_decisions", "decisions made, by model version, deciding rule and class",
                    ["model", "fingerprint", "rule_id", "class"])
NUMBERS = Counter("c45rules_number_decisions", "numbers decided (records of regression models), by model version",
                  ["model", "fingerprint"])
SHADOW_DISAGREEMENTS = Counter("c45rules_shadow_disagreements", "records whose challenger's number disagrees with"
                               " the champion's (relative difference > 1e-6), by model", ["model"])
REQUEST_SECONDS = Histogram("c45rules_request_seconds", "request latency, by route", ["route"],
                            buckets=_LATENCY_BUCKETS)
ERRORS = Counter("c45rules_errors", "answers with an error status, by status", ["status"])
AUDIT_SECONDS = Histogram("c45rules_audit_commit_seconds", "audit store commit latency (one group commit)",
                          buckets=_LATENCY_BUCKETS)
# livesum: the sum over the workers alive (a dead worker's queue is no one's)
AUDIT_QUEUE = Gauge("c45rules_audit_queue_depth", "requests waiting for the audit store's commit"
                    " (as the last commit left them)", multiprocess_mode="livesum")
RELOADS = Counter("c45rules_model_reloads", "model versions swapped in (the first load included)", ["model"])
REFUSED = Counter("c45rules_model_refused", "model files refused (not valid, a clash, or not stored)", ["model"])


class DecisionCounts:
    """One model version's decision counters, one per rule_index position (made once)."""

    def __init__(self, model: str, fingerprint: str, classes: Sequence, rule_ids: Sequence) -> None:
        self.children = [DECISIONS.labels(model, fingerprint, str(int(r)), str(c)) for c, r in zip(classes, rule_ids)]

    def count(self, positions: Sequence[int]) -> None:
        """Count the decisions at these rule_index positions (one inc per distinct position)."""
        if len(positions) == 1:
            self.children[positions[0]].inc()
            return
        for k, n in enumerate(np.bincount(np.asarray(positions), minlength=len(self.children)).tolist()):
            if n:
                self.children[k].inc(n)


def audit_committed(seconds: float, waiting: int) -> None:
    """Record one audit commit (AuditWriter's on_commit): its latency, and the queue it left.

    Set by the writer at each commit rather than counted up and down by each request: two
    fewer writes to the shared files per decision."""
    AUDIT_SECONDS.observe(seconds)
    AUDIT_QUEUE.set(waiting)


def scrape() -> tuple[bytes, str]:
    """(the text exposition of every worker's metrics, its content type)."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST


def worker_exited(pid: int) -> None:
    """Drop a worker's live gauges from the shared folder (its counters stay counted)."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)
