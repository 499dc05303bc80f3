"""The run form's values as the page shows them: empty, filled from the query string (``/runs?suite=3&model=gpt2``),
from an earlier run ("Run again": ``/runs?from=7``), or as submitted when the server refused it (shown again with
the error, nothing lost). Only shown, never trusted: ``runs.views.start`` checks what is submitted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from werkzeug.datastructures import MultiDict

from linguagym.evaluation.collections import builtin_collections, load_collection
from linguagym.evaluation.run import DEFAULT_MODEL
from linguagym.web.db import RunRecord, SuiteRecord

TEXT_FIELDS = ("other_models", "device", "batch_size", "policy", "model_args", "limit", "compat", "crossing", "ties",
               "name")


@dataclass
class RunFormValues:
    suites: set[int] = field(default_factory=set)  # suite ids (their latest versions are run)
    models: list[str] = field(default_factory=list)  # the named models ticked
    other_models: str = ""  # one model per line: paths, hub ids
    device: str = "auto"
    batch_size: str = "16"
    policy: str = ""  # "": the collection's (policy.py), as `linguagym run` without --policy
    model_args: str = ""
    limit: str = ""
    compat: str = ""
    crossing: str = "first"  # what a token covering several regions counts for (alignment.CROSSING_RULES)
    ties: str = "strict"  # how '<' and '>' decide two equal sides (formula.TIE_RULES)
    name: str = ""
    bow_correction: bool = False  # word-boundary correction (a checkbox)


def _suite_ids(values: Sequence[str]) -> set[int]:
    """Ids to tick; anything else is ignored here (a submitted one is checked, and named, by ``parse_id``)."""
    return {int(value) for value in values if value.isascii() and value.isdigit() and len(value) < 20}


def values_from(fields: MultiDict) -> RunFormValues:
    """The values of a submitted form or of a query string (the same field names)."""
    values = RunFormValues(suites=_suite_ids(fields.getlist("suite")), models=fields.getlist("model"))
    for name in TEXT_FIELDS:
        given = fields.get(name)
        if isinstance(given, str):
            setattr(values, name, given)
    values.bow_correction = fields.get("bow_correction") in ("1", "on", "true")
    return values


def values_of_run(run: RunRecord, named_models: Sequence[str]) -> RunFormValues:
    """The form that starts ``run`` again: its suites (their latest versions now), models and options, its name."""
    settings = run.settings if isinstance(run.settings, dict) else {}
    named = [m for m in run.models if m in named_models]
    other = [m for m in run.models if m not in named_models]
    model_args = settings.get("model_args") or {}
    limit = settings.get("limit")
    return RunFormValues(
        suites={link.version.suite_id for link in run.suites}, models=named, other_models="\n".join(other),
        device=str(settings.get("device", "auto")), batch_size=str(settings.get("batch_size", 16)),
        policy=str(settings.get("policy") or ""), model_args=",".join(f"{k}={_arg(v)}" for k, v in model_args.items()),
        limit="" if limit is None else str(limit), compat=str(settings.get("compat") or ""), name=run.name or "",
        crossing=str(settings.get("crossing") or "first"), ties=str(settings.get("ties") or "strict"),
        bow_correction=bool(settings.get("bow_correction")))


def _arg(value) -> str:
    """A model argument as ``model_args`` parses it back (``true``, not Python's ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def select_suites(suites: Sequence[SuiteRecord], choice: str) -> set[int]:
    """The suite ids ``?select=`` ticks: ``all`` of them, or those named in a built-in collection (``?select=
    syntaxgym-2020``); anything else ticks none (the page offers only these)."""
    if choice == "all":
        return {record.id for record in suites}
    if choice in builtin_collections():
        named = set(load_collection(choice).suites)
        return {record.id for record in suites if record.name in named}
    return set()


def collection_choices(suites: Sequence[SuiteRecord]) -> list[tuple[str, int]]:
    """The built-in collections with a stored suite, and how many of their suites are stored."""
    names = {record.name for record in suites}
    found = [(name, len(names & set(load_collection(name).suites))) for name in builtin_collections()]
    return [(name, count) for name, count in found if count]


def preselect_models(values: RunFormValues, default_models: Sequence[str], named_models: Sequence[str]) -> None:
    """An empty form gets the lab's default model set (Settings), else linguagym's default model, ticked."""
    if values.models or values.other_models.strip():
        return
    chosen = list(default_models) or [DEFAULT_MODEL]
    values.models = [m for m in chosen if m in named_models]
    values.other_models = "\n".join(m for m in chosen if m not in named_models and m != DEFAULT_MODEL)
