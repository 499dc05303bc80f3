"""Reading suite JSON (both dialects) into a validated Suite, with every problem and warning located."""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from linguagym.errors import FormulaError, Problem, SuiteError
from linguagym.strict_json import data_problems, decode_json, json_path, nesting_problem
from linguagym.suites.formula import (
    Aggregate,
    Arithmetic,
    Comparison,
    Number,
    RegionRef,
    RegionSum,
    Relation,
    parse_formula,
    references,
)
from linguagym.suites.metrics import METRIC_NAMES
from linguagym.suites.model import Condition, Item, Prediction, Region, Suite, SuiteMeta
from linguagym.suites.schema import schema_problems
from linguagym.suites.schema_memo import known_valid, memo_key, remember_valid
from linguagym.userfiles import RefusedFile, read_regular

_RELATIONS: dict[str, Relation] = {"lessthan": "<", "equals": "=", "greaterthan": ">"}
_KNOWN_META = ("name", "metric")
MAX_SUITE_BYTES = 64 * 2**20  # the largest SyntaxGym suite is 0.23 MB
_REGION_KEY = re.compile(r"[0-9]+")  # fullmatch: the schema's "^[0-9]+$" lets "1\n" through in Python
_MAX_REGION_DIGITS = 9


class SuiteNormalizationWarning(UserWarning):
    """Something in a suite file was accepted but normalised (see the message)."""


@dataclass(frozen=True)
class LoadedSuite:
    suite: Suite
    warnings: tuple[Problem, ...]
    dialect: str  # "formula" (current) or "website" (l_operand/relation/r_operand)


def read_suite(path: str | Path) -> LoadedSuite:
    """Load and validate a suite file; raises SuiteError listing every problem found."""
    path = Path(path)
    source = str(path)
    raw = _read_bytes(path, source)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        problem = Problem(f"line {line}, byte {error.start}", "not UTF-8 text; save the file as UTF-8")
        raise SuiteError(source, [problem]) from None
    return parse_suite_text(text, source=source)


def _read_bytes(path: Path, source: str) -> bytes:
    """The bytes of a regular file of at most MAX_SUITE_BYTES; a FIFO, a device or a directory is refused before
    it is read (``userfiles.read_regular``)."""
    try:
        return read_regular(path, limit=MAX_SUITE_BYTES, what="suite file")
    except RefusedFile as refused:
        raise SuiteError(source, [Problem("", refused.problem)]) from None


def load_suite(path: str | Path) -> Suite:
    """Load a suite, reporting normalisations as Python warnings (SuiteNormalizationWarning)."""
    loaded = read_suite(path)
    for problem in loaded.warnings:
        warnings.warn(problem.render(str(path)), SuiteNormalizationWarning, stacklevel=2)
    return loaded.suite


def parse_suite_text(text: str, *, source: str | None = None) -> LoadedSuite:
    if not text.strip():
        raise SuiteError(source, [Problem("", "the file is empty; a suite is a JSON object")])
    if too_deep := nesting_problem(text):
        raise SuiteError(source, [too_deep])
    try:
        data = decode_json(text)
    except json.JSONDecodeError as error:
        problem = Problem(f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}")
        raise SuiteError(source, [problem]) from None
    except RecursionError:  # only if the caller's own stack is nearly full: nesting_problem bounds the depth
        raise SuiteError(source, [Problem("", "nested too deeply to read")]) from None
    key = memo_key(text)
    checked = known_valid(key)
    loaded = parse_suite_data(data, source=source, schema_checked=checked)
    if not checked:
        remember_valid(key)  # (reached only without problems)
    return loaded


def parse_suite_data(data: object, *, source: str | None = None, schema_checked: bool = False) -> LoadedSuite:
    """Validate already-decoded JSON data and build the Suite. ``schema_checked``: this exact text passed the
    schema before (``schema_memo``), so the schema is not applied again; every other check is."""
    if problems := data_problems(data):
        raise SuiteError(source, problems)
    if not isinstance(data, dict):
        kind = "an array" if isinstance(data, list) else "a string" if isinstance(data, str) else type(data).__name__
        problem = Problem(
            "", f"the top level is {kind}; a suite is a JSON object with meta, region_meta, "
            "predictions and items"
        )
        raise SuiteError(source, [problem])
    problems = [] if schema_checked else schema_problems(data)
    if problems:
        raise SuiteError(source, problems)
    builder = _SuiteBuilder(data)
    suite = builder.build()
    if builder.problems:
        raise SuiteError(source, builder.problems)
    return LoadedSuite(suite, tuple(builder.warnings), builder.dialect)


class _SuiteBuilder:
    """Semantic checks beyond the schema; collects every problem before giving up."""

    def __init__(self, data: dict) -> None:
        self.data = data
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.dialect = "formula"

    def build(self) -> Suite:
        region_names = self.region_names()
        items = self.items(len(region_names))
        predictions = self.predictions(len(region_names), items)
        meta = self.meta()
        # suite-level predictions apart: item accuracy counts only the predictions evaluated per item
        return Suite(meta, region_names, tuple(p for p in predictions if p.suite_level is None), items,
                     tuple(p for p in predictions if p.suite_level is not None))

    def meta(self) -> SuiteMeta:
        meta = self.data["meta"]
        metric = meta.get("metric", "sum")
        if isinstance(metric, list):
            metric = tuple(metric)
        extra = {key: value for key, value in meta.items() if key not in _KNOWN_META}
        return SuiteMeta(name=meta["name"], metric=metric, extra=extra)

    def region_names(self) -> tuple[str, ...]:
        declared: dict[int, str] = {}
        keys: dict[int, str] = {}
        for key, name in self.data["region_meta"].items():
            where = json_path(("region_meta", key))
            if not _REGION_KEY.fullmatch(key):
                self.problems.append(Problem(where, f"region_meta keys are region numbers (\"1\", \"2\", ...); "
                                             f"found {key!r}"))
            elif len(key.lstrip("0")) > _MAX_REGION_DIGITS:
                shown = key if len(key) <= 20 else f"{key[:20]}..."
                self.problems.append(Problem(where, f"region number {shown} is too large"))
            elif (number := int(key)) in declared:
                self.problems.append(Problem(where, f"keys {keys[number]!r} and {key!r} both name region {number}; "
                                             "give each region once"))
            else:
                declared[number], keys[number] = name, key
        expected = range(1, len(declared) + 1)
        if sorted(declared) != list(expected):
            missing = sorted(set(expected) - set(declared))
            self.problems.append(
                Problem(
                    "region_meta",
                    f"region numbers must run from 1 without gaps; found {_listing(sorted(declared))}"
                    + (f" (missing {_listing(missing)})" if missing else ""),
                )
            )
            return tuple(declared[k] for k in sorted(declared))
        return tuple(declared[number] for number in expected)

    def items(self, region_count: int) -> tuple[Item, ...]:
        seen_numbers: dict[int, int] = {}
        stripped = 0
        items = []
        first_conditions: list[str] | None = None
        for i, raw_item in enumerate(self.data["items"]):
            where = f"items[{i}]"
            number = raw_item["item_number"]
            if number in seen_numbers:
                self.problems.append(
                    Problem(f"{where}.item_number", f"item number {number} is already used by "
                            f"items[{seen_numbers[number]}]; item numbers must be unique")
                )
            seen_numbers.setdefault(number, i)
            conditions = []
            names_here: dict[str, int] = {}
            for j, raw_condition in enumerate(raw_item["conditions"]):
                cwhere = f"{where}.conditions[{j}]"
                name = raw_condition["condition_name"]
                if name in names_here:
                    self.problems.append(
                        Problem(f"{cwhere}.condition_name", f"condition {name!r} appears twice in this "
                                f"item (also {where}.conditions[{names_here[name]}])")
                    )
                    continue
                names_here[name] = j
                regions, stripped_here = self.regions(raw_condition["regions"], region_count, cwhere)
                stripped += stripped_here
                conditions.append(Condition(name, regions))
            if first_conditions is None:
                first_conditions = list(names_here)
            else:
                self.check_same_conditions(where, first_conditions, names_here)
            items.append(Item(number, tuple(conditions)))
        self.check_words(items)
        if stripped:
            self.warnings.append(
                Problem("items", f"stripped leading/trailing spaces from {stripped} region"
                        f"{'s' if stripped != 1 else ''}")
            )
        return tuple(items)

    def check_words(self, items: list[Item]) -> None:
        """Refuse sentences with no words at all: they score 0 bits everywhere, so every prediction would be a
        tie (or a vacuous success) that looks like a result. Single empty regions stay valid (common)."""
        empty = [i for i, item in enumerate(items)
                 if item.conditions and not any(region.content for c in item.conditions for region in c.regions)]
        if items and len(empty) == len(items):
            self.problems.append(
                Problem("items", "every region of every condition is empty, so there is no sentence to score; "
                        "write each condition's sentence into its regions' \"content\"")
            )
            return
        for i in empty:
            self.problems.append(
                Problem(f"items[{i}].conditions", "every region of every condition of this item is empty, so it "
                        "tests nothing; fill in its regions' \"content\" or delete the item")
            )

    def check_same_conditions(self, where: str, first: list[str], here: Iterable[str]) -> None:
        missing = [name for name in first if name not in here]
        extra = [name for name in here if name not in first]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"lacks {_listing(missing, quote=True)}")
            if extra:
                parts.append(f"adds {_listing(extra, quote=True)}")
            self.problems.append(
                Problem(f"{where}.conditions", f"this item {' and '.join(parts)} compared with items[0]; "
                        "every item needs the same set of conditions")
            )

    def regions(self, raw_regions: list, region_count: int, where: str) -> tuple[tuple[Region, ...], int]:
        by_number: dict[int, Region] = {}
        stripped = 0
        for k, raw_region in enumerate(raw_regions):
            number = raw_region["region_number"]
            content = raw_region["content"]
            rwhere = f"{where}.regions[{k}].region_number"
            if number > region_count:
                self.problems.append(
                    Problem(rwhere, f"region {number} is not declared in region_meta "
                            f"(which declares 1..{region_count})")
                )
                continue
            if number in by_number:
                self.problems.append(Problem(rwhere, f"region {number} appears twice in this condition"))
                continue
            if content != content.strip():
                stripped += 1
                content = content.strip()
            values, oovs = self.scores(raw_region, f"{where}.regions[{k}]")
            by_number[number] = Region(number, content, values, oovs)
        missing = [n for n in range(1, region_count + 1) if n not in by_number]
        if missing and region_count:
            self.problems.append(
                Problem(f"{where}.regions", f"missing region{'s' if len(missing) > 1 else ''} "
                        f"{_listing(missing)}; every condition has all {region_count} regions of "
                        "region_meta (use \"content\": \"\" for an empty one)")
            )
        return tuple(by_number[n] for n in sorted(by_number)), stripped

    def scores(self, raw_region: dict, where: str) -> tuple[dict[str, float] | None, tuple[str, ...]]:
        """A scored suite's region values ("metric_value": metric -> bits, null where undefined) and unknown
        words ("oovs"), as syntaxgym-core and ``linguagym run`` write them; (None, ()) where absent."""
        raw_values, raw_oovs = raw_region.get("metric_value"), raw_region.get("oovs", [])
        values = None
        if raw_values is not None:
            if not isinstance(raw_values, dict):
                self.problems.append(Problem(f"{where}.metric_value", "expected an object of metric values "
                                             f'({{"sum": 12.5, ...}}), found {type(raw_values).__name__}'))
            else:
                values = {}
                for name, value in raw_values.items():
                    if name not in METRIC_NAMES:
                        self.problems.append(Problem(f"{where}.metric_value", f"unknown metric {name!r}; use "
                                                     f"{', '.join(METRIC_NAMES)}"))
                    elif value is None:
                        values[name] = math.nan  # undefined: a metric other than sum of an empty region
                    elif isinstance(value, int | float) and not isinstance(value, bool):
                        values[name] = float(value)
                    else:
                        self.problems.append(Problem(f"{where}.metric_value.{name}", "expected a number (bits) or "
                                                     f"null, found {value!r}"))
        if not (isinstance(raw_oovs, list) and all(isinstance(word, str) for word in raw_oovs)):
            self.problems.append(Problem(f"{where}.oovs", "expected a list of words (the region's unknown ones)"))
            raw_oovs = []
        return values, tuple(raw_oovs)

    def predictions(self, region_count: int, items: tuple[Item, ...]) -> tuple[Prediction, ...]:
        predictions = []
        brackets = double_equals = 0
        for i, raw in enumerate(self.data["predictions"]):
            where = f"predictions[{i}]"
            if "formula" in raw:
                if "aggregate" in raw:
                    self.problems.append(Problem(f"{where}.aggregate", "\"aggregate\" belongs to a website-dialect "
                                                 "prediction; in a formula write it: mean((2;%a%) - (2;%b%)) > 0"))
                    continue
                try:
                    parsed = parse_formula(raw["formula"])
                except FormulaError as error:
                    self.problems.append(Problem(f"{where}.formula", error.reason, error.pointer()))
                    continue
                brackets += parsed.used_brackets
                double_equals += parsed.used_double_equals
                tree = parsed.tree
            else:
                self.dialect = "website"
                region = raw["region_number"]
                left, right = RegionRef(region, raw["l_operand"]), RegionRef(region, raw["r_operand"])
                if "aggregate" in raw:  # over items: the mean (median) of left - right, related to 0
                    tree = Comparison(_RELATIONS[raw["relation"]],
                                      Aggregate(raw["aggregate"], Arithmetic("-", left, right)), Number(0.0))
                else:
                    tree = Comparison(_RELATIONS[raw["relation"]], left, right)
            if self.check_references(where, tree, region_count, items):
                # (the schema checked atol and rtol: numbers of at least 0)
                atol, rtol = raw.get("atol"), raw.get("rtol")
                predictions.append(Prediction(tree, None if atol is None else float(atol),
                                              None if rtol is None else float(rtol)))
        levels = [p.suite_level is not None for p in predictions]
        if any(before and not after for after, before in zip(levels[1:], levels, strict=False)):
            self.warnings.append(Problem("predictions", "a suite-level prediction comes before an item prediction: "
                                         "item predictions are numbered among themselves (the `prediction` column "
                                         "of predictions.csv); upgrade writes the suite-level ones last"))
        if brackets:
            self.warnings.append(Problem("predictions", f"read '[ ]' as '( )' in {brackets} formula"
                                         f"{'s' if brackets != 1 else ''}"))
        if double_equals:
            self.warnings.append(Problem("predictions", f"read '==' as '=' in {double_equals} formula"
                                         f"{'s' if double_equals != 1 else ''}"))
        return tuple(predictions)

    def check_references(self, where: str, tree, region_count: int, items: tuple[Item, ...]) -> bool:
        ok = True
        for ref in dict.fromkeys(references(tree)):
            regions = [r.region for r in (ref.refs if isinstance(ref, RegionSum) else (ref,))]
            undeclared = [n for n in regions if n is not None and not 1 <= n <= region_count]
            if undeclared:
                ok = False
                shown = _listing(undeclared[:5]) + (f" and {len(undeclared) - 5} more" if len(undeclared) > 5 else "")
                self.problems.append(
                    Problem(where, f"{ref} refers to region{'s' if len(undeclared) > 1 else ''} {shown}, which "
                            f"region_meta does not declare (it declares 1..{region_count})")
                )
            lacking = [item.number for item in items if ref.condition not in
                       {c.name for c in item.conditions}]
            if lacking:
                ok = False
                shown = _listing(lacking[:5]) + (f" and {len(lacking) - 5} more" if len(lacking) > 5 else "")
                self.problems.append(
                    Problem(where, f"{ref} names condition {ref.condition!r}, which item"
                            f"{'s' if len(lacking) > 1 else ''} {shown} "
                            f"{'do' if len(lacking) > 1 else 'does'} not have")
                )
        return ok


def _listing(values: Iterable[object], *, quote: bool = False) -> str:
    return ", ".join(repr(v) if quote else str(v) for v in values)
