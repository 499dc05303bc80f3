"""Every real SyntaxGym suite's predictions read, print and evaluate exactly as before the prediction language grew
(#37). ``data/real_formulas.json`` was written by main's code before the change (commit 279e468): each suite's
canonical formulas, and the outcomes of every item's predictions on made-up region values (a hash of them, with
counts to read a difference by), under both tie rules. The values come from a seeded draw that makes exact ties,
near ties (1 and 1.0005) and undefined regions."""

import hashlib
import json
import math
import random
from pathlib import Path

import pytest

from linguagym.suites.formula import Tolerance, evaluate, operators
from linguagym.suites.load import read_suite
from linguagym.suites.peers import peer_unreadable

EXPECTED = json.loads((Path(__file__).parent / "data" / "real_formulas.json").read_text("utf-8"))
CHOICES = (0.0, 1.0, 1.0005, 2.0, 3.5, -1.25, math.nan)
SYNTAXGYM_OPERATORS = {"<", ">", "=", "+", "-", "&", "|"}


def value(suite: str, item: int, condition: str, region: int | None) -> float:
    return random.Random(f"{suite}|{item}|{condition}|{region}").choice(CHOICES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_suite_reads_prints_and_evaluates_as_before(shared_data, name):
    suite = read_suite(shared_data / "syntaxgym" / name).suite
    expected = EXPECTED[name]
    assert [p.formula for p in suite.predictions] == expected["formulas"]
    for prediction in suite.predictions:
        assert operators(prediction.tree) <= SYNTAXGYM_OPERATORS
        assert prediction.atol is None and prediction.rtol is None
    assert peer_unreadable(suite) == []
    outcomes = []
    for rule in ("strict", "lm-eval"):
        for item in suite.items:
            for prediction in suite.predictions:
                outcome = evaluate(prediction.tree,
                                   lambda ref, item=item: value(suite.name, item.number, ref.condition, ref.region),
                                   prediction.tolerance(Tolerance(ties=rule)))
                outcomes.append(f"{int(outcome.holds)}{len(outcome.undefined)}{outcome.tie or '-'}")
    counts = {"holds": sum(o[0] == "1" for o in outcomes), "undefined": sum(o[1] != "0" for o in outcomes),
              "exact": sum(o.endswith("exact") for o in outcomes), "near": sum(o.endswith("near") for o in outcomes)}
    assert counts == {key: expected[key] for key in counts}
    assert hashlib.sha256(",".join(outcomes).encode()).hexdigest() == expected["sha256"]


def test_the_frozen_list_covers_every_real_suite(shared_data):
    found = {f"{folder}/{path.name}" for folder in ("suites", "suites-master")
             for path in (shared_data / "syntaxgym" / folder).glob("*.json")}
    assert found == set(EXPECTED) and len(found) == 68
