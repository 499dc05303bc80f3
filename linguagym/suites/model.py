"""The in-memory test suite: immutable, validated, one shape for both JSON dialects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from linguagym.suites.formula import Expr, SuiteLevel, Tolerance, format_formula, region_refs, suite_level
from linguagym.suites.metrics import METRIC_NAMES


@dataclass(frozen=True)
class Region:
    number: int  # from 1
    content: str  # stripped natural text; may be empty
    # A scored suite's (a run's suites/NAME.json, syntaxgym-core's output): metric -> value in bits (NaN where
    # undefined), from "metric_value", and the unknown words, from "oovs". None and () in a suite to be run.
    values: Mapping[str, float] | None = field(default=None, hash=False)
    oovs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Condition:
    name: str
    regions: tuple[Region, ...]  # ordered by number, numbers 1..n

    def content(self, number: int) -> str:
        return self.regions[number - 1].content


@dataclass(frozen=True)
class Item:
    number: int
    conditions: tuple[Condition, ...]  # in file order; look them up by name, never by position

    def condition(self, name: str) -> Condition:
        for condition in self.conditions:
            if condition.name == name:
                return condition
        raise KeyError(f"item {self.number} has no condition {name!r}")


@dataclass(frozen=True)
class Prediction:
    tree: Expr
    # the prediction's own tolerance ("atol"/"rtol" beside its formula in the suite JSON); None: the run's
    atol: float | None = None
    rtol: float | None = None

    def tolerance(self, run: Tolerance) -> Tolerance:
        """The tolerance this prediction is evaluated with: its own atol/rtol where it states them, else the run's
        (the tie rule is always the run's)."""
        if self.atol is None and self.rtol is None:
            return run
        return replace(run, atol=run.atol if self.atol is None else self.atol,
                       rtol=run.rtol if self.rtol is None else self.rtol)

    @property
    def formula(self) -> str:
        return format_formula(self.tree)

    @property
    def conditions(self) -> tuple[str, ...]:
        """Condition names used, in order of first appearance."""
        return tuple(dict.fromkeys(ref.condition for ref in region_refs(self.tree)))

    @property
    def suite_level(self) -> SuiteLevel | None:
        """The parts of a suite-level prediction (``mean(x) > 0``: over items); None for one evaluated per item."""
        return suite_level(self.tree)


@dataclass(frozen=True)
class SuiteMeta:
    name: str
    metric: str | tuple[str, ...] = "sum"  # as written: a metric, a list of metrics, or "all"
    extra: Mapping[str, object] = field(default_factory=dict)  # author, reference, comment, anything else

    @property
    def metrics(self) -> tuple[str, ...]:
        """Every metric to compute and report; the first is the primary one."""
        if self.metric == "all":
            return METRIC_NAMES  # starts with "sum", the primary metric for "all"
        if isinstance(self.metric, str):
            return (self.metric,)
        return self.metric

    @property
    def primary_metric(self) -> str:
        """The metric predictions are evaluated on."""
        return self.metrics[0]


@dataclass(frozen=True)
class Suite:
    meta: SuiteMeta
    region_names: tuple[str, ...]  # region_names[i] names region i + 1 (display only)
    predictions: tuple[Prediction, ...]  # evaluated on each item: what item accuracy counts
    items: tuple[Item, ...]
    # suite-level predictions (``mean((2;%a%) - (2;%b%)) > 0``): evaluated once over the items, never per item, so
    # they are no part of item accuracy (evaluation/suite_level.py); in the JSON, in "predictions" with the others
    suite_predictions: tuple[Prediction, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def condition_names(self) -> tuple[str, ...]:
        """Condition names in the order of the first item (every item has the same set)."""
        return tuple(c.name for c in self.items[0].conditions) if self.items else ()

    @property
    def region_count(self) -> int:
        return len(self.region_names)
