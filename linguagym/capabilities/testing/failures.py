"""From per-test outcomes to the S2LCT numbers per capability: seeds and expansions, the failure rate on each,
and the expansions that fail although their seed passed (the expansions' own contribution), with the label
confusion that shows *how* a classifier fails.

Where tests name their source sentence with a gold label (``classifier_run.source_sentences``), two more numbers tell
a classifier that fails a capability from one that only looks good because it misreads the sentence anyway
(``SOURCE_DEFINITION``): its accuracy on the distinct source sentences, and the failure rates among the tests
whose source it classified correctly.

CheckList's other test types have their own rates, never averaged into the expected-label (MFT) ones above
(``CHECKLIST_DEFINITION``): INV, the share of (original, perturbed) pairs whose predicted label changes; DIR, the
share of pairs whose probability moves the wrong way by more than the tolerance; each also per perturbation.

A rate over no tests is ``None`` (shown as "-"), never 0/0. Intervals are 95% Wilson score intervals: they stay
inside [0, 1] and behave at the small counts a capability often has (a handful of seeds). Expansions of one seed
are not independent tests, so the expansion intervals are too narrow; they are a guide, not a test.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from linguagym.capabilities.classifiers.base import LABELS
from linguagym.capabilities.testfile.checklist_types import DIR, INV, MFT, PAIRED, type_of
from linguagym.capabilities.testfile.model import PERTURBATION_TYPES, CapabilityInfo
from linguagym.capabilities.testing.classifier_run import Outcome

Z95 = 1.959963984540054
SOURCE_DEFINITION = ("source accuracy = share of distinct source sentences (the dataset sentence a test was made "
                     "from) whose predicted label equals the dataset's gold label; fail % given source right = "
                     "failures among the tests whose source was classified correctly / those tests")
CHECKLIST_DEFINITION = ("INV fail % = share of (original, perturbed) pairs whose predicted label differs (CheckList's "
                        "invariance test); DIR fail % = share of pairs whose probability of the named label moves "
                        "the wrong way by more than the tolerance (CheckList's directional test, "
                        "Expect.monotonic); both apart from the expected-label (MFT) failure rates")


@dataclass(frozen=True)
class Rate:
    """``failed`` of ``total`` tests failed."""

    failed: int
    total: int

    @property
    def value(self) -> float | None:
        return self.failed / self.total if self.total else None

    def interval(self, z: float = Z95) -> tuple[float, float] | None:
        """The Wilson score interval (95% by default); None when there are no tests."""
        return wilson(self.failed, self.total, z)

    def percent(self, digits: int = 1) -> str:
        """``"33.3"``, or ``"-"`` when there are no tests."""
        value = self.value
        return "-" if value is None else f"{100 * value:.{digits}f}"


@dataclass(frozen=True)
class Accuracy:
    """``correct`` of ``total`` items were labelled as the gold standard says."""

    correct: int
    total: int

    @property
    def value(self) -> float | None:
        return self.correct / self.total if self.total else None

    def percent(self, digits: int = 1) -> str:
        value = self.value
        return "-" if value is None else f"{100 * value:.{digits}f}"


NO_TESTS = Rate(0, 0)


def wilson(failed: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    if total <= 0:
        return None
    p = failed / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if failed == 0 else low), (1.0 if failed == total else high)  # exact at the edges


@dataclass(frozen=True)
class CapabilityFailures:
    """One capability's numbers under one classifier (or the totals, id ``all``)."""

    id: str
    name: str
    seeds: Rate
    expansions: Rate
    # among expansions whose seed is in the run and passed: how many fail
    after_passing_seed: Rate
    # expected label set ("neutral/positive") -> predicted label -> count, seeds and expansions together
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    # the distinct source sentences with a gold label, and how many the classifier labelled correctly
    sources: Accuracy = Accuracy(0, 0)
    # failures among the tests (seeds, expansions, both) whose source was classified correctly
    seeds_source_right: Rate = NO_TESTS
    expansions_source_right: Rate = NO_TESTS
    tests_source_right: Rate = NO_TESTS
    # CheckList's invariance and directional tests, apart from the expected-label numbers above; and by
    # perturbation ("typo", "names", "negation" ...)
    invariance: Rate = NO_TESTS
    directional: Rate = NO_TESTS
    perturbations: dict[str, Rate] = field(default_factory=dict)

    @property
    def tests(self) -> int:
        """Expected-label (MFT) tests."""
        return self.seeds.total + self.expansions.total


@dataclass(frozen=True)
class FailureSummary:
    classifier: str
    capabilities: tuple[CapabilityFailures, ...]  # LC1..LC11 by number, then the others
    total: CapabilityFailures

    def by_id(self) -> dict[str, CapabilityFailures]:
        return {c.id: c for c in self.capabilities}


def capability_order(ids: Iterable[str]) -> list[str]:
    """Capability ids, each once: ``LC<n>`` by number first, then the others in the order given."""
    unique = list(dict.fromkeys(ids))
    numbered = sorted((i for i in unique if _lc_number(i) is not None), key=lambda i: _lc_number(i) or 0)
    return numbered + [i for i in unique if _lc_number(i) is None]


def _lc_number(capability: str) -> int | None:
    match = re.fullmatch(r"LC(\d+)", capability, flags=re.IGNORECASE)
    return int(match.group(1)) if match else None


def expected_key(expected: Sequence[str]) -> str:
    """An expected label set as one string, labels in LABELS order: ``neutral/positive``."""
    return "/".join(label for label in LABELS if label in expected) or "/".join(expected)


def summarize(outcomes: Sequence[Outcome], capabilities: Sequence[CapabilityInfo] = (), *,
              classifier: str = "") -> FailureSummary:
    """Numbers per capability. ``capabilities`` (a test file's ``capabilities``) gives names and lists
    capabilities without tests, which appear with zero counts."""
    names = {c.id: c.name for c in capabilities}
    order = capability_order([*names, *(o.capability for o in outcomes)])
    grouped: dict[str, list[Outcome]] = {cid: [] for cid in order}
    for outcome in outcomes:
        grouped[outcome.capability].append(outcome)
    passed = {o.id: o.passed for o in outcomes if o.kind == "seed" and MFT.owns(o)}
    rows = tuple(_numbers(cid, names.get(cid, ""), grouped[cid], passed) for cid in order)
    return FailureSummary(classifier, rows, _numbers("all", "all capabilities", list(outcomes), passed))


def _numbers(cid: str, name: str, every: list[Outcome], seed_passed: Mapping[str, bool]) -> CapabilityFailures:
    outcomes = MFT.of(every)
    seeds = [o for o in outcomes if o.kind == "seed"]
    expansions = [o for o in outcomes if o.kind == "expansion"]
    after = [o for o in expansions if o.seed is not None and seed_passed.get(o.seed) is True]
    confusion: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        row = confusion.setdefault(expected_key(outcome.expected), dict.fromkeys(LABELS, 0))
        row[outcome.predicted] = row.get(outcome.predicted, 0) + 1
    correct_by_source = {o.source: o.source_correct for o in outcomes if o.source_correct is not None}
    right = [o for o in outcomes if o.source_correct]
    return CapabilityFailures(cid, name, _rate(seeds), _rate(expansions), _rate(after), confusion,
                              Accuracy(sum(correct_by_source.values()), len(correct_by_source)),
                              _rate([o for o in right if o.kind == "seed"]),
                              _rate([o for o in right if o.kind == "expansion"]), _rate(right),
                              *_checklist_rates(every))


def _checklist_rates(outcomes: list[Outcome]) -> tuple[Rate, Rate, dict[str, Rate]]:
    """The INV rate, the DIR rate and one rate per perturbation (in the order first met)."""
    by_perturbation: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        if type_of(outcome.test_type).paired:
            by_perturbation.setdefault(outcome.perturbation or outcome.test_type, []).append(outcome)
    return (Rate(*INV.failures(outcomes)), Rate(*DIR.failures(outcomes)),
            {name: _rate(group) for name, group in by_perturbation.items()})


def has_checklist(summaries: Mapping[str, FailureSummary]) -> bool:
    """Whether any classifier ran INV or DIR tests (only then are their numbers shown)."""
    return any(s.total.invariance.total or s.total.directional.total for s in summaries.values())


def checklist_table(summaries: Mapping[str, FailureSummary]) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """CheckList's numbers as display text, apart from ``summary_table``: per capability (then ``all``) the
    number of INV and DIR pairs, then per classifier the INV and DIR failure rates and each perturbation's."""
    if not summaries:
        return [], []
    first = next(iter(summaries.values()))
    known = list(PERTURBATION_TYPES)  # the generator's order; others (hand-made files) after them
    names = sorted(dict.fromkeys(name for s in summaries.values() for name in s.total.perturbations),
                   key=lambda name: known.index(name) if name in known else len(known))
    columns = [*(f"{t} fail %" for t in PAIRED), *(f"{name} fail %" for name in names)]
    header = [("", "LC"), ("", "name"), *(("", f"{t} pairs") for t in PAIRED)]
    header += [(label, column) for label in summaries for column in columns]
    tables = [[*s.capabilities, s.total] for s in summaries.values()]
    rows = []
    for i, row in enumerate([*first.capabilities, first.total]):
        cells = [row.id, row.name, str(row.invariance.total), str(row.directional.total)]
        for table in tables:
            numbers = table[i]
            cells += [numbers.invariance.percent(), numbers.directional.percent(),
                      *(numbers.perturbations.get(name, NO_TESTS).percent() for name in names)]
        rows.append(cells)
    return header, rows


def _rate(outcomes: list[Outcome]) -> Rate:
    return Rate(sum(not o.passed for o in outcomes), len(outcomes))


FIXED_COLUMNS = ("LC", "name", "seeds", "expansions")
RATE_COLUMNS = ("seed fail %", "exp. fail %", "exp. fail, seed passed")
SOURCE_COLUMNS = ("source acc. %", "seed fail %, source right", "exp. fail %, source right")


def has_sources(summaries: Mapping[str, FailureSummary]) -> bool:
    """Whether any classifier saw a source sentence with a gold label (only then are the source columns shown)."""
    return any(s.total.sources.total for s in summaries.values())


def source_cells(row: CapabilityFailures) -> list[str]:
    """The source columns of one row as display text: accuracy "75.0 (3/4)", the rates given a right source."""
    accuracy = row.sources
    return [f"{accuracy.percent()} ({accuracy.correct}/{accuracy.total})" if accuracy.total else "-",
            row.seeds_source_right.percent(), row.expansions_source_right.percent()]


def summary_table(summaries: Mapping[str, FailureSummary]) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """The numbers as display text, classifiers side by side: a header of (classifier or "", column) pairs and
    one row per capability, then ``all``. Rates in percent ("-" over no tests); the expansions that fail although
    their seed passed as "failed/of". Where tests have source sentences (``has_sources``), each classifier's
    source accuracy and failure rates given a correctly classified source follow its rates."""
    columns = RATE_COLUMNS + (SOURCE_COLUMNS if has_sources(summaries) else ())
    header = [("", c) for c in FIXED_COLUMNS] + [(label, c) for label in summaries for c in columns]
    if not summaries:
        return header, []
    tables = [[*s.capabilities, s.total] for s in summaries.values()]
    rows = []
    for i, first in enumerate(tables[0]):
        row = [first.id, first.name, str(first.seeds.total), str(first.expansions.total)]
        for table in tables:
            after = table[i].after_passing_seed
            row += [table[i].seeds.percent(), table[i].expansions.percent(),
                    f"{after.failed}/{after.total}" if after.total else "-"]
            if len(columns) > len(RATE_COLUMNS):
                row += source_cells(table[i])
        rows.append(row)
    return header, rows
