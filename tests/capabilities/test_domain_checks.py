"""The checks that read the dataset's usage (``expansion/domain.py``): ``domain`` (an inserted adjective or adverb
is attested in the dataset) and ``mass`` (no count determiner before a noun the dataset never counts)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from linguagym.capabilities.data.analysis import Analyser, Analysis
from linguagym.capabilities.data.datasets import Example, read_rotten_tomatoes
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.expand import ExpansionSettings
from linguagym.capabilities.expansion.validate import Validator
from linguagym.capabilities.seeds.specs import load_specs
from linguagym.capabilities.syntax.grammar import Grammar
from tests.benchmark_scripts import load_benchmark
from tests.capabilities.test_expand import FakeFiller, _expand
from tests.capabilities.test_insertion_rules import tagged


def corpus(*sentences: str) -> list[Analysis]:
    return [Analysis(s, tuple(tagged(s)[0])) for s in sentences]


REVIEWS = corpus(
    "a/DT clever/JJ film/NN ./.", "a/DT clever/JJ plot/NN ./.", "the/DT clever/JJ cast/NN ./.",
    "each/DT film/NN works/VBZ ./.", "it/PRP lacks/VBZ empathy/NN ./.", "full/JJ of/IN empathy/NN ./.",
    "no/DT empathy/NN at/IN all/DT ./.", "with/IN restraint/NN ./.", "weirdly/RB appealing/JJ ./.",
)


def test_the_vocabulary_counts_lemmas_by_word_class_and_nouns_after_count_determiners():
    vocabulary = DomainVocabulary.from_analyses(REVIEWS, min_count=2, min_sentences=1)
    assert vocabulary.count("clever", "adjective") == 3 and vocabulary.count("Clever", "adjective") == 3
    assert vocabulary.count("clever", "noun") == 0  # counted with its word class
    assert vocabulary.counted["film"] == 2  # "a clever film": past the adjective; "each film"
    assert vocabulary.nouns["empathy"] == 3 and vocabulary.counted["empathy"] == 0
    assert vocabulary.identity == {"sentences": 9, "min_count": 2, "lemmas": len(vocabulary.words),
                                   "domain_check": True}


def test_a_small_dataset_is_no_evidence_of_its_domain_words_but_still_of_mass_nouns():
    small = DomainVocabulary.from_analyses(REVIEWS, min_count=2, min_sentences=10)
    assert not small.checks_words and small.identity["domain_check"] is False
    assert small.problems(*tagged("a/DT *statistical/JJ treat/NN ./.")) == []
    assert small.problems(*tagged("or/CC *an/DT empathy/NN ./."))[0].startswith("mass:")


def test_an_inserted_modifier_the_dataset_does_not_use_is_refused():
    vocabulary = DomainVocabulary.from_analyses(REVIEWS, min_count=2, min_sentences=1)
    problems = vocabulary.problems(*tagged("a/DT *statistical/JJ treat/NN ./."))
    assert len(problems) == 1 and problems[0].startswith("domain:") and "'statistical' occurs 0 times" in problems[0]
    assert vocabulary.problems(*tagged("a/DT *clever/JJ treat/NN ./.")) == []  # 3 times
    assert vocabulary.problems(*tagged("*weirdly/RB sweet/JJ ./."))[0].startswith("domain:")  # once, 2 needed
    once = DomainVocabulary.from_analyses(REVIEWS, min_count=1, min_sentences=1)
    assert once.problems(*tagged("*weirdly/RB sweet/JJ ./.")) == []
    # nouns and verbs are not held to it (rare nouns were as often fine as not on the dev set)
    assert vocabulary.problems(*tagged("This/DT *equation/NN *hums/VBZ ./.")) == []


def test_a_count_determiner_before_a_noun_the_dataset_never_counts_is_refused():
    vocabulary = DomainVocabulary.from_analyses(REVIEWS, min_count=1, min_sentences=1)
    problems = vocabulary.problems(*tagged("humanity/NN or/CC *an/DT empathy/NN ./."))
    assert len(problems) == 1 and problems[0].startswith("mass:") and "'empathy'" in problems[0]
    assert vocabulary.problems(*tagged("or/CC *each/DT clever/JJ empathy/NN"))[0].startswith("mass:")  # past "clever"
    assert vocabulary.problems(*tagged("*a/DT film/NN ./.")) == []  # counted in the dataset
    assert vocabulary.problems(*tagged("*the/DT empathy/NN ./.")) == []  # "the" goes with mass nouns
    assert vocabulary.problems(*tagged("with/IN *each/DT restraint/NN ./.")) == []  # one bare use: no evidence


def test_the_default_run_uses_the_mass_check_and_not_the_domain_check():
    # mass on (min_domain_count not None); domain off (0: any count passes): it did no better than chance held out
    assert ExpansionSettings().min_domain_count == 0
    vocabulary = DomainVocabulary.from_analyses([], min_count=0, min_sentences=0)
    assert vocabulary.problems(*tagged("a/DT *probabilistic/JJ treat/NN")) == []


@pytest.fixture
def analyser(swn_file, spacy_ready) -> Analyser:
    return Analyser(read_sentiwordnet(swn_file))


def test_the_validator_refuses_a_word_foreign_to_the_dataset_only_when_given_its_vocabulary(analyser):
    seed, text, word = "Tosca is a treat.", "Tosca is a statistical treat.", "statistical"
    start = re.search(word, text).start()
    search = next(s for s in load_specs() if s.id == "LC2").cases[0].search

    def reasons(validator: Validator) -> tuple[str, ...]:
        return validator.check(text, [word], [(start, start + len(word))], ["JJ"], search,
                               Example("1", seed, "positive")).reasons

    vocabulary = DomainVocabulary.from_analyses(analyser.analyse(["A clever treat.", "Tosca is a treat."]),
                                                min_sentences=1)
    assert any(r.startswith("domain:") for r in reasons(Validator(analyser, vader=None, domain=vocabulary)))
    assert not any(r.startswith("domain:") for r in reasons(Validator(analyser, vader=None)))
    assert Validator(analyser, vader=None, domain=vocabulary).identity["domain"]["min_count"] == 3


def test_the_expander_reads_the_dataset_it_expands(rt_file, swn_file, spacy_ready):
    """By default the expander builds the vocabulary from the dataset's analyses (the test dataset is too small for
    the domain check, so it refuses nothing by it); with ``min_domain_count=None`` it builds none."""
    data = read_rotten_tomatoes(rt_file)
    analyser = Analyser(read_sentiwordnet(swn_file))
    analyses = analyser.analyse([e.text for e in data.examples])
    grammar = Grammar({"NP": Counter({("DT", "JJ", "NN"): 2, ("DT", "NN"): 2}), "ADJP": Counter({("RB", "JJ"): 1})})
    setup = (data, analyser, analyses, grammar)
    _, _, checked = _expand(setup, {"LC3"}, FakeFiller(), min_domain_count=3)
    assert checked.validator.domain.sentences == len(data.examples) < 1000
    assert not checked.validator.domain.checks_words and "domain" not in checked.report.rejections
    _, _, unchecked = _expand(setup, {"LC3"}, FakeFiller(), min_domain_count=None)
    assert unchecked.validator.domain is None and "domain" not in unchecked.report.rejections


def test_the_benchmark_estimates_kept_expansions_per_lc_and_reads_source_labels():
    bench = _benchmark()
    rows = [{"capability": "LC2", "id": "LC2/1/7/x1", "label": "positive"},
            {"capability": "LC2", "id": "LC2/1/8/x1", "label": "positive"},
            {"capability": "LC4", "id": "LC4/1/9/x1", "label": "neutral or positive"}]
    estimate = bench.kept_estimate(rows, [["domain: ..."], [], []], {"LC2": 142, "LC4": 143, "LC5": 22})
    assert estimate == {"LC2": 71, "LC4": 143, "LC5": None}  # half of LC2's sample kept; LC5 not sampled
    # the search rule reads the dataset sentence's label, not the test's expected label
    assert bench._source_label(rows[2], {"9": "negative"}) == "negative"
    assert bench._source_label(rows[2], None) == "neutral or positive"
    held_out = bench.load_judged(bench.HELD_OUT)
    assert len(held_out) == 220 and sum(r["insertion_error"] for r in held_out) == 89


def _benchmark():
    return load_benchmark("expansion_quality")
