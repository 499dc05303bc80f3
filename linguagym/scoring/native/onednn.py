"""Float32 matrix products on x86 CPUs through oneDNN, each weight packed once into oneDNN's own layout.

torch's ``nn.Linear`` on a CPU calls MKL's sgemm, and on AMD processors MKL runs its AVX2 code whatever the CPU
offers. oneDNN (bundled with torch as ``mkldnn``) chooses its kernels by instruction set, and a weight reordered
once into its blocked layout is not re-packed at every product. On a 2-core AMD EPYC (Zen 4, AVX-512), 2 threads:
the decoder's products of smollm2-135m 1.10-1.18x faster, the vocabulary projection in blocks of 2,048 columns
with its log-sum-exp 1.48x (docs/performance.md, "oneDNN products"). The values are float32's with another order
of summation: they differ from MKL's by float32 rounding, not more (the same docs give the bits).

The causal scorer uses it for float32 work on the CPU only: the products of linguagym's own decoders
(``native_llama``, ``native_gemma3``) but their MLPs' down products (``DECODER_PRODUCTS``), and the vocabulary
projection's blocks (``prefix.Projection``), for every model. It is off
where the CPU is not x86-64, where torch was built without oneDNN, where the packed product does not agree with
``nn.functional.linear`` on a small check, and where ``LINGUAGYM_ONEDNN=0``.
"""

from __future__ import annotations

import functools
import os
import platform
import weakref

import torch
from torch import nn

ENV = "LINGUAGYM_ONEDNN"
# oneDNN chooses the packed layout for a number of rows; any number of rows then works with it.
ROWS_HINT = 4096


PARTS = ("projection", "decoder")

# The decoder layers' products that go through oneDNN: all but the MLP's down product. smollm2-135m's start token
# gets its "massive activations" from the down products of the early layers (layer 2's writes 836 into one dimension
# of its residual stream), and every later position attends to it: with oneDNN's summation order there, the first
# token's surprisal was off a float64 pass by -1.6e-4 bits for every sentence (the same start state each time) and
# the tokens after it 3x as much as with torch's products; with the down products left to torch, +2.2e-5, as torch
# alone (docs/performance.md, "Precision against float64"; measured layer by layer, the down products of layers 1-2
# alone give the difference). The down products are a quarter of a layer's multiply-adds.
DECODER_PRODUCTS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj")


def used_for(part: str) -> bool:
    """Whether ``part``'s float32 products (``PARTS``) go through oneDNN with packed weights on this CPU:
    ``LINGUAGYM_ONEDNN`` off/0 for neither, a part's name for that part alone, else both where ``enabled``."""
    setting = os.environ.get(ENV, "").strip().lower()
    if setting in ("0", "false", "no", "off") or (setting in PARTS and setting != part):
        return False
    return enabled()


@functools.cache
def enabled() -> bool:
    """Whether this CPU and torch build can run the packed products (see the module's docstring)."""
    if platform.machine().lower() not in ("x86_64", "amd64") or not torch.backends.mkldnn.is_available():
        return False
    try:  # private operators (those torch.compile's CPU backend uses): present and agreeing, or not used
        generator = torch.Generator().manual_seed(0)
        weight, x = torch.randn(24, 40, generator=generator), torch.randn(3, 40, generator=generator)
        bias = torch.randn(24, generator=generator)
        found = product(x, pack(weight), bias, 24)
        return bool(torch.allclose(found, nn.functional.linear(x, weight, bias), rtol=1e-5, atol=1e-5))
    except (AttributeError, RuntimeError, TypeError, NotImplementedError):
        return False


def pack(weight: torch.Tensor) -> torch.Tensor:
    """``weight`` (out x in, float32) in oneDNN's layout, for ``product``."""
    return torch.ops.mkldnn._reorder_linear_weight(weight.detach().contiguous(), ROWS_HINT)


def product(x: torch.Tensor, packed: torch.Tensor, bias: torch.Tensor | None, out_features: int) -> torch.Tensor:
    """``nn.functional.linear(x, weight, bias)`` with ``packed = pack(weight)``, for ``x`` of any leading shape."""
    flat = x.reshape(-1, x.shape[-1])
    return torch.ops.mkldnn._linear_pointwise(flat, packed, bias, "none", [], "").view(*x.shape[:-1], out_features)


class PackedLinear(nn.Module):
    """An ``nn.Linear`` whose weight lives only in oneDNN's layout (the dense one is let go: no second copy)."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.packed = pack(linear.weight)  # a plain attribute: a oneDNN tensor is no parameter to save or move
        self.bias = linear.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return product(x, self.packed, self.bias, self.out_features)


# Packed blocks of a vocabulary projection, per head module: made once for all the passes and calls of a model
# (a run scores in several calls), let go with the model; made again if the weight was changed in place since.
_BLOCKS: weakref.WeakKeyDictionary[nn.Module, tuple[tuple[int, int], list[torch.Tensor]]] = \
    weakref.WeakKeyDictionary()
# The packed copy is extra memory where the head is tied to the embeddings (whose dense rows are still looked up):
# at most this much.
BLOCKS_LIMIT = 1 << 30


def head_blocks(head: nn.Linear, block: int) -> list[torch.Tensor] | None:
    """``head``'s weight packed in blocks of ``block`` rows (vocabulary entries), or None where oneDNN is not
    used or the copy would exceed ``BLOCKS_LIMIT`` bytes."""
    weight = head.weight
    if weight.dtype != torch.float32 or weight.device.type != "cpu" or not used_for("projection"):
        return None
    if weight.numel() * weight.element_size() > BLOCKS_LIMIT:
        return None
    key = (weight.data_ptr(), weight._version)  # in-place changes (an ablation) bump the version
    found = _BLOCKS.get(head)
    if found is None or found[0] != key:
        found = key, [pack(weight[start:start + block]) for start in range(0, weight.shape[0], block)]
        _BLOCKS[head] = found
    return found[1]


def describe() -> str:
    """For run records: which float32 CPU products go through oneDNN on this machine (the decoder's: linguagym's
    own decoders, in float32 without autocast, all but the down products: ``DECODER_PRODUCTS``)."""
    parts = [part if part != "decoder" else "decoder but its down products" for part in PARTS if used_for(part)]
    return f"oneDNN with packed weights: {', '.join(parts)}" if parts else "torch"
