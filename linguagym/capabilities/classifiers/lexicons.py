"""Two lexicon-based sentiment classifiers, VADER and TextBlob: rule-based baselines that need no model files,
run anywhere in milliseconds, and so give every capability test a reference point.

Neither gives class probabilities, so each needs a documented reading:

* VADER: the label follows the authors' documented thresholds on the compound score (>= 0.05 positive,
  <= -0.05 negative, else neutral). The probabilities are VADER's own proportions of the text that read as
  negative, neutral and positive (its ``neg``/``neu``/``pos``), normalised; they describe the text, so the
  label is not always their most probable class (most sentences are mostly neutral words).
* TextBlob: polarity in [-1, 1]; above ``threshold`` positive, below ``-threshold`` negative, else neutral.
  The default threshold is 0 (any sentiment at all decides, the reading TextBlob's documentation uses):
  TextBlob gives exactly 0.0 to text without sentiment words, and averages the words it knows otherwise.
  The probabilities are (max(-polarity, 0), 1 - |polarity|, max(polarity, 0)): how far from neutral.

The libraries are imported on first use (they are an optional extra), so linguagym loads without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from linguagym.capabilities.classifiers.base import Classifier, ClassifierError, Prediction

VADER_THRESHOLD = 0.05  # Hutto & Gilbert's documented cut-off on the compound score
TEXTBLOB_THRESHOLD = 0.0


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "absent"


def _label(score: float, threshold: float, *, inclusive: bool) -> str:
    if (score >= threshold) if inclusive else (score > threshold):
        return "positive"
    if (score <= -threshold) if inclusive else (score < -threshold):
        return "negative"
    return "neutral"


class VaderClassifier(Classifier):
    """VADER (vaderSentiment): compound >= ``threshold`` positive, <= -``threshold`` negative, else neutral."""

    def __init__(self, threshold: float = VADER_THRESHOLD) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ClassifierError(f"VADER threshold must lie in (0, 1], not {threshold}")
        self.threshold = float(threshold)
        self._analyzer: Any = None

    @property
    def identity(self) -> dict[str, Any]:
        return {"kind": "vader", "version": _version("vaderSentiment"), "threshold": self.threshold}

    @property
    def name(self) -> str:
        return "vader"

    def _load(self) -> Any:
        if self._analyzer is None:
            try:
                from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
            except ImportError:
                raise ClassifierError(
                    "the VADER classifier needs the vaderSentiment package, which is not installed",
                    hint="pip install vaderSentiment (or pip install 'linguagym[lexicons]')",
                ) from None
            self._analyzer = SentimentIntensityAnalyzer()
        return self._analyzer

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        analyzer = self._load()
        predictions = []
        for text in texts:
            scores = analyzer.polarity_scores(text)
            label = _label(float(scores["compound"]), self.threshold, inclusive=True)
            parts = [max(0.0, float(scores[key])) for key in ("neg", "neu", "pos")]
            total = sum(parts)
            probabilities = tuple(p / total for p in parts) if total > 0 else (0.0, 1.0, 0.0)  # empty text
            predictions.append(Prediction(label, probabilities))  # type: ignore[arg-type]
        return predictions


class TextBlobClassifier(Classifier):
    """TextBlob's pattern analyser: polarity > ``threshold`` positive, < -``threshold`` negative, else neutral."""

    def __init__(self, threshold: float = TEXTBLOB_THRESHOLD) -> None:
        if not 0.0 <= threshold < 1.0:
            raise ClassifierError(f"TextBlob threshold must lie in [0, 1), not {threshold}")
        self.threshold = float(threshold)
        self._blob: Any = None

    @property
    def identity(self) -> dict[str, Any]:
        return {"kind": "textblob", "version": _version("textblob"), "threshold": self.threshold}

    @property
    def name(self) -> str:
        return "textblob"

    def _load(self) -> Any:
        if self._blob is None:
            try:
                from textblob import TextBlob
            except ImportError:
                raise ClassifierError(
                    "the TextBlob classifier needs the textblob package, which is not installed",
                    hint="pip install textblob (or pip install 'linguagym[lexicons]')",
                ) from None
            self._blob = TextBlob
        return self._blob

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        blob = self._load()
        predictions = []
        for text in texts:
            polarity = max(-1.0, min(1.0, float(blob(text).sentiment.polarity)))
            label = _label(polarity, self.threshold, inclusive=False)
            probabilities = (max(-polarity, 0.0), 1.0 - abs(polarity), max(polarity, 0.0))
            predictions.append(Prediction(label, probabilities))
        return predictions
