"""Suite collections: named sets of suites with the subset a score averages and groups (circuits).

Built-in collections live in ``linguagym/data/collections/*.toml``; users write their own in the same small
TOML shape (only ``name`` and ``suites`` are required) and pass the file's path wherever a name goes.
"""

from __future__ import annotations

import fnmatch
import hashlib
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from linguagym.atomic import atomic_open
from linguagym.errors import ConfigurationError
from linguagym.suites.model import Suite
from linguagym.userfiles import MAX_TEXT_BYTES, RefusedFile, read_regular_text

AD_HOC = "suites"  # the name of the collection made of whatever suites some results hold


@dataclass(frozen=True)
class Group:
    name: str
    short: str
    patterns: tuple[str, ...]

    def matches(self, suite: str) -> bool:
        return any(fnmatch.fnmatchcase(suite, pattern) for pattern in self.patterns)


@dataclass(frozen=True)
class Collection:
    name: str
    suites: tuple[str, ...]
    exclude_from_score: tuple[str, ...] = ()
    groups: tuple[Group, ...] = ()
    policy: str | None = None  # the prediction policy the collection's published numbers use
    # (suite name or pattern, policy) where a suite's differs from ``policy`` (the [policies] table); how a run
    # uses them: policy.py
    suite_policies: tuple[tuple[str, str], ...] = ()
    description: str = ""
    reference: str = ""
    source: dict = field(default_factory=dict, compare=False)  # url template, commit, sha256 per suite

    @property
    def score_suites(self) -> tuple[str, ...]:
        """The suites the collection's score averages."""
        return tuple(s for s in self.suites if s not in self.exclude_from_score)

    def group_suites(self, group: Group) -> tuple[str, ...]:
        return tuple(s for s in self.score_suites if group.matches(s))


def builtin_collections() -> list[str]:
    folder = resources.files("linguagym").joinpath("data", "collections")
    return sorted(entry.name[: -len(".toml")] for entry in folder.iterdir() if entry.name.endswith(".toml"))


def load_collection(name_or_path: str | Path) -> Collection:
    """A built-in collection by name, or a collection file (TOML) by path."""
    path = Path(name_or_path)
    if str(name_or_path) in builtin_collections():
        text = resources.files("linguagym").joinpath("data", "collections", f"{name_or_path}.toml").read_text("utf-8")
        return parse_collection(text, source=str(name_or_path))
    if path.suffix == ".toml" or path.exists():
        try:
            text = read_regular_text(path, limit=MAX_TEXT_BYTES, what="collection file")
        except RefusedFile as refused:
            raise ConfigurationError(f"cannot read collection file {path}: {refused.problem}",
                                     hint=refused.hint) from None
        return parse_collection(text, source=str(path))
    raise ConfigurationError(
        f"unknown collection {str(name_or_path)!r}",
        hint=f"use a built-in one ({', '.join(builtin_collections())}) or the path of a .toml collection file",
    )


def parse_collection(text: str, *, source: str = "<collection>") -> Collection:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{source}: invalid TOML: {error}") from None

    def strings(key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigurationError(f"{source}: {key} must be a list of strings")
        return tuple(value)

    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ConfigurationError(f"{source}: missing name", hint='add a line such as name = "my-suites"')
    if "suites" not in data:
        raise ConfigurationError(f"{source}: missing suites", hint='add suites = ["suite_a", "suite_b"]')
    suites = strings("suites", data["suites"])
    exclude = strings("exclude_from_score", data.get("exclude_from_score", []))
    unknown = [s for s in exclude if s not in suites]
    if unknown:
        raise ConfigurationError(f"{source}: exclude_from_score names suites not in suites: {', '.join(unknown)}")
    raw_groups = data.get("groups", [])
    if not isinstance(raw_groups, list):
        raise ConfigurationError(f"{source}: groups must be a list of tables",
                                 hint='write each group as [[groups]] with name = "..." and suites = [...]')
    groups = []
    for i, raw in enumerate(raw_groups):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or "suites" not in raw:
            raise ConfigurationError(f"{source}: groups[{i}] needs a name and suites (names or patterns)")
        group = Group(raw["name"], str(raw.get("short", raw["name"])), strings(f"groups[{i}].suites", raw["suites"]))
        if not any(group.matches(s) for s in suites):
            raise ConfigurationError(f"{source}: group {group.name!r} matches none of the collection's suites")
        groups.append(group)
    policy = data.get("policy")
    if policy not in (None, "all", "first"):
        raise ConfigurationError(f"{source}: policy must be 'all' or 'first', not {policy!r}")
    return Collection(
        name=data["name"], suites=suites, exclude_from_score=exclude, groups=tuple(groups), policy=policy,
        suite_policies=_suite_policies(data.get("policies", {}), suites, source),
        description=str(data.get("description", "")), reference=str(data.get("reference", "")),
        source=dict(data.get("source", {})),
    )


def _suite_policies(raw: object, suites: tuple[str, ...], source: str) -> tuple[tuple[str, str], ...]:
    """The [policies] table: suite name or pattern = "all" | "first", each matching a suite of the collection."""
    if not isinstance(raw, dict):
        raise ConfigurationError(f"{source}: policies must be a table of suite = policy",
                                 hint='write [policies] with lines such as fgd_hierarchy = "first"')
    for pattern, policy in raw.items():
        if policy not in ("all", "first"):
            raise ConfigurationError(f"{source}: policies.{pattern} must be 'all' or 'first', not {policy!r}")
        if not any(fnmatch.fnmatchcase(s, pattern) for s in suites):
            raise ConfigurationError(f"{source}: policies.{pattern} matches none of the collection's suites")
    return tuple(raw.items())


def suite_paths(collection: Collection, suites_dir: str | Path) -> list[Path]:
    """The collection's suite files in ``suites_dir`` (``NAME.json``); every one must be there."""
    directory = Path(suites_dir)
    if not directory.is_dir():
        raise ConfigurationError(f"suites directory {directory} does not exist")
    paths = [directory / f"{name}.json" for name in collection.suites]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise ConfigurationError(
            f"{directory} lacks {len(missing)} suite(s) of collection {collection.name}: {', '.join(missing[:6])}"
            + (" ..." if len(missing) > 6 else ""),
            hint="point `suites_dir` at a directory holding every suite of the collection", settings=["suites_dir"],
        )
    return paths


def fetch_suites(collection: Collection, cache_dir: Path, *, timeout: float = 30.0) -> Path:
    """Download the collection's suites from its pinned source into the cache (hashes checked); returns the
    directory. Files already there with the right hash are kept."""
    source = collection.source
    if not source.get("url") or not source.get("sha256"):
        raise ConfigurationError(f"collection {collection.name} names no source to fetch its suites from",
                                 hint="give `suites_dir`, a directory of the suite files", settings=["suites_dir"])
    target = cache_dir / "suites" / collection.name
    for name in collection.suites:
        expected = source["sha256"].get(name)
        path = target / f"{name}.json"
        if path.is_file() and _sha256(path.read_bytes()) == expected:
            continue
        url = source["url"].format(commit=source.get("commit", ""), suite=name)
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (pinned https URL)
                data = response.read()
        except (urllib.error.URLError, OSError) as error:
            raise ConfigurationError(
                f"could not fetch suite {name} of {collection.name} from {url}: {getattr(error, 'reason', error)}",
                hint="offline? give `suites_dir`, a directory with a local copy of the suites", settings=["suites_dir"],
            ) from None
        if _sha256(data) != expected:
            raise ConfigurationError(
                f"suite {name} fetched from {url} has sha256 {_sha256(data)}, not the pinned {expected}",
                hint="the source changed or the download was damaged; give `suites_dir`, a directory with a checked "
                "copy", settings=["suites_dir"],
            )
        with atomic_open(path, "wb") as handle:
            handle.write(data)
    return target


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def covering_collection(suites: Iterable[str]) -> Collection:
    """The collection to score results with when none is named: syntaxgym-2020 when every suite belongs to it,
    else an ad-hoc collection of exactly these suites (no groups)."""
    names = tuple(dict.fromkeys(suites))
    builtin = load_collection("syntaxgym-2020")
    if names and set(names) <= set(builtin.suites):
        return builtin
    return Collection(name=AD_HOC, suites=names)


SuiteLike = str | Path | Suite


def resolve_suites(suites: SuiteLike | Sequence[SuiteLike] | None, collection: str | Path | None = None,
                   suites_dir: str | Path | None = None, cache_dir: str | None = None) -> list[Path | Suite]:
    """The suites of a run: files, directories (their ``*.json`` files) and ``Suite`` objects; or, when none is
    given, the collection's suites (from ``suites_dir``, else fetched). ``linguagym run``, ``run`` and the web app."""
    if isinstance(suites, str | Path | Suite):
        suites = [suites]
    given: list[Path | Suite] = []
    for one in suites or []:
        if isinstance(one, Suite):
            given.append(one)
        elif Path(one).is_dir():
            given.extend(sorted(Path(one).glob("*.json")))
        else:
            given.append(Path(one))
    if given:
        return given
    if suites is not None and list(suites):  # directories that hold no suite
        raise ConfigurationError("the directories given hold no .json suite files",
                                 hint="pass suite files, or directories holding them")
    if collection in (None, "auto"):
        raise ConfigurationError("no suites given", hint="pass suite files, directories or Suite objects, or "
                                 "collection='syntaxgym-2020' with suites_dir=DIR")
    from linguagym.scoring.cache import resolve_cache_dir

    chosen = load_collection(collection)
    if suites_dir is not None:
        return list(suite_paths(chosen, suites_dir))
    return list(suite_paths(chosen, fetch_suites(chosen, resolve_cache_dir(Path(cache_dir) if cache_dir else None))))
