"""``Results``: what ``linguagym.run`` returns to a notebook. It wraps ``ModelRuns`` and shows its numbers as
pandas DataFrames (``to_pandas``) and as the accuracy table (``repr``, and HTML in Jupyter).

The DataFrames of ``items``, ``predictions`` and ``regions`` are the CSV files a run writes, built from
the very rows the writer writes (``runfolder.rows``), in memory, with the columns and types reading the files gives
(``runfolder.schema``). pandas is optional: it is imported by ``to_pandas`` only.
"""

from __future__ import annotations

import html
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.evaluation.effects import EffectSize, effect_size_row, summarize_effects
from linguagym.evaluation.model_runs import ModelRuns
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.rows import ROWS, run_effects, token_rows
from linguagym.evaluation.tables import format_value, notes, summary_csv, summary_rows
from linguagym.extras import require_extra

if TYPE_CHECKING:
    import pandas

    from linguagym.evaluation.aggregate import Summary

KINDS = {
    "items": "one row per model and item: whether its predictions hold (items.csv)",
    "predictions": "one row per model, item and prediction (predictions.csv)",
    "regions": "one row per model, item, condition and region, with every metric (regions.csv)",
    "tokens": "one row per model, item, condition and token: its region and surprisal in bits",
    "effects": "one row per model, item, prediction and comparison: each side's value and left - right (effects.csv)",
    "effect_sizes": "one row per model, suite, prediction and comparison: the mean effect, its 95% interval, n",
    "long": "the tidy long table: one row per model, item, condition and region, with every metric, the value "
            "predictions use, tokens, crossing flag and the item's outcome (long.csv)",
    "suite_predictions": "one row per model and suite-level prediction (mean(x) > 0): the statistic over items, "
                         "its 95% interval and whether it holds (suite_predictions.csv)",
    "suites": "one row per model and suite: accuracy, its 95% interval and the number of items",
    "summary": "the accuracy table in long form: score, groups and suites (what `run --csv FILE` writes)",
}
def import_pandas(needed_by: str = "a DataFrame"):
    """pandas, or a clear error naming the extra that installs it (it is an optional dependency)."""
    require_extra("notebook", "pandas", needed_by=needed_by)
    import pandas  # optional (the [notebook] extra), and heavy (~0.3 s): only DataFrames need it

    return pandas


class Results:
    """The outcome of ``linguagym.run``: one outcome per model (a ``RunResult``, or the error that stopped that
    model), the summary (accuracy per suite, the collection's score and groups) and, where files were written,
    the report. Iterating gives the outcomes; ``to_pandas(kind)`` gives a DataFrame (``Results.KINDS``)."""

    KINDS = KINDS

    def __init__(self, runs: ModelRuns) -> None:
        self.runs = runs

    # ------------------------------------------------------------------------------------------ outcomes

    def __iter__(self) -> Iterator[RunResult | LinguagymError]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def __getitem__(self, index):
        return self.runs[index]

    @property
    def results(self) -> list[RunResult]:
        """The models that ran, in the order given."""
        return [o for o in self.runs if isinstance(o, RunResult)]

    @property
    def failed(self) -> list[tuple[Any, LinguagymError]]:
        """Each model that failed (its ``RunSettings``), with its error."""
        return self.runs.failed

    @property
    def summary(self) -> Summary | None:
        """Accuracy per model: suites, the collection's score and groups (None when summarizing was off)."""
        return self.runs.summary

    @property
    def report(self) -> Path | None:
        """The HTML report, where ``output_dir`` was given (and the report not turned off)."""
        return self.runs.report

    # ---------------------------------------------------------------------------------------- DataFrames

    def to_pandas(self, kind: str = "items") -> pandas.DataFrame:
        """The results as a DataFrame, every model's rows one after the other. ``kind``: ``items``,
        ``predictions``, ``regions``, ``effects``, ``long``, ``suite_predictions`` (the columns and values of the CSV
        files a run writes), ``tokens``, ``effect_sizes``, ``suites`` or ``summary`` (see ``Results.KINDS``)."""
        if kind not in KINDS:
            raise ConfigurationError(f"unknown kind of table {kind!r}",
                                     hint="use one of " + ", ".join(KINDS) + "; e.g. results.to_pandas('regions')")
        pd = import_pandas(f"to_pandas({kind!r})")
        if kind == "tokens":  # the rows as they are (NaN where unscored): this kind never was the CSV file
            return pd.DataFrame(token_rows(self.results), columns=list(schema.TOKEN_COLUMNS))
        if kind == "effect_sizes":
            return rows_frame(pd, (effect_size_row(size) for size in self.effect_sizes()),
                              schema.EFFECT_SIZE_COLUMNS)
        if kind in ROWS:
            return rows_frame(pd, (row for result in self.results for row in ROWS[kind](result)),
                              schema.COLUMNS[kind])
        return _summary_frame(pd, self._summary_or_error(), suites_only=kind == "suites")

    def effect_sizes(self) -> list[EffectSize]:
        """The mean effect of every comparison of every prediction, per model and suite, with its 95% bootstrap
        interval (the summary's resamples and seed; without a summary, 1000 and 0): ``effects.py``."""
        summary = self.summary
        bootstrap, seed = (summary.bootstrap, summary.seed) if summary is not None else (1000, 0)
        return summarize_effects((e for result in self.results for e in run_effects(result)),
                                 bootstrap=bootstrap, seed=seed)

    def _summary_or_error(self) -> Summary:
        if self.summary is None:
            raise ConfigurationError("these results have no summary (it was turned off, or every model failed)",
                                     hint="run with summary=True; per-item tables: to_pandas('items')")
        return self.summary

    # ------------------------------------------------------------------------------------------- display

    def _table(self) -> tuple[list[str], list[list[str]], list[str]]:
        """The accuracy table as the command line prints it (intervals on the score and groups): header, rows,
        notes."""
        summary = self.summary
        if summary is None:
            return [], [], []
        header = [f"{summary.collection.name} (policy {summary.policy})", *(m.model for m in summary.models)]
        rows = [[row.label, *(format_value(v, i if row.kind != "suite" else None)
                              for v, i in zip(row.values, row.intervals, strict=True))]
                for row in summary_rows(summary)]
        return header, rows, notes(summary)

    def _failures(self) -> list[str]:
        return [f"{one.model}: failed: {error.message}" for one, error in self.failed]

    def __repr__(self) -> str:
        header, rows, lines = self._table()
        head = f"<linguagym Results: {len(self.results)} of {len(self)} models ran>"
        if not header:
            return "\n".join([head, *self._failures()])
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
        table = ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w) for c, (cell, w) in
                           enumerate(zip(row, widths, strict=True))).rstrip() for row in [header, *rows]]
        return "\n".join([head, *table, *lines, *self._failures()])

    def _repr_html_(self) -> str:
        header, rows, lines = self._table()
        e = html.escape
        parts = [f"<p><b>linguagym results</b>: {len(self.results)} of {len(self)} models ran</p>"]
        if header:
            parts.append("<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr></thead><tbody>")
            for row in rows:
                cells = [f'<td style="text-align:left">{e(row[0])}</td>',
                         *(f'<td style="text-align:right">{e(c)}</td>' for c in row[1:])]
                parts.append("<tr>" + "".join(cells) + "</tr>")
            parts.append("</tbody></table>")
        parts += [f"<p><small>{e(line)}</small></p>" for line in [*lines, *self._failures()]]
        if self.report is not None:
            parts.append(f"<p>report: <code>{e(str(self.report))}</code></p>")
        return "\n".join(parts)


def read_csv_frame(pd, source) -> pandas.DataFrame:
    """A CSV file (a path or an open handle) as linguagym wrote it: exact floats, only empty cells missing (never
    "NA" or "None" as text), text columns as text (``schema.TEXT_COLUMNS``)."""
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}  # pandas 3: default
    return pd.read_csv(source, keep_default_na=False, na_values=[""], dtype=dict.fromkeys(schema.TEXT_COLUMNS, str),
                       **exact)


def rows_frame(pd, rows: Iterable[Iterable], columns: tuple[str, ...]) -> pandas.DataFrame:
    """A run file's rows (``runfolder.rows``) as the DataFrame reading its CSV file gives (``read_csv_frame``):
    whole numbers int64, True/False bool, numbers float64 and text str, an empty cell (or NaN) missing."""
    import numpy

    frame = pd.DataFrame(list(rows), columns=list(columns))
    if frame.empty:
        return pd.DataFrame()
    for column in columns:
        values = frame[column]
        if column in schema.INTEGER_COLUMNS:
            frame[column] = values.astype("int64")
        elif column in schema.BOOLEAN_COLUMNS:
            frame[column] = values.astype(bool)
        elif column in schema.FLOAT_COLUMNS:
            frame[column] = values.replace("", numpy.nan).astype("float64")
        else:  # text: empty is missing, as read_csv's na_values=[""] makes it
            missing = values.isna() | (values == "")
            frame[column] = values.astype(object).where(~missing, numpy.nan).astype(str_dtype(pd))
    return frame


def str_dtype(pd):
    """The dtype ``read_csv(dtype=str)`` gives a text column: pandas 3's ``str`` (missing stays missing), else
    Python objects."""
    return "str" if int(pd.__version__.split(".")[0]) >= 3 else object


def _summary_frame(pd, summary: Summary, *, suites_only: bool) -> pandas.DataFrame:
    text = io.StringIO()
    summary_csv(summary, text)  # what `run --csv FILE` writes, read as that file is
    text.seek(0)
    frame = read_csv_frame(pd, text)
    if not suites_only:
        return frame
    suites = frame[frame["kind"] == "suite"].drop(columns=["kind"]).rename(columns={"name": "suite"})
    suites["items"] = suites["items"].astype("Int64")  # whole numbers (the score and group rows had none)
    return suites.reset_index(drop=True)
