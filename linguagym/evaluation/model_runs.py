"""``run_models``: the one entry point for scoring suites with language models. The command line (``linguagym
run``), the web app's run worker and Python users all call it; they only parse, show progress and cancel.

It reads every suite, resolves every model and checks every destination before any work; scores (on an executor
that can, all models side by side first); evaluates each model in turn, letting each model's weights go before
the next one loads; writes each model's files whole into a folder of its own as soon as it is done; then
summarizes the models that ran, from the results in memory (never reading the folders back), and writes the
report.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, overload

from linguagym.errors import Cancelled, ConfigurationError, LinguagymError, OutputError
from linguagym.evaluation.aggregate import Summary
from linguagym.evaluation.limit import limit_suite
from linguagym.evaluation.policy import AccuracyPolicy
from linguagym.evaluation.prefetch import Prefetcher, prefetch_wanted
from linguagym.evaluation.report import check_report_destination, write_report
from linguagym.evaluation.run import (
    RunResult,
    RunSettings,
    check_settings,
    load_suites,
    run_suites,
    settings_scorer,
    suite_texts,
)
from linguagym.evaluation.runfolder.lock import RetiredReport, output_lock, retire_report
from linguagym.evaluation.runfolder.reader import RunData, held_run
from linguagym.evaluation.runfolder.writer import check_run_destination, write_model_folder
from linguagym.evaluation.summary import SummarySettings, check_summary_settings, run_policy, summarize_held
from linguagym.executors.base import SideBySide
from linguagym.executors.local import LocalExecutor
from linguagym.names import model_folders, model_labels
from linguagym.progress import IsCancelled, Progress, begin, check_cancelled, reporting_stages
from linguagym.scoring.engine.order import work_to_do
from linguagym.scoring.engine.shared_work import sharing_work
from linguagym.scoring.protocol import Scorer
from linguagym.scoring.registry import release_scorer
from linguagym.suites.model import Suite

if TYPE_CHECKING:
    from linguagym.executors.base import Executor

ScorerFactory = Callable[[RunSettings], Scorer]
DEFAULT_SUMMARY = SummarySettings()
Finished = Callable[[RunSettings, "RunResult | LinguagymError"], None]


@dataclass
class ModelRuns(Sequence["RunResult | LinguagymError"]):
    """What ``run_models`` did: one outcome per model, in the order given (a ``RunResult``, or the error that
    stopped that model), the summary of the models that ran (None when summarizing was turned off) and, where it
    wrote an output folder, the report's path. Reads as the list of outcomes: ``good, bad = run_models(...)``."""

    outcomes: list[RunResult | LinguagymError]
    settings: list[RunSettings]
    summary: Summary | None = None
    report: Path | None = None
    runs: list[RunData] = field(default_factory=list)  # the written model folders, as the report shows them

    @overload
    def __getitem__(self, index: int) -> RunResult | LinguagymError: ...

    @overload
    def __getitem__(self, index: slice) -> list[RunResult | LinguagymError]: ...

    def __getitem__(self, index):
        return self.outcomes[index]

    def __len__(self) -> int:
        return len(self.outcomes)

    def __iter__(self) -> Iterator[RunResult | LinguagymError]:
        return iter(self.outcomes)

    def __repr__(self) -> str:  # short: the default repr held every model's every suite (12 MB for 34 suites)
        lines = [f"<ModelRuns: {len(self.outcomes)} models, {len(self.failed)} failed"
                 + (f"; report {self.report}" if self.report else "") + ">"]
        lines += [f"  {one.model}: failed: {outcome.message}" if isinstance(outcome, LinguagymError)
                  else f"  {outcome!r}" for one, outcome in zip(self.settings, self.outcomes, strict=True)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "".join(outcome._repr_html_() if hasattr(outcome, "_repr_html_") else
                       f"<p>failed: {escape(str(outcome))}</p>" for outcome in self.outcomes)

    @property
    def failed(self) -> list[tuple[RunSettings, LinguagymError]]:
        """Each model that failed, with its error."""
        return [(one, o) for one, o in zip(self.settings, self.outcomes, strict=True) if isinstance(o, LinguagymError)]


def run_models(
    suites: Sequence[str | Path | Suite],
    settings: Sequence[RunSettings],
    *,
    output: str | Path | None = None,
    summary: SummarySettings | None = DEFAULT_SUMMARY,
    report: bool = True,
    progress: Progress | None = None,
    cancelled: IsCancelled | None = None,
    finished: Finished | None = None,
    executor: Executor | None = None,
    scorers: ScorerFactory | None = None,
    prefetch: bool | None = None,
    keep_scores: bool = True,
) -> ModelRuns:
    """Score and evaluate ``suites`` (files, or ``Suite`` objects) with each model of ``settings`` (one
    ``RunSettings`` per model).

    With ``summary``, the models that ran are summarized (``ModelRuns.summary``: accuracy per suite, the
    collection's score and groups). With ``output``, each model's files go whole into a folder of its own there
    (labels and folders that never collide: ``runA/checkpoint-1000`` and ``runB/checkpoint-1000`` keep their
    full names), with its results also in lm-evaluation-harness's layout (``results_<time>.json``, see
    ``lm_eval_results``), and, with ``report``, ``report.html`` and ``plots/``. ``RunSettings.limit`` scores only
    the first items of each suite. A model that fails is returned as its error and the others go on; a write that
    fails stops the run with an ``OutputError``.

    ``progress(label, total, unit)`` is told each piece of work (each model, or all models at once on an
    executor that scores them side by side); ``cancelled()`` is asked between steps and stops the run with
    ``Cancelled``, keeping the folders already written. ``finished(settings, outcome)`` is called as each model
    is done (and written). ``executor`` scores the texts (default: in this process; ``make_executor("ray")``: on
    a Ray cluster). ``scorers(settings)`` builds a model's scorer instead of the registry (your own scorer).
    ``prefetch`` loads the next model while one scores, in this process (default: ``$LINGUAGYM_PREFETCH``, else
    off: see ``prefetch.py``); models with the same tokenizer files share their token ids and prefix trees.
    ``keep_scores=False`` (with ``output``): once a model's folder is written and ``finished`` has seen it, its
    result keeps its accuracies and predictions but lets go of its region values and token scores
    (``SuiteResult.conditions`` empty; they are in the folder): a run over a hundred checkpoints then holds a
    hundred models' accuracies, not a hundred models' token scores (about 40 MB each for the 34 suites).
    """
    if not keep_scores and output is None:
        raise ConfigurationError("keep_scores=False needs an output folder: the scores would be lost",
                                 hint="pass output=..., or keep the scores")
    for one in settings:
        check_settings(one)
    _refuse_repeated_models(settings)
    if summary is not None:
        check_summary_settings(summary)
    loaded = load_suites(suites)
    # one policy decides accuracy in every output of every model of the run (policy.py)
    policy = run_policy(settings, summary, [suite.name for suite in loaded[0]])
    labels = model_labels([one.model for one in settings])  # checkpoint-1000 of two runs: full names, not one
    folders = model_folders(labels.values())
    if output is not None:
        check_run_destination(output, folders.values())
        if summary is not None and report:
            check_report_destination(output)
    # one run at a time in an output folder; stale temporaries of killed runs go (runfolder/lock.py)
    with output_lock(output) if output is not None else contextlib.nullcontext():
        make_scorer = scorers or settings_scorer
        if scorers is None:
            _hash_local_models(settings)
        pending: list[Scorer | None] = []
        for index, one in enumerate(settings):  # resolves names (a hub id may download here); loads no weights
            with reporting_stages(progress, cancelled, partial(_stage_label, index, len(settings), labels[one.model])):
                pending.append(make_scorer(one))
        if executor is None:
            executor = LocalExecutor()
        wanted = prefetch_wanted(prefetch, [one.device for one in settings])
        outcomes: list[RunResult | LinguagymError] = []
        held: list[RunData] = []  # each model that ran, as its summary and report need it (taken before keep_scores)
        retired: RetiredReport | None = None
        with sharing_work():  # checkpoints of one model tokenise once and pack their prefix trees once
            errors = _prefill(executor, [s for s in pending if s is not None], settings, loaded[0], progress,
                              cancelled)  # (none is None yet)
            if errors is not None:
                progress = None  # what is left is read from the cache
            # weights are loaded ahead only where they score: in this process (side by side, all is scored already)
            ahead = Prefetcher(pending, partial(_texts, loaded[0], settings)) if (
                wanted and isinstance(executor, LocalExecutor) and errors is None and len(settings) > 1) else None
            try:
                for index, one in enumerate(settings):
                    check_cancelled(cancelled)
                    scorer, pending[index] = pending[index], None  # let each model's weights go once it is done
                    label = (f"model {index + 1} of {len(settings)}: {labels[one.model]}" if len(settings) > 1
                             else labels[one.model])
                    with reporting_stages(progress, cancelled,
                                          partial(_stage_label, index, len(settings), labels[one.model])):
                        outcome = _run_one(one, scorer, loaded, errors[index] if errors else None, label, progress,
                                           cancelled, executor, partial(ahead.ready, index, scorer) if ahead else None,
                                           policy)
                    release_scorer(scorer)
                    del scorer
                    if isinstance(outcome, RunResult):
                        outcome.label = labels[one.model]
                        if output is not None:
                            outcome.directory = _write(outcome, Path(output) / folders[outcome.label], summary)
                            if retired is None:
                                retired = retire_report(Path(output))  # a folder was replaced: not its report
                        if summary is not None:
                            held.append(held_run(outcome, regions=output is not None and report))
                    outcomes.append(outcome)
                    if finished is not None:
                        finished(one, outcome)
                    if not keep_scores and isinstance(outcome, RunResult):
                        outcome.suites = [replace(result, conditions=()) for result in outcome.suites]
            finally:
                if ahead is not None:
                    ahead.close()  # a cancelled or failed run loads nothing more and leaves no thread behind
        try:
            done = _summarized(outcomes, list(settings), held, output, summary, report)
        except OutputError:
            if retired is not None:
                retired.restore()  # the report could not be written: the earlier one stays
            raise
        if retired is not None:
            retired.discard()
        return done


def _hash_local_models(settings: Sequence[RunSettings]) -> None:
    """Hash the files of the run's local model directories side by side, before each model is identified by them
    one after the other (a run over checkpoints of a large model would otherwise hash them on one core)."""
    from linguagym.hashing import HashMemo
    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.scoring.engine.device import available_cpus

    by_cache: dict[Path, list[Path]] = {}
    for one in settings:
        path = Path(one.model).expanduser()
        if path.is_dir():
            cache = resolve_cache_dir(Path(one.cache_dir) if one.cache_dir else None)
            by_cache.setdefault(cache, []).append(path)
    for cache, directories in by_cache.items():
        with contextlib.suppress(OSError):  # unreadable: the model's own resolution reports it, as without this
            HashMemo(cache / "hashes.json").prefill(directories, available_cpus())


def _stage_label(index: int, count: int, label: str, what: str) -> str:
    """How a loading stage of model ``index`` is announced: ``loading smollm2-135m: reading the weights``."""
    return f"{f'model {index + 1} of {count}: ' if count > 1 else ''}loading {label}: {what}"


def _texts(suites: list[Suite], settings: Sequence[RunSettings], index: int) -> list[str]:
    """The texts model ``index`` scores (its limit and spacing)."""
    return suite_texts([limit_suite(suite, settings[index].limit) for suite in suites], settings[index].spacing)


def _prefill(executor: Executor, scorers: list[Scorer], settings: Sequence[RunSettings], suites: list[Suite],
             progress: Progress | None, cancelled: IsCancelled | None) -> list[LinguagymError | None] | None:
    """On an executor that scores several models side by side (Ray), score what all of them miss first, in one
    piece of work; each model's error, or None. None where the executor cannot (each model then scores alone)."""
    if not isinstance(executor, SideBySide) or len(settings) < 2:
        return None
    texts = [_texts(suites, settings, index) for index in range(len(settings))]
    work = [work_to_do(scorer, t) for scorer, t in zip(scorers, texts, strict=True)]
    units = {unit for _, unit in work}
    total = sum(n for n, _ in work) if len(units) == 1 else sum(len(set(t)) for t in texts)
    unit = units.pop() if len(units) == 1 else "sentences"
    advance = begin(progress, cancelled, f"{len(settings)} models side by side", total, unit)
    return list(executor.prefill_scores(list(zip(scorers, texts, settings, strict=True)), advance))


def _run_one(settings: RunSettings, scorer: Scorer | None, loaded: tuple[list[Suite], list[dict[str, str | None]]],
             error: LinguagymError | None, label: str, progress: Progress | None, cancelled: IsCancelled | None,
             executor: Executor, ready: Callable[[], None] | None = None,
             policy: AccuracyPolicy | None = None) -> RunResult | LinguagymError:
    """One model's run, or the error that stopped it. ``ready()`` loads its weights first (and starts loading the
    next model's: prefetch.py)."""
    if error is not None:
        return error

    def announce(total: int, unit: str) -> Callable[[int], None] | None:
        return begin(progress, cancelled, label, total, unit)

    try:
        if ready is not None:
            ready()
        return run_suites([], settings, scorer=scorer, progress=announce if progress or cancelled else None,
                          executor=executor, loaded_suites=loaded, policy=policy)
    except (OutputError, Cancelled):
        raise
    except LinguagymError as failure:
        return failure


def _summarized(outcomes: list[RunResult | LinguagymError], settings: list[RunSettings], held: list[RunData],
                output: str | Path | None, summary: SummarySettings | None, report: bool) -> ModelRuns:
    """The summary of the models that ran, computed once from what the run holds in memory, and the report."""
    if summary is None or not held:
        return ModelRuns(outcomes, settings)
    numbers = summarize_held(held, summary)
    if output is None:
        return ModelRuns(outcomes, settings, numbers)
    page = write_report(held, output, numbers) if report else None
    return ModelRuns(outcomes, settings, numbers, page, held)


def _refuse_repeated_models(settings: Sequence[RunSettings]) -> None:
    """One model twice would share one label and one folder: its two results would overwrite each other."""
    seen: set[str] = set()
    for one in settings:
        if one.model in seen:
            raise ConfigurationError(f"model {one.model!r} is given twice in one run",
                                     hint="give each model once; to compare settings of one model, run each into "
                                     "its own output folder")
        seen.add(one.model)


def _write(result: RunResult, directory: Path, summary: SummarySettings | None) -> Path:
    """Write one model's files (and, beside them, its results as lm-evaluation-harness lays them out); a failure
    says that a re-run costs nothing where the scores were cached."""
    try:
        return write_model_folder(result, directory, summary)
    except OutputError as error:
        if result.cache is not None and not result.cache.get("not_saved"):  # (the scores were saved in a cache)
            error.hint = "; ".join(filter(None, (error.hint, "the scores are cached, so running the same command "
                                                 "again recomputes nothing")))
        raise
