"""The ``tag`` check of a filled sentence (``validate``): each filled word is one token of the new sentence and
carries its mask's Penn tag. Alone, it needs tags only, so ``staged`` runs it before the re-parse."""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem


def tag_problems(tokens: Sequence, words: Sequence[str], spans: Sequence[tuple[int, int]],
                 tags: Sequence[str]) -> list[Problem]:
    """The ``tag`` check alone: each filled word is one of ``tokens`` (the new sentence's, whitespace left out:
    anything with ``start``, ``end`` and ``tag``) and carries its mask's tag."""
    problems = (tag_problem(tokens, word, start, end, tag)[1]
                for word, (start, end), tag in zip(words, spans, tags, strict=True))
    return [problem for problem in problems if problem is not None]


def tag_problem(tokens: Sequence, word: str, start: int, end: int, tag: str) -> tuple[int | None, Problem | None]:
    """The index of the token the filled ``word`` is (None if it is not one token) and its ``tag`` problem."""
    index = next((i for i, t in enumerate(tokens) if t.start == start), None)
    if index is None or tokens[index].end != end:
        return None, TAG.problem(f"{word!r} is not one token in the new sentence")
    found = tokens[index].tag
    if found == tag:
        return index, None
    return index, TAG.problem(f"{word!r} is tagged {found} in the new sentence, the mask is {tag}")


def _tag_problems(tokens: Sequence, word: str, start: int, end: int, tag: str) -> list[Problem]:
    problem = tag_problem(tokens, word, start, end, tag)[1]
    return [problem] if problem is not None else []


TAG = Check("tag", "tag", "a filled word that is not one token of the new sentence, or not tagged as its mask",
            _tag_problems)
