"""Capability-test storage on SQLite and on a throw-away PostgreSQL server: revision 0003 keeps the data of the
older schema and adds its tables; test files and jobs round-trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from sqlalchemy.orm import sessionmaker

from linguagym.suites import example_suite_paths, read_suite, suite_to_json
from linguagym.web import db, errors, store
from linguagym.web.capabilities import store as capability_store
from linguagym.web.jobs.lifecycle import oldest_queued, requeue_running
from tests.capabilities.lct_fakes import capability_file, document


def test_revision_0003_keeps_suites_and_runs_and_adds_the_capability_tables(database_url):
    engine = db.make_engine(database_url)
    db.migrate(engine, "0002")
    assert "capability_test_files" not in db.table_names(engine)
    suite = read_suite(example_suite_paths()[0]).suite
    content = suite_to_json(suite)
    stamp = datetime(2026, 3, 4, tzinfo=UTC)
    with engine.begin() as connection:  # data written by the 0002 schema
        connection.execute(text("INSERT INTO suites (id, name, created_at, updated_at) VALUES (1, 'kept', :t, :t)"),
                           {"t": stamp})
        connection.execute(text("INSERT INTO suite_versions (id, suite_id, number, content, sha256, note, created_at,"
                                " author, item_count, condition_count, region_count, prediction_count)"
                                " VALUES (1, 1, 1, :c, :h, '', :t, 'me', 5, 2, 3, 1)"),
                           {"c": content, "h": "1" * 64, "t": stamp})
        connection.execute(text("INSERT INTO runs (id, status, models, settings, error, progress_done, progress_total,"
                                " progress_label, cancel_requested, created_at) VALUES (1, 'running', :m, :s, '', 1,"
                                " 9, 'x', :f, :t)"),
                           {"m": json.dumps(["tiny"]), "s": json.dumps({}), "f": False, "t": stamp})
        connection.execute(text("INSERT INTO run_suites (run_id, suite_version_id) VALUES (1, 1)"))
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision() >= "0003"  # later revisions keep it too
    assert {"capability_test_files", "capability_jobs"} <= db.table_names(engine)
    sessions = sessionmaker(engine, expire_on_commit=False)
    with sessions.begin() as session:
        [record] = store.list_suites(session)
        assert record.name == "kept" and record.latest.content == content and record.latest.author == "me"
        run = store.get_run(session, 1)
        assert run.status == "running" and run.suites[0].version.id == 1
        saved = capability_store.save_test_file(session, json.dumps(document()), capability_file(),
                                                name="after the upgrade")
        capability_store.create_test_job(session, saved.record, ["vader"], {"device": "cpu"})
    with sessions() as session:
        [stored] = capability_store.list_test_files(session)
        assert stored.name == "after the upgrade" and capability_store.load_test_file(stored) == capability_file()
        [job] = capability_store.list_jobs(session)
        assert job.test_file.id == stored.id and job.settings == {"device": "cpu", "classifiers": ["vader"]}
    from alembic import command

    with engine.begin() as connection:  # and back: the capability tables go, the rest stays
        command.downgrade(db._alembic_config(connection), "0002")
    assert "capability_jobs" not in db.table_names(engine) and "suites" in db.table_names(engine)
    engine.dispose()


def test_test_files_and_jobs_round_trip(database_url):
    sessions = db.open_database(database_url)
    data = capability_file()
    content = json.dumps(document(), indent=1)
    with sessions.begin() as session:
        first = capability_store.save_test_file(session, content, data, name="  ", note="uploaded")
        again = capability_store.save_test_file(session, content, data, name="other name")
        assert first.created and not again.created and again.record.id == first.record.id
        record = first.record
        assert record.name == "tests" and record.dataset == "fixture" and record.capability_count == 6
        assert (record.seed_count, record.expansion_count) == (9, 7) and record.test_count == 16
        generate = capability_store.create_generate_job(session, {"lcs": "LC2", "dataset": "rotten-tomatoes"})
        test = capability_store.create_test_job(session, record, [" vader", "vader", "textblob "], {})
        assert test.classifiers == ["vader", "textblob"] and generate.kind == "generate"
        with pytest.raises(capability_store.ConfigurationError, match="no classifier chosen"):
            capability_store.create_test_job(session, record, ["  "], {})
    with sessions.begin() as session:
        assert oldest_queued(session, db.CapabilityJob).id == generate.id
        capability_store.get_job(session, generate.id).status = "running"
    with sessions.begin() as session:
        assert requeue_running(session, db.CapabilityJob) == 1  # (the worker's start-up; see test_worker_pool)
        assert capability_store.get_job(session, generate.id).progress_label == "resuming after a restart"
        assert [f.name for f in capability_store.list_test_files(session, "FIX")] == ["tests"]
        with pytest.raises(capability_store.ConfigurationError, match="belongs to 1 job"):
            capability_store.delete_test_file(session, capability_store.get_test_file(session, record.id))
    with sessions() as session:
        with pytest.raises(errors.NotFound):
            capability_store.get_test_file(session, 99)
        with pytest.raises(errors.NotFound):
            capability_store.get_job(session, 99)
    sessions.kw["bind"].dispose()
