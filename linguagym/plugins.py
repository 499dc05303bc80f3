"""One idiom for the registries that turn a name into a thing (``load_scorer``, ``load_classifier``,
``load_filler``): a table of ``Adapter`` rows, each a matcher (does this spec name me?), a loader (spec and
options -> the thing) and a description for the listings (``linguagym models --forms``, the web's classifier
menu, error hints). The first row whose matcher accepts a spec loads it.

Third-party packages add rows through entry points (docs/plugins.md): an entry point in the group
``linguagym.scorers``, ``linguagym.classifiers`` or ``linguagym.fillers`` names an ``Adapter`` (or a list of
them). Plug-in rows are consulted before linguagym's own, so that a plug-in's prefix (``myorg:NAME``) is
never read as a hub id; a plug-in should therefore match only names of its own. A plug-in that cannot be
loaded is skipped with a logged warning naming its package and entry point (never a traceback; the CLI shows
it as ``warning: ...``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Generic, TypeVar

from linguagym.errors import LinguagymError

if TYPE_CHECKING:
    from importlib import metadata

T = TypeVar("T")
O = TypeVar("O")  # noqa: E741 - the options type a loader takes

log = logging.getLogger(__name__)

SCORERS = "linguagym.scorers"
CLASSIFIERS = "linguagym.classifiers"
FILLERS = "linguagym.fillers"
GROUPS = (SCORERS, CLASSIFIERS, FILLERS)


@dataclass(frozen=True)
class Adapter(Generic[T, O]):
    """One row of a registry: ``matches(spec)`` says whether the row takes ``spec`` (already stripped of
    surrounding whitespace); ``load(spec, options)`` builds the thing; ``name`` and ``description`` are what
    listings show (``name`` is the spec's form, e.g. ``FILE.tsv`` or ``myorg:NAME``). ``origin`` is
    ``linguagym`` for the built-in rows, else the distribution that provided the row."""

    name: str
    description: str
    matches: Callable[[str], bool]
    load: Callable[[str, O], T]
    origin: str = "linguagym"


def prefix(*prefixes: str) -> Callable[[str], bool]:
    """A matcher for specs that start with one of ``prefixes`` (case-insensitive)."""
    lowered = tuple(p.lower() for p in prefixes)
    return lambda spec: spec.lower().startswith(lowered)


def exactly(*names: str) -> Callable[[str], bool]:
    """A matcher for specs equal to one of ``names`` (case-insensitive)."""
    lowered = {n.lower() for n in names}
    return lambda spec: spec.lower() in lowered


def anything(spec: str) -> bool:
    """The matcher of a table's last row, which takes what no other row took (and explains a bad spec)."""
    return True


class PluginError(LinguagymError):
    """A plug-in's loader failed with an error of its own (not one of linguagym's, which pass as they are)."""


def first_match(rows: Iterable[Adapter[T, O]], spec: str) -> Adapter[T, O] | None:
    return next((row for row in rows if row.matches(spec)), None)


def load(rows: Iterable[Adapter[T, O]], spec: str, options: O) -> T:
    """What the first row that matches ``spec`` loads. A plug-in's failure is a ``PluginError`` naming the
    package, so that the CLI reports it as the plug-in's, not as a bug of linguagym's."""
    row = first_match(rows, spec)
    if row is None:
        raise LookupError(f"no registry row matches {spec!r}")  # a table ends with a row that takes anything
    if row.origin == "linguagym":
        return row.load(spec, options)
    try:
        return row.load(spec, options)
    except LinguagymError:
        raise
    except Exception as error:  # noqa: BLE001 - third-party code: say whose it is
        raise PluginError(f"the plug-in {row.name!r} of package {row.origin!r} could not load {spec!r}: "
                          f"{type(error).__name__}: {error}",
                          hint=f"the error is the plug-in's; check {spec!r}, or report it to {row.origin}") from error


def plugin_adapters(group: str) -> list[Adapter]:
    """The adapters that installed distributions register in entry point ``group``, in a stable order (by
    distribution, then entry point name); read once per process (``refresh_plugins`` forgets them)."""
    return list(_plugins(group))


def refresh_plugins() -> None:
    """Read the entry points again at the next lookup (after installing a plug-in in a running process)."""
    _plugins.cache_clear()


@cache
def _plugins(group: str) -> tuple[Adapter, ...]:
    from importlib import metadata  # lazy: only a lookup needs it, not every import of the registries

    found = sorted(metadata.entry_points(group=group), key=lambda ep: (_distribution(ep), ep.name))
    rows: list[Adapter] = []
    for entry_point in found:
        rows += _load(entry_point, group)
    return tuple(rows)


def _distribution(entry_point: metadata.EntryPoint) -> str:
    dist = getattr(entry_point, "dist", None)  # EntryPoint.dist is absent on entry points built by hand
    return dist.name if dist is not None else "?"


def _load(entry_point: metadata.EntryPoint, group: str) -> list[Adapter]:
    where = f"entry point {entry_point.name!r} ({entry_point.value}) of package {_distribution(entry_point)!r} " \
            f"in group {group!r}"
    try:
        loaded = entry_point.load()
    except Exception as error:  # noqa: BLE001 - any failure of third-party code: skip it, say which
        log.warning("linguagym skipped the plug-in %s: importing it failed with %s: %s", where,
                    type(error).__name__, error)
        return []
    rows = list(loaded) if isinstance(loaded, Sequence) and not isinstance(loaded, str) else [loaded]
    if not rows or not all(isinstance(row, Adapter) for row in rows):
        log.warning("linguagym skipped the plug-in %s: it names %s, not a linguagym.plugins.Adapter or a list "
                    "of them (see docs/plugins.md)", where, type(loaded).__name__)
        return []
    origin = _distribution(entry_point)
    return [row if row.origin != "linguagym" else _with_origin(row, origin) for row in rows]


def _with_origin(row: Adapter, origin: str) -> Adapter:
    return Adapter(row.name, row.description, row.matches, row.load, origin)


def describe(rows: Iterable[Adapter]) -> list[tuple[str, str]]:
    """(form, description) of each row, for listings; a plug-in's row says which package added it."""
    return [(row.name, row.description if row.origin == "linguagym" else f"{row.description} (plug-in: {row.origin})")
            for row in rows]
