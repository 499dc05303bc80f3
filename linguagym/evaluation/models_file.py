"""A file that lists models: one per line, for runs over many models or every checkpoint of a training run.

Each line is what ``--model`` takes (a named model, a hub id, ``hub-id@revision`` for one checkpoint of a hub
repository, a local directory or file). ``#`` starts a comment; blank lines are skipped. A relative path is
read relative to the file's folder when it exists there, and a line with ``*``, ``?`` or ``[`` is a glob over
paths (``checkpoints/step-*``), expanded in natural order (step-2 before step-10); a glob that matches nothing
is an error, as a typo would be.
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

from linguagym.errors import ConfigurationError
from linguagym.userfiles import MAX_TEXT_BYTES, RefusedFile, read_regular_text


def read_models_file(path: str | Path) -> list[str]:
    """The models ``path`` lists, in order, each once."""
    path = Path(path)
    try:
        lines = read_regular_text(path, limit=MAX_TEXT_BYTES, what="models file").splitlines()
    except RefusedFile as refused:
        if refused.missing:
            raise ConfigurationError(f"models file {str(path)!r} does not exist", hint="check the path") from None
        raise ConfigurationError(f"models file {str(path)!r}: {refused.problem}",
                                 hint=refused.hint or "give a UTF-8 text file, one model per line") from None
    models: list[str] = []
    for number, line in enumerate(lines, start=1):
        entry = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not entry:
            continue
        if any(c in entry for c in "*?["):
            base = entry if Path(entry).expanduser().is_absolute() else str(path.parent / entry)
            found = sorted(glob.glob(str(Path(base).expanduser())), key=_natural)
            if not found:
                raise ConfigurationError(f"{path}:{number}: {entry!r} matches no path",
                                         hint="check the pattern; it is read relative to the models file's folder")
            models.extend(found)
            continue
        beside = path.parent / entry
        models.append(str(beside) if not Path(entry).expanduser().is_absolute() and beside.exists() else entry)
    if not models:
        raise ConfigurationError(f"models file {str(path)!r} lists no models",
                                 hint="write one model per line (a named model, hub id, hub-id@revision or path)")
    return list(dict.fromkeys(models))


def _natural(text: str) -> list[object]:
    """Sort key in which digit runs compare as numbers: checkpoint-2 < checkpoint-10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]
