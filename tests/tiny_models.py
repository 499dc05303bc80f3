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
