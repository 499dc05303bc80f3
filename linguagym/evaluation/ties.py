"""The notes that say where a run's accuracy rests on ties: predictions whose '<' or '>' compared two equal sides
(decided by the run's tie rule, ``RunSettings.ties``) or sides within the tolerance (decided by a difference
smaller than it). The table the CLI prints and the HTML report show them; ``run.json`` holds the counts
(``suites[].ties``) and the rule (``settings.ties``), ``predictions.csv`` the ``tie`` of each prediction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from linguagym.suites.formula import Tolerance

# what an exact tie counts as under each rule, and under the other
_DECIDED = {"strict": "failing", "lm-eval": "holding"}


def tie_note(model: str, suite: str, ties: Mapping[str, int], rule: str, atol: float = Tolerance.atol,
             own_tolerance: bool = False) -> str | None:
    """One line for a suite with ties (None without): how many, and how they were decided. ``own_tolerance``: some
    prediction of the suite has its own atol/rtol (suite JSON), which decided its near ties."""
    exact, near = int(ties.get("exact", 0)), int(ties.get("near", 0))
    if not exact and not near:
        return None
    parts = []
    if exact:
        other = "lm-eval" if rule == "strict" else "strict"
        parts.append(f"{_count(exact)} two equal values, counted as {_DECIDED.get(rule, rule)} "
                     f"(tie rule {rule}; the {other} rule counts them as {_DECIDED[other]})")
    if near:
        own = ", or a prediction's own" if own_tolerance else ""
        parts.append(f"{_count(near)} values within the tolerance ({atol:g} bits{own}), decided by a smaller "
                     "difference")
    return f"ties in {suite} ({model}): " + "; ".join(parts)


def record_tie_notes(model: str, record: Mapping[str, Any]) -> list[str]:
    """The notes of one model's run record (``run.json``); runs written before ties were counted have none."""
    settings = record.get("settings", {})
    rule, atol = settings.get("ties", "strict"), settings.get("atol", Tolerance.atol)
    notes = (tie_note(model, suite.get("name", "?"), suite.get("ties") or {}, rule, atol)
             for suite in record.get("suites", []))
    return [note for note in notes if note]


def tie_notes(runs: Iterable[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The notes of several runs, given as (model label, run record)."""
    return [note for model, record in runs for note in record_tie_notes(model, record)]


def _count(number: int) -> str:
    """'1 prediction compares', '2 predictions compare'."""
    return f"{number} prediction{'' if number == 1 else 's'} compare{'s' if number == 1 else ''}"
