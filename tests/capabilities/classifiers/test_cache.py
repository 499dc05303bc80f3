"""The prediction cache: hits skip the classifier, finished chunks survive a failure, damage is recomputed."""

from __future__ import annotations

import sqlite3

import pytest

from linguagym.capabilities.classifiers.base import Classifier, ClassifierError
from linguagym.capabilities.classifiers.cache import CachedClassifier

TEXTS = ["good one", "bad one", "good two", "bad two", "good three", "bad three"]


def test_second_call_is_served_from_the_cache(tmp_path, counting) -> None:
    inner = counting()
    first = CachedClassifier(inner, tmp_path)
    predictions = first.predict(TEXTS + ["good one"])  # a repeat reaches the classifier once
    assert inner.calls == [TEXTS]
    assert [p.label for p in predictions] == ["positive", "negative"] * 3 + ["positive"]
    first.close()

    again = counting(fail_on_call=1)  # any call would raise
    cached = CachedClassifier(again, tmp_path)
    assert isinstance(cached, Classifier)
    assert cached.missing(TEXTS) == []
    assert cached.predict(list(reversed(TEXTS))) == list(reversed(predictions[:6]))
    assert again.calls == []
    assert cached.hits == 6 and cached.misses == 0
    assert cached.path.parent == tmp_path / "predictions"
    cached.close()


def test_identity_separates_caches(tmp_path, counting) -> None:
    CachedClassifier(counting(tag="v1"), tmp_path).predict(TEXTS)
    other = counting(tag="v2")
    CachedClassifier(other, tmp_path).predict(TEXTS)
    assert other.calls == [TEXTS]


def test_failure_after_the_first_chunk_keeps_it(tmp_path, counting) -> None:
    failing = counting(fail_on_call=2)
    with pytest.raises(ClassifierError, match="fell over"):
        CachedClassifier(failing, tmp_path, chunk_size=2).predict(TEXTS)
    assert failing.calls == [TEXTS[:2], TEXTS[2:4]]

    healed = counting()
    cached = CachedClassifier(healed, tmp_path, chunk_size=2)
    assert cached.missing(TEXTS) == TEXTS[2:]
    seen = []
    predictions = cached.predict(TEXTS, progress=lambda done, total: seen.append((done, total)))
    assert healed.calls == [TEXTS[2:4], TEXTS[4:]]
    assert seen == [(0, 4), (2, 4), (4, 4)]
    assert [p.label for p in predictions] == ["positive", "negative"] * 3


def test_corrupt_entry_is_recomputed(tmp_path, counting) -> None:
    cached = CachedClassifier(counting(), tmp_path)
    cached.predict(TEXTS)
    cached.close()
    with sqlite3.connect(cached.path) as db:
        key = cached._store._key("bad two")
        db.execute("UPDATE predictions SET payload = ? WHERE key = ?", (b'{"text":"bad two","label":"positive"}', key))
    inner = counting()
    again = CachedClassifier(inner, tmp_path)
    predictions = again.predict(TEXTS)
    assert inner.calls == [["bad two"]]
    assert again.dropped == 1
    assert predictions[3].label == "negative"
    assert again.missing(TEXTS) == []  # the recomputed entry was stored


def test_damaged_database_is_set_aside(tmp_path, counting) -> None:
    cached = CachedClassifier(counting(), tmp_path)
    cached.path.parent.mkdir(parents=True)
    cached.path.write_bytes(b"this is not sqlite" * 100)
    assert [p.label for p in cached.predict(TEXTS[:2])] == ["positive", "negative"]
    assert cached.path.with_name(cached.path.name + ".damaged").exists()


def test_classifier_returning_too_few_is_an_error(tmp_path, counting) -> None:
    inner = counting()
    inner.predict = lambda texts: []  # type: ignore[method-assign]
    with pytest.raises(ClassifierError, match="returned 0 predictions for 2 texts"):
        CachedClassifier(inner, tmp_path).predict(TEXTS[:2])


def test_empty_input_and_progress_total_zero(tmp_path, counting) -> None:
    inner = counting()
    seen = []
    assert CachedClassifier(inner, tmp_path).predict([], progress=lambda d, t: seen.append((d, t))) == []
    assert inner.calls == [] and seen == [(0, 0)]
