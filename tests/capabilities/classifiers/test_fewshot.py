from __future__ import annotations

import json
from pathlib import Path

import pytest

from linguagym.capabilities.classifiers import fewshot
from linguagym.capabilities.classifiers.base import LABELS, ClassifierError
from linguagym.capabilities.classifiers.fewshot import FewShotClassifier
from linguagym.scoring.cache import resolve_cache_dir
from tests.tiny_models import save_byte_level_lm

# Read at collection time, before the folder's autouse fixture points the cache at a temporary directory:
# the slow tests use the real named models where they are already cached.
REAL_CACHE = resolve_cache_dir()

TEXTS = [
    "A wonderful film.",
    "The plot is a mess and the acting is worse, which is a shame for such a cast.",
    "It is set in Ohio.",
    "Not bad!",
    "I loved every minute of it, from the first scene to the very last one.",
    "Meh.",
]


def _tiny_lm(directory: Path, vocab_size: int) -> Path:
    """A random GPT-2 over a byte-level BPE trained on the prompt itself and some sentences."""
    corpus = [fewshot.prompt_prefix(), *TEXTS, *fewshot.LABEL_WORDS] * 3
    return save_byte_level_lm(directory, corpus, vocab_size=vocab_size, seed=5, n_positions=2048)


@pytest.fixture(scope="module")
def lm_single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Label words are single tokens (a vocabulary large enough to merge them)."""
    return _tiny_lm(tmp_path_factory.mktemp("fewshot-single"), 700)


@pytest.fixture(scope="module")
def lm_multi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Label words are several tokens each (almost no merges beyond the bytes)."""
    return _tiny_lm(tmp_path_factory.mktemp("fewshot-multi"), 262)


@pytest.fixture(params=["single", "multi"])
def tiny_lm(request: pytest.FixtureRequest, lm_single: Path, lm_multi: Path) -> Path:
    return lm_single if request.param == "single" else lm_multi


def _label_lengths(classifier: FewShotClassifier) -> list[int]:
    classifier._prepare()
    return [len(ids) for ids in classifier._prepared.label_ids]


def test_fixtures_cover_both_label_paths(lm_single: Path, lm_multi: Path) -> None:
    assert _label_lengths(FewShotClassifier(str(lm_single), device="cpu")) == [1, 1, 1]
    assert min(_label_lengths(FewShotClassifier(str(lm_multi), device="cpu"))) > 1


def test_batched_equals_one_at_a_time(tiny_lm: Path) -> None:
    batched = FewShotClassifier(str(tiny_lm), device="cpu", batch_size=4).label_logprobs(TEXTS)
    single_classifier = FewShotClassifier(str(tiny_lm), device="cpu", batch_size=1)
    for text, row in zip(TEXTS, batched, strict=True):
        alone = single_classifier.label_logprobs([text])[0]
        assert max(abs(a - b) for a, b in zip(row, alone, strict=True)) < 1e-4, text


def test_matches_the_whole_prompt_run_without_a_cache(tiny_lm: Path) -> None:
    """The shared-prefix cache, padding and splitting give what one plain pass over the whole prompt gives."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    classifier = FewShotClassifier(str(tiny_lm), device="cpu")
    found = classifier.label_logprobs(TEXTS)
    tokenizer = AutoTokenizer.from_pretrained(tiny_lm)
    model = AutoModelForCausalLM.from_pretrained(tiny_lm).eval()
    bos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    for text, row in zip(TEXTS, found, strict=True):
        expected = []
        for word in fewshot.LABEL_WORDS:
            context = [bos] + tokenizer(fewshot.prompt(text), add_special_tokens=False)["input_ids"]
            label = tokenizer(word, add_special_tokens=False)["input_ids"]
            ids = torch.tensor([context + label])
            with torch.inference_mode():
                logp = model(input_ids=ids).logits[0].float().log_softmax(-1)
            expected.append(sum(float(logp[len(context) - 1 + k, token]) for k, token in enumerate(label)))
        assert max(abs(a - b) for a, b in zip(row, expected, strict=True)) < 1e-4, text


def test_predictions_are_distributions_in_order(lm_single: Path) -> None:
    classifier = FewShotClassifier(str(lm_single), device="cpu")
    texts = [TEXTS[0], TEXTS[2], TEXTS[0], "  A  wonderful\nfilm. "]
    predictions = classifier.predict(texts)
    assert len(predictions) == 4
    for prediction in predictions:
        assert prediction.label in LABELS
        assert abs(sum(prediction.probabilities) - 1) < 1e-9
        assert prediction.label == LABELS[max(range(3), key=lambda k: prediction.probabilities[k])]
    assert predictions[0] == predictions[2]
    assert predictions[3] == predictions[0]  # whitespace runs and newlines become one space
    assert predictions[0].probabilities != predictions[1].probabilities
    assert classifier.predict([]) == []


def test_identity_does_not_load_or_fetch(tmp_path: Path) -> None:
    cache = tmp_path / "empty-cache"
    classifier = FewShotClassifier("smollm2-135m", cache_dir=cache, device="cpu")
    identity = classifier.identity
    assert not classifier.lm.is_loaded
    assert not (cache / "models").exists()
    assert identity["kind"] == "fewshot"
    assert identity["model"] == "smollm2-135m"
    assert identity["bos_token"] == "<|endoftext|>" and identity["bos_token_id"] == 0
    assert identity["prompt_sha256"] == fewshot.prompt_sha256()
    assert identity["label_words"] == [" negative", " neutral", " positive"]
    json.dumps(identity)  # recordable as provenance
    assert set(identity) == {  # the prediction cache's key: a key that came or went would orphan every cache
        "kind", "model", "source_kind", "source", "revision", "dtype", "device", "bos_token", "bos_token_id",
        "prompt_version", "prompt_sha256", "label_words", "versions"}
    assert classifier.name == "fewshot:smollm2-135m"


def test_identity_follows_the_prompt(lm_single: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = FewShotClassifier(str(lm_single), device="cpu").identity
    assert FewShotClassifier(str(lm_single), device="cpu", batch_size=3).identity == before
    monkeypatch.setattr(fewshot, "EXAMPLES", fewshot.EXAMPLES[:-1])
    after = FewShotClassifier(str(lm_single), device="cpu").identity
    assert after["prompt_sha256"] != before["prompt_sha256"]
    assert FewShotClassifier(str(lm_single), device="cpu").name == f"fewshot:{lm_single.name}"


def test_examples_cover_every_label_and_are_ours() -> None:
    assert {label for _, label in fewshot.EXAMPLES} == set(LABELS)
    assert fewshot.prompt("x").endswith("Review: x\nSentiment:")
    assert fewshot.prompt("x").startswith(fewshot.prompt_prefix())


def test_masked_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertForMaskedLM"]}))
    with pytest.raises(ClassifierError, match="causal"):
        FewShotClassifier(str(tmp_path), device="cpu")


def test_bad_batch_size_and_too_long_text(lm_single: Path) -> None:
    with pytest.raises(ClassifierError, match="batch_size"):
        FewShotClassifier(str(lm_single), batch_size=0)
    classifier = FewShotClassifier(str(lm_single), device="cpu")
    classifier.predict(["short."])
    classifier.lm.loaded.max_length = len(classifier._prepared.prefix_ids) + 12
    with pytest.raises(ClassifierError, match="accepts at most"):
        classifier.predict(["a much longer text " * 5])


@pytest.mark.slow
def test_prompt_examples_are_not_dataset_sentences() -> None:
    from linguagym.capabilities.classifiers.train import text_key
    from linguagym.capabilities.data.catalog import load_dataset

    keys = {text_key(e.text) for e in load_dataset("rotten-tomatoes", cache_dir=REAL_CACHE).examples}
    assert not [text for text, _ in fewshot.EXAMPLES if text_key(text) in keys]


UNMISTAKABLE = [  # written for this test; not used to choose the prompt
    ("This is the best film I have seen in years, a true masterpiece.", "positive"),
    ("An absolute delight from start to finish.", "positive"),
    ("Brilliant acting, a wonderful script and gorgeous music.", "positive"),
    ("I loved it and will happily see it again.", "positive"),
    ("A touching, funny and beautiful movie.", "positive"),
    ("This is the worst movie I have ever seen.", "negative"),
    ("A boring, stupid and painfully long mess.", "negative"),
    ("Terrible acting and an awful, lazy script.", "negative"),
    ("I hated every minute of this dreadful film.", "negative"),
    ("A complete waste of time and money.", "negative"),
]


@pytest.mark.slow
def test_smollm2_gets_unmistakable_sentences_right() -> None:
    classifier = FewShotClassifier("smollm2-135m", cache_dir=REAL_CACHE)
    predictions = classifier.predict([text for text, _ in UNMISTAKABLE])
    right = sum(p.label == label for p, (_, label) in zip(predictions, UNMISTAKABLE, strict=True))
    assert right >= 8, [(text, p.label) for p, (text, _) in zip(predictions, UNMISTAKABLE, strict=True)]
