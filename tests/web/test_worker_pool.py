"""The worker pool (``serve --workers N``): a queued job is claimed by exactly one worker, also by workers of two
servers on one database (SQLite and PostgreSQL); N workers run N jobs at once, one worker one at a time; each
job's CPU threads are a share of the machine; ``--workers`` and ``--executor`` from the command line."""

from __future__ import annotations

import io
import os
import threading

import pytest

from linguagym.suites import example_suite_paths, read_suite
from linguagym.web import db, store
from linguagym.web.capabilities.store import create_generate_job
from linguagym.web.db import CapabilityJob, RunRecord
from linguagym.web.jobs.lifecycle import claim, request_cancel
from linguagym.web.jobs.worker import THREADS_ENV, RunWorker, cpu_share, wait_for


def _queue_runs(sessions, count: int) -> list[int]:
    suite = read_suite(example_suite_paths()[0]).suite
    with sessions.begin() as session:
        version = store.save_suite_version(session, suite).version
        return [store.create_run(session, [f"model-{n}"], [version], {"device": "cpu"}).id for n in range(count)]


def test_claim_takes_a_queued_job_once(database_url, tmp_path):
    sessions = db.open_database(database_url)
    [run_id] = _queue_runs(sessions, 1)
    with sessions.begin() as session:
        assert claim(session, RunRecord, run_id)
    with sessions.begin() as session:
        assert not claim(session, RunRecord, run_id)  # already running: a second worker gets nothing
        run = session.get(RunRecord, run_id)
        assert run.status == "running" and run.started_at is not None and run.progress_label == "starting"
    [cancelled] = _queue_runs(sessions, 1)
    with sessions.begin() as session:
        request_cancel(session.get(RunRecord, cancelled), "stopping")
    with sessions.begin() as session:
        assert not claim(session, RunRecord, cancelled)  # cancelled while queued: never started
    sessions.kw["bind"].dispose()


def test_workers_of_two_servers_never_take_the_same_job(database_url, tmp_path):
    """Eight threads, four on each of two engines (two servers on one database), race for 24 runs and 6 capability
    jobs: each job is claimed exactly once, and every one is claimed."""
    from linguagym.web.config import WebConfig

    engines = [db.open_database(database_url), db.open_database(database_url)]
    run_ids = _queue_runs(engines[0], 24)
    with engines[0].begin() as session:
        job_ids = [create_generate_job(session, {"dataset": "x"}).id for _ in range(6)]
    config = WebConfig.build(tmp_path / "data", database_url, start_worker=False)
    workers = [RunWorker(sessions, config) for sessions in engines]
    start = threading.Barrier(8)
    taken: list[tuple[str, int]] = []
    held, errors = [], []

    def take(worker: RunWorker) -> None:
        try:
            start.wait()
            while (claimed := worker.claim_next()) is not None:
                kind, job_id, lock = claimed
                taken.append((kind.name, job_id))  # (list.append is atomic)
                held.append(lock)
        except BaseException as error:  # reported below, with the thread's failure
            errors.append(error)

    threads = [threading.Thread(target=take, args=(workers[n % 2],)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sorted(taken) == sorted([("run", i) for i in run_ids] + [("capability job", i) for i in job_ids])
    with engines[1]() as session:
        assert {run.status for run in session.query(RunRecord)} == {"running"}
        assert {job.status for job in session.query(CapabilityJob)} == {"running"}
    for lock in held:
        lock.release()
    for worker, sessions in zip(workers, engines, strict=True):
        worker.stop()
        sessions.kw["bind"].dispose()


def test_a_starting_server_queues_again_only_what_no_live_server_runs(database_url, tmp_path):
    """Server A runs run 1; run 2 was left running by a server that died. Server B starting queues run 2 again and
    leaves run 1 to A; once A is gone too (its lock released), run 1 is queued again."""
    from linguagym.web.config import WebConfig

    engines = [db.open_database(database_url), db.open_database(database_url)]
    first, second = _queue_runs(engines[0], 2)
    config = WebConfig.build(tmp_path / "data", database_url, start_worker=False)
    server_a, server_b = (RunWorker(sessions, config) for sessions in engines)
    kind, claimed, lock = server_a.claim_next()
    assert (kind.name, claimed) == ("run", first)
    with engines[0].begin() as session:
        session.get(RunRecord, second).status = "running"  # its server died: nobody holds its lock

    def statuses() -> list[str]:
        with engines[1]() as session:
            return [session.get(RunRecord, i).status for i in (first, second)]

    assert server_b.requeue_orphans() == 1
    assert statuses() == ["running", "queued"]
    _, _, lock_b = server_b.claim_next()  # B takes run 2, and holds its lock
    lock.release()  # server A stops
    assert server_b.requeue_orphans() == 1
    assert statuses() == ["queued", "running"]
    lock_b.release()
    for worker, sessions in zip((server_a, server_b), engines, strict=True):
        worker.stop()
        sessions.kw["bind"].dispose()


def test_a_jobs_lock_file_is_held_while_it_runs_and_deleted_when_it_ends(tmp_path, tiny_lm_dir):
    from linguagym.scoring.registry import load_scorer
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    config = WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=tmp_path / "c")
    folder, seen = config.data_dir / "job-locks", []

    def watching(settings):  # a scorer made inside the job: the job's lock file exists then
        seen.append(sorted(path.name for path in folder.iterdir()))
        return load_scorer(settings.model, device="cpu", score_cache=False)

    app = create_app(config, scorer_factory=watching)
    try:
        client = Client(app)
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(example_suite_paths()[0].read_bytes()),
                                                           "suite.json")}, content_type="multipart/form-data")
        run_id = _queue(client, tiny_lm_dir, 1)
        assert app.extensions["worker"].run_next()
        assert client.get(f"/api/runs/{run_id}").json["status"] == "done"
        assert seen and all(names == [f"runs-{run_id}.lock"] for names in seen)
        assert list(folder.iterdir()) == []
    finally:
        app.extensions["worker"].stop()


def test_a_lock_file_deleted_under_a_waiting_worker_is_not_taken_twice(tmp_path, monkeypatch):
    """Worker B opens the lock file just before its holder A deletes it: B's flock then succeeds on the deleted
    file, so B must see that and lock the file now at the path, which C (opening it afresh) competes for."""
    from linguagym.web.jobs import locks as job_locks

    if job_locks.fcntl is None:
        pytest.skip("no fcntl: file locks are not used here")
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    locks_a, locks_b, locks_c = (job_locks.JobLocks(url, tmp_path) for _ in range(3))
    path = tmp_path / "job-locks" / "runs-7.lock"
    held = locks_a.acquire("runs", 7)
    assert held is not None and path.exists() and locks_b.acquire("runs", 7) is None
    stale = os.open(path, os.O_RDWR)  # B has opened the file, not yet locked it
    held.release()
    assert not path.exists()
    real_open, opened = os.open, []

    def open_once_stale(*args, **kwargs):
        opened.append(args[0])
        return stale if len(opened) == 1 else real_open(*args, **kwargs)

    monkeypatch.setattr(job_locks.os, "open", open_once_stale)
    lock_b = locks_b.acquire("runs", 7)
    monkeypatch.undo()
    assert len(opened) == 2 and lock_b is not None and lock_b.fd != stale  # it tried again on the new file
    assert path.exists() and locks_c.acquire("runs", 7) is None  # one holder only
    lock_b.release()
    assert not path.exists()
    last = locks_c.acquire("runs", 7)
    assert last is not None
    last.release()


class Gate:
    """Holds every scorer that reaches it until released; says how many are held."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.inside = 0
        self.open = False

    def hold(self) -> None:
        with self.condition:
            self.inside += 1
            self.condition.notify_all()
            self.condition.wait_for(lambda: self.open, timeout=120)

    def wait_inside(self, count: int, timeout: float = 90) -> bool:
        with self.condition:
            return self.condition.wait_for(lambda: self.inside >= count, timeout=timeout)

    def release(self) -> None:
        with self.condition:
            self.open = True
            self.condition.notify_all()


def gated_scorers(gate: Gate):
    """A scorer factory: the tiny model, held at the gate before its first texts."""
    from linguagym.scoring.registry import load_scorer

    class Gated:
        def __init__(self, settings):
            self.inner = load_scorer(settings.model, device="cpu", score_cache=False)
            self.identity = self.inner.identity
            self.held = False

        def score(self, texts):
            if not self.held:
                self.held = True
                gate.hold()
            return self.inner.score(texts)

    return Gated


def _start_app(tmp_path, workers: int, gate: Gate):
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    config = WebConfig.build(tmp_path / "d", start_worker=True, cache_dir=tmp_path / "c", workers=workers)
    app = create_app(config, scorer_factory=gated_scorers(gate))
    client = Client(app)
    for path in example_suite_paths():
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(path.read_bytes()), path.name)},
                    content_type="multipart/form-data")
    return app, client


def _queue(client, model, suite: int) -> int:
    response = client.post("/runs", data={"suite": [str(suite)], "other_models": str(model), "device": "cpu",
                                          "batch_size": "8", "policy": "all"})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def test_two_workers_run_two_runs_at_once(tmp_path, tiny_lm_dir, monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    gate = Gate()
    app, client = _start_app(tmp_path, 2, gate)
    try:
        first, second = _queue(client, tiny_lm_dir, 1), _queue(client, tiny_lm_dir, 2)
        assert gate.wait_inside(2), "the second run did not start while the first was scoring"
        assert [client.get(f"/api/runs/{i}").json["status"] for i in (first, second)] == ["running", "running"]
        assert os.environ[THREADS_ENV] == str(cpu_share(2))  # each job: half the CPUs (at least one)
        gate.release()
        sessions = app.extensions["sessions"]
        assert [wait_for(sessions, i).status for i in (first, second)] == ["done", "done"]
        assert client.get(f"/api/runs/{second}").json["done"] > 0  # the progress JSON of each run was kept
    finally:
        gate.release()
        app.extensions["worker"].stop()
    assert THREADS_ENV not in os.environ  # the pool's share is not left behind


def test_one_worker_runs_one_run_at_a_time(tmp_path, tiny_lm_dir, monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    gate = Gate()
    app, client = _start_app(tmp_path, 1, gate)
    try:
        first, second = _queue(client, tiny_lm_dir, 1), _queue(client, tiny_lm_dir, 2)
        assert gate.wait_inside(1)
        # the only worker is held inside the first run: the second cannot have started
        assert [client.get(f"/api/runs/{i}").json["status"] for i in (first, second)] == ["running", "queued"]
        assert THREADS_ENV not in os.environ  # one job at a time: torch's own choice of threads
        gate.release()
        sessions = app.extensions["sessions"]
        done = [wait_for(sessions, i) for i in (first, second)]
        assert [run.status for run in done] == ["done", "done"]
        assert done[1].started_at >= done[0].finished_at
    finally:
        gate.release()
        app.extensions["worker"].stop()


def test_an_operators_thread_count_is_kept(tmp_path, monkeypatch):
    from linguagym.web import WebConfig, create_app

    monkeypatch.setenv(THREADS_ENV, "3")
    app = create_app(WebConfig.build(tmp_path / "d", start_worker=True, workers=4))
    try:
        assert os.environ[THREADS_ENV] == "3"
    finally:
        app.extensions["worker"].stop()
    assert os.environ[THREADS_ENV] == "3"


@pytest.mark.parametrize("workers", [0, 65])
def test_a_pool_size_out_of_range_is_refused(tmp_path, workers):
    from linguagym.errors import ConfigurationError
    from linguagym.web import WebConfig, create_app

    with pytest.raises(ConfigurationError, match=f"`workers` {workers}: jobs at once must be between 1 and 64"):
        create_app(WebConfig.build(tmp_path / "d", start_worker=False, workers=workers))


def _serve_args(*argv):
    import argparse

    from linguagym.cli.serve import add_serve_parser

    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


def test_serve_options_for_jobs(tmp_path):
    from linguagym.executors import ExecutorError

    defaults = _serve_args()
    assert (defaults.workers, defaults.executor, defaults.ray_address) == (1, "local", None)
    chosen = _serve_args("--workers", "3", "--executor", "ray", "--ray-address", "head:6379")
    assert (chosen.workers, chosen.executor, chosen.ray_address) == (3, "ray", "head:6379")
    args = _serve_args("--data-dir", str(tmp_path / "d"), "--ray-address", "10.0.0.1:6379")
    with pytest.raises(ExecutorError, match="`ray_address` and `ray_workers` apply to `executor` ray only"):
        args.func(args)  # refused at start-up, not at the first job


def test_serve_with_executor_ray_scores_a_run_on_a_local_cluster(tmp_path, tiny_lm_dir, monkeypatch):
    """``serve --executor ray`` without an address: the first run starts a local cluster, scores there (its
    run.json says so, as a `linguagym run --executor ray` record does) and the cluster ends with the server."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'linguagym[ray]')")
    import json

    from linguagym.web import WebConfig, create_app
    from linguagym.web.jobs.worker import results_directory
    from tests.web.conftest import Client

    for name in [key for key in os.environ if key.startswith("RAY_")]:
        monkeypatch.delenv(name)
    config = WebConfig.build(tmp_path / "d", start_worker=False, cache_dir=tmp_path / "c", executor="ray")
    app = create_app(config)
    try:
        client = Client(app)
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(example_suite_paths()[0].read_bytes()),
                                                           "suite.json")}, content_type="multipart/form-data")
        run_id = _queue(client, tiny_lm_dir, 1)
        assert app.extensions["worker"].run_next()
        status = client.get(f"/api/runs/{run_id}").json
        assert status["status"] == "done", status["error"]
        [record_path] = results_directory(config, run_id).glob("*/run.json")
        record = json.loads(record_path.read_text())
        assert record["executor"]["name"] == "ray" and record["executor"]["cluster"] == "local"
        assert record["executor"]["shards"] > 0 and record["cache"]["misses"] > 0
        assert ray.is_initialized()  # kept for the next job
    finally:
        app.extensions["worker"].stop()
    assert not ray.is_initialized()  # the local cluster ended with the server
