"""Work that the models of one run share: the tokenizer and the token ids of its texts (models whose tokenizer files
are the same) and the prefix trees packed from them (the same token ids).

A training-dynamics run scores tens of checkpoints of one model: every checkpoint has the same tokenizer, so the
same texts give the same token ids and the same prefix trees. ``run_models`` opens ``sharing_work()`` around its
model loop; inside it, the causal and masked scorers take encodings and packings from here instead of computing
them again (counting the tokens of a run before it scores also reuses them). Outside it nothing is kept, so a
long-lived process (the web app) keeps nothing between runs. What is kept is exact: an encoding is reused only
under the same tokenizer key (the sha256 of the tokenizer's files), a packing only for the same token ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from linguagym.scoring.huggingface.sources import ModelSource

T = TypeVar("T")
# Files that decide how a directory's tokenizer splits text (config.json: AutoTokenizer may pick the class from it).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "vocab.json", "merges.txt", "vocab.txt", "tokenizer.model", "spiece.model",
                   "sentencepiece.bpe.model", "config.json")
MAX_PACKINGS = 4096  # packed chunks kept per run (a 34-suite run packs 12): a bound, not a tuning knob


class SharedWork:
    """Encodings of the latest tokenizer (one at a time: checkpoints come in a row) and prefix-tree packings."""

    def __init__(self) -> None:
        self.tokenizer_key: str | None = None
        self.encodings: dict[str, Any] = {}  # text -> its encoding under ``tokenizer_key``
        self.loaded_tokenizers: dict[str, Any] = {}  # kind -> the tokenizer of ``tokenizer_key``, once loaded
        self.packings: dict[tuple[int, tuple[tuple[int, ...], ...]], Any] = {}
        self.encoded = 0  # texts encoded (not found here): what tests and benchmarks count
        self.reused = 0  # encodings found here

    def _use(self, key: str) -> None:
        if key != self.tokenizer_key:  # another tokenizer: the old one and its encodings are of no more use
            self.tokenizer_key, self.encodings, self.loaded_tokenizers = key, {}, {}

    def tokenizer(self, key: str, kind: str, load: Callable[[], Any]) -> Any:
        self._use(key)
        if kind not in self.loaded_tokenizers:
            self.loaded_tokenizers[kind] = load()
        return self.loaded_tokenizers[kind]

    def encode(self, key: str, texts: Sequence[str], encode_all: Callable[[Sequence[str]], list[T]]) -> list[T]:
        self._use(key)
        missing = list(dict.fromkeys(text for text in texts if text not in self.encodings))
        self.encodings.update(zip(missing, encode_all(missing), strict=True))
        self.encoded += len(missing)
        self.reused += len(texts) - len(missing)
        return [self.encodings[text] for text in texts]

    def pack(self, sequences: Sequence[Sequence[int]], row_tokens: int, build: Callable[[], T]) -> T:
        key = (row_tokens, tuple(tuple(s) for s in sequences))
        packing = self.packings.get(key)
        if packing is None:
            if len(self.packings) >= MAX_PACKINGS:
                self.packings.clear()
            packing = self.packings[key] = build()
        return packing


_current: ContextVar[SharedWork | None] = ContextVar("linguagym_shared_work", default=None)


@contextmanager
def sharing_work() -> Iterator[SharedWork]:
    """Share encodings and packings between the scorers used inside (in this thread); nested, the outer one is
    kept."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    shared = SharedWork()
    token = _current.set(shared)
    try:
        yield shared
    finally:
        _current.reset(token)


def _sharing(source: ModelSource) -> tuple[SharedWork, str] | None:
    """The run's shared work and ``source``'s tokenizer key, or None where nothing is shared (outside
    ``sharing_work``, or a tokenizer that files cannot tell)."""
    shared = _current.get()
    key = tokenizer_key(source) if shared is not None else None
    return None if shared is None or key is None else (shared, key)


def encode_texts(source: ModelSource, texts: Sequence[str], encode_all: Callable[[Sequence[str]], list[T]]) -> list[T]:
    """``encode_all(texts)`` (one encoding per text), reused from an earlier model of the run with the same
    tokenizer files."""
    found = _sharing(source)
    return encode_all(texts) if found is None else found[0].encode(found[1], texts, encode_all)


def load_tokenizer_once(source: ModelSource, kind: str, load: Callable[[], Any]) -> Any:
    """``load()`` (``source``'s tokenizer of ``kind``: transformers' or the scorer's reader of tokenizer.json), or
    the one an earlier model of the run with the same tokenizer files loaded (0.1-0.2 s a checkpoint). Only read by
    its users: they encode without truncation or padding, which would change a fast tokenizer's settings in place."""
    found = _sharing(source)
    return load() if found is None else found[0].tokenizer(found[1], kind, load)


def pack_once(sequences: Sequence[Sequence[int]], row_tokens: int, build: Callable[[], T]) -> T:
    """``build()`` (the packing of ``sequences`` into prefix trees), reused when the run packed these ids before.
    The packing is read, never changed, by its users."""
    shared = _current.get()
    return build() if shared is None else shared.pack(sequences, row_tokens, build)


_file_digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256: a tokenizer.json is hashed once


def tokenizer_key(source: ModelSource) -> str | None:
    """The sha256 of the files that decide how ``source`` tokenises, or None where it cannot be told from files
    (a GGUF file's own vocabulary; remote code, which may tokenise as it likes)."""
    if source.args.trust_remote_code:
        return None
    directory, gguf_file = source.tokenizer_files()
    if gguf_file:
        return None
    digest = hashlib.sha256()
    for name in TOKENIZER_FILES:
        path = Path(directory) / name
        if path.is_file():
            digest.update(f"{name}\0{_file_digest(path)}\0".encode())
    return digest.hexdigest()


def _file_digest(path: Path) -> str:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    found = _file_digests.get(key)
    if found is None:
        found = _file_digests[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found
