"""A sentence negated for CheckList's directional tests (its ``Perturb.add_negation``): spaCy's dependency parse
finds the main verb of the first sentence (its first auxiliary, a main-verb "be", or the bare main verb), and
``seeds.negation.negate`` (the one negation LC4/LC5's templates use too) places "not" where English puts it:
"will not be", "was not loved", "cannot", "is certainly not good", "is not very good", do-support ("loved it" ->
"did not love it"). Like CheckList, only the first sentence is negated, and a sentence it cannot place "not" in
is left out (None) rather than guessed.

Sentences that already hold a negation are left out too: negating them again ("isn't not") says something else.
"""

from __future__ import annotations

import re

from linguagym.capabilities.data.analysis import Analysis, Token
from linguagym.capabilities.seeds.negation import CannotNegate, negate

NEGATION_WORDS = re.compile(r"\b(not|no|never|nothing|nobody|none|neither|nor|without|cannot)\b|n[’']t\b",
                            re.IGNORECASE)
_FINITE = frozenset({"VBD", "VBZ", "VBP"})


def add_negation(doc) -> str | None:
    """The text of ``doc`` (a spaCy ``Doc`` with a dependency parse) with its first sentence's main verb negated;
    None where that cannot be done reliably (no verb, a question, a negation already there)."""
    text = doc.text
    if NEGATION_WORDS.search(text) or "?" in text:
        return None
    sentence = next(iter(doc.sents), None)
    if sentence is None or len(sentence) < 2:
        return None
    root = sentence.root
    if root.pos_ not in ("VERB", "AUX"):
        return None
    auxiliaries = [child for child in root.children if child.dep_ in ("aux", "auxpass") and child.i < root.i]
    verb = auxiliaries[0] if auxiliaries else root
    if verb is root and root.lemma_ != "be" and root.tag_ not in _FINITE:
        return None  # a bare participle or infinitive: nothing finite to negate
    try:
        return negate(_analysis(doc), verb.idx)
    except CannotNegate:
        return None


def _analysis(doc) -> Analysis:
    """The tokens ``negate`` reads (text, lemma, tags, offsets) from a parsed ``Doc``; no lexicon is needed."""
    tokens = tuple(Token(t.text, t.lemma_, t.tag_, t.pos_, t.idx, t.idx + len(t.text), bool(t.is_punct), None, None)
                   for t in doc if not t.is_space)
    return Analysis(doc.text, tokens)
