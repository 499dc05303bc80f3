"""Causal (left-to-right) language models from Hugging Face: surprisal of each token given its prefix."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.scoring import device as devices
from linguagym.scoring.hf_base import Encoded, Loaded, encode, library_versions, load_hf, resolve_bos, too_long
from linguagym.scoring.protocol import ScoredText, TokenScore
from linguagym.scoring.sources import ModelSource

LN2 = math.log(2.0)


class CausalScorer:
    """Scores texts with a causal LM; the weights load on the first ``score`` call, not before.

    ``bos``: ``auto`` (the model's BOS token, else its EOS; a named model may fix its own), ``none`` (no start
    token: the first token gets surprisal 0, as lm-zoo does) or a token string of the vocabulary.
    """

    def __init__(
        self,
        source: ModelSource,
        *,
        bos: str = "auto",
        dtype: str = "float32",
        device: str = "auto",
        batch_size: int = 16,
    ) -> None:
        if batch_size < 1:
            raise ConfigurationError(f"batch_size must be at least 1, not {batch_size}")
        self.source = source
        self.bos_policy = bos
        self.dtype = devices.check_dtype(dtype)
        self.device = devices.probe_device(device)
        self.batch_size = batch_size
        self.bos_token, self.bos_token_id = resolve_bos(bos, source)
        self._loaded: Loaded | None = None

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "kind": "causal",
            **self.source.identity(),
            "dtype": self.dtype,
            "device": self.device,
            "bos": self.bos_policy,
            "bos_token": self.bos_token,
            "bos_token_id": self.bos_token_id,
            "pll": None,
            "versions": library_versions(),
        }

    @property
    def loaded(self) -> Loaded:
        if self._loaded is None:
            self._loaded = load_hf(self.source, masked=False, dtype=self.dtype, device=self.device)
            if self.bos_token is not None and self.source.kind != "named":
                found = self._loaded.tokenizer.convert_tokens_to_ids(self.bos_token)
                if found != self.bos_token_id:  # files disagree with what identity promised
                    raise ConfigurationError(
                        f"start token {self.bos_token!r} has id {found} in the loaded tokenizer of "
                        f"{self.source.name!r}, but its files declare {self.bos_token_id}",
                        hint="pass bos='none' or an explicit token",
                    )
        return self._loaded

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        texts = list(texts)
        if not texts:
            return []
        loaded = self.loaded
        prefix = [] if self.bos_token_id is None else [self.bos_token_id]
        encoded = [encode(loaded.tokenizer, text) for text in texts]
        for index, (text, enc) in enumerate(zip(texts, encoded, strict=True)):
            length = len(prefix) + len(enc.ids)
            if loaded.max_length is not None and length > loaded.max_length:
                raise too_long(self.source, index, text, length, loaded.max_length)
        surprisals: list[list[float]] = [[] for _ in texts]
        # Longest first, so each batch holds similar lengths and padding stays small.
        order = sorted((i for i in range(len(texts)) if encoded[i].ids), key=lambda i: -len(encoded[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            rows = self._surprisals([prefix + encoded[i].ids for i in batch], has_prefix=bool(prefix))
            for i, row in zip(batch, rows, strict=True):
                surprisals[i] = row
        unk = loaded.tokenizer.unk_token_id
        return [
            _scored(text, enc, row, loaded.tokenizer, unk)
            for text, enc, row in zip(texts, encoded, surprisals, strict=True)
        ]

    def _surprisals(self, sequences: list[list[int]], *, has_prefix: bool) -> list[list[float]]:
        import torch

        loaded = self.loaded
        width = max(len(s) for s in sequences)
        ids = torch.zeros((len(sequences), width), dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, sequence in enumerate(sequences):  # right padding: a causal model never sees it
            ids[row, : len(sequence)] = torch.tensor(sequence)
            mask[row, : len(sequence)] = 1
        with torch.inference_mode():
            logits = loaded.model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device)).logits[:, :-1]
            # log p(next) in float32 whatever the weights' dtype: logit - logsumexp(logits).
            logits = logits.float()
            targets = ids[:, 1:].to(loaded.device).unsqueeze(-1)
            logp = logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)
            bits = (-logp / LN2).cpu().tolist()
        result = []
        for row, sequence in zip(bits, sequences, strict=True):
            predicted = row[: len(sequence) - 1]
            result.append(predicted if has_prefix else [0.0, *predicted])
        return result


def _scored(text: str, enc: Encoded, row: list[float], tokenizer: Any, unk: int | None) -> ScoredText:
    pieces = tokenizer.convert_ids_to_tokens(enc.ids) if enc.ids else []
    return ScoredText(
        text,
        tuple(
            TokenScore(str(piece), int(token_id), int(start), int(end), float(value), token_id == unk)
            for piece, token_id, (start, end), value in zip(pieces, enc.ids, enc.spans, row, strict=True)
        ),
    )
