"""Suite-level predictions in the suite format (#37): both dialects read them, the canonical form is printed and
loads back equal, they are kept apart from the item predictions, and a suite using one says that syntaxgym-core
could not read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.errors import SuiteError
from linguagym.suites.formula import Aggregate, Arithmetic, Comparison, Number, RegionRef, parse_formula
from linguagym.suites.load import parse_suite_data
from linguagym.suites.peers import peer_unreadable
from linguagym.suites.save import suite_to_dict
from tests.conftest import minimal_suite

MEAN = "mean((2;%mismatch%) - (2;%match%)) > 0"
DIFFERENCE = Arithmetic("-", RegionRef(2, "mismatch"), RegionRef(2, "match"))


def with_predictions(*predictions: dict) -> dict:
    return minimal_suite(predictions=list(predictions))


def formula(text: str) -> dict:
    return {"type": "formula", "formula": text}


def test_a_suite_level_formula_is_kept_apart_from_the_item_predictions():
    suite = parse_suite_data(with_predictions(formula("(2;%mismatch%) > (2;%match%)"), formula(MEAN))).suite
    assert [p.formula for p in suite.predictions] == ["(2;%mismatch%) > (2;%match%)"]
    [level] = suite.suite_predictions
    assert level.tree == Comparison(">", Aggregate("mean", DIFFERENCE), Number(0.0))
    assert level.suite_level is not None and level.suite_level.threshold == 0.0


def test_the_website_dialect_reads_aggregate_and_upgrade_writes_the_formula():
    website = {"region_number": 2, "l_operand": "mismatch", "relation": "lessthan", "r_operand": "match",
               "aggregate": "median", "atol": 0.5}
    loaded = parse_suite_data(with_predictions(website))
    assert loaded.dialect == "website"
    [level] = loaded.suite.suite_predictions
    assert level.formula == "median((2;%mismatch%) - (2;%match%)) < 0" and level.atol == 0.5
    data = suite_to_dict(loaded.suite)
    assert data["predictions"] == [{"type": "formula", "formula": "median((2;%mismatch%) - (2;%match%)) < 0",
                                    "atol": 0.5}]
    assert parse_suite_data(data).suite == loaded.suite  # the canonical form loads back equal


def test_upgrade_writes_item_predictions_first_and_says_why_when_they_were_not():
    loaded = parse_suite_data(with_predictions(formula(MEAN), formula("(2;%mismatch%) > (2;%match%)")))
    assert any("a suite-level prediction comes before an item prediction" in w.message for w in loaded.warnings)
    data = suite_to_dict(loaded.suite)
    assert [p["formula"] for p in data["predictions"]] == ["(2;%mismatch%) > (2;%match%)", MEAN]
    again = parse_suite_data(data)
    assert again.suite == loaded.suite and not again.warnings


@pytest.mark.parametrize(
    "prediction, words",
    [
        ({"type": "formula", "formula": MEAN, "aggregate": "mean"}, '"aggregate" belongs to a website-dialect'),
        (formula("mean((2;%mismatch%) - (2;%nope%)) > 0"), "names condition 'nope'"),
        (formula("mean((9;%mismatch%)) > 0"), "refers to region 9"),
        ({"region_number": 2, "l_operand": "mismatch", "relation": "greaterthan", "r_operand": "match",
          "aggregate": "max"}, "predictions[0].aggregate"),
    ],
)
def test_a_wrong_suite_level_prediction_is_a_located_problem(prediction, words):
    with pytest.raises(SuiteError) as caught:
        parse_suite_data(with_predictions(prediction))
    assert words in str(caught.value)


def test_peers_are_said_to_be_unable_to_read_it():
    suite = parse_suite_data(with_predictions(formula(MEAN))).suite
    [problem] = peer_unreadable(suite)
    assert "suite-level prediction (mean over items)" in problem.message
    assert "syntaxgym-core and the syntaxgym.org website could not read this suite" in problem.message


def test_validate_accepts_it_and_warns_and_upgrade_writes_the_canonical_form(tmp_path: Path, capsys):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(with_predictions(formula("(2;%mismatch%) > (2;%match%)"),
                                                formula("mean[(2;%mismatch%)-(2;%match%)]>0"))))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 predictions, 1 suite-level" in out and "could not read this suite" in out
    assert main(["upgrade", str(path), "-o", str(tmp_path / "up.json")]) == 0
    written = json.loads((tmp_path / "up.json").read_text())
    assert written["predictions"][1] == formula(MEAN)
    assert parse_formula(written["predictions"][1]["formula"]).tree.left == Aggregate("mean", DIFFERENCE)


def test_a_suite_level_formula_has_no_value_on_one_item():
    from linguagym.errors import ConfigurationError
    from linguagym.suites.formula import evaluate

    with pytest.raises(ConfigurationError, match="summarises a suite's items: it has no value on one item"):
        evaluate(parse_formula(MEAN).tree, lambda ref: 1.0)
