"""Values read from requests, checked before anything uses them: ids (in paths, forms and query strings), whole
numbers, text used as given (paths, model names) and JSON bodies. A bad value raises the project's errors, shown
as a 400 (or, for an id no row can have, a 404) page or JSON; never a 500."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from werkzeug.routing import IntegerConverter

from linguagym.errors import ConfigurationError
from linguagym.web.errors import NotFound
from linguagym.web.text import UNSHOWABLE

MAX_ID = 2**63 - 1  # the largest integer SQLite stores (its driver overflows beyond); PostgreSQL's BIGINT too
_DIGITS = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() and \d also take "²" and "١"
_WHOLE = re.compile(r"[+-]?[0-9]+")


class IdConverter(IntegerConverter):
    """``<int:...>`` in every route: ASCII digits up to MAX_ID; anything else matches no route (404)."""

    regex = r"[0-9]+"

    def __init__(self, map, fixed_digits: int = 0, min: int | None = None, max: int | None = MAX_ID,  # noqa: A002
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits, min, max, signed)


def parse_id(value: str, what: str) -> int:
    """The id of a ``what`` (e.g. "suite") sent in a form or query value."""
    text = value.strip()
    if not _DIGITS.fullmatch(text):
        raise ConfigurationError(f"{_shown(value)} is not a {what} number",
                                 hint=f"pick the {what} from the list (its number is a whole number)")
    number = int(text) if len(text) <= 19 else MAX_ID + 1
    if number > MAX_ID:
        raise NotFound(f"there is no {what} number {text[:40]}", hint=f"see the list of {what}s")
    return number


def whole_number(value: str, label: str, low: int, high: int) -> int:
    """``value`` as a whole number in ``low``..``high``; ``label`` names the field in the message."""
    text = value.strip()
    if not _WHOLE.fullmatch(text):
        raise ConfigurationError(f"{label} must be a whole number, not {_shown(value)}",
                                 hint=f"write digits only, between {low} and {high}")
    number = int(text) if len(text) <= 30 else None  # int() refuses over 4,300 digits; no field needs 30
    if number is None or not low <= number <= high:
        raise ConfigurationError(f"{label} must be between {low} and {high}, not {_shown(text)}")
    return number


def plain_text(value: str, label: str) -> str:
    """``value`` if it holds no unshowable character (``text.UNSHOWABLE``: controls, bidi overrides, lone
    surrogates); for text used as given (a model or dataset path), where dropping a character would name
    something else."""
    found = UNSHOWABLE.search(value)
    if found:
        raise ConfigurationError(f"{label} {_shown(value)} holds the character U+{ord(found.group()):04X} "
                                 f"at position {found.start() + 1}", hint="type it again without that character")
    return value


def _shown(value: str) -> str:
    return ascii(value[:40] + ("..." if len(value) > 40 else ""))


def json_object_body(body: bytes, *, expected: str) -> dict:
    """The request ``body`` as a JSON object (``expected`` shows its shape in the message)."""
    hint = f"send a JSON object: {expected}"
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigurationError(f"the request body is not UTF-8 text (byte {error.start})", hint=hint) from None
    except json.JSONDecodeError as error:
        raise ConfigurationError(f"the request body is not JSON: {error.msg} at line {error.lineno}, "
                                 f"column {error.colno}", hint=hint) from None
    except RecursionError:
        raise ConfigurationError("the request body is JSON nested too deeply to read", hint=hint) from None
    except ValueError as error:  # a number of more than 4,300 digits
        raise ConfigurationError(f"the request body cannot be read: {error}", hint=hint) from None
    if not isinstance(data, dict):
        kind = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}.get(type(data),
                                                                                              "a number")
        raise ConfigurationError(f"the request body is {kind}, not a JSON object", hint=hint)
    return data


DEVICES = ("auto", "cpu", "cuda", "mps")  # what the run and job forms offer (cuda:1 and such: the command line)


def device_choice(form: Mapping[str, str]) -> str:
    """The form's device, one of ``DEVICES`` (default auto)."""
    device = form.get("device", "auto")
    if device not in DEVICES:
        raise ConfigurationError(f"unknown device {device!r}", hint="use one of " + ", ".join(DEVICES))
    return device
