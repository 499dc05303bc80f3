"""Managing runs in the web app: names (escaped), deleting a run (row and folder; its suites can then be deleted),
"Run again" (the form filled from a run), the run form shown again with its error and input, and revision 0004
upgrading a database made by the 0003 schema."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from markupsafe import escape
from sqlalchemy import text

from linguagym.suites import example_suite_paths, read_suite, suite_to_json
from linguagym.web import db, store
from linguagym.web.jobs.worker import run_directory
from linguagym.web.runs.form import values_of_run
from tests.web.test_runs import _start, _upload_examples

NAME = '<b>base</b> & "line"'


def _new_run(client, form: dict) -> int:
    response = client.post("/runs", data={"device": "cpu", "batch_size": "8", "policy": "all", **form})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def _record(app, run_id):
    with app.extensions["sessions"]() as session:
        return session.get(db.RunRecord, run_id)


def test_a_named_run_shows_its_name_escaped_everywhere_and_can_be_renamed(app, client, tiny_lm_dir):
    _upload_examples(client)
    run_id = _new_run(client, {"suite": ["1"], "other_models": str(tiny_lm_dir), "name": f"  {NAME}\x00 "})
    assert app.extensions["worker"].run_next()
    assert _record(app, run_id).name == NAME  # cleaned (NUL dropped) and stripped
    shown = str(escape(NAME))
    page = client.get(f"/runs/{run_id}").text
    assert f"<title>Run {run_id} · {shown} · linguagym</title>" in page
    assert f'<span id="run-name">{shown}</span>' in page
    assert NAME not in page  # never as markup
    assert f'<span class="run-name">{shown}</span>' in client.get("/runs").text
    assert f'<span class="run-name">{shown}</span>' in client.get("/compare").text
    board = client.get("/leaderboard").text
    assert f">{run_id} ({shown})</a>" in board

    assert client.post(f"/runs/{run_id}/name", data={"name": "second try"}).status_code == 302
    assert _record(app, run_id).name == "second try"
    assert "second try" in client.get(f"/runs/{run_id}").text
    assert client.post(f"/runs/{run_id}/name", data={"name": "   "}).status_code == 302
    assert _record(app, run_id).name is None
    assert f"<title>Run {run_id} · linguagym</title>" in client.get(f"/runs/{run_id}").text
    too_long = client.post(f"/runs/{run_id}/name", data={"name": "x" * 201})
    assert too_long.status_code == 400 and "at most 200" in too_long.text
    for url in ("/runs/{}/name", "/runs/{}/delete"):  # ids beyond the database's integers: no such run
        assert client.post(url.format("9" * 40)).status_code == client.post(url.format(run_id + 1)).status_code == 404


def test_deleting_a_run_removes_row_and_folder_and_frees_the_suites_only_it_used(app, client, tiny_lm_dir):
    _upload_examples(client)
    deleted = _start(client, tiny_lm_dir, suites=(1, 2))
    assert app.extensions["worker"].run_next()
    kept = _start(client, tiny_lm_dir, suites=(2,))  # queued: holds suite 2, and cannot be deleted yet
    folder = run_directory(app.extensions["linguagym"], deleted)
    assert (folder / "results" / "report.html").is_file()
    assert 'id="delete-run"' in client.get(f"/runs/{deleted}").text
    assert 'id="delete-run"' not in client.get(f"/runs/{kept}").text

    refused = client.post(f"/runs/{kept}/delete")
    assert refused.status_code == 400 and "cancel it first" in refused.text
    assert _record(app, kept).status == "queued"

    assert client.post(f"/runs/{deleted}/delete").status_code == 302
    assert _record(app, deleted) is None and not folder.exists()
    assert client.get(f"/runs/{deleted}").status_code == 410  # gone, and says so (#41)
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".deleted-")]  # nothing left aside

    still_used = client.post("/suites/2/delete")
    assert still_used.status_code == 400 and f"is used by 1 run(s) ({kept})" in still_used.text
    assert client.get("/suites/2").status_code == 200
    assert client.post("/suites/1/delete").status_code == 302  # only the deleted run used it
    assert client.get("/suites/1").status_code == 410

    client.post(f"/runs/{kept}/cancel")  # a cancelled run can go; then suite 2 is free too
    assert client.post(f"/runs/{kept}/delete").status_code == 302
    assert client.post("/suites/2/delete").status_code == 302


def test_run_again_opens_the_form_filled_with_the_runs_suites_models_and_options(app, client):
    _upload_examples(client)
    form = {"suite": ["1", "3"], "model": "smollm2-135m", "other_models": "/models/a\n/models/b", "device": "cpu",
            "batch_size": "8", "policy": "first", "model_args": "dtype=float32,load_in_8bit=true", "limit": "2",
            "compat": "syntaxgym-core", "name": "the first"}
    first = _new_run(client, form)
    run = client.get(f"/runs/{first}").text
    assert f'href="/runs?from={first}"' in run
    page = client.get("/runs", query_string={"from": first}).text
    side = page.split('id="new-run"', 1)[1]
    assert sorted(re.findall(r'name="suite" value="(\d+)" checked', side)) == ["1", "3"]
    assert re.findall(r'name="model" value="([^"]+)" checked', side) == ["smollm2-135m"]
    assert ">/models/a\n/models/b</textarea>" in side
    for field, value in (("name", "the first"), ("batch_size", "8"), ("limit", "2"),
                         ("model_args", "dtype=float32,load_in_8bit=true")):
        assert re.search(rf'name="{field}" value="{re.escape(value)}"', side), field
    assert '<option selected>cpu</option>' in side and '<option value="first" selected>' in side
    assert '<option selected>syntaxgym-core</option>' in side

    # what the form holds starts the same run again
    with app.extensions["sessions"]() as session:
        values = values_of_run(store.get_run(session, first), ["smollm2-135m"])
    again = _new_run(client, {**{k: v for k, v in vars(values).items() if k not in ("suites", "models")},
                              "suite": [str(s) for s in sorted(values.suites)], "model": values.models})
    original, repeated = _record(app, first), _record(app, again)
    assert (repeated.models, repeated.settings, repeated.name) == (original.models, original.settings, "the first")

    query = client.get("/runs", query_string={"suite": "2", "model": "gemma-3-270m", "device": "cpu"}).text
    assert re.findall(r'name="suite" value="(\d+)" checked', query) == ["2"]
    assert re.findall(r'name="model" value="([^"]+)" checked', query) == ["gemma-3-270m"]
    assert client.get("/runs", query_string={"from": "999"}).status_code == 404


def test_a_refused_run_form_is_shown_again_with_its_error_and_every_field_as_submitted(client):
    _upload_examples(client)
    form = {"suite": ["2"], "model": "gemma-3-270m", "other_models": "/some/model", "device": "cpu",
            "batch_size": "32", "policy": "first", "model_args": "revison=main", "limit": "3", "compat": "",
            "name": "<i>keep</i> me"}
    response = client.post("/runs", data=form)
    assert response.status_code == 400
    page = response.text
    error, rest = page.split('id="run-form-error"', 1)[1].split('id="new-run"', 1)  # the error above the form
    assert "did you mean &#39;revision&#39;?" in error
    assert re.findall(r'name="suite" value="(\d+)" checked', rest) == ["2"]
    assert re.findall(r'name="model" value="([^"]+)" checked', rest) == ["gemma-3-270m"]
    assert ">/some/model</textarea>" in rest and 'name="name" value="&lt;i&gt;keep&lt;/i&gt; me"' in rest
    assert 'name="batch_size" value="32"' in rest and 'name="limit" value="3"' in rest
    assert 'name="model_args" value="revison=main"' in rest and '<option value="first" selected>' in rest
    assert "No runs yet" in page  # nothing was queued
    unknown_suite = client.post("/runs", data={**form, "suite": ["77"], "model_args": ""})
    assert unknown_suite.status_code == 400 and "there is no suite number 77" in unknown_suite.text


def test_revision_0004_upgrades_a_0003_database_keeping_its_runs(database_url, tmp_path):
    from linguagym.web.app import create_app
    from linguagym.web.config import WebConfig

    engine = db.make_engine(database_url)
    db.migrate(engine, "0003")
    stamp = datetime(2026, 5, 6, tzinfo=UTC)
    with engine.begin() as connection:  # a suite and a finished run written by the 0003 schema
        connection.execute(text("INSERT INTO suites (id, name, created_at, updated_at) VALUES (1, 'old', :t, :t)"),
                           {"t": stamp})
        connection.execute(text("INSERT INTO suite_versions (id, suite_id, number, content, sha256, note, created_at,"
                                " author, item_count, condition_count, region_count, prediction_count)"
                                " VALUES (1, 1, 1, :c, :h, '', :t, '', 1, 1, 1, 1)"),
                           {"c": suite_to_json(read_suite(example_suite_paths()[0]).suite), "h": "0" * 64,
                            "t": stamp})
        connection.execute(text("INSERT INTO runs (id, status, models, settings, error, progress_done, progress_total,"
                                " progress_label, cancel_requested, created_at) VALUES (1, 'done', :m, :s, '', 4, 4,"
                                " 'done', :f, :t)"),
                           {"m": json.dumps(["tiny"]), "s": json.dumps({"device": "cpu"}), "f": False, "t": stamp})
        connection.execute(text("INSERT INTO run_suites (run_id, suite_version_id) VALUES (1, 1)"))
    engine.dispose()

    app = create_app(WebConfig.build(tmp_path / "data", database_url, start_worker=False))  # migrates at start-up
    try:
        engine = app.extensions["sessions"].kw["bind"]
        assert db.current_revision(engine) == db.head_revision() >= "0004"
        with app.extensions["sessions"].begin() as session:
            run = store.get_run(session, 1)
            assert run.name is None and run.models == ["tiny"] and run.suites[0].version.suite.name == "old"
            run.name = "named after the upgrade"
        from tests.web.conftest import Client

        client = Client(app)
        assert "named after the upgrade" in client.get("/runs/1").text
        assert "/runs/1" in client.get("/runs").text
    finally:
        app.extensions["worker"].stop()
        app.extensions["sessions"].kw["bind"].dispose()
    with engine.begin() as connection:  # and back: the name goes, the run stays
        from alembic import command

        command.downgrade(db._alembic_config(connection), "0003")
        assert connection.execute(text("SELECT models FROM runs WHERE id = 1")).scalar() is not None
    engine.dispose()
