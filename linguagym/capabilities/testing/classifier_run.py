"""Run a capability-test file against one classifier: every unique text is predicted once, each test passes when
the predicted label is in its expected set.

A test's *source* is the dataset sentence it was made from (its provenance's row in slot ``S``; an expansion's
from its seed where it names none), with the dataset's gold label. Sources that have a gold label are predicted
too, in the same batches and cache as the tests' texts, so that a report can tell a classifier that fails a
capability from one that never read the sentence right in the first place (``failures``: source accuracy and the
failure rate given a correctly classified source).

A classifier that fails part way (a ``ClassifierError``, or any other error a user can cause, such as a model
that cannot be found) does not end the session: the run records the error and
how many predictions were finished. Behind the on-disk prediction cache those are kept, so running again resumes
where it stopped. Nothing partial is aggregated: a failed run has no outcomes, so no failure rate is ever computed
on a subset of the tests.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from linguagym.capabilities.classifiers.base import LABELS, Classifier, Prediction, checked_predictions
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.capabilities.testfile.checklist_types import MFT, TestType, type_of
from linguagym.capabilities.testfile.model import (
    CapabilityTest,
    CapabilityTestFile,
    Direction,
    require_test_file,
)
from linguagym.errors import Cancelled, LinguagymError
from linguagym.notebook_view import html_view

log = logging.getLogger("linguagym.capabilities")

# progress(total) is called once with the number of texts still to predict; it returns advance(n), called with the
# number of texts each finished step predicted (or None: nothing to advance).
ProgressFactory = Callable[[int], Callable[[int], None] | None]


@dataclass(frozen=True)
class Outcome:
    """One test under one classifier. An INV or DIR test (``test_type``) is marked against the prediction for its
    ``original_text`` (``original_prediction``), not against ``expected``."""

    id: str
    capability: str
    kind: str  # "seed" or "expansion"
    seed: str | None  # an expansion's seed test id (provenance.seed); None for seeds
    text: str
    expected: tuple[str, ...]
    prediction: Prediction
    source: str | None = None  # the dataset sentence the test was made from (only where it has a gold label)
    source_label: str | None = None  # its gold label, the dataset's
    source_predicted: str | None = None  # the classifier's label for it
    test_type: str = MFT.code  # a code of checklist_types.TEST_TYPES: MFT, INV or DIR
    perturbation: str | None = None  # INV/DIR: what made the text (typo, names, negation ...)
    original_text: str | None = None  # INV/DIR: the text it is compared with
    original_prediction: Prediction | None = None  # INV/DIR: the classifier's prediction for original_text
    direction: Direction | None = None  # DIR: how the probability must move

    @property
    def predicted(self) -> str:
        return self.prediction.label

    @property
    def passed(self) -> bool:
        """By its test type's rule (``checklist_types``): MFT, the label is expected; INV, the label is the
        original's; DIR, the direction's probability did not move against ``direction.change`` by more than its
        tolerance (CheckList's ``Expect.monotonic``)."""
        return self.type.passed(self)

    @property
    def type(self) -> TestType:
        """Its CheckList test type (``test_type`` is the code)."""
        return type_of(self.test_type)

    @property
    def change(self) -> float | None:
        """DIR: how far the probability of ``direction.label`` moved from the original's (after - before)."""
        if self.direction is None or self.original_prediction is None:
            return None
        index = LABELS.index(self.direction.label)
        return self.prediction.probabilities[index] - self.original_prediction.probabilities[index]

    @property
    def source_correct(self) -> bool | None:
        """Whether the classifier labelled the source as the dataset does; None where there is no source."""
        if self.source is None or self.source_label is None or self.source_predicted is None:
            return None
        return self.source_predicted == self.source_label


@dataclass
class ClassifierRun:
    """The outcomes of one classifier on one test file, with what it cost and whether it finished."""

    name: str
    identity: dict[str, Any]
    outcomes: list[Outcome]  # in test-file order; empty when the run failed
    unique_texts: int
    cached: int  # predictions already in the cache when the run began
    finished: int  # predictions available when it ended (cached ones included)
    seconds: float
    error: str | None = None
    spec: str | None = None  # what the user wrote (--classifier), when known
    executor: dict[str, Any] | None = None  # where it was predicted: {"name": "local"}, or the Ray pool's record

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def mft_outcomes(self) -> list[Outcome]:
        """The expected-label tests' outcomes (the S2LCT numbers); INV and DIR are counted apart."""
        return MFT.of(self.outcomes)

    @property
    def failed_tests(self) -> int:
        """Failed expected-label (MFT) tests."""
        return sum(not o.passed for o in self.mft_outcomes)

    def __repr__(self) -> str:  # short: the default repr held every test's outcome (MB for a generated file)
        return f"<ClassifierRun {self.name!r}: {self.summary()}>"

    def _repr_html_(self) -> str:
        return html_view(f"{self.name}: {self.summary()}", (), ())

    def summary(self) -> str:
        """One line: the failures of each test type (MFT first) and the time, or the error of a failed run."""
        if not self.ok:
            return f"failed: {self.error}"
        counts: dict[str, list[int]] = {}
        for outcome in self.outcomes:
            failed_total = counts.setdefault(outcome.test_type, [0, 0])
            failed_total[0] += not outcome.passed
            failed_total[1] += 1
        parts = [f"{kind} {failed:,} of {total:,} failed (rate {failed / total:.3f})"
                 for kind, (failed, total) in sorted(counts.items(), key=lambda kv: kv[0] != MFT.code)]
        return f"{len(self.outcomes):,} tests; " + "; ".join(parts or ["no tests"]) + f"; {self.seconds:.1f} s"


SOURCE_SLOT = "S"  # the template slot holding the sentence a test is about


def source_sentences(document: CapabilityTestFile) -> dict[str, tuple[str, str]]:
    """Test id -> (source sentence, gold label) for every test whose source has a gold label in LABELS: the
    provenance's row in slot ``S``, or for an expansion whose provenance names no rows, its seed's."""
    document = require_test_file(document, "source_sentences")
    by_id = document.by_id()
    sources = {}
    for test in document.tests:
        if type_of(test.test_type).paired:  # an INV/DIR test is compared with its original, not a gold label
            continue
        row = _source_row(test) or (_source_row(by_id[test.seed_id]) if test.seed_id in by_id else None)
        if row is not None:
            sources[test.id] = row
    return sources


def _source_row(test: CapabilityTest) -> tuple[str, str] | None:
    row = test.provenance.row(SOURCE_SLOT)
    return (row.text, row.label) if row is not None and row.label in LABELS else None


def unique_texts(document: CapabilityTestFile) -> list[str]:
    """The distinct texts a run predicts, in first-seen order: every test's text, then the source sentences
    (``source_sentences``) and the INV/DIR tests' original texts that are not test texts already."""
    document = require_test_file(document, "unique_texts")
    tests = [test.text for test in document.tests]
    originals = [t.provenance.original_text for t in document.tests if type_of(t.test_type).paired]
    return list(dict.fromkeys([*tests, *(text for text, _ in source_sentences(document).values()),
                               *(text for text in originals if text)]))


def missing_texts(classifier: Classifier, texts: Sequence[str]) -> list[str]:
    """The texts a (cached) classifier would have to predict; every text for a classifier without a cache."""
    return classifier.missing(list(texts)) if isinstance(classifier, CachedClassifier) else list(texts)


def run_tests(document: CapabilityTestFile, classifier: Classifier, *, progress: ProgressFactory | None = None,
              spec: str | None = None) -> ClassifierRun:
    """Predict every unique text of ``document`` (a test file, as ``read_tests`` returns it) with ``classifier``
    and mark each test passed or failed. A ``LinguagymError`` (a ``ClassifierError``, a model not found) is caught
    and recorded in the returned run; so is any other exception (a bug in the classifier, memory exhausted), named
    as an internal error and logged with its traceback, so that one classifier's failure never costs the others'
    results in a run of several."""
    document = require_test_file(document, "run_tests")
    texts = unique_texts(document)
    started = time.perf_counter()
    cached = 0
    try:
        pending = missing_texts(classifier, texts)  # reading the cache may fail too (an unwritable directory)
        cached = len(texts) - len(pending)
        advance = progress(len(pending)) if progress is not None else None
        predictions = _predict(classifier, texts, advance)
    except Cancelled:
        raise  # not a failure of the classifier: the caller stopped the work
    except LinguagymError as error:
        return ClassifierRun(classifier.name, dict(classifier.identity), [], len(texts), cached,
                             _kept(classifier, texts), time.perf_counter() - started, str(error), spec)
    except Exception as error:  # noqa: BLE001 - isolated: recorded as this classifier's failure, logged in full
        log.error("classifier %s failed:\n%s", classifier.name, traceback.format_exc())
        return ClassifierRun(classifier.name, dict(classifier.identity), [], len(texts), cached,
                             _kept(classifier, texts), time.perf_counter() - started,
                             f"internal error: {type(error).__name__}: {error}"[:2000], spec)
    by_text = dict(zip(texts, predictions, strict=True))
    sources = source_sentences(document)
    outcomes = []
    for test in document.tests:
        source, gold = sources.get(test.id, (None, None))
        original = test.provenance.original_text if type_of(test.test_type).paired else None
        outcomes.append(Outcome(test.id, test.capability, test.kind, test.seed_id, test.text, test.expected,
                                by_text[test.text], source, gold, by_text[source].label if source else None,
                                test.test_type, test.provenance.perturbation if original else None, original,
                                by_text[original] if original else None, test.provenance.direction))
    return ClassifierRun(classifier.name, dict(classifier.identity), outcomes, len(texts), cached, len(texts),
                         time.perf_counter() - started, None, spec)


def failed_run(document: CapabilityTestFile, classifier: Classifier, error: str,
               spec: str | None = None) -> ClassifierRun:
    """The run of a classifier that failed before its tests could be marked (on a Ray worker): what its cache
    kept of the test file's texts, and why."""
    texts = unique_texts(require_test_file(document, "failed_run"))
    kept = _kept(classifier, texts)
    return ClassifierRun(classifier.name, dict(classifier.identity), [], len(texts), kept, kept, 0.0, error, spec)


def _kept(classifier: Classifier, texts: list[str]) -> int:
    """How many of ``texts`` the classifier's cache holds now (0 without a cache, or when it cannot be read)."""
    if not isinstance(classifier, CachedClassifier):
        return 0
    try:
        return len(texts) - len(missing_texts(classifier, texts))
    except LinguagymError:
        return 0


def _predict(classifier: Classifier, texts: list[str], advance: Callable[[int], None] | None) -> list[Prediction]:
    if not texts:
        return []
    if isinstance(classifier, CachedClassifier):  # it reports progress chunk by chunk
        predictions = classifier.predict(texts, progress=_steps(advance))
    else:
        predictions = classifier.predict(texts)
        if advance is not None:
            advance(len(texts))
    return checked_predictions(classifier, texts, predictions)


def _steps(advance: Callable[[int], None] | None) -> Callable[..., None] | None:
    """The cache's progress callback, ``(done, total)`` with ``done`` counted from the start of the call (or a
    bare count of texts just finished), as steps for ``advance``."""
    if advance is None:
        return None
    reached = 0

    def report(done: int, total: int | None = None) -> None:
        nonlocal reached
        if total is None:
            advance(done)
        elif done > reached:
            advance(done - reached)
            reached = done

    return report
