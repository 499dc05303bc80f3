"""The Ray executor on a local 2-CPU cluster (one per module): the same results as a local run, bit for bit; a
worker killed mid-run; a driver interrupted and re-run; workers that fail, keep dying or would score
differently; the command line, in this process and joining this cluster from another."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linguagym.evaluation.evaluate import suite_sentences
from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.evaluation.runfolder.writer import write_run
from linguagym.executors import ExecutorError
from linguagym.scoring.cache import CachedScorer
from linguagym.scoring.registry import load_scorer
from linguagym.suites import example_suite_paths, read_suite
from tests.executors.helpers import LoggingLoader, cache_entries, cache_rows, logged_texts

UNIQUE = 80  # unique sentences of the example suites
SHARD = 16  # texts per chunk of the cached scorers below: 5 shards, so that two workers share the work
RUN_ONLY = {"started", "seconds", "executor", "settings", "cache"}  # fields that say how and when, not what


def settings(cache: Path, model: Path) -> RunSettings:
    return RunSettings(model=str(model), device="cpu", cache_dir=str(cache))


def cached_scorer(run: RunSettings) -> CachedScorer:
    """The run's scorer with small chunks: a local run then makes the calls the Ray shards copy."""
    inner = load_scorer(run.model, device=run.device, cache_dir=Path(run.cache_dir), score_cache=False)
    return CachedScorer(inner, Path(run.cache_dir), chunk_size=SHARD)


def example_texts() -> list[str]:
    return list(dict.fromkeys(s.text for p in example_suite_paths() for s in suite_sentences(read_suite(p).suite)))


def region_values(condition) -> str:
    """Every metric of every region as exact text (repr keeps every bit; NaN equals NaN)."""
    return repr({region: dict(metrics) for region, metrics in condition.values.items()})


def ray_run(run: RunSettings, loader: LoggingLoader, progress=None, **options):
    from linguagym.executors.ray_executor import RayExecutor

    executor = RayExecutor(workers=2, loader=loader, **options)
    scorer = cached_scorer(run)
    try:
        return run_suites(example_suite_paths(), run, scorer=scorer, executor=executor, progress=progress), scorer
    finally:
        scorer.close()


def test_results_equal_a_local_run_bit_for_bit(ray_cluster, tiny_lm_dir, tmp_path):
    local_settings = settings(tmp_path / "local-cache", tiny_lm_dir)
    local_scorer = cached_scorer(local_settings)
    local = run_suites(example_suite_paths(), local_settings, scorer=local_scorer)
    log = tmp_path / "scored.log"
    remote, remote_scorer = ray_run(settings(tmp_path / "ray-cache", tiny_lm_dir), LoggingLoader(str(log)))

    assert remote.executor["name"] == "ray" and remote.executor["workers"] == 2
    assert remote.executor["shards"] == UNIQUE // SHARD and remote.executor["texts"] == UNIQUE
    assert set(logged_texts(log).values()) == {1} and len(logged_texts(log)) == UNIQUE
    # every cache entry: same key (same identity and text), same stored bytes
    assert cache_rows(remote_scorer.path) == cache_rows(local_scorer.path) and len(cache_rows(local_scorer.path)) == 80
    # every region value, and the run record but for how and when it ran
    for ours, theirs in zip(local.suites, remote.suites, strict=True):
        for a, b in zip(ours.conditions, theirs.conditions, strict=True):
            assert a.alignment == b.alignment and region_values(a) == region_values(b)
    assert remote.cache["misses"] == local.cache["misses"] == UNIQUE and remote.cache["hits"] == 0
    strip = lambda record: {k: v for k, v in record.items() if k not in RUN_ONLY}  # noqa: E731
    # what computed the float32 products is known where the run scored in its own process; Ray's workers chose
    local_record = strip(local.record())
    products = local_record["environment"].pop("cpu_float32_products", None)
    assert products is not None and products.startswith(("oneDNN", "torch"))
    assert strip(remote.record()) == local_record
    # the files a run writes, byte for byte but run.json
    out_local, out_ray = write_run(local, tmp_path / "out-local").parent, write_run(remote, tmp_path / "out-ray").parent
    files = sorted(p.relative_to(out_local) for p in out_local.rglob("*") if p.is_file() and p.name != "run.json")
    assert len(files) >= 6
    assert all((out_local / f).read_bytes() == (out_ray / f).read_bytes() for f in files)


def test_a_worker_killed_mid_run_has_its_shard_retried(ray_cluster, tiny_lm_dir, tmp_path):
    log, marker = tmp_path / "scored.log", tmp_path / "killed"
    result, scorer = ray_run(settings(tmp_path / "cache", tiny_lm_dir), LoggingLoader(str(log), str(marker)))

    assert marker.exists() and result.executor["worker_deaths"] == 1
    scored = logged_texts(log)
    assert len(scored) == UNIQUE and set(scored.values()) == {1}  # the lost shard was returned once, elsewhere
    assert cache_entries(scorer.path) == UNIQUE == result.unique_sentences
    assert result.cache["misses"] == UNIQUE


def test_a_shard_that_keeps_losing_its_worker_stops_the_run(ray_cluster, tiny_lm_dir, tmp_path):
    loader = LoggingLoader(str(tmp_path / "log"), kill_marker=str(tmp_path / "killed"), kill_at=1)
    with pytest.raises(ExecutorError) as caught:
        ray_run(settings(tmp_path / "cache", tiny_lm_dir), loader, retries=0)
    assert "lost its Ray worker 1 time with model" in str(caught.value) and str(tiny_lm_dir) in str(caught.value)


def test_workers_that_die_while_loading_stop_the_run(ray_cluster, tiny_lm_dir, tmp_path):
    with pytest.raises(ExecutorError) as caught:
        ray_run(settings(tmp_path / "cache", tiny_lm_dir), LoggingLoader(str(tmp_path / "log"), kill_at_load=True))
    assert f"Ray workers died 3 times while loading model {str(tiny_lm_dir)!r}" in caught.value.message
    assert "too large" in caught.value.hint
    assert [cache_entries(path) for path in (tmp_path / "cache").glob("scores/*.sqlite")] == [0]  # nothing written


class Interrupted(Exception):
    pass


def test_an_interrupted_driver_recomputes_nothing_finished(ray_cluster, tiny_lm_dir, tmp_path):
    run = settings(tmp_path / "cache", tiny_lm_dir)

    def interrupt_after_first_shard(total: int, unit: str):
        assert unit == "tokens" and total > 0

        def advance(done: int) -> None:
            raise Interrupted

        return advance

    with pytest.raises(Interrupted):
        ray_run(run, LoggingLoader(str(tmp_path / "first.log")), progress=interrupt_after_first_shard)
    texts = example_texts()
    scorer = cached_scorer(run)
    finished = set(texts) - set(scorer.missing(texts))
    scorer.close()
    assert len(finished) == SHARD == cache_entries(scorer.path)  # the first shard was committed before the raise

    second_log = tmp_path / "second.log"
    result, scorer = ray_run(run, LoggingLoader(str(second_log)))
    handed = logged_texts(second_log)
    assert set(handed) == set(texts) - finished and set(handed.values()) == {1}  # exactly the remainder, once
    assert result.executor["texts"] == UNIQUE - SHARD
    assert result.cache == {**result.cache, "hits": SHARD, "misses": UNIQUE - SHARD}
    assert cache_entries(scorer.path) == UNIQUE


def test_a_model_that_fails_to_load_stops_the_run_with_its_name(ray_cluster, tiny_lm_dir, tmp_path):
    run = settings(tmp_path / "cache", tiny_lm_dir)
    loader = LoggingLoader(str(tmp_path / "log"), fail_load="CUDA out of memory. Tried to allocate 20.00 GiB")
    with pytest.raises(ExecutorError) as caught:
        ray_run(run, loader)
    message = str(caught.value)
    assert str(tiny_lm_dir) in message and "failed to load" in message and "CUDA out of memory" in message
    assert caught.value.hint and "too large" in caught.value.hint
    assert not (tmp_path / "log").exists()
    assert [cache_entries(path) for path in (tmp_path / "cache").glob("scores/*.sqlite")] == [0]


def test_a_worker_that_would_score_differently_is_refused(ray_cluster, tiny_lm_dir, tmp_path):
    loader = LoggingLoader(str(tmp_path / "log"), identity_change=(("device", "cuda"),))
    with pytest.raises(ExecutorError) as caught:
        ray_run(settings(tmp_path / "cache", tiny_lm_dir), loader)
    assert "device: worker 'cuda', driver 'cpu'" in str(caught.value)
    assert caught.value.hint == "give `device` cuda (the workers' device) so that both agree"
    assert caught.value.settings == ("device",)
    assert not (tmp_path / "log").exists()


def test_cli_run_on_ray_without_cache_writes_what_a_local_run_writes(ray_cluster, tiny_lm_dir, tmp_path):
    from linguagym.cli import main

    common = ["run", *map(str, example_suite_paths()), "--model", str(tiny_lm_dir), "--device", "cpu", "--no-report"]
    assert main([*common, "-o", str(tmp_path / "local"), "--cache-dir", str(tmp_path / "c1")]) == 0
    assert main([*common, "-o", str(tmp_path / "ray"), "--no-cache", "--executor", "ray", "--ray-workers", "2"]) == 0
    [local_dir], [ray_dir] = list((tmp_path / "local").iterdir()), list((tmp_path / "ray").iterdir())
    record = json.loads((ray_dir / "run.json").read_text())
    assert record["executor"]["name"] == "ray" and record["executor"]["shards"] == 1  # one chunk of 80: one shard
    assert record["cache"] is None and record["counts"]["unique_sentences"] == UNIQUE  # scores kept in memory
    assert json.loads((local_dir / "run.json").read_text())["executor"] == {"name": "local"}
    for name in ("regions.csv", "items.csv", "predictions.csv", "suites/npz_comma.json"):
        assert (local_dir / name).read_bytes() == (ray_dir / name).read_bytes(), name


def test_cli_joins_an_existing_cluster_by_address(ray_cluster, tiny_lm_dir, tmp_path):
    address = ray_cluster.get_runtime_context().gcs_address
    # RAY_AUTH_MODE=token (set here by ray.init) makes the subprocess present the cluster's token (~/.ray/auth_token)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run(
        [sys.executable, "-m", "linguagym.cli", "run", *map(str, example_suite_paths()), "--model", str(tiny_lm_dir),
         "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "out"), "--no-report",
         "--executor", "ray", "--ray-address", address],
        capture_output=True, text=True, timeout=180, env={**env, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr
    [record] = (tmp_path / "out").glob("*/run.json")
    executor = json.loads(record.read_text())["executor"]
    assert executor["cluster"] == address and executor["workers"] == 1  # one shard: one worker of the two CPUs
    assert ray_cluster.is_initialized() and ray_cluster.cluster_resources()["CPU"] == 2  # still up, unharmed

