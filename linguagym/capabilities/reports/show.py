"""A capability-test file at a glance: counts per capability and kind, and a few sample tests each."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from linguagym.capabilities.testfile.checklist_types import DIR, INV, MFT
from linguagym.capabilities.testfile.model import CapabilityTest, CapabilityTestFile, require_test_file


def summary_rows(document: CapabilityTestFile) -> list[dict[str, Any]]:
    """One row per capability: id, name, seeds, expansions, expected label sets (of the expected-label tests),
    and CheckList's INV and DIR tests (``inv``, ``dir``)."""
    tests = require_test_file(document, "summary_rows").tests
    kinds: Counter = Counter((t.capability, t.kind if MFT.owns(t) else t.test_type) for t in tests)
    expected: dict[str, set[str]] = {}
    for test in MFT.of(tests):
        expected.setdefault(test.capability, set()).add("/".join(test.expected))
    ids = [c.id for c in document.capabilities]
    ids += sorted({t.capability for t in tests} - set(ids))
    names = {c.id: c.name for c in document.capabilities}
    return [{"id": cid, "name": names.get(cid, ""), "seeds": kinds[(cid, "seed")],
             "expansions": kinds[(cid, "expansion")], "expected": sorted(expected.get(cid, ())),
             "inv": kinds[(cid, INV.code)], "dir": kinds[(cid, DIR.code)]} for cid in ids]


def samples(document: CapabilityTestFile, per_capability: int, seed: int = 0) -> dict[str, list[CapabilityTest]]:
    """Up to ``per_capability`` expected-label tests of each capability, drawn reproducibly, in file order (INV and
    DIR pairs are counted by ``summary_rows``)."""
    by_capability: dict[str, list[CapabilityTest]] = {}
    for test in require_test_file(document, "samples").tests:
        if MFT.owns(test):
            by_capability.setdefault(test.capability, []).append(test)
    out = {}
    for cid, tests in by_capability.items():
        if len(tests) > per_capability:
            keep = set(random.Random(f"{seed}/{cid}").sample(range(len(tests)), per_capability))
            tests = [t for i, t in enumerate(tests) if i in keep]
        out[cid] = tests
    return out
