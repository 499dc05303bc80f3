"""``ScorerSpec``: every option that picks a scorer, as one frozen, picklable value that loads the scorer itself.

One mapping from options to a scorer, used by the driver (the cached scorer of a run) and by Ray workers (the
same scorer without the cache, so that its identity is the one the driver's cache expects). Run settings map
to it (``RunSettings.scorer_spec``); so does anything that ``DescribesScorer``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from linguagym.scoring.model_args import ModelArgPairs, model_arg_pairs
from linguagym.scoring.protocol import Scorer
from linguagym.scoring.registry import DEFAULT_OPTIONS, load_scorer


@dataclass(frozen=True)
class ScorerSpec:
    """``load_scorer``'s options for one model. ``cache_dir``: where models and scores are kept (None: the
    default, see ``resolve_cache_dir``); ``score_cache``: put the score cache in front of the model."""

    model: str
    bos: str = DEFAULT_OPTIONS.bos
    dtype: str = DEFAULT_OPTIONS.dtype
    device: str = DEFAULT_OPTIONS.device
    batch_size: int = DEFAULT_OPTIONS.batch_size
    pll: str | None = DEFAULT_OPTIONS.pll
    cache_dir: str | None = None
    score_cache: bool = True
    model_args: ModelArgPairs = ()  # Hugging Face model arguments; a dict or "k=v,..." is accepted and normalised
    bow_correction: bool = DEFAULT_OPTIONS.bow_correction  # word-boundary correction (causal LMs; CausalScorer)

    def __post_init__(self) -> None:
        # sorted, checked (key, value) pairs: the spec stays hashable and picklable for Ray workers
        object.__setattr__(self, "model_args", model_arg_pairs(self.model_args))

    def load(self) -> Scorer:
        """The scorer this describes (a ``CachedScorer`` with ``score_cache``); resolving the model loads no
        weights."""
        return load_scorer(
            self.model, bos=self.bos, dtype=self.dtype, device=self.device, batch_size=self.batch_size, pll=self.pll,
            cache_dir=Path(self.cache_dir) if self.cache_dir else None, score_cache=self.score_cache,
            model_args=dict(self.model_args), bow_correction=self.bow_correction,
        )

    def uncached(self) -> ScorerSpec:
        """The same scorer without the score cache: the same identity, no cache file (what a worker loads)."""
        return replace(self, score_cache=False)


class DescribesScorer(Protocol):
    """Anything that names a scorer: run settings, say."""

    def scorer_spec(self) -> ScorerSpec: ...


def as_spec(described: ScorerSpec | DescribesScorer) -> ScorerSpec:
    """``described`` itself when it is a spec, else the spec it gives."""
    return described if isinstance(described, ScorerSpec) else described.scorer_spec()
