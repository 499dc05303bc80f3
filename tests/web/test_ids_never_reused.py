"""Numbers are never given twice (on SQLite and PostgreSQL): a deleted suite, run or capability-test file leaves a
410 page saying what was there and when it went, and the next row gets a new number; migrating an older SQLite
database keeps every row and its references."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from linguagym.web import db
from tests.capabilities.lct_fakes import document
from tests.conftest import minimal_suite
from tests.web.conftest import Client


@pytest.fixture
def lab_app(tmp_path, database_url):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "data", database_url, start_worker=False,
                                     cache_dir=tmp_path / "cache"))
    yield app
    app.extensions["sessions"].kw["bind"].dispose()


def _upload(client, name):
    response = client.post("/suites/upload", data={"suite_text": json.dumps(minimal_suite(meta={"name": name}))})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def _finished_run(app, suite_id) -> int:
    with app.extensions["sessions"].begin() as session:
        run = db.RunRecord(status="done", models=["tiny"], settings={}, name="baseline")
        version = session.get(db.SuiteRecord, suite_id).latest
        run.suites = [db.RunSuite(suite_version_id=version.id)]
        session.add(run)
        session.flush()
        return run.id


def test_deleted_suites_and_runs_leave_a_gone_page_and_their_numbers_stay_taken(lab_app):
    client = Client(lab_app)
    first, second = _upload(client, "first"), _upload(client, "second")
    run = _finished_run(lab_app, second)
    assert client.post(f"/runs/{run}/delete").status_code == 302
    assert client.post(f"/suites/{second}/delete").status_code == 302  # the highest number, the one SQLite reused

    gone = client.get(f"/suites/{second}")
    assert gone.status_code == 410
    assert "suite 2 (second) was deleted on" in gone.text
    assert client.get(f"/suites/{second}/download").status_code == 410
    page = client.get(f"/runs/{run}")
    assert page.status_code == 410 and "run 1 (baseline: tiny) was deleted on" in page.text
    assert client.get(f"/api/runs/{run}").json["error"].startswith("run 1 (baseline: tiny) was deleted")
    assert client.get("/suites/99").status_code == 404  # never there: not found, not gone

    third = _upload(client, "third")
    assert third not in (first, second) and third > second
    assert _finished_run(lab_app, third) > run
    assert client.get(f"/suites/{third}").status_code == 200


def test_a_deleted_test_file_leaves_a_gone_page(lab_app):
    client = Client(lab_app)
    body = json.dumps(document()).encode()
    import io

    response = client.post("/capabilities/upload", data={"tests_file": (io.BytesIO(body), "t.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 302, response.text
    file_id = int(response.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    assert client.post(f"/capabilities/files/{file_id}/delete").status_code == 302
    gone = client.get(f"/capabilities/files/{file_id}")
    assert gone.status_code == 410 and f"capability-test file {file_id} (" in gone.text
    assert "was deleted on" in gone.text
    again = client.post("/capabilities/upload", data={"tests_file": (io.BytesIO(body), "t.json")},
                        content_type="multipart/form-data")
    assert int(again.headers["Location"].rstrip("/").rsplit("/", 1)[1]) == file_id + 1


def test_migrating_an_older_sqlite_database_keeps_rows_references_and_indexes(tmp_path):
    engine = db.make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    db.migrate(engine, "0007")
    stamp = "2026-01-02 00:00:00"
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO suites (id, name, created_at, updated_at) VALUES (5, 'old', :t, :t)"),
                           {"t": stamp})
        connection.execute(text("INSERT INTO suite_versions (id, suite_id, number, content, sha256, note, created_at,"
                                " author, item_count, condition_count, region_count, prediction_count)"
                                " VALUES (1, 5, 1, '{}', :h, '', :t, '', 0, 0, 0, 0)"), {"h": "0" * 64, "t": stamp})
        connection.execute(text("INSERT INTO runs (id, status, models, settings, error, progress_done, progress_total,"
                                " progress_label, cancel_requested, created_at) VALUES (9, 'done', '[]', '{}', '', 0,"
                                " 0, '', 0, :t)"), {"t": stamp})
        connection.execute(text("INSERT INTO run_suites (run_id, suite_version_id) VALUES (9, 1)"))
    db.migrate(engine)
    with engine.begin() as connection:
        schema = connection.execute(text("SELECT sql FROM sqlite_master WHERE name = 'runs'")).scalar()
        assert "AUTOINCREMENT" in schema and "owner_id INTEGER REFERENCES users" in schema
        assert connection.execute(text("SELECT count(*) FROM run_suites")).scalar() == 1  # not cascaded away
        assert connection.execute(text("SELECT count(*) FROM suite_versions")).scalar() == 1
        indexes = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master WHERE type='index'"))}
        assert {"ix_runs_status", "ix_runs_owner_id", "ix_suites_owner_id"} <= indexes
        connection.execute(text("DELETE FROM run_suites"))
        connection.execute(text("DELETE FROM runs WHERE id = 9"))
        connection.execute(text("INSERT INTO runs (status, models, settings, error, progress_done, progress_total,"
                                " progress_label, cancel_requested, created_at) VALUES ('done', '[]', '{}', '', 0,"
                                " 0, '', 0, :t)"), {"t": stamp})
        assert connection.execute(text("SELECT max(id) FROM runs")).scalar() == 10  # not 9 again
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1  # on again after migrating
    engine.dispose()
