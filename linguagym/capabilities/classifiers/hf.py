"""Any Hugging Face sequence-classification model (hub id or local directory) as a sentiment classifier.

The published S2LCT numbers come from fine-tuned BERT-family sentiment models, and the hub holds thousands
more; they differ only in how they name their labels. ``config.json``'s ``id2label`` is read into
negative/neutral/positive: names such as NEGATIVE, neg, Neutral, positive are recognised; bare LABEL_0..
names are assumed to be in SST-2 order (LABEL_0 negative, LABEL_1 positive; with three labels negative,
neutral, positive, as the cardiffnlp models use) and the assumption is recorded in the identity; an explicit
``label_map`` overrides both (several model labels may map onto one, e.g. 1-5 stars). A model whose labels
are negative and positive only is binary and gets the neutral band of ``base.from_binary``.

The identity reads config.json and the revision (hub commit, or a content hash of a local directory) and
never loads weights, so a fully cached run needs neither torch nor the model.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from linguagym.capabilities.classifiers.base import LABELS, Classifier, ClassifierError, Prediction
from linguagym.capabilities.classifiers.python_callable import SYNONYMS, check_label_map, normalise_output
from linguagym.errors import ConfigurationError
from linguagym.hashing import HashMemo
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.scoring.engine import device as devices
from linguagym.scoring.huggingface.base import library_versions
from linguagym.scoring.huggingface.sources import read_config
from linguagym.userfiles import probe

_GENERIC = re.compile(r"^LABEL_(\d+)$", re.IGNORECASE)
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_ASSUMED = {2: ("negative", "positive"), 3: ("negative", "neutral", "positive")}


def looks_like_hub_id(text: str) -> bool:
    """Whether ``text`` could be a hub id (``name`` or ``owner/name``) rather than a path or something else. The hub
    allows 96 characters a part; a longer name is no hub id (nor a file: a part over 255 bytes was a 500)."""
    return (bool(_HUB_ID.match(text)) and not text.startswith((".", "/", "~"))
            and all(len(part) <= 96 for part in text.split("/")))


def read_model_config(directory: Path) -> dict[str, Any]:
    """config.json of a model directory (read as the scorers read it), or a ClassifierError saying what is
    missing."""
    try:
        return read_config(directory)
    except ConfigurationError as error:
        raise ClassifierError(error.message, hint=error.hint or "restore the file from the model") from None


def model_labels(config: Mapping[str, Any]) -> list[str]:
    """The model's label names in output order (``id2label``; LABEL_k from ``num_labels`` without one)."""
    id2label = config.get("id2label")
    if isinstance(id2label, Mapping) and id2label:
        try:
            return [str(id2label[key]) for key in sorted(id2label, key=int)]
        except ValueError:
            raise ClassifierError(f"config.json has id2label keys that are not integers: {sorted(id2label)}") from None
    return [f"LABEL_{i}" for i in range(int(config.get("num_labels", 2)))]


def resolve_labels(names: Sequence[str], label_map: Mapping[str, str] | None = None) -> tuple[list[str], str]:
    """Each model label as one of LABELS, and how that was decided (recorded in the identity).

    ``label_map`` keys may be the label names or their indexes (``"0"``); every label must be covered.
    """
    names = list(names)
    if label_map is not None:
        checked = check_label_map(label_map) or {}
        folded = {key.strip().lower(): value for key, value in checked.items()}
        mapped = [folded.get(name.strip().lower(), folded.get(str(i))) for i, name in enumerate(names)]
        missing = [name for name, label in zip(names, mapped, strict=True) if label is None]
        if missing:
            raise ClassifierError(
                f"label_map does not say what the model's label(s) {', '.join(missing)} mean "
                f"(the model's labels: {', '.join(names)})",
                hint="map every label to negative, neutral or positive, e.g. "
                + json.dumps({name: LABELS[0] for name in names[:2]}),
            )
        labels, source = [str(label) for label in mapped], "label_map"
    elif all(name.strip().lower() in SYNONYMS for name in names):
        labels, source = [SYNONYMS[name.strip().lower()] for name in names], "config"
    elif len(names) in _ASSUMED and all(
        (m := _GENERIC.match(name)) and int(m.group(1)) == i for i, name in enumerate(names)
    ):
        labels = list(_ASSUMED[len(names)])
        source = "assumed: generic LABEL_k names read in SST-2 order (" + ", ".join(
            f"{name}={label}" for name, label in zip(names, labels, strict=True)
        ) + ")"
    else:
        raise ClassifierError(
            f"cannot tell which of the model's labels ({', '.join(names)}) mean negative, neutral, positive",
            hint="pass label_map, e.g. " + json.dumps({name: LABELS[0] for name in names[:2]}),
        )
    if "negative" not in labels or "positive" not in labels:
        raise ClassifierError(
            f"the model's labels ({', '.join(names)}) read as {', '.join(labels)}: a sentiment classifier needs "
            "both a negative and a positive label",
            hint="pass label_map to say which label is negative and which positive",
        )
    return labels, source


def _hub_config(repo_id: str, revision: str | None) -> Path:
    """config.json of a hub model from the local Hugging Face cache, else downloaded (that file alone)."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:  # pragma: no cover - transformers depends on it
        raise ClassifierError("huggingface_hub is not installed", hint="pip install transformers") from None
    try:
        return Path(hf_hub_download(repo_id, "config.json", revision=revision, local_files_only=True))
    except Exception:  # noqa: BLE001 - anything here means "not in the cache"; go online below if allowed
        pass
    hint = (
        f"pass a local directory holding a sequence-classification model (as save_pretrained writes it), "
        f"or run once online to download {repo_id} from the Hugging Face hub"
    )
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise ClassifierError(
            f"classifier {repo_id!r} is not in the Hugging Face cache and HF_HUB_OFFLINE is set", hint=hint
        )
    try:
        return Path(hf_hub_download(repo_id, "config.json", revision=revision))
    except Exception as error:  # noqa: BLE001 - network, auth, missing repo: all reported the same way
        first = str(error).splitlines()[0] if str(error) else ""
        raise ClassifierError(
            f"could not find classifier {repo_id!r} locally or on the Hugging Face hub ({type(error).__name__}: "
            f"{first})",
            hint=hint,
        ) from None


class HFClassifier(Classifier):
    """A Hugging Face sequence classifier. ``model``: a hub id or a local directory. Weights load on the first
    ``predict`` with texts; texts are sorted by token length and run ``batch_size`` at a time, truncated to
    the model's limit."""

    def __init__(
        self,
        model: str | Path,
        *,
        cache_dir: Path | None = None,
        device: str = "auto",
        batch_size: int | None = None,
        label_map: Mapping[str, str] | None = None,
        dtype: str = "float32",
        revision: str | None = None,
        name: str | None = None,
    ) -> None:
        self.model = str(model)
        self.batch_size: int = 32 if batch_size is None else int(batch_size)
        if self.batch_size < 1:
            raise ClassifierError(f"batch_size must be at least 1, not {self.batch_size}")
        self.device = devices.probe_device(device)
        self.dtype = devices.check_dtype(dtype)
        self._name = name or self.model
        path = Path(self.model).expanduser()
        if probe(path, Path.is_dir):
            self.config = read_model_config(path)
            self.source_kind, self.location = "directory", str(path.resolve())
            self.revision = HashMemo(resolve_cache_dir(cache_dir) / "hashes.json").directory(path)
            self._load_from, self._load_revision = str(path), None
        elif probe(path, Path.exists) or not looks_like_hub_id(self.model):
            raise ClassifierError(
                f"classifier {self.model[:300]!r} is neither a model directory nor a Hugging Face hub id",
                hint="pass a directory written by save_pretrained, or a hub id such as owner/model-name",
            )
        else:
            config_path = _hub_config(self.model, revision)
            self.config = read_model_config(config_path.parent)
            self.source_kind, self.location = "hub", self.model
            self.revision = config_path.parent.name  # the snapshot folder is the commit
            self._load_from, self._load_revision = self.model, self.revision
        self.model_labels = model_labels(self.config)
        self.labels, self.label_source = resolve_labels(self.model_labels, label_map)
        self._loaded: tuple[Any, Any, Any] | None = None

    @property
    def identity(self) -> dict[str, Any]:
        return {  # the spelling of a path is left out: the resolved path and its content hash say it all
            "kind": "hf-sequence-classifier",
            "source_kind": self.source_kind,
            "source": self.location,
            "revision": self.revision,
            "labels": dict(zip(self.model_labels, self.labels, strict=True)),
            "label_source": self.label_source,
            "dtype": self.dtype,
            "device": self.device,
            "versions": library_versions(),
        }

    @property
    def name(self) -> str:
        return self._name

    def warm_up(self) -> None:
        """Load the weights now rather than at the first prediction (a Ray worker does, before any shard)."""
        self._load()

    def _load(self) -> tuple[Any, Any, Any]:
        if self._loaded is None:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            target = devices.torch_device(self.device)
            dtype = devices.torch_dtype(self.dtype, target)
            extra = {"revision": self._load_revision} if self._load_revision else {}
            try:
                tokenizer = AutoTokenizer.from_pretrained(self._load_from, **extra)
                model, info = AutoModelForSequenceClassification.from_pretrained(
                    self._load_from, dtype=dtype, output_loading_info=True, **extra
                )
            except (OSError, ValueError, RuntimeError) as error:  # RuntimeError: head size != config's labels
                raise ClassifierError(
                    f"could not load classifier {self.model!r} from {self.location}: {str(error).splitlines()[0]}",
                    hint="check that it holds config.json (id2label matching the classification head), the "
                    "weights and the tokenizer files (online once for a hub id)",
                ) from None
            fresh = sorted(set(info.get("missing_keys") or ()) & dict(model.named_parameters()).keys())
            if fresh:  # a base model: its head would be random, its answers noise
                raise ClassifierError(
                    f"{self.model!r} is not a trained sequence classifier: its checkpoint lacks "
                    f"{', '.join(fresh[:4])}{' ...' if len(fresh) > 4 else ''}, which would be random",
                    hint="pass a model fine-tuned for sentiment classification (or fine-tune this one first)",
                )
            if model.config.num_labels != len(self.labels):
                raise ClassifierError(
                    f"classifier {self.model!r} has {model.config.num_labels} outputs but config.json names "
                    f"{len(self.labels)} labels",
                    hint="make id2label in config.json match the classification head",
                )
            if tokenizer.pad_token is None and tokenizer.eos_token is not None:
                tokenizer.pad_token = tokenizer.eos_token  # GPT-style classifiers find the last real token
            if model.config.pad_token_id is None and tokenizer.pad_token_id is not None:
                model.config.pad_token_id = tokenizer.pad_token_id
            model.to(target)
            model.eval()
            self._loaded = (model, tokenizer, target)
        return self._loaded

    def _max_length(self, tokenizer: Any) -> int | None:
        limits = [int(tokenizer.model_max_length)] if 0 < tokenizer.model_max_length < 1_000_000 else []
        positions = self.config.get("max_position_embeddings")
        if isinstance(positions, int) and positions > 0:
            offset = 2 if self.config.get("model_type") in ("roberta", "xlm-roberta", "camembert") else 0
            limits.append(positions - offset)
        return min(limits) if limits else None

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        texts = list(texts)
        if not texts:
            return []
        model, tokenizer, target = self._load()
        import torch

        limit = self._max_length(tokenizer)
        encoded = tokenizer(texts, truncation=limit is not None, max_length=limit)
        keys = [key for key in ("input_ids", "attention_mask", "token_type_ids") if key in encoded]
        order = sorted(range(len(texts)), key=lambda i: len(encoded["input_ids"][i]))
        size = self.batch_size if tokenizer.pad_token_id is not None else 1
        probabilities: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), size):
            indexes = order[start : start + size]
            features = [{key: encoded[key][i] for key in keys} for i in indexes]
            batch = tokenizer.pad(features, return_tensors="pt")
            with torch.inference_mode():
                logits = model(**{key: value.to(target) for key, value in batch.items()}).logits
            for i, row in zip(indexes, torch.softmax(logits.float(), dim=-1).cpu().tolist(), strict=True):
                probabilities[i] = row
        return [self._prediction(row) for row in probabilities]

    def _prediction(self, row: Sequence[float]) -> Prediction:
        scores: dict[str, float] = {}
        for label, value in zip(self.labels, row, strict=True):
            scores[label] = scores.get(label, 0.0) + float(value)
        return normalise_output({"probabilities": scores})
