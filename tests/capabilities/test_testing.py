from __future__ import annotations

import pytest

from linguagym.capabilities.classifiers.base import ClassifierError, Prediction
from linguagym.capabilities.testfile import load_document
from linguagym.capabilities.testing.classifier_run import ClassifierRun, missing_texts, run_tests, unique_texts
from tests.capabilities.lct_fakes import (
    EXPECTED,
    ConstantClassifier,
    FlakyClassifier,
    KeywordClassifier,
    capability_file,
    document,
    keyword_label,
)


def _cached(inner, tmp_path, chunk_size=2):
    from linguagym.capabilities.classifiers.cache import CachedClassifier

    return CachedClassifier(inner, cache_dir=tmp_path / "cache", chunk_size=chunk_size)


def test_every_test_gets_an_outcome_and_passes_when_the_label_is_expected():
    doc = document()
    run = run_tests(capability_file(), KeywordClassifier())
    assert run.ok and run.error is None
    assert [o.id for o in run.outcomes] == [t["id"] for t in doc["tests"]]
    for outcome, test in zip(run.outcomes, doc["tests"], strict=True):
        assert outcome.predicted == keyword_label(test["text"])
        assert outcome.passed == (outcome.predicted in test["expected"])
        assert outcome.seed == (test["provenance"]["seed"] if test["kind"] == "expansion" else None)
        assert outcome.prediction.probabilities[("negative", "neutral", "positive").index(outcome.predicted)] == 0.8
    failing = sum(v[1] + v[3] for v in EXPECTED.values())  # seed and expansion failures counted by hand
    assert run.failed_tests == sum(not o.passed for o in run.outcomes) == failing == 8


def test_each_unique_text_is_predicted_once():
    doc = document()
    doc["tests"].append({**doc["tests"][0], "id": "copy", "capability": "LC2", "expected": ["positive"]})
    classifier = KeywordClassifier()
    run = run_tests(load_document(doc), classifier)
    sent = [text for call in classifier.calls for text in call]
    assert sorted(sent) == sorted(set(sent)) and len(sent) == len(doc["tests"]) - 1
    assert run.unique_texts == len(unique_texts(load_document(doc))) == len(doc["tests"]) - 1
    copy = {o.id: o for o in run.outcomes}["copy"]
    assert copy.predicted == "neutral" and not copy.passed  # same prediction, another expectation


def test_progress_is_told_the_work_then_each_step():
    steps: list[int] = []
    totals: list[int] = []

    def start(total):
        totals.append(total)
        return steps.append

    run_tests(capability_file(), KeywordClassifier(), progress=start)
    assert totals == [len(unique_texts(capability_file()))] and sum(steps) == totals[0]


def test_a_cached_classifier_reports_chunks_and_a_rerun_predicts_nothing(tmp_path):
    steps: list[int] = []
    inner = KeywordClassifier()
    first = run_tests(capability_file(), _cached(inner, tmp_path), progress=lambda total: steps.append)
    assert first.cached == 0 and len(steps) == len(inner.calls) > 1 and sum(steps) == first.unique_texts
    again = KeywordClassifier()
    second = run_tests(capability_file(), _cached(again, tmp_path))
    assert again.calls == [] and second.cached == second.unique_texts
    assert [o.predicted for o in second.outcomes] == [o.predicted for o in first.outcomes]


def test_a_classifier_error_mid_run_is_recorded_with_the_kept_predictions_and_a_rerun_resumes(tmp_path):
    flaky = FlakyClassifier(fail_on=2)
    run = run_tests(capability_file(), _cached(flaky, tmp_path, chunk_size=3), spec="flaky")
    assert not run.ok and "went away" in run.error and run.outcomes == []
    assert run.finished == 3 and run.cached == 0 and run.spec == "flaky"
    resumed = KeywordClassifier()  # same identity: the cache serves the three finished texts
    cached = _cached(resumed, tmp_path, chunk_size=3)
    assert len(missing_texts(cached, unique_texts(capability_file()))) == run.unique_texts - 3
    again = run_tests(capability_file(), cached)
    assert again.ok and again.cached == 3
    assert sum(len(c) for c in resumed.calls) == again.unique_texts - 3


def test_an_uncached_classifier_that_fails_keeps_nothing():
    run = run_tests(capability_file(), FlakyClassifier(fail_on=1))
    assert not run.ok and run.finished == 0 and run.unique_texts == len(unique_texts(capability_file()))


class _Wrong(KeywordClassifier):
    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def predict(self, texts):
        return self.answer(texts)


@pytest.mark.parametrize("answer, message", [
    (lambda texts: [Prediction("neutral", (0.0, 1.0, 0.0))], "returned 1 predictions"),
    (lambda texts: [Prediction("meh", (0.0, 1.0, 0.0)) for _ in texts], "'meh'"),
    (lambda texts: ["neutral" for _ in texts], "not a Prediction"),
])
def test_bad_answers_are_classifier_errors_recorded_in_the_run(answer, message):
    run = run_tests(capability_file(), _Wrong(answer))
    assert not run.ok and message in run.error


def test_other_exceptions_are_bugs_recorded_as_internal_errors_and_logged(caplog):
    """Isolated (issue 43): a bug in one classifier must not cost the other classifiers of a run their results;
    it is the run's error, named as internal, and its traceback is in the log."""
    class Broken(KeywordClassifier):
        def predict(self, texts):
            raise RuntimeError("bug")

    with caplog.at_level("ERROR", logger="linguagym.capabilities"):
        run = run_tests(capability_file(), Broken())
    assert not run.ok and run.error == "internal error: RuntimeError: bug" and run.outcomes == []
    assert "Traceback" in caplog.text and 'raise RuntimeError("bug")' in caplog.text


def test_a_run_keeps_name_identity_and_timing():
    classifier = ConstantClassifier("positive")
    run = run_tests(capability_file(), classifier)
    assert isinstance(run, ClassifierRun)
    assert run.name == "always-positive" and run.identity == {"kind": "fake", "constant": "positive"}
    assert run.seconds >= 0 and run.finished == run.unique_texts
    assert all(o.passed == ("positive" in o.expected) for o in run.outcomes)


def test_an_error_in_one_run_leaves_a_later_run_alone(tmp_path):
    broken = run_tests(capability_file(), FlakyClassifier(fail_on=1))
    fine = run_tests(capability_file(), KeywordClassifier())
    assert not broken.ok and fine.ok and len(fine.outcomes) == len(document()["tests"])


def test_classifier_errors_are_linguagym_errors():
    from linguagym.errors import LinguagymError

    assert issubclass(ClassifierError, LinguagymError)


def test_any_user_error_while_predicting_is_recorded_not_raised():
    from linguagym.errors import ConfigurationError

    class NotFound(KeywordClassifier):
        def predict(self, texts):
            raise ConfigurationError("model owner/x not found offline", hint="go online once")

    run = run_tests(capability_file(), NotFound())
    assert not run.ok and "not found offline" in run.error and "go online once" in run.error


def test_an_unreadable_cache_is_recorded_as_that_classifiers_failure(tmp_path):
    from linguagym.capabilities.classifiers.cache import CachedClassifier

    class NoCache(CachedClassifier):
        def missing(self, texts):
            raise ClassifierError("cannot create the prediction cache directory /nope")

    run = run_tests(capability_file(), NoCache(KeywordClassifier(), cache_dir=tmp_path / "cache"))
    assert not run.ok and "/nope" in run.error and run.finished == 0 and run.cached == 0
