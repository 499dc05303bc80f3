"""A local Ray cluster shared by the tests of a module (2 CPUs, no dashboard, offline), and the tiny model."""

from __future__ import annotations

import logging
import os

import pytest

from tests.evaluation.conftest import tiny_lm_dir  # noqa: F401 - the same tiny GPT-2, built once per session


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'linguagym[ray]')")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    yield ray
    ray.shutdown()
