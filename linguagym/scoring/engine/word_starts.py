"""Which tokens of a vocabulary begin a word: the boundary set of the word-boundary correction.

With tokenizers that mark a word's start on its first token (byte-level BPE's ``Ġ``, SentencePiece's ``▁``), the
space that ends a word belongs to the next token. The sum of a word's token surprisals is then not the word's
surprisal: it leaves out the probability that the word ends where it does, i.e. that the next token begins a new
word (Pimentel & Meister 2024; Oh & Schuler 2024). The correction (``bow_correction``) needs, at each position, the
probability mass of the tokens that begin a word; this module decides which tokens those are.

The boundary set (decided for linguagym; docs/scoring.md, "Word-boundary correction"):

- a token whose text, read after a letter, starts with white space (``Ġthe``, ``▁the``, ``Ċ``, a byte-fallback
  newline): what minicons counts;
- a token whose text starts with punctuation (Unicode category P: ``.``, ``,``, ``?``, ``'s``, ``"``): a
  SyntaxGym region ends before punctuation as often as before a space ("swim | ."), and a word before a full stop
  ends there: without these, "the dogs swim." would count the mass of "." against " swim";
- the end-of-sequence token, and the start token the scorer puts before each text: the text may end after the
  word. (GPT-2-style models separate texts with one token: SmolLM2's ``<|endoftext|>``, its start token here,
  both ends a text and begins the next, while its files name ``<|im_end|>`` as end of sequence.)

Not in it: other special tokens, symbols (``$``), digits and letters, and partial UTF-8 byte tokens (decoded as
U+FFFD), which continue a character. At the start of a text every token begins a word, so no set is needed there.

A token's text is what it adds after a one-letter anchor (``decode([a, t])`` minus ``decode([a])``), so the same
rule reads every marking scheme the tokenizer's own decoder knows, not a list of marker characters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from linguagym.errors import ConfigurationError

REPLACEMENT = "\ufffd"


def begins_word(text: str) -> bool:
    """Whether a token adding ``text`` after a letter begins a new word (see the module doc)."""
    if not text:
        return False
    first = text[0]
    if first == REPLACEMENT:
        return False  # a partial UTF-8 sequence: the middle of a character
    return first.isspace() or unicodedata.category(first).startswith("P")


def word_start_ids(tokenizer: Any, vocab_size: int, *, ends: Iterable[int | None] = (),
                   name: str = "the model") -> list[int]:
    """Ids below ``vocab_size`` (the model's output rows) that begin a word, plus the ids in ``ends`` (the end of
    sequence, the start token); no other special token does. A ConfigurationError where the tokenizer cannot decode
    single tokens."""
    texts = _texts_after_anchor(tokenizer, vocab_size, name)
    special = _special_ids(tokenizer)
    found = [i for i, text in enumerate(texts) if i not in special and begins_word(text)]
    for end in ends:
        if end is not None and 0 <= end < vocab_size and end not in found:
            found.append(int(end))
    if not found:
        raise ConfigurationError(
            f"no token of {name}'s vocabulary begins a word, so the word-boundary correction is undefined for it",
            hint="leave bow_correction off for this model",
        )
    return sorted(found)


def _texts_after_anchor(tokenizer: Any, vocab_size: int, name: str) -> list[str]:
    """What each id adds to the text after a one-letter anchor token."""
    decode_batch = _batch_decoder(tokenizer)
    anchor = _anchor_id(tokenizer, name)
    head = decode_batch([[anchor]])[0]
    size = min(vocab_size, len(tokenizer))
    pairs = decode_batch([[anchor, i] for i in range(size)])
    texts = [pair[len(head):] if pair.startswith(head) else pair for pair in pairs]
    return texts + [""] * (vocab_size - size)  # output rows the tokenizer never produces: no word start


def _batch_decoder(tokenizer: Any):
    """A function from lists of ids to texts, special tokens kept and no clean-up of spaces."""
    backend = getattr(tokenizer, "_tokenizer", None)  # JsonTokenizer, and transformers' fast tokenizers
    if backend is not None and hasattr(backend, "decode_batch"):
        return lambda batch: backend.decode_batch(batch, skip_special_tokens=False)
    if hasattr(tokenizer, "batch_decode"):
        return lambda batch: tokenizer.batch_decode(batch, skip_special_tokens=False,
                                                    clean_up_tokenization_spaces=False)
    raise ConfigurationError("the tokenizer cannot decode token ids, so the tokens that begin a word are unknown",
                             hint="use a model directory with tokenizer.json, or leave bow_correction off")


def _anchor_id(tokenizer: Any, name: str) -> int:
    """A token that decodes to one letter, to read other tokens after (a token's leading space is only shown when
    something comes before it: SentencePiece decoders drop a text's first space)."""
    for letter in ("a", "x", "e"):
        ids = _encode_plain(tokenizer, letter)
        if len(ids) == 1:
            return ids[0]
    raise ConfigurationError(f"the tokenizer of {name} splits a single letter into several tokens",
                             hint="leave bow_correction off for this model")


def _encode_plain(tokenizer: Any, text: str) -> list[int]:
    if hasattr(tokenizer, "encodings"):  # JsonTokenizer
        return list(tokenizer.encodings([text])[0].ids)
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _special_ids(tokenizer: Any) -> set[int]:
    backend = getattr(tokenizer, "_tokenizer", None)
    if backend is not None and hasattr(backend, "get_added_tokens_decoder"):
        return {int(i) for i, token in backend.get_added_tokens_decoder().items() if token.special}
    return {int(i) for i in getattr(tokenizer, "all_special_ids", ())}
