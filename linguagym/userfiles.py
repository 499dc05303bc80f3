"""Reading a file the user named, safely: only a regular file, at most a given size, read in bounded blocks.

A FIFO would block the reader forever, ``/dev/zero`` never ends (a server reading it was killed by the kernel),
and a directory or socket is not data. The file is opened without blocking and checked through the open
descriptor, so it cannot be swapped between the check and the read; the read stops one byte past the bound even
when the file grows meanwhile. Ground floor: imports nothing of linguagym, so every layer can use it and turn
``RefusedFile`` into its own located error.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

_BLOCK = 1 << 20
MAX_TEXT_BYTES = 64 * 2**20  # the bound for small text inputs (models files, collections, specs, test files)
_NOT_FILES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
              (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class RefusedFile(Exception):
    """A named file that cannot be read as data. ``problem`` completes "PATH ..." (e.g. "is a FIFO (named pipe),
    not a dataset file"); ``hint`` says how to mend it."""

    def __init__(self, problem: str, hint: str | None = None, *, missing: bool = False) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint
        self.missing = missing  # no file by that name (callers may say "does not exist" in their own words)


def size_text(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit} bytes"


def read_regular(path: str | Path, *, limit: int, what: str = "data file") -> bytes:
    """The bytes of the regular file ``path`` of at most ``limit`` bytes, or ``RefusedFile`` saying why not.

    ``what`` names the kind of file in messages ("suite file", "dataset file")."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise RefusedFile("no such file", hint=f"check the path of the {what}", missing=True) from None
    except IsADirectoryError:  # Windows; elsewhere a directory opens and is caught below
        raise RefusedFile(f"is a directory, not a {what}") from None
    except OSError as error:
        raise RefusedFile(f"cannot be read: {error.strerror}") from None
    except ValueError:  # a NUL character in the path
        raise RefusedFile("is not a usable file name") from None
    too_big = RefusedFile(f"is larger than {size_text(limit)}, the most a {what} may hold",
                          hint="check that it is the file you meant, or split it")
    try:
        info = os.fstat(fd)
        for is_kind, kind in _NOT_FILES:
            if is_kind(info.st_mode):
                raise RefusedFile(f"is {kind}, not a {what}", hint=f"name a regular {what}")
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(f"is not a regular file, so not a {what}", hint=f"name a regular {what}")
        if info.st_size > limit:
            raise too_big
        blocks = []
        left = limit + 1  # one byte past the bound tells a file that grew since fstat
        with open(fd, "rb", closefd=False) as handle:
            while left > 0 and (block := handle.read(min(_BLOCK, left))):
                blocks.append(block)
                left -= len(block)
    except OSError as error:
        raise RefusedFile(f"cannot be read: {error.strerror}") from None
    finally:
        os.close(fd)
    raw = b"".join(blocks)
    if len(raw) > limit:
        raise too_big
    return raw


def probe(path: Path, test: Callable[[Path], bool]) -> bool:
    """``test(path)`` (``Path.is_dir``, ``Path.is_file``, ``Path.exists``), False for a name no file can have: a part
    over 255 bytes raises OSError "File name too long" (a classifier or model name that long was a 500)."""
    try:
        return test(path)
    except (OSError, ValueError):
        return False


def read_regular_text(path: str | Path, *, limit: int, what: str = "data file") -> str:
    """``read_regular`` decoded as UTF-8 (a byte-order mark dropped); a bad byte is refused with its line."""
    raw = read_regular(path, limit=limit, what=what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise RefusedFile(f"line {line}, byte {error.start}: not UTF-8 text", hint="save the file as UTF-8") from None
