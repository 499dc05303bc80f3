"""Sentences as tokens with lemma, Penn tag, word class and SentiWordNet sentiment, tagged in context by spaCy.

Word classes come from the tag the word has *in the sentence*: JJ* adjective, NN/NNS noun (proper nouns are
names, not sentiment words), VB* verb except auxiliaries (``is``, ``have`` as helpers carry no sentiment of
their own), RB* adverb. A word is looked up by its lemma, then by its lower-cased form.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from linguagym.atomic import write_cache_text
from linguagym.capabilities.data.lexicon import Lexicon
from linguagym.extras import DEFAULT_SPACY_MODEL, load_spacy_model
from linguagym.scoring.cache import resolve_cache_dir

_CLASS_BY_TAG_PREFIX = (("JJ", "adjective"), ("NN", "noun"), ("VB", "verb"), ("RB", "adverb"))


@dataclass(frozen=True)
class Token:
    text: str
    lemma: str
    tag: str  # Penn Treebank tag
    pos: str  # universal POS (spaCy's pos_)
    start: int  # character offsets in the sentence
    end: int
    is_punct: bool
    word_class: str | None  # adjective, noun, verb, adverb, or None
    sentiment: str | None  # positive, negative, neutral, mixed; None when unknown or not a word class

    @property
    def lower(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class Analysis:
    text: str
    tokens: tuple[Token, ...]

    @property
    def length(self) -> int:
        """Word tokens: every token but punctuation (so a final period does not count; ``didn't`` is two)."""
        return sum(1 for token in self.tokens if not token.is_punct)


def word_class(tag: str, pos: str) -> str | None:
    if tag in ("NNP", "NNPS") or pos == "AUX":
        return None
    return next((name for prefix, name in _CLASS_BY_TAG_PREFIX if tag.startswith(prefix)), None)


@lru_cache(maxsize=2)
def load_spacy(model: str = DEFAULT_SPACY_MODEL):
    """The spaCy pipeline ``model`` without parser and NER (tags and lemmas need neither)."""
    return load_spacy_model(model, exclude=("parser", "ner"), needed_by="tagging sentences for capability tests")


class Analyser:
    """Tags sentences with spaCy and labels their words with a lexicon."""

    def __init__(self, lexicon: Lexicon, model: str = DEFAULT_SPACY_MODEL, batch_size: int = 256,
                 nlp=None) -> None:
        """``nlp``: the pipeline ``load_spacy(model)`` already loaded (loading it again takes a second)."""
        self.lexicon = lexicon
        self.model = model
        self.batch_size = batch_size
        self.nlp = nlp if nlp is not None else load_spacy(model)

    @property
    def tagger_identity(self) -> dict:
        """What tagged the sentences, as the test file records it."""
        import spacy  # the [lct] extra, loaded with the pipeline

        return {"model": self.model, "model_version": self.nlp.meta.get("version"), "spacy": spacy.__version__}

    def analyse(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> list[Analysis]:
        return [self.from_tagged(text, tagged)
                for text, tagged in zip(texts, self.tagged(texts, progress), strict=True)]

    def analyse_one(self, text: str) -> Analysis:
        return self.analyse([text])[0]

    def tagged(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> list[list[tuple]]:
        """What spaCy gives each token of each text (whitespace tokens left out), as ``from_tagged`` reads it."""
        out = []
        for doc in self.nlp.pipe(texts, batch_size=self.batch_size):
            out.append(tagged_tokens(doc))
            if progress:
                progress(1)
        return out

    def from_tagged(self, text: str, tagged: Sequence[Sequence]) -> Analysis:
        """The analysis of ``text`` from what spaCy gave each of its tokens (whitespace tokens left out): (text,
        lemma, tag, POS, character offset, is punctuation, lower-cased text); word classes and the lexicon's
        labels are added here."""
        tokens = []
        for word, lemma, tag, pos, start, punct, lower in tagged:
            cls = word_class(tag, pos)
            sentiment = None
            if cls is not None:
                sentiment = self.lexicon.label(lemma, cls) or self.lexicon.label(lower, cls)
            tokens.append(Token(word, lemma, tag, pos, start, start + len(word), bool(punct), cls, sentiment))
        return Analysis(text, tuple(tokens))


def tagged_tokens(doc) -> list[tuple]:
    """What ``Analyser.from_tagged`` reads of each token of a spaCy doc (whitespace tokens left out)."""
    return [(t.text, t.lemma_, t.tag_, t.pos_, t.idx, bool(t.is_punct), t.lower_) for t in doc if not t.is_space]


TAGGED_FORMAT = 1  # what the tagged cache holds: change it when ``Analyser.tagged`` changes


def analyse_cached(analyser: Analyser, texts: Sequence[str], *, cache_dir: Path | None = None,
                   progress: Callable[[int], None] | None = None) -> list[Analysis]:
    """``analyser.analyse(texts)``, spaCy's part kept on disk (``<cache>/capabilities/tagged-<key>.json``, keyed
    by the texts and the tagger: its model, the model's version, spaCy's version), so a later run over the same
    sentences reads it rather than tagging them again (the default dataset: docs/performance.md). The lexicon's
    labels are applied anew on every run: another lexicon needs no other file. A spaCy model given as a
    directory is never cached (its files may change under the same version); a damaged file is tagged again."""
    if Path(analyser.model).exists():
        return analyser.analyse(texts, progress)
    texts = list(texts)
    content = hashlib.sha256(json.dumps(texts).encode()).hexdigest()
    key_data = {"format": TAGGED_FORMAT, "content": content, "tagger": analyser.tagger_identity}
    key = hashlib.sha256(json.dumps(key_data, sort_keys=True).encode()).hexdigest()[:24]
    path = resolve_cache_dir(cache_dir) / "capabilities" / f"tagged-{key}.json"
    stored = _read_tagged(path, len(texts))
    if stored is None:
        stored = analyser.tagged(texts, progress)
        write_cache_text(path, json.dumps(stored, separators=(",", ":")) + "\n", "the dataset's tagging")
    elif progress:
        progress(len(texts))
    return [analyser.from_tagged(text, tagged) for text, tagged in zip(texts, stored, strict=True)]


def _read_tagged(path: Path, count: int) -> list | None:
    try:
        stored = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, list) or len(stored) != count:
        return None
    if not all(isinstance(row, list) and all(isinstance(t, list) and len(t) == 7 for t in row) for row in stored):
        return None
    return stored
