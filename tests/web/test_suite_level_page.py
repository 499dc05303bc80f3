"""A run's suite page shows each model's suite-level predictions (``mean(x) > 0``, from ``suite_predictions.csv``):
the value, its 95% interval, the items and the verdicts, as the file holds them; none where the suite has none."""

from __future__ import annotations

import csv
import re

from linguagym.evaluation.runfolder import schema
from linguagym.web.jobs.worker import results_directory
from tests.web.test_results_pages import T0, _finished_run

FORMULA = "mean((2;%mismatch%) - (2;%match%)) > 0"


def _with_predictions(app, run_id: int, label: str) -> None:
    """predictions.csv for _finished_run's suite 'agree' (items 1-3), which the suite page reads."""
    folder = results_directory(app.extensions["linguagym"], run_id) / "model0"
    with (folder / schema.PREDICTIONS).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined", "tie"])
        writer.writerows([label, "agree", item, 0, "(2;%mismatch%) > (2;%match%)", "sum", holds, "FALSE", ""]
                         for item, holds in ((1, "TRUE"), (2, "FALSE"), (3, "TRUE")))


def _with_suite_level(app, run_id: int, label: str, rows: list[list]) -> None:
    folder = results_directory(app.extensions["linguagym"], run_id) / "model0"
    with (folder / schema.SUITE_PREDICTIONS).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(schema.SUITE_PREDICTION_COLUMNS)
        writer.writerows([label, *row] for row in rows)


def _cells(page: str, prediction: str) -> list[str]:
    section = page.split('<section id="suite-level">', 1)[1].split("</section>", 1)[0]
    row = section.split(f'data-prediction="{prediction}">', 1)[1].split("</tr>", 1)[0]
    return [" ".join(re.sub(r"<[^>]+>", "", cell).split()) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_the_suite_page_shows_each_suite_level_prediction_with_its_interval_and_verdict(app, client):
    run = _finished_run(app, {"org/alpha": {"agree": [True, False, True]}}, finished=T0)
    _with_predictions(app, run, "alpha")
    _with_suite_level(app, run, "alpha", [
        ["agree", 0, FORMULA, "sum", "mean", "2.5", "0.25", "4.75", ">", "0.0", 3, 0, "TRUE", "TRUE"],
        ["agree", 1, "median((2;%match%) - (2;%mismatch%)) > 1", "sum", "median", "1.5", "-0.5", "3.0", ">", "1.0",
         2, 1, "TRUE", "FALSE"],
        ["agree", 2, "mean((3;%match%)) < 0", "sum", "mean", "", "", "", "<", "0.0", 0, 3, "FALSE", "FALSE"],
        ["other", 0, FORMULA, "sum", "mean", "9.0", "8.0", "10.0", ">", "0.0", 3, 0, "TRUE", "TRUE"]])
    page = client.get(f"/runs/{run}/items", query_string={"suite": "agree"})
    assert page.status_code == 200
    assert _cells(page.text, "0") == ["alpha", FORMULA.replace(">", "&gt;"), "2.500", "[0.250, 4.750]", "3",
                                      "yes, across its interval"]
    assert _cells(page.text, "1")[2:] == ["1.500", "[-0.500, 3.000]", "2 (1 undefined left out)",
                                          "yes, not across its interval"]
    assert _cells(page.text, "2")[2:] == ["–", "–", "0 (3 undefined left out)", "no"]
    assert "9.000" not in page.text  # another suite's row is not this suite's
    assert "1000 resamples of items, seed 0" in page.text


def test_a_suite_without_suite_level_predictions_shows_no_such_table(app, client):
    run = _finished_run(app, {"org/alpha": {"agree": [True, False, True]}}, finished=T0)
    _with_predictions(app, run, "alpha")
    page = client.get(f"/runs/{run}/items", query_string={"suite": "agree"})  # an earlier run: no such file
    assert page.status_code == 200 and 'id="suite-level"' not in page.text
    _with_suite_level(app, run, "alpha", [])  # the header alone
    assert 'id="suite-level"' not in client.get(f"/runs/{run}/items", query_string={"suite": "agree"}).text
