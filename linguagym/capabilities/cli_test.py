"""``linguagym lct test``: run a capability-test file against one or more sentiment classifiers, print the failure
rates per capability and write CSVs, a results record and an HTML report.

The command is a thin shell over ``testing.run_tests``, ``failures.summarize`` and ``lct_report.write_results``.
Every classifier spec is resolved before any work starts, so a typo fails at once. A classifier that fails part
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

from linguagym.capabilities.classifiers.base import Classifier, ClassifierError
from linguagym.capabilities.lct_report import DEFAULT_OUTPUT
from linguagym.errors import LinguagymError


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
                   "minilm-baseline, a hub id or model directory, an http(s) URL, or python:module:function")
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
    p.set_defaults(func=cmd_lct_test)
    return p


def open_classifier(spec: str, args: argparse.Namespace, label_map: dict[str, str] | None) -> Classifier:
    """The classifier ``spec`` names, behind the prediction cache (nothing heavy is loaded yet)."""
    from linguagym.capabilities.classifiers.cache import CachedClassifier
    from linguagym.capabilities.classifiers.registry import load_classifier

    inner = load_classifier(spec, cache_dir=args.cache_dir, device=args.device, batch_size=args.batch_size,
                            label_map=label_map, timeout=args.timeout, retries=args.retries)
    return CachedClassifier(inner, cache_dir=args.cache_dir)  # type: ignore[return-value]


def _check(args: argparse.Namespace) -> None:
    for option, value, low in (("--batch-size", args.batch_size, 1), ("--retries", args.retries, 0),
                               ("--examples", args.examples, 0)):
        if value is not None and value < low:
            raise LinguagymError(f"{option} must be {low} or more, not {value}")
    if args.timeout is not None and args.timeout <= 0:
        raise LinguagymError(f"--timeout must be more than 0 seconds, not {args.timeout}")


def cmd_lct_test(args: argparse.Namespace) -> int:
    from rich.console import Console

    from linguagym.capabilities.datasets import parse_label_map
    from linguagym.capabilities.lct_report import write_results
    from linguagym.capabilities.testfile import read_tests
    from linguagym.capabilities.testing import failed_run, run_tests
    from linguagym.executors import make_executor

    _check(args)
    document = read_tests(args.tests)
    label_map = parse_label_map(args.label_map) if args.label_map else None
    classifiers = [(spec, open_classifier(spec, args, label_map)) for spec in args.classifier]
    err = Console(stderr=True, highlight=False)
    with make_executor(args.executor, address=args.ray_address, workers=args.ray_workers) as executor:
        elsewhere = _predict_elsewhere(executor, classifiers, document, args, label_map, err)
    runs = []
    for spec, classifier in classifiers:
        bar = _ProgressBar(err, classifier.name)
        try:
            if spec in elsewhere and elsewhere[spec][1] is not None:
                run = failed_run(document, classifier, str(elsewhere[spec][1]), spec)
            else:
                run = run_tests(document, classifier, progress=bar.start, spec=spec)
        finally:
            bar.stop()
            close = getattr(classifier, "close", None)
            if callable(close):
                close()
        if spec in elsewhere:  # predicted on the cluster: not "from the cache"
            run.cached -= elsewhere[spec][0]
        run.executor = executor.describe()
        runs.append(run)
        if run.ok:
            err.print(f"{run.name}: {run.failed_tests} of {len(run.outcomes)} tests fail ({run.unique_texts} unique "
                      f"texts, {run.cached} from the cache, {run.seconds:.1f} s)", soft_wrap=True, markup=False)
        else:
            err.print(f"{run.name}: failed after {run.finished} of {run.unique_texts} predictions", soft_wrap=True,
                      markup=False)
    settings = {"classifiers": list(args.classifier), "device": args.device, "batch_size": args.batch_size,
                "label_map": label_map, "timeout": args.timeout, "retries": args.retries,
                "cache_dir": str(args.cache_dir) if args.cache_dir else None, "executor": args.executor}
    written = write_results(document, args.tests, runs, args.output, examples=args.examples, settings=settings)
    _print_table(written.summaries, args)
    err.print(f"results in {written.directory}/; report: {written.report}", soft_wrap=True, markup=False)
    failed = [run for run in runs if not run.ok]
    if failed:
        lines = [f"{run.name}: failed after {run.finished} of {run.unique_texts} predictions (kept in the prediction "
                 f"cache)\n    " + (run.error or "").replace("\n", "\n    ") for run in failed]
        done = len(runs) - len(failed)
        raise ClassifierError(f"{len(failed)} of {len(runs)} classifiers failed"
                              + (f"; the results of the other {done} are in {written.directory}" if done else "")
                              + "\n  " + "\n  ".join(lines),
                              hint="mend the cause and run the same command again: it resumes from the cached "
                              "predictions")
    return 0


def _predict_elsewhere(executor: Any, classifiers: list[tuple[str, Any]], document: dict, args: argparse.Namespace,
                       label_map: dict[str, str] | None, err: Any) -> dict[str, tuple[int, Any]]:
    """With an executor that can (Ray), predict what every classifier misses, side by side, into the prediction
    caches; per spec: (texts predicted there, its error or None). A local executor predicts nothing ahead."""
    from linguagym.capabilities.testing import missing_texts, unique_texts

    prefill = getattr(executor, "prefill_predictions", None)
    if prefill is None:
        return {}
    texts = unique_texts(document)
    todo = {spec: len(missing_texts(classifier, texts)) for spec, classifier in classifiers}
    options = {"device": args.device, "batch_size": args.batch_size, "label_map": label_map,
               "timeout": args.timeout, "retries": args.retries}
    bar = _ProgressBar(err, f"{len(classifiers)} classifiers on Ray")
    try:
        errors = prefill(classifiers, texts, options, bar.start(sum(todo.values())))
    finally:
        bar.stop()
    # What each classifier's cache gained on the cluster, failed ones included (their finished shards stay).
    return {spec: (todo[spec] - len(missing_texts(classifier, texts)), error)
            for (spec, classifier), error in zip(classifiers, errors, strict=True)}


class _ProgressBar:
    """A rich bar on stderr for one classifier, started once the number of texts to predict is known."""

    def __init__(self, console: Any, name: str) -> None:
        self.console, self.name, self.progress = console, name, None

    def start(self, total: int):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        if not total:
            self.console.print(f"{self.name}: every prediction is cached", markup=False)
            return lambda n: None
        self.console.print(f"{self.name}: {total} texts to predict", markup=False)
        self.progress = Progress(TextColumn(self.name, markup=False), BarColumn(), MofNCompleteColumn(),
                                 TimeRemainingColumn(), console=self.console, transient=True)
        self.progress.start()
        task = self.progress.add_task("predicting", total=total)
        return lambda n: self.progress.advance(task, n)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def _print_table(summaries: dict, args: argparse.Namespace) -> None:
    from linguagym.capabilities.failures import summary_table

    if not summaries:
        return
    header, rows = summary_table(summaries)
    flat = [f"{group} {name}".strip() for group, name in header]
    if args.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(flat)
        writer.writerows(rows)
        sys.stdout.write(buffer.getvalue())
    elif args.markdown:
        sys.stdout.write(markdown_table(flat, rows))
    else:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
        single = len(summaries) == 1
        title = f"{args.tests}: failure rates by capability" + (f", {next(iter(summaries))}" if single else "")
        table = Table(title=title)
        for i, (group, name) in enumerate(header):
            first = i >= 2 and header[i - 1][0] != group  # the first column of a classifier's group names it
            label = f"{group}\n{name}" if first and not single else ("\n" + name if group and not single else name)
            table.add_column(label, justify="left" if i < 2 else "right", overflow="fold",
                             max_width=40 if i == 1 else None)
        for row in rows:
            table.add_row(*map(Text, row), end_section=row[0] == "all", style="bold" if row[0] == "all" else None)
        console.print(table)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, header)) + " |",
             "| " + " | ".join("---" if i < 2 else "---:" for i in range(len(header))) + " |"]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"
