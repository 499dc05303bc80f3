"""``run_classifiers``: the one entry point for running a capability-test file against sentiment classifiers. The
command line (``linguagym lct test``), the web app's capability jobs and Python users all call it; they only
parse, show progress and cancel.

Every classifier is resolved before any work, so a typo fails at once. On an executor that can (Ray), what all
classifiers miss is predicted first, side by side, into their prediction caches. Then each classifier is run in
turn; one that fails part way does not stop the others (its finished predictions stay cached, so running again
resumes). With an output folder, the CSVs, ``results.json`` and ``report.html`` are written at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from linguagym.capabilities.classifiers.base import Classifier
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.capabilities.classifiers.registry import load_classifier, runs_code
from linguagym.capabilities.classifiers.task import ClassifyingTask
from linguagym.capabilities.reports.results import Written, write_results
from linguagym.capabilities.testing.classifier_run import (
    ClassifierRun,
    failed_run,
    missing_texts,
    run_tests,
    unique_texts,
)
from linguagym.capabilities.testing.testfile import read_tests
from linguagym.capabilities.testing.testfile_model import CapabilityTestFile
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.executors.base import SideBySide
from linguagym.progress import IsCancelled, Progress, begin, check_cancelled

if TYPE_CHECKING:
    from linguagym.executors.base import Executor

Finished = Callable[[str, ClassifierRun], None]


@dataclass(frozen=True)
class ClassifierOptions:
    """How classifiers are loaded (``load_classifier``'s options): ``device`` and ``batch_size`` for local
    models; ``label_map`` maps a model's labels to ours (``{"LABEL_0": "negative", ...}``); ``timeout`` and
    ``retries`` for HTTP endpoints; ``cache_dir`` holds models and the prediction cache (None: the user cache).
    ``allow_code``: whether ``python:module:function`` specs may run (a server facing others refuses them)."""

    device: str = "auto"
    batch_size: int | None = None
    label_map: Mapping[str, str] | None = None
    timeout: float | None = None
    retries: int | None = None
    cache_dir: str | Path | None = None
    allow_code: bool = True

    def check(self) -> None:
        """Refuse impossible numbers before any work."""
        for option, value, low in (("batch size", self.batch_size, 1), ("retries", self.retries, 0)):
            if value is not None and value < low:
                raise ConfigurationError(f"{option} must be {low} or more, not {value}")
        if self.timeout is not None and self.timeout <= 0:
            raise ConfigurationError(f"the timeout must be more than 0 seconds, not {self.timeout}")

    def loader_options(self) -> dict[str, Any]:
        """``load_classifier``'s keyword arguments (also what Ray workers build each classifier with)."""
        return {"device": self.device, "batch_size": self.batch_size,
                "label_map": dict(self.label_map) if self.label_map is not None else None,
                "timeout": self.timeout, "retries": self.retries}

    def record(self, specs: Sequence[str], executor: str) -> dict[str, Any]:
        """How the classifiers were run, as ``results.json`` records it."""
        return {"classifiers": list(specs), **self.loader_options(),
                "cache_dir": str(self.cache_dir) if self.cache_dir is not None else None, "executor": executor}


DEFAULT_OPTIONS = ClassifierOptions()


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


def open_classifier(spec: str, options: ClassifierOptions = DEFAULT_OPTIONS) -> Classifier:
    """The classifier ``spec`` names, behind the prediction cache (nothing heavy is loaded yet). A
    ``python:`` spec is refused unless ``options.allow_code``: it imports and runs the code it names."""
    if runs_code(spec) and not options.allow_code:
        raise ConfigurationError(
            f"{spec.strip()[:200]!r}: python:module:function classifiers run code on the server, and this server "
            "does not accept them from the web", hint="start the server with `allow_python_classifiers` (only "
            "where every user who can reach it may run code), or wrap the function in an HTTP endpoint",
            settings=["allow_python_classifiers"])
    inner = load_classifier(spec, cache_dir=options.cache_dir, **options.loader_options())
    return CachedClassifier(inner, cache_dir=options.cache_dir)  # type: ignore[return-value]


def open_classifiers(specs: Sequence[str], options: ClassifierOptions = DEFAULT_OPTIONS) -> list[Classifier]:
    """Every classifier of ``specs``, or the first error (checked before any work is queued or started)."""
    if not specs:
        raise ConfigurationError("no classifier given", hint="name at least one classifier (e.g. vader)")
    options.check()
    return [open_classifier(spec, options) for spec in specs]


def run_classifiers(
    tests: str | Path,
    specs: Sequence[str],
    options: ClassifierOptions = DEFAULT_OPTIONS,
    *,
    output: str | Path | None = None,
    examples: int = 3,
    progress: Progress | None = None,
    cancelled: IsCancelled | None = None,
    finished: Finished | None = None,
    executor: Executor | None = None,
) -> ClassifierRuns:
    """Run the capability-test file ``tests`` against each classifier of ``specs`` (vader, a model directory, a
    hub id, an http(s) URL, python:module:function ...).

    With ``output``, per-classifier ``tests.csv`` and ``summary.csv``, ``summary.csv``, ``results.json`` and
    ``report.html`` (``examples`` failing tests per capability) are written there. ``progress(label, total,
    unit)`` is told each piece of work; ``cancelled()`` is asked between steps and stops with ``Cancelled``
    (predictions made so far stay cached). ``finished(spec, run)`` is called as each classifier is done.
    ``executor``: where the predictions are made (default: in this process; ``make_executor("ray")``: on a
    Ray cluster, every classifier side by side).
    """
    if examples < 0:
        raise ConfigurationError(f"examples must be 0 or more, not {examples}")
    document = read_tests(tests)
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
                                progress=lambda total, label=label: begin(progress, cancelled, label, total, "texts"))
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
    if output is not None:
        record = options.record(specs, executor.name if executor is not None else "local")
        written = write_results(document, tests, runs, output, examples=examples, settings=record)
    return ClassifierRuns(runs, written)


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
