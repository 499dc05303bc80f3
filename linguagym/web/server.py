"""The HTTP server under ``linguagym serve``: waitress, with limits so that slow or many connections cannot stop
it answering everyone else.

waitress reads requests asynchronously (a slow client holds no request thread), but out of the box it stops
accepting at 100 open connections and gives a client 120 s of silence per byte, so 150 sockets sending headers
slowly shut everyone else out. Here: a request's headers must arrive within ``header_timeout`` seconds of its
first byte and the whole request within ``request_timeout``; idle keep-alive connections close after
``idle_timeout``; up to ``connection_limit`` connections in all (poll, not select, so past 1,024 descriptors)
and ``per_client_limit`` from one remote address (loopback is exempt: behind a local reverse proxy every client
is 127.0.0.1).
"""

from __future__ import annotations

import ipaddress
import logging
import resource
from dataclasses import dataclass

log = logging.getLogger("linguagym.web")


@dataclass(frozen=True)
class ServerLimits:
    header_timeout: float = 10.0
    request_timeout: float = 300.0  # an 8 MB upload at 27 KB/s
    idle_timeout: int = 30
    connection_limit: int = 1000
    per_client_limit: int = 64


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _raise_descriptor_limit(wanted: int) -> None:
    """Room for ``wanted`` sockets: lift the soft RLIMIT_NOFILE towards the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def create_server(app, host: str, port: int, *, threads: int = 8, limits: ServerLimits = ServerLimits()):
    """A waitress server for ``app`` bound to ``host``:``port`` (not yet running: call ``.run()``; ``port`` 0 picks
    a free one, read it from ``.effective_port``)."""
    from waitress import create_server as waitress_server
    from waitress.channel import HTTPChannel

    _raise_descriptor_limit(limits.connection_limit + 64)
    server = waitress_server(app, host=host, port=port, threads=threads, ident="linguagym",
                             connection_limit=limits.connection_limit, channel_timeout=limits.idle_timeout,
                             cleanup_interval=1, asyncore_use_poll=True)

    class GuardedChannel(HTTPChannel):
        def __init__(self, server, sock, addr, adj, map=None):
            super().__init__(server, sock, addr, adj, map)
            client = addr[0] if isinstance(addr, tuple) and addr else ""
            if client and not _loopback(client):
                open_here = sum(1 for channel in server.active_channels.values()
                                if getattr(channel, "addr", None) and channel.addr[0] == client)
                if open_here > limits.per_client_limit:
                    log.warning("closing a connection from %s: it has %d open (limit %d)", client, open_here,
                                limits.per_client_limit)
                    self.will_close = True

    server.channel_class = GuardedChannel
    plain_maintenance = server.maintenance

    def maintenance(now: float) -> None:
        plain_maintenance(now)  # idle connections
        for channel in list(server.active_channels.values()):
            request = channel.request  # a request still arriving
            if request is None or channel.will_close:
                continue
            started = request.__dict__.setdefault("_linguagym_first_seen", now)
            late = now - started > (limits.request_timeout if request.headers_finished else limits.header_timeout)
            if late:
                channel.will_close = True

    server.maintenance = maintenance
    return server


def shutdown(server) -> None:
    """Stop a server running ``.run()`` in another thread: its loop closes every connection and returns."""
    from waitress import wasyncore

    server.task_dispatcher.shutdown(timeout=5)
    try:
        server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))  # runs inside the server's loop
    except OSError:  # the trigger is closed already: the loop has closed its sockets (or is closing them)
        wasyncore.close_all(server._map)
