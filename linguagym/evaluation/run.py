"""One run: suites x one model -> scored sentences (cached) -> evaluated suites, with how it was made."""

from __future__ import annotations

import hashlib
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linguagym.errors import ConfigurationError
from linguagym.evaluation.alignment import CROSSING_RULES
from linguagym.evaluation.collections import covering_collection
from linguagym.evaluation.evaluate import (
    COMPAT_OPTIONS,
    SuiteResult,
    evaluate_suite,
    sentence_markers,
    suite_sentences,
)
from linguagym.evaluation.limit import check_limit, limit_suite
from linguagym.evaluation.policy import POLICIES, RECORD_KEY, AccuracyPolicy, resolve_policy
from linguagym.evaluation.sentences import SPACING_OPTIONS
from linguagym.executors.local import LocalExecutor
from linguagym.scoring.cache import cache_stats as _cache_stats
from linguagym.scoring.engine.order import load_weights, work_to_do
from linguagym.scoring.huggingface.memory import auto_batch_size, is_auto_batch_size
from linguagym.scoring.model_args import ModelArgPairs, model_arg_pairs
from linguagym.scoring.protocol import Scorer
from linguagym.scoring.registry import DEFAULT_OPTIONS
from linguagym.scoring.spec import ScorerSpec
from linguagym.suites.formula import TIE_RULES, Tolerance
from linguagym.suites.load import read_suite
from linguagym.suites.metrics import METRIC_NAMES
from linguagym.suites.model import Suite
from linguagym.suites.save import suite_to_json
from linguagym.version import __version__

if TYPE_CHECKING:
    from linguagym.executors import Executor

DEFAULT_MODEL = "smollm2-135m"


@dataclass(frozen=True)
class RunSettings:
    """Every option that can change a number; all of it is recorded in the run record."""

    model: str = DEFAULT_MODEL
    bos: str = DEFAULT_OPTIONS.bos
    spacing: str = "natural"
    dtype: str = DEFAULT_OPTIONS.dtype
    device: str = DEFAULT_OPTIONS.device
    # or "auto": chosen from the GPU's free memory (16 on a CPU); see resolved_batch_size
    batch_size: int | str = DEFAULT_OPTIONS.batch_size
    pll: str | None = DEFAULT_OPTIONS.pll
    metric: str | None = None  # None: each suite's own primary metric
    policy: str | None = None  # None: the collection's (policy.py); what decided accuracy is in RunResult.policy
    atol: float = Tolerance.atol
    rtol: float = Tolerance.rtol
    # how '<' and '>' decide two equal sides: "strict" (a tie fails) or "lm-eval" (a tie holds, as lm-eval's argmax
    # scores a BLiMP pair of two identical sentences); docs/scoring.md, "Ties"
    ties: str = "strict"
    cache: bool = True
    cache_dir: str | None = None
    limit: int | float | None = None  # only the first items of each suite (a number, or a share below 1): see limit.py
    compat: str | None = None  # "syntaxgym-core": count sentence markers (<eos>) in regions as it does (evaluate.py)
    # Hugging Face model arguments (revision, trust_remote_code, dtype, peft, ...: scoring/model_args.py): a dict
    # or "k=v,..." is accepted and kept as sorted (key, value) pairs, so that the settings stay frozen and hashable
    model_args: ModelArgPairs = ()
    # word-boundary correction of causal LMs (minicons' bow_correction; docs/scoring.md): off, as in the published
    # numbers, lm-eval and minicons; the identity and the score cache tell corrected scores apart
    bow_correction: bool = False
    # a token covering text of several regions: "first" (whole in its first region; a region it empties is
    # undefined) or "split" (its surprisal shared out by characters, an approximation): evaluation/alignment.py
    crossing: str = "first"

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_args", model_arg_pairs(self.model_args))

    def scorer_spec(self) -> ScorerSpec:
        """The scorer these settings describe (the evaluation options aside)."""
        return ScorerSpec(self.model, bos=self.bos, dtype=self.dtype, device=self.device,
                          batch_size=self.resolved_batch_size(), pll=self.pll, cache_dir=self.cache_dir,
                          score_cache=self.cache, model_args=self.model_args,
                          bow_correction=self.bow_correction)

    def resolved_batch_size(self) -> int:
        """The batch size a run uses: ``batch_size``, or the one ``auto`` (lm-eval's ``auto:N`` too) picks. Scores do
        not depend on it (it is no part of the cache key): it changes only speed and memory."""
        if is_auto_batch_size(self.batch_size):
            return auto_batch_size(self.model, device=self.device, dtype=self.dtype, cache_dir=self.cache_dir,
                                   model_args=self.model_args)
        return int(self.batch_size)


@dataclass
class RunResult:
    settings: RunSettings
    scorer: dict[str, Any]  # the scorer's identity: model, revision/hash, dtype, device, BOS policy, ...
    suites: list[SuiteResult]
    sources: list[dict[str, str | None]]  # per suite: path (None: a Suite object) and sha256 of what was read
    sentences: int
    unique_sentences: int
    tokens: int
    seconds: float
    started: str
    environment: dict[str, str] = field(default_factory=dict)
    cache: dict[str, Any] | None = None  # where scores were cached, and how many were found there
    label: str | None = None  # the model's name in tables when the short name would be ambiguous
    directory: Path | None = None  # where run_models wrote its files, when it was given an output folder
    executor: dict[str, Any] = field(default_factory=lambda: {"name": "local"})  # where texts were scored
    batch_size: int | None = None  # the batch size used (settings.batch_size may be "auto")
    items_total: dict[str, int] = field(default_factory=dict)  # suite -> its items, where settings.limit cut some
    # the policy that decides each suite's accuracy, in every output of the run (run_policy in summary.py)
    policy: AccuracyPolicy = field(default_factory=AccuracyPolicy)

    def accuracy(self, suite: SuiteResult) -> float:
        """The suite's accuracy under the run's policy: the number every output shows."""
        return suite.accuracy(self.policy.of(suite.suite.name))

    def __repr__(self) -> str:  # the default repr holds every suite's conditions: 200 KB for the three examples
        rows = self._accuracy_rows()
        shown = ", ".join(f"{name} {accuracy}" for name, accuracy, _ in rows[:5])
        more = f", ... ({len(rows) - 5} more)" if len(rows) > 5 else ""
        return (f"<RunResult {self.settings.model!r}: {len(self.suites)} suites, {self.sentences} sentences, "
                f"{self.seconds:.1f} s; accuracy: {shown}{more}>")

    def _repr_html_(self) -> str:
        """A notebook's view: the model and one row per suite with its accuracy under the run's policy."""
        from html import escape

        body = "".join(f"<tr><td>{escape(name)}</td><td>{escape(policy)}</td><td>{accuracy}</td></tr>"
                       for name, accuracy, policy in self._accuracy_rows())
        return (f"<p><b>{escape(self.label or self.settings.model)}</b>: {len(self.suites)} suites, "
                f"{self.sentences} sentences, {self.seconds:.1f} s</p><table><thead><tr><th>suite</th>"
                f"<th>policy</th><th>accuracy</th></tr></thead><tbody>{body}</tbody></table>")

    def _accuracy_rows(self) -> list[tuple[str, str, str]]:
        rows = []
        for suite in self.suites:
            value = self.accuracy(suite)
            shown = "n/a" if value != value else f"{value:.3f}"
            rows.append((suite.suite.name, shown, self.policy.of(suite.suite.name)))
        return rows

    def record(self) -> dict[str, Any]:
        """The JSON run record: how every number of this run was made."""
        return {
            "linguagym": __version__,
            "started": self.started,
            "seconds": round(self.seconds, 3),
            "settings": {**asdict(self.settings), "model_args": dict(self.settings.model_args)},  # a JSON object
            "batch_size_used": self.batch_size,
            "scorer": self.scorer,
            "environment": self.environment,
            "executor": self.executor,
            "counts": {"suites": len(self.suites), "sentences": self.sentences,
                       "unique_sentences": self.unique_sentences, "tokens": self.tokens},
            "cache": self.cache,
            RECORD_KEY: self.policy.record(result.suite.name for result in self.suites),
            "suites": [
                {**source, "name": result.suite.name, "metric": result.metric,
                 "items": len(result.suite.items),
                 **({"items_total": self.items_total[result.suite.name]}
                    if result.suite.name in self.items_total else {}),
                 "policy": self.policy.of(result.suite.name),
                 "accuracy": _json_number(self.accuracy(result)),
                 "accuracy_all": _json_number(result.accuracy("all")),
                 "accuracy_first": _json_number(result.accuracy("first")),
                 # predictions naming an undefined value (counted as not holding), and crossing tokens
                 "undefined_predictions": result.undefined_predictions(),
                 **result.alignment_counts(),
                 "ties": result.ties(),  # predictions with a tied '<' or '>' (settings.ties decided the exact ones)
                 "predictions": [{"formula": p.formula, "accuracy": _json_number(share)}
                                 for p, share in zip(result.suite.predictions, result.prediction_accuracy(),
                                                     strict=True)]}
                for source, result in zip(self.sources, self.suites, strict=True)
            ],
        }


def _json_number(value: float) -> float | None:
    return None if value != value else value  # NaN -> null


def _environment(identity: dict[str, Any] | None = None) -> dict[str, str]:
    """Versions of what computed the numbers; ``identity``: the scorer's, where it scored in this process."""
    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for name in ("torch", "transformers", "tokenizers"):
        module = sys.modules.get(name)  # only what this run imported: a cached run loads no torch
        if module is not None:
            versions[name] = getattr(module, "__version__", "?")
    onednn = sys.modules.get("linguagym.scoring.native.onednn")  # imported where float32 was scored on the CPU
    if onednn is not None and identity is not None and identity.get("device") == "cpu":
        versions["cpu_float32_products"] = onednn.describe()
    return versions


def check_settings(settings: RunSettings) -> None:
    """Refuse bad options before any model is loaded or any sentence scored."""
    choices = {"metric": (settings.metric, (None, *METRIC_NAMES)), "policy": (settings.policy, (None, *POLICIES)),
               "spacing": (settings.spacing, SPACING_OPTIONS), "compat": (settings.compat, (None, *COMPAT_OPTIONS)),
               "crossing rule": (settings.crossing, CROSSING_RULES),
               "tie rule": (settings.ties, TIE_RULES)}
    for name, (value, allowed) in choices.items():
        if value not in allowed:
            shown = ", ".join(a for a in allowed if a)
            raise ConfigurationError(f"unknown {name} {value!r}", hint=f"use one of {shown}")
    _check_batch_size(settings.batch_size)
    check_limit(settings.limit)
    Tolerance(settings.atol, settings.rtol, settings.ties)  # refuses a negative or non-numeric atol/rtol


def _check_batch_size(size: object) -> None:
    if is_auto_batch_size(size):
        return
    if isinstance(size, bool) or not isinstance(size, int):
        raise ConfigurationError(f"`batch_size` must be a whole number or 'auto', not {size!r}",
                                 hint="give `batch_size` 16, or `batch_size` auto to fit the GPU's free memory",
                                 settings=["batch_size"])
    if size < 1:
        raise ConfigurationError(f"`batch_size` must be at least 1, not {size}", settings=["batch_size"])


def load_suites(paths: Sequence[str | Path | Suite]) -> tuple[list[Suite], list[dict[str, str | None]]]:
    """Read every suite first, so a bad file stops the run before any model is loaded; ``Suite`` objects are
    taken as they are (their source is recorded with no path, and the sha256 of their canonical JSON). A file
    given twice, or two files with the same bytes, is read once; two different suites with one name are
    refused, since results are kept by suite name (``items.csv``, ``suites/NAME.json``) and would merge."""
    suites: list[Suite] = []
    sources: list[dict[str, str | None]] = []
    named: dict[str, dict[str, str | None]] = {}  # suite name -> the source it was first read from
    for given in paths:
        suite, source = _suite_and_source(given)
        first = named.setdefault(suite.name, source)
        if first is not source:
            if first["sha256"] != source["sha256"] and not _same_file(first["path"], source["path"]):
                raise ConfigurationError(
                    f"two suites are named {suite.name!r}: {first['path'] or 'a Suite object'} and "
                    f"{source['path'] or 'a Suite object'}",
                    hint="results are kept by suite name (items.csv, suites/NAME.json), so one run cannot hold "
                    "both: give one another meta.name, or run them apart")
            continue  # the same file, or a copy of it: read once
        suites.append(suite)
        sources.append(source)
    return suites, sources


def _suite_and_source(given: str | Path | Suite) -> tuple[Suite, dict[str, str | None]]:
    if isinstance(given, Suite):
        digest = hashlib.sha256(suite_to_json(given).encode("utf-8")).hexdigest()
        return given, {"path": None, "sha256": digest}
    path = Path(given)
    return read_suite(path).suite, {"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _same_file(first: str | None, second: str | None) -> bool:
    return first is not None and second is not None and Path(first).resolve() == Path(second).resolve()


def settings_scorer(settings: RunSettings) -> Scorer:
    """The (cached) scorer ``settings`` describe; resolving the model loads no weights."""
    return settings.scorer_spec().load()


def suite_texts(suites: Sequence[Suite], spacing: str) -> list[str]:
    """Every sentence of ``suites``, as the scorer sees it, in suite order (repeats included)."""
    return [s.text for suite in suites for s in suite_sentences(suite, spacing)]


def run_suites(
    paths: Sequence[str | Path],
    settings: RunSettings = RunSettings(),
    *,
    scorer: Scorer | None = None,
    progress: Callable[[int, str], Callable[[int], None] | None] | None = None,
    executor: Executor | None = None,
    loaded_suites: tuple[list[Suite], list[dict[str, str | None]]] | None = None,
    policy: AccuracyPolicy | None = None,
) -> RunResult:
    """Score and evaluate suites with one model. ``scorer`` overrides the one ``settings.model`` names;
    ``progress(total, unit)`` is told the work to do (tokens not yet cached, or sentences) and may return a
    callback advanced as it is done. ``executor`` scores the texts (default: ``LocalExecutor``, in this
    process); it changes no number, and is recorded apart from the settings. ``policy``: what decides accuracy
    (``run_models`` gives the run's; None: ``settings.policy``, else the built-in collection holding the suites)."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.perf_counter()
    check_settings(settings)
    suites, sources = loaded_suites or load_suites(paths)  # (``loaded_suites``: what run_models read already)
    items_total = {suite.name: len(suite.items) for suite in suites}
    suites = [limit_suite(suite, settings.limit) for suite in suites]
    items_total = {s.name: items_total[s.name] for s in suites if len(s.items) < items_total[s.name]}
    if scorer is None:
        scorer = settings_scorer(settings)
    texts = suite_texts(suites, settings.spacing)
    unique = len(set(texts))
    if executor is None:
        executor = LocalExecutor()
    advance = None
    if progress:
        total, unit = work_to_do(scorer, texts)
        if total and isinstance(executor, LocalExecutor):
            load_weights(scorer)  # before the count starts: loading is reported as its own stages
        advance = progress(total, unit)
    scores = executor.score(scorer, texts, settings.scorer_spec(), advance)
    tolerance = Tolerance(settings.atol, settings.rtol, settings.ties)
    markers = sentence_markers(scorer, texts) if settings.compat == "syntaxgym-core" else None
    results = [evaluate_suite(suite, scores, spacing=settings.spacing, metric=settings.metric, tolerance=tolerance,
                              markers=markers, crossing=settings.crossing) for suite in suites]
    return RunResult(
        settings=settings, scorer=scorer.identity, suites=results, sources=sources, sentences=len(texts),
        unique_sentences=unique, tokens=sum(len(s.tokens) for s in scores.values()),
        seconds=time.perf_counter() - clock, started=started,
        environment=_environment(scorer.identity if isinstance(executor, LocalExecutor) else None),
        cache=_cache_stats(scorer), executor=executor.describe(), batch_size=settings.resolved_batch_size(),
        items_total=items_total,
        policy=policy or resolve_policy(covering_collection(s.name for s in suites), settings.policy),
    )
