"""Model against model on effects (issue 37, item 2: "the same for effects"): the sign-flip p against hand
enumerations, the paired difference of mean effects on a tiny constructed pair of runs whose effects are known (items
undefined on one side, or only one model has, left out and counted), Holm over the table, a folder without
effects.csv named and not a crash, and ``linguagym compare --by-prediction`` printing the table and writing its CSV."""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.evaluation import paired
from linguagym.evaluation.effect_comparison import COLUMNS, compare_effects, compare_model_effects
from linguagym.evaluation.effects import ItemEffect
from linguagym.evaluation.paired import paired_effects, paired_values, sign_flip_p
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.summary import SummarySettings

AGREE = "(1;%b%) > (1;%a%)"
# (suite, prediction, comparison) -> each item's effect (None: undefined)
Effects = Mapping[tuple[str, int, int], Sequence[float | None]]
NPI = "((1;%b%) > (1;%a%)) & ((2;%b%) > (2;%a%))"


def _brute_force(differences: list[float]) -> float:
    observed = abs(sum(differences))
    hits = sum(abs(sum(s * d for s, d in zip(signs, differences, strict=True))) >= observed - 1e-9
               for signs in itertools.product((1, -1), repeat=len(differences)))
    return hits / 2 ** len(differences)


def test_sign_flip_p_by_hand():
    # [1, 2, 3]: the 8 sign patterns sum to 6, 4, 2, 0, 0, -2, -4, -6; |sum| >= 6 twice: p = 2/8
    assert sign_flip_p([1.0, 2.0, 3.0]) == 0.25
    # [1, 0.5, 2, -0.5]: sum 3; reaching |sum| >= 3: 2+1+.5+.5, 2+1+.5-.5, 2+1-.5+.5 and their negations: 6/16
    assert sign_flip_p([1.0, 0.5, 2.0, -0.5]) == 6 / 16
    assert sign_flip_p([1.0, 1.0, 1.0]) == 2 / 8
    assert sign_flip_p([0.0, 0.0]) == 1.0 and sign_flip_p([1.0, -1.0]) == 1.0 and sign_flip_p([]) == 1.0
    for differences in ([1.5, -0.5, 0.0, 2.5, 1.0, -1.5, 0.5], [0.3, 0.1, 0.2, -0.4, 0.7, 0.1, 0.2, 0.2, -0.1]):
        assert sign_flip_p(differences) == _brute_force(differences)  # the half-against-half count, every pattern


def test_sign_flip_p_above_the_exact_limit_is_seeded_and_close_to_the_exact_one(monkeypatch):
    differences = [1.0, 1.0, 1.0] + [0.0] * 37  # 40 items: random patterns; exact p is that of [1, 1, 1]: 2/8
    drawn = sign_flip_p(differences, seed=0, key="s")
    assert drawn == sign_flip_p(differences, seed=0, key="s")  # seeded
    assert drawn != sign_flip_p(differences, seed=1, key="s")
    assert abs(drawn - 0.25) < 0.02  # 20,000 patterns: standard error 0.003
    assert sign_flip_p([1.0] * 40) == 1 / (paired.SIGN_FLIPS + 1)  # the smallest it can give, never 0
    monkeypatch.setattr(paired, "EXACT_FLIPS", 40)
    assert sign_flip_p(differences) == 0.25  # every one of the 2^40 patterns, counted half against half


def test_paired_effects_adds_the_sign_flip_p_to_the_paired_interval():
    a, b = {1: 2.0, 2: 1.5, 3: 3.0, 4: 0.5, 5: math.nan}, {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 2.0}
    found = paired_effects(a, b, resamples=200, key="k")
    plain = paired_values(a, b, resamples=200, key="k")
    assert (found.n, found.difference, found.interval) == (4, 0.75, plain.interval)  # 1.75 - 1.0
    assert found.p_value == 6 / 16 and found.both is None and found.only_a_right is None  # not outcomes: no McNemar
    assert (found.pairing.undefined, found.pairing.only_a, found.pairing.only_b) == (1, 0, 1)


def _effect_rows(label: str, effects: Effects) -> list[list]:
    """effects.csv rows: each (suite, prediction, comparison)'s effect per item 1, 2, ... (None: undefined), written
    as left = 10 + effect, right = 10 (left empty where undefined)."""
    rows = []
    for (suite, prediction, comparison), values in effects.items():
        formula = AGREE if suite == "agree" else NPI
        text = AGREE if suite == "agree" else f"({comparison + 1};%b%) > ({comparison + 1};%a%)"
        for item, value in enumerate(values, start=1):
            left = "" if value is None else repr(10.0 + value)
            rows.append([label, suite, item, prediction, comparison, formula, text, ">", "sum", left, "10.0",
                         "" if value is None else repr(value), "" if value is not None else f"({comparison + 1};%b%)"])
    return rows


def _run_folder(root: Path, label: str, effects: Effects | None) -> Path:
    """A finished run's model folder: run.json, items.csv, predictions.csv and (``effects`` not None) effects.csv."""
    folder = root / label
    folder.mkdir(parents=True)
    shape: Effects = effects or {("agree", 0, 0): [1.0] * 6, ("npi", 0, 0): [1.0] * 3}
    suites = list(dict.fromkeys(suite for suite, _, _ in shape))
    record = {"label": label, "settings": {"model": label, "policy": "all"},
              "suites": [{"name": suite, "metric": "sum"} for suite in suites]}
    (folder / "run.json").write_text(json.dumps(record), encoding="utf-8")
    with (folder / "items.csv").open("w", newline="", encoding="utf-8") as items, \
            (folder / "predictions.csv").open("w", newline="", encoding="utf-8") as predictions:
        item_rows, prediction_rows = csv.writer(items), csv.writer(predictions)
        item_rows.writerow(["model", "suite", "item", "correct", "correct_all"])
        prediction_rows.writerow(["model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined",
                                  "tie"])
        for (suite, _, comparison), values in shape.items():
            if comparison:
                continue
            for item, value in enumerate(values, start=1):
                holds = schema.TRUE if value is not None and value > 0 else schema.FALSE
                item_rows.writerow([label, suite, item, holds, holds])
                prediction_rows.writerow([label, suite, item, 0, AGREE if suite == "agree" else NPI, "sum", holds,
                                          schema.FALSE if value is not None else schema.TRUE, ""])
    if effects is not None:
        with (folder / "effects.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(schema.EFFECT_COLUMNS)
            writer.writerows(_effect_rows(label, effects))
    return folder


# alpha - beta per item: agree [1, 0.5, 2, -0.5] (item 5 undefined for alpha, item 6 only alpha has);
# npi comparison 0: [1, 1, 1]; comparison 1: [0, 0, 0]
ALPHA: Effects = {("agree", 0, 0): [2.0, 1.5, 3.0, 0.5, None, 4.0], ("npi", 0, 0): [1.0, 1.0, 1.0],
                  ("npi", 0, 1): [0.5, 0.5, 0.5]}
BETA: Effects = {("agree", 0, 0): [1.0, 1.0, 1.0, 1.0, 1.0], ("npi", 0, 0): [0.0, 0.0, 0.0],
                 ("npi", 0, 1): [0.5, 0.5, 0.5]}


def test_the_paired_effects_of_two_constructed_runs_by_hand(tmp_path: Path):
    one, two = _run_folder(tmp_path / "r1", "alpha", ALPHA), _run_folder(tmp_path / "r2", "beta", BETA)
    found = compare_model_effects([one, two], SummarySettings(bootstrap=200))
    assert [(r.key.suite, r.key.label, r.key.comparison_formula, r.model_a, r.model_b) for r in found.rows] == [
        ("agree", "P0", AGREE, "alpha", "beta"), ("npi", "P0.0", "(1;%b%) > (1;%a%)", "alpha", "beta"),
        ("npi", "P0.1", "(2;%b%) > (2;%a%)", "alpha", "beta")]
    agree, npi0, npi1 = (row.paired for row in found.rows)
    assert (agree.n, agree.mean_a, agree.mean_b, agree.difference) == (4, 1.75, 1.0, 0.75)
    assert (agree.pairing.undefined, agree.pairing.only_a, agree.pairing.only_b) == (1, 1, 0)
    assert agree.p_value == 6 / 16 and npi0.p_value == 2 / 8 and npi1.p_value == 1.0
    assert -0.5 <= agree.interval.low <= 0.75 <= agree.interval.high <= 2.0  # within the differences' range
    assert (npi0.difference, npi0.interval.low, npi0.interval.high) == (1.0, 1.0, 1.0)  # every difference is 1
    # Holm over the table's 3 tests: 0.25 x 3 = 0.75, 0.375 x 2 = 0.75, 1.0 x 1 = 1.0
    assert [row.p_holm for row in found.rows] == [0.75, 0.75, 1.0] and found.tests == 3
    notes = " ".join(found.notes())
    assert "Holm-adjusted over the 3 tests of this table" in notes
    assert ("agree P0: alpha vs beta paired on 4 items; left out: 1 item only alpha has, 1 where either effect is "
            "undefined") in notes
    # the effects' own model names are not read: the table names each side as given
    renamed = compare_effects({"x": found_effects(one), "y": found_effects(two)}, resamples=200)
    assert renamed.rows[0].model_a == "x" and renamed.rows[0].paired.interval == agree.interval
    pytest.importorskip("pandas")  # the rest: the DataFrame (the notebook extra; the floors' venv has no pandas)
    frame = found.to_pandas()
    assert list(frame.columns) == list(COLUMNS) and frame["p_exact"].tolist() == [True, True, True]
    assert frame.loc[0, "difference"] == 0.75 and frame.loc[2, "p_holm"] == 1.0


def found_effects(folder: Path) -> list[ItemEffect]:
    from linguagym.evaluation.runfolder.reader import read_effects

    return read_effects(folder / "effects.csv")


def test_a_run_without_effects_is_named_not_a_crash(tmp_path: Path):
    one, two = _run_folder(tmp_path / "r1", "alpha", ALPHA), _run_folder(tmp_path / "r2", "beta", BETA)
    old = _run_folder(tmp_path / "r3", "gamma", None)  # made before linguagym wrote effects.csv
    found = compare_model_effects([one, two, old], SummarySettings(bootstrap=0))
    assert {(r.model_a, r.model_b) for r in found.rows} == {("alpha", "beta")}
    assert found.missing == ("gamma",) and all(r.paired.interval is None for r in found.rows)
    assert any(line.startswith("no effects for gamma: its folder has no effects.csv") for line in found.notes())
    against_old = compare_model_effects([one, two, old], SummarySettings(bootstrap=0), baseline="gamma")
    assert against_old.rows == () and against_old.missing == ("gamma",)


def test_compare_by_prediction_prints_the_paired_effects_and_writes_their_csv(tmp_path: Path, capsys):
    one, two = _run_folder(tmp_path / "r1", "alpha", ALPHA), _run_folder(tmp_path / "r2", "beta", BETA)
    old = _run_folder(tmp_path / "r3", "gamma", None)
    out = tmp_path / "effects.csv"
    assert main(["compare", str(one), str(two), str(old), "--by-prediction", "--bootstrap", "200",
                 "--paired-effects-csv", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    paired_accuracy = text.index("paired comparison: accuracy of a minus b")
    table = text.index("paired effects: mean effect (bits) of a minus b on the same items")
    assert paired_accuracy < table  # below the paired accuracies
    assert "│ agree │ P0 │ (1;%b%) > (1;%a%) │ alpha │ beta │ 4 │ 1.75 │ 1.00 │ +0.75 [" in text
    assert "│ 0.375 │ 0.75 │" in text and "│ 0.25 │ 0.75 │" in text
    assert text.count("no effects for gamma: its folder has no effects.csv") == 1  # said once, by the table above
    assert "3 rows rest on fewer than 10 paired items: there the bootstrap interval is approximate" in text
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 3
    assert (rows[0]["difference"], rows[0]["p_sign_flip"], rows[0]["p_holm"], rows[0]["p_exact"]) == (
        "0.75", "0.375", "0.75", "TRUE")
    assert (rows[0]["items"], rows[0]["only_in_a"], rows[0]["undefined"]) == ("4", "1", "1")
    # the API gives the same numbers, seeded alike
    api = compare_model_effects([one, two], SummarySettings(bootstrap=200))
    assert repr(api.rows[0].paired.interval.low) == rows[0]["ci_low"]


def test_compare_without_by_prediction_prints_no_paired_effects(tmp_path: Path, capsys):
    one, two = _run_folder(tmp_path / "r1", "alpha", ALPHA), _run_folder(tmp_path / "r2", "beta", BETA)
    assert main(["compare", str(one), str(two), "--bootstrap", "0"]) == 0
    assert "paired effects" not in capsys.readouterr().out


@pytest.mark.parametrize("values", [[0.5, -0.25, 1.0, 0.75, 0.25]])
def test_a_difference_the_test_sees_from_both_sides(values: list[float]):
    # swapping a and b negates every difference: the same two-sided p, the difference's sign flipped
    a = {i: v for i, v in enumerate(values)}
    b = dict.fromkeys(a, 0.0)
    forward, backward = paired_effects(a, b, resamples=0), paired_effects(b, a, resamples=0)
    assert forward.p_value == backward.p_value == _brute_force(values)
    assert forward.difference == -backward.difference == sum(values) / len(values)


def test_two_runs_of_one_label_join_on_different_suites_and_refuse_on_one_item(tmp_path: Path, capsys):
    agree = _run_folder(tmp_path / "r1", "alpha", {("agree", 0, 0): ALPHA[("agree", 0, 0)]})
    npi = _run_folder(tmp_path / "r2", "alpha", {("npi", 0, 0): ALPHA[("npi", 0, 0)]})
    beta = _run_folder(tmp_path / "r3", "beta", BETA)
    joined = compare_model_effects([agree, npi, beta], SummarySettings(bootstrap=0))
    assert [(r.key.suite, r.model_a, r.model_b, r.paired.difference) for r in joined.rows] == [
        ("agree", "alpha", "beta", 0.75), ("npi", "alpha", "beta", 1.0)]
    again = _run_folder(tmp_path / "r4", "alpha", {("agree", 0, 0): ALPHA[("agree", 0, 0)]})
    assert main(["compare", str(agree), str(again), str(beta), "--by-prediction", "--bootstrap", "0"]) == 0
    assert "paired effects:" not in capsys.readouterr().out  # the accuracy pairing already refused: no crash


def test_the_paired_accuracies_read_predictions_csvs_logical_undefined_column(tmp_path: Path):
    # predictions.csv writes undefined as TRUE/FALSE now: FALSE must not count as undefined (only agree's item 5 is)
    from linguagym.evaluation.comparison import compare_models

    one, two = _run_folder(tmp_path / "r1", "alpha", ALPHA), _run_folder(tmp_path / "r2", "beta", BETA)
    found = compare_models([one, two], SummarySettings(bootstrap=0), per_prediction=True)
    assert [(r.suite, r.undefined) for r in found.rows] == [("agree", 1), ("npi", 0)]
