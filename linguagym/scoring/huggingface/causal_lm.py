"""One causal (left-to-right) language model: where it is, its start token, and its weights once needed.

The causal scorer, the causal mask filler and the few-shot classifier all run a causal LM from the same
start token, so they share this handle: the start-token policy is resolved from the model's files without
loading weights (so ``identity`` is cheap), and checked against the loaded tokenizer when the weights load.
Passing one handle to several users loads the weights once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linguagym import assets
from linguagym.errors import ConfigurationError
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.scoring.engine import device as devices
from linguagym.scoring.huggingface.base import Loaded, TokenizerAccess, load_hf
from linguagym.scoring.huggingface.sources import ModelSource, resolve_source


class NotCausalError(ConfigurationError):
    """The model is a masked LM; a causal LM was needed. Callers catch it to say what to use instead."""


def resolve_bos(policy: str, source: ModelSource) -> tuple[str | None, int | None]:
    """The start-of-sentence token and id for ``policy``: ``auto``, ``none`` or a token string."""
    if policy == "none":
        return None, None
    if policy == "auto":
        named = assets.NAMED_MODELS.get(source.name) if source.kind == "named" else None
        if named is not None and named.bos_token is not None:
            return named.bos_token, named.bos_token_id
        chosen = source.specials.bos or source.specials.eos
        if chosen is None:
            raise ConfigurationError(
                f"model {source.name!r} declares neither a BOS nor an EOS token, so bos='auto' has nothing to use",
                hint="pass bos='none' (the first token then gets surprisal 0) or bos='<a token of its vocabulary>'",
            )
        return chosen
    token_id = source.specials.lookup(policy)
    if token_id is None:
        raise ConfigurationError(
            f"start token {policy!r} is not in the vocabulary of model {source.name!r}",
            hint="use bos='auto', bos='none', or a token string exactly as the tokenizer spells it",
        )
    return policy, int(token_id)


class CausalLM(TokenizerAccess):
    """A causal LM and its start token; the weights load on the first use of ``loaded``, not before.

    ``bos``: ``auto`` (the model's BOS token, else its EOS; a named model may fix its own), ``none`` (no start
    token) or a token string of the vocabulary. ``dtype`` and ``device`` as ``linguagym.scoring.engine.device``
    reads them (``device="auto"`` is resolved now, without loading anything). ``native`` (the causal scorer's
    handle, and the causal mask filler's): the tokenizer from tokenizer.json and a plain Llama or Gemma 3 text
    checkpoint in linguagym's decoder, where they compute what transformers does (``hf_base.load_hf``); the
    few-shot classifier needs transformers' model API (generation) and keeps the default.
    """

    def __init__(self, source: ModelSource, *, bos: str = "auto", dtype: str = "float32", device: str = "auto",
                 native: bool = False) -> None:
        if source.masked:
            raise NotCausalError(
                f"model {source.name!r} is a masked LM, not a causal (left-to-right) LM",
                hint="pass a causal model such as smollm2-135m, or use a tool that takes masked LMs",
            )
        self.source = source
        self.bos_policy = bos
        self.dtype = devices.check_dtype(dtype)
        self.device = devices.probe_device(device)
        self.bos_token, self.bos_token_id = resolve_bos(bos, source)
        self.native = native and source.args.native  # (TokenizerAccess reads it too)
        self._loaded: Loaded | None = None
        self._tokenizer: Any = None

    @classmethod
    def open(
        cls, model: str, *, cache_dir: Path | None = None, bos: str = "auto", dtype: str = "float32",
        device: str = "auto", native: bool = False,
    ) -> CausalLM:
        """The causal LM ``model`` names: a named model, a local directory, a ``.gguf`` file or a hub id.
        A ConfigurationError when it cannot be found; a NotCausalError when it is a masked LM."""
        return cls(resolve_source(model, resolve_cache_dir(cache_dir)), bos=bos, dtype=dtype, device=device,
                   native=native)

    @property
    def identity(self) -> dict[str, Any]:
        """What makes this model's numbers what they are: its source, dtype, device and start token. Users add
        their own settings (the scorer adds the ``bos`` policy it was given)."""
        return {
            **self.source.identity(),
            "dtype": self.dtype,
            "device": self.device,
            "bos_token": self.bos_token,
            "bos_token_id": self.bos_token_id,
        }

    @property
    def start_ids(self) -> list[int]:
        """The ids every sequence starts with: the start token's, or none."""
        return [] if self.bos_token_id is None else [int(self.bos_token_id)]

    @property
    def loaded(self) -> Loaded:
        """Weights, tokenizer, device and context length (loaded now if not yet)."""
        if self._loaded is None:
            self._loaded = load_hf(self.source, masked=False, dtype=self.dtype, device=self.device,
                                   tokenizer=self._tokenizer, native=self.native)
            try:
                self._check_start_token(self.encoder)
            except ConfigurationError:
                self._loaded = None
                raise
        return self._loaded

    def warm_up(self) -> None:
        """Load the weights now rather than at their first use."""
        _ = self.loaded  # the property loads them

    def _check_start_token(self, tokenizer: Any) -> None:
        """The start token was chosen from the files without loading the tokenizer: check the two agree. (A
        named model's start token is pinned with its files, so it is not checked again.)"""
        if self.bos_token is None or self.source.kind == "named":
            return
        found = tokenizer.convert_tokens_to_ids(self.bos_token)
        if found != self.bos_token_id:
            raise ConfigurationError(
                f"start token {self.bos_token!r} has id {found} in the loaded tokenizer of {self.source.name!r}, "
                f"but its files declare {self.bos_token_id}",
                hint="the tokenizer files disagree: re-save the model directory with save_pretrained, or (where "
                "the tool offers it) pass bos='none' or an explicit token",
            )
