"""``linguagym.run``: in one call, what ``linguagym run`` does, for notebooks and scripts.

It only turns keywords into the library's own options (``RunSettings`` for each model, ``SummarySettings``) and
calls ``run_models``, as the command line does; it writes files only when given ``output_dir``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linguagym.errors import ConfigurationError
from linguagym.evaluation.collections import SuiteLike, resolve_suites
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.results import Results
from linguagym.evaluation.run import DEFAULT_MODEL, RunSettings
from linguagym.evaluation.summary import SummarySettings
from linguagym.executors import make_executor
from linguagym.progress_display import chosen_progress

if TYPE_CHECKING:
    from linguagym.executors.base import Executor
    from linguagym.progress import IsCancelled, Progress

# keywords of run() that are not RunSettings fields (the model comes from ``models``; ``policy`` is also the
# summary's)
_OWN = ("suites", "models", "output_dir", "collection", "suites_dir", "policy", "bootstrap", "seed", "summary",
        "report", "executor", "progress", "cancelled")


def settings_keywords() -> list[str]:
    """The ``RunSettings`` fields ``run`` takes as keywords (every one but ``model``, which ``models`` gives)."""
    return [f.name for f in fields(RunSettings) if f.name not in ("model", "policy")]


def run(
    suites: SuiteLike | Sequence[SuiteLike] | None = None,
    models: str | Path | Sequence[str | Path] | None = None,
    output_dir: str | Path | None = None,
    *,
    collection: str | Path | None = None,
    suites_dir: str | Path | None = None,
    policy: str | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    summary: bool = True,
    report: bool = True,
    executor: str | Executor | None = None,
    progress: Progress | bool | None = True,
    cancelled: IsCancelled | None = None,
    **settings: Any,
) -> Results:
    """Score ``suites`` with each of ``models``, evaluate every prediction and summarize: ``linguagym run``.

    ``suites``: suite files, directories of them, or ``Suite`` objects; or None with ``collection``, whose suites
    are read from ``suites_dir`` (else fetched). ``models``: a model (a named model, a hub id, a local directory, a
    ``.gguf`` file or an lm-zoo ``.tsv``) or a list of them (default: the default model). ``output_dir``: where
    each model's folder and the report are written (None: nothing is written). ``collection``: the collection
    whose score and groups are computed (default ``auto``); ``policy``: ``all`` or ``first`` (default: the
    collection's); ``bootstrap``, ``seed``: the 95% intervals over items. ``executor``: ``"local"`` (default),
    ``"ray"`` or an executor. ``progress``: True (the default) shows each piece of work as a line and a bar on
    stderr, in a terminal or a notebook (``progress_display``); False shows nothing; or a ``Progress`` callable.
    Any other keyword is a ``RunSettings`` field (``bos``, ``spacing``, ``dtype``,
    ``device``, ``batch_size``, ``metric``, ``cache_dir``, ...).

    Returns ``Results``: iterate for each model's outcome, ``.summary``, ``.to_pandas("items")``.
    """
    unknown = [name for name in settings if name not in settings_keywords()]
    if unknown:
        valid = [*_OWN[1:], *settings_keywords()]
        close = [match for name in unknown for match in difflib.get_close_matches(name, valid, n=1)]
        raise ConfigurationError(
            f"run() got unexpected keyword argument{'s' if len(unknown) > 1 else ''} "
            + ", ".join(repr(n) for n in unknown),
            hint=("give models with models=[...]; " if "model" in unknown else "")
            + (f"did you mean {', '.join(close)}? " if close and "model" not in unknown else "")
            + "valid keywords: " + ", ".join(valid),
        )
    base = RunSettings(policy=policy, **settings)
    paths = resolve_suites(suites, collection, suites_dir, base.cache_dir)
    each = [replace(base, model=model) for model in _models(models)]
    summary_settings = SummarySettings(collection=str(collection or "auto"), policy=policy, bootstrap=bootstrap,
                                       seed=seed) if summary else None
    chosen = make_executor(executor or "local") if executor is None or isinstance(executor, str) else executor
    own_executor = chosen is not executor
    shown, display = chosen_progress(progress)
    try:
        done = run_models(paths, each, output=output_dir, summary=summary_settings, report=report,
                          progress=shown, cancelled=cancelled, executor=chosen)
    finally:
        if display is not None:
            display.stop()
        if own_executor:
            chosen.close()
    return Results(done)


def _models(models: str | Path | Sequence[str | Path] | None) -> list[str]:
    if models is None:
        return [DEFAULT_MODEL]
    if isinstance(models, str | Path):
        return [str(models)]
    chosen = [str(m) for m in models]
    if not chosen:
        raise ConfigurationError("no models given", hint=f"pass models='{DEFAULT_MODEL}', or a list of models")
    return chosen
