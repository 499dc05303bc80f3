"""``load_classifier``: one entry point from a spec string to a classifier, so that the CLI, the web app and the
Python API accept the same names, paths and URLs.

Resolution order: ``vader``, ``textblob``; an ``http(s)://`` URL; ``python:module:function``; linguagym's
named language models and ``fewshot:MODEL`` (a language model prompted with examples); ``minilm-baseline``
(the model ``linguagym lct train-classifier`` writes); an existing directory (its config.json says whether
it is a sequence classifier or a causal LM) or ``.gguf`` file; anything else is a hub id of a sequence
classifier. The adapters import their heavy libraries (torch, transformers, the lexicons) only when they
load, so resolving a spec costs nothing it need not.
The result is not cached: wrap it in ``cache.CachedClassifier``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from linguagym import assets
from linguagym.capabilities.classifiers.base import Classifier, ClassifierError
from linguagym.capabilities.classifiers.fewshot import FewShotClassifier
from linguagym.capabilities.classifiers.hf import HFClassifier, looks_like_hub_id, read_model_config
from linguagym.capabilities.classifiers.http import HTTPClassifier
from linguagym.capabilities.classifiers.lexicons import TextBlobClassifier, VaderClassifier
from linguagym.capabilities.classifiers.python_callable import load_callable
from linguagym.capabilities.classifiers.train import default_output_dir
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.userfiles import probe

TRAIN_COMMAND = "linguagym lct train-classifier"


def describe_classifiers() -> list[tuple[str, str]]:
    """The accepted spec forms with a one-line description each, for help listings."""
    rows = [
        ("vader", "VADER lexicon and rules (compound >= 0.05 positive, <= -0.05 negative)"),
        ("textblob", "TextBlob pattern lexicon (polarity > 0 positive, < 0 negative, 0 neutral)"),
    ]
    rows += [(entry.name, f"few-shot prompted {entry.description}") for entry in assets.named_models()]
    rows += [
        ("fewshot:MODEL", "a causal LM (named model, directory, .gguf or hub id) prompted with labelled examples"),
        ("minilm-baseline", f"the MiniLM classifier trained offline (Rotten Tomatoes by default) by `{TRAIN_COMMAND}`"),
        ("DIRECTORY", "a local Hugging Face model: sequence classifier, or causal LM (few-shot)"),
        ("FILE.gguf", "a GGUF causal LM, prompted few-shot"),
        ("HUB_ID", "a Hugging Face hub sequence classifier, e.g. owner/model-name (downloaded once online)"),
        ("http(s)://URL", 'an HTTP endpoint answering POST {"texts": [...]} with one prediction per text'),
        ("python:module:function", "a Python function texts -> labels, p(positive) or probabilities"),
    ]
    return rows


CODE_PREFIX = "python:"


def normalise_spec(spec: object) -> str:
    """The spec as ``load_classifier`` reads it: surrounding whitespace of any kind (tabs, newlines, U+00A0)
    removed; "" for anything that is not text."""
    return spec.strip() if isinstance(spec, str) else ""


def runs_code(spec: object) -> bool:
    """Whether loading ``spec`` imports and runs Python code it names (``python:module:function``). Servers
    check this on the spec exactly as ``load_classifier`` will read it, so no spelling slips past."""
    return normalise_spec(spec).lower().startswith(CODE_PREFIX)


def _accepted() -> str:
    return "accepted forms: " + "; ".join(name for name, _ in describe_classifiers())


def _offline_choices() -> str:
    named = ", ".join(assets.NAMED_MODELS)
    return (
        f"offline, use vader, textblob, a named model ({named}), minilm-baseline (after `{TRAIN_COMMAND}`), "
        "a local model directory, a .gguf file, python:module:function or an http(s) URL"
    )


def load_classifier(
    spec: str,
    *,
    cache_dir: Path | None = None,
    device: str = "auto",
    batch_size: int | None = None,
    label_map: Mapping[str, str] | None = None,
    timeout: float | None = None,
    retries: int | None = None,
) -> Classifier:
    """The classifier ``spec`` names (see ``describe_classifiers``); nothing heavy is loaded yet.

    ``label_map`` (model label -> negative/neutral/positive) applies to Hugging Face classifiers, HTTP
    endpoints and Python functions, and is an error elsewhere; ``timeout`` and ``retries`` apply to HTTP
    endpoints, ``device`` to local models, ``batch_size`` to all but the lexicons; they are ignored where
    they do not apply.
    """
    text = normalise_spec(spec)
    if not text:
        raise ClassifierError(f"empty classifier spec {spec!r}", hint=_accepted())
    lowered = text.lower()
    if lowered in ("vader", "textblob"):
        _no_label_map(label_map, text)
        return VaderClassifier() if lowered == "vader" else TextBlobClassifier()
    if lowered.startswith(("http://", "https://")):
        return HTTPClassifier(text, batch_size=batch_size, timeout=timeout, retries=retries, label_map=label_map)
    if runs_code(text):
        return load_callable(text, batch_size=batch_size, label_map=label_map)
    if text in assets.NAMED_MODELS or lowered.startswith("fewshot:"):
        model = text.split(":", 1)[1].strip() if lowered.startswith("fewshot:") else text
        if not model:
            raise ClassifierError(f"classifier spec {spec!r} names no model", hint="fewshot:MODEL; " + _accepted())
        _no_label_map(label_map, text)
        return _fewshot(model, cache_dir=cache_dir, device=device, batch_size=batch_size)
    if lowered == "minilm-baseline":
        return _baseline(cache_dir=cache_dir, device=device, batch_size=batch_size, label_map=label_map)
    path = Path(text).expanduser()
    if probe(path, Path.is_dir):
        return _directory(path, cache_dir=cache_dir, device=device, batch_size=batch_size, label_map=label_map)
    if path.suffix.lower() == ".gguf":
        if not probe(path, Path.is_file):
            raise ClassifierError(f"GGUF file {str(path)!r} does not exist", hint="check the path; " + _accepted())
        _no_label_map(label_map, text)
        return _fewshot(text, cache_dir=cache_dir, device=device, batch_size=batch_size)
    if probe(path, Path.exists):
        raise ClassifierError(
            f"{text!r} is a file but not a classifier (expected a model directory or a .gguf file)", hint=_accepted()
        )

    if not looks_like_hub_id(text):
        raise ClassifierError(f"unknown classifier {text!r}", hint=_accepted())

    try:
        return HFClassifier(text, cache_dir=cache_dir, device=device, batch_size=batch_size, label_map=label_map)
    except ClassifierError as error:
        if error.hint and "online" in error.hint:  # not found locally: say what works without a network
            raise ClassifierError(error.message, hint=f"{error.hint}; {_offline_choices()}") from None
        raise


def _no_label_map(label_map: Mapping[str, str] | None, spec: str) -> None:
    if label_map is not None:
        raise ClassifierError(
            f"label_map does not apply to classifier {spec!r}, which already answers negative/neutral/positive",
            hint="leave label_map out; it is for Hugging Face classifiers, HTTP endpoints and Python functions",
        )


def _fewshot(model: str, *, cache_dir: Path | None, device: str, batch_size: int | None) -> Classifier:
    return FewShotClassifier(model, cache_dir=cache_dir, device=device, batch_size=batch_size)


def _baseline(
    *, cache_dir: Path | None, device: str, batch_size: int | None, label_map: Mapping[str, str] | None
) -> Classifier:
    directory = Path(default_output_dir(resolve_cache_dir(cache_dir)))
    weights = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
    if not (directory / "config.json").is_file() or not any((directory / name).is_file() for name in weights):
        raise ClassifierError(
            f"the minilm-baseline classifier has not been trained yet (no model in {directory})",
            hint=f"run `{TRAIN_COMMAND}` first (it writes the model there), or choose another classifier",
        )

    return HFClassifier(
        directory, cache_dir=cache_dir, device=device, batch_size=batch_size, label_map=label_map,
        name="minilm-baseline",
    )


def _directory(
    path: Path, *, cache_dir: Path | None, device: str, batch_size: int | None, label_map: Mapping[str, str] | None
) -> Classifier:
    config = read_model_config(path)
    architectures = [str(name) for name in config.get("architectures") or []]
    if any(name.endswith("ForSequenceClassification") for name in architectures):
        return HFClassifier(path, cache_dir=cache_dir, device=device, batch_size=batch_size, label_map=label_map)
    if any(name.endswith("ForCausalLM") or name.endswith("LMHeadModel") for name in architectures):
        _no_label_map(label_map, str(path))
        return _fewshot(str(path), cache_dir=cache_dir, device=device, batch_size=batch_size)
    raise ClassifierError(
        f"{path} holds a {', '.join(architectures) or 'model of unknown architecture'}, which is neither a "
        "sequence classifier nor a causal language model",
        hint="pass a directory whose config.json architectures end in ForSequenceClassification or ForCausalLM",
    )
