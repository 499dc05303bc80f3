"""The compare page's paired comparison of effects (``evaluation/effect_comparison.py``): the rows with their numbers
checked by hand, its CSV, and a run without effects.csv named, not an error."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

from linguagym.evaluation.effect_comparison import COLUMNS
from linguagym.evaluation.runfolder import schema
from linguagym.web.jobs.worker import results_directory
from tests.evaluation.test_effect_comparison import _effect_rows
from tests.web.test_results_pages import T0, _finished_run


def _with_effects(app, run_id: int, label: str, effects: dict) -> None:
    folder = results_directory(app.extensions["linguagym"], run_id) / "model0"
    with (folder / "effects.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(schema.EFFECT_COLUMNS)
        writer.writerows(_effect_rows(label, effects))


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_compare_page_shows_the_paired_effects_and_their_csv(app, client):
    a = _finished_run(app, {"org/alpha": {"agree": [True] * 5}}, finished=T0)
    b = _finished_run(app, {"org/beta": {"agree": [True] * 5}}, finished=T0 + timedelta(hours=1))
    # alpha - beta per item: 1, 0.5, 2, -0.5 (item 5 undefined for alpha): mean 0.75, sign-flip p = 6/16
    _with_effects(app, a, "alpha", {("agree", 0, 0): [2.0, 1.5, 3.0, 0.5, None]})
    _with_effects(app, b, "beta", {("agree", 0, 0): [1.0, 1.0, 1.0, 1.0, 1.0]})
    page = client.get("/compare", query_string={"run": [a, b]})
    assert page.status_code == 200
    assert page.text.index('id="paired"') < page.text.index('id="paired-effects"')  # below the paired accuracies
    table = page.text.split('id="paired-effects"', 1)[1].split("</table>", 1)[0]
    for column in ("effect a", "effect b", "a − b [95% CI]", "p (sign-flip)", "p (Holm)"):
        assert column in table
    row = _text(table.split('data-suite="agree"', 1)[1].split("</tr>", 1)[0])
    assert row.startswith(f'data-prediction="P0"> agree P0 (1;%b%) &gt; (1;%a%) run {a}: alpha run {b}: beta 4 1.75 '
                          "1.00 +0.75 [")
    assert row.endswith("0.375 0.375")  # one test: Holm leaves it
    assert "left out: 1 where either effect is undefined" in page.text
    download = client.get("/compare/paired-effects.csv", query_string={"run": [a, b]})
    rows = list(csv.DictReader(io.StringIO(download.text)))
    assert download.status_code == 200 and tuple(rows[0]) == COLUMNS
    assert (rows[0]["difference"], rows[0]["p_sign_flip"], rows[0]["undefined"]) == ("0.75", "0.375", "1")
    assert client.get("/compare/paired-effects.csv").status_code == 400  # no run chosen: a refusal, not a 500


def test_a_run_without_effects_is_named_on_the_compare_page(app, client):
    a = _finished_run(app, {"org/alpha": {"agree": [True] * 5}}, finished=T0)
    b = _finished_run(app, {"org/beta": {"agree": [True] * 5}}, finished=T0 + timedelta(hours=1))
    _with_effects(app, a, "alpha", {("agree", 0, 0): [2.0, 1.5, 3.0, 0.5, None]})
    page = client.get("/compare", query_string={"run": [a, b]})
    assert page.status_code == 200 and 'id="paired"' in page.text  # the accuracies still pair
    assert 'id="paired-effects"' not in page.text  # no table: nothing to pair
    assert f"no effects for run {b}: beta: its folder has no effects.csv" in _text(page.text)
