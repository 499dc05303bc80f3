"""One self-contained HTML report (inline SVG plots, no network needed) for one or more runs (``RunData``: read
from their folders, or held in memory by ``run_models``), with the plots also written as SVG files beside it."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from pathlib import Path

from linguagym.atomic import atomic_directory, atomic_write_text
from linguagym.destinations import check_file, check_folder, check_replaceable
from linguagym.evaluation import plots
from linguagym.evaluation.aggregate import Summary
from linguagym.evaluation.crossing_notes import crossing_note
from linguagym.evaluation.prediction_table import (
    EFFECT_SENTENCE,
    PredictionLine,
    count_cell,
    effect_cell,
    missing_effects,
    prediction_lines,
)
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import RunData, find_runs, read_run
from linguagym.evaluation.suite_level import describe
from linguagym.evaluation.tables import format_value, notes, summary_rows, surprisal_label
from linguagym.evaluation.ties import tie_notes
from linguagym.names import MAX_NAME, fit_name, name_digest
from linguagym.version import __version__

__all__ = ["RunData", "check_report_destination", "find_runs", "read_run", "region_plot_names", "render_report",
           "write_report"]  # RunData, find_runs, read_run: the run folder's (runfolder.reader), kept importable here


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "x"


def region_plot_names(runs: list[RunData], suites: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """(model, suite) -> the file name of its region plot: ``regions_MODEL_SUITE.svg``, cut to a length file
    systems allow (``fit_name``) and given a short hash where two would be one file (``m/a b`` and ``m/a_b``)."""
    names: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for run in runs:
        for suite in suites.get(run.model, []):
            key = f"{run.model}\0{suite}"
            name = fit_name(f"regions_{_slug(run.model)}_{_slug(suite)}", key)
            if name.casefold() in taken:
                name = f"{name[:MAX_NAME - 9]}-{name_digest(key)}"
            taken.add(name.casefold())
            names[(run.model, suite)] = f"{name}.svg"
    return names


def _region_plots(model: str, regions: dict[str, plots.SuiteRegions]) -> dict[str, str]:
    """suite -> SVG of mean surprisal per region and condition, on the metric its predictions used."""
    return {suite: plots.region_plot_svg(suite, data.region_names, data.series, metric=data.metric, model=model)
            for suite, data in regions.items()}


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;margin:0;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:24px 32px 64px;background:#fff}
h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:24px 0 6px} .meta{color:#59636e;margin:0 0 16px}
table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums}
th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left} thead th{border-bottom:2px solid #ccc}
tr.score td{font-weight:600} tr.group td{color:#0b5cad} .ci{color:#8c959f;font-size:12px}
code{background:#f3f4f6;padding:1px 4px;border-radius:3px;font-size:12.5px}
.figure{overflow-x:auto;margin:8px 0} .figure svg{max-width:100%;height:auto}
.notes{color:#59636e;font-size:13px} nav a{margin-right:10px}
td.wrap{white-space:normal;word-break:break-all;max-width:260px;text-align:left}
"""


def render_report(runs: list[RunData], summary: Summary) -> tuple[str, dict[str, str]]:
    """The HTML page and its plots (file name -> SVG)."""
    e = html.escape
    figures: dict[str, str] = {}
    group_svg = plots.group_scores_svg(summary)
    if group_svg:
        figures["scores.svg"] = group_svg
    figures["suite_accuracy.svg"] = plots.suite_accuracy_svg(summary)
    regions = {run.model: run.regions() for run in runs}
    region_svgs = {model: _region_plots(model, by_suite) for model, by_suite in regions.items()}
    plot_names = region_plot_names(runs, {model: list(by_suite) for model, by_suite in region_svgs.items()})
    for model, by_suite in region_svgs.items():
        for suite, svg in by_suite.items():
            figures[plot_names[(model, suite)]] = svg

    models = [m.model for m in summary.models]
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>linguagym report: {e(', '.join(models))}"
             f"</title><style>{_CSS}</style></head><body><main>",
             "<h1>linguagym report</h1>",
             f"<p class=meta>{e(summary.collection.name)} &middot; policy <code>{e(summary.policy)}</code> &middot; "
             f"{e(surprisal_label(summary) or '')}{' &middot; ' if surprisal_label(summary) else ''}"
             f"{len(runs)} run(s) &middot; made {e(datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC'))} by linguagym "
             f"{e(__version__)}</p>",
             "<nav><a href=#summary>Summary</a><a href=#provenance>How it was made</a>"
             "<a href=#suites>Suites</a></nav>"]

    parts.append("<h2 id=summary>Summary</h2><table><thead><tr><th></th>"
                 + "".join(f"<th>{e(m)}</th>" for m in models) + "</tr></thead><tbody>")
    for row in summary_rows(summary):
        cells = []
        for value, interval in zip(row.values, row.intervals, strict=True):
            ci = (f" <span class=ci>[{interval.low:.3f}, {interval.high:.3f}]</span>"
                  if interval is not None and row.kind != "suite" else "")
            cells.append(f"<td>{e(format_value(value))}{ci}</td>")
        label = row.label if row.kind != "suite" else f"<a href='#suite-{_slug(row.key[6:])}'>{e(row.label)}</a>"
        parts.append(f"<tr class={row.kind}><td>{label if row.kind == 'suite' else e(label)}</td>{''.join(cells)}</tr>")
    parts.append("</tbody></table>")
    if summary.bootstrap:
        parts.append(f"<p class=notes>Brackets: 95% bootstrap intervals over items ({summary.bootstrap} resamples, "
                     f"seed {summary.seed}).</p>")
    parts += [f"<p class=notes>{e(line)}</p>" for line in notes(summary)]
    parts += [f"<p class=notes>{e(line)}</p>" for line in tie_notes((run.model, run.record) for run in runs)]
    parts += [f"<p class=notes>No effects for {e(model)}: its folder has no effects.csv (made by an earlier "
              "linguagym); run it again to have them: its scores are cached.</p>" for model in missing_effects(runs)]
    for name in ("scores.svg", "suite_accuracy.svg"):
        if name in figures:
            parts.append(f"<div class=figure>{figures[name]}</div>")

    parts.append("<h2 id=provenance>How it was made</h2><table><thead><tr><th>model</th><th>source</th>"
                 "<th>revision</th><th>dtype</th><th>device</th><th>start token</th><th>spacing</th>"
                 "<th>word boundary</th><th>tokens</th><th>seconds</th><th>versions</th></tr></thead><tbody>")
    for run in runs:
        scorer, settings, record = run.record.get("scorer", {}), run.record["settings"], run.record
        versions = ", ".join(f"{k} {v}" for k, v in {"linguagym": record.get("linguagym"),
                                                      **scorer.get("versions", {})}.items() if v)
        parts.append(
            f"<tr><td>{e(run.model)}</td><td class=wrap>{e(str(scorer.get('source', '')))}</td>"
            f"<td><code>{e(str(scorer.get('revision') or '')[:12])}</code></td><td>{e(str(scorer.get('dtype')))}</td>"
            f"<td>{e(str(scorer.get('device')))}</td><td>{e(str(scorer.get('bos_token') or scorer.get('bos')))}</td>"
            f"<td>{e(settings.get('spacing', ''))}</td>"
            f"<td>{e(run.sums)}</td>"
            f"<td>{record['counts']['tokens']}</td>"
            f"<td>{record.get('seconds')}</td><td class=wrap>{e(versions)}</td></tr>")
    parts.append("</tbody></table>")

    parts.append("<h2 id=suites>Suites</h2><p class=notes>Mean surprisal per region and condition over items; "
                 "bars are 95% intervals (1.96 standard errors); empty regions are left out.</p>")
    predictions = {run.model: run.predictions() for run in runs}
    effect_lines: dict[str, list[PredictionLine]] = {}
    for line in prediction_lines(runs, bootstrap=summary.bootstrap, seed=summary.seed):
        effect_lines.setdefault(line.suite, []).append(line)
    for row in summary_rows(summary):
        if row.kind != "suite":
            continue
        suite = row.key[6:]
        accuracy = ", ".join(f"{e(m)}: {format_value(v)}" for m, v in zip(models, row.values, strict=True))
        parts.append(f"<h3 id='suite-{_slug(suite)}'>{e(suite)}</h3><p>accuracy {accuracy}</p>")
        parts += [f"<p class='notes crossing'>{e(model)}: {e(note)}</p>"
                  for model, note in _crossing_notes(runs, suite)]
        # each prediction on its own: which part of a suite's hypothesis a model gets right
        per_model = {model: found[suite] for model, found in predictions.items() if suite in found}
        if per_model:
            first = next(iter(per_model.values()))
            for index, (formula, _) in enumerate(first):
                shares = ", ".join(f"{e(model)}: {format_value(found[index][1])}"
                                   for model, found in per_model.items() if index < len(found))
                parts.append(f"<p>prediction {index}: <code>{e(formula)}</code> "
                             f"<span class=ci>holds on {shares} of items</span></p>")
        parts.append(_effects_table(effect_lines.get(suite, []), [run.model for run in runs]))
        # suite-level predictions (mean(x) > 0): rows of their own, no part of the accuracy above
        parts += [f"<p>suite-level, {e(run.model)}: <code>{e(describe(row))}</code></p>"
                  for run in runs for row in run.suite_level_rows() if row["suite"] == suite]
        overlaid = plots.same_regions({m: by_suite[suite] for m, by_suite in regions.items() if suite in by_suite})
        if len(overlaid) > 1:  # the models on one axis first; each model's own plot (its own scale) below
            parts.append(f"<div class=figure>{plots.overlaid_region_plot_svg(suite, overlaid)}</div>")
        for run in runs:
            region_svg = region_svgs.get(run.model, {}).get(suite)
            if region_svg:
                parts.append(f"<div class=figure>{region_svg}</div>")
    parts.append("</main></body></html>\n")
    return "".join(parts), figures


def _effects_table(lines: list[PredictionLine], models: list[str]) -> str:
    """A suite's effects, comparison by comparison, models across (``prediction_table``)."""
    if not lines or all(size is None for line in lines for size in line.effects):
        return ""
    e = html.escape
    head = "".join(f"<th>{e(m)}: effect (bits)</th><th>n</th>" for m in models)
    rows = []
    for line in lines:
        cells = "".join(f"<td>{e(effect_cell(size))}</td><td>{e(count_cell(size))}</td>" for size in line.effects)
        rows.append(f"<tr><td>{e(line.label)}</td><td><code>{e(line.comparison_formula)}</code></td>{cells}</tr>")
    return (f"<table class=effects><thead><tr><th>prediction</th><th>comparison</th>{head}</tr></thead><tbody>"
            + "".join(rows) + f"</tbody></table><p class=notes>{e(EFFECT_SENTENCE)}</p>")


def _crossing_notes(runs: list[RunData], suite: str) -> list[tuple[str, str]]:
    """(model, note) for each run whose record counts crossing tokens or undefined predictions in ``suite``."""
    found = []
    for run in runs:
        entry = next((s for s in run.record.get("suites", []) if s.get("name") == suite), None)
        rule = run.record.get("settings", {}).get("crossing", "first")
        note = crossing_note(entry, entry.get("undefined_predictions", 0), rule) if entry else ""
        if note:
            found.append((run.model, note))
    return found


def write_report(runs: list[RunData], out_dir: str | Path, summary: Summary) -> Path:
    """Write ``report.html`` and ``plots/*.svg`` into ``out_dir``; returns the report's path. The plots folder is
    written whole and takes the place of an earlier one, so no plot of an earlier report stays."""
    out = Path(out_dir)
    check_report_destination(out)
    page, figures = render_report(runs, summary)
    with atomic_directory(out / schema.PLOTS) as folder:
        for name, svg in figures.items():
            atomic_write_text(folder / name, svg)
    path = out / schema.REPORT
    atomic_write_text(path, page)
    return path


def check_report_destination(out_dir: str | Path) -> None:
    """``report.html`` and ``plots/`` can be written into ``out_dir``; a ``plots`` folder that holds anything but
    the plots of an earlier report is refused, since the new plots replace it whole."""
    out = Path(out_dir)
    check_folder(out)
    check_file(out / schema.REPORT)
    check_replaceable(out / schema.PLOTS, _not_plots, "the new plots")


def _not_plots(folder: Path) -> str | None:
    strangers = sorted(p.name for p in folder.iterdir() if p.suffix != ".svg" or not p.is_file())
    return f"holds files that are not a report's plots ({', '.join(strangers[:3])})" if strangers else None
