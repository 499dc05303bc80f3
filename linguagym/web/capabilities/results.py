"""What the capability pages show beyond the stored rows: a test file's overview (counts and sample tests per
capability, expansions beside their seed), and a finished test job's results read back from its folder: the
outcomes from each classifier's ``tests.csv``, the numbers per capability from the library's own aggregation
(``failures.summarize``, as ``write_results`` made them), the failure-rate chart (``charts.grouped_bars``) and
examples of failures. The words an expansion added are marked by ``reports.html.highlight``.

Nothing is kept in memory between requests: the job's folder is the record, like a run's."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from linguagym.capabilities.reports.html import highlight, highlight_outcome
from linguagym.capabilities.reports.results import read_tests_csv
from linguagym.capabilities.reports.show import summary_rows
from linguagym.capabilities.testfile.checklist_types import MFT
from linguagym.capabilities.testfile.model import CapabilityTest, CapabilityTestFile
from linguagym.capabilities.testing.classifier_run import Outcome
from linguagym.capabilities.testing.failures import (
    CHECKLIST_DEFINITION,
    SOURCE_DEFINITION,
    FailureSummary,
    checklist_table,
    has_checklist,
    has_sources,
    summarize,
)


@dataclass(frozen=True)
class ClassifierResult:
    label: str
    spec: str
    status: str  # "ok" or "failed"
    error: str
    seconds: float
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def mft_outcomes(self) -> list[Outcome]:
        """The expected-label tests' outcomes (INV and DIR are reported apart)."""
        return MFT.of(self.outcomes)


@dataclass(frozen=True)
class JobResults:
    record: dict[str, Any]  # results.json
    classifiers: list[ClassifierResult]  # every classifier, failed ones too
    summaries: dict[str, FailureSummary]  # display label -> numbers (finished classifiers only)

    @property
    def has_expansions(self) -> bool:
        return any(c.expansions.total for s in self.summaries.values() for c in s.capabilities)

    @property
    def has_sources(self) -> bool:
        """Whether the tests named source sentences with gold labels (the source columns are shown)."""
        return has_sources(self.summaries)

    @property
    def source_definition(self) -> str:
        return SOURCE_DEFINITION

    @property
    def has_checklist(self) -> bool:
        """Whether INV or DIR tests ran (their table is shown, apart from the expected-label rates)."""
        return has_checklist(self.summaries)

    @property
    def checklist_definition(self) -> str:
        return CHECKLIST_DEFINITION

    def checklist_table(self) -> tuple[list[tuple[str, str]], list[list[str]]]:
        """CheckList's INV and DIR failure rates as display text (``failures.checklist_table``)."""
        return checklist_table(self.summaries)

    def rows(self) -> list[tuple[Any, list[Any]]]:
        """Per capability (then ``all``): the first classifier's row (names, counts) and every classifier's row."""
        tables = [[*s.capabilities, s.total] for s in self.summaries.values()]
        return [(table_rows[0], list(table_rows)) for table_rows in zip(*tables, strict=True)] if tables else []


def read_results(directory: Path, document: CapabilityTestFile) -> JobResults | None:
    """The results in ``directory`` (None when the job wrote none); ``document`` is the tested file."""
    record_path = directory / "results.json"
    if not record_path.is_file():
        return None
    record = json.loads(record_path.read_text(encoding="utf-8"))
    classifiers, summaries = [], {}
    for entry in record.get("classifiers", []):
        outcomes: list[Outcome] = []
        tests = directory / str(entry.get("directory") or "") / "tests.csv"
        if entry.get("status") == "ok" and entry.get("directory") and tests.is_file():
            outcomes = read_tests_csv(tests)
            summaries[entry["label"]] = summarize(outcomes, document.capabilities, classifier=entry["label"])
        classifiers.append(ClassifierResult(entry["label"], entry.get("spec") or entry["name"], entry["status"],
                                            entry.get("error") or "", float(entry.get("seconds") or 0), outcomes))
    return JobResults(record, classifiers, summaries)


def failure_examples(results: JobResults, document: CapabilityTestFile, limit: int) -> list[dict[str, Any]]:
    """Per capability with failures: per classifier up to ``limit`` failing seeds and failing expansions (those
    whose seed passed first, as the report orders them), each expansion with its seed and the added words
    marked."""
    tests = document.by_id()
    names = {c.id: c.name for c in document.capabilities}
    first = next(iter(results.summaries.values()), None)
    order = [c.id for c in first.capabilities] if first else []
    out = []
    for cid in order:
        entries = []
        for result in results.classifiers:
            if result.status != "ok":
                continue
            by_id = {o.id: o for o in result.outcomes}
            failing = [o for o in result.mft_outcomes if o.capability == cid and not o.passed]
            seeds = [o for o in failing if o.kind == "seed"]
            expansions = sorted((o for o in failing if o.kind == "expansion"),
                                key=lambda o: not (o.seed in by_id and by_id[o.seed].passed))
            if not failing:
                continue
            entries.append({
                "label": result.label, "seed_failures": len(seeds), "expansion_failures": len(expansions),
                "seeds": seeds[:limit],
                "expansions": [{"outcome": o, "seed": by_id.get(o.seed or ""),
                                "marked": Markup(highlight_outcome(o, tests))}
                               for o in expansions[:limit]],
            })
        if entries:
            out.append({"id": cid, "name": names.get(cid, ""), "classifiers": entries})
    return out


def file_overview(document: CapabilityTestFile, samples: int) -> list[dict[str, Any]]:
    """A test file's page: per capability its counts (``show.summary_rows``), the file's notes on them (a shortage of
    seeds, why no expansion) and up to ``samples`` seeds, each with its expansions beside it (seeds that have
    expansions first, then a reproducible random sample)."""
    matches = {c.id: c.matches for c in document.capabilities}
    notes = {c.id: list(c.notes or ()) for c in document.capabilities}  # why a count is low: shown beside it
    seeds: dict[str, list[CapabilityTest]] = {}
    grown: dict[str, list[CapabilityTest]] = {}
    for test in document.tests:
        if not MFT.owns(test):  # INV and DIR pairs are counted in the row (show.summary_rows), not sampled
            continue
        if test.kind == "expansion":
            grown.setdefault(test.seed_id or "", []).append(test)
        else:
            seeds.setdefault(test.capability, []).append(test)
    out = []
    for row in summary_rows(document):
        pool = seeds.get(row["id"], [])
        chosen = [t for t in pool if t.id in grown][:samples]
        rest = [t for t in pool if t.id not in grown]
        picked = random.Random(f"0/{row['id']}").sample(range(len(rest)), min(len(rest), samples - len(chosen)))
        chosen += [rest[i] for i in sorted(picked)]
        out.append({**row, "matches": matches.get(row["id"]), "notes": notes.get(row["id"], []), "samples": [
            {"seed": t, "expansions": [Markup(highlight(x, t)) for x in grown.get(t.id, [])]} for t in chosen]})
    return out
