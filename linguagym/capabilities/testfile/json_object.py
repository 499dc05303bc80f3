"""A frozen dataclass that mirrors one JSON object and writes it back exactly as it was read: ``JsonObject``
(see ``model``, whose classes are all of this kind), with the helpers their ``from_json`` use to take a
value into a typed field only when it has the expected shape."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self


def plain(value: Any) -> Any:
    """``value`` as fresh JSON data: records by ``to_json``, mappings as dicts, tuples and lists as lists."""
    if isinstance(value, JsonObject):
        return value.to_json()
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


@dataclass(frozen=True, kw_only=True)
class JsonObject:
    """One JSON object. Subclasses name its keys as fields (frozen, keyword-only); ``KEYS`` is the order their
    writer puts them in, ``OPTIONAL`` the keys left out when their field is None (in an object made in code).
    ``extra`` holds the keys the class does not name, and values of unchecked keys that do not have the expected
    shape; ``key_order`` the keys as read (not compared), so that ``to_json`` writes them back in that order.
    Subclasses read with ``_read``, from their own ``from_json``."""

    KEYS: ClassVar[tuple[str, ...]] = ()
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    extra: Mapping[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The object as JSON data (fresh dicts and lists), keys in the order read (else the writers' order); a
        field set since, or an ``extra`` key added, comes after them."""
        order = list(self.key_order) or [key for key in self.KEYS
                                         if key not in self.OPTIONAL or getattr(self, key) is not None]
        order += [key for key in self.KEYS if key not in order and getattr(self, key) is not None]
        order += [key for key in self.extra if key not in order]
        out: dict[str, Any] = {}
        for key in order:
            value = getattr(self, key) if key in self.KEYS else None
            if key in self.KEYS and (value is not None or key not in self.extra):
                out[key] = plain(value)
            elif key in self.extra:
                out[key] = plain(self.extra[key])
        return out

    @classmethod
    def _read(cls, data: Mapping[str, Any], values: dict[str, Any]) -> Self:
        """An instance with ``values`` (typed fields, by key) and every other key of ``data`` in ``extra``."""
        extra = {key: plain(value) for key, value in data.items() if key not in values}
        return cls(**values, extra=extra, key_order=tuple(data))


def take_checked(data: Mapping[str, Any], values: dict[str, Any], key: str, fits: Callable[[Any], bool],
                 convert: Callable[[Any], Any] = lambda value: value) -> None:
    """Put ``convert(data[key])`` into ``values`` when the key is there and its value ``fits``; else (a key the
    schema does not check, holding something else) it stays for ``extra``."""
    if key in data and fits(data[key]):
        values[key] = convert(data[key])


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def is_string_map(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(item, str) for item in value.values())
