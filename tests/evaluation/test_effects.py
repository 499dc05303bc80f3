"""Effect sizes (``evaluation/effects.py``): each comparison's two sides and their difference per item, checked by
hand on a tiny suite whose surprisals are known word by word; their mean with a bootstrap interval; the effects
CSV read back; ``to_pandas("effects")``; and the per-prediction lines every face shows."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.effects import ItemEffect, format_effect, summarize_effects
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.prediction_table import item_effect_vector, prediction_lines
from linguagym.evaluation.results import Results, read_csv_frame
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import read_effects, read_run
from linguagym.evaluation.runfolder.rows import run_effects
from linguagym.evaluation.summary import SummarySettings
from linguagym.suites.load import parse_suite_data
from tests.evaluation.fakes import WordScorer

# each word's surprisal in bits (every other word: 1.0); the verbs differ item by item
SURPRISAL = {"runs": 2.0, "run": 5.0, "eats": 1.5, "eat": 1.0, "sings": 4.0, "sing": 6.5}
VERBS = {1: ("runs", "run"), 2: ("eats", "eat"), 3: ("sings", "sing")}  # item -> (match, mismatch)
AGREEMENT = "(2;%mismatch%) > (2;%match%)"
TWO_SIDED = "((2;%mismatch%) > (2;%match%)) & ((3;%match%) < 2 * (2;%match%))"


def _suite(name: str, metric: str, predictions: list[str], empty_item: int | None = None) -> dict:
    """Items x (match, mismatch) x regions (subject, verb, rest); ``empty_item``: that item's match verb is empty."""
    return {
        "meta": {"name": name, "metric": metric},
        "region_meta": {"1": "subject", "2": "verb", "3": "rest"},
        "predictions": [{"type": "formula", "formula": f} for f in predictions],
        "items": [
            {"item_number": number, "conditions": [
                {"condition_name": condition, "regions": [
                    {"region_number": 1, "content": "The boy"},
                    {"region_number": 2, "content": "" if (number, condition) == (empty_item, "match") else verb},
                    {"region_number": 3, "content": "today."}]}
                for condition, verb in zip(("match", "mismatch"), VERBS[number], strict=True)]}
            for number in VERBS],
    }


def _scorer(settings: RunSettings) -> WordScorer:
    return WordScorer(lambda word, index: SURPRISAL.get(word, 1.0))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("out")
    suites = [parse_suite_data(_suite("agree", "sum", [AGREEMENT, TWO_SIDED])).suite,
              parse_suite_data(_suite("gap", "mean", [AGREEMENT], empty_item=2)).suite]
    runs = run_models(suites, [RunSettings(model="m")], output=out, scorers=_scorer,
                      summary=SummarySettings(bootstrap=200, seed=3))
    return runs, out / "m"


def _by_key(effects):
    return {(e.suite, e.item, e.prediction, e.comparison): e for e in effects}


def test_each_side_and_the_difference_are_the_surprisals_of_the_regions(written):
    runs, _ = written
    effects = _by_key(run_effects(runs[0]))
    # P0: the mismatching verb's surprisal over the matching one's
    for item, (match, mismatch) in VERBS.items():
        one = effects[("agree", item, 0, 0)]
        assert (one.left, one.right) == (SURPRISAL[mismatch], SURPRISAL[match])
        assert one.effect == SURPRISAL[mismatch] - SURPRISAL[match]
        assert one.comparison_formula == AGREEMENT and one.op == ">" and one.metric == "sum"
    # P1 has two comparisons, numbered left to right: the first is P0's, the second "today." (two words of 1.0 bit)
    # against twice the matching verb
    for item, (match, _) in VERBS.items():
        second = effects[("agree", item, 1, 1)]
        assert second.comparison_formula == "(3;%match%) < 2 * (2;%match%)" and second.op == "<"
        assert (second.left, second.right) == (2.0, 2 * SURPRISAL[match])
        assert effects[("agree", item, 1, 0)].effect == effects[("agree", item, 0, 0)].effect
    assert {k[3] for k in effects if k[:3] == ("agree", 1, 1)} == {0, 1}


def test_an_empty_region_leaves_its_item_out_of_the_mean_and_says_so(written):
    runs, _ = written
    effects = _by_key(run_effects(runs[0]))
    gap = effects[("gap", 2, 0, 0)]  # metric mean: an empty region has none
    assert gap.left == SURPRISAL["eat"] and math.isnan(gap.right) and math.isnan(gap.effect)
    assert gap.undefined == "(2;%match%)"
    [size] = [s for s in summarize_effects(run_effects(runs[0]), bootstrap=0) if s.suite == "gap"]
    assert size.n == 2 and size.left_out == 1 and size.items == 3
    assert size.mean == pytest.approx(((5.0 - 2.0) + (6.5 - 4.0)) / 2)
    assert format_effect(size) == "2.75 bits, n=2 (1 of 3 items left out: a side undefined)"


def test_the_mean_and_its_interval_resample_items_as_the_accuracy_intervals_do(written):
    np = pytest.importorskip("numpy")
    runs, _ = written
    sizes = {(s.suite, s.prediction, s.comparison): s for s in summarize_effects(run_effects(runs[0]),
                                                                                 bootstrap=500, seed=7)}
    values = [3.0, -0.5, 2.5]  # mismatch - match, item by item
    p0 = sizes[("agree", 0, 0)]
    assert p0.mean == pytest.approx(5.0 / 3) and p0.n == 3 and p0.left_out == 0
    draws = np.asarray(values)[np.random.default_rng(7).integers(0, 3, size=(500, 3))].mean(axis=1)
    assert (p0.interval.low, p0.interval.high) == tuple(np.percentile(draws, [2.5, 97.5]))
    assert -0.5 <= p0.interval.low < p0.mean < p0.interval.high <= 3.0
    second = sizes[("agree", 1, 1)]
    assert second.mean == pytest.approx(((2 - 4) + (2 - 3) + (2 - 8)) / 3)
    again = summarize_effects(run_effects(runs[0]), bootstrap=500, seed=7)
    assert [s.interval for s in again] == [s.interval for s in sizes.values()]  # seeded: the same every time
    assert all(s.interval is None for s in summarize_effects(run_effects(runs[0]), bootstrap=0))
    with pytest.raises(ConfigurationError, match="bootstrap"):
        summarize_effects([], bootstrap=-1)


def test_predictions_csv_keeps_its_columns_and_adds_the_sides_at_the_end(written):
    _, folder = written
    with (folder / schema.PREDICTIONS).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined", "tie",
                       "comparisons", "left", "right", "effect"]
    by_key = {(r[1], r[2], r[3]): r for r in rows[1:]}
    assert by_key[("agree", "1", "0")][9:] == ["1", "5.0", "2.0", "3.0"]
    assert by_key[("agree", "2", "0")][6] == "FALSE" and by_key[("agree", "2", "0")][12] == "-0.5"
    assert by_key[("agree", "1", "1")][9:] == ["2", "", "", ""]  # several comparisons: effects.csv has each
    assert by_key[("gap", "2", "0")][9:] == ["1", "1.0", "", ""]  # undefined: empty


def test_the_effects_csv_reads_back_to_the_effects_in_memory(written):
    runs, folder = written
    header = next(csv.reader((folder / schema.EFFECTS).open(newline="", encoding="utf-8")))
    assert tuple(header) == schema.EFFECT_COLUMNS
    read = read_effects(folder / schema.EFFECTS)
    held = run_effects(runs[0])
    assert len(read) == len(held) == 3 * 3 + 3  # agree: 3 items x 3 comparisons; gap: 3 items x 1
    for a, b in zip(read, held, strict=True):
        assert (a.model, a.suite, a.item, a.prediction, a.comparison, a.formula, a.comparison_formula, a.op,
                a.metric, a.undefined) == (b.model, b.suite, b.item, b.prediction, b.comparison, b.formula,
                                           b.comparison_formula, b.op, b.metric, b.undefined)
        for x, y in ((a.left, b.left), (a.right, b.right), (a.effect, b.effect)):
            assert x == y or (math.isnan(x) and math.isnan(y))  # exact: the file holds every digit
    # The reader's RunData reads the same file. Compared with NaN as equal to NaN: a dataclass's == on Python
    # 3.13 compares field by field (no identity shortcut), so two undefined sides are unequal there, even the same
    # math.nan object; before 3.13 a tuple compare let math.nan's identity pass for equality.
    again = read_run(folder).effects()
    assert len(again) == len(read) and all(_same_row(x, y) for x, y in zip(again, read, strict=True))


def _same_row(a: ItemEffect, b: ItemEffect) -> bool:
    return all(x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
               for x, y in zip(dataclasses.astuple(a), dataclasses.astuple(b), strict=True))


def test_rows_compare_with_nan_as_equal_on_every_python():
    """The comparison above, on distinct NaN objects (equal by no Python's identity shortcut), and its control."""
    row = ItemEffect("m", "s", 1, 0, 0, "f", "f", ">", "sum", 1.0, float("nan"), "(2;%match%)")
    assert _same_row(row, dataclasses.replace(row, right=float("nan")))
    assert not _same_row(row, dataclasses.replace(row, right=2.0))
    assert not _same_row(row, dataclasses.replace(row, undefined=""))


def test_a_file_that_is_not_an_effects_table_is_named(tmp_path: Path, written):
    _, folder = written
    broken = tmp_path / "effects.csv"
    broken.write_text("model,suite\nm,s\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="not an effects table"):
        read_effects(broken)
    text = (folder / schema.EFFECTS).read_text(encoding="utf-8").splitlines()
    broken.write_text("\n".join([text[0], text[1].replace(",1,0,", ",one,0,", 1)]) + "\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"effects.csv:2: not an effects row"):
        read_effects(broken)


def test_item_effect_vector_is_one_comparisons_effect_per_item(written):
    runs, folder = written
    assert item_effect_vector(runs[0], "agree", 0) == {1: 3.0, 2: -0.5, 3: 2.5}
    assert item_effect_vector(read_run(folder), "agree", 1, 1) == {1: -2.0, 2: -1.0, 3: -6.0}
    gap = item_effect_vector(run_effects(runs[0]), "gap", 0, model="m")
    assert gap[1] == 3.0 and math.isnan(gap[2])
    with pytest.raises(ConfigurationError, match="no comparison 2 of prediction 0"):
        item_effect_vector(runs[0], "agree", 0, 2)
    with pytest.raises(ConfigurationError, match="no effects of a suite named 'nope'"):
        item_effect_vector(runs[0], "nope", 0)


def test_to_pandas_effects_is_the_csv_file_with_its_types(written):
    pd = pytest.importorskip("pandas")
    runs, folder = written
    frame = Results(runs).to_pandas("effects")
    pd.testing.assert_frame_equal(frame, read_csv_frame(pd, folder / schema.EFFECTS), check_exact=True)
    assert list(frame.columns) == list(schema.EFFECT_COLUMNS)
    assert {c: str(frame[c].dtype) for c in ("item", "prediction", "comparison", "left", "right", "effect")} == {
        "item": "int64", "prediction": "int64", "comparison": "int64", "left": "float64", "right": "float64",
        "effect": "float64"}
    assert frame["effect"].isna().sum() == 1


def test_to_pandas_effect_sizes_is_one_row_per_comparison_with_the_runs_bootstrap(written):
    pd = pytest.importorskip("pandas")
    runs, _ = written
    frame = Results(runs).to_pandas("effect_sizes")
    assert list(frame.columns) == list(schema.EFFECT_SIZE_COLUMNS) and len(frame) == 4
    assert str(frame["mean_effect"].dtype) == "float64" and str(frame["n"].dtype) == "int64"
    row = frame[(frame["suite"] == "agree") & (frame["prediction"] == 0)].iloc[0]
    expected = next(s for s in summarize_effects(run_effects(runs[0]), bootstrap=200, seed=3)  # the run's settings
                    if (s.suite, s.prediction) == ("agree", 0))
    assert (row["mean_effect"], row["ci_low"], row["ci_high"]) == (expected.mean, expected.interval.low,
                                                                  expected.interval.high)
    gap = frame[frame["suite"] == "gap"].iloc[0]
    assert (gap["n"], gap["left_out"]) == (2, 1)
    assert pd.api.types.is_float_dtype(frame["ci_low"])


def test_prediction_lines_give_each_prediction_its_accuracy_and_each_comparison_its_effect(written):
    runs, folder = written
    lines = prediction_lines([read_run(folder)], bootstrap=0)
    assert [(ln.suite, ln.label) for ln in lines] == [("agree", "P0"), ("agree", "P1.0"), ("agree", "P1.1"),
                                                      ("gap", "P0")]
    assert lines[0].accuracy == (2 / 3,)  # item 2's mismatch is the likelier verb
    assert lines[2].accuracy == (2 / 3,)  # the prediction's share, on each of its comparisons' lines
    assert lines[2].effects[0].mean == pytest.approx(-3.0)
    assert runs.runs and prediction_lines(runs.runs, bootstrap=0)[3].effects[0].left_out == 1  # held in memory too


def test_the_report_has_each_suites_effects_table(written):
    from linguagym.evaluation.report import render_report

    runs, _ = written
    page, _ = render_report(runs.runs, runs.summary)
    tables = re.findall(r"<table class=effects>(.*?)</table>", page, re.S)
    assert len(tables) == 2  # one per suite
    size = next(s for s in summarize_effects(run_effects(runs[0]), bootstrap=200, seed=3) if s.suite == "agree")
    assert (f"<td>P0</td><td><code>(2;%mismatch%) &gt; (2;%match%)</code></td>"
            f"<td>{size.mean:.2f} [{size.interval.low:.2f}, {size.interval.high:.2f}]</td><td>3</td>") in tables[0]
    assert "<td>P1.1</td>" in tables[0] and "<td>2 (1 left out)</td>" in tables[1]
    assert "left side minus the right side" in page


def test_a_folder_made_before_effects_shows_accuracy_and_says_it_has_no_effects(written, tmp_path):
    from linguagym.evaluation.prediction_table import missing_effects
    from linguagym.evaluation.report import render_report
    from linguagym.evaluation.summary import summarize_held

    _, folder = written
    old = Path(shutil.copytree(folder, tmp_path / "m"))
    (old / schema.EFFECTS).unlink()
    run = read_run(old)
    assert run.effects() == [] and missing_effects([run]) == ["m"]
    lines = prediction_lines([run], bootstrap=0)
    assert [ln.label for ln in lines] == ["P0", "P1", "P0"] and all(ln.effects == (None,) for ln in lines)
    assert lines[0].accuracy == (2 / 3,)
    page, _ = render_report([run], summarize_held([run], SummarySettings(bootstrap=0)))
    assert "No effects for m: its folder has no effects.csv" in page and "<table class=effects>" not in page


def _cli(*args):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "linguagym.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def test_run_and_compare_print_each_predictions_accuracy_and_effects_with_by_prediction(tmp_path):
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.scoring.precomputed import write_surprisals_tsv

    paths = []
    for data in (_suite("agree", "sum", [AGREEMENT, TWO_SIDED]), _suite("gap", "mean", [AGREEMENT], empty_item=2)):
        path = tmp_path / f"{data['meta']['name']}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(path)
    texts = list(dict.fromkeys(s.text for p in paths for s in suite_sentences(parse_suite_data(
        json.loads(p.read_text())).suite)))
    tsv = tmp_path / "words.tsv"  # an lm-zoo file of the words' known surprisals: a model with no weights
    write_surprisals_tsv(_scorer(RunSettings()).score(texts), tsv)
    plain = _cli("run", "--model", tsv, "--no-report", "-o", tmp_path / "plain", *paths)
    assert plain.returncode == 0, plain.stderr
    assert "P1.1" not in plain.stdout  # the per-prediction table only when asked for
    done = _cli("run", "--model", tsv, "--no-report", "--by-prediction", "-o", tmp_path / "out", *paths)
    assert done.returncode == 0, done.stderr
    rows = {line.split("│")[2].strip(): [c.strip() for c in line.split("│")[3:-1]]
            for line in done.stdout.splitlines() if line.count("│") > 5}
    # comparison, holds, effect [interval], n
    assert rows["P0"][0] == "(2;%mismatch%) > (2;%match%)"
    assert rows["P1.1"][0] == "(3;%match%) < 2 * (2;%match%)" and rows["P1.1"][1] == ""
    assert rows["P1.1"][2].startswith(f"{((2 - 4) + (2 - 3) + (2 - 8)) / 3:.2f} [") and rows["P1.1"][3] == "3"
    assert rows["P1.0"][1] == "0.667"  # P1 holds where the verb's effect is positive: items 1 and 3
    assert "left side minus the right side" in done.stdout and "seed 0" in done.stdout
    compared = _cli("compare", tmp_path / "out", "--by-prediction", "--bootstrap", "0")
    assert compared.returncode == 0, compared.stderr
    [gap] = [[c.strip() for c in line.split("│")[1:-1]] for line in compared.stdout.splitlines()
             if "left out" in line and "│" in line]
    assert gap[:3] == ["gap", "P0", AGREEMENT] and gap[4:] == ["2.75", "2 (1 left out)"]  # no interval: no bootstrap


def test_comparisons_are_numbered_left_to_right_and_evaluation_keeps_their_sides():
    from linguagym.suites.formula import comparisons, evaluate, format_formula, parse_formula

    tree = parse_formula("((1;%a%) > (1;%b%)) & !((2;%a%) < 2 * (2;%b%)) | abs((3;%a%) - 1) = 0.5").tree
    values = {("a", 1): 4.0, ("b", 1): 1.5, ("a", 2): 7.0, ("b", 2): 3.0, ("a", 3): float("nan")}
    outcome = evaluate(tree, lambda ref: values[(ref.condition, ref.region)])
    assert [format_formula(c) for c in comparisons(tree)] == ["(1;%a%) > (1;%b%)", "(2;%a%) < 2 * (2;%b%)",
                                                              "abs((3;%a%) - 1) = 0.5"]
    assert outcome.sides[:2] == ((4.0, 1.5), (7.0, 6.0))  # under '!' too; 2 * 3.0 on the right
    assert math.isnan(outcome.sides[2][0]) and outcome.sides[2][1] == 0.5 and len(outcome.sides) == 3
