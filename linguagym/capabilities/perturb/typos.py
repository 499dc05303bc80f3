"""A typo as CheckList's ``Perturb.add_typos`` makes one: two adjacent characters swapped."""

from __future__ import annotations

import random


def add_typo(text: str, rng: random.Random) -> str | None:
    """``text`` with one pair of adjacent letters of one word swapped, the pair drawn by ``rng``; None when no
    swap would change the text. CheckList swaps any two adjacent characters; swapping only two different letters
    inside a word keeps every typo a visible misspelling (never a moved space or full stop, never a no-op)."""
    pairs = [i for i in range(len(text) - 1)
             if text[i].isalpha() and text[i + 1].isalpha() and text[i] != text[i + 1]]
    if not pairs:
        return None
    i = rng.choice(pairs)
    return text[:i] + text[i + 1] + text[i] + text[i + 2:]
