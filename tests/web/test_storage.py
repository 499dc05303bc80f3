"""Storage on SQLite and on a throw-away PostgreSQL server: migrations keep data, suites and runs round-trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from sqlalchemy.orm import sessionmaker

from linguagym.suites import example_suite_paths, read_suite, suite_to_json
from linguagym.web import db, errors, store
from linguagym.web.jobs.lifecycle import oldest_queued, requeue_running


def _engine(url):
    return db.make_engine(url)


def test_migration_from_the_first_schema_keeps_data(database_url):
    engine = _engine(database_url)
    db.migrate(engine, "0001")
    assert db.current_revision(engine) == "0001"
    content = suite_to_json(read_suite(example_suite_paths()[0]).suite)
    stamp = datetime(2026, 1, 2, tzinfo=UTC)
    with engine.begin() as connection:  # data written by the first schema version
        connection.execute(text("INSERT INTO suites (id, name, created_at, updated_at) VALUES (1, :n, :t, :t)"),
                           {"n": "old suite", "t": stamp})
        connection.execute(text("INSERT INTO suite_versions (id, suite_id, number, content, sha256, note, created_at)"
                                " VALUES (1, 1, 1, :c, :h, 'first', :t)"), {"c": content, "h": "0" * 64, "t": stamp})
        connection.execute(text("INSERT INTO runs (id, status, models, settings, error, progress_done, progress_total,"
                                " progress_label, cancel_requested, created_at) VALUES (1, 'done', :m, :s, '', 5, 5,"
                                " 'done', :f, :t)"),
                           {"m": json.dumps(["tiny"]), "s": json.dumps({"device": "cpu"}), "f": False, "t": stamp})
        connection.execute(text("INSERT INTO run_suites (run_id, suite_version_id) VALUES (1, 1)"))
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision()
    sessions = sessionmaker(engine)
    with sessions() as session:
        [record] = store.list_suites(session)
        suite = read_suite(example_suite_paths()[0]).suite
        assert record.name == "old suite" and record.latest.content == content
        assert record.latest.item_count == len(suite.items)  # backfilled by revision 0002
        assert record.latest.region_count == suite.region_count
        assert record.latest.prediction_count == len(suite.predictions)
        run = store.get_run(session, 1)
        assert run.models == ["tiny"] and run.settings == {"device": "cpu"} and run.suites[0].version.id == 1
    engine.dispose()


def test_suites_versions_search_and_runs(database_url):
    sessions = db.open_database(database_url)
    suites = [read_suite(p).suite for p in example_suite_paths()]
    with sessions.begin() as session:
        first = store.save_suite_version(session, suites[0], note="upload")
        again = store.save_suite_version(session, suites[0])
        assert first.created and not again.created and again.version.number == 1
        for suite in suites[1:]:
            store.save_suite_version(session, suite)
    with sessions() as session:
        assert len(store.list_suites(session)) == len(suites)
        name = suites[1].name
        found = store.list_suites(session, name[2:6].upper())
        assert name in [r.name for r in found]
        assert store.list_suites(session, "no such suite at all") == []
    with sessions.begin() as session:
        record = store.list_suites(session, suites[0].name)[0]
        run = store.create_run(session, ["a", "a", "b"], [record.latest], {"device": "cpu"})
        assert run.models == ["a", "b"]
        run.status = "running"
    with sessions.begin() as session:
        assert requeue_running(session, db.RunRecord) == 1  # (the worker's start-up; see test_worker_pool)
        assert oldest_queued(session, db.RunRecord).id == run.id
        assert store.unfinished_count(session) == 1
        with pytest.raises(store.ConfigurationError, match="used by 1 run"):
            store.delete_suite(session, store.get_suite(session, record.id))
    sessions.kw["bind"].dispose()


def test_missing_suite_and_run_are_not_found(database_url):
    sessions = db.open_database(database_url)
    with sessions() as session:
        with pytest.raises(errors.NotFound):
            store.get_suite(session, 42)
        with pytest.raises(errors.NotFound):
            store.get_run(session, 42)
    sessions.kw["bind"].dispose()


def test_unusable_database_url_is_a_user_error():
    from linguagym.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="database"):
        db.open_database("nosuchdialect://x")
