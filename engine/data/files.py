"""The files the command line reads and writes, checked before any work starts.

Reading: scenario, content, save and results files are read only from regular files. A
named pipe (FIFO) would block until a writer comes, a device such as `/dev/zero` never
ends, and a folder is not a file: each is refused with a message, from `stat` alone,
without opening it. Scenario and content files (TOML) have a size limit,
`MAX_SOURCE_BYTES` (16 MiB, far past any hand-written scenario: a 2048 x 2048 map is
4 MiB), so a huge file is refused before it is read and parsed.

Writing: every file a command writes (`replay -o`, `render --png`, `report --png`,
`bench --out`, `batch --out`) is checked before the command runs, since a batch or the
benchmark suite can take minutes: its folder exists and is a folder, the target is not a
folder, and it can be opened for writing (opened and closed without a byte written; a
file that did not exist is removed again). A write that still fails at the end (a full
disk: ENOSPC, as `/dev/full` gives) is a clear message through `writing`, never a
traceback.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from affray.core.errors import AffrayError, UsageError

MAX_SOURCE_BYTES = 16 * 1024 * 1024  # scenario and content TOML files


def _kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def input_file(path: str | Path, error: type[AffrayError] = UsageError,
               limit: int | None = MAX_SOURCE_BYTES, what: str = "a scenario or content file"
               ) -> Path:
    """`path` if it is a regular file of at most `limit` bytes (None: any size); else
    `error` naming the path and why. Nothing is opened: `stat` tells. An empty name is
    refused as such (Path("") would be the current folder)."""
    if not os.fspath(path):
        raise error(f"the file name is empty: name {what}")
    path = Path(path)
    try:
        status = os.stat(path)
    except OSError as problem:
        raise error(f"{path}: cannot read: {problem.strerror or problem}") from None
    if stat.S_ISDIR(status.st_mode):
        raise error(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise error(f"{path}: {_kind_of(status.st_mode)}, not a regular file: affray reads "
                    f"{what} only from a regular file")
    if limit is not None and status.st_size > limit:
        raise error(f"{path}: {status.st_size:,} bytes, past the limit of {limit:,} bytes "
                    f"(16 MiB) for {what}")
    return path


def output_file(path: str | Path, what: str, suffixes: tuple[str, ...] = ()) -> Path:
    """`path` if `what` can be written there; else UsageError naming the path and why.

    `suffixes`: the endings the file may have (with the dot; exact case), if any."""
    text = os.fspath(path)
    if not text:
        raise UsageError(f"{what}: the file name is empty")
    target = Path(text)
    if suffixes and target.suffix not in suffixes:
        endings = " or ".join(dict.fromkeys(suffix.lower() for suffix in suffixes))
        raise UsageError(f"{text}: {what}: the file name must end in {endings}")
    try:
        status: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        status = None
    except OSError as problem:  # a file where a folder should be (ENOTDIR), a loop
        raise UsageError(f"{text}: cannot write {what}: {problem.strerror or problem}"
                         ) from None
    if status is not None:
        if stat.S_ISDIR(status.st_mode):
            raise UsageError(f"{text}: is a folder, not a file to write {what} to")
        _open_existing(target, what)
        return target
    if os.path.lexists(target):
        raise UsageError(f"{text}: a symbolic link to nothing: cannot write {what} there")
    folder = target.parent
    if not folder.exists():
        raise UsageError(f"{text}: no such folder: {folder}")
    if not folder.is_dir():
        raise UsageError(f"{text}: {folder} is not a folder")
    _create_and_remove(target, what)
    return target


def _open_existing(target: Path, what: str) -> None:
    """Open an existing file for writing and close it, changing nothing (append, no
    truncation). Non-blocking, so a FIFO nobody reads is an error (ENXIO), not a hang."""
    try:
        handle = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
    except OSError as problem:
        reason = ("a named pipe (FIFO) that nobody reads" if problem.errno == errno.ENXIO
                  else problem.strerror or str(problem))
        raise UsageError(f"{target}: cannot write {what}: {reason}") from None
    os.close(handle)


def _create_and_remove(target: Path, what: str) -> None:
    try:
        handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as problem:
        raise UsageError(f"{target}: cannot write {what}: {problem.strerror or problem}"
                         ) from None
    os.close(handle)
    target.unlink()


@contextmanager
def writing(path: str | Path, what: str) -> Iterator[None]:
    """Turn an OSError raised inside (the write of `what` to `path` failed: a full disk,
    a device that refuses) into a UsageError naming the path and the reason. A closed
    pipe on stdout (BrokenPipeError) and affray's own errors pass through unchanged."""
    try:
        yield
    except (BrokenPipeError, AffrayError):
        raise
    except OSError as problem:
        raise UsageError(f"{path}: could not write {what}: {problem.strerror or problem}"
                         ) from None


__all__ = ["MAX_SOURCE_BYTES", "input_file", "output_file", "writing"]
