from __future__ import annotations

from pathlib import Path

import pytest

from tests.evaluation.conftest import tiny_lm_dir  # noqa: F401 (the tiny offline model, for the end-to-end test)

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def blimp_files() -> list[Path]:
    """Three BLiMP paradigms, four pairs written by hand in BLiMP's own fields: anaphor agreement (2 pairs) and two
    of argument structure, one of which (animate_subject_passive) says linguistics_term "s-selection" as the
    real file does."""
    return [DATA / "anaphor_gender_agreement.jsonl", DATA / "animate_subject_passive.jsonl", DATA / "passive_1.jsonl"]
