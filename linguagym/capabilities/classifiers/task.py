"""The classifying task: what a worker (one Ray actor) loads for a sentiment classifier and how it answers a
shard of texts. The executor runs it knowing it only as a task (``linguagym.executors.task``); its caller names
it to the executor: ``prefill_predictions(..., task=ClassifyingTask.for_cache)``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from linguagym.capabilities.classifiers.base import Classifier, Prediction, checked_predictions
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.capabilities.classifiers.registry import load_classifier


@dataclass(frozen=True)
class ClassifyingTask:
    """Predict the sentiment of texts with the classifier ``spec`` (``load_classifier``'s options in
    ``options``); a shard's answer is ``Prediction.as_dict`` dicts in order."""

    spec: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def for_cache(cls, spec: str, cache: CachedClassifier, options: Mapping[str, Any]) -> ClassifyingTask:
        """The task for ``spec`` behind ``cache``: workers find models where the cache does."""
        return cls(spec, {**options, "cache_dir": cache.cache_dir})

    @property
    def label(self) -> str:
        return f"classifier {self.spec!r}"

    @property
    def wants_gpu(self) -> bool:
        # Lexicons, endpoints and Python functions never touch a GPU; only local models can use one.
        lowered = self.spec.strip().lower()
        if lowered in ("vader", "textblob") or lowered.startswith(("http://", "https://", "python:")):
            return False
        return not str(self.options.get("device", "auto")).startswith("cpu")

    def load(self) -> Classifier:
        classifier = load_classifier(self.spec, **self.options)
        classifier.warm_up()  # local models load on their first prediction otherwise: load them now, before any shard
        return classifier

    @staticmethod
    def run(classifier: Classifier, texts: list[str]) -> list[dict[str, Any]]:
        return [p.as_dict() for p in checked_predictions(classifier, texts, classifier.predict(texts))]

    @staticmethod
    def decode(answers: list[dict[str, Any]]) -> list[Prediction]:
        """A worker's answers as predictions, on the driver."""
        return [Prediction.from_dict(answer) for answer in answers]
