"""JSON decoded strictly, so that whatever loads can also be used, written out and read back: suites, capability-test
files, request bodies.

Python's json module takes things a document must not hold, or fails on them with a bare exception: ``NaN`` and
``Infinity`` (not JSON), ``1e999`` (read as inf, written back as ``Infinity``), integers of more than 4,300
digits (ValueError), nesting deep enough to exhaust the stack (RecursionError), a key given twice (the last one
silently wins) and ``\\ud800`` escapes (lone surrogates, which no UTF-8 file can hold). Here each one becomes a
located Problem: the decoder leaves a marker where a refused value was, and ``data_problems`` finds the markers
(and the same faults in data decoded elsewhere, such as a web request) with their JSON paths.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter

from linguagym.errors import Problem

MAX_DEPTH = 64  # arrays and objects inside one another; a suite needs 7, a capability-test file 5
MAX_INTEGER_DIGITS = 100
_LARGEST_INTEGER = 10**MAX_INTEGER_DIGITS - 1
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_UNWRITABLE = re.compile("[\x00\ud800-\udfff]")  # NUL (PostgreSQL and C strings refuse it), lone surrogates
_PLAIN_KEY = re.compile(r"[\w\- ]+(\.\.\.)?")


def json_path(parts) -> str:
    """['items', 3, 'conditions', 1] -> 'items[3].conditions[1]'."""
    text = ""
    for part in parts:
        if isinstance(part, str) and len(part) > 40:  # a key can be any length
            part = part[:40] + "..."
        if isinstance(part, str) and not _PLAIN_KEY.fullmatch(part):  # "2\n", "a.b", "": quoted, as Python would
            text += f"[{part!r}]"
        else:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class _Refused:
    """Stands where the decoder met a value it refuses; ``data_problems`` reports it with its path."""

    def __init__(self, message: str) -> None:
        self.message = message


class _RepeatedKeys(dict):
    """An object in which some keys were given more than once (the dict keeps the last value of each)."""

    repeated: tuple[str, ...] = ()


def _refuse_constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number; write a finite number (or null)")


def _float(text: str) -> float | _Refused:
    value = float(text)
    if math.isfinite(value):
        return value
    return _Refused(f"the number {_shortened(text)} is too large to write back (the largest is about 1.8e308)")


def _int(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        return _Refused(f"an integer of {digits} digits; integers have at most {MAX_INTEGER_DIGITS} digits")
    return int(text)


def _object(pairs: list[tuple[str, object]]) -> dict:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    marked = _RepeatedKeys(result)
    marked.repeated = tuple(key for key, count in Counter(key for key, _ in pairs).items() if count > 1)
    return marked


def nesting_problem(text: str) -> Problem | None:
    """A Problem at the bracket where ``text`` nests more than MAX_DEPTH deep, found without recursion (json
    itself would raise RecursionError); None if it nests no deeper."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return Problem(_line_column(text, match.start()), _too_deep())
        elif char in "]}":
            depth -= 1
    return None


def decode_json(text: str) -> object:
    """``json.loads`` with markers where values are refused (see ``data_problems``); raises
    json.JSONDecodeError for text that is not JSON. Check ``nesting_problem`` first."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_float, parse_int=_int,
                      object_pairs_hook=_object)


def data_problems(data: object) -> list[Problem]:
    """Everything in decoded JSON that a document cannot hold, in document order, each with its JSON path:
    refused numbers, repeated keys, non-finite floats, NUL characters and lone surrogates (in keys too),
    nesting deeper than MAX_DEPTH. Iterative, so any depth of data is safe to check."""
    problems: list[Problem] = []
    stack: list[tuple[object, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _Refused):
            problems.append(Problem(json_path(path), value.message))
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(Problem(json_path(path), f"{value} is not a finite number"))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > _LARGEST_INTEGER:
            problems.append(Problem(json_path(path), f"integers have at most {MAX_INTEGER_DIGITS} digits"))
        elif isinstance(value, str):
            if problem := _text_problem(value):
                problems.append(Problem(json_path(path), problem))
        elif isinstance(value, dict | list) and len(path) >= MAX_DEPTH:
            problems.append(Problem(json_path(path), _too_deep()))
        elif isinstance(value, dict):
            for key in getattr(value, "repeated", ()):
                problems.append(Problem(json_path(path), f"the key {key!r} is given more than once in this "
                                        "object (JSON readers keep only one of them); give each key once"))
            for key in value:
                if not isinstance(key, str):  # only from Python callers: JSON keys are strings
                    problems.append(Problem(json_path(path), f"the key {key!r} is not a string"))
                elif problem := _text_problem(key):
                    problems.append(Problem(json_path(path), f"the key {key!r} {problem}"))
            stack.extend((item, (*path, key)) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((item, (*path, index)) for index, item in reversed(list(enumerate(value))))
    return problems


def _text_problem(text: str) -> str | None:
    found = _UNWRITABLE.search(text)
    if found is None:
        return None
    char, position = found.group(), found.start() + 1
    if char == "\x00":
        return f"holds a NUL character (\\u0000) at position {position}; remove it"
    return (f"holds a lone surrogate (\\u{ord(char):04x}, half of a UTF-16 pair) at position {position}, which "
            "no UTF-8 file can hold; remove it or complete the pair")


def _too_deep() -> str:
    return f"arrays and objects nest more than {MAX_DEPTH} levels deep"


def _line_column(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    return f"line {line}, column {position - text.rfind(chr(10), 0, position)}"


def _shortened(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
