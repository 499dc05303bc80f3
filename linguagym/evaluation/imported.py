"""Per-item results made elsewhere (the files ``linguagym score`` reads: Hu et al. 2020's ``model,suite,item,correct``,
or an ``items.csv``) as model folders of a run: ``run.json`` marked ``imported`` and ``items.csv``, so whatever
reads run folders (the leaderboard, a suite's page, Compare, ``linguagym compare``) shows them beside models run
here, marked as imported.

Hu et al.'s files number a suite's items from 0 (their position), suites from 1: a file of that layout with an
item 0 is shifted by one, so that its item 1 is the suite's item 1 (and pairs with a local run's), and the record
says so. Those files hold only the first prediction's outcome, so their suites' policy is ``first``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from linguagym.atomic import atomic_directory
from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome, item_columns_layout, parse_item_outcomes
from linguagym.evaluation.policy import RECORD_KEY
from linguagym.evaluation.runfolder import schema
from linguagym.names import model_folders

IMPORTED_KEY = "imported"  # the key of run.json that marks imported results and says where they came from
MAX_NAME = 200


def is_imported(record: Mapping[str, Any]) -> bool:
    """Whether a ``run.json`` is of imported results."""
    return isinstance(record.get(IMPORTED_KEY), dict)


@dataclass(frozen=True)
class ImportedModel:
    """One model's outcomes from a results file, under the name it is shown by."""

    name: str
    model_in_file: str
    outcomes: tuple[ItemOutcome, ...]
    layout: str  # item_columns_layout: "paper" (first prediction only), "current" or "old" (items.csv)
    shifted: bool  # items renumbered from 0 to from 1

    @property
    def suites(self) -> list[str]:
        return list(dict.fromkeys(o.suite for o in self.outcomes))


def read_imported(raw: bytes, source: str, *, name: str = "", only: Sequence[str] = ()) -> list[ImportedModel]:
    """The models of a results file (``source`` names it in messages). ``only``: the file's models to take (default:
    all); ``name``: the shown name of a file's one model, or the prefix ``NAME: model`` of several."""
    outcomes = parse_item_outcomes(raw, source)
    header = next(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")), [])
    layout = item_columns_layout(header)
    by_model: dict[str, list[ItemOutcome]] = {}
    for outcome in outcomes:
        by_model.setdefault(outcome.model, []).append(outcome)
    missing = [model for model in only if model not in by_model]
    if missing:
        raise ConfigurationError(f"{source} has no model named {missing[0][:200]!r}",
                                 hint="its models are " + ", ".join(list(by_model)[:20]))
    chosen = [model for model in by_model if not only or model in only]
    name = name.strip()
    if len(name) > MAX_NAME:
        raise ConfigurationError(f"the name has {len(name)} characters; at most {MAX_NAME} are kept",
                                 hint="shorten the name")
    shift = layout == "paper" and any(o.item == 0 for o in outcomes)  # Hu et al. count items from 0
    models = []
    for model in chosen:
        shown = (name if len(chosen) == 1 else f"{name}: {model}") if name else model
        mine = by_model[model]
        seen: set[tuple[str, int]] = set()
        for outcome in mine:
            if (outcome.suite, outcome.item) in seen:
                raise ConfigurationError(f"{source}: {model} has item {outcome.item} of {outcome.suite} twice",
                                         hint="import a file with one row per model, suite and item")
            seen.add((outcome.suite, outcome.item))
        kept = tuple(replace(o, model=shown, item=o.item + 1 if shift else o.item) for o in mine)
        models.append(ImportedModel(shown, model, kept, layout, shift))
    return models


def write_imported(directory: str | Path, models: Sequence[ImportedModel], *, source: str, sha256: str) -> Path:
    """A run folder (``DIR/<model>/run.json`` and ``items.csv``, written whole) holding ``models``, each record
    marked ``imported`` with the file's name and checksum."""
    folders = model_folders(model.name for model in models)
    with atomic_directory(directory) as work:
        for model in models:
            folder = work / folders[model.name]
            folder.mkdir()
            (folder / schema.RUN_RECORD).write_text(json.dumps(_record(model, source, sha256), indent=2),
                                                    encoding="utf-8")
            (folder / schema.ITEMS).write_text(_items_csv(model), encoding="utf-8", newline="")
    return Path(directory)


def imported_sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _record(model: ImportedModel, source: str, sha256: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "label": model.name,
        "settings": {"model": model.name},
        "scorer": {"kind": "imported"},
        "suites": [{"name": suite} for suite in model.suites],
        IMPORTED_KEY: {"file": source, "sha256": sha256, "model_in_file": model.model_in_file,
                       "layout": model.layout, "items_shifted_by_one": model.shifted},
    }
    if model.layout == "paper":  # only the first prediction's outcome is known
        record[RECORD_KEY] = {"source": "the imported file (first prediction only)",
                              "suites": dict.fromkeys(model.suites, "first")}
    return record


def _items_csv(model: ImportedModel) -> str:
    handle = io.StringIO()
    writer = csv.writer(handle, lineterminator="\n")
    paper = model.layout == "paper"
    # the columns read_item_outcomes tells the layouts by: the paper's four, or correct_all besides
    writer.writerow(["model", "suite", "item", "correct", *(() if paper else ("correct_all",))])
    for o in model.outcomes:
        writer.writerow([o.model, o.suite, o.item, o.correct_first, *(() if paper else (o.correct_all,))])
    return handle.getvalue()
