"""BLiMP and SyntaxGym from the Hugging Face hub, through the ``datasets`` package (an optional dependency:
``pip install 'linguagym[hub]'``), for users who are online.

``nyu-mll/blimp`` has one configuration per paradigm (UID), each a ``train`` split of BLiMP records: they go
through the same code as a BLiMP file (``blimp.blimp_suites``). ``cpllab/syntaxgym`` has one configuration per
suite (``all-2020`` for all of them), a ``test`` split with a row per item: ``suite_name``, ``item_number``,
``conditions`` (``condition_name``, ``regions`` with ``region_number`` and ``content``) and ``predictions``
(formulas). ``load`` (``load(dataset, config, split) -> rows``) replaces ``datasets.load_dataset`` in tests and
for copies kept elsewhere; a ``datasets.Dataset`` is such an iterable of rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.extras import install_hint
from linguagym.importers.blimp import ALL_UIDS, blimp_suites
from linguagym.suites.load import parse_suite_data
from linguagym.suites.model import Suite

BLIMP_DATASET = "nyu-mll/blimp"
SYNTAXGYM_DATASET = "cpllab/syntaxgym"
SYNTAXGYM_ALL = "all-2020"

Loader = Callable[[str, str, str], Iterable[dict]]


def load_from_hub(dataset: str, config: str, split: str) -> Iterable[dict]:
    """``datasets.load_dataset(dataset, config, split=split)``, its failures said plainly."""
    try:
        import datasets  # optional and heavy (pyarrow, pandas): only the hub importers need it
    except ImportError:
        raise ConfigurationError("reading from the Hugging Face hub needs the datasets package",
                                 hint=install_hint("hub") + " (or import the downloaded files instead)") from None
    try:
        return datasets.load_dataset(dataset, config, split=split)
    except Exception as error:  # network, an unknown configuration, hub errors: datasets raises many kinds
        raise ConfigurationError(
            f"could not load {dataset} ({config}) from the Hugging Face hub: {type(error).__name__}: {error}",
            hint="offline? download the files and import them from disk; check the name of the configuration",
        ) from None


def blimp_from_hub(uids: Sequence[str] = (), *, load: Loader | None = None) -> list[Suite]:
    """BLiMP paradigms (all 67 when ``uids`` is empty) from ``nyu-mll/blimp``, one suite each."""
    load = load or load_from_hub
    unknown = [uid for uid in uids if uid not in ALL_UIDS]
    if unknown:
        raise ConfigurationError(f"unknown BLiMP paradigm(s): {', '.join(unknown)}",
                                 hint="paradigms are BLiMP's UIDs, such as adjunct_island or passive_1")
    suites = []
    for uid in uids or ALL_UIDS:
        source = f"{BLIMP_DATASET}/{uid}"
        suites += blimp_suites(enumerate(load(BLIMP_DATASET, uid, "train"), start=1), source)
    return suites


def syntaxgym_from_hub(names: Sequence[str] = (), *, load: Loader | None = None) -> list[Suite]:
    """SyntaxGym suites from ``cpllab/syntaxgym``: those named, or all (its ``all-2020`` configuration)."""
    load = load or load_from_hub
    rows: list[dict] = []
    for config in names or (SYNTAXGYM_ALL,):
        rows += list(load(SYNTAXGYM_DATASET, config, "test"))
    return syntaxgym_suites(rows, SYNTAXGYM_DATASET)


def syntaxgym_suites(rows: Iterable[dict], source: str) -> list[Suite]:
    """Suites from cpllab/syntaxgym rows (one per item), grouped by ``suite_name``, each checked as a suite file."""
    by_suite: dict[str, list[dict]] = {}
    for row in rows:
        by_suite.setdefault(str(row.get("suite_name") or "syntaxgym"), []).append(row)
    if not by_suite:
        raise ConfigurationError(f"{source}: no rows")
    return [_syntaxgym_suite(name, items, f"{source} ({name})") for name, items in by_suite.items()]


def _syntaxgym_suite(name: str, rows: list[dict], source: str) -> Suite:
    items = []
    for row in rows:
        conditions = [{"condition_name": c.get("condition_name"),
                       "regions": [{"region_number": r.get("region_number"), "content": r.get("content")}
                                   for r in _records(c.get("regions"))]}
                      for c in _records(row.get("conditions"))]
        items.append({"item_number": row.get("item_number"), "conditions": conditions})
    first_regions = items[0]["conditions"][0]["regions"] if items and items[0]["conditions"] else []
    region_names = list(rows[0].get("region_names") or (f"region {i}" for i in range(1, len(first_regions) + 1)))
    predictions = [p if isinstance(p, dict) else {"type": "formula", "formula": p}
                   for p in _records(rows[0].get("predictions"))]
    data = {"meta": {"name": name, "metric": "sum", "source": SYNTAXGYM_DATASET},
            "region_meta": {str(i): region for i, region in enumerate(region_names, start=1)},
            "predictions": predictions, "items": items}
    return parse_suite_data(data, source=source).suite


def _records(value: Any) -> list:
    """A ``datasets`` sequence of records as a list of dicts: the library gives a sequence of dicts as one dict of
    lists (``{"condition_name": [...], "regions": [...]}``); plain lists pass through."""
    if isinstance(value, dict):
        keys = list(value)
        columns = [list(value[k]) for k in keys]
        return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)] if keys else []
    return list(value or [])
