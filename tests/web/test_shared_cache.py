"""The lab server and the command line share one cache by default, so a model fetched and de-quantised by
``linguagym models --fetch`` or a run is not made again by ``serve``."""

from __future__ import annotations

import pytest

pytest.importorskip("flask")

from linguagym.entrystore import resolve_cache_dir  # noqa: E402
from linguagym.web import WebConfig  # noqa: E402


def test_serve_uses_the_command_lines_cache_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "shared"))
    config = WebConfig.build(tmp_path / "data", start_worker=False)
    assert config.score_cache_dir == resolve_cache_dir() == tmp_path / "shared"


def test_an_existing_server_cache_stays_in_use_and_cache_dir_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "shared"))
    (tmp_path / "data" / "cache").mkdir(parents=True)
    assert WebConfig.build(tmp_path / "data", start_worker=False).score_cache_dir == tmp_path / "data" / "cache"
    explicit = WebConfig.build(tmp_path / "data", start_worker=False, cache_dir=tmp_path / "mine")
    assert explicit.score_cache_dir == tmp_path / "mine"
