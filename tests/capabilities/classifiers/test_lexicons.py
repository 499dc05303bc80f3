"""VADER and TextBlob on clear sentences, and their thresholds exactly at the edges."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.classifiers.lexicons import TextBlobClassifier, VaderClassifier

CLEAR = [
    ("This movie is wonderful and I love it.", "positive"),
    ("This movie is terrible and I hate it.", "negative"),
    ("The car is parked on the street.", "neutral"),
]


@pytest.mark.parametrize("classifier", [VaderClassifier(), TextBlobClassifier()], ids=["vader", "textblob"])
def test_clear_sentences(classifier) -> None:
    predictions = classifier.predict([text for text, _ in CLEAR])
    assert [p.label for p in predictions] == [label for _, label in CLEAR]
    for prediction in predictions:
        assert sum(prediction.probabilities) == pytest.approx(1.0)
        assert min(prediction.probabilities) >= 0


def test_vader_empty_text_is_neutral() -> None:
    (prediction,) = VaderClassifier().predict([""])
    assert prediction.label == "neutral"
    assert prediction.probabilities == (0.0, 1.0, 0.0)


class _FakeVader:
    def __init__(self, compound: float) -> None:
        self.compound = compound

    def polarity_scores(self, text: str) -> dict[str, float]:
        return {"neg": 0.2, "neu": 0.6, "pos": 0.2, "compound": self.compound}


@pytest.mark.parametrize(
    ("compound", "label"),
    [(0.05, "positive"), (0.0499, "neutral"), (0.0, "neutral"), (-0.0499, "neutral"), (-0.05, "negative")],
)
def test_vader_thresholds_are_inclusive(compound: float, label: str) -> None:
    classifier = VaderClassifier()
    classifier._analyzer = _FakeVader(compound)
    (prediction,) = classifier.predict(["anything"])
    assert prediction.label == label
    assert prediction.probabilities == pytest.approx((0.2, 0.6, 0.2))


@pytest.mark.parametrize(
    ("polarity", "threshold", "label"),
    [(0.0, 0.0, "neutral"), (1e-6, 0.0, "positive"), (-1e-6, 0.0, "negative"),
     (0.1, 0.1, "neutral"), (0.1001, 0.1, "positive"), (-0.1, 0.1, "neutral"), (-0.1001, 0.1, "negative")],
)  # fmt: skip
def test_textblob_thresholds_are_exclusive(polarity: float, threshold: float, label: str, monkeypatch) -> None:
    classifier = TextBlobClassifier(threshold)
    classifier._blob = lambda text: SimpleNamespace(sentiment=SimpleNamespace(polarity=polarity))
    (prediction,) = classifier.predict(["anything"])
    assert prediction.label == label
    assert prediction.probabilities == pytest.approx((max(-polarity, 0), 1 - abs(polarity), max(polarity, 0)))


def test_identity_records_threshold_and_version() -> None:
    identity = VaderClassifier(0.1).identity
    assert identity["kind"] == "vader" and identity["threshold"] == 0.1 and identity["version"] != "absent"
    assert TextBlobClassifier().identity != TextBlobClassifier(0.2).identity


def test_missing_library_gives_install_hint(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "vaderSentiment.vaderSentiment", None)  # import now fails
    monkeypatch.setitem(sys.modules, "textblob", None)
    with pytest.raises(ClassifierError, match="vaderSentiment") as vader:
        VaderClassifier().predict(["x"])
    assert "pip install vaderSentiment" in str(vader.value)
    with pytest.raises(ClassifierError) as blob:
        TextBlobClassifier().predict(["x"])
    assert "pip install textblob" in str(blob.value)


def test_bad_thresholds_are_refused() -> None:
    with pytest.raises(ClassifierError):
        VaderClassifier(0)
    with pytest.raises(ClassifierError):
        TextBlobClassifier(1.5)
