"""Output files are written whole or not at all: write to a temporary name beside, then rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", **kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path``, on error it vanishes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files; outputs get the usual mode
        if "b" in mode:
            encoding = None
        with os.fdopen(fd, mode, encoding=encoding, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    with atomic_open(path, "w", newline="") as handle:
        handle.write(text)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
