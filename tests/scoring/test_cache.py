from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from linguagym.scoring.cache import CachedScorer, resolve_cache_dir
from linguagym.scoring.protocol import ScoredText, TokenScore


class Counting:
    """A pure-Python scorer that records every text it is asked for."""

    def __init__(self, version: str = "1", fail_after: int | None = None) -> None:
        self.version = version
        self.calls: list[list[str]] = []
        self.fail_after = fail_after
        self.batch_size = 2

    @property
    def identity(self) -> dict[str, Any]:
        return {"kind": "causal", "model": "counting", "revision": self.version}

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls.append(list(texts))
        return [
            ScoredText(t, tuple(TokenScore(w, i, 0, len(w), len(w) / 3, False) for i, w in enumerate(t.split())))
            for t in texts
        ]


TEXTS = [f"sentence number {i}" for i in range(10)]


def test_second_call_does_not_reach_the_inner_scorer(tmp_path: Path) -> None:
    inner = Counting()
    first = CachedScorer(inner, tmp_path).score(TEXTS + TEXTS[:3])
    assert sum(len(c) for c in inner.calls) == 10  # unique texts only
    again_inner = Counting()
    again = CachedScorer(again_inner, tmp_path).score(TEXTS)
    assert again_inner.calls == []
    assert again == first[:10]
    assert first[10:] == first[:3]


def test_interrupted_run_resumes(tmp_path: Path) -> None:
    inner = Counting(fail_after=2)  # chunks of 8 texts (4 x batch 2): the second chunk is never scored
    cached = CachedScorer(inner, tmp_path, chunk_size=4)
    with pytest.raises(KeyboardInterrupt):
        cached.score(TEXTS)
    cached.close()
    assert sum(len(c) for c in inner.calls) == 8
    resumed = Counting()
    result = CachedScorer(resumed, tmp_path, chunk_size=4).score(TEXTS)
    assert resumed.calls == [TEXTS[8:]]
    assert [r.text for r in result] == TEXTS


def test_corrupted_entry_is_dropped_and_recomputed(tmp_path: Path) -> None:
    cached = CachedScorer(Counting(), tmp_path)
    good = cached.score(TEXTS[:3])
    cached.close()
    with sqlite3.connect(cached.path) as db:  # flip the stored surprisal but keep the old checksum
        key, payload = db.execute("SELECT key, payload FROM scores LIMIT 1").fetchone()
        data = json.loads(payload)
        data["tokens"][0][4] = 99.0
        db.execute("UPDATE scores SET payload = ? WHERE key = ?", (json.dumps(data).encode(), key))
    inner = Counting()
    again = CachedScorer(inner, tmp_path)
    assert again.score(TEXTS[:3]) == good
    assert again.dropped == 1 and len(inner.calls) == 1 and len(inner.calls[0]) == 1
    # The recomputed entry was stored: a third run computes nothing.
    third = Counting()
    CachedScorer(third, tmp_path).score(TEXTS[:3])
    assert third.calls == []


def test_truncated_entry_and_damaged_file_are_recovered(tmp_path: Path) -> None:
    cached = CachedScorer(Counting(), tmp_path)
    cached.score(TEXTS[:2])
    cached.close()
    with sqlite3.connect(cached.path) as db:
        db.execute("UPDATE scores SET payload = substr(payload, 1, 10)")
    inner = Counting()
    assert len(CachedScorer(inner, tmp_path).score(TEXTS[:2])) == 2
    assert sum(len(c) for c in inner.calls) == 2
    cached.path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(cached.path) + suffix).unlink(missing_ok=True)
    inner = Counting()
    assert [r.text for r in CachedScorer(inner, tmp_path).score(TEXTS[:2])] == TEXTS[:2]
    assert sum(len(c) for c in inner.calls) == 2
    assert Path(str(cached.path) + ".damaged").exists()


def test_identity_change_misses(tmp_path: Path) -> None:
    CachedScorer(Counting("1"), tmp_path).score(TEXTS)
    other = Counting("2")
    CachedScorer(other, tmp_path).score(TEXTS)
    assert sum(len(c) for c in other.calls) == 10


def test_resolve_cache_dir_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "env"))
    assert resolve_cache_dir(tmp_path / "explicit") == tmp_path / "explicit"
    assert resolve_cache_dir(None) == tmp_path / "env"
    monkeypatch.delenv("LINGUAGYM_CACHE_DIR")
    assert resolve_cache_dir(None).name == "linguagym"


def test_fully_cached_run_imports_no_torch(gpt2_dir: Path, tmp_path: Path) -> None:
    program = (
        "import sys, json; from pathlib import Path; from linguagym.scoring import load_scorer; "
        f"s = load_scorer({str(gpt2_dir)!r}, cache_dir=Path({str(tmp_path)!r})); "
        "r = s.score(['The farmer knows.', 'The keys are here.']); "
        "print(json.dumps({'torch': 'torch' in sys.modules, 'n': len(r[0].tokens)}))"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    cold = json.loads(
        subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=True
        ).stdout.splitlines()[-1]
    )
    warm = json.loads(
        subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=True
        ).stdout.splitlines()[-1]
    )
    assert cold == {"torch": True, "n": warm["n"]}
    assert warm["torch"] is False and warm["n"] > 0
