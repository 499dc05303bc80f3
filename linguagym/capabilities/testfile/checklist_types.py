"""CheckList's test types (Ribeiro et al. 2020) as objects, in one table (``TEST_TYPES``).

Each type owns what differs between them: its spelling in the test file (``code``: the one place the three codes
are written), its pass rule, its failure rate and the words the reports print for it.

- MFT, an expected-label test (every S2LCT test; a test without a ``type`` is one): passes when the predicted
  label is among ``expected``;
- INV, an invariance pair: passes when the label predicted for the test is the one predicted for its original;
- DIR, a directional pair: passes when the probability of ``direction.label`` does not move against
  ``direction.change`` by more than ``direction.tolerance`` (CheckList's ``Expect.monotonic``).

The module reads outcomes by duck typing (``prediction``, ``expected``, ``original_prediction``, ``direction``,
``change``) and imports nothing of linguagym, so the test-file format and the runs both can use it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

TestTypeCode = Literal["MFT", "INV", "DIR"]  # as the test file spells a test's ``type``


@dataclass(frozen=True)
class TestType:
    """One of CheckList's test types; ``str(t)`` is its code, as the file and the reports spell it."""

    __test__ = False  # not a pytest class, whatever its name

    code: TestTypeCode
    name: str  # "expected label", "invariance", "directional"
    pairs: str  # what the reports call its tests ("invariance pairs"); MFT's are the expected-label tests
    # how a test fails, as a test file's ``perturbations`` block records it (MFT: the expected label, not recorded)
    rule: str
    paired: bool  # marked against the prediction for its ``original_text`` (INV, DIR), not against ``expected``

    def __str__(self) -> str:
        return self.code

    def passed(self, outcome: Any) -> bool:
        """Whether ``outcome`` (a ``classifier_run.Outcome`` of this type) passed."""
        raise NotImplementedError

    def owns(self, item: Any) -> bool:
        """Whether ``item`` (an outcome or a test: anything with ``test_type``, a code) is of this type."""
        return item.test_type == self.code

    def of(self, outcomes: Iterable[Any]) -> list[Any]:
        """The outcomes (or tests) of this type, in their order."""
        return [o for o in outcomes if self.owns(o)]

    def failures(self, outcomes: Iterable[Any]) -> tuple[int, int]:
        """(failed, total) of the outcomes of this type among ``outcomes``: its failure rate's parts."""
        mine = self.of(outcomes)
        return sum(not o.passed for o in mine), len(mine)


class _ExpectedLabel(TestType):
    def passed(self, outcome: Any) -> bool:
        return outcome.prediction.label in outcome.expected


class _Invariance(TestType):
    def passed(self, outcome: Any) -> bool:
        if outcome.original_prediction is None:  # no original to compare with: read as an expected-label test
            return MFT.passed(outcome)
        return outcome.prediction.label == outcome.original_prediction.label


class _Directional(TestType):
    def passed(self, outcome: Any) -> bool:
        if outcome.original_prediction is None:
            return MFT.passed(outcome)
        change = outcome.change
        direction = outcome.direction
        assert direction is not None and change is not None  # (a DIR test names its direction)
        return change <= direction.tolerance if direction.change == "decrease" else change >= -direction.tolerance


MFT: TestType = _ExpectedLabel("MFT", "expected label", "expected-label tests",
                               "fails when the predicted label is not among expected", paired=False)
INV: TestType = _Invariance("INV", "invariance", "invariance pairs",
                            "fails when the predicted label differs from the label predicted for original_text",
                            paired=True)
DIR: TestType = _Directional("DIR", "directional", "directional pairs",
                             "fails when the probability of direction.label moves against direction.change by more "
                             "than direction.tolerance", paired=True)
# code -> type, in the order they are made and reported
TEST_TYPES: dict[str, TestType] = {t.code: t for t in (MFT, INV, DIR)}
PAIRED: tuple[TestType, ...] = tuple(t for t in TEST_TYPES.values() if t.paired)  # INV and DIR


def type_of(code: str | None) -> TestType:
    """The type a test's ``type`` names (None, the key left out as in files written before INV and DIR: MFT)."""
    return TEST_TYPES[code] if code is not None else MFT

