"""What the causal and masked models share: identity without weights, lazy loading, tokenising with spans.

(The start token of causal models is resolved in ``linguagym.scoring.huggingface.causal_lm``.)"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.progress import stage
from linguagym.scoring.engine import device as devices
from linguagym.scoring.engine.shared_work import encode_texts, load_tokenizer_once
from linguagym.scoring.huggingface.memory import check_weights_fit
from linguagym.scoring.huggingface.sources import ModelSource
from linguagym.scoring.native.json_tokenizer import JsonTokenizer, plain_tokenizer
from linguagym.scoring.protocol import nothing_held

log = logging.getLogger(__name__)
_LIBRARIES = ("linguagym", "torch", "transformers", "tokenizers", "gguf")
# from_pretrained is not thread-safe (it swaps torch.nn.init's functions process-wide while it builds a model): two
# web jobs loading at once got weights left on the meta device ("Cannot copy out of meta tensor"). One at a time.
_ONE_LOAD_AT_A_TIME = threading.Lock()


def library_versions() -> dict[str, str]:
    found = {}
    for name in _LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "absent"
    return found


class Loaded:
    """Weights on their device, the context length, and transformers' tokenizer: given, or loaded at its first use
    (the causal scorer's native path reads tokenizer.json itself and never needs it)."""

    def __init__(self, model: Any, tokenizer: Any, device: Any, max_length: int | None,
                 load_tokenizer: Callable[[], Any] | None = None) -> None:
        self.model, self.device, self.max_length = model, device, max_length
        self._tokenizer, self._load_tokenizer = tokenizer, load_tokenizer

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None and self._load_tokenizer is not None:
            self._tokenizer = self._load_tokenizer()
        return self._tokenizer

    @property
    def tokenizer_if_loaded(self) -> Any:
        return self._tokenizer


def batch_budget(batch_size: int, batch_tokens: int | None) -> int:
    """The checked token budget of one forward pass (``batch_tokens``, else ``default_batch_tokens``)."""
    if batch_size < 1:
        raise ConfigurationError(f"batch_size must be at least 1, not {batch_size}")
    if batch_tokens is not None and batch_tokens < 1:
        raise ConfigurationError(f"batch_tokens must be at least 1, not {batch_tokens}")
    return batch_tokens or default_batch_tokens(batch_size)


def default_batch_tokens(batch_size: int) -> int:
    """The token budget of one forward pass when only a sentence count is given: 64 tokens a sentence, and at
    least 4096. Small models on a CPU are bound by streaming their weights through memory once per forward
    pass, so fewer, larger passes are faster; 4096 tokens keep activations of a 135M model near 100 MB."""
    return max(4096, 64 * max(1, batch_size))


def load_tokenizer(source: ModelSource, *, native: bool = False) -> Any:
    """The tokenizer of ``source`` alone, without its weights (for counting tokens before a run): transformers'
    ``AutoTokenizer``; with ``native``, the causal scorer's ``JsonTokenizer`` instead, or None where transformers
    might tokenise otherwise (``json_tokenizer``)."""
    directory, gguf_file = source.tokenizer_files()  # (a named model is fetched and converted here, once)
    stage("reading the tokenizer")
    devices.start_measuring_cpus()  # the thread count measures what other processes use while transformers imports
    try:
        if native:
            if gguf_file or source.args.trust_remote_code:
                return None
            return load_tokenizer_once(source, "json", lambda: plain_tokenizer(directory))
        return _tokenizer_from_files(source, directory, gguf_file)
    except (OSError, ValueError) as error:
        raise ConfigurationError(
            f"could not load the tokenizer of model {source.name!r} from {directory}: {str(error).splitlines()[0]}",
            hint="check that the directory holds the tokenizer files",
        ) from None


def _tokenizer_from_files(source: ModelSource, directory: Any, gguf_file: str | None) -> Any:
    """``AutoTokenizer`` from ``source``'s tokenizer files, or the one an earlier model of the run loaded from the
    same files (``shared_work``)."""
    from transformers import AutoTokenizer

    options = _tokenizer_options(source, gguf_file)
    return load_tokenizer_once(source, "transformers", lambda: AutoTokenizer.from_pretrained(directory, **options))


def _tokenizer_options(source: ModelSource, gguf_file: str | None) -> dict[str, Any]:
    options: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    if source.args.trust_remote_code:
        options["trust_remote_code"] = True
    return options


def _weight_options(source: ModelSource, torch_dtype: Any, gguf_file: str | None) -> dict[str, Any]:
    """``from_pretrained``'s keyword arguments from the model arguments (where the files are was resolved by the
    source: revision, subfolder, tokenizer)."""
    args = source.args
    options: dict[str, Any] = {"dtype": torch_dtype}
    if gguf_file:
        options["gguf_file"] = gguf_file
    if args.trust_remote_code:
        options["trust_remote_code"] = True
    if args.device_map:
        options["device_map"] = args.device_map
    if args.quantization:
        from transformers import BitsAndBytesConfig  # its import is checked by resolve_source already

        bits = {"load_in_8bit": True} if args.load_in_8bit else {"load_in_4bit": True,
                                                                "bnb_4bit_compute_dtype": torch_dtype}
        options["quantization_config"] = BitsAndBytesConfig(**bits)
    return options


def load_hf(source: ModelSource, *, masked: bool, dtype: str, device: str, tokenizer: Any = None,
            native: bool = False) -> Loaded:
    """Load weights and tokenizer (this is where torch and transformers are first imported), with the source's
    model arguments: remote code, a device map, 8/4-bit quantisation, a PEFT adapter over the weights.

    ``tokenizer``: one already loaded by ``load_tokenizer`` for the same source, reused. ``native`` (the causal
    scorer): a plain Llama or Gemma 3 text checkpoint loads into linguagym's own decoder (``native_llama``,
    ``native_gemma3``), transformers' model code not imported, where no model argument asks for transformers'.
    """
    directory, gguf_file = source.files()
    stage("de-quantising the GGUF weights (on every load of a .gguf file)" if gguf_file else "reading the weights")
    devices.start_measuring_cpus()  # the thread count measures what other processes use while torch imports
    import torch

    target = devices.torch_device(device)
    torch_dtype = devices.torch_dtype(dtype, target)
    # placed by accelerate (device_map) or quantised: neither is the plain dtype x parameters that is checked
    placed = bool(source.args.device_map or source.args.quantization)
    if not gguf_file and not placed:
        check_weights_fit(source.name, directory, dtype, target)  # refused with sizes, not killed half-way
    config = _native_config(source, directory, gguf_file) if native and not masked and not placed else None

    def transformers_tokenizer() -> Any:
        return _tokenizer_from_files(source, *source.tokenizer_files())

    try:
        if config is not None:  # transformers' tokenizer only if someone asks for it (the scorer reads its own)
            from linguagym.scoring.native.load import load_native

            model = load_native(directory, config, torch_dtype,
                                packed=target.type == "cpu" and dtype not in devices.MIXED)
        else:
            if tokenizer is None:
                tokenizer = transformers_tokenizer()
            model = _from_pretrained(source, masked, directory, torch_dtype, gguf_file)
    except (OSError, ValueError, ImportError, KeyError) as error:
        raise ConfigurationError(
            f"could not load model {source.name!r} from {directory}"
            f"{' (' + gguf_file + ')' if gguf_file else ''}: {str(error).splitlines()[0]}",
            hint="check that the directory holds config.json, the weights and the tokenizer files"
            + ("; a repository with its own modelling code needs trust_remote_code=true" if not
               source.args.trust_remote_code else ""),
        ) from None
    if gguf_file:  # weights were de-quantised on load; the quantizer would refuse later moves/casts
        model.hf_quantizer = None  # type: ignore[assignment]  # nn.Module's __setattr__ is typed for tensors and modules
    if source.adapter is not None:
        model = _with_adapter(model, source)
    if placed:  # accelerate placed the layers; inputs go where the first layer is
        target = model.device
    else:
        model.to(target)
    model.eval()
    config = model.config
    max_length = None
    for key in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            max_length = value
            break
    if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert") and max_length:
        max_length -= 2  # RoBERTa's position ids start after the padding index
    torch.set_grad_enabled(False)
    return Loaded(model, tokenizer, target, max_length, transformers_tokenizer)


def _native_config(source: ModelSource, directory: Any, gguf_file: str | None) -> Any:
    """The native decoder's configuration (``native_load.native_config``) where ``source`` may use it: not a GGUF
    file, no adapter or remote code, and the user did not ask for transformers (model argument native=false)."""
    if gguf_file or source.adapter is not None or source.args.trust_remote_code or not source.args.native:
        return None
    from linguagym.scoring.native.load import native_config

    return native_config(directory)


def _from_pretrained(source: ModelSource, masked: bool, directory: Any, torch_dtype: Any,
                     gguf_file: str | None) -> Any:
    """transformers' model for ``source``: ``AutoModelForMaskedLM`` or ``AutoModelForCausalLM``."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM
    from transformers.utils import logging as hf_logging

    # linguagym shows its own progress; transformers' per-load weight bar is noise on every run
    hf_logging.disable_progress_bar()
    loader = AutoModelForMaskedLM if masked else AutoModelForCausalLM
    with _ONE_LOAD_AT_A_TIME:
        return loader.from_pretrained(directory, **_weight_options(source, torch_dtype, gguf_file))


def _with_adapter(model: Any, source: ModelSource) -> Any:
    """``model`` with the source's PEFT adapter injected into its layers (LoRA and the other adapters that
    wrap layers). Not merged into the weights, so the numbers are the adapter's and a quantised base stays
    quantised; the transformers model is returned, not the ``PeftModel`` around it, so that scoring (prefix
    trees call ``model.base_model``) sees the model class it knows, with the adapter's layers inside."""
    from peft import PeftModel  # an optional dependency; resolve_source checked it can be imported

    adapter = source.adapter
    assert adapter is not None
    try:
        wrapped = PeftModel.from_pretrained(model, str(adapter.directory), is_trainable=False)
    except (OSError, ValueError, RuntimeError, KeyError, TypeError) as error:
        raise ConfigurationError(
            f"could not load PEFT adapter {adapter.given!r} over model {source.name!r}: {str(error).splitlines()[0]}",
            hint="check that the adapter was trained for this base model (adapter_config.json's "
            "base_model_name_or_path)",
        ) from None
    if wrapped.active_peft_config.is_prompt_learning:  # virtual tokens live outside the layers: unwrapping drops them
        raise ConfigurationError(
            f"PEFT adapter {adapter.given!r} is a {wrapped.active_peft_config.peft_type} adapter (prompt learning), "
            "which linguagym cannot score with",
            hint="use an adapter that wraps the model's layers (LoRA, IA3, ...), or merge it into a saved model",
        )
    return wrapped.get_base_model()


@dataclass(frozen=True)
class Encoded:
    ids: list[int]
    spans: list[tuple[int, int]]
    word_ids: list[int | None]


def encode(tokenizer: Any, text: str) -> Encoded:
    """Token ids with character spans, without special tokens.

    Fast tokenizers give spans directly. Others fall back to decoding growing prefixes: the span of token k
    is where decode(ids[:k]) and decode(ids[:k+1]) end, which is exact when decoding gives back the text.
    """
    if getattr(tokenizer, "is_fast", False):
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        words = enc.word_ids() if hasattr(enc, "word_ids") else [None] * len(enc["input_ids"])
        return Encoded(list(enc["input_ids"]), [tuple(s) for s in enc["offset_mapping"]], list(words))
    ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
    decoded = tokenizer.decode(ids, clean_up_tokenization_spaces=False)
    if decoded != text:
        raise ConfigurationError(
            "the tokenizer gives no character offsets (not a 'fast' tokenizer) and decoding does not give "
            f"back the text ({text[:40]!r} became {decoded[:40]!r}), so tokens cannot be placed in the text",
            hint="use a model directory with tokenizer.json (a fast tokenizer), or convert it with "
            "AutoTokenizer.from_pretrained(..., use_fast=True).save_pretrained(...)",
        )
    spans, previous = [], 0
    for k in range(len(ids)):
        end = len(tokenizer.decode(ids[: k + 1], clean_up_tokenization_spaces=False))
        spans.append((previous, max(previous, end)))
        previous = max(previous, end)
    return Encoded(ids, spans, [None] * len(ids))


def encode_many(tokenizer: Any, texts: Sequence[str]) -> list[Encoded]:
    """``encode`` of each text; a fast tokenizer encodes them in one call (in parallel, and without a Python
    round trip per text: 3,050 sentences took 0.65 s one by one)."""
    texts = list(texts)
    if isinstance(tokenizer, JsonTokenizer):
        return [Encoded(e.ids, e.offsets, e.word_ids) for e in tokenizer.encodings(texts)]
    if not texts or not getattr(tokenizer, "is_fast", False):
        return [encode(tokenizer, text) for text in texts]
    batch = tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True)
    return [
        Encoded(list(ids), [tuple(span) for span in spans], list(batch.word_ids(i)))
        for i, (ids, spans) in enumerate(zip(batch["input_ids"], batch["offset_mapping"], strict=True))
    ]


def too_long(source: ModelSource, index: int, text: str, length: int, limit: int) -> ConfigurationError:
    return ConfigurationError(
        f"text {index + 1} needs {length} tokens but model {source.name!r} accepts at most {limit} "
        f"(text starts {text[:60]!r})",
        hint="split the text into shorter pieces, or use a model with a longer context",
    )


class TokenizerAccess:
    """The tokenizer of an HF model without loading its weights, and the token count that ``progress`` uses.

    Needs ``self.source``, ``self._loaded`` (None until the weights are loaded) and ``self._tokenizer``.
    """

    source: ModelSource
    _loaded: Loaded | None
    _tokenizer: Any
    native = False  # ``encoder`` reads tokenizer.json where transformers would tokenise the same (load_tokenizer)
    _encoder: Any = None  # the JsonTokenizer, once looked for (None: there is none, or not looked for yet)
    _encoder_looked_for = False

    @property
    def is_loaded(self) -> bool:
        """Whether the weights are loaded (``identity`` and ``count_tokens`` never load them)."""
        return self._loaded is not None

    def unload(self) -> Callable[[], bool]:
        """Drop the weights (the tokenizer stays); the probe says whether something else still holds the model."""
        loaded, self._loaded = self._loaded, None
        if loaded is None:
            return nothing_held
        self._tokenizer = loaded.tokenizer_if_loaded
        model = weakref.ref(loaded.model)
        return lambda: model() is not None

    @property
    def tokenizer(self) -> Any:
        """transformers' tokenizer alone (no weights loaded)."""
        if self._loaded is not None:
            return self._loaded.tokenizer
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self.source)
        return self._tokenizer

    @property
    def encoder(self) -> Any:
        """What the scorer encodes with: with ``native``, tokenizer.json read by the ``tokenizers`` library where
        transformers would tokenise the same (no transformers import); else ``tokenizer`` (loaded once, and
        handed to the weights' loader)."""
        if self.native and not self._encoder_looked_for:
            self._encoder, self._encoder_looked_for = load_tokenizer(self.source, native=True), True
        return self.tokenizer if self._encoder is None else self._encoder

    def count_tokens(self, texts: Sequence[str]) -> int:
        """How many tokens scoring the unique ``texts`` computes surprisals for (start and special tokens not
        counted): the unit of ``progress``."""
        tokenizer = self.encoder
        unique = list(dict.fromkeys(texts))  # encoded once per run and tokenizer, reused when scoring (shared_work)
        return sum(len(e.ids) for e in encode_texts(self.source, unique, lambda batch: encode_many(tokenizer, batch)))
