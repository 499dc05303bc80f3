"""What a type checker sees of the public API (issue 39: the lazy ``__getattr__`` made every public name ``Any``):
mypy, with the project's configuration (pyproject.toml's ``[tool.mypy]``), reads a user's script and reveals the
precise signatures and result types, and reports a misuse that ``Any`` would let through."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

SCRIPT = """\
import linguagym

reveal_type(linguagym.run)
reveal_type(linguagym.run_models)
reveal_type(linguagym.run_suites)
reveal_type(linguagym.lm_scorer)
reveal_type(linguagym.RunSettings)
reveal_type(linguagym.compare_models)
reveal_type(linguagym.compare_model_effects)
reveal_type(linguagym.run_classifiers)


def results(done: linguagym.Results) -> None:
    reveal_type(done.results)
    reveal_type(done.results[0].suites)


settings: int = linguagym.RunSettings()
linguagym.RunSettings(modle="gpt2")
"""

# name revealed -> what its signature returns
RETURNS = {
    "run": "linguagym.evaluation.results.Results",
    "run_models": "linguagym.evaluation.model_runs.ModelRuns",
    "run_suites": "linguagym.evaluation.run.RunResult",
    "lm_scorer": "linguagym.evaluation.lm_scorer.LMScorer",
    "RunSettings": "linguagym.evaluation.run.RunSettings",
    "compare_models": "linguagym.evaluation.comparison.ModelComparison",
    "compare_model_effects": "linguagym.evaluation.effect_comparison.EffectComparison",
    "run_classifiers": "linguagym.capabilities.run.ClassifierRuns",
}


@pytest.mark.slow  # from a cold mypy cache about 1.5 CPU-minutes here; after `make typecheck` about 7 s
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (the dev group has it)")
def test_mypy_sees_the_public_names_precise_types(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT, encoding="utf-8")
    # from the repository root: its pyproject.toml's [tool.mypy] applies and this checkout's linguagym is read;
    # mypy's own cache there, which `make typecheck` (run before the tests by `make test`) has just filled, so
    # linguagym/ is not checked a second time (linguagym/ is mypy-clean, so every error is the script's)
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", str(script)],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    notes = re.findall(r":(\d+): note: Revealed type is \"(.*)\"", done.stdout)
    revealed = {SCRIPT.splitlines()[int(line) - 1]: shown.replace("builtins.", "") for line, shown in notes}
    assert len(revealed) == len(RETURNS) + 2, done.stdout[-3000:] + done.stderr[-2000:]
    for name, returns in RETURNS.items():
        shown = revealed[f"reveal_type(linguagym.{name})"]
        assert shown.startswith("def ") and shown.endswith(f"-> {returns}"), (name, shown)
    assert revealed["    reveal_type(done.results)"] == "list[linguagym.evaluation.run.RunResult]"
    assert revealed["    reveal_type(done.results[0].suites)"] == \
        "list[linguagym.evaluation.evaluate.SuiteResult]"
    errors = [(SCRIPT.splitlines()[int(line) - 1], message.split(" [")[0].strip())
              for line, message in re.findall(r":(\d+): error: (.*)", done.stdout)]
    # the misuses ``Any`` would let through: a settings object given as an int, a misspelt keyword
    assert len(errors) == 2, errors
    assert errors[0] == ("settings: int = linguagym.RunSettings()", "Incompatible types in assignment "
                         '(expression has type "RunSettings", variable has type "int")')
    assert errors[1][0] == 'linguagym.RunSettings(modle="gpt2")'
    assert errors[1][1].startswith('Unexpected keyword argument "modle" for "RunSettings"')
