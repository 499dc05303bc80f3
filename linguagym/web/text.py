"""Text a user types into names, notes and searches: cleaned before it is stored, escaped before it is searched."""

from __future__ import annotations

import re

# Characters kept out of the names and notes a user types (file names, name fields, searches): PostgreSQL refuses
# NUL in text; the others are controls, bidi overrides and line separators that garble a list, and lone
# surrogates, which cannot be encoded at all. (Suites and test files refuse NUL and lone surrogates when loaded.)
UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def clean_text(value: str) -> str:
    """``value`` as stored in a name or note column, or searched for: tabs and line breaks become spaces, the
    other unshowable characters (see ``UNSHOWABLE``) are dropped."""
    return UNSHOWABLE.sub("", re.sub(r"[\t\n\r\u2028\u2029]+", " ", value))


def contains_pattern(query: str) -> str:
    """A LIKE pattern finding ``query`` anywhere, its own % and _ taken literally (escape character \\)."""
    escaped = re.sub(r"([\\%_])", r"\\\1", clean_text(query).strip().lower())
    return f"%{escaped}%"
