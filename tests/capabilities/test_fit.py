"""Fit, not frequency (#38): fills ranked by fit (``fit.py``), a per-run cap on one word, no insertion into names,
titles, quotations, compounds (``protected.py``) or the dataset's fixed phrases (``domain.collocation``), and the
hedge filter by lemma and derivation (``hedges.py``). Each rule on a small constructed input: what it refuses and
what it keeps."""

from __future__ import annotations

from collections import Counter

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.expand import ExpansionSettings
from linguagym.capabilities.expansion.fill import Fill
from linguagym.capabilities.expansion.fit import WordCap, fit_score, neutral_context, within_margin
from linguagym.capabilities.expansion.hedges import HEDGE_GROUPS, derivations, hedge_reason
from linguagym.capabilities.expansion.protected import name_problems, quotation_problems, split_problems
from linguagym.capabilities.expansion.validate import Validator
from linguagym.capabilities.seeds.specs import Search
from tests.capabilities.conftest import SWN_LINES
from tests.capabilities.test_domain_checks import corpus
from tests.capabilities.test_expand import _expand, setup  # noqa: F401 - the fixture
from tests.capabilities.test_insertion_rules import rule


@pytest.fixture
def swn_file(tmp_path):
    """The fixture lexicon, with the derived forms neutral: only the hedge check can refuse them."""
    path = tmp_path / "swn.txt"
    path.write_text("\n".join([*SWN_LINES[:-1], "a\t00000011\t0\t0\tincredible#1 potential#1 literal#1 "
                               "increasing#1\tneutral here", ""]), encoding="utf-8")
    return path


# the hedge filter by lemma and derivation
LISTED = ("incredible", "potential", "literal", "increasing", "possible", "usual", "entire", "total", "real")


def test_the_adjective_of_a_listed_adverb_and_the_adverb_of_a_listed_adjective_are_hedges():
    for word in LISTED:
        reason = hedge_reason(word)
        assert reason is not None and "(as '" in reason, word  # found through its derivation
    assert "an intensifier word (as 'incredibly')" in hedge_reason("incredible")
    assert "an epistemic word (as 'potentially')" in hedge_reason("Potential")
    for word in ("literally", "increasingly", "potentially", "incredibly"):  # listed themselves
        assert hedge_reason(word) is not None and "(as" not in hedge_reason(word)
    assert hedge_reason("literals", "literal") is not None  # by the lemma too
    assert derivations("happily") >= {"happy"} and derivations("basic") >= {"basically"}


def test_plain_adjectives_and_words_that_only_look_derived_are_kept():
    for word in ("human", "current", "local", "female", "initial", "high", "simple", "main", "film", "lovely",
                 "family", "early", "silly", "part", "red"):
        assert hedge_reason(word) is None, word


def test_the_validator_refuses_the_derived_forms_with_the_hedge_reason(spacy_ready, swn_file):
    validator = Validator(Analyser(read_sentiwordnet(swn_file)), vader=None)
    search = Search(labels=frozenset({"negative"}))
    for word in ("incredible", "potential", "literal", "increasing"):
        text = f"This {word} movie is bad."
        checked = validator.check(text, [word], [(5, 5 + len(word))], ["JJ"], search, Example("1", text, "negative"))
        found = [r.check for r in checked.reasons]
        assert "hedge" in found and (found == ["hedge"] or word == "increasing"), found  # the tagger: VBG
    text = "This red movie is bad."
    assert validator.check(text, ["red"], [(5, 8)], ["JJ"], search, Example("1", text, "negative")).ok


# names, titles, quotations, compounds
def test_no_insertion_before_a_name_or_inside_a_title():
    assert rule(name_problems, "the/DT *recent/JJ Komediant/NNP ./.")[0].startswith("name: 'recent' goes before")
    inside = rule(name_problems, "named/VBN The/DT Husband/NNP ,/, The/DT *main/JJ Wife/NNP ./.")
    assert inside and "inside the name or title 'The' ... 'Wife'" in inside[0]
    assert rule(name_problems, "the/DT *recent/JJ film/NN ./.") == []
    assert rule(name_problems, "The/DT *recent/JJ film/NN ./.") == []  # the sentence's first word is no name
    assert rule(name_problems, "I/PRP *really/RB liked/VBD it/PRP ./.") == []


def test_no_insertion_inside_a_quotation():
    for text in ('to/TO see/VB "/`` the/DT *tiny/JJ comedy/NN "/\'\' ./.',
                 "a/DT so/RB called/VBN '/`` *rough/JJ comedy/NN '/'' ./."):
        assert rule(quotation_problems, text)[0].startswith("quotation:"), text
    assert rule(quotation_problems, 'see/VB the/DT *tiny/JJ comedy/NN "/`` Simone/NNP "/\'\' ./.') == []
    assert rule(quotation_problems, "the/DT dogs/NNS '/POS *new/JJ bone/NN ./.") == []  # a possessive, no quote


def test_no_insertion_inside_a_compound():
    assert rule(split_problems, "the/DT film/NN *local/JJ festival/NN ./.")[0].startswith("split: 'local' splits")
    problems = rule(split_problems, "a/DT *human/JJ heart/NN felt/VBN drama/NN ./.")
    assert problems and "compound modifier 'heart' 'felt'" in problems[0]
    assert rule(split_problems, "a/DT *new/JJ film/NN festival/NN ./.") == []  # before the compound, not in it
    assert rule(split_problems, "a/DT *new/JJ film/NN ./.") == []


def test_no_insertion_into_a_fixed_phrase_of_the_dataset():
    reviews = corpus(
        "a/DT cold/JJ fish/NN ./.", "such/JJ a/DT cold/JJ fish/NN ./.", "a/DT good/JJ film/NN ./.",
        "a/DT good/JJ plot/NN ./.", "the/DT film/NN is/VBZ good/JJ ./.", "good/JJ acting/NN ./.",
        "another/DT good/JJ film/NN ./.", "the/DT film/NN drags/VBZ ./.", "a/DT film/NN ./.", "the/DT plot/NN ./.",
        *["the/DT cast/NN works/VBZ hard/RB ./."] * 200)  # the rest of a corpus
    vocabulary = DomainVocabulary.from_analyses(reviews, min_count=0, min_sentences=1)  # as the default run
    assert vocabulary.is_collocation("cold", "fish") and not vocabulary.is_collocation("good", "film")
    problems = vocabulary.problems(*rule(lambda t, i: (t, i), "a/DT cold/JJ *hybrid/JJ fish/NN ./."))
    assert [p.check for p in problems] == ["collocation"] and "'cold fish'" in problems[0]
    assert vocabulary.problems(*rule(lambda t, i: (t, i), "a/DT good/JJ *new/JJ film/NN ./.")) == []
    small = DomainVocabulary.from_analyses(reviews, min_count=0, min_sentences=1000)  # too small to tell
    assert small.problems(*rule(lambda t, i: (t, i), "a/DT cold/JJ *hybrid/JJ fish/NN ./.")) == []


# ranking by fit, and the cap
def test_fit_takes_a_share_of_the_neutral_prior_off_the_confidence():
    assert fit_score(-2.0, [-20.0], 0.25) == 3.0 and fit_score(-1.0, [-4.0], 0.25) == 0.0
    assert fit_score(-2.0, None, 0.25) == -2.0 and fit_score(-2.0, [-20.0], 0.0) == -2.0
    assert neutral_context("JJ") == "It is the" and neutral_context("RB") == "It is"
    cap = WordCap(2)
    cap.take(["Human"])
    assert cap.over(["human"]) is None
    cap.take(["human", "red"])
    assert cap.over(["red", "human"]) == "human" and WordCap(None).over(["human"]) is None
    with pytest.raises(CapabilityError, match="fit_weight"):
        ExpansionSettings(fit_weight=1.5)
    with pytest.raises(CapabilityError, match="max_word_uses"):
        ExpansionSettings(max_word_uses=0)


ADJECTIVES = [("long", 0.0, -2.0), ("red", -1.0, -20.0), ("new", -2.0, -3.0)]  # (word, confidence, prior)


class PriorFiller:
    """Adjective candidates with the confidences and neutral priors of ``ADJECTIVES``, best confidence first; the
    other tags get "the" (which the validator refuses); ``keep`` is asked as the real fillers ask it."""

    identity = {"filler": "fake"}

    def __init__(self, words=ADJECTIVES) -> None:
        self.words = words
        self.asked_k: list[int] = []

    def fill(self, masked, k, keep=None):
        self.asked_k.append(k)
        candidates = []
        for i, m in enumerate(masked):
            for word, confidence, _ in self.words:
                candidates.append((i, tuple(word if mask.tag == "JJ" else "the" for mask in m.masks), confidence))
        verdicts = keep([(i, w) for i, w, _ in candidates]) if keep else [True] * len(candidates)
        out = [[] for _ in masked]
        for (i, words, confidence), ok in zip(candidates, verdicts, strict=True):
            if ok:
                out[i].append(Fill(words, confidence))
        return [sorted(fills, key=lambda f: -f.confidence)[:k] for fills in out]

    def prior(self, words, tag):
        table = {word: prior for word, _, prior in self.words}
        return [table.get(w, -10.0) for w in words]


def test_the_best_fit_not_the_most_probable_fill_is_kept(setup):  # noqa: F811 - the imported fixture
    filler = PriorFiller()
    _, by_fit, _ = _expand(setup, {"LC3", "LC4"}, filler=filler, fills_per_mask=1, max_word_uses=None)
    assert filler.asked_k and set(filler.asked_k) == {4}  # four times the fills kept, to re-rank
    kept = Counter(w for tests in by_fit.values() for t in tests for w in t.provenance.fills)
    assert kept and kept.most_common(1)[0][0] == "red"  # -1 + 5 beats long's 0 + 0.5
    _, by_confidence, _ = _expand(setup, {"LC3", "LC4"}, filler=PriorFiller(), fills_per_mask=1,
                                  max_word_uses=None, fit_weight=0.0)
    kept = Counter(w for tests in by_confidence.values() for t in tests for w in t.provenance.fills)
    assert kept.most_common(1)[0][0] == "long"


def test_a_word_is_inserted_at_most_the_cap_times_in_a_capability_and_the_next_fill_takes_its_place(setup):  # noqa: F811
    _, uncapped, _ = _expand(setup, {"LC3", "LC4"}, filler=PriorFiller(), fills_per_mask=1, max_word_uses=None)
    _, capped, expander = _expand(setup, {"LC3", "LC4"}, filler=PriorFiller(), fills_per_mask=1, max_word_uses=1)
    for tests in capped.values():
        words = Counter(w for t in tests for w in t.provenance.fills)
        assert max(words.values(), default=1) == 1
    words = Counter(w for tests in capped.values() for t in tests for w in t.provenance.fills)
    assert len(words) > 1  # not red alone: the others took its place
    assert expander.report.rejections["overused"] > 0
    assert sum(len(t) for t in uncapped.values()) > sum(len(t) for t in capped.values())


def test_a_run_inserts_none_of_the_hedge_groups_words_by_lemma_or_derivation(setup):  # noqa: F811
    """The generation on the fixture dataset, with a filler that proposes the derived forms first: no expansion
    holds one of them, or any word a hedge group lists, by its form, lemma or derivation."""
    hedged = [("incredible", 0.0, -9.0), ("potential", 0.0, -9.0), ("literal", 0.0, -9.0),
              ("increasing", 0.0, -9.0), ("long", -3.0, -9.0)]
    _, expanded, expander = _expand(setup, {"LC3", "LC4"}, filler=PriorFiller(hedged))
    fills = [w for tests in expanded.values() for t in tests for w in t.provenance.fills]
    assert fills and set(fills) == {"long"}
    assert expander.report.rejections["hedge"] > 0 and "neutral" not in expander.report.rejections
    listed = {w for _, words in HEDGE_GROUPS.values() for w in words}
    assert not any(derivations(w) & listed for w in fills)


def test_fit_chooses_only_among_fills_near_the_most_confident(setup):  # noqa: F811
    """A fill more than ``fit.MARGIN`` bits below its masked sentence's best does not compete, however rare."""
    assert within_margin([0.0, -3.0, -3.5]) == [True, True, False]
    far = [("long", 0.0, -2.0), ("red", -4.0, -40.0)]  # red's fit: -4 + 10 = 6 against long's 0.5
    _, expanded, _ = _expand(setup, {"LC3", "LC4"}, filler=PriorFiller(far), fills_per_mask=1, max_word_uses=None)
    kept = Counter(w for tests in expanded.values() for t in tests for w in t.provenance.fills)
    assert kept and set(kept) == {"long"}
