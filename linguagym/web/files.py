"""Names and paths of files the application writes and serves, made safe, and how a result file is served."""

from __future__ import annotations

from pathlib import Path

from flask import Response, send_file

from linguagym.web.errors import NotFound

# The policy of every result file served (the report's HTML, its SVG plots, charts): no script, no fetch.
SANDBOX = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


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


def send_result_file(root: Path, relative: str, *, download: bool) -> Response:
    """The file ``relative`` under ``root`` (a run's or a job's results): SVG and HTML shown in the browser, in the
    sandbox, unless ``download``; everything else as an attachment."""
    path = safe_child(root, relative)
    inline = path.suffix in (".svg", ".html") and not download
    response = send_file(path, as_attachment=not inline, download_name=path.name, max_age=0)
    if path.suffix in (".csv", ".json"):
        response.headers["Content-Type"] = "text/csv; charset=utf-8" if path.suffix == ".csv" else "application/json"
    response.headers["Content-Security-Policy"] = SANDBOX
    return response
