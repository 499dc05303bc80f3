"""What every scorer returns (per-token surprisals with character spans), the Scorer protocol, and the optional
members that the rest of linguagym uses where a scorer has them.

A scorer needs only ``identity`` and ``score``. Its optional members are declared, with their defaults, on
``ScorerBase``: whether it counts tokens ahead, reports progress, loads its weights ahead (``warm_up``), whether
its scores may be cached, ``close``, ``unload``, ``batch_size`` and the score cache it is (``score_cache``).
linguagym's scorers subclass it; callers read the members through ``optional(scorer)``, which is the scorer
itself for a subclass and, for a plain class with ``identity`` and ``score`` only (a third party's), a view that
gives the defaults for what the class lacks. Nothing else asks a scorer what it has.

The protocols below ``ScorerBase`` (``CountsTokens``, ``CachingScorer`` ...) describe the shapes of those members
for type hints; code does not test for them.
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


@dataclass(frozen=True)
class SentenceMarkers:
    """The sentence markers (``<s>``, ``<eos>``, ...) of one TSV sentence, with their surprisals. Scores leave them
    out (they are context); ``--compat syntaxgym-core`` counts them in regions as syntaxgym-core does. ``opening``:
    those before the sentence's first word (span 0..0); ``closing``: those after its last (span at the text's end).
    A marker between two words stays context in every mode."""

    opening: tuple[TokenScore, ...] = ()
    closing: tuple[TokenScore, ...] = ()


@runtime_checkable
class Scorer(Protocol):
    @property
    def identity(self) -> dict[str, Any]:
        """JSON-able description of everything that determines the numbers (see docs/scoring.md)."""
        ...

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        """Scores of ``texts``, in the same order."""
        ...


class ScorerBase:
    """The optional members of a scorer, each with what a scorer that lacks it does. Subclass it and override
    what your scorer has; ``optional`` gives a plain class the same members.

    The flags say what a member can do where its mere presence cannot: ``counts_tokens`` (``count_tokens``
    answers from the tokenizer alone, so work is measured in tokens), ``reports_progress`` (the scorer calls
    ``progress`` with the tokens it scores, as it scores them), ``warms_up`` (``warm_up`` loads weights that
    otherwise load on the first ``score``), ``cacheable`` (its scores may be kept in the score cache; not so
    for precomputed surprisals, which are their own record)."""

    counts_tokens: bool = False
    reports_progress: bool = False
    warms_up: bool = False
    cacheable: bool = True
    progress: Callable[[int], None] | None = None  # called with the tokens scored; None: silent
    batch_size: int = 16  # texts per forward pass, as the user set it (sizes the score cache's chunks)

    def count_tokens(self, texts: Sequence[str]) -> int:
        """Tokens scoring ``texts`` computes surprisals for, from the tokenizer alone (no weights loaded);
        meaningful only where ``counts_tokens``."""
        raise NotImplementedError(f"{type(self).__name__} does not count tokens")

    def warm_up(self) -> None:  # noqa: B027 - deliberately a no-op: most scorers load nothing ahead
        """Load the weights now (they load on the first ``score`` otherwise), so that a model that cannot load
        fails here, before any text is handed to it. Nothing to do by default."""

    def close(self) -> None:  # noqa: B027 - deliberately a no-op
        """Release what the scorer holds open (its cache file). Nothing to do by default."""

    def unload(self) -> Callable[[], bool]:
        """Let go of the weights (they load again if the scorer is used again); returns a probe that says whether
        anything still holds them, so that the caller runs the cycle collector only where it has to. By
        default nothing is let go, so the probe says they may still be held."""
        return maybe_held

    @property
    def score_cache(self) -> CachingScorer | None:
        """The score cache this scorer is (``CachedScorer``), or None."""
        return None

    @property
    def cache_use(self) -> CountsCacheUse | None:
        """Where this scorer's cache is and how many texts were found there or computed (what a run records);
        the score cache itself where the scorer is one."""
        return self.score_cache

    def sentence_markers(self, texts: Sequence[str]) -> dict[str, SentenceMarkers]:
        """The sentence markers (``<eos>``, ...) read with each text's scores: only lm-zoo TSV files have them
        (``PrecomputedScorer``); a model scores a text's own tokens, with a start token as context."""
        return {}


def optional(scorer: Scorer) -> ScorerBase:
    """``scorer`` with every optional member: itself where it subclasses ``ScorerBase``, else a view of it."""
    return scorer if isinstance(scorer, ScorerBase) else _PlainScorer(scorer)


def computing(scorer: Scorer) -> ScorerBase:
    """The scorer that computes: the one behind ``scorer``'s score cache, or ``scorer`` itself."""
    cache = optional(scorer).score_cache
    return optional(cache.inner) if cache is not None else optional(scorer)


class _PlainScorer(ScorerBase):
    """A scorer that does not subclass ``ScorerBase`` (a third party's plain class), seen with every optional
    member: those it has are its own (found by name, here only), the others are the defaults."""

    def __init__(self, scorer: Scorer) -> None:
        self._scorer = scorer
        self.counts_tokens = callable(getattr(scorer, "count_tokens", None))
        self.reports_progress = hasattr(scorer, "progress")
        self.warms_up = callable(getattr(scorer, "warm_up", None))
        self.batch_size = int(getattr(scorer, "batch_size", ScorerBase.batch_size))

    @property
    def identity(self) -> dict[str, Any]:
        return self._scorer.identity

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        return self._scorer.score(texts)

    @property
    def progress(self) -> Callable[[int], None] | None:
        return getattr(self._scorer, "progress", None)

    @progress.setter
    def progress(self, callback: Callable[[int], None] | None) -> None:
        if self.reports_progress:
            self._scorer.progress = callback  # type: ignore[attr-defined]

    def count_tokens(self, texts: Sequence[str]) -> int:
        return self._scorer.count_tokens(texts) if self.counts_tokens else super().count_tokens(texts)  # type: ignore[attr-defined]

    def warm_up(self) -> None:
        if self.warms_up:
            self._scorer.warm_up()  # type: ignore[attr-defined]

    def close(self) -> None:
        if callable(close := getattr(self._scorer, "close", None)):
            close()

    def unload(self) -> Callable[[], bool]:
        unload = getattr(self._scorer, "unload", None)
        return unload() if callable(unload) else maybe_held

    # a plain class may still be a whole score cache, or count its cache use: known by its members, as here only
    @property
    def score_cache(self) -> CachingScorer | None:
        return self._scorer if isinstance(self._scorer, CachingScorer) else None

    @property
    def cache_use(self) -> CountsCacheUse | None:
        return self._scorer if isinstance(self._scorer, CountsCacheUse) else None


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

    hits: int
    misses: int

    @property
    def path(self) -> Path | str:
        """The cache file."""
        ...


@runtime_checkable
class CachingScorer(CountsCacheUse, Closes, Protocol):
    """A score cache around another scorer (``CachedScorer``): what executors and runs use of it."""

    inner: Scorer  # the scorer the cache is in front of
    cache_dir: Path  # where the cache is kept (the root of linguagym's cache)
    chunk_size: int  # texts handed to ``inner`` at a time (one commit each)

    @property
    def identity(self) -> dict[str, Any]:
        """The inner scorer's identity, which keys the cache."""
        ...

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
