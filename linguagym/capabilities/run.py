"""``run_classifiers``: the one entry point for running a capability-test file against sentiment classifiers
(``settings.ClassifierRunSettings`` says which, and how). The command line (``linguagym lct test``), the web
app's capability jobs and Python users all call it; they only parse, build the settings, show progress and
cancel.

Every classifier is resolved before any work, so a typo fails at once. On an executor that can (Ray), what all
classifiers miss is predicted first, side by side, into their prediction caches. Then each classifier is run in
turn; one that fails part way does not stop the others (its finished predictions stay cached, so running again
resumes). With an output folder, the CSVs, ``results.json`` and ``report.html`` are written at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, overload

from linguagym.capabilities.classifiers.base import Classifier
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.capabilities.classifiers.registry import load_classifier, runs_code
from linguagym.capabilities.classifiers.task import ClassifyingTask
from linguagym.capabilities.reports.results import Written, write_results
from linguagym.capabilities.settings import DEFAULT_OPTIONS, ClassifierOptions, ClassifierRunSettings
from linguagym.capabilities.testfile.load import tests_of
from linguagym.capabilities.testfile.model import CapabilityTestFile
from linguagym.capabilities.testing.classifier_run import (
    ClassifierRun,
    failed_run,
    missing_texts,
    run_tests,
    unique_texts,
)
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.executors.base import SideBySide
from linguagym.notebook_view import html_view, text_view
from linguagym.progress import Advance, IsCancelled, Progress, begin, check_cancelled
from linguagym.progress_display import chosen_progress

if TYPE_CHECKING:
    from linguagym.executors.base import Executor

Finished = Callable[[str, ClassifierRun], None]


@dataclass
class ClassifierRuns(Sequence[ClassifierRun]):
    """What ``run_classifiers`` did: one run per classifier, in the order given (a failed one has its error and
    no outcomes), and what was written (None without an output folder). Reads as the list of runs."""

    runs: list[ClassifierRun]
    written: Written | None = None

    @overload
    def __getitem__(self, index: int) -> ClassifierRun: ...

    @overload
    def __getitem__(self, index: slice) -> list[ClassifierRun]: ...

    def __getitem__(self, index):
        return self.runs[index]

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self) -> Iterator[ClassifierRun]:
        return iter(self.runs)

    @property
    def failed(self) -> list[ClassifierRun]:
        return [run for run in self.runs if not run.ok]

    def __repr__(self) -> str:  # short: the default repr held every classifier's every outcome
        return text_view(self._title(), [f"{run.name}: {run.summary()}" for run in self.runs])

    def _repr_html_(self) -> str:
        return html_view(self._title(), ("classifier", "outcome"), [(run.name, run.summary()) for run in self.runs])

    def _title(self) -> str:
        where = f"; written to {self.written.directory}" if self.written is not None else ""
        return f"ClassifierRuns: {len(self.runs)} classifiers, {len(self.failed)} failed{where}"


def open_classifier(spec: str, options: ClassifierOptions = DEFAULT_OPTIONS) -> Classifier:
    """The classifier ``spec`` names, behind the prediction cache (nothing heavy is loaded yet). A
    ``python:`` spec is refused unless ``options.allow_code``: it imports and runs the code it names."""
    if runs_code(spec) and not options.allow_code:
        raise ConfigurationError(
            f"{spec.strip()[:200]!r}: python:module:function classifiers run code on the server, and this server "
            "does not accept them from the web", hint="start the server with `allow_python_classifiers` (only "
            "where every user who can reach it may run code), or wrap the function in an HTTP endpoint",
            settings=["allow_python_classifiers"])
    cache_dir = Path(options.cache_dir) if options.cache_dir is not None else None
    inner = load_classifier(spec, cache_dir=cache_dir, **options.loader_options())
    return CachedClassifier(inner, cache_dir=cache_dir)


def open_classifiers(specs: Sequence[str], options: ClassifierOptions = DEFAULT_OPTIONS) -> list[Classifier]:
    """Every classifier of ``specs``, or the first error (checked before any work is queued or started)."""
    return [open_classifier(spec, options) for spec in specs]


def run_classifiers(
    tests: CapabilityTestFile | str | Path,
    settings: ClassifierRunSettings | Sequence[str],
    options: ClassifierOptions | None = None,
    *,
    output: str | Path | None = None,
    examples: int | None = None,
    progress: Progress | bool | None = True,
    cancelled: IsCancelled | None = None,
    finished: Finished | None = None,
    executor: Executor | None = None,
) -> ClassifierRuns:
    """Run the capability-test file ``tests`` (a ``CapabilityTestFile``, or the path of one) against the
    classifiers ``settings`` names, loaded as it says (``ClassifierRunSettings``). As a shorthand, ``settings``
    may be the classifier specs themselves, with ``options``, ``output`` and ``examples`` beside them.

    With an output folder, per-classifier ``tests.csv`` and ``summary.csv``, ``summary.csv``, ``results.json``
    and ``report.html`` are written there. ``progress``: True (the default) shows each piece of work as a line
    and a bar on stderr, in a terminal or a notebook (``progress_display``); False or None nothing; a ``Progress``
    callable, ``progress(label, total, unit)``, is told each piece of work;
    ``cancelled()`` is asked between steps and stops with ``Cancelled`` (predictions made so far stay cached).
    ``finished(spec, run)`` is called as each classifier is done. ``executor``: where the predictions are made
    (default: in this process; ``make_executor("ray")``: on a Ray cluster, every classifier side by side).
    """
    shown, display = chosen_progress(progress)
    try:
        return _run_classifiers(tests, settings, options, output, examples, shown, cancelled, finished, executor)
    finally:
        if display is not None:
            display.stop()


def _run_classifiers(tests: CapabilityTestFile | str | Path, settings: ClassifierRunSettings | Sequence[str],
                     options: ClassifierOptions | None, output: str | Path | None, examples: int | None,
                     progress: Progress | None, cancelled: IsCancelled | None, finished: Finished | None,
                     executor: Executor | None) -> ClassifierRuns:
    settings = _run_settings(settings, options, output, examples)
    document = tests_of(tests)
    specs, options = settings.classifiers, settings.options
    classifiers = list(zip(specs, open_classifiers(specs, options), strict=True))
    elsewhere = _predict_elsewhere(executor, classifiers, document, options, progress, cancelled)
    runs: list[ClassifierRun] = []
    for index, (spec, classifier) in enumerate(classifiers):
        check_cancelled(cancelled)
        label = f"classifier {index + 1} of {len(classifiers)}: {classifier.name}" if len(classifiers) > 1 \
            else classifier.name
        classifier.stop_when(cancelled)  # a request waiting on an endpoint ends soon after Cancel
        try:
            if spec in elsewhere and elsewhere[spec][1] is not None:
                run = failed_run(document, classifier, str(elsewhere[spec][1]), spec)
            else:
                run = run_tests(document, classifier, spec=spec,
                                progress=partial(_begin_texts, progress, cancelled, label))
        finally:
            classifier.stop_when(None)
            classifier.close()
        if spec in elsewhere:  # predicted on the cluster: not "from the cache"
            run.cached -= elsewhere[spec][0]
        run.executor = executor.describe() if executor is not None else {"name": "local"}
        runs.append(run)
        if finished is not None:
            finished(spec, run)
    written = None
    if settings.output is not None:
        record = options.record(specs, executor.name if executor is not None else "local")
        written = write_results(document, tests if not isinstance(tests, CapabilityTestFile) else None, runs,
                                settings.output, examples=settings.examples, settings=record)
    return ClassifierRuns(runs, written)


def _run_settings(settings: ClassifierRunSettings | Sequence[str], options: ClassifierOptions | None,
                  output: str | Path | None, examples: int | None) -> ClassifierRunSettings:
    """``settings`` itself, or the settings the shorthand (specs, options, output, examples) describes."""
    if isinstance(settings, ClassifierRunSettings):
        if options is not None or output is not None or examples is not None:
            raise TypeError("run_classifiers takes options, output and examples in its ClassifierRunSettings, not "
                            "beside them")
        return settings
    return ClassifierRunSettings(tuple(settings), options if options is not None else DEFAULT_OPTIONS,
                                 Path(output) if output is not None else None, 3 if examples is None else examples)


def _predict_elsewhere(executor: Executor | None, classifiers: list[tuple[str, Classifier]],
                       document: CapabilityTestFile, options: ClassifierOptions, progress: Progress | None,
                       cancelled: IsCancelled | None) -> dict[str, tuple[int, LinguagymError | None]]:
    """With an executor that can (Ray), predict what every classifier misses, side by side, into the prediction
    caches; per spec: (texts predicted there, its error or None). A local executor predicts nothing ahead."""
    if not isinstance(executor, SideBySide):
        return {}
    texts = unique_texts(document)
    todo = {spec: len(missing_texts(classifier, texts)) for spec, classifier in classifiers}
    advance = begin(progress, cancelled, f"{len(classifiers)} classifiers side by side", sum(todo.values()), "texts")
    errors = executor.prefill_predictions(classifiers, texts, options.loader_options(), advance,
                                          task=ClassifyingTask.for_cache)
    # What each classifier's cache gained on the cluster, failed ones included (their finished shards stay).
    return {spec: (todo[spec] - len(missing_texts(classifier, texts)), error)
            for (spec, classifier), error in zip(classifiers, errors, strict=True)}


def _begin_texts(progress: Progress | None, cancelled: IsCancelled | None, label: str, total: int) -> Advance | None:
    return begin(progress, cancelled, label, total, "texts")
