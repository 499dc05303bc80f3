"""Insert only modifiers the dataset attests with the same head (#38): "attested".

Two blind readers accepted the inserted words of only 0.26-0.39 of the default expansions. What they accepted were
modifiers that fit their head ("overall", "own", "complex", "cinematic"); what they rejected were classifying
adjectives that do not fit it ("female", "initial", "political", "local", "online") and adverbs (3 of 39). A word
that is probable after the left context is not thereby a word that goes with this noun; the dataset's own sentences
(10,605 by default, already tagged for the seed search) say which modifiers go with which heads:

- an inserted adjective must be one the dataset puts before the same noun (by lemma: "smart film" attests "smart"
  for "films"), past other prenominal words ("a smart , funny film" attests both);
- an inserted adverb must be one the dataset puts before the same adjective, verb or adverb ("beautifully shot"),
  or, where the inserted adverb follows a verb, after the same verb ("plays well").

A modifier whose head cannot be found (an adjective with no noun after it, an adverb beside no adjective, verb or
adverb) is refused likewise: nothing attests it. ``benchmarks/expansion_attested.py`` measures the rule on the
judged samples of ``benchmarks/``; docs/capabilities.md gives the figures. The filler's proposals come from the
left context alone, so the expander also offers the filler the head's attested modifiers (``ModifierPairs.forms``,
``mask_heads``; ``CausalFiller.fill``'s ``extra``), so the rule does not starve the output as much.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from linguagym.capabilities.expansion.check import Check, Problem

_NOUNS = ("NN", "NNS")
# what may stand between a prenominal adjective and its noun ("a smart , funny film", "a well - made film")
_BETWEEN = ("JJ", "JJR", "JJS", "VBN", "VBG", "HYPH", "CD", "CC", ",", "RB")
_ADVERB_HEADS = ("JJ", "JJR", "JJS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "RB", "RBR")
_VERBS = ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ")
ADJECTIVE_TAGS = ("JJ", "JJR", "JJS")
ADVERB_TAGS = ("RB", "RBR", "RBS")


def _lemma(token) -> str:
    return token.lemma.lower()


def head(tokens: Sequence, i: int) -> int | None:
    """The index of the word the modifier ``tokens[i]`` modifies, by tags: an adjective's noun (the first NN/NNS
    after it past prenominal words; a noun followed by another noun is a compound's modifier, so the last noun of
    the run), an adverb's adjective, verb or adverb (the next word, else the verb just before it); None when there
    is none (a predicative adjective, an adverb beside a noun or punctuation)."""
    tag = tokens[i].tag
    if tag in ADJECTIVE_TAGS:
        j = i + 1
        while j < len(tokens) and tokens[j].tag in _BETWEEN and tokens[j].tag not in _NOUNS:
            j += 1
        if j < len(tokens) and tokens[j].tag in _NOUNS:
            while j + 1 < len(tokens) and tokens[j + 1].tag in _NOUNS:
                j += 1
            return j
        return None
    if tag in ADVERB_TAGS:
        if i + 1 < len(tokens) and tokens[i + 1].tag in _ADVERB_HEADS:
            return i + 1
        if i > 0 and tokens[i - 1].tag in _VERBS:
            return i - 1
    return None


@dataclass(frozen=True)
class ModifierPairs:
    """(modifier lemma, head lemma) -> times the dataset has them so (``head``), for adjectives and adverbs."""

    pairs: Counter
    by_head: dict  # head lemma -> {(modifier lemma, tag, lower-cased form): times seen}

    @classmethod
    def from_analyses(cls, analyses: Sequence) -> ModifierPairs:
        pairs: Counter = Counter()
        forms: dict[str, Counter] = {}
        for analysis in analyses:
            tokens = analysis.tokens
            for i, token in enumerate(tokens):
                if token.tag not in ADJECTIVE_TAGS and token.tag not in ADVERB_TAGS:
                    continue
                j = head(tokens, i)
                if j is None:
                    continue
                key = (_lemma(token), _lemma(tokens[j]))
                pairs[key] += 1
                forms.setdefault(key[1], Counter())[(key[0], token.tag, token.lower)] += 1
        by_head = {h: dict(sorted(counter.items())) for h, counter in forms.items()}
        return cls(pairs, by_head)

    def attested(self, modifier: str, head_lemma: str) -> int:
        return self.pairs.get((modifier.lower(), head_lemma.lower()), 0)

    def forms(self, head_lemma: str, tag: str) -> tuple[str, ...]:
        """The lower-cased forms the dataset uses as a modifier of ``head_lemma`` with a tag of ``tag``'s class (an
        adjective's or an adverb's), most often first (then by spelling): the candidates offered to the filler,
        and what a fill is held to before it is tagged."""
        tags = ADJECTIVE_TAGS if tag in ADJECTIVE_TAGS else ADVERB_TAGS
        counts: Counter = Counter()
        for (_, t, form), n in self.by_head.get(head_lemma.lower(), {}).items():
            if t in tags:
                counts[form] += n
        return tuple(form for form, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


@dataclass(frozen=True)
class _Slot:
    """A mask's place among the seed's tokens, for ``head``: only its tag is read."""

    tag: str
    lemma: str = ""
    text: str = ""


def mask_heads(tokens: Sequence, offsets: Sequence[tuple[int, str]]) -> list[int | None]:
    """For each mask (character offset in the seed, tag) of a masked sentence, the index into the seed's
    ``tokens`` of the word it would modify (``head``), or None (not a modifier's tag, or no head): the masks go
    in as placeholders before the first token at or after their offset."""
    placed: list = list(tokens)
    where: list[int] = []
    for number, (offset, tag) in enumerate(offsets):
        k = next((n for n, t in enumerate(tokens) if t.start >= offset), len(tokens)) + number
        placed.insert(k, _Slot(tag))
        where.append(k)
    out: list[int | None] = []
    for k, (_, tag) in zip(where, offsets, strict=True):
        if tag not in ADJECTIVE_TAGS and tag not in ADVERB_TAGS:
            out.append(None)
            continue
        j = head(placed, k)
        if j is None or isinstance(placed[j], _Slot):
            out.append(None)
            continue
        out.append(j - sum(1 for w in where if w < j))  # back to an index into ``tokens``
    return out


def attested_problems(vocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``attested`` refusal of the inserted word ``tokens[i]``: an adjective or adverb the dataset never uses
    with the head it modifies here (or one whose head cannot be found). ``vocabulary``: the dataset's usage
    (``domain.DomainVocabulary``); no refusal where it has no modifier pairs or the dataset is too small."""
    pairs = vocabulary.modifiers
    if pairs is None or not vocabulary.checks_words:
        return []
    token = tokens[i]
    if token.tag not in ADJECTIVE_TAGS and token.tag not in ADVERB_TAGS:
        return []
    j = head(tokens, i)
    if j is None:
        return [ATTESTED.problem(f"the inserted {token.text!r} modifies no word the rule can find (an adjective "
                                 "before a noun, an adverb beside an adjective, verb or adverb)")]
    if pairs.attested(_lemma(token), _lemma(tokens[j])):
        return []
    return [ATTESTED.problem(f"the dataset never has {token.text!r} modifying {tokens[j].text!r} "
                             f"(lemma {_lemma(tokens[j])!r})")]


ATTESTED = Check("attested", "usage", "an inserted adjective or adverb the dataset never uses with the same head "
                 "(``attested.py``)", attested_problems)
