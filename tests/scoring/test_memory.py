"""A model whose weights cannot fit is refused before loading, with the sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring.huggingface import memory
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.sources import resolve_source


def test_parameter_count_reads_the_safetensors_headers(gpt2_dir: Path) -> None:
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(gpt2_dir)
    stored = {id(p): p.numel() for p in model.parameters()}  # tied weights once
    assert memory.parameter_count(gpt2_dir) == sum(stored.values())
    assert memory.parameter_count(gpt2_dir.parent) is None  # no weights there


def test_free_memory_is_known_on_linux() -> None:
    free = memory.free_bytes("cpu")
    assert free is None or free > 0


def test_weights_that_cannot_fit_are_refused_before_loading(gpt2_dir: Path, tmp_path: Path, monkeypatch) -> None:
    count = memory.parameter_count(gpt2_dir)
    monkeypatch.setattr(memory, "free_bytes", lambda target: count * 3)  # room for bfloat16, not for float32
    scorer = CausalScorer(resolve_source(str(gpt2_dir), tmp_path), device="cpu")
    with pytest.raises(ConfigurationError) as caught:
        scorer.score(["The farmer knows."])
    assert f"needs {count * 4 / 2**30:.1f} GiB" in caught.value.message and "in float32" in caught.value.message
    assert "`dtype` bfloat16" in caught.value.hint and caught.value.settings == ("dtype",)
    assert not scorer.is_loaded  # nothing was loaded
    assert CausalScorer(resolve_source(str(gpt2_dir), tmp_path), device="cpu", dtype="bfloat16").score(["The farmer."])
