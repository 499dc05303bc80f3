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

MAX_COST = 13.0  # bits per inserted word


def insertion_cost(confidence: float, words: int) -> float:
    """Bits per inserted word that a causal filler's fill costs its window."""
    return -confidence / max(words, 1)


def inserted_surprisal(confidence: float, disruption: float, words: int) -> float:
    """Bits per inserted word of the inserted words themselves (the cost less the disruption after them)."""
    return -(confidence + disruption) / max(words, 1)


def plausibility_problems(confidence: float, words: int, max_cost: float = MAX_COST) -> list[str]:
    """``plausibility`` refusals of a fill with the causal filler's confidence; empty when it passes."""
    bits = insertion_cost(confidence, words)
    if bits > max_cost:
        return [f"plausibility: the insertion costs the sentence {bits:.1f} bits a word under the filler, more than "
                f"{max_cost:g}"]
    return []
