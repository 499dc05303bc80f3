"""Does a dataset sentence meet a search rule? Label, length, clauses, required and forbidden words, start
pattern."""

from __future__ import annotations

import operator
from dataclasses import dataclass

from linguagym.capabilities.data.analysis import Analysis, Token
from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.seeds.negation import CannotNegate, clauses, is_clause, negate
from linguagym.capabilities.seeds.specs import NEGATED_VERB, PatternElement, Search, WordCondition

# words that set one part of a sentence against another: a sentence holding one says two things (``unmixed``)
CONTRASTIVE = frozenset({"but", "yet", "although", "though", "however", "whereas", "while", "nevertheless",
                         "nonetheless", "despite", "still"})
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}


@dataclass(frozen=True)
class Match:
    """A sentence that meets a search; ``captures`` are the start pattern's named spans (character offsets)."""

    captures: dict[str, tuple[int, int]]


def search_match(search: Search, example: Example, analysis: Analysis) -> Match | None:
    if example.label not in search.labels:
        return None
    length = analysis.length
    if not all(_COMPARE[op](length, bound) for op, bound in search.length):
        return None
    if search.clauses and not all(_COMPARE[op](clauses(analysis), bound) for op, bound in search.clauses):
        return None
    if search.clause and not is_clause(analysis):
        return None
    if search.unmixed and any(t.lower in CONTRASTIVE for t in analysis.tokens):
        return None
    # a dataset of labels only has no score to bound: its label is the evidence
    if search.score and example.score is not None \
            and not all(_COMPARE[op](example.score, bound) for op, bound in search.score):
        return None
    if not all(any(word_matches(c, t) for t in analysis.tokens) for c in search.require):
        return None
    if any(word_matches(c, t) for c in search.forbid for t in analysis.tokens):
        return None
    if not search.start:
        return Match({})
    captures = match_start(search.start, analysis.tokens)
    if captures is None:
        return None
    if search.negatable:
        try:
            negate(analysis, captures[NEGATED_VERB][0])
        except (CannotNegate, KeyError):
            return None
    return Match(captures)


def word_matches(condition: WordCondition, token: Token) -> bool:
    if token.word_class is None or token.sentiment is None:
        return False
    if condition.word_class is not None and token.word_class != condition.word_class:
        return False
    return token.sentiment in condition.sentiments


def match_start(pattern: tuple[PatternElement, ...], tokens: tuple[Token, ...]) -> dict[str, tuple[int, int]] | None:
    """Named spans when ``pattern`` matches from the first token (shortest gaps first), else None."""
    return _match(pattern, 0, tokens, 0, {})


def _match(pattern, step: int, tokens, at: int, captures: dict) -> dict | None:
    if step == len(pattern):
        return captures
    element: PatternElement = pattern[step]
    if element.gap is not None:
        low, high = element.gap
        for width in range(low, high + 1):
            inside = tokens[at:at + width]
            if len(inside) < width or any(t.tag in element.forbid_tags or t.lower in element.forbid_words
                                          or t.sentiment in element.forbid_sentiments for t in inside):
                break  # wider gaps hold the same forbidden token, or run past the end
            found = dict(captures)
            if element.name and width:
                found[element.name] = (inside[0].start, inside[-1].end)
            result = _match(pattern, step + 1, tokens, at + width, found)
            if result is not None:
                return result
        return None
    if at >= len(tokens) or not _token_fits(element, tokens[at]):
        return None
    if element.not_followed_by and at + 1 < len(tokens) and tokens[at + 1].lower in element.not_followed_by:
        return None
    found = dict(captures)
    if element.name:
        found[element.name] = (tokens[at].start, tokens[at].end)
    return _match(pattern, step + 1, tokens, at + 1, found)


def _token_fits(element: PatternElement, token: Token) -> bool:
    if element.words is not None and token.lower not in element.words:
        return False
    return element.tags is None or token.tag in element.tags
