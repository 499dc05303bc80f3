"""The repaired LC4/LC5: the verb negated where English puts the negation (around adverbs, on auxiliaries and
modals, do-support for other verbs), seeds of one clause only; and the repaired LC3/LC6/LC7 wording."""

from __future__ import annotations

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import Dataset, Example
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.seeds.generate import generate_seeds
from linguagym.capabilities.seeds.negation import CannotNegate, clauses, is_clause, negate
from linguagym.capabilities.seeds.specs import load_specs

pytestmark = pytest.mark.usefixtures("spacy_ready")

# sentence -> (negated in full, contracted)
NEGATED = {
    "This movie is bad.": ("This movie is not bad.", "This movie isn't bad."),
    "That film was a mess.": ("That film was not a mess.", "That film wasn't a mess."),
    "These are bad films.": ("These are not bad films.", "These aren't bad films."),
    # degree adverbs belong to the predicate: the negation comes before them
    "This is very boring.": ("This is not very boring.", "This isn't very boring."),
    # sentence and focus adverbs keep their scope: the negation comes after them, in full
    "This is certainly awful.": ("This is certainly not awful.",) * 2,
    "That is just awful.": ("That is just not awful.",) * 2,
    # modals and auxiliaries take the negation; "can" writes "cannot"
    "This film can be painful.": ("This film cannot be painful.", "This film can't be painful."),
    "This film will bore you.": ("This film will not bore you.", "This film won't bore you."),
    "This has been done before.": ("This has not been done before.", "This hasn't been done before."),
    # other verbs take do-support in their tense and number
    "This movie stinks.": ("This movie does not stink.", "This movie doesn't stink."),
    "These films lack charm.": ("These films do not lack charm.", "These films don't lack charm."),
    "That movie bored me.": ("That movie did not bore me.", "That movie didn't bore me."),
    "This movie has a dull plot.": ("This movie does not have a dull plot.", "This movie doesn't have a dull plot."),
    "This movie really stinks.": ("This movie really does not stink.", "This movie really doesn't stink."),
}


@pytest.fixture
def analyser(swn_file):
    return Analyser(read_sentiwordnet(swn_file))


def _verb(analysis) -> int:
    return next(t.start for t in analysis.tokens if t.tag in ("VBZ", "VBP", "VBD", "MD"))


def test_negation_placement(analyser):
    for text, (full, short) in NEGATED.items():
        analysis = analyser.analyse_one(text)
        assert (negate(analysis, _verb(analysis)), negate(analysis, _verb(analysis), short=True)) == (full, short)


def test_an_already_negated_verb_is_refused(analyser):
    analysis = analyser.analyse_one("This is certainly not bad.")
    with pytest.raises(CannotNegate, match="already has a negation"):
        negate(analysis, _verb(analysis))


def test_clauses_are_counted_from_finite_verbs(analyser):
    counts = [clauses(analyser.analyse_one(t)) for t in
              ("A good film.", "This film can be painful.", "This is bad and the plot is thin.",
               "This isn't standard fare... instantly forgettable and thoroughly dull.", "Dull, this film is bad.")]
    # a break after the verb may start a phrase with its own sentiment (a real LC4 seed that stayed negative)
    assert counts == [0, 1, 2, 2, 1]
    # a clause has a subject before its first finite verb (real LC7 partners that had none: subjectless snippets)
    have_subjects = [is_clause(analyser.analyse_one(t)) for t in
               ("This movie is bad.", "It's a wonderful drama.", "Nicely serves as an examination of a society.",
                "A good film.", "An ugly, pointless, stupid movie.", "Smarter than its commercials make it seem.",
                "An edgy thriller that delivers a surprising punch.", "Maryam is more timely now than ever.")]
    assert have_subjects == [True, True, False, False, False, False, False, True]


def _seeds(analyser, spec_id: str, label: str, texts: list[str], templates: str = "repaired") -> dict[str, str]:
    data = Dataset("t", "t", tuple(Example(str(i), t, label) for i, t in enumerate(texts)), "given")
    spec = next(s for s in load_specs(templates=templates) if s.id == spec_id)
    result = generate_seeds([spec], data, analyser.analyse(texts), seed=0)[0]
    return {t.provenance.rows[0].text: t.text for t in result.tests}


def test_lc4_and_lc5_negate_single_clause_seeds_only(analyser):
    texts = ["This movie stinks.", "This is bad and the plot is thin.", "This is always bad.", "This is only bad.",
             "This film can be painful.", "This is certainly not good.", "This awful film stinks.",
             "This movie only stinks."]
    repaired = _seeds(analyser, "LC4", "negative", texts)
    # two clauses: negating the first leaves the second's sentiment; "not always/only bad" still says bad; a verb
    # negated after its adverb is no seed (the search asks the negate filter, so an expansion cannot meet one); a
    # subject with a sentiment of its own ("awful") keeps it under the negation; "only doesn't stink" is wrong
    assert set(repaired) == {"This movie stinks.", "This film can be painful."}
    assert repaired["This movie stinks."] in ("This movie does not stink.", "This movie doesn't stink.")
    assert repaired["This film can be painful."] in ("This film cannot be painful.", "This film can't be painful.")
    paper = _seeds(analyser, "LC4", "negative", texts, templates="paper")
    assert paper["This is bad and the plot is thin."] in ("This is not bad and the plot is thin.",
                                                          "Thisn't bad and the plot is thin.",
                                                          "This isn't bad and the plot is thin.")
    neutral = _seeds(analyser, "LC5", "neutral", ["These long books are red.", "This film has a new plot."])
    assert set(neutral.values()) <= {"These long books are not red.", "These long books aren't red.",
                                     "This film does not have a new plot.", "This film doesn't have a new plot."}
    assert len(neutral) == 2


def test_repaired_wording_of_lc3_lc6_lc7(analyser):
    lc3 = _seeds(analyser, "LC3", "negative", ["This movie is bad.", "A bad film."])
    # a clause only (it follows "thought that"); the past opinion is S itself, then the opposite one
    assert list(lc3) == ["This movie is bad."]
    text = lc3["This movie is bad."]
    assert '"This movie is bad", but now I' in text and text.split(", but now I ")[1] in ("like it.", "love it.",
                                                                                          "think it is good.")
    assert "much as to say" not in text and "disagree" not in text
    lc6 = _seeds(analyser, "LC6", "negative", ["This movie is bad."])["This movie is bad."]
    assert lc6.endswith(("but that wasn't true.", "but it was not true.", "but that is not the case."))
    assert "but I didn't" not in lc6


def test_clitic_verbs_are_negated_as_themselves(analyser):
    analysis = analyser.analyse_one("That's a bad film.")
    verb = next(t.start for t in analysis.tokens if t.text == "'s")
    assert negate(analysis, verb) == "That's not a bad film."
    assert negate(analysis, verb, short=True) == "That isn't a bad film."


def test_a_clause_is_one_sentence(analyser):
    # a quotation after "that" holds one sentence: a period, ! or ? followed by more words makes two
    verdicts = [is_clause(analyser.analyse_one(t)) for t in
                ("This is pure, exciting moviemaking. You won't exactly know what's happening.",
                 "The film is fun! It never stops.", "Mr. Smith is fun.", "The film is fun...",
                 "This movie is bad.")]
    assert verdicts == [False, False, True, True, True]


def test_repaired_lc8_to_lc11_quote_clauses_after_that(analyser):
    texts = ["This movie is bad.", "A bad film.", "This movie is awful. It never ends."]
    for spec_id in ("LC9", "LC11"):
        assert list(_seeds(analyser, spec_id, "negative", texts)) == ["This movie is bad."]
        # the published seeds take every sentence
        assert set(_seeds(analyser, spec_id, "negative", texts, templates="paper")) == set(texts)
    data = Dataset("t", "t", (Example("0", "This movie is good.", "positive"), Example("1", "A bad film.", "negative"),
                              Example("2", "The plot is thin.", "negative")), "given")
    for templates, frames in (("repaired", ("Some people think that", "Many people say that", "They think that",
                                            "Others believe that")),
                              ("paper", ("Some people think that", "Many people agree with that", "They think that",
                                         "You agree with that"))):
        spec = next(s for s in load_specs(templates=templates) if s.id == "LC8")
        result = generate_seeds([spec], data, analyser.analyse([e.text for e in data.examples]), seed=0)[0]
        texts = [t.text for t in result.tests]
        assert texts and all(t.startswith(frames) for t in texts)
        # repaired: S and the other opinion O are clauses, never the noun phrase "A bad film"
        assert any('"A bad film"' in t for t in texts) == (templates == "paper")


@pytest.mark.parametrize("text", [
    "This feature is about as necessary as a hole in the head",
    "These two are generating about as much chemistry as an Iraqi factory.",
    "This is amusing for about three minutes.",
    "This is almost unwatchable.",
    "This is nearly perfect.",
])
def test_approximators_after_the_verb_are_refused(analyser, text):
    # negated, they deny the approximation or make an idiom ("not nearly") instead of reversing the claim
    analysis = analyser.analyse_one(text)
    with pytest.raises(CannotNegate, match="approximator"):
        negate(analysis, _verb(analysis))


def test_about_as_a_preposition_is_negated(analyser):
    analysis = analyser.analyse_one("This is a film about love.")
    assert negate(analysis, _verb(analysis)) == "This is not a film about love."


def test_a_third_person_verb_gets_its_base_form_by_spelling_not_by_the_lemmatiser():
    from linguagym.capabilities.seeds.negation import third_person_base

    cases = {"shines": "shine", "watches": "watch", "goes": "go", "flies": "fly", "dies": "die", "stinks": "stink",
             "plays": "play", "has": "have", "misses": "miss", "buzzes": "buzz", "takes": "take", "Shines": "Shine",
             "tantalizes": "tantalize", "rises": "rise"}
    assert {word: third_person_base(word) for word in cases} == cases
    assert third_person_base("is") == "be" and third_person_base("glass") is None


def test_unmixed_and_score_bounds_refuse_mixed_sentences_and_the_edges_of_a_band(analyser):
    """Issue 38's label readers: a quoted sentence with a contrastive word has no single label (``unmixed``), and
    LC1/LC5's neutral seeds come from the middle of the neutral band (``score``); a dataset of labels only is not
    bounded by score."""
    from linguagym.capabilities.data.datasets import Example
    from linguagym.capabilities.seeds.search import search_match
    from linguagym.capabilities.seeds.specs import Search

    unmixed = Search(frozenset({"positive"}), unmixed=True)
    bounded = Search(frozenset({"neutral"}), score=((">=", 0.45), ("<=", 0.55)))
    mixed, plain = "It is not a real film, but at least it is fun.", "It is a fun film."
    analyses = dict(zip([mixed, plain], analyser.analyse([mixed, plain]), strict=True))
    assert search_match(unmixed, Example("1", mixed, "positive"), analyses[mixed]) is None
    assert search_match(unmixed, Example("2", plain, "positive"), analyses[plain]) is not None
    for score, kept in ((0.42, False), (0.45, True), (0.5, True), (0.55, True), (0.58, False), (None, True)):
        found = search_match(bounded, Example("3", plain, "neutral", score), analyses[plain])
        assert (found is not None) is kept, score
