"""``--limit``: score only the first items of each suite (a quick look, or a test of a setup), as
lm-evaluation-harness's ``--limit`` does for its tasks: a whole number is a count of items, a number below 1 a
share of each suite (rounded up, as lm-eval rounds). A limited run is recorded and shown as such."""

from __future__ import annotations

import math
from dataclasses import replace

from linguagym.errors import ConfigurationError
from linguagym.suites.model import Suite


def check_limit(limit: object) -> None:
    """Refuse a limit that is not a count of items (1 or more) or a share of them (above 0, below 1)."""
    if limit is None:
        return
    hint = "give `limit` a number of items (10) or a share of each suite below 1 (0.1)"
    if isinstance(limit, bool) or not isinstance(limit, int | float):
        raise ConfigurationError(f"`limit` must be a number, not {limit!r}", hint=hint, settings=["limit"])
    if not math.isfinite(limit) or limit <= 0:
        raise ConfigurationError(f"`limit` must be above 0, not {limit!r}", hint=hint, settings=["limit"])


def parse_limit(text: str) -> int | float:
    """A limit as typed (``10`` items, or ``0.1`` of each suite), for the command line and the web form alike."""
    hint = "give a number of items (10) or a share of each suite below 1 (0.1)"
    try:
        value = float(text)
    except ValueError:
        raise ConfigurationError(f"limit {text!r} is not a number of items (10) or a share below 1 (0.1)",
                                 hint=hint) from None
    if not value > 0 or value == float("inf"):
        raise ConfigurationError(f"limit {text!r} must be a number above 0", hint=hint)
    return value if value < 1 else int(value)


def limited_count(total: int, limit: int | float | None) -> int:
    """How many of ``total`` items a run with ``limit`` scores (lm-eval: ``ceil(total * limit)`` below 1, else
    ``int(limit)``), never more than there are."""
    if limit is None:
        return total
    wanted = math.ceil(total * limit) if limit < 1 else int(limit)
    return min(total, wanted)


def limit_suite(suite: Suite, limit: int | float | None) -> Suite:
    """``suite`` with only its first items (regions, conditions and predictions as they are)."""
    count = limited_count(len(suite.items), limit)
    return suite if count == len(suite.items) else replace(suite, items=suite.items[:count])


def describe_limit(limit: int | float | None) -> str | None:
    """The note that marks a limited run in tables and summaries; None for a full run."""
    if limit is None:
        return None
    if limit < 1:
        return f"limit: the first {limit * 100:g}% of the items of each suite (rounded up): not a full run"
    return f"limit: the first {int(limit)} items of each suite: not a full run"
