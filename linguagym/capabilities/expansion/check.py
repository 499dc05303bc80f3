"""What every expansion check is: a named ``Check`` of one stage whose ``problems`` are ``Problem`` values that
carry the check's name. ``checks.CHECKS`` lists them all in the order they run; each check is defined beside the
rule it applies (``modifiers.MODIFIER``, ``validate.NEUTRAL`` ...).

A stage says when a check runs and so what its ``problems`` is given:

========== ====================================================== =================================================
stage      when                                                   ``problems(...)``
========== ====================================================== =================================================
masked     on a masked sentence, before it is filled              ``(parsed seed, masked sentence, insertion set)``
shape      on each filled word as written, before any tagger      ``(filled text, start, end)``
tag        on each filled word, as the tagger reads the sentence  ``(tokens, word, start, end, mask's tag)``
parse      on the fill, the filled sentence parsed again          ``(parse, masked sentence, words, spans)``
word       on each filled word in the analysed sentence           ``(tokens, index, word, VADER lexicon or None)``
sentence   on the filled sentence beside the seed's               ``(seed text, filled text)``
insertion  on the inserted words together                         ``(tokens, inserted indices, seed tokens)``
usage      on each inserted word, by the dataset's own usage      ``(domain vocabulary, tokens, index)``
rule       on the filled sentence, by the capability's search     ``(search, example, analysis)``
ranking    on a fill, with the filler's numbers                   ``(fill, settings, causal filler?)``
select     among the expansions of a capability                   (the expander's: no ``problems``)
========== ====================================================== =================================================

The rejection counts of a test file's ``expansion`` block are by ``Problem.check``, the name of the check that
found it; a masked sentence is counted once under the first masked-stage check that refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

STAGES = ("masked", "shape", "tag", "parse", "word", "sentence", "insertion", "usage", "rule", "ranking", "select")


class Problem(str):
    """One refusal. It reads as ``"<check>: <detail>"`` (the reason's words, as the validator always gave them) and
    carries the name of the check that found it (``check``): counts use the name, never a parse of the words."""

    check: str

    def __new__(cls, check: str, detail: str) -> Problem:
        problem = super().__new__(cls, f"{check}: {detail}")
        problem.check = check
        return problem

    def __reduce__(self) -> tuple[Any, ...]:  # picklable (a problem crossing to a worker process stays one)
        return Problem, (self.check, str(self)[len(self.check) + 2:])


def _none(*args: Any) -> list[Problem]:
    return []


@dataclass(frozen=True)
class Check:
    """A named expansion check. ``problems`` finds its refusals (its arguments are its stage's: the module says
    which); ``problem(detail)`` makes one of them."""

    name: str
    stage: str
    description: str  # what it refuses, in one line
    problems: Callable[..., list[Problem]] = _none

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"check {self.name!r}: unknown stage {self.stage!r} (one of {', '.join(STAGES)})")

    def problem(self, detail: str) -> Problem:
        return Problem(self.name, detail)
