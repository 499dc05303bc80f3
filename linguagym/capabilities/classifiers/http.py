"""A classifier behind an HTTP endpoint, spoken to with the standard library only.

Teams often serve their model behind a small web service (or a hosted inference API) rather than share the
weights. This adapter POSTs ``{"texts": [...]}`` in batches and reads the answer as ``normalise_output`` does
(labels, p(positive), probability lists, dicts, or the Hugging Face inference-API ``[{"label", "score"}]``
per text), either bare or under ``{"predictions": [...]}``. Endpoints are flaky, so timeouts, dropped
connections, 429 and 5xx are retried with exponential backoff; any other 4xx is our request's fault and is
reported at once. Every error names the URL, the batch (text indexes), what was wrong and the expected shape.

The identity is the URL and what changes the answers (``label_map``, a ``version`` tag of your own), never
the headers (they may hold a token) nor timeouts, retries or batch size.
"""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from linguagym.capabilities.classifiers.base import Classifier, ClassifierError, Prediction
from linguagym.capabilities.classifiers.python_callable import EXPECTED_SHAPES, check_label_map, normalise_outputs

TOKEN_ENV = "LINGUAGYM_HTTP_TOKEN"
REQUEST_SHAPE = '{"texts": ["first text", "second text"]}'
RESPONSE_SHAPE = '{"predictions": ["positive", {"label": "negative", "probabilities": [0.9, 0.05, 0.05]}]}'
_RETRIED_STATUS = {429, 500, 502, 503, 504}


class _Retryable(Exception):
    """A failure worth another try (timeout, dropped connection, 429, 5xx); carries what happened."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.wait = wait


class HTTPClassifier(Classifier):
    """POST ``{"texts": [...]}`` to ``url``, ``batch_size`` texts a request.

    ``timeout``: seconds per request; ``retries``: further tries after a retryable failure, waiting
    ``backoff * 2**n`` seconds (or what a 429's Retry-After asks, at most 60 s); ``headers``: sent with every
    request; an ``Authorization: Bearer $LINGUAGYM_HTTP_TOKEN`` header is added when that variable is set and
    no Authorization header is given.
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
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ClassifierError(f"{url!r} is not an http(s) URL", hint="write http://host:port/path")
        self.url = url
        self.batch_size = 32 if batch_size is None else int(batch_size)
        self.timeout = 30.0 if timeout is None else float(timeout)
        self.retries = 3 if retries is None else int(retries)
        self.backoff = float(backoff)
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

    @property
    def identity(self) -> dict[str, Any]:
        return {"kind": "http", "url": self.url, "label_map": self.label_map, "version": self.version}

    @property
    def name(self) -> str:
        return self.url

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
            answer = json.loads(raw)
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
        failures = []
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(failures[-1][1] if failures[-1][1] is not None else self.backoff * 2 ** (attempt - 1))
            try:
                return self._send(body, where)
            except _Retryable as failure:
                failures.append((str(failure), failure.wait))
        tried = "; ".join(f"try {n + 1}: {reason}" for n, (reason, _) in enumerate(failures))
        raise ClassifierError(
            f"classifier endpoint {self.url} did not answer {where} after {len(failures)} tries ({tried})",
            hint="check that the server is up and reachable; raise timeout= or retries= for a slow server",
        )

    def _send(self, body: bytes, where: str) -> bytes:
        request = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - http(s) only
                return response.read()
        except urllib.error.HTTPError as error:
            detail = error.read()[:300].decode("utf-8", errors="replace").strip()
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
            raise _Retryable(f"timed out after {self.timeout:g} s ({error})") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise _Retryable(f"timed out after {self.timeout:g} s") from None
            raise _Retryable(f"connection failed: {error.reason}") from None
        except (OSError, http.client.HTTPException) as error:  # reset mid-answer, incomplete read
            raise _Retryable(f"connection failed: {error}") from None


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to the exponential backoff
