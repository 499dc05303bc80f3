"""``linguagym lct test``: run a capability-test file against one or more sentiment classifiers, print the failure
rates per capability and write CSVs, a results record and an HTML report.

The command parses its options, shows progress and prints the table; the work is the library's
``capabilities.run.run_classifiers``, which the web app's capability jobs call too. A classifier that fails part
way does not stop the others: their results are written, and the command then exits 1 naming the failed ones and
how many predictions the cache kept, so that running it again resumes.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

from linguagym.capabilities.classifiers.base import ClassifierError
from linguagym.capabilities.reports.results import DEFAULT_OUTPUT
from linguagym.capabilities.testing.failures import (
    CHECKLIST_DEFINITION,
    SOURCE_DEFINITION,
    checklist_table,
    has_checklist,
    has_sources,
    summary_table,
)
from linguagym.cli.output import console
from linguagym.cli.progress import ProgressBars, prediction_announcement
from linguagym.executors import make_executor


def add_test_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``test`` to the ``lct`` command group (``subparsers``: its subparsers object)."""
    p = subparsers.add_parser(
        "test", help="run a capability-test file against sentiment classifiers",
        description="Predict every test of a file written by `linguagym lct generate` with each classifier, report "
        "failure rates per capability on seeds and on expansions, and write per-test and summary CSVs, "
        "results.json and report.html. Predictions are cached: running again recomputes nothing it has.")
    p.add_argument("tests", type=Path, metavar="FILE", help="the capability-test file (JSON)")
    p.add_argument("-c", "--classifier", action="append", required=True, metavar="SPEC",
                   help="a classifier, repeatable: vader, textblob, smollm2-135m, gemma-3-270m, fewshot:MODEL, "
                   "minilm-baseline, a hub id or model directory, an http(s) URL, python:module:function, or a "
                   "plug-in's form (all: linguagym models --forms)")
    p.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, metavar="DIR",
                   help=f"output directory (default: ./{DEFAULT_OUTPUT.as_posix()})")
    p.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="models and the prediction cache (default: $LINGUAGYM_CACHE_DIR, else the user cache)")
    p.add_argument("--device", default="auto", help="local models: auto (default), cpu, cuda, cuda:1, mps")
    p.add_argument("--batch-size", type=int, default=None, metavar="N", help="texts per model call")
    p.add_argument("--label-map", default=None, metavar="MAP",
                   help="the model's labels as ours, for hub models, URLs and functions: e.g. "
                   "LABEL_0=negative,LABEL_1=positive")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="HTTP classifiers: per request")
    p.add_argument("--retries", type=int, default=None, metavar="N", help="HTTP classifiers: retries per request")
    p.add_argument("--examples", type=int, default=3, metavar="N",
                   help="failing seeds and expansions shown per capability and classifier in the report (3)")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local: predict in this process (default); ray: on a Ray cluster, the classifiers side "
                   "by side, one model copy per worker")
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="the Ray cluster to join (default: $RAY_ADDRESS, else a local cluster started for the run)")
    p.add_argument("--ray-workers", type=int, default=None, metavar="N",
                   help="Ray workers (default: one per GPU of the cluster, else one per CPU)")
    table = p.add_mutually_exclusive_group()
    table.add_argument("--csv", action="store_true", help="print the table as CSV instead of a formatted table")
    table.add_argument("--markdown", action="store_true", help="print the table as Markdown instead")
    p.set_defaults(func=cmd_lct_test, setting_flags=TEST_FLAGS)
    return p


# ClassifierRunSettings' names -> lct test's flags (an error about a setting names the flag)
TEST_FLAGS = {"batch_size": "--batch-size", "retries": "--retries", "timeout": "--timeout", "examples": "--examples",
              "classifiers": "--classifier"}


def cmd_lct_test(args: argparse.Namespace) -> int:
    from linguagym.capabilities.data.datasets import parse_label_map  # off --help's path (~5 ms)
    from linguagym.capabilities.run import run_classifiers  # off --help's path (~30 ms)
    from linguagym.capabilities.settings import ClassifierOptions, ClassifierRunSettings

    options = ClassifierOptions(device=args.device, batch_size=args.batch_size,
                                label_map=parse_label_map(args.label_map) if args.label_map else None,
                                timeout=args.timeout, retries=args.retries, cache_dir=args.cache_dir)
    settings = ClassifierRunSettings(tuple(args.classifier), options, args.output, args.examples)
    err = console(stderr=True)
    bars = ProgressBars(err, prediction_announcement)

    def finished(spec: str, run: Any) -> None:
        bars.stop()
        if run.ok:
            err.print(f"{run.name}: {run.failed_tests} of {len(run.mft_outcomes)} tests fail ({run.unique_texts} "
                      f"unique texts, {run.cached} from the cache, {run.seconds:.1f} s)", soft_wrap=True, markup=False)
        else:
            err.print(f"{run.name}: failed after {run.finished} of {run.unique_texts} predictions", soft_wrap=True,
                      markup=False)

    with make_executor(args.executor, address=args.ray_address, workers=args.ray_workers) as executor, bars:
        done = run_classifiers(args.tests, settings, progress=bars, finished=finished, executor=executor)
    written = done.written
    assert written is not None  # (an output folder was given)
    _print_table(written.summaries, args)
    _print_checklist_table(written.summaries, args)
    err.print(f"results in {written.directory}/; report: {written.report}", soft_wrap=True, markup=False)
    if done.failed:
        lines = [f"{run.name}: failed after {run.finished} of {run.unique_texts} predictions (kept in the prediction "
                 f"cache)\n    " + (run.error or "").replace("\n", "\n    ") for run in done.failed]
        ran = len(done) - len(done.failed)
        raise ClassifierError(f"{len(done.failed)} of {len(done)} classifiers failed"
                              + (f"; the results of the other {ran} are in {written.directory}" if ran else "")
                              + "\n  " + "\n  ".join(lines),
                              hint="mend the cause and run the same command again: it resumes from the cached "
                              "predictions")
    return 0


def _print_table(summaries: dict, args: argparse.Namespace) -> None:
    if not summaries:
        return
    header, rows = summary_table(summaries)
    flat = [f"{group} {name}".strip() for group, name in header]
    # the source columns' meaning under the table (not in --csv: its output stays one table)
    definition = SOURCE_DEFINITION[0].upper() + SOURCE_DEFINITION[1:] + "." if has_sources(summaries) else None
    if args.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(flat)
        writer.writerows(rows)
        sys.stdout.write(buffer.getvalue())
    elif args.markdown:
        sys.stdout.write(markdown_table(flat, rows) + (f"\n{definition}\n" if definition else ""))
    else:
        from rich.table import Table
        from rich.text import Text

        out = console(pipe_width=200)
        single = len(summaries) == 1
        title = f"{args.tests}: failure rates by capability" + (f", {next(iter(summaries))}" if single else "")
        table = Table(title=title, caption=definition, caption_justify="left")
        for i, (group, name) in enumerate(header):
            first = i >= 2 and header[i - 1][0] != group  # the first column of a classifier's group names it
            label = f"{group}\n{name}" if first and not single else ("\n" + name if group and not single else name)
            table.add_column(label, justify="left" if i < 2 else "right", overflow="fold",
                             max_width=40 if i == 1 else None)
        for row in rows:
            table.add_row(*map(Text, row), end_section=row[0] == "all", style="bold" if row[0] == "all" else None)
        out.print(table)


def _print_checklist_table(summaries: dict, args: argparse.Namespace) -> None:
    """CheckList's INV and DIR failure rates, a table of their own (not with --csv: its output stays one table;
    summary.csv has them)."""
    if args.csv or not has_checklist(summaries):
        return
    header, rows = checklist_table(summaries)
    flat = [f"{group} {name}".strip() for group, name in header]
    definition = CHECKLIST_DEFINITION[0].upper() + CHECKLIST_DEFINITION[1:] + "."
    if args.markdown:
        sys.stdout.write("\n" + markdown_table(flat, rows) + f"\n{definition}\n")
        return
    from rich.table import Table
    from rich.text import Text

    out = console(pipe_width=200)
    table = Table(title=f"{args.tests}: invariance (INV) and directional (DIR) failure rates", caption=definition,
                  caption_justify="left")
    for i, name in enumerate(flat):
        table.add_column(name, justify="left" if i < 2 else "right", overflow="fold", max_width=40 if i == 1 else None)
    for row in rows:
        table.add_row(*map(Text, row), end_section=row[0] == "all", style="bold" if row[0] == "all" else None)
    out.print(table)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, header)) + " |",
             "| " + " | ".join("---" if i < 2 else "---:" for i in range(len(header))) + " |"]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"
