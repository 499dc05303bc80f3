"""The three-label mapping: the neutral band's edges and normalisation of probabilities."""

from __future__ import annotations

import pytest

from linguagym.capabilities.classifiers.base import LABELS, Classifier, Prediction, from_binary, from_probabilities


@pytest.mark.parametrize(
    ("p", "label"),
    [
        (0.0, "negative"),
        (1 / 3, "negative"),  # the band is open: its edges belong to the sides
        (1 / 3 + 1e-9, "neutral"),
        (0.5, "neutral"),
        (2 / 3 - 1e-9, "neutral"),
        (2 / 3, "positive"),
        (1.0, "positive"),
    ],
)
def test_binary_band_edges(p: float, label: str) -> None:
    prediction = from_binary(p)
    assert prediction.label == label
    assert prediction.probabilities == pytest.approx((1 - p, 0.0, p))


@pytest.mark.parametrize("p", [-0.01, 1.01])
def test_binary_outside_unit_interval_is_refused(p: float) -> None:
    with pytest.raises(ValueError, match="must lie in"):
        from_binary(p)


def test_probabilities_are_normalised_and_ties_go_to_the_earlier_label() -> None:
    prediction = from_probabilities([2, 6, 2])
    assert prediction.label == "neutral"
    assert prediction.probabilities == pytest.approx((0.2, 0.6, 0.2))
    assert sum(prediction.probabilities) == pytest.approx(1.0)
    assert from_probabilities([1, 1, 1]).label == "negative"
    assert from_probabilities([0, 1, 1]).label == "neutral"


@pytest.mark.parametrize("bad", [[1, 2], [1, -1, 1], [0, 0, 0]])
def test_bad_probabilities_are_refused(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        from_probabilities(bad)


def test_prediction_round_trips_through_a_dict() -> None:
    prediction = from_probabilities([0.1, 0.2, 0.7])
    data = prediction.as_dict()
    assert set(data["probabilities"]) == set(LABELS)
    assert Prediction.from_dict(data) == prediction


def test_every_classifier_kind_is_a_classifier_with_the_defaults(tmp_path) -> None:
    """What callers rely on without probing: close, warm_up and batch_size on every kind of classifier."""
    from linguagym.capabilities.classifiers.cache import CachedClassifier
    from linguagym.capabilities.classifiers.http import HTTPClassifier
    from linguagym.capabilities.classifiers.lexicons import TextBlobClassifier, VaderClassifier
    from linguagym.capabilities.classifiers.python_callable import CallableClassifier, load_callable

    kinds = [VaderClassifier(), TextBlobClassifier(), HTTPClassifier("http://127.0.0.1:9/x", batch_size=5),
             CallableClassifier(lambda texts: ["neutral"] * len(texts)), load_callable("python:json:dumps")]
    for classifier in kinds:
        assert isinstance(classifier, Classifier)
        classifier.warm_up()
        classifier.close()
    assert [c.batch_size for c in kinds] == [None, None, 5, None, None]
    cached = CachedClassifier(kinds[2], tmp_path)
    assert isinstance(cached, Classifier) and cached.batch_size == 5 and cached.chunk_size == 32
    cached.close()
    cached.close()  # closing twice is harmless


def test_a_cached_classifier_warms_up_and_closes_the_one_inside(tmp_path, counting) -> None:
    from linguagym.capabilities.classifiers.cache import CachedClassifier

    events: list[str] = []

    class Local(counting):
        batch_size = 16

        def warm_up(self) -> None:
            events.append("warm")

        def close(self) -> None:
            events.append("closed")

    cached = CachedClassifier(Local(), tmp_path)
    assert cached.chunk_size == 64  # four of the inner classifier's batches
    cached.warm_up()
    cached.close()
    assert events == ["warm", "closed"]


def test_a_classifier_must_say_what_it_is_and_predict() -> None:
    class Nameless(Classifier):
        def predict(self, texts):
            return []

    with pytest.raises(TypeError, match="abstract"):
        Nameless()
