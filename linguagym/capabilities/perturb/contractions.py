"""Contractions expanded and made, as CheckList's ``Perturb.expand_contractions`` and ``Perturb.contract`` do:
"isn't" <-> "is not", "they're" <-> "they are" ...

Only contractions with one reading are listed: "'s" (is or has) and "'d" (would or had) are left alone, since
expanding them by guess writes "it is been" (CheckList's list has that error).
"""

from __future__ import annotations

import re

CONTRACTIONS = {
    "isn't": "is not", "aren't": "are not", "wasn't": "was not", "weren't": "were not", "don't": "do not",
    "doesn't": "does not", "didn't": "did not", "can't": "cannot", "couldn't": "could not", "won't": "will not",
    "wouldn't": "would not", "shouldn't": "should not", "haven't": "have not", "hasn't": "has not",
    "hadn't": "had not", "mustn't": "must not", "I'm": "I am", "you're": "you are", "we're": "we are",
    "they're": "they are", "I've": "I have", "you've": "you have", "we've": "we have", "they've": "they have",
    "I'll": "I will", "you'll": "you will", "he'll": "he will", "she'll": "she will", "it'll": "it will",
    "we'll": "we will", "they'll": "they will",
}
_EXPANSIONS = {short.lower(): long for short, long in CONTRACTIONS.items()}
_CONTRACTED = {long.lower(): short for short, long in CONTRACTIONS.items()}
_APOSTROPHES = "'\u2019"  # typewriter and typographic


def _pattern(words) -> re.Pattern[str]:
    alternatives = sorted((re.escape(w).replace("'", f"[{_APOSTROPHES}]") for w in words), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(alternatives) + r")\b", re.IGNORECASE)


_SHORT = _pattern(CONTRACTIONS)
_LONG = _pattern(CONTRACTIONS.values())


def _same_case(found: str, replacement: str) -> str:
    """``replacement`` capitalised as ``found`` is ("Isn't" -> "Is not"; "I" stays upper case)."""
    if found.isupper() and len(found) > 1 and not found.startswith("I'"):
        return replacement.upper()
    if found[0].isupper():
        return replacement[0].upper() + replacement[1:]
    return replacement


def expand_contractions(text: str) -> str:
    """``text`` with every listed contraction written out ("isn't" -> "is not")."""
    return _SHORT.sub(lambda m: _same_case(m.group(), _EXPANSIONS[m.group().lower().replace("\u2019", "'")]), text)


def contract(text: str) -> str:
    """``text`` with every listed pair of words contracted ("is not" -> "isn't")."""
    return _LONG.sub(lambda m: _same_case(m.group(), _CONTRACTED[m.group().lower()]), text)


def contraction_variant(text: str) -> str | None:
    """CheckList's ``Perturb.contractions`` in one text: the contractions expanded where there are any, else the
    pairs contracted; None when neither changes ``text``."""
    for change in (expand_contractions, contract):
        changed = change(text)
        if changed != text:
            return changed
    return None
