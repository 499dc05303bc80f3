"""The capability-test report as one self-contained HTML page (inline CSS and SVG, nothing fetched): what was
tested with what, failure rates by capability and classifier (chart and table, classifiers side by side; where tests
name their source sentences, each classifier's accuracy on them and its failure rates given a correctly classified
source), and per capability the label confusion and a few failing tests, expansions shown beside their seed with
the words the expansion added highlighted. CheckList's invariance (INV) and directional (DIR) tests, where the file
has them, get a section of their own: never averaged into the expected-label rates. Every text from a test file or
a classifier is HTML-escaped.
"""

from __future__ import annotations

import difflib
import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from linguagym.capabilities.classifiers.base import LABELS
from linguagym.capabilities.testfile.checklist_types import MFT
from linguagym.capabilities.testfile.model import (
    NO_EXPANSION_NOTE,
    SHORTAGE_NOTE,
    CapabilityTest,
    CapabilityTestFile,
    Provenance,
    require_test_file,
)
from linguagym.capabilities.testing.classifier_run import ClassifierRun, Outcome
from linguagym.capabilities.testing.failures import (
    CHECKLIST_DEFINITION,
    SOURCE_COLUMNS,
    SOURCE_DEFINITION,
    FailureSummary,
    Rate,
    checklist_table,
    has_checklist,
    has_sources,
    source_cells,
)
from linguagym.charts import grouped_bars

e = html.escape

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;margin:0;background:#fafafa}
main{max-width:1280px;margin:0 auto;padding:24px 32px 64px;background:#fff}
h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:16px;margin:28px 0 4px} h4{font-size:14px;margin:16px 0 4px} .meta{color:#59636e;margin:0 0 12px}
table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums}
th,td{padding:3px 9px;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
th.l,td.l{text-align:left} thead th{border-bottom:2px solid #ccc}
th.group{text-align:center;border-bottom:1px solid #ccc}
tr.total td{font-weight:600;border-top:2px solid #ccc} .ci{color:#8c959f;font-size:11.5px;display:block}
td.text{text-align:left;max-width:520px} mark{background:#ffe58f;padding:0 1px;border-radius:2px}
code{background:#f3f4f6;padding:1px 4px;border-radius:3px;font-size:12px;word-break:break-all}
.figure{overflow-x:auto;margin:8px 0} .figure svg{max-width:100%;height:auto}
.notes{color:#59636e;font-size:13px} nav a{margin-right:12px} .failed{color:#b42318}
.box{border:1px solid #f1aeb5;background:#fdf2f2;padding:8px 12px;border-radius:4px;margin:12px 0}
.error{white-space:pre-line}
"""

NOTES = ("Fail % is the share of tests whose predicted label is not among the expected labels; '-' means there are "
         "no tests of that kind. \"Exp. fail, seed passed\" counts expansions that fail although their seed passed, "
         "of the expansions whose seed passed. Small grey numbers: 95% Wilson score intervals; expansions of one seed "
         "are not independent tests, so their intervals are too narrow.")


def render_report(document: CapabilityTestFile, record: Mapping[str, Any], runs: Sequence[ClassifierRun],
                  labels: Sequence[str], summaries: Mapping[str, FailureSummary], *, examples: int = 3) -> str:
    """The page. ``summaries`` holds the classifiers that finished (display label -> numbers), ``labels`` every
    run's display label (failed ones included), ``record`` the results record (``report.results_record``)."""
    document = require_test_file(document, "render_report")
    info = record["tests_file"]
    dataset = document.dataset
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
             f"content='width=device-width,initial-scale=1'><title>linguagym capability tests: "
             f"{e(', '.join(labels))}</title><style>{_CSS}</style></head><body><main>",
             "<h1>linguagym capability tests</h1>",
             "<p class=meta>tests " + (f"<code>{e(info['path'])}</code> " if info["path"] else "")  # None: in memory
             + f"(sha256 <code>{e(info['sha256'][:16])}</code>): "
             f"{info['seeds']} seeds, {info['expansions']} expansions &middot; dataset {e(dataset.name)} "
             f"({dataset.rows} rows) &middot; made {e(record['created'])} by linguagym "
             f"{e(record['created_by']['version'])}</p>",
             "<nav><a href=#summary>Summary</a>"
             + ("<a href=#checklist>Invariance and directional</a>" if has_checklist(summaries) else "")
             + "<a href=#classifiers>Classifiers</a><a href=#capabilities>Capabilities</a></nav>"]
    for run, label in zip(runs, labels, strict=True):
        if not run.ok:
            parts.append(f"<div class=box><strong class=failed>{e(label)} failed</strong> after {run.finished} of "
                         f"{run.unique_texts} predictions (kept in the prediction cache; running again resumes): "
                         f"<span class=error>{e(run.error or '')}</span></div>")
    parts += _summary(summaries)
    parts += _checklist(runs, labels, summaries, examples)
    parts += _refusals(document.perturbations)
    parts += _classifiers(record, runs, labels)
    parts += _capabilities(document, runs, labels, summaries, examples)
    parts.append("</main></body></html>\n")
    return "".join(parts)


def _cell(rate: Rate) -> str:
    interval = rate.interval()
    ci = f"<span class=ci>{100 * interval[0]:.0f}&ndash;{100 * interval[1]:.0f}</span>" if interval else ""
    return f"<td title='{rate.failed} of {rate.total}'>{rate.percent()}{ci}</td>"


def _summary(summaries: Mapping[str, FailureSummary]) -> list[str]:
    parts = ["<h2 id=summary>Summary</h2>"]
    if not summaries:
        return [*parts, "<p>No classifier finished.</p>"]
    first = next(iter(summaries.values()))
    parts.append(f"<div class=figure>{failure_chart(summaries, 'seeds')}</div>")
    if any(c.expansions.total for c in first.capabilities):
        parts.append(f"<div class=figure>{failure_chart(summaries, 'expansions')}</div>")
    sources = has_sources(summaries)
    width = 6 if sources else 3
    head = "".join(f"<th class=group colspan={width}>{e(label)}</th>" for label in summaries)
    sub = ("<th>seed fail %</th><th>exp. fail %</th><th>exp. fail, seed passed</th>"
           + ("".join(f"<th>{e(name)}</th>" for name in SOURCE_COLUMNS) if sources else "")) * len(summaries)
    parts.append("<table><thead><tr><th class=l rowspan=2>LC</th><th class=l rowspan=2>name</th>"
                 f"<th rowspan=2>seeds</th><th rowspan=2>expansions</th>{head}</tr><tr>{sub}</tr></thead><tbody>")
    rows = {label: [*s.capabilities, s.total] for label, s in summaries.items()}
    for i, row in enumerate([*first.capabilities, first.total]):
        css = " class=total" if row.id == "all" else ""
        link = f"<a href='#{_anchor(row.id)}'>{e(row.id)}</a>" if row.id != "all" else "all"
        cells = []
        for label in summaries:
            other = rows[label][i]
            after = other.after_passing_seed
            cells += [_cell(other.seeds), _cell(other.expansions),
                      f"<td>{after.failed} / {after.total}</td>" if after.total else "<td>-</td>"]
            if sources:
                accuracy, *_ = source_cells(other)
                cells += [f"<td>{e(accuracy)}</td>", _cell(other.seeds_source_right),
                          _cell(other.expansions_source_right)]
        parts.append(f"<tr{css}><td class=l>{link}</td><td class=l>{e(row.name)}</td><td>{row.seeds.total}</td>"
                     f"<td>{row.expansions.total}</td>{''.join(cells)}</tr>")
    parts.append(f"</tbody></table><p class=notes>{e(NOTES)}</p>")
    if sources:
        parts.append(f"<p class='notes sources'>{e(SOURCE_DEFINITION[0].upper() + SOURCE_DEFINITION[1:])}. Where "
                     "failures rise among the tests whose source was read right, the overall rate flatters the "
                     "classifier: it passes some tests only by misreading their source.</p>")
    return parts


def failure_chart(summaries: Mapping[str, FailureSummary], kind: str) -> str:
    """Failure rates on ``kind`` (seeds or expansions) by capability, classifiers side by side, as SVG text."""
    first = next(iter(summaries.values()))
    ids = [c.id for c in first.capabilities]
    series = {label: [getattr(c, kind).value for c in s.capabilities] for label, s in summaries.items()}
    intervals = {label: [getattr(c, kind).interval() for c in s.capabilities] for label, s in summaries.items()}
    return grouped_bars(ids, series, y_label=f"{kind[:-1]} failure rate", y_max=1.0, intervals=intervals,
                        title=f"Failure rate on {kind} by capability (95% Wilson intervals)", percent=True)


def _classifiers(record: Mapping[str, Any], runs: Sequence[ClassifierRun], labels: Sequence[str]) -> list[str]:
    parts = ["<h2 id=classifiers>Classifiers</h2><table><thead><tr><th class=l>classifier</th><th class=l>spec</th>"
             "<th class=l>identity</th><th>unique texts</th><th>cached before</th><th>seconds</th>"
             "<th>failed tests</th><th class=l>status</th></tr></thead><tbody>"]
    for run, label in zip(runs, labels, strict=True):
        identity = json.dumps(run.identity, sort_keys=True, ensure_ascii=False, default=str)
        status = "ok" if run.ok else f"<span class='failed error'>failed: {e(run.error or '')}</span>"
        failed = f"{run.failed_tests} / {len(run.mft_outcomes)}" if run.ok else "-"
        parts.append(f"<tr><td class=l>{e(label)}</td><td class=l><code>{e(run.spec or run.name)}</code></td>"
                     f"<td class=text><code>{e(identity)}</code></td><td>{run.unique_texts}</td><td>{run.cached}</td>"
                     f"<td>{run.seconds:.1f}</td><td>{failed}</td><td class=l>{status}</td></tr>")
    parts.append("</tbody></table>")
    return parts


def _capabilities(document: CapabilityTestFile, runs: Sequence[ClassifierRun], labels: Sequence[str],
                  summaries: Mapping[str, FailureSummary], examples: int) -> list[str]:
    parts = ["<h2 id=capabilities>Capabilities</h2>"]
    if not summaries:
        return parts
    descriptions = {c.id: c.description for c in document.capabilities}
    # why a count is low, beside it: a shortage of seeds, a capability with seeds and no expansion
    shortages = {c.id: c.notes_starting(SHORTAGE_NOTE, NO_EXPANSION_NOTE) for c in document.capabilities}
    tests = document.by_id()
    finished = [(label, run) for label, run in zip(labels, runs, strict=True) if run.ok]
    for row in next(iter(summaries.values())).capabilities:
        parts.append(f"<h3 id='{_anchor(row.id)}'>{e(row.id)} {e(row.name)}</h3>")
        if descriptions.get(row.id):
            parts.append(f"<p>{e(descriptions[row.id] or '')}</p>")
        parts.append(f"<p class=meta>{_count(row.seeds.total, 'seed')}, {_count(row.expansions.total, 'expansion')}"
                     "</p>")
        parts += [f"<p class=notes>{e(note)}</p>" for note in shortages.get(row.id, ())]
        if not row.tests:
            continue
        for label, run in finished:
            numbers = summaries[label].by_id()[row.id]
            shares = [f"{rate.percent()}% of {kind} fail" for rate, kind in
                      ((numbers.seeds, "seeds"), (numbers.expansions, "expansions")) if rate.total]
            if numbers.sources.total:
                right = numbers.tests_source_right
                shares.append(f"source accuracy {numbers.sources.percent()}% ({numbers.sources.correct} of "
                              f"{numbers.sources.total}), {right.percent()}% of tests fail where the source is "
                              "read right")
            parts.append(f"<h4>{e(label)}: {', '.join(shares)}</h4>")
            parts += _confusion(numbers.confusion)
            parts += _examples(run, row.id, tests, examples)
    return parts


def _refusals(perturbations: Mapping[str, Any] | None) -> list[str]:
    """How many positive sentences the DIR negation refused, and why (the test file's counts), where it says."""
    negation = ((perturbations or {}).get("made") or {}).get("negation") or {}
    refused = negation.get("refused") or {}
    if not refused:
        return []
    reasons = ", ".join(f"{n} {reason}" for reason, n in refused.items())
    return [f"<p class=notes>DIR negation: {negation.get('made', 0)} pairs made of {negation.get('candidates', 0)} "
            f"positive sentences; refused rather than negated in the wrong place: {e(reasons)}.</p>"]


def _checklist(runs: Sequence[ClassifierRun], labels: Sequence[str], summaries: Mapping[str, FailureSummary],
               examples: int) -> list[str]:
    """CheckList's INV and DIR failure rates per capability and perturbation, and a few failing pairs per
    classifier; nothing when no test of either type ran."""
    if not has_checklist(summaries):
        return []
    header, rows = checklist_table(summaries)
    groups = list(dict.fromkeys(group for group, _ in header[4:]))
    width = (len(header) - 4) // max(1, len(groups))
    parts = ["<h2 id=checklist>Invariance and directional tests (CheckList)</h2>",
             "<table><thead><tr>" + "".join(f"<th class=l rowspan=2>{e(name)}</th>" for _, name in header[:2])
             + "".join(f"<th rowspan=2>{e(name)}</th>" for _, name in header[2:4])
             + "".join(f"<th class=group colspan={width}>{e(group)}</th>" for group in groups) + "</tr><tr>"
             + "".join(f"<th>{e(name)}</th>" for _, name in header[4:]) + "</tr></thead><tbody>"]
    for row in rows:
        css = " class=total" if row[0] == "all" else ""
        parts.append(f"<tr{css}>" + "".join(f"<td class=l>{e(cell)}</td>" for cell in row[:2])
                     + "".join(f"<td>{e(cell)}</td>" for cell in row[2:]) + "</tr>")
    parts.append(f"</tbody></table><p class=notes>{e(CHECKLIST_DEFINITION[0].upper() + CHECKLIST_DEFINITION[1:])}."
                 "</p>")
    for label, run in zip(labels, runs, strict=True):
        failing = [o for o in run.outcomes if o.type.paired and not o.passed][:examples] if run.ok else []
        if not failing:
            continue
        parts.append(f"<h4>{e(label)}: failing pairs</h4><table><thead><tr><th class=l>LC</th><th class=l>test</th>"
                     "<th class=l>original</th><th class=l>predicted</th><th class=l>perturbed</th>"
                     "<th class=l>predicted</th></tr></thead><tbody>")
        for o in failing:
            before = o.original_prediction
            parts.append(f"<tr><td class=l>{e(o.capability)}</td><td class=l>{e(o.test_type)} "
                         f"{e(o.perturbation or '')}</td><td class=text>{e(o.original_text or '')}</td>"
                         f"<td class=l>{_probabilities(before.label, before.probabilities) if before else '-'}</td>"
                         f"<td class=text>{highlight_text(o.text, None, o.original_text)}</td>"
                         f"<td class=l>{_probabilities(o.predicted, o.prediction.probabilities, True)}</td></tr>")
        parts.append("</tbody></table>")
    return parts


def _probabilities(label: str, p: Sequence[float], failed: bool = False) -> str:
    mark = " class=failed" if failed else ""
    return (f"<span{mark}>{e(label)}</span> <span class=ci>neg {p[0]:.2f} &middot; neu {p[1]:.2f} &middot; "
            f"pos {p[2]:.2f}</span>")


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> list[str]:
    head = "".join(f"<th>{e(label)}</th>" for label in LABELS)
    rows = "".join(f"<tr><td class=l>{e(expected)}</td>" + "".join(f"<td>{counts.get(label, 0)}</td>"
                                                                    for label in LABELS) + "</tr>"
                   for expected, counts in confusion.items())
    return [f"<table><thead><tr><th class=l>expected \\ predicted</th>{head}</tr></thead><tbody>{rows}</tbody></table>"]


def _examples(run: ClassifierRun, capability: str, tests: Mapping[str, CapabilityTest], limit: int) -> list[str]:
    if limit <= 0:
        return []
    outcomes = [o for o in run.outcomes if o.capability == capability and not o.passed and MFT.owns(o)]
    by_id = {o.id: o for o in run.outcomes}
    seeds = [o for o in outcomes if o.kind == "seed"][:limit]
    expansions = [o for o in outcomes if o.kind == "expansion"]
    # the most telling first: expansions that fail although their seed passed
    expansions.sort(key=lambda o: not (o.seed in by_id and by_id[o.seed].passed))
    parts = []
    if seeds:
        parts.append("<table><thead><tr><th class=l>failing seed</th><th class=l>expected</th><th class=l>predicted"
                     "</th></tr></thead><tbody>")
        parts += [f"<tr><td class=text>{e(o.text)}</td><td class=l>{e('/'.join(o.expected))}</td>"
                  f"<td class=l>{_predicted(o)}</td></tr>" for o in seeds]
        parts.append("</tbody></table>")
    if expansions:
        parts.append("<table><thead><tr><th class=l>seed</th><th class=l>seed predicted</th><th class=l>failing "
                     "expansion (added words marked)</th><th class=l>expected</th><th class=l>predicted</th></tr>"
                     "</thead><tbody>")
        for o in expansions[:limit]:
            seed = by_id.get(o.seed or "")
            parts.append(f"<tr><td class=text>{e(seed.text) if seed else '-'}</td>"
                         f"<td class=l>{_predicted(seed) if seed else '-'}</td>"
                         f"<td class=text>{highlight_outcome(o, tests)}</td>"
                         f"<td class=l>{e('/'.join(o.expected))}</td><td class=l>{_predicted(o)}</td></tr>")
        parts.append("</tbody></table>")
    return parts


def _predicted(outcome: Outcome) -> str:
    p = outcome.prediction.probabilities
    mark = "" if outcome.passed else " class=failed"
    return (f"<span{mark}>{e(outcome.predicted)}</span> <span class=ci>neg {p[0]:.2f} &middot; neu {p[1]:.2f} "
            f"&middot; pos {p[2]:.2f}</span>")


def highlight(test: CapabilityTest, seed_test: CapabilityTest | None = None) -> str:
    """An expansion's text, escaped, with the words its expansion added in ``<mark>``: from the provenance's
    mask spans where the expanded sentence appears verbatim in the test text, else by a word diff against the
    seed test's text; the plain text when neither is there."""
    return highlight_text(test.text, test.provenance, seed_test.text if seed_test else None)


def highlight_outcome(outcome: Outcome, tests: Mapping[str, CapabilityTest]) -> str:
    """``highlight`` for an expansion's outcome, its test and seed looked up by id in ``tests`` (the outcome's
    own text, diffed against the seed's, where its test is not there)."""
    test, seed = tests.get(outcome.id), tests.get(outcome.seed or "")
    return highlight_text(outcome.text if test is None else test.text, test.provenance if test else None,
                          seed.text if seed else None)


def highlight_text(text: str, provenance: Provenance | None = None, seed_text: str | None = None) -> str:
    """``text`` escaped, the words an expansion added in ``<mark>`` (see ``highlight``)."""
    spans = _mask_spans(text, provenance) if provenance is not None else []
    if not spans and seed_text is not None:
        spans = _diff_spans(seed_text, text)
    out, cursor = [], 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        out += [e(text[cursor:start]), f"<mark>{e(text[start:end])}</mark>"]
        cursor = end
    out.append(e(text[cursor:]))
    return "".join(out)


def _mask_spans(text: str, provenance: Provenance) -> list[tuple[int, int]]:
    expanded, masks = provenance.expanded_text, provenance.masks
    if not expanded or masks is None or text.count(expanded) != 1:
        return []
    offset = text.index(expanded)
    spans = []
    for mask in masks:
        if not 0 <= mask.start < mask.end <= len(expanded):
            return []
        spans.append((offset + mask.start, offset + mask.end))
    return spans


def _diff_spans(before: str, after: str) -> list[tuple[int, int]]:
    """Character spans of the words of ``after`` that are not in ``before`` (word-level diff)."""
    old = [m.group() for m in re.finditer(r"\S+", before)]
    new = list(re.finditer(r"\S+", after))
    matcher = difflib.SequenceMatcher(a=old, b=[m.group() for m in new], autojunk=False)
    spans = []
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace") and j2 > j1:
            spans.append((new[j1].start(), new[j2 - 1].end()))
    return spans


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _anchor(capability: str) -> str:
    return "lc-" + re.sub(r"[^A-Za-z0-9_-]+", "_", capability)
