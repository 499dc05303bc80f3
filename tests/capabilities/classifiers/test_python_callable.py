"""Python functions as classifiers, and the reading of every output shape that normalise_output accepts."""

from __future__ import annotations

import sys
import textwrap

import pytest

from linguagym.capabilities.classifiers.base import ClassifierError, Prediction
from linguagym.capabilities.classifiers.python_callable import (
    CallableClassifier,
    canonical_label,
    load_callable,
    normalise_output,
)


@pytest.mark.parametrize(
    ("item", "label", "probabilities"),
    [
        ("positive", "positive", (0, 0, 1)),
        ("NEG", "negative", (1, 0, 0)),
        (" Neutral ", "neutral", (0, 1, 0)),
        (0.9, "positive", (0.1, 0, 0.9)),
        (0.5, "neutral", (0.5, 0, 0.5)),
        (0, "negative", (1, 0, 0)),
        ([0.2, 0.5, 0.3], "neutral", (0.2, 0.5, 0.3)),
        ([1, 3], "positive", (0.25, 0, 0.75)),  # [p_negative, p_positive]: binary band
        ((0.6, 0.4), "neutral", (0.6, 0, 0.4)),
        ({"label": "negative"}, "negative", (1, 0, 0)),
        ({"probabilities": {"negative": 0.1, "neutral": 0.1, "positive": 0.8}}, "positive", (0.1, 0.1, 0.8)),
        ({"probabilities": [2, 1, 1]}, "negative", (0.5, 0.25, 0.25)),
        # an explicit label is kept even where the probabilities would say otherwise
        ({"label": "neutral", "probabilities": [0.5, 0.2, 0.3]}, "neutral", (0.5, 0.2, 0.3)),
        ([{"label": "POSITIVE", "score": 0.2}, {"label": "NEGATIVE", "score": 0.8}], "negative", (0.8, 0, 0.2)),
        ([{"label": "positive", "score": 0.9}], "positive", (0.1, 0, 0.9)),  # top-1 of a binary model
        ({"label": "NEGATIVE", "score": 0.6}, "neutral", (0.6, 0, 0.4)),  # pipeline top-1: band decides
        (
            [{"label": "neg", "score": 0.1}, {"label": "neu", "score": 0.3}, {"label": "pos", "score": 0.6}],
            "positive",
            (0.1, 0.3, 0.6),
        ),
    ],
)
def test_normalise_output_shapes(item, label: str, probabilities) -> None:
    prediction = normalise_output(item)
    assert prediction.label == label
    assert prediction.probabilities == pytest.approx(probabilities)


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("great", "unknown label 'great'"),
        (1.5, "must lie in"),
        (True, "cannot read a bool"),
        ([0.1, 0.2, 0.3, 0.4], "2 or 3 probabilities"),
        ({"foo": 1}, "needs 'label' or 'probabilities'"),
        ([{"label": "POSITIVE"}], "numeric 'score'"),
        ({"probabilities": {"positive": "high"}}, "not a number"),
        (None, "cannot read"),
    ],
)
def test_normalise_output_refuses(item, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        normalise_output(item)


def test_label_map_names_foreign_labels() -> None:
    label_map = {"LABEL_0": "negative", "LABEL_1": "positive"}
    assert canonical_label("label_1", label_map) == "positive"
    assert normalise_output([{"label": "LABEL_1", "score": 0.8}, {"label": "LABEL_0", "score": 0.2}],
                            label_map).label == "positive"  # fmt: skip
    assert canonical_label("LABEL_1") is None


def test_callable_classifier_batches_and_normalises() -> None:
    calls = []

    def classify(texts: list[str]) -> list[object]:
        calls.append(list(texts))
        return ["positive" if "good" in t else 0.1 for t in texts]

    classifier = CallableClassifier(classify, batch_size=2)
    predictions = classifier.predict(["good", "bad", "good day", "meh", "good"])
    assert [p.label for p in predictions] == ["positive", "negative", "positive", "negative", "positive"]
    assert calls == [["good", "bad"], ["good day", "meh"], ["good"]]
    assert all(isinstance(p, Prediction) for p in predictions)
    assert classifier.identity["callable"].endswith("classify")
    assert classifier.identity["module_sha256"] != "unknown"


def test_callable_wrong_count_and_bad_item_name_the_text() -> None:
    with pytest.raises(ClassifierError, match="answered 1 predictions for 2 texts"):
        CallableClassifier(lambda texts: ["positive"]).predict(["a", "b"])
    with pytest.raises(ClassifierError, match="text 1: unknown label 'great'") as info:
        CallableClassifier(lambda texts: ["positive", "great"]).predict(["a", "b"])
    assert "label_map" in str(info.value)


def test_callable_that_raises_is_reported_with_its_name() -> None:
    def broken(texts: list[str]) -> list[str]:
        raise RuntimeError("model exploded")

    with pytest.raises(ClassifierError, match="broken raised RuntimeError on texts 0-1: model exploded"):
        CallableClassifier(broken).predict(["a", "b"])


def test_load_callable_from_a_spec_in_the_current_directory(tmp_path, monkeypatch) -> None:
    (tmp_path / "lg_user_model.py").write_text(
        textwrap.dedent(
            """
            def classify(texts):
                return [{"label": "negative" if "bad" in t else "positive"} for t in texts]
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "lg_user_model", raising=False)
    classifier = load_callable("python:lg_user_model:classify")
    assert classifier.name == "python:lg_user_model:classify"
    assert classifier.identity["callable"] == "lg_user_model:classify"
    assert [p.label for p in classifier.predict(["bad film", "fine film"])] == ["negative", "positive"]
    assert str(tmp_path) not in sys.path
    sys.modules.pop("lg_user_model", None)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:json", "does not name a module and a function"),
        ("python:no_such_module_lg:f", "cannot import module"),
        ("python:json:no_such_function", "has no attribute"),
        ("python:json:__doc__", "not a function"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ClassifierError, match=message):
        load_callable(spec)


def test_label_map_values_are_checked() -> None:
    with pytest.raises(ClassifierError, match="not one of negative, neutral, positive"):
        CallableClassifier(lambda texts: texts, label_map={"good": "happy"})


def test_numpy_and_generator_outputs_are_read() -> None:
    import numpy as np

    probabilities = CallableClassifier(lambda texts: np.array([[0.7, 0.2, 0.1]] * len(texts), dtype=np.float32))
    assert [p.label for p in probabilities.predict(["a", "b"])] == ["negative", "negative"]
    floats = CallableClassifier(lambda texts: (np.float32(0.9) for _ in texts))
    assert floats.predict(["a"])[0].probabilities == pytest.approx((0.1, 0.0, 0.9))


@pytest.mark.parametrize("answer", [None, "positive", {"predictions": []}])
def test_non_list_answers_are_reported(answer) -> None:
    with pytest.raises(ClassifierError, match="expected a list with one item per text"):
        CallableClassifier(lambda texts: answer).predict(["a"])
