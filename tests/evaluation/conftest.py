from __future__ import annotations

from pathlib import Path

import pytest

from tests.tiny_models import save_example_suites_lm


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random byte-level GPT-2 whose tokenizer was trained on the example suites' sentences."""
    return save_example_suites_lm(tmp_path_factory.mktemp("tiny-lm"), vocab_size=600, seed=3)
