"""The tasks a worker runs, without a cluster: each built by its owner (scoring, classifiers), loaded and run in
a ``Worker`` in this process, its answers decoded on the driver's side; and the worker's own scorer."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from linguagym.capabilities.classifiers.base import Prediction
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.capabilities.classifiers.task import ClassifyingTask
from linguagym.evaluation.run import RunSettings
from linguagym.executors.ray_worker import Worker
from linguagym.scoring.protocol import ScoredText
from linguagym.scoring.spec import ScorerSpec
from linguagym.scoring.task import ScoringTask, load_worker_scorer
from tests.evaluation.fakes import WordScorer

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


@dataclass(frozen=True)
class FakeLoader:
    """A picklable loader: the word scorer whatever the spec."""

    def __call__(self, spec: ScorerSpec) -> WordScorer:
        return WordScorer()


@dataclass(frozen=True)
class BrokenLoader:
    def __call__(self, spec: ScorerSpec) -> WordScorer:
        raise RuntimeError(f"no weights for {spec.model}")


def test_a_scoring_task_answers_with_the_json_of_its_scores_in_order():
    task = ScoringTask(ScorerSpec("fake", device="cpu"), FakeLoader())
    assert pickle.loads(pickle.dumps(task)) == task
    assert task.label == "model 'fake'" and not task.wants_gpu and ScoringTask(ScorerSpec("fake")).wants_gpu
    worker = Worker(task)
    assert worker.load()["identity"] == WordScorer().identity
    answer = worker.run(["A dog ran.", "The cat sat."])
    assert [ScoredText.from_json(a) for a in answer["results"]] == WordScorer().score(["A dog ran.", "The cat sat."])


def test_a_task_that_cannot_load_answers_with_its_error():
    answer = Worker(ScoringTask(ScorerSpec("big", device="cpu"), BrokenLoader())).load()
    assert answer["error"] == "RuntimeError: no weights for big" and answer["user_error"] is False


def test_a_classifying_task_finds_models_where_its_cache_does_and_answers_predictions(tmp_path):
    cache = CachedClassifier(ClassifyingTask(KEYWORDS).load(), cache_dir=tmp_path)
    task = ClassifyingTask.for_cache(KEYWORDS, cache, {"batch_size": 4})
    cache.close()
    assert task.options == {"batch_size": 4, "cache_dir": tmp_path} and not task.wants_gpu
    assert task.label == f"classifier {KEYWORDS!r}" and pickle.loads(pickle.dumps(task)) == task
    worker = Worker(task)
    assert "identity" in worker.load()
    answers = worker.run(["a wonderful film", "a terrible film"])["results"]
    predictions = task.decode(answers)
    assert all(isinstance(p, Prediction) for p in predictions) and len(predictions) == 2
    assert [p.as_dict() for p in predictions] == answers


def test_run_settings_name_their_scorer_and_workers_load_it_without_the_cache(tiny_lm_dir, tmp_path):
    settings = RunSettings(model=str(tiny_lm_dir), device="cpu", batch_size=3, cache_dir=str(tmp_path))
    spec = settings.scorer_spec()
    assert spec == ScorerSpec(str(tiny_lm_dir), device="cpu", batch_size=3, cache_dir=str(tmp_path))
    assert pickle.loads(pickle.dumps(spec)) == spec
    driver = spec.load()
    worker = load_worker_scorer(spec)
    assert type(driver).__name__ == "CachedScorer" and type(worker).__name__ != "CachedScorer"
    assert worker.identity == driver.identity  # so that what workers answer goes into the driver's cache
    driver.close()
