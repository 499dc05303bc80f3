"""Capability specifications as data: one YAML (or JSON) file per capability, validated on load.

A spec has an ``id`` (``LC4``), a ``name``, a ``description`` and ``cases``. Each case searches the dataset
for the sentence ``S`` (``search``), may draw further sentences (``sources``: name -> search), may rewrite
them with a ``template`` whose ``{slots}`` are sentences or ``alternatives``, and states the ``expected``
labels. The language is documented in docs/capabilities.md; the shipped specs are in ``specs/`` (the repaired
templates, the default) and ``specs/paper/`` (the published wording of the capabilities whose templates were
repaired: ``--templates paper`` puts them in place of the shipped ones).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from linguagym.capabilities.data.datasets import LABELS
from linguagym.capabilities.data.lexicon import SENTIMENTS, WORD_CLASSES
from linguagym.capabilities.errors import CapabilityError, SettingError
from linguagym.errors import Problem
from linguagym.userfiles import MAX_TEXT_BYTES, RefusedFile, read_regular

SENTENCE = "S"
FILTERS = ("bare", "quote", "lower_first", "upper_first", "negate")
NEGATED_VERB = "verb"  # the capture the negate filter negates
NEGATION_FORM = "negation"  # the alternative that picks its form: "not" or "n't"
TEMPLATE_SETS = ("repaired", "paper")
DEFAULT_TEMPLATES = "repaired"
SLOT = re.compile(r"\{([^{}]*)\}")
SLOT_BODY = re.compile(r"^([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?((?:\|\w+)*)$")
_LENGTH = re.compile(r"^\s*(<=|>=|<|>|==)\s*(\d+)\s*$")
_SCORE = re.compile(r"^\s*(<=|>=|<|>)\s*(\d*\.?\d+)\s*$")
_NAME = re.compile(r"^[A-Za-z_]\w*$")
_ID = re.compile(r"^[A-Za-z][\w-]*$")


@dataclass(frozen=True)
class WordCondition:
    """Words of a class (or any class) whose SentiWordNet label is one of ``sentiments``."""

    word_class: str | None  # None: any word class
    sentiments: frozenset[str]
    source: str  # as written, e.g. "adjective:positive|negative"


@dataclass(frozen=True)
class PatternElement:
    """One step of a sentence-start pattern: a token (``word``/``tag``) or a ``gap`` of tokens."""

    words: frozenset[str] | None = None  # lower case alternatives
    tags: frozenset[str] | None = None
    gap: tuple[int, int] | None = None  # (min, max) tokens
    forbid_tags: frozenset[str] = frozenset()  # for gaps: tokens that may not be inside
    forbid_words: frozenset[str] = frozenset()  # for gaps: lower case words that may not be inside
    forbid_sentiments: frozenset[str] = frozenset()  # for gaps: SentiWordNet labels no word inside may have
    name: str | None = None  # capture name, usable as {S.name}
    not_followed_by: frozenset[str] = frozenset()  # lower case words that may not come next


@dataclass(frozen=True)
class Search:
    labels: frozenset[str]
    length: tuple[tuple[str, int], ...] = ()
    clauses: tuple[tuple[str, int], ...] = ()  # finite verbs and breaks after the first (``negation.clauses``)
    clause: bool = False  # S must be a clause: a subject, then a finite verb (``negation.is_clause``)
    # S holds no contrastive word (``CONTRASTIVE``): quoted as one opinion, a mixed sentence ("It's not a real film
    # of Nijinsky, but at least ...") has no single label (issue 38's blind label readers)
    unmixed: bool = False
    # bounds on the example's graded score (0..1): LC1/LC5's neutral seeds come from the middle of the neutral band,
    # where readers agree they are neutral; an example without a score (a dataset of labels only) is not bounded
    score: tuple[tuple[str, float], ...] = ()
    require: tuple[WordCondition, ...] = ()
    forbid: tuple[WordCondition, ...] = ()
    start: tuple[PatternElement, ...] = ()
    negatable: bool = False  # set for a case whose template negates S: its captured verb must be negatable, so
    # that seeds and expansions (which re-run the search) never meet a verb the negate filter refuses

    @property
    def captures(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.start if e.name)


@dataclass(frozen=True)
class Case:
    search: Search
    expected: frozenset[str]
    sources: dict[str, Search] = field(default_factory=dict)
    template: str | None = None
    alternatives: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Spec:
    id: str
    name: str
    description: str
    cases: tuple[Case, ...]
    path: str
    sha256: str


def builtin_spec_dir() -> Path:
    return Path(str(resources.files("linguagym.capabilities.seeds") / "specs"))


def paper_spec_dir() -> Path:
    """The published templates of the capabilities whose shipped templates are repaired (docs/capabilities.md)."""
    return builtin_spec_dir() / "paper"


def check_templates(templates: str) -> None:
    """SettingError unless ``templates`` names a template set (``TEMPLATE_SETS``)."""
    if templates not in TEMPLATE_SETS:
        raise SettingError("templates", f"names an unknown template set {templates!r}",
                           hint=f"use {' or '.join(TEMPLATE_SETS)} (repaired is the default)")


def load_specs(paths: list[Path] | None = None, templates: str = DEFAULT_TEMPLATES) -> list[Spec]:
    """Specs from files and directories (their ``*.yaml``, ``*.yml``, ``*.json``); the shipped 11 by default.
    Sorted by id with numbers in order (LC2 before LC10); ids must be unique. ``templates``: ``repaired`` (the
    shipped files as they are) or ``paper``, which puts the published wording in place of each shipped spec
    that has one (``specs/paper/``)."""
    check_templates(templates)
    files: list[Path] = []
    for path in paths or [builtin_spec_dir()]:
        path = Path(path)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in (".yaml", ".yml", ".json"))
            if not found:
                raise CapabilityError(f"spec directory {path} holds no .yaml, .yml or .json files")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise CapabilityError(f"spec file {path} does not exist")
    if templates == "paper":
        paper = {p.stem: p for p in paper_spec_dir().glob("*.yaml")}
        builtin = builtin_spec_dir().resolve()
        files = [paper.get(p.stem, p) if p.resolve().parent == builtin else p for p in files]
    specs = [load_spec(p) for p in files]
    seen: dict[str, str] = {}
    for spec in specs:
        if spec.id in seen:
            raise CapabilityError(f"capability id {spec.id!r} is defined twice: in {seen[spec.id]} and {spec.path}",
                                  hint="give each spec file its own id")
        seen[spec.id] = spec.path
    return sorted(specs, key=lambda s: _natural_key(s.id))


def select_specs(specs: list[Spec], wanted: str) -> list[Spec]:
    """``all`` or a comma-separated list of ids (case-insensitive; ``4`` means ``LC4``)."""
    if wanted.strip().lower() == "all":
        return specs
    by_id = {s.id.lower(): s for s in specs}
    chosen = []
    for part in filter(None, (p.strip() for p in wanted.split(","))):
        key = part.lower()
        spec = by_id.get(key) or by_id.get(f"lc{key}")
        if spec is None:
            raise CapabilityError(f"unknown capability {part!r}",
                                  hint="known: " + ", ".join(s.id for s in specs) + " (or all)")
        if spec not in chosen:
            chosen.append(spec)
    if not chosen:
        raise CapabilityError("no capability given", hint="name one or more, e.g. all or LC4,LC5")
    return chosen


def load_spec(path: str | Path) -> Spec:
    path = Path(path)
    try:
        raw = read_regular(path, limit=MAX_TEXT_BYTES, what="spec file")
        text = raw.decode("utf-8")
    except RefusedFile as refused:
        problem = "does not exist" if refused.missing else refused.problem
        raise CapabilityError(f"cannot read spec file {path}: {problem}", hint=refused.hint) from None
    except UnicodeDecodeError:
        raise CapabilityError(f"spec file {path} is not UTF-8") from None
    data = _parse(text, path)
    return parse_spec(data, str(path), hashlib.sha256(raw).hexdigest())


def parse_spec(data: Any, source: str = "<spec>", sha256: str = "") -> Spec:
    """A validated Spec from parsed YAML/JSON data; every problem is reported at once."""
    problems: list[Problem] = []
    checker = _Checker(problems)
    spec = checker.spec(data)
    if problems or spec is None:
        lines = [f"{source}: {len(problems)} problem{'s' if len(problems) != 1 else ''} in the capability spec"]
        lines += ["  " + p.render() for p in problems]
        raise CapabilityError("\n".join(lines), hint="the spec language is described in docs/capabilities.md")
    return Spec(spec["id"], spec["name"], spec["description"], spec["cases"], source, sha256)


def _parse(text: str, path: Path) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise CapabilityError(
                f"{path}, line {error.lineno}, column {error.colno}: not JSON ({error.msg})"
            ) from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(error, "problem", None) or str(error)
        raise CapabilityError(f"{path}{where}: not YAML ({reason})") from None


def _natural_key(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", text))


class _Checker:
    """Builds the spec model while collecting problems located by a JSON-path-like location."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems

    def fail(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message))

    def keys(self, data: dict, where: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
        for key in data:
            if key not in allowed:
                self.fail(f"{where}.{key}" if where else str(key), f"unknown key (allowed: {', '.join(allowed)})")
        for key in required:
            if key not in data:
                self.fail(where, f"missing required key {key!r}")

    def spec(self, data: Any) -> dict | None:
        if not isinstance(data, dict):
            self.fail("", "a spec must be a mapping with id, name, cases")
            return None
        self.keys(data, "", ("id", "name", "description", "cases"), ("id", "name", "cases"))
        spec_id = data.get("id")
        if not isinstance(spec_id, str) or not _ID.match(spec_id):
            self.fail("id", f"{spec_id!r} is not an id (letters, digits, - and _, starting with a letter)")
        for key in ("name", "description"):
            if key in data and not isinstance(data[key], str):
                self.fail(key, "must be a string")
        cases_data = data.get("cases")
        if not isinstance(cases_data, list) or not cases_data:
            self.fail("cases", "must be a non-empty list of cases")
            cases_data = []
        cases = tuple(c for i, item in enumerate(cases_data) if (c := self.case(item, f"cases[{i}]")))
        return {"id": spec_id, "name": data.get("name", ""), "description": data.get("description", ""),
                "cases": cases}

    def case(self, data: Any, where: str) -> Case | None:
        if not isinstance(data, dict):
            self.fail(where, "a case must be a mapping with search and expected")
            return None
        self.keys(data, where, ("search", "sources", "template", "alternatives", "expected"), ("search", "expected"))
        search = self.search(data.get("search"), f"{where}.search")
        sources: dict[str, Search] = {}
        raw_sources = data.get("sources", {})
        if not isinstance(raw_sources, dict):
            self.fail(f"{where}.sources", "must map slot names to searches")
            raw_sources = {}
        for name, item in raw_sources.items():
            if not isinstance(name, str) or not _NAME.match(name) or name == SENTENCE:
                self.fail(f"{where}.sources", f"bad slot name {name!r} (a name other than {SENTENCE})")
                continue
            found = self.search(item, f"{where}.sources.{name}")
            if found:
                sources[name] = found
        alternatives = self.alternatives(data.get("alternatives", {}), f"{where}.alternatives")
        template = data.get("template")
        if template is not None:
            if not isinstance(template, str) or not template.strip():
                self.fail(f"{where}.template", "must be a non-empty string")
                template = None
            elif search is not None:
                captures = {SENTENCE: search.captures, **{k: v.captures for k, v in sources.items()}}
                self.template(template, f"{where}.template", captures, alternatives)
        elif sources or alternatives:
            self.fail(where, "sources and alternatives need a template that uses them")
        expected = self.labels(data.get("expected"), f"{where}.expected")
        if search is None or expected is None:
            return None
        if isinstance(template, str) and re.search(r"\{S\|negate\b", template):
            search = replace(search, negatable=True)
        return Case(search, expected, sources, template, alternatives)

    def labels(self, value: Any, where: str) -> frozenset[str] | None:
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not values:
            self.fail(where, f"must be a label or a list of labels ({', '.join(LABELS)})")
            return None
        bad = [v for v in values if v not in LABELS]
        if bad:
            self.fail(where, f"unknown label(s) {', '.join(map(repr, bad))} (labels: {', '.join(LABELS)})")
            return None
        return frozenset(values)

    def search(self, data: Any, where: str) -> Search | None:
        if not isinstance(data, dict):
            self.fail(where, "a search must be a mapping (label, length, require, forbid, start)")
            return None
        self.keys(data, where, ("label", "length", "clauses", "clause", "unmixed", "score", "require", "forbid",
                                "start"), ("label",))
        clause = data.get("clause", False)
        if not isinstance(clause, bool):
            self.fail(f"{where}.clause", "must be true or false")
            clause = False
        unmixed = data.get("unmixed", False)
        if not isinstance(unmixed, bool):
            self.fail(f"{where}.unmixed", "must be true or false")
            unmixed = False
        labels = self.labels(data.get("label"), f"{where}.label")
        length = self.comparisons(data.get("length", []), f"{where}.length")
        clauses = self.comparisons(data.get("clauses", []), f"{where}.clauses")
        require = self.words(data.get("require", []), f"{where}.require")
        forbid = self.words(data.get("forbid", []), f"{where}.forbid")
        start = self.pattern(data.get("start", []), f"{where}.start")
        if labels is None:
            return None
        return Search(labels, length=length, clauses=clauses, clause=clause, unmixed=unmixed,
                      score=self.score_bounds(data.get("score", []), f"{where}.score"), require=require,
                      forbid=forbid, start=start)

    def score_bounds(self, raw: Any, where: str) -> tuple[tuple[str, float], ...]:
        out = []
        for item in [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else [raw]:
            match = _SCORE.match(item) if isinstance(item, str) else None
            if match is None or not 0 <= float(match.group(2)) <= 1:
                self.fail(where, f"{item!r} is not a bound on the 0..1 score such as '>= 0.45' (<, <=, >, >=)")
            else:
                out.append((match.group(1), float(match.group(2))))
        return tuple(out)

    def comparisons(self, raw: Any, where: str) -> tuple[tuple[str, int], ...]:
        if not isinstance(raw, str | list):
            self.fail(where, "must be a comparison such as '< 10', or a list of them")
            raw = []
        out = []
        for item in [raw] if isinstance(raw, str) else raw:
            match = _LENGTH.match(item) if isinstance(item, str) else None
            if match is None:
                self.fail(where, f"{item!r} is not a comparison such as '< 10' (<, <=, >, >=, ==)")
            else:
                out.append((match.group(1), int(match.group(2))))
        return tuple(out)

    def words(self, data: Any, where: str) -> tuple[WordCondition, ...]:
        if not isinstance(data, list):
            self.fail(where, "must be a list of CLASS:SENTIMENT, e.g. [adjective:positive, noun:neutral]")
            return ()
        out = []
        for i, item in enumerate(data):
            cls, sep, sentiments = str(item).partition(":")
            chosen = set(sentiments.split("|")) if sep else set()
            if not isinstance(item, str) or not sep or (cls not in WORD_CLASSES and cls != "any") or not chosen or \
                    not chosen <= set(SENTIMENTS):
                self.fail(f"{where}[{i}]", f"{item!r} is not CLASS:SENTIMENT[|SENTIMENT...] with CLASS one of "
                          f"{', '.join(WORD_CLASSES)}, any and SENTIMENT one of {', '.join(SENTIMENTS)}")
                continue
            out.append(WordCondition(None if cls == "any" else cls, frozenset(chosen), item))
        return tuple(out)

    def pattern(self, data: Any, where: str) -> tuple[PatternElement, ...]:
        if not isinstance(data, list):
            self.fail(where, "must be a list of pattern steps ({word: ...}, {tag: ...} or {gap: ...})")
            return ()
        out = []
        for i, item in enumerate(data):
            at = f"{where}[{i}]"
            if not isinstance(item, dict):
                self.fail(at, "a pattern step must be a mapping")
                continue
            self.keys(item, at, ("word", "tag", "gap", "forbid_tags", "forbid_words", "forbid_sentiments", "name",
                                 "not_followed_by"))
            sentiments = self.alternatives_of(item.get("forbid_sentiments"), f"{at}.forbid_sentiments") or frozenset()
            if not sentiments <= set(SENTIMENTS):
                self.fail(f"{at}.forbid_sentiments", f"sentiments are {', '.join(SENTIMENTS)}")
            name = item.get("name")
            if name is not None and (not isinstance(name, str) or not _NAME.match(name) or name in ("pre", "post")):
                self.fail(f"{at}.name", f"{name!r} is not a capture name (a word other than pre and post)")
                name = None
            gap = None
            if "gap" in item:
                gap = self.gap(item["gap"], f"{at}.gap")
                if "word" in item or "tag" in item:
                    self.fail(at, "a step is a token (word/tag) or a gap, not both")
            elif "word" not in item and "tag" not in item:
                self.fail(at, "a step needs word, tag or gap")
            out.append(PatternElement(
                words=self.alternatives_of(item.get("word"), f"{at}.word", lower=True),
                tags=self.alternatives_of(item.get("tag"), f"{at}.tag"),
                gap=gap,
                forbid_tags=self.alternatives_of(item.get("forbid_tags"), f"{at}.forbid_tags") or frozenset(),
                forbid_words=self.alternatives_of(item.get("forbid_words"), f"{at}.forbid_words", lower=True)
                or frozenset(),
                forbid_sentiments=sentiments,
                name=name,
                not_followed_by=self.alternatives_of(item.get("not_followed_by"), f"{at}.not_followed_by", lower=True)
                or frozenset(),
            ))
        return tuple(out)

    def gap(self, value: Any, where: str) -> tuple[int, int] | None:
        if isinstance(value, dict) and set(value) <= {"min", "max"}:
            low, high = value.get("min", 0), value.get("max")
            if isinstance(low, int) and isinstance(high, int) and 0 <= low <= high:
                return (low, high)
        self.fail(where, "must be {min: M, max: N} with 0 <= M <= N (max is required)")
        return None

    def alternatives_of(self, value: Any, where: str, lower: bool = False) -> frozenset[str] | None:
        if value is None:
            return None
        items = value.split("|") if isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(isinstance(v, str) and v for v in items):
            note = " (YAML reads bare yes/no/on/off as booleans: quote them)" if isinstance(items, list) and any(
                isinstance(v, bool) for v in items) else ""
            self.fail(where, "must be 'a|b|c' or a list of strings" + note)
            return None
        return frozenset(v.lower() if lower else v for v in items)

    def alternatives(self, data: Any, where: str) -> dict[str, tuple[str, ...]]:
        if not isinstance(data, dict):
            self.fail(where, "must map slot names to lists of strings")
            return {}
        out = {}
        for name, values in data.items():
            if not isinstance(name, str) or not _NAME.match(name) or name == SENTENCE:
                self.fail(where, f"bad slot name {name!r}")
            elif not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                self.fail(f"{where}.{name}", "must be a non-empty list of strings")
            else:
                out[name] = tuple(values)
        return out

    def template(self, template: str, where: str, captures: dict[str, tuple[str, ...]],
                 alternatives: dict[str, tuple[str, ...]]) -> None:
        used = set()
        leftover = SLOT.sub("", template)
        if "{" in leftover or "}" in leftover:
            self.fail(where, "unbalanced { or } in the template")
        for body in SLOT.findall(template):
            match = SLOT_BODY.match(body)
            if match is None:
                self.fail(where, f"slot {{{body}}} is not {{name}}, {{name.part}} or {{name|filter}}")
                continue
            name, part, filters = match.group(1), match.group(2), [f for f in match.group(3).split("|") if f]
            used.add(name)
            if name in captures:
                if part and part not in ("pre", "post", *captures[name]):
                    self.fail(where, f"slot {{{body}}}: {name} has no part {part!r} (parts: pre, post and the "
                              f"start pattern's names {', '.join(captures[name]) or '(none)'})")
            elif name in alternatives:
                if part or filters:
                    self.fail(where, f"slot {{{body}}}: alternatives take no part or filter")
            else:
                self.fail(where, f"slot {{{body}}}: {name!r} is neither a sentence ({', '.join(captures)}) nor "
                          "one of the alternatives")
            for name_of_filter in filters:
                if name_of_filter not in FILTERS:
                    self.fail(where, f"slot {{{body}}}: unknown filter {name_of_filter!r} ({', '.join(FILTERS)})")
            if "negate" in filters:
                if part or NEGATED_VERB not in captures.get(name, ()) or filters[0] != "negate":
                    self.fail(where, f"slot {{{body}}}: negate comes first and takes a whole sentence whose start "
                              f"pattern names its verb {NEGATED_VERB!r} (name: {NEGATED_VERB})")
                used.add(NEGATION_FORM)  # the negate filter reads the form from this alternative, if there is one
                forms = alternatives.get(NEGATION_FORM, ("not",))
                if not set(forms) <= {"not", "n't"}:
                    self.fail(where, f"alternatives {NEGATION_FORM!r} of a negate filter must be \"not\" or \"n't\"")
        for name in [*captures, *alternatives]:
            if name not in used:
                self.fail(where, f"{name!r} is never used in the template")
