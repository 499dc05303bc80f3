"""CheckList's test types (INV, DIR) beside the expected-label tests (MFT): the perturbations (seeded, so
deterministic), the test file's ``type`` field and round trip, the failure-rate arithmetic on fake classifiers,
and ``lct generate`` / ``lct test`` end to end on tiny inputs."""

from __future__ import annotations

import copy
import csv
import json
import random
import re
from collections.abc import Sequence

import pytest

from linguagym.capabilities.classifiers.base import Prediction
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.perturb.build import DIR_TOLERANCE, add_checklist_tests, parse_test_types
from linguagym.capabilities.perturb.contractions import contract, contraction_variant, expand_contractions
from linguagym.capabilities.perturb.entities import COUNTRIES, PERSON, PLACE, Entity, swap_entities
from linguagym.capabilities.perturb.typos import add_typo
from linguagym.capabilities.reports.results import read_tests_csv, write_results
from linguagym.capabilities.testfile import load_document, read_tests, write_tests
from linguagym.capabilities.testing.classifier_run import run_tests
from linguagym.capabilities.testing.failures import checklist_table, summarize
from tests.capabilities.lct_fakes import EXPECTED, KeywordClassifier, capability_file, document
from tests.capabilities.test_cli_test import _main

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


@pytest.fixture(scope="module")
def nlp():
    pytest.importorskip("spacy")
    from linguagym.capabilities.perturb.build import load_perturbation_pipeline

    return load_perturbation_pipeline()


# --- perturbations ---------------------------------------------------------------------------------------------

def test_a_typo_swaps_two_adjacent_letters_the_same_way_for_the_same_seed():
    text = "This movie isn't bad."
    typo = add_typo(text, random.Random("0/LC4/1/typo"))
    assert typo == add_typo(text, random.Random("0/LC4/1/typo"))
    assert typo != text and sorted(typo) == sorted(text) and len(typo) == len(text)
    changed = [i for i, (a, b) in enumerate(zip(text, typo, strict=True)) if a != b]
    assert len(changed) == 2 and changed[1] == changed[0] + 1 and text[changed[0]].isalpha()
    draws = {add_typo(text, random.Random(f"{seed}/typo")) for seed in range(20)}
    assert len(draws) > 3  # the seed picks the place
    assert add_typo("a b. oo", random.Random(0)) is None  # no two different letters side by side


def test_contractions_are_expanded_or_made_and_ambiguous_ones_left_alone():
    assert expand_contractions("This movie isn't bad, and I'm glad.") == "This movie is not bad, and I am glad."
    assert expand_contractions("Isn't it? They\u2019re not.") == "Is not it? They are not."
    assert contract("It is not bad, they are not. I cannot.") == "It isn't bad, they're not. I can't."  # leftmost first
    assert contraction_variant("That plot isn't a disaster.") == "That plot is not a disaster."
    assert contraction_variant("That plot is not a disaster.") == "That plot isn't a disaster."
    assert contraction_variant("It's been a good year.") is None  # 's: is or has
    assert contraction_variant("A red car.") is None


def test_names_and_places_are_swapped_consistently_and_never_for_themselves():
    text = "Tom Hanks met Hanks in France."
    entities = [Entity(0, 9, PERSON), Entity(14, 19, PERSON), Entity(23, 29, PLACE)]
    names = swap_entities(text, entities, PERSON, random.Random("0/x/names"))
    assert names == swap_entities(text, entities, PERSON, random.Random("0/x/names"))
    assert names is not None and "Tom Hanks" not in names and names.endswith(" in France.")
    first, second = names[:-len(" in France.")].split(" met ")
    assert len(first.split()) == 2 and second != "Hanks" and len(second.split()) == 1
    places = swap_entities(text, entities, PLACE, random.Random(1))
    assert places is not None and places.startswith("Tom Hanks met Hanks in ")
    assert places[len("Tom Hanks met Hanks in "):-1] in COUNTRIES and "France" not in places
    assert swap_entities(text, [], PERSON, random.Random(0)) is None


@pytest.mark.parametrize(("sentence", "negated"), [
    ("This movie is good.", "This movie is not good."),
    ("I loved this film.", "I did not love this film."),
    ("It will be a great success.", "It will not be a great success."),
    ("You can feel the love.", "You cannot feel the love."),
    ("It is certainly a fine film.", "It is certainly not a fine film."),  # the adverb keeps its scope
    ("The film has been praised.", "The film has not been praised."),
    ("The acting was very moving.", "The acting was not very moving."),
    ("A gorgeous, witty, seductive movie.", None),  # no verb
    ("This is not good.", None),  # negated already
])
def test_negation_is_placed_by_the_parse(nlp, sentence, negated):
    from linguagym.capabilities.perturb.negation import add_negation

    assert add_negation(nlp(sentence)) == negated


def test_test_types_are_parsed_and_mft_is_required():
    assert parse_test_types("dir,MFT") == ("MFT", "DIR")
    assert parse_test_types("all") == parse_test_types(["mft", "inv", "dir"]) == ("MFT", "INV", "DIR")
    with pytest.raises(CapabilityError, match="leave out mft"):
        parse_test_types("inv,dir")
    with pytest.raises(CapabilityError, match="unknown test type 'mtf'") as caught:
        parse_test_types("mtf")
    assert "mft, inv, dir" in (caught.value.hint or "")


# --- the file format ---------------------------------------------------------------------------------------------

def test_inv_and_dir_tests_follow_their_capability_and_read_back_byte_identical(nlp, tmp_path):
    plain = capability_file()
    made = add_checklist_tests(plain, "mft,inv,dir", seed=0, nlp=nlp)
    assert [t for t in made.tests if t.test_type == "MFT"] == list(plain.tests)  # the paper's tests unchanged
    assert made.count("seed") == plain.count("seed") and made.count("expansion") == plain.count("expansion")
    types = {(t.provenance.perturbation, t.test_type) for t in made.tests if t.type is not None}
    assert types == {("expansion", "INV"), ("typo", "INV"), ("contraction", "INV"), ("negation", "DIR")}
    contraction = made.by_id()["LC4/1/1/inv-contraction"]
    assert (contraction.text, contraction.provenance.original_text) == ("This movie is not bad.",
                                                                       "This movie isn't bad.")
    negation = made.by_id()["X1/1/dir-negation"]
    assert negation.provenance.direction is not None and negation.provenance.direction.tolerance == DIR_TOLERANCE
    capabilities = [t.capability for t in made.tests]
    assert all(capabilities.index(c) + capabilities.count(c) - 1 == max(i for i, x in enumerate(capabilities)
                                                                        if x == c) for c in set(capabilities))
    assert made == add_checklist_tests(plain, "mft,inv,dir", seed=0, nlp=nlp)  # deterministic
    assert add_checklist_tests(made, "mft,inv,dir", seed=0, nlp=nlp) == made  # made again, not twice
    assert made.perturbations is not None and made.perturbations["made"]["typo"]["made"] == plain.count("seed")

    path = tmp_path / "tests.json"
    write_tests(made, path)
    read = read_tests(path)
    assert read == made
    write_tests(read, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
    data = json.loads(path.read_text(encoding="utf-8"))
    assert plain.version == 1 and data["version"] == 2  # a linguagym without INV/DIR refuses it, not misreads it
    assert all("type" not in t for t in data["tests"] if not t["id"].endswith(("-typo", "-contraction",
                                                                             "-expansion", "-negation")))


def test_a_file_without_test_types_reads_as_expected_label_tests_and_bad_ones_are_refused():
    old = load_document(document(), "old")
    assert {t.test_type for t in old.tests} == {"MFT"} and all(t.type is None for t in old.tests)
    assert all("type" not in t for t in old.to_json()["tests"])
    data = document()
    data["tests"].append({**copy.deepcopy(data["tests"][0]), "id": "p1", "type": "INV"})  # no original_text
    with pytest.raises(CapabilityError, match="original_text"):
        load_document(data, "bad")
    data["tests"][-1]["type"] = "CHK"
    with pytest.raises(CapabilityError, match="CHK"):
        load_document(data, "bad")


# --- failure rates -----------------------------------------------------------------------------------------------

def _pair(tid: str, capability: str, original: str, text: str, test_type: str, perturbation: str,
          expected: tuple[str, ...] | None = None) -> dict:
    """A pair as the generator writes it: a DIR test with no expected labels (``expected`` overrides)."""
    provenance = {"dataset": "fixture", "original_text": original, "perturbation": perturbation}
    if test_type == "DIR":
        provenance["direction"] = {"label": "positive", "change": "decrease", "tolerance": 0.1}
    if expected is None:
        expected = () if test_type == "DIR" else ("negative", "neutral")
    return {"id": tid, "capability": capability, "text": text, "expected": list(expected), "kind": "seed",
            "type": test_type, "provenance": provenance}


# text -> probability of positive, for the DIR pairs (the rest split evenly)
P_POSITIVE = {"It is great.": 0.7, "It is not great.": 0.75, "It was great.": 0.7, "It was not great.": 0.85,
              "It works well.": 0.6, "It does not work well.": 0.2}


class ProbabilityClassifier(KeywordClassifier):
    """The keyword rule's labels, with the probability of positive from ``P_POSITIVE`` where it names the text."""

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        out = super().predict(texts)
        for i, text in enumerate(texts):
            if text in P_POSITIVE:
                p = P_POSITIVE[text]
                out[i] = Prediction("positive", ((1 - p) / 2, (1 - p) / 2, p))
        return out


def checklist_document() -> dict:
    """``document()`` plus INV and DIR pairs whose outcomes under ``ProbabilityClassifier`` are known."""
    data = document()
    data["tests"] += [
        _pair("LC1/p1", "LC1", "A red car.", "A rde car.", "INV", "typo"),  # neutral both: passes
        _pair("LC1/p2", "LC1", "A red car.", "A bad car.", "INV", "names"),  # neutral -> negative: fails
        _pair("LC2/p1", "LC2", "A good film.", "A godo film.", "INV", "typo"),  # positive -> neutral: fails
        _pair("LC2/d1", "LC2", "It is great.", "It is not great.", "DIR", "negation"),  # +0.05: within tolerance
        _pair("LC2/d2", "LC2", "It was great.", "It was not great.", "DIR", "negation"),  # +0.15: fails
        # -0.4: passes; written as files before 2026-11-29 wrote DIR tests, with labels the pass rule ignores
        _pair("LC4/d1", "LC4", "It works well.", "It does not work well.", "DIR", "negation", ("negative", "neutral")),
    ]
    return data


def test_inv_and_dir_rates_are_their_own_and_leave_the_expected_label_rates_alone():
    plain = summarize(run_tests(capability_file(), KeywordClassifier()).outcomes, capability_file().capabilities)
    doc = load_document(checklist_document(), "fixture")
    summary = summarize(run_tests(doc, ProbabilityClassifier()).outcomes, doc.capabilities)
    by_id = summary.by_id()
    for cid, (seeds, seed_failures, expansions, expansion_failures, _, _) in EXPECTED.items():
        row = by_id[cid]
        assert (row.seeds.total, row.seeds.failed, row.expansions.total, row.expansions.failed) == \
            (seeds, seed_failures, expansions, expansion_failures), cid
    assert summary.total.seeds == plain.total.seeds and summary.total.confusion == plain.total.confusion
    assert (by_id["LC1"].invariance.failed, by_id["LC1"].invariance.total) == (1, 2)
    assert (by_id["LC2"].invariance.failed, by_id["LC2"].invariance.total) == (1, 1)
    assert (by_id["LC2"].directional.failed, by_id["LC2"].directional.total) == (1, 2)
    assert (by_id["LC4"].directional.failed, by_id["LC4"].directional.total) == (0, 1)
    total = summary.total
    assert (total.invariance.failed, total.invariance.total, total.directional.failed, total.directional.total) \
        == (2, 3, 1, 3)
    assert {name: (r.failed, r.total) for name, r in total.perturbations.items()} == \
        {"typo": (1, 2), "names": (1, 1), "negation": (1, 3)}
    header, rows = checklist_table({"p": summary})
    assert [name for _, name in header[4:6]] == ["INV fail %", "DIR fail %"]
    assert rows[-1][:6] == ["all", "all capabilities", "3", "3", "66.7", "33.3"]


def test_the_outputs_carry_the_rates_apart_and_read_back_the_same(tmp_path):
    doc = load_document(checklist_document(), "fixture")
    path = tmp_path / "tests.json"
    write_tests(doc, path)
    run = run_tests(doc, ProbabilityClassifier())
    written = write_results(doc, path, [run], tmp_path / "out")
    folder = written.classifier_directories[run.name]
    # the web app's path: the outcomes read back from tests.csv
    again = summarize(read_tests_csv(folder / "tests.csv"), doc.capabilities, classifier=run.name)
    assert again == written.summaries[run.name]
    # a DIR test claims no label: its expected cell is empty and reads back as no labels, not as one empty label
    cells = {r["id"]: r["expected"] for r in csv.DictReader((folder / "tests.csv").open(encoding="utf-8"))}
    assert (cells["LC2/d1"], cells["LC4/d1"]) == ("", "negative/neutral")
    assert {o.id: o.expected for o in read_tests_csv(folder / "tests.csv")}["LC2/d1"] == ()
    rows = {r["capability"]: r for r in csv.DictReader((folder / "summary.csv").open(encoding="utf-8"))}
    assert (rows["all"]["inv_pairs"], rows["all"]["inv_failures"], rows["all"]["dir_failures"]) == ("3", "2", "1")
    assert rows["all"]["seeds"] == "9"  # the expected-label counts, as before
    record = json.loads(written.record.read_text(encoding="utf-8"))
    assert record["tests_file"]["seeds"] == 9 and record["tests_file"]["inv"] == record["tests_file"]["dir"] == 3
    assert record["classifiers"][0]["total"]["directional"]["failed"] == 1
    assert "INV fail %" in record["checklist"]["definition"]
    page = written.report.read_text(encoding="utf-8")
    assert "id=checklist" in page and "It was <mark>not</mark> great." in page  # a failing pair, the change marked


# --- the command line --------------------------------------------------------------------------------------------

def test_lct_test_prints_the_checklist_table_apart(tmp_path, capsys):
    path = tmp_path / "tests.json"
    path.write_text(json.dumps(checklist_document()), encoding="utf-8")
    assert _main(["test", str(path), "-c", KEYWORDS, "-o", str(tmp_path / "out"), "--cache-dir",
                  str(tmp_path / "cache"), "--markdown"]) == 0
    out = capsys.readouterr().out
    first, second = out.split("INV pairs")
    assert "seed fail %" in first and "INV fail %" not in first  # never one table
    assert "| all | all capabilities | 3 | 3 |" in second and "CheckList" in second


def test_lct_generate_writes_inv_and_dir_tests_by_default(tmp_path, swn_file, capsys):
    pytest.importorskip("spacy")
    from linguagym.cli.entry import main

    data = tmp_path / "d.csv"
    data.write_text("sentence,y\nThis movie is bad.,0\nThis film is good.,1\nThose films aren't awful.,0\n")
    out = tmp_path / "tests.json"
    common = ["lct", "generate", "--dataset", str(data), "--text-column", "sentence", "--label-column", "y",
              "--label-map", "0=negative,1=positive", "--lexicon", str(swn_file), "--lc", "LC9", "--no-expand"]
    assert main([*common, "-o", str(out)]) == 0
    document = read_tests(out)
    by_type = {t: [x for x in document.tests if x.test_type == t] for t in ("MFT", "INV", "DIR")}
    assert len(by_type["MFT"]) == 3 and by_type["INV"] and by_type["DIR"]
    (negated,) = by_type["DIR"]
    assert negated.text == "This film is not good." and negated.provenance.original_text == "This film is good."
    assert negated.expected == () and negated.provenance.direction.change == "decrease"  # a direction, no label
    assert "INV tests" in capsys.readouterr().err
    assert main(["lct", "show", str(out), "--samples", "9"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"LC9 .* 3 .* 0 .* {}\b.* 1 .* negative; positive".format(len(by_type["INV"])), shown)
    assert negated.text not in shown  # samples are expected-label tests
    assert main([*common, "--test-types", "mft", "-o", str(tmp_path / "mft.json")]) == 0
    assert {t.test_type for t in read_tests(tmp_path / "mft.json").tests} == {"MFT"}
    assert main([*common, "--test-types", "inv", "-o", str(tmp_path / "x.json")]) == 1
    assert "leave out mft" in capsys.readouterr().err


def test_only_a_dir_test_may_leave_its_expected_labels_empty():
    """The schema: an MFT or INV test names the labels it expects; a DIR test claims a direction, not a label, and
    files written before it had none still read."""
    from linguagym.capabilities.testfile.schema import validate_document

    validate_document(checklist_document())
    for test_type in ("MFT", "INV", None):
        broken = checklist_document()
        test = next(t for t in broken["tests"] if t.get("type", "MFT") == (test_type or "MFT"))
        test["expected"] = []
        if test_type is None:
            test.pop("type", None)
        with pytest.raises(CapabilityError, match="expected"):
            validate_document(broken)
