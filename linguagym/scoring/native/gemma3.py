"""A Gemma 3 text decoder in plain torch, for scoring: what transformers' ``Gemma3ForCausalLM`` computes, without it.

The companion of ``native_llama`` (why, and how weights load: there), for Gemma 3's text checkpoints
(``model_type`` ``gemma3_text``: gemma-3-270m, gemma-3-1b). The operations are transformers 5's, in the same order
and dtypes: the embeddings scaled by sqrt(hidden) in the weights' dtype, RMSNorm in float32 with ``1 + weight``
applied before the cast back, RMSNorm of each head's queries and keys, rotary positions with one base for the
sliding-window layers and another for the global ones, four norms a layer (around attention and around the MLP),
tanh-approximated GELU, SDPA scaled by ``query_pre_attn_scalar``. Sliding-window layers see the keys of the last
``sliding_window`` positions; the tree scorer only uses this model where no sequence is that deep
(``prefix.supports_tree``), and gives all layers one mask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional

from linguagym.scoring.native.llama import (
    META,
    BodyOutput,
    DecoderShape,
    Embedding,
    Linear,
    NativeCausalLM,
    RMSNorm,
    decoder_shape,
    inverse_frequencies,
    plain_mask,
    rotary_tables,
)
from linguagym.scoring.native.llama import Attention as LlamaAttention

SLIDING, FULL = "sliding_attention", "full_attention"


@dataclass(frozen=True)
class Gemma3Config(DecoderShape):
    """A Gemma 3 text model's configuration: its shape, the layer types, their rotary bases, the window."""

    rope_thetas: tuple[tuple[str, float], ...]  # (layer type, rotary base)
    layer_types: tuple[str, ...]
    sliding_window: int
    query_pre_attn_scalar: float
    model_type: str = "gemma3_text"
    _attn_implementation: str = "sdpa"
    final_logit_softcapping: float | None = None


def gemma3_config(config: dict[str, Any]) -> Gemma3Config | None:
    """The decoder's configuration for a Gemma 3 text config.json it computes exactly, else None."""
    if config.get("architectures", ["Gemma3ForCausalLM"]) != ["Gemma3ForCausalLM"]:
        return None
    if config.get("hidden_activation", "gelu_pytorch_tanh") != "gelu_pytorch_tanh":
        return None
    if config.get("attn_logit_softcapping") is not None or config.get("final_logit_softcapping") is not None:
        return None
    if config.get("use_bidirectional_attention") or config.get("quantization_config") or config.get("auto_map"):
        return None
    try:
        shape = decoder_shape(config, tied=True, context=32768)
        layer_types = tuple(config.get("layer_types") or ())
        if len(layer_types) != shape["num_hidden_layers"] or set(layer_types) - {SLIDING, FULL}:
            return None
        thetas = _rope_thetas(config, layer_types)
        if thetas is None:
            return None
        return Gemma3Config(**shape, rope_thetas=tuple(thetas), layer_types=layer_types,
                            sliding_window=int(config["sliding_window"]),
                            query_pre_attn_scalar=float(config["query_pre_attn_scalar"]))
    except (KeyError, TypeError, ValueError):
        return None


def _rope_thetas(config: dict[str, Any], layer_types: tuple[str, ...]) -> tuple[tuple[str, float], ...] | None:
    """Each layer type's rotary base, or None where a layer type's rope is not the default one (linear in
    gemma-3-4b and up, yarn ...: transformers computes those). transformers 5 writes ``rope_parameters`` per layer
    type; 4.x (and the hub's own config.json files) write ``rope_theta`` for the full-attention layers,
    ``rope_local_base_freq`` for the sliding ones and ``rope_scaling`` (the full layers' scaling, else null)."""
    rope = config.get("rope_parameters")
    legacy = {FULL: config.get("rope_theta"), SLIDING: config.get("rope_local_base_freq")}
    thetas = []
    for layer_type in sorted(set(layer_types)):
        if rope is not None:
            parameters = rope.get(layer_type) or {}
            if parameters.get("rope_type", "default") != "default" or "rope_theta" not in parameters:
                return None
            thetas.append((layer_type, float(parameters["rope_theta"])))
        else:
            theta = legacy[layer_type]
            if config.get("rope_scaling") or theta is None:
                return None
            thetas.append((layer_type, float(theta)))
    return tuple(thetas)


class GemmaRMSNorm(RMSNorm):
    """Llama's RMSNorm scaling by ``1 + weight``, applied in float32 before the cast back."""

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        x = hidden.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return (x * (1.0 + self.weight.float())).type_as(hidden)


class Attention(LlamaAttention):
    """Llama's attention with RMSNorm over each head's queries and keys, scaled by ``query_pre_attn_scalar``."""

    def __init__(self, config: Gemma3Config) -> None:
        super().__init__(config)
        self.scale = config.query_pre_attn_scalar ** -0.5
        self.q_norm = GemmaRMSNorm(self.head_dim, config.rms_norm_eps)
        self.k_norm = GemmaRMSNorm(self.head_dim, config.rms_norm_eps)

    def normed(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.q_norm(q), self.k_norm(k)


class MLP(nn.Module):
    def __init__(self, config: Gemma3Config) -> None:
        super().__init__()
        size, inner = config.hidden_size, config.intermediate_size
        self.gate_proj = Linear(size, inner, bias=False, device=META)
        self.up_proj = Linear(size, inner, bias=False, device=META)
        self.down_proj = Linear(inner, size, bias=False, device=META)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.down_proj(functional.gelu(self.gate_proj(hidden), approximate="tanh").mul_(self.up_proj(hidden)))


class Layer(nn.Module):
    # set by name in __init__ (the checkpoint's names)
    input_layernorm: GemmaRMSNorm
    post_attention_layernorm: GemmaRMSNorm
    pre_feedforward_layernorm: GemmaRMSNorm
    post_feedforward_layernorm: GemmaRMSNorm

    def __init__(self, config: Gemma3Config, layer_type: str) -> None:
        super().__init__()
        self.layer_type = layer_type
        self.self_attn = Attention(config)
        self.mlp = MLP(config)
        for name in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                     "post_feedforward_layernorm"):
            setattr(self, name, GemmaRMSNorm(config.hidden_size, config.rms_norm_eps))

    def forward(self, hidden: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        # in place on the residual stream: this forward pass's own tensor (the scaled embeddings)
        hidden = hidden.add_(self.post_attention_layernorm(
            self.self_attn(self.input_layernorm(hidden), cos, signed_sin, mask)))
        return hidden.add_(self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(hidden))))


class Gemma3Body(nn.Module):
    """Scaled embeddings, decoder layers and the final norm: ``model.base_model`` as the tree scorer calls it."""

    def __init__(self, config: Gemma3Config) -> None:
        super().__init__()
        self.config = config
        self.embed_tokens = Embedding(config.vocab_size, config.hidden_size, device=META)
        self.layers = nn.ModuleList(Layer(config, layer_type) for layer_type in config.layer_types)
        self.norm = GemmaRMSNorm(config.hidden_size, config.rms_norm_eps)
        for layer_type, theta in config.rope_thetas:  # transformers' default rope, float32, on the CPU
            self.register_buffer(f"{layer_type}_inv_freq", inverse_frequencies(theta, config.head_dim),
                                 persistent=False)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | dict[str, torch.Tensor],
                position_ids: torch.Tensor, use_cache: bool = False) -> BodyOutput:
        """``attention_mask``: additive, (batch, 1, width, width) in the weights' dtype, one for every layer as the
        tree scorer gives it, or one per layer type (``FULL``, ``SLIDING``). No mask may let a query see a later
        key (``native_llama._attention``)."""
        weight = self.embed_tokens.weight
        hidden = self.embed_tokens(input_ids) * torch.tensor(self.config.hidden_size ** 0.5).to(weight.dtype)
        tables = {layer_type: rotary_tables(position_ids, getattr(self, f"{layer_type}_inv_freq"), hidden.dtype)
                  for layer_type, _ in self.config.rope_thetas}
        for layer, layer_type in zip(self.layers, self.config.layer_types, strict=True):
            mask = attention_mask[layer_type] if isinstance(attention_mask, dict) else attention_mask
            hidden = layer(hidden, *tables[layer_type], mask)
        return BodyOutput(self.norm(hidden))


class NativeGemma3(NativeCausalLM):
    """A Gemma 3 text causal LM (``native_llama.NativeCausalLM``)."""

    def __init__(self, config: Gemma3Config) -> None:
        super().__init__(config, Gemma3Body(config))

    def masks(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None) -> dict[str, torch.Tensor]:
        """One mask per layer type: the sliding-window layers see the last ``sliding_window`` positions, as
        transformers' mask lets them."""
        dtype = self.lm_head.weight.dtype
        return {FULL: plain_mask(input_ids, attention_mask, dtype),
                SLIDING: plain_mask(input_ids, attention_mask, dtype, self.config.sliding_window)}
