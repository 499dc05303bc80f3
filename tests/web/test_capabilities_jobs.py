"""Capability jobs in the background worker: testing a stored file against classifiers (results page, failure table,
chart, examples, files), generating a test file (the library call with the form's settings; a real small
generation), form errors, failures, cancel, and resuming after a restart from the prediction cache."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.settings import ExpansionSettings
from linguagym.progress import begin
from linguagym.web.capabilities.jobs import job_directory
from linguagym.web.db import CapabilityJob
from tests.capabilities.lct_fakes import EXPECTED, capability_file, document
from tests.web.test_capabilities_pages import KEYWORDS, start_test, upload


def _job_id(response) -> int:
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def _job(app, job_id: int) -> CapabilityJob:
    with app.extensions["sessions"]() as session:
        return session.get(CapabilityJob, job_id)


def _wait(app, job_id: int, timeout: float = 60.0) -> CapabilityJob:
    """Poll until the background worker has finished the job (or the time is up)."""
    deadline = time.monotonic() + timeout
    while True:
        job = _job(app, job_id)
        if job.status in ("done", "failed", "cancelled") or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def test_a_test_job_shows_the_failure_table_chart_examples_and_files(app, client):
    upload(client, document())
    job_id = _job_id(start_test(client, ["vader"]))
    assert client.get(f"/api/capabilities/jobs/{job_id}").json["status"] == "queued"
    assert app.extensions["worker"].run_next()
    status = client.get(f"/api/capabilities/jobs/{job_id}").json
    assert status["status"] == "done" and status["error"] == "", status
    assert status["done"] == status["total"] == 16  # unique texts predicted by the last classifier
    page = client.get(f"/capabilities/jobs/{job_id}").text
    table = page[page.index('id="failures"'):page.index("</table>", page.index('id="failures"'))]
    assert f'<th colspan="3" class="group">{KEYWORDS}</th>' in table
    assert '<th colspan="3" class="group">vader</th>' in table
    cells = {}  # capability -> its cells: LC, name, seeds, expansions, then 3 per classifier (vader, keywords)
    for row in table.split("<tr")[3:]:
        found = [re.sub(r"<[^>]+>", " ", c).split() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        cells[found[0][0]] = found
    assert list(cells) == ["LC1", "LC2", "LC3", "LC4", "LC10", "X1", "all"]
    for cid, (seeds, seed_failures, expansions, expansion_failures, after, after_failed) in EXPECTED.items():
        keywords = cells[cid][7:10]  # the keyword rule's numbers, worked out by hand
        assert cells[cid][2:4] == [[str(seeds)], [str(expansions)]]
        assert keywords[0][0] == (f"{100 * seed_failures / seeds:.1f}" if seeds else "-")
        assert keywords[1][0] == (f"{100 * expansion_failures / expansions:.1f}" if expansions else "-")
        assert keywords[2] == ([str(after_failed), "/", str(after)] if after else ["-"])
    assert 'title="1 of 2">50.0' in table  # counts on hover
    assert "A custom &lt;capability&gt;" in table
    assert f"/capabilities/jobs/{job_id}/chart/seeds.svg" in page and "chart/expansions.svg" in page
    chart = client.get(f"/capabilities/jobs/{job_id}/chart/seeds.svg")
    assert chart.status_code == 200 and chart.data.startswith(b"<svg") and b"LC10" in chart.data
    assert "default-src 'none'" in chart.headers["Content-Security-Policy"]
    assert client.get(f"/capabilities/jobs/{job_id}/chart/other.svg").status_code == 400
    # failures: a failing seed and a failing expansion beside its passing seed, the added word marked
    examples = page[page.index('id="examples"'):]
    assert "A bad car." in examples and "A red <mark>good</mark> car." in examples
    assert "<script>alert" not in page and "<b>really</b>" not in page
    # files: the same as `linguagym lct test`
    for name in ("report.html", "results.json", "summary.csv", "vader/tests.csv",
                 "python_tests.capabilities.lct_fakes_keyword_labels/summary.csv"):
        assert f"/capabilities/jobs/{job_id}/files/{name}?download=1" in page
    rows_csv = list(csv.DictReader(io.StringIO(client.get(f"/capabilities/jobs/{job_id}/files/summary.csv").text)))
    assert {r["classifier"] for r in rows_csv} == {KEYWORDS, "vader"}
    record = json.loads(client.get(f"/capabilities/jobs/{job_id}/files/results.json").data)
    assert [c["spec"] for c in record["classifiers"]] == ["vader", KEYWORDS]
    report = client.get(f"/capabilities/jobs/{job_id}/files/report.html")
    assert report.status_code == 200 and "attachment" not in report.headers.get("Content-Disposition", "")
    assert "default-src 'none'" in report.headers["Content-Security-Policy"]
    (job_directory(app.extensions["linguagym"], job_id) / "secret.json").write_text("{}")  # beside the results
    assert client.get(f"/capabilities/jobs/{job_id}/files/../secret.json").status_code == 404
    assert client.get(f"/capabilities/jobs/{job_id}/files/%2e%2e/%2e%2e/%2e%2e/secret_key").status_code == 404
    listing = client.get("/capabilities/jobs").text
    assert f"job {job_id}" in listing and "vader" in listing


def test_test_form_errors_are_messages_and_queue_nothing(app, client):
    none = client.post("/capabilities/jobs/test", data={"other_classifiers": KEYWORDS})
    assert none.status_code == 400 and "no test file chosen" in none.text
    upload(client, document())
    no_classifier = start_test(client, other="")
    assert no_classifier.status_code == 400 and "no classifier chosen" in no_classifier.text
    typo = start_test(client, other="python:tests.capabilities.lct_fakes:no_such_function")
    assert typo.status_code == 400 and "no_such_function" in typo.text and "Traceback" not in typo.text
    assert "unknown device" in start_test(client, device="tpu").text
    assert "batch size must be a whole number" in start_test(client, batch_size="many").text
    assert "at most 8" in start_test(client, other="\n".join(f"python:m{i}:f" for i in range(9))).text
    missing = start_test(client, file_id=7)
    assert missing.status_code == 404 and "there is no capability-test file number 7" in missing.text
    assert not app.extensions["worker"].run_next()


def test_a_classifier_failing_at_run_time_is_reported_and_the_others_kept(app, client, monkeypatch):
    from linguagym.capabilities.classifiers.base import ClassifierError

    def broken(self, texts, progress=None):
        raise ClassifierError("the endpoint went away", hint="try again later")

    upload(client, document())
    both = _job_id(start_test(client, ["vader"]))
    alone = _job_id(start_test(client, ["vader"], other=""))
    monkeypatch.setattr("linguagym.capabilities.classifiers.lexicons.VaderClassifier.predict", broken)
    app.extensions["worker"].run_next()
    job = _job(app, both)
    assert job.status == "done" and "vader: failed after 0 of 16 predictions" in job.error
    page = client.get(f"/capabilities/jobs/{both}").text
    assert "Some classifiers failed" in page and "the endpoint went away" in page
    assert f'<th colspan="3" class="group">{KEYWORDS}</th>' in page and 'class="group">vader<' not in page
    app.extensions["worker"].run_next()
    job = _job(app, alone)
    assert job.status == "failed" and "the endpoint went away" in job.error
    page = client.get(f"/capabilities/jobs/{alone}").text
    assert "The job failed" in page and 'id="failures"' not in page and "Traceback" not in page
    assert "report.html" in page  # the record and the report say what failed, as `lct test` writes them


class FakeGeneration:
    """Stands in for ``pipeline.generate_tests``: records the settings, reports progress, returns a document."""

    def __init__(self, fail: str | None = None, cancel_with=None) -> None:
        self.calls: list = []  # the GenerateSettings of each call
        self.fail, self.cancel_with = fail, cancel_with

    def __call__(self, settings, *, progress, cancelled):
        self.calls.append(settings)
        advance = begin(progress, cancelled, "analysing", 10, "sentences")
        if self.cancel_with is not None:
            self.cancel_with()
        advance(10)
        if self.fail:
            raise CapabilityError(self.fail, hint="check the dataset")
        return capability_file()


def test_a_generate_job_stores_the_test_file_it_made(app, client, monkeypatch):
    fake = FakeGeneration()
    monkeypatch.setattr("linguagym.capabilities.pipeline.generate_tests", fake)
    response = client.post("/capabilities/jobs/generate", data={
        "name": "small <one>", "dataset": "rotten-tomatoes", "lc": ["LC2", "LC4", "LC99"], "max_seeds": "20",
        "seed": "3", "expand": "on", "expand_seeds": "2", "per_seed": "2", "templates": "paper",
        "fills_per_mask": "1", "masked_per_seed": "8", "insertions": "all"})
    job_id = _job_id(response)
    assert app.extensions["worker"].run_next()
    job = _job(app, job_id)
    assert job.status == "done", job.error
    [settings] = fake.calls
    assert settings.dataset == "rotten-tomatoes" and settings.lcs == "LC2,LC4" and settings.max_seeds == 20
    assert settings.seed == 3 and settings.cache_dir == app.extensions["linguagym"].score_cache_dir
    assert settings.templates == "paper" and settings.test_types == ("MFT",)  # no INV/DIR box ticked
    expansion = settings.expansion
    assert expansion.enabled and expansion.settings.seeds_per_capability == 2 and expansion.settings.per_seed == 2
    # the best fill alone from 8 masked sentences a seed, every kind of insertion: as lct generate's flags
    assert (expansion.settings.fills_per_mask, expansion.settings.masked_per_seed) == (1, 8)
    assert expansion.settings.insertions == "all"
    assert job.progress_done == job.progress_total == 10
    page = client.get(f"/capabilities/jobs/{job_id}").text
    assert "Test file made" in page and "small &lt;one&gt;" in page
    assert ("expanding 2 seeds per LC, up to 2 expansions each, 1 fill kept per masked sentence, 8 masked "
            "sentences a seed, all insertions") in " ".join(page.split())
    assert f"/capabilities/files/{job.result_file_id}" in page
    stored = client.get(f"/capabilities/files/{job.result_file_id}/download")
    assert json.loads(stored.data) == document()
    assert "generated by capability job" in client.get("/capabilities").text


def test_generate_form_defaults_and_errors(app, client, monkeypatch):
    form = client.get("/capabilities/jobs").text
    assert 'name="lc" value="LC2" checked' in form and 'name="lc" value="LC3" >' in form
    assert 'name="expand">' in form  # expansion off by default: a quick job
    assert 'name="max_seeds" value="50"' in form  # the paper's 50 seeds per capability; blank for every match
    assert '<option value="repaired" selected>' in form  # the repaired templates by default
    assert "unknown template set &#39;fixed&#39;" in client.post("/capabilities/jobs/generate", data={
        "lc": ["LC2"], "templates": "fixed"}).text
    assert "no capability chosen" in client.post("/capabilities/jobs/generate", data={"lc": []}).text
    assert "must be between 1 and 1000" in client.post("/capabilities/jobs/generate", data={
        "lc": ["LC2"], "per_seed": "5000"}).text
    assert "must be between 1 and 20" in client.post("/capabilities/jobs/generate", data={
        "lc": ["LC2"], "fills_per_mask": "21"}).text  # the paper's 20 at most
    assert "unknown insertion set &#39;nouns&#39;" in client.post("/capabilities/jobs/generate", data={
        "lc": ["LC2"], "insertions": "nouns"}).text
    assert 'name="fills_per_mask" value="" min="1" max="20" placeholder="3"' in form  # blank: the default 3
    assert '<option value="modifiers" selected>' in form
    assert 'name="test_type" value="inv" checked' in form and 'name="test_type" value="dir" checked' in form
    fake = FakeGeneration()
    monkeypatch.setattr("linguagym.capabilities.pipeline.generate_tests", fake)
    job_id = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC5"], "max_seeds": ""}))
    app.extensions["worker"].run_next()
    [settings] = fake.calls
    assert settings.max_seeds is None and not settings.expansion.enabled and settings.dataset == "rotten-tomatoes"
    expanded = _job_id(client.post("/capabilities/jobs/generate", data={
        "lc": ["LC5"], "max_seeds": "50", "expand": "on", "test_type": ["inv", "dir"]}))  # as shown
    app.extensions["worker"].run_next()
    described = " ".join(client.get(f"/capabilities/jobs/{expanded}").text.split())
    assert "expanding all seeds per LC, every valid fill each" in described and "None" not in described
    settings = fake.calls[-1]
    assert settings.max_seeds == 50 and settings.test_types == ("MFT", "INV", "DIR")
    assert settings.expansion.settings == ExpansionSettings()  # blank fields: the library's defaults
    assert _job(app, job_id).status == "done"


def test_a_failed_generation_shows_its_message(app, client, monkeypatch):
    monkeypatch.setattr("linguagym.capabilities.pipeline.generate_tests", FakeGeneration(fail="no such dataset"))
    job_id = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"], "dataset": "csv:/nowhere"}))
    app.extensions["worker"].run_next()
    job = _job(app, job_id)
    assert job.status == "failed" and "no such dataset" in job.error and "check the dataset" in job.error
    assert job.result_file_id is None


def test_cancel_a_queued_job_and_a_running_one(app, client, monkeypatch):
    upload(client, document())
    queued = _job_id(start_test(client))
    assert client.post(f"/capabilities/jobs/{queued}/cancel").status_code == 302
    assert _job(app, queued).status == "cancelled"
    assert not app.extensions["worker"].run_next()

    running = {}

    def ask_to_cancel():  # what the Cancel button does while the job runs
        response = client.post(f"/capabilities/jobs/{running['id']}/cancel", headers={"Accept": "application/json"})
        assert response.json["cancel_requested"]

    monkeypatch.setattr("linguagym.capabilities.pipeline.generate_tests", FakeGeneration(cancel_with=ask_to_cancel))
    running["id"] = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"]}))
    app.extensions["worker"].run_next()
    job = _job(app, running["id"])
    assert job.status == "cancelled" and job.result_file_id is None


def test_a_test_job_survives_a_restart_and_resumes_from_the_prediction_cache(tmp_path):
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    config = WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=tmp_path / "cache",
                             allow_python_classifiers=True)
    first = create_app(config)
    client = Client(first)
    upload(client, document())
    job_id = _job_id(start_test(client))
    first.extensions["worker"].run_next()  # predicts every text into the cache
    with first.extensions["sessions"].begin() as session:  # as if the server had died while the job was going
        job = session.get(CapabilityJob, job_id)
        job.status, job.progress_done = "running", 3
    first.extensions["sessions"].kw["bind"].dispose()

    restarted = create_app(WebConfig.build(tmp_path / "d", start_worker=True, cache_dir=tmp_path / "cache",
                                           allow_python_classifiers=True))
    try:
        job = _wait(restarted, job_id)
        assert job.status == "done", job.error
        record = json.loads((tmp_path / "d" / "capability-jobs" / str(job_id) / "results" / "results.json")
                            .read_text(encoding="utf-8"))
        [entry] = record["classifiers"]
        assert entry["cached_before"] == entry["unique_texts"] == 16
    finally:
        restarted.extensions["worker"].stop()


def test_a_real_small_generation_without_the_network(tmp_path):
    """The real pipeline on a 12-sentence table, with the SentiWordNet asset taken from the user cache."""
    pytest.importorskip("spacy")
    from linguagym.assets import data_asset_path
    from linguagym.capabilities.data.lexicon import DEFAULT_LEXICON
    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.web import WebConfig, create_app
    from tests.capabilities.conftest import RT_ROWS
    from tests.web.conftest import Client

    lexicon = data_asset_path(DEFAULT_LEXICON, resolve_cache_dir())
    if not lexicon.is_file():
        pytest.skip("the SentiWordNet asset is not in the user cache (fetch it with `linguagym lct generate`)")
    cache = tmp_path / "cache"
    (cache / "data").mkdir(parents=True)
    (cache / "data" / lexicon.parent.name).symlink_to(lexicon.parent)
    table = tmp_path / "reviews.tsv"
    labels = {-3.0: "negative", 0.0: "neutral", 3.0: "positive"}
    table.write_text("id\ttext\tlabel\n" + "".join(f"{i}\t{t}\t{labels[r]}\n" for i, r, t in RT_ROWS), "utf-8")
    app = create_app(WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=cache))
    try:
        client = Client(app)
        job_id = _job_id(client.post("/capabilities/jobs/generate", data={
            "dataset": f"tsv:{table}", "lc": ["LC2", "LC9"], "max_seeds": "5"}))
        app.extensions["worker"].run_next()
        job = _job(app, job_id)
        assert job.status == "done", job.error
        with app.extensions["sessions"]() as session:
            from linguagym.web.capabilities.store import get_test_file, load_test_file

            record = get_test_file(session, job.result_file_id)
            generated = load_test_file(record)
            assert record.capability_count == 2 and record.seed_count == len(generated.tests) > 0
            assert record.name == f"{record.dataset} LC2,LC9"
        assert {t.capability for t in generated.tests} <= {"LC2", "LC9"}
        assert "LC9" in client.get(f"/capabilities/files/{job.result_file_id}").text
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


def test_the_induced_grammar_fallback_is_shown_on_the_job_page(app, client, monkeypatch):
    """Without the treebank, ``auto`` falls back to an induced grammar with a warning: the job's page says so (not
    only the server log), with the setting named as the form labels it."""
    from linguagym.capabilities.syntax import grammar, treebank

    class Falling(FakeGeneration):
        def __call__(self, settings, *, progress, cancelled):
            assert grammar.choose_reference("auto") == grammar.INDUCED  # as the pipeline chooses, before its work
            return super().__call__(settings, progress=progress, cancelled=cancelled)

    monkeypatch.setattr(treebank, "default_treebank", lambda: None)
    monkeypatch.setattr("linguagym.capabilities.pipeline.generate_tests", Falling())
    job_id = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"], "expand": "on"}))
    assert app.extensions["worker"].run_next()
    job = _job(app, job_id)
    assert job.status == "done" and job.warnings.startswith("no Penn Treebank sample found")
    page = client.get(f"/capabilities/jobs/{job_id}").text
    assert 'id="job-warnings"' in page and "a reference grammar induced from the dataset" in page
    assert "reference grammar induced chooses the induced grammar" in page  # `reference` as the form names it
    quiet = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"]}))
    monkeypatch.setattr("linguagym.capabilities.pipeline.generate_tests", FakeGeneration())
    assert app.extensions["worker"].run_next()
    assert _job(app, quiet).warnings == "" and 'id="job-warnings"' not in client.get(f"/capabilities/jobs/{quiet}").text
