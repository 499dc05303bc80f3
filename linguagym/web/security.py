"""The checks that keep a forged request out: which ``Host`` the server answers for, whether a change came from
one of its own pages (``Origin``/``Referer``), where a login may send the browser next, and how fast wrong tokens
may be tried.

Why the ``Host`` check matters even on 127.0.0.1: a page on ``attacker.example`` can make its own name resolve to
127.0.0.1 (DNS rebinding); the browser then treats the local server as that page's own origin and lets it read
pages, tokens included. The browser still sends ``Host: attacker.example``, so answering only for the names the
server was started for closes that door. A browser never lets a page set ``Host`` itself.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD_ADDRESSES = frozenset({"0.0.0.0", "::", ""})


def split_host(value: str) -> tuple[str, int | None] | None:
    """``Host`` header ``value`` as (lower-case name, port or None); None when it is not a host[:port]."""
    value = value.strip().lower()
    if value.startswith("["):  # [IPv6]:port
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif value.count(":") == 1:
        name, port_text = value.split(":")
    elif ":" in value:  # a bare IPv6 address is not a valid Host header
        return None
    else:
        name, port_text = value, None
    if not name or any(c.isspace() or c in "/\\@?#" for c in name):
        return None
    if port_text is None:
        return name, None
    if not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5 and 0 < int(port_text) < 65536):
        return None
    return name, int(port_text)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostPolicy:
    """The ``Host`` values a server answers for.

    The loopback names with the server's port; the address it binds (any IP literal when it binds all
    addresses: a rebinding attack needs a name, never an IP literal); and each ``allowed`` entry, ``name``
    (any port, as behind a reverse proxy) or ``name:port``. ``port`` None (a test client, or a server whose port
    is not known) skips the port check of the loopback names.
    """

    def __init__(self, bound: str, port: int | None, allowed: Iterable[str] = ()) -> None:
        self.port = port
        self.bound = bound.strip("[]").lower()
        self.names = set(LOOPBACK_NAMES)
        if self.bound not in WILDCARD_ADDRESSES:
            self.names.add(self.bound)
        self.extra: set[tuple[str, int | None]] = set()
        for entry in allowed:
            parsed = split_host(entry)
            if parsed is None:
                raise ValueError(f"allowed_hosts: {entry!r} is not a host name, host:port or [IPv6]:port")
            self.extra.add(parsed)

    def allows(self, header: str) -> bool:
        parsed = split_host(header)
        if parsed is None:
            return False
        name, port = parsed
        if (name, port) in self.extra or (name, None) in self.extra:
            return True
        if name not in self.names and not (self.bound in WILDCARD_ADDRESSES and _is_ip(name)):
            return False
        return self.port is None or (port if port is not None else 80) == self.port


_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def same_origin(url: str, host: str) -> bool:
    """Whether ``url`` (an ``Origin`` or ``Referer`` value) is on this server, reached as ``host``."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc or "@" in parts.netloc:
        return False
    netloc = parts.netloc.lower().removesuffix(_DEFAULT_PORTS[parts.scheme])
    return netloc == host.strip().lower().removesuffix(_DEFAULT_PORTS[parts.scheme])


def forged_origin(origin: str | None, referer: str | None, host: str) -> str | None:
    """Why a state-changing request looks sent by another site (None when it does not).

    Browsers send ``Origin`` with every cross-site POST; ``Referer`` is the fallback of older ones. A request
    with neither (a script with the bearer token) is left to the CSRF token and the access token.
    """
    if origin is not None:
        if origin.strip().lower() == "null":
            return "it came from a page with no origin (a sandboxed frame, a file or a redirect)"
        if not same_origin(origin, host):
            return f"it came from another site ({origin[:200]!r}), not from this server's pages"
        return None
    if referer and not same_origin(referer, host):
        return "its Referer is a page of another site"
    return None


def safe_next(target: str | None) -> str | None:
    """``target`` when it is a path on this site (``/runs/3?x=1``); None for anything that could leave it
    (``//evil.example``, ``/\\evil.example``, ``https://...``, ``javascript:``)."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return None
    if any(c in target for c in "\\\r\n\t") or any(ord(c) < 32 or ord(c) == 127 for c in target):
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else None


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
