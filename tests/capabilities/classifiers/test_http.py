"""The HTTP adapter against a small local server whose behaviour each test scripts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.capabilities.classifiers.http import HTTPClassifier

TEXTS = [f"{'good' if i % 2 else 'bad'} sentence {i}" for i in range(10)]


def labels(texts: list[str]) -> list[str]:
    return ["positive" if "good" in text else "negative" for text in texts]


@dataclass
class Answer:
    status: int = 200
    body: Any = None  # JSON-able, or bytes sent as they are
    delay: float = 0.0
    trickle: float = 0.0  # > 0: the whole answer, status line and headers too, one byte every this many seconds
    repeat: int = 1  # the body sent this many times, with no Content-Length (a stream ended by closing)


@dataclass
class Server:
    url: str
    script: Callable[[int, list[str]], Answer]
    received: list[list[str]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server("", lambda n, texts: Answer(body={"predictions": labels(texts)}))
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["texts"]
            with lock:
                state.received.append(texts)
                state.headers.append(dict(self.headers))
                number = len(state.received)
            answer = state.script(number, texts)
            time.sleep(answer.delay)
            body = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
            if answer.trickle:
                whole = (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % len(body) + body)
                for byte in whole:
                    self.wfile.write(bytes([byte]))
                    time.sleep(answer.trickle)
                return
            if answer.repeat > 1:
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                for _ in range(answer.repeat):
                    self.wfile.write(body)
                self.close_connection = True
                return
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    class Quiet(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the client gave up on a slow answer: expected here

    httpd = Quiet(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/classify"
    yield state
    httpd.shutdown()
    httpd.server_close()


def client(server: Server, **options: Any) -> HTTPClassifier:
    options = {"batch_size": 4, "timeout": 2.0, "retries": 3, "backoff": 0.01, **options}
    return HTTPClassifier(server.url, **options)


@pytest.mark.parametrize(
    "shape",
    [
        lambda texts: {"predictions": labels(texts)},
        lambda texts: labels(texts),  # a bare list
        lambda texts: [0.9 if label == "positive" else 0.1 for label in labels(texts)],
        lambda texts: [{"label": label, "probabilities": [0.1, 0.1, 0.8] if label == "positive" else [0.8, 0.1, 0.1]}
                       for label in labels(texts)],  # fmt: skip
        lambda texts: [  # the Hugging Face inference API
            [{"label": label.upper(), "score": 0.95}, {"label": "NEGATIVE" if label == "positive" else "POSITIVE",
                                                        "score": 0.05}]  # fmt: skip
            for label in labels(texts)
        ],
    ],
    ids=["predictions", "bare-list", "p-positive", "dicts", "hf-inference"],
)
def test_good_answers_in_several_shapes(server: Server, shape) -> None:
    server.script = lambda n, texts: Answer(body=shape(texts))
    classifier = client(server)
    predictions = classifier.predict(TEXTS)
    assert [p.label for p in predictions] == labels(TEXTS)
    assert server.received == [TEXTS[0:4], TEXTS[4:8], TEXTS[8:10]]


def test_slow_answer_times_out_then_succeeds_on_retry(server: Server) -> None:
    server.script = lambda n, texts: Answer(body=labels(texts), delay=1.0 if n == 1 else 0.0)
    classifier = client(server, timeout=0.25)
    assert [p.label for p in classifier.predict(TEXTS[:3])] == labels(TEXTS[:3])
    assert len(server.received) == 2 and classifier.requests == 2


def test_500_then_good(server: Server) -> None:
    server.script = lambda n, texts: Answer(500, {"error": "busy"}) if n <= 2 else Answer(body=labels(texts))
    classifier = client(server)
    assert [p.label for p in classifier.predict(TEXTS[:4])] == labels(TEXTS[:4])
    assert len(server.received) == 3


def test_always_500_reports_after_the_retries(server: Server) -> None:
    server.script = lambda n, texts: Answer(503, {"error": "down"})
    with pytest.raises(ClassifierError, match="did not answer texts 0-3 of 4 .* after 3 tries") as info:
        client(server, retries=2).predict(TEXTS[:4])
    assert server.url in str(info.value) and "HTTP 503" in str(info.value)
    assert len(server.received) == 3


def test_429_is_retried_but_other_4xx_is_not(server: Server) -> None:
    server.script = lambda n, texts: Answer(429, {}) if n == 1 else Answer(body=labels(texts))
    assert len(client(server).predict(TEXTS[:2])) == 2
    server.received.clear()
    server.script = lambda n, texts: Answer(422, {"detail": "texts must be strings"})
    with pytest.raises(ClassifierError, match="refused texts 0-1 of 2 .*: HTTP 422") as info:
        client(server).predict(TEXTS[:2])
    assert "texts must be strings" in str(info.value)
    assert len(server.received) == 1


def test_malformed_json(server: Server) -> None:
    server.script = lambda n, texts: Answer(body=b"<html>oops</html>")
    with pytest.raises(ClassifierError, match="malformed JSON for texts 0-3 of 6") as info:
        client(server).predict(TEXTS[:6])
    message = str(info.value)
    assert server.url in message and "<html>oops" in message
    assert '{"predictions": [' in message  # the expected shape is shown


def test_wrong_number_of_predictions_names_the_batch(server: Server) -> None:
    server.script = lambda n, texts: Answer(body=labels(texts)[:-1] if n == 2 else labels(texts))
    with pytest.raises(ClassifierError, match="answered 3 predictions for 4 texts \\(texts 4-7\\)") as info:
        client(server).predict(TEXTS)
    assert server.url in str(info.value) and "one item per text" in str(info.value)


def test_unknown_label_names_the_text_and_suggests_label_map(server: Server) -> None:
    server.script = lambda n, texts: Answer(body={"predictions": ["LABEL_1"] * len(texts)})
    with pytest.raises(ClassifierError, match="text 0: unknown label 'LABEL_1'") as info:
        client(server).predict(TEXTS[:2])
    assert "label_map" in str(info.value)
    mapped = client(server, label_map={"LABEL_0": "negative", "LABEL_1": "positive"})
    assert {p.label for p in mapped.predict(TEXTS[:2])} == {"positive"}


def test_object_without_predictions(server: Server) -> None:
    server.script = lambda n, texts: Answer(body={"results": labels(texts)})
    with pytest.raises(ClassifierError, match="without 'predictions'.*keys: results"):
        client(server).predict(TEXTS[:2])


def test_token_from_the_environment_is_sent_but_not_in_the_identity(server: Server, monkeypatch) -> None:
    monkeypatch.setenv("LINGUAGYM_HTTP_TOKEN", "s3cret")
    classifier = client(server, headers={"X-Team": "lg"})
    classifier.predict(TEXTS[:1])
    assert server.headers[0]["Authorization"] == "Bearer s3cret"
    assert server.headers[0]["X-Team"] == "lg"
    assert "s3cret" not in json.dumps(classifier.identity)
    assert classifier.identity == client(server, timeout=9, batch_size=1).identity


def test_unreachable_server_is_retried_then_reported() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    classifier = HTTPClassifier(f"http://127.0.0.1:{port}/x", retries=1, backoff=0.01, timeout=1)
    with pytest.raises(ClassifierError, match="after 2 tries.*connection failed"):
        classifier.predict(["a"])


def test_cache_keeps_finished_batches_and_resends_only_the_rest(server: Server, tmp_path) -> None:
    server.script = lambda n, texts: Answer(500, {}) if n >= 3 else Answer(body=labels(texts))
    cached = CachedClassifier(client(server, retries=1), tmp_path, chunk_size=4)
    with pytest.raises(ClassifierError, match="texts 0-1 of 2 \\(the first: 'bad sentence 8'\\) after 2 tries"):
        cached.predict(TEXTS)  # indexes count within the call the cache made
    cached.close()
    assert server.received[:2] == [TEXTS[0:4], TEXTS[4:8]]
    assert cached.missing(TEXTS) == TEXTS[8:]

    server.received.clear()
    server.script = lambda n, texts: Answer(body=labels(texts))  # healed
    again = CachedClassifier(client(server), tmp_path, chunk_size=4)
    assert [p.label for p in again.predict(TEXTS)] == labels(TEXTS)
    assert server.received == [TEXTS[8:]]
    again.close()


def test_a_trickling_endpoint_ends_at_the_total_deadline(server: Server) -> None:
    """A byte every 0.2 s never trips a 1 s socket timeout (each byte restarts it); the try's deadline ends it.
    Before: still running at 150 s (a byte every 2 s, timeout 5). The answer would take 20 s to arrive."""
    server.script = lambda n, texts: Answer(body={"predictions": labels(texts)}, trickle=0.2)
    classifier = client(server, timeout=1.0, retries=1, batch_size=10)
    started = time.monotonic()
    with pytest.raises(ClassifierError, match=r"after 2 tries \(try 1: no whole answer within 1 s; try 2: no whole"):
        classifier.predict(TEXTS)
    assert time.monotonic() - started < 4  # two tries of 1 s and a backoff of 0.01 s, with room for a busy CI


def test_a_huge_answer_is_refused_at_the_size_cap(server: Server) -> None:
    """A 600 MB answer took 1.95 GB to read; now the read stops at the cap, streamed or announced."""
    block = b" " * 2**16
    server.script = lambda n, texts: Answer(body=block, repeat=64)  # 4 MiB with no Content-Length
    classifier = client(server, max_response_bytes=2**20, retries=0)
    with pytest.raises(ClassifierError, match="answered more than 1,048,576 bytes for texts 0-3"):
        classifier.predict(TEXTS[:4])
    server.script = lambda n, texts: Answer(body=b" " * (2**20 + 1))  # announced by Content-Length
    with pytest.raises(ClassifierError, match="answered more than 1,048,576 bytes"):
        classifier.predict(TEXTS[:4])
    server.script = lambda n, texts: Answer(body={"predictions": labels(texts)})
    assert [p.label for p in classifier.predict(TEXTS[:4])] == labels(TEXTS[:4])  # an answer under the cap reads


def test_a_deeply_nested_answer_is_a_clear_error_not_recursion(server: Server) -> None:
    depth = 100_000
    server.script = lambda n, texts: Answer(body=b"[" * depth + b"]" * depth)
    with pytest.raises(ClassifierError, match=r"answered JSON nested more than 64 deep for texts 0-3 .*line 1"):
        client(server, retries=0).predict(TEXTS[:4])
