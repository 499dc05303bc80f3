"""A model's results in the layout lm-evaluation-harness (0.4) writes, ``results_<timestamp>.json`` beside
``run.json``: each suite a task with metric ``acc`` (filter ``none``), so that lm-eval's tooling, leaderboards and
scripts written for it read a linguagym run as they read an lm-eval run.

The field names follow lm-eval's ``evaluator.simple_evaluate`` and ``loggers.EvaluationTracker``; the numbers are
ours: ``acc`` is the suite's accuracy under the run's policy (``RunResult.policy``, as in ``run.json``),
``acc_stderr`` the item-level standard error lm-eval computes for a mean (sample standard deviation over
sqrt(n)), and ``acc_ci_low`` / ``acc_ci_high`` the 95% bootstrap interval over items of the summary. With a
collection (syntaxgym-2020), its score and groups are lm-eval groups of the suites.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict
from datetime import datetime
from typing import Any

from linguagym.evaluation.aggregate import ModelScores, summarize, surprisal_sums
from linguagym.evaluation.collections import AD_HOC, Collection
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.runfolder.rows import item_outcomes
from linguagym.evaluation.summary import SummarySettings, summary_collection
from linguagym.version import __version__

METRIC = "acc"
FILTER = "none"
RESULTS_FILE = re.compile(r"results_\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}\.json")  # what this module writes


def results_file_name(when: datetime) -> str:
    """``results_2024-05-01T12-00-00.123456.json``: lm-eval's name (local time, ``:`` made ``-``), always with
    the microseconds, so that names sort by time as lm-eval's ``get_latest_filename`` expects."""
    return f"results_{when.strftime('%Y-%m-%dT%H-%M-%S.%f')}.json"


def lm_eval_results_json(result: RunResult, summary: SummarySettings | None = None) -> str:
    """``result``'s lm-eval results file (the run folder's writer writes it beside ``run.json``); ``summary``
    gives the collection and the bootstrap of the intervals (None: the collection the suites make up, no
    intervals)."""
    return json.dumps(lm_eval_results(result, summary), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def lm_eval_results(result: RunResult, summary: SummarySettings | None = None) -> dict[str, Any]:
    """The results dict lm-eval's ``simple_evaluate`` returns and its ``EvaluationTracker`` saves."""
    settings = summary or SummarySettings(bootstrap=0)
    policy = result.policy  # the run's: the numbers of run.json and of the printed table
    outcomes = item_outcomes(result)
    collection = summary_collection(settings, [s.suite.name for s in result.suites])
    scores = summarize(outcomes, collection, policy=policy, bootstrap=settings.bootstrap, seed=settings.seed).models
    model = scores[0] if scores else None
    correct: dict[str, list[bool]] = {}
    for outcome in outcomes:
        correct.setdefault(outcome.suite, []).append(bool(outcome.under(policy.of(outcome.suite))))
    results: dict[str, dict[str, Any]] = {}
    configs: dict[str, dict[str, Any]] = {}
    versions: dict[str, str] = {}
    samples: dict[str, dict[str, int]] = {}
    for suite_result, source in zip(result.suites, result.sources, strict=True):
        name = suite_result.suite.name
        values = correct.get(name, [])
        results[name] = {"alias": name, **_metric(result.accuracy(suite_result), _stderr(values),
                                                   model.intervals.get(f"suite:{name}") if model else None)}
        sha = source.get("sha256") or ""
        configs[name] = {"task": name, "output_type": "loglikelihood", "num_fewshot": 0,
                         "metric_list": [{"metric": METRIC, "aggregation": "mean", "higher_is_better": True}],
                         "linguagym": {"surprisal_metric": suite_result.metric, "policy": policy.of(name),
                                       "items": len(suite_result.suite.items), "path": source.get("path")},
                         "metadata": {"version": sha[:12], "sha256": sha}}
        versions[name] = sha[:12]
        total = result.items_total.get(name, len(suite_result.suite.items))
        samples[name] = {"original": total, "effective": len(suite_result.suite.items)}
    groups, subtasks = _groups(collection, model, list(results)) if model else ({}, {})
    tasks: dict[str, list[str]] = {name: [] for name in results}  # a suite has no subtasks
    everything = {**groups, **results}  # lm-eval lists groups among the results too
    return {
        "results": everything,
        **({"groups": groups} if groups else {}),
        "group_subtasks": {**subtasks, **tasks},
        "configs": dict(sorted(configs.items())),
        "versions": dict(sorted(versions.items())),
        "n-shot": dict(sorted((name, 0) for name in everything)),
        "higher_is_better": dict(sorted((name, {METRIC: True}) for name in everything)),
        "n-samples": samples,
        "config": _config(result, settings),
        "git_hash": None,
        "date": datetime.fromisoformat(result.started).timestamp(),
        "transformers_version": result.environment.get("transformers")
        or (result.scorer.get("versions") or {}).get("transformers", "N/A"),
        "linguagym_version": __version__,
        # how region surprisals were summed (lm-eval's own loglikelihoods are token sums)
        "linguagym_surprisal": surprisal_sums(asdict(result.settings), result.scorer),
        "task_hashes": {},
        "model_source": "linguagym",
        "model_name": result.settings.model,
        "model_name_sanitized": re.sub(r"[\"<>:/|\\?*\[\]]+", "__", result.settings.model),  # as lm-eval's
        "system_instruction": None,
        "system_instruction_sha": None,
        "fewshot_as_multiturn": False,
        "chat_template": None,
        "chat_template_sha": None,
        "total_evaluation_time_seconds": str(round(result.seconds, 3)),
    }


def _metric(value: float, stderr: float | str, interval) -> dict[str, Any]:
    key = f",{FILTER}"
    entry: dict[str, Any] = {METRIC + key: None if math.isnan(value) else value, f"{METRIC}_stderr{key}": stderr}
    if interval is not None:
        entry[f"{METRIC}_ci_low{key}"] = interval.low
        entry[f"{METRIC}_ci_high{key}"] = interval.high
    return entry


def _stderr(values: list[bool]) -> float | str:
    """lm-eval's ``mean_stderr``: the sample standard deviation (n - 1) over sqrt(n); "N/A" below two items."""
    n = len(values)
    if n < 2:
        return "N/A"
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / math.sqrt(n)


def _groups(collection: Collection, model: ModelScores, suites: list[str]) -> tuple[dict, dict[str, list[str]]]:
    """The collection's score and its groups (circuits) as lm-eval groups: entries and their subtasks."""
    if collection.name == AD_HOC or not model.score_suites:
        return {}, {}
    groups: dict[str, dict[str, Any]] = {}
    subtasks: dict[str, list[str]] = {}
    names = {}
    for group in collection.groups:
        members = [s for s in suites if s in collection.group_suites(group)]
        if members and not math.isnan(model.groups.get(group.short, math.nan)):
            name = group.short if group.short not in suites else f"{collection.name}:{group.short}"
            names[group.short] = name
            groups[name] = {"alias": group.name, **_metric(model.groups[group.short], "N/A",
                                                           model.intervals.get(f"group:{group.short}"))}
            subtasks[name] = members
    grouped = {s for members in subtasks.values() for s in members}
    if not math.isnan(model.score):  # NaN where some of the collection's suites are missing: no partial score
        groups[collection.name] = {"alias": collection.name,
                                   **_metric(model.score, "N/A", model.intervals.get("score"))}
        subtasks[collection.name] = [*names.values(), *(s for s in suites if s not in grouped)]
    return groups, subtasks


def _config(result: RunResult, summary: SummarySettings) -> dict[str, Any]:
    """lm-eval's ``config``: how the model was run."""
    settings = result.settings
    given = dict(settings.model_args)  # --model-args, as lm-eval's own model_args string
    dtype = None if "dtype" in given else f"dtype={settings.dtype}"
    extra = ",".join(f"{key}={value}" for key, value in given.items())
    model_args = ",".join(filter(None, (f"pretrained={settings.model}", dtype, extra)))
    return {
        "model": "linguagym",
        "model_args": model_args,
        "batch_size": settings.batch_size,
        "batch_sizes": [result.batch_size] if result.batch_size is not None else [],
        "device": result.scorer.get("device", settings.device),
        "use_cache": None,
        "limit": settings.limit,
        "bootstrap_iters": summary.bootstrap,
        "gen_kwargs": None,
        "random_seed": summary.seed,
        "numpy_seed": None,
        "torch_seed": None,
        "fewshot_seed": None,
    }
