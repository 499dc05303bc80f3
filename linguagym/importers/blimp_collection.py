"""A collection file (TOML, as ``evaluation/collections.py`` reads it) for imported BLiMP suites: one group per
phenomenon, so that ``linguagym run --collection FILE --suites-dir DIR`` prints BLiMP's overall accuracy (the
mean over paradigms, as the paper's "overall") and a score per phenomenon."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.importers.blimp import PHENOMENA, REFERENCE, phenomenon
from linguagym.suites.model import Suite


def _toml_string(text: str) -> str:
    # a JSON string is a valid TOML basic string (the same escapes)
    return json.dumps(text, ensure_ascii=False)


def _literal_pattern(name: str) -> str:
    """A suite name as an fnmatch pattern that matches only itself (groups take patterns)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def blimp_collection_toml(suites: Sequence[Suite], name: str = "blimp") -> str:
    """The collection's TOML text: every suite scored, grouped by phenomenon in the paper's order (phenomena
    outside BLiMP's 12, from files of your own, follow in order of appearance)."""
    groups: dict[str, list[str]] = {}
    for suite in suites:
        uid = str(suite.meta.extra.get("uid", suite.name))
        key = str(suite.meta.extra.get("phenomenon") or phenomenon(uid, None))
        groups.setdefault(key, []).append(suite.name)
    ordered = [key for key in PHENOMENA if key in groups] + [key for key in groups if key not in PHENOMENA]
    lines = [
        "# BLiMP paradigms imported by `linguagym import blimp`; a group per phenomenon, as the paper reports them.",
        f"name = {_toml_string(name)}",
        f"description = {_toml_string(f'{len(suites)} BLiMP paradigms; score: mean accuracy over paradigms')}",
        f"reference = {_toml_string(REFERENCE)}",
        'policy = "all"',
        "suites = [",
        *(f"  {_toml_string(suite.name)}," for suite in suites),
        "]",
    ]
    for key in ordered:
        title, short = PHENOMENA.get(key, (key, key))
        members = ", ".join(_toml_string(_literal_pattern(s)) for s in groups[key])
        lines += ["", "[[groups]]", f"name = {_toml_string(title)}", f"short = {_toml_string(short)}",
                  f"suites = [{members}]"]
    return "\n".join(lines) + "\n"


def write_blimp_collection(suites: Sequence[Suite], path: str | Path, name: str = "blimp") -> Path:
    """Write the collection file whole (a temporary file, then a rename)."""
    atomic_write_text(path, blimp_collection_toml(suites, name))
    return Path(path)
