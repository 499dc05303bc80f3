"""Runs in the background with a tiny offline model: progress, results pages, files, cancel, resume."""

from __future__ import annotations

import io
import json
import threading

import pytest

from linguagym.suites import example_suite_paths
from linguagym.web.db import RunRecord
from linguagym.web.jobs.worker import wait_for


def _upload_examples(client):
    for path in example_suite_paths():
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(path.read_bytes()), path.name)},
                    content_type="multipart/form-data")


def _start(client, model, suites=(1,)):
    response = client.post("/runs", data={"suite": [str(s) for s in suites], "other_models": str(model),
                                          "device": "cpu", "batch_size": "8", "policy": "all"})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


@pytest.fixture
def finished_run(app, client, tiny_lm_dir):
    _upload_examples(client)
    run_id = _start(client, tiny_lm_dir, suites=(1, 2))
    assert app.extensions["worker"].run_next()
    return run_id


def test_a_run_scores_and_shows_results(app, client, finished_run, tiny_lm_dir):
    status = client.get(f"/api/runs/{finished_run}").json
    assert status["status"] == "done", status["error"]
    assert status["done"] == status["total"] > 0
    page = client.get(f"/runs/{finished_run}").text
    assert 'id="accuracy"' in page and "mean accuracy" in page
    assert "plots/regions_" in page and "plots/suite_accuracy.svg" in page
    plot = client.get(f"/runs/{finished_run}/files/plots/suite_accuracy.svg")
    assert plot.status_code == 200 and plot.data.lstrip().startswith(b"<svg")
    assert "default-src 'none'" in plot.headers["Content-Security-Policy"]
    model = tiny_lm_dir.name
    items = json.loads(client.get(f"/runs/{finished_run}/files/{model}/run.json").data)
    suite = items["suites"][0]["name"]
    table = client.get(f"/runs/{finished_run}/items", query_string={"suite": suite})
    assert table.status_code == 200 and "pred. 0" in table.text
    download = client.get(f"/runs/{finished_run}/files/{model}/items.csv", query_string={"download": 1})
    assert download.headers["Content-Disposition"].startswith("attachment")
    assert download.text.startswith("model,suite,item,correct")
    assert client.get(f"/runs/{finished_run}/files/../../secret_key").status_code == 404
    assert client.get(f"/runs/{finished_run}/files/%2e%2e/%2e%2e/secret_key").status_code == 404
    grouped = client.get(f"/runs/{finished_run}", query_string={"collection": "syntaxgym-2020"})
    assert grouped.status_code == 200
    listing = client.get("/runs").text
    assert f"run {finished_run}" in listing and "done" in listing


def test_compare_runs(app, client, finished_run, tiny_lm_dir):
    second = _start(client, tiny_lm_dir, suites=(1,))
    app.extensions["worker"].run_next()
    page = client.get("/compare", query_string={"run": [finished_run, second]})
    assert f"run {finished_run}: {tiny_lm_dir.name}" in page.text and f"run {second}: " in page.text
    plot = client.get("/compare/accuracy.svg", query_string={"run": [finished_run, second]})
    assert plot.status_code == 200 and b"<svg" in plot.data


def test_run_form_errors_are_shown(client):
    _upload_examples(client)
    no_model = client.post("/runs", data={"suite": ["1"]})
    assert no_model.status_code == 400 and "no model chosen" in no_model.text
    no_suite = client.post("/runs", data={"other_models": "x"})
    assert "no suite chosen" in no_suite.text
    assert "unknown device" in client.post("/runs", data={"suite": ["1"], "other_models": "x",
                                                          "device": "tpu"}).text


def test_a_failing_model_fails_the_run_with_its_message(app, client, tmp_path):
    _upload_examples(client)
    run_id = _start(client, tmp_path / "no-such-model")
    app.extensions["worker"].run_next()
    status = client.get(f"/api/runs/{run_id}").json
    assert status["status"] == "failed" and status["error"]
    assert "Traceback" not in client.get(f"/runs/{run_id}").text


def test_cancel_a_queued_run(app, client, tiny_lm_dir):
    _upload_examples(client)
    run_id = _start(client, tiny_lm_dir)
    assert client.post(f"/runs/{run_id}/cancel").status_code == 302
    assert client.get(f"/api/runs/{run_id}").json["status"] == "cancelled"
    assert not app.extensions["worker"].run_next()


def test_cancel_a_running_run(tmp_path, tiny_lm_dir):
    """The worker stops between chunks of sentences once cancellation is asked for."""
    from linguagym.scoring.registry import load_scorer
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    entered, release = threading.Event(), threading.Event()

    class Blocking:
        def __init__(self, settings):
            self.inner = load_scorer(settings.model, device="cpu", score_cache=False)
            self.identity = self.inner.identity

        def score(self, texts):
            entered.set()
            release.wait(30)
            return self.inner.score(texts)

    config = WebConfig.build(tmp_path / "d", start_worker=True, cache_dir=tmp_path / "c")
    app = create_app(config, scorer_factory=Blocking)
    try:
        client = Client(app)
        _upload_examples(client)
        run_id = _start(client, tiny_lm_dir)
        assert entered.wait(60)
        assert client.get(f"/api/runs/{run_id}").json["status"] == "running"
        client.post(f"/runs/{run_id}/cancel")
        release.set()
        run = wait_for(app.extensions["sessions"], run_id)
        assert run.status == "cancelled"
    finally:
        release.set()
        app.extensions["worker"].stop()


def test_a_run_survives_a_restart_and_resumes_from_the_cache(tmp_path, tiny_lm_dir):
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    config = WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=tmp_path / "cache")
    first = create_app(config)
    client = Client(first)
    _upload_examples(client)
    run_id = _start(client, tiny_lm_dir)
    first.extensions["worker"].run_next()  # scores every sentence into the cache
    sessions = first.extensions["sessions"]
    with sessions.begin() as session:  # as if the server had died while the run was going
        run = session.get(RunRecord, run_id)
        run.status, run.progress_done = "running", 3
    first.extensions["sessions"].kw["bind"].dispose()

    restarted = create_app(WebConfig.build(tmp_path / "d", start_worker=True, cache_dir=tmp_path / "cache"))
    try:
        run = wait_for(restarted.extensions["sessions"], run_id)
        assert run.status == "done", run.error
        record = json.loads(next((tmp_path / "d" / "runs" / str(run_id) / "results").glob("*/run.json")).read_text())
        assert record["cache"]["misses"] == 0 and record["cache"]["hits"] > 0
    finally:
        restarted.extensions["worker"].stop()


def test_two_models_sharing_a_folder_name_keep_both_results(app, client, tiny_lm_dir, tmp_path):
    """runA/checkpoint-1 and runB/checkpoint-1: each model's results in a folder of its own, none overwritten."""
    import shutil

    from linguagym.web.jobs.worker import results_directory

    models = [tmp_path / run / "checkpoint-1" for run in ("runA", "runB")]
    for model in models:
        shutil.copytree(tiny_lm_dir, model)
    _upload_examples(client)
    run_id = _start(client, "\n".join(map(str, models)))
    assert app.extensions["worker"].run_next()
    assert client.get(f"/api/runs/{run_id}").json["status"] == "done"
    results = results_directory(app.extensions["linguagym"], run_id)
    records = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(results.glob("*/run.json"))]
    assert len(records) == 2
    assert {record["settings"]["model"] for record in records} == set(map(str, models))


def test_compare_averages_only_the_suites_all_runs_share(app, client, finished_run, tiny_lm_dir):
    second = _start(client, tiny_lm_dir, suites=(1,))
    app.extensions["worker"].run_next()
    page = client.get("/compare", query_string={"run": [finished_run, second]}).text
    # run 1 has two suites, run 2 one of them: the table holds that one only, and the page names the other
    shared, other = [s for s in json.loads(client.get(f"/runs/{finished_run}/files/{tiny_lm_dir.name}/run.json")
                                           .data)["suites"]]
    assert "Compared on the 1 suite every chosen run has; left out, since not every run has it: " in page
    assert f'<span class="left-out">{other["name"]}</span>' in page
    table = page.split('id="comparison"', 1)[1].split("</table>", 1)[0]
    assert f"<td>{shared['name']}</td>" in table and other["name"] not in table and " *</td>" not in table
    partial = client.get(f"/runs/{finished_run}", query_string={"collection": "syntaxgym-2020"}).text
    assert "SG score not computed: 31 of its 31 suites are missing" in partial


def test_a_running_jobs_progress_names_the_unit_the_library_counts(app, client, tiny_lm_dir):
    from linguagym.web.jobs.rows import JobProgress

    _upload_examples(client)
    run_id = _start(client, tiny_lm_dir)
    advance = JobProgress(app.extensions["worker"].context, RunRecord, run_id, interval=0)("model 1 of 1", 40, "tokens")
    advance(25)
    page = client.get(f"/runs/{run_id}").text
    assert "model 1 of 1: tokens scored</span> <span id=\"run-count\">25 / 40</span></p>" in page
    assert "sentences" not in page.split('id="progress"', 1)[1].split("</section>", 1)[0]
    assert client.get(f"/api/runs/{run_id}").json["label"] == "model 1 of 1: tokens scored"


def test_the_run_form_takes_model_arguments_limit_and_compat_as_the_command_line_does(app, client, tiny_lm_dir):
    _upload_examples(client)
    form = {"suite": ["1"], "other_models": str(tiny_lm_dir), "device": "cpu", "batch_size": "8", "policy": "all"}
    unknown = client.post("/runs", data={**form, "model_args": "revison=main"})
    assert unknown.status_code == 400 and "did you mean &#39;revision&#39;?" in unknown.text
    code = client.post("/runs", data={**form, "model_args": "trust_remote_code=true"})
    assert code.status_code == 400 and "runs the model repository&#39;s own Python code" in code.text
    assert "must be a number above 0" in client.post("/runs", data={**form, "limit": "-3"}).text
    assert "unknown compat &#39;lm-eval&#39;" in client.post("/runs", data={**form, "compat": "lm-eval"}).text
    assert "unknown policy &#39;most&#39;" in client.post("/runs", data={**form, "policy": "most"}).text
    response = client.post("/runs", data={**form, "model_args": "dtype=float32", "limit": "1",
                                          "compat": "syntaxgym-core"})
    assert response.status_code == 302, response.text
    run_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    assert client.get(f"/api/runs/{run_id}").json["status"] == "done"
    recorded = json.loads(client.get(f"/runs/{run_id}/files/{tiny_lm_dir.name}/run.json").data)
    assert recorded["settings"]["limit"] == 1 and recorded["settings"]["compat"] == "syntaxgym-core"
    assert recorded["settings"]["model_args"] == {"dtype": "float32"}
    assert [suite["items"] for suite in recorded["suites"]] == [1] and recorded["suites"][0]["items_total"] > 1


def test_the_run_form_takes_the_word_boundary_correction_and_the_run_page_names_it(app, client, tiny_lm_dir):
    _upload_examples(client)
    form = {"suite": ["1"], "other_models": str(tiny_lm_dir), "device": "cpu", "batch_size": "8", "policy": "all",
            "limit": "1"}
    assert 'name="bow_correction"' in client.get("/runs").text
    runs = []
    for extra in ({}, {"bow_correction": "1"}):
        response = client.post("/runs", data={**form, **extra})
        assert response.status_code == 302, response.text
        runs.append(int(response.headers["Location"].rsplit("/", 1)[1]))
        assert app.extensions["worker"].run_next()
    plain, corrected = runs
    recorded = json.loads(client.get(f"/runs/{corrected}/files/{tiny_lm_dir.name}/run.json").data)
    assert recorded["settings"]["bow_correction"] is True and recorded["scorer"]["bow_correction"]
    assert "Surprisal: word-boundary corrected." in client.get(f"/runs/{corrected}").text
    assert "Surprisal: token sums (no word-boundary correction)." in client.get(f"/runs/{plain}").text
    again = client.get(f"/runs?from={corrected}").text  # "Run again" keeps the box ticked
    assert 'name="bow_correction" value="1" checked' in again
    both = client.get(f"/compare?run={plain}&run={corrected}").text
    assert f"word-boundary corrected for run {corrected}: {tiny_lm_dir.name}" in both
    record = client.get(f"/runs/{corrected}/files/{tiny_lm_dir.name}/run.json").json
    suite = record["suites"][0]["name"]
    item_page = client.get(f"/runs/{corrected}/suites/{suite}/items/1?tokens=1").text
    assert 'id="bow-note"' in item_page and "a region's tokens add up to the region" in item_page
    assert 'id="bow-note"' not in client.get(f"/runs/{plain}/suites/{suite}/items/1").text


@pytest.mark.parametrize(("field", "wrong", "error", "chosen"), [
    ("crossing", "halves", "unknown crossing rule &#39;halves&#39;", "split"),
    ("ties", "coin", "unknown tie rule &#39;coin&#39;", "lm-eval"),
])
def test_the_run_form_takes_the_crossing_and_tie_rules(app, client, tiny_lm_dir, field, wrong, error, chosen):
    _upload_examples(client)
    form = {"suite": ["1"], "other_models": str(tiny_lm_dir), "device": "cpu", "batch_size": "8", "policy": "all",
            "limit": "1"}
    assert error in client.post("/runs", data={**form, field: wrong}).text
    response = client.post("/runs", data={**form, field: chosen})
    assert response.status_code == 302, response.text
    run_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    recorded = json.loads(client.get(f"/runs/{run_id}/files/{tiny_lm_dir.name}/run.json").data)
    assert recorded["settings"][field] == chosen
    assert f'<option value="{chosen}" selected>' in client.get(f"/runs?from={run_id}").text  # Run again keeps it
