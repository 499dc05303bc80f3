"""INV and DIR tests made from a capability-test file's expected-label (MFT) tests, in the same file format.

Invariance (INV): the label must not change. Each pair is (original text, perturbed text):
- ``expansion``: an expansion against its seed (the expansions add only neutral words);
- ``typo``, ``contraction``, ``names``, ``places``: a seed test's text with one adjacent-letter swap, its
  contractions expanded or made, its people's or places' names (spaCy PERSON, GPE) replaced.

Directional (DIR): ``negation``: a positive sentence (a seed's source sentence with the gold label positive and a
mean rating of at least ``negation.MIN_RATING``, or a seed expected positive that names none) negated; the
probability of positive must not rise by more than ``DIR_TOLERANCE`` (CheckList's ``Expect.monotonic(label=positive,
increasing=False, tolerance=0.1)``, as in its sentiment suite).

Every draw is seeded by the generation seed, the test id and the perturbation, so the same file comes out each
time.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.perturb.contractions import contraction_variant
from linguagym.capabilities.perturb.entities import PERSON, PLACE, Entity, swap_entities
from linguagym.capabilities.perturb.negation import (
    MIN_SCORE,
    NOT_CLEARLY_POSITIVE,
    REFUSALS,
    Evaluative,
    Negation,
    evaluative_words,
    negate_main_clause,
)
from linguagym.capabilities.perturb.typos import add_typo
from linguagym.capabilities.testfile.checklist_types import DIR, INV, MFT, PAIRED
from linguagym.capabilities.testfile.model import (
    CHECKLIST_VERSION,
    PERTURBATION_TYPES,
    TEST_TYPES,
    CapabilityTest,
    CapabilityTestFile,
    Direction,
    Provenance,
    TestType,
)
from linguagym.extras import DEFAULT_SPACY_MODEL, load_spacy_model

DIR_TOLERANCE = 0.1
PERTURBATIONS = PERTURBATION_TYPES  # perturbation -> its test type, in the order they are made
SOURCE_SLOT = "S"  # the template slot holding the dataset sentence a test is about


def parse_test_types(value: str | Iterable[str]) -> tuple[TestType, ...]:
    """``"mft,inv,dir"`` (any case; ``all`` for the three) as test types in ``TEST_TYPES`` order. MFT must be
    among them: the INV and DIR tests are made from the expected-label tests, and the paper's numbers are theirs."""
    words = [w.strip() for w in (value.split(",") if isinstance(value, str) else value)]
    if [w.lower() for w in words] == ["all"]:
        return TEST_TYPES
    unknown = [w for w in words if w.upper() not in TEST_TYPES]
    if unknown or not words:
        raise CapabilityError(f"unknown test type {', '.join(map(repr, unknown)) or '(none)'}",
                              hint="give `test_types` a comma-separated list of mft, inv, dir (e.g. mft,inv), or all",
                              settings=["test_types"])
    chosen = {w.upper() for w in words}
    if MFT.code not in chosen:
        raise CapabilityError(f"test types {value!r} leave out mft",
                              hint="INV and DIR tests are made from the expected-label tests: give mft,inv,dir or "
                              "mft,inv (or mft alone for the paper's tests only)")
    return tuple(t for t in TEST_TYPES if t in chosen)


@lru_cache(maxsize=2)
def load_perturbation_pipeline(model: str = DEFAULT_SPACY_MODEL):
    """The whole spaCy pipeline ``model`` (the tagger's, with its parser for negation and NER for names), loaded
    once."""
    return load_spacy_model(model, needed_by="making invariance and directional tests (names, places, negation)")


def add_checklist_tests(document: CapabilityTestFile, test_types: Sequence[str], *, seed: int = 0,
                        spacy_model: str = DEFAULT_SPACY_MODEL, nlp=None,
                        progress: Callable[[int], None] | None = None) -> CapabilityTestFile:
    """``document`` with the INV and DIR tests ``test_types`` asks for after each capability's tests (any it had
    before replaced) and a ``perturbations`` block saying how they were made (``document`` itself when it asks for
    neither). ``nlp``: a loaded spaCy pipeline with parser and NER (default: ``spacy_model``'s). ``progress(n)`` is
    told the number of capabilities when they are done."""
    types = parse_test_types(test_types)
    if not any(t.code in types for t in PAIRED):
        return document
    nlp = nlp if nlp is not None else load_perturbation_pipeline(spacy_model)
    mft = MFT.of(document.tests)
    made, counts = checklist_tests(mft, types, seed=seed, nlp=nlp)
    last = {test.capability: i for i, test in enumerate(mft)}
    tests: list[CapabilityTest] = []
    for i, test in enumerate(mft):  # the file's order kept; each capability's new tests after its last
        tests.append(test)
        if last[test.capability] == i:
            tests += made.get(test.capability, [])
    if progress is not None:
        progress(len({c.id for c in document.capabilities} | set(last)))
    block = {"types": list(types), "seed": seed,
             "tagger": {"model": spacy_model, "model_version": nlp.meta.get("version")},
             "made": counts, "dir_tolerance": DIR_TOLERANCE,
             "rules": {t.code: t.rule for t in PAIRED}}
    # a file read from disk keeps its keys' order; the new block comes after them
    version = CHECKLIST_VERSION if any(not MFT.owns(t) for t in tests) else document.version
    return dataclasses.replace(document, tests=tuple(tests), perturbations=block, version=version)


def checklist_tests(mft: Sequence[CapabilityTest], types: Sequence[str], *, seed: int, nlp,
                    evaluative: Evaluative | None = None) -> tuple[dict[str, list[CapabilityTest]], dict[str, Any]]:
    """Capability -> its new tests, and per perturbation how many tests were made of how many candidates (and, for
    negation, how many candidates were refused for each reason, ``perturb.negation.REFUSALS``). ``evaluative``:
    which tokens outside the negated clause refuse a negation (default ``evaluative_words("positive")``)."""
    seeds = [t for t in mft if t.kind == "seed"]
    by_id = {t.id: t for t in mft}
    made: dict[str, list[CapabilityTest]] = {}
    counts: dict[str, dict[str, Any]] = {name: {"made": 0, "candidates": 0}
                                         for name, kind in PERTURBATIONS.items() if kind in types}

    def add(name: str, base: CapabilityTest, text: str | None, **fields: Any) -> None:
        counts[name]["candidates"] += 1
        if (refused := fields.get("refused")) is not None:  # why a candidate made no test, where it is known
            reasons = counts[name].setdefault("refused", {})
            reasons[refused] = reasons.get(refused, 0) + 1
        if text is None or text == fields.get("original_text", base.text):
            return
        counts[name]["made"] += 1
        provenance = Provenance(dataset=base.provenance.dataset, original=fields.get("original", base.id),
                                original_text=fields.get("original_text", base.text), perturbation=name,
                                direction=fields.get("direction"))
        made.setdefault(base.capability, []).append(CapabilityTest(
            id=f"{fields.get('id_of', base.id)}/{PERTURBATIONS[name].lower()}-{name}",
            capability=base.capability, text=text, expected=fields.get("expected", base.expected),
            kind=fields.get("kind", base.kind), provenance=provenance, type=PERTURBATIONS[name]))

    if INV.code in types:
        for test in mft:
            seed_test = by_id.get(test.seed_id or "")
            if test.kind == "expansion" and seed_test is not None:
                add("expansion", seed_test, test.text, id_of=test.id, kind="expansion", expected=test.expected)
        docs = dict(zip((t.text for t in seeds), nlp.pipe(t.text for t in seeds), strict=True))
        for test in seeds:
            def rng(name: str, test: CapabilityTest = test) -> random.Random:
                return random.Random(f"{seed}/{test.id}/{name}")  # a str seed: the same draw in every process

            entities = names_in(docs[test.text])
            add("typo", test, add_typo(test.text, rng("typo")))
            add("contraction", test, contraction_variant(test.text))
            add("names", test, swap_entities(test.text, entities, PERSON, rng("names")))
            add("places", test, swap_entities(test.text, entities, PLACE, rng("places")))
    if DIR.code in types:
        positives = _positive_sentences(seeds)
        docs = dict(zip(positives, nlp.pipe(positives), strict=True)) if positives else {}
        evaluative = evaluative if evaluative is not None else evaluative_words("positive")
        negations = {text: negate_main_clause(doc, evaluative) for text, doc in docs.items()}
        seen: set[tuple[str, str]] = set()
        for test in seeds:
            text = _positive_sentence(test)
            if text is None or (test.capability, text) in seen:
                continue
            seen.add((test.capability, text))
            negation = negations[text] if clearly_positive(test) else Negation(None, NOT_CLEARLY_POSITIVE)
            add("negation", test, negation.text, refused=negation.refused, original_text=text,
                original=test.id if text == test.text else None, expected=(),
                direction=Direction(label="positive", change="decrease", tolerance=DIR_TOLERANCE))
        if "refused" in counts["negation"]:  # the reasons in REFUSALS' order, whatever order they came in
            found = counts["negation"]["refused"]
            counts["negation"]["refused"] = {reason: found[reason] for reason in REFUSALS if reason in found}
    return made, counts


def names_in(doc) -> list[Entity]:
    """spaCy's PERSON and GPE entities in ``doc`` that are proper nouns throughout and, when one word long, do not
    open a sentence or a quotation: there a capital letter says nothing, and the small tagger takes words such as
    "Smart" in "Smart, provocative and funny" for names, whose swap would change the sentiment."""
    found = []
    for entity in doc.ents:
        if entity.label_ not in (PERSON, PLACE) or any(token.pos_ != "PROPN" for token in entity):
            continue
        before = doc.text[:entity.start_char].rstrip()
        if len(entity) == 1 and (not before or before[-1] in "\"'\u201c\u2018.!?:;("):
            continue
        found.append(Entity(entity.start_char, entity.end_char, entity.label_))
    return found


def _positive_sentence(test: CapabilityTest) -> str | None:
    """The positive sentence a seed's DIR test negates: its source sentence where the gold label is positive,
    or its own text where it names no source and is expected positive."""
    row = test.provenance.row(SOURCE_SLOT)
    if row is not None:
        return row.text if row.label == "positive" else None
    return test.text if tuple(test.expected) == ("positive",) else None


def clearly_positive(test: CapabilityTest) -> bool:
    """Whether the sentence a seed's DIR test negates is clearly positive: its dataset score (0..1) at least
    ``negation.MIN_SCORE`` (a mean rating of ``MIN_RATING`` on -4..4). A sentence with no score (a dataset without
    graded ratings, or a seed naming no source) is taken at its label."""
    row = test.provenance.row(SOURCE_SLOT)
    return row is None or row.score is None or round(row.score, 9) >= MIN_SCORE


def _positive_sentences(seeds: Sequence[CapabilityTest]) -> list[str]:
    return list(dict.fromkeys(text for seed in seeds if (text := _positive_sentence(seed)) is not None
                              and clearly_positive(seed)))

