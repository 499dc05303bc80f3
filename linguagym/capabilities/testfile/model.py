"""The capability-test file as typed, frozen values: ``CapabilityTestFile`` holds how the suite was made
(``CreatedBy``, ``DatasetInfo``, ``GenerationSettings``, the ``lexicon``, ``tagger`` and ``expansion`` blocks),
one ``CapabilityInfo`` per capability and the ``CapabilityTest`` list, each test with its ``Provenance`` (the
dataset rows it came from as ``SourceRow``, and for an expansion its seed, masks as ``Mask``, fills and scores).

Each class mirrors one JSON object of the file (``schema/capability-tests.schema.json``) as a
``json_object.JsonObject``: ``to_json`` gives back exactly the object it was read from (``from_json``), the same keys
in the same order, keys the model does not name kept in ``extra``. So a file read and written again is
byte-identical. Keys the schema does not describe (a provenance's ``rows``, ``case``, ``template`` ...) become typed
fields only when their value has the shape the generator writes; any other value stays in ``extra`` as it was, so a
file the schema accepts is never refused.

Reading and writing files, with validation, is the ``testfile`` package's work (``read_tests``, ``parse_tests``,
``load_document``, ``write_tests``); ``from_json`` expects a document that passed ``testfile.validate_document``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from linguagym.capabilities.testfile.checklist_types import DIR, INV, MFT, TestTypeCode
from linguagym.capabilities.testfile.checklist_types import TEST_TYPES as CHECKLIST_TYPES
from linguagym.capabilities.testfile.json_object import (
    JsonObject,
    is_int,
    is_number,
    is_string_map,
    is_strings,
    plain,
    take_checked,
)
from linguagym.notebook_view import html_view, text_view

FORMAT = "linguagym-capability-tests"
VERSION = 1
# A file with INV or DIR tests is version 2: linguagym before them reads version 1 only, and would otherwise take
# every perturbed pair for an expected-label test. Files of expected-label tests only stay version 1.
CHECKLIST_VERSION = 2

Label = Literal["negative", "neutral", "positive"]
Kind = Literal["seed", "expansion"]
# CheckList's test types (Ribeiro et al. 2020), their pass rules and labels: ``checklist_types``; here their codes
# as the file spells them (a test without a ``type`` is an MFT)
TestType = TestTypeCode
TEST_TYPES: tuple[TestType, ...] = tuple(t.code for t in CHECKLIST_TYPES.values())
# what `lct generate`, the web app and generate_tests write unless told otherwise: the paper's tests, and CheckList's
# invariance and directional pairs made from them (reported apart)
DEFAULT_TEST_TYPES: tuple[TestType, ...] = TEST_TYPES
# an INV/DIR test's ``provenance.perturbation`` -> its test type, in the order they are made and reported
PERTURBATION_TYPES: dict[str, TestType] = {"expansion": INV.code, "typo": INV.code, "contraction": INV.code,
                                           "names": INV.code, "places": INV.code, "negation": DIR.code}


@dataclass(frozen=True, kw_only=True)
class CreatedBy(JsonObject):
    KEYS = ("tool", "version")

    tool: str
    version: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CreatedBy:
        return cls._read(data, {"tool": data["tool"], "version": data["version"]})


@dataclass(frozen=True, kw_only=True)
class DatasetInfo(JsonObject):
    """The labelled dataset the seeds were searched in (``Dataset.describe``)."""

    KEYS = ("name", "source", "sha256", "rows", "labels", "label_rule")
    OPTIONAL = frozenset({"labels"})

    name: str
    source: str
    rows: int
    label_rule: str
    sha256: str | None = None  # of the source file, where there is one file
    labels: Mapping[str, Any] | None = None  # rows per label

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DatasetInfo:
        values = {key: data[key] for key in ("name", "source", "rows", "label_rule", "sha256") if key in data}
        if "labels" in data:
            values["labels"] = plain(data["labels"])
        return cls._read(data, values)


@dataclass(frozen=True, kw_only=True)
class GenerationSettings(JsonObject):
    KEYS = ("seed", "max_seeds", "lcs")
    OPTIONAL = frozenset({"lcs"})

    seed: int
    max_seeds: int | None  # seeds kept per capability (a seeded sample); None: all that match
    lcs: tuple[str, ...] | None = None  # the capabilities generated

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GenerationSettings:
        values = {"seed": data["seed"], "max_seeds": data["max_seeds"]}
        take_checked(data, values, "lcs", is_strings, tuple)
        return cls._read(data, values)


# how the notes that explain a capability's low count begin: its shortage of seeds (``seeds.generate.shortage``) and
# its lack of expansions (``pipeline.no_expansion_note``); the faces show them beside the counts
SHORTAGE_NOTE = "fewer than"
NO_EXPANSION_NOTE = "no expansions"


@dataclass(frozen=True, kw_only=True)
class CapabilityInfo(JsonObject):
    """One capability of the suite: its spec and how many sentences matched, seeds and expansions it has."""

    KEYS = ("id", "name", "description", "spec", "spec_sha256", "matches", "seeds", "expansions", "notes")
    OPTIONAL = frozenset({"description", "spec", "spec_sha256", "matches", "expansions", "notes"})

    id: str
    name: str
    seeds: int
    description: str | None = None
    spec: str | None = None  # the spec file's path
    spec_sha256: str | None = None
    matches: tuple[int, ...] | None = None  # sentences meeting each case's search
    expansions: int | None = None
    notes: tuple[str, ...] | None = None  # why a case produced fewer tests than it matched

    def notes_starting(self, *starts: str) -> list[str]:
        """The notes that begin with one of ``starts`` (``SHORTAGE_NOTE``, ``NO_EXPANSION_NOTE``)."""
        return [note for note in self.notes or () if note.startswith(starts)]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CapabilityInfo:
        values = {key: data[key] for key in ("id", "name", "seeds", "description", "spec", "spec_sha256")
                  if key in data}
        for key in ("matches", "notes"):
            if key in data:
                values[key] = tuple(data[key])
        take_checked(data, values, "expansions", is_int)
        return cls._read(data, values)


@dataclass(frozen=True, kw_only=True)
class SourceRow(JsonObject):
    """A dataset sentence a test was made from, in template slot ``slot`` (``S``: the sentence the test is about)."""

    KEYS = ("slot", "id", "label", "score", "text")
    OPTIONAL = frozenset({"slot", "id", "label"})

    text: str
    slot: str | None = None
    id: str | None = None  # the row's id in the dataset
    label: str | None = None
    score: float | None = None  # graded sentiment on 0..1, where the dataset has one

    @staticmethod
    def fits(value: Any) -> bool:
        """Whether ``value`` has the shape the generator writes (only then is a ``rows`` list typed)."""
        return (isinstance(value, Mapping) and isinstance(value.get("text"), str)
                and all(key not in value or isinstance(value[key], str) for key in ("slot", "id", "label"))
                and (value.get("score") is None or is_number(value["score"])))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SourceRow:
        return cls._read(data, {key: data[key] for key in cls.KEYS if key in data})


@dataclass(frozen=True, kw_only=True)
class Mask(JsonObject):
    """Where a fill went into the expanded sentence: characters ``start:end``, a phrase of tag ``tag``."""

    KEYS = ("tag", "start", "end")
    OPTIONAL = frozenset({"tag"})

    start: int
    end: int
    tag: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Mask:
        return cls._read(data, {key: data[key] for key in cls.KEYS if key in data})


@dataclass(frozen=True, kw_only=True)
class Direction(JsonObject):
    """A DIR test's expectation: the probability of ``label`` must ``change`` ("increase" or "decrease") from the
    original's; a move the wrong way of at most ``tolerance`` still passes (CheckList's ``Expect.monotonic``)."""

    KEYS = ("label", "change", "tolerance")

    label: Label
    change: Literal["increase", "decrease"]
    tolerance: float

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Direction:
        return cls._read(data, {key: data[key] for key in cls.KEYS})


@dataclass(frozen=True, kw_only=True)
class Provenance(JsonObject):
    """Where a test came from. A seed: its template case, the dataset rows filling the slots, the template and
    the alternatives chosen. An expansion: its seed's provenance plus the seed test's id (``seed``), the sentence
    expanded, the production, masks and fills that changed it, and the filler's scores. An INV or DIR test: the
    text it is compared with (``original_text``; ``original``, the id of the test it perturbs, where it perturbs
    one), the ``perturbation`` that made it and, for DIR, its ``direction``."""

    KEYS = ("dataset", "case", "rows", "template", "alternatives", "seed", "seed_text", "expanded_text",
            "production", "masked", "masks", "fills", "confidence", "disruption", "score", "selection", "original",
            "original_text", "perturbation", "direction")
    OPTIONAL = frozenset(KEYS[1:])

    dataset: str
    case: int | None = None  # the spec's case number, from 1
    rows: tuple[SourceRow, ...] | None = None
    template: str | None = None
    alternatives: Mapping[str, str] | None = None  # alternative name -> the option chosen
    seed: str | None = None  # an expansion's seed test id
    seed_text: str | None = None  # the sentence S that was expanded
    expanded_text: str | None = None  # S after the fills
    production: Mapping[str, Any] | None = None  # {lhs, seed, reference}
    masked: str | None = None  # S with the masks
    masks: tuple[Mask, ...] | None = None
    fills: tuple[str, ...] | None = None
    confidence: float | None = None
    disruption: float | None = None
    score: float | None = None
    selection: str | None = None  # "score" or "random"
    original: str | None = None  # an INV/DIR test: the id of the test it perturbs, where it perturbs one
    original_text: str | None = None  # an INV/DIR test: the text whose prediction it is compared with
    perturbation: str | None = None  # an INV/DIR test: what made it (``perturb.build.PERTURBATIONS``)
    direction: Direction | None = None  # a DIR test's expectation

    @classmethod
    def for_seed(cls, *, dataset: str, case: int, rows: tuple[SourceRow, ...], template: str | None,
                 alternatives: Mapping[str, str]) -> Provenance:
        """A seed test's provenance as the generator writes it (``template`` written as null when None)."""
        return cls(dataset=dataset, case=case, rows=rows, template=template, alternatives=dict(alternatives),
                   key_order=cls.KEYS[:5])

    def row(self, slot: str) -> SourceRow | None:
        """The dataset row in ``slot``, if the provenance names one."""
        return next((row for row in self.rows or () if row.slot == slot), None)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Provenance:
        values: dict[str, Any] = {key: data[key] for key in ("dataset", "seed", "seed_text", "expanded_text",
                                                             "original", "original_text", "perturbation")
                                  if key in data}
        if "direction" in data:
            values["direction"] = Direction.from_json(data["direction"])
        if "fills" in data:
            values["fills"] = tuple(data["fills"])
        if "masks" in data:
            values["masks"] = tuple(Mask.from_json(mask) for mask in data["masks"])
        take_checked(data, values, "case", is_int)
        take_checked(data, values, "rows", lambda rows: isinstance(rows, list) and all(map(SourceRow.fits, rows)),
                     lambda rows: tuple(SourceRow.from_json(row) for row in rows))
        take_checked(data, values, "template", lambda value: value is None or isinstance(value, str))
        take_checked(data, values, "alternatives", is_string_map, plain)
        take_checked(data, values, "production", lambda value: isinstance(value, Mapping), plain)
        take_checked(data, values, "masked", lambda value: isinstance(value, str))
        take_checked(data, values, "selection", lambda value: isinstance(value, str))
        for key in ("confidence", "disruption", "score"):
            take_checked(data, values, key, is_number)
        return cls._read(data, values)


@dataclass(frozen=True, kw_only=True)
class CapabilityTest(JsonObject):
    """One test: ``text`` for a classifier. An MFT test (the default) passes when it predicts a label in
    ``expected``; an INV test when it predicts the label it predicts for ``provenance.original_text`` (``expected``
    then only informs the reader: the original's labels); a DIR test when the probability moves as
    ``provenance.direction`` says. A DIR test claims no label, so the generator writes its ``expected`` empty (a
    negation may leave a text less positive and still positive: "not incredibly fresh"); files written before
    2026-11-29 say ``negative/neutral`` there, which the pass rule never read."""

    KEYS = ("id", "capability", "text", "expected", "kind", "type", "provenance")
    OPTIONAL = frozenset({"type"})

    id: str
    capability: str
    text: str
    expected: tuple[Label, ...]  # the generator writes them in LABELS order; empty for a DIR test
    kind: Kind
    provenance: Provenance
    type: TestType | None = None  # None (the key left out, as in files written before INV and DIR): MFT

    @property
    def test_type(self) -> TestType:
        return self.type or MFT.code

    @property
    def seed_id(self) -> str | None:
        """An expansion's seed test id (``provenance.seed``); None for a seed."""
        return self.provenance.seed if self.kind == "expansion" else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CapabilityTest:
        values = {"id": data["id"], "capability": data["capability"], "text": data["text"],
                  "expected": tuple(data["expected"]), "kind": data["kind"],
                  "provenance": Provenance.from_json(data["provenance"])}
        if "type" in data:
            values["type"] = data["type"]
        return cls._read(data, values)


@dataclass(frozen=True, kw_only=True)
class CapabilityTestFile(JsonObject):
    """A whole capability-test file: how it was made, its capabilities and its tests (seeds, each followed by
    its expansions)."""

    KEYS = ("format", "version", "created_by", "dataset", "lexicon", "tagger", "settings", "capabilities", "tests",
            "expansion", "perturbations")
    OPTIONAL = frozenset({"lexicon", "tagger", "expansion", "perturbations"})

    created_by: CreatedBy
    dataset: DatasetInfo
    settings: GenerationSettings
    capabilities: tuple[CapabilityInfo, ...]
    tests: tuple[CapabilityTest, ...]
    format: str = FORMAT
    version: int = VERSION
    lexicon: Mapping[str, Any] | None = None  # the word-sentiment lexicon: source, words
    tagger: Mapping[str, Any] | None = None  # the spaCy model
    expansion: Mapping[str, Any] | None = None  # how seeds were expanded: parser, grammar, filler, counts, timings
    perturbations: Mapping[str, Any] | None = None  # how INV and DIR tests were made: types, seed, tolerance, counts

    def by_id(self) -> dict[str, CapabilityTest]:
        return {test.id: test for test in self.tests}

    def __repr__(self) -> str:  # short: the default repr held every test (MB for a generated file)
        counts = self._by_capability()
        return text_view(self._title(), [f"{c.id} {c.name}: {counts.get(c.id, 0):,} tests" for c in self.capabilities])

    def _repr_html_(self) -> str:
        counts = self._by_capability()
        return html_view(self._title(), ("capability", "name", "seeds", "tests"),
                         [(c.id, c.name, c.seeds, counts.get(c.id, 0)) for c in self.capabilities])

    def _title(self) -> str:
        types = ", ".join(f"{code} {count:,}" for code in CHECKLIST_TYPES
                          if (count := sum(t.test_type == code for t in self.tests)))
        return (f"CapabilityTestFile: {len(self.tests):,} tests ({types or 'none'}), {len(self.capabilities)} "
                f"capabilities, dataset {self.dataset.name}")

    def _by_capability(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for test in self.tests:
            counts[test.capability] = counts.get(test.capability, 0) + 1
        return counts

    def count(self, kind: Kind) -> int:
        """How many expected-label (MFT) tests are of ``kind``; INV and DIR tests are counted apart
        (``count_type``)."""
        return sum(test.kind == kind for test in MFT.of(self.tests))

    def count_type(self, test_type: TestType) -> int:
        """How many tests are of CheckList type ``test_type``."""
        return sum(test.test_type == test_type for test in self.tests)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CapabilityTestFile:
        """The file ``data`` holds, which must be valid (``testfile.load_document`` checks, then calls this)."""
        values: dict[str, Any] = {
            "format": data["format"], "version": data["version"], "created_by": CreatedBy.from_json(data["created_by"]),
            "dataset": DatasetInfo.from_json(data["dataset"]),
            "settings": GenerationSettings.from_json(data["settings"]),
            "capabilities": tuple(CapabilityInfo.from_json(c) for c in data["capabilities"]),
            "tests": tuple(CapabilityTest.from_json(t) for t in data["tests"])}
        for key in ("lexicon", "tagger"):
            if key in data:
                values[key] = plain(data[key])
        for key in ("expansion", "perturbations"):
            take_checked(data, values, key, lambda value: isinstance(value, Mapping), plain)
        return cls._read(data, values)


def require_test_file(value: object, function: str) -> CapabilityTestFile:
    """``value`` if it is a ``CapabilityTestFile``; else a TypeError saying how to get one."""
    if isinstance(value, CapabilityTestFile):
        return value
    raise TypeError(f"{function} takes a CapabilityTestFile, not {type(value).__name__}: read a file with "
                    "linguagym.capabilities.testfile.read_tests, or turn a dict into one with "
                    "testfile.load_document")

