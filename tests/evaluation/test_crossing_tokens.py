"""A token that covers text of two regions (smollm2's ".." over the regions ``.`` and ``.``): the region it leaves
with no token is undefined, and so is every prediction naming it; the crossing is reported in regions.csv,
run.json and the console; ``--crossing split`` shares the token's surprisal out by characters."""

import csv
import json
import math
import re

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.alignment import region_crossings
from linguagym.evaluation.evaluate import evaluate_suite, suite_sentences
from linguagym.evaluation.run import RunSettings, check_settings, run_suites
from linguagym.evaluation.runfolder.writer import write_run
from linguagym.evaluation.scored_suites import evaluate_scored_suite
from linguagym.suites.formula import RegionRef
from linguagym.suites.load import parse_suite_data
from tests.conftest import minimal_suite
from tests.evaluation.fakes import WordScorer

SURPRISAL = {"The": 1.0, "boy": 2.0, "laughed": 5.0, ",": 4.0, ".": 3.0, "..": 14.66, "...": 9.0}
DOTS = r"\w+|\.+|[^\w\s]"  # a run of dots is one token, as smollm2's ".."


def dotted_suite(predictions=("(4;%a%) > (4;%b%)",), last="."):
    """Condition a reads "The boy laughed,." (the fake scorer makes "," and "." two tokens), b "The boy laughed.." (with
    ``last`` "..": "laughed..."): one token of dots over regions 3 and 4."""
    data = minimal_suite(predictions=[{"type": "formula", "formula": f} for f in predictions])
    data["region_meta"] = {"1": "subject", "2": "verb", "3": "mark", "4": "end"}
    for item in data["items"]:
        item["conditions"] = [
            {"condition_name": name, "regions": [
                {"region_number": 1, "content": "The boy"}, {"region_number": 2, "content": "laughed"},
                {"region_number": 3, "content": mark}, {"region_number": 4, "content": end}]}
            for name, mark, end in (("a", ",", "."), ("b", ".", last))]
    return data


def scorer():
    return WordScorer(lambda word, index: SURPRISAL[word], pattern=DOTS)


def evaluated(data, crossing="first"):
    suite = parse_suite_data(data).suite
    texts = sorted({s.text for s in suite_sentences(suite)})
    return evaluate_suite(suite, dict(zip(texts, scorer().score(texts), strict=True)), crossing=crossing)


def test_a_region_a_crossing_token_empties_is_undefined_and_so_is_every_prediction_naming_it():
    result = evaluated(dotted_suite(predictions=("(4;%a%) > (4;%b%)", "(2;%a%) = (2;%b%)")))
    b = next(c for c in result.conditions if c.condition == "b")
    assert b.sentence.text == "The boy laughed.."
    assert [len(r.tokens) for r in b.alignment.regions] == [2, 1, 1, 0]
    assert b.alignment.undefined_regions == (4,)
    assert all(math.isnan(v) for v in b.values[4].values())  # the sum too: 0.0 would make 3.0 > 0 "hold"
    assert b.values[3]["sum"] == 14.66 and b.values[None]["sum"] == 1.0 + 2.0 + 5.0 + 14.66
    first, second = result.predictions[:2]  # item 1
    assert not first.holds and not first.defined and first.undefined == (RegionRef(4, "b"),)
    assert second.holds and second.defined  # a prediction that names no undefined region is untouched
    assert result.accuracy("all") == 0.0 and result.undefined_predictions() == 2  # one in each of two items
    assert result.alignment_counts() == {"crossing_tokens": 2, "conditions_with_crossings": 2,
                                         "regions_without_token": 2}


def test_an_or_does_not_make_a_prediction_naming_an_undefined_region_hold():
    result = evaluated(dotted_suite(predictions=("(4;%a%) > (4;%b%) | (1;%a%) = (1;%b%)",)))
    assert [(p.holds, p.undefined) for p in result.predictions] == [(False, (RegionRef(4, "b"),))] * 2


def test_an_empty_region_keeps_its_sum_of_zero():
    data = dotted_suite(last="")  # b: "The boy laughed." with an empty region 4: no crossing, nothing undefined
    result = evaluated(data)
    b = next(c for c in result.conditions if c.condition == "b")
    assert b.alignment.crossings == () and b.alignment.undefined_regions == ()
    assert b.values[4]["sum"] == 0.0 and result.predictions[0].holds  # 3.0 > 0: the region is truly empty


@pytest.mark.parametrize(("last", "shares"), [(".", (1, 1)), ("..", (1, 2))])
def test_split_shares_the_token_between_its_regions_by_characters(last, shares):
    result = evaluated(dotted_suite(last=last), crossing="split")
    b = next(c for c in result.conditions if c.condition == "b")
    token = SURPRISAL["." * (1 + len(last))]
    [crossing] = b.alignment.crossings
    assert crossing.split and crossing.regions == (3, 4) and crossing.characters == shares
    assert b.alignment.undefined_regions == ()
    three, four = b.values[3]["sum"], b.values[4]["sum"]
    assert three + four == pytest.approx(token, abs=1e-12)
    assert three / token == pytest.approx(shares[0] / sum(shares))
    assert [(t.start, t.end) for t in b.alignment.regions[3].tokens] == [(16, 16 + len(last))]  # its own characters
    assert result.predictions[0].defined and result.undefined_predictions() == 0
    assert "split by characters" in region_crossings(b.alignment)[4]


def test_an_unknown_crossing_rule_is_refused():
    with pytest.raises(ConfigurationError, match="unknown crossing rule 'middle'"):
        check_settings(RunSettings(crossing="middle"))
    with pytest.raises(ConfigurationError, match="crossing"):
        evaluated(dotted_suite(), crossing="last")


def test_regions_csv_run_json_and_predictions_csv_report_the_crossing(tmp_path):
    suite_path = tmp_path / "dots.json"
    suite_path.write_text(json.dumps(dotted_suite()), encoding="utf-8")
    result = run_suites([suite_path], RunSettings(model="fake"), scorer=scorer())
    out = write_run(result, tmp_path / "out").parent
    with open(out / "regions.csv", newline="") as handle:
        rows = {(r["item"], r["condition"], r["region"]): r for r in csv.DictReader(handle)}
    emptied, holder = rows[("1", "b", "4")], rows[("1", "b", "3")]
    assert emptied["tokens"] == "0" and emptied["sum"] == "" and emptied["mean"] == ""
    assert emptied["crossing"] == "'..' over regions 3-4 counted in region 3: no token left here, values undefined"
    assert holder["crossing"] == "'..' over regions 3-4 counted here whole" and float(holder["sum"]) == 14.66
    assert rows[("1", "a", "4")]["crossing"] == "" and rows[("1", "a", "4")]["sum"] == "3.0"
    record = json.loads((out / "run.json").read_text())
    assert record["settings"]["crossing"] == "first"
    [entry] = record["suites"]
    assert (entry["crossing_tokens"], entry["conditions_with_crossings"], entry["regions_without_token"],
            entry["undefined_predictions"]) == (2, 2, 2, 2)
    with open(out / "predictions.csv", newline="") as handle:
        predictions = list(csv.DictReader(handle))
    assert [(p["holds"], p["undefined"]) for p in predictions] == [("FALSE", "TRUE")] * 2
    # evaluated again from the stored values (suites/NAME.json): the same outcome, and a whole-sentence sum
    again = evaluate_scored_suite(out / "suites" / "tiny.json")
    assert [(p.holds, p.undefined) for p in again.predictions] == [(p.holds, p.undefined) for p in result.suites[0]
                                                                   .predictions]
    b = next(c for c in again.conditions if c.condition == "b")
    assert b.values[None]["sum"] == pytest.approx(1.0 + 2.0 + 5.0 + 14.66)


def test_split_is_recorded_and_marked(tmp_path):
    suite_path = tmp_path / "dots.json"
    suite_path.write_text(json.dumps(dotted_suite()), encoding="utf-8")
    result = run_suites([suite_path], RunSettings(model="fake", crossing="split"), scorer=scorer())
    out = write_run(result, tmp_path / "out").parent
    record = json.loads((out / "run.json").read_text())
    assert record["settings"]["crossing"] == "split"
    assert (record["suites"][0]["regions_without_token"], record["suites"][0]["undefined_predictions"]) == (0, 0)
    with open(out / "regions.csv", newline="") as handle:
        rows = {(r["item"], r["condition"], r["region"]): r for r in csv.DictReader(handle)}
    for region in ("3", "4"):
        row = rows[("1", "b", region)]
        assert row["tokens"] == "1" and float(row["sum"]) == pytest.approx(14.66 / 2)
        assert row["crossing"] == "'..' over regions 3-4 split by characters: 1 of 2 here (an approximation)"


def test_the_report_notes_the_crossing_under_the_suites_accuracy(tmp_path):
    from linguagym.evaluation.model_runs import run_models

    suite_path = tmp_path / "dots.json"
    suite_path.write_text(json.dumps(dotted_suite()), encoding="utf-8")
    done = run_models([suite_path], [RunSettings(model="fake")], output=tmp_path / "out",
                      scorers=lambda settings: scorer())
    page = done.report.read_text(encoding="utf-8")
    [note] = re.findall(r"<p class='notes crossing'>(.*?)</p>", page)
    assert note == ("fake: 2 tokens cross a region boundary in 2 sentences, counted whole in their first region "
                    "(regions.csv, column crossing); 2 regions with text but no token, undefined; 2 predictions "
                    "name an undefined value, counted as not holding (predictions.csv, column undefined)")


def test_the_command_line_takes_crossing_and_notes_what_it_did(tmp_path):
    from linguagym.scoring.precomputed import write_surprisals_tsv
    from tests.evaluation.test_cli_run import cli

    data = dotted_suite()
    suite_path = tmp_path / "dots.json"
    suite_path.write_text(json.dumps(data), encoding="utf-8")
    tsv = tmp_path / "dots.tsv"  # an lm-zoo file whose ".." is one token
    write_surprisals_tsv(scorer().score([s.text for s in suite_sentences(parse_suite_data(data).suite)]), tsv)
    first = cli("run", "--model", tsv, "--no-report", "-o", tmp_path / "first", suite_path)
    assert first.returncode == 0, first.stderr
    assert "tiny: 2 tokens cross a region boundary in 2 sentences, counted whole in their first region" in first.stderr
    assert "2 predictions name an undefined value" in first.stderr
    split = cli("run", "--model", tsv, "--crossing", "split", "--no-report", "-o", tmp_path / "split", suite_path)
    assert split.returncode == 0, split.stderr
    assert "split between the regions they cover by characters (an approximation)" in split.stderr
    [record] = (tmp_path / "split").glob("*/run.json")
    assert json.loads(record.read_text())["settings"]["crossing"] == "split"
    bad = cli("run", "--model", tsv, "--crossing", "middle", "-o", tmp_path / "bad", suite_path)
    assert bad.returncode != 0 and "--crossing" in bad.stderr and "split" in bad.stderr
