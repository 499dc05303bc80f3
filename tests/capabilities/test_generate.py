from __future__ import annotations

import re

import pytest

from linguagym.capabilities.data.datasets import Dataset, Example, read_rotten_tomatoes
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.pipeline import generate_tests
from linguagym.capabilities.seeds.specs import load_specs, parse_spec
from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings
from linguagym.capabilities.testfile import read_tests, validate_document, write_tests
from linguagym.capabilities.testfile.model import CapabilityTestFile

pytestmark = pytest.mark.usefixtures("spacy_ready")


@pytest.fixture
def generated(rt_file, swn_file):
    def make(*, progress=None, cancelled=None, **options) -> CapabilityTestFile:
        options.setdefault("test_types", "mft")  # the paper's tests; INV/DIR pairs: test_checklist.py
        options.setdefault("expansion", ExpansionOptions(enabled=False))  # the seeds (expansion: test_expand.py)
        settings = GenerateSettings(dataset=read_rotten_tomatoes(rt_file), lexicon_path=swn_file, **options)
        return generate_tests(settings, progress=progress, cancelled=cancelled)

    return make


@pytest.fixture
def suite(generated):
    """The generated file as JSON data (what ``write_tests`` writes)."""

    def make(**options) -> dict:
        return generated(**options).to_json()

    return make


def by_capability(document: dict, capability: str) -> list[dict]:
    """The capability's expected-label tests (its INV/DIR pairs are tested in test_checklist.py)."""
    return [t for t in document["tests"] if t["capability"] == capability and t.get("type", "MFT") == "MFT"]


def test_lc4_start_pattern_is_applied(suite):
    tests = by_capability(suite(lcs="LC4"), "LC4")
    rows = sorted(t["provenance"]["rows"][0]["id"] for t in tests)
    # 3: no demonstrative start; 4: already negated; 5: negative but no pattern; 11: a verb ("said") in the gap
    assert rows == ["1", "2"]
    texts = {t["text"] for t in tests}
    assert texts <= {"This movie is not bad.", "This movie isn't bad.", "That plot is not an awful mess.",
                     "That plot isn't an awful mess."}
    assert all(t["expected"] == ["neutral", "positive"] for t in tests)


def test_a_sentence_without_the_start_pattern_is_never_a_seed(swn_file):
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.seeds.generate import generate_seeds

    texts = ["This movie is bad.", "The movie is bad.", "Bad, this movie is.", "It is bad that this is so.",
             "This is bad.", "These are bad films.", "This film was bad.", "This never is bad.", "This isn't good."]
    data = Dataset("t", "t", tuple(Example(str(i), t, "negative") for i, t in enumerate(texts)), "given")
    analyses = Analyser(read_sentiwordnet(swn_file)).analyse(texts)
    result = generate_seeds([load_specs(templates="paper")[3]], data, analyses, seed=3)[0]
    seeds = {t.provenance.rows[0].text for t in result.tests}
    assert seeds == {"This movie is bad.", "This is bad.", "These are bad films."}
    pattern = re.compile(r"^(This|That|These|Those)\b.*?\b(is|are)\b")
    assert all(pattern.match(s) for s in seeds)
    # the repaired LC4 negates the subject's verb whatever its tense ("was" -> "was not")
    repaired = generate_seeds([load_specs()[3]], data, analyses, seed=3)[0]
    assert {t.provenance.rows[0].text for t in repaired.tests} == seeds | {"This film was bad."}


def test_word_sentiment_rules_and_length(suite):
    document = suite(lcs="LC1,LC2")
    lc1 = {t["text"] for t in by_capability(document, "LC1")}
    assert lc1 == {"A red car.", "These long books are red.", "The long film has a new plot."}
    lc2 = {t["text"]: t["expected"] for t in by_capability(document, "LC2")}
    # a negative case forbids positive adjectives, verbs and nouns only: negative verbs and nouns may stay
    assert lc2 == {"This movie is bad.": ["negative"], "That plot is an awful mess.": ["negative"],
                   "The movie is bad.": ["negative"], "I hate this awful film.": ["negative"],
                   "A good film.": ["positive"], "What a good new movie!": ["positive"],
                   "I love this good book.": ["positive"],
                   "Those films, he said, are bad.": ["negative"], "This film isn't bad at all, sadly.": ["negative"]}


def test_templates_partners_and_provenance(suite):
    document = suite(lcs="LC7,LC8,LC10", seed=5)
    lc7 = by_capability(document, "LC7")
    # the repaired LC7 takes clauses only: "I love this good book.", not "A good film." or "What a good new movie!"
    assert [t["provenance"]["rows"][0]["text"] for t in lc7] == ["I love this good book."]
    paper_document = suite(lcs="LC7", seed=5, templates="paper")
    assert (document["settings"]["templates"], paper_document["settings"]["templates"]) == ("repaired", "paper")
    paper = by_capability(paper_document, "LC7")
    assert len(paper) == 3  # the published LC7: one per positive sentence under 20 words
    for test in lc7 + paper:
        rows = {r["slot"]: r for r in test["provenance"]["rows"]}
        assert rows["S"]["label"] == "positive" and rows["N"]["label"] == "neutral"
        intro = test["provenance"]["alternatives"]["intro"]
        assert test["text"].startswith(f"{intro}, given that " if test in lc7 else f"{intro} given ")
        assert test["expected"] == ["negative"]
    lc8 = by_capability(document, "LC8")
    for test in lc8:
        rows = {r["slot"]: r for r in test["provenance"]["rows"]}
        assert rows["O"]["label"] != rows["S"]["label"]
        assert test["expected"] == [rows["S"]["label"]]
        assert f'but I think that "{rows["S"]["text"].rstrip(".")}".' in test["text"]
    assert '"I love this good book"? no' in {t["text"][-27:] for t in by_capability(document, "LC10")}
    for test in document["tests"]:
        assert set(test) == {"id", "capability", "text", "expected", "kind", "provenance"}
        assert test["kind"] == "seed" and "  " not in test["text"]


def test_reproducible_and_capped(suite):
    first, again = suite(seed=1), suite(seed=1)
    assert first["tests"] == again["tests"]
    other = suite(seed=2)
    assert [t["text"] for t in first["tests"]] != [t["text"] for t in other["tests"]]
    capped = suite(seed=1, max_seeds=2)
    for capability in capped["capabilities"]:
        assert capability["seeds"] <= 2
        assert capability["seeds"] == len(by_capability(capped, capability["id"]))
    # a test kept under a cap is the same test as without the cap
    full = {t["id"]: t for t in first["tests"]}
    assert all(full[t["id"]] == t for t in capped["tests"])
    assert len({t["id"] for t in first["tests"]}) == len(first["tests"])


def test_user_spec_without_code(suite, tmp_path):
    spec = tmp_path / "mine.yaml"
    spec.write_text("id: MY1\nname: exclamation\ncases:\n  - search: {label: positive, length: '<= 4'}\n"
                    "    template: '{S|bare}, {tail}!'\n    alternatives: {tail: [truly, really]}\n"
                    "    expected: positive\n")
    document = suite(spec_paths=[spec])
    assert [t["text"].rsplit(", ", 1)[0] for t in document["tests"]] == ["A good film"]  # the others have 5 words


def test_test_file_round_trip_and_validation(generated, tmp_path):
    document = generated(lcs="LC9")
    path = tmp_path / "tests.json"
    write_tests(document, path)
    assert read_tests(path) == document
    data = document.to_json()
    broken = dict(data, tests=[dict(data["tests"][0], expected=["great"], kind="other")])
    with pytest.raises(Exception, match=r"tests\[0\]\.expected\[0\]: 'great' is not one of") as info:
        validate_document(broken, "x.json")
    assert "tests[0].kind" in str(info.value)
    path.write_text('{"format": "linguagym-capability-tests"')
    with pytest.raises(Exception, match="not JSON"):
        read_tests(path)


def test_lower_first_keeps_names_and_i(swn_file):
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.seeds.search import Match
    from linguagym.capabilities.seeds.templates import Slot, render

    analyser = Analyser(read_sentiwordnet(swn_file))
    spec = parse_spec({"id": "T", "name": "t", "cases": [{"search": {"label": "neutral"},
                                                           "template": "{S|lower_first|bare}", "expected": "neutral"}]})
    template = spec.cases[0].template
    for text, expected in [("The film is red.", "the film is red"), ("Paris is red.", "Paris is red"),
                           ("I hate it.", "I hate it")]:
        slot = Slot(Example("1", text, "neutral"), analyser.analyse_one(text), Match({}))
        assert render(template, {"S": slot}, {}, __import__("random").Random(0))[0] == expected


def test_generation_reports_each_stage_in_the_one_progress_shape_and_can_be_cancelled(generated):
    from linguagym.errors import Cancelled

    stages, done = [], []

    def progress(label, total, unit):
        stages.append((label, total, unit))
        return done.append

    generated(lcs="LC2,LC4", progress=progress)
    assert stages.pop(0) == ("loading spaCy, the dataset and the lexicon", 0, "stage")  # a step without a count
    assert [(label, unit) for label, _, unit in stages] == [
        ("analysing the dataset's sentences", "sentences"), ("searching capabilities", "capabilities")]
    assert stages[1][1] == 2 and sum(done) == stages[0][1] + stages[1][1]

    stages.clear()
    done.clear()

    def cancel_after_the_analysis() -> bool:
        # once every sentence is analysed (a second run reads the tagging from the cache: one step for all)
        counted = [stage for stage in stages if stage[2] != "stage"]  # the loading step has no count
        return bool(counted) and sum(done) >= counted[0][1]

    with pytest.raises(Cancelled):
        generated(lcs="LC2,LC4", progress=progress, cancelled=cancel_after_the_analysis)


def test_the_reason_for_no_expansion_follows_the_counts():
    from linguagym.capabilities.pipeline import no_expansion_note

    lexicon = {"validation": {"domain": {"reader_lexicon": {"kept": ["central plot", "key role"]}}}}
    counts = {"LC2": {"masked": 1, "candidates": 41}, "LC4": {"masked": 0, "candidates": 0}}
    assert no_expansion_note({**lexicon, "counts": counts}, "LC2") == (
        "no expansions: none of the 41 fills of 1 masked sentence passed the checks (expansion.rejections counts why)")
    assert "reader lexicon keeps there (2 (modifier, word) pairs" in no_expansion_note({**lexicon, "counts": counts},
                                                                                        "LC4")
    assert "reference grammar" in no_expansion_note({"counts": counts}, "LC4")  # the lexicon off
