from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring import load_scorer
from linguagym.scoring.huggingface.base import encode
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.sources import resolve_source

from .conftest import SENTENCES

MIXED = ["The farmer", "", "knows", *SENTENCES, "The keys to the cabinet are on the table. The keys are here."]


def scorer(directory: Path, tmp_path: Path, **options) -> CausalScorer:
    return CausalScorer(resolve_source(str(directory), tmp_path), **options)


def reference(directory: Path, text: str, prefix: list[int]) -> list[float]:
    """Surprisals from one plain forward pass, written independently of the scorer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory).eval()
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([prefix + ids])).logits[0].double(), -1)
    full = prefix + ids
    first = len(prefix) if prefix else 1  # without a start token the first token is not predicted
    values = [-logp[i - 1, full[i]].item() / math.log(2) for i in range(first, len(full))]
    return values if prefix else [0.0, *values]


@pytest.mark.parametrize("batch_size", [1, 2, 3, 8])
def test_batched_equals_one_at_a_time(gpt2_dir: Path, tmp_path: Path, batch_size: int) -> None:
    single = scorer(gpt2_dir, tmp_path, batch_size=1)
    alone = [single.score([text])[0] for text in MIXED]
    batched = scorer(gpt2_dir, tmp_path, batch_size=batch_size).score(MIXED)
    assert [s.text for s in batched] == MIXED
    for a, b in zip(alone, batched, strict=True):
        assert [t.token_id for t in a.tokens] == [t.token_id for t in b.tokens]
        assert max((abs(x.surprisal - y.surprisal) for x, y in zip(a.tokens, b.tokens, strict=True)), default=0) < 1e-4
    assert batched[1].tokens == ()


def test_matches_plain_forward_pass(gpt2_dir: Path, tmp_path: Path) -> None:
    scored = scorer(gpt2_dir, tmp_path).score([SENTENCES[0]])[0]
    expected = reference(gpt2_dir, SENTENCES[0], [0])
    assert [t.surprisal for t in scored.tokens] == pytest.approx(expected, abs=1e-4)
    assert all(t.surprisal > 0 for t in scored.tokens)


def test_bos_auto_none_and_explicit(gpt2_dir: Path, word_dir: Path, tmp_path: Path) -> None:
    auto = scorer(gpt2_dir, tmp_path)
    assert (auto.identity["bos_token"], auto.identity["bos_token_id"]) == ("<|endoftext|>", 0)
    none = scorer(gpt2_dir, tmp_path, bos="none")
    assert none.identity["bos_token_id"] is None
    scored = none.score([SENTENCES[1]])[0]
    assert scored.tokens[0].surprisal == 0.0
    assert [t.surprisal for t in scored.tokens] == pytest.approx(reference(gpt2_dir, SENTENCES[1], []), abs=1e-4)
    # An explicit start token other than the default changes the first surprisal only through context.
    explicit = scorer(gpt2_dir, tmp_path, bos="<pad>")
    assert explicit.identity["bos_token_id"] == 1
    first = explicit.score([SENTENCES[1]])[0].tokens[0].surprisal
    assert first == pytest.approx(reference(gpt2_dir, SENTENCES[1], [1])[0], abs=1e-4)
    assert first != pytest.approx(auto.score([SENTENCES[1]])[0].tokens[0].surprisal, abs=1e-4)
    # The word model declares distinct <s> (BOS) and </s>: auto takes BOS.
    assert scorer(word_dir, tmp_path).identity["bos_token"] == "<s>"
    with pytest.raises(ConfigurationError, match="not in the vocabulary"):
        scorer(gpt2_dir, tmp_path, bos="<nonexistent>")


def test_bos_auto_falls_back_to_eos(word_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "no-bos"
    shutil.copytree(word_dir, copy)
    for name in ("tokenizer_config.json", "special_tokens_map.json", "config.json"):
        path = copy / name
        if path.exists():
            data = json.loads(path.read_text())
            data.pop("bos_token", None)
            data.pop("bos_token_id", None)
            path.write_text(json.dumps(data))
    chosen = scorer(copy, tmp_path)
    assert (chosen.identity["bos_token"], chosen.identity["bos_token_id"]) == ("</s>", 2)
    assert len(chosen.score(["the farmer"])[0].tokens) == 2


def test_offsets_cover_the_text(gpt2_dir: Path, word_dir: Path, tmp_path: Path) -> None:
    for scored in scorer(gpt2_dir, tmp_path).score(SENTENCES):  # byte-level: spans tile the text
        spans = [(t.start, t.end) for t in scored.tokens]
        assert spans[0][0] == 0 and spans[-1][1] == len(scored.text)
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
        assert "".join(scored.text[s:e] for s, e in spans) == scored.text
    for scored in scorer(word_dir, tmp_path).score(SENTENCES):  # whole words: spans are the words
        assert [scored.text[t.start : t.end] for t in scored.tokens] == scored.text.split()


def test_unknown_tokens_are_flagged(word_dir: Path, tmp_path: Path) -> None:
    scored = scorer(word_dir, tmp_path).score(["The farmer zzyzx knows"])[0]
    assert [t.unknown for t in scored.tokens] == [False, False, True, False]
    assert scored.tokens[2].token == "<unk>" and scored.text[scored.tokens[2].start : scored.tokens[2].end] == "zzyzx"


def test_slow_tokenizer_fallback_reconstructs_spans(gpt2_dir: Path) -> None:
    from transformers import AutoTokenizer

    fast = AutoTokenizer.from_pretrained(gpt2_dir)

    class Slow:  # a tokenizer without offsets, as the Python ("slow") ones are
        is_fast = False

        def __call__(self, text: str, add_special_tokens: bool = False) -> dict:
            return {"input_ids": fast(text, add_special_tokens=add_special_tokens)["input_ids"]}

        def decode(self, ids: list[int], **kwargs) -> str:
            return fast.decode(ids, **kwargs)

    for text in SENTENCES:
        assert encode(Slow(), text).spans == encode(fast, text).spans


def test_slow_tokenizer_that_cannot_round_trip_is_refused() -> None:
    class Lowering:
        is_fast = False

        def __call__(self, text: str, add_special_tokens: bool = False) -> dict:
            return {"input_ids": [1, 2]}

        def decode(self, ids: list[int], **kwargs) -> str:
            return "the farmer"

    with pytest.raises(ConfigurationError, match="no character offsets"):
        encode(Lowering(), "The Farmer")


def test_too_long_text_is_a_clear_error(gpt2_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"text 2 needs \d+ tokens but .* at most 48"):
        scorer(gpt2_dir, tmp_path).score(["short", " ".join(SENTENCES * 3)])


def test_identity_needs_no_weights(gpt2_dir: Path, tmp_path: Path) -> None:
    first = scorer(gpt2_dir, tmp_path)
    identity = first.identity
    assert not first.is_loaded
    from linguagym.scoring.engine.device import probe_device

    # device="auto" is resolved without loading weights: "cpu" here, "cuda" on a GPU machine
    assert identity["kind"] == "causal" and identity["dtype"] == "float32"
    assert identity["device"] == probe_device("auto") and identity["device"] in ("cpu", "cuda", "mps")
    assert len(identity["revision"]) == 64 and identity["versions"]["torch"].startswith("2.")
    assert json.loads(json.dumps(identity)) == identity
    assert scorer(gpt2_dir, tmp_path).identity == identity
    assert scorer(gpt2_dir, tmp_path, bos="none").identity != identity


def test_bfloat16_on_cpu_and_float16_refused(gpt2_dir: Path, tmp_path: Path) -> None:
    exact = scorer(gpt2_dir, tmp_path).score([SENTENCES[0]])[0]
    half = scorer(gpt2_dir, tmp_path, dtype="bfloat16").score([SENTENCES[0]])[0]
    assert [t.surprisal for t in half.tokens] == pytest.approx([t.surprisal for t in exact.tokens], abs=0.2)
    with pytest.raises(ConfigurationError, match="float16 is not supported on the CPU"):
        scorer(gpt2_dir, tmp_path, dtype="float16", device="cpu").score(["x"])
    with pytest.raises(ConfigurationError, match="unknown dtype"):
        scorer(gpt2_dir, tmp_path, dtype="int8")


def test_load_scorer_on_a_directory_is_cached_and_causal(gpt2_dir: Path, tmp_path: Path) -> None:
    loaded = load_scorer(str(gpt2_dir), cache_dir=tmp_path, batch_size=3)
    assert loaded.identity["kind"] == "causal"
    first = loaded.score(SENTENCES)
    again = load_scorer(str(gpt2_dir), cache_dir=tmp_path).score(SENTENCES)
    assert first == again
    with pytest.raises(ConfigurationError, match="applies to masked"):
        load_scorer(str(gpt2_dir), pll="original", cache_dir=tmp_path)


def test_bfloat16_mixed_keeps_float32_weights_and_multiplies_in_bfloat16(gpt2_dir: Path, tmp_path: Path) -> None:
    import torch

    exact = [t.surprisal for t in scorer(gpt2_dir, tmp_path).score(SENTENCES)[0].tokens]
    half = [t.surprisal for t in scorer(gpt2_dir, tmp_path, dtype="bfloat16").score(SENTENCES)[0].tokens]
    mixed_scorer = scorer(gpt2_dir, tmp_path, dtype="bfloat16-mixed")
    model = mixed_scorer.loaded.model
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    products: list[torch.dtype] = []  # what the first block's feed-forward layer gives while scoring
    model.transformer.h[0].mlp.c_fc.register_forward_hook(lambda module, inputs, output: products.append(output.dtype))
    mixed = [t.surprisal for t in mixed_scorer.score(SENTENCES)[0].tokens]
    assert products and set(products) == {torch.bfloat16}
    assert mixed == pytest.approx(exact, abs=0.2) and mixed != exact and mixed != half
    assert mixed_scorer.identity["dtype"] == "bfloat16-mixed"  # recorded, and its own score cache entries
    assert not torch.is_autocast_enabled("cpu")  # only while scoring
