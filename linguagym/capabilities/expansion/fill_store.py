"""The causal filler's work kept on disk: a ``lct generate`` that stops resumes where it stopped, and a run with
other settings (another LC, other test types, more fills a mask) reuses every left context and window it shares
with an earlier one. Two kinds of entry, under ``<cache>/fills/``:

- the ranked next words after a left context (the indices into the filler's word pools and their log2 p, as the
  float32 tensors the model gave), keyed by the context's text, the model's identity, how many are kept, and a
  fingerprint of the word pools the indices point into;
- the token surprisals of a scored window ((start, bits) per token), keyed by the window's text and the model's
  identity (its source and weights, dtype, device, start token: ``CausalScorer.identity``).

The values are the floats computed, so a fill served from here is the fill that was computed. Storage is
``entrystore``'s: checksummed entries, a damaged file rebuilt, a cache that cannot be written warns once and the
run goes on with what it computes.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from linguagym.entrystore import EntryStore, resolve_cache_dir

FORMAT = 1  # raise when an entry's meaning changes: old entries are then never read
KIND = "fills"  # the directory and table under the cache: never rename it
Window = tuple[tuple[int, float], ...]  # (start, surprisal in bits) of each token of a window


def pools_fingerprint(spaced: Sequence[str], bare: Sequence[str]) -> str:
    """What the ranked indices point into: the words after a space and the capitalised words without one."""
    return hashlib.sha256(("\n".join(spaced) + "\0" + "\n".join(bare)).encode()).hexdigest()[:32]


class FillStore:
    """The filler's entries for one model (``scorer_identity``) under ``cache_dir`` (default: the user cache); its
    contexts keep the ``top`` best words, indices into the pools ``pools`` (``pools_fingerprint``) names."""

    def __init__(self, scorer_identity: Mapping[str, Any], cache_dir: Path | None = None, *, top: int,
                 pools: str) -> None:
        self.cache_dir = resolve_cache_dir(cache_dir)
        base = {"format": FORMAT, "scorer": dict(scorer_identity)}
        self._windows = EntryStore.under(self.cache_dir, KIND, {**base, "entries": "window surprisals"},
                                         what="fill cache")
        self._contexts = EntryStore.under(self.cache_dir, KIND, {**base, "entries": "ranked next words",
                                                                 "top": top, "pools": pools}, what="fill cache")

    @property
    def path(self) -> Path:
        """The directory of the filler's cache files."""
        return self.cache_dir / KIND

    def windows(self, texts: Iterable[str]) -> dict[str, Window]:
        """The windows among ``texts`` found on disk."""
        return self._windows.lookup(texts, _window)[0]

    def keep_windows(self, scored: Mapping[str, Window]) -> None:
        self._windows.put({"text": text, "starts": [start for start, _ in values],
                           "bits": [bits for _, bits in values]} for text, values in scored.items())

    def contexts(self, texts: Iterable[str]) -> dict[str, tuple[Any, Any]]:
        """The ranked next words (int32 indices, float32 log2 p) of the contexts among ``texts`` found on disk."""
        return self._contexts.lookup(texts, _ranked)[0]

    def keep_contexts(self, ranked: Mapping[str, tuple[Any, Any]]) -> None:
        self._contexts.put({"text": text, "indices": _bytes(indices), "logp": _bytes(values)}
                           for text, (indices, values) in ranked.items())

    def close(self) -> None:
        self._windows.close()
        self._contexts.close()


def _window(entry: dict[str, Any]) -> Window:
    starts, bits = entry["starts"], entry["bits"]
    if len(starts) != len(bits):
        raise ValueError("starts and bits differ in length")
    return tuple((int(start), float(value)) for start, value in zip(starts, bits, strict=True))


def _bytes(tensor: Any) -> str:
    return base64.b64encode(tensor.contiguous().numpy().tobytes()).decode("ascii")


def _ranked(entry: dict[str, Any]) -> tuple[Any, Any]:
    import torch

    indices = torch.frombuffer(bytearray(base64.b64decode(entry["indices"])), dtype=torch.int32)
    values = torch.frombuffer(bytearray(base64.b64decode(entry["logp"])), dtype=torch.float32)
    if len(indices) != len(values):
        raise ValueError("indices and values differ in length")
    return indices, values
