"""Hugging Face sequence classifiers: tiny random BERTs built offline, with 2 and 3 labels."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.classifiers.hf import HFClassifier, resolve_labels

SENTENCES = [
    "The film was a delight from start to finish.",
    "A dull and tedious movie.",
    "It is a movie.",
    "Nobody who saw the film disliked it, and the actors were wonderful throughout.",
    "Bad.",
]


@pytest.fixture(scope="module")
def backend():
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer.train_from_iterator(SENTENCES, trainers.WordPieceTrainer(vocab_size=150, special_tokens=specials))
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", tokenizer.token_to_id("[CLS]")), ("[SEP]", tokenizer.token_to_id("[SEP]"))],
    )
    return tokenizer


def build(directory: Path, backend, id2label: dict[int, str], *, favour: int | None = None, seed: int = 0) -> Path:
    """A random BertForSequenceClassification; ``favour``: the output index its bias pushes every text to."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]",
    )
    tokenizer.save_pretrained(directory)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=backend.get_vocab_size(), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64, id2label=id2label,
        label2id={v: k for k, v in id2label.items()}, pad_token_id=backend.token_to_id("[PAD]"),
    )
    model = BertForSequenceClassification(config).eval()
    if favour is not None:
        with torch.no_grad():
            model.classifier.bias.zero_()
            model.classifier.bias[favour] = 8.0
    model.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def generic2(tmp_path_factory, backend) -> Path:
    return build(tmp_path_factory.mktemp("generic2"), backend, {0: "LABEL_0", 1: "LABEL_1"}, favour=1)


@pytest.fixture(scope="module")
def named3(tmp_path_factory, backend) -> Path:
    # output 0 is "positive": the order of id2label, not a fixed order, decides
    return build(tmp_path_factory.mktemp("named3"), backend, {0: "Positive", 1: "neg", 2: "NEUTRAL"}, favour=0)


@pytest.fixture(scope="module")
def unbiased3(tmp_path_factory, backend) -> Path:
    return build(tmp_path_factory.mktemp("unbiased3"), backend, {0: "negative", 1: "neutral", 2: "positive"}, seed=3)


def test_generic_two_labels_assume_sst2_order(generic2: Path) -> None:
    classifier = HFClassifier(generic2, device="cpu")
    assert classifier.identity["labels"] == {"LABEL_0": "negative", "LABEL_1": "positive"}
    assert "assumed" in classifier.identity["label_source"]
    predictions = classifier.predict(SENTENCES[:2])
    assert [p.label for p in predictions] == ["positive", "positive"]
    assert predictions[0].probabilities[1] == 0.0  # binary: no neutral mass
    assert predictions[0].probabilities[2] > 0.99


def test_label_map_overrides_and_changes_identity(generic2: Path) -> None:
    flipped = HFClassifier(generic2, device="cpu", label_map={"LABEL_0": "positive", "1": "negative"})
    assert flipped.identity["label_source"] == "label_map"
    assert flipped.identity != HFClassifier(generic2, device="cpu").identity
    assert [p.label for p in flipped.predict(SENTENCES[:2])] == ["negative", "negative"]


def test_three_named_labels_follow_id2label(named3: Path) -> None:
    classifier = HFClassifier(named3, device="cpu", batch_size=2)
    assert classifier.labels == ["positive", "negative", "neutral"]
    assert classifier.identity["label_source"] == "config"
    predictions = classifier.predict(SENTENCES)
    assert {p.label for p in predictions} == {"positive"}
    assert all(p.probabilities[2] > 0.99 and sum(p.probabilities) == pytest.approx(1.0) for p in predictions)


def test_batched_equals_one_at_a_time(unbiased3: Path) -> None:
    batched = HFClassifier(unbiased3, device="cpu", batch_size=3).predict(SENTENCES)
    single = HFClassifier(unbiased3, device="cpu", batch_size=1)
    alone = [single.predict([text])[0] for text in SENTENCES]
    for together, apart in zip(batched, alone, strict=True):
        assert together.label == apart.label
        assert together.probabilities == pytest.approx(apart.probabilities, abs=1e-5)
    assert len({p.probabilities for p in alone}) == len(SENTENCES)  # texts really give different outputs


def test_identity_does_not_load_weights(unbiased3: Path, monkeypatch) -> None:
    classifier = HFClassifier(unbiased3, device="cpu")
    monkeypatch.setattr(HFClassifier, "_load", lambda self: pytest.fail("weights loaded"))
    identity = classifier.identity
    assert identity["source_kind"] == "directory" and len(identity["revision"]) == 64
    assert classifier.predict([]) == []


def test_changing_the_weights_changes_the_identity(tmp_path, backend) -> None:
    directory = build(tmp_path / "m", backend, {0: "negative", 1: "positive"}, seed=1)
    before = HFClassifier(directory, device="cpu").identity["revision"]
    build(directory, backend, {0: "negative", 1: "positive"}, seed=2)
    assert HFClassifier(directory, device="cpu").identity["revision"] != before


@pytest.mark.parametrize(
    ("names", "label_map", "message"),
    [
        (["happy", "sad"], None, "cannot tell which"),
        (["LABEL_0", "LABEL_1", "LABEL_2", "LABEL_3"], None, "cannot tell which"),
        (["LABEL_0", "LABEL_1"], {"LABEL_0": "negative"}, "does not say what .* LABEL_1 mean"),
        (["neutral", "positive"], None, "needs both a negative and a positive"),
        (["a", "b"], {"a": "negative", "b": "glad"}, "not one of negative, neutral, positive"),
    ],
)
def test_label_problems(names, label_map, message: str) -> None:
    with pytest.raises(ClassifierError, match=message) as info:
        resolve_labels(names, label_map)
    assert info.value.hint


def test_five_star_labels_via_many_to_one_map() -> None:
    names = ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"]
    stars = dict(zip(names, ["negative", "negative", "neutral", "positive", "positive"], strict=True))
    labels, source = resolve_labels(names, stars)
    assert labels == list(stars.values()) and source == "label_map"


def test_unknown_hub_id_offline_is_a_clear_error() -> None:
    with pytest.raises(ClassifierError, match="not in the Hugging Face cache") as info:
        HFClassifier("nobody-lg/no-such-sentiment-model", device="cpu")
    assert "local directory" in str(info.value)


def test_directory_without_config(tmp_path) -> None:
    with pytest.raises(ClassifierError, match="no config.json"):
        HFClassifier(tmp_path, device="cpu")
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ClassifierError, match="not valid JSON"):
        HFClassifier(tmp_path, device="cpu")


def test_mismatched_head_is_reported(tmp_path, backend) -> None:
    directory = build(tmp_path / "m", backend, {0: "negative", 1: "positive"})
    config = json.loads((directory / "config.json").read_text())
    config["id2label"] = {"0": "negative", "1": "neutral", "2": "positive"}
    (directory / "config.json").write_text(json.dumps(config))
    classifier = HFClassifier(directory, device="cpu")
    with pytest.raises(ClassifierError, match="could not load classifier") as info:
        classifier.predict(["Bad."])
    assert "id2label" in str(info.value)


def test_torch_is_not_imported_to_build_an_identity(unbiased3: Path) -> None:
    import subprocess

    code = (
        "import sys; from linguagym.capabilities.classifiers.hf import HFClassifier; "
        f"HFClassifier({str(unbiased3)!r}, device='cpu').identity; print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_base_model_without_a_trained_head_is_refused(tmp_path, generic2: Path) -> None:
    from transformers import AutoConfig, BertModel

    directory = tmp_path / "base"
    BertModel(AutoConfig.from_pretrained(generic2)).save_pretrained(directory)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (directory / name).write_bytes((generic2 / name).read_bytes())
    classifier = HFClassifier(directory, device="cpu")
    with pytest.raises(ClassifierError, match="not a trained sequence classifier") as info:
        classifier.predict(["Bad."])
    assert "classifier.weight" in str(info.value)
