"""Results by model: the leaderboard (latest result per model x suite, the SG score only from complete suite
sets), a model's page, a suite's results panel, region plots of several models on one axis, and Compare
restricted to the suites the runs share.

Most runs here are written as a finished run's files (``run.json`` and ``items.csv``, the two files these pages
read) with chosen item outcomes, so a 31-suite collection costs milliseconds; the plots use a real tiny-model run.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from datetime import UTC, datetime, timedelta

import pytest

from linguagym.evaluation.collections import load_collection
from linguagym.web.db import RunRecord, RunSuite
from linguagym.web.jobs.worker import results_directory
from tests.conftest import minimal_suite

SG = load_collection("syntaxgym-2020")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _finished_run(app, results: dict[str, dict[str, list[bool]]], *, finished: datetime,
                  versions: tuple[int, ...] = (), paper: bool = False, settings: dict | None = None) -> int:
    """A finished run with ``results[model][suite]`` = each item's outcome (every prediction holds or not);
    ``paper``: the outcomes are Hu et al.'s (first prediction only): policy ``first``, no ``correct_all``."""
    policy = "first" if paper else "all"
    sessions = app.extensions["sessions"]
    with sessions() as session:
        run = RunRecord(status="done", models=list(results), settings={"policy": policy}, error="",
                        progress_done=1, progress_total=1, progress_label="", cancel_requested=False, created_at=T0,
                        finished_at=finished)
        run.suites = [RunSuite(suite_version_id=v) for v in versions]
        session.add(run)
        session.commit()
        run_id = run.id
    folder = results_directory(app.extensions["linguagym"], run_id)
    for index, (model, by_suite) in enumerate(results.items()):
        out = folder / f"model{index}"
        out.mkdir(parents=True)
        label = model.rsplit("/", 1)[-1]
        record = {"label": label, "settings": {"model": model, "policy": policy, **(settings or {})},
                  "suites": [{"name": suite, "metric": "sum"} for suite in by_suite]}
        (out / "run.json").write_text(json.dumps(record), encoding="utf-8")
        with (out / "items.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["model", "suite", "item", "correct", *([] if paper else ["correct_all"])])
            for suite, outcomes in by_suite.items():
                writer.writerows([label, suite, i + 1, ok, *([] if paper else [ok])] for i, ok in enumerate(outcomes))
    return run_id


def _rows(page: str) -> list[str]:
    """The leaderboard's models, top to bottom."""
    return re.findall(r'<tr data-model="([^"]+)">', page)


def _cell(page: str, model: str, column: str) -> str:
    row = page.split(f'<tr data-model="{model}">', 1)[1].split("</tr>", 1)[0]
    cell = row.split(f'data-col="{column}"', 1)[1].split(">", 1)[1].split("</td>", 1)[0]
    return re.sub(r"<[^>]+>", "", cell).strip()


def test_the_leaderboard_withholds_an_incomplete_sg_score_and_names_the_missing_suites(app, client):
    every = {s: [True, False] if i % 2 else [True, True] for i, s in enumerate(SG.suites)}  # 0.5 or 1.0
    partial = {s: [True] for s in SG.score_suites[2:]}  # lacks two score suites
    _finished_run(app, {"org/full-model": every}, finished=T0)
    _finished_run(app, {"org/partial:v1": partial}, finished=T0 + timedelta(hours=1))
    page = client.get("/leaderboard").text
    assert _rows(page) == ["org/full-model", "org/partial:v1"]  # by SG score, a withheld score last
    expected = sum(0.5 if SG.suites.index(s) % 2 else 1.0 for s in SG.score_suites) / len(SG.score_suites)
    assert _cell(page, "org/full-model", "score") == f"{expected:.3f}"
    assert _cell(page, "org/partial:v1", "score") == f"– 2 of {len(SG.score_suites)} suites missing"
    missing = ", ".join(SG.score_suites[:2])
    assert f"2 of its {len(SG.score_suites)} suites have no result: {missing}." in page
    circuit = next(g for g in SG.groups if set(SG.group_suites(g)) & set(SG.score_suites[:2]))
    assert _cell(page, "org/partial:v1", f"group:{circuit.short}") == "–"  # its circuit lacks a suite too
    assert _cell(page, "org/partial:v1", "suites") == str(len(partial))
    # sortable by any column with plain links: the partial model has 1.0 on a suite where the full one has 0.5
    suite = SG.score_suites[3]
    assert f'href="/leaderboard?collection=syntaxgym-2020&amp;sort=suite:{suite}&amp;order=desc"' in page
    by_suite = client.get("/leaderboard", query_string={"sort": f"suite:{suite}", "order": "desc"}).text
    assert _rows(by_suite) == ["org/partial:v1", "org/full-model"]
    assert _rows(client.get("/leaderboard", query_string={"sort": "model", "order": "desc"}).text) == [
        "org/partial:v1", "org/full-model"]
    bad = client.get("/leaderboard", query_string={"sort": "<script>"})
    assert bad.status_code == 400 and "cannot sort by" in bad.text and "<script>" not in bad.text


def test_the_latest_finished_result_per_model_and_suite_wins(app, client):
    suite = SG.suites[0]
    newer = _finished_run(app, {"m": {suite: [False, False]}}, finished=T0 + timedelta(days=1))
    older = _finished_run(app, {"m": {suite: [True, True], SG.suites[1]: [True]}}, finished=T0)  # a higher id
    assert older > newer
    page = client.get("/leaderboard").text
    assert _cell(page, "m", f"suite:{suite}") == "0.000"  # the run that finished last, not the last queued
    assert f'href="/runs/{newer}" title="run {newer}' in page
    assert _cell(page, "m", f"suite:{SG.suites[1]}") == "1.000"  # a suite only the older run has still counts
    model = client.get("/model", query_string={"name": "m"}).text  # every run, the latest marked
    assert model.count('class="latest"') == 2 and model.count('class="older"') == 1
    assert f'href="/runs/{older}"' in model and f'href="/runs/{newer}"' in model


def test_settings_that_change_numbers_make_another_row_and_a_limited_run_is_never_the_latest(app, client):
    suite = SG.suites[0]
    _finished_run(app, {"m": {suite: [True, True]}}, finished=T0)
    _finished_run(app, {"m": {suite: [False, True]}}, finished=T0 + timedelta(hours=1),
                  settings={"dtype": "bfloat16", "model_args": {"revision": "step1000"}})
    _finished_run(app, {"m": {suite: [False]}}, finished=T0 + timedelta(hours=2), settings={"limit": 1})
    page = client.get("/leaderboard").text
    assert sorted(_rows(page)) == ["m", "m [dtype=bfloat16, revision=step1000]"]
    assert _cell(page, "m", f"suite:{suite}") == "1.000"  # not the later run of its first item only
    assert _cell(page, "m [dtype=bfloat16, revision=step1000]", f"suite:{suite}") == "0.500"


def test_a_models_page_takes_names_with_slashes_and_colons(app, client):
    name = "hf:org/model-x:rev/2"
    run_id = _finished_run(app, {name: {"cleft": [True, False, True, True]}}, finished=T0)
    board = client.get("/leaderboard").text
    assert 'href="/model?name=hf:org/model-x:rev/2"' in board or "hf%3Aorg%2Fmodel-x%3Arev%2F2" in board
    page = client.get("/model", query_string={"name": name})
    assert page.status_code == 200 and f"<h1 class=\"model-title\">{name}</h1>" in page.text
    assert "<td class=\"num\">0.750</td>" in page.text and f'href="/runs/{run_id}"' in page.text
    unknown = client.get("/model", query_string={"name": "<b>nobody</b>"})
    assert unknown.status_code == 404 and "&lt;b&gt;nobody" in unknown.text


def test_a_suite_page_lists_every_model_that_ran_any_version(app, client):
    def upload(data):
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(json.dumps(data).encode()), "tiny.json")},
                    content_type="multipart/form-data")

    upload(minimal_suite())
    upload(minimal_suite(predictions=[{"type": "formula", "formula": "(2;%mismatch%) < (2;%match%)"}]))
    from linguagym.web.db import SuiteVersion

    with app.extensions["sessions"]() as session:
        first, second = (v.id for v in session.query(SuiteVersion).order_by(SuiteVersion.number))
    one = _finished_run(app, {"model-a": {"tiny": [True, False]}}, finished=T0, versions=(first,))
    two = _finished_run(app, {"model-b": {"tiny": [True]}, "model-a": {"tiny": [True, True]}},
                        finished=T0 + timedelta(hours=1), versions=(second,))
    _finished_run(app, {"model-c": {"other": [True]}}, finished=T0)
    page = client.get("/suites/1").text
    panel = page.split('id="suite-results"', 1)[1].split("</section>", 1)[0]
    assert re.findall(r'data-model="([^"]+)"', panel) == ["model-a", "model-a", "model-b"]
    assert "model-c" not in panel
    assert '<tr class="latest" data-model="model-a">' in panel and 'class="older muted"' in panel
    assert panel.count("<td>v1</td>") == 1 and panel.count("<td>v2</td>") == 2
    assert f'href="/runs/{one}"' in panel and f'href="/runs/{two}"' in panel
    assert "0.500" in panel and "1.000" in panel


@pytest.fixture
def two_model_run(app, client, tiny_lm_dir, tmp_path):
    """A real run of the bundled example suites with two models (a tiny LM and a copy of it)."""
    from tests.web.test_runs import _start, _upload_examples

    copy = tmp_path / "second-lm"
    shutil.copytree(tiny_lm_dir, copy)
    _upload_examples(client)
    run_id = _start(client, f"{tiny_lm_dir}\n{copy}", suites=(1,))
    assert app.extensions["worker"].run_next()
    assert client.get(f"/api/runs/{run_id}").json["status"] == "done"
    return run_id


def test_several_models_region_plots_share_one_axis(app, client, two_model_run, tiny_lm_dir):
    page = client.get(f"/runs/{two_model_run}").text
    suite = re.search(r'/runs/\d+/regions\.svg\?suite=([^"]+)"', page).group(1)
    plot = client.get(f"/runs/{two_model_run}/regions.svg", query_string={"suite": suite})
    assert plot.status_code == 200 and "default-src 'none'" in plot.headers["Content-Security-Policy"]
    svg = plot.text
    assert svg.count("<svg") == 1 and svg.count('class="legend"') == 1  # one chart, one axis, one legend
    series = re.findall(r'data-series="([^"]+)"', svg)
    models = {name.split(" · ")[0] for name in series}
    assert models == {tiny_lm_dir.name, "second-lm"}
    colours = {name: re.search(r'data-series="' + re.escape(name) + r'"><path class="line" d="[^"]+" stroke="([^"]+)"',
                                svg).group(1) for name in series}
    for model in models:  # one colour per model, different between models
        assert len({c for name, c in colours.items() if name.startswith(model + " ·")}) == 1
    assert len(set(colours.values())) == 2
    # the suite page shows every model's latest result on its version on one axis too
    suite_page = client.get("/suites/1").text
    assert 'src="/suites/1/regions.svg?version=1"' in suite_page
    overlaid = client.get("/suites/1/regions.svg", query_string={"version": 1}).text
    assert len({n.split(" · ")[0] for n in re.findall(r'data-series="([^"]+)"', overlaid)}) == 2
    assert client.get(f"/runs/{two_model_run}/regions.svg", query_string={"suite": "nope"}).status_code == 404
    report = client.get(f"/runs/{two_model_run}/files/report.html").text  # linguagym run's report overlays them too
    assert f"{suite} (2 models)" in report
    compared = client.get("/compare", query_string={"run": [two_model_run]}).text
    assert f'src="/compare/regions.svg?run={two_model_run}&amp;suite={suite}"' in compared
    both = client.get("/compare/regions.svg", query_string={"run": [two_model_run], "suite": suite}).text
    assert {n.split(" · ")[0] for n in re.findall(r'data-series="([^"]+)"', both)} == {
        f"run {two_model_run}: {tiny_lm_dir.name}", f"run {two_model_run}: second-lm"}
