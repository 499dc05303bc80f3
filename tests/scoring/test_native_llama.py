"""linguagym's own Llama decoder and tokenizer.json reader compute what transformers does, and are used only where
they may be: the causal scorer, plain Llama checkpoints, tokenizers that transformers would not change."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from linguagym.scoring.huggingface.base import encode_many
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.sources import resolve_source
from linguagym.scoring.native.json_tokenizer import JsonTokenizer, plain_tokenizer
from linguagym.scoring.native.llama import NativeLlama
from linguagym.scoring.native.load import native_config

from .test_prefix import ITEMS, _max_difference

# transformers 4 saves special_tokens_map.json and added_tokens_decoder beside tokenizer.json, which the
# tokenizer.json fast path declines (transformers then tokenises: the same ids, slower; make test-floors)
TRANSFORMERS_4 = int(metadata.version("transformers").split(".")[0]) < 5
needs_5_layout = pytest.mark.skipif(TRANSFORMERS_4, reason="tokenizers saved by transformers 4 take transformers' "
                                    "tokenizer, not the tokenizer.json fast path")

TRICKY = ["  two  spaces", "<|endoftext|>inside<pad>", "naïve café — “quotes” 🙂", "\ttab\nnewline", "UPPER 123 4567"]


def _tiny_llama(directory: Path, gpt2_dir: Path, **overrides) -> Path:
    """A random Llama (grouped key/value heads) over the GPT-2 test tokenizer, saved by transformers."""
    import torch
    import transformers as hf

    tokenizer = hf.AutoTokenizer.from_pretrained(gpt2_dir)
    tokenizer.save_pretrained(directory)
    torch.manual_seed(5)
    config = dict(vocab_size=len(tokenizer), bos_token_id=0, eos_token_id=0, pad_token_id=1, hidden_size=32,
                  intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  max_position_embeddings=64, rope_theta=500.0)
    config.update(overrides)
    model = hf.LlamaForCausalLM(hf.LlamaConfig(**config)).eval()
    with torch.no_grad():  # RMSNorm weights of 1 would hide a norm applied in the wrong place
        for name, parameter in model.named_parameters():
            if "norm" in name:
                parameter.uniform_(0.5, 1.5)
    model.save_pretrained(directory)
    return directory


def _scorer(directory: Path, tmp_path: Path, model_args: str | None = None, **options) -> CausalScorer:
    from linguagym.scoring.model_args import model_args as parse

    return CausalScorer(resolve_source(str(directory), tmp_path, parse(model_args)), **options)


@pytest.mark.parametrize("variant", ["tied", "untied", "biased", "multi-head"])
def test_native_scores_what_transformers_scores(gpt2_dir: Path, tmp_path: Path, variant: str) -> None:
    overrides = {
        "tied": {"tie_word_embeddings": True},
        "untied": {"tie_word_embeddings": False},
        "biased": {"attention_bias": True, "mlp_bias": True},
        "multi-head": {"num_key_value_heads": 4, "head_dim": 16},  # no grouping; head_dim other than hidden/heads
    }[variant]
    directory = _tiny_llama(tmp_path / variant, gpt2_dir, **overrides)
    native = _scorer(directory, tmp_path, batch_tokens=64)
    reference = _scorer(directory, tmp_path, "native=false", batch_tokens=64)
    native_scores, reference_scores = native.score(ITEMS), reference.score(ITEMS)
    assert isinstance(native.loaded.model, NativeLlama)
    assert type(reference.loaded.model).__name__ == "LlamaForCausalLM"
    assert _max_difference(native_scores, reference_scores) < 1e-5
    assert [t.token for t in native_scores[0].tokens] == [t.token for t in reference_scores[0].tokens]
    # plain batches (a 2-D padding mask) give the same numbers as the prefix trees
    plain = _scorer(directory, tmp_path, prefix_sharing=False, batch_tokens=256)
    assert _max_difference(plain.score(ITEMS), native_scores) < 1e-5


def test_attention_by_query_blocks_computes_the_same(gpt2_dir: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """On a CPU the queries go in blocks against the keys up to the block's end (native_llama._attention)."""
    import torch

    from linguagym.scoring.native import llama as native_llama

    directory = _tiny_llama(tmp_path / "llama", gpt2_dir)
    whole = _scorer(directory, tmp_path, batch_tokens=64).score(ITEMS)
    widths: list[tuple[int, int]] = []
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def counted(q: torch.Tensor, k: torch.Tensor, *args: object, **kwargs: object) -> torch.Tensor:
        widths.append((q.shape[2], k.shape[2]))
        return sdpa(q, k, *args, **kwargs)

    monkeypatch.setattr(native_llama, "QUERY_BLOCK", 3)
    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", counted)
    blocked = _scorer(directory, tmp_path, batch_tokens=64).score(ITEMS)
    assert widths and max(q for q, _ in widths) <= 3 and max(k for _, k in widths) > 3
    assert any(k < max(k for _, k in widths) for _, k in widths)  # early blocks skip the later keys
    assert _max_difference(blocked, whole) < 1e-6
    assert _max_difference(blocked, _scorer(directory, tmp_path, "native=false", batch_tokens=64).score(ITEMS)) < 1e-5


@pytest.mark.parametrize("dtype", ["bfloat16", "bfloat16-mixed"])
def test_native_half_precision_follows_transformers(gpt2_dir: Path, tmp_path: Path, dtype: str) -> None:
    directory = _tiny_llama(tmp_path / "llama", gpt2_dir)
    native = _scorer(directory, tmp_path, dtype=dtype).score(ITEMS)
    reference = _scorer(directory, tmp_path, "native=false", dtype=dtype).score(ITEMS)
    float32 = _scorer(directory, tmp_path).score(ITEMS)
    # the same operations in the same dtypes (equal on this CPU), and not float32's result
    assert _max_difference(native, reference) < 1e-5
    assert _max_difference(native, float32) > 1e-4


def test_sharded_weights_load(gpt2_dir: Path, tmp_path: Path) -> None:
    import torch
    import transformers as hf

    directory = _tiny_llama(tmp_path / "one", gpt2_dir)
    sharded = tmp_path / "sharded"
    hf.AutoTokenizer.from_pretrained(directory).save_pretrained(sharded)
    hf.LlamaForCausalLM.from_pretrained(directory, dtype=torch.float32).save_pretrained(sharded, max_shard_size="20KB")
    assert (sharded / "model.safetensors.index.json").is_file()
    scorer = _scorer(sharded, tmp_path)
    assert _max_difference(scorer.score(ITEMS), _scorer(directory, tmp_path).score(ITEMS)) == 0.0
    assert isinstance(scorer.loaded.model, NativeLlama)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"model_type": "mistral"}, "another architecture"),
        ({"hidden_act": "gelu"}, "another activation"),
        ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, "scaled rotary frequencies"),
        ({"rope_parameters": {"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0}}, "scaled rotary"),
        ({"pretraining_tp": 2}, "tensor-parallel slicing"),
        ({"quantization_config": {"quant_method": "bitsandbytes"}}, "quantised weights"),
        ({"architectures": ["LlamaForSequenceClassification"]}, "another head"),
    ],
)
def test_native_config_refuses_what_it_does_not_compute(gpt2_dir: Path, tmp_path: Path, change: dict,
                                                       why: str) -> None:
    assert_changed_config_refused(_tiny_llama(tmp_path / "llama", gpt2_dir), change, why)


def assert_changed_config_refused(directory: Path, change: dict, why: str) -> None:
    """The native decoder takes ``directory``, and refuses it once config.json has the keys of ``change``."""
    assert native_config(directory) is not None
    _change_config(directory, change)
    assert native_config(directory) is None, why


def _change_config(directory: Path, change: dict) -> None:
    """``directory``'s config.json with the keys of ``change`` set."""
    config = json.loads((directory / "config.json").read_text())
    config.update(change)
    (directory / "config.json").write_text(json.dumps(config))


def test_native_needs_safetensors(gpt2_dir: Path, tmp_path: Path) -> None:
    directory = _tiny_llama(tmp_path / "llama", gpt2_dir)
    (directory / "model.safetensors").rename(directory / "weights.bin")
    assert native_config(directory) is None


@needs_5_layout
def test_only_the_scorer_uses_it_and_model_arguments_turn_it_off(gpt2_dir: Path, tmp_path: Path) -> None:
    from linguagym.scoring.huggingface.causal_lm import CausalLM

    directory = _tiny_llama(tmp_path / "llama", gpt2_dir)
    lm = CausalLM.open(str(directory), cache_dir=tmp_path)  # the few-shot classifier's handle
    assert type(lm.loaded.model).__name__ == "LlamaForCausalLM"
    assert not isinstance(lm.encoder, JsonTokenizer)
    off = _scorer(directory, tmp_path, "native=false")
    assert not isinstance(off.lm.encoder, JsonTokenizer)
    on = _scorer(directory, tmp_path)
    assert isinstance(on.lm.encoder, JsonTokenizer)
    # the public tokenizer stays transformers' (callable, every method), loaded only when asked for
    assert on.tokenizer("The farmer", add_special_tokens=False)["input_ids"] == on.lm.encoder.encodings(
        ["The farmer"])[0].ids


@needs_5_layout
def test_json_tokenizer_encodes_as_transformers(gpt2_dir: Path, word_dir: Path) -> None:
    from transformers import AutoTokenizer

    for directory in (gpt2_dir, word_dir):
        plain, reference = plain_tokenizer(directory), AutoTokenizer.from_pretrained(directory)
        assert plain is not None
        texts = [*ITEMS, *TRICKY]
        assert encode_many(plain, texts) == encode_many(reference, texts)
        ids = [i for e in encode_many(reference, texts) for i in e.ids]
        assert plain.convert_ids_to_tokens(ids) == reference.convert_ids_to_tokens(ids)
        assert plain.unk_token_id == reference.unk_token_id
        assert len(plain) == len(reference)
        assert plain.convert_tokens_to_ids("<|endoftext|>") == reference.convert_tokens_to_ids("<|endoftext|>")
        # the causal filler lists the vocabulary's words by decoding each id alone
        every = range(len(reference))
        assert [plain.decode([i]) for i in every] == [reference.decode([i]) for i in every]
        assert plain.decode(ids) == reference.decode(ids)


@needs_5_layout
def test_json_tokenizer_decodes_with_transformers_clean_up(word_dir: Path, tmp_path: Path) -> None:
    """clean_up_tokenization_spaces joins " ." and " n't" after decoding, as transformers does (never for BPE)."""
    import shutil

    from transformers import AutoTokenizer

    directory = tmp_path / "tokenizer"
    shutil.copytree(word_dir, directory)
    config = json.loads((directory / "tokenizer_config.json").read_text())
    (directory / "tokenizer_config.json").write_text(json.dumps({**config, "clean_up_tokenization_spaces": True}))
    backend = json.loads((directory / "tokenizer.json").read_text())
    vocab = backend["model"]["vocab"]
    for word in (".", "n't", "do"):
        vocab[word] = len(vocab)
    (directory / "tokenizer.json").write_text(json.dumps(backend))
    plain, reference = plain_tokenizer(directory), AutoTokenizer.from_pretrained(directory)
    assert plain is not None
    ids = plain.encodings(["The farmer do n't knows the cabinet ."])[0].ids
    assert reference.decode(ids) == "The farmer don't knows the cabinet."  # transformers did clean up
    assert plain.decode(ids) == reference.decode(ids)
    assert [plain.decode([i]) for i in ids] == [reference.decode([i]) for i in ids]


@pytest.mark.parametrize(
    "setting",
    [{"add_prefix_space": True}, {"do_lower_case": True}, {"tokenizer_class": "GPT2Tokenizer"},
     {"added_tokens_decoder": {}}, {"bos_token": "<s>"}, {"extra_special_tokens": ["<new>"]}],
)
def test_json_tokenizer_leaves_other_settings_to_transformers(gpt2_dir: Path, tmp_path: Path, setting: dict) -> None:
    import shutil

    directory = tmp_path / "tokenizer"
    shutil.copytree(gpt2_dir, directory)
    config = json.loads((directory / "tokenizer_config.json").read_text())
    (directory / "tokenizer_config.json").write_text(json.dumps({**config, **setting}))
    assert plain_tokenizer(directory) is None


@needs_5_layout
def test_scoring_a_llama_imports_no_transformers(gpt2_dir: Path, tmp_path: Path) -> None:
    directory = _tiny_llama(tmp_path / "llama", gpt2_dir)
    probe = (
        "import json, sys\n"
        "from linguagym.scoring.huggingface.causal import CausalScorer\n"
        "from linguagym.scoring.huggingface.sources import resolve_source\n"
        f"scorer = CausalScorer(resolve_source({str(directory)!r}, __import__('pathlib').Path({str(tmp_path)!r})))\n"
        "scored = scorer.score(['The farmer near the clerks knows the answer.'])\n"
        "print(json.dumps({'tokens': len(scored[0].tokens), 'heavy': sorted(m for m in sys.modules if m.split('.')[0]"
        " in ('transformers', 'torch._dynamo') or m == 'torch._dynamo')}))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["tokens"] > 3
    assert found["heavy"] == [], found["heavy"]


def test_a_missing_tensor_is_a_clear_error(gpt2_dir: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    from linguagym.errors import ConfigurationError

    directory = _tiny_llama(tmp_path / "llama", gpt2_dir, tie_word_embeddings=False)
    tensors = load_file(directory / "model.safetensors")
    del tensors["model.layers.1.mlp.up_proj.weight"]
    save_file(tensors, directory / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ConfigurationError, match="model.layers.1.mlp.up_proj.weight"):
        _ = _scorer(directory, tmp_path).loaded


def test_without_the_reader_transformers_tokenizer_loads_once(gpt2_dir: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import transformers

    directory = tmp_path / "gpt2"  # a model transformers loads, with a tokenizer the reader leaves to it
    shutil.copytree(gpt2_dir, directory)
    config = json.loads((directory / "tokenizer_config.json").read_text())
    (directory / "tokenizer_config.json").write_text(json.dumps({**config, "legacy": False}))
    loads: list[object] = []
    real = transformers.AutoTokenizer.from_pretrained

    def counted(*args, **kwargs):
        loads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", counted)
    scorer = _scorer(directory, tmp_path)
    assert scorer.count_tokens(ITEMS) > 0  # counting, then scoring: one tokenizer, handed to the weights' loader
    scorer.score(ITEMS)
    assert not isinstance(scorer.lm.encoder, JsonTokenizer)
    assert not isinstance(scorer.loaded.model, NativeLlama)
    assert len(loads) == 1
