"""Language models -> token surprisals: the Scorer protocol, HF causal and masked scorers, precomputed
lm-zoo TSV, named models, an on-disk cache, and ``ScorerSpec`` (the options of one scorer, which loads it).
Importing this package does not import torch."""

from linguagym.scoring.cache import CachedScorer, resolve_cache_dir
from linguagym.scoring.protocol import ScoredText, Scorer, TokenScore
from linguagym.scoring.registry import load_scorer, named_models
from linguagym.scoring.spec import ScorerSpec

__all__ = ["CachedScorer", "ScoredText", "Scorer", "ScorerSpec", "TokenScore", "load_scorer", "named_models",
           "resolve_cache_dir"]
