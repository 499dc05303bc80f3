"""linguagym: targeted linguistic evaluation of language models (SyntaxGym suites) and of sentiment classifiers
(capability tests).

The entry points the command line and the web app call are importable from here::

    from linguagym import RunSettings, run_models
    done = run_models(["suite.json"], [RunSettings(model="gpt2")], output="results")

They are imported on first use, so ``import linguagym`` stays light (no torch, no web framework).
"""

from importlib import import_module
from typing import Any

from linguagym.version import __version__

# public name -> the module that defines it
_ENTRY_POINTS = {
    "run_models": "linguagym.evaluation.models",
    "ModelRuns": "linguagym.evaluation.models",
    "RunSettings": "linguagym.evaluation.run",
    "RunResult": "linguagym.evaluation.run",
    "run_suites": "linguagym.evaluation.run",
    "SummarySettings": "linguagym.evaluation.summary",
    "run": "linguagym.evaluation.api",
    "Results": "linguagym.evaluation.results",
    "LMScorer": "linguagym.evaluation.lm_scorer",
    "lm_scorer": "linguagym.evaluation.lm_scorer",
    "run_classifiers": "linguagym.capabilities.run",
    "ClassifierOptions": "linguagym.capabilities.settings",
    "ClassifierRunSettings": "linguagym.capabilities.settings",
    "ClassifierRuns": "linguagym.capabilities.run",
    "generate_tests": "linguagym.capabilities.pipeline",
    "GenerateSettings": "linguagym.capabilities.settings",
    "generate_suite": "linguagym.capabilities.pipeline",  # deprecated: generate_tests
    "make_executor": "linguagym.executors",
    "read_suite": "linguagym.suites.load",
    "evaluate_scored_suite": "linguagym.evaluation.scored_suites",
    "LinguagymError": "linguagym.errors",
    "Cancelled": "linguagym.errors",
}

__all__ = ["__version__", *_ENTRY_POINTS]


def __getattr__(name: str) -> Any:
    if name in _ENTRY_POINTS:
        return getattr(import_module(_ENTRY_POINTS[name]), name)
    raise AttributeError(f"module 'linguagym' has no attribute {name!r}")
