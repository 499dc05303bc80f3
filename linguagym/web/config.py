"""Where the web application keeps its data and how it is reached."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.entrystore import resolve_cache_dir
from linguagym.errors import ConfigurationError

DATA_DIR_ENV = "LINGUAGYM_DATA_DIR"
DATABASE_ENV = "LINGUAGYM_DATABASE_URL"
TOKEN_ENV = "LINGUAGYM_TOKEN"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
DEFAULT_MAX_UPLOAD = 8 * 1024 * 1024


def resolve_data_dir(value: str | Path | None = None) -> Path:
    """``--data-dir``, else ``$LINGUAGYM_DATA_DIR``, else the user's data directory."""
    if value:
        return Path(value).expanduser()
    if os.environ.get(DATA_DIR_ENV):
        return Path(os.environ[DATA_DIR_ENV]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("linguagym", appauthor=False))


@dataclass(frozen=True)
class WebConfig:
    data_dir: Path
    database_url: str
    host: str = "127.0.0.1"
    token: str | None = None  # required for changes when the server binds an address other than localhost
    max_upload: int = DEFAULT_MAX_UPLOAD
    start_worker: bool = True  # run queued runs in a background thread (tests may turn it off)
    cache_dir: Path | None = None  # the score cache and fetched models; default: the command line's (score_cache_dir)
    port: int | None = None  # the port served; None (test clients) skips the port part of the Host check
    allowed_hosts: tuple[str, ...] = ()  # further Host names it answers for (--allowed-host), name or name:port
    allow_python_classifiers: bool = False  # python:module:function classifiers run code: the operator opts in
    workers: int = 1  # jobs (runs and capability jobs) run at once, each in a thread of its own
    executor: str = "local"  # where runs score their texts, as `linguagym run --executor`: local or ray
    ray_address: str | None = None  # with executor "ray": the cluster to join (None: start a local one)

    @classmethod
    def build(cls, data_dir: str | Path | None = None, database_url: str | None = None, *, host: str = "127.0.0.1",
              token: str | None = None, **kwargs) -> WebConfig:
        directory = resolve_data_dir(data_dir)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigurationError(f"cannot create the data directory {directory}: {error.strerror}",
                                     hint="give `data_dir`, a writable directory", settings=["data_dir"]) from None
        url = database_url or os.environ.get(DATABASE_ENV) or f"sqlite:///{directory / 'linguagym.sqlite3'}"
        token = token or os.environ.get(TOKEN_ENV) or None
        if host not in LOCAL_HOSTS and not token:
            token = secrets.token_urlsafe(18)
        return cls(data_dir=directory, database_url=url, host=host, token=token, **kwargs)

    @property
    def token_required(self) -> bool:
        return self.host not in LOCAL_HOSTS or bool(self.token)

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def score_cache_dir(self) -> Path:
        """``--cache-dir``; else a server's own ``DATA_DIR/cache`` where an earlier version made one (its scores
        stay in use); else the cache the command line uses (``$LINGUAGYM_CACHE_DIR``, else the user cache), so
        models fetched and de-quantised by ``linguagym models --fetch`` or a run are not made again."""
        if self.cache_dir is not None:
            return self.cache_dir
        own = self.data_dir / "cache"
        return own if own.is_dir() else resolve_cache_dir()

    def secret_key(self) -> str:
        """The key that signs session cookies: made once, kept in the data directory (mode 600)."""
        path = self.data_dir / "secret_key"
        if path.is_file():
            return path.read_text(encoding="utf-8").strip()
        key = secrets.token_hex(32)
        atomic_write_text(path, key + "\n")
        os.chmod(path, 0o600)
        return key
