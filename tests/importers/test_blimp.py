"""BLiMP files into suites, the collection of phenomena, and the Hugging Face loaders on local rows."""

import json
import sys

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.collections import parse_collection
from linguagym.importers.blimp import ALL_UIDS, PHENOMENA, read_blimp
from linguagym.importers.blimp_collection import blimp_collection_toml
from linguagym.importers.common import write_suites
from linguagym.importers.hub import blimp_from_hub, load_from_hub, syntaxgym_suites
from linguagym.suites.load import load_suite


def test_a_paradigm_becomes_a_suite_of_pairs(blimp_files):
    [suite] = read_blimp(blimp_files[0])
    assert suite.name == "anaphor_gender_agreement"
    assert [item.number for item in suite.items] == [0, 1]  # BLiMP's pairIDs
    assert suite.condition_names == ("good", "bad") and suite.region_names == ("sentence",)
    assert suite.items[1].condition("bad").content(1) == "Stephanie knows itself."
    assert [p.formula for p in suite.predictions] == ["(1;%good%) < (1;%bad%)"]
    assert suite.meta.metric == "sum"
    extra = suite.meta.extra
    assert (extra["uid"], extra["phenomenon"], extra["linguistics_term"], extra["field"]) == (
        "anaphor_gender_agreement", "anaphor_agreement", "anaphor_agreement", "morphology")
    assert extra["source"] == "BLiMP"


def test_the_paper_grouping_wins_over_the_files_linguistics_term(blimp_files):
    [suite] = read_blimp(blimp_files[1])
    assert suite.meta.extra["linguistics_term"] == "s-selection"
    assert suite.meta.extra["phenomenon"] == "argument_structure"


def test_written_suites_load_back_equal(blimp_files, tmp_path):
    suites = [s for path in blimp_files for s in read_blimp(path)]
    paths = write_suites(suites, tmp_path / "out")
    assert [p.name for p in paths] == ["anaphor_gender_agreement.json", "animate_subject_passive.json",
                                       "passive_1.json"]
    assert [load_suite(p) for p in paths] == suites


def test_one_file_with_two_paradigms_gives_two_suites(blimp_files, tmp_path):
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(blimp_files[0].read_text() + blimp_files[2].read_text())
    assert [s.name for s in read_blimp(mixed)] == ["anaphor_gender_agreement", "passive_1"]


@pytest.mark.parametrize("second_line, words", [
    ('{"sentence_good": "A.", "sentence_bad": ', r"bad\.jsonl:2: invalid JSON \(column \d+\)"),
    ('["not", "an", "object"]', r"bad\.jsonl:2: a JSON list, not an object"),
    ('{"sentence_good": "A.", "UID": "x"}', r"bad\.jsonl:2: no 'sentence_bad' field"),
    ('{"sentence_good": "A.", "sentence_bad": "  ", "UID": "x"}', r"bad\.jsonl:2: 'sentence_bad' is empty"),
    ('{"sentence_good": "A.", "sentence_bad": "B.", "pairID": "0"}', r"bad\.jsonl:2: no UID"),
    ('{"sentence_good": "A.", "sentence_bad": "B.", "UID": "x", "pairID": "0"}',
     r"bad\.jsonl:2: pairID 0 of x was already given on line 1"),
    ('{"sentence_good": "A.", "sentence_bad": "B.", "UID": "x", "pairID": "two"}',
     r"bad\.jsonl:2: pairID 'two' is not a whole number"),
])
def test_bad_lines_are_named_by_file_and_line(tmp_path, second_line, words):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"sentence_good": "A b.", "sentence_bad": "B a.", "UID": "x", "pairID": "0"}\n'
                    + second_line + "\n")
    with pytest.raises(ConfigurationError, match=words):
        read_blimp(path)


def test_an_empty_file_and_a_missing_file(tmp_path):
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(ConfigurationError, match="holds no records"):
        read_blimp(tmp_path / "empty.jsonl")
    with pytest.raises(ConfigurationError, match="does not exist"):
        read_blimp(tmp_path / "absent.jsonl")


def test_the_collection_groups_paradigms_by_phenomenon(blimp_files):
    suites = [s for path in blimp_files for s in read_blimp(path)]
    collection = parse_collection(blimp_collection_toml(suites, "my-blimp"), source="blimp.toml")
    assert collection.name == "my-blimp" and collection.policy == "all"
    assert collection.score_suites == ("anaphor_gender_agreement", "animate_subject_passive", "passive_1")
    groups = {g.name: collection.group_suites(g) for g in collection.groups}
    assert groups == {"Anaphor agreement": ("anaphor_gender_agreement",),
                      "Argument structure": ("animate_subject_passive", "passive_1")}
    assert [g.short for g in collection.groups] == ["Ana. agr", "Arg. str"]


def test_the_paradigm_table_covers_blimp():
    assert len(ALL_UIDS) == len(set(ALL_UIDS)) == 67 and len(PHENOMENA) == 12


def test_blimp_from_the_hub_goes_through_the_same_parsing(blimp_files):
    rows = [json.loads(line) for line in blimp_files[0].read_text().splitlines()]
    for row in rows:  # the hub's copy names the pair's id pair_id, as an integer
        row["pair_id"] = int(row.pop("pairID"))
    asked = []

    def load(dataset, config, split):
        asked.append((dataset, config, split))
        return rows

    [suite] = blimp_from_hub(["anaphor_gender_agreement"], load=load)
    assert asked == [("nyu-mll/blimp", "anaphor_gender_agreement", "train")]
    from_file = read_blimp(blimp_files[0])[0]
    assert suite.items == from_file.items and suite.predictions == from_file.predictions
    assert suite.meta.extra["phenomenon"] == "anaphor_agreement"
    with pytest.raises(ConfigurationError, match="unknown BLiMP paradigm"):
        blimp_from_hub(["no_such_paradigm"], load=load)


def _syntaxgym_row(item, verb_match, verb_mismatch, *, columns):
    conditions = [{"condition_name": name, "content": f"The boy {verb} today.",
                   "regions": [{"region_number": 1, "content": "The boy"}, {"region_number": 2, "content": verb},
                               {"region_number": 3, "content": "today."}]}
                  for name, verb in (("match", verb_match), ("mismatch", verb_mismatch))]
    if columns:  # what datasets gives for a sequence of records: one dict of lists, at every level
        conditions = {"condition_name": [c["condition_name"] for c in conditions],
                      "content": [c["content"] for c in conditions],
                      "regions": [{"region_number": [r["region_number"] for r in c["regions"]],
                                   "content": [r["content"] for r in c["regions"]]} for c in conditions]}
    return {"suite_name": "number_tiny", "item_number": item, "conditions": conditions,
            "predictions": ["(2;%mismatch%) > (2;%match%)"]}


@pytest.mark.parametrize("columns", [False, True])
def test_syntaxgym_rows_become_suites(columns):
    rows = [_syntaxgym_row(1, "swims", "swim", columns=columns), _syntaxgym_row(2, "runs", "run", columns=columns)]
    [suite] = syntaxgym_suites(rows, "cpllab/syntaxgym")
    assert suite.name == "number_tiny" and [i.number for i in suite.items] == [1, 2]
    assert suite.items[1].condition("mismatch").content(2) == "run"
    assert [p.formula for p in suite.predictions] == ["(2;%mismatch%) > (2;%match%)"]
    assert suite.region_count == 3


def test_the_hub_without_datasets_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets now raises ImportError
    with pytest.raises(ConfigurationError, match="datasets package") as caught:
        load_from_hub("nyu-mll/blimp", "adjunct_island", "train")
    assert "pip install 'linguagym[hub]'" in str(caught.value)
