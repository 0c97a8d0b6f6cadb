"""Where the ``tcplab`` command writes, and one line when it cannot.

A command writes to three places only: the data folder (``TCPLAB_DATA``, else the
repository's data/), the quick-result folder (``TCPLAB_QUICK_CACHE``, when set) and its
standard output. :func:`check_folder` tries a folder before a long computation starts (it
creates the folder, as storing a result would, and a scratch file in it); :func:`describe`
turns the ``OSError`` of a failed write into one line that names the path, the environment
variable that chose it, and what is wrong.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

__all__ = ["FOLDERS", "OutputError", "check_folder", "describe", "printing"]

#: the environment variables that choose where results are written
FOLDERS = ("TCPLAB_DATA", "TCPLAB_QUICK_CACHE")

_WHY = {
    errno.EEXIST: "it is a file, not a folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EACCES: "it is not writable",
    errno.EPERM: "it is not writable",
    errno.EROFS: "it is on a read-only file system",
    errno.ENOENT: "it does not exist and cannot be created there",
    errno.ENOSPC: "the disk is full",
}


def _chosen_by(path: str) -> str:
    """``TCPLAB_DATA=/x: `` when an environment variable chose ``path`` (or a folder above it)."""
    where = os.path.abspath(path)
    for variable in FOLDERS:
        value = os.environ.get(variable)
        if value and (where + os.sep).startswith(os.path.abspath(value) + os.sep):
            return f"{variable}={value}: "
    return ""


def check_folder(folder: str | os.PathLike[str]) -> None:
    """Create ``folder`` if it is missing and write a scratch file in it; an ``OSError``
    (see :func:`describe`) if either fails."""
    import tempfile

    Path(folder).mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".tcplab-check-", suffix=".tmp"):
        pass


class OutputError(Exception):
    """Standard output could not be written (a full disk, ``> /dev/full``, an encoding that
    cannot show a character): the ``OSError`` or ``UnicodeEncodeError`` in ``error``. Not
    itself an ``OSError``, which argparse would swallow while printing."""

    def __init__(self, error: OSError | UnicodeEncodeError) -> None:
        super().__init__(error)
        self.error = error


class _Guarded:
    """Standard output whose failed writes raise :class:`OutputError` (a closed pipe stays a
    ``BrokenPipeError``: the reader went away, not an error of ours)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._guard(self._stream.write, text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def _guard(self, call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except (OSError, UnicodeEncodeError) as error:
            raise OutputError(error) from error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def printing(run: Callable[[], int]) -> int:
    """``run()`` with standard output guarded, and flushed before it returns or raises (also
    when argparse's ``--help`` exits): a failed write is an :class:`OutputError` here, not an
    error at the interpreter's exit."""
    stream = sys.stdout
    sys.stdout = _Guarded(stream)
    try:
        return run()
    finally:
        try:
            sys.stdout.flush()
        finally:
            sys.stdout = stream


def describe(error: OSError | OutputError) -> str:
    """One line for a failed write: the path (or standard output), the variable that chose it,
    what is wrong. A standard output that cannot be written is swapped for /dev/null, so that
    Python's own flush at exit does not fail a second time."""
    failed = error.error if isinstance(error, OutputError) else error
    if isinstance(failed, UnicodeEncodeError):  # e.g. PYTHONIOENCODING=ascii
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (kept open until the exit)
        shown = ascii(failed.object[failed.start : failed.end])
        return (
            f"cannot write the output (standard output): its encoding {failed.encoding} "
            f"cannot show {shown}; use an encoding that can (PYTHONIOENCODING=utf-8)"
        )
    why = _WHY.get(failed.errno or 0, "")
    detail = f"{why} ({failed.strerror})" if why else str(failed.strerror or failed)
    if isinstance(error, OutputError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (kept open until the exit)
        return f"cannot write the output (standard output): {detail}"
    if failed.filename is None:
        return detail
    path = os.fsdecode(failed.filename)
    return f"{_chosen_by(path)}cannot write {path}: {detail}"
