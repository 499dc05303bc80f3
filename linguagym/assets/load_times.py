"""How long de-quantising a named model's GGUF took on this machine, kept beside the converted copies
(``<cache>/models/dequantise-times.json``), so the loading stage can say how long the next one should take from
what this machine measured, rather than from a figure measured elsewhere. With nothing measured yet it says nothing
about time.

The rate is bytes of GGUF per second over the recorded conversions (the weights' size is what de-quantising
scales with); a busy machine is slower than its record, so the stage says "about" and where the figure comes from.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from linguagym.atomic import atomic_write_text

log = logging.getLogger(__name__)
KEPT = 20  # the latest conversions the rate is taken from
FILE_NAME = "dequantise-times.json"


def _path(cache_dir: Path) -> Path:
    return cache_dir / "models" / FILE_NAME


def _records(cache_dir: Path) -> list[dict]:
    try:
        data = json.loads(_path(cache_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # none yet, or unreadable: then nothing is claimed
    return [r for r in data if isinstance(r, dict) and _positive(r.get("bytes")) and _positive(r.get("seconds"))] \
        if isinstance(data, list) else []


def _positive(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def record(cache_dir: Path, name: str, gguf_bytes: int, seconds: float) -> None:
    """Add one measured conversion; a record that cannot be written is logged, never an error of the load."""
    records = [*_records(cache_dir), {"model": name, "bytes": gguf_bytes, "seconds": round(seconds, 2)}][-KEPT:]
    try:
        atomic_write_text(_path(cache_dir), json.dumps(records, indent=1))
    except OSError as error:
        log.warning("could not record the de-quantising time in %s: %s", _path(cache_dir), error)


def estimate(cache_dir: Path, gguf_bytes: int) -> tuple[float, int] | None:
    """(seconds expected for ``gguf_bytes``, how many conversions the rate comes from); None with none recorded."""
    records = _records(cache_dir)
    if not records:
        return None
    rate = sum(r["bytes"] for r in records) / sum(r["seconds"] for r in records)
    return gguf_bytes / rate, len(records)


def dequantising_label(cache_dir: Path, gguf_bytes: int) -> str:
    """The loading stage's text: with an expected time only where this machine has measured one."""
    found = estimate(cache_dir, gguf_bytes)
    if found is None:
        return "de-quantising the GGUF weights into a float32 copy (the first time only)"
    seconds, count = found
    return (f"de-quantising the GGUF weights into a float32 copy (the first time only; about {_shown(seconds)} at "
            f"the rate this machine measured over {count} earlier conversion{'s' if count != 1 else ''}, "
            "longer when it is busy)")


def _shown(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
