"""The suite sets a new server loads in one click: the bundled example suites, and the 34 suites of SyntaxGym 2020
(Hu et al. 2020), found by the same library code as ``linguagym run --collection syntaxgym-2020``: the server's
cache, else fetched from the collection's pinned source, hashes checked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError
from linguagym.suites.examples import example_suite_paths
from linguagym.web.db import SuiteRecord

EXAMPLES = "examples"
COLLECTION = "syntaxgym-2020"


@dataclass(frozen=True)
class StarterSet:
    key: str
    label: str
    names: tuple[str, ...]  # the suites it holds (each file is NAME.json and its suite is named NAME)


def starter_sets() -> list[StarterSet]:
    from linguagym.evaluation.collections import load_collection

    examples = tuple(p.stem for p in example_suite_paths())
    collection = load_collection(COLLECTION).suites
    return [StarterSet(EXAMPLES, f"the {len(examples)} example suites", examples),
            StarterSet(COLLECTION, f"the {len(collection)} suites of SyntaxGym 2020", collection)]


def starter_set(key: str) -> StarterSet:
    for one in starter_sets():
        if one.key == key:
            return one
    raise ConfigurationError(f"there is no suite set {key!r} to load", hint=f"load {EXAMPLES!r} or {COLLECTION!r}")


def missing_suites(session: Session, names: tuple[str, ...]) -> list[str]:
    """The suites of ``names`` this server does not hold yet (by name)."""
    stored = set(session.scalars(select(SuiteRecord.name).where(SuiteRecord.name.in_(names))))
    return [n for n in names if n not in stored]


def starter_files(key: str, cache_dir: Path) -> list[tuple[str, bytes]]:
    """The files of a starter set, (file name, content)."""
    if starter_set(key).key == EXAMPLES:
        return [(p.name, p.read_bytes()) for p in example_suite_paths()]
    return [(p.name, p.read_bytes()) for p in collection_paths(cache_dir)]


def collection_paths(cache_dir: Path) -> list[Path]:
    """The SyntaxGym 2020 suite files in ``cache_dir`` (``suites/syntaxgym-2020/``), fetched when missing; offline
    with no copy, an error saying where to put one."""
    from linguagym.evaluation.collections import load_collection, resolve_suites

    try:
        return [p for p in resolve_suites(None, COLLECTION, cache_dir=str(cache_dir)) if isinstance(p, Path)]
    except ConfigurationError as error:
        source = load_collection(COLLECTION).source
        url = source.get("url", "").format(commit=source.get("commit", ""), suite="NAME")
        # the heading says what failed in words; the fetch's own error (a URL, a socket error) goes below it
        raise ConfigurationError(
            "the SyntaxGym 2020 suites are not in this server's cache and could not be fetched (no copy here, "
            "and the download failed)",
            hint=f"The download said: {error.message}. To load them: give the server internet access and click "
                 f"again (it fetches them once, hash-checked); or copy the 34 files ({url}) into "
                 f"{Path(cache_dir) / 'suites' / COLLECTION} on the server; or upload them here as one .zip with "
                 "'Upload many'.") from None
