"""Downloads in bulk: a run's folder as one zip, and a results table (the leaderboard, a comparison, a suite's
results) as CSV in the library's long format (``tables.summary_csv``: the same columns ``linguagym score --csv``
writes, so a notebook reads either)."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from flask import Response, send_file

from linguagym.evaluation.aggregate import Summary
from linguagym.evaluation.tables import summary_csv

ZIP_IN_MEMORY = 32 * 1024 * 1024  # a larger zip spills to a temporary file


def folder_files(folder: Path) -> list[tuple[Path, str]]:
    """Every regular file under ``folder`` (path, its name in the zip), sorted; hidden ones (a run's files set
    aside) and links (never written by a run: not followed out of its folder) left out."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or path.is_symlink() or not path.is_file():
            continue
        found.append((path, relative.as_posix()))
    return found


def zip_response(folder: Path, name: str) -> Response:
    """The files of ``folder`` in one zip, each under ``<name>/``, as the download ``<name>.zip``."""
    spooled = tempfile.SpooledTemporaryFile(max_size=ZIP_IN_MEMORY)  # noqa: SIM115  (send_file closes it)
    with zipfile.ZipFile(spooled, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, relative in folder_files(folder):
            archive.write(path, f"{name}/{relative}")
    spooled.seek(0)
    return send_file(spooled, mimetype="application/zip", as_attachment=True, download_name=f"{name}.zip",
                     max_age=0)


def csv_response(summary: Summary, filename: str) -> Response:
    """``summary`` in the library's long CSV format, as the download ``filename``."""
    text = io.StringIO(newline="")
    summary_csv(summary, text)
    return Response(text.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"',
                             "Content-Type": "text/csv; charset=utf-8"})
