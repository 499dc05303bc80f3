"""A capability-test file whose tests name their source sentences (provenance rows in slot ``S`` with the
dataset's gold label), built so that the keyword rule of ``lct_fakes`` is right on some sources and wrong on
others, and so passes some tests only because it misreads their source. The numbers in ``EXPECTED_SOURCES`` are
worked out by hand from the comments in ``source_document``."""

from __future__ import annotations

from typing import Any


def _row(text: str, label: str | None, slot: str = "S") -> dict[str, Any]:
    row: dict[str, Any] = {"slot": slot, "id": str(len(text)), "score": None, "text": text}
    if label is not None:
        row["label"] = label
    return row


def _seed(tid: str, capability: str, text: str, expected: list[str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": tid, "capability": capability, "text": text, "expected": expected, "kind": "seed",
            "provenance": {"dataset": "fixture", "case": 1, "rows": rows, "template": None, "alternatives": {}}}


def _expansion(seed: dict[str, Any], number: int, text: str, *, rows: bool = True) -> dict[str, Any]:
    provenance = {**seed["provenance"], "seed": seed["id"], "seed_text": seed["text"]}
    if not rows:  # an expansion naming no rows: its source is its seed's
        del provenance["rows"]
    return {"id": f"{seed['id']}/x{number}", "capability": seed["capability"], "text": text,
            "expected": list(seed["expected"]), "kind": "expansion", "provenance": provenance}


def source_document() -> dict[str, Any]:
    # LC6, "I do not think that S": expected negative. Sources and how the keyword rule reads them:
    # "A good film." (positive) right; "A fine film that I hate." (positive) wrong; "A lovely film." (positive) wrong
    s1 = _seed("LC6/1/1", "LC6", 'I do not think that "A good film."', ["negative"],
               [_row("A good film.", "positive")])  # fails (positive), source right
    s2 = _seed("LC6/1/2", "LC6", 'I do not think that "A fine film that I hate."', ["negative"],
               [_row("A fine film that I hate.", "positive")])  # passes, only because "hate" reads negative
    s3 = _seed("LC6/1/3", "LC6", 'I do not think that "A lovely film."', ["negative"],
               [_row("A lovely film.", "positive")])  # fails (neutral), source wrong
    # LC2, the source sentence itself: "An awful film." right, "A dull film." wrong, "A good film." right (also an
    # LC6 source); a row without a label and a row in another slot name no source
    tests = [
        s1,
        _expansion(s1, 1, 'I do not think that "A good new film."', rows=False),  # fails, source right (seed's)
        _expansion(s1, 2, 'I do not think that "A good but awful and bad film."'),  # passes, source right
        s2,
        _expansion(s2, 1, 'I do not think that "A fine long film that I hate."'),  # passes, source wrong
        s3,
        _seed("LC2/1/1", "LC2", "An awful film.", ["negative"], [_row("An awful film.", "negative")]),  # passes
        _seed("LC2/1/2", "LC2", "A dull film.", ["negative"], [_row("A dull film.", "negative")]),  # fails, wrong
        _seed("LC2/1/3", "LC2", "A good film.", ["positive"], [_row("A good film.", "positive")]),  # passes
        _seed("LC2/1/4", "LC2", "A great film.", ["positive"], [_row("A great film.", None)]),  # passes, no gold
        _seed("LC2/1/5", "LC2", "I love it.", ["positive"], [_row("A bad film.", "negative", slot="P")]),  # no S
    ]
    capabilities = [{"id": cid, "name": name, "seeds": sum(t["capability"] == cid and t["kind"] == "seed"
                                                          for t in tests)}
                    for cid, name in (("LC2", "Sentiment-laden adjectives"), ("LC6", "Negated positive"))]
    return {"format": "linguagym-capability-tests", "version": 1,
            "created_by": {"tool": "linguagym", "version": "test"},
            "dataset": {"name": "fixture", "source": "hand-made", "sha256": None, "rows": 6,
                        "label_rule": "by hand"},
            "settings": {"seed": 0, "max_seeds": None}, "capabilities": capabilities, "tests": tests}


# capability -> (distinct sources, of those classified right, seeds with a right source, of those failing,
# expansions with a right source, of those failing); the overall seed and expansion failures as (failed, total)
EXPECTED_SOURCES = {
    "LC2": (3, 2, 2, 0, 0, 0),
    "LC6": (3, 1, 1, 1, 2, 1),
    "all": (5, 2, 3, 1, 2, 1),
}
EXPECTED_OVERALL = {"LC2": ((1, 5), (0, 0)), "LC6": ((2, 3), (1, 3)), "all": ((3, 8), (1, 3))}
# texts the classifier is asked for: the 11 test texts (all distinct) and the 2 sources that are no test's text
UNIQUE_TEXTS = 13
SOURCES_NOT_TESTS = ["A fine film that I hate.", "A lovely film."]
