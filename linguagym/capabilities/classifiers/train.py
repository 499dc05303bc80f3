"""Fine-tune a small encoder into a sentiment classifier, offline, so that capability tests have a trained
baseline to test on any machine (the published baselines are hub models, which cannot be fetched everywhere).

Why binary: the S2LCT baselines (BERT, RoBERTa, DistilBERT fine-tuned on SST-2) are negative/positive models,
mapped to three classes by the neutral band ``1/3 < p(positive) < 2/3`` (``base.from_binary``). A model trained
the same way is comparable with them. Neutral rows are dropped: they are few (about 10% of the Rotten Tomatoes
sentences, a narrow rating band), so a three-class head would learn them poorly, and the band already gives a
neutral answer where the model is unsure.

Why exclusions: a classifier must not be trained on the sentences it is then tested on. ``exclude_texts``
(see ``texts_to_exclude``: the seed tests of a capability-test file and the dataset sentences they came from)
are removed before the train/dev split, compared after folding case and whitespace.

The result is an ordinary Hugging Face directory (config with ``id2label {0: negative, 1: positive}``, tokenizer,
safetensors weights) plus ``linguagym-classifier.json``, which records how it was made. It is written to a
temporary directory beside the target and renamed into place only when complete.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linguagym import assets
from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.data.datasets import Dataset, Example
from linguagym.capabilities.testfile.model import CapabilityTestFile, require_test_file
from linguagym.hashing import HashMemo
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.scoring.engine import device as devices
from linguagym.scoring.huggingface.base import library_versions
from linguagym.scoring.huggingface.sources import resolve_source

METADATA_FILE = "linguagym-classifier.json"
DEFAULT_BASE = "minilm-l6-v2"  # an encoder asset of linguagym.assets
DEFAULT_NAME = "minilm-baseline"
ID2LABEL = {0: "negative", 1: "positive"}
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def default_output_dir(cache_dir: Path | None = None) -> Path:
    """Where ``linguagym lct train-classifier`` writes by default, and where the name ``minilm-baseline``
    looks: ``<cache>/classifiers/minilm-baseline``."""
    return resolve_cache_dir(cache_dir) / "classifiers" / DEFAULT_NAME


def text_key(text: str) -> str:
    """Texts compare equal when they differ only in case and whitespace."""
    return " ".join(str(text).split()).casefold()


def texts_to_exclude(document: CapabilityTestFile) -> list[str]:
    """The texts of a capability-test file a classifier must not train on: every seed test's text and the
    dataset sentences any test was made from (``provenance.rows[].text``)."""
    found: dict[str, None] = {}
    for test in require_test_file(document, "texts_to_exclude").tests:
        if test.kind == "seed":
            found[test.text] = None
        for row in test.provenance.rows or ():
            found[row.text] = None
    return list(found)


@dataclass(frozen=True)
class Split:
    train: tuple[Example, ...]
    dev: tuple[Example, ...]
    counts: dict[str, int]  # rows, neutral_dropped, excluded, duplicates_dropped, limited_to, train, dev


def split_examples(
    dataset: Dataset,
    *,
    exclude_texts: Iterable[str] = (),
    seed: int = 0,
    limit: int | None = None,
    dev_fraction: float = 0.1,
) -> Split:
    """The rows ``train_classifier`` uses, split deterministically by ``seed``.

    Neutral rows, excluded texts and repeated texts (after the first) are dropped; the rest is shuffled with
    ``seed``, cut to ``limit`` rows, and the first ``dev_fraction`` of it (at least one row) is the dev set.
    """
    if not 0 < dev_fraction < 1:
        raise ClassifierError(f"dev_fraction must lie strictly between 0 and 1, not {dev_fraction}")
    if limit is not None and limit < 2:
        raise ClassifierError(f"limit must be at least 2 (one training and one dev row), not {limit}")
    excluded = {text_key(t) for t in exclude_texts}
    counts = {"rows": len(dataset.examples), "neutral_dropped": 0, "excluded": 0, "duplicates_dropped": 0}
    seen: set[str] = set()
    kept: list[Example] = []
    for example in dataset.examples:
        key = text_key(example.text)
        if key in excluded:
            counts["excluded"] += 1
        elif example.label not in ("negative", "positive"):
            counts["neutral_dropped"] += 1
        elif key in seen or not key:
            counts["duplicates_dropped"] += 1
        else:
            seen.add(key)
            kept.append(example)
    random.Random(seed).shuffle(kept)
    if limit is not None:
        kept = kept[:limit]
    counts["limited_to"] = len(kept)
    dev_size = max(1, round(len(kept) * dev_fraction))
    if len(kept) - dev_size < 1:
        raise ClassifierError(
            f"dataset {dataset.name!r} leaves {len(kept)} negative/positive rows after exclusions: too few to train",
            hint="use a larger dataset, fewer exclusions or a larger `limit`", settings=["limit"],
        )
    dev, train = tuple(kept[:dev_size]), tuple(kept[dev_size:])
    counts["train"], counts["dev"] = len(train), len(dev)
    for label in ("negative", "positive"):
        counts[f"train_{label}"] = sum(1 for e in train if e.label == label)
    return Split(train, dev, counts)


def train_classifier(
    dataset: Dataset,
    output_dir: Path | str,
    *,
    exclude_texts: Iterable[str] = (),
    base: str | None = None,
    epochs: int = 1,
    batch_size: int = 32,
    learning_rate: float = 5e-5,
    max_length: int = 64,
    seed: int = 0,
    limit: int | None = None,
    dev_fraction: float = 0.1,
    progress: Callable[[int, int], None] | None = None,
    cache_dir: Path | None = None,
    device: str = "auto",
) -> dict[str, Any]:
    """Fine-tune ``base`` (default: the MiniLM encoder asset; or a local directory or hub id) on the
    negative/positive rows of ``dataset`` and save the classifier to ``output_dir``; return its metadata.

    Training uses AdamW with a linear warm-up (the first 10% of steps) and decay, in seeded order: the same
    inputs and seed give the same model on the same machine. ``progress(done, total)`` is called after each
    training step. An existing ``output_dir`` is replaced only if it holds a classifier written here.
    """
    started = time.perf_counter()
    output_dir = Path(output_dir).expanduser()
    for name, value, least in (("epochs", epochs, 1), ("batch_size", batch_size, 1), ("max_length", max_length, 8)):
        if value < least:
            raise ClassifierError(f"{name} must be at least {least}, not {value}")
    if not learning_rate > 0:
        raise ClassifierError(f"learning_rate must be positive, not {learning_rate}")
    _check_target(output_dir)
    exclude = list(exclude_texts)
    split = split_examples(dataset, exclude_texts=exclude, seed=seed, limit=limit, dev_fraction=dev_fraction)
    base_info, base_dir = _resolve_base(base, cache_dir)

    import torch

    target = devices.torch_device(devices.probe_device(device))
    torch.manual_seed(seed)  # the new classification head and dropout
    model, tokenizer = _load_base(base_dir, base_info["name"])
    model.to(target)
    train_loss = _train(model, tokenizer, split.train, target, epochs=epochs, batch_size=batch_size,
                        learning_rate=learning_rate, max_length=max_length, seed=seed, progress=progress)
    accuracy = _accuracy(model, tokenizer, split.dev, target, max_length=max_length)
    metadata = {
        "format": "linguagym-classifier",
        "version": 1,
        "labels": [ID2LABEL[0], ID2LABEL[1]],
        "three_class_rule": "neutral where 1/3 < p(positive) < 2/3",
        "base": base_info,
        "dataset": {"name": dataset.name, "source": dataset.source, "sha256": dataset.sha256,
                    "label_rule": dataset.label_rule},
        "exclude_texts_given": len(exclude),
        "sizes": split.counts,
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "max_length": max_length,
        "seed": seed,
        "limit": limit,
        "dev_fraction": dev_fraction,
        "dev_accuracy": round(accuracy, 6),
        "train_loss": round(train_loss, 6),
        "device": str(target),
        "threads": torch.get_num_threads() if target.type == "cpu" else None,
        "versions": library_versions(),
    }
    _save(model, tokenizer, output_dir, metadata, started)
    return metadata


# --------------------------------------------------------------------------------------------- internals
def _check_target(output_dir: Path) -> None:
    if output_dir.is_file():
        raise ClassifierError(f"output {output_dir} is a file, not a directory", hint="choose another -o path")
    if output_dir.is_dir() and any(output_dir.iterdir()) and not (output_dir / METADATA_FILE).is_file():
        raise ClassifierError(
            f"output directory {output_dir} is not empty and holds no classifier written by linguagym",
            hint="choose a new or empty directory; an earlier linguagym classifier there would be replaced",
        )


def _resolve_base(base: str | None, cache_dir: Path | None) -> tuple[dict[str, Any], Path]:
    """What the base encoder is (for the metadata) and the directory to load it from."""
    root = resolve_cache_dir(cache_dir)
    name = base or DEFAULT_BASE
    if name in assets.ENCODERS:
        entry = assets.ENCODERS[name]
        directory = assets.fetch_encoder(name, root)
        return {"name": name, "kind": "asset", "source": entry.source, "sha256": entry.sha256}, directory

    source = resolve_source(name, root)
    directory, gguf_file = source.files()
    if gguf_file:
        raise ClassifierError(f"base {name!r} is a GGUF file; a classifier needs an encoder directory",
                              hint="pass a Hugging Face model directory or hub id (e.g. a BERT-class encoder)")
    weights = next((directory / f for f in _WEIGHT_FILES if (directory / f).is_file()), None)
    memo = HashMemo(root / "hashes.json")
    sha256 = memo.file(weights) if weights is not None else source.revision
    info = {"name": name, "kind": source.kind, "source": source.location, "sha256": sha256,
            "revision": source.revision}
    return info, directory


def _load_base(directory: Path, name: str) -> tuple[Any, Any]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # "some weights were newly initialised" is the point of fine-tuning
    hf_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory)
        model = AutoModelForSequenceClassification.from_pretrained(
            directory, num_labels=2, id2label=dict(ID2LABEL), label2id={v: k for k, v in ID2LABEL.items()}
        )
    except (OSError, ValueError) as error:
        raise ClassifierError(
            f"could not load base model {name!r} from {directory} as a sequence classifier: "
            f"{str(error).splitlines()[0]}",
            hint="pass an encoder directory holding config.json, weights and tokenizer files",
        ) from None
    finally:
        hf_logging.set_verbosity(verbosity)
    if tokenizer.pad_token_id is None:
        raise ClassifierError(f"the tokenizer of base {name!r} has no padding token",
                              hint="use an encoder whose tokenizer defines one (BERT-class models do)")
    model.config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer


def _encode(tokenizer: Any, examples: tuple[Example, ...], max_length: int) -> list[list[int]]:
    if not examples:
        return []
    return list(tokenizer([e.text for e in examples], truncation=True, max_length=max_length)["input_ids"])


def _batch(ids: list[list[int]], pad_id: int, device: Any) -> tuple[Any, Any]:
    import torch

    width = max(len(row) for row in ids)
    tensor = torch.full((len(ids), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for i, row in enumerate(ids):
        tensor[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : len(row)] = 1
    return tensor.to(device), mask.to(device)


def _train(model: Any, tokenizer: Any, examples: tuple[Example, ...], device: Any, *, epochs: int, batch_size: int,
           learning_rate: float, max_length: int, seed: int,
           progress: Callable[[int, int], None] | None) -> float:
    """Plain fine-tuning; returns the mean training loss of the last epoch."""
    import torch

    ids = _encode(tokenizer, examples, max_length)
    labels = torch.tensor([1 if e.label == "positive" else 0 for e in examples], dtype=torch.long)
    steps_per_epoch = math.ceil(len(ids) / batch_size)
    total = steps_per_epoch * epochs
    warmup = max(1, total // 10)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)

    def rate(step: int) -> float:  # linear warm-up, then linear decay to 0
        return (step + 1) / warmup if step < warmup else max(0.0, (total - step) / max(1, total - warmup))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    order = torch.Generator().manual_seed(seed)
    model.train()
    done, last_loss = 0, 0.0
    with torch.enable_grad():
        for _ in range(epochs):
            losses = []
            for chosen in _epoch_batches(ids, batch_size, order):
                input_ids, mask = _batch([ids[i] for i in chosen], tokenizer.pad_token_id, device)
                out = model(input_ids=input_ids, attention_mask=mask, labels=labels[chosen].to(device))
                out.loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad(set_to_none=True)
                losses.append(out.loss.detach().item())
                done += 1
                if progress is not None:
                    progress(done, total)
            last_loss = sum(losses) / max(1, len(losses))
    model.eval()
    return last_loss


def _epoch_batches(ids: list[list[int]], batch_size: int, generator: Any) -> list[list[int]]:
    """One epoch's batches in seeded random order, each of rows of similar length (less padding, about half
    the time on RT sentences): a random permutation is cut into pools of 16 batches, each pool sorted by
    length and cut into batches, and the batches shuffled."""
    import torch

    permutation = torch.randperm(len(ids), generator=generator).tolist()
    pool = 16 * batch_size
    batches = []
    for start in range(0, len(permutation), pool):
        members = sorted(permutation[start : start + pool], key=lambda i: len(ids[i]))
        batches += [members[k : k + batch_size] for k in range(0, len(members), batch_size)]
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def _accuracy(model: Any, tokenizer: Any, examples: tuple[Example, ...], device: Any, *, max_length: int) -> float:
    import torch

    ids = _encode(tokenizer, examples, max_length)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    correct = 0
    with torch.inference_mode():
        for start in range(0, len(order), 128):
            chosen = order[start : start + 128]
            input_ids, mask = _batch([ids[i] for i in chosen], tokenizer.pad_token_id, device)
            predicted = model(input_ids=input_ids, attention_mask=mask).logits.argmax(dim=-1).tolist()
            correct += sum(
                (ID2LABEL[p] == examples[i].label) for p, i in zip(predicted, chosen, strict=True)
            )
    return correct / len(examples) if examples else 0.0


def _save(model: Any, tokenizer: Any, output_dir: Path, metadata: dict[str, Any], started: float) -> None:
    """Write everything into a temporary directory beside ``output_dir``, then rename it into place."""
    parent = output_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=parent, prefix=f".{output_dir.name}-"))
    old: Path | None = None
    try:
        os.chmod(work, 0o777 & ~_umask())  # mkdtemp makes 0700 directories; outputs get the usual mode
        model.save_pretrained(work)
        tokenizer.save_pretrained(work)
        metadata["seconds"] = round(time.perf_counter() - started, 1)
        _write_metadata(work, metadata)
        if output_dir.exists():  # an earlier classifier (checked by _check_target): swap, then remove it
            old = Path(tempfile.mkdtemp(dir=parent, prefix=f".{output_dir.name}-old-"))
            os.replace(output_dir, old / "previous")
        try:
            os.replace(work, output_dir)
        except OSError:
            if old is not None:  # put the earlier classifier back
                os.replace(old / "previous", output_dir)
            raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    metadata["output_dir"] = str(output_dir)


def _write_metadata(directory: Path, metadata: dict[str, Any]) -> None:
    (directory / METADATA_FILE).write_text(json.dumps(metadata, indent=2, ensure_ascii=False) + "\n",
                                           encoding="utf-8")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
