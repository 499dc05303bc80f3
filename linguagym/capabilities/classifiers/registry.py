"""``load_classifier``: one entry point from a spec string to a classifier, so that the CLI, the web app and the
Python API accept the same names, paths and URLs.

Specs are resolved by a table of ``linguagym.plugins.Adapter`` rows (``classifier_adapters``), tried in order:
plug-ins registered in the entry point group ``linguagym.classifiers``; then ``vader``, ``textblob``; an
``http(s)://`` URL; ``python:module:function``; linguagym's named language models and ``fewshot:MODEL`` (a
language model prompted with examples); ``minilm-baseline`` (the model ``linguagym lct train-classifier``
writes); an existing directory (its config.json says whether it is a sequence classifier or a causal LM) or
``.gguf`` file; anything else is a hub id of a sequence classifier. The same rows describe the forms
(``describe_classifiers``: the web's menu, ``linguagym models --forms``, error hints). The adapters import
their heavy libraries (torch, transformers, the lexicons) only when they load, so resolving a spec costs
nothing it need not.
The result is not cached: wrap it in ``cache.CachedClassifier``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from linguagym import assets, plugins
from linguagym.capabilities.classifiers.base import Classifier, ClassifierError
from linguagym.capabilities.classifiers.fewshot import FewShotClassifier
from linguagym.capabilities.classifiers.hf import HFClassifier, looks_like_hub_id, read_model_config
from linguagym.capabilities.classifiers.http import HTTPClassifier
from linguagym.capabilities.classifiers.lexicons import TextBlobClassifier, VaderClassifier
from linguagym.capabilities.classifiers.python_callable import load_callable
from linguagym.capabilities.classifiers.train import default_output_dir
from linguagym.plugins import Adapter
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.userfiles import probe

TRAIN_COMMAND = "linguagym lct train-classifier"
CODE_PREFIX = "python:"


@dataclass(frozen=True)
class LoaderOptions:
    """``load_classifier``'s options as a loader receives them (see ``load_classifier``); a loader reads those
    that apply to it. ``label_map`` is a plain dict (model label -> negative/neutral/positive) or None."""

    cache_dir: Path | None = None
    device: str = "auto"
    batch_size: int | None = None
    label_map: Mapping[str, str] | None = None
    timeout: float | None = None
    retries: int | None = None


ClassifierAdapter = Adapter[Classifier, LoaderOptions]


def classifier_adapters() -> list[ClassifierAdapter]:
    """Every row ``load_classifier`` tries, in order: plug-ins, then linguagym's own."""
    return [*plugins.plugin_adapters(plugins.CLASSIFIERS), *builtin_classifiers()]


def builtin_classifiers() -> list[ClassifierAdapter]:
    named = [Adapter(entry.name, f"few-shot prompted {entry.description}", _is(entry.name), _named)
             for entry in assets.named_models()]
    return [
        Adapter("vader", "VADER lexicon and rules (compound >= 0.05 positive, <= -0.05 negative)",
                plugins.exactly("vader"), _vader),
        Adapter("textblob", "TextBlob pattern lexicon (polarity > 0 positive, < 0 negative, 0 neutral)",
                plugins.exactly("textblob"), _textblob),
        Adapter("http(s)://URL", 'an HTTP endpoint answering POST {"texts": [...]} with one prediction per text',
                plugins.prefix("http://", "https://"), _http),
        Adapter("python:module:function", "a Python function texts -> labels, p(positive) or probabilities",
                runs_code, _python),
        *named,
        Adapter("fewshot:MODEL", "a causal LM (named model, directory, .gguf or hub id) prompted with labelled "
                "examples", plugins.prefix("fewshot:"), _prompted),
        Adapter("minilm-baseline", "the MiniLM classifier trained offline (Rotten Tomatoes by default) by "
                f"`{TRAIN_COMMAND}`", plugins.exactly("minilm-baseline"), _baseline),
        Adapter("DIRECTORY", "a local Hugging Face model: sequence classifier, or causal LM (few-shot)",
                lambda spec: probe(Path(spec).expanduser(), Path.is_dir), _directory),
        Adapter("FILE.gguf", "a GGUF causal LM, prompted few-shot",
                lambda spec: Path(spec).expanduser().suffix.lower() == ".gguf", _gguf),
        Adapter("HUB_ID", "a Hugging Face hub sequence classifier, e.g. owner/model-name (downloaded once online)",
                plugins.anything, _hub),
    ]


def describe_classifiers() -> list[tuple[str, str]]:
    """The accepted spec forms with a one-line description each, for help listings."""
    return plugins.describe(classifier_adapters())


def _is(name: str) -> Callable[[str], bool]:
    return lambda spec: spec == name  # named models are matched as spelled


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
    options = LoaderOptions(cache_dir=cache_dir, device=device, batch_size=batch_size, label_map=label_map,
                            timeout=timeout, retries=retries)
    return plugins.load(classifier_adapters(), text, options)


def _vader(spec: str, options: LoaderOptions) -> Classifier:
    _no_label_map(options.label_map, spec)
    return VaderClassifier()


def _textblob(spec: str, options: LoaderOptions) -> Classifier:
    _no_label_map(options.label_map, spec)
    return TextBlobClassifier()


def _http(spec: str, options: LoaderOptions) -> Classifier:
    return HTTPClassifier(spec, batch_size=options.batch_size, timeout=options.timeout, retries=options.retries,
                          label_map=options.label_map)


def _python(spec: str, options: LoaderOptions) -> Classifier:
    return load_callable(spec, batch_size=options.batch_size, label_map=options.label_map)


def _named(spec: str, options: LoaderOptions) -> Classifier:
    _no_label_map(options.label_map, spec)
    return _fewshot(spec, options)


def _prompted(spec: str, options: LoaderOptions) -> Classifier:
    model = spec.split(":", 1)[1].strip()
    if not model:
        raise ClassifierError(f"classifier spec {spec!r} names no model", hint="fewshot:MODEL; " + _accepted())
    _no_label_map(options.label_map, spec)
    return _fewshot(model, options)


def _gguf(spec: str, options: LoaderOptions) -> Classifier:
    path = Path(spec).expanduser()
    if not probe(path, Path.is_file):
        raise ClassifierError(f"GGUF file {str(path)!r} does not exist", hint="check the path; " + _accepted())
    _no_label_map(options.label_map, spec)
    return _fewshot(spec, options)


def _hub(spec: str, options: LoaderOptions) -> Classifier:
    if probe(Path(spec).expanduser(), Path.exists):
        raise ClassifierError(
            f"{spec!r} is a file but not a classifier (expected a model directory or a .gguf file)", hint=_accepted()
        )
    if not looks_like_hub_id(spec):
        raise ClassifierError(f"unknown classifier {spec!r}", hint=_accepted())
    try:
        return HFClassifier(spec, cache_dir=options.cache_dir, device=options.device, batch_size=options.batch_size,
                            label_map=options.label_map)
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


def _fewshot(model: str, options: LoaderOptions) -> Classifier:
    return FewShotClassifier(model, cache_dir=options.cache_dir, device=options.device,
                             batch_size=options.batch_size)


def _baseline(spec: str, options: LoaderOptions) -> Classifier:
    directory = Path(default_output_dir(resolve_cache_dir(options.cache_dir)))
    weights = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
    if not (directory / "config.json").is_file() or not any((directory / name).is_file() for name in weights):
        raise ClassifierError(
            f"the minilm-baseline classifier has not been trained yet (no model in {directory})",
            hint=f"run `{TRAIN_COMMAND}` first (it writes the model there), or choose another classifier",
        )

    return HFClassifier(
        directory, cache_dir=options.cache_dir, device=options.device, batch_size=options.batch_size,
        label_map=options.label_map, name="minilm-baseline",
    )


def _directory(spec: str, options: LoaderOptions) -> Classifier:
    path = Path(spec).expanduser()
    config = read_model_config(path)
    architectures = [str(name) for name in config.get("architectures") or []]
    if any(name.endswith("ForSequenceClassification") for name in architectures):
        return HFClassifier(path, cache_dir=options.cache_dir, device=options.device, batch_size=options.batch_size,
                            label_map=options.label_map)
    if any(name.endswith("ForCausalLM") or name.endswith("LMHeadModel") for name in architectures):
        _no_label_map(options.label_map, str(path))
        return _fewshot(str(path), options)
    raise ClassifierError(
        f"{path} holds a {', '.join(architectures) or 'model of unknown architecture'}, which is neither a "
        "sequence classifier nor a causal language model",
        hint="pass a directory whose config.json architectures end in ForSequenceClassification or ForCausalLM",
    )
