"""linguagym: targeted linguistic evaluation of language models (SyntaxGym suites) and of sentiment classifiers
(capability tests).

The entry points the command line and the web app call are importable from here::

    from linguagym import RunSettings, run_models
    done = run_models(["suite.json"], [RunSettings(model="gpt2")], output="results")

They are imported on first use, so ``import linguagym`` stays light (no torch, no web framework).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from linguagym.version import __version__

if TYPE_CHECKING:  # what a type checker sees: the precise types (tests/test_package.py keeps this beside the table)
    from linguagym.capabilities.pipeline import generate_suite, generate_tests
    from linguagym.capabilities.run import ClassifierRuns, run_classifiers
    from linguagym.capabilities.settings import ClassifierOptions, ClassifierRunSettings, GenerateSettings
    from linguagym.errors import Cancelled, LinguagymError
    from linguagym.evaluation.comparison import ModelComparison, compare_models
    from linguagym.evaluation.effect_comparison import EffectComparison, compare_model_effects
    from linguagym.evaluation.lm_scorer import LMScorer, lm_scorer
    from linguagym.evaluation.model_runs import ModelRuns, run_models
    from linguagym.evaluation.one_call import run
    from linguagym.evaluation.results import Results
    from linguagym.evaluation.run import RunResult, RunSettings, run_suites
    from linguagym.evaluation.scored_suites import evaluate_scored_suite
    from linguagym.evaluation.summary import SummarySettings
    from linguagym.executors import make_executor
    from linguagym.suites.load import read_suite

# public name -> the module that defines it
_ENTRY_POINTS = {
    "run_models": "linguagym.evaluation.model_runs",
    "ModelRuns": "linguagym.evaluation.model_runs",
    "RunSettings": "linguagym.evaluation.run",
    "RunResult": "linguagym.evaluation.run",
    "run_suites": "linguagym.evaluation.run",
    "SummarySettings": "linguagym.evaluation.summary",
    "run": "linguagym.evaluation.one_call",
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
    "compare_models": "linguagym.evaluation.comparison",
    "ModelComparison": "linguagym.evaluation.comparison",
    "compare_model_effects": "linguagym.evaluation.effect_comparison",
    "EffectComparison": "linguagym.evaluation.effect_comparison",
}

__all__ = [  # spelled out for type checkers and linters; tests/test_package.py keeps it beside the table
    "__version__", "run_models", "ModelRuns", "RunSettings", "RunResult", "run_suites", "SummarySettings",
    "run", "Results", "LMScorer", "lm_scorer", "run_classifiers", "ClassifierOptions", "ClassifierRunSettings",
    "ClassifierRuns", "generate_tests", "GenerateSettings", "generate_suite", "make_executor", "read_suite",
    "evaluate_scored_suite", "LinguagymError", "Cancelled", "compare_models", "ModelComparison",
    "compare_model_effects", "EffectComparison",
]


def __getattr__(name: str) -> Any:
    if name in _ENTRY_POINTS:
        return getattr(import_module(_ENTRY_POINTS[name]), name)
    raise AttributeError(f"module 'linguagym' has no attribute {name!r}")
