"""Float32 products through oneDNN with packed weights (``scoring.onednn``): torch's values within float32
rounding, used by the causal scorer's float32 CPU work where they may be, and nowhere else."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest
import torch
from torch import nn

from linguagym.scoring.engine.prefix import VOCAB_BLOCK, Projection, _blocked_logsumexp
from linguagym.scoring.native import onednn
from linguagym.scoring.native.llama import NativeLlama

from .test_native_llama import _scorer, _tiny_llama
from .test_prefix import ITEMS, _max_difference

# (not ``onednn.enabled()``, which a wrong product turns off: here it fails the tests)
needs_onednn = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64") or not torch.backends.mkldnn.is_available(),
    reason="needs an x86-64 CPU and a torch built with oneDNN")


@needs_onednn
@pytest.mark.parametrize("bias", [True, False])
def test_packed_linear_computes_the_linear(bias: bool) -> None:
    torch.manual_seed(0)
    linear = nn.Linear(48, 80, bias=bias)
    x = torch.randn(3, 7, 48)  # any leading shape
    expected = linear(x)
    packed = onednn.PackedLinear(linear)
    found = packed(x)
    assert found.shape == expected.shape
    assert torch.allclose(found, expected, rtol=1e-5, atol=1e-5)
    assert not hasattr(packed, "weight")  # no dense copy kept beside the packed one
    with torch.no_grad():
        linear.weight[0, 0] += 1.0  # the comparison can fail
    assert not torch.allclose(found, linear(x), rtol=1e-5, atol=1e-5)


def test_the_environment_variable_turns_parts_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onednn, "enabled", lambda: True)
    for setting, expected in [("0", []), ("off", []), ("projection", ["projection"]), ("decoder", ["decoder"]),
                              ("", ["projection", "decoder"]), ("1", ["projection", "decoder"])]:
        monkeypatch.setenv(onednn.ENV, setting)
        assert [part for part in onednn.PARTS if onednn.used_for(part)] == expected, setting
    monkeypatch.setenv(onednn.ENV, "0")
    assert onednn.describe() == "torch"


def test_a_product_that_disagrees_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    onednn.enabled.cache_clear()
    try:
        monkeypatch.setattr(onednn, "product", lambda x, packed, bias, out: torch.zeros(x.shape[0], out))
        assert not onednn.enabled()
        onednn.enabled.cache_clear()

        def broken(x: object, packed: object, bias: object, out: int) -> object:
            raise RuntimeError("no such operator")

        monkeypatch.setattr(onednn, "product", broken)
        assert not onednn.enabled()
    finally:
        onednn.enabled.cache_clear()


def product_of(packed: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    return onednn.product(hidden, packed, None, VOCAB_BLOCK)


@needs_onednn
def test_packed_projection_blocks_give_the_log_sum_exp(monkeypatch: pytest.MonkeyPatch) -> None:
    torch.manual_seed(1)
    head = nn.Linear(24, 2 * VOCAB_BLOCK + 77, bias=True)  # a last block shorter than the others
    hidden = torch.randn(9, 24)
    blocks = onednn.head_blocks(head, VOCAB_BLOCK)
    assert blocks is not None and len(blocks) == 3
    assert onednn.head_blocks(head, VOCAB_BLOCK) is blocks  # packed once per head
    with torch.no_grad():
        head.weight[5, 0] += 1.0  # changed in place (an ablation): packed again, not stale
    again = onednn.head_blocks(head, VOCAB_BLOCK)
    assert again is not blocks
    assert not torch.equal(product_of(again[0], hidden), product_of(blocks[0], hidden))
    blocks = again
    expected = torch.logsumexp(head(hidden).double(), dim=-1)
    packed = _blocked_logsumexp(hidden, head, None, blocks)[0]
    plain = _blocked_logsumexp(hidden, head, None)[0]
    assert (packed.double() - expected).abs().max() < 1e-5
    assert (plain.double() - expected).abs().max() < 1e-5
    assert onednn.head_blocks(head.bfloat16(), VOCAB_BLOCK) is None  # float32 heads only
    monkeypatch.setattr(onednn, "BLOCKS_LIMIT", 1000)
    assert onednn.head_blocks(nn.Linear(24, 100), VOCAB_BLOCK) is None  # no copy larger than the limit
    monkeypatch.setenv(onednn.ENV, "decoder")
    assert onednn.head_blocks(nn.Linear(24, 100), VOCAB_BLOCK) is None


@needs_onednn
def test_the_native_scorer_packs_float32_products_on_the_cpu(gpt2_dir: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _tiny_llama(tmp_path / "llama", gpt2_dir)
    packed = _scorer(directory, tmp_path, batch_tokens=64)
    scores = packed.score(ITEMS)
    model = packed.loaded.model
    assert isinstance(model, NativeLlama)
    dense = [name for name, m in model.named_modules() if isinstance(m, nn.Linear)]
    # every product of the layers packed but the down products (precision); the head stays dense (tied, projected)
    assert dense == ["model.layers.0.mlp.down_proj", "model.layers.1.mlp.down_proj", "lm_head"]
    assert sum(isinstance(m, onednn.PackedLinear) for m in model.modules()) == 6 * 2
    assert Projection(model, torch.device("cpu")).blocks is not None
    monkeypatch.setenv(onednn.ENV, "0")
    plain = _scorer(directory, tmp_path, batch_tokens=64)
    assert _max_difference(plain.score(ITEMS), scores) < 1e-5
    assert not any(isinstance(m, onednn.PackedLinear) for m in plain.loaded.model.modules())
    assert Projection(plain.loaded.model, torch.device("cpu")).blocks is None
    monkeypatch.delenv(onednn.ENV)
    mixed = _scorer(directory, tmp_path, dtype="bfloat16-mixed")  # autocast needs torch's own products
    mixed.score(ITEMS[:1])
    assert not any(isinstance(m, onednn.PackedLinear) for m in mixed.loaded.model.modules())


@needs_onednn
def test_runs_record_the_products() -> None:
    from linguagym.evaluation.run import _environment

    identity = {"device": "cpu"}
    assert _environment(identity)["cpu_float32_products"] == \
        "oneDNN with packed weights: projection, decoder but its down products"
    assert "cpu_float32_products" not in _environment({"device": "cuda"})
    assert "cpu_float32_products" not in _environment(None)  # scored elsewhere (Ray)
