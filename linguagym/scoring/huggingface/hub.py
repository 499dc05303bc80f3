"""Hub repositories: an id and its revision checked, and the snapshot of the files a model needs, from the Hugging
Face cache or downloaded (without importing torch)."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from pathlib import Path

from linguagym import assets
from linguagym.errors import ConfigurationError
from linguagym.progress import stage
from linguagym.scoring.model_args import ModelArgs

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_REVISION = re.compile(r"^[\w.-]+(/[\w.-]+)*$")  # a branch (step1000, refs/pr/1), tag or commit
TOKENIZER_PATTERNS = ["*.json", "*.model", "*.txt", "*.tiktoken", "vocab*", "merges*"]  # config and tokenizer


def split_hub_id(model: str, revision_arg: str | None) -> tuple[str, str | None]:
    """The hub id and revision of ``id`` or ``id@revision``; the revision may come from the model arguments
    instead, but not from both unless they agree."""
    repo_id, at, revision = model.partition("@")  # id@revision: one checkpoint (a branch, tag or commit)
    if at and revision_arg and revision_arg != revision:
        raise ConfigurationError(
            f"model {model!r} names revision {revision!r} and the model arguments revision={revision_arg}",
            hint="give the revision once: either id@revision or revision= in the model arguments",
        )
    revision = revision or revision_arg or ""
    bad_revision = (at or revision_arg) and (not _REVISION.match(revision) or {".", ".."} & set(revision.split("/")))
    if not _HUB_ID.match(repo_id) or model.startswith((".", "/", "~")) or bad_revision:
        raise ConfigurationError(
            f"model {model!r} is not a named model, an existing path or a hub id"
            + (f" (revision {revision!r})" if revision_arg and bad_revision else ""),
            hint="named models: " + ", ".join(assets.NAMED_MODELS) + "; or give a local directory, a hub id, "
            "or hub-id@revision for one checkpoint (EleutherAI/pythia-160m@step1000)",
        )
    return repo_id, revision or None


def in_subfolder(subfolder: str | None, pattern: str) -> str:
    return f"{subfolder.strip('/')}/{pattern}" if subfolder else pattern


def fetch_model_snapshot(repo_id: str, revision: str | None, args: ModelArgs) -> Path:
    """The snapshot holding the model's config, tokenizer and weights: safetensors where the repository has them,
    else ``pytorch_model*.bin`` (older checkpoints ship only those; transformers loads them with torch.load)."""
    base = [*TOKENIZER_PATTERNS, *(["*.py"] if args.trust_remote_code else [])]  # remote code: its .py files
    safetensors = [*base, in_subfolder(args.subfolder, "*.safetensors")]
    pickled = [*base, in_subfolder(args.subfolder, "pytorch_model*.bin")]

    def weights(snapshot: Path, pattern: str) -> bool:
        return any((snapshot / (args.subfolder or "")).glob(pattern))

    def code(snapshot: Path) -> bool:  # a snapshot fetched before without trust_remote_code lacks the .py files
        config = snapshot / (args.subfolder or "") / "config.json"
        needs = args.trust_remote_code and config.is_file() and '"auto_map"' in config.read_text(encoding="utf-8")
        return not needs or any(snapshot.rglob("*.py"))

    snapshot = fetch_snapshot(repo_id, revision, safetensors, lambda s: code(s) and (
        weights(s, "*.safetensors") or weights(s, "pytorch_model*.bin")))
    if weights(snapshot, "*.safetensors") or weights(snapshot, "pytorch_model*.bin"):
        return snapshot
    return fetch_snapshot(repo_id, revision, pickled, lambda s: weights(s, "pytorch_model*.bin"))


def fetch_snapshot(
    repo_id: str, revision: str | None, patterns: list[str], complete: Callable[[Path], bool] = lambda _: True
) -> Path:
    """The local snapshot of a hub repository at ``revision`` (default: main) with the files ``patterns`` match;
    downloads them when online and the cached snapshot is not ``complete``. Its folder name is the commit."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:  # pragma: no cover - transformers depends on it
        raise ConfigurationError("huggingface_hub is not installed", hint="pip install huggingface_hub") from None
    cached: Path | None = None
    # any failure here means "not cached"; go online below if allowed
    with contextlib.suppress(Exception):
        cached = Path(snapshot_download(repo_id, revision=revision, local_files_only=True, allow_patterns=patterns))
    if cached is not None and complete(cached):
        return cached
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    if cached is not None and offline:
        return cached  # what is there; loading says which file is missing
    shown = f"{repo_id}@{revision}" if revision else repo_id
    hint = (
        f"run once online (without HF_HUB_OFFLINE) to download {shown}, or pass a local directory "
        f"(e.g. one written by save_pretrained), a .gguf file, or a named model ({', '.join(assets.NAMED_MODELS)})"
    )
    if offline:
        raise ConfigurationError(
            f"model {shown!r} is not in the Hugging Face cache and HF_HUB_OFFLINE is set", hint=hint
        )
    endpoint = hub_endpoint()
    if not reachable(endpoint):  # before the hub client, which retries for many seconds holding a web request
        raise ConfigurationError(f"model {shown!r} is not in the Hugging Face cache and the hub ({endpoint}) "
                                 f"cannot be reached from here", hint=hint)
    stage(f"downloading {shown} from the Hugging Face hub")
    try:
        return Path(snapshot_download(repo_id, revision=revision, allow_patterns=patterns))
    except Exception as error:  # noqa: BLE001 - network, auth, missing repo: all reported the same way
        raise ConfigurationError(
            f"could not download model {shown!r} from the Hugging Face hub "
            f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})",
            hint=hint,
        ) from None


PROBE_SECONDS = 3.0  # a connection to the hub taking longer than this counts as no connection
_reachable: dict[str, tuple[float, bool]] = {}  # endpoint -> (when probed, answer), kept for a minute


def hub_endpoint() -> str:
    """The hub's address: ``$HF_ENDPOINT`` (a mirror) where set, else huggingface.co."""
    return os.environ.get("HF_ENDPOINT", "").strip().rstrip("/") or "https://huggingface.co"


def reachable(endpoint: str) -> bool:
    """Whether a TCP connection to ``endpoint``'s host opens within ``PROBE_SECONDS`` (remembered a minute)."""
    import socket
    import time
    from urllib.parse import urlsplit

    now = time.monotonic()
    known = _reachable.get(endpoint)
    if known is not None and now - known[0] < 60:
        return known[1]
    parts = urlsplit(endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=PROBE_SECONDS):
            answer = True
    except (OSError, ValueError):
        answer = False
    _reachable[endpoint] = (now, answer)
    return answer
