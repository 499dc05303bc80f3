"""Where a model's files are and what identifies them, found without importing torch or loading weights.

A model string is a named model (see ``linguagym.assets``), a ``.gguf`` file, a local directory, or a hub id.
Model arguments (``linguagym.scoring.model_args``) may pick a revision, a subfolder, a GGUF file in a repository,
another tokenizer and a PEFT adapter; all of them are resolved here, and each is part of the identity.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from linguagym import assets
from linguagym.errors import ConfigurationError
from linguagym.hashing import HashMemo
from linguagym.scoring.engine.device import DTYPES
from linguagym.scoring.huggingface.hub import (
    TOKENIZER_PATTERNS,
    fetch_model_snapshot,
    fetch_snapshot,
    in_subfolder,
    split_hub_id,
)
from linguagym.scoring.model_args import ModelArgs, require_library
from linguagym.userfiles import probe

MASKED_MODEL_TYPES = {
    "bert",
    "roberta",
    "xlm-roberta",
    "distilbert",
    "albert",
    "camembert",
    "electra",
    "deberta",
    "deberta-v2",
    "mpnet",
    "modernbert",
    "ernie",
    "xlm",
    "flaubert",
    "megatron-bert",
    "rembert",
}
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.json", "vocab.txt", "tokenizer.model")


@dataclass(frozen=True)
class Specials:
    """The start/end/unknown tokens a model's tokenizer files declare, and a token-to-id lookup."""

    bos: tuple[str, int] | None
    eos: tuple[str, int] | None
    unk_id: int | None
    lookup: Callable[[str], int | None] = field(repr=False, compare=False)


@dataclass
class ModelSource:
    name: str  # what the user asked for
    kind: str  # "named" | "gguf" | "directory" | "hub"
    location: str  # hub id, directory or gguf path, or the named model's package source
    revision: str  # hub commit, content sha256, or the pinned sha256 of a named model's gguf
    masked: bool
    _files: Callable[[], tuple[Path, str | None]] = field(repr=False)
    _specials: Callable[[], Specials] = field(repr=False)
    args: ModelArgs = field(default_factory=ModelArgs)  # how the weights load (hf_base reads them)
    tokenizer_source: Attached | None = None  # model argument tokenizer=: another tokenizer's files
    adapter: Attached | None = None  # model argument peft=: an adapter loaded over the weights
    config_dtype: str | None = None  # config.json's torch_dtype: what dtype=auto loads

    def files(self) -> tuple[Path, str | None]:
        """The directory to pass to ``from_pretrained`` and the ``gguf_file`` name, fetching if needed."""
        return self._files()

    def tokenizer_files(self) -> tuple[Path, str | None]:
        """Where the tokenizer is: another tokenizer's directory (model argument ``tokenizer``), else the model's."""
        if self.tokenizer_source is not None:
            return self.tokenizer_source.directory, None
        directory, gguf_file = self.files()
        if self.args.subfolder and not gguf_file and not _has_tokenizer(directory) and _has_tokenizer(
                directory.parent):
            return directory.parent, None  # weights in a subfolder, the tokenizer at the top (a common layout)
        return directory, gguf_file

    @cached_property
    def specials(self) -> Specials:
        return self._specials()

    def checkpoint_dtype(self) -> str:
        """What ``dtype=auto`` loads: config.json's ``torch_dtype`` (float32 when it names none, as transformers
        does; float32 for GGUF files, which are de-quantised to it)."""
        declared = self.config_dtype or "float32"
        if declared not in DTYPES:
            raise ConfigurationError(
                f"model {self.name!r} declares torch_dtype {declared!r}, which linguagym does not load",
                hint="pass dtype=" + " or dtype=".join(DTYPES) + " instead of dtype=auto",
            )
        return declared

    def identity(self) -> dict[str, Any]:
        """What picks these weights and this tokenizer. Model arguments appear only when given, so a model
        without them keeps the identity (and the score cache) it always had."""
        found: dict[str, Any] = {
            "model": self.name, "source_kind": self.kind, "source": self.location, "revision": self.revision
        }
        # Each of these picks other files or other arithmetic, so other numbers:
        if self.args.subfolder:
            found["subfolder"] = self.args.subfolder
        if self.args.gguf_file:
            found["gguf_file"] = self.args.gguf_file
        if self.tokenizer_source is not None:
            found["tokenizer"] = self.tokenizer_source.identity()
        if self.adapter is not None:
            found["peft"] = self.adapter.identity()  # its revision: hub commit or sha256 of its files
        if self.args.quantization:
            found["quantization"] = {"method": "bitsandbytes", "bits": self.args.quantization,
                                     "bitsandbytes": _version("bitsandbytes")}
        if self.args.trust_remote_code:
            # The repository's own modelling code runs: it is pinned by ``revision`` (the hub commit, or the
            # sha256 of the directory's files, its .py files included), so the flag itself is what is added.
            found["trust_remote_code"] = True
        # Not recorded: device_map. It only places the same layers, in the same dtype, on devices; accelerate
        # runs layers kept on the CPU or disk on the execution device, so the arithmetic does not change (no
        # more than ``device``, which is recorded, says). The requested dtype is not recorded here either: the
        # scorer records the dtype it loads (dtype=auto resolved), which is what changes the numbers.
        return found


@dataclass(frozen=True)
class Attached:
    """Files a model uses besides its own: another tokenizer, or a PEFT adapter, resolved like a model."""

    given: str  # what the user wrote
    kind: str  # "directory" | "hub"
    location: str  # the directory's absolute path, or the hub id
    revision: str  # sha256 of the directory's files, or the hub commit
    directory: Path

    def identity(self) -> dict[str, Any]:
        return {"source_kind": self.kind, "source": self.location, "revision": self.revision}


def _has_tokenizer(directory: Path) -> bool:
    return any((directory / name).is_file() for name in _TOKENIZER_FILES)


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


def resolve_source(model: str, cache_dir: Path, args: ModelArgs | None = None) -> ModelSource:
    """Find ``model`` (with the files its model arguments pick) and what identifies it; a ConfigurationError
    when it cannot be found, or when an argument does not apply to this kind of model."""
    args = args or ModelArgs()
    if args.peft:
        require_library("peft", f"peft={args.peft}")
    if args.quantization:
        require_library("bitsandbytes", f"load_in_{args.quantization[0]}bit=true")
    memo = HashMemo(cache_dir / "hashes.json")
    source = _find(model, cache_dir, args, memo)
    source.args = args
    if args.tokenizer:
        source.tokenizer_source = _attached(args.tokenizer, memo, TOKENIZER_PATTERNS, "tokenizer")
        source._specials = lambda: tokenizer_specials(source.tokenizer_files()[0])
    if args.peft:
        adapter = _attached(args.peft, memo, [*TOKENIZER_PATTERNS, "*.safetensors", "adapter_model*.bin"], "peft")
        if not (adapter.directory / "adapter_config.json").is_file():
            raise ConfigurationError(
                f"peft={args.peft}: {adapter.directory} has no adapter_config.json, so it is not a PEFT adapter",
                hint="pass the directory that PeftModel.save_pretrained wrote, or the adapter's hub id",
            )
        source.adapter = adapter
    return source


def _find(model: str, cache_dir: Path, args: ModelArgs, memo: HashMemo) -> ModelSource:
    if model in assets.NAMED_MODELS:
        _refuse(args, model, "a named model", "revision", "subfolder", "gguf_file")
        return _named(model, cache_dir)
    path = Path(model).expanduser()
    if path.suffix.lower() == ".gguf":
        _refuse(args, model, "a .gguf file", "revision", "subfolder", "gguf_file")
        if not probe(path, Path.is_file):
            raise ConfigurationError(
                f"GGUF model file {str(path)[:300]!r} does not exist", hint="check the path, or give a hub id"
            )
        return _gguf(model, path, memo)
    if probe(path, Path.is_dir):  # (a name too long to be a file is not one: no OSError)
        _refuse(args, model, "a local directory", "revision")
        folder = _subfolder(path, args.subfolder, model)
        if args.gguf_file:
            found = folder / args.gguf_file
            if not found.is_file():
                raise ConfigurationError(f"gguf_file={args.gguf_file}: {found} does not exist",
                                         hint="give the name of a .gguf file in the model's directory")
            return _gguf(model, found, memo)
        return _directory(model, folder, model, memo.directory(folder), "directory")
    if probe(path, Path.exists):
        raise ConfigurationError(
            f"{model!r} is a file but not a model: expected a directory, a .gguf or a .tsv file",
            hint="pass a Hugging Face model directory (with config.json), a .gguf file or an lm-zoo .tsv",
        )
    repo_id, revision = split_hub_id(model, args.revision)
    if args.gguf_file:
        wanted = [*TOKENIZER_PATTERNS, in_subfolder(args.subfolder, args.gguf_file)]
        snapshot = fetch_snapshot(repo_id, revision, wanted)
        folder = _subfolder(snapshot, args.subfolder, model)
        gguf_path = folder / args.gguf_file
        if not gguf_path.is_file():
            raise ConfigurationError(f"gguf_file={args.gguf_file} is not in {repo_id} at {snapshot.name}",
                                     hint="give the name of a .gguf file of the repository (see its file list)")
        return ModelSource(model, "hub", repo_id, snapshot.name, False, lambda: (folder, args.gguf_file),
                           lambda: gguf_specials(gguf_path))
    snapshot = fetch_model_snapshot(repo_id, revision, args)
    return _directory(model, _subfolder(snapshot, args.subfolder, model), repo_id, snapshot.name, "hub")


def _refuse(args: ModelArgs, model: str, what: str, *keys: str) -> None:
    given = [key for key in keys if getattr(args, key)]
    if given:
        raise ConfigurationError(
            f"model argument {given[0]}= does not apply to {model!r}, which is {what}",
            hint="revision, subfolder and gguf_file pick files of a hub repository (subfolder and gguf_file also of "
            "a local directory); leave them out here",
        )


def _subfolder(directory: Path, subfolder: str | None, model: str) -> Path:
    if not subfolder:
        return directory
    parts = Path(subfolder).parts
    if Path(subfolder).is_absolute() or ".." in parts:
        raise ConfigurationError(f"subfolder={subfolder} must be a folder inside the model, not {subfolder!r}",
                                 hint="give a relative path such as subfolder=step1000")
    folder = directory / subfolder
    if not folder.is_dir():
        raise ConfigurationError(f"model {model!r} has no subfolder {subfolder!r}",
                                 hint="check the name against the repository's (or directory's) folders")
    return folder


def _attached(given: str, memo: HashMemo, patterns: list[str], key: str) -> Attached:
    """Another tokenizer or an adapter: a local directory, or a hub id (id@revision) fetched like a model."""
    path = Path(given).expanduser()
    if path.is_dir():
        return Attached(given, "directory", str(path.resolve()), memo.directory(path), path)
    if path.exists() or given.startswith((".", "/", "~")):
        raise ConfigurationError(f"{key}={given}: not a directory", hint=f"give {key}= a directory or a hub id")
    try:
        repo_id, revision = split_hub_id(given, None)
    except ConfigurationError:
        raise ConfigurationError(f"{key}={given} is neither a directory nor a hub id",
                                 hint=f"give {key}= an existing directory, a hub id or hub-id@revision") from None
    snapshot = fetch_snapshot(repo_id, revision, patterns)
    return Attached(given, "hub", repo_id, snapshot.name, snapshot)


def _named(name: str, cache_dir: Path) -> ModelSource:
    entry = assets.NAMED_MODELS[name]

    def files() -> tuple[Path, str | None]:
        return assets.fetch_named_model(name, cache_dir), None

    def specials() -> Specials:
        return tokenizer_specials(files()[0])

    return ModelSource(name, "named", entry.source, entry.sha256, False, files, specials)


def _gguf(name: str, path: Path, memo: HashMemo) -> ModelSource:
    path = path.resolve()
    return ModelSource(
        name,
        "gguf",
        str(path),
        memo.file(path),
        False,
        lambda: (path.parent, path.name),
        lambda: gguf_specials(path),
    )


def _directory(name: str, path: Path, location: str, revision: str, kind: str) -> ModelSource:
    config = read_config(path)
    if kind == "directory":
        location = str(path.resolve())
    source = ModelSource(
        name,
        kind,
        location,
        revision,
        is_masked(config),
        lambda: (path, None),
        lambda: tokenizer_specials(source.tokenizer_files()[0]),
    )
    dtype = config.get("torch_dtype") or config.get("dtype")  # transformers 5 writes "dtype"
    source.config_dtype = dtype if isinstance(dtype, str) else None
    return source


def read_config(directory: Path) -> dict[str, Any]:
    config_path = directory / "config.json"
    if not config_path.is_file():
        raise ConfigurationError(
            f"{directory} has no config.json, so it is not a Hugging Face model directory",
            hint="pass the directory that save_pretrained wrote, or a .gguf file",
        )
    try:
        return dict(json.loads(config_path.read_text(encoding="utf-8")))
    except ValueError as error:
        raise ConfigurationError(f"{config_path}: not valid JSON ({error})") from None


def is_masked(config: dict[str, Any]) -> bool:
    architectures = config.get("architectures") or []
    if architectures:
        return any(str(a).endswith("ForMaskedLM") for a in architectures)
    return config.get("model_type") in MASKED_MODEL_TYPES


def token_content(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def tokenizer_specials(directory: Path) -> Specials:
    """Specials from tokenizer_config.json / special_tokens_map.json and ids from tokenizer.json."""
    declared: dict[str, Any] = {}
    for name in ("special_tokens_map.json", "tokenizer_config.json"):
        path = directory / name
        if path.is_file():
            with contextlib.suppress(ValueError):
                declared.update(json.loads(path.read_text(encoding="utf-8")))
    config = read_config(directory) if (directory / "config.json").is_file() else {}
    lookup: Callable[[str], int | None] = lambda token: None  # noqa: E731
    if (directory / "tokenizer.json").is_file():
        from tokenizers import Tokenizer  # no torch needed

        backend = Tokenizer.from_file(str(directory / "tokenizer.json"))
        lookup = backend.token_to_id
    else:
        vocab = directory / "vocab.txt"
        if vocab.is_file():
            ids = {line.rstrip("\n"): i for i, line in enumerate(vocab.read_text(encoding="utf-8").splitlines())}
            lookup = ids.get

    def pair(key: str) -> tuple[str, int] | None:
        token = token_content(declared.get(f"{key}_token"))
        token_id = lookup(token) if token is not None else None
        if token_id is None and isinstance(config.get(f"{key}_token_id"), int):
            token_id = config[f"{key}_token_id"]
        if token_id is None:
            return None
        return (token if token is not None else f"<id {token_id}>"), int(token_id)

    unk = token_content(declared.get("unk_token"))
    return Specials(pair("bos"), pair("eos"), lookup(unk) if unk else None, lookup)


def gguf_specials(path: Path) -> Specials:
    import gguf  # numpy only; memory-maps the file

    reader = gguf.GGUFReader(str(path))
    tokens_field = reader.fields.get("tokenizer.ggml.tokens")

    def token_at(index: int) -> str:
        if tokens_field is None:
            return f"<id {index}>"
        return bytes(tokens_field.parts[tokens_field.data[index]]).decode("utf-8", errors="replace")

    def special(key: str) -> int | None:
        found = reader.fields.get(f"tokenizer.ggml.{key}_token_id")
        return int(found.contents()) if found is not None else None

    def lookup(token: str) -> int | None:
        if tokens_field is None:
            return None
        table = {t: i for i, t in enumerate(tokens_field.contents())}  # slow (seconds): explicit tokens only
        return table.get(token)

    bos, eos = special("bos"), special("eos")
    return Specials(
        (token_at(bos), bos) if bos is not None else None,
        (token_at(eos), eos) if eos is not None else None,
        special("unknown"),
        lookup,
    )
