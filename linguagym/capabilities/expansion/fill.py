"""Fill-in models: words for the masks of a masked sentence, each candidate with a confidence (log2).

- ``CausalFiller`` (the offline default, a named causal LM such as ``smollm2-135m``): for each mask, left to
  right, a pool of the model's most probable next words after the left context (single-token words only; the
  best ``beam`` partial fills carried between masks); then every candidate of the pool that the caller's
  ``keep`` accepts is re-ranked by whole-sentence probability, which is what sees the words to the right of the
  mask. Confidence:
  ``log2 P(filled sentence) - log2 P(seed sentence)`` (how much less likely the insertion makes the sentence).
  The model sees a window of the seed around its masks. All of a ``fill`` call's work is batched: the left
  contexts of every mask and beam go through the model in one set of prefix trees (``next_words``; the masks of
  a seed share most of their contexts), every candidate window is re-ranked in one scorer call (prefix trees
  again: the candidates of a mask share its left context, each candidate and the words after it is a branch),
  and contexts and windows already computed are kept for later calls (another capability's copy of a seed).
  The numbers are those of each window computed alone, up to float rounding (``tests/capabilities/test_fill.py``).
  With ``disk_cache`` the contexts and windows are also kept on disk (``fill_store``): a run that stops resumes,
  and a later run reuses what it shares with this one (``lct generate`` turns it on).
- ``MaskedLMFiller`` (any BERT-class masked LM by hub id or directory): the masks become the model's mask
  token, filled left to right with whole-word vocabulary entries. Confidence: ``sum log2 p(word | context)``.

``load_filler`` picks one from a model string through a table of ``linguagym.plugins.Adapter`` rows
(``filler_adapters``): plug-ins of the entry point group ``linguagym.fillers`` first, then ``masked:MODEL``, or
any model by its kind (a masked LM fills masks itself; a causal LM through ``CausalFiller``); precomputed
surprisals (``.tsv``) cannot fill. A filler's optional members (``close``, ``cache_use``) are declared on the
``Filler`` protocol, with their defaults on ``FillerBase``; ``load_filler`` gives a plug-in's plain class them.

``accept(word, tag)`` lets the caller drop words early (e.g. ones that cannot be neutral); the validator
checks every survivor in context anyway. ``fill(masked, k, keep=...)`` lets the caller validate whole fills
before they are ranked: ``keep`` receives every complete candidate of the call at once, as (index of its masked
sentence, words), and answers one bool each; only the kept ones are re-ranked (the causal filler's costly step),
and ``k`` applies to them, so a masked sentence yields up to ``k`` fills that the caller can use.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from linguagym import plugins
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.differentiate import MaskedSentence, render
from linguagym.capabilities.expansion.fill_store import FillStore, pools_fingerprint
from linguagym.capabilities.expansion.next_words import tree_next_logprobs
from linguagym.plugins import Adapter
from linguagym.scoring.engine.prefix import supports_tree
from linguagym.scoring.huggingface.base import encode_many
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.causal_lm import CausalLM, NotCausalError

_WORD = re.compile(r"^[A-Za-z]+(?:['-][A-Za-z]+)*$")
LN2 = math.log(2.0)


@dataclass(frozen=True)
class Fill:
    words: tuple[str, ...]
    confidence: float  # log2, higher is better
    disruption: float = 0.0  # bits the words after the fill lost (causal filler; 0 when not measured)


Accept = Callable[[str, str], bool]
# every complete candidate of one fill() call, as (index of its masked sentence, words) -> keep it or not
Keep = Callable[[Sequence[tuple[int, tuple[str, ...]]]], Sequence[bool]]


class Filler(Protocol):
    @property
    def identity(self) -> dict:
        """What makes its fills what they are (recorded in the test file); ``filler`` says its kind."""
        ...

    def fill(self, masked: Sequence[MaskedSentence], k: int, keep: Keep | None = None) -> list[list[Fill]]:
        """Up to ``k`` fills of each masked sentence, best first (see the module doc for ``keep``)."""
        ...

    @property
    def cache_use(self) -> dict | None:
        """What came from an earlier run's fills (where its disk cache is, what was found there), or None."""
        ...

    def close(self) -> None:
        """Let go of what the filler holds open (its disk cache's files)."""
        ...

    def prior(self, words: Sequence[str], tag: str) -> list[float] | None:
        """log2 p of each of ``words`` in a neutral context for ``tag`` (``fit.NEUTRAL_CONTEXTS``), for ranking by
        fit (``fit.py``); None where the filler cannot say (the fills then rank by confidence alone)."""
        ...


class FillerBase(Filler):
    """The optional members of ``Filler`` with the defaults of a filler without a disk cache; subclass it."""

    @property
    def cache_use(self) -> dict | None:
        return None

    def close(self) -> None:  # noqa: B027 - deliberately a no-op: nothing held open
        """Nothing to let go by default."""

    def prior(self, words: Sequence[str], tag: str) -> list[float] | None:
        """No neutral-context probabilities by default: fills rank by confidence alone."""
        return None


class _PlainFiller(FillerBase):
    """A plug-in's filler that does not subclass ``FillerBase``, with the defaults for what it lacks (its members
    are looked up by name here only)."""

    def __init__(self, filler: Any) -> None:
        self._filler = filler

    @property
    def identity(self) -> dict:
        return self._filler.identity

    def fill(self, masked: Sequence[MaskedSentence], k: int, keep: Keep | None = None) -> list[list[Fill]]:
        return self._filler.fill(masked, k, keep=keep)

    @property
    def cache_use(self) -> dict | None:
        return getattr(self._filler, "cache_use", None)

    def close(self) -> None:
        if callable(close := getattr(self._filler, "close", None)):
            close()

    def prior(self, words: Sequence[str], tag: str) -> list[float] | None:
        return prior(words, tag) if callable(prior := getattr(self._filler, "prior", None)) else None


def kept(candidates: list[tuple[int, tuple[str, ...]]], keep: Keep | None) -> list[tuple[int, tuple[str, ...]]]:
    """The candidates ``keep`` keeps (all of them without one), asked once for all."""
    if keep is None:
        return candidates
    verdicts = list(keep(candidates))
    if len(verdicts) != len(candidates):
        raise ValueError(f"keep answered {len(verdicts)} verdicts for {len(candidates)} candidates")
    return [c for c, ok in zip(candidates, verdicts, strict=True) if ok]


def is_word(text: str) -> bool:
    """Letters, with inner apostrophes or hyphens; one letter only for "a", "A" and "I"."""
    return bool(_WORD.match(text)) and (len(text) > 1 or text in ("a", "A", "I"))


FILLER_FORMS = ("a causal LM (a named model such as smollm2-135m, a local directory, a .gguf file or a hub id), "
                "a masked LM directory or hub id, or masked:MODEL")


class MaskedModelError(CapabilityError):
    """A masked LM was given to the causal filler (``load_filler`` hands it to ``MaskedLMFiller`` instead)."""


@dataclass(frozen=True)
class FillerOptions:
    """``load_filler``'s options as a loader receives them (see ``load_filler``)."""

    cache_dir: Path | None = None
    accept: Accept | None = None
    disk_cache: bool = False


FillerAdapter = Adapter[Filler, FillerOptions]


def filler_adapters() -> list[FillerAdapter]:
    """Every row ``load_filler`` tries, in order: plug-ins, then linguagym's own."""
    return [
        *plugins.plugin_adapters(plugins.FILLERS),
        Adapter("masked:MODEL", "a masked LM (directory or hub id) filling the masks with whole-word vocabulary "
                "entries", lambda spec: spec.startswith("masked:"), _masked),
        Adapter("MODEL", "a causal LM (a named model such as smollm2-135m, a local directory, a .gguf file or a hub "
                "id) proposing next words, re-ranked by sentence probability; a masked LM fills masks itself",
                plugins.anything, _by_kind),
    ]


def describe_fillers() -> list[tuple[str, str]]:
    """The accepted fill-in model forms with a one-line description each, for listings."""
    return plugins.describe(filler_adapters())


def load_filler(model: str, *, cache_dir: Path | None = None, accept: Accept | None = None,
                disk_cache: bool = False) -> FillerBase:
    """The filler for ``model``: ``masked:MODEL`` or a masked LM (found from its config.json) fills with
    ``MaskedLMFiller``, a causal LM with ``CausalFiller``, a plug-in's form with the plug-in; anything else is a
    CapabilityError saying what is accepted. A causal LM's weights load at the first ``fill``; a masked LM's
    load here. ``disk_cache``: the causal filler keeps its work under ``cache_dir`` (``fill_store``)."""
    options = FillerOptions(cache_dir=cache_dir, accept=accept, disk_cache=disk_cache)
    return optional_filler(plugins.load(filler_adapters(), model, options))


def optional_filler(filler: Filler) -> FillerBase:
    """``filler`` with every optional member: itself where it subclasses ``FillerBase``, else a view of it."""
    return filler if isinstance(filler, FillerBase) else _PlainFiller(filler)


def _masked(model: str, options: FillerOptions) -> Filler:
    return MaskedLMFiller(model.split(":", 1)[1], accept=options.accept)


def _by_kind(model: str, options: FillerOptions) -> Filler:
    try:
        return CausalFiller(model, cache_dir=options.cache_dir, accept=options.accept, disk_cache=options.disk_cache)
    except MaskedModelError:  # a masked LM fills masks itself
        return MaskedLMFiller(model, accept=options.accept)


_MAX_CONTEXTS = 20_000  # ranked left contexts kept between calls (a default run makes about 1,500)


class CausalFiller(FillerBase):
    """Candidates from a causal LM's next-word distribution, re-ranked by whole-sentence probability."""

    def __init__(self, model: str = "smollm2-135m", *, cache_dir: Path | None = None, beam: int = 4,
                 pool: int = 20, last_pool: int | None = None, accept: Accept | None = None, left_words: int = 12,
                 right_words: int = 8, disk_cache: bool = False) -> None:
        self.model = model
        self.beam = beam
        self.pool = max(pool, beam)
        # proposals at a sentence's last mask, per beam entry (default 2 x pool: 40): the caller's keep validates
        # them before the re-ranking, so a wide last pool costs validation and leaves more usable fills; most
        # candidates fail validation (97 % in benchmarks/expansion.py's run, docs/performance.md), so with 20 only
        # 0.4 a masked sentence survived. 80 served the paper's 20 fills a masked sentence; for the default 3, 40
        # took 32 % less time for 8 % fewer expansions (LC3 and LC9, 15 seeds each: 84 s and 88 against 123 s and 96)
        self.last_pool = min(2 * self.pool if last_pool is None else last_pool, 40 * self.pool)
        self.accept = accept
        self.left_words = left_words
        self.right_words = right_words
        self.lm = _open_causal(model, cache_dir)
        self.scorer = CausalScorer.on(self.lm)  # re-ranks with the same weights
        self._vocab: tuple[list[int], list[str], list[int], list[str]] | None = None
        self._contexts: dict[str, tuple[Any, Any]] = {}  # left context -> ranked next words (tensors)
        self._texts: dict[str, tuple[tuple[int, float], ...]] = {}  # window text -> its tokens' surprisals
        self.cache_dir = cache_dir
        self.disk_cache = disk_cache
        self._store: FillStore | None = None  # opened at the first fill: the model's identity reads its tokenizer
        self.found_on_disk = {"contexts": 0, "windows": 0}
        self._priors: dict[str, dict[str, float]] = {}  # neutral context -> log2 p of each spaced whole word

    @property
    def identity(self) -> dict:
        return {"filler": "causal", "model": self.model, "beam": self.beam, "pool": self.pool,
                "last_pool": self.last_pool, "window_words": [self.left_words, self.right_words]}

    @property
    def cache_use(self) -> dict | None:
        """Where the disk cache is and what this filler found there (contexts, windows), or None without one."""
        if self._store is None:
            return None
        return {"path": str(self._store.path), "found": dict(self.found_on_disk)}

    def close(self) -> None:
        """Let the disk cache's files go (a server makes a filler per job)."""
        if self._store is not None:
            self._store.close()

    def prior(self, words: Sequence[str], tag: str) -> list[float] | None:
        """log2 p of each of ``words`` as the next word after the neutral context for ``tag``
        (``fit.neutral_context``), one forward pass per context, kept; a word the vocabulary has not whole (as
        the filler's own proposals always are) gets the least probability of any whole word."""
        import torch

        from linguagym.capabilities.expansion.fit import neutral_context

        context = neutral_context(tag)
        if context not in self._priors:
            spaced_ids, spaced, _, _ = self._words()
            sequence = self.lm.start_ids + encode_many(self.lm.encoder, [context])[0].ids
            row = self._next_logprobs([sequence], torch.tensor(spaced_ids, dtype=torch.long))[0].tolist()
            table: dict[str, float] = {}
            for word, value in zip(spaced, row, strict=True):
                table.setdefault(word, value)
            table[""] = min(row)
            self._priors[context] = table
        table = self._priors[context]
        return [table.get(word, table[""]) for word in words]

    def _disk(self) -> FillStore | None:
        if self.disk_cache and self._store is None:
            _, spaced, _, bare = self._words()
            self._store = FillStore(self.scorer.identity, self.cache_dir, top=40 * self.pool,
                                    pools=pools_fingerprint(spaced, bare))
        return self._store

    def _not_on_disk(self, kind: str, todo: list[str], memory: dict, lookup: Callable) -> list[str]:
        """The texts of ``todo`` the disk cache lacks; those it has (``lookup``) go into ``memory``, counted."""
        if not todo:
            return todo
        found = lookup(todo)
        memory.update(found)
        self.found_on_disk[kind] += len(found)
        return [t for t in todo if t not in found]

    def _words(self):
        """Vocabulary entries that are whole words: (ids, words) after a space, and (ids, words) without."""
        if self._vocab is None:
            tokenizer = self.lm.encoder  # tokenizer.json read alone where it tokenises as transformers would
            spaced_ids, spaced, bare_ids, bare = [], [], [], []
            for token_id in range(len(tokenizer)):
                text = tokenizer.decode([token_id])
                if text.startswith(" ") and is_word(text[1:]):
                    spaced_ids.append(token_id)
                    spaced.append(text[1:])
                elif is_word(text) and text[:1].isupper():
                    bare_ids.append(token_id)
                    bare.append(text)
            self._vocab = (spaced_ids, spaced, bare_ids, bare)
        return self._vocab

    def _next_words(self, contexts: list[str], ks: list[int], tags: list[str],
                    extras: Sequence[Sequence[str]] | None = None) -> list[list[tuple[str, float]]]:
        """The ``k`` most probable accepted next words (log2 p) after each left context (its own ``k``), and up to
        ``3 * k`` more from the context's ``extras`` (lower-cased words, in the caller's order of preference): first
        those the model ranks among its ``40 * pool`` likeliest, then the rest in the caller's order, at the
        least of the ranked scores (the re-ranking by the whole window decides among them anyway)."""
        _, spaced, _, bare = self._words()
        ranked = self._ranked(contexts)
        out = []
        for n, (context, k, tag) in enumerate(zip(contexts, ks, tags, strict=True)):
            at_start = not context.strip()
            pool = bare if at_start else spaced
            extra = list(extras[n]) if extras is not None and not at_start else []
            wanted = set(extra)
            chosen: list[tuple[str, float]] = []
            added: set[str] = set()
            indices, scores = ranked[context]
            for j, score in zip(indices.tolist(), scores.tolist(), strict=True):
                word = pool[j]
                if len(chosen) >= k and word.lower() not in wanted:
                    continue
                if self.accept is None or self.accept(word.lower() if at_start else word, tag):
                    chosen.append((word, score))
                    if len(chosen) > k:
                        added.add(word.lower())
                    if len(chosen) >= (2 * k if extra else k):  # the first k extra words the model ranks
                        break
            if extra and len(chosen) < 4 * k:
                taken = {w.lower() for w, _ in chosen}
                floor = float(scores[-1]) if len(scores) else 0.0
                for word in extra:
                    if len(chosen) >= 4 * k or len(added) >= 3 * k:
                        break
                    if word in taken or not is_word(word) or (self.accept is not None and not self.accept(word, tag)):
                        continue
                    chosen.append((word, floor))
                    added.add(word)
            out.append(chosen)
        return out

    def _ranked(self, contexts: list[str]) -> dict[str, tuple[Any, Any]]:
        """Per distinct context: the ``40 * pool`` most probable whole words after it (indices into the spaced
        pool, or the capitalised one at the start of a sentence) and their log2 p, best first. Contexts repeat
        (masks of one seed at the same place, beams, capabilities sharing a seed), so they are kept, as tensors
        (a few kilobytes each)."""
        import torch

        spaced_ids, _, bare_ids, _ = self._words()
        todo = sorted({c for c in contexts if c not in self._contexts})
        if len(self._contexts) + len(todo) > _MAX_CONTEXTS:  # bounded: about 6 KB a context
            self._contexts.clear()
            todo = sorted(set(contexts))
        store = self._disk()
        if store is not None:
            todo = self._not_on_disk("contexts", todo, self._contexts, store.contexts)
        for at_start, ids in ((True, bare_ids), (False, spaced_ids)):
            group = [c for c in todo if (not c.strip()) == at_start]
            # sorted, so contexts that share a prefix stay together; 512 at a time bounds the full
            # distributions held at once (512 x ~30,000 words x 4 bytes)
            for start in range(0, len(group), 512):
                chunk = group[start:start + 512]
                sequences = [self.lm.start_ids + encoded.ids
                             for encoded in encode_many(self.lm.encoder, [c.rstrip() for c in chunk])]
                logp = self._next_logprobs(sequences, torch.tensor(ids, dtype=torch.long))
                top = torch.topk(logp, min(40 * self.pool, logp.shape[1]), dim=-1)
                indices, values = top.indices.to(torch.int32), top.values
                for row, c in enumerate(chunk):
                    self._contexts[c] = (indices[row].clone(), values[row].clone())
                if store is not None:  # committed chunk by chunk: a run that stops keeps them
                    store.keep_contexts({c: self._contexts[c] for c in chunk})
        return {c: self._contexts[c] for c in contexts}

    def _next_logprobs(self, sequences: list[list[int]], columns):
        """log2 p of each vocabulary id in ``columns`` after each token sequence: by prefix trees where the
        model allows them (``scoring.prefix.supports_tree``), else in left-padded batches."""
        import torch

        loaded = self.lm.loaded
        if all(sequences) and supports_tree(loaded.model, max(len(s) for s in sequences)):
            return tree_next_logprobs(loaded.model, loaded.device, sequences, columns)
        rows = []
        for start in range(0, len(sequences), 32):
            chunk = sequences[start:start + 32]
            width = max(len(s) for s in chunk)
            ids = torch.zeros((len(chunk), width), dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, seq in enumerate(chunk):  # left padding: the last position is every row's next word
                ids[row, width - len(seq):] = torch.tensor(seq)
                mask[row, width - len(seq):] = 1
            with torch.inference_mode():
                logits = loaded.model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device),
                                      logits_to_keep=1).logits
                rows.append((torch.log_softmax(logits[:, -1].float(), dim=-1)[:, columns.to(loaded.device)]
                             / LN2).cpu())
        return torch.cat(rows)

    def fill(self, masked: Sequence[MaskedSentence], k: int, keep: Keep | None = None,
             extra: Sequence[Sequence[Sequence[str]]] | None = None) -> list[list[Fill]]:
        """As ``Filler.fill``; ``extra``: per masked sentence, per mask, lower-cased words proposed besides the
        pool's most probable (up to three times as many: ``_next_words``)."""
        if not masked:
            return []
        windows = [_window(m, self.left_words, self.right_words) for m in masked]
        beams: list[list[tuple[list[str], float]]] = [[([], 0.0)] for _ in masked]
        for step in range(max(len(m.masks) for m in masked)):
            jobs = [(i, b) for i, m in enumerate(masked) if step < len(m.masks) for b in range(len(beams[i]))]
            contexts, tags, ks, extras = [], [], [], []
            for i, b in jobs:
                m = masked[i]
                words = beams[i][b][0]
                partial = render(m, words + ["\x00"] * (len(m.masks) - len(words)))[0]
                contexts.append(partial[windows[i][0]:].split("\x00", 1)[0])
                tags.append(m.masks[step].tag)
                ks.append(self.last_pool if step == len(m.masks) - 1 else self.pool)
                extras.append(extra[i][step] if extra is not None else ())
            proposals = self._next_words(contexts, ks, tags, extras)  # every mask and beam of this step at once
            grown: dict[int, list[tuple[list[str], float]]] = {}
            for (i, b), proposed in zip(jobs, proposals, strict=True):
                prefix, score = beams[i][b]
                grown.setdefault(i, []).extend((prefix + [w], score + s) for w, s in proposed)
            for i, options in grown.items():
                # Between masks keep the best `beam` partial fills; after the last mask keep every proposal:
                # the left context alone cannot tell which word suits the words to its right, the re-ranking can.
                last = step == len(masked[i].masks) - 1
                beams[i] = sorted(options, key=lambda o: -o[1])[: None if last else self.beam]
        complete = [(i, tuple(words)) for i, m in enumerate(masked) for words, _ in beams[i]
                    if len(words) == len(m.masks)]
        # the caller's verdicts first: the re-ranking below is most of the cost, so only usable fills pay for it
        survivors = kept(complete, keep)
        # re-rank within the window: (text, where the words after the fill begin) for seeds and candidates
        texts: list[str] = []
        rights: list[int] = []
        seed_at: dict[int, int] = {}  # masked sentence -> its seed window's place in texts
        for i, _ in survivors:
            if i not in seed_at:
                m = masked[i]
                start, end = windows[i]
                seed_at[i] = len(texts)
                texts.append(m.text[start:end])
                rights.append(m.masks[-1].offset - start)
        for i, chosen in survivors:
            m = masked[i]
            start, end = windows[i]
            text, spans = render(m, list(chosen))
            texts.append(text[start:end + len(text) - len(m.text)])
            rights.append(spans[-1][1] - start if m.masks[-1].after else spans[-1][1] + 1 - start)
        scored = self._score(texts)
        results: list[list[Fill]] = [[] for _ in masked]
        for at, (i, chosen) in enumerate(survivors, start=len(seed_at)):
            seed, s = scored[seed_at[i]], scored[at]
            seed_total = sum(bits for _, bits in seed)
            seed_right = sum(bits for start, bits in seed if start >= rights[seed_at[i]])
            total = sum(bits for _, bits in s)
            right = sum(bits for start, bits in s if start >= rights[at])
            results[i].append(Fill(chosen, seed_total - total, right - seed_right))
        return [sorted(r, key=lambda f: -f.confidence)[:k] for r in results]

    def _score(self, texts: list[str]) -> list[tuple[tuple[int, float], ...]]:
        """(start, surprisal) of each token of each text. All texts go to the scorer in one call, which packs
        them into prefix trees: the candidates of a mask share the left context, each candidate and the words
        after it is a branch. Texts already scored (the same window from another capability's seed) are kept."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._texts))
        if len(self._texts) + len(todo) > 50_000:  # bounded: about a kilobyte a text
            self._texts.clear()
            todo = list(dict.fromkeys(texts))
        store = self._disk()
        if store is not None:
            todo = self._not_on_disk("windows", todo, self._texts, store.windows)
        computed = {text: tuple((x.start, x.surprisal) for x in scored.tokens)
                    for text, scored in zip(todo, self.scorer.score(todo), strict=True)}
        self._texts.update(computed)
        if store is not None and computed:
            store.keep_windows(computed)
        return [self._texts[t] for t in texts]


class MaskedLMFiller(FillerBase):
    """A BERT-class masked LM (hub id or directory); whole-word vocabulary entries fill the masks."""

    def __init__(self, model: str, *, accept: Accept | None = None, device: str = "cpu") -> None:
        try:
            from transformers import AutoModelForMaskedLM, AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(model)
            self.model = AutoModelForMaskedLM.from_pretrained(model).to(device).eval()
        except (OSError, ValueError) as error:
            raise CapabilityError(f"cannot load masked LM {model!r}: {str(error).splitlines()[0]}",
                                  hint="give a directory with config.json, weights and tokenizer files, or a "
                                  "hub id (needs the hub)") from None
        if self.tokenizer.mask_token is None:
            raise CapabilityError(f"{model!r} has no mask token", hint="use a masked LM such as bert-base-uncased")
        self.name = model
        self.device = device
        self.accept = accept
        vocab = self.tokenizer.convert_ids_to_tokens(list(range(len(self.tokenizer))))
        self._ids = [i for i, t in enumerate(vocab) if is_word(t)]
        self._words = [vocab[i] for i in self._ids]

    @property
    def identity(self) -> dict:
        return {"filler": "masked", "model": self.name}

    def fill(self, masked: Sequence[MaskedSentence], k: int, keep: Keep | None = None) -> list[list[Fill]]:
        import torch

        results: list[list[Fill]] = []
        for m in masked:
            words: list[str] = []
            total = 0.0
            options: list[tuple[str, float]] = []
            for step in range(len(m.masks)):
                rest = [self.tokenizer.mask_token] * (len(m.masks) - step)
                text = render(m, words + rest)[0]
                encoded = self.tokenizer(text.strip(), return_tensors="pt")
                positions = (encoded["input_ids"][0] == self.tokenizer.mask_token_id).nonzero().flatten().tolist()
                if not positions:
                    break
                with torch.inference_mode():
                    logits = self.model(**{k_: v.to(self.device) for k_, v in encoded.items()}).logits
                logp = torch.log_softmax(logits[0, positions[0]].float(), dim=-1)[self._ids] / LN2
                order = torch.argsort(logp, descending=True).tolist()
                options = [(self._words[j], float(logp[j])) for j in order[: 40 * k]
                           if self.accept is None or self.accept(self._words[j], m.masks[step].tag)][:k]
                if not options:
                    break
                if step < len(m.masks) - 1:
                    words.append(options[0][0])
                    total += options[0][1]
            if len(words) == len(m.masks) - 1 and options:
                results.append([Fill((*words, w), total + s) for w, s in options])
            else:
                results.append([])
        # the caller's verdicts on every candidate of the call at once (the pool is k here, so survivors <= k)
        survivors = set(kept([(i, f.words) for i, fills in enumerate(results) for f in fills], keep))
        return [[f for f in fills if (i, f.words) in survivors][:k] for i, fills in enumerate(results)]


def _open_causal(model: str, cache_dir: Path | None) -> CausalLM:
    """The causal LM ``model`` names, or a CapabilityError that says what a filler accepts."""
    if model.lower().endswith(".tsv"):
        raise CapabilityError(
            f"fill-in model {model!r} is a file of precomputed surprisals: it scores the sentences it holds and "
            "cannot propose words for masks",
            hint=f"give {FILLER_FORMS}",
        )
    try:
        # linguagym's own decoder where the checkpoint allows it (as the scorer): the same numbers, computed faster
        return CausalLM.open(model, cache_dir=cache_dir, native=True)
    except NotCausalError:
        raise MaskedModelError(
            f"fill-in model {model!r} is a masked LM; the causal filler needs a causal (left-to-right) LM",
            hint=f"write masked:{model} to fill with it as a masked LM, or give a causal LM such as smollm2-135m",
        ) from None
    except Exception as error:  # ConfigurationError and loader errors, with the model's name
        raise CapabilityError(f"cannot load fill-in model {model!r}: {str(error).splitlines()[0]}",
                              hint=f"give {FILLER_FORMS}") from None


def _window(masked: MaskedSentence, left_words: int, right_words: int) -> tuple[int, int]:
    """Character bounds of the seed around its masks: ``left_words`` words before the first, ``right_words``
    after the last (the model sees only this much; a long sentence costs no more than a short one)."""
    text = masked.text
    first, last = masked.masks[0].offset, masked.masks[-1].offset
    starts = [m.start() for m in re.finditer(r"\S+", text[:first])]
    start = starts[-left_words] if len(starts) >= left_words else 0
    ends = [m.end() for m in re.finditer(r"\S+", text[last:])]
    end = last + ends[right_words - 1] if len(ends) >= right_words else len(text)
    return start, end
