#!/usr/bin/env python3
"""Decision service benchmark (issue 30, point 3): `c45rules serve` with 2 workers and the
SQLite audit on (each worker its own file), loaded from this process over loopback.

Usage:
  python bench/service.py [--workers 2] [--seconds 10] [--clients 1,8,64] [--batch 10000]
                          [--batches 40] [--data crx] [--sync full|normal] [--log-format text|json]

Fits the dataset's model (../shared/data/NAME), starts the server on a free loopback port, then
for each client count runs that many keep-alive HTTP/1.1 connections (a small asyncio client,
no third-party library) posting one record each per request, for --seconds; then posts
--batches lists of --batch records over 2 connections. Every decision is committed to the audit
store before it is answered, as in production. Prints one table: single-record decisions per
second with p50/p99 latency per client count, and rows per second for the batches, each with
the server's CPU time per decision (its processes' user + system time, which depends far less
than requests/s on what else a shared machine runs); with the issue's targets (>= 2,000
decisions/s and p99 <= 25 ms at 8 clients; >= 200,000 rows/s).
The client shares the machine's cores with the server, so the numbers are a lower bound.

With --variants (issue 55) it measures instead, in one run, the service as it is (metrics on),
with JSON logs, with a shadow model (`--shadow`: the model fitted with -c 5 decides every record
too) and with both, started in turn and alternated over --rounds, each at 8 clients and in
batches; --baseline DIR adds a variant served by the checkout in DIR (a commit from before the
metrics). One table, each variant's throughput also as a share of the plain service's.
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import reference as R
from common import put_section, run_stamp

HOST = "127.0.0.1"


async def _post(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, body: bytes) -> int:
    """One request on an open keep-alive connection; its HTTP status (the body is read and dropped)."""
    writer.write(b"POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (path.encode(), len(body), body))
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    await reader.readexactly(length)
    return status


async def _clients(port: int, path: str, bodies: list[bytes], clients: int, seconds: float,
                   limit: int | None = None) -> tuple[list[float], int]:
    """(latencies in seconds of the 200 answers, failures) of `clients` connections for `seconds`."""
    latencies: list[float] = []
    failures = 0
    end = time.perf_counter() + seconds
    budget = [limit if limit is not None else 1 << 62]

    async def one(seed: int) -> None:
        nonlocal failures
        rng = random.Random(seed)
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while time.perf_counter() < end and budget[0] > 0:
                budget[0] -= 1
                t = time.perf_counter()
                status = await _post(reader, writer, path, rng.choice(bodies))
                if status == 200:
                    latencies.append(time.perf_counter() - t)
                else:
                    failures += 1
        finally:
            writer.close()
    await asyncio.gather(*(one(i) for i in range(clients)))
    return latencies, failures


def _quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def _session_cpu(session: int) -> float:
    """CPU seconds (user + system) used so far by the processes of a session (the server and its
    workers). Linux only (0 elsewhere)."""
    total, tick = 0, os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == session:   # after the name: state, ppid, pgrp, session, ...
            total += int(fields[11]) + int(fields[12])   # utime, stime
    return total / tick


def _fsync_ms(folder: Path, n: int = 200) -> tuple[float, float]:
    """(p50, p99) milliseconds of an fsync after an 8 KB write in `folder`: what each SQLite
    commit with synchronous=full waits for at least, on this disk as busy as it is now."""
    times = []
    fd = os.open(folder / "fsync-probe", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for _ in range(n):
            os.write(fd, b"x" * 8192)
            t = time.perf_counter()
            os.fsync(fd)
            times.append(time.perf_counter() - t)
    finally:
        os.close(fd)
        os.unlink(folder / "fsync-probe")
    return 1000 * _quantile(times, 0.5), 1000 * _quantile(times, 0.99)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", default="1,8,64")
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--data", default="crx")
    ap.add_argument("--sync", choices=("full", "normal"), default="full",
                    help="the SQLite audit's synchronous setting (full: every commit synced to the disk)")
    ap.add_argument("--log-format", choices=("text", "json"), default="text",
                    help="serve's --log-format (json: one log line per request too), to weigh its cost")
    ap.add_argument("--variants", action="store_true",
                    help="metrics alone, JSON logs, a shadow model and both, alternated (issue 55)")
    ap.add_argument("--rounds", type=int, default=2, help="with --variants: times each variant is run")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="with --variants: also serve from this checkout (e.g. one before the metrics)")
    ap.add_argument("--markdown", type=Path, default=None,
                    help="also write the table as the service-SYNC section of this file (BENCHMARKS.md)")
    args = ap.parse_args(argv)
    if args.variants:
        return variants(args)
    exe = [sys.executable, "-m", "c45rules"]
    with tempfile.TemporaryDirectory(prefix="c45rules-bench-service-") as tmp:
        tmp = Path(tmp)
        (tmp / "models").mkdir()
        _fit(exe, args.data, tmp / "models" / "model.yaml")
        singles, batches = _bodies(args)
        audit = tmp / "audit.sqlite"
        # --log-format only when asked: a serve from before issue 55 (no metrics) is measured as well
        server, port = _start(exe, tmp / "models", audit, args.workers,
                              ["--log-format", args.log_format] if args.log_format != "text" else [], sync=args.sync)
        try:
            path = "/v1/models/model/decide"
            load_before = os.getloadavg()[0]
            fsync = _fsync_ms(tmp)
            asyncio.run(_clients(port, path, singles, 4, 2.0))   # warm up: imports, caches, the WAL
            lines = [f"c45rules serve, {args.workers} workers, SQLite audit (WAL, synchronous={args.sync},"
                     f" one file per worker), "
                     f"{args.data} model, {args.log_format} logs, {os.cpu_count()} cores shared with the client; the audit's disk:"
                     f" fsync of 8 KB p50 {fsync[0]:.2f} ms, p99 {fsync[1]:.2f} ms",
                     "", "| load | clients | decisions/s | p50 ms | p99 ms | failures | server CPU ms per decision |",
                     "|---|---|---|---|---|---|---|"]
            for clients in (int(c) for c in args.clients.split(",")):
                t, cpu = time.perf_counter(), _session_cpu(server.pid)
                lat, failures = asyncio.run(_clients(port, path, singles, clients, args.seconds))
                wall, cpu = time.perf_counter() - t, _session_cpu(server.pid) - cpu
                lines.append(f"| single record | {clients} | {len(lat) / wall:,.0f} | {1000 * _quantile(lat, 0.5):.2f}"
                             f" | {1000 * _quantile(lat, 0.99):.2f} | {failures} | {1000 * cpu / max(1, len(lat)):.3f} |")
            t, cpu = time.perf_counter(), _session_cpu(server.pid)
            lat, failures = asyncio.run(_clients(port, path, batches, 2, 1e9, limit=args.batches))
            wall, cpu = time.perf_counter() - t, _session_cpu(server.pid) - cpu
            lines.append(f"| {args.batch:,}-record batches | 2 | {len(lat) * args.batch / wall:,.0f} rows/s"
                         f" | {1000 * _quantile(lat, 0.5):.0f} | {1000 * _quantile(lat, 0.99):.0f} | {failures}"
                         f" | {1000 * cpu / max(1, len(lat) * args.batch):.4f} |")
            lines += ["", "targets: >= 2,000 decisions/s with p99 <= 25 ms at 8 clients; >= 200,000 rows/s in batches"]
            print("\n".join(lines))
            if args.markdown:
                stamp = run_stamp()
                put_section(args.markdown, f"service-{args.sync}", "\n".join([
                    f"## Decision service, SQLite audit synchronous={args.sync} (issue 30)", "",
                    f"Written by `python bench/service.py --sync {args.sync}`, measured {stamp['date']} at commit "
                    f"{stamp['commit']}, load average {load_before:.2f} at the start and {os.getloadavg()[0]:.2f}"
                    " at the end (the machine's other work shares its cores and disk).", "", *lines]))
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return 0


def _fit(exe: list[str], data: str, out: Path, *options: str) -> None:
    """`c45rules fit` of the dataset into `out`."""
    subprocess.run([*exe, "-q", "fit", R.stem(data), *options, "-o", str(out)], check=True, stdout=subprocess.DEVNULL)


def _bodies(args: argparse.Namespace) -> tuple[list[bytes], list[bytes]]:
    """(one-record request bodies: each row of the data's CSV, four --batch-record bodies)."""
    with open(R.DATA / args.data / f"{args.data}.csv", newline="") as f:
        rows = [{k: v for k, v in r.items() if k != "class"} for r in csv.DictReader(f)]
    rng = random.Random(0)
    return ([json.dumps(r).encode() for r in rows],
            [json.dumps([rng.choice(rows) for _ in range(args.batch)]).encode() for _ in range(4)])


def _start(exe: list[str], models: Path, audit: Path, workers: int, extra: list[str],
           env: dict[str, str] | None = None, sync: str = "normal") -> tuple[subprocess.Popen, int]:
    """A serve process on a free port, once it accepts connections."""
    port = _free_port()
    server = subprocess.Popen([*exe, "serve", str(models), "--host", HOST, "--port", str(port),
                               "--workers", str(workers), "--audit", f"sqlite:{audit}?synchronous={sync}",
                               "--max-body", "100MB", *extra], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return server, port
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                os.killpg(server.pid, signal.SIGKILL)
                raise SystemExit("the server did not start")
            time.sleep(0.2)


def variants(args: argparse.Namespace) -> int:
    """The service plain, with JSON logs, with a shadow model and with both, alternated; one table."""
    exe = [sys.executable, "-m", "c45rules"]
    clients = 8
    with tempfile.TemporaryDirectory(prefix="c45rules-bench-service-") as tmp:
        tmp = Path(tmp)
        (tmp / "models").mkdir()
        _fit(exe, args.data, tmp / "models" / "model.yaml")
        _fit(exe, args.data, tmp / "challenger.yaml", "-c", "5")
        singles, batches = _bodies(args)
        shadow = ["--shadow", f"model={tmp / 'challenger.yaml'}"]
        kinds: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "metrics (the service as it is)": ([], None),
            "metrics + JSON logs": (["--log-format", "json"], None),
            "metrics + shadow model": (shadow, None),
            "metrics + JSON logs + shadow model": (["--log-format", "json", *shadow], None)}
        if args.baseline:
            kinds = {f"without metrics ({args.baseline.name})": ([], {**os.environ, "PYTHONPATH": str(args.baseline)}),
                     **kinds}
        got: dict[str, list[tuple[float, float, float, float, float]]] = {k: [] for k in kinds}
        load_before = os.getloadavg()[0]
        path = "/v1/models/model/decide"
        for turn in range(args.rounds):
            for i, (kind, (extra, env)) in enumerate(kinds.items()):
                audit = tmp / f"audit-{turn}-{i}.sqlite"
                server, port = _start(exe, tmp / "models", audit, args.workers, extra, env)
                try:
                    asyncio.run(_clients(port, path, singles, 4, 2.0))   # warm up
                    t, cpu = time.perf_counter(), _session_cpu(server.pid)
                    lat, _ = asyncio.run(_clients(port, path, singles, clients, args.seconds))
                    wall, cpu = time.perf_counter() - t, _session_cpu(server.pid) - cpu
                    t, bcpu = time.perf_counter(), _session_cpu(server.pid)
                    blat, _ = asyncio.run(_clients(port, path, batches, 2, 1e9, limit=args.batches))
                    bwall, bcpu = time.perf_counter() - t, _session_cpu(server.pid) - bcpu
                    got[kind].append((len(lat) / wall, 1000 * _quantile(lat, 0.99), 1000 * cpu / max(1, len(lat)),
                                      len(blat) * args.batch / bwall, 1000 * bcpu / max(1, len(blat) * args.batch)))
                finally:
                    os.killpg(server.pid, signal.SIGTERM)
                    server.wait(timeout=30)
        def mean(kind: str, k: int) -> float:
            return sum(r[k] for r in got[kind]) / len(got[kind])
        plain = "metrics (the service as it is)"
        lines = [f"c45rules serve, {args.workers} workers, SQLite audit (synchronous=normal), {args.data} model,"
                 f" {clients} clients posting one record each for {args.seconds:g} s, then {args.batches}"
                 f" batches of {args.batch:,} records over 2 connections; each variant run {args.rounds} times,"
                 f" alternated (means); {os.cpu_count()} cores shared with the client",
                 "", "| variant | decisions/s | p99 ms | server CPU ms per decision | share by CPU | batch rows/s"
                 " | server CPU ms per batch row | share by CPU |", "|---|---|---|---|---|---|---|---|"]
        def share(k: int, kind: str) -> str:   # a run too short for the CPU clock's ticks measures 0
            return f"{mean(plain, k) / mean(kind, k):.0%}" if mean(kind, k) else "-"
        for kind in kinds:
            lines.append(f"| {kind} | {mean(kind, 0):,.0f} | {mean(kind, 1):.2f} | {mean(kind, 2):.3f}"
                         f" | {share(2, kind)} | {mean(kind, 3):,.0f} | {mean(kind, 4):.4f} | {share(4, kind)} |")
        lines += ["", "share by CPU: the plain service's server CPU time per decision over this variant's, the"
                  " throughput a variant keeps where the server's cores are the limit (decisions/s itself moves"
                  " with whatever else the shared machine runs); target: a shadow model keeps >= 70%"]
        print("\n".join(lines))
        if args.markdown:
            stamp = run_stamp()
            put_section(args.markdown, "service-variants", "\n".join([
                "## Decision service: metrics, JSON logs and a shadow model (issue 55)", "",
                f"Written by `python bench/service.py --variants`, measured {stamp['date']} at commit "
                f"{stamp['commit']}, load average {load_before:.2f} at the start and {os.getloadavg()[0]:.2f}"
                " at the end (the machine's other work shares its cores and disk).", "", *lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
