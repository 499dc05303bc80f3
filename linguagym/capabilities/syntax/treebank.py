"""Gold trees from treebank files in PTB/NLTK bracket format: one file, a directory of files, or a zip
(NLTK's ``treebank.zip``: its ``combined/*.mrg``). Trees come back cleaned (``trees.clean``)."""

from __future__ import annotations

import hashlib
import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax.trees import Tree, clean, parse_brackets
from linguagym.userfiles import RefusedFile, read_regular

MAX_CORPUS_BYTES = 256 * 2**20  # the Penn Treebank's WSJ bracket files are about 40 MB together
TREE_SUFFIXES = (".mrg", ".tree", ".trees", ".ptb", ".txt")


def nltk_data_roots() -> list[str]:
    """Where NLTK looks for its data, in its order: ``$NLTK_DATA``, ``~/nltk_data``, the Python environment's
    prefix (where ``python -m nltk.downloader -d`` inside a virtual environment may put it), the system
    folders, and ``nltk.data.path`` when a program has imported NLTK and added to it (NLTK is not imported here:
    it is slow and optional)."""
    roots = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    roots += [str(Path.home() / "nltk_data")]
    roots += [str(Path(prefix) / sub) for prefix in dict.fromkeys((sys.prefix, sys.base_prefix))
              for sub in ("nltk_data", "share/nltk_data", "lib/nltk_data")]
    roots += ["/usr/share/nltk_data", "/usr/local/share/nltk_data", "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"]
    loaded = sys.modules.get("nltk.data")
    roots += [str(p) for p in getattr(loaded, "path", ()) if isinstance(p, str | os.PathLike)]
    return list(dict.fromkeys(roots))


def default_treebank() -> Path | None:
    """NLTK's ``corpora/treebank.zip`` (or unzipped ``corpora/treebank``) under one of ``nltk_data_roots()``,
    if there is one."""
    for root in nltk_data_roots():
        for name in ("treebank.zip", "treebank"):
            candidate = Path(root) / "corpora" / name
            if candidate.exists():
                return candidate
    return None


def _members(path: Path) -> list[tuple[str, bytes]]:
    if not path.exists():
        raise CapabilityError(f"treebank {path} does not exist",
                              hint="give a bracketed tree file, a directory of .mrg files or NLTK's treebank.zip")
    if path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.endswith(".mrg"))
            if not names:
                names = sorted(n for n in archive.namelist() if n.endswith(TREE_SUFFIXES) and "README" not in n)
            return [(f"{path}:{n}", archive.read(n)) for n in names]
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in TREE_SUFFIXES
                       and "README" not in p.name)
        mrg = [p for p in files if p.suffix == ".mrg"]
        return [(str(p), p.read_bytes()) for p in (mrg or files)]
    return [(str(path), read_corpus_bytes(path))]


def read_corpus_bytes(path: Path) -> bytes:
    """A reference corpus file's bytes: a regular file of at most MAX_CORPUS_BYTES (a FIFO or a device named as
    the reference is refused before it is read)."""
    try:
        return read_regular(path, limit=MAX_CORPUS_BYTES, what="reference corpus file")
    except RefusedFile as refused:
        raise CapabilityError(f"reference {path} {refused.problem}", hint=refused.hint) from None


def read_treebank(path: str | Path) -> list[Tree]:
    """Cleaned gold trees from ``path``. Raises CapabilityError naming the file that does not parse."""
    trees: list[Tree] = []
    for name, data in _members(Path(path)):
        try:
            found = parse_brackets(data.decode("utf-8", errors="replace"))
        except ValueError as error:
            raise CapabilityError(f"{name}: not a bracketed tree file ({error})",
                                  hint="trees look like (S (NP (DT The) (NN film)) (VP (VBZ works)) (. .))") from None
        trees.extend(t for t in (clean(tree) for tree in found) if t is not None)
    if not trees:
        raise CapabilityError(f"no trees found in {path}", hint="expected PTB bracket format, e.g. .mrg files")
    return trees


def iter_members(path: str | Path) -> Iterator[str]:
    for name, _ in _members(Path(path)):
        yield name


def fingerprint(path: str | Path) -> str:
    """sha256 over the tree files' names and contents (for cache keys)."""
    digest = hashlib.sha256()
    for name, data in _members(Path(path)):
        digest.update(Path(name.split(":")[-1]).name.encode())
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()
