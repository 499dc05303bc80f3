"""Where output will go, checked before any work: a file where a folder must be made (or a folder where a file is
written), a name longer than a file system allows, a folder that cannot be written into. Each is an
``OutputError`` naming the path, raised before a model is loaded rather than after an hour of scoring. (A disk
that fills up meanwhile cannot be foreseen: ``linguagym.atomic`` reports that when it happens.)"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from linguagym.atomic import output_error
from linguagym.errors import OutputError

NAME_MAX = 255  # bytes in one file or folder name on the usual file systems (ext4, APFS, NTFS)


def check_folder(path: str | Path) -> None:
    """``path`` is a folder, or can be made one, and can be written into."""
    path = Path(path)
    check_name_lengths(path)
    try:
        existing = path
        while not (existing.exists() or existing.is_symlink()) and existing.parent != existing:
            existing = existing.parent  # up to the nearest part of the path already there
        if not existing.is_dir():
            where = f"{path} is a file" if existing == path else f"cannot make the folder {path}: {existing} is a file"
            raise OutputError(f"{where}, and a folder is written there", path=str(path),
                              hint="move the file away, or choose another output folder")
        os.rmdir(tempfile.mkdtemp(prefix=".linguagym-check-", dir=existing))  # can we write there? (root: yes)
    except OSError as error:
        raise output_error(error, existing) from error


def check_file(path: str | Path) -> None:
    """``path`` is not a folder, and its folder can be made and written into."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path} is a folder, and a file is written there", path=str(path),
                          hint="choose another file name, or move the folder away")
    check_name_lengths(path)
    check_folder(path.parent)


def check_name_lengths(path: Path) -> None:
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise OutputError(f"{path}: the name {part[:40]}... is {size} bytes long; file systems allow {NAME_MAX}",
                              path=str(path), hint="choose a shorter name")


def check_replaceable(path: Path, foreign: Callable[[Path], str | None], replacement: str) -> None:
    """``path`` can be replaced whole by a new folder: it is absent, or a folder in which ``foreign`` finds nothing
    that is not ours (it returns what is wrong, e.g. "holds no run.json"). ``replacement`` names what would
    replace it, for the message."""
    check_name_lengths(path)
    try:
        if not (path.exists() or path.is_symlink()):
            return
        if not path.is_dir():
            raise OutputError(f"{path} is a file, and a folder is written there", path=str(path),
                              hint="move the file away, or choose another output folder")
        problem = foreign(path)
    except OSError as error:
        raise output_error(error, path) from error
    if problem:
        raise OutputError(f"{path} {problem}, and {replacement} would replace it whole", path=str(path),
                          hint="move it away, or choose another output folder")
