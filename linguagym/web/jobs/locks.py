"""Which running jobs a live server is doing: a lock a worker takes before it claims a job and holds until the job
ends, released by the database or the operating system when its process dies.

Why: at start-up a server queues again the jobs a stopped server left ``running``. With two servers on one
database, the second one starting must not queue again the jobs the first is doing; a job whose lock is free has no
live worker. PostgreSQL: a session advisory lock, on a connection of its own for as long as the job runs (the
servers may be on different machines). SQLite (one machine): ``flock`` on a file in the data directory, deleted
when the job ends. Where neither works (no ``fcntl``), every lock is free: one server per database, as before.

Deleting a lock file safely: the holder unlinks it while it still holds the lock, and a worker that gets a lock
checks that the path still names the file it locked. Without that check, a worker that opened the file just before
the holder unlinked it would lock the unlinked file while another worker creates and locks a new one: both would
hold "the" lock. With it, the first sees its file is gone and tries again on the new one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Protocol

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]  # checked before use

_NAMESPACE = 0x6C67  # "lg": the first key of linguagym's advisory locks, apart from other applications' locks


class JobLock(Protocol):
    def release(self) -> None: ...


class _Free:
    def release(self) -> None:
        pass


class _FileLock:
    def __init__(self, fd: int, path: Path) -> None:
        self.fd, self.path = fd, path

    def release(self) -> None:
        if self.fd >= 0:
            if _names(self.path, self.fd):  # (always so, unless something outside linguagym removed it)
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()  # still holding the lock: see the module's note
            os.close(self.fd)  # (closing the file releases its flock)
            self.fd = -1


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` is the file open as ``fd`` (not deleted, nor replaced by another file)."""
    try:
        named = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


class _AdvisoryLock:
    def __init__(self, connection) -> None:
        self.connection = connection

    def release(self) -> None:
        if self.connection is not None:
            self.connection.close()  # (a session lock ends with its session: the connection is not pooled)
            self.connection = None


class JobLocks:
    """Locks on jobs, by (table name, id), for the database at ``url`` and the data directory ``data_dir``."""

    def __init__(self, url: str, data_dir: Path) -> None:
        self.postgresql = url.startswith("postgresql")
        self._engine: Engine | None = create_engine(url, poolclass=NullPool) if self.postgresql else None
        self._folder = data_dir / "job-locks"

    def acquire(self, table: str, job_id: int) -> JobLock | None:
        """The job's lock, now held by this worker; None when another worker (of any server) holds it."""
        if self._engine is not None:
            connection = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            try:
                taken = connection.scalar(text("SELECT pg_try_advisory_lock(:a, :b)"),
                                          {"a": _NAMESPACE, "b": _key(table, job_id)})
            except Exception:
                connection.close()
                raise
            if not taken:
                connection.close()
                return None
            return _AdvisoryLock(connection)
        if fcntl is None:
            return _Free()
        self._folder.mkdir(parents=True, exist_ok=True)
        path = self._folder / f"{table}-{job_id}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except BaseException:
                os.close(fd)
                raise
            if _names(path, fd):
                return _FileLock(fd, path)
            os.close(fd)  # its holder deleted the file after this worker opened it: lock the new one

    def close(self) -> None:
        if self._engine is not None:
            with contextlib.suppress(Exception):
                self._engine.dispose()


def _key(table: str, job_id: int) -> int:
    """The second key of a job's advisory lock (a signed 32-bit number): runs even, capability jobs odd."""
    value = job_id * 2 + (table != "runs")
    return (value + 2**31) % 2**32 - 2**31
