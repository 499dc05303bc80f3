"""The typed capability-test file: read from JSON and written back exactly (keys, order, values it does not
name), typed fields where the generator's shapes are, and a clear error where a dict is passed instead."""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import replace

import pytest

from linguagym.capabilities.testfile import load_document, read_tests, write_tests
from linguagym.capabilities.testfile.model import CapabilityTestFile, Mask, Provenance, SourceRow
from linguagym.capabilities.testing.classifier_run import run_tests, unique_texts
from tests.capabilities.lct_fakes import KeywordClassifier, capability_file, document

EXPANSION_KEYS = ["dataset", "case", "rows", "template", "alternatives", "seed", "seed_text", "expanded_text",
                  "production", "masked", "masks", "fills", "confidence", "disruption", "score", "selection"]


def _odd_document() -> dict:
    """The fixture with what a hand-made file may hold: keys in another order, keys the model does not name at
    every level, optional keys left out, nulls, and unchecked keys whose values are not the generator's shapes."""
    data = document()
    data = {"tests": data.pop("tests"), **data, "comment": {"by": "hand"}}
    data["dataset"] = {"rows": 12, "name": "fixture", "source": "hand-made", "label_rule": "by hand", "note": 1}
    data["settings"]["lcs"] = "LC1"  # not a list of ids: kept as it is
    data["capabilities"][0]["expansions"] = "many"
    data["capabilities"][1]["colour"] = "red"
    seed, expansion = data["tests"][0], data["tests"][1]
    seed["provenance"] = {"rows": [{"text": "A red car.", "extra": True}], "dataset": "fixture", "template": None,
                          "case": "one", "alternatives": {"intro": 3}}
    expansion["provenance"]["masks"][0] = {"end": 9, "start": 6, "why": "x"}
    expansion["provenance"]["production"] = ["not", "an", "object"]
    expansion["weight"] = 2.5
    data["tests"][3]["provenance"]["rows"] = "row 3"
    return data


def _text(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("make", [document, _odd_document])
def test_a_file_read_and_written_is_byte_identical(make, tmp_path):
    path = tmp_path / "tests.json"
    path.write_text(_text(make()), encoding="utf-8")
    read = read_tests(path)
    assert read.to_json() == make() and list(read.to_json()) == list(make())
    write_tests(read, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_values_of_other_shapes_stay_as_they_were_and_are_not_typed():
    read = load_document(_odd_document())
    assert read.extra == {"comment": {"by": "hand"}} and read.dataset.sha256 is None
    assert read.settings.lcs is None and read.settings.extra == {"lcs": "LC1"}
    assert read.capabilities[0].expansions is None and read.capabilities[1].extra == {"colour": "red"}
    seed, expansion = read.tests[0], read.tests[1]
    assert seed.provenance.case is None and seed.provenance.template is None
    assert seed.provenance.rows == (SourceRow(text="A red car.", extra={"extra": True}),)
    assert seed.provenance.alternatives is None and seed.provenance.extra == {"case": "one",
                                                                               "alternatives": {"intro": 3}}
    assert expansion.provenance.masks[0] == Mask(start=6, end=9, extra={"why": "x"})
    assert expansion.provenance.production is None and expansion.extra == {"weight": 2.5}
    assert read.tests[3].provenance.rows is None and read.tests[3].provenance.row("S") is None


def test_typed_fields_of_the_fixture():
    tests = capability_file()
    assert isinstance(tests, CapabilityTestFile) and tests.dataset.name == "fixture"
    assert tests.settings.max_seeds is None and tests.count("seed") == 9 and tests.count("expansion") == 7
    expansion = tests.by_id()["LC1/1/8/x2"]
    assert expansion.kind == "expansion" and expansion.seed_id == "LC1/1/8" and expansion.expected == ("neutral",)
    assert expansion.provenance.fills == ("good",) and expansion.provenance.masks == (Mask(tag="JJ", start=6,
                                                                                          end=10),)
    assert tests.by_id()["LC1/1/8"].seed_id is None
    assert [c.id for c in tests.capabilities] == ["LC4", "X1", "LC2", "LC1", "LC3"]


def test_a_changed_field_or_key_is_written_after_the_keys_read():
    read = load_document(document())
    test = read.tests[0]
    provenance = replace(test.provenance, seed="LC1/1/3", extra={**test.provenance.extra, "mine": 1})
    changed = replace(read, tests=(replace(test, text="Another car.", provenance=provenance), *read.tests[1:]))
    data = changed.to_json()["tests"][0]
    assert data["text"] == "Another car." and list(data) == list(document()["tests"][0])
    assert list(data["provenance"]) == [*document()["tests"][0]["provenance"], "seed", "mine"]
    assert read.to_json() == document()  # the original is untouched


def test_made_in_code_the_writers_order_and_nulls():
    rows = (SourceRow(slot="S", id="4", label="neutral", score=None, text="A car."),)
    seed = Provenance.for_seed(dataset="d", case=1, rows=rows, template=None, alternatives={})
    assert seed.to_json() == {"dataset": "d", "case": 1, "rows": [{"slot": "S", "id": "4", "label": "neutral",
                                                                   "score": None, "text": "A car."}],
                              "template": None, "alternatives": {}}
    expansion = replace(seed, seed="LC1/1/4", selection="score", masks=(Mask(tag="JJ", start=2, end=5),),
                        fills=("red",))
    assert list(expansion.to_json()) == ["dataset", "case", "rows", "template", "alternatives", "seed", "masks",
                                         "fills", "selection"]
    assert Provenance(dataset="d").to_json() == {"dataset": "d"}  # optional keys left out, not null


def test_the_json_is_fresh_data_not_the_models():
    read = load_document(document())
    data = read.to_json()
    data["tests"][0]["provenance"]["alternatives"]["x"] = "y"
    data["dataset"]["name"] = "changed"
    assert read.to_json() == document()
    source = document()
    kept = load_document(copy.deepcopy(source))
    assert kept.to_json() == source


def test_a_dict_is_refused_with_a_message_saying_how_to_convert_it(tmp_path):
    for call in (lambda: run_tests(document(), KeywordClassifier()), lambda: unique_texts(document()),
                 lambda: write_tests(document(), tmp_path / "t.json")):
        with pytest.raises(TypeError, match=r"takes a CapabilityTestFile, not dict: .*load_document"):
            call()
    assert not (tmp_path / "t.json").exists()


@pytest.mark.usefixtures("spacy_ready")
def test_a_generated_file_with_expansions_reads_back_byte_identical(rt_file, swn_file, tmp_path, monkeypatch):
    from linguagym.capabilities import pipeline
    from linguagym.capabilities.data.datasets import read_rotten_tomatoes
    from linguagym.capabilities.expansion import fill
    from linguagym.capabilities.expansion.settings import ExpansionSettings
    from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings
    from linguagym.capabilities.syntax.grammar import Grammar
    from tests.capabilities.test_expand import FakeFiller

    grammar = Grammar({"NP": Counter({("DT", "JJ", "NN"): 2, ("DT", "NN"): 2, ("JJ", "NNS"): 1}),
                       "ADJP": Counter({("RB", "JJ"): 1, ("JJ",): 1})})
    monkeypatch.setattr(fill, "load_filler", lambda *args, **kwargs: FakeFiller())
    monkeypatch.setattr(pipeline, "_reference_grammar", lambda *args, **kwargs: grammar)
    generated = pipeline.generate_tests(GenerateSettings(
        read_rotten_tomatoes(rt_file), lexicon_path=swn_file, lcs="LC2,LC3,LC4", test_types="mft",  # INV/DIR:
        expansion=ExpansionOptions(parser="spacy", settings=ExpansionSettings(seeds_per_capability=None))))
    # test_checklist.py reads files with them back
    path = tmp_path / "tests.json"
    write_tests(generated, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    expansions = [t for t in data["tests"] if t["kind"] == "expansion"]
    assert expansions and all(list(t["provenance"]) == EXPANSION_KEYS for t in expansions)
    assert list(data) == ["format", "version", "created_by", "dataset", "lexicon", "tagger", "settings",
                          "capabilities", "tests", "expansion"]
    read = read_tests(path)
    assert read == generated
    write_tests(read, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
