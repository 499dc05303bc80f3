"""The causal-LM handle: found without weights, start token resolved and checked, shared by its users."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring.causal import CausalScorer
from linguagym.scoring.causal_lm import CausalLM, NotCausalError
from linguagym.scoring.sources import resolve_source

from .conftest import SENTENCES


def test_identity_and_start_token_need_no_weights(gpt2_dir: Path, tmp_path: Path) -> None:
    lm = CausalLM.open(str(gpt2_dir), cache_dir=tmp_path, device="cpu")
    assert (lm.bos_token, lm.bos_token_id, lm.start_ids) == ("<|endoftext|>", 0, [0])
    identity = lm.identity
    assert identity["source_kind"] == "directory" and identity["dtype"] == "float32" and identity["device"] == "cpu"
    assert (identity["bos_token"], identity["bos_token_id"]) == ("<|endoftext|>", 0)
    assert json.loads(json.dumps(identity)) == identity
    assert lm.count_tokens(SENTENCES[:2]) > 0 and not lm.is_loaded
    assert CausalLM.open(str(gpt2_dir), cache_dir=tmp_path, bos="none").start_ids == []


def test_the_scorer_identity_is_the_handle_identity_and_its_settings(gpt2_dir: Path, tmp_path: Path) -> None:
    scorer = CausalScorer(resolve_source(str(gpt2_dir), tmp_path), bos="<pad>", device="cpu")
    assert scorer.identity == {"kind": "causal", **scorer.lm.identity, "bos": "<pad>", "pll": None,
                               "versions": scorer.identity["versions"]}
    assert scorer.lm.start_ids == [1]


def test_a_scorer_on_a_handle_shares_its_weights_and_numbers(gpt2_dir: Path, tmp_path: Path) -> None:
    lm = CausalLM.open(str(gpt2_dir), cache_dir=tmp_path, device="cpu")
    lm.warm_up()
    shared = CausalScorer.on(lm, batch_size=2)
    assert shared.lm is lm and shared.is_loaded and shared.loaded is lm.loaded
    own = CausalScorer(resolve_source(str(gpt2_dir), tmp_path), device="cpu")
    assert shared.identity == own.identity
    assert shared.score(SENTENCES) == own.score(SENTENCES)


def test_a_masked_lm_is_refused_before_anything_else(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertForMaskedLM"]}))
    with pytest.raises(NotCausalError, match="masked LM") as caught:
        CausalLM.open(str(tmp_path), cache_dir=tmp_path / "cache")
    assert isinstance(caught.value, ConfigurationError)


def test_a_start_token_the_loaded_tokenizer_disagrees_with_is_refused(gpt2_dir: Path, tmp_path: Path) -> None:
    lm = CausalLM.open(str(gpt2_dir), cache_dir=tmp_path, device="cpu")
    lm.bos_token_id = 1  # what the files would say if they disagreed with the tokenizer
    with pytest.raises(ConfigurationError, match="has id 0 in the loaded tokenizer"):
        lm.warm_up()
    assert not lm.is_loaded  # a refused model is not kept half-checked
