"""One run at a time in an output folder: two ``linguagym run`` into one folder used to both exit 0 while only the
last one's files survived. A run holds an exclusive lock on ``<output>/.linguagym-run.lock`` from its checks to
its report (the lock file is removed then); a second run is refused at once, naming the first. Holding the lock, a
run also removes what earlier runs killed while writing left behind (hidden ``*.tmp`` and ``*.old`` folders and
files of ``atomic.py``), and sets the old report and plots aside once its first model folder has replaced an old
one (back in place if its own report cannot be written), so a run stopped half-way never shows a report of
folders that are no longer there."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from linguagym.errors import ConfigurationError, OutputError
from linguagym.evaluation.runfolder import schema

LOCK_NAME = ".linguagym-run.lock"
STALE = re.compile(r"^\..+\.(tmp|old)$")  # atomic.py's hidden names: a write under way, or a folder set aside

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks here; runs are not serialised
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def output_lock(output: str | Path) -> Iterator[None]:
    """Hold ``output``'s run lock for the block; a ``ConfigurationError`` at once if another run holds it. The lock
    file is removed when the block ends, so the folder holds only the run's outputs."""
    folder = Path(output)
    path = folder / LOCK_NAME
    handle = _locked(folder, path)
    try:
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode(), 0)
        remove_stale(folder)
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # still held: a run opening it now finds a stale inode and opens the new file again
        os.close(handle)  # closing lets the lock go


def _locked(folder: Path, path: Path) -> int:
    """An open, exclusively locked handle on the lock file that is at ``path`` now (a file that a finishing run
    removed between our open and our lock is let go and the new one opened: otherwise two runs could each hold
    a lock, on different files)."""
    while True:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise OutputError(f"cannot write into the output folder {folder}: {error.strerror}",
                              path=str(folder)) from None
        if fcntl is None:
            return handle
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 200, 0).decode(errors="replace").strip() or "another process"
            os.close(handle)
            raise ConfigurationError(
                f"another linguagym run is writing into {folder} ({holder})",
                hint="wait for it to finish, or give this run another output folder (-o DIR)") from None
        try:
            if os.fstat(handle).st_ino == os.stat(path).st_ino:
                return handle
        except FileNotFoundError:
            pass
        os.close(handle)


def remove_stale(folder: Path) -> list[str]:
    """Delete the hidden temporaries that runs killed while writing left in ``folder`` (only safe under the lock:
    no other run is writing there). Returns their names."""
    removed = []
    for entry in folder.iterdir():
        if STALE.match(entry.name):
            _remove(entry)
            removed.append(entry.name)
    return removed


def _remove(entry: Path) -> None:
    """A file, or a folder with what it holds (a link is removed, never followed)."""
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)


class RetiredReport:
    """The old ``report.html`` and ``plots/``, set aside under hidden ``*.old`` names once a model folder was replaced:
    ``discard`` when the run's own report is written (or none is wanted), ``restore`` when writing it failed (a full
    disk keeps the earlier report). A run killed in between leaves them hidden, so no report that disagrees with the
    folders is shown; the next run's ``remove_stale`` deletes them."""

    def __init__(self, folder: Path) -> None:
        self.moved: list[tuple[Path, Path]] = []
        for name in (schema.REPORT, schema.PLOTS):
            path = folder / name
            if path.exists() and not path.is_symlink():
                aside = folder / f".{name}.{os.getpid()}.old"
                os.replace(path, aside)  # a file or a folder: one rename within the folder
                self.moved.append((path, aside))

    def discard(self) -> None:
        for _, aside in self.moved:
            _remove(aside)

    def restore(self) -> None:
        for path, aside in self.moved:
            if not path.exists():
                aside.rename(path)
            else:
                _remove(aside)


def retire_report(folder: Path) -> RetiredReport:
    """Set the old report and plots aside (``RetiredReport``)."""
    return RetiredReport(folder)
