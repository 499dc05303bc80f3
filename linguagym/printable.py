"""Text from files made safe for a terminal: characters that steer a terminal shown as visible escapes.

A suite, a file name or a message may hold ESC (which starts colour and cursor sequences), BEL, backspace,
carriage return, the C1 controls U+0080-U+009F (U+009B alone starts a sequence in some terminals), bidi
overrides (which reorder what is shown, as in "Trojan source") and lone surrogates (a file name that is not
UTF-8; writing one to stdout fails). Each becomes a backslash escape such as ``\\x1b`` or ``\\u202e``.
"""

from __future__ import annotations

import re
from functools import cache

_UNSAFE = (
    "\x00-\x1f\x7f-\x9f"  # C0 controls, DEL, C1 controls
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides and isolates
    "\u2028\u2029"  # line and paragraph separators
    "\ud800-\udfff"  # lone surrogates
)


@cache
def _pattern(keep: str) -> re.Pattern[str]:
    unsafe = re.compile(f"[{_UNSAFE}]")
    kept = "".join(re.escape(char) for char in keep)
    return re.compile(f"(?![{kept}]){unsafe.pattern}") if kept else unsafe


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, keep: str = "") -> str:
    """``text`` with every terminal-steering character (except those in ``keep``, e.g. ``"\\n"``) escaped."""
    return _pattern(keep).sub(_escape, text)
