"""A Llama decoder in plain torch, for scoring: what transformers' ``LlamaForCausalLM`` computes, without it.

Why: importing transformers' model code imports ``torch._dynamo`` and ``torch.distributed.tensor``; with
transformers itself, 3 s of the 4.8 s to the first scored token on a 2-core CPU. This module runs the same
operations in the same order and dtypes as transformers 5 (RMSNorm in float32, rotary tables in float32 cast to
the activations' dtype, SDPA with the 4-D mask given, key/value heads repeated for it), with the same parameter
names, memory-mapped from the safetensors file as transformers does: the values equal transformers'
(``tests/scoring/test_native_llama.py``) where torch computes the products and the attention at once; on a CPU the
attention takes its queries in blocks (``_attention``) and float32 products may go through oneDNN (``onednn``),
which moves them by float32 rounding. (One matrix product over concatenated q/k/v and gate/up weights was
measured: no faster on a CPU, and a copy of the weights.)

Only plain Llama checkpoints are taken here, and Gemma 3 text checkpoints by ``native_gemma3``
(``native_load.native_config`` says which, reading config.json alone); everything
else, and every model argument that changes how weights load (GGUF, PEFT, quantisation, device maps, remote
code), goes through transformers. Only the causal scorer uses it: the mask filler and the few-shot classifier
need transformers' key/value cache and generation API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional


@dataclass(frozen=True)
class DecoderShape:
    """The sizes every decoder's config.json gives alike, plus the attributes the scorer reads off a model's config
    (``scoring.prefix.supports_tree``, ``Projection``; see ``decoder_shape``)."""

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    rms_norm_eps: float
    attention_bias: bool
    tie_word_embeddings: bool
    max_position_embeddings: int


def decoder_shape(config: dict[str, Any], *, tied: bool, context: int) -> dict[str, Any]:
    """``DecoderShape``'s fields read from a config.json (KeyError, TypeError or ValueError where one is missing or
    malformed); ``tied`` and ``context``: the architecture's defaults of tie_word_embeddings and
    max_position_embeddings."""
    heads = int(config["num_attention_heads"])
    hidden = int(config["hidden_size"])
    return {
        "vocab_size": int(config["vocab_size"]),
        "hidden_size": hidden,
        "intermediate_size": int(config["intermediate_size"]),
        "num_hidden_layers": int(config["num_hidden_layers"]),
        "num_attention_heads": heads,
        "num_key_value_heads": int(config.get("num_key_value_heads") or heads),
        "head_dim": int(config.get("head_dim") or hidden // heads),
        "rms_norm_eps": float(config.get("rms_norm_eps", 1e-6)),
        "attention_bias": bool(config.get("attention_bias", False)),
        "tie_word_embeddings": bool(config.get("tie_word_embeddings", tied)),
        "max_position_embeddings": int(config.get("max_position_embeddings", context)),
    }


@dataclass(frozen=True)
class NativeConfig(DecoderShape):
    """A plain Llama's configuration: its shape, the rotary base and whether the MLP has biases."""

    rope_theta: float
    mlp_bias: bool
    model_type: str = "llama"
    _attn_implementation: str = "sdpa"
    final_logit_softcapping: float | None = None
    sliding_window: int | None = None


def llama_config(config: dict[str, Any]) -> NativeConfig | None:
    """The decoder's configuration for a plain Llama config.json it computes exactly, else None."""
    if config.get("model_type") != "llama":
        return None
    if config.get("architectures", ["LlamaForCausalLM"]) != ["LlamaForCausalLM"]:
        return None
    if config.get("hidden_act", "silu") != "silu" or config.get("pretraining_tp", 1) not in (None, 1):
        return None
    if config.get("quantization_config") or config.get("auto_map"):
        return None
    rope = config.get("rope_parameters") or {}
    scaling = config.get("rope_scaling")
    if scaling or rope.get("rope_type", "default") != "default":
        return None  # llama3, linear, dynamic, yarn ... scaled frequencies: transformers computes those
    theta = rope.get("rope_theta", config.get("rope_theta", 10000.0))
    try:
        return NativeConfig(**decoder_shape(config, tied=False, context=2048), rope_theta=float(theta),
                            mlp_bias=bool(config.get("mlp_bias", False)))
    except (KeyError, TypeError, ValueError):
        return None


def inverse_frequencies(theta: float, dim: int) -> torch.Tensor:
    """Rotary frequencies as transformers' default rope computes them (float32)."""
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))


# Every module is made on the meta device and given the checkpoint's tensors (``native_load.load_native``): no weights
# are drawn at random first. (torch's initialisers on meta tensors import torch._dynamo, a second.)
META = torch.device("meta")


class Linear(nn.Linear):
    def reset_parameters(self) -> None:
        """Nothing to draw: the weights come from the checkpoint."""


class Embedding(nn.Embedding):
    def reset_parameters(self) -> None:
        """Nothing to draw: the weights come from the checkpoint."""


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(size, device=META))
        self.eps = eps

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        dtype = hidden.dtype
        hidden = hidden.to(torch.float32)
        hidden = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * hidden.to(dtype)


def _rotate(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    """Rotary position embedding: transformers' ``x * cos + rotate_half(x) * sin``, with the sign of
    ``rotate_half`` moved into ``signed_sin`` (-sin on the first half): the same bits, one operation fewer."""
    return x * cos + x.roll(x.shape[-1] // 2, dims=-1) * signed_sin


def rotary_tables(position_ids: torch.Tensor, inv_freq: torch.Tensor,
                  dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and signed sin (``_rotate``) of each position's angles, (batch, 1, width, head_dim): computed in float32
    and cast to ``dtype``, as transformers does (also under autocast)."""
    with torch.autocast(position_ids.device.type, enabled=False):
        freqs = position_ids[..., None].float() * inv_freq.float()
        angles = torch.cat((freqs, freqs), dim=-1)
        cos, sin = angles.cos().to(dtype)[:, None], angles.sin().to(dtype)[:, None]
        sin[..., : sin.shape[-1] // 2].neg_()  # rotate_half's sign
    return cos, sin


# On a CPU, SDPA with a mask computes every query against every key, though the masks here never let a query see
# a later key (a node's ancestors come before it in its row); queries taken in blocks against the keys up to the
# block's end skip the upper triangle: 25-30% less attention time for rows of 256 (2 threads, AVX-512 EPYC).
# (The online softmax gives those keys zero weight anyway, so the values agree to float32 rounding.)
QUERY_BLOCK = 64


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor, scale: float) -> torch.Tensor:
    """Attention of (batch, heads, width, head_dim) tensors under a causal additive ``mask``, as (batch, width,
    heads x head_dim)."""
    batch, _, width, _ = q.shape
    if q.device.type != "cpu" or width <= QUERY_BLOCK:
        out = functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
        return out.transpose(1, 2).reshape(batch, width, -1)
    blocks = []
    for start in range(0, width, QUERY_BLOCK):
        end = min(width, start + QUERY_BLOCK)
        block = functional.scaled_dot_product_attention(q[:, :, start:end], k[:, :, :end], v[:, :, :end],
                                                        attn_mask=mask[:, :, start:end, :end], scale=scale)
        blocks.append(block.transpose(1, 2))
    return torch.cat(blocks, dim=1).view(batch, width, -1)


class Attention(nn.Module):
    def __init__(self, config: DecoderShape) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = (config.num_attention_heads, config.num_key_value_heads,
                                                    config.head_dim)
        self.q_proj = Linear(config.hidden_size, self.heads * self.head_dim, bias=config.attention_bias, device=META)
        self.k_proj = Linear(config.hidden_size, self.kv_heads * self.head_dim, bias=config.attention_bias, device=META)
        self.v_proj = Linear(config.hidden_size, self.kv_heads * self.head_dim, bias=config.attention_bias, device=META)
        self.o_proj = Linear(self.heads * self.head_dim, config.hidden_size, bias=config.attention_bias, device=META)
        self.scale = self.head_dim ** -0.5

    def forward(self, hidden: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        batch, width, _ = hidden.shape
        shape = (batch, width, -1, self.head_dim)
        q, k = self.normed(self.q_proj(hidden).view(shape).transpose(1, 2),
                           self.k_proj(hidden).view(shape).transpose(1, 2))
        v = self.v_proj(hidden).view(shape).transpose(1, 2)
        q = _rotate(q, cos, signed_sin)
        k = _rotate(k, cos, signed_sin)
        if self.kv_heads != self.heads:  # with a mask, transformers repeats the key/value heads rather than GQA
            k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
            v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        return self.o_proj(_attention(q, k, v, mask, self.scale))

    def normed(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries and keys before the rotary positions (Llama: as they are)."""
        return q, k


class MLP(nn.Module):
    def __init__(self, config: NativeConfig) -> None:
        super().__init__()
        size, inner, bias = config.hidden_size, config.intermediate_size, config.mlp_bias
        self.gate_proj = Linear(size, inner, bias=bias, device=META)
        self.up_proj = Linear(size, inner, bias=bias, device=META)
        self.down_proj = Linear(inner, size, bias=bias, device=META)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        # in place on fresh products: the same numbers, two large tensors fewer allocated (and paged in) a layer
        return self.down_proj(functional.silu(self.gate_proj(hidden), inplace=True).mul_(self.up_proj(hidden)))


class Layer(nn.Module):
    def __init__(self, config: NativeConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, hidden: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        # The residual stream is added to in place: it is this forward pass's own tensor (the embedding lookup's).
        hidden = hidden.add_(self.self_attn(self.input_layernorm(hidden), cos, signed_sin, mask))
        return hidden.add_(self.mlp(self.post_attention_layernorm(hidden)))


@dataclass
class BodyOutput:
    last_hidden_state: torch.Tensor


@dataclass
class LogitsOutput:
    logits: torch.Tensor


class LlamaBody(nn.Module):
    """Embeddings, decoder layers and the final norm: ``model.base_model`` as the tree scorer calls it."""

    inv_freq: torch.Tensor  # a buffer (register_buffer below)

    def __init__(self, config: NativeConfig) -> None:
        super().__init__()
        self.config = config
        self.embed_tokens = Embedding(config.vocab_size, config.hidden_size, device=META)
        self.layers = nn.ModuleList(Layer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.register_buffer("inv_freq", inverse_frequencies(config.rope_theta, config.head_dim),
                             persistent=False)  # (on the CPU)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, position_ids: torch.Tensor,
                use_cache: bool = False) -> BodyOutput:
        """``attention_mask``: additive, (batch, 1, width, width) in the weights' dtype, as the tree scorer gives
        it."""
        hidden = self.embed_tokens(input_ids)
        cos, sin = rotary_tables(position_ids, self.inv_freq, hidden.dtype)
        for layer in self.layers:
            hidden = layer(hidden, cos, sin, attention_mask)
        return BodyOutput(self.norm(hidden))


def plain_mask(input_ids: torch.Tensor, attention_mask: torch.Tensor | None, dtype: torch.dtype,
               window: int | None = None) -> torch.Tensor:
    """The additive (batch, 1, width, width) mask of plain right-padded batches: each position sees itself and
    the positions before it that are tokens (``attention_mask``, 1 = a token), the last ``window`` only if given."""
    batch, width = input_ids.shape
    rows = torch.arange(width, device=input_ids.device)
    seen = rows[None, :] <= rows[:, None]
    if window is not None:
        seen = seen & (rows[:, None] - rows[None, :] < window)
    allowed = seen[None]
    if attention_mask is not None:
        allowed = allowed & attention_mask.bool()[:, None, :]
    mask = torch.zeros((batch, 1, width, width), dtype=dtype, device=input_ids.device)
    return mask.masked_fill_(~allowed[:, None], torch.finfo(dtype).min)


class NativeCausalLM(nn.Module):
    """A causal LM with the attributes the causal scorer uses of a transformers model: ``config``,
    ``base_model``, ``get_output_embeddings`` and a call returning ``logits`` (plain batches, right padding)."""

    def __init__(self, config: Any, body: nn.Module) -> None:
        super().__init__()
        self.config = config
        self.model = body
        self.lm_head = Linear(config.hidden_size, config.vocab_size, bias=False, device=META)

    @property
    def base_model(self) -> nn.Module:
        return self.model

    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                logits_to_keep: int = 0) -> LogitsOutput:
        """Logits at every position (the last ``logits_to_keep`` only, as in transformers, when it is above 0);
        ``attention_mask`` a 2-D padding mask (1 = a token), positions from 0."""
        batch, width = input_ids.shape
        positions = torch.arange(width, device=input_ids.device)[None].expand(batch, width)
        hidden = self.model(input_ids, self.masks(input_ids, attention_mask), positions).last_hidden_state
        return LogitsOutput(self.lm_head(hidden[:, -logits_to_keep:] if logits_to_keep > 0 else hidden))

    def masks(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None) -> Any:
        """What the body takes as its attention mask for a plain batch."""
        return plain_mask(input_ids, attention_mask, self.lm_head.weight.dtype)


class NativeLlama(NativeCausalLM):
    """A Llama causal LM (``NativeCausalLM``)."""

    def __init__(self, config: NativeConfig) -> None:
        super().__init__(config, LlamaBody(config))
