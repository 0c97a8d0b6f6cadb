"""Writing files that other processes read: never torn, never through a planted link.

Every file tcplab keeps (a result in data/, a quick result in ``TCPLAB_QUICK_CACHE``) is
written in full under a name no other writer can hold, then renamed into place, so a reader
sees the old file or the new one, never a part. :func:`new_file` makes that name unique per
writer (``O_CREAT | O_EXCL``, as ``tempfile.mkstemp`` does, which never follows a symbolic
link) in the target's own folder (a rename does not cross file systems), and removes it if the
write fails: a full disk leaves nothing behind, and its error names the file it was writing.

Files that are replaced together (a table and its metadata) are replaced under one lock per
target (:func:`locked`): ``.<name>.lock`` beside it, opened with ``O_NOFOLLOW`` (a planted link
there is refused, not followed) and held with ``fcntl.flock``. A second writer waits for the
first, at most ``wait_s`` seconds, then stops with one line (:class:`Busy`). The lock file is
removed by its holder before it lets go; whoever waited on the removed file sees that it is no
longer the one at the name, and starts again. A reader that finds a pair that does not match
waits for a writer's lock (:func:`wait_for_writer`), which needs no right to write.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one writer at a time is the user's care
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Busy", "LOCK_WAIT_S", "lock_path", "locked", "new_file", "replace", "wait_for_writer", "write"
]  # fmt: skip

#: how long a writer waits for another's lock before it gives up (seconds); a lock is held
#: only while files are renamed, never while a result is computed
LOCK_WAIT_S = 60.0
_POLL_S = 0.02
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Busy(OSError):
    """Another process held a lock for longer than the wait."""


def lock_path(target: Path) -> Path:
    """The lock file of ``target``: hidden, beside it."""
    return target.with_name(f".{target.name}.lock")


def _open_lock(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(
                errno.ELOOP, "it is a symbolic link: refused, not followed (remove it)", str(path)
            ) from None
        raise


def _flock(fd: int, how: int, path: Path, wait_s: float) -> None:
    """``flock(fd, how)``, polling until ``wait_s`` seconds have passed (then :class:`Busy`)."""
    if fcntl is None:  # pragma: no cover
        return
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, how | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise Busy(
                    errno.EBUSY,
                    f"another tcplab process is writing it (its lock {path.name} was held "
                    "all the wait): wait for it to finish, then run this again",
                    str(path.with_name(path.name[1 : -len(".lock")])),
                ) from None
            time.sleep(_POLL_S)


@contextlib.contextmanager
def locked(target: Path, wait_s: float | None = None) -> Iterator[None]:
    """Hold ``target``'s lock (:func:`lock_path`) inside the block: one holder at a time,
    the others waiting at most ``wait_s`` seconds (default :data:`LOCK_WAIT_S`)."""
    path = lock_path(target)
    deadline = time.monotonic() + (LOCK_WAIT_S if wait_s is None else wait_s)
    while True:
        fd = _open_lock(path, os.O_RDWR | os.O_CREAT)
        try:
            _flock(fd, fcntl.LOCK_EX if fcntl else 0, path, max(0.0, deadline - time.monotonic()))
            try:
                current = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            if current is not None and stat.S_ISLNK(current.st_mode):  # no O_NOFOLLOW here
                raise OSError(errno.ELOOP, "it is a symbolic link: refused (remove it)", str(path))
            if current is not None and current.st_ino == os.fstat(fd).st_ino:
                break  # the lock file at the name: ours
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # we waited on a lock file its holder removed: start again
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # while held: a waiter then sees the name is no longer its file
        os.close(fd)


def wait_for_writer(target: Path, wait_s: float | None = None) -> None:
    """Return once no writer holds ``target``'s lock (at once when there is no lock file)."""
    path = lock_path(target)
    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    try:
        fd = _open_lock(path, os.O_RDONLY)
    except (FileNotFoundError, PermissionError):
        return
    try:
        _flock(fd, fcntl.LOCK_SH if fcntl else 0, path, wait_s)
    finally:
        os.close(fd)


def new_file(target: Path, data: bytes, *, durable: bool = False) -> Path:
    """A new file beside ``target`` holding ``data``, under a name of its own
    (``.<name>.<random>.tmp``); nothing is left if writing fails, and the error names
    ``target``. ``durable``: on the disk (fsync) before it returns."""
    try:
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(target)) from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # as open() would have made it (mkstemp: 0600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    except OSError as error:
        os.close(fd)
        os.unlink(name)
        raise OSError(error.errno, error.strerror, str(target)) from None
    except BaseException:
        os.close(fd)
        os.unlink(name)
        raise
    os.close(fd)
    return Path(name)


def write(target: Path, data: bytes, *, durable: bool = False) -> None:
    """Replace ``target`` by a file holding ``data``: written in full under a name of its own
    (:func:`new_file`), then renamed over it; nothing is left if either step fails."""
    temporary = new_file(target, data, durable=durable)
    try:
        replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def replace(source: Path, target: Path) -> None:
    """Rename ``source`` over ``target`` (a link at ``target`` is replaced, not followed);
    ``source`` is removed if that fails."""
    try:
        os.replace(source, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(source)
        raise
