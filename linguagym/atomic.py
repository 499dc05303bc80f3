"""Output is written whole or not at all: a file to a temporary name beside it, a folder into a fresh folder beside
it, each renamed into place when complete. Temporary names start with "." (listings skip them). A write that
fails raises ``OutputError`` naming the path and how to mend it, never a bare ``OSError``."""

from __future__ import annotations

import errno
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from linguagym.errors import OutputError

log = logging.getLogger(__name__)

_IN_THE_WAY = "a file or folder is in the way: move it, or write elsewhere"
_NO_PERMISSION = "write into a folder you may write to"
_HINTS = {
    errno.ENOSPC: "free some space on that disk, or write elsewhere",
    errno.EDQUOT: "free some space (your disk quota is used up), or write elsewhere",
    errno.EACCES: _NO_PERMISSION,
    errno.EPERM: _NO_PERMISSION,
    errno.EROFS: "that file system is read-only: " + _NO_PERMISSION,
    errno.ENAMETOOLONG: "choose a shorter output path",
    errno.EEXIST: _IN_THE_WAY,
    errno.ENOTDIR: _IN_THE_WAY,
    errno.EISDIR: _IN_THE_WAY,
}


def output_error(error: OSError, path: str | Path) -> OutputError:
    """``error``, met while writing ``path``, as the error a user reads: what, where, how to mend."""
    reason = error.strerror or str(error) or type(error).__name__
    return OutputError(f"could not write {path}: {reason}", hint=_HINTS.get(error.errno or 0), path=str(path))


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", **kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path``, on error it vanishes."""
    path = Path(path)
    if _is_special_file(path):  # /dev/null, /dev/stdout, a named pipe: written into, never replaced by a file
        with _opened_special(path, mode, encoding, **kwargs) as handle:
            yield handle
        return
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(path), suffix=".tmp", dir=path.parent)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files; outputs get the usual mode
        if "b" in mode:
            encoding = None
        with os.fdopen(fd, mode, encoding=encoding, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:  # (a full disk shows up in the caller's ``write``: it is this file's failure too)
        raise output_error(error, path) from error
    finally:
        if tmp is not None:
            with suppress(FileNotFoundError):
                os.unlink(tmp)


def _is_special_file(path: Path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a folder (a device, a pipe, a socket): renaming a
    file over it would replace ``/dev/null`` itself for every program on the machine (as root)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def _opened_special(path: Path, mode: str, encoding: str | None, **kwargs) -> Iterator[IO]:
    try:
        with open(path, mode, encoding=None if "b" in mode else encoding, **kwargs) as handle:
            yield handle
    except OSError as error:
        raise output_error(error, path) from error


def atomic_write_text(path: str | Path, text: str) -> None:
    with atomic_open(path, "w", newline="") as handle:
        handle.write(text)


def write_cache_text(path: str | Path, text: str, what: str) -> None:
    """``atomic_write_text`` for a cache file: one that cannot be written (a read-only cache, a file in the way) is a
    warning naming ``what`` was not kept, never this run's failure; the next run computes it again."""
    try:
        atomic_write_text(path, text)
    except (OSError, OutputError) as error:
        log.warning("%s was not kept for later runs (%s): %s", what, path, error)


@contextmanager
def atomic_directory(path: str | Path) -> Iterator[Path]:
    """A fresh, hidden folder beside ``path`` to write into; when the block ends without error it takes the place
    of ``path`` whole (an earlier folder is renamed aside, then deleted), so ``path`` never mixes the files of two
    writes, keeps no stale file, and an interrupted write leaves the earlier folder as it was. On error the new
    folder vanishes. Errors name the files where they will be, not the hidden folder."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if (path.exists() or path.is_symlink()) and not path.is_dir():
            raise OSError(errno.ENOTDIR, "a file is in the way of the folder", str(path))
        work = Path(tempfile.mkdtemp(prefix=_temporary_prefix(path), suffix=".tmp", dir=path.parent))
    except OSError as error:
        raise output_error(error, path) from error
    try:
        os.chmod(work, 0o777 & ~_umask())  # mkdtemp makes 0700 folders; outputs get the usual mode
        try:
            yield work
        except OSError as error:
            raise output_error(error, _where(error.filename, work, path)) from error
        except OutputError as error:
            if error.path is None or not isinstance(error.__cause__, OSError):
                raise
            raise output_error(error.__cause__, _where(error.path, work, path)) from error.__cause__
        try:
            _swap_in(work, path)
        except OSError as error:
            raise output_error(error, path) from error
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _swap_in(work: Path, path: Path) -> None:
    """Rename ``work`` to ``path``; an earlier ``path`` is renamed aside first and deleted after (put back if the
    rename fails). Both renames stay within one folder, so each is atomic."""
    old = None
    if path.exists() or path.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=_temporary_prefix(path), suffix=".old", dir=path.parent))
        old.rmdir()  # only its unique name is needed
        os.rename(path, old)
    try:
        os.rename(work, path)
    except OSError:
        if old is not None:
            os.rename(old, path)
        raise
    if old is not None:
        if old.is_symlink():
            old.unlink()
        else:
            shutil.rmtree(old, ignore_errors=True)


def _where(written: str | os.PathLike | None, work: Path, path: Path) -> Path:
    """Where a file that failed inside the hidden folder ``work`` was to end up: the same place under ``path``."""
    if written is None:
        return path
    with suppress(ValueError):
        return path / Path(written).relative_to(work)
    return Path(written)


def _temporary_prefix(path: Path) -> str:
    """Hidden, and short: a temporary name must not pass the 255-byte limit that ``path``'s own name keeps."""
    return "." + path.name.encode()[:64].decode(errors="ignore") + "."


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
