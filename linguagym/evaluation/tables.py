"""A Summary as one table: the collection score and group scores, then suites, down; models across."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

from linguagym.atomic import atomic_open
from linguagym.evaluation.aggregate import Interval, Summary, missing_suites
from linguagym.evaluation.collections import AD_HOC, Collection
from linguagym.evaluation.policy import explain

_LISTED = 6  # suite names a note spells out before "..."


@dataclass(frozen=True)
class Row:
    label: str
    kind: str  # "score", "group" or "suite"
    key: str  # the interval key: "score", "group:Agr", "suite:cleft"
    values: tuple[float, ...]  # one per model
    intervals: tuple[Interval | None, ...]


def summary_rows(summary: Summary) -> list[Row]:
    models = summary.models
    collection = summary.collection
    rows = []
    if collection.score_suites:
        rows.append(Row(score_label(collection), "score", "score", tuple(m.score for m in models),
                        tuple(m.intervals.get("score") for m in models)))
    for group in collection.groups:
        key = f"group:{group.short}"
        rows.append(Row(f"{group.name} ({group.short})", "group", key, tuple(m.groups[group.short] for m in models),
                        tuple(m.intervals.get(key) for m in models)))
    present = [s for s in collection.suites if any(s in m.suites for m in models)]
    extra = sorted({s for m in models for s in m.suites} - set(present))
    for suite in [*present, *extra]:
        key = f"suite:{suite}"
        mark = "" if suite in collection.score_suites or not collection.score_suites else " *"
        rows.append(Row(suite + mark, "suite", key, tuple(m.suites.get(suite, math.nan) for m in models),
                        tuple(m.intervals.get(key) for m in models)))
    return rows


def score_label(collection: Collection) -> str:
    return {"syntaxgym-2020": "SG score", AD_HOC: "mean accuracy"}.get(collection.name, f"{collection.name} score")


def format_value(value: float, interval: Interval | None = None) -> str:
    if value != value:
        return "–"
    if interval is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{interval.low:.3f}, {interval.high:.3f}]"


def surprisal_label(summary: Summary) -> str | None:
    """How the surprisals behind the numbers were summed: word-boundary corrected or plain token sums, per model
    where the models differ; None where the outcomes do not say."""
    if summary.sums is None:
        return None
    names = [m.model for m in summary.models]
    kinds: dict[str, list[str]] = {}
    for name in names:
        kinds.setdefault(summary.sums.get(name, "not recorded"), []).append(name)
    if len(kinds) == 1:
        return f"surprisal: {next(iter(kinds))}"
    return "surprisal: " + "; ".join(f"{kind} for {', '.join(models)}" for kind, models in kinds.items())


def policy_sentence(summary: Summary) -> str:
    """The policy beside the numbers, where it comes from and what it means: ``Policy first (collection
    syntaxgym-2020): an item is correct when its first prediction holds.``"""
    chosen = summary.accuracy_policy
    suites = dict.fromkeys(s for model in summary.models for s in model.suites)
    by_policy: dict[str, list[str]] = {}
    for suite, policy in chosen.for_suites(suites).items():
        by_policy.setdefault(policy, []).append(suite)
    main = summary.policy.split(";")[0]
    meaning = f"an item is correct when {explain(main)}" + "".join(
        f"; on {', '.join(names)}, when {explain(policy)}" for policy, names in by_policy.items() if policy != main)
    source = {"given": "as given", "default": "the default"}.get(chosen.source, chosen.source)
    return f"Policy {summary.policy} ({source}): {meaning}."


def rich_table(summary: Summary, *, intervals: str = "aggregates"):
    """``intervals``: 'none', 'aggregates' (score and groups) or 'all'."""
    from rich.table import Table

    collection = summary.collection
    title = f"{collection.name}: accuracy, policy '{summary.policy}'"
    if surprisal_label(summary):
        title += f", {surprisal_label(summary)}"
    if summary.bootstrap and intervals != "none":
        title += f", 95% bootstrap intervals over items ({summary.bootstrap} resamples)"
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for model in summary.models:
        table.add_column(model.model, justify="right")
    rows = summary_rows(summary)
    for index, row in enumerate(rows):
        show = intervals == "all" or (intervals == "aggregates" and row.kind != "suite")
        cells = [format_value(v, i if show else None) for v, i in zip(row.values, row.intervals, strict=True)]
        style = "bold" if row.kind == "score" else ("cyan" if row.kind == "group" else None)
        last_aggregate = row.kind != "suite" and index + 1 < len(rows) and rows[index + 1].kind == "suite"
        table.add_row(row.label, *cells, style=style, end_section=last_aggregate)
    return table


def notes(summary: Summary) -> list[str]:
    """What a reader must know to trust the table: scores left out for missing suites, suites outside the mean,
    runs read together that recorded different policies."""
    policy_note = [summary.accuracy_policy.note] if summary.accuracy_policy.note else []
    collection, models = summary.collection, summary.models
    label = score_label(collection)
    if collection.name == AD_HOC:  # summarize averaged only the suites every model has
        unshared = collection.exclude_from_score
        if not unshared:
            return policy_note
        if collection.score_suites:
            shared = len(collection.score_suites)
            return [*policy_note, f"{label}: mean over the {_count(shared, 'suite')} all models share; "
                    f"{len(unshared)} other{'s are' if len(unshared) != 1 else ' is'} shown but not averaged (marked "
                    f"*): {_listing(unshared)}"]
        return [*policy_note, f"no {label}: no suite has results for every model; {len(unshared)} suites are shown "
                "but not averaged"]
    lines = list(policy_note)
    expected = len(collection.score_suites)
    by_missing: dict[tuple[str, ...], list[str]] = {}
    for model in models:
        by_missing.setdefault(tuple(missing_suites(collection, model)), []).append(model.model)
    for missing, names in by_missing.items():
        if missing:
            lines.append(f"{label} not computed{_for(names, models)}: {len(missing)} of its {expected} suites "
                         f"{'is' if len(missing) == 1 else 'are'} missing ({_listing(missing)})")
    partial = []
    affected: set[str] = set()
    for group in collection.groups:
        needed = collection.group_suites(group)
        lacking = {s for m in models for s in missing_suites(collection, m, needed)}
        if lacking:
            partial.append(f"{group.short} ({len(lacking)} of {len(needed)})")
            affected |= {m.model for m in models if missing_suites(collection, m, needed)}
    if partial:
        names = [m.model for m in models if m.model in affected]
        lines.append(f"group scores not computed{_for(names, models)}, suites missing: {', '.join(partial)}")
    if collection.exclude_from_score:
        lines.append("* not in the score: " + ", ".join(collection.exclude_from_score))
    return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _for(names: list[str], models) -> str:
    return "" if len(names) == len(models) else " for " + ", ".join(names)


def _listing(suites) -> str:
    shown = ", ".join(suites[:_LISTED])
    return shown + (", ..." if len(suites) > _LISTED else "")


def write_summary_csv(summary: Summary, path) -> None:
    """Long format: one row per model and table row, with the interval bounds."""
    with atomic_open(path, "w", newline="") as handle:
        summary_csv(summary, handle)


def summary_csv(summary: Summary, handle) -> None:
    """The rows of ``write_summary_csv`` into an open text handle (stdout for ``--csv -``)."""
    writer = csv.writer(handle)
    writer.writerow(["collection", "policy", "model", "kind", "name", "accuracy", "ci_low", "ci_high", "items"])
    for row in summary_rows(summary):
        name = row.key.split(":", 1)[-1]
        # a suite's row names its own policy; the score and groups, the summary's (``first; all: x`` if mixed)
        policy = summary.accuracy_policy.of(name) if row.kind == "suite" else summary.policy
        for model, value, interval in zip(summary.models, row.values, row.intervals, strict=True):
            writer.writerow([summary.collection.name, policy, model.model, row.kind, name,
                             "" if value != value else round(value, 6),
                             "" if interval is None else round(interval.low, 6),
                             "" if interval is None else round(interval.high, 6),
                             model.items.get(name, "") if row.kind == "suite" else ""])


def summary_markdown(summary: Summary, *, intervals: str = "aggregates") -> str:
    """The table as GitHub-flavoured Markdown, for papers and docs."""
    models = [m.model for m in summary.models]
    lines = ["| | " + " | ".join(models) + " |", "| --- |" + " ---: |" * len(models)]
    for row in summary_rows(summary):
        show = intervals == "all" or (intervals == "aggregates" and row.kind != "suite")
        cells = [format_value(v, i if show else None) for v, i in zip(row.values, row.intervals, strict=True)]
        label = f"**{row.label}**" if row.kind == "score" else row.label
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    # a withheld score must not pass for a complete table in a paper either, nor token sums for words
    caveats = [line for line in (surprisal_label(summary), *notes(summary)) if line]
    if caveats:
        lines.append("")
        lines.extend(f"_{line}_" for line in caveats)
    return "\n".join(lines) + "\n"
