"""linguagym's own Gemma 3 text decoder computes what transformers' Gemma3ForCausalLM does, in the prefix trees and
in plain batches with sliding windows, and takes only the checkpoints it computes exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linguagym.scoring.engine.prefix import supports_tree
from linguagym.scoring.huggingface.base import encode_many
from linguagym.scoring.native.gemma3 import NativeGemma3, gemma3_config
from linguagym.scoring.native.json_tokenizer import JsonTokenizer, plain_tokenizer

from .test_native_llama import TRICKY, _scorer, assert_changed_config_refused
from .test_prefix import ITEMS, _max_difference

LONG = ["The keys to the old wooden cabinet in the back room of the house that my grandmother built are on the "
        "kitchen table next to the window.", "No"]


def _tiny_gemma3(directory: Path, gpt2_dir: Path, **overrides) -> Path:
    """A random Gemma 3 text model (one sliding-window layer, one global; grouped key/value heads) over the GPT-2
    test tokenizer, saved by transformers."""
    import torch
    import transformers as hf

    tokenizer = hf.AutoTokenizer.from_pretrained(gpt2_dir)
    tokenizer.save_pretrained(directory)
    torch.manual_seed(7)
    config = dict(vocab_size=len(tokenizer), bos_token_id=0, eos_token_id=0, pad_token_id=1, hidden_size=32,
                  intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  head_dim=8, query_pre_attn_scalar=8, layer_types=["sliding_attention", "full_attention"],
                  sliding_window=64, max_position_embeddings=128)
    config.update(overrides)
    model = hf.Gemma3ForCausalLM(hf.Gemma3TextConfig(**config)).eval()
    with torch.no_grad():  # Gemma's norms scale by 1 + weight: zeros (the initial weights) would hide a misplaced one
        for name, parameter in model.named_parameters():
            if "norm" in name:
                parameter.uniform_(-0.5, 0.5)
    model.save_pretrained(directory)
    return directory


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "bfloat16-mixed"])
def test_native_gemma3_scores_what_transformers_scores(gpt2_dir: Path, tmp_path: Path, dtype: str) -> None:
    directory = _tiny_gemma3(tmp_path / "gemma", gpt2_dir)
    native = _scorer(directory, tmp_path, batch_tokens=64, dtype=dtype)
    reference = _scorer(directory, tmp_path, "native=false", batch_tokens=64, dtype=dtype)
    found, expected = native.score(ITEMS), reference.score(ITEMS)
    assert isinstance(native.loaded.model, NativeGemma3)
    assert supports_tree(native.loaded.model, 20)  # the prefix trees, one mask for every layer
    assert type(reference.loaded.model).__name__ == "Gemma3ForCausalLM"
    assert _max_difference(found, expected) < 1e-5
    if dtype == "float32":  # plain batches (a 2-D padding mask) give the prefix trees' numbers
        plain = _scorer(directory, tmp_path, prefix_sharing=False, batch_tokens=256)
        assert _max_difference(plain.score(ITEMS), found) < 1e-5


def test_sliding_window_layers_see_only_the_window(gpt2_dir: Path, tmp_path: Path) -> None:
    """A window shorter than the sentence: no prefix trees (their masks have no window), and the plain batches'
    sliding layers see the last 4 positions, as transformers' do."""
    directory = _tiny_gemma3(tmp_path / "gemma", gpt2_dir, sliding_window=4)
    found = _scorer(directory, tmp_path, batch_tokens=256).score(LONG)
    expected = _scorer(directory, tmp_path, "native=false", batch_tokens=256).score(LONG)
    assert len(found[0].tokens) > 8
    assert _max_difference(found, expected) < 1e-5
    wide = _tiny_gemma3(tmp_path / "wide", gpt2_dir, sliding_window=64)  # the same weights, a window that covers all
    assert _max_difference(_scorer(wide, tmp_path, batch_tokens=256).score(LONG), found) > 1e-3


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"architectures": ["Gemma3ForConditionalGeneration"]}, "the multimodal model"),
        ({"final_logit_softcapping": 30.0}, "soft-capped logits"),
        ({"attn_logit_softcapping": 50.0}, "soft-capped attention"),
        ({"hidden_activation": "gelu"}, "another activation"),
        ({"use_bidirectional_attention": True}, "bidirectional attention"),
        ({"rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}, "scaled rotary"),
        ({"layer_types": ["sliding_attention"]}, "layer types that do not match the layers"),
    ],
)
def test_native_config_refuses_what_it_does_not_compute(gpt2_dir: Path, tmp_path: Path, change: dict,
                                                        why: str) -> None:
    assert_changed_config_refused(_tiny_gemma3(tmp_path / "gemma", gpt2_dir), change, why)


def test_native_config_reads_transformers_4_rope_keys(gpt2_dir: Path, tmp_path: Path) -> None:
    """transformers 4.x (and the hub's config.json files) write rope_theta / rope_local_base_freq / rope_scaling
    where 5 writes rope_parameters: the same rotary bases either way, and a scaled rope refused in both."""
    config = json.loads((_tiny_gemma3(tmp_path / "gemma", gpt2_dir) / "config.json").read_text(encoding="utf-8"))
    found = gemma3_config(config)
    assert found is not None
    bases = dict(found.rope_thetas)
    legacy = {k: v for k, v in config.items() if k not in ("rope_parameters", "rope_theta", "rope_local_base_freq")}
    legacy.update(rope_theta=bases["full_attention"], rope_local_base_freq=bases["sliding_attention"],
                  rope_scaling=None)
    assert gemma3_config(legacy) == found
    assert gemma3_config({**legacy, "rope_scaling": {"rope_type": "linear", "factor": 8.0}}) is None
    assert gemma3_config({k: v for k, v in legacy.items() if k != "rope_local_base_freq"}) is None


def _gemma_tokenizer(directory: Path) -> Path:
    """A small transformers GemmaTokenizer (byte fallback, a few merges, a non-special added token), saved."""
    import string

    import transformers as hf

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3, "<mask>": 4}
    vocab.update({f"<0x{byte:02X}>": 5 + byte for byte in range(256)})
    for piece in [*string.ascii_letters, *string.digits, *".,!?'-", "\u2581"]:
        vocab.setdefault(piece, len(vocab))
    merges = [("\u2581", "t"), ("h", "e"), ("\u2581t", "he"), ("\u2581", "a"), ("i", "n"), ("e", "r")]
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    tokenizer = hf.GemmaTokenizer(vocab=vocab, merges=merges)
    tokenizer.add_tokens(["\n\n"])
    tokenizer.save_pretrained(directory)
    return directory


def test_a_gemma_tokenizer_json_is_read_without_transformers(tmp_path: Path) -> None:
    """transformers 5's GemmaTokenizer rebuilds its backend from the file's vocabulary and merges; where the file's
    components are the ones it builds, tokenizer.json read alone encodes the same."""
    import transformers as hf

    if int(hf.__version__.split(".")[0]) < 5:
        pytest.skip("transformers 4's GemmaTokenizer is sentencepiece's (a tokenizer.model file): no vocabulary "
                    "and merges to build this test's tokenizer from, and nothing rebuilt from tokenizer.json")
    directory = _gemma_tokenizer(tmp_path / "tokenizer")
    plain = plain_tokenizer(directory)
    if tuple(int(p) for p in hf.__version__.split(".")[:2]) < (5, 18):
        # older transformers (make test-floors: 5.0) rebuild Gemma's tokenizer with other components: the fast
        # path declines and transformers tokenises
        assert plain is None
        return
    reference = hf.AutoTokenizer.from_pretrained(directory)
    assert isinstance(plain, JsonTokenizer) and type(reference).__name__ == "GemmaTokenizer"
    texts = [*TRICKY, *ITEMS, "The other   theater\n\nin<mask>x", "\u00e9t\u00e9 \u2581 ?!"]
    assert encode_many(plain, texts) == encode_many(reference, texts)
    assert plain.unk_token_id == reference.unk_token_id and len(plain) == len(reference)
    tokenizer_json = directory / "tokenizer.json"
    original = tokenizer_json.read_text(encoding="utf-8")
    for change in ({"pre_tokenizer": {"type": "Whitespace"}}, {"normalizer": None}):
        data = json.loads(original)
        data.update(change)
        tokenizer_json.write_text(json.dumps(data), encoding="utf-8")
        assert plain_tokenizer(directory) is None, change  # transformers would build other components
    data = json.loads(original)
    data["model"]["byte_fallback"] = False
    tokenizer_json.write_text(json.dumps(data), encoding="utf-8")
    assert plain_tokenizer(directory) is None
