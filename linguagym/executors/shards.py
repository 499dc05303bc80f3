"""Shards: the texts a run still has to score, cut the way a local run cuts them, and how results computed
elsewhere are stored in the run's own score cache.

Why shards copy the local chunks: a scorer packs the texts of one ``score`` call into prefix trees and
token-budget batches, so a text's surprisals depend, in the last bits of float32, on which texts share its
call. A shard that is exactly the call a local run would make gives bit-identical numbers on the same
hardware. Balance across workers comes from scheduling instead: shards go out heaviest first (by token count,
from the tokenizer alone) to whichever worker is free. ``shard_texts`` cuts smaller shards, to spread a small
run over more workers, at the price of agreement within float rounding (about 1e-4 bits) instead of bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from linguagym.scoring.engine.order import CHUNK, scoring_order
from linguagym.scoring.protocol import CachingScorer, ScoredText, Scorer, computing, optional


@dataclass(frozen=True)
class Shard:
    index: int
    texts: tuple[str, ...]
    weight: int  # tokens (or characters where the scorer cannot count tokens): the scheduling order
    unit: str  # "tokens" or "characters"


def plan_shards(scorer: Scorer, texts: Sequence[str], shard_texts: int | None = None) -> list[Shard]:
    """The unique ``texts`` missing from ``scorer``'s cache (all of them for an uncached scorer), grouped as
    ``score_texts`` and ``CachedScorer.score`` would hand them to the model: slices of ``CHUNK`` unique texts,
    their missing texts cut every ``chunk_size`` (or every ``shard_texts`` when given). Heaviest first."""
    if shard_texts is not None and shard_texts < 1:
        raise ValueError(f"shard_texts must be at least 1, not {shard_texts}")
    unique = scoring_order(texts)
    cache = optional(scorer).score_cache
    size = shard_texts or (cache.chunk_size if cache is not None else CHUNK)
    pieces: list[list[str]] = []
    for start in range(0, len(unique), CHUNK):
        todo = unique[start:start + CHUNK]
        if cache is not None:
            todo = cache.missing(todo)
        pieces += [todo[i:i + size] for i in range(0, len(todo), size)]
    model = computing(scorer)  # (the cache would look every text up again)
    counter = model if model.counts_tokens else None
    unit = "tokens" if counter is not None else "characters"
    shards = [Shard(i, tuple(piece), counter.count_tokens(piece) if counter else sum(map(len, piece)), unit)
              for i, piece in enumerate(pieces)]
    return sorted(shards, key=lambda shard: (-shard.weight, shard.index))


class CacheWriter:
    """Writes results into the score cache of ``scorer``, one commit per call. Through the scorer's own store,
    so that where the cache file takes no writes (a full disk) the results are still found in memory by the
    rest of the run instead of being computed again on this machine."""

    def __init__(self, scorer: CachingScorer) -> None:
        self._scorer = scorer
        self.written = 0

    def write(self, results: Sequence[ScoredText]) -> None:
        self.written += self._scorer.store(results)  # those already there (from a concurrent run) are kept

    def close(self) -> None:
        """Nothing to release: the scorer's store is closed with the scorer."""
