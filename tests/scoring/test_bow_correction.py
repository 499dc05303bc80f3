"""Word-boundary correction (``bow_correction``): the boundary set, and corrected values against the definition
computed independently in float64 (Pimentel & Meister 2024: a word's probability is that of its tokens followed by a
token that begins a word, over the probability that a word begins where it starts)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring import load_scorer
from linguagym.scoring.engine.word_starts import begins_word
from linguagym.scoring.huggingface.causal import corrected

from .conftest import SENTENCES

TEXTS = [*SENTENCES, "The dogs swim.", "The dog swims", "Well-known, the farmer's keys... are (here)!"]


def _byte_of_marker() -> dict[str, int]:
    """GPT-2's byte-to-character table, inverted: the byte each character of a byte-level BPE piece stands for."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {b: b for b in printable}, 0
    for b in range(256):
        if b not in chars:
            chars[b] = 256 + extra
            extra += 1
    return {chr(c): b for b, c in chars.items()}


def _marked_word_starts(tokenizer, eos_id: int) -> set[int]:
    """The boundary set read from byte-level BPE's pieces through the byte table (not by the tokenizer's decoder, as
    the library does): a piece whose bytes begin with a whole character that is white space or punctuation, and the
    end of sequence. (A piece that begins inside a multi-byte character begins no word.)"""
    import unicodedata

    byte_of = _byte_of_marker()
    found = {eos_id}
    for piece, i in tokenizer.get_vocab().items():
        if i in tokenizer.all_special_ids:
            continue
        raw = bytes(byte_of[c] for c in piece)
        first = raw.decode("utf-8", errors="replace")[:1]
        if first and first != "\ufffd" and (first.isspace() or unicodedata.category(first).startswith("P")):
            found.add(i)
    return found


def _definition_of(directory: Path, start_id: int | None = None, ends: tuple[int, ...] = ()):
    """A function from a text to (start, end, bits) of each of its words: the tokens from a word-starting token up to
    the next one, their corrected surprisal from the definition, every probability in float64 from the full
    distributions of transformers' model (loaded once). ``start_id``: the start token (default: the tokenizer's
    BOS); ``ends``: more ids that end a text (the start token is one)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float64).eval()
    eos = tokenizer.eos_token_id
    start_id = start_id if start_id is not None else tokenizer.bos_token_id
    starts = sorted(_marked_word_starts(tokenizer, eos) | {start_id, *ends})

    def words_of(text: str) -> list[tuple[int, int, float]]:
        encoding = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids, spans = encoding["input_ids"], encoding["offset_mapping"]
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([[start_id, *ids]])).logits[0], -1)
        # logp[k]: the distribution after k tokens of the text (k = 0: after the start token alone)
        start_mass = torch.logsumexp(logp[:, starts], -1)  # log P(the next token begins a word)
        words, begin = [], 0
        for k in range(1, len(ids) + 1):
            if k == len(ids) or ids[k] in starts:
                token_logp = sum(float(logp[j, ids[j]]) for j in range(begin, k))
                before = 0.0 if begin == 0 else float(start_mass[begin])  # at the start every token begins a word
                bits = -(token_logp + float(start_mass[k]) - before) / math.log(2)
                words.append((spans[begin][0], spans[k - 1][1], bits))
                begin = k
        return words

    return words_of


def test_the_boundary_set() -> None:
    assert begins_word(" the") and begins_word("\nthe") and begins_word(".") and begins_word("'s")
    assert not begins_word("the") and not begins_word("s") and not begins_word("\ufffd") and not begins_word("")
    assert not begins_word("$") and not begins_word("3")


def test_the_library_finds_the_marked_word_starts(gpt2_dir: Path) -> None:
    from transformers import AutoTokenizer

    scorer = load_scorer(str(gpt2_dir), score_cache=False, bow_correction=True)
    scorer.score(["The farmer"])
    tokenizer = AutoTokenizer.from_pretrained(gpt2_dir)
    assert set(scorer.word_starts()) == _marked_word_starts(tokenizer, tokenizer.eos_token_id)
    assert tokenizer.convert_tokens_to_ids("<pad>") not in scorer.word_starts()


@pytest.mark.parametrize("prefix_sharing", [True, False])
def test_corrected_words_are_the_definition(gpt2_dir: Path, prefix_sharing: bool) -> None:
    scorer = load_scorer(str(gpt2_dir), score_cache=False, bow_correction=True, prefix_sharing=prefix_sharing)
    definition = _definition_of(gpt2_dir)
    for scored in scorer.score(TEXTS):
        words = definition(scored.text)
        assert len(words) > 1
        for start, end, bits in words:
            ours = sum(t.surprisal for t in scored.tokens if start <= t.start < end)
            assert ours == pytest.approx(bits, abs=1e-4), (scored.text, scored.text[start:end])


def test_uncorrected_values_are_unchanged_and_the_correction_moves_them(gpt2_dir: Path) -> None:
    plain = load_scorer(str(gpt2_dir), score_cache=False).score(TEXTS)
    fixed = load_scorer(str(gpt2_dir), score_cache=False, bow_correction=True).score(TEXTS)
    for a, b in zip(plain, fixed, strict=True):
        assert [t.token for t in a.tokens] == [t.token for t in b.tokens]
        assert a.total_surprisal != pytest.approx(b.total_surprisal, abs=1e-3)


def test_identity_and_cache_tell_corrected_scores_apart(gpt2_dir: Path) -> None:
    plain = load_scorer(str(gpt2_dir))
    fixed = load_scorer(str(gpt2_dir), bow_correction=True)
    assert "bow_correction" not in plain.identity  # uncorrected caches of earlier versions still serve
    assert fixed.identity["bow_correction"]
    assert plain.path != fixed.path


def test_without_a_start_token_the_first_token_is_its_boundary_term(gpt2_dir: Path) -> None:
    """bos='none': nothing predicts the first token (0, as lm-zoo), but the distribution after it is the model's, so
    its value is the boundary term after it alone."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    scorer = load_scorer(str(gpt2_dir), score_cache=False, bos="none", bow_correction=True)
    [scored] = scorer.score(["The dogs swim."])
    tokenizer = AutoTokenizer.from_pretrained(gpt2_dir)
    model = AutoModelForCausalLM.from_pretrained(gpt2_dir, dtype=torch.float64).eval()
    starts = sorted(_marked_word_starts(tokenizer, tokenizer.eos_token_id))
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([[scored.tokens[0].token_id]])).logits[0, 0], -1)
    assert scored.tokens[0].surprisal == pytest.approx(-float(torch.logsumexp(logp[starts], -1)) / math.log(2),
                                                       abs=1e-4)


def test_corrected_telescopes() -> None:
    assert corrected([1.0, 2.0, 3.0], [0.5, 0.25, 0.125]) == [1.5, 1.75, 2.875]


def test_refused_where_it_does_not_apply(bert_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="masked LM"):
        load_scorer(str(bert_dir), bow_correction=True)
    tsv = tmp_path / "scores.tsv"
    tsv.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tThe\t3.0\n")
    with pytest.raises(ConfigurationError, match="tsv"):
        load_scorer(str(tsv), bow_correction=True)
