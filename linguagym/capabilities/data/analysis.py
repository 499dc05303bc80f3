"""Sentences as tokens with lemma, Penn tag, word class and SentiWordNet sentiment, tagged in context by spaCy.

Word classes come from the tag the word has *in the sentence*: JJ* adjective, NN/NNS noun (proper nouns are
names, not sentiment words), VB* verb except auxiliaries (``is``, ``have`` as helpers carry no sentiment of
their own), RB* adverb. A word is looked up by its lemma, then by its lower-cased form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from linguagym.capabilities.data.lexicon import Lexicon
from linguagym.extras import DEFAULT_SPACY_MODEL, load_spacy_model

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
        out = []
        for doc in self.nlp.pipe(texts, batch_size=self.batch_size):
            out.append(self._from_doc(doc))
            if progress:
                progress(1)
        return out

    def analyse_one(self, text: str) -> Analysis:
        return self._from_doc(self.nlp(text))

    def _from_doc(self, doc) -> Analysis:
        tokens = []
        for t in doc:
            if t.is_space:
                continue
            cls = word_class(t.tag_, t.pos_)
            sentiment = None
            if cls is not None:
                sentiment = self.lexicon.label(t.lemma_, cls) or self.lexicon.label(t.lower_, cls)
            tokens.append(Token(t.text, t.lemma_, t.tag_, t.pos_, t.idx, t.idx + len(t.text),
                                bool(t.is_punct), cls, sentiment))
        return Analysis(doc.text, tuple(tokens))
