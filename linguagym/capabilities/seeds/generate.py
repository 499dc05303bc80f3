"""Seed tests: for each capability, the dataset sentences that meet each case's search, rewritten by its
template. One test per matching sentence S, at most ``max_seeds`` per capability (default 50, the paper's
protocol: a seeded random sample; None keeps every match);
alternatives and partner sentences (``sources``) are drawn by a random generator seeded from the run's seed,
the capability, the case and S's row, so a test does not change when other capabilities or caps change.
Sentences that ``screening`` finds truncated or broken are neither seeds nor partners (``usable``); each case
notes how many of its matches they were. A case whose template negates S (``|negate``, LC4 and LC5) refuses S
where ``check_negated`` finds a reason (an evaluative phrase the negation does not reach: "This is not a train
wreck ..., a stupefying attempt ..."), and notes how many. A capability left with fewer than ``MIN_SEEDS`` seeds
notes why: how many sentences met each case's search at all.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from linguagym.capabilities.data.analysis import Analysis
from linguagym.capabilities.data.datasets import LABELS, Dataset
from linguagym.capabilities.seeds.defaults import DEFAULT_MAX_SEEDS, MIN_SEEDS
from linguagym.capabilities.seeds.search import Match, search_match
from linguagym.capabilities.seeds.specs import NEGATED_VERB, Search, Spec
from linguagym.capabilities.seeds.templates import Slot, render
from linguagym.capabilities.testfile.model import SHORTAGE_NOTE, CapabilityTest, Provenance, SourceRow

CheckNegated = Callable[[Analysis, int], "str | None"]


@dataclass
class CapabilityResult:
    spec: Spec
    tests: list[CapabilityTest]
    matches: list[int] = field(default_factory=list)  # sentences meeting each case's search for S
    notes: list[str] = field(default_factory=list)  # why a case produced fewer tests than it matched


def generate_seeds(specs: list[Spec], dataset: Dataset, analyses: list[Analysis], *, seed: int = 0,
                   max_seeds: int | None = DEFAULT_MAX_SEEDS, progress: Callable[[int], None] | None = None,
                   usable: Sequence[bool] | None = None,
                   check_negated: CheckNegated | None = None) -> list[CapabilityResult]:
    """Seed tests for each spec, in spec order; ``analyses[i]`` is the analysis of ``dataset.examples[i]``;
    ``usable[i]`` False leaves that sentence out (``screening.screen``; all are usable without it);
    ``check_negated(analysis, verb_start)``: why S may not be negated at that verb, or None (every S may without
    it)."""
    if len(analyses) != len(dataset.examples) or (usable is not None and len(usable) != len(analyses)):
        raise ValueError("one analysis (and one usable flag) per example is needed")
    memo: dict[Search, tuple[list[tuple[int, Match]], int]] = {}

    def screened(search: Search) -> tuple[list[tuple[int, Match]], int]:
        """The usable sentences that meet ``search``, and how many unusable ones met it too."""
        if search not in memo:
            found = [(i, m) for i, (example, analysis) in enumerate(zip(dataset.examples, analyses, strict=True))
                     if (m := search_match(search, example, analysis)) is not None]
            kept = [(i, m) for i, m in found if usable is None or usable[i]]
            memo[search] = (kept, len(found) - len(kept))
        return memo[search]

    def matching(search: Search) -> list[tuple[int, Match]]:
        return screened(search)[0]

    results = []
    for spec in specs:
        result = CapabilityResult(spec, [])
        seen_texts: set[str] = set()
        for case_number, case in enumerate(spec.cases, start=1):
            found, dropped = screened(case.search)
            result.matches.append(len(found))
            if dropped:
                result.notes.append(f"case {case_number}: {dropped} truncated or broken sentence(s) left out")
            pools = {name: matching(search) for name, search in case.sources.items()}
            empty = [name for name, pool in pools.items() if not pool]
            if empty and found:
                result.notes.append(f"case {case_number}: no sentence for slot(s) {', '.join(empty)}")
                continue
            duplicates = 0
            refused: dict[str, int] = {}
            negates = check_negated is not None and "|negate" in (case.template or "")
            for index, match in found:
                example = dataset.examples[index]
                if negates and check_negated is not None and (
                        reason := check_negated(analyses[index], match.captures[NEGATED_VERB][0])):
                    refused[reason] = refused.get(reason, 0) + 1
                    continue
                rng = random.Random(f"{seed}/{spec.id}/{case_number}/{example.id}")
                slots = {"S": Slot(example, analyses[index], match)}
                for name, pool in pools.items():
                    partner = _draw(pool, index, rng)
                    if partner is None:
                        break
                    slots[name] = Slot(dataset.examples[partner[0]], analyses[partner[0]], partner[1])
                else:
                    text, chosen = render(case.template, slots, case.alternatives, rng)
                    if text in seen_texts:
                        duplicates += 1
                        continue
                    seen_texts.add(text)
                    result.tests.append(_test(spec, case_number, case.template, slots, chosen, text,
                                              case.expected, dataset.name))
            if duplicates:
                result.notes.append(f"case {case_number}: {duplicates} duplicate text(s) dropped")
            for reason, count in refused.items():
                result.notes.append(f"case {case_number}: {count} sentence(s) refused: {reason}")
        if max_seeds is not None and len(result.tests) > max_seeds:
            keep = set(random.Random(f"{seed}/{spec.id}/cap").sample(range(len(result.tests)), max_seeds))
            result.tests = [t for i, t in enumerate(result.tests) if i in keep]
        if len(result.tests) < MIN_SEEDS:
            result.notes.append(shortage(result, len(dataset.examples)))
        results.append(result)
        if progress:
            progress(1)
    return results


def shortage(result: CapabilityResult, rows: int) -> str:
    """Why a capability has fewer than ``MIN_SEEDS`` seeds: its rules meet too few of the dataset's sentences."""
    met = " and ".join(f"case {n}: {m}" for n, m in enumerate(result.matches, start=1))
    return (f"{SHORTAGE_NOTE} {MIN_SEEDS} seeds ({len(result.tests)}): of the dataset's {rows} sentences, only "
            f"these met the search ({met}, after truncated, broken and run-together ones were left out); the rules "
            "are the spec's, so a larger dataset or other rules (--specs) give more")


def _draw(pool: list[tuple[int, Match]], exclude: int, rng: random.Random) -> tuple[int, Match] | None:
    """A random member of ``pool`` other than sentence ``exclude``."""
    if len(pool) == 1 and pool[0][0] == exclude:
        return None
    while True:
        choice = pool[rng.randrange(len(pool))]
        if choice[0] != exclude:
            return choice


def _test(spec: Spec, case_number: int, template: str | None, slots: dict[str, Slot], chosen: dict[str, str],
          text: str, expected: frozenset[str], dataset: str) -> CapabilityTest:
    rows = tuple(SourceRow(slot=name, id=slot.example.id, label=slot.example.label, score=slot.example.score,
                           text=slot.example.text) for name, slot in slots.items())
    return CapabilityTest(
        id=f"{spec.id}/{case_number}/{slots['S'].example.id}", capability=spec.id, text=text,
        expected=tuple(label for label in LABELS if label in expected),
        kind="seed",
        provenance=Provenance.for_seed(dataset=dataset, case=case_number, rows=rows, template=template,
                                       alternatives=chosen))
