"""What every scorer returns (per-token surprisals with character spans), the Scorer protocol, and the optional
capabilities that the rest of linguagym relies on where a scorer has them.

A scorer needs only ``identity`` and ``score``. The other protocols here declare what code asks of some scorers
(count tokens ahead, report progress, load its weights now, be closed, keep a score cache); callers test for
them with ``isinstance``, never by probing for attribute names. They are ``runtime_checkable``, so a scorer has a
capability by having its members: no registration, no base class. (On Python 3.11 ``isinstance`` reads each
member, so none of them may be expensive: ``identity`` and the HF scorers' ``loaded`` are left out on purpose.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
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
        return cls.made(str(token), int(token_id), int(start), int(end), float(surprisal), bool(unknown))

    @classmethod
    def made(cls, token: str, token_id: int, start: int, end: int, surprisal: float, unknown: bool) -> TokenScore:
        """``TokenScore(...)`` for values already of the right types, made without the frozen ``__init__`` (which
        sets each field through ``object.__setattr__``): a run builds one per token, 40,000 for the 34 suites, and
        on a GPU building them took a fifth of the host's time. The same object: equality, hashing and ``repr``
        read the same fields."""
        made = object.__new__(cls)
        fields = made.__dict__
        fields["token"] = token
        fields["token_id"] = token_id
        fields["start"] = start
        fields["end"] = end
        fields["surprisal"] = surprisal
        fields["unknown"] = unknown
        return made


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


@runtime_checkable
class CountsTokens(Protocol):
    def count_tokens(self, texts: Sequence[str]) -> int:
        """Tokens scoring ``texts`` computes surprisals for, from the tokenizer alone (no weights loaded)."""
        ...


@runtime_checkable
class ReportsProgress(Protocol):
    progress: Callable[[int], None] | None  # called with the tokens scored, as they are scored; None: silent


@runtime_checkable
class WarmsUp(Protocol):
    def warm_up(self) -> None:
        """Load the weights now (they load on the first ``score`` otherwise), so that a model that cannot load
        fails here, before any text is handed to it."""
        ...


@runtime_checkable
class Closes(Protocol):
    def close(self) -> None:
        """Release what the scorer holds open (its cache file)."""
        ...


@runtime_checkable
class Unloads(Protocol):
    def unload(self) -> Callable[[], bool]:
        """Let go of the weights (they load again if the scorer is used again); returns a probe that says whether
        anything still holds them, so that the caller runs the cycle collector only where it has to."""
        ...


def nothing_held() -> bool:
    """The probe of a scorer that held no weights, or let them all go."""
    return False


def maybe_held() -> bool:
    """The probe of a scorer that cannot tell whether its weights are still held: assume they are."""
    return True


@runtime_checkable
class Batches(Protocol):
    batch_size: int  # texts per forward pass, as the user set it


@runtime_checkable
class CountsCacheUse(Protocol):
    """A scorer in front of a cache: where the cache is, and how many texts were found there or computed."""

    path: Path | str
    hits: int
    misses: int


@runtime_checkable
class CachingScorer(CountsCacheUse, Closes, Protocol):
    """A score cache around another scorer (``CachedScorer``): what executors and runs use of it."""

    inner: Scorer  # the scorer the cache is in front of
    chunk_size: int  # texts handed to ``inner`` at a time (one commit each)

    @property
    def dropped(self) -> int:
        """Damaged entries found (and recomputed) so far."""
        ...

    @property
    def problem(self) -> str | None:
        """Why scores computed now are not being saved (a full disk), or None."""
        ...

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The unique ``texts`` not in the cache, in order."""
        ...

    def store(self, results: Sequence[ScoredText]) -> int:
        """Keep scores computed elsewhere, committed at once; returns how many were new."""
        ...
