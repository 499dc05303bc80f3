"""How the web writes the settings a library error names (``LinguagymError.settings``): as the label of the form
field that sets it, in lower case inside a sentence (``batch_size``: "batch size"); the server's own settings as
the options of ``linguagym serve``."""

from __future__ import annotations

from linguagym.errors import LinguagymError

LABELS = {
    # the run form (runs.html) and the capability test form (capability_jobs.html)
    "batch_size": "batch size", "device": "device", "policy": "policy", "model_args": "model arguments",
    "limit": "limit", "bow_correction": "word-boundary correction", "crossing": "crossing tokens", "ties": "ties",
    "compat": "compatibility", "dtype": "the dtype model argument", "model": "model",
    "label_map": "label map", "text_column": "text column", "label_column": "label column",
    "test_types": "test types", "capabilities": "capabilities", "parser": "parser", "reference": "reference grammar",
    # the generate form (capability_jobs.html): GenerateSettings' names, as the form labels them
    "max_seeds": "seeds per LC (at most)", "seed": "random seed", "templates": "templates",
    "seeds_per_capability": "seeds per LC to expand", "per_seed": "expansions per seed",
    "fills_per_mask": "fills per masked sentence", "masked_per_seed": "masked sentences per seed",
    "insertions": "insertions", "classifiers": "classifiers", "timeout": "timeout", "retries": "retries",
}
# The server's own settings have no form field: its operator sets them when starting it, so they are shown as the
# options of `linguagym serve` (as the sign-in page speaks of its --token).
SERVER_OPTIONS = {name: "--" + name.replace("_", "-") for name in (
    "executor", "ray_workers", "ray_address", "workers", "allow_python_classifiers", "data_dir", "database_url",
    "cache_dir", "max_upload_mb")}
SERVER_OPTIONS["allowed_hosts"] = "--allowed-host"


def label(setting: str) -> str | None:
    """The words the web uses for ``setting``; ``None`` (the keyword as is) for one it has no field for."""
    return LABELS.get(setting) or SERVER_OPTIONS.get(setting)


def worded(error: LinguagymError) -> tuple[str, str | None]:
    """``error``'s message and hint as the web shows them."""
    return error.worded(label)


def text(error: LinguagymError) -> str:
    """``str(error)`` as the web shows it (a failed job's error)."""
    return error.text(label)
