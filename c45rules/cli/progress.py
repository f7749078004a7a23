"""The progress line of the long commands: one line on stderr, rewritten in place.

Drawn only for a person watching: when stderr is a terminal and -q/--quiet is not given (logs,
pipes and tests stay clean). The learners call a Reporter as their `progress` callback
(c45rules/progress.py: the stages and what they mean); the commands' own notes ("reading
DATA") take the line too. While a Reporter is active, sys.stderr (and sys.stdout, when it is a
terminal too) clears the line before anything else is written to it (warnings, notes, the
error line, the results), and the line is cleared when the command ends, so the terminal keeps
only what other output wrote.
"""
from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..progress import DEPTH

# redraws of an unchanged set of stages at most this often: a pass reports per batch
REDRAW_SECONDS = 0.2


@dataclass
class _Stage:
    name: str
    done: int
    total: int | None
    info: dict[str, Any]
    started: float = field(default_factory=time.monotonic)


def clock(seconds: float) -> str:
    """Seconds as m:ss, or h:mm:ss from an hour."""
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def _count(n: float) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}"


class Reporter:
    """The progress line on `stream` (a terminal); a `progress` callback for the learners."""

    def __init__(self, stream: TextIO, results: TextIO | None = None) -> None:
        self._out = stream
        self._results = results     # stdout on the same screen: its pending text shown first
        self._start = time.monotonic()
        self._stages: list[_Stage] = []
        self._note: str | None = None
        self._shown = 0         # characters of the line now on the terminal
        self._drawn_at = 0.0

    def __call__(self, stage: str, done: int, total: int | None, /, **info: Any) -> None:
        """A learner's report (c45rules/progress.py): `stage` under way, `done` of `total` finished."""
        depth = DEPTH[stage]
        now = time.monotonic()
        before = [s.name for s in self._stages]
        old = next((s for s in self._stages if s.name == stage), None)
        self._stages = [s for s in self._stages if DEPTH[s.name] < depth]
        # a pass's rate counts from its own start: a new pass (other info) or fewer rows restarts it
        keep = old is not None and old.info == info and done >= old.done
        self._stages.append(_Stage(stage, done, total, info, old.started if keep else now))
        if [s.name for s in self._stages] != before or now - self._drawn_at >= REDRAW_SECONDS:
            self._draw(now)

    def note(self, message: str) -> None:
        """A command's own step ("reading DATA"): the line's head until a learner reports."""
        self._note = message
        self._stages = []
        self._draw(time.monotonic())

    def clear(self) -> None:
        """Take the line off the terminal (before other output, and at the end)."""
        if self._shown:
            self._out.write("\r" + " " * self._shown + "\r")
            self._out.flush()
            self._shown = 0

    def line(self, now: float) -> str:
        """The progress line's text: the stages, outermost first, the time elapsed and, when
        the outer stages' totals are known, an estimate of the time left."""
        parts = [self._stage_text(s, now) for s in self._stages] or ([f"{self._note}..."] if self._note else [])
        parts.append(f"elapsed {clock(now - self._start)}")
        left = self._time_left(now)
        if left is not None:
            parts.append(f"about {clock(left)} left")
        return "c45rules: " + ", ".join(parts)

    def _stage_text(self, s: _Stage, now: float) -> str:
        info = dict(s.info)
        if s.name == "pass":
            text = f"pass {info.pop('number', '')}".rstrip()
            if "level" in info:
                text += f" level {info.pop('level')}"
            seconds = now - s.started
            if seconds > 0 and s.done:
                text += f" {_count(s.done / seconds)} rows/s"
            if s.total:
                text += f" {100 * s.done // s.total}%"
        else:
            text = s.name if not s.total else f"{s.name} {min(s.done + 1, s.total)}/{s.total}"
        return " ".join([text, *(f"{k} {v}" for k, v in info.items())])

    def _time_left(self, now: float) -> float | None:
        # the fraction done: the outermost counted stage's, refined by the counted stages in it
        fraction, scale, since = 0.0, 1.0, None
        for s in self._stages:
            if not s.total:
                break
            since = s.started if since is None else since
            fraction += scale * min(s.done, s.total) / s.total
            scale /= s.total
        if since is None or fraction <= 0:
            return None
        return (now - since) * (1 - fraction) / fraction

    def _draw(self, now: float) -> None:
        width = shutil.get_terminal_size((80, 24)).columns - 1    # a wrapped line cannot be rewritten
        text = self.line(now)[:max(width, 20)]
        if self._results is not None:
            self._results.flush()
        # padded over what a longer line left
        self._out.write("\r" + text.ljust(self._shown))
        self._out.flush()
        self._shown = max(self._shown, len(text))
        self._drawn_at = now


class _ClearingStream:
    """sys.stderr while a Reporter is active: the line is cleared before anything is written."""

    def __init__(self, stream: TextIO, reporter: Reporter) -> None:
        self._stream = stream
        self._reporter = reporter

    def write(self, text: str) -> int:
        """Clear the progress line, then write `text`."""
        if text:
            self._reporter.clear()
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def wanted(args: argparse.Namespace) -> bool:
    """Whether the command shows progress: stderr a terminal and no -q/--quiet."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


@contextlib.contextmanager
def reporting(args: argparse.Namespace) -> Iterator[Reporter | None]:
    """The command's Reporter (None when not `wanted`), with sys.stderr clearing its line
    before other output while the command runs; the line is cleared at the end."""
    if not wanted(args):
        yield None
        return
    stream, results = sys.stderr, sys.stdout
    on_screen = results.isatty()
    reporter = Reporter(stream, results if on_screen else None)
    sys.stderr = _ClearingStream(stream, reporter)   # type: ignore[assignment]
    if on_screen:
        sys.stdout = _ClearingStream(results, reporter)   # type: ignore[assignment]
    try:
        yield reporter
    finally:
        reporter.clear()
        sys.stderr = stream
        if on_screen:
            sys.stdout = results
