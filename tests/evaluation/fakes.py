"""Scorers for evaluation tests that need no model: whitespace tokens with surprisals from a table."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from linguagym.scoring.protocol import ScoredText, TokenScore


class WordScorer:
    """One token per run of non-space characters (punctuation split off); surprisal from ``value(word)``.
    ``pattern``: another tokenization (a regular expression each token matches, e.g. one that keeps ".." whole)."""

    def __init__(self, value: Callable[[str, int], float] = lambda word, index: float(len(word)),
                 pattern: str = r"\w+|[^\w\s]") -> None:
        self.value = value
        self.pattern = re.compile(pattern)
        self.calls: list[list[str]] = []

    @property
    def identity(self) -> dict:
        return {"kind": "fake", "model": "word-scorer"}

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        self.calls.append(list(texts))
        out = []
        for text in texts:
            tokens = []
            for index, match in enumerate(self.pattern.finditer(text)):
                word = match.group(0)
                tokens.append(TokenScore(word, index, match.start(), match.end(), self.value(word, index), False))
            out.append(ScoredText(text, tuple(tokens)))
        return out
