"""The causal-LM handle: found without weights, start token resolved and checked, shared by its users."""

from __future__ import annotations

import json
import weakref
from pathlib import Path
from types import SimpleNamespace

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.causal_lm import CausalLM, NotCausalError
from linguagym.scoring.huggingface.sources import resolve_source
from linguagym.scoring.registry import load_scorer, release_scorer

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


class _CollectorCalls:
    """Counts full collections asked for by ``release_scorer`` (and still runs them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import gc

        import linguagym.scoring.registry as registry

        self.count = 0

        def collect(*args: object) -> int:
            self.count += 1
            return gc.collect(*args)

        monkeypatch.setattr(registry, "gc", SimpleNamespace(collect=collect))


def test_releasing_a_scorer_frees_its_weights_without_walking_every_object(gpt2_dir: Path, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    collector = _CollectorCalls(monkeypatch)
    for scorer in (load_scorer(str(gpt2_dir), device="cpu", cache_dir=str(tmp_path)),  # cached, as runs make them
                   load_scorer(str(gpt2_dir), device="cpu", score_cache=False)):
        inner = getattr(scorer, "inner", scorer)
        scorer.score(SENTENCES[:2])
        model = weakref.ref(inner.loaded.model)
        release_scorer(scorer)  # the caller still holds ``scorer``: the weights go all the same
        assert model() is None and not inner.is_loaded
        assert inner.score(SENTENCES[:1])[0].tokens  # used again, it loads them again
    assert collector.count == 0


def test_weights_held_in_a_reference_cycle_are_collected(gpt2_dir: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    collector = _CollectorCalls(monkeypatch)
    scorer = load_scorer(str(gpt2_dir), device="cpu", score_cache=False)
    cycle: dict = {}
    cycle["self"], cycle["model"] = cycle, scorer.loaded.model
    model = weakref.ref(scorer.loaded.model)
    del cycle
    release_scorer(scorer)
    assert collector.count == 1 and model() is None


def test_a_shared_model_stays_loaded_for_its_other_users(gpt2_dir: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    collector = _CollectorCalls(monkeypatch)
    lm = CausalLM.open(str(gpt2_dir), cache_dir=tmp_path, device="cpu")
    lm.warm_up()
    release_scorer(CausalScorer.on(lm))
    assert lm.is_loaded and collector.count == 1  # it cannot know who else holds the weights: it collects
