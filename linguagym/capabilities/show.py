"""A capability-test file at a glance: counts per capability and kind, and a few sample tests each."""

from __future__ import annotations

import random
from collections import Counter


def summary_rows(document: dict) -> list[dict]:
    """One row per capability: id, name, seeds, expansions, expected label sets."""
    kinds: Counter = Counter((t["capability"], t["kind"]) for t in document["tests"])
    expected: dict[str, set[str]] = {}
    for test in document["tests"]:
        expected.setdefault(test["capability"], set()).add("/".join(test["expected"]))
    ids = [c["id"] for c in document["capabilities"]]
    ids += sorted({t["capability"] for t in document["tests"]} - set(ids))
    names = {c["id"]: c.get("name", "") for c in document["capabilities"]}
    return [{"id": cid, "name": names.get(cid, ""), "seeds": kinds[(cid, "seed")],
             "expansions": kinds[(cid, "expansion")], "expected": sorted(expected.get(cid, ()))} for cid in ids]


def samples(document: dict, per_capability: int, seed: int = 0) -> dict[str, list[dict]]:
    """Up to ``per_capability`` tests of each capability, drawn reproducibly, in file order."""
    by_capability: dict[str, list[dict]] = {}
    for test in document["tests"]:
        by_capability.setdefault(test["capability"], []).append(test)
    out = {}
    for cid, tests in by_capability.items():
        if len(tests) > per_capability:
            keep = set(random.Random(f"{seed}/{cid}").sample(range(len(tests)), per_capability))
            tests = [t for i, t in enumerate(tests) if i in keep]
        out[cid] = tests
    return out
