"""``--compat syntaxgym-core`` on syntaxgym-core's own fixtures, and scored suites (``suites/NAME.json``) that
syntaxgym-core can read and linguagym can evaluate again.

The fixtures (tests/fixtures/syntaxgym_core/, see its README) are lm-zoo surprisal files of two models for two
suites, with the region values syntaxgym-core computed from them. Where syntaxgym-core itself imports (it does
not on Python 3.11 from PyPI; its GitHub source does, with lm-zoo), the scored-suite test also runs its loader.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError, SuiteError
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings, check_settings, run_suites
from linguagym.evaluation.scored_suites import evaluate_scored_suite, scored_suite, scored_suite_dict
from linguagym.scoring.protocol import ScoredText
from linguagym.suites import example_suite_paths, read_suite
from linguagym.suites.load import parse_suite_data
from linguagym.suites.metrics import METRIC_NAMES

from .fakes import WordScorer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "syntaxgym_core"
# (suite, lm-zoo surprisals, the suite as syntaxgym-core scored it): GRNN (word tokens, "." apart) and
# Transformer-XL ("party." one token), each with and without an <unk>; every sentence ends in <eos>
CASES = [
    ("in.json", "surp_grnn.tsv", "out_grnn.json"),
    ("in.json", "surp_transformer-xl.tsv", "out_transformer-xl.json"),
    ("unk_in.json", "unk_surp_grnn.tsv", "unk_out_grnn.json"),
    ("unk_in.json", "unk_surp_transformer-xl.tsv", "unk_out_transformer-xl.json"),
]


def expected_values(name: str) -> dict[tuple[int, str, int], dict[str, float]]:
    data = json.loads((FIXTURES / name).read_text())
    return {(item["item_number"], condition["condition_name"], region["region_number"]): region["metric_value"]
            for item in data["items"] for condition in item["conditions"] for region in condition["regions"]}


def library_values(suite: str, tsv: str, compat: str | None) -> dict[tuple[int, str, int], dict[str, float]]:
    [result] = run_suites([FIXTURES / suite], RunSettings(model=str(FIXTURES / tsv), compat=compat)).suites
    return {(c.item, c.condition, number): values for c in result.conditions
            for number, values in c.values.items() if number is not None}


def differences(got, expected) -> set[tuple[int, str]]:
    """(region, metric) pairs whose value differs somewhere."""
    assert got.keys() == expected.keys()
    return {(key[2], metric) for key, values in expected.items() for metric, value in values.items()
            if not math.isclose(got[key][metric], value, rel_tol=1e-9, abs_tol=1e-12)}


@pytest.mark.parametrize(("suite", "tsv", "scored"), CASES, ids=[case[2] for case in CASES])
def test_compat_matches_every_metric_of_syntaxgym_core(suite, tsv, scored):
    expected = expected_values(scored)
    assert {metric for values in expected.values() for metric in values} == set(METRIC_NAMES)
    assert differences(library_values(suite, tsv, "syntaxgym-core"), expected) == set()


@pytest.mark.parametrize(("suite", "tsv", "scored"), CASES, ids=[case[2] for case in CASES])
def test_without_compat_only_the_last_regions_mean_median_min_and_range_differ(suite, tsv, scored):
    found = differences(library_values(suite, tsv, None), expected_values(scored))
    assert found == {(6, "mean"), (6, "median"), (6, "min"), (6, "range")}  # sums (and max) agree either way


def cli(*args):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "linguagym.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def test_cli_compat_writes_syntaxgym_cores_numbers_and_records_the_option(tmp_path):
    suite, tsv, scored = CASES[3]
    done = cli("run", "--model", FIXTURES / tsv, "--compat", "syntaxgym-core", "--no-report", "-o", tmp_path,
               FIXTURES / suite)
    assert done.returncode == 0, done.stderr
    [record] = tmp_path.glob("*/run.json")
    assert json.loads(record.read_text())["settings"]["compat"] == "syntaxgym-core"
    with open(record.parent / "regions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    got = {(int(r["item"]), r["condition"], int(r["region"])): {m: float(r[m]) for m in METRIC_NAMES} for r in rows}
    assert differences(got, expected_values(scored)) == set()
    assert {r["tokens"] for r in rows if r["region"] == "6" and r["item"] == "1"} == {"5"}  # at the <unk> party. <eos>

    refused = cli("run", "--model", FIXTURES / tsv, "--compat", "lm-eval", "-o", tmp_path / "x", FIXTURES / suite)
    assert refused.returncode == 2 and "syntaxgym-core" in refused.stderr and "Traceback" not in refused.stderr


def test_an_unknown_compat_is_refused_before_any_work():
    with pytest.raises(ConfigurationError, match="unknown compat 'syntaxgym'") as caught:
        check_settings(RunSettings(model="x.tsv", compat="syntaxgym"))
    assert "syntaxgym-core" in caught.value.hint


def test_markers_go_where_syntaxgym_core_puts_them(tmp_path):
    """<s> joins region 1 even when it is empty; <eos> joins the region after the last word's (syntaxgym-core
    moves on once a region's text is used up, except from the last region); a marker between words stays context.
    The expectations are syntaxgym-core's compute_mapping_heuristic on the same tokens and regions."""
    tsv = tmp_path / "markers.tsv"
    rows = ["<s>", "This", "is", "a", "test", ".", "<eos>"]
    surprisals = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 0.25]
    lines = ["sentence_id\ttoken_id\ttoken\tsurprisal"]
    layouts = [["", "This", "is", "", "a test.", ""], ["This", "is", "a test.", "", ""], ["This", "is", "a test."]]
    for number, _ in enumerate(layouts, start=1):
        pairs = enumerate(zip(rows, surprisals, strict=True), start=1)
        lines += [f"{number}\t{i}\t{token}\t{value}" for i, (token, value) in pairs]
    lines += ["4\t1\tThis\t1.0", "4\t2\t</s>\t7.0", "4\t3\tis\t2.0"]
    tsv.write_text("\n".join(lines) + "\n")
    suites = []
    for number, contents in enumerate([*layouts, ["This", "is"]], start=1):
        regions = {str(i): f"r{i}" for i in range(1, len(contents) + 1)}
        suites.append(parse_suite_data({
            "meta": {"name": f"layout{number}", "metric": "sum"}, "region_meta": regions, "predictions": [],
            "items": [{"item_number": 1, "conditions": [{"condition_name": "c", "regions": [
                {"region_number": i, "content": c} for i, c in enumerate(contents, start=1)]}]}]}).suite)
    results = run_suites([], RunSettings(model=str(tsv), compat="syntaxgym-core"),
                         loaded_suites=(suites, [{"path": None, "sha256": ""}] * len(suites))).suites
    tokens = [[[t.token for t in region.tokens] for region in r.conditions[0].alignment.regions] for r in results]
    assert tokens == [
        [["<s>"], ["This"], ["is"], [], ["a", "test", "."], ["<eos>"]],
        [["<s>", "This"], ["is"], ["a", "test", "."], ["<eos>"], []],
        [["<s>", "This"], ["is"], ["a", "test", ".", "<eos>"]],
        [["This"], ["is"]],
    ]
    assert results[2].conditions[0].values[3]["mean"] == pytest.approx((3.0 + 4.0 + 5.0 + 0.25) / 4)
    assert results[0].conditions[0].values[1] == {"sum": 0.5, "mean": 0.5, "median": 0.5, "range": 0.0,
                                                  "max": 0.5, "min": 0.5}


class PrefixScorer(WordScorer):
    """A token's surprisal from the text up to it (a word alone cannot pass both halves of an agreement
    prediction): some items right, some wrong."""

    def score(self, texts):
        def value(text: str, end: int) -> float:
            return float(zlib.crc32(text[:end].encode()) % 17)

        return [ScoredText(s.text, tuple(dataclasses.replace(t, surprisal=value(s.text, t.end)) for t in s.tokens))
                for s in super().score(texts)]


def read_items(path: Path) -> dict[tuple[str, int], tuple[bool, bool]]:
    with open(path, newline="") as handle:
        return {(r["suite"], int(r["item"])): (r["correct"] == "TRUE", r["correct_all"] == "TRUE")
                for r in csv.DictReader(handle)}


def test_a_runs_scored_suites_read_back_and_evaluate_to_items_csv(tmp_path):
    settings = RunSettings(model="word-scorer")
    run_models(example_suite_paths(), [settings], output=tmp_path, report=False, summary=None,
               scorers=lambda _: PrefixScorer())
    [folder] = [p.parent for p in tmp_path.glob("*/run.json")]
    items = read_items(folder / "items.csv")
    assert {all_hold for _, all_hold in items.values()} == {True, False}
    files = sorted((folder / "suites").glob("*.json"))
    assert len(files) == len(example_suite_paths())
    for path in files:
        loaded = read_suite(path).suite
        assert all(region.values is not None for item in loaded.items for c in item.conditions for region in c.regions)
        result = evaluate_scored_suite(path)
        first, all_hold = result.item_correct("first"), result.item_correct("all")
        assert {item: (first[item], all_hold[item]) for item in first} == {
            item: outcome for (suite, item), outcome in items.items() if suite == loaded.name}


def stored(suite) -> list:
    """Every region's values (NaN as None, so that equal files compare equal) and unknown words."""
    return [(region.content, {m: None if math.isnan(v) else v for m, v in region.values.items()}, region.oovs)
            for item in suite.items for condition in item.conditions for region in condition.regions]


def test_scored_suites_name_one_metric_and_keep_the_rest(tmp_path):
    [result] = run_suites(example_suite_paths()[:1], RunSettings(model="word-scorer", metric="mean"),
                          scorer=PrefixScorer()).suites
    data = scored_suite_dict(result, "word-scorer")
    assert data["meta"]["metric"] == "mean" and data["meta"]["model"] == "word-scorer"
    assert data["meta"]["metrics"] == list(dict.fromkeys(("sum", *result.suite.meta.metrics, "mean")))
    region = data["items"][0]["conditions"][0]["regions"][0]
    assert set(region["metric_value"]) == set(data["meta"]["metrics"]) and region["oovs"] == []

    path = tmp_path / "scored.json"
    path.write_text(json.dumps(data))
    loaded = read_suite(path).suite
    assert stored(loaded) == stored(scored_suite(result))
    again = evaluate_scored_suite(path)
    assert again.metric == "mean" and again.item_correct() == result.item_correct()
    assert evaluate_scored_suite(loaded, metric="sum").metric == "sum"
    with pytest.raises(ConfigurationError, match="not the metric 'median'") as caught:
        evaluate_scored_suite(path, metric="median")
    assert "metric_value holds" in caught.value.hint
    with pytest.raises(ConfigurationError, match="no values") as caught:
        evaluate_scored_suite(example_suite_paths()[0])
    assert "run this suite instead" in caught.value.hint


def test_bad_region_values_are_located_problems():
    data = {"meta": {"name": "s", "metric": "sum"}, "region_meta": {"1": "r"}, "predictions": [],
            "items": [{"item_number": 1, "conditions": [{"condition_name": "c", "regions": [
                {"region_number": 1, "content": "Hi", "metric_value": {"sum": "lots", "total": 1}, "oovs": "Hi"}]}]}]}
    with pytest.raises(SuiteError) as caught:
        parse_suite_data(data)
    text = str(caught.value)
    assert "metric_value.sum: expected a number (bits) or null" in text
    assert "unknown metric 'total'" in text and "oovs: expected a list of words" in text


def test_a_runs_scored_suites_name_one_metric_for_syntaxgym_core(tmp_path):
    run_models(example_suite_paths(), [RunSettings(model="word-scorer")], output=tmp_path, report=False,
               summary=None, scorers=lambda _: PrefixScorer())
    metas = [json.loads(path.read_text())["meta"] for path in tmp_path.glob("*/suites/*.json")]
    assert len(metas) == 3 and any(len(meta.get("metrics", ())) > 1 for meta in metas)  # npi_ever: sum and mean
    assert all(meta["metric"] in METRIC_NAMES for meta in metas)


def test_syntaxgym_core_reads_and_evaluates_scored_suites():
    suite_module = pytest.importorskip("syntaxgym.suite", reason="syntaxgym-core is not installed (or not importable)")
    for result in run_suites(example_suite_paths(), RunSettings(model="word-scorer"), scorer=PrefixScorer()).suites:
        theirs = suite_module.Suite.from_dict(json.loads(json.dumps(scored_suite_dict(result, "word-scorer"))))
        outcomes = theirs.evaluate_predictions()
        assert {item: all(by_prediction.values()) for item, by_prediction in outcomes.items()} == \
            result.item_correct()


class UnknownWordsScorer(PrefixScorer):
    """PrefixScorer with every word of five letters unknown (``oovs``)."""

    def score(self, texts):
        return [ScoredText(s.text, tuple(dataclasses.replace(t, unknown=len(t.token) == 5) for t in s.tokens))
                for s in super().score(texts)]


def test_a_scored_suites_document_is_the_scored_suite_written_out(shared_data):
    """``scored_suite_dict`` fills the document in directly; it is what writing the scored ``Suite`` gives."""
    from linguagym.suites.save import scored_suite_to_dict

    suites = sorted((shared_data / "syntaxgym" / "suites").glob("*.json"))
    for metric in (None, "mean"):
        run = run_suites([*suites, *example_suite_paths()], RunSettings(model="word-scorer", metric=metric),
                         scorer=UnknownWordsScorer())
        for result in run.suites:
            expected = scored_suite_to_dict(scored_suite(result), metric=result.metric, model="m")
            assert json.dumps(scored_suite_dict(result, "m")) == json.dumps(expected), result.suite.name
    oovs = [r["oovs"] for c in scored_suite_dict(result, "m")["items"][0]["conditions"] for r in c["regions"]]
    assert any(oovs)  # (unknown words are in the documents compared)
