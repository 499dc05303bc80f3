"""Any Python function as a classifier, and the one reading of "what a classifier answered" that all adapters
built on foreign outputs share.

Users' own models rarely speak ``Prediction``: they return label strings, p(positive) floats, probability
triples, dicts, or the Hugging Face pipeline's ``{"label", "score"}`` lists. ``normalise_output`` reads every
one of those shapes into a ``Prediction``; the HTTP adapter reuses it, so a function and an endpoint that
return the same JSON behave the same. A function is given directly (``CallableClassifier(f)``) or by a spec
``python:package.module:function`` (``load_callable``).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import math
import numbers
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from linguagym.capabilities.classifiers.base import (
    LABELS,
    Classifier,
    ClassifierError,
    Prediction,
    from_binary,
    from_probabilities,
)

SYNONYMS = {
    "negative": "negative",
    "neg": "negative",
    "neutral": "neutral",
    "neu": "neutral",
    "positive": "positive",
    "pos": "positive",
}

EXPECTED_SHAPES = (
    'one item per text, each one of: a label ("negative", "neutral", "positive"; also neg/neu/pos, any case); '
    "p(positive) as a number in [0, 1] (binary; 1/3 < p < 2/3 reads as neutral); "
    "[p_negative, p_neutral, p_positive] or [p_negative, p_positive]; "
    '{"label": ..., "probabilities": {"negative": .., "neutral": .., "positive": ..}} (either key may be left out); '
    'or a Hugging Face list [{"label": "POSITIVE", "score": 0.98}, ...]'
)


def canonical_label(name: Any, label_map: Mapping[str, str] | None = None) -> str | None:
    """``name`` as one of LABELS: through ``label_map`` (exact, then case-insensitive), else the synonyms
    negative/neg, neutral/neu, positive/pos in any case; None when it names none of them."""
    text = str(name).strip()
    if label_map:
        if text in label_map:
            return label_map[text]
        folded = {str(key).strip().lower(): value for key, value in label_map.items()}
        if text.lower() in folded:
            return folded[text.lower()]
    return SYNONYMS.get(text.lower())


def check_label_map(label_map: Mapping[str, str] | None) -> dict[str, str] | None:
    """``label_map`` with its values checked to be LABELS (a ClassifierError otherwise)."""
    if label_map is None:
        return None
    checked = {}
    for key, value in label_map.items():
        label = SYNONYMS.get(str(value).strip().lower())
        if label is None:
            raise ClassifierError(
                f"label_map maps {key!r} to {value!r}, which is not one of {', '.join(LABELS)}",
                hint='map every label the model gives to negative, neutral or positive, e.g. {"LABEL_0": "negative"}',
            )
        checked[str(key)] = label
    return checked


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy scalars are Real too
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _label(value: Any, label_map: Mapping[str, str] | None) -> str:
    label = canonical_label(value, label_map)
    if label is None:
        raise ValueError(f"unknown label {value!r}")
    return label


def _from_scores(scores: Mapping[str, float]) -> Prediction:
    """Summed scores per label: negative/positive only -> binary band; anything neutral -> three-way."""
    if any(score < 0 for score in scores.values()) or sum(scores.values()) <= 0:
        raise ValueError(f"scores must be non-negative and not all zero, got {dict(scores)}")
    if "neutral" not in scores:
        negative, positive = scores.get("negative"), scores.get("positive")
        if negative is None:  # only positive reported (top-1): the rest is negative
            negative = max(0.0, 1.0 - positive)  # type: ignore[operator]
        if positive is None:
            positive = max(0.0, 1.0 - negative)
        return from_binary(positive / (negative + positive))
    return from_probabilities([scores.get(label, 0.0) for label in LABELS])


def _probabilities(value: Any, label_map: Mapping[str, str] | None) -> Prediction:
    if isinstance(value, Mapping):
        scores: dict[str, float] = {}
        for key, raw in value.items():
            number = _number(raw)
            if number is None:
                raise ValueError(f"probability of {key!r} is {raw!r}, not a number")
            label = _label(key, label_map)
            scores[label] = scores.get(label, 0.0) + number
        return _from_scores(scores)
    if isinstance(value, Sequence) and not isinstance(value, str):
        values = [_number(v) for v in value]
        if any(n is None for n in values):
            raise ValueError(f"probabilities {list(value)!r} are not all values")
        if len(values) == 3:
            return from_probabilities(values)  # type: ignore[arg-type]
        if len(values) == 2:
            return _from_scores({"negative": values[0], "positive": values[1]})  # type: ignore[dict-item]
        raise ValueError(f"expected 2 or 3 probabilities, got {len(values)}")
    raise ValueError(f"probabilities must be a list or an object, not {type(value).__name__}")


def normalise_output(item: Any, label_map: Mapping[str, str] | None = None) -> Prediction:
    """One classifier answer (any shape in ``EXPECTED_SHAPES``) as a Prediction; ValueError when unreadable.

    Where an item gives a label and probabilities, the label is kept (the classifier decided) and the
    probabilities normalised; where it gives only probabilities, two (negative, positive) are read by the
    neutral band and three by the most probable label. A Hugging Face ``{"label", "score"}`` list sums the
    scores per label; a lone top-1 ``{"label": "POSITIVE", "score": s}`` of a binary model means
    p(negative) = 1 - s.
    """
    if isinstance(item, Prediction):
        return item
    if hasattr(item, "tolist") and not isinstance(item, str | bytes):  # numpy arrays and scalars, torch tensors
        item = item.tolist()
    if isinstance(item, str):
        label = _label(item, label_map)
        return Prediction(label, tuple(1.0 if label == name else 0.0 for name in LABELS))  # type: ignore[arg-type]
    number = _number(item)
    if number is not None:
        if not 0.0 <= number <= 1.0:
            raise ValueError(f"p(positive) must lie in [0, 1], got {number}")
        return from_binary(number)
    if isinstance(item, Mapping):
        if "score" in item and "label" in item and "probabilities" not in item:
            return normalise_output([item], label_map)
        if "label" not in item and "probabilities" not in item:
            raise ValueError(f"an object needs 'label' or 'probabilities', got keys {sorted(map(str, item))}")
        from_probs = _probabilities(item["probabilities"], label_map) if "probabilities" in item else None
        if "label" not in item:
            return from_probs  # type: ignore[return-value]
        label = _label(item["label"], label_map)
        if from_probs is None:
            return normalise_output(label)
        return Prediction(label, from_probs.probabilities)
    if isinstance(item, Sequence):
        if item and all(isinstance(entry, Mapping) for entry in item):
            scores: dict[str, float] = {}
            for entry in item:
                if "label" not in entry or _number(entry.get("score")) is None:
                    raise ValueError(f"each entry needs 'label' and a numeric 'score', got {dict(entry)!r}")
                label = _label(entry["label"], label_map)
                scores[label] = scores.get(label, 0.0) + float(entry["score"])
            return _from_scores(scores)
        return _probabilities(item, label_map)
    raise ValueError(f"cannot read a {type(item).__name__} ({item!r:.60})")


def normalise_outputs(
    outputs: Any, count: int, *, where: str, label_map: Mapping[str, str] | None = None, first_index: int = 0
) -> list[Prediction]:
    """``outputs`` (one item per text, ``count`` texts) as Predictions, or a ClassifierError naming ``where``
    (who answered) and the index of the text whose answer is wrong."""
    if hasattr(outputs, "tolist"):
        outputs = outputs.tolist()
    elif isinstance(outputs, Iterator):  # a generator
        outputs = list(outputs)
    if isinstance(outputs, str | bytes | Mapping) or not isinstance(outputs, Sequence):
        raise ClassifierError(
            f"{where} answered a {type(outputs).__name__} for texts {first_index}-{first_index + count - 1}, "
            "expected a list with one item per text",
            hint="answer " + EXPECTED_SHAPES,
        )
    if len(outputs) != count:
        raise ClassifierError(
            f"{where} answered {len(outputs)} predictions for {count} texts "
            f"(texts {first_index}-{first_index + count - 1})",
            hint="answer exactly one item per text, in order; each " + EXPECTED_SHAPES,
        )
    predictions = []
    for offset, item in enumerate(outputs):
        try:
            predictions.append(normalise_output(item, label_map))
        except ValueError as error:
            raise ClassifierError(
                f"{where}: cannot read the answer for text {first_index + offset}: {error}",
                hint=("pass label_map to name the model's labels; " if "unknown label" in str(error) else "")
                + "answer "
                + EXPECTED_SHAPES,
            ) from None
    return predictions


def _module_fingerprint(function: Callable[..., Any]) -> str:
    """sha256 of the source file of ``function``'s module, so that editing it invalidates cached predictions."""
    try:
        path = inspect.getsourcefile(function) or inspect.getfile(function)
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (TypeError, OSError):
        return "unknown"


class CallableClassifier(Classifier):
    """``function(texts) -> one item per text`` (see ``normalise_output``) as a Classifier.

    ``version``: a tag of your own, recorded in the identity; change it when the function's answers change
    for reasons its module's source does not show (new weights, another server), so cached predictions
    are not reused. ``batch_size``: texts per call (None: all at once).
    """

    def __init__(
        self,
        function: Callable[[list[str]], Sequence[Any]],
        *,
        name: str | None = None,
        label_map: Mapping[str, str] | None = None,
        batch_size: int | None = None,
        version: str | None = None,
    ) -> None:
        if not callable(function):
            raise ClassifierError(f"{function!r} is not callable", hint="pass a function texts -> predictions")
        if batch_size is not None and batch_size < 1:
            raise ClassifierError(f"batch_size must be at least 1, not {batch_size}")
        self.function = function
        module = getattr(function, "__module__", None) or "?"
        qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
        self.target = f"{module}:{qualname}"
        self._name = name or f"python:{self.target}"
        self.label_map = check_label_map(label_map)
        self.batch_size = batch_size
        self.version = version

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "kind": "python",
            "callable": self.target,
            "module_sha256": _module_fingerprint(self.function),
            "label_map": self.label_map,
            "version": self.version,
        }

    @property
    def name(self) -> str:
        return self._name

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        texts = list(texts)
        size = self.batch_size or max(1, len(texts))
        predictions: list[Prediction] = []
        for start in range(0, len(texts), size):
            batch = texts[start : start + size]
            try:
                outputs = self.function(batch)
            except ClassifierError:
                raise
            except Exception as error:  # the user's function failed: say whose, keep the chain for debugging
                raise ClassifierError(
                    f"python classifier {self.target} raised {type(error).__name__} on texts "
                    f"{start}-{start + len(batch) - 1}: {error}",
                    hint="fix the function, or run it on those texts in Python to see the traceback",
                ) from error
            predictions += normalise_outputs(
                outputs, len(batch), where=f"python classifier {self.target}", label_map=self.label_map,
                first_index=start,
            )
        return predictions


def load_callable(spec: str, **options: Any) -> CallableClassifier:
    """``python:package.module:function`` (``function`` may be dotted: ``Class.method``) as a classifier.
    A module not importable as installed is also looked for in the current directory."""
    target = spec.removeprefix("python:")
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ClassifierError(
            f"classifier spec {spec!r} does not name a module and a function",
            hint="write python:package.module:function, e.g. python:my_models:classify",
        )
    try:
        module = _import(module_name)
    except ImportError as error:
        raise ClassifierError(
            f"cannot import module {module_name!r} for classifier {spec!r}: {error}",
            hint="install the package, or run from the directory holding the module",
        ) from None
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ClassifierError(
                f"module {module_name!r} has no attribute {attribute!r} (classifier {spec!r})",
                hint="check the function's name: python:package.module:function",
            )
        found = getattr(found, part)
    if not callable(found):
        raise ClassifierError(f"{target} is a {type(found).__name__}, not a function", hint="name a function")
    options.setdefault("name", f"python:{target}")
    classifier = CallableClassifier(found, **options)
    classifier.target = target
    return classifier


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        top = module_name.split(".")[0]
        here = Path.cwd()
        try:
            local = (here / f"{top}.py").is_file() or (here / top).is_dir()
        except (OSError, ValueError):  # a name too long to be a file
            local = False
        if error.name != top or not local:
            raise
    sys.path.insert(0, str(here))
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path.remove(str(here))
