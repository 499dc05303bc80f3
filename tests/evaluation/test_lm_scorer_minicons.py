"""``lm_scorer`` against minicons 0.3.39's public arguments: each one taken with minicons' meaning, or refused with
what to use instead (the table in docs/python-api.md)."""

from __future__ import annotations

import inspect
import math
import re

import pytest

import linguagym
from linguagym.errors import ConfigurationError

# minicons 0.3.39, IncrementalLMScorer: each public scoring method's keyword arguments (from its source)
MINICONS = {
    "token_score": ["surprisal", "prob", "base_two", "rank", "decode", "bow_correction", "bos_token", "eos_token"],
    "word_score": ["surprisal", "prob", "base_two", "rank", "bow_correction"],
    "sequence_score": ["reduction", "prob", "base_two", "bow_correction", "bos_token", "eos_token"],
    "conditional_score": ["separator", "reduction", "prob", "base_two", "bow_correction", "bos_token", "eos_token"],
    "word_score_tokenized": ["tokenize_function", "bow_correction", "bos_token", "eos_token", "surprisal", "prob",
                             "base_two", "return_tensors"],
}
TEXT = "The keys to the cabinet are on the table."


@pytest.fixture(scope="module")
def scorer(tiny_lm_dir, tmp_path_factory):
    with linguagym.lm_scorer(tiny_lm_dir, cache_dir=str(tmp_path_factory.mktemp("cache"))) as one:
        yield one


@pytest.mark.parametrize("method", sorted(MINICONS))
def test_every_minicons_argument_is_a_parameter(method):
    ours = inspect.signature(getattr(linguagym.LMScorer, method)).parameters
    assert [name for name in MINICONS[method] if name not in ours] == []


def test_bow_correction_per_call_is_the_corrected_scorer(scorer, tiny_lm_dir, tmp_path):
    [plain] = scorer.word_score(TEXT, surprisal=True, base_two=True)
    [per_call] = scorer.word_score(TEXT, surprisal=True, base_two=True, bow_correction=True)
    with linguagym.lm_scorer(tiny_lm_dir, cache_dir=str(tmp_path), bow_correction=True) as corrected:
        [made] = corrected.word_score(TEXT, surprisal=True, base_two=True)
        [back] = corrected.word_score(TEXT, surprisal=True, base_two=True, bow_correction=False)
    def values(pairs):
        return [v for _, v in pairs]

    assert values(per_call) == pytest.approx(values(made), abs=1e-9)
    assert values(back) == pytest.approx(values(plain), abs=1e-9)
    assert [w for w, _ in per_call] == [w for w, _ in plain] == [w for w, _ in made]
    assert all(abs(a - b) > 1e-6 for (_, a), (_, b) in zip(per_call, plain, strict=True))
    # the tokens carry the terms so that a word's tokens add up to the word, corrected or not
    [tokens] = scorer.token_score(TEXT, surprisal=True, base_two=True, bow_correction=True)
    assert math.fsum(v for _, v in tokens) == pytest.approx(math.fsum(v for _, v in per_call), abs=1e-9)
    [total] = scorer.sequence_score(TEXT, reduction="sum", surprisal=True, base_two=True, bow_correction=True)
    assert total == pytest.approx(math.fsum(v for _, v in per_call), abs=1e-9)


def test_refused_arguments_say_what_to_use(scorer):
    with pytest.raises(ConfigurationError, match="rank=True") as caught:
        scorer.token_score(TEXT, rank=True)
    assert "minicons" in caught.value.hint
    with pytest.raises(ConfigurationError, match="rank=True"):
        scorer.word_score(TEXT, rank=True)
    with pytest.raises(ConfigurationError, match="eos_token=True") as caught:
        scorer.sequence_score(TEXT, eos_token=True)
    assert "bow_correction" in caught.value.hint
    with pytest.raises(ConfigurationError, match="bos_token=False") as caught:
        scorer.token_score(TEXT, bos_token=False)
    assert "bos='none'" in caught.value.hint
    assert scorer.token_score(TEXT, bos_token=True) == scorer.token_score(TEXT)  # what this scorer does anyway


def test_bos_token_false_is_a_scorer_without_a_start_token(tiny_lm_dir, tmp_path):
    with linguagym.lm_scorer(tiny_lm_dir, cache_dir=str(tmp_path), bos="none") as bare:
        [tokens] = bare.token_score(TEXT, bos_token=False)
        assert tokens[0][1] == 0.0  # as minicons: nothing predicts the first token
        with pytest.raises(ConfigurationError, match="bos_token=True"):
            bare.token_score(TEXT, bos_token=True)


def test_word_score_tokenized_takes_the_words_a_function_gives(scorer):
    def tokenize(text):
        return re.findall(r"[\w']+|[.,!?;]", text)

    [words] = scorer.word_score_tokenized(TEXT, tokenize)
    assert words == scorer.word_score(TEXT, pattern=r"[\w']+|[.,!?;]")[0]
    [tensors] = scorer.word_score_tokenized(TEXT, tokenize, return_tensors=True)
    assert [float(score) for _, score in tensors] == pytest.approx([score for _, score in words], abs=1e-12)
    with pytest.raises(ConfigurationError, match="'cupboard' from tokenize_function is not in the text"):
        scorer.word_score_tokenized(TEXT, lambda text: ["The", "cupboard"])


def test_a_scorer_object_cannot_switch_the_correction(scorer):
    wrapped = linguagym.LMScorer(scorer.scorer)  # (not closed: the scorer is the fixture's)
    with pytest.raises(ConfigurationError, match="cannot be switched per call"):
        wrapped.word_score(TEXT, bow_correction=True)
