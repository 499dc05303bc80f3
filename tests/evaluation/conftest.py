from __future__ import annotations

from pathlib import Path

import pytest

from linguagym.evaluation.evaluate import suite_sentences
from linguagym.suites import example_suite_paths, read_suite
from tests.tiny_models import save_causal


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random byte-level GPT-2 whose tokenizer was trained on the example suites' sentences."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    texts = [s.text for p in example_suite_paths() for s in suite_sentences(read_suite(p).suite)]
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(texts, trainer)
    return save_causal(tmp_path_factory.mktemp("tiny-lm"), backend, bos="<|endoftext|>", eos="<|endoftext|>",
                       unk=None, seed=3, n_positions=128)
