"""Language models -> token surprisals: the Scorer protocol, HF causal and masked scorers, precomputed
lm-zoo TSV, named models and an on-disk cache. Importing this package does not import torch."""

from linguagym.scoring.cache import CachedScorer, resolve_cache_dir
from linguagym.scoring.protocol import ScoredText, Scorer, TokenScore
from linguagym.scoring.registry import load_scorer, named_models

__all__ = ["CachedScorer", "ScoredText", "Scorer", "TokenScore", "load_scorer", "named_models", "resolve_cache_dir"]
