"""Builders of tiny random models for tests (offline, seconds)."""

from __future__ import annotations

from pathlib import Path


def save_causal(
    directory: Path, backend, *, bos: str | None, eos: str, unk: str | None, seed: int, n_positions: int = 48
) -> Path:
    """A random GPT-2 over ``backend``'s vocabulary, saved with its tokenizer as a normal HF directory."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    special = {"eos_token": eos}
    if bos:
        special["bos_token"] = bos
    if unk:
        special["unk_token"] = unk
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, **special)
    tokenizer.save_pretrained(directory)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=backend.get_vocab_size(),
        n_positions=n_positions,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=backend.token_to_id(bos) if bos else None,
        eos_token_id=backend.token_to_id(eos),
    )
    GPT2LMHeadModel(config).eval().save_pretrained(directory)
    return directory


def save_byte_level_lm(directory: Path, corpus: list[str], *, vocab_size: int, seed: int, n_positions: int) -> Path:
    """A random GPT-2 over a byte-level BPE trained on ``corpus`` (``<|endoftext|>`` starts and ends sentences)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(corpus, trainer)
    return save_causal(directory, backend, bos="<|endoftext|>", eos="<|endoftext|>", unk=None, seed=seed,
                       n_positions=n_positions)


def save_example_suites_lm(directory: Path, *, vocab_size: int, seed: int) -> Path:
    """A random byte-level GPT-2 whose BPE tokenizer was trained on the bundled example suites' sentences."""
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.suites import example_suite_paths, read_suite

    texts = [s.text for p in example_suite_paths() for s in suite_sentences(read_suite(p).suite)]
    return save_byte_level_lm(directory, texts, vocab_size=vocab_size, seed=seed, n_positions=128)


def save_suites_lm(directory: Path, suite_paths: list[Path], *, vocab_size: int, seed: int,
                   n_positions: int = 64) -> Path:
    """A random byte-level GPT-2 whose BPE tokenizer was trained on the sentences of ``suite_paths`` (the 34
    SyntaxGym suites: at most 42 tokens a sentence with ``vocab_size=2000``)."""
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.suites import read_suite

    texts = [s.text for p in suite_paths for s in suite_sentences(read_suite(p).suite)]
    return save_byte_level_lm(directory, texts, vocab_size=vocab_size, seed=seed, n_positions=n_positions)
