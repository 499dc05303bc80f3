"""A run's page while it loads its model (the library's loading stages shown as a bar without an end), resuming a
failed or cancelled run from its page, and run names where results are listed by model and by suite."""

from __future__ import annotations

import json

from linguagym.progress import stage
from linguagym.web.db import RunRecord
from tests.web.test_runs import _start, _upload_examples

DEQUANTISING = "de-quantising the GGUF weights (about 15 s the first time)"


def _record(app, run_id) -> RunRecord:
    with app.extensions["sessions"]() as session:
        record = session.get(RunRecord, run_id)
        record.version_ids = [link.suite_version_id for link in record.suites]
        return record


def test_the_run_page_shows_the_loading_stages_as_a_labelled_bar_without_an_end(tmp_path, tiny_lm_dir):
    from linguagym.scoring.registry import load_scorer
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    seen: list[tuple[dict, str]] = []

    class Loading:
        """The tiny model, reporting loading stages as the named models do while it is fetched and loaded."""

        def __init__(self, settings):
            self.inner = load_scorer(settings.model, device="cpu", score_cache=False)
            self.identity = self.inner.identity
            self.progress = None

        def count_tokens(self, texts):
            stage("reading the tokenizer")
            return self.inner.count_tokens(texts)

        def warm_up(self):
            stage(DEQUANTISING)
            seen.append((client.get(f"/api/runs/{run_id}").json, client.get(f"/runs/{run_id}").text))
            self.inner.warm_up()

        def score(self, texts):
            self.inner.progress = self.progress
            return self.inner.score(texts)

    app = create_app(WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=tmp_path / "c"),
                     scorer_factory=Loading)
    try:
        client = Client(app)
        _upload_examples(client)
        run_id = _start(client, tiny_lm_dir)
        assert app.extensions["worker"].run_next()
        [(status, page)] = seen  # as the page was while the weights loaded
        assert status["status"] == "running" and status["total"] == 0
        assert status["label"] == f"loading {tiny_lm_dir.name}: {DEQUANTISING}"
        progress = page.split('id="progress"', 1)[1].split("</section>", 1)[0]
        assert '<progress id="run-progress" title="a step without a count"></progress>' in progress  # no value
        assert '<span id="run-count" hidden>' in progress and "tokens scored" not in progress
        done = client.get(f"/api/runs/{run_id}").json
        assert done["status"] == "done" and done["done"] == done["total"] > 0  # then counted in tokens
    finally:
        app.extensions["worker"].stop()


def test_a_counted_step_shows_its_count_in_its_unit(app, client, tiny_lm_dir):
    from linguagym.web.jobs.rows import JobProgress

    _upload_examples(client)
    run_id = _start(client, tiny_lm_dir)
    advance = JobProgress(app.extensions["worker"].context, RunRecord, run_id, interval=0)("model 1 of 1", 40, "tokens")
    advance(25)
    progress = client.get(f"/runs/{run_id}").text.split('id="progress"', 1)[1].split("</section>", 1)[0]
    assert '<progress id="run-progress" max="40" value="25"></progress>' in progress
    assert '<span id="run-label">model 1 of 1: tokens scored</span> <span id="run-count">25 / 40</span>' in progress


def test_a_cancelled_run_resumes_from_its_page_with_its_settings_and_cached_scores(app, client, tiny_lm_dir):
    _upload_examples(client)
    first = _start(client, tiny_lm_dir)
    assert app.extensions["worker"].run_next()  # fills the score cache
    second = client.post("/runs", data={"suite": ["1"], "other_models": str(tiny_lm_dir), "device": "cpu",
                                        "batch_size": "4", "policy": "first", "limit": "3", "name": "again"})
    run_id = int(second.headers["Location"].rsplit("/", 1)[1])
    client.post(f"/runs/{run_id}/cancel")
    before = _record(app, run_id)
    assert before.status == "cancelled" and run_id != first
    page = client.get(f"/runs/{run_id}").text
    assert f'action="/runs/{run_id}/resume"' in page and 'id="resume"' in page

    assert client.raw.post(f"/runs/{run_id}/resume").status_code in (400, 403)  # no CSRF token: refused
    assert _record(app, run_id).status == "cancelled"
    resumed = client.post(f"/runs/{run_id}/resume")
    assert resumed.status_code == 302 and resumed.headers["Location"].endswith(f"/runs/{run_id}")
    queued = _record(app, run_id)
    assert queued.status == "queued" and not queued.cancel_requested and queued.finished_at is None
    assert (queued.models, queued.settings, queued.name) == (before.models, before.settings, before.name)
    assert queued.version_ids == before.version_ids
    assert "queued again" in client.get(f"/runs/{run_id}").text

    assert app.extensions["worker"].run_next()
    assert _record(app, run_id).status == "done"
    record = json.loads(next(_results(app, run_id).glob("*/run.json")).read_text(encoding="utf-8"))
    assert record["cache"]["misses"] == 0 and record["cache"]["hits"] > 0  # nothing computed again
    assert record["settings"]["policy"] == "first" and record["settings"]["batch_size"] == 4


def test_a_failed_run_resumes_and_a_finished_or_queued_one_cannot(app, client, tiny_lm_dir, tmp_path):
    _upload_examples(client)
    failed = _start(client, tmp_path / "not-yet-there")
    assert app.extensions["worker"].run_next()
    assert _record(app, failed).status == "failed"
    assert 'id="resume"' in client.get(f"/runs/{failed}").text
    (tmp_path / "not-yet-there").symlink_to(tiny_lm_dir)  # the problem mended, the same run goes again
    assert client.post(f"/runs/{failed}/resume").status_code == 302
    assert _record(app, failed).error == ""
    assert app.extensions["worker"].run_next()
    assert _record(app, failed).status == "done"
    assert 'id="resume"' not in client.get(f"/runs/{failed}").text

    refused = client.post(f"/runs/{failed}/resume")
    assert refused.status_code == 400
    assert f"run {failed} is done; only a failed or cancelled one can be resumed" in refused.text
    queued = _start(client, tiny_lm_dir)
    assert "is queued; only a failed or cancelled one" in client.post(f"/runs/{queued}/resume").text
    assert client.post("/runs/999/resume").status_code == 404
    assert client.post(f"/runs/{2**70}/resume").status_code == 404  # beyond the database's integers


def test_model_and_suite_pages_name_the_runs_they_list(app, client, tiny_lm_dir):
    _upload_examples(client)
    run_id = client.post("/runs", data={"suite": ["1"], "other_models": str(tiny_lm_dir), "device": "cpu",
                                        "batch_size": "8", "policy": "all", "name": "<i>baseline</i>"})
    run_id = int(run_id.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    link = f'<a href="/runs/{run_id}" class="run-title">run {run_id} · &lt;i&gt;baseline&lt;/i&gt;</a>'
    assert link in client.get("/model", query_string={"name": str(tiny_lm_dir)}).text
    assert link in client.get("/suites/1").text.split('id="suite-results"', 1)[1]


def _results(app, run_id):
    from linguagym.web.jobs.worker import results_directory

    return results_directory(app.extensions["linguagym"], run_id)
