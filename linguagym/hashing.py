"""Content hashes of files (models, data sets, wheels), remembered by (path, size, mtime) so that a 500 MB file is
hashed once. Ground floor: imports nothing of linguagym, so assets, scoring and capabilities can all use it."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

# Files that cannot change the numbers; everything else in a model directory is hashed.
_IGNORED = {"README.md", "readme.md", ".gitattributes", "LICENSE", "LICENSE.txt", "NOTICE", "linguagym-asset.json"}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _hashed_files(path: Path) -> list[Path]:
    """The files of a model directory whose contents make its identity (not READMEs, licences, hidden files)."""
    return [child for child in sorted(path.iterdir())
            if child.is_file() and child.name not in _IGNORED and not child.name.startswith(".")]


class HashMemo:
    """A small JSON file under the cache directory mapping a file's stat to its sha256."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, str] = {}
        if path is not None and path.exists():
            try:
                self._entries = dict(json.loads(path.read_text()))
            except (OSError, ValueError, TypeError):
                self._entries = {}  # a damaged memo only costs re-hashing

    @staticmethod
    def _key(path: Path) -> str:
        """What a file is remembered by: where it is, its size and when it last changed."""
        stat = path.stat()
        return f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"

    def file(self, path: Path) -> str:
        key = self._key(path)
        found = self._entries.get(key)
        if found is None:
            found = sha256_file(path)
            self._entries[key] = found
            self._save()
        return found

    def directory(self, path: Path) -> str:
        """One hash over the names and contents of the files directly in ``path``."""
        digest = hashlib.sha256()
        for child in _hashed_files(path):
            digest.update(f"{child.name}\0{self.file(child)}\n".encode())
        return digest.hexdigest()

    def prefill(self, directories: list[Path], workers: int) -> int:
        """Hash the files of ``directories`` not remembered yet, ``workers`` at a time (hashlib lets go of the GIL,
        so threads hash side by side), and remember them in one write; how many files were hashed.

        A run over many checkpoints identifies each by its files' hashes before scoring: one after the other,
        ten 16 GB checkpoints are minutes of hashing on one core while the others wait."""
        from concurrent.futures import ThreadPoolExecutor

        todo = {}
        for directory in directories:
            for child in _hashed_files(directory):
                key = self._key(child)
                if key not in self._entries:
                    todo[key] = child
        if not todo:
            return 0
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
            self._entries.update(zip(todo, pool.map(sha256_file, todo.values()), strict=True))
        self._save()
        return len(todo)

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".hashes-")
            with os.fdopen(fd, "w") as handle:
                json.dump(self._entries, handle)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only cache directory only costs re-hashing next time
