"""Names and paths of files the application writes and serves, made safe."""

from __future__ import annotations

from pathlib import Path

from linguagym.web.store import NotFound


def safe_child(root: Path, relative: str) -> Path:
    """``root / relative`` when it is a file inside ``root``; NotFound otherwise (no ``..`` escapes)."""
    root = root.resolve()
    try:
        path = (root / relative).resolve()
        found = path.is_relative_to(root) and path.is_file()
    except (ValueError, OSError):  # a NUL byte in the name; a name too long for the file system
        found = False
    if not found:
        raise NotFound(f"no result file {relative!r} in this run")
    return path


def listing(root: Path) -> list[tuple[str, int]]:
    """Every file under ``root`` (relative path, size), sorted; hidden temporary files left out."""
    if not root.is_dir():
        return []
    return sorted((p.relative_to(root).as_posix(), p.stat().st_size) for p in root.rglob("*")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))
