"""Commands over results already made: ``score`` (per-item results into accuracy, the collection's score and its
groups) and ``compare`` (runs side by side); and the summary options and table they share with ``run``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.cli.output import console
from linguagym.destinations import check_file
from linguagym.errors import ConfigurationError
from linguagym.evaluation.limit import describe_limit


def summary_options(p: argparse.ArgumentParser) -> None:
    """The options of a summary table (collection, policy, bootstrap) and where else it is written."""
    p.add_argument("--collection", default="auto", metavar="NAME|FILE",
                   help="suite collection for the score and groups: syntaxgym-2020, a .toml file, or auto "
                   "(syntaxgym-2020 when every suite belongs to it; default)")
    p.add_argument("--policy", choices=("all", "first"), default=None,
                   help="item correct when all its predictions hold, or only the first (default: what the runs "
                   "read recorded, else the collection's; syntaxgym-2020 uses first, as the paper did)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples over items for 95%% intervals (0: none; default 1000)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    p.add_argument("--intervals", choices=("none", "aggregates", "all"), default="aggregates",
                   help="which rows show intervals (default: score and groups)")
    p.add_argument("--csv", type=Path, default=None, metavar="FILE",
                   help="also write the table as CSV ('-': the CSV alone on stdout, the table not drawn)")
    p.add_argument("--markdown", type=Path, default=None, metavar="FILE",
                   help="also write it as Markdown ('-': the Markdown alone on stdout)")


def prediction_options(p: argparse.ArgumentParser) -> None:
    """--by-prediction: the per-prediction table of commands that have run folders (``run``, ``compare``)."""
    p.add_argument("--by-prediction", action="store_true",
                   help="also print each prediction's accuracy and, comparison by comparison, its mean effect (left "
                   "side minus right side, in bits) with a 95%% bootstrap interval and n items, per suite and model "
                   "(on compare, the paired comparison is then made per prediction too)")


def print_prediction_table(runs, args: argparse.Namespace) -> None:
    """Below the accuracy table: each prediction of each suite, models across (``prediction_table``)."""
    from rich.table import Table  # off --help's path

    from linguagym.evaluation.prediction_table import (
        EFFECT_SENTENCE,
        accuracy_cell,
        count_cell,
        effect_cell,
        missing_effects,
        prediction_lines,
    )

    lines = prediction_lines(runs, bootstrap=args.bootstrap, seed=args.seed)
    out = console(stderr=stdout_taken(args), wide=True)
    title = "each prediction: the share of items it holds on, and its effect"
    if args.bootstrap:
        title += f" (95% bootstrap intervals over items, {args.bootstrap} resamples, seed {args.seed})"
    table = Table(title=title, title_justify="left")
    for name in ("suite", "", "comparison"):
        table.add_column(name)
    for run in runs:
        table.add_column(f"{run.model}\nholds", justify="right")
        table.add_column(f"{run.model}\neffect (bits)", justify="right")
        table.add_column(f"{run.model}\nn", justify="right")
    for index, line in enumerate(lines):
        first_of_suite = index == 0 or lines[index - 1].suite != line.suite
        last_of_suite = index + 1 == len(lines) or lines[index + 1].suite != line.suite
        cells = []
        for accuracy, effect in zip(line.accuracy, line.effects, strict=True):
            cells += [accuracy_cell(accuracy) if line.comparison == 0 else "", effect_cell(effect), count_cell(effect)]
        table.add_row(line.suite if first_of_suite else "", line.label, line.comparison_formula, *cells,
                      end_section=last_of_suite)
    out.print(table)
    out.print(EFFECT_SENTENCE, style="dim", highlight=False)
    for model in missing_effects(runs):
        out.print(f"no effects for {model}: its folder has no effects.csv (made by an earlier linguagym); run it "
                  "again to have them: its scores are cached", style="yellow", highlight=False)


def add_score_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("score", help="aggregate per-item results: suite accuracy, SG score, circuits",
                            description="Aggregate per-item results (items.csv of linguagym runs, run directories, "
                            "or per-item files of Hu et al. 2020: model,suite,item,correct) into suite accuracy, "
                            "the collection score and group scores, per model. In every one, correct means the "
                            "item's first prediction holds; items.csv adds correct_all (every prediction holds), and "
                            "items.csv of earlier versions (correct, correct_first) is read with its old meaning.")
    p.add_argument("results", nargs="+", metavar="RESULTS", help="items.csv files, run directories, paper CSVs")
    summary_options(p)
    p.set_defaults(func=cmd_score)
    return p


def add_compare_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("compare", help="compare runs: one table, models across; optionally an HTML report",
                            description="Compare the runs in RUN_DIRs (directories with run.json, or folders of them).")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--report", type=Path, default=None, metavar="DIR", help="write report.html and plots into DIR")
    summary_options(p)
    prediction_options(p)
    p.add_argument("--paired-csv", type=Path, default=None, metavar="FILE",
                   help="also write the paired comparison (difference, interval, McNemar p, Holm-adjusted p) as CSV")
    p.add_argument("--paired-effects-csv", type=Path, default=None, metavar="FILE",
                   help="also write the paired comparison of effects (a's mean effect minus b's per suite, prediction "
                   "and comparison, interval, sign-flip p, Holm-adjusted p) as CSV; --by-prediction prints it")
    p.add_argument("--baseline", default=None, metavar="MODEL",
                   help="pair each model with this one (default: every two models)")
    p.set_defaults(func=cmd_compare)
    return p


def summary_settings(args: argparse.Namespace):
    """The library's ``SummarySettings`` from the summary options."""
    from linguagym.evaluation.summary import SummarySettings  # off --help's path (~40 ms)

    return SummarySettings(collection=args.collection, policy=args.policy, bootstrap=args.bootstrap, seed=args.seed)


def check_table_files(args: argparse.Namespace) -> None:
    """--csv and --markdown can be written (checked before any work); '-' is stdout, and only one may take it."""
    paths = (getattr(args, "csv", None), getattr(args, "markdown", None))
    if all(_to_stdout(path) for path in paths):
        raise ConfigurationError("--csv - and --markdown - both ask for stdout; give one of them a file name")
    for path in paths:
        if path is not None and not _to_stdout(path):
            check_file(path)


def _to_stdout(path) -> bool:
    return path is not None and str(path) == "-"


def stdout_taken(args: argparse.Namespace) -> bool:
    """--csv - or --markdown -: stdout carries that table alone, everything else goes to stderr."""
    return _to_stdout(getattr(args, "csv", None)) or _to_stdout(getattr(args, "markdown", None))


def print_summary(summary, args: argparse.Namespace) -> None:
    """The summary as a table on stdout, and as --csv and --markdown files. A '-' for either puts that format
    alone on stdout (for pipes: ``linguagym score ... --csv - | ...``); the notes then go to stderr."""
    from linguagym.evaluation.tables import notes, rich_table, summary_csv, write_summary_csv  # off --help's path

    csv_path, markdown_path = getattr(args, "csv", None), getattr(args, "markdown", None)
    piped = stdout_taken(args)
    out = console(stderr=piped, wide=True)
    if not piped:
        out.print(rich_table(summary, intervals=args.intervals))
    for line in notes(summary):
        out.print(line, style="dim", highlight=False)
    limited = describe_limit(getattr(args, "limit", None))  # a run of the first items only must not pass for a full one
    if limited:
        out.print(limited, style="bold yellow", highlight=False)
    if _to_stdout(csv_path):
        summary_csv(summary, sys.stdout)
    elif csv_path:
        write_summary_csv(summary, csv_path)
        print(f"wrote {csv_path}", file=sys.stderr)
    if markdown_path:
        from linguagym.evaluation.tables import summary_markdown  # off --help's path

        table = summary_markdown(summary, intervals=args.intervals) + (f"\n{limited}\n" if limited else "")
        if _to_stdout(markdown_path):
            sys.stdout.write(table + ("" if table.endswith("\n") else "\n"))
        else:
            atomic_write_text(markdown_path, table)
            print(f"wrote {markdown_path}", file=sys.stderr)


def print_tie_notes(notes: list[str], args: argparse.Namespace) -> None:
    """Below the table: the suites whose accuracy counts ties (``evaluation/ties.py``)."""
    out = console(stderr=stdout_taken(args), wide=True)
    for line in notes:
        out.print(line, style="yellow", highlight=False)


def cmd_compare(args: argparse.Namespace) -> int:
    from linguagym.evaluation.report import check_report_destination, write_report  # off --help's path (~40 ms)
    from linguagym.evaluation.summary import summarize_runs  # off --help's path

    check_table_files(args)
    for path in (args.paired_csv, args.paired_effects_csv):
        if path:
            check_file(path)
    if args.report:
        check_report_destination(args.report)
    runs, summary = summarize_runs(args.runs, summary_settings(args))
    print_summary(summary, args)
    from linguagym.evaluation.ties import tie_notes  # off --help's path

    print_tie_notes(tie_notes((run.model, run.record) for run in runs), args)
    if args.by_prediction:
        print_prediction_table(runs, args)
    comparison = effects = None
    if len(summary.models) > 1:
        from linguagym.evaluation.comparison import DuplicateItems, compare_held  # off --help's path

        try:
            comparison = compare_held(runs, summary_settings(args), baseline=args.baseline,
                                      per_prediction=args.by_prediction)
        except ConfigurationError as error:
            if not isinstance(error, DuplicateItems):
                raise
            # the accuracy table above merges them, as before; a pairing of items cannot
            console(stderr=True).print(f"no paired comparison: {error}", style="yellow", highlight=False)
        else:
            print_comparison(comparison, args)
            if args.by_prediction or args.paired_effects_csv:
                try:
                    effects = compare_held_effects_for(runs, args)
                except DuplicateItems as error:
                    console(stderr=True).print(f"no paired effects: {error}", style="yellow", highlight=False)
    elif args.paired_csv or args.paired_effects_csv or args.baseline:
        console(stderr=True).print("one model only: there is no pair to compare", style="yellow", highlight=False)
    if args.report:
        path = write_report(runs, args.report, summary)
        if comparison is not None:
            comparison.write_csv(args.report / "comparison.csv")
        if effects is not None:
            effects.write_csv(args.report / "comparison-effects.csv")
        print(f"report: {path}", file=sys.stderr)
    return 0


def print_comparison(comparison, args: argparse.Namespace) -> None:
    """The paired comparison below the accuracy table (on stderr when stdout carries a table alone), and as
    --paired-csv."""
    from rich.table import Table

    from linguagym.evaluation.comparison import format_difference, format_p  # off --help's path

    out = console(stderr=stdout_taken(args), wide=True)
    by_prediction = comparison.level == "prediction"
    table = Table(title="paired comparison: accuracy of a minus b on the same items"
                  + (", per prediction" if by_prediction else ", per suite"), title_justify="left")
    for column in ("suite", *(("prediction",) if by_prediction else ()), "a", "b", "items", "a - b [95% CI]",
                   "only a / only b right", "p (McNemar)", "p (Holm)"):
        table.add_column(column, justify="left" if column in ("suite", "a", "b", "prediction") else "right")
    for row in comparison.rows:
        paired = row.paired
        cells = [row.suite, *((f"P{row.prediction}",) if by_prediction else ()), row.model_a, row.model_b,
                 str(paired.n), format_difference(row), f"{paired.only_a_right} / {paired.only_b_right}",
                 format_p(paired.p_value if paired.n else None), format_p(row.p_holm)]
        table.add_row(*cells)
    out.print(table)
    for line in comparison.notes():
        out.print(line, style="dim", highlight=False)
    if args.paired_csv:
        comparison.write_csv(args.paired_csv)
        print(f"wrote {args.paired_csv}", file=sys.stderr)


def compare_held_effects_for(runs, args: argparse.Namespace):
    """The paired comparison of the runs' effects (``evaluation/effect_comparison.py``): printed below the paired
    accuracies under --by-prediction, written as --paired-effects-csv."""
    from rich.table import Table

    from linguagym.evaluation.comparison import format_p
    from linguagym.evaluation.effect_comparison import (  # off --help's path
        compare_held_effects,
        format_effect_difference,
        format_effect_mean,
    )

    effects = compare_held_effects(runs, summary_settings(args), baseline=args.baseline)
    if args.by_prediction:
        out = console(stderr=stdout_taken(args), wide=True)
        table = Table(title="paired effects: mean effect (bits) of a minus b on the same items, per prediction and "
                      "comparison", title_justify="left")
        for column in ("suite", "", "comparison", "a", "b", "items", "effect a", "effect b", "a - b [95% CI]",
                       "p (sign-flip)", "p (Holm)"):
            table.add_column(column, justify="left" if column in ("suite", "", "comparison", "a", "b") else "right")
        for row in effects.rows:
            paired = row.paired
            table.add_row(row.key.suite, row.key.label, row.key.comparison_formula, row.model_a, row.model_b,
                          str(paired.n), format_effect_mean(paired.mean_a), format_effect_mean(paired.mean_b),
                          format_effect_difference(row), format_p(paired.p_value if paired.n else None)
                          + ("" if row.exact or not paired.n else " ~"), format_p(row.p_holm))
        if effects.rows:
            out.print(table)
        for line in effects.notes(missing=False):  # the per-prediction table above named them
            out.print(line, style="dim", highlight=False)
        if any(not row.exact for row in effects.rows if row.paired.n):
            out.print("~: p from random sign patterns (more than 32 items), not every one", style="dim",
                      highlight=False)
    if args.paired_effects_csv:
        effects.write_csv(args.paired_effects_csv)
        print(f"wrote {args.paired_effects_csv}", file=sys.stderr)
    return effects


def cmd_score(args: argparse.Namespace) -> int:
    from linguagym.evaluation.summary import summarize_files  # off --help's path (~25 ms)

    check_table_files(args)
    print_summary(summarize_files(args.results, summary_settings(args)), args)
    return 0
