"""The dataset's own usage as evidence for an insertion: words and noun uses attested in the domain.

The filler proposes words that are plausible English after the left context but foreign to what the sentences are
about: "a **statistical** treat", "this **algebraic** film", "**financially** sweet" make category errors that
no tag shows. The dataset's sentences (the 10,605 Rotten Tomatoes sentences by default, already analysed for the
seed search) say which words the domain uses and how, so two checks read them:

- ``domain``: an inserted adjective or adverb must occur in the dataset at least ``min_count`` times with the same
  word class (by lemma). Nouns and verbs are not held to it: on the dev set (``benchmarks/expansion_quality.py``)
  rare inserted nouns ("This **article** is ...") were as often judged fine as not, rare modifiers mostly not;
- ``mass``: an inserted "a", "an", "each", "every" or "another" must not go before a singular noun that the
  dataset uses as a noun yet never after such a determiner (a mass noun there: "an empathy", "each restraint");
- ``collocation``: nothing is inserted between two content words that the dataset writes side by side again and
  again, far more often than their own frequencies predict (a fixed phrase of the domain: "cold fish", "big
  screen", "special effects", "soap opera"; #38's blind reader rejected "cold *hybrid* fish"): at least
  ``COLLOCATION_MIN`` times, and ``COLLOCATION_RATIO`` times as often as chance;
- ``attested`` (``attested.py``, with ``modifiers``): an inserted adjective or adverb must be one the dataset uses
  with the same head;
- ``proper``, ``quantifier``, ``own`` (``reader_rules.py``, with ``attested``; ``proper`` reads ``capitals``): no
  lower-cased word the dataset capitalizes, no quantifier, no "own" but after a possessive determiner;
- ``unvalidated`` (``reader_lexicon.py``, with ``lexicon``): an inserted adjective or adverb must be one blind
  readers have accepted in most of the rows they judged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from linguagym.capabilities.expansion.attested import ATTESTED, ModifierPairs
from linguagym.capabilities.expansion.check import Check, Problem
from linguagym.capabilities.expansion.reader_lexicon import UNVALIDATED, ReaderLexicon
from linguagym.capabilities.expansion.reader_rules import READER_CHECKS, Capitals

# the minimum occurrences of an inserted adjective or adverb in the dataset, chosen on the dev set
# (benchmarks/expansion_quality.py: 1, 2, 3, 5 and 10 tried; 3 kept the most grammatical share)
MIN_COUNT = 3
DOMAIN_CLASSES = ("adjective", "adverb")
# a smaller dataset is too little evidence of what its domain uses: the domain check is then skipped (mass keeps
# its own per-noun evidence threshold)
MIN_SENTENCES = 1000
COUNT_DETERMINERS = frozenset({"a", "an", "each", "every", "another", "one"})
_INSERTED_COUNT_DETERMINERS = frozenset({"a", "an", "each", "every", "another"})
_PRENOMINAL = ("JJ", "JJR", "JJS", "VBN", "VBG", "RB", "HYPH", "CD")
# nouns seen fewer times than this as singular nouns say nothing about count or mass use
_MASS_EVIDENCE = 3
# a fixed phrase: two content words side by side at least this often in the dataset, and this many times more
# often than their frequencies alone would put them together ("cold fish": 2 of 2; "good film" is frequent only
# because both words are)
COLLOCATION_MIN = 2
COLLOCATION_RATIO = 50.0


@dataclass(frozen=True)
class DomainVocabulary:
    """Counts from a dataset's analysed sentences: lemmas by word class, and singular nouns in all and after a
    count determiner."""

    words: Counter  # (lemma, word class) -> occurrences
    nouns: Counter  # lemma of a singular common noun (NN) -> occurrences
    counted: Counter  # lemma -> occurrences after a/an/each/every/another/one (past prenominal modifiers)
    sentences: int
    min_count: int = MIN_COUNT
    min_sentences: int = MIN_SENTENCES
    pairs: Counter = field(default_factory=Counter)  # (word, next word), lower-cased content words side by side
    forms: Counter = field(default_factory=Counter)  # lower-cased content words
    modifiers: ModifierPairs | None = None  # (modifier, head) pairs for the ``attested`` check; None: not checked
    capitals: Capitals | None = None  # how the dataset capitalizes words, for ``proper`` (with ``attested``)
    lexicon: ReaderLexicon | None = None  # the words blind readers accepted, for ``unvalidated``; None: not checked

    @classmethod
    def from_analyses(cls, analyses: Sequence, min_count: int = MIN_COUNT,
                      min_sentences: int = MIN_SENTENCES, attested: bool = False,
                      lexicon: ReaderLexicon | None = None) -> DomainVocabulary:
        words: Counter = Counter()
        nouns: Counter = Counter()
        counted: Counter = Counter()
        pairs: Counter = Counter()
        forms: Counter = Counter()
        for analysis in analyses:
            tokens = analysis.tokens
            for i, token in enumerate(tokens):
                if _content(token):
                    forms[token.lower] += 1
                    if i + 1 < len(tokens) and _content(tokens[i + 1]):
                        pairs[(token.lower, tokens[i + 1].lower)] += 1
                if token.word_class is not None:
                    words[(token.lemma.lower(), token.word_class)] += 1
                if token.tag == "NN":
                    lemma = token.lemma.lower()
                    nouns[lemma] += 1
                    if (det := _determiner_before(tokens, i)) is not None and det.lower in COUNT_DETERMINERS:
                        counted[lemma] += 1
        modifiers = ModifierPairs.from_analyses(analyses) if attested else None
        capitals = Capitals.from_analyses(analyses) if attested else None
        return cls(words, nouns, counted, len(analyses), min_count, min_sentences, pairs, forms, modifiers, capitals,
                   lexicon)

    @property
    def identity(self) -> dict:
        """What the checks read, as the test file records it."""
        identity: dict = {"sentences": self.sentences, "min_count": self.min_count, "lemmas": len(self.words),
                          "domain_check": self.checks_words}
        if self.modifiers is not None:
            identity["modifier_pairs"] = len(self.modifiers.pairs)
        if self.lexicon is not None:
            identity["reader_lexicon"] = self.lexicon.identity
        return identity

    @property
    def checks_words(self) -> bool:
        """Whether the dataset is large enough for the ``domain`` check."""
        return self.sentences >= self.min_sentences

    def count(self, lemma: str, word_class: str) -> int:
        return self.words.get((lemma.lower(), word_class), 0)

    def is_mass(self, lemma: str) -> bool:
        """Whether the dataset uses ``lemma`` as a singular noun often enough, and never after a count determiner."""
        lemma = lemma.lower()
        return self.nouns.get(lemma, 0) >= _MASS_EVIDENCE and not self.counted.get(lemma, 0)

    def is_collocation(self, first: str, second: str) -> bool:
        """Whether the dataset writes ``first`` ``second`` (lower-cased) as a fixed phrase (``COLLOCATION_MIN``,
        ``COLLOCATION_RATIO``)."""
        together = self.pairs.get((first, second), 0)
        if together < COLLOCATION_MIN:
            return False
        words = sum(self.forms.values()) or 1
        expected = self.forms.get(first, 0) * self.forms.get(second, 0) / words
        return together >= COLLOCATION_RATIO * expected

    def problems(self, tokens: Sequence, inserted: Sequence[int]) -> list[Problem]:
        """The ``domain`` and ``mass`` refusals of the words at ``inserted`` (indices into the filled sentence's
        analysis ``tokens``); empty when none."""
        return [problem for i in inserted for check in USAGE_CHECKS for problem in check.problems(self, tokens, i)]

    def domain_judges(self, token) -> bool:
        """Whether the ``domain`` check judges ``token`` (then ``mass`` does not)."""
        return token.word_class in DOMAIN_CLASSES and self.checks_words


def domain_problems(vocabulary: DomainVocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``domain`` refusal of the inserted word ``tokens[i]``: an adjective or adverb the dataset rarely uses."""
    token = tokens[i]
    if not vocabulary.domain_judges(token):
        return []
    seen = vocabulary.count(token.lemma, token.word_class)
    if seen >= vocabulary.min_count:
        return []
    return [DOMAIN.problem(f"the {token.word_class} {token.text!r} occurs {seen} times in the dataset's "
                           f"{vocabulary.sentences} sentences (at least {vocabulary.min_count} needed)")]


def mass_problems(vocabulary: DomainVocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``mass`` refusal of the inserted word ``tokens[i]``: a count determiner before a noun the dataset never
    counts."""
    token = tokens[i]
    if vocabulary.domain_judges(token) or token.lower not in _INSERTED_COUNT_DETERMINERS:
        return []
    noun = _noun_after(tokens, i + 1)
    if noun is None or not vocabulary.is_mass(noun.lemma):
        return []
    return [MASS.problem(f"{token.text!r} goes before {noun.text!r}, which the dataset uses "
                         f"{vocabulary.nouns[noun.lemma.lower()]} times and never after a/an/each/every")]


def collocation_problems(vocabulary: DomainVocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``collocation`` refusal of the inserted word ``tokens[i]``: it stands between the two words of a fixed
    phrase of the dataset."""
    if not vocabulary.checks_words or not 0 < i < len(tokens) - 1:
        return []  # a small dataset's pairs say nothing about fixed phrases
    before, after = tokens[i - 1], tokens[i + 1]
    if not (_content(before) and _content(after)) or not vocabulary.is_collocation(before.lower, after.lower):
        return []
    return [COLLOCATION.problem(f"{tokens[i].text!r} goes into {before.text + ' ' + after.text!r}, which the "
                                f"dataset writes together {vocabulary.pairs[(before.lower, after.lower)]} times")]


def _content(token) -> bool:
    """An adjective, noun, verb or adverb, names included (the words a fixed phrase is made of)."""
    return token.word_class is not None or token.tag in ("NNP", "NNPS")


DOMAIN = Check("domain", "usage", "an inserted adjective or adverb the dataset uses too rarely", domain_problems)
MASS = Check("mass", "usage", "an inserted a/an/each/every/another before a noun the dataset never counts",
             mass_problems)
COLLOCATION = Check("collocation", "usage", "an inserted word between the two words of a fixed phrase of the dataset "
                    "(``COLLOCATION_MIN``, ``COLLOCATION_RATIO``)", collocation_problems)
# in the order they run on each inserted word
USAGE_CHECKS: tuple[Check, ...] = (DOMAIN, MASS, COLLOCATION, ATTESTED, *READER_CHECKS, UNVALIDATED)


def _determiner_before(tokens: Sequence, i: int):
    """The token before the noun at ``i``, looking past prenominal modifiers."""
    j = i - 1
    while j >= 0 and tokens[j].tag in _PRENOMINAL:
        j -= 1
    return tokens[j] if j >= 0 else None


def _noun_after(tokens: Sequence, j: int):
    """The singular common noun a determiner at ``j - 1`` goes with, past prenominal modifiers; None if another."""
    while j < len(tokens) and tokens[j].tag in _PRENOMINAL:
        j += 1
    return tokens[j] if j < len(tokens) and tokens[j].tag == "NN" else None
