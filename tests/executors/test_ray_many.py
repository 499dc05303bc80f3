"""Many models and many classifiers on one local 2-CPU Ray cluster: side by side, the same numbers as local runs,
and one that fails stops alone."""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings
from linguagym.executors import ExecutorError
from linguagym.suites import example_suite_paths
from tests.capabilities.lct_fakes import document
from tests.executors.helpers import FailingFor, LoggingLoader, logged_texts
from tests.executors.test_ray import UNIQUE, region_values

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"
BROKEN = "python:tests.executors.helpers:broken_labels"


def _two_models(tiny_lm_dir: Path, tmp_path: Path) -> list[str]:
    """The tiny model and a copy of it elsewhere: another model as far as identity and cache go."""
    return [str(tiny_lm_dir), str(shutil.copytree(tiny_lm_dir, tmp_path / "second-model"))]


def test_two_models_run_side_by_side_and_equal_local_runs(ray_cluster, tiny_lm_dir, tmp_path):
    from linguagym.executors.ray_executor import RayExecutor

    models = _two_models(tiny_lm_dir, tmp_path)
    base = RunSettings(device="cpu", cache_dir=str(tmp_path / "ray-cache"))
    log = tmp_path / "scored.log"
    announced = []

    def progress(label, total, unit):
        announced.append((total, unit))
        return lambda n: None

    with RayExecutor(workers=2, loader=LoggingLoader(str(log))) as executor:
        remote = run_models(example_suite_paths(), [replace(base, model=m) for m in models], executor=executor,
                            progress=progress)
    local = run_models(example_suite_paths(),
                       [replace(base, model=m, cache_dir=str(tmp_path / "local-cache")) for m in models])

    assert len(announced) == 1 and announced[0][1] == "tokens"  # one bar for both models' work
    assert set(logged_texts(log).values()) == {2} and len(logged_texts(log)) == UNIQUE  # each text once per model
    for ours, theirs in zip(local, remote, strict=True):
        assert theirs.executor["pool_jobs"] == 2 and theirs.executor["pool_workers"] == 2
        assert theirs.executor["workers"] == 1  # each model had one of the two workers: they ran side by side
        assert theirs.cache["misses"] == UNIQUE == ours.cache["misses"]
        for a, b in zip(ours.suites, theirs.suites, strict=True):
            for x, y in zip(a.conditions, b.conditions, strict=True):
                assert region_values(x) == region_values(y)


def test_a_model_that_cannot_load_fails_alone(ray_cluster, tiny_lm_dir, tmp_path):
    from linguagym.executors.ray_executor import RayExecutor

    models = _two_models(tiny_lm_dir, tmp_path)
    base = RunSettings(device="cpu", cache_dir=str(tmp_path / "cache"))
    finished = []
    with RayExecutor(workers=2, loader=FailingFor(models[1])) as executor:
        good, bad = run_models(example_suite_paths(), [replace(base, model=m) for m in models], executor=executor,
                               finished=lambda settings, outcome: finished.append(settings.model))
    assert finished == models
    assert good.unique_sentences == UNIQUE and good.cache["misses"] == UNIQUE
    assert isinstance(bad, ExecutorError)
    assert "second-model" in bad.message and "failed to load" in bad.message and "CUDA out of memory" in bad.message
    assert "too large" in bad.hint


def test_cli_with_a_models_file_writes_the_models_that_ran_and_names_the_one_that_failed(
        ray_cluster, tiny_lm_dir, tmp_path, capsys):
    from linguagym.cli import main

    broken = shutil.copytree(tiny_lm_dir, tmp_path / "runs" / "broken")
    for weights in broken.glob("*.safetensors"):
        weights.unlink()  # the tokenizer is there (the driver counts tokens), the weights are not
    listing = tmp_path / "models.txt"
    listing.write_text(f"# two models\n{tiny_lm_dir}\nruns/broken  # no weights\n", encoding="utf-8")
    out = tmp_path / "out"
    code = main(["run", *map(str, example_suite_paths()), "--models-file", str(listing), "--device", "cpu",
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(out), "--executor", "ray", "--ray-workers", "2"])
    err = capsys.readouterr().err
    assert code == 1
    assert "1 of 2 models failed" in err and "broken" in err and "could not load model" in err
    assert (out / "report.html").is_file() and (out / tiny_lm_dir.name / "run.json").is_file()
    assert not (out / "broken").exists()  # nothing half-written for the model that failed  # nothing half-written
    record = json.loads((out / tiny_lm_dir.name / "run.json").read_text())
    assert record["executor"]["pool_jobs"] == 2 and record["counts"]["unique_sentences"] == UNIQUE


def _lct(tests_file: Path, tmp_path: Path, out: str, *extra: str) -> int:
    from linguagym.cli import main

    return main(["lct", "test", str(tests_file), "-o", str(tmp_path / out), "--cache-dir", str(tmp_path / "cache"),
                 *extra])


@pytest.fixture
def tests_file(tmp_path: Path) -> Path:
    path = tmp_path / "tests.json"
    path.write_text(json.dumps(document()), encoding="utf-8")
    return path


def test_lct_test_on_ray_predicts_as_locally_and_a_failing_classifier_stops_alone(
        ray_cluster, tests_file, tmp_path, capsys):
    assert _lct(tests_file, tmp_path, "local", "-c", KEYWORDS, "-c", "vader", "--cache-dir",
                str(tmp_path / "local-cache")) == 0
    code = _lct(tests_file, tmp_path, "ray", "-c", KEYWORDS, "-c", "vader", "-c", BROKEN, "--executor", "ray",
                "--ray-workers", "2")
    err = capsys.readouterr().err
    assert code == 1 and "1 of 3 classifiers failed" in err and "the sentiment service is down" in err
    local = json.loads((tmp_path / "local" / "results.json").read_text())["classifiers"]
    remote = json.loads((tmp_path / "ray" / "results.json").read_text())["classifiers"]
    assert [e["status"] for e in remote] == ["ok", "ok", "failed"]
    assert remote[2]["cached_before"] == 0 and remote[2]["predictions_kept"] == 0
    for ours, theirs in zip(local, remote[:2], strict=True):  # the two that ran: the same predictions
        assert theirs["executor"]["name"] == "ray" and theirs["cached_before"] == 0
        ours_rows = list(csv.reader((tmp_path / "local" / ours["directory"] / "tests.csv").open(encoding="utf-8")))
        theirs_rows = list(csv.reader((tmp_path / "ray" / theirs["directory"] / "tests.csv").open(encoding="utf-8")))
        assert ours_rows == theirs_rows and len(ours_rows) > 10
    jobs = remote[0]["executor"]["classifiers"]
    assert jobs[KEYWORDS]["shards"] == 1 and jobs["vader"]["shards"] == 1

    # Again without the broken one: every prediction is cached, so nothing goes to the cluster.
    code = _lct(tests_file, tmp_path, "again", "-c", KEYWORDS, "-c", "vader", "--executor", "ray")
    assert code == 0
    again = json.loads((tmp_path / "again" / "results.json").read_text())["classifiers"]
    assert [e["cached_before"] for e in again] == [16, 16]
    assert again[0]["executor"]["classifiers"][KEYWORDS]["shards"] == 0


def test_prefill_predictions_runs_the_task_its_caller_names_and_a_failing_classifier_stops_alone(
        ray_cluster, tmp_path):
    from linguagym.capabilities.classifiers.cache import CachedClassifier
    from linguagym.capabilities.classifiers.registry import load_classifier
    from linguagym.capabilities.classifiers.task import ClassifyingTask
    from linguagym.executors.ray_executor import RayExecutor

    texts = ["A good film.", "A bad film.", "A film.", "A good film."]
    caches = [(spec, CachedClassifier(load_classifier(spec), tmp_path)) for spec in (KEYWORDS, BROKEN)]
    done = []
    try:
        with RayExecutor(workers=2) as executor:
            ok, failed = executor.prefill_predictions(caches, texts, {}, done.append, task=ClassifyingTask.for_cache)
            record = executor.describe()
        assert ok is None and isinstance(failed, ExecutorError) and "the sentiment service is down" in failed.message
        assert sum(done) == 3 and caches[0][1].missing(texts) == [] and len(caches[1][1].missing(texts)) == 3
        assert [p.label for p in caches[0][1].predict(texts)] == ["positive", "negative", "neutral", "positive"]
        assert caches[0][1].misses == 0  # every prediction came from the cluster, through the cache
        assert record["classifiers"][KEYWORDS] == {"shards": 1, "texts": 3, "workers": 1, "worker_deaths": 0}
    finally:
        for _, cache in caches:
            cache.close()
