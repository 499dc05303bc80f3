"""The item-level outcomes of one suite in a run's model folders (their ``predictions.csv``): whether each
prediction holds on each item for each model, and which items fail or split the models (the web app's item list
and its filters, and previous/next on an item's page)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from linguagym.errors import ConfigurationError
from linguagym.evaluation.evaluate import POLICIES
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import RunData

ITEM_FILTERS = {
    "all": "every item",
    "failing": "items that fail for at least one model",
    "disagree": "items on which the models disagree about at least one prediction",
}


@dataclass(frozen=True)
class ItemTable:
    suite: str
    models: tuple[str, ...]  # in the order of the run's folders
    formulas: dict[int, str]  # prediction index -> formula, in order
    outcomes: dict[int, dict[str, dict[int, bool]]]  # item -> model -> prediction index -> holds; items in order

    @property
    def items(self) -> list[int]:
        return list(self.outcomes)

    def correct(self, item: int, model: str, policy: str = "all") -> bool | None:
        """Whether ``item`` is correct for ``model`` under ``policy`` (None: the model has no result for it)."""
        found = self.outcomes.get(item, {}).get(model)
        if found is None:
            return None
        return found.get(0, True) if policy == "first" else all(found.values())

    def failing(self, item: int, policy: str = "all") -> bool:
        return any(self.correct(item, model, policy) is False for model in self.models)

    def disagreeing(self, item: int) -> bool:
        """Some prediction holds for one model and not for another (never, with one model)."""
        by_model = self.outcomes.get(item, {})
        return any(len({holds[index] for holds in by_model.values() if index in holds}) > 1 for index in self.formulas)

    def filtered(self, kind: str = "all", policy: str = "all") -> list[int]:
        """The items ``kind`` (``ITEM_FILTERS``) keeps, in order."""
        if kind not in ITEM_FILTERS:
            raise ConfigurationError(f"unknown item filter {kind!r}", hint="use one of " + ", ".join(ITEM_FILTERS))
        if policy not in POLICIES:
            raise ConfigurationError(f"unknown prediction policy {policy!r}", hint="use 'all' or 'first'")
        if kind == "failing":
            return [item for item in self.outcomes if self.failing(item, policy)]
        if kind == "disagree":
            return [item for item in self.outcomes if self.disagreeing(item)]
        return self.items

    def neighbours(self, item: int, kind: str = "all", policy: str = "all") -> tuple[int | None, int | None]:
        """The items before and after ``item`` among those ``kind`` keeps (an item outside them: its neighbours in
        the suite's order among them)."""
        kept = self.filtered(kind, policy)
        before = [i for i in kept if self._position(i) < self._position(item)]
        after = [i for i in kept if self._position(i) > self._position(item)]
        return (before[-1] if before else None), (after[0] if after else None)

    def _position(self, item: int) -> int:
        return self.items.index(item)


def read_item_table(runs: Iterable[RunData], suite: str) -> ItemTable:
    """The outcomes of ``suite`` in each model folder of a run (``runfolder.reader.find_runs``); models without the
    suite are left out, and a table with no model means the run has no such suite."""
    models: list[str] = []
    formulas: dict[int, str] = {}
    outcomes: dict[int, dict[str, dict[int, bool]]] = {}
    for run in runs:
        for row in run.prediction_rows():
            if row["suite"] != suite:
                continue
            if row["model"] not in models:
                models.append(row["model"])
            index = int(row["prediction"])
            formulas.setdefault(index, row["formula"])
            cell = outcomes.setdefault(int(row["item"]), {}).setdefault(row["model"], {})
            cell[index] = schema.is_true(row["holds"])
    return ItemTable(suite, tuple(models), dict(sorted(formulas.items())), dict(sorted(outcomes.items())))
