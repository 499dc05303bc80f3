"""Suite texts that passed the JSON Schema before, remembered by content hash in the cache directory.

Checking the 34 SyntaxGym suites against the schema takes 0.5 s with jsonschema, a quarter of a run served from the
score cache and a third of the time to the first scored token; the suites rarely change between runs. A suite whose
exact text (with this schema, this linguagym and this jsonschema) passed before skips the schema; the semantic
checks that follow always run, and a suite with problems is never remembered. The memo is an empty file per text
under ``<cache>/checked-suites/``; where it cannot be read or written, suites are checked as before.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from linguagym.entrystore import resolve_cache_dir

MEMO_DIR = "checked-suites"


@cache
def _salt() -> bytes:
    """What else decides the schema's verdict: its text, and the versions of the code that applies it."""
    digest = hashlib.sha256(resources.files("linguagym.suites").joinpath("suite.schema.json").read_bytes())
    for package in ("linguagym", "jsonschema"):
        try:
            digest.update(f"\0{package}={version(package)}".encode())
        except PackageNotFoundError:
            digest.update(f"\0{package}=?".encode())
    return digest.digest()


def memo_key(text: str) -> str:
    return hashlib.sha256(_salt() + text.encode("utf-8", "surrogatepass")).hexdigest()


def _directory() -> Path:
    return resolve_cache_dir() / MEMO_DIR


def known_valid(key: str) -> bool:
    try:
        return (_directory() / key).is_file()
    except OSError:
        return False


def remember_valid(key: str) -> None:
    try:
        directory = _directory()
        directory.mkdir(parents=True, exist_ok=True)
        (directory / key).touch()
    except OSError:
        pass  # a read-only cache: the next run checks the schema again
