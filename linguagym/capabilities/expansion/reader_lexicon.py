"""Insert only modifiers blind readers have accepted (#38): the ``unvalidated`` refusal.

Whether an inserted adjective or adverb is acceptable depends first on the word. Two blind readers judged 540
default expansions (``benchmarks/expansion_blind_38*`` and ``_39*``, forced choice: are the inserted words
acceptable to a careful reader?). Words that scope or place their noun without saying what it is about were
accepted in most contexts ("the *recent* film" 23 of 31, "*cinematic*" 10 of 10, "*overall*" 11 of 14, "may *also*
be" 10 of 14); classifying adjectives assert a fact the review does not make, and were rejected in most ("*political*
message" 4 of 21, "*female* director" 5 of 21, "*human* life" 11 of 29, "*western*" 3 of 9). No rule on the parse
or on the dataset's co-occurrences separated the two (the attested rule, the word's gradability and the language
model's cost each left 0.50-0.58 acceptable), so the readers' verdicts are the evidence: a word is inserted only
when its estimated acceptance, ``(accepted + 1) / (judged + 2)``, is at least ``MIN_ESTIMATE`` over at least
``MIN_JUDGED`` judged rows. A word no reader judged is not inserted; judging a new sample and rebuilding the counts
(``benchmarks/reader_lexicon.py build``) widens the list. This is CheckList's way (lexicons of words known to fit a
slot), with the lexicon measured instead of written by hand.

A third sample (``expansion_blind_40*``, 240 rows of the word lexicon's output, three readers) accepted 0.14: the
same words failed before other heads ("the *recent* film" 1 of 53, "the *current* film" 0 of 49), so a word's
acceptance depends on the word it modifies, and the shipped counts are now also by (word, lemma of the modified
word, ``attested.head``) pair, which decide where present: a word is inserted only before a head whose pair
passes the same bar, and never where no head is found.

Readers differ: two more readers of sample 40 accepted 173 and 94 of its 278 rows where its first three had
accepted 40 (kappa 0.19-0.50 between them), while on samples 38, 39 and 41 new readers agree with the first ones
(``benchmarks/expansion_agreement.py``). A row judged by several readers therefore counts by most of them (a tie:
not acceptable), which keeps 9 pairs where one reader's verdicts kept 3.

The lexicon widens by judging, not by rule: runs made without it (``--no-reader-lexicon``) show which pairs the
filler would insert, and ``benchmarks/expansion_blind_sample.py discover`` draws up to three rows of each pair a
few accepted rows could keep (samples 61 and 62, two readers each), which brought the kept pairs from 8 to 22.

The counts are ``reader_lexicon.json`` beside this module (per word and per "word head" pair: accepted, judged;
with the samples they come from). The expander offers the filler only the head's attested modifiers that the
lexicon keeps before that head, so masks no kept word can fill are not filled at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from linguagym.capabilities.expansion.check import Check, Problem

LEXICON_FILE = Path(__file__).with_name("reader_lexicon.json")
# the least estimated acceptance of a word inserted, and the least rows it must have been judged in
MIN_ESTIMATE = 0.65
MIN_JUDGED = 3
_MODIFIER_TAGS = ("JJ", "JJR", "JJS", "RB", "RBR", "RBS")


def estimate(accepted: int, judged: int) -> float:
    """The word's acceptance estimated with one accepted and one rejected row added (Laplace): small counts pull
    towards one half, so two of two is 0.75, not 1."""
    return (accepted + 1) / (judged + 2)


@dataclass(frozen=True)
class ReaderLexicon:
    """Per lower-cased word: (rows accepted, rows judged) by blind readers, and the samples they come from; and,
    where the counts have them, the same per (word, lower-cased lemma of the word it modified) pair."""

    words: dict[str, tuple[int, int]]
    sources: tuple[str, ...] = ()
    pairs: dict[tuple[str, str], tuple[int, int]] | None = None  # None: the word alone decides

    @classmethod
    def load(cls, path: Path = LEXICON_FILE) -> ReaderLexicon:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        words = {w: (int(c["accepted"]), int(c["judged"])) for w, c in document["words"].items()}
        pairs = None
        if "pairs" in document:
            pairs = {tuple(key.split(" ", 1)): (int(c["accepted"]), int(c["judged"]))
                     for key, c in document["pairs"].items()}
        return cls(words, tuple(document.get("sources", ())), pairs)

    def counts(self, word: str, head: str | None = None) -> tuple[int, int]:
        """The word's counts, or with ``head`` (and pair counts) the pair's."""
        if head is not None and self.pairs is not None:
            return self.pairs.get((word.lower(), head.lower()), (0, 0))
        return self.words.get(word.lower(), (0, 0))

    def accepts(self, word: str, head: str | None = None) -> bool:
        """Whether ``word`` may be inserted (before ``head``, the lemma of the word it modifies, where the counts
        are by pair): judged at least ``MIN_JUDGED`` times, estimated acceptable at least ``MIN_ESTIMATE``. With
        pair counts a word with no head found is never inserted: no reader judged it there."""
        if self.pairs is not None and head is None:
            return False
        accepted, judged = self.counts(word, head)
        return judged >= MIN_JUDGED and estimate(accepted, judged) >= MIN_ESTIMATE

    def accepts_anywhere(self, word: str) -> bool:
        """Whether ``word`` is kept before some head (by pair), or kept (by word)."""
        if self.pairs is None:
            return self.accepts(word)
        return any(w == word.lower() and self.accepts(w, h) for w, h in self.pairs)

    @property
    def kept(self) -> tuple[str, ...]:
        """The words kept, or with pair counts the pairs kept ("word head")."""
        if self.pairs is not None:
            return tuple(sorted(f"{w} {h}" for w, h in self.pairs if self.accepts(w, h)))
        return tuple(sorted(w for w in self.words if self.accepts(w)))

    @property
    def identity(self) -> dict:
        """What the test file records: the rule, the samples, the words (or word-head pairs) kept."""
        return {"min_estimate": MIN_ESTIMATE, "min_judged": MIN_JUDGED, "sources": list(self.sources),
                "by": "pair" if self.pairs is not None else "word", "kept": list(self.kept)}


@lru_cache(maxsize=1)
def default_lexicon() -> ReaderLexicon:
    return ReaderLexicon.load()


def unvalidated_problems(vocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``unvalidated`` refusal of the inserted word ``tokens[i]``: an adjective or adverb the reader lexicon
    does not keep (before the word it modifies, ``attested.head``, where the counts are by pair).
    ``vocabulary``: ``domain.DomainVocabulary``; no refusal where its ``lexicon`` is None (off) or the dataset is
    too small for the usage checks (as ``attested``: a test's toy corpus)."""
    from linguagym.capabilities.expansion.attested import head as modified_word

    lexicon = vocabulary.lexicon
    token = tokens[i]
    if lexicon is None or not vocabulary.checks_words or token.tag not in _MODIFIER_TAGS:
        return []
    j = modified_word(tokens, i) if lexicon.pairs is not None else None
    head = tokens[j].lemma.lower() if j is not None else None
    if lexicon.accepts(token.lower, head):
        return []
    accepted, judged = lexicon.counts(token.lower, head)
    where = f" before {head!r}" if head is not None else (" (it modifies no word the rule can find)"
                                                           if lexicon.pairs is not None else "")
    why = (f"blind readers accepted it{where} in {accepted} of {judged} judged rows" if judged
           else f"no blind reader has judged it{where}")
    return [UNVALIDATED.problem(f"the inserted {token.text!r} is not in the reader lexicon: {why} (needs at least "
                                f"{MIN_JUDGED} rows and an estimate of {MIN_ESTIMATE})")]


UNVALIDATED = Check("unvalidated", "usage", "an inserted adjective or adverb blind readers have not accepted often "
                    "enough (``reader_lexicon.py``)", unvalidated_problems)
