"""A spreadsheet into a suite: a CSV or TSV file with a row per sentence, columns ``item``, ``condition``, then one
column per region (the header names the regions, in order: the first region column is region 1).

Predictions are formulas over those regions (``(2;%ungrammatical%) > (2;%grammatical%)``), given on the command
line or in a sidecar file beside the table, ``NAME.predictions`` (one formula a line; ``#`` starts a comment).
Every item must have every condition, each once: a row that breaks this is named by its line.
"""

from __future__ import annotations

from pathlib import Path

from linguagym.errors import FormulaError
from linguagym.importers.common import checked, input_error, read_text, suite_name, table_rows, whole_number
from linguagym.suites.formula import parse_formula, region_refs
from linguagym.suites.metrics import METRIC_NAMES
from linguagym.suites.model import Condition, Item, Prediction, Region, Suite, SuiteMeta

ITEM = ("item", "item_number")
CONDITION = ("condition", "condition_name")


def sidecar_path(path: str | Path) -> Path:
    """Where a table's predictions may be kept: ``NAME.predictions`` beside ``NAME.csv``."""
    path = Path(path)
    return path.with_name(path.stem + ".predictions")


def read_predictions_file(path: str | Path) -> list[tuple[str, str]]:
    """The formulas of a predictions file, each with where it came from (``FILE:LINE``)."""
    formulas = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            formulas.append((text, f"{path}:{number}"))
    return formulas


def read_table(path: str | Path, predictions: list[str] | None = None, *, name: str | None = None,
               predictions_file: str | Path | None = None, metric: str = "sum") -> Suite:
    """One suite from a table. Predictions: ``predictions`` (formulas), else ``predictions_file``, else the
    sidecar ``NAME.predictions`` when there is one."""
    path = Path(path)
    header, rows = table_rows(path)
    item_column = next((c for c in ITEM if c in header), None)
    condition_column = next((c for c in CONDITION if c in header), None)
    if item_column is None or condition_column is None:
        missing = "item" if item_column is None else "condition"
        raise input_error(path, 1, f"no {missing!r} column (the columns are {', '.join(header)})",
                          hint="the header is: item, condition, then one column per region")
    region_names = tuple(c for c in header if c not in (item_column, condition_column))
    if not region_names:
        raise input_error(path, 1, "no region columns after item and condition",
                          hint="add a column per region; the header names the regions")
    if metric not in METRIC_NAMES:
        raise input_error(path, None, f"unknown metric {metric!r}", hint=f"use one of {', '.join(METRIC_NAMES)}")
    if not rows:
        raise input_error(path, None, "holds no rows under its header")
    items: dict[int, dict[str, tuple[int, Condition]]] = {}
    for line, row in rows:
        number = whole_number(row[item_column])
        if number is None:
            raise input_error(path, line, f"item must be a whole number, found {row[item_column][:40]!r}")
        condition = row[condition_column].strip()
        if not condition:
            raise input_error(path, line, "the condition is empty", hint="name the row's condition")
        conditions = items.setdefault(number, {})
        if condition in conditions:
            raise input_error(path, line, f"item {number} has condition {condition!r} twice (also on line "
                              f"{conditions[condition][0]})", hint="give each item each condition once")
        regions = tuple(Region(i, row[name].strip()) for i, name in enumerate(region_names, start=1))
        conditions[condition] = (line, Condition(condition, regions))
    _check_complete(path, items)
    formulas = _formulas(path, predictions, predictions_file)
    parsed = []
    conditions_named = list(dict.fromkeys(c for conditions in items.values() for c in conditions))
    for text, where in formulas:
        try:
            prediction = Prediction(parse_formula(text).tree)
        except FormulaError as error:
            raise input_error(where, None, f"the prediction {text!r} does not parse: {error.message}",
                              hint=f"regions are numbered by column: {_region_numbers(region_names)}") from None
        for ref in region_refs(prediction.tree):
            if ref.region is not None and not 1 <= ref.region <= len(region_names):
                raise input_error(where, None, f"the prediction {text!r} names region {ref.region}, but the table "
                                  f"has {len(region_names)}", hint=f"regions: {_region_numbers(region_names)}")
            if ref.condition not in conditions_named:
                raise input_error(where, None, f"the prediction {text!r} names condition {ref.condition!r}, which "
                                  "the table does not have", hint=f"conditions: {', '.join(conditions_named)}")
        parsed.append(prediction)
    suite_items = tuple(Item(number, tuple(c for _, c in conditions.values())) for number, conditions in items.items())
    extra = {"source": "table", "imported_from": path.name}
    suite = Suite(SuiteMeta(suite_name(path, name), metric, extra), region_names,
                  tuple(p for p in parsed if p.suite_level is None), suite_items,
                  tuple(p for p in parsed if p.suite_level is not None))  # mean(x) > 0: over items, apart
    return checked(suite, str(path))


def _check_complete(path: Path, items: dict[int, dict[str, tuple[int, Condition]]]) -> None:
    """Every item has every condition named anywhere in the table."""
    every = list(dict.fromkeys(c for conditions in items.values() for c in conditions))
    for number, conditions in items.items():
        missing = [c for c in every if c not in conditions]
        if missing:
            first_line = min(line for line, _ in conditions.values())
            raise input_error(path, first_line, f"item {number} lacks condition(s) {', '.join(map(repr, missing))}",
                              hint="every item needs a row for each condition: " + ", ".join(every))


def _formulas(path: Path, given: list[str] | None, predictions_file: str | Path | None) -> list[tuple[str, str]]:
    if given:
        return [(text, f"prediction {i}") for i, text in enumerate(given, start=1)]
    source = Path(predictions_file) if predictions_file else sidecar_path(path)
    if predictions_file or source.is_file():
        formulas = read_predictions_file(source)
        if formulas:
            return formulas
    raise input_error(path, None, "no predictions",
                      hint=f"give `predictions` (formulas), or write the formulas into {sidecar_path(path)}, "
                      "one a line, e.g. (2;%ungrammatical%) > (2;%grammatical%)", settings=["predictions"])


def _region_numbers(region_names: tuple[str, ...]) -> str:
    return ", ".join(f"{i} = {name}" for i, name in enumerate(region_names, start=1))
