"""Every spec form resolves to the right adapter; bad specs list the accepted forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linguagym.capabilities.classifiers import registry
from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.classifiers.http import HTTPClassifier
from linguagym.capabilities.classifiers.lexicons import TextBlobClassifier, VaderClassifier
from linguagym.capabilities.classifiers.python_callable import CallableClassifier
from linguagym.capabilities.classifiers.registry import describe_classifiers, load_classifier


class FakeFewShot:
    def __init__(self, model: str, *, cache_dir=None, device="auto", batch_size=None) -> None:
        self.model, self.cache_dir, self.device, self.batch_size = model, cache_dir, device, batch_size


@pytest.fixture
def fewshot(monkeypatch) -> type[FakeFewShot]:
    """The few-shot classifier, replaced: these tests check routing, not the language model."""
    monkeypatch.setattr(registry, "FewShotClassifier", FakeFewShot)
    return FakeFewShot


@pytest.fixture
def baseline_dir(tmp_path, monkeypatch) -> Path:
    directory = tmp_path / "baseline"
    monkeypatch.setattr(registry, "default_output_dir", lambda cache_dir: directory)
    return directory


def _config(directory: Path, architecture: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    config = {"architectures": [architecture], "model_type": "bert",
              "id2label": {"0": "NEGATIVE", "1": "POSITIVE"}}  # fmt: skip
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def test_lexicons() -> None:
    assert isinstance(load_classifier("vader"), VaderClassifier)
    assert isinstance(load_classifier(" TextBlob "), TextBlobClassifier)


def test_http_url_with_options() -> None:
    classifier = load_classifier("http://127.0.0.1:9/classify", batch_size=8, timeout=2, retries=0,
                                 label_map={"LABEL_0": "negative"})  # fmt: skip
    assert isinstance(classifier, HTTPClassifier)
    assert (classifier.batch_size, classifier.timeout, classifier.retries) == (8, 2.0, 0)
    assert classifier.identity["label_map"] == {"LABEL_0": "negative"}


def test_python_spec() -> None:
    classifier = load_classifier("python:json:dumps", batch_size=4)
    assert isinstance(classifier, CallableClassifier)
    assert classifier.batch_size == 4


@pytest.mark.parametrize("spec", ["smollm2-135m", "gemma-3-270m", "fewshot:smollm2-135m", "fewshot:org/model"])
def test_named_and_fewshot_models(spec: str, fewshot, tmp_path) -> None:
    classifier = load_classifier(spec, cache_dir=tmp_path, device="cpu", batch_size=3)
    assert isinstance(classifier, fewshot)
    assert classifier.model == spec.removeprefix("fewshot:")
    assert (classifier.cache_dir, classifier.device, classifier.batch_size) == (tmp_path, "cpu", 3)


def test_gguf_file_and_causal_directory_go_few_shot(tmp_path, fewshot) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    assert load_classifier(str(gguf)).model == str(gguf)
    causal = _config(tmp_path / "causal", "LlamaForCausalLM")
    assert isinstance(load_classifier(str(causal)), fewshot)


def test_sequence_classifier_directory_goes_to_hf(tmp_path) -> None:
    from linguagym.capabilities.classifiers.hf import HFClassifier

    directory = _config(tmp_path / "cls", "BertForSequenceClassification")
    classifier = load_classifier(str(directory), device="cpu", label_map={"NEGATIVE": "positive",
                                                                          "POSITIVE": "negative"})  # fmt: skip
    assert isinstance(classifier, HFClassifier)
    assert classifier.labels == ["positive", "negative"]


def test_minilm_baseline(baseline_dir: Path) -> None:
    with pytest.raises(ClassifierError, match="has not been trained yet") as info:
        load_classifier("minilm-baseline")
    assert "linguagym lct train-classifier" in str(info.value)
    _config(baseline_dir, "BertForSequenceClassification")
    (baseline_dir / "model.safetensors").write_bytes(b"")
    classifier = load_classifier("minilm-baseline", device="cpu")
    assert classifier.name == "minilm-baseline"
    assert classifier.identity["source"] == str(baseline_dir.resolve())


def test_hub_id_offline_lists_the_offline_choices() -> None:
    with pytest.raises(ClassifierError, match="not in the Hugging Face cache") as info:
        load_classifier("nobody-lg/sentiment-model")
    assert "vader, textblob" in str(info.value) and "minilm-baseline" in str(info.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty classifier spec"),
        ("fewshot:", "names no model"),
        ("no such thing!", "unknown classifier"),
        ("./missing/dir", "unknown classifier"),
        ("missing.gguf", "does not exist"),
    ],
)
def test_bad_specs_list_the_accepted_forms(spec: str, message: str) -> None:
    with pytest.raises(ClassifierError, match=message) as info:
        load_classifier(spec)
    assert "accepted forms: vader; textblob" in str(info.value)
    assert "python:module:function" in str(info.value)


def test_a_plain_file_and_a_non_model_directory_are_refused(tmp_path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("hello")
    with pytest.raises(ClassifierError, match="is a file but not a classifier"):
        load_classifier(str(plain))
    with pytest.raises(ClassifierError, match="no config.json"):
        load_classifier(str(tmp_path))
    masked = _config(tmp_path / "mlm", "BertForMaskedLM")
    with pytest.raises(ClassifierError, match="neither a sequence classifier nor a causal"):
        load_classifier(str(masked))


def test_label_map_where_it_does_not_apply(fewshot) -> None:
    with pytest.raises(ClassifierError, match="label_map does not apply"):
        load_classifier("vader", label_map={"a": "negative"})
    with pytest.raises(ClassifierError, match="label_map does not apply"):
        load_classifier("smollm2-135m", label_map={"a": "negative"})


def test_describe_classifiers_covers_every_form() -> None:
    names = [name for name, _ in describe_classifiers()]
    for expected in ("vader", "textblob", "smollm2-135m", "gemma-3-270m", "fewshot:MODEL", "minilm-baseline",
                     "http(s)://URL", "python:module:function", "HUB_ID"):  # fmt: skip
        assert expected in names
    assert all(description for _, description in describe_classifiers())
