"""The files ``linguagym lct test`` writes, each whole or not at all:

- ``<classifier>/tests.csv``: one row per test (id, capability, kind, seed id, text, expected, predicted,
  p_neg, p_neu, p_pos, passed; the source sentence, its gold label and the predicted label, empty where the test
  names no source with a gold label; for INV and DIR tests, the test type, perturbation, original text and the
  prediction for it, and a DIR test's direction);
- ``<classifier>/summary.csv`` and ``summary.csv`` (all classifiers): the numbers per capability, with the
  source accuracy and the failures given a correctly classified source, and CheckList's INV and DIR failure
  rates in their own columns;
- ``results.json``: how it was made (tool version, the tests file and its sha256, its dataset block, every
  classifier's identity, timings, errors, how sources were found and the numbers' definition) and the numbers;
- ``report.html``: one self-contained page (see ``html``).

A classifier that failed has no CSVs written this time; ``results.json`` and the report say why.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from linguagym.atomic import atomic_open, atomic_write_text
from linguagym.capabilities.classifiers.base import LABELS, Prediction
from linguagym.capabilities.testfile.checklist_types import DIR, INV, MFT
from linguagym.capabilities.testfile.model import CapabilityTestFile, Direction, require_test_file
from linguagym.capabilities.testfile.save import tests_text
from linguagym.capabilities.testing.classifier_run import SOURCE_SLOT, ClassifierRun, Outcome, source_sentences
from linguagym.capabilities.testing.failures import (
    CHECKLIST_DEFINITION,
    SOURCE_DEFINITION,
    CapabilityFailures,
    FailureSummary,
    summarize,
)
from linguagym.names import safe_name
from linguagym.version import __version__

DEFAULT_OUTPUT = Path("linguagym-results") / "lct"
RESULTS_FORMAT = "linguagym-capability-results"
TEST_COLUMNS = ["id", "capability", "kind", "seed", "text", "expected", "predicted", "p_neg", "p_neu", "p_pos",
                "passed", "source", "source_label", "source_predicted", "type", "perturbation", "original_text",
                "original_predicted", "original_p_neg", "original_p_neu", "original_p_pos", "direction"]
SUMMARY_COLUMNS = ["classifier", "capability", "name", "seeds", "expansions", "seed_failures", "seed_fail_rate",
                   "seed_fail_low", "seed_fail_high", "expansion_failures", "expansion_fail_rate",
                   "expansion_fail_low", "expansion_fail_high", "expansions_after_passing_seed",
                   "expansion_failures_after_passing_seed", "sources", "sources_correct", "source_accuracy",
                   "seeds_source_right", "seed_failures_source_right", "seed_fail_rate_source_right",
                   "expansions_source_right", "expansion_failures_source_right",
                   "expansion_fail_rate_source_right", "inv_pairs", "inv_failures", "inv_fail_rate", "dir_pairs",
                   "dir_failures", "dir_fail_rate"]


@dataclass(frozen=True)
class Written:
    """What ``write_results`` wrote."""

    directory: Path
    report: Path
    record: Path
    classifier_directories: dict[str, Path]  # display label -> its directory (successful classifiers only)
    summaries: dict[str, FailureSummary]  # display label -> numbers (successful classifiers only)


def classifier_labels(runs: Sequence[ClassifierRun]) -> list[str]:
    """Display labels, one per run: the classifier's name, with ``-2``, ``-3`` ... when two runs share it."""
    labels: list[str] = []
    for run in runs:
        label, n = run.name, 1
        while label in labels:
            n += 1
            label = f"{run.name}-{n}"
        labels.append(label)
    return labels


def directory_names(labels: Sequence[str]) -> list[str]:
    """A safe, distinct folder name per display label (``linguagym run``'s rule for model folders)."""
    used: list[str] = []
    for label in labels:
        stem = safe_name(label, "classifier")
        name, n = stem, 1
        while name in used:
            n += 1
            name = f"{stem}-{n}"
        used.append(name)
    return used


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _rate(value: float | None) -> float | str:
    return "" if value is None else round(value, 6)


def _write_csv(path: Path, header: list[str], rows) -> None:
    with atomic_open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def write_tests_csv(run: ClassifierRun, path: str | Path) -> None:
    def rows():
        for o in run.outcomes:
            p = o.prediction.probabilities
            q = o.original_prediction.probabilities if o.original_prediction else ("", "", "")
            yield [o.id, o.capability, o.kind, o.seed or "", o.text, "/".join(o.expected), o.predicted,
                   round(p[0], 6), round(p[1], 6), round(p[2], 6), _logical(o.passed), o.source or "",
                   o.source_label or "", o.source_predicted or "", o.test_type, o.perturbation or "",
                   o.original_text or "",
                   o.original_prediction.label if o.original_prediction else "",
                   *(round(v, 6) if v != "" else "" for v in q), _direction_text(o.direction)]

    _write_csv(Path(path), TEST_COLUMNS, rows())


def _logical(value: bool) -> str:
    """A logical cell as every linguagym CSV writes it (docs/data-dictionary.md): ``TRUE``/``FALSE``, which R's
    ``read.csv`` and pandas both read as logical (Python's ``True``/``False`` is text to R)."""
    return "TRUE" if value else "FALSE"


def _direction_text(direction: Direction | None) -> str:
    """A DIR test's direction in one cell: ``positive decrease 0.1``."""
    return "" if direction is None else f"{direction.label} {direction.change} {direction.tolerance}"


def _read_direction(text: str) -> Direction | None:
    if not text:
        return None
    label, change, tolerance = text.split()
    return Direction(label=label, change=change, tolerance=float(tolerance))  # type: ignore[arg-type]


def read_tests_csv(path: str | Path) -> list[Outcome]:
    """The outcomes ``write_tests_csv`` wrote, read back (for the web app's results pages)."""
    outcomes = []
    with Path(path).open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            probabilities = (float(row["p_neg"]), float(row["p_neu"]), float(row["p_pos"]))
            original = None
            if row.get("original_predicted"):
                neg, neu, pos = (float(row[f"original_p_{name[:3]}"]) for name in LABELS)
                original = Prediction(row["original_predicted"], (neg, neu, pos))
            # files written before sources (or test types) were recorded have no such columns
            outcomes.append(Outcome(row["id"], row["capability"], row["kind"], row["seed"] or None, row["text"],
                                    tuple(filter(None, row["expected"].split("/"))),  # a DIR test's: empty
                                    Prediction(row["predicted"], probabilities),
                                    row.get("source") or None, row.get("source_label") or None,
                                    row.get("source_predicted") or None, row.get("type") or MFT.code,
                                    row.get("perturbation") or None, row.get("original_text") or None, original,
                                    _read_direction(row.get("direction") or "")))
    return outcomes


def summary_rows(label: str, summary: FailureSummary) -> list[list[Any]]:
    rows = []
    for row in (*summary.capabilities, summary.total):
        seed_ci, exp_ci = row.seeds.interval(), row.expansions.interval()
        rows.append([label, row.id, row.name, row.seeds.total, row.expansions.total, row.seeds.failed,
                     _rate(row.seeds.value), _rate(seed_ci[0] if seed_ci else None),
                     _rate(seed_ci[1] if seed_ci else None), row.expansions.failed, _rate(row.expansions.value),
                     _rate(exp_ci[0] if exp_ci else None), _rate(exp_ci[1] if exp_ci else None),
                     row.after_passing_seed.total, row.after_passing_seed.failed, row.sources.total,
                     row.sources.correct, _rate(row.sources.value)]
                    + [value for rate in (row.seeds_source_right, row.expansions_source_right, row.invariance,
                                          row.directional)
                       for value in (rate.total, rate.failed, _rate(rate.value))])
    return rows


def write_summary_csv(summaries: Mapping[str, FailureSummary], path: str | Path) -> None:
    """``summaries``: display label -> its summary; one block of rows (capabilities, then ``all``) each."""
    _write_csv(Path(path), SUMMARY_COLUMNS, [r for label, s in summaries.items() for r in summary_rows(label, s)])


def _numbers(row: CapabilityFailures) -> dict[str, Any]:
    def rate(r) -> dict[str, Any]:
        interval = r.interval()
        return {"failed": r.failed, "total": r.total, "rate": r.value,
                "interval95": list(interval) if interval else None}

    return {"id": row.id, "name": row.name, "seeds": rate(row.seeds), "expansions": rate(row.expansions),
            "expansions_after_passing_seed": rate(row.after_passing_seed), "confusion": row.confusion,
            "sources": {"correct": row.sources.correct, "total": row.sources.total, "accuracy": row.sources.value},
            "seeds_source_right": rate(row.seeds_source_right),
            "expansions_source_right": rate(row.expansions_source_right),
            "tests_source_right": rate(row.tests_source_right), "invariance": rate(row.invariance),
            "directional": rate(row.directional),
            "perturbations": {name: rate(value) for name, value in row.perturbations.items()}}


def sources_record(document: CapabilityTestFile) -> dict[str, Any]:
    """How the source sentences behind the source numbers were found, for reproducing them."""
    sources = source_sentences(document)
    return {"definition": SOURCE_DEFINITION,
            "found_as": f"each test's provenance row in slot {SOURCE_SLOT} (an expansion without rows: its seed's), "
                        "where that row's label is negative, neutral or positive; gold label: the row's label, "
                        "the dataset's; sources are predicted by the same classifier, in the same batches and "
                        "cache as the tests; distinct sources are counted by text",
            "tests_with_source": len(sources), "distinct_sources": len({text for text, _ in sources.values()})}


def results_record(document: CapabilityTestFile, tests_path: str | Path | None, runs: Sequence[ClassifierRun],
                   summaries: Mapping[str, FailureSummary | None], directories: Sequence[str],
                   settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The run record: how the results were made and the numbers per classifier."""
    document = require_test_file(document, "results_record")
    tests = document.tests
    seeds, expansions = document.count("seed"), document.count("expansion")
    classifiers = []
    for (label, summary), run, directory in zip(summaries.items(), runs, directories, strict=True):
        entry: dict[str, Any] = {
            "label": label, "name": run.name, "spec": run.spec, "identity": run.identity,
            "status": "ok" if run.ok else "failed", "error": run.error,
            "directory": directory if run.ok else None, "unique_texts": run.unique_texts,
            "cached_before": run.cached, "predictions_kept": run.finished, "seconds": round(run.seconds, 3),
            "executor": run.executor}
        if summary is not None:
            entry["failed_tests"] = run.failed_tests
            entry["total"] = _numbers(summary.total)
            entry["capabilities"] = [_numbers(row) for row in summary.capabilities]
        classifiers.append(entry)
    return {
        "format": RESULTS_FORMAT, "version": 1,
        "created_by": {"tool": "linguagym", "version": __version__},
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        # a file object (no path): the hash of the file as write_tests writes it, which a file read is, byte for byte
        "tests_file": {"path": str(Path(tests_path).resolve()) if tests_path is not None else None,
                       "sha256": file_sha256(tests_path) if tests_path is not None
                       else hashlib.sha256(tests_text(document).encode("utf-8")).hexdigest(),
                       "tests": len(tests), "seeds": seeds, "expansions": expansions,
                       "inv": document.count_type(INV.code), "dir": document.count_type(DIR.code),
                       "created_by": document.created_by.to_json(), "settings": document.settings.to_json()},
        "dataset": document.dataset.to_json(),
        "settings": dict(settings or {}),
        "intervals": "95% Wilson score intervals on failure rates",
        "sources": sources_record(document),
        "checklist": {"definition": CHECKLIST_DEFINITION, "perturbations": document.perturbations},
        "classifiers": classifiers,
    }


def write_results(document: CapabilityTestFile, tests_path: str | Path | None, runs: Sequence[ClassifierRun],
                  out_dir: str | Path = DEFAULT_OUTPUT, *, examples: int = 3,
                  settings: Mapping[str, Any] | None = None) -> Written:
    """Write every output of one ``lct test`` into ``out_dir``; the report and the record come last.
    ``settings``: how the classifiers were run (device, batch size, label map ...), recorded as given."""
    from linguagym.capabilities.reports.html import render_report  # ~10 ms; --help loads this module

    document = require_test_file(document, "write_results")
    out = Path(out_dir)
    labels = classifier_labels(runs)
    directories = directory_names(labels)
    summaries: dict[str, FailureSummary | None] = {}
    written: dict[str, Path] = {}
    for label, directory, run in zip(labels, directories, runs, strict=True):
        if not run.ok:
            summaries[label] = None
            continue
        summary = summarize(run.outcomes, document.capabilities, classifier=label)
        summaries[label] = summary
        folder = out / directory
        write_tests_csv(run, folder / "tests.csv")
        write_summary_csv({label: summary}, folder / "summary.csv")
        written[label] = folder
    finished = {label: s for label, s in summaries.items() if s is not None}
    write_summary_csv(finished, out / "summary.csv")
    record = results_record(document, tests_path, runs, summaries, directories, settings)
    page = render_report(document, record, runs, labels, finished, examples=examples)
    report = out / "report.html"
    atomic_write_text(report, page)
    record_path = out / "results.json"
    atomic_write_text(record_path, json.dumps(record, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
    return Written(out, report, record_path, written, finished)
