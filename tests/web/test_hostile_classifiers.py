"""Hostile classifier endpoints cost a test job nothing but their own results (issue 43): a deeply nested answer
and a classifier that fails with a bug are recorded as those classifiers' failures while the others' results are
kept, and Cancel ends a job stuck on an endpoint that never answers within seconds (before: it survived Cancel
and blocked the queue behind it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from linguagym.capabilities.classifiers.lexicons import TextBlobClassifier
from linguagym.capabilities.run import run_classifiers
from linguagym.capabilities.settings import ClassifierOptions
from linguagym.capabilities.testfile import write_tests
from linguagym.web.db import CapabilityJob
from tests.capabilities.lct_fakes import capability_file, document
from tests.web.test_capabilities_pages import KEYWORDS, start_test, upload


def _recursing(self, texts):  # a bug that is not a LinguagymError, as a deeply nested answer once raised
    raise RecursionError("maximum recursion depth exceeded while decoding JSON")


@pytest.fixture
def endpoints() -> Iterator[tuple[str, str, threading.Event]]:
    """(a URL answering JSON nested 100,000 deep, a URL that answers only once released, its release)."""
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers["Content-Length"]))
            if self.path == "/stuck":
                release.wait(120)
            body = b"[" * 100_000 + b"]" * 100_000
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    class Quiet(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the client hung up on a stuck answer: expected here

    httpd = Quiet(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield f"{base}/nested", f"{base}/stuck", release
    release.set()
    httpd.shutdown()
    httpd.server_close()


def _job(app, job_id: int) -> CapabilityJob:
    with app.extensions["sessions"]() as session:
        return session.get(CapabilityJob, job_id)


def test_a_failing_classifier_leaves_the_others_results(tmp_path, endpoints, monkeypatch):
    nested, _, _ = endpoints
    path = tmp_path / "tests.json"
    write_tests(capability_file(), path)
    monkeypatch.setattr(TextBlobClassifier, "predict", _recursing)
    runs = run_classifiers(path, [KEYWORDS, nested, "textblob"],
                           ClassifierOptions(cache_dir=tmp_path / "cache", allow_code=True, retries=0),
                           output=tmp_path / "out")
    kept, deep, buggy = runs
    assert kept.ok and len(kept.outcomes) == 16
    assert "answered JSON nested more than 64 deep" in deep.error
    assert buggy.error.startswith("internal error: RecursionError: maximum recursion depth exceeded")
    assert (tmp_path / "out" / "report.html").is_file()


def test_the_web_job_keeps_the_others_results_and_names_the_failed_ones(app, client, endpoints, monkeypatch):
    nested, _, _ = endpoints
    upload(client, document())
    monkeypatch.setattr(TextBlobClassifier, "predict", _recursing)
    response = start_test(client, ["vader", "textblob"], other=f"{KEYWORDS}\n{nested}")
    job_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    job = _job(app, job_id)
    assert job.status == "done" and job.result_file_id is None
    assert f"{nested}: failed after 0 of 16 predictions" in job.error and "nested more than 64 deep" in job.error
    assert "textblob: failed after 0 of 16" in job.error and "internal error: RecursionError" in job.error
    page = client.get(f"/capabilities/jobs/{job_id}").text
    assert '<th colspan="3" class="group">vader</th>' in page  # the others' results are shown


def test_cancel_ends_a_job_stuck_on_an_endpoint_within_seconds(app, client, endpoints):
    _, stuck, release = endpoints
    upload(client, document())
    job_id = int(start_test(client, [], other=stuck).headers["Location"].rsplit("/", 1)[1])
    worker = threading.Thread(target=app.extensions["worker"].run_next, daemon=True)
    worker.start()
    deadline = time.monotonic() + 30
    while _job(app, job_id).status != "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the request is sent and waiting (the endpoint holds it for up to 120 s; the timeout is 30 s)
    asked = time.monotonic()
    assert client.post(f"/capabilities/jobs/{job_id}/cancel").status_code == 302
    worker.join(timeout=10)
    took = time.monotonic() - asked
    release.set()
    assert not worker.is_alive(), "the job did not end within 10 s of Cancel"
    assert _job(app, job_id).status == "cancelled" and took < 5
