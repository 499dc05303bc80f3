"""A classifier behind an HTTP endpoint, spoken to with the standard library only.

Teams often serve their model behind a small web service (or a hosted inference API) rather than share the
weights. This adapter POSTs ``{"texts": [...]}`` in batches and reads the answer as ``normalise_output`` does
(labels, p(positive), probability lists, dicts, or the Hugging Face inference-API ``[{"label", "score"}]``
per text), either bare or under ``{"predictions": [...]}``. Endpoints are flaky, so timeouts, dropped
connections, 429 and 5xx are retried with exponential backoff; any other 4xx is our request's fault and is
reported at once. Every error names the URL, the batch (text indexes), what was wrong and the expected shape.

Endpoints may also be hostile or broken, so each try has a total deadline (``timeout``: connecting, headers and
body together; a socket timeout alone restarts with every byte, and an endpoint sending a byte every 2 s never
ended), an answer is read to at most ``max_response_bytes``, and JSON nested deeper than ``strict_json.MAX_DEPTH``
is refused before decoding (``json`` would raise RecursionError).

The identity is the URL and what changes the answers (``label_map``, a ``version`` tag of your own), never
the headers (they may hold a token) nor timeouts, retries or batch size.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from linguagym.capabilities.classifiers.base import Classifier, ClassifierError, Prediction
from linguagym.capabilities.classifiers.python_callable import EXPECTED_SHAPES, check_label_map, normalise_outputs
from linguagym.errors import Cancelled
from linguagym.progress import IsCancelled
from linguagym.strict_json import MAX_DEPTH, nesting_problem

TOKEN_ENV = "LINGUAGYM_HTTP_TOKEN"
REQUEST_SHAPE = '{"texts": ["first text", "second text"]}'
RESPONSE_SHAPE = '{"predictions": ["positive", {"label": "negative", "probabilities": [0.9, 0.05, 0.05]}]}'
_RETRIED_STATUS = {429, 500, 502, 503, 504}
MAX_RESPONSE_BYTES = 64 * 2**20  # 32 texts' predictions are a few kB; a 600 MB answer took 2 GB to read
_BLOCK = 1 << 16


_POLL = 0.25  # seconds between two looks at a cancel request while a try waits


class _Deadline:
    """Cuts the sockets of one try when its time is up or cancelling is asked for: ``shutdown`` wakes a ``recv``
    blocked in another thread, so a trickling endpoint ends at the deadline however it spaces its bytes (headers
    included), and Cancel ends a stuck request within a fraction of a second."""

    def __init__(self, seconds: float, cancelled: IsCancelled | None = None) -> None:
        self.expired = self.cancelled = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._watcher = threading.Thread(target=self._watch, args=(time.monotonic() + seconds, cancelled),
                                         name="linguagym-http-deadline", daemon=True)
        self._watcher.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired or self.cancelled:
                _shut(sock)

    def _watch(self, end: float, cancelled: IsCancelled | None) -> None:
        while not self._done.wait(max(0.0, min(_POLL, end - time.monotonic()))):
            stop = _asked(cancelled)
            if stop or time.monotonic() >= end:
                with self._lock:
                    self.cancelled, self.expired = stop, not stop
                    for sock in self._sockets:
                        _shut(sock)
                return

    def close(self) -> None:
        self._done.set()


def _asked(cancelled: IsCancelled | None) -> bool:
    """Whether cancelling was asked for; a callback that fails counts as no (the deadline still holds)."""
    if cancelled is None:
        return False
    try:
        return bool(cancelled())
    except Cancelled:
        return True
    except Exception:  # noqa: BLE001 - e.g. the job's database briefly unreachable
        return False


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # closed already
        sock.shutdown(socket.SHUT_RDWR)


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener (proxies, redirects and TLS as usual) whose connections ``deadline`` watches."""

    class Connection(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    class SecureConnection(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    class Handler(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(Connection, req)

    class SecureHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(SecureConnection, req, context=self._context)  # type: ignore[attr-defined]  # typeshed omits it

    return urllib.request.build_opener(Handler(), SecureHandler())


class _Retryable(Exception):
    """A failure worth another try (timeout, dropped connection, 429, 5xx); carries what happened."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.wait = wait


class HTTPClassifier(Classifier):
    """POST ``{"texts": [...]}`` to ``url``, ``batch_size`` texts a request.

    ``timeout``: seconds a try may take in all (connecting, headers, body); ``retries``: further tries after a
    retryable failure, waiting ``backoff * 2**n`` seconds (or what a 429's Retry-After asks, at most 60 s);
    ``headers``: sent with every request; an ``Authorization: Bearer $LINGUAGYM_HTTP_TOKEN`` header is added
    when that variable is set and no Authorization header is given. ``max_response_bytes``: the longest answer
    read (64 MiB).
    """

    def __init__(
        self,
        url: str,
        *,
        batch_size: int | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        backoff: float = 0.5,
        headers: Mapping[str, str] | None = None,
        label_map: Mapping[str, str] | None = None,
        version: str | None = None,
        max_response_bytes: int | None = None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ClassifierError(f"{url!r} is not an http(s) URL", hint="write http://host:port/path")
        self.url = url
        self.batch_size: int = 32 if batch_size is None else int(batch_size)
        self.timeout = 30.0 if timeout is None else float(timeout)
        self.retries = 3 if retries is None else int(retries)
        self.backoff = float(backoff)
        self.max_response_bytes = MAX_RESPONSE_BYTES if max_response_bytes is None else int(max_response_bytes)
        if self.batch_size < 1 or self.timeout <= 0 or self.retries < 0 or self.backoff < 0:
            raise ClassifierError(
                f"bad HTTP classifier settings: batch_size={self.batch_size}, timeout={self.timeout}, "
                f"retries={self.retries}, backoff={self.backoff}",
                hint="batch_size >= 1, timeout > 0 seconds, retries >= 0, backoff >= 0",
            )
        self.headers = {"Content-Type": "application/json", "Accept": "application/json", **dict(headers or {})}
        token = os.environ.get(TOKEN_ENV)
        if token and not any(key.lower() == "authorization" for key in self.headers):
            self.headers["Authorization"] = f"Bearer {token}"
        self.label_map = check_label_map(label_map)
        self.version = version
        self.requests = 0  # HTTP requests sent, retries included
        self._cancelled: IsCancelled | None = None

    @property
    def identity(self) -> dict[str, Any]:
        return {"kind": "http", "url": self.url, "label_map": self.label_map, "version": self.version}

    @property
    def name(self) -> str:
        return self.url

    def stop_when(self, cancelled: IsCancelled | None) -> None:
        self._cancelled = cancelled

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        texts = list(texts)
        predictions: list[Prediction] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            predictions += self._batch(batch, start, len(texts))
        return predictions

    def _batch(self, batch: list[str], start: int, total: int) -> list[Prediction]:
        # indexes count within this call (a cache sends only its missing texts), so name the first text too
        where = f"texts {start}-{start + len(batch) - 1} of {total} (the first: {batch[0][:40]!r})"
        body = json.dumps({"texts": batch}).encode("utf-8")
        raw = self._post(body, where)
        try:
            text = raw.decode("utf-8-sig")
            if too_deep := nesting_problem(text):
                raise ClassifierError(
                    f"classifier endpoint {self.url} answered JSON nested more than {MAX_DEPTH} deep for {where} "
                    f"({too_deep.location})", hint=f"answer JSON such as {RESPONSE_SHAPE}")
            answer = json.loads(text)
        except ValueError as error:
            excerpt = raw[:200].decode("utf-8", errors="replace")
            raise ClassifierError(
                f"classifier endpoint {self.url} answered malformed JSON for {where} ({error}); "
                f"the answer began {excerpt!r}",
                hint=f"answer JSON such as {RESPONSE_SHAPE} to a request {REQUEST_SHAPE}",
            ) from None
        if isinstance(answer, Mapping):
            if "predictions" not in answer:
                raise ClassifierError(
                    f"classifier endpoint {self.url} answered an object without 'predictions' for {where} "
                    f"(keys: {', '.join(sorted(map(str, answer))) or 'none'})",
                    hint=f"answer {RESPONSE_SHAPE}, or a bare list; " + EXPECTED_SHAPES,
                )
            answer = answer["predictions"]
        return normalise_outputs(
            answer, len(batch), where=f"classifier endpoint {self.url}", label_map=self.label_map, first_index=start
        )

    def _post(self, body: bytes, where: str) -> bytes:
        failures: list[tuple[str, float | None]] = []  # (reason, the wait the server asked for)
        for attempt in range(self.retries + 1):
            if attempt:
                self._pause(failures[-1][1] if failures[-1][1] is not None else self.backoff * 2 ** (attempt - 1))
            try:
                return self._send(body, where)
            except _Retryable as failure:
                failures.append((str(failure), failure.wait))
        tried = "; ".join(f"try {n + 1}: {reason}" for n, (reason, _) in enumerate(failures))
        raise ClassifierError(
            f"classifier endpoint {self.url} did not answer {where} after {len(failures)} tries ({tried})",
            hint="check that the server is up and reachable; raise timeout= or retries= for a slow server",
        )

    def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, looking at the cancel request meanwhile."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if _asked(self._cancelled):
                raise Cancelled("cancelled")
            time.sleep(min(_POLL, left))

    def _send(self, body: bytes, where: str) -> bytes:
        request = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        self.requests += 1
        deadline = _Deadline(self.timeout, self._cancelled)
        try:
            with _opener(deadline).open(request, timeout=self.timeout) as response:
                return self._read(response, where, deadline)
        except urllib.error.HTTPError as error:
            if deadline.cancelled:
                raise Cancelled("cancelled") from None
            if deadline.expired:
                raise _Retryable(f"no whole answer within {self.timeout:g} s") from None
            detail = error.read(300).decode("utf-8", errors="replace").strip()
            if error.code in _RETRIED_STATUS:
                raise _Retryable(f"HTTP {error.code}", _retry_after(error) if error.code == 429 else None) from None
            hint = f"the endpoint must accept POST {REQUEST_SHAPE} with Content-Type application/json"
            if error.code in (401, 403):
                hint = f"set {TOKEN_ENV} to a valid token (sent as 'Authorization: Bearer ...'), or pass headers="
            raise ClassifierError(
                f"classifier endpoint {self.url} refused {where}: HTTP {error.code} {error.reason}"
                + (f": {detail}" if detail else ""),
                hint=hint,
            ) from None
        except TimeoutError as error:
            if deadline.cancelled:
                raise Cancelled("cancelled") from None
            raise _Retryable(f"timed out after {self.timeout:g} s ({error})") from None
        except urllib.error.URLError as error:
            if deadline.cancelled:
                raise Cancelled("cancelled") from None
            if deadline.expired or isinstance(error.reason, TimeoutError):
                raise _Retryable(f"no whole answer within {self.timeout:g} s") from None
            raise _Retryable(f"connection failed: {error.reason}") from None
        except (OSError, http.client.HTTPException) as error:  # reset mid-answer, incomplete read
            if deadline.cancelled:
                raise Cancelled("cancelled") from None
            if deadline.expired:
                raise _Retryable(f"no whole answer within {self.timeout:g} s") from None
            raise _Retryable(f"connection failed: {error}") from None
        finally:
            deadline.close()

    def _read(self, response: http.client.HTTPResponse, where: str, deadline: _Deadline) -> bytes:
        """The answer's body, at most ``max_response_bytes``; the deadline ends a trickle."""
        too_long = ClassifierError(
            f"classifier endpoint {self.url} answered more than {self.max_response_bytes:,} bytes for {where}",
            hint="an answer holds one prediction per text; check the endpoint, or lower batch_size=")
        length = response.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > self.max_response_bytes:
            raise too_long
        blocks, size = [], 0
        while block := response.read1(_BLOCK):
            size += len(block)
            if size > self.max_response_bytes:
                raise too_long
            blocks.append(block)
        if deadline.cancelled:
            raise Cancelled("cancelled")
        if deadline.expired:  # the cut socket looks like the end of the answer
            raise _Retryable(f"no whole answer within {self.timeout:g} s")
        return b"".join(blocks)


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to the exponential backoff
