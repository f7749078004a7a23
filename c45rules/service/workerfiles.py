"""One SQLite audit file per worker process of the service, and the files read as one store.

Two workers writing one SQLite file take turns at its write lock, and a worker that finds it
taken sleeps in SQLite's busy handler (milliseconds at a time): that, not the work, bounded
the service's tail latency. So each worker claims a slot when it starts: slot 0 writes PATH
itself, slot N writes PATH-N. A slot is held by a POSIX lock on byte N of PATH.lock, which
the kernel releases when the process ends, however it ends; a restarted service reuses the
free slots, so the files stay few. `audit` reads PATH and every PATH-N beside it as one
store, merged oldest first. A PostgreSQL store is one store for every worker (its
concurrent transactions do not queue on one lock), so it takes no slot.
"""
from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .audit import AuditStore, Decision, merge_decisions, open_store, sqlite_parts

try:
    import fcntl
except ImportError:   # no POSIX locks (Windows): every worker writes PATH, taking turns
    fcntl = None

_held: dict[str, tuple[int, set[int]]] = {}   # lock file -> (its descriptor, the slots this process holds)
_held_lock = threading.Lock()


def worker_file(path: Path, slot: int) -> Path:
    """The SQLite file of slot `slot` (0: the store's own path)."""
    return path if slot == 0 else path.with_name(f"{path.name}-{slot}")


def worker_files(path: Path) -> list[Path]:
    """The store's files that exist: PATH, then PATH-1, PATH-2, ... in slot order."""
    pattern = re.compile(re.escape(path.name) + r"-([1-9][0-9]*)")
    try:
        found = [(int(m.group(1)), entry) for entry in path.parent.iterdir() if (m := pattern.fullmatch(entry.name))]
    except OSError:
        found = []
    return [p for p in [path] if p.is_file()] + [entry for _, entry in sorted(found) if entry.is_file()]


class WorkerSlot:
    """The audit store URL this process writes (a slot's file for SQLite), held until release().

    The slot also numbers the service's worker processes (their log lines name it): with a
    store that is not SQLite, where every worker writes the one store, the slot is taken on
    `lock_file` when one is given (`serve` makes one), else it is 0."""

    def __init__(self, url: str, lock_file: str | None = None) -> None:
        self.url, self.slot, self._lock_file = url, 0, None
        parts = sqlite_parts(url)
        if fcntl is None or (parts is None and lock_file is None):
            return
        if parts is not None:
            path = parts[0]
            lock_file = str(path.with_name(path.name + ".lock").absolute())
        with _held_lock:
            if lock_file not in _held:
                # one descriptor per process: closing any descriptor of the file would drop all its locks
                _held[lock_file] = (os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644), set())
            fd, slots = _held[lock_file]
            slot = 0
            while True:
                # a process's own POSIX locks never conflict with each other: its slots are kept in `slots`
                if slot not in slots:
                    try:
                        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, slot, os.SEEK_SET)
                        break
                    except OSError:
                        pass
                slot += 1
            slots.add(slot)
        self.slot, self._lock_file = slot, lock_file
        if parts is not None:
            _, _, query = url.partition("?")
            self.url = f"sqlite:{worker_file(parts[0], slot)}" + (f"?{query}" if query else "")

    def release(self) -> None:
        """Give the slot back (another worker may take it)."""
        if self._lock_file is None:
            return
        with _held_lock:
            fd, slots = _held[self._lock_file]
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, self.slot, os.SEEK_SET)
            slots.discard(self.slot)
        self._lock_file = None


class AuditFiles:
    """Several stores (a SQLite store's worker files) read as one."""

    def __init__(self, stores: list[AuditStore]) -> None:
        self.stores = stores

    def model_text(self, fingerprint: str) -> str | None:
        """The YAML of a logged model version, from whichever file holds it, or None."""
        for store in self.stores:
            text = store.model_text(fingerprint)
            if text is not None:
                return text
        return None

    def decisions(self, model: str | None = None, since: str | None = None, rule: int | None = None,
                  limit: int | None = None) -> Iterator[Decision]:
        """Every file's decisions merged, oldest first (see AuditStore.decisions)."""
        return merge_decisions([s.decisions(model, since, rule) for s in self.stores], limit)

    def shadowed(self, model: str | None = None, since: str | None = None) -> Iterator[tuple]:
        """Every file's requests a challenger also decided (see AuditStore.shadowed)."""
        for store in self.stores:
            yield from store.shadowed(model, since)

    def close(self) -> None:
        """Close every file."""
        for store in self.stores:
            store.close()


def open_audit(url: str) -> AuditFiles:
    """The audit store at `url` for reading: a SQLite store with its worker files, or PostgreSQL."""
    parts = sqlite_parts(url)
    if parts is None:
        return AuditFiles([open_store(url, create=False)])
    path, _ = parts
    if not path.is_file():
        raise InputError(f"{path}: no audit store there (file not found)")
    stores: list[AuditStore] = []
    try:
        for file in worker_files(path):
            stores.append(open_store(f"sqlite:{file}", create=False))
    except InputError:
        for store in stores:
            store.close()
        raise
    return AuditFiles(stores)
