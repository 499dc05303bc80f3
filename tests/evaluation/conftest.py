from __future__ import annotations

from pathlib import Path

import pytest

from tests.tiny_models import save_example_suites_lm


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random byte-level GPT-2 whose tokenizer was trained on the example suites' sentences."""
    return save_example_suites_lm(tmp_path_factory.mktemp("tiny-lm"), vocab_size=600, seed=3)


@pytest.fixture(scope="session")
def first_cli_run(tiny_lm_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """``linguagym run`` of the example suites on the tiny model with an empty score cache, run once a session (a
    subprocess costs seconds): its CompletedProcess, the filled cache and the output folder. Tests that run again
    on the cache copy it first."""
    import os
    import subprocess
    import sys

    from linguagym.suites import example_suite_paths

    root = tmp_path_factory.mktemp("first-cli-run")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "linguagym.cli", "run", "--model", str(tiny_lm_dir), "--cache-dir",
                           str(root / "cache"), "-o", str(root / "out"), *map(str, example_suite_paths())],
                          capture_output=True, text=True, timeout=300, env=env)
    return done, root / "cache", root / "out"
