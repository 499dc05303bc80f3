import copy
import json

import pytest

from linguagym.errors import SuiteError
from linguagym.suites import (
    METRIC_NAMES,
    example_suite_paths,
    load_suite,
    read_suite,
    save_suite,
    suite_to_dict,
)
from linguagym.suites.formula import Comparison, RegionRef
from linguagym.suites.load import SuiteNormalizationWarning, parse_suite_data
from linguagym.suites.schema import suite_schema
from tests.conftest import MASTER_SUITES_DIR, SUITES_DIR, minimal_suite, real_suite_paths


def problems_of(data) -> list[str]:
    with pytest.raises(SuiteError) as caught:
        parse_suite_data(data, source="s.json")
    return [p.render() for p in caught.value.problems]


def test_minimal_suite_loads():
    suite = parse_suite_data(minimal_suite()).suite
    assert suite.name == "tiny"
    assert suite.condition_names == ("match", "mismatch")
    assert suite.region_names == ("subject", "verb", "rest")
    assert suite.items[1].condition("mismatch").content(2) == "swim"
    assert suite.predictions[0].conditions == ("mismatch", "match")


def test_real_suites_all_load_validate_and_round_trip(shared_data, tmp_path):
    paths = real_suite_paths(SUITES_DIR) + real_suite_paths(MASTER_SUITES_DIR)
    assert len(paths) == 68
    items = 0
    for path in paths:
        loaded = read_suite(path)
        out = tmp_path / path.parent.name / path.name
        save_suite(loaded.suite, out)
        again = read_suite(out)
        assert again.suite == loaded.suite, path
        assert again.warnings == ()  # the canonical form needs no normalisation
        items += len(loaded.suite.items) if path.parent == SUITES_DIR else 0
    assert items == 842


def test_master_copies_normalise_to_the_same_suites(shared_data):
    # '[ ]' grouping and padded regions are the only differences, so after loading they are equal
    # (region_meta may differ only in leftover display names)
    for path in real_suite_paths(SUITES_DIR):
        plain = read_suite(path).suite
        master = read_suite(MASTER_SUITES_DIR / path.name).suite
        assert master.items == plain.items, path.name
        assert master.predictions == plain.predictions, path.name


def test_master_warnings_are_counted_once_per_suite(shared_data):
    loaded = read_suite(MASTER_SUITES_DIR / "npz_obj.json")
    messages = [w.message for w in loaded.warnings]
    assert messages == ["stripped leading/trailing spaces from 347 regions", "read '[ ]' as '( )' in 1 formula"]
    total = sum(
        int(w.message.split()[-2]) for p in real_suite_paths(MASTER_SUITES_DIR)
        for w in read_suite(p).warnings if w.message.startswith("stripped")
    )
    assert total == 1416


def test_website_dialect_with_metric_list_and_all():
    data = minimal_suite(predictions=[
        {"region_number": 2, "l_operand": "mismatch", "relation": "greaterthan", "r_operand": "match"},
        {"region_number": 3, "l_operand": "mismatch", "relation": "equals", "r_operand": "match"},
    ])
    data["meta"]["metric"] = ["mean", "sum"]
    loaded = parse_suite_data(data)
    assert loaded.dialect == "website"
    assert loaded.suite.meta.metrics == ("mean", "sum") and loaded.suite.meta.primary_metric == "mean"
    assert loaded.suite.predictions[0].tree == Comparison(">", RegionRef(2, "mismatch"), RegionRef(2, "match"))
    assert loaded.suite.predictions[1].formula == "(3;%mismatch%) = (3;%match%)"
    data["meta"]["metric"] = "all"
    meta = parse_suite_data(data).suite.meta
    assert meta.metrics == METRIC_NAMES and meta.primary_metric == "sum"
    assert suite_to_dict(parse_suite_data(data).suite)["meta"]["metric"] == "all"


def test_upgrade_keeps_list_metric_and_writes_formulas(tmp_path):
    data = minimal_suite(predictions=[
        {"region_number": 2, "l_operand": "mismatch", "relation": "lessthan", "r_operand": "match"}])
    data["meta"]["metric"] = ["sum", "mean"]
    data["meta"]["author"] = "someone"
    suite = parse_suite_data(data).suite
    out = tmp_path / "up.json"
    save_suite(suite, out)
    written = json.loads(out.read_text())
    assert written["meta"] == {"name": "tiny", "metric": ["sum", "mean"], "author": "someone"}
    assert written["predictions"] == [{"type": "formula", "formula": "(2;%mismatch%) < (2;%match%)"}]
    assert read_suite(out).suite == suite


def test_normalisation_warnings():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "[(2;%mismatch%) == (2;%match%)]"}])
    data["items"][0]["conditions"][0]["regions"][0]["content"] = "  The boy "
    loaded = parse_suite_data(data)
    assert loaded.suite.items[0].conditions[0].content(1) == "The boy"
    messages = [w.message for w in loaded.warnings]
    assert "stripped leading/trailing spaces from 1 region" in messages
    assert "read '[ ]' as '( )' in 1 formula" in messages
    assert "read '==' as '=' in 1 formula" in messages


def test_load_suite_emits_python_warnings(write_suite):
    data = minimal_suite()
    data["items"][0]["conditions"][0]["regions"][0]["content"] = "The boy "
    with pytest.warns(SuiteNormalizationWarning, match="stripped"):
        load_suite(write_suite(data))


def test_condition_order_differs_between_items():
    data = minimal_suite()
    data["items"][1]["conditions"].reverse()
    suite = parse_suite_data(data).suite
    assert suite.items[1].condition("match").content(2) == "swims"


def test_examples_cover_both_dialects():
    paths = example_suite_paths()
    assert len(paths) >= 3
    loaded = [read_suite(p) for p in paths]
    assert {x.dialect for x in loaded} == {"formula", "website"}
    assert len({x.suite.name for x in loaded}) == len(loaded)
    assert all(x.warnings == () for x in loaded)


def test_schema_is_shipped_and_valid():
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(suite_schema())


# ------------------------------------------------------------------------------ bad input, one each


def test_invalid_json_gives_line_and_column(write_suite):
    path = write_suite('{\n  "meta": {"name": "x",}\n}')
    with pytest.raises(SuiteError) as caught:
        read_suite(path)
    text = str(caught.value)
    assert str(path) in text and "line 2, column 24" in text and "invalid JSON" in text


def test_empty_file(write_suite):
    with pytest.raises(SuiteError, match="the file is empty"):
        read_suite(write_suite("  \n"))


def test_top_level_array(write_suite):
    with pytest.raises(SuiteError, match="the top level is an array"):
        read_suite(write_suite("[]"))


def test_missing_meta_name():
    data = minimal_suite()
    del data["meta"]["name"]
    assert problems_of(data) == ["meta.name: missing required key 'name' (every suite needs a name)"]


def test_unknown_metric():
    data = minimal_suite()
    data["meta"]["metric"] = "average"
    [problem] = problems_of(data)
    assert problem.startswith("meta.metric: unknown metric 'average'; use one of sum, mean")
    data["meta"]["metric"] = ["sum", "total"]
    assert problems_of(data)[0].startswith("meta.metric[1]: unknown metric 'total'")


def test_non_contiguous_region_meta():
    data = minimal_suite(region_meta={"1": "subject", "2": "verb", "4": "rest"})
    found = problems_of(data)
    assert "region_meta: region numbers must run from 1 without gaps; found 1, 2, 4 (missing 3)" in found


def test_undeclared_region_number():
    data = minimal_suite()
    data["items"][1]["conditions"][0]["regions"][2]["region_number"] = 7
    found = problems_of(data)
    assert ("items[1].conditions[0].regions[2].region_number: region 7 is not declared in region_meta "
            "(which declares 1..3)") in found
    assert any(p.startswith("items[1].conditions[0].regions: missing region 3") for p in found)


def test_duplicate_item_numbers():
    data = minimal_suite()
    data["items"].append(copy.deepcopy(data["items"][0]))
    assert problems_of(data) == [
        "items[2].item_number: item number 1 is already used by items[0]; item numbers must be unique"]


def test_condition_in_formula_missing_from_an_item():
    data = minimal_suite()
    data["items"][1]["conditions"][1]["condition_name"] = "mismatched"
    found = problems_of(data)
    assert "predictions[0]: (2;%mismatch%) names condition 'mismatch', which item 2 does not have" in found
    assert any(p.startswith("items[1].conditions: this item lacks 'mismatch'") for p in found)


def test_region_in_formula_not_declared():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(9;%mismatch%) > (2;%match%)"}])
    assert problems_of(data) == [
        "predictions[0]: (9;%mismatch%) refers to region 9, which region_meta does not declare "
        "(it declares 1..3)"]


def test_formula_syntax_error_with_caret():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%mismatch%) > > (2;%match%)"}])
    [problem] = problems_of(data)
    lines = problem.splitlines()
    assert lines[0] == "predictions[0].formula: unexpected '>': expected a number, a region or '('"
    assert lines[1].strip() == "(2;%mismatch%) > > (2;%match%)"
    assert lines[2] == "    " + " " * 17 + "^"


def test_chained_comparison_is_an_error():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%match%) < (2;%mismatch%) < 100"}])
    [problem] = problems_of(data)
    assert "chained comparison" in problem and problem.splitlines()[-1].endswith("^")


def test_region_content_not_a_string():
    data = minimal_suite()
    data["items"][0]["conditions"][1]["regions"][1]["content"] = 3
    assert problems_of(data) == [
        "items[0].conditions[1].regions[1].content: expected a string, found the number 3"]


def test_missing_predictions_key():
    data = minimal_suite()
    del data["predictions"]
    [problem] = problems_of(data)
    assert problem.startswith("predictions: missing required key 'predictions'")
    assert '"predictions": []' in problem


def test_every_problem_is_listed_not_only_the_first():
    data = minimal_suite()
    data["items"].append(copy.deepcopy(data["items"][0]))
    data["predictions"][0]["formula"] = "(2;%mismatch%) > "
    data["region_meta"] = {"1": "a", "2": "b", "3": "c", "5": "e"}
    assert len(problems_of(data)) >= 3


def _blank(data: dict, items: list[int], text: str = "  ") -> dict:
    for index in items:
        for condition in data["items"][index]["conditions"]:
            for region in condition["regions"]:
                region["content"] = text
    return data


def test_a_suite_of_empty_sentences_is_one_located_problem():
    problems = problems_of(_blank(minimal_suite(), [0, 1]))
    assert len(problems) == 1
    assert problems[0].startswith("items: every region of every condition is empty")
    assert "content" in problems[0]


def test_an_item_of_empty_sentences_is_refused_where_it_is():
    problems = problems_of(_blank(minimal_suite(), [1], text=""))
    assert problems == [p for p in problems if p.startswith("items[1].conditions: every region")]
    assert len(problems) == 1


def test_some_empty_regions_stay_valid():
    data = minimal_suite()
    data["items"][0]["conditions"][0]["regions"][2]["content"] = ""
    data["items"][1]["conditions"][1]["regions"][0]["content"] = " "
    suite = parse_suite_data(data).suite
    assert suite.items[0].condition("match").content(3) == ""
