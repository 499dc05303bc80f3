"""Minimal pairs of your own into a suite: a CSV, TSV or JSON Lines file with a ``good`` and a ``bad`` sentence
per row (``sentence_good``/``sentence_bad`` also do), and optionally an ``item`` or ``id``.

The suite is BLiMP's shape: conditions ``good`` and ``bad``, one region (the sentence), the prediction that the
good sentence is the less surprising. Whole-number ids become item numbers; other ids are kept in meta
(``item_ids``: item number -> id) and the items are numbered 1, 2, ... in file order.
"""

from __future__ import annotations

from pathlib import Path

from linguagym.importers.common import (
    checked,
    input_error,
    pair_suite,
    pick_column,
    records,
    suite_name,
    text_field,
    whole_number,
)
from linguagym.suites.model import Suite

GOOD = ("good", "sentence_good")
BAD = ("bad", "sentence_bad")
ID = ("item", "id")


def read_pairs(path: str | Path, *, name: str | None = None) -> Suite:
    """One suite from a file of minimal pairs, named ``name`` or after the file."""
    rows = list(records(path))
    if not rows:
        raise input_error(path, None, "holds no pairs", hint="one row (or JSON object) a pair: good, bad")
    ids: list[tuple[int, object]] = []
    pairs = []
    for position, (line, row) in enumerate(rows, start=1):
        good, bad = text_field(path, line, row, GOOD), text_field(path, line, row, BAD)
        key = pick_column(row, ID)
        ids.append((line, row[key] if key is not None and row[key] not in ("", None) else position))
        pairs.append((good, bad))
    given_numbers = [whole_number(given) for _, given in ids]
    numbers = [n for n in given_numbers if n is not None]
    extra: dict[str, object] = {"source": "minimal pairs", "imported_from": Path(path).name}
    if len(numbers) == len(given_numbers):
        seen: dict[int, int] = {}
        for (line, _), number in zip(ids, numbers, strict=True):
            if number in seen:
                raise input_error(path, line, f"item {number} was already given on line {seen[number]}",
                                  hint="give each pair its own item (or id), or leave the column out")
            seen[number] = line
    else:  # text ids: number the pairs in file order and keep the ids
        numbers = list(range(1, len(pairs) + 1))
        extra["item_ids"] = {str(n): str(given) for n, (_, given) in zip(numbers, ids, strict=True)}
    items = [(number, good, bad) for number, (good, bad) in zip(numbers, pairs, strict=True)]
    return checked(pair_suite(suite_name(path, name), items, extra), str(path))
