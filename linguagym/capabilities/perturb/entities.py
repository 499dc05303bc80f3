"""Name and place swaps, as CheckList's ``Perturb.change_names`` and ``Perturb.change_location``: a person's
or a place's name (spaCy's entity types PERSON and GPE) replaced by another from small built-in lists. Whom a
review names does not change what it thinks, so the label must not change."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

FIRST_NAMES = ("James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
               "Carlos", "Maria", "Ahmed", "Fatima", "Wei", "Mei", "Raj", "Priya", "Kwame", "Amara", "Ivan", "Olga",
               "Kenji", "Yuki", "Luca", "Sofia")
LAST_NAMES = ("Smith", "Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Lopez",
              "Nguyen", "Kim", "Chen", "Patel", "Singh", "Okafor", "Mensah", "Ivanova", "Tanaka", "Rossi", "Muller")
CITIES = ("New York", "London", "Paris", "Chicago", "Toronto", "Sydney", "Berlin", "Madrid", "Tokyo", "Mumbai",
          "Lagos", "Cairo", "Seoul", "Rome", "Boston", "Dublin", "Lima", "Nairobi")
COUNTRIES = ("France", "Germany", "Japan", "India", "Brazil", "Canada", "Mexico", "Italy", "Spain", "China",
             "Nigeria", "Egypt", "Kenya", "Australia", "Sweden", "Peru", "Ireland", "Korea")

PERSON, PLACE = "PERSON", "GPE"  # spaCy's entity labels


@dataclass(frozen=True)
class Entity:
    """A name in a text: characters ``start:end``, spaCy's ``label`` (PERSON or GPE)."""

    start: int
    end: int
    label: str

    def text(self, of: str) -> str:
        return of[self.start:self.end]


def swap_entities(text: str, entities: Sequence[Entity], label: str, rng: random.Random) -> str | None:
    """``text`` with every entity of ``label`` replaced by another name drawn by ``rng`` (the same name the same
    way each time it recurs); None when there is none to replace."""
    chosen: dict[str, str] = {}
    out, cursor = [], 0
    for entity in sorted(entities, key=lambda e: e.start):
        if entity.label != label or entity.start < cursor:
            continue
        found = entity.text(text)
        if found not in chosen:
            chosen[found] = replacement(found, label, rng)
        out += [text[cursor:entity.start], chosen[found]]
        cursor = entity.end
    if not chosen:
        return None
    out.append(text[cursor:])
    return "".join(out)


def replacement(found: str, label: str, rng: random.Random) -> str:
    """Another name for ``found``, never ``found`` itself: for a person a first name, a last name or both as
    ``found`` has words (a one-word name is a first name only if the list knows it); for a place a country if
    ``found`` is one, else a city."""
    if label == PERSON:
        words = found.split()
        if len(words) > 1:
            pool = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
        else:
            pool = list(FIRST_NAMES if found in FIRST_NAMES else LAST_NAMES)
    else:
        pool = list(COUNTRIES if found in COUNTRIES else CITIES)
    return rng.choice([name for name in pool if name != found])
