from __future__ import annotations

from pathlib import Path

import pytest

from linguagym.capabilities.differentiate import Mask, MaskedSentence
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.fill import MaskedLMFiller, is_word

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
