"""The folder of models the service serves, and their live swap.

Every `NAME.yaml` (or `.yml`) directly in the folder is served as model NAME. A poller looks at
the files' size, mtime and inode about once a second; a new or changed file is read, its
fingerprint taken (sha256 of its bytes), validated as a model (load_yaml, then the rules
compiled for deciding), stored in the audit store, and only then swapped in: the table is
one dict replaced whole, so a request that took a model keeps that model to the end, and
none sees a half-loaded one. A file that does not validate is refused and logged, and the
version already served (if any) keeps serving. A model has one file: NAME.yaml and NAME.yml
side by side are refused as a clash (logged, naming both; the version served keeps serving)
until one is removed, and the other is then read. A model whose file is removed stops being
served (logged; its requests get a 404 saying why), so no version is served that matches no
file; put the file back to serve it again. Each worker process polls on its own, so every
worker follows a change within one poll.
Write a new version beside the old and rename it over (as `fit -o` does) to replace it in one step.
"""
from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import C45RulesError
from ..export.yaml import load_yaml, read_model_bytes
from ..model.records import RecordDecider
from ..model.regression import RegressionModel
from ..model.ruleset import RuleSet
from .audit import AuditStore, model_fingerprint
from .numbers import NumberDecider

log = logging.getLogger("c45rules.service")
SUFFIXES = (".yaml", ".yml")
POLL_SECONDS = 1.0


@dataclass(frozen=True, eq=False)
class ServedModel:
    """One model version, validated and ready to decide."""

    name: str
    fingerprint: str
    ruleset: RuleSet | RegressionModel
    decider: RecordDecider | NumberDecider
    text: str

    @property
    def decides_numbers(self) -> bool:
        """Whether it is a regression model (its decisions are numbers: service/numbers.py)."""
        return isinstance(self.decider, NumberDecider)

    def summary(self) -> dict[str, Any]:
        """What GET /v1/models lists for it."""
        rs = self.ruleset
        if self.decides_numbers:
            return {"name": self.name, "fingerprint": self.fingerprint, "kind": "regression",
                    "target": rs.target, "rules": len(rs.rules), "committees": len(rs.committees),
                    "bounds": [rs.floor, rs.ceiling], "trained_on": rs.fingerprint or None,
                    "library_version": rs.version or None}
        return {"name": self.name, "fingerprint": self.fingerprint, "classes": list(rs.schema.classes),
                "target": rs.schema.target, "rules": len(rs.rules), "default_class": rs.default_class,
                "trained_on": rs.fingerprint or None, "library_version": rs.version or None}


def load_version(name: str, data: bytes) -> ServedModel:
    """A model version from a file's bytes (ModelError/InputError when it does not validate)."""
    from ..errors import ModelError
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ModelError(f"bytes that are not UTF-8 (at byte {e.start})") from None
    ruleset = load_yaml(text)
    from ..model.boosted import BoostedRuleSet
    if isinstance(ruleset, BoostedRuleSet):    # its decisions are votes, not one rule's
        raise ModelError("a boosted model (trials voting): the decision service serves single rulesets")
    if isinstance(ruleset, RegressionModel):   # its decisions are numbers (service/numbers.py)
        return ServedModel(name, model_fingerprint(data), ruleset, NumberDecider(ruleset), text)
    return ServedModel(name, model_fingerprint(data), ruleset, RecordDecider(ruleset), text)


class ModelFolder:
    """The models of a folder by name, kept current by a polling thread (see the module doc)."""

    def __init__(self, folder: str | os.PathLike, store: AuditStore | None = None,
                 on_change: Callable[[str, bool], None] | None = None) -> None:
        self.folder = Path(folder)
        self._store = store
        # told (name, True) for each version swapped in, (name, False) for each file refused
        self._on_change = on_change or (lambda name, swapped: None)
        self._models: dict[str, ServedModel] = {}
        # model name -> ((file name, (size, mtime_ns, inode)), ...) of its files when last read
        self._seen: dict[str, tuple] = {}
        self._files: dict[str, str] = {}   # model name -> the file its served version came from
        self._why: dict[str, str] = {}     # model name -> why it is not served (for the 404)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def get(self, name: str) -> ServedModel | None:
        """The model served as `name` now (a lookup in memory: no path is built from it)."""
        return self._models.get(name)

    def why_not(self, name: str) -> str | None:
        """Why a model of the folder is not served now (its file removed, two files, refused), or None."""
        return self._why.get(name) if name not in self._models else None

    def all(self) -> list[ServedModel]:
        """The models served now, by name."""
        models = self._models
        return [models[k] for k in sorted(models)]

    def scan(self) -> None:
        """Load what is new or changed in the folder, drop what is gone; swap the table once.

        Each model name must have one file: NAME.yaml and NAME.yml side by side are refused
        (logged, the version served kept) until one is removed, and the other is then read."""
        with self._lock:
            try:
                entries = [e for e in os.scandir(self.folder)
                           if e.name.endswith(SUFFIXES) and not e.name.startswith(".")]
            except OSError as e:
                log.error("cannot list the models folder %s: %s", self.folder, e.strerror)
                return
            files: dict[str, list[tuple[str, Path, tuple[int, int, int]]]] = {}
            for entry in entries:
                try:
                    if not entry.is_file():
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                files.setdefault(entry.name.rsplit(".", 1)[0], []).append(
                    (entry.name, Path(entry.path), (st.st_size, st.st_mtime_ns, st.st_ino)))
            table = dict(self._models)
            for name, found in files.items():
                found.sort()
                stamp = tuple((file, st) for file, _, st in found)
                if self._seen.get(name) == stamp:
                    continue
                self._seen[name] = stamp
                current = table.get(name)
                kept = f"; still serving {current.fingerprint} (read from {self._files[name]})" if current else ""
                listed = " and ".join(file for file, _, _ in found)
                if not name.isprintable():   # a name no URL, log line or audit row should carry
                    log.error("model file %s refused: its name is not printable text", ascii(found[0][0]))
                    continue
                if len(found) > 1:
                    log.error("model %s: %s refused: two files for one model; remove one%s", name, listed, kept)
                    self._on_change(name, False)
                    self._why[name] = f"{listed} both in the models folder"
                    continue
                file, path, _ = found[0]
                version, retry = self._load(name, path, kept)
                if retry:   # read again at the next poll
                    del self._seen[name]
                if version is not None:
                    table[name] = version
                if name in table and (version is not None or self._files.get(name) != file):
                    # the same bytes under the other suffix still match the version served
                    self._files[name] = file
            for name in set(self._seen) - set(files):
                del self._seen[name]
            for name in set(table) - set(files):
                file = self._files.pop(name)
                log.warning("model %s: its file %s was removed from the folder; no longer served", name, file)
                self._why[name] = f"its file {file} was removed from the models folder"
                del table[name]
            self._models = table   # one reference swap: readers see the old table or the new

    def _load(self, name: str, path: Path, kept: str) -> tuple[ServedModel | None, bool]:
        """(the version to serve, or None to keep the table's; True to try the file again)."""
        current = self._models.get(name)
        try:
            data = read_model_bytes(path)
            if current is not None and model_fingerprint(data) == current.fingerprint:
                return None, False
            version = load_version(name, data)
        except C45RulesError as e:
            problem = " ".join(str(e).split())
            log.error("model %s: %s refused: %s%s", name, path.name, problem, kept)
            self._why[name] = f"{path.name} refused: {problem}"
            self._on_change(name, False)
            return None, False
        if self._store is not None:
            # no decision may come from a version the store does not hold
            try:
                self._store.reconnect()
                self._store.remember_model(version.name, version.fingerprint, version.text)
            except Exception as e:  # noqa: BLE001 - a store down now: retried at the next poll
                log.error("model %s: not swapped in, the audit store refused it: %s%s", name, e, kept)
                self._why[name] = f"{path.name} not yet recorded in the audit store"
                self._on_change(name, False)
                return None, True
        log.info("model %s: serving %s from %s (%d rules)", name, version.fingerprint, path.name,
                 len(version.ruleset.rules))
        self._on_change(name, True)
        return version, False

    def start(self, interval: float = POLL_SECONDS) -> None:
        """Scan now, then every `interval` seconds in a daemon thread."""
        self.scan()

        def poll() -> None:
            while not self._stop.wait(interval):
                try:
                    self.scan()
                except Exception:  # noqa: BLE001 - the poller must outlive a bad moment
                    log.exception("scanning the models folder failed")
        self._thread = threading.Thread(target=poll, name="c45rules-models", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop polling."""
        self._stop.set()
