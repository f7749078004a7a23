"""Write a file all at once: readers see the old file or the new one, never a partial one."""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Iterator

from ..errors import InputError


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask would race with other threads)
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def is_stream(path: str | os.PathLike) -> bool:
    """Whether `path` (its symlinks followed) is a device, FIFO or socket, such as /dev/stdout."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def output_target(path: str | os.PathLike) -> Path:
    """The file a write to `path` replaces: a symlink's final target (the link stays a link)."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def checked_target(path: str | os.PathLike) -> Path | None:
    """The file a write to `path` would replace (None for a stream), refusing a missing
    directory or a directory with an InputError naming `path`."""
    if is_stream(path):
        return None
    target = output_target(path)
    parent = target.resolve().parent
    if not parent.is_dir():
        raise InputError(f"{path}: directory {parent} does not exist")
    if target.is_dir():
        raise InputError(f"{path}: is a directory")
    return target


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, *, binary: bool = False) -> Iterator[IO]:
    """A UTF-8 text file (newlines untranslated; `binary`: a bytes file) that replaces `path`
    only when the block succeeds.

    A temp file beside the target, then os.replace. A symlink's target is replaced, not the
    link. A device or FIFO (/dev/stdout, a named pipe) is written straight through: replacing
    it with a regular file would destroy it, and a reader of a stream sees it in order anyway
    (opened by its own name: /dev/stdout's target may be a pipe that has no path).
    """
    kind = {"mode": "wb"} if binary else {"mode": "w", "encoding": "utf-8", "newline": ""}
    if is_stream(path):
        with open(path, **kind) as f:
            yield f
        return
    target = output_target(path)
    fd, tmp = _temp_beside(target)
    try:
        with os.fdopen(fd, **kind) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _temp_beside(target: Path) -> tuple[int, str]:
    """(descriptor, path) of a new temp file in `target`'s directory, with the permissions
    `target` has or, when new, 0666 less the umask (mkstemp's 0600 would hide it from others)."""
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, (mode & 0o7777) if mode is not None else 0o666 & ~_umask())
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A path to write (by name, as DuckDB's COPY does) that replaces `path` only when the
    block succeeds; a device or FIFO is given as itself (see atomic_open)."""
    if is_stream(path):
        yield Path(path)
        return
    target = output_target(path)
    fd, tmp = _temp_beside(target)
    os.close(fd)
    try:
        yield Path(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write `text` to `path` all at once (atomic_open).

    The text goes to a temporary file beside `path`, which then replaces it: a reader sees
    the old file or the new one, never a part, and an error leaves the old file as it was.

    Parameters
    ----------
    path : str or path
        The file to write.
    text : str
        Its new content (written as UTF-8).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os, tempfile
    >>> from c45rules.export import atomic_write_text
    >>> with tempfile.TemporaryDirectory() as d:
    ...     atomic_write_text(os.path.join(d, "out.txt"), "done").read_text()
    'done'
    """
    with atomic_open(path) as f:
        f.write(text)
    return Path(path)
