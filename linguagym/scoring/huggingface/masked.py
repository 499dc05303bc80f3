"""Masked language models scored by pseudo-log-likelihood (PLL).

``original`` (Salazar et al. 2020): token i is scored with only token i masked.
``within_word_l2r`` (Kauf & Ivanova 2023): token i is scored with token i and the later tokens of the same
word masked, so that a word split into pieces does not predict its own continuation.
All masked copies of all texts given to ``score`` are sorted by length and scored together, in batches of about
``batch_tokens`` tokens (padding included; default ``64 * batch_size``, at least 4096).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.scoring.engine import device as devices
from linguagym.scoring.engine.prefix import batches
from linguagym.scoring.huggingface.base import (
    Loaded,
    TokenizerAccess,
    batch_budget,
    encode,
    library_versions,
    load_hf,
    too_long,
)
from linguagym.scoring.huggingface.sources import ModelSource
from linguagym.scoring.protocol import ScoredText, ScorerBase, TokenScore

PLL_VARIANTS = ("original", "within_word_l2r")
LN2 = math.log(2.0)


@dataclass(frozen=True)
class _Wrapped:
    ids: list[int]  # with the model's special tokens ([CLS] ... [SEP])
    own: list[int]  # positions of the text's own tokens in ``ids``
    spans: list[tuple[int, int]]
    word_ids: list[int | None]  # per own token


def mask_plan(word_ids: Sequence[int | None], variant: str) -> list[list[int]]:
    """For each own token k, the own-token indices to mask when scoring it (k first)."""
    plan = []
    for k, word in enumerate(word_ids):
        masked = [k]
        if variant == "within_word_l2r" and word is not None:
            masked += [j for j in range(k + 1, len(word_ids)) if word_ids[j] == word]
        plan.append(masked)
    return plan


class MaskedScorer(TokenizerAccess, ScorerBase):
    counts_tokens = reports_progress = warms_up = True  # ScorerBase's optional members it has

    def __init__(
        self,
        source: ModelSource,
        *,
        pll: str = "original",
        dtype: str = "float32",
        device: str = "auto",
        batch_size: int = 16,
        batch_tokens: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        if pll not in PLL_VARIANTS:
            raise ConfigurationError(f"unknown PLL variant {pll!r}", hint="use one of " + ", ".join(PLL_VARIANTS))
        self.batch_tokens = batch_budget(batch_size, batch_tokens)
        self.source = source
        self.pll = pll
        self.dtype = devices.check_dtype(dtype)
        self.device = devices.probe_device(device)
        self.batch_size = batch_size
        self.progress = progress  # called with the number of text tokens done after each forward pass
        self._loaded: Loaded | None = None
        self._tokenizer: Any = None

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "kind": "masked",
            **self.source.identity(),
            "dtype": self.dtype,
            "device": self.device,
            "bos": "model-specials",  # the tokenizer's own [CLS]/[SEP] (or <s>/</s>) wrap every text
            "bos_token": None,
            "bos_token_id": None,
            "pll": self.pll,
            "versions": library_versions(),
        }

    @property
    def loaded(self) -> Loaded:
        if self._loaded is None:
            self._loaded = load_hf(
                self.source, masked=True, dtype=self.dtype, device=self.device, tokenizer=self._tokenizer
            )
            if self._loaded.tokenizer.mask_token_id is None:
                raise ConfigurationError(f"model {self.source.name!r} has no mask token, so it cannot do PLL")
        return self._loaded

    def warm_up(self) -> None:
        """Load the weights now instead of at the first ``score`` (a Ray worker loads before its first shard)."""
        _ = self.loaded  # the property loads them

    def _wrap(self, text: str) -> _Wrapped:
        tokenizer = self.loaded.tokenizer
        if getattr(tokenizer, "is_fast", False):
            enc = tokenizer(text, add_special_tokens=True, return_offsets_mapping=True, return_special_tokens_mask=True)
            own = [i for i, special in enumerate(enc["special_tokens_mask"]) if not special]
            words = enc.word_ids()
            return _Wrapped(
                list(enc["input_ids"]), own, [tuple(enc["offset_mapping"][i]) for i in own], [words[i] for i in own]
            )
        plain = encode(tokenizer, text)
        start = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
        end = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
        head = [start] if start is not None else []
        tail = [end] if end is not None else []
        own = list(range(len(head), len(head) + len(plain.ids)))
        return _Wrapped(head + plain.ids + tail, own, plain.spans, plain.word_ids)

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        texts = list(texts)
        if not texts:
            return []
        loaded = self.loaded
        wrapped = [self._wrap(text) for text in texts]
        for index, (text, w) in enumerate(zip(texts, wrapped, strict=True)):
            if loaded.max_length is not None and len(w.ids) > loaded.max_length:
                raise too_long(self.source, index, text, len(w.ids), loaded.max_length)
        # One copy per own token: (text index, own-token index, input ids with the plan's tokens masked).
        mask_id = loaded.tokenizer.mask_token_id
        copies: list[tuple[int, int, list[int]]] = []
        for t, w in enumerate(wrapped):
            for k, masked in enumerate(mask_plan(w.word_ids, self.pll)):
                ids = list(w.ids)
                for j in masked:
                    ids[w.own[j]] = mask_id
                copies.append((t, k, ids))
        values: list[list[float]] = [[0.0] * len(w.own) for w in wrapped]
        # Copies of all texts together, longest first, about batch_tokens tokens (padding included) a pass.
        for group in batches([len(c[2]) for c in copies], self.batch_tokens):
            batch = [copies[j] for j in group]
            positions = [wrapped[t].own[k] for t, k, _ in batch]
            targets = [wrapped[t].ids[p] for (t, _, _), p in zip(batch, positions, strict=True)]
            for (t, k, _), value in zip(batch, self._bits([c[2] for c in batch], positions, targets), strict=True):
                values[t][k] = value
            if self.progress is not None:
                self.progress(len(batch))
        unk = loaded.tokenizer.unk_token_id
        results = []
        for text, w, row in zip(texts, wrapped, values, strict=True):
            ids = [w.ids[p] for p in w.own]
            pieces = loaded.tokenizer.convert_ids_to_tokens(ids) if ids else []
            results.append(
                ScoredText(
                    text,
                    tuple(
                        TokenScore(str(piece), int(i), int(s), int(e), float(v), i == unk)
                        for piece, i, (s, e), v in zip(pieces, ids, w.spans, row, strict=True)
                    ),
                )
            )
        return results

    def _bits(self, sequences: list[list[int]], positions: list[int], targets: list[int]) -> list[float]:
        import torch

        loaded = self.loaded
        pad = loaded.tokenizer.pad_token_id if loaded.tokenizer.pad_token_id is not None else 0
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), pad, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = torch.tensor(sequence)
            mask[row, : len(sequence)] = 1
        rows = torch.arange(len(sequences))
        with torch.inference_mode(), devices.autocast(self.dtype, loaded.device):
            logits = loaded.model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device)).logits
            picked = logits[rows, torch.tensor(positions)].float()  # only the scored position of each copy
            logp = picked.log_softmax(-1)[rows, torch.tensor(targets)]
        return (-logp / LN2).cpu().tolist()
