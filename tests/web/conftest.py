from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.evaluation.conftest import tiny_lm_dir  # noqa: F401  (the tiny offline causal LM fixture)


@pytest.fixture
def web_config(tmp_path):
    from linguagym.web.config import WebConfig

    # the capability tests' fake classifiers are python:module:function specs, which the operator must allow
    return WebConfig.build(tmp_path / "data", start_worker=False, cache_dir=tmp_path / "cache",
                           allow_python_classifiers=True)


@pytest.fixture
def app(web_config):
    from linguagym.web.app import create_app

    application = create_app(web_config)
    yield application
    application.extensions["worker"].stop()
    application.extensions["sessions"].kw["bind"].dispose()


class Client:
    """A Flask test client that sends the page's CSRF token with every change."""

    def __init__(self, app) -> None:
        self.app = app
        self.raw = app.test_client()
        page = self.raw.get("/suites")
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)

    def get(self, *args, **kwargs):
        return self.raw.get(*args, **kwargs)

    def post(self, url, *, data=None, json=None, **kwargs):
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return self.raw.post(url, data=data, json=json, headers=headers, **kwargs)


@pytest.fixture
def client(app):
    return Client(app)


@contextlib.contextmanager
def serve_in_thread(app):
    """``app`` served on a free local port by a thread for the block (browser tests); yields its base URL."""
    from werkzeug.serving import make_server

    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{http.server_port}"
    finally:
        http.shutdown()


# ------------------------------------------------------------------ a throw-away PostgreSQL server


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL cluster made for this test session in a temporary directory, on a free port, stopped
    and deleted at the end. Skips when the server binaries (Debian ``postgresql``) are absent."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL binaries not found (install the Debian package postgresql)")
    prefix: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="linguagym-pg-"))
    if os.geteuid() == 0:  # initdb refuses to run as root: run the server as the postgres user
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.skip("running as root and runuser is missing: cannot start PostgreSQL as another user")
        prefix = [runuser, "-u", "postgres", "--"]
        shutil.chown(root, "postgres", "postgres")
        os.chmod(root, 0o755)
    data, port = root / "data", _free_port()
    def run(*command):
        return subprocess.run([*prefix, *map(str, command)], check=True, capture_output=True, text=True, timeout=120)

    try:
        run(bin_dir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        run(bin_dir / "pg_ctl", "-D", data, "-w", "-t", "60", "-l", root / "log", "-o",
            f"-p {port} -k {root} -c listen_addresses='' -c fsync=off", "start")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"could not start a throw-away PostgreSQL: {getattr(error, 'stderr', error)}")
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={root}&port={port}"
    finally:
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """A fresh, empty database: a SQLite file, or a new database on the throw-away PostgreSQL server."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    base = request.getfixturevalue("postgres_url")
    from sqlalchemy import create_engine, text

    name = f"t{os.getpid()}_{abs(hash(request.node.nodeid)) % 10**8}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield base.replace("/postgres?", f"/{name}?")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()
