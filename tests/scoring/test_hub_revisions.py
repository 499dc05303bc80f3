"""hub-id@revision picks one checkpoint of a hub repository from the Hugging Face cache (no network here)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring.huggingface.sources import resolve_source
from linguagym.scoring.registry import load_scorer

MAIN, STEP = "a" * 40, "b" * 40


@pytest.fixture
def hub_cache(gpt2_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Hugging Face cache holding org/tiny at two commits: main and the branch step1000."""
    import huggingface_hub.constants

    cache = tmp_path / "hub"
    repo = cache / "models--org--tiny"
    for commit in (MAIN, STEP):
        shutil.copytree(gpt2_dir, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(MAIN)
    (repo / "refs" / "step1000").write_text(STEP)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_a_revision_picks_that_checkpoint(hub_cache: Path, tmp_path: Path) -> None:
    main = resolve_source("org/tiny", tmp_path)
    step = resolve_source("org/tiny@step1000", tmp_path)
    assert (main.revision, step.revision) == (MAIN, STEP)
    assert step.files()[0] == hub_cache / "models--org--tiny" / "snapshots" / STEP
    assert step.location == "org/tiny" and step.name == "org/tiny@step1000"
    # Two checkpoints are two identities: their scores never share a cache file.
    assert load_scorer("org/tiny@step1000", cache_dir=tmp_path).identity != load_scorer(
        "org/tiny", cache_dir=tmp_path).identity


def test_a_revision_not_in_the_cache_says_which_offline(hub_cache: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as caught:
        resolve_source("org/tiny@step9", tmp_path)
    assert "'org/tiny@step9' is not in the Hugging Face cache" in caught.value.message
    assert "org/tiny@step9" in caught.value.hint


@pytest.mark.parametrize("model", ["org/tiny@", "org/tiny@step 9", "org/tiny@../x"])
def test_malformed_revisions_are_refused(hub_cache: Path, tmp_path: Path, model: str) -> None:
    with pytest.raises(ConfigurationError, match="not a named model"):
        resolve_source(model, tmp_path)
