"""A prediction's own tolerance in the suite JSON (both dialects), its schema errors, ``upgrade``'s canonical form of
suites that use the new prediction language, and the note that peer tools could not read them (#37)."""

import json

import pytest

from linguagym.errors import SuiteError
from linguagym.suites.load import parse_suite_data, read_suite
from linguagym.suites.peers import peer_unreadable
from linguagym.suites.save import save_suite, suite_to_dict
from tests.conftest import minimal_suite


def test_a_formula_prediction_and_a_website_one_carry_their_own_tolerance():
    data = minimal_suite(predictions=[
        {"type": "formula", "formula": "(2;%mismatch%) >= (2;%match%)", "atol": 0.05, "rtol": 0},
        {"region_number": 2, "l_operand": "mismatch", "relation": "equals", "r_operand": "match", "atol": 1},
        {"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
    ])
    predictions = parse_suite_data(data).suite.predictions
    assert [(p.atol, p.rtol) for p in predictions] == [(0.05, 0.0), (1.0, None), (None, None)]
    # upgrade writes both in the formula dialect, integers as integers, nothing where there was none
    assert suite_to_dict(parse_suite_data(data).suite)["predictions"] == [
        {"type": "formula", "formula": "(2;%mismatch%) >= (2;%match%)", "atol": 0.05, "rtol": 0},
        {"type": "formula", "formula": "(2;%mismatch%) = (2;%match%)", "atol": 1},
        {"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
    ]


@pytest.mark.parametrize("field, value, message", [
    ("atol", -0.1, "predictions[0].atol: must be at least 0, found -0.1"),
    ("rtol", "0.1", "predictions[0].rtol: expected a number, found a string ('0.1')"),
    ("atol", None, "predictions[0].atol: expected a number, found null"),
])
def test_a_bad_tolerance_is_a_located_problem(field, value, message):
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)", field: value}])
    with pytest.raises(SuiteError) as caught:
        parse_suite_data(data)
    assert [p.render() for p in caught.value.problems] == [message]


def test_upgrade_writes_the_canonical_form_of_the_new_operators(tmp_path):
    data = minimal_suite(predictions=[
        {"type": "formula", "formula": "![ (2;%mismatch%)<=(2;%match%) ]&abs( 2*(1 ..3;%mismatch%) -(1, 3;%match%))>=1",
         "rtol": 1e-4},
    ])
    suite = parse_suite_data(data).suite
    out = tmp_path / "up.json"
    save_suite(suite, out)
    written = json.loads(out.read_text())["predictions"]
    assert written == [{"type": "formula", "rtol": 0.0001, "formula":
                        "!((2;%mismatch%) <= (2;%match%)) & abs(2 * (1..3;%mismatch%) - (1,3;%match%)) >= 1"}]
    again = read_suite(out).suite
    assert again == suite and suite_to_dict(again) == suite_to_dict(suite)  # upgrading twice changes nothing


def test_peer_tools_are_named_where_a_suite_uses_what_they_could_not_read():
    data = minimal_suite(predictions=[
        {"type": "formula", "formula": "(2;%mismatch%) > (2;%match%) | -(1;%match%) < 0"},
        {"type": "formula", "formula": "!((2..3;%mismatch%) <= 2 * (2;%match%))"},
        {"type": "formula", "formula": "(2;%mismatch%) = (2;%match%)", "atol": 0.5},
    ])
    problems = peer_unreadable(parse_suite_data(data).suite)
    assert [p.render() for p in problems] == [
        "predictions[1]: uses '<=', '!( )', '*', a region range 'N..M': syntaxgym-core and the syntaxgym.org "
        "website could not read this suite (linguagym can)",
        "predictions[2]: has its own atol: syntaxgym-core and the syntaxgym.org website would ignore it and use "
        "their own tolerance",
    ]


def test_a_range_reaching_past_the_declared_regions_is_a_located_problem():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2..5;%match%) > (3,9;%mismatch%)"}])
    with pytest.raises(SuiteError) as caught:
        parse_suite_data(data)
    assert [p.render() for p in caught.value.problems] == [
        "predictions[0]: (2..5;%match%) refers to regions 4, 5, which region_meta does not declare "
        "(it declares 1..3)",
        "predictions[0]: (3,9;%mismatch%) refers to region 9, which region_meta does not declare (it declares 1..3)",
    ]
