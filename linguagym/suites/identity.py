"""When two suites are the same suite: ``same_content`` compares what a run computes from a suite and what its
pages say, not how the file happened to be written, so saving a suite without an edit stores no new version (and
queues no automatic run).

Not edits (each changes nothing a run computes or a reader learns):
- the order of conditions within an item: predictions and results name conditions, never positions;
- a metadata field left empty (``"author": ""``, ``"reference": null``): it says nothing, and an editor that drops
  or adds empty fields must not make a version of its own.
Edits: everything else, including the order of items, regions and predictions (results are reported in that
order, a prediction by its position) and any change of text, even of whitespace inside a region (the loader
already strips a region's ends).
"""

from __future__ import annotations

import hashlib
import json

from linguagym.suites.model import Suite
from linguagym.suites.save import suite_to_dict

EMPTY: tuple[object, ...] = ("", None, [], {})


def content_key(suite: Suite) -> str:
    """A digest equal for two suites exactly when ``same_content`` holds."""
    data = suite_to_dict(suite)
    data["meta"] = {key: value for key, value in data["meta"].items() if value not in EMPTY or key == "name"}
    for item in data["items"]:
        item["conditions"] = sorted(item["conditions"], key=lambda condition: condition["condition_name"])
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def same_content(first: Suite, second: Suite) -> bool:
    """Whether ``first`` and ``second`` differ only in what is not an edit (see the module's docstring)."""
    return content_key(first) == content_key(second)
