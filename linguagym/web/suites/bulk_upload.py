"""Many suite files at once: uploaded together, in a .zip, or loaded from a bundled set. Each file is validated by
the library and stored whole (its own commit) or not at all; the outcome of every file is reported.

A .zip is read in memory, never extracted to disk, and refused whole when a member's path climbs out of the
archive (``../``, an absolute path, a drive letter), when it holds too many members, or when its members unpack to
more bytes than allowed (counted while reading, not taken from the archive's own claims). The limits are for the
whole request, not each archive: 60 small archives unpacking to 64 MiB each took 156 s.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError, SuiteError
from linguagym.suites.load import LoadedSuite, parse_suite_text
from linguagym.web.auth.ownership import Forbidden, save_suite_owned
from linguagym.web.store import SavedVersion
from linguagym.web.text import clean_text

MAX_ZIP_MEMBERS = 1000  # in all the archives of one request together
MAX_ZIP_BYTES = 64 * 1024 * 1024  # all members of all the archives of one request together, uncompressed
IGNORED_MEMBERS = ("__MACOSX/",)  # macOS's resource forks, in every archive its Finder makes


@dataclass
class FileOutcome:
    """What became of one file: ``added`` (a new suite), ``version`` (a new version of a known suite),
    ``unchanged`` (identical to the latest version: nothing stored), ``invalid``, ``refused`` (not yours to
    change) or ``skipped`` (not a suite file)."""

    file: str
    status: str
    suite: str = ""
    suite_id: int | None = None
    version: int | None = None
    problems: list[dict] = field(default_factory=list)
    saved: SavedVersion | None = None

    @property
    def stored(self) -> bool:
        return self.status in ("added", "version")


def problem(message: str, location: str = "", detail: str = "") -> dict:
    return {"location": location, "message": message, "detail": detail}


def suite_problems(error: SuiteError) -> list[dict]:
    return [problem(p.message, p.location, p.detail) for p in error.problems]


def parse_uploaded(name: str, raw: bytes) -> tuple[LoadedSuite | None, list[dict]]:
    """An uploaded file as a suite, or the problems that keep it from being one (with their JSON paths)."""
    if not raw.strip():
        return None, [problem("the file is empty: a suite is a JSON object with meta, predictions and items")]
    try:
        return parse_suite_text(raw.decode("utf-8-sig"), source=name), []
    except UnicodeDecodeError as error:
        return None, [problem("not UTF-8 text; save the file as UTF-8", f"byte {error.start}")]
    except SuiteError as error:
        return None, suite_problems(error)


def store_suite_file(session: Session, name: str, raw: bytes, *, note: str) -> FileOutcome:
    """Validate one file and store it as a new suite, or the next version of the suite of its name (nothing
    when identical to the latest). Committed on its own: a file is stored whole or not at all."""
    loaded, problems = parse_uploaded(name, raw)
    if loaded is None:
        return FileOutcome(name, "invalid", problems=problems)
    try:
        saved = save_suite_owned(session, loaded.suite, note=note)
    except Forbidden as refusal:  # a new version of a suite that is not this user's
        return FileOutcome(name, "refused", suite=loaded.suite.name,
                           problems=[problem(refusal.message, detail=refusal.hint or "")])
    status = "unchanged" if not saved.created else "added" if saved.version.number == 1 else "version"
    return FileOutcome(name, status, suite=saved.suite.name, suite_id=saved.suite.id, version=saved.version.number,
                       saved=saved)


def is_zip(name: str, raw: bytes) -> bool:
    return name.lower().endswith(".zip") or raw.startswith(b"PK\x03\x04")


def store_files(session: Session, files: Iterable[tuple[str, bytes]], *, note: str,
                max_members: int = MAX_ZIP_MEMBERS, max_bytes: int = MAX_ZIP_BYTES) -> list[FileOutcome]:
    """Store every suite file of ``files`` (name, content); a .zip stands for the .json files it holds. The archives
    share ``max_members`` and ``max_bytes``: one that would go past what the earlier ones left is refused whole."""
    outcomes: list[FileOutcome] = []
    members_left, bytes_left = max_members, max_bytes
    for name, raw in files:
        name = clean_text(name) or "unnamed file"
        if not is_zip(name, raw):
            outcomes.append(store_suite_file(session, name, raw, note=f"{note} {name}"))
            continue
        try:
            members = zip_members(raw, max_members=members_left, max_bytes=bytes_left,
                                  shared=members_left < max_members or bytes_left < max_bytes)
        except ConfigurationError as error:
            outcomes.append(FileOutcome(name, "invalid", problems=[problem(error.message, detail=error.hint or "")]))
            continue
        members_left -= len(members)
        bytes_left -= sum(len(data) for _, data in members)
        for member, data in members:
            shown = f"{name}: {clean_text(member)}"
            if not member.lower().endswith(".json"):
                outcomes.append(FileOutcome(shown, "skipped", problems=[problem("not a .json suite file")]))
            else:
                outcomes.append(store_suite_file(session, shown, data, note=f"{note} {shown}"))
    return outcomes


def _unsafe(member: str) -> str:
    """Why a member's path is refused ('' when it is safe)."""
    if "\x00" in member:
        return "holds a NUL character"
    if member.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", member):
        return "is an absolute path"
    if ".." in re.split(r"[/\\]", member):
        return "climbs out of the archive with '..'"
    return ""


def zip_members(raw: bytes, *, max_members: int = MAX_ZIP_MEMBERS, max_bytes: int = MAX_ZIP_BYTES,
                shared: bool = False) -> list[tuple[str, bytes]]:
    """The files of a .zip (name, content), in the archive's order, folders and macOS metadata left out.
    ``shared``: the limits are what earlier archives of the request left (the messages say so)."""
    left = " (what the upload's earlier archives left)" if shared else ""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
        raise ConfigurationError(f"not a readable .zip archive ({error})",
                                 hint="make it again with a zip tool, or upload the .json files themselves") from None
    infos = [i for i in archive.infolist() if not i.is_dir() and not i.filename.startswith(IGNORED_MEMBERS)]
    if len(infos) > max_members:
        raise ConfigurationError(f"the archive holds {len(infos)} files; at most {max_members} are read from one "
                                 f"archive{left}", hint="split it into several archives, uploaded one at a time")
    for info in infos:
        reason = _unsafe(info.filename)
        if reason:
            raise ConfigurationError(f"the archive member {info.filename[:200]!r} {reason}; nothing was read from "
                                     "the archive", hint="make the archive with paths inside its own folder")
    too_big = (f"the archive unpacks to more than {max_bytes:,} bytes{left}; nothing was read from it",
               "upload its suites in several smaller archives, one upload at a time")
    if sum(i.file_size for i in infos) > max_bytes:
        raise ConfigurationError(too_big[0], hint=too_big[1])
    members, total = [], 0
    for info in infos:
        try:
            with archive.open(info) as handle:
                data = handle.read(max_bytes - total + 1)  # counted as read: the sizes it declares may lie
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, zlib.error, EOFError, OSError) as error:
            raise ConfigurationError(f"cannot read {info.filename[:200]!r} from the archive: {error}",
                                     hint="an encrypted or damaged archive? make it again without a password") from None
        total += len(data)
        if total > max_bytes:
            raise ConfigurationError(too_big[0], hint=too_big[1])
        members.append((info.filename, data))
    return members


def outcome_summary(outcomes: list[FileOutcome]) -> str:
    """One sentence: how many suites were added, got a new version, were unchanged, and how many files failed."""
    def names(status: str) -> list[str]:
        return [o.suite for o in outcomes if o.status == status]

    parts = []
    for status, label in (("added", "added"), ("version", "new version of"), ("unchanged", "unchanged (skipped)")):
        found = names(status)
        if found:
            shown = ", ".join(found[:40]) + (f" and {len(found) - 40} more" if len(found) > 40 else "")
            parts.append(f"{len(found)} {label}: {shown}")
    failed = sum(o.status in ("invalid", "refused") for o in outcomes)
    if failed:
        parts.append(f"{failed} file(s) not stored")
    skipped = len(names("skipped"))
    if skipped:
        parts.append(f"{skipped} file(s) skipped (not .json)")
    return "; ".join(parts) + "." if parts else "no files."
