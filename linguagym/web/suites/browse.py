"""Browsing the suites: their tags (a suite's own, and the circuits of the built-in collections it belongs to),
filters by tag, circuit and author, and the orders the list can be sorted in."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError
from linguagym.evaluation.collections import builtin_collections, load_collection
from linguagym.web.db import TAG_LENGTH, SuiteRecord, SuiteTag, now
from linguagym.web.text import clean_text

MAX_TAGS = 20
TAG_PATTERN = re.compile(r"[\w][\w .+-]*", re.UNICODE)  # a letter or digit first; words, spaces, . + -
# sort key -> (what the list shows first when chosen, the key of a suite)
SORTS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "changed": ("desc", lambda s: (s.updated_at, s.id)),
    "name": ("asc", lambda s: (s.name.casefold(), s.id)),
    "author": ("asc", lambda s: (s.latest.author.casefold(), s.name.casefold())),
    "items": ("desc", lambda s: (s.latest.item_count, s.name.casefold())),
    "version": ("desc", lambda s: (s.latest.number, s.name.casefold())),
}


@cache
def _groups() -> tuple:
    return tuple(group for name in builtin_collections() for group in load_collection(name).groups)


def circuits(suite_name: str) -> tuple[str, ...]:
    """The circuits (groups of the built-in collections, e.g. SyntaxGym 2020's "Agreement") ``suite_name`` is in."""
    return tuple(dict.fromkeys(group.name for group in _groups() if group.matches(suite_name)))


def circuit_short(name: str) -> str:
    """A circuit's short name (``Agr`` for "Agreement"), as the compact list shows it."""
    return next((group.short for group in _groups() if group.name == name and group.short), name)


def own_tags(record: SuiteRecord) -> tuple[str, ...]:
    return tuple(tag.tag for tag in record.tags)


def all_tags(record: SuiteRecord) -> tuple[str, ...]:
    """The suite's circuits, then its own tags."""
    return tuple(dict.fromkeys((*circuits(record.name), *own_tags(record))))


def parse_tags(text: str) -> list[str]:
    """Tags typed as ``a, b, c``: each cleaned and checked, duplicates (any case) dropped."""
    tags: dict[str, str] = {}
    for part in clean_text(text).split(","):
        tag = " ".join(part.split())
        if not tag:
            continue
        if len(tag) > TAG_LENGTH or not TAG_PATTERN.fullmatch(tag):
            raise ConfigurationError(f"the tag {tag[:60]!r} is not a tag",
                                     hint=f"a tag is up to {TAG_LENGTH} letters, digits, spaces, '.', '+' or '-', "
                                          "starting with a letter or digit; separate tags with commas")
        tags.setdefault(tag.casefold(), tag)
    if len(tags) > MAX_TAGS:
        raise ConfigurationError(f"{len(tags)} tags given; a suite has at most {MAX_TAGS}",
                                 hint="keep the tags that help find it")
    return list(tags.values())


def set_tags(session: Session, record: SuiteRecord, tags: Sequence[str]) -> None:
    """Replace the suite's own tags with ``tags`` (flushed, not committed)."""
    record.tags = [SuiteTag(tag=tag) for tag in sorted(dict.fromkeys(tags), key=str.casefold)]
    record.updated_at = now()
    session.flush()


@dataclass(frozen=True)
class SuiteFilter:
    """What the suites page shows: ``?tag=``, ``?circuit=``, ``?author=`` (exact, any case), ``?sort=``, ``?order=``."""

    tag: str = ""
    circuit: str = ""
    author: str = ""
    sort: str = "changed"
    order: str = "desc"

    @classmethod
    def from_args(cls, args: Mapping[str, str]) -> SuiteFilter:
        sort = args.get("sort") or "changed"
        if sort not in SORTS:
            raise ConfigurationError(f"cannot sort suites by {sort[:60]!r}", hint=f"sort by {', '.join(SORTS)}")
        order = args.get("order") or SORTS[sort][0]
        if order not in ("asc", "desc"):
            raise ConfigurationError(f"cannot order by {order[:60]!r}", hint="use order=asc or order=desc")
        return cls(tag=args.get("tag", "").strip(), circuit=args.get("circuit", "").strip(),
                   author=args.get("author", "").strip(), sort=sort, order=order)

    @property
    def active(self) -> bool:
        return bool(self.tag or self.circuit or self.author)

    def apply(self, records: Sequence[SuiteRecord]) -> list[SuiteRecord]:
        chosen = [r for r in records
                  if (not self.tag or self.tag.casefold() in {t.casefold() for t in all_tags(r)})
                  and (not self.circuit or self.circuit in circuits(r.name))
                  and (not self.author or r.latest.author.casefold() == self.author.casefold())]
        return sorted(chosen, key=SORTS[self.sort][1], reverse=self.order == "desc")


@dataclass(frozen=True)
class Facets:
    """The choices the filters offer: every tag, circuit and author among the stored suites."""

    tags: tuple[str, ...]
    circuits: tuple[str, ...]
    authors: tuple[str, ...]


def facets(records: Sequence[SuiteRecord]) -> Facets:
    tags = {t.casefold(): t for r in records for t in all_tags(r)}
    found_circuits = {c for r in records for c in circuits(r.name)}
    authors = {r.latest.author.casefold(): r.latest.author for r in records if r.latest.author}
    return Facets(tuple(sorted(tags.values(), key=str.casefold)),
                  tuple(g.name for g in _groups() if g.name in found_circuits),
                  tuple(sorted(authors.values(), key=str.casefold)))
