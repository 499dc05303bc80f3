"""The language model's view of an insertion: what it costs the sentence, per inserted word.

The causal filler reports, for each fill, ``confidence = log2 P(filled window) - log2 P(seed window)``, and
``disruption``, the bits the words after the fill lost. ``-confidence`` is what the insertion costs: the inserted
words' own surprisal plus the disruption (the words before the fill are the seed's, scored alike in both
windows). Per inserted word, it is the plausibility check: on the 220 judged expansions of the default run
(``benchmarks/expansion_quality.py``), after the linguistic checks, a cap of 13 bits a word keeps 0.88 of the
expansions grammatical against 0.84 with none; the inserted words' own surprisal alone, or the disruption
alone, separate worse (0.86-0.87 at the same share kept), and so does gemma-3-270m's surprisal in place of
SmolLM2's.
"""

from __future__ import annotations

from typing import Any

from linguagym.capabilities.expansion.check import Check, Problem

MAX_COST = 13.0  # bits per inserted word


def insertion_cost(confidence: float, words: int) -> float:
    """Bits per inserted word that a causal filler's fill costs its window."""
    return -confidence / max(words, 1)


def inserted_surprisal(confidence: float, disruption: float, words: int) -> float:
    """Bits per inserted word of the inserted words themselves (the cost less the disruption after them)."""
    return -(confidence + disruption) / max(words, 1)


def plausibility_problems(confidence: float, words: int, max_cost: float = MAX_COST) -> list[Problem]:
    """``plausibility`` refusals of a fill with the causal filler's confidence; empty when it passes."""
    bits = insertion_cost(confidence, words)
    if bits > max_cost:
        return [PLAUSIBILITY.problem(f"the insertion costs the sentence {bits:.1f} bits a word under the filler, "
                                     f"more than {max_cost:g}")]
    return []


def fluency_problems(fill: Any, settings: Any, causal: bool = False) -> list[Problem]:
    """``fluency`` refusals of a filler's ``fill``: the words after it lose more than ``settings.max_disruption``
    bits."""
    if fill.disruption > settings.max_disruption:
        return [FLUENCY.problem(f"the words after the fill lose {fill.disruption:.1f} bits")]
    return []


def _plausibility(fill: Any, settings: Any, causal: bool = False) -> list[Problem]:
    """``plausibility_problems`` where it applies: a causal filler's fill, under a cap (``settings.max_cost``)."""
    cap = settings.max_cost if causal else None
    return plausibility_problems(fill.confidence, len(fill.words), cap) if cap is not None else []


FLUENCY = Check("fluency", "ranking", "a fill after which the sentence's next words lose too many bits",
                fluency_problems)
PLAUSIBILITY = Check("plausibility", "ranking", "a causal filler's fill that costs the sentence too many bits a word",
                     _plausibility)
RANKING_CHECKS: tuple[Check, ...] = (FLUENCY, PLAUSIBILITY)  # in the order they run; the first refusal counts
