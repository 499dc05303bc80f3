"""Forged requests against a real ``linguagym serve`` server: DNS rebinding (a foreign ``Host``), cross-site
changes (``Origin``/``Referer``), ``python:`` classifiers in every spelling, a login that would leave the site,
token guessing, and slow connections that would starve everyone else."""

from __future__ import annotations

import http.client
import io
import json
import re
import socket
import threading
import time
from contextlib import contextmanager, suppress

import pytest

from tests.capabilities.lct_fakes import document
from tests.web.conftest import Client, _free_port

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


@contextmanager
def serving(tmp_path, *, limits=None, **settings):
    """The application under the real server (waitress with linguagym's limits) on 127.0.0.1 and a free port;
    ``settings`` go to WebConfig.build (``host`` is what the app believes it binds: the socket stays local)."""
    from linguagym.web import WebConfig, create_app
    from linguagym.web.server import ServerLimits, create_server, shutdown

    port = _free_port()
    config = WebConfig.build(tmp_path / "data", start_worker=False, cache_dir=tmp_path / "cache", port=port,
                             **settings)
    app = create_app(config)
    server = create_server(app, "127.0.0.1", port, threads=4, limits=limits or ServerLimits())
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield app, port
    finally:
        shutdown(server)
        thread.join(timeout=10)
        app.extensions["sessions"].kw["bind"].dispose()


def request(port, method, path, *, host=None, headers=None, body=None, timeout=10):
    """One HTTP request to 127.0.0.1:``port`` with any ``Host`` header, as a browser after DNS rebinding sends."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host or f"127.0.0.1:{port}")
        for key, value in (headers or {}).items():
            connection.putheader(key, value)
        data = body or b""
        connection.putheader("Content-Length", str(len(data)))
        connection.endheaders(data)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def multipart(fields: dict, files: dict) -> tuple[bytes, str]:
    boundary = "----linguagym-test-boundary"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, content) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     f"Content-Type: application/json\r\n\r\n".encode() + content + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def browser_session(port, host):
    """What a page served as ``host`` can get: its cookie and the CSRF token in the page (or the refusal)."""
    status, headers, text = request(port, "GET", "/capabilities/jobs", host=host)
    token = re.search(r'name="csrf-token" content="([^"]+)"', text)
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    return status, cookie, token.group(1) if token else None, text


# ------------------------------------------------------------------------------------------------ DNS rebinding


def test_a_rebound_page_gets_no_page_no_token_and_runs_nothing(tmp_path):
    with serving(tmp_path) as (_app, port):
        attacker = f"attacker.example:{port}"
        status, cookie, token, text = browser_session(port, attacker)
        assert status == 400 and token is None and not cookie
        assert "does not answer for the host 'attacker.example" in text and "--allowed-host" in text
        # the whole attack, as the page would send it: upload a test file, queue a python: classifier on it
        body, kind = multipart({"csrf": "x"}, {"tests_file": ("t.json", json.dumps(document()).encode())})
        upload = request(port, "POST", "/capabilities/upload", host=attacker, body=body,
                         headers={"Content-Type": kind, "Origin": f"http://{attacker}"})
        job = request(port, "POST", "/capabilities/jobs/test", host=attacker,
                      body=f"test_file=1&other_classifiers={KEYWORDS}".encode(),
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert upload[0] == 400 and job[0] == 400
        # nothing was stored or queued (seen from the real address)
        assert request(port, "GET", "/api/capabilities/jobs/1")[0] == 404
        assert "t.json" not in request(port, "GET", "/capabilities")[2]


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}", "[::1]:{port}"])
def test_the_loopback_names_with_the_servers_port_are_served(tmp_path, host):
    with serving(tmp_path) as (_app, port):
        status, cookie, token, _ = browser_session(port, host.format(port=port))
        assert status == 200 and token and cookie.startswith("linguagym_session=")


@pytest.mark.parametrize("host", ["localhost:{other}", "localhost", "127.0.0.2:{port}", "localhost.:{port}",
                                  "sub.localhost:{port}", "evil.example", "127.0.0.1:{port}@evil.example",
                                  "::1", "[::1]:99999"])
def test_other_hosts_and_ports_are_refused(tmp_path, host):
    with serving(tmp_path) as (_app, port):
        status, cookie, token, _ = browser_session(port, host.format(port=port, other=port + 1))
        assert status == 400 and token is None and not cookie


def test_allowed_host_names_are_served(tmp_path):
    with serving(tmp_path, allowed_hosts=("gym.lab.example", "proxy.example:443")) as (_app, port):
        assert browser_session(port, "gym.lab.example")[0] == 200
        assert browser_session(port, f"gym.lab.example:{port}")[0] == 200
        assert browser_session(port, "proxy.example:443")[0] == 200
        assert browser_session(port, "proxy.example:80")[0] == 400
        assert browser_session(port, "other.lab.example")[0] == 400


def test_a_server_bound_to_all_addresses_answers_for_ip_literals_only(tmp_path):
    from linguagym.web.auth.requests import HostPolicy

    policy = HostPolicy("0.0.0.0", 8000)
    assert policy.allows("192.168.1.20:8000") and policy.allows("[fe80::1]:8000") and policy.allows("localhost:8000")
    assert not policy.allows("lab-machine:8000") and not policy.allows("192.168.1.20:8001")
    assert HostPolicy("10.0.0.5", 8000).allows("10.0.0.5:8000") and not HostPolicy("10.0.0.5", 8000).allows(
        "10.0.0.6:8000")
    with pytest.raises(ValueError, match="allowed_hosts"):
        HostPolicy("127.0.0.1", 8000, ["bad host/name"])


# ------------------------------------------------------------------------------------------------ Origin, Referer


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"}, {"Origin": "null"},
                                     {"Origin": "http://localhost.evil.example"},
                                     {"Referer": "http://evil.example/page"},
                                     {"Origin": "https://localhost@evil.example"}])
def test_changes_sent_by_another_site_are_refused_even_with_the_csrf_token(client, headers):
    response = client.post("/api/formula", json={"formula": "(1;%a%) > (1;%b%)"}, headers=headers)
    assert response.status_code == 403
    assert "another site" in response.json["error"] or "no origin" in response.json["error"]
    upload = client.post("/suites/upload", data={"suite_text": "{}"}, headers=headers)
    assert upload.status_code == 403


@pytest.mark.parametrize("headers", [{}, {"Origin": "http://localhost"}, {"Referer": "http://localhost/suites/new"},
                                     {"Origin": "http://LOCALHOST:80"}])
def test_changes_from_the_servers_own_pages_pass(client, headers):
    response = client.post("/api/formula", json={"formula": "(1;%a%) > (1;%b%)"}, headers=headers)
    assert response.status_code == 200 and response.json["canonical"]


def test_a_script_with_the_bearer_token_still_cannot_come_from_another_site(tmp_path):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    try:
        raw = app.test_client()
        ok = raw.post("/api/formula", json={"formula": "1 > 0"}, headers={"Authorization": "Bearer s3cret"})
        forged = raw.post("/api/formula", json={"formula": "1 > 0"},
                          headers={"Authorization": "Bearer s3cret", "Origin": "http://evil.example"})
        assert ok.status_code == 200 and forged.status_code == 403
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


# ------------------------------------------------------------------------------------------------ python: classifiers


SPELLINGS = [KEYWORDS, " " + KEYWORDS, "\t" + KEYWORDS, "\n" + KEYWORDS, "\u00a0" + KEYWORDS, "\x1c" + KEYWORDS,
             "PYTHON:tests.capabilities.lct_fakes:keyword_labels", "\u2003" + KEYWORDS + " "]


def _upload_with_token(port, token_header):
    body, kind = multipart({}, {"tests_file": ("t.json", json.dumps(document()).encode())})
    return request(port, "POST", "/capabilities/upload", body=body,
                   headers={"Content-Type": kind, **token_header})


def test_python_classifiers_are_refused_in_every_spelling_on_a_lab_server(tmp_path, monkeypatch):
    """The server the app believes is bound beyond localhost, with its token: no spelling of python: runs code
    (the form's checkboxes carry the spec unsplit, so a leading newline or U+00A0 reaches the registry as is)."""
    calls = []
    import tests.capabilities.lct_fakes as fakes

    monkeypatch.setattr(fakes, "keyword_labels", lambda texts: calls.append(texts) or ["positive"] * len(texts))
    with serving(tmp_path, host="0.0.0.0", token="s3cret") as (_app, port):
        bearer = {"Authorization": "Bearer s3cret"}
        assert _upload_with_token(port, bearer)[0] == 302
        for spelling in SPELLINGS:
            form = "test_file=1&classifier=" + "".join(f"%{b:02X}" for b in spelling.encode())
            status, _, text = request(port, "POST", "/capabilities/jobs/test", body=form.encode(),
                                      headers={"Content-Type": "application/x-www-form-urlencoded", **bearer})
            # refused: as code, or (a control character in it) as a spec that names nothing usable
            assert status == 400 and ("run code on the server" in text or "holds the character U+" in text), \
                repr(spelling)
        assert request(port, "GET", "/api/capabilities/jobs/1")[0] == 404
    assert calls == []


def test_python_classifiers_need_the_operators_flag_even_on_localhost(tmp_path):
    from linguagym.web import WebConfig, create_app

    for allowed, expected in ((False, 400), (True, 302)):
        app = create_app(WebConfig.build(tmp_path / f"d{allowed}", start_worker=False,
                                         allow_python_classifiers=allowed))
        try:
            client = Client(app)
            assert client.post("/capabilities/upload", data={
                "tests_file": (io.BytesIO(json.dumps(document()).encode()), "t.json")},
                content_type="multipart/form-data").status_code == 302
            form = client.get("/capabilities/jobs").text
            assert ("python:module:function" in form) == allowed
            job = client.post("/capabilities/jobs/test", data={"test_file": "1", "classifier": " " + KEYWORDS})
            assert job.status_code == expected
        finally:
            app.extensions["sessions"].kw["bind"].dispose()


def test_a_queued_python_job_does_not_run_after_a_restart_without_the_flag(tmp_path, monkeypatch):
    from linguagym.web import WebConfig, create_app
    from linguagym.web.db import CapabilityJob

    calls = []
    import tests.capabilities.lct_fakes as fakes

    monkeypatch.setattr(fakes, "keyword_labels", lambda texts: calls.append(texts) or ["positive"] * len(texts))
    allowing = create_app(WebConfig.build(tmp_path / "d", start_worker=False, allow_python_classifiers=True))
    client = Client(allowing)
    client.post("/capabilities/upload", data={"tests_file": (io.BytesIO(json.dumps(document()).encode()), "t.json")},
                content_type="multipart/form-data")
    assert client.post("/capabilities/jobs/test", data={"test_file": "1", "classifier": KEYWORDS}).status_code == 302
    allowing.extensions["sessions"].kw["bind"].dispose()

    refusing = create_app(WebConfig.build(tmp_path / "d", start_worker=False))
    try:
        refusing.extensions["worker"].run_next()
        with refusing.extensions["sessions"].begin() as session:
            job = session.get(CapabilityJob, 1)
            assert job.status == "failed" and "--allow-python-classifiers" in job.error
        assert calls == []
    finally:
        refusing.extensions["sessions"].kw["bind"].dispose()


# ------------------------------------------------------------------------------------------------ login


@pytest.mark.parametrize("target, expected", [
    ("/runs?x=1", "/runs?x=1"), ("//evil.example/x", "/suites"), ("https://evil.example", "/suites"),
    ("/\\evil.example", "/suites"), ("javascript:alert(1)", "/suites"), ("/%0d%0aSet-Cookie:x", "/%0d%0aSet-Cookie:x"),
    ("\t//evil.example", "/suites")])
def test_login_never_sends_the_browser_off_the_site(tmp_path, target, expected):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    try:
        client = Client(app)
        response = client.raw.post("/login", query_string={"next": target},
                                   data={"token": "s3cret", "csrf": client.csrf})
        assert response.status_code == 302 and response.headers["Location"] == expected
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


def test_wrong_tokens_are_throttled_per_address(tmp_path):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    clock = [1000.0]
    app.extensions["login_throttle"].clock = lambda: clock[0]
    try:
        client = Client(app)
        for _ in range(5):
            assert client.raw.post("/login", data={"token": "guess", "csrf": client.csrf}).status_code == 403
        locked = client.raw.post("/login", data={"token": "s3cret", "csrf": client.csrf})
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) == 60
        bearer = client.raw.post("/api/formula", json={"formula": "1 > 0"}, headers={"Authorization": "Bearer s3cret"})
        assert bearer.status_code == 429
        other = app.test_client()  # another address is not locked out
        other_page = other.get("/suites", environ_base={"REMOTE_ADDR": "10.0.0.9"})
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', other_page.text).group(1)
        assert other.post("/login", data={"token": "s3cret", "csrf": csrf},
                          environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 302
        clock[0] += 61
        assert client.raw.post("/login", data={"token": "s3cret", "csrf": client.csrf}).status_code == 302
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


def test_bearer_guesses_count_as_failures(tmp_path):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    try:
        raw = app.test_client()
        answers = [raw.post("/api/formula", json={"formula": "1 > 0"},
                            headers={"Authorization": f"Bearer guess{i}"}).status_code for i in range(7)]
        assert answers == [403] * 5 + [429] * 2
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


# ------------------------------------------------------------------------------------------------ slow connections


def test_slow_half_open_connections_do_not_stop_the_server_answering(tmp_path):
    """150 sockets that send their headers a line at a time: others are still answered at once, and the slow
    ones are cut off once their headers are late."""
    from linguagym.web.server import ServerLimits

    with serving(tmp_path, limits=ServerLimits(header_timeout=2.0)) as (_app, port):
        slow = []
        for _ in range(150):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(f"GET /suites HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            slow.append(sock)
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                for sock in slow:
                    with suppress(OSError):
                        sock.sendall(b"X-Slow: 1\r\n")
                stop.wait(0.5)

        feeder = threading.Thread(target=trickle, daemon=True)
        feeder.start()
        try:
            started = time.monotonic()
            status, _, _ = request(port, "GET", "/suites", timeout=8)
            assert status == 200 and time.monotonic() - started < 5
            time.sleep(3.5)  # past the header deadline (checked each second)
            closed = 0
            for sock in slow:
                sock.settimeout(2)
                try:
                    closed += sock.recv(1) == b""
                except (ConnectionResetError, BrokenPipeError):
                    closed += 1
                except TimeoutError:
                    pass
            assert closed == len(slow)
        finally:
            stop.set()
            feeder.join(timeout=5)
            for sock in slow:
                sock.close()


def test_a_bad_allowed_host_is_a_configuration_error_naming_the_setting(tmp_path):
    from linguagym.errors import ConfigurationError
    from linguagym.web import WebConfig, create_app

    config = WebConfig.build(tmp_path / "d", allowed_hosts=("bad host/name",), start_worker=False)
    with pytest.raises(ConfigurationError, match="allowed_hosts`: 'bad host/name'") as caught:
        create_app(config)
    assert caught.value.settings == ("allowed_hosts",)  # the CLI writes it as --allowed-host
