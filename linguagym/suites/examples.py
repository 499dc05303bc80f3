"""The example suites bundled with linguagym (written for the project), for the demo and the tests."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def example_suite_paths() -> list[Path]:
    """Paths of the bundled example suites, sorted by name."""
    folder = resources.files("linguagym").joinpath("data", "examples")
    return sorted(Path(str(entry)) for entry in folder.iterdir() if entry.name.endswith(".json"))
