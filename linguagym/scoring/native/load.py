"""Which checkpoints linguagym's own decoders take, and loading their weights (``native_llama``, ``native_gemma3``).

``native_config`` reads config.json alone and answers with a decoder's configuration or None (the model then loads
through transformers); ``load_native`` builds the decoder on the meta device and gives it the safetensors tensors by
name, memory-mapped as transformers does, packing the layers' float32 products for oneDNN where asked
(``onednn``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

from linguagym.scoring.native.gemma3 import Gemma3Config, NativeGemma3, gemma3_config
from linguagym.scoring.native.llama import NativeLlama, llama_config

WEIGHTS_FILE = "model.safetensors"
WEIGHTS_INDEX = "model.safetensors.index.json"


def native_config(directory: Path) -> Any:
    """The configuration of linguagym's own decoder when ``directory`` holds a checkpoint one computes exactly
    (config.json and safetensors weights): a plain Llama (``NativeConfig``) or a Gemma 3 text model
    (``native_gemma3.Gemma3Config``); else None (the model then loads through transformers)."""
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    if not (directory / WEIGHTS_FILE).is_file() and not (directory / WEIGHTS_INDEX).is_file():
        return None
    if config.get("model_type") == "gemma3_text":
        return gemma3_config(config)
    return llama_config(config)



def load_native(directory: Path, config: Any, dtype: torch.dtype, packed: bool = False) -> nn.Module:
    """The model with ``directory``'s safetensors weights in ``dtype``, on the CPU. The modules are made on the
    meta device (no random weights drawn), then given the file's tensors by name: memory-mapped, not copied,
    where the file already holds ``dtype``. ``packed``: the layers' float32 products go through oneDNN with
    packed weights where this CPU uses it (``onednn``; for a model that stays on the CPU without autocast)."""
    from safetensors import safe_open

    model = NativeGemma3(config) if isinstance(config, Gemma3Config) else NativeLlama(config)
    expected = dict(model.named_parameters())  # a tied head shares the embedding's parameter: listed once
    names = _weight_files(directory)
    missing = sorted(set(expected) - set(names) - ({"lm_head.weight"} if config.tie_word_embeddings else set()))
    if missing:
        raise KeyError(f"{directory}: the weights have no tensor {missing[0]!r} ({len(missing)} missing)")
    pack = packed and dtype == torch.float32 and _packs_decoder()
    files: dict[str, list[str]] = {}
    later: dict[tuple[str, str], list[str]] = {}  # (layer, file) -> the layer's products, to be packed
    for name, file in names.items():
        if name not in expected:
            continue
        if pack and name.startswith("model.layers.") and _packed_product(name):
            later.setdefault((".".join(name.split(".")[:3]), file), []).append(name)
        else:
            files.setdefault(file, []).append(name)
    for file, file_names in files.items():
        with safe_open(str(directory / file), framework="pt", device="cpu") as handle:
            for name in file_names:
                owner, _, attribute = name.rpartition(".")
                module = model.get_submodule(owner)
                setattr(module, attribute, nn.Parameter(handle.get_tensor(name).to(dtype), requires_grad=False))
    if config.tie_word_embeddings:  # the embedding, as transformers ties it (a saved lm_head.weight is not used)
        model.lm_head.weight = model.get_parameter("model.embed_tokens.weight")
    # A memory map lives while any tensor read through it does: each layer's products are read through a map of
    # their own and packed at once, so that the dense copies go with it (else all of them stayed in memory).
    for (_, file), file_names in later.items():
        with safe_open(str(directory / file), framework="pt", device="cpu") as handle:
            for name in file_names:
                _pack_product(model, name, handle.get_tensor(name).to(dtype))
    return model.eval()


def _packed_product(name: str) -> bool:
    """Whether the layer product whose weight ``name`` names goes through oneDNN (``onednn.DECODER_PRODUCTS``: not
    the MLP's down product, for precision)."""
    from linguagym.scoring.native.onednn import DECODER_PRODUCTS

    return name.endswith(".weight") and name.split(".")[-2] in DECODER_PRODUCTS


def _packs_decoder() -> bool:
    from linguagym.scoring.native import onednn

    return onednn.used_for("decoder")


def _pack_product(model: nn.Module, name: str, weight: torch.Tensor) -> None:
    """The linear layer that ``name`` (``...x_proj.weight``) names, with ``weight``, replaced by its packed form."""
    from linguagym.scoring.native.onednn import PackedLinear

    owner = name.rpartition(".")[0]
    linear = model.get_submodule(owner)
    assert isinstance(linear, nn.Linear)  # _packed_product names only linear layers' weights
    linear.weight = nn.Parameter(weight, requires_grad=False)  # its bias, if any, is loaded already
    parent, _, attribute = owner.rpartition(".")
    setattr(model.get_submodule(parent), attribute, PackedLinear(linear))


def _weight_files(directory: Path) -> dict[str, str]:
    """Tensor name -> the safetensors file holding it (one file, or the shards of an index)."""
    index = directory / WEIGHTS_INDEX
    if index.is_file():
        return dict(json.loads(index.read_text(encoding="utf-8"))["weight_map"])
    from safetensors import safe_open

    with safe_open(str(directory / WEIGHTS_FILE), framework="pt", device="cpu") as handle:
        return {name: WEIGHTS_FILE for name in handle.keys()}  # noqa: SIM118 (a safe_open handle is no dict)

