"""Where a model's files are and what identifies them, found without importing torch or loading weights.

A model string is a named model (see ``linguagym.assets``), a ``.gguf`` file, a local directory, or a hub id.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from linguagym import assets
from linguagym.errors import ConfigurationError
from linguagym.hashing import HashMemo

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
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_REVISION = re.compile(r"^[\w.-]+(/[\w.-]+)*$")  # a branch (step1000, refs/pr/1), tag or commit


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

    def files(self) -> tuple[Path, str | None]:
        """The directory to pass to ``from_pretrained`` and the ``gguf_file`` name, fetching if needed."""
        return self._files()

    @cached_property
    def specials(self) -> Specials:
        return self._specials()

    def identity(self) -> dict[str, Any]:
        return {"model": self.name, "source_kind": self.kind, "source": self.location, "revision": self.revision}


def resolve_source(model: str, cache_dir: Path) -> ModelSource:
    """Find ``model`` and what identifies it; a ConfigurationError when it cannot be found."""
    memo = HashMemo(cache_dir / "hashes.json")
    if model in assets.NAMED_MODELS:
        return _named(model, cache_dir)
    path = Path(model).expanduser()
    if path.suffix.lower() == ".gguf":
        if not path.is_file():
            raise ConfigurationError(
                f"GGUF model file {str(path)!r} does not exist", hint="check the path, or give a hub id"
            )
        return _gguf(model, path, memo)
    if path.is_dir():
        return _directory(model, path, model, memo.directory(path), "directory")
    if path.exists():
        raise ConfigurationError(
            f"{model!r} is a file but not a model: expected a directory, a .gguf or a .tsv file",
            hint="pass a Hugging Face model directory (with config.json), a .gguf file or an lm-zoo .tsv",
        )
    repo_id, at, revision = model.partition("@")  # id@revision: one checkpoint (a branch, tag or commit)
    bad_revision = at and (not _REVISION.match(revision) or {".", ".."} & set(revision.split("/")))
    if not _HUB_ID.match(repo_id) or model.startswith((".", "/", "~")) or bad_revision:
        raise ConfigurationError(
            f"model {model!r} is not a named model, an existing path or a hub id",
            hint="named models: " + ", ".join(assets.NAMED_MODELS) + "; or give a local directory, a hub id, "
            "or hub-id@revision for one checkpoint (EleutherAI/pythia-160m@step1000)",
        )
    directory = _hub_snapshot(repo_id, revision or None)
    return _directory(model, directory, repo_id, directory.name, "hub")


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
    return ModelSource(
        name,
        kind,
        location,
        revision,
        is_masked(config),
        lambda: (path, None),
        lambda: tokenizer_specials(path),
    )


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


def _hub_snapshot(repo_id: str, revision: str | None = None) -> Path:
    """The local snapshot of a hub model at ``revision`` (default: main); downloads it when online. Its folder
    name is the commit."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:  # pragma: no cover - transformers depends on it
        raise ConfigurationError("huggingface_hub is not installed", hint="pip install huggingface_hub") from None
    patterns = ["*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "vocab*", "merges*"]
    try:
        return Path(snapshot_download(repo_id, revision=revision, local_files_only=True, allow_patterns=patterns))
    except Exception:  # noqa: BLE001 - any failure here means "not cached"; go online below if allowed
        pass
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    shown = f"{repo_id}@{revision}" if revision else repo_id
    hint = (
        f"run once online (without HF_HUB_OFFLINE) to download {shown}, or pass a local directory "
        f"(e.g. one written by save_pretrained), a .gguf file, or a named model ({', '.join(assets.NAMED_MODELS)})"
    )
    if offline:
        raise ConfigurationError(
            f"model {shown!r} is not in the Hugging Face cache and HF_HUB_OFFLINE is set", hint=hint
        )
    try:
        return Path(snapshot_download(repo_id, revision=revision, allow_patterns=patterns))
    except Exception as error:  # noqa: BLE001 - network, auth, missing repo: all reported the same way
        raise ConfigurationError(
            f"could not download model {shown!r} from the Hugging Face hub "
            f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})",
            hint=hint,
        ) from None


def _token_content(value: Any) -> str | None:
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
        token = _token_content(declared.get(f"{key}_token"))
        token_id = lookup(token) if token is not None else None
        if token_id is None and isinstance(config.get(f"{key}_token_id"), int):
            token_id = config[f"{key}_token_id"]
        if token_id is None:
            return None
        return (token if token is not None else f"<id {token_id}>"), int(token_id)

    unk = _token_content(declared.get("unk_token"))
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
