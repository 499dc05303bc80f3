"""``load_scorer``: one entry point from a model string and options to a (cached) scorer; ``release_scorer``: its
end.

``linguagym.scoring`` imports this module, so every import of the scoring package (and ``linguagym --help``)
loads it: the scorers and the resolution of sources (about 25 ms) are imported by ``load_scorer`` when it needs
them."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from linguagym import assets
from linguagym.errors import ConfigurationError
from linguagym.scoring.cache import CachedScorer, resolve_cache_dir
from linguagym.scoring.model_args import ModelArgs, effective_dtype
from linguagym.scoring.model_args import model_args as parse_args
from linguagym.scoring.protocol import Closes, Scorer, Unloads


def named_models() -> list[str]:
    """Names accepted by ``load_scorer`` besides paths and hub ids."""
    return [entry.name for entry in assets.named_models()]


def load_scorer(
    model: str,
    *,
    bos: str = "auto",
    dtype: str = "float32",
    device: str = "auto",
    batch_size: int = 16,
    pll: str | None = None,
    cache_dir: Path | None = None,
    score_cache: bool = True,
    batch_tokens: int | None = None,
    prefix_sharing: bool = True,
    model_args: ModelArgs | Mapping[str, Any] | str | None = None,
    bow_correction: bool = False,
) -> Scorer:
    """A scorer for ``model``: a named model, a hub id, a local directory, a ``.gguf`` file, or an lm-zoo
    ``.tsv`` of precomputed surprisals. No weights are loaded until the first texts that are not cached.

    Masked LMs (recognised from config.json) are scored by PLL (``pll``: ``original`` or
    ``within_word_l2r``). Scores are cached under ``cache_dir`` (see ``resolve_cache_dir``) unless
    ``score_cache`` is false; precomputed scores are never cached.

    ``batch_tokens``: tokens per forward pass, padding included (default ``64 * batch_size``, at least 4096).
    ``prefix_sharing``: causal LMs compute each shared token prefix once (same numbers within rounding).
    ``model_args``: Hugging Face arguments (a dict or ``key=value,...``; see ``linguagym.scoring.model_args``):
    revision, trust_remote_code, dtype (``auto``: the checkpoint's own), device_map, load_in_8bit/4bit, peft,
    subfolder, gguf_file, tokenizer. ``dtype=`` there wins over the default ``dtype``; a different non-default
    ``dtype`` is refused.
    ``bow_correction``: word-boundary correction of causal LMs (``CausalScorer``; docs/scoring.md); refused for
    masked LMs and precomputed surprisals, which it does not apply to.
    """
    args = parse_args(model_args)
    if model.lower().endswith(".tsv"):
        if args.pairs():
            raise ConfigurationError(f"model arguments do not apply to {model!r}: its surprisals are precomputed",
                                     hint="leave `model_args` out for .tsv files", settings=["model_args"])
        if bow_correction:
            raise ConfigurationError(
                f"the word-boundary correction cannot be applied to {model!r}: an lm-zoo .tsv holds each token's "
                "surprisal only, not the distribution over the next token that the correction sums",
                hint="score the model itself with `bow_correction`, or leave the correction off for .tsv files",
                settings=["bow_correction"])
        from linguagym.scoring.precomputed import PrecomputedScorer  # lazy: see the module doc

        return PrecomputedScorer(Path(model))
    from linguagym.scoring.sources import resolve_source  # lazy: see the module doc

    root = resolve_cache_dir(cache_dir)
    dtype = effective_dtype(dtype, args)
    source = resolve_source(model, root, args)
    if dtype == "auto":
        dtype = source.checkpoint_dtype()
    scorer: Scorer
    if source.masked:
        if bos != "auto":
            raise ConfigurationError(
                f"bos={bos!r} applies to causal models; {model!r} is a masked LM and uses its own special tokens",
                hint="leave bos at 'auto' for masked models",
            )
        if bow_correction:
            raise ConfigurationError(
                f"the word-boundary correction applies to causal LMs; {model!r} is a masked LM, whose "
                "pseudo-log-likelihood predicts masked tokens, not where the next word begins",
                hint="leave the correction off; pll='within_word_l2r' already scores each word's tokens as one "
                "word (Kauf & Ivanova 2023)")
        from linguagym.scoring.masked import MaskedScorer  # lazy: see the module doc

        scorer = MaskedScorer(
            source, pll=pll or "original", dtype=dtype, device=device, batch_size=batch_size,
            batch_tokens=batch_tokens,
        )
    else:
        if pll is not None:
            raise ConfigurationError(
                f"pll={pll!r} applies to masked LMs; {model!r} is a causal LM", hint="leave pll unset"
            )
        from linguagym.scoring.causal import CausalScorer  # lazy: see the module doc

        scorer = CausalScorer(
            source, bos=bos, dtype=dtype, device=device, batch_size=batch_size, batch_tokens=batch_tokens,
            prefix_sharing=prefix_sharing, bow_correction=bow_correction,
        )
    return CachedScorer(scorer, root) if score_cache else scorer


def release_scorer(scorer: Scorer | None) -> None:
    """Close a scorer's cache and let its weights be freed before the next model loads (fifty models in a row
    must not hold fifty models in memory).

    The cycle collector runs only where the weights outlive dropping them (a reference cycle holds them, or the
    scorer cannot drop them itself): a full collection walks every object of the process, and a run over many
    checkpoints keeps each one's results, so it took 0.3 s after the first checkpoint and 0.7 s after the
    twelfth (tiny models), time growing with the square of the number of checkpoints."""
    if isinstance(scorer, Closes):
        scorer.close()
    still_held = scorer.unload() if isinstance(scorer, Unloads) else None
    del scorer
    if still_held is None or still_held():
        gc.collect()
