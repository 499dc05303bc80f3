import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.alignment import align
from linguagym.evaluation.sentences import build_sentence
from linguagym.scoring.protocol import ScoredText, TokenScore
from linguagym.suites.model import Condition, Region


def condition(*contents):
    return Condition("c", tuple(Region(i, text) for i, text in enumerate(contents, start=1)))


def test_natural_spacing_attaches_punctuation_and_skips_empty_regions():
    sentence = build_sentence(condition("While", "the dog", "scratched", "", "the vet", ",", "left", "."))
    assert sentence.text == "While the dog scratched the vet, left."
    assert sentence.spans[3] == (23, 23)  # the empty region: zero width where it would be
    assert sentence.text[slice(*sentence.spans[5])] == ","
    assert [sentence.text[s:e] for s, e in sentence.spans] == [
        "While", "the dog", "scratched", "", "the vet", ",", "left", "."]


def test_spaces_option_puts_a_space_everywhere():
    sentence = build_sentence(condition("The boy", "", "swims", "."), spacing="spaces")
    assert sentence.text == "The boy swims ."


def test_unknown_spacing():
    with pytest.raises(ConfigurationError, match="unknown spacing 'tight'"):
        build_sentence(condition("a"), spacing="tight")


def tok(text, piece, start, end, surprisal=1.0, unknown=False):
    assert text[start:end] or start == end
    return TokenScore(piece, 0, start, end, surprisal, unknown)


def test_tokens_go_to_the_region_of_their_first_non_space_character():
    sentence = build_sentence(condition("The farmer", "knows", "people."))
    text = sentence.text  # "The farmer knows people."
    tokens = (tok(text, "The", 0, 3), tok(text, "Ġfarmer", 3, 10), tok(text, "Ġknows", 10, 16, 5.0),
              tok(text, "Ġpeople", 16, 23), tok(text, ".", 23, 24))
    alignment = align(sentence, ScoredText(text, tokens))
    assert [len(r.tokens) for r in alignment.regions] == [2, 1, 2]
    assert alignment.regions[1].surprisals == [5.0]
    assert alignment.crossings == ()


def test_punctuation_only_and_empty_regions():
    sentence = build_sentence(condition("Yes", "", ",", "no", "."))
    text = sentence.text  # "Yes, no."
    tokens = (tok(text, "Yes", 0, 3), tok(text, ",", 3, 4), tok(text, "Ġno", 4, 7), tok(text, ".", 7, 8))
    alignment = align(sentence, ScoredText(text, tokens))
    assert [[t.token for t in r.tokens] for r in alignment.regions] == [["Yes"], [], [","], ["Ġno"], ["."]]


def test_a_token_merging_across_a_boundary_stays_left_and_is_reported():
    sentence = build_sentence(condition("can", "not", "go"), spacing="natural")
    text = sentence.text  # "can not go"
    # pretend the tokenizer made one token of "can not"
    tokens = (tok(text, "can not", 0, 7), tok(text, " go", 7, 10))
    alignment = align(sentence, ScoredText(text, tokens))
    assert [len(r.tokens) for r in alignment.regions] == [1, 0, 1]
    [crossing] = alignment.crossings
    assert crossing.region == 1 and crossing.spills_into == (2,) and crossing.text == "can not"


def test_non_ascii_text_and_unknown_tokens():
    sentence = build_sentence(condition("Der Bär", "läuft", "schnell."))
    text = sentence.text
    start = text.index("läuft")
    tokens = (tok(text, "Der", 0, 3), tok(text, "[UNK]", 4, 7, unknown=True),
              tok(text, "läuft", start, start + 5), tok(text, "schnell", start + 6, start + 13),
              tok(text, ".", start + 13, start + 14))
    alignment = align(sentence, ScoredText(text, tokens))
    assert alignment.regions[0].unknown == ("[UNK]",)
    assert [t.token for t in alignment.regions[1].tokens] == ["läuft"]


def test_scores_for_another_text_are_refused():
    sentence = build_sentence(condition("a", "b"))
    with pytest.raises(ValueError, match="not for"):
        align(sentence, ScoredText("a c", ()))
