"""``LMScorer``: token, word, sequence and conditional scores of any texts, in the terms of minicons' scorer
(``token_score``, ``word_score``, ``sequence_score``, ``conditional_score``), computed by linguagym's engine.

Every call goes through the scorer a run uses (``ScorerSpec(...).load()``: the score cache in front of the
model) and ``score_texts`` (unique texts, prefix-sharing batches, chunked cache commits): a text scored once, by
a run or here, is never computed again. The engine keeps surprisals in bits; each method converts them exactly:
log-probabilities in nats by default (as minicons), ``base_two`` for bits, ``surprisal`` for their negation,
``prob`` for probabilities.

Words and continuations are found by character offsets, as a run assigns tokens to regions
(``evaluation.alignment``): a token belongs to the span holding its first non-space character.

minicons' public arguments are each taken with minicons' meaning or refused with what to use instead (the table in
docs/python-api.md): ``bow_correction`` per call (linguagym's boundary set: docs/scoring.md), ``bos_token`` where it
agrees with the scorer's start token, ``rank`` and ``eos_token`` refused.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from linguagym.errors import ConfigurationError
from linguagym.evaluation.alignment import Alignment, align
from linguagym.evaluation.results import import_pandas
from linguagym.evaluation.run import DEFAULT_MODEL
from linguagym.evaluation.sentences import Sentence
from linguagym.scoring.cache import cache_stats
from linguagym.scoring.engine.order import score_texts
from linguagym.scoring.protocol import ScoredText, Scorer
from linguagym.scoring.registry import release_scorer
from linguagym.scoring.spec import ScorerSpec

if TYPE_CHECKING:
    import pandas

LN2 = math.log(2.0)
REDUCTIONS = ("sum", "mean")
WHITESPACE_WORDS = r"\S+"
MINICONS_WORDS = r"[\w']+|[.,!?;]"  # minicons' word_score splits words so (punctuation apart)
Reduction = str | Callable[[Any], Any]
Texts = str | Sequence[str]


def lm_scorer(model: str | os.PathLike[str] | Scorer = DEFAULT_MODEL, **options: Any) -> LMScorer:
    """An ``LMScorer`` for ``model`` (see there)."""
    return LMScorer(model, **options)


class LMScorer:
    """Scores of texts by ``model``: a named model, a hub id, a local directory, a ``.gguf`` file, or a scorer
    object (anything with ``identity`` and ``score``). ``options`` are ``ScorerSpec``'s: ``bos`` (``auto``: the
    model's start token, so the first token is scored too; ``none``: none, the first token gets 0 as in minicons),
    ``dtype``, ``device``, ``batch_size``, ``pll`` (masked LMs), ``cache_dir``, ``score_cache``. No weights load
    until a text that is not cached is scored.

    Every method takes one text or a list of them and returns one entry per text (a list even for one text, as
    minicons does); ``as_dataframe=True`` returns a pandas DataFrame instead."""

    def __init__(self, model: str | os.PathLike[str] | Scorer = DEFAULT_MODEL, **options: Any) -> None:
        if isinstance(model, str | os.PathLike):
            model = os.fspath(model)
            known = [f.name for f in fields(ScorerSpec) if f.name != "model"]
            unknown = [name for name in options if name not in known]
            if unknown:
                raise ConfigurationError(f"unknown scorer option{'s' if len(unknown) > 1 else ''} "
                                         + ", ".join(repr(n) for n in unknown),
                                         hint="valid options: " + ", ".join(known))
            self.spec: ScorerSpec | None = ScorerSpec(model, **options)
            self.scorer: Scorer = self.spec.load()
        else:
            if options:
                raise ConfigurationError("options apply to a model name, not to a scorer object",
                                         hint="configure the scorer object itself, or pass the model's name")
            self.spec, self.scorer = None, model
        self._other: Scorer | None = None  # the same model with the word-boundary correction the other way

    # ---------------------------------------------------------------------------------------- engine

    @property
    def identity(self) -> dict[str, Any]:
        """Everything that determines the numbers (model, revision, dtype, start token, ...)."""
        return self.scorer.identity

    @property
    def cache_stats(self) -> dict[str, Any] | None:
        """The score cache: its path, texts found there (``hits``) and computed (``misses``) so far; None
        without a cache."""
        return cache_stats(self.scorer)

    def scored(self, texts: Texts, bow_correction: bool | None = None) -> list[ScoredText]:
        """The engine's own result for each text: tokens with character spans and surprisals in bits.
        ``bow_correction``: word-boundary corrected (True) or not (False); None: as the scorer was made."""
        batch = _batch(texts)
        scorer = self._scorer(bow_correction)
        scores = score_texts(scorer, batch)
        return [scores[text] for text in batch]

    @property
    def bow_correction(self) -> bool:
        """Whether this scorer's own values are word-boundary corrected."""
        return bool(self.identity.get("bow_correction"))

    def _scorer(self, bow_correction: bool | None) -> Scorer:
        """The scorer that gives values with ``bow_correction`` as asked: this one, or the same model with the
        correction the other way (made once; it shares the loaded weights where the model is a causal LM)."""
        if bow_correction is None or bool(bow_correction) == self.bow_correction:
            return self.scorer
        if self._other is None:
            self._other = self._turned(bool(bow_correction))
        return self._other

    def _turned(self, bow_correction: bool) -> Scorer:
        from linguagym.scoring.cache import CachedScorer
        from linguagym.scoring.huggingface.causal import CausalScorer
        from linguagym.scoring.protocol import computing, optional

        inner, cache = computing(self.scorer), optional(self.scorer).score_cache
        if self.spec is None or not isinstance(inner, CausalScorer):
            what = "a scorer object" if self.spec is None else "this model (not a causal LM)"
            raise ConfigurationError(
                f"bow_correction={bow_correction} cannot be switched per call for {what}",
                hint="make the scorer with lm_scorer(model, bow_correction=True); the correction applies to causal "
                "LMs only")
        turned = CausalScorer.on(inner.lm, batch_size=inner.batch_size, batch_tokens=inner.batch_tokens,
                                 prefix_sharing=inner.prefix_sharing, bow_correction=bow_correction)
        return CachedScorer(turned, cache.cache_dir) if cache is not None else turned

    def _minicons_options(self, rank: bool = False, bos_token: bool | None = None,
                          eos_token: bool = False) -> None:
        """minicons' arguments that linguagym takes only where they mean what they mean there."""
        if rank:
            raise ConfigurationError(
                "rank=True is not offered: linguagym's engine keeps each token's surprisal, not the rank of the "
                "token in the whole distribution",
                hint="use minicons' IncrementalLMScorer(...).token_score(..., rank=True) for ranks")
        if eos_token:
            raise ConfigurationError(
                "eos_token=True is not offered: linguagym scores the text's own tokens, never an appended "
                "end-of-sequence token",
                hint="with bow_correction=True the end of the text already counts as a word boundary (its "
                "probability includes the end-of-sequence token's)")
        if bos_token is not None:
            has_start = self.identity.get("bos_token") is not None or self.identity.get("kind") != "causal"
            if bool(bos_token) != has_start:
                raise ConfigurationError(
                    f"bos_token={bos_token} disagrees with this scorer, which "
                    + ("adds its start token (bos='auto'), so the first token is scored" if has_start else
                       "adds no start token (bos='none'), so the first token gets 0"),
                    hint=("make the scorer with lm_scorer(model, bos='none') for minicons' default (no start "
                          "token)" if has_start else "make the scorer with lm_scorer(model) to add the model's "
                          "start token") + ", or leave bos_token out")

    def close(self) -> None:
        """Close the score cache and let the weights go."""
        if self._other is not None:
            release_scorer(self._other)
        release_scorer(self.scorer)

    def __enter__(self) -> LMScorer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LMScorer({self.identity.get('model', self.identity.get('name', '?'))!r})"

    # --------------------------------------------------------------------------------------- scores

    def token_score(self, texts: Texts, surprisal: bool = False, prob: bool = False, base_two: bool = False,
                    rank: bool = False, decode: bool = False, bow_correction: bool | None = None,
                    bos_token: bool | None = None, eos_token: bool = False, *,
                    as_dataframe: bool = False) -> list[list[tuple[str, float]]] | Any:
        """For each text, its tokens with their scores: ``[(token, score), ...]``; the score is the
        log-probability of the token given what precedes it (natural log), or with ``surprisal`` its negation,
        with ``base_two`` in bits, with ``prob`` the probability. ``token`` is the tokenizer's piece (``Ġknows``),
        or with ``decode`` the text it covers (`` knows``). ``bow_correction``: word-boundary corrected values
        (each token carries the boundary term after it minus the one before it, so a word's tokens sum to the
        word's corrected value; minicons puts the two terms on a word's last and first tokens instead)."""
        self._minicons_options(rank, bos_token, eos_token)
        convert = _converter(surprisal, prob, base_two)
        batch = _batch(texts)
        scored = self.scored(batch, bow_correction)
        if as_dataframe:
            rows = [(i, text, t.token, text[t.start:t.end], t.start, t.end, convert(t.surprisal))
                    for i, (text, s) in enumerate(zip(batch, scored, strict=True)) for t in s.tokens]
            return _frame(rows, ["text_index", "text", "token", "covered", "start", "end", "score"])
        return [[(s.text[t.start:t.end] if decode else t.token, convert(t.surprisal)) for t in s.tokens]
                for s in scored]

    def sequence_score(self, texts: Texts, reduction: Reduction = "mean", surprisal: bool = False,
                       prob: bool = False, base_two: bool = False, bow_correction: bool | None = None,
                       bos_token: bool | None = None, eos_token: bool = False, *,
                       as_dataframe: bool = False) -> list[Any] | Any:
        """For each text, its token scores (as ``token_score`` gives them) reduced to one number: ``"sum"`` (the
        text's log-probability), ``"mean"`` (per token; minicons' default), or a function of a 1-D torch tensor
        of the scores, as minicons takes (``lambda x: x.sum(0).item()``)."""
        self._minicons_options(False, bos_token, eos_token)
        reduce = _reducer(reduction)
        convert = _converter(surprisal, prob, base_two)
        batch = _batch(texts)
        values = [reduce([convert(t.surprisal) for t in s.tokens]) for s in self.scored(batch, bow_correction)]
        return _frame(list(zip(batch, values, strict=True)), ["text", "score"]) if as_dataframe else values

    def conditional_score(self, prefix: Texts, stimuli: Texts, separator: str = " ", reduction: Reduction = "mean",
                          surprisal: bool = False, prob: bool = False, base_two: bool = False,
                          bow_correction: bool | None = None, bos_token: bool | None = None,
                          eos_token: bool = False, *, as_dataframe: bool = False) -> list[Any] | Any:
        """For each prefix and continuation (``stimuli``), the scores of the continuation's tokens given the
        prefix, reduced as ``sequence_score`` does. The text scored is ``prefix + separator + stimulus``, joined
        as minicons joins it.

        The continuation's tokens are those whose first non-space character lies in the stimulus (the
        separator, when it is more than spaces, counts with the prefix). Tokenization caveat: the text is
        tokenized whole, so where the tokenizer merges across the boundary (no space between, or a language
        without spaces) a token holding the end of the prefix and the start of the stimulus belongs to the prefix,
        and a warning says so; minicons counts the prefix's tokens instead. The two agree wherever the
        tokenization splits at the boundary."""
        self._minicons_options(False, bos_token, eos_token)
        prefixes, continuations = _batch(prefix), _batch(stimuli)
        if len(prefixes) != len(continuations):
            raise ConfigurationError(f"{len(prefixes)} prefixes but {len(continuations)} continuations",
                                     hint="give one prefix per continuation (the lists pair up in order)")
        reduce = _reducer(reduction)
        convert = _converter(surprisal, prob, base_two)
        sentences = []
        for p, s in zip(prefixes, continuations, strict=True):
            text = p + separator + s
            sentences.append(Sentence(text, ((0, len(p) + len(separator)), (len(text) - len(s), len(text)))))
        alignments = self._aligned(sentences, "the prefix and its continuation", bow_correction)
        values = [math.nan if a.regions[1].undefined else reduce([convert(t.surprisal) for t in a.regions[1].tokens])
                  for a in alignments]
        if as_dataframe:
            return _frame(list(zip(prefixes, continuations, values, strict=True)), ["prefix", "stimulus", "score"])
        return values

    def word_score(self, texts: Texts, surprisal: bool = False, prob: bool = False, base_two: bool = False,
                   rank: bool = False, bow_correction: bool | None = None, pattern: str = WHITESPACE_WORDS, *,
                   as_dataframe: bool = False) -> list[list[tuple[str, float]]] | Any:
        """For each text, its words with their scores: ``[(word, score), ...]``, the score of a word being the sum
        of its tokens' log-probabilities (or surprisals; with ``prob``, the probability of the whole word, their
        product). Words are the matches of ``pattern``: by default runs of non-space characters (``"table."``),
        ``MINICONS_WORDS`` splits punctuation off as minicons does. A token counts for the word holding its first
        non-space character, as a run assigns tokens to regions; a word whose every character a token of an earlier
        word covers has no score (NaN, with a warning), not the 0 of an empty sum. ``bow_correction``: each word's
        probability includes that of the next token beginning a new word (or the text ending) and is divided by that
        of a word beginning where it starts (Pimentel & Meister 2024); the boundary set is linguagym's (docs/scoring.md:
        space-marked tokens, punctuation, the end of sequence; minicons counts space-marked tokens only)."""
        self._minicons_options(rank)
        batch = _batch(texts)
        words = [[(m.group(0), m.span()) for m in re.finditer(pattern, text) if m.end() > m.start()]
                 for text in batch]
        return self._word_scores(batch, words, _converter(surprisal, prob, base_two), bow_correction, as_dataframe)

    def word_score_tokenized(self, texts: Texts, tokenize_function: Callable[[str], Sequence[str]],
                             bow_correction: bool | None = None, bos_token: bool | None = None,
                             eos_token: bool = False, surprisal: bool = False, prob: bool = False,
                             base_two: bool = False, return_tensors: bool = False, *,
                             as_dataframe: bool = False) -> list[list[tuple[str, Any]]] | Any:
        """minicons' ``word_score_tokenized``: ``word_score`` with the words that ``tokenize_function`` gives for
        each text (a word tokenizer such as ``nltk.word_tokenize``), found in the text in order. ``return_tensors``:
        each score as a 0-d torch tensor, as minicons returns it."""
        self._minicons_options(False, bos_token, eos_token)
        batch = _batch(texts)
        words = [_located(text, list(tokenize_function(text))) for text in batch]
        scores = self._word_scores(batch, words, _converter(surprisal, prob, base_two), bow_correction, as_dataframe)
        if return_tensors and not as_dataframe:
            import torch

            return [[(word, torch.tensor(score, dtype=torch.float64)) for word, score in pairs] for pairs in scores]
        return scores

    def _word_scores(self, batch: list[str], words: list[list[tuple[str, tuple[int, int]]]],
                     convert: Callable[[float], float], bow_correction: bool | None, as_dataframe: bool) -> Any:
        sentences = [Sentence(text, tuple(span for _, span in found)) for text, found in zip(batch, words,
                                                                                              strict=True)]
        alignments = self._aligned(sentences, "words", bow_correction)
        scores = [[(word, math.nan if region.undefined else convert(sum(t.surprisal for t in region.tokens)))
                   for (word, _), region in zip(found, a.regions, strict=True)]
                  for found, a in zip(words, alignments, strict=True)]
        if as_dataframe:
            rows = [(i, text, word, span[0], span[1], score)
                    for i, (text, found, pairs) in enumerate(zip(batch, words, scores, strict=True))
                    for (word, span), (_, score) in zip(found, pairs, strict=True)]
            return _frame(rows, ["text_index", "text", "word", "start", "end", "score"])
        return scores

    def _aligned(self, sentences: list[Sentence], spans: str, bow_correction: bool | None = None) -> list[Alignment]:
        scored = self.scored([s.text for s in sentences], bow_correction)
        alignments = [align(sentence, s) if sentence.spans else Alignment((), ()) for sentence, s in
                      zip(sentences, scored, strict=True)]
        crossing = sum(len(a.crossings) for a in alignments)
        if crossing:
            warnings.warn(f"{crossing} token(s) cross the boundary between {spans}; each counts for the span of its "
                          "first character, and a span left with no token has no score (NaN)", stacklevel=3)
        return alignments


def _located(text: str, words: list[str]) -> list[tuple[str, tuple[int, int]]]:
    """Each word with its span in ``text``, found in order (a ConfigurationError for a word the text lacks)."""
    found, position = [], 0
    for word in words:
        start = text.find(word, position) if word else -1
        if start < 0:
            raise ConfigurationError(f"word {word!r} from tokenize_function is not in the text {text[:60]!r} "
                                     f"after character {position}",
                                     hint="use a tokenize_function that returns pieces of the text itself (no "
                                     "normalised quotes or added tokens)")
        found.append((word, (start, start + len(word))))
        position = start + len(word)
    return found


def _batch(texts: Texts) -> list[str]:
    if isinstance(texts, str):
        return [texts]
    batch = list(texts)
    wrong = [type(t).__name__ for t in batch if not isinstance(t, str)]
    if wrong:
        raise ConfigurationError(f"texts must be strings, not {wrong[0]}", hint="pass a string or a list of strings")
    return batch


def _converter(surprisal: bool, prob: bool, base_two: bool) -> Callable[[float], float]:
    """From the engine's surprisal in bits to the score asked for (minicons' flags, and its refusals)."""
    if surprisal and prob:
        raise ConfigurationError("surprisal=True and prob=True ask for two different scores",
                                 hint="choose one: surprisal (-log p) or prob (p)")
    if prob and base_two:
        raise ConfigurationError("base_two applies to logarithms, not to prob=True", hint="leave base_two off")
    if prob:
        return lambda bits: 2.0 ** -bits
    sign = 1.0 if surprisal else -1.0
    unit = 1.0 if base_two else LN2  # bits -> nats: times ln 2
    return lambda bits: sign * bits * unit


def _reducer(reduction: Reduction) -> Callable[[list[float]], Any]:
    if callable(reduction):
        def on_tensor(scores: list[float]) -> Any:
            import torch  # (heavy) only a reduction written for minicons' tensors needs it

            return reduction(torch.tensor(scores, dtype=torch.float64))

        return on_tensor
    if reduction == "sum":
        return math.fsum
    if reduction == "mean":
        return lambda scores: math.fsum(scores) / len(scores) if scores else math.nan
    raise ConfigurationError(f"unknown reduction {reduction!r}",
                             hint="use 'sum', 'mean', or a function of the scores' tensor, "
                             "e.g. lambda x: x.max().item()")


def _frame(rows: list[tuple], columns: list[str]) -> pandas.DataFrame:
    return import_pandas("as_dataframe=True").DataFrame(rows, columns=columns)
