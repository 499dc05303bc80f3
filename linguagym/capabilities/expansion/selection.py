"""Selection of expansions: the most natural first, by a documented score, or at random (the paper's baseline).

``score = fit + log2 P(reference production)``: the fill's fit to its slot (``fit.fit_score``: the filler's
confidence, log2, for the causal LM the change in whole-sentence log-probability the insertion causes, less a share
of the words' log2 probability in a neutral context) plus the log-probability of the reference production that
made the mask. Both are log2 quantities, so the score is the log2 of the product "how
likely the model finds the sentence, relative to the seed" x "how common the structure is".
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TypeVar

from linguagym.capabilities.expansion.check import Check

SELECTIONS = ("score", "random")
T = TypeVar("T")


def selection_score(confidence: float, probability: float) -> float:
    return confidence + math.log2(max(probability, 1e-12))


def select(items: Sequence[T], scores: Sequence[float], k: int, method: str = "score",
           rng: random.Random | None = None) -> list[T]:
    """Up to ``k`` items: the best ``k`` by score (ties keep their order), or ``k`` drawn at random."""
    if method not in SELECTIONS:
        raise ValueError(f"unknown selection {method!r}")
    if k <= 0 or not items:
        return []
    if method == "random":
        chosen = sorted((rng or random.Random(0)).sample(range(len(items)), min(k, len(items))))
        return [items[i] for i in chosen]
    order = sorted(range(len(items)), key=lambda i: -scores[i])
    return [items[i] for i in order[:k]]


DUPLICATE = Check("duplicate", "select", "an expansion whose test text is its seed's or another expansion's, or whose "
                  "sentence is its seed's")
DUPLICATE_TEXT = DUPLICATE.problem("the test's text is made already")
