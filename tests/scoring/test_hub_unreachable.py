"""An offline hub-id typo fails at once: the hub is probed with one short connection before the hub client, whose
retries held a web request for about 24 s."""

from __future__ import annotations

import socket

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring.huggingface import hub


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_hub_is_reported_without_the_clients_retries(monkeypatch, tmp_path):
    import huggingface_hub
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setattr(hub, "_reachable", {})
    downloads = []
    real = huggingface_hub.snapshot_download

    def recording(*args, **kwargs):
        if not kwargs.get("local_files_only"):
            downloads.append(args)  # the online call, with its retries, must not be made
        return real(*args, **kwargs)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", recording)
    with pytest.raises(ConfigurationError, match="cannot be reached from here") as caught:
        hub.fetch_snapshot("someone/no-such-model", None, ["*.json"])
    assert downloads == []
    assert "pass a local directory" in caught.value.hint


def test_a_reachable_endpoint_is_probed_once_a_minute(monkeypatch):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    try:
        endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"
        monkeypatch.setattr(hub, "_reachable", {})
        assert hub.reachable(endpoint) is True
        server.close()  # now closed, but the answer is remembered
        assert hub.reachable(endpoint) is True
        assert hub.reachable(f"http://127.0.0.1:{_closed_port()}") is False
    finally:
        server.close()
