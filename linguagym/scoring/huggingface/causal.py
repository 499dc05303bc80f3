"""Causal (left-to-right) language models from Hugging Face: surprisal of each token given its prefix."""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Sequence
from typing import Any

from linguagym.scoring.engine import device as devices
from linguagym.scoring.engine.prefix import batches, supports_tree, tree_scores
from linguagym.scoring.engine.prefix import start_bias as prefix_start_bias
from linguagym.scoring.engine.shared_work import encode_texts
from linguagym.scoring.huggingface.base import Encoded, Loaded, batch_budget, encode_many, library_versions, too_long
from linguagym.scoring.huggingface.causal_lm import CausalLM
from linguagym.scoring.huggingface.sources import ModelSource
from linguagym.scoring.protocol import ScoredText, ScorerBase, TokenScore, maybe_held

LN2 = math.log(2.0)


class CausalScorer(ScorerBase):
    """Scores texts with a causal LM; the weights load on the first ``score`` call, not before.

    ``bos``: ``auto`` (the model's BOS token, else its EOS; a named model may fix its own), ``none`` (no start
    token: the first token gets surprisal 0, as lm-zoo does) or a token string of the vocabulary. The model
    and its start token are a ``CausalLM`` handle (``self.lm``); ``CausalScorer.on`` scores with one already
    open, sharing its weights.

    Each forward pass holds about ``batch_tokens`` tokens, padding included (default: ``64 * batch_size``, at
    least 4096).
    With ``prefix_sharing`` (the default) texts are packed into prefix trees so that a token prefix shared by
    several texts is computed once (see ``linguagym.scoring.engine.prefix``); models outside its list, or with it
    off, are scored in plain length-sorted batches. Both give the same numbers within float rounding.
    ``progress``, if set, is called with the number of text tokens scored after each forward pass.

    ``bow_correction`` (minicons' name): word-boundary correction. Each token's value becomes its surprisal plus
    the boundary term after it minus the one before it, the boundary term being -log2 of the probability that the
    next token begins a word (``word_starts``; 0 at the text's start, where every token begins one). Summed over a
    region or a word the inner terms cancel, leaving -log2 p(the tokens, then a word start) + log2 p(a word start
    before them): the probability of the words themselves under a tokenizer whose tokens carry their leading space
    (Pimentel & Meister 2024). docs/scoring.md, "Word-boundary correction".
    """

    counts_tokens = reports_progress = warms_up = True  # ScorerBase's optional members it has

    def __init__(
        self,
        source: ModelSource,
        *,
        bos: str = "auto",
        dtype: str = "float32",
        device: str = "auto",
        batch_size: int = 16,
        batch_tokens: int | None = None,
        prefix_sharing: bool = True,
        progress: Callable[[int], None] | None = None,
        bow_correction: bool = False,
    ) -> None:
        self.batch_tokens = batch_budget(batch_size, batch_tokens)
        self.bow_correction = bool(bow_correction)
        self._word_starts: list[int] | None = None
        self.lm = CausalLM(source, bos=bos, dtype=dtype, device=device, native=True)
        self.owns_lm = True  # False for a scorer made ``on`` a shared lm
        self.batch_size = batch_size
        self.prefix_sharing = prefix_sharing
        self.progress = progress

    @classmethod
    def on(
        cls,
        lm: CausalLM,
        *,
        batch_size: int = 16,
        batch_tokens: int | None = None,
        prefix_sharing: bool = True,
        progress: Callable[[int], None] | None = None,
        bow_correction: bool = False,
    ) -> CausalScorer:
        """A scorer running ``lm`` (its start token, dtype and device), which others may use too."""
        scorer = cls(lm.source, bos=lm.bos_policy, dtype=lm.dtype, device=lm.device, batch_size=batch_size,
                     batch_tokens=batch_tokens, prefix_sharing=prefix_sharing, progress=progress,
                     bow_correction=bow_correction)
        scorer.lm = lm  # shared: its weights load once for every user
        scorer.owns_lm = False
        return scorer

    @property
    def source(self) -> ModelSource:
        return self.lm.source

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "kind": "causal",
            **self.lm.identity,
            "bos": self.lm.bos_policy,
            "pll": None,
            # only when on, so that the identity (and the score cache) of uncorrected scores stays what it was
            **({"bow_correction": WORD_STARTS_RULE} if self.bow_correction else {}),
            "versions": library_versions(),
        }

    def word_starts(self) -> list[int]:
        """The ids that begin a word (``word_starts.word_start_ids``), found once: what ``bow_correction`` sums."""
        if self._word_starts is None:
            from linguagym.scoring.engine.word_starts import word_start_ids

            eos = self.source.specials.eos
            vocab = int(self.loaded.model.get_output_embeddings().weight.shape[0])
            self._word_starts = word_start_ids(self.lm.encoder, vocab, ends=(None if eos is None else eos[1],
                                                                             self.lm.bos_token_id),
                                               name=repr(self.source.name))
        return self._word_starts

    @property
    def loaded(self) -> Loaded:
        return self.lm.loaded

    @property
    def is_loaded(self) -> bool:
        return self.lm.is_loaded

    def warm_up(self) -> None:
        """Load the weights now instead of at the first ``score`` (a Ray worker loads before its first shard)."""
        self.lm.warm_up()

    def unload(self) -> Callable[[], bool]:
        """Let the weights go (``release_scorer``), unless ``lm`` is shared (``on``): its other users keep it."""
        return self.lm.unload() if self.owns_lm else maybe_held

    @property
    def tokenizer(self) -> Any:
        """transformers' tokenizer alone (no weights loaded). The scorer itself encodes with ``lm.encoder``."""
        return self.lm.tokenizer

    def count_tokens(self, texts: Sequence[str]) -> int:
        """How many tokens scoring the unique ``texts`` computes surprisals for (start and special tokens not
        counted): the unit of ``progress``."""
        return self.lm.count_tokens(texts)

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        texts = list(texts)
        if not texts:
            return []
        # Scoring allocates hundreds of thousands of small objects (encodings, token scores) and creates no
        # reference cycles: the cyclic collector, run again and again over them, took a third of the host's time
        # (0.17 of 0.5 s for the 34 suites), which on a GPU is most of a run.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._score(texts)
        finally:
            if enabled:
                gc.enable()

    def _score(self, texts: list[str]) -> list[ScoredText]:
        with devices.autocast(self.lm.dtype, self.loaded.device):  # bfloat16-mixed: matrix products in bfloat16
            return self._score_texts(texts)

    def _score_texts(self, texts: list[str]) -> list[ScoredText]:
        loaded = self.loaded
        prefix = self.lm.start_ids
        encoder = self.lm.encoder
        encoded = encode_texts(self.source, texts, lambda batch: encode_many(encoder, batch))  # shared_work
        for index, (text, enc) in enumerate(zip(texts, encoded, strict=True)):
            length = len(prefix) + len(enc.ids)
            if loaded.max_length is not None and length > loaded.max_length:
                raise too_long(self.source, index, text, length, loaded.max_length)
        surprisals: list[list[float]] = [[] for _ in texts]
        # With the correction, the distribution after each text's last token is needed too: a token appended to
        # each sequence makes the pass compute it (that token's own surprisal is dropped).
        correct = self.bow_correction
        after = [0] if correct else []
        # Identical texts are scored once; a text needs the model when some token of it is predicted.
        first: dict[str, int] = {}
        todo: list[int] = []
        done = 0
        for i, text in enumerate(texts):
            if text in first or not encoded[i].ids:
                continue
            first[text] = i
            if len(prefix) + len(encoded[i].ids) + len(after) >= 2:
                todo.append(i)
            else:  # one token and no start token: nothing predicts it
                surprisals[i] = [0.0]
                done += 1
        if done and self.progress is not None:
            self.progress(done)
        sequences = [prefix + encoded[i].ids + after for i in todo]
        counted = [len(encoded[i].ids) for i in todo]
        word_starts = self.word_starts() if correct and todo else None
        rows: list[list[float]] = [[] for _ in todo]
        bounds: list[list[float]] | None = [[] for _ in todo] if correct else None
        if not todo:
            pass
        elif self.prefix_sharing and supports_tree(loaded.model, max(len(s) for s in sequences)):
            rows, bounds = tree_scores(
                loaded.model,
                loaded.device,
                sequences,
                row_tokens=min(256, self.batch_tokens),
                batch_tokens=self.batch_tokens,
                progress=self.progress,
                counted=counted,
                word_starts=word_starts,
            )
        else:
            start_bias = None if word_starts is None else prefix_start_bias(
                word_starts, int(loaded.model.get_output_embeddings().weight.shape[0]), loaded.device)
            for group in batches([len(s) - 1 for s in sequences], self.batch_tokens):
                found, found_bounds = self._surprisals([sequences[j] for j in group], start_bias)
                for k, j in enumerate(group):
                    rows[j] = found[k]
                    if bounds is not None and found_bounds is not None:
                        bounds[j] = found_bounds[k]
                if self.progress is not None:
                    self.progress(sum(counted[j] for j in group))
        for k, (i, row) in enumerate(zip(todo, rows, strict=True)):
            values = row[: len(row) - len(after)] if prefix else [0.0, *row[: len(row) - len(after)]]
            if bounds is not None:
                values = corrected(values, bounds[k][len(prefix) : len(prefix) + len(values)])
            surprisals[i] = values
        for i, text in enumerate(texts):
            if text in first and first[text] != i:
                surprisals[i] = surprisals[first[text]]
        return _scored(texts, encoded, surprisals, encoder)

    def _surprisals(self, sequences: list[list[int]], start_bias: Any = None
                    ) -> tuple[list[list[float]], list[list[float]] | None]:
        """Plain batched scoring: the surprisal of each token after the first, right padding; with ``start_bias``,
        the boundary term after each token but the last (see ``tree_scores``)."""
        import torch

        loaded = self.loaded
        # A sequence's last token predicts nothing: it is a target only, never an input.
        width = max(len(s) for s in sequences) - 1
        ids = torch.zeros((len(sequences), width), dtype=torch.long)
        targets = torch.zeros((len(sequences), width), dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, sequence in enumerate(sequences):  # right padding: a causal model never sees it
            ids[row, : len(sequence) - 1] = torch.tensor(sequence[:-1])
            targets[row, : len(sequence) - 1] = torch.tensor(sequence[1:])
            mask[row, : len(sequence) - 1] = 1
        with torch.inference_mode():
            logits = loaded.model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device)).logits
            # log p(next) in float32 whatever the weights' dtype: logit - logsumexp(logits).
            logits = logits.float()
            norm = torch.logsumexp(logits, dim=-1)
            logp = logits.gather(-1, targets.to(loaded.device).unsqueeze(-1)).squeeze(-1) - norm
            bits = (-logp / LN2).cpu().tolist()
            starts = None if start_bias is None else ((norm - torch.logsumexp(logits + start_bias, dim=-1)) / LN2)
        rows = [row[: len(sequence) - 1] for row, sequence in zip(bits, sequences, strict=True)]
        if starts is None:
            return rows, None
        return rows, [row[: len(sequence) - 1] for row, sequence in zip(starts.cpu().tolist(), sequences,
                                                                         strict=True)]


# What the identity records of the correction: the boundary set's rule, so that a change of rule is a new cache.
WORD_STARTS_RULE = "space-or-punctuation-or-eos/1"


def corrected(surprisals: list[float], bounds: list[float]) -> list[float]:
    """Each token's surprisal plus the boundary term after it, minus the one after the token before it (0 at the
    text's start): sums over consecutive tokens telescope to the word-boundary-corrected value."""
    values, before = [], 0.0
    for value, after in zip(surprisals, bounds, strict=True):
        values.append(value + after - before)
        before = after
    return values


def _scored(
    texts: list[str], encoded: list[Encoded], surprisals: list[list[float]], tokenizer: Any
) -> list[ScoredText]:
    """The scored texts: each token's piece (one ``convert_ids_to_tokens`` call for all texts), id, span and value."""
    unk = tokenizer.unk_token_id
    pieces = iter(tokenizer.convert_ids_to_tokens([token_id for enc in encoded for token_id in enc.ids]))
    return [
        ScoredText(text, tuple(
            TokenScore.made(str(next(pieces)), token_id, start, end, value, token_id == unk)
            for token_id, (start, end), value in zip(enc.ids, enc.spans, row, strict=True)
        ))
        for text, enc, row in zip(texts, encoded, surprisals, strict=True)
    ]
