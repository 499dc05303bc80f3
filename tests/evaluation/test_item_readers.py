"""Reading one item back from a run's folder with no model (``item_detail``), the item table and its filters
(``item_table``), tokens.csv, and a formula evaluated with its terms shown (``formula.explain``)."""

from __future__ import annotations

import csv
import math

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.item_detail import read_item_scores
from linguagym.evaluation.item_table import ItemTable, read_item_table
from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.evaluation.runfolder.reader import read_run
from linguagym.evaluation.runfolder.writer import write_run
from linguagym.suites import example_suite_paths
from linguagym.suites.formula import RegionRef, explain, parse_formula
from tests.evaluation.fakes import WordScorer


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    scorer = WordScorer(lambda word, index: {"know": 9.0, "knows": 1.0, ",": 4.5}.get(word, 1.0 + index % 3))
    result = run_suites(example_suite_paths(), RunSettings(model="fake"), scorer=scorer)
    return write_run(result, tmp_path_factory.mktemp("run") / "fake").parent


def test_explain_shows_each_reference_and_both_sides_of_each_comparison():
    values = {RegionRef(1, "a"): 5.0, RegionRef(1, "b"): 2.0, RegionRef(2, "a"): math.nan}
    tree = parse_formula("(1;%a%) - (1;%b%) > 1 & (2;%a%) < (1;%b%)").tree
    shown = explain(tree, values.__getitem__)
    assert shown.outcome.holds is False and shown.outcome.undefined == (RegionRef(2, "a"),)
    assert [ref for ref, _ in shown.references] == [RegionRef(1, "a"), RegionRef(1, "b"), RegionRef(2, "a")]
    first, second = shown.comparisons
    assert (first.text, first.left, first.op, first.right, first.holds) == ("(1;%a%) - (1;%b%) > 1", 3.0, ">", 1.0,
                                                                            True)
    assert math.isnan(second.left) and second.right == 2.0 and second.holds is False


def test_an_item_read_back_has_the_runs_values_tokens_and_outcomes(run_dir):
    run = read_run(run_dir)
    detail = read_item_scores(run, "npz_comma", 2, tokens=True)
    assert detail.model == "fake" and detail.metric == "sum" and detail.has_tokens
    with (run_dir / "regions.csv").open(newline="", encoding="utf-8") as handle:
        rows = {(r["condition"], int(r["region"])): r for r in csv.DictReader(handle)
                if r["suite"] == "npz_comma" and r["item"] == "2"}
    assert len(rows) == sum(len(c.regions) for c in detail.conditions) == 4 * 7
    for condition in detail.conditions:
        for region in condition.regions:
            row = rows[(condition.name, region.number)]
            assert repr(region.values["sum"]) == row["sum"] and region.content == row["content"]
            assert math.fsum(t.surprisal for t in region.tokens) == pytest.approx(region.values["sum"])
            assert "".join(t.covered for t in region.tokens).replace(" ", "") == region.content.replace(" ", "")
    comma = next(r for r in detail.conditions[1].regions if r.name == "comma")
    assert [t.covered for t in comma.tokens] == [","] and comma.values["sum"] == 4.5
    [prediction] = detail.predictions
    assert prediction.recorded is prediction.explanation.outcome.holds is not None
    assert [str(ref) for ref in prediction.references] == ["(6;%ambig_nocomma%)", "(6;%ambig_comma%)",
                                                          "(6;%unambig_nocomma%)", "(6;%unambig_comma%)"]
    assert len(prediction.explanation.comparisons) == 2
    assert read_item_scores(run, "npz_comma", 2).conditions[0].regions[0].tokens is None  # tokens only on demand
    with pytest.raises(ConfigurationError, match="has no item 99"):
        read_item_scores(run, "npz_comma", 99)
    with pytest.raises(ConfigurationError, match="no results for a suite named 'nope'"):
        read_item_scores(run, "nope", 1)


def test_the_item_table_and_its_filters(run_dir):
    table = read_item_table([read_run(run_dir)], "agreement_across_pp")
    assert table.models == ("fake",) and table.items == list(range(1, 9))
    assert table.filtered("failing") == table.items and table.filtered("disagree") == []  # "know" is surprising
    assert read_item_table([read_run(run_dir)], "nope").models == ()

    two = ItemTable("s", ("a", "b"), {0: "f0", 1: "f1"}, {
        1: {"a": {0: True, 1: True}, "b": {0: True, 1: True}},
        2: {"a": {0: True, 1: False}, "b": {0: True, 1: False}},
        3: {"a": {0: False, 1: True}, "b": {0: True, 1: True}},
        4: {"a": {0: True, 1: True}, "b": {0: True, 1: False}},
    })
    assert two.filtered("failing") == [2, 3, 4] and two.filtered("failing", "first") == [3]
    assert two.filtered("disagree") == [3, 4]
    assert two.neighbours(3, "failing") == (2, 4) and two.neighbours(1, "disagree") == (None, 3)
    with pytest.raises(ConfigurationError, match="unknown item filter 'odd'"):
        two.filtered("odd")
