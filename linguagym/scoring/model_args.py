"""``--model-args``: the keyword arguments of a Hugging Face model, parsed and checked in one place.

The syntax is lm-evaluation-harness's: ``key=value,key=value``, values ``true``/``false``, integers, floats or
strings (``revision=step1000,trust_remote_code=true,dtype=auto``). The command line parses the string; the
Python API takes a dict. Both become ``ModelArgs``, checked here (unknown keys, bad values, contradictions) before
any model is looked for. Where the files are (revision, subfolder, gguf_file, tokenizer, peft) is resolved in
``linguagym.scoring.huggingface.sources``; how the weights load (trust_remote_code, device_map, 8/4-bit) in
``linguagym.scoring.huggingface.base``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.extras import install_hint

ModelArgPairs = tuple[tuple[str, Any], ...]  # sorted (key, value) pairs: how RunSettings and ScorerSpec keep them

DTYPE_CHOICES = ("float32", "bfloat16", "float16", "bfloat16-mixed", "auto")
_BOOLEANS = {"true": True, "false": False}
_HELP = (
    "keys: revision, trust_remote_code, dtype (float32, bfloat16, float16, bfloat16-mixed, auto), device_map (auto, "
    "cpu, cuda, cuda:N, balanced, sequential), parallelize, load_in_8bit, load_in_4bit, peft, subfolder, gguf_file, "
    "tokenizer, native (false: score every model through transformers' own model code)"
)


@dataclass(frozen=True)
class ModelArgs:
    """The model arguments linguagym understands, checked. ``parallelize=true`` arrives as ``device_map='auto'``."""

    revision: str | None = None  # a hub branch, tag or commit (as in id@revision)
    trust_remote_code: bool = False  # run the modelling code the repository ships (its own architectures)
    dtype: str | None = None  # float32, bfloat16, float16, bfloat16-mixed, or auto: the checkpoint's own torch_dtype
    device_map: str | None = None  # spread the layers over devices (accelerate); "auto" fills GPUs, then CPU
    load_in_8bit: bool = False  # bitsandbytes quantisation
    load_in_4bit: bool = False
    peft: str | None = None  # a PEFT adapter (a directory or hub id) loaded over the base model
    subfolder: str | None = None  # the model's files are in this folder of the repository or directory
    gguf_file: str | None = None  # a .gguf file inside the repository or directory
    tokenizer: str | None = None  # another tokenizer (a directory or hub id) instead of the model's own
    native: bool = True  # the causal scorer runs plain Llama checkpoints in its own decoder; false: transformers'

    @property
    def quantization(self) -> str | None:
        return "8bit" if self.load_in_8bit else "4bit" if self.load_in_4bit else None

    def pairs(self) -> ModelArgPairs:
        """The arguments that differ from the defaults, as sorted (key, value) pairs."""
        defaults = ModelArgs()
        return tuple(sorted((f.name, getattr(self, f.name)) for f in fields(self)
                            if getattr(self, f.name) != getattr(defaults, f.name)))


_KINDS: dict[str, type] = {f.name: (bool if f.type == "bool" else str) for f in fields(ModelArgs)}
_KINDS["parallelize"] = bool  # lm-evaluation-harness's spelling of device_map="auto"


def parse_model_args(text: str) -> dict[str, Any]:
    """``key=value,key=value`` as a dict of typed values (``true``/``false``, ints, floats, strings), not yet
    checked against the known keys (``model_args`` does that). An empty string is no arguments. (Values cannot
    hold a comma, as in lm-evaluation-harness.)"""
    found: dict[str, Any] = {}
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        key, equals, value = piece.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key:
            raise ConfigurationError(
                f"model argument {piece!r} is not key=value",
                hint="write `model_args` as key=value,key=value; " + _HELP, settings=["model_args"])
        if key in found:
            raise ConfigurationError(f"model argument {key!r} is given twice in {text!r}", hint="give each key once")
        # A known key whose value is text keeps it as written (revision=1e3 is a branch, not 1000.0).
        found[key] = value if _KINDS.get(key) is str else _typed(value)
    return found


def _typed(value: str) -> Any:
    if value.lower() in _BOOLEANS:
        return _BOOLEANS[value.lower()]
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def model_args(given: ModelArgs | Mapping[str, Any] | ModelArgPairs | str | None) -> ModelArgs:
    """Checked ``ModelArgs`` from a dict, sorted pairs, a ``key=value,...`` string or None (no arguments).

    Contradictions are refused here: ``parallelize`` with another ``device_map``, 8-bit with 4-bit, quantising
    a GGUF file. (``revision`` against ``id@revision`` and ``dtype`` against ``--dtype`` are checked where both
    are known: ``sources.resolve_source`` and ``effective_dtype``.)"""
    if isinstance(given, ModelArgs):
        return given
    if given is None:
        return ModelArgs()
    if isinstance(given, str):
        given = parse_model_args(given)
    items = dict(given)
    checked: dict[str, Any] = {}
    for key, value in items.items():
        if key == "pretrained":  # lm-evaluation-harness names the model here; linguagym takes it from --model
            raise ConfigurationError("model argument pretrained= is not taken: the model is what `model` names",
                                     hint=f"give `model` {value} and leave pretrained= out of `model_args`",
                                     settings=["model", "model_args"])
        if key not in _KINDS:
            import difflib  # only for this message: off the start-up path of every command

            close = difflib.get_close_matches(str(key), _KINDS, n=1)
            raise ConfigurationError(
                f"unknown model argument {key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""), hint=_HELP
            )
        checked[key] = _checked_value(key, value)
    if checked.pop("parallelize", False):
        if checked.get("device_map", "auto") != "auto":
            raise ConfigurationError(
                f"model arguments parallelize=true and device_map={checked['device_map']} contradict each other",
                hint="parallelize=true means device_map=auto: give one of them",
            )
        checked["device_map"] = "auto"
    args = ModelArgs(**checked)
    if args.load_in_8bit and args.load_in_4bit:
        raise ConfigurationError("model arguments load_in_8bit and load_in_4bit are both true", hint="choose one")
    if args.gguf_file and args.quantization:
        raise ConfigurationError(
            f"load_in_{args.quantization[0]}bit cannot quantise gguf_file={args.gguf_file}: a GGUF file is "
            "de-quantised when it loads", hint="drop load_in_8bit/load_in_4bit, or load a checkpoint that is not GGUF"
        )
    return args


def _checked_value(key: str, value: Any) -> Any:
    kind = _KINDS[key]
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigurationError(f"model argument {key}={value!r} is not true or false", hint=f"write {key}=true")
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigurationError(f"model argument {key}={value!r} must be a string", hint=_HELP)
    value = str(value).strip()  # revision=1000 arrives as an int: a branch or tag named "1000"
    if not value:
        raise ConfigurationError(f"model argument {key} is empty", hint=f"give a value ({key}=...) or leave it out")
    if key == "dtype" and value not in DTYPE_CHOICES:
        raise ConfigurationError(f"model argument dtype={value} is unknown",
                                 hint="use one of " + ", ".join(DTYPE_CHOICES))
    if key == "device_map" and value not in ("auto", "balanced", "balanced_low_0", "sequential", "cpu", "mps") \
            and not value.startswith("cuda"):
        raise ConfigurationError(
            f"model argument device_map={value} is not a device map linguagym can pass on",
            hint="use auto, balanced, balanced_low_0, sequential, cpu, mps, cuda or cuda:N",
        )
    return value


def model_arg_pairs(given: ModelArgs | Mapping[str, Any] | ModelArgPairs | str | None) -> ModelArgPairs:
    """The checked, sorted (key, value) pairs a frozen settings object keeps (hashable, picklable)."""
    return model_args(given).pairs()


def effective_dtype(dtype: str, args: ModelArgs) -> str:
    """The dtype to load with: ``dtype`` (``--dtype``), unless the model arguments name one. A ``--dtype`` other
    than the default float32 that disagrees with ``dtype=`` in the model arguments is refused (neither wins
    silently). May be ``auto`` (the checkpoint's own, resolved by the source)."""
    if args.dtype is None or args.dtype == dtype:
        return dtype
    if dtype != "float32":
        raise ConfigurationError(
            f"dtype is given twice: `dtype` {dtype} and model argument dtype={args.dtype}",
            hint="give it once (`dtype`, or dtype= in `model_args`)", settings=["dtype", "model_args"],
        )
    return args.dtype


def require_library(module: str, wanted_by: str) -> None:
    """A ConfigurationError naming ``pip install`` when ``module`` cannot be imported (checked without importing
    it, before any work starts)."""
    if importlib.util.find_spec(module) is None:
        raise ConfigurationError(
            f"model argument {wanted_by} needs the {module} package, which is not installed",
            hint=install_hint("peft") if module == "peft" else f"pip install {module}",  # bitsandbytes: no extra
        )
