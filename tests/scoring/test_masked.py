from __future__ import annotations

import math
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring import load_scorer
from linguagym.scoring.huggingface.masked import MaskedScorer, mask_plan
from linguagym.scoring.huggingface.sources import resolve_source

from .conftest import SENTENCES

TEXTS = ["The farmer knows.", *SENTENCES, "Unbelievably reconvened zebras!"]


def naive_pll(directory: Path, text: str, variant: str) -> list[float]:
    """One sequence at a time, straight from the definitions."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForMaskedLM.from_pretrained(directory).eval()
    enc = tokenizer(text)
    ids, words = enc["input_ids"], enc.word_ids()
    values = []
    for i in range(1, len(ids) - 1):  # between [CLS] and [SEP]
        masked = list(ids)
        masked[i] = tokenizer.mask_token_id
        if variant == "within_word_l2r":
            for j in range(i + 1, len(ids) - 1):
                if words[j] == words[i]:
                    masked[j] = tokenizer.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked])).logits[0, i].double()
        values.append(-torch.log_softmax(logits, -1)[ids[i]].item() / math.log(2))
    return values


def test_mask_plan() -> None:
    words = [0, 1, 1, 1, 2, None]
    assert mask_plan(words, "original") == [[0], [1], [2], [3], [4], [5]]
    assert mask_plan(words, "within_word_l2r") == [[0], [1, 2, 3], [2, 3], [3], [4], [5]]


@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
@pytest.mark.parametrize("batch_size", [1, 5, 64])
def test_pll_equals_naive_loop(bert_dir: Path, tmp_path: Path, variant: str, batch_size: int) -> None:
    scorer = MaskedScorer(resolve_source(str(bert_dir), tmp_path), pll=variant, batch_size=batch_size)
    scored = scorer.score(TEXTS)
    for text, result in zip(TEXTS, scored, strict=True):
        assert [t.surprisal for t in result.tokens] == pytest.approx(naive_pll(bert_dir, text, variant), abs=1e-4)


def test_variants_differ_on_split_words_only(bert_dir: Path, tmp_path: Path) -> None:
    text = TEXTS[-1]
    source = resolve_source(str(bert_dir), tmp_path)
    original = MaskedScorer(source, pll="original").score([text])[0]
    l2r = MaskedScorer(source, pll="within_word_l2r").score([text])[0]
    assert any(t.token.startswith("##") for t in original.tokens), "fixture must split a word into pieces"
    differs = [abs(a.surprisal - b.surprisal) > 1e-6 for a, b in zip(original.tokens, l2r.tokens, strict=True)]
    assert any(differs)
    # The last piece of every word (and single-piece words) is scored identically by both variants.
    for k, _token in enumerate(original.tokens):
        nxt = original.tokens[k + 1] if k + 1 < len(original.tokens) else None
        if nxt is None or not nxt.token.startswith("##"):
            assert not differs[k]


def test_spans_and_unknowns(bert_dir: Path, tmp_path: Path) -> None:
    scored = MaskedScorer(resolve_source(str(bert_dir), tmp_path)).score(["The farmer knows \u20ac5."])[0]
    pieces = [scored.text[t.start : t.end].lower() for t in scored.tokens]
    assert "".join(pieces) == scored.text.replace(" ", "").lower()
    assert any(t.unknown for t in scored.tokens)
    assert scored.tokens[0].token == "the"  # [CLS] is context, not listed


def test_load_scorer_recognises_masked_models(bert_dir: Path, tmp_path: Path) -> None:
    scorer = load_scorer(str(bert_dir), cache_dir=tmp_path)
    assert scorer.identity["kind"] == "masked" and scorer.identity["pll"] == "original"
    l2r = load_scorer(str(bert_dir), pll="within_word_l2r", cache_dir=tmp_path)
    assert l2r.identity["pll"] == "within_word_l2r"
    with pytest.raises(ConfigurationError, match="unknown PLL variant"):
        load_scorer(str(bert_dir), pll="sideways", cache_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="applies to causal models"):
        load_scorer(str(bert_dir), bos="none", cache_dir=tmp_path)


def test_bfloat16_mixed_scores_masked_models_near_float32(bert_dir: Path, tmp_path: Path) -> None:
    import torch

    texts = ["The farmer knows the keys.", "The keys to the cabinet are on the table."]
    exact = MaskedScorer(resolve_source(str(bert_dir), tmp_path)).score(texts)
    mixed_scorer = MaskedScorer(resolve_source(str(bert_dir), tmp_path), dtype="bfloat16-mixed")
    mixed = mixed_scorer.score(texts)
    assert {p.dtype for p in mixed_scorer.loaded.model.parameters()} == {torch.float32}
    for a, b in zip(exact, mixed, strict=True):
        assert [t.token for t in a.tokens] == [t.token for t in b.tokens]
        assert [t.surprisal for t in b.tokens] == pytest.approx([t.surprisal for t in a.tokens], abs=0.5)
    assert [t.surprisal for t in mixed[0].tokens] != [t.surprisal for t in exact[0].tokens]  # bfloat16 products
    assert mixed_scorer.identity["dtype"] == "bfloat16-mixed"
