"""A sentence negated, as CheckList's ``Perturb.add_negation`` does it, from spaCy's dependency parse: "not" after
the first auxiliary of the main verb ("will not be", "was not loved"), after a main-verb "be" ("is not good"), or
do-support for a bare main verb in the past or present ("loved it" -> "did not love it"). Like CheckList, only the
first sentence is negated, and a sentence it cannot place "not" in is left out (None) rather than guessed.

Sentences that already hold a negation are left out too: negating them again ("isn't not") says something else.
"""

from __future__ import annotations

import re

NEGATION_WORDS = re.compile(r"\b(not|no|never|nothing|nobody|none|neither|nor|without|cannot)\b|n[’']t\b",
                            re.IGNORECASE)
_DO_SUPPORT = {"VBD": "did not", "VBZ": "does not", "VBP": "do not"}


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
    if auxiliaries:
        aux = auxiliaries[0]
        if aux.lower_ == "can":
            return text[:aux.idx] + aux.text + "not" + text[aux.idx + len(aux.text):]  # "cannot", one word
        return _insert_after(text, aux, " not")
    if root.lemma_ == "be":
        return _insert_after(text, root, " not")
    if root.tag_ in _DO_SUPPORT and root.lemma_:
        do = _DO_SUPPORT[root.tag_]
        if root.i == sentence.start and root.text[:1].isupper():
            do = do[0].upper() + do[1:]
        return text[:root.idx] + f"{do} {root.lemma_}" + text[root.idx + len(root.text):]
    return None


def _insert_after(text: str, token, words: str) -> str:
    end = token.idx + len(token.text)
    return text[:end] + words + text[end:]
