"""The classifier interface and the mapping of any classifier's output onto three labels.

A classifier (a subclass of ``Classifier``) takes a batch of texts and returns one ``Prediction`` per text: a
label (negative, neutral or positive) and probabilities over the three. Binary classifiers (negative/positive
only) are mapped to three classes by the neutral band of the S2LCT paper: ``1/3 < p(positive) < 2/3`` is
neutral (``from_binary``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from linguagym.capabilities.errors import CapabilityError
from linguagym.progress import IsCancelled

LABELS = ("negative", "neutral", "positive")
NEUTRAL_BAND = (1 / 3, 2 / 3)  # open interval of p(positive) read as neutral for a binary classifier


class ClassifierError(CapabilityError):
    """A classifier that cannot be loaded or that answered badly; says which one and how to mend."""


@dataclass(frozen=True)
class Prediction:
    label: str  # one of LABELS
    probabilities: tuple[float, float, float]  # p(negative), p(neutral), p(positive); sums to 1

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "probabilities": dict(zip(LABELS, self.probabilities, strict=True))}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Prediction:
        probabilities = data["probabilities"]
        return cls(str(data["label"]), tuple(float(probabilities[label]) for label in LABELS))  # type: ignore[arg-type]


def from_binary(p_positive: float) -> Prediction:
    """A binary classifier's p(positive) as three classes: neutral inside the band, probabilities [1-p, 0, p]."""
    p = float(p_positive)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p(positive) must lie in [0, 1], got {p}")
    low, high = NEUTRAL_BAND
    label = "negative" if p <= low else "positive" if p >= high else "neutral"
    return Prediction(label, (1.0 - p, 0.0, p))


def from_probabilities(probabilities: Sequence[float]) -> Prediction:
    """Three probabilities (negative, neutral, positive), normalised; the label is the most probable one
    (ties go to the earlier label in LABELS, so the result is deterministic)."""
    values = [float(v) for v in probabilities]
    if len(values) != 3 or any(v < 0 for v in values) or sum(values) <= 0:
        raise ValueError(f"need three non-negative probabilities, got {values}")
    total = sum(values)
    values = [v / total for v in values]
    best = max(range(3), key=lambda i: (values[i], -i))
    return Prediction(LABELS[best], (values[0], values[1], values[2]))


class Classifier(ABC):
    """What every classifier offers, and so all that callers may rely on (no probing with ``hasattr``).

    A classifier must say what it is (``identity``, ``name``) and ``predict``. ``warm_up``, ``close`` and
    ``batch_size`` have defaults that fit a classifier with nothing to load, free or batch. A classifier with
    a prediction cache in front is a ``cache.CachedClassifier``, which adds cache lookups and progress.
    """

    batch_size: int | None = None
    """Texts per forward pass or request, where the classifier batches (a cache sizes its chunks by it)."""

    @property
    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """What makes its predictions what they are (kind, model, revision, settings): the cache key and the
        provenance recorded in every result. Must not load a model."""

    @property
    @abstractmethod
    def name(self) -> str:
        """A short display name for tables and reports (e.g. ``vader``, ``smollm2-135m``)."""

    @abstractmethod
    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        """One prediction per text, in order. Raises ClassifierError when the model cannot answer."""

    # warm_up and close are deliberately no-ops by default, not abstract: most classifiers need neither
    def warm_up(self) -> None:  # noqa: B027
        """Load what the first prediction would (a local model's weights) now; nothing to do by default."""

    def stop_when(self, cancelled: IsCancelled | None) -> None:  # noqa: B027
        """Stop a prediction under way, raising ``Cancelled``, soon after ``cancelled()`` says so (it is asked
        from another thread while the classifier waits, e.g. for an endpoint). By default cancelling is noticed
        between batches only."""

    def close(self) -> None:  # noqa: B027
        """Release what the classifier holds open (files, connections); nothing to do by default. Safe to call
        more than once."""


def checked_predictions(classifier: Classifier, texts: Sequence[str], predictions: Sequence[Any]) -> list[Prediction]:
    """``predictions`` if they are one ``Prediction`` per text with a known label; else a ClassifierError."""
    predictions = list(predictions)
    if len(predictions) != len(texts):
        raise ClassifierError(f"{classifier.name} returned {len(predictions)} predictions for {len(texts)} texts",
                              hint="a classifier must answer once per text, in order")
    for prediction in predictions:
        if not isinstance(prediction, Prediction) or prediction.label not in LABELS:
            raise ClassifierError(f"{classifier.name} returned {prediction!r}, not a Prediction with a label in "
                                  + ", ".join(LABELS), hint="map the model's labels with `label_map`",
                                  settings=["label_map"])
    return predictions
