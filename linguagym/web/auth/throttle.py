"""How fast wrong access tokens and passwords may be tried: a failure count per key (``FailureThrottle``) and
whose failures a sign-in counts against (``token_throttle_key``, ``password_throttle_key`` with its signed device
cookie). One module of its own so that it can change without touching the other checks."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

DEVICE_COOKIE = "linguagym_device"
_DEVICE_SALT = "linguagym-known-device"
_DEVICE_DAYS = 365


def password_throttle_key(client: str, username: str, device_cookie: str | None, secret: str) -> str:
    """Whose wrong passwords a sign-in counts against. A browser that signed in as ``username`` before holds a
    signed device cookie naming it: its attempts count against that device alone, so guesses from anyone else,
    even from the same address (everyone behind a reverse proxy shares one), never lock it out. Other attempts
    count against the address and the account together: guessing one account does not lock out another, and
    wrong passwords do not lock out the access token (``token_throttle_key``)."""
    from itsdangerous import BadSignature, URLSafeTimedSerializer

    if device_cookie:
        try:
            known = URLSafeTimedSerializer(secret, salt=_DEVICE_SALT).loads(device_cookie,
                                                                            max_age=_DEVICE_DAYS * 86400)
        except BadSignature:
            known = None
        if isinstance(known, dict) and known.get("user") == username.lower() and isinstance(known.get("id"), str):
            return f"device:{known['id']}"
    return f"password:{client}:{username.lower()}"


def device_cookie(username: str, secret: str) -> tuple[str, int]:
    """A new device cookie's value for ``username`` (signed, with an id of its own) and its lifetime in seconds."""
    import secrets

    from itsdangerous import URLSafeTimedSerializer

    value = URLSafeTimedSerializer(secret, salt=_DEVICE_SALT).dumps({"user": username.lower(),
                                                                      "id": secrets.token_urlsafe(16)})
    return value, _DEVICE_DAYS * 86400


def token_throttle_key(client: str) -> str:
    """Wrong access tokens count against the address, apart from wrong passwords."""
    return f"token:{client}"


class FailureThrottle:
    """At most ``limit`` failures per ``window`` seconds from one client; further attempts wait.

    In memory: a restart forgets, which is fine for slowing down guessing (a token has ~144 bits).
    """

    def __init__(self, limit: int = 5, window: float = 60.0, *, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 10_000) -> None:
        self.limit, self.window, self.clock, self.max_clients = limit, window, clock, max_clients
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before its next attempt (0: it may try now)."""
        with self._lock:
            if client not in self._failures:
                return 0.0
            recent = self._recent(client)
            if len(recent) < self.limit:
                return 0.0
            return max(0.0, recent[0] + self.window - self.clock())

    def failed(self, client: str) -> None:
        with self._lock:
            if client not in self._failures and len(self._failures) >= self.max_clients:
                self._failures.pop(next(iter(self._failures)))  # the oldest client: bounded memory
            self._recent(client).append(self.clock())

    def _recent(self, client: str) -> deque[float]:
        recent = self._failures.setdefault(client, deque())
        cutoff = self.clock() - self.window
        while recent and recent[0] <= cutoff:
            recent.popleft()
        return recent
