"""The checks that keep a forged request out: which ``Host`` the server answers for, whether a change came from
one of its own pages (``Origin``/``Referer``), and where a login may send the browser next. (How fast wrong
tokens and passwords may be tried is ``throttle``; the checks run on every request in ``gate``.)

Why the ``Host`` check matters even on 127.0.0.1: a page on ``attacker.example`` can make its own name resolve to
127.0.0.1 (DNS rebinding); the browser then treats the local server as that page's own origin and lets it read
pages, tokens included. The browser still sends ``Host: attacker.example``, so answering only for the names the
server was started for closes that door. A browser never lets a page set ``Host`` itself.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
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
                raise ValueError(f"`allowed_hosts`: {entry!r} is not a host name, host:port or [IPv6]:port")
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
