"""What every scorer returns: per-token surprisals with character spans, and the Scorer protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class TokenScore:
    """One token of a scored text.

    ``token`` is the tokenizer's own piece (``convert_ids_to_tokens``), e.g. ``"Ġknows"`` for byte-level BPE or
    ``"##s"`` for WordPiece; ``text[start:end]`` is the covered text (for byte-level BPE it includes the
    leading space). Precomputed (TSV) tokens carry ``token_id == -1``: the file has no vocabulary ids.
    """

    token: str
    token_id: int
    start: int  # character offset into the scored text, inclusive
    end: int  # exclusive
    surprisal: float  # bits: -log2 p(token | context)
    unknown: bool  # the token id is the tokenizer's unk id

    def to_json(self) -> list[Any]:
        return [self.token, self.token_id, self.start, self.end, self.surprisal, self.unknown]

    @classmethod
    def from_json(cls, row: list[Any]) -> TokenScore:
        token, token_id, start, end, surprisal, unknown = row
        return cls(str(token), int(token_id), int(start), int(end), float(surprisal), bool(unknown))


@dataclass(frozen=True)
class ScoredText:
    text: str
    tokens: tuple[TokenScore, ...]  # the text's own tokens only; a start-of-sentence token is context

    @property
    def total_surprisal(self) -> float:
        return sum(t.surprisal for t in self.tokens)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": [t.to_json() for t in self.tokens]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScoredText:
        return cls(str(data["text"]), tuple(TokenScore.from_json(row) for row in data["tokens"]))


@runtime_checkable
class Scorer(Protocol):
    @property
    def identity(self) -> dict[str, Any]:
        """JSON-able description of everything that determines the numbers (see docs/scoring.md)."""
        ...

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        """Scores of ``texts``, in the same order."""
        ...
