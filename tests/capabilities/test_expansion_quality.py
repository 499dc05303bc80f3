"""Issue 21's quality checks on fills: the re-parse (``constituent``), hedges, and VADER as a second lexicon."""

from __future__ import annotations

import logging
import re
from collections import Counter

import pytest

from linguagym.capabilities.data import vader as vader_module
from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.constituent import constituent_problems
from linguagym.capabilities.expansion.differentiate import Mask, MaskedSentence, differentiate, render
from linguagym.capabilities.expansion.hedges import HEDGE_GROUPS, hedge_reason
from linguagym.capabilities.expansion.validate import Validator, prefilter
from linguagym.capabilities.seeds.specs import Search
from linguagym.capabilities.syntax.grammar import Grammar
from linguagym.capabilities.syntax.parsers import Parsed
from linguagym.capabilities.syntax.trees import parse_brackets

# "The new film was long." with "new" (JJ) filled into the NP of "NP -> DT NN" (reference "NP -> DT JJ NN")
MASKED = MaskedSentence("The film was long.", (Mask("JJ", 3, True),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.5)
FILLED = "The new film was long."
SPANS = ((0, 3), (4, 7), (8, 12), (13, 16), (17, 21), (21, 22))


def _parsed(brackets: str) -> Parsed:
    return Parsed(FILLED, parse_brackets(brackets)[0], SPANS)


def test_a_fill_inside_the_intended_phrase_passes():
    parsed = _parsed("(S (NP (DT The) (JJ new) (NN film)) (VP (VBD was) (ADJP (JJ long))) (. .))")
    assert constituent_problems(parsed, MASKED, ["new"], [(4, 7)]) == []


def test_a_fill_the_parser_puts_in_another_phrase_is_rejected():
    parsed = _parsed("(S (NP (DT The)) (ADJP (JJ new) (NN film)) (VP (VBD was) (ADJP (JJ long))) (. .))")
    [reason] = constituent_problems(parsed, MASKED, ["new"], [(4, 7)])
    assert reason.startswith("constituent:") and "into ADJP" in reason and "NP -> DT JJ NN" in reason


def test_a_fill_parsed_with_another_tag_is_rejected():
    parsed = _parsed("(S (NP (DT The) (NN new) (NN film)) (VP (VBD was) (ADJP (JJ long))) (. .))")
    [reason] = constituent_problems(parsed, MASKED, ["new"], [(4, 7)])
    assert "parsed as NN" in reason and "is JJ" in reason


def test_a_fill_that_is_not_one_leaf_is_rejected():
    parsed = Parsed(FILLED, parse_brackets("(S (NP (DT The) (JJ ne) (NN w) (NN film)) (VP (VBD was)) (. .))")[0],
                    ((0, 3), (4, 6), (6, 7), (8, 12), (13, 16), (21, 22)))
    [reason] = constituent_problems(parsed, MASKED, ["new"], [(4, 7)])
    assert "is not one word" in reason


def test_two_fills_must_share_one_phrase():
    masked = MaskedSentence("film was long.", (Mask("DT", 0, False), Mask("JJ", 0, False)), "NP", ("NN",),
                            ("DT", "JJ", "NN"), 0.5)
    text, spans = render(masked, ["the", "new"])
    assert text == "The new film was long."
    good = _parsed("(S (NP (DT The) (JJ new) (NN film)) (VP (VBD was) (ADJP (JJ long))) (. .))")
    assert constituent_problems(good, masked, ["the", "new"], spans) == []
    split = _parsed("(S (NP (DT The)) (NP (JJ new) (NN film)) (VP (VBD was) (ADJP (JJ long))) (. .))")
    [reason] = constituent_problems(split, masked, ["the", "new"], spans)  # "The" alone is a phrase: not the NP's
    assert reason.startswith("constituent: 'the' is parsed into S")


def test_the_real_parser_re_parses_fills_in_one_batch(swn_file, spacy_ready):
    from linguagym.capabilities.syntax.parsers import load_parser

    parser = load_parser("spacy")
    seed = parser.parse(["The film was long."])[0]
    masked = next(m for m in differentiate(seed, Grammar({"NP": Counter({("DT", "JJ", "NN"): 1})}))
                  if m.lhs == "NP" and m.masks[0].tag == "JJ")
    validator = Validator(Analyser(read_sentiwordnet(swn_file)), parser, vader=None)
    fills = []
    for word in ("new", "of"):  # an adjective fits the NP; "of" makes "The" a phrase of its own ("The of film")
        text, spans = render(masked, [word])
        fills.append((masked, [word], text, spans))
    good, bad = validator.structure_problems(fills)
    assert good == [] and bad and bad[0].startswith("constituent:")
    assert Validator(validator.analyser, None, vader=None).structure_problems(fills) == [[], []]  # no parser, no check


@pytest.fixture
def analyser(swn_file, spacy_ready) -> Analyser:
    return Analyser(read_sentiwordnet(swn_file))


def _check(validator, text: str, word: str, tag: str):
    start = re.search(rf"\b{re.escape(word)}\b", text).start()
    search = Search(labels=frozenset({"negative"}))  # the search rule is tested elsewhere: any negative sentence
    return validator.check(text, [word], [(start, start + len(word))], [tag], search, Example("1", text, "negative"))


def test_hedges_and_degree_words_are_refused_with_their_reason(analyser):
    validator = Validator(analyser, vader=None)
    checked = _check(validator, "This movie is quite bad.", "quite", "RB")  # SentiWordNet-neutral in the fixture
    assert [r for r in checked.reasons if r.startswith("hedge:")] == [
        "hedge: 'quite' is an intensifier word: it strengthens the claim (and with it the sentiment)"]
    for word in ("probably", "certainly", "usually", "maybe", "perhaps", "hardly", "barely", "rarely", "almost"):
        assert hedge_reason(word) is not None, word
    assert hedge_reason("seems", "seem", ) and hedge_reason("film") is None  # a lemma counts too
    accept = prefilter(analyser.lexicon, vader=None)
    assert not accept("probably", "RB") and not accept("usually", "RB") and accept("red", "JJ")
    assert not accept("good", "JJ") and accept.refused == {"hedge": 2, "neutral": 1}  # recorded in the test file


def test_the_hedge_groups_do_not_overlap():
    seen = Counter(word for _, words in HEDGE_GROUPS.values() for word in words)
    assert [word for word, n in seen.items() if n > 1] == []


def test_a_word_is_neutral_only_if_vader_agrees(analyser, tmp_path):
    path = tmp_path / "vader_lexicon.txt"
    path.write_text("red\t1.3\t0.5\t[1, 2]\r\ncozy\t-0.0\t0\t[0]\r\n", encoding="utf-8")
    lexicon = vader_module.read_vader(path)
    assert lexicon.valence("RED") == 1.3 and lexicon.is_neutral("cozy", "film") and not lexicon.is_neutral("red")
    checked = _check(Validator(analyser, vader=lexicon), "This red movie is bad.", "red", "JJ")
    assert checked.reasons == ("vader: 'red' is rated +1.3 in VADER's lexicon",)  # SentiWordNet alone passes it
    assert _check(Validator(analyser, vader=None), "This red movie is bad.", "red", "JJ").ok
    assert not prefilter(analyser.lexicon, vader=lexicon)("red", "JJ")
    assert Validator(analyser, vader=lexicon).identity["sentiment"][1]["words"] == 2


def test_a_broken_vader_file_is_a_located_error(tmp_path):
    path = tmp_path / "vader_lexicon.txt"
    path.write_text("good\t1.9\nbad\tnot-a-number\n", encoding="utf-8")
    with pytest.raises(CapabilityError, match="line 2"):
        vader_module.read_vader(path)


def test_the_installed_vader_lexicon_loads_or_its_absence_is_warned(monkeypatch, caplog):
    installed = vader_module.load_vader()
    if installed is not None:  # the [lct] extra brings vaderSentiment
        assert installed.valence("certainly") > 0 and installed.is_neutral("film")
    vader_module.load_vader.cache_clear()
    monkeypatch.setattr(vader_module.importlib.util, "find_spec", lambda name: None)
    with caplog.at_level(logging.WARNING, logger=vader_module.__name__):
        assert vader_module.load_vader() is None
    assert "vaderSentiment is not installed" in caplog.text and "pip install" in caplog.text
    vader_module.load_vader.cache_clear()


def test_a_determiner_needs_its_noun_and_no_pronoun_or_quantifier_after_it(analyser):
    validator = Validator(analyser, vader=None)
    for text, word, tag in (("The should have been someone else.", "The", "DT"),
                            ("This movie is a something of an impostor.", "a", "DT"),
                            ("This movie is bad, with both enough negatives.", "both", "DT")):
        reasons = _check(validator, text, word, tag).reasons
        assert any(r.startswith(f"agreement: {word!r} is ") for r in reasons), (text, reasons)
    ok = _check(validator, "This movie is a new film.", "a", "DT").reasons
    assert not any(r.startswith("agreement:") for r in ok), ok


def test_fixed_phrases_stay_whole():
    from linguagym.capabilities.expansion.idioms import broken_idioms

    seed = "It went down the toilet in favor of loud bangs, one beverage after another."
    assert broken_idioms(seed, seed.replace("in favor", "in the current favor")) == ["in favor of"]
    assert broken_idioms(seed, seed.replace("another.", "another alcoholic snack.")) == ["after another"]
    assert broken_idioms(seed, seed.replace("loud", "very loud")) == []  # outside the phrases
    assert broken_idioms("In favor of it.", "In favor of it, always in favor of it.") == []  # more is not fewer


def test_no_adjective_before_an_indefinite_pronoun_and_no_particle_before_an_adjective(analyser):
    validator = Validator(analyser, vader=None)
    for text, word, tag in (("This movie is a massive something of an impostor.", "massive", "JJ"),
                            ("This film is out predictable.", "out", "RB")):
        reasons = _check(validator, text, word, tag).reasons
        assert any(r.startswith(f"agreement: {word!r} is ") for r in reasons), (text, reasons)
    seed = "This is bad in favor of noise."
    checked = validator.check("This is bad in the favor of noise.", ["the"], [(15, 18)], ["DT"],
                              Search(labels=frozenset({"negative"})), Example("1", seed, "negative"))
    assert "idiom: the fill breaks the fixed phrase 'in favor of'" in checked.reasons


def test_an_adverb_phrase_of_one_word_counts_as_the_bare_adverb():
    masked = MaskedSentence("It should have stayed.", (Mask("RB", 9, True),), "VP", ("MD", "VP"),
                            ("MD", "RB", "VP"), 0.1)
    parsed = Parsed("It should indeed have stayed.", parse_brackets(
        "(S (NP (PRP It)) (VP (MD should) (ADVP (RB indeed)) (VP (VB have) (VP (VBN stayed)))) (. .))")[0],
        ((0, 2), (3, 9), (10, 16), (17, 21), (22, 28), (28, 29)))
    assert constituent_problems(parsed, masked, ["indeed"], [(10, 16)]) == []
