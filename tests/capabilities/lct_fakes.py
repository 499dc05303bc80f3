"""Fixtures for the ``lct test`` tests: a hand-made capability-test file whose numbers are known (``document``: its
JSON; ``capability_file``: as read), and deterministic fake classifiers (a keyword rule; one that fails on its
n-th call). ``keyword_labels`` is also reachable as the classifier spec
``python:tests.capabilities.lct_fakes:keyword_labels``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from linguagym.capabilities.classifiers.base import LABELS, Classifier, ClassifierError, Prediction
from linguagym.capabilities.testfile import load_document
from linguagym.capabilities.testfile.model import CapabilityTestFile

NEGATIVE = {"bad", "awful", "mess", "hate"}  # not "disaster": "isn't a disaster" reads neutral to the rule
POSITIVE = {"good", "love", "great"}


def keyword_label(text: str) -> str:
    words = re.findall(r"[a-z]+", text.lower())
    score = sum(w in POSITIVE for w in words) - sum(w in NEGATIVE for w in words)
    return "positive" if score > 0 else "negative" if score < 0 else "neutral"


def keyword_labels(texts: list[str]) -> list[str]:
    """A deterministic classifier function: one label per text."""
    return [keyword_label(text) for text in texts]


def keyword_prediction(text: str) -> Prediction:
    label = keyword_label(text)
    return Prediction(label, tuple(0.8 if name == label else 0.1 for name in LABELS))  # type: ignore[arg-type]


class KeywordClassifier(Classifier):
    """The keyword rule as a Classifier; records every batch it is asked for."""

    def __init__(self, name: str = "keywords", identity: dict[str, Any] | None = None) -> None:
        self._name = name
        self._identity = identity or {"kind": "fake", "rule": "keywords"}
        self.calls: list[list[str]] = []

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    @property
    def name(self) -> str:
        return self._name

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        self.calls.append(list(texts))
        return [keyword_prediction(text) for text in texts]


class FlakyClassifier(KeywordClassifier):
    """The keyword rule, with the same identity by default, that raises ClassifierError on call ``fail_on``."""

    def __init__(self, fail_on: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fail_on = fail_on

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        if len(self.calls) + 1 == self.fail_on:
            self.calls.append(list(texts))
            raise ClassifierError("the fake endpoint went away", hint="try again later")
        return super().predict(texts)


class ConstantClassifier(KeywordClassifier):
    def __init__(self, label: str = "neutral", **kwargs: Any) -> None:
        super().__init__(name=f"always-{label}", identity={"kind": "fake", "constant": label}, **kwargs)
        self.label = label

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        self.calls.append(list(texts))
        return [Prediction(self.label, tuple(1.0 if n == self.label else 0.0 for n in LABELS))  # type: ignore[misc]
                for _ in texts]


def _seed(tid: str, capability: str, text: str, expected: list[str]) -> dict[str, Any]:
    return {"id": tid, "capability": capability, "text": text, "expected": expected, "kind": "seed",
            "provenance": {"dataset": "fixture", "case": 1, "rows": [], "template": None, "alternatives": {}}}


def _expansion(seed: dict[str, Any], number: int, text: str, expanded: str, fill: str) -> dict[str, Any]:
    start = expanded.index(fill)
    provenance = {**seed["provenance"], "seed": seed["id"], "seed_text": seed["text"], "expanded_text": expanded,
                  "masks": [{"tag": "JJ", "start": start, "end": start + len(fill)}], "fills": [fill]}
    return {"id": f"{seed['id']}/x{number}", "capability": seed["capability"], "text": text,
            "expected": list(seed["expected"]), "kind": "expansion", "provenance": provenance}


def document() -> dict[str, Any]:
    """A test file with known numbers under the keyword rule (see ``EXPECTED``): capabilities listed out of
    order, one without tests (LC3), one without expansions (LC2), one only in the tests (LC10), one custom (X1)."""
    lc1a = _seed("LC1/1/8", "LC1", "A red car.", ["neutral"])
    lc1b = _seed("LC1/1/3", "LC1", "A bad car.", ["neutral"])
    lc4a = _seed("LC4/1/1", "LC4", "This movie isn't bad.", ["neutral", "positive"])
    lc4b = _seed("LC4/1/2", "LC4", "That plot isn't a disaster.", ["neutral", "positive"])
    x1 = _seed("X1/1", "X1", "I love it <script>alert('x')</script>", ["positive"])
    tests = [
        lc1a,
        _expansion(lc1a, 1, "A red new car.", "A red new car.", "new"),  # passes
        _expansion(lc1a, 2, "A red good car.", "A red good car.", "good"),  # fails, its seed passed
        lc1b,  # fails
        _expansion(lc1b, 1, "A bad old car.", "A bad old car.", "old"),  # fails, its seed failed too
        _seed("LC2/1/6", "LC2", "A good film.", ["positive"]),
        _seed("LC2/2/5", "LC2", "An awful film.", ["negative"]),
        _seed("LC2/1/7", "LC2", "A fine film.", ["positive"]),  # fails (neutral)
        lc4a,  # fails (negative)
        # the template negates the copula: the expanded sentence is not verbatim in the test text
        _expansion(lc4a, 1, "This new movie isn't bad.", "This new movie is bad.", "new"),  # fails
        lc4b,
        _expansion(lc4b, 1, "That long plot isn't a disaster.", "That long plot is a disaster.", "long"),
        _expansion(lc4b, 2, "That awful plot isn't a disaster.", "That awful plot is a disaster.", "awful"),  # fails
        _seed("LC10/1/9", "LC10", 'Do I think that "A good film"? no', ["negative"]),  # fails (positive)
        x1,
        _expansion(x1, 1, "I love it & <b>really</b>", "I love it & <b>really</b>", "really"),
    ]
    capabilities = [{"id": cid, "name": name, "seeds": sum(t["capability"] == cid and t["kind"] == "seed"
                                                          for t in tests)}
                    for cid, name in (("LC4", "Negated negative"), ("X1", "A custom <capability>"),
                                      ("LC2", "Sentiment-laden adjectives"), ("LC1", "Short neutral"),
                                      ("LC3", "Change over time"))]
    return {"format": "linguagym-capability-tests", "version": 1,
            "created_by": {"tool": "linguagym", "version": "test"},
            "dataset": {"name": "fixture", "source": "hand-made", "sha256": None, "rows": 12,
                        "label_rule": "by hand"},
            "settings": {"seed": 0, "max_seeds": None}, "capabilities": capabilities, "tests": tests}


def capability_file() -> CapabilityTestFile:
    """``document`` as the library reads it."""
    return load_document(document(), "fixture")


# capability -> (seeds, seed failures, expansions, expansion failures, expansions after a passing seed, of those
# failing); worked out by hand from the comments in ``document``
EXPECTED = {
    "LC1": (2, 1, 3, 2, 2, 1),
    "LC2": (3, 1, 0, 0, 0, 0),
    "LC3": (0, 0, 0, 0, 0, 0),
    "LC4": (2, 1, 3, 2, 2, 1),
    "LC10": (1, 1, 0, 0, 0, 0),
    "X1": (1, 0, 1, 0, 1, 0),
}
EXPECTED_ORDER = ["LC1", "LC2", "LC3", "LC4", "LC10", "X1"]
