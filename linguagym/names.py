"""Names made from user text: file and folder names that are safe, short and never collide, and the labels that
name models in tables. Ground floor: used by runs, capability tests, reports and the web app alike."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path


def short_model_name(model: str) -> str:
    path = Path(model.rstrip("/"))
    return path.name if path.exists() else model


def model_folders(labels: Iterable[str]) -> dict[str, str]:
    """Each label's folder name: its ``safe_name``, with a short hash of the label where two names would make one
    folder (``m/a b.tsv`` and ``m/a_b.tsv``; ``Model`` and ``model`` on a case-insensitive disk) or take the place
    of the report's ``plots`` or ``report.html``, so that no model's results overwrite or merge with another's."""
    names = {label: safe_name(label, "model") for label in dict.fromkeys(labels)}
    taken = Counter(name.casefold() for name in names.values()) + Counter(RUN_LEVEL_NAMES)
    folders = {label: name if taken[name.casefold()] == 1 else f"{name[:MAX_NAME - 9]}-{name_digest(label)}"
               for label, name in names.items()}
    used: set[str] = set(RUN_LEVEL_NAMES)
    for label in sorted(folders):  # a hashed name that is still taken (vanishingly rare): number it, in a fixed order
        folder, n = folders[label], 1
        while folder.casefold() in used:
            n += 1
            folder = f"{folders[label]}-{n}"
        folders[label] = folder
        used.add(folder.casefold())
    return folders


def model_labels(models: Sequence[str]) -> dict[str, str]:
    """Each model's name in tables and its folder's name: ``short_model_name``, except that models whose short
    names collide (checkpoint-1000 of two training runs) keep their full names, so that no run overwrites or
    merges with another."""
    short = {model: short_model_name(model) for model in models}
    taken = Counter(safe_name(name, "model") for name in short.values())
    return {model: name if taken[safe_name(name, "model")] == 1 else model for model, name in short.items()}


MAX_NAME = 200  # characters in a name made here: below the 255 bytes file systems allow, with room for suffixes
RUN_LEVEL_NAMES = ("plots", "report.html")  # what a run writes beside its model folders


def safe_name(text: str, fallback: str) -> str:
    """``text`` as a file name: runs of characters other than letters, digits, ``. _ -`` become ``_``; a name
    over ``MAX_NAME`` characters is cut (``fit_name``)."""
    return fit_name(re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or fallback, text)


def fit_name(name: str, key: str | None = None) -> str:
    """``name`` when it has at most ``MAX_NAME`` characters, else its start and a short hash of ``key`` (default:
    ``name``): deterministic, and distinct for distinct keys."""
    if len(name) <= MAX_NAME:
        return name
    return f"{name[:MAX_NAME - 9]}-{name_digest(name if key is None else key)}"


def name_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def suite_file_name(name: str, used: set[str]) -> str:
    """A safe, unique ``.json`` file name for a suite (names may hold any character, and may repeat); ``used``
    holds the names given so far, case-folded (two names differing in case are one file on some disks)."""
    stem = safe_name(name, "suite")
    candidate, n = stem, 1
    while candidate.casefold() in used:
        n += 1
        candidate = f"{stem}-{n}"
    used.add(candidate.casefold())
    return f"{candidate}.json"
