"""Every repository path the docs name exists (issue 38: docs/capabilities.md named `capabilities/specs/` long
after the specs moved under `seeds/`). A path is a backticked word starting with one of the repository's top
folders (or `capabilities/`, read under `linguagym/`), or a relative Markdown link; globs and placeholders
(`*`, `<...>`, `{...}`) are left out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
CODE_PATH = re.compile(r"`((?:linguagym|tests|benchmarks|docs|ci|capabilities)/[^`\s]*)`")
LINK = re.compile(r"\]\(((?!https?:|#|mailto:)[^)\s#]+)")


def named_paths(text: str) -> list[str]:
    found = [m.group(1) for m in CODE_PATH.finditer(text)]
    return [p for p in found if not any(c in p for c in "*<{[")]


def missing(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    gone = []
    for path in named_paths(text):
        bare = path.rstrip("/").split(":")[0].split("#")[0]  # a folder's slash, a file's :line or #anchor
        if not any((base / bare).exists() for base in (REPO, REPO / "linguagym")):
            gone.append(path)
    gone += [link for link in (m.group(1) for m in LINK.finditer(text)) if not (doc.parent / link).exists()]
    return gone


def test_the_path_finder_finds_paths_and_leaves_placeholders(tmp_path):
    text = "see `linguagym/capabilities/seeds/specs/`, `capabilities/perturb/`, `<cache>/fills/`, `tests/*.py`"
    assert named_paths(text) == ["linguagym/capabilities/seeds/specs/", "capabilities/perturb/"]
    stale = tmp_path / "stale.md"
    stale.write_text("in `linguagym/capabilities/specs/` and `capabilities/schema/`; [x](nowhere.md)", "utf-8")
    assert missing(stale) == ["linguagym/capabilities/specs/", "capabilities/schema/", "nowhere.md"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_path_a_doc_names_exists(doc):
    assert missing(doc) == []
