"""Tiny models built offline: a random GPT-2 with a byte-level BPE tokenizer, a word-level causal model with
an unknown token, and a random BERT MLM with a WordPiece tokenizer. All trained on a few sentences."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from tests.tiny_models import save_causal

# Where the slow tests keep the real named model between runs (de-quantising costs ~10 s).
MODEL_CACHE = Path(os.environ.get("LINGUAGYM_TEST_MODEL_CACHE") or platformdirs.user_cache_dir("linguagym"))
os.environ["HF_HUB_OFFLINE"] = "1"

SENTENCES = [
    "The farmer near the clerks knows the answer.",
    "The farmers near the clerk know the answers.",
    "The keys to the cabinet are on the table.",
    "No student that the teachers liked has ever failed.",
    "The author that the guards like laughed at herself.",
    "While the man hunted the deer ran into the woods.",
    "Unbelievably, the internationalisation committee reconvened.",
]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def gpt2_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<|endoftext|>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    backend.train_from_iterator(SENTENCES, trainer)
    return save_causal(
        tmp_path_factory.mktemp("gpt2"), backend, bos="<|endoftext|>", eos="<|endoftext|>", unk=None, seed=0
    )


@pytest.fixture(scope="session")
def word_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A causal model over whole words with an <unk> token, distinct <s> and </s>."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    backend = Tokenizer(models.WordLevel(unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordLevelTrainer(special_tokens=["<unk>", "<s>", "</s>"])
    backend.train_from_iterator(SENTENCES, trainer)
    return save_causal(tmp_path_factory.mktemp("word"), backend, bos="<s>", eos="</s>", unk="<unk>", seed=1)


@pytest.fixture(scope="session")
def bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    directory = tmp_path_factory.mktemp("bert")
    backend = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    # A small vocabulary, so that rarer words split into several pieces.
    backend.train_from_iterator(SENTENCES, trainers.WordPieceTrainer(vocab_size=120, special_tokens=specials))
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", backend.token_to_id("[CLS]")), ("[SEP]", backend.token_to_id("[SEP]"))],
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    tokenizer.save_pretrained(directory)
    torch.manual_seed(2)
    config = BertConfig(
        vocab_size=backend.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=0,
    )
    BertForMaskedLM(config).eval().save_pretrained(directory)
    return directory
