"""The ``linguagym`` command line: parses arguments and calls the library, nothing more.

Imports of heavy libraries happen inside the commands that need them, so ``--help``, ``validate`` and
``show`` start fast.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from linguagym import __version__
from linguagym.errors import LinguagymError


def _console(stderr: bool = False, *, wide: bool = False):
    """A rich console; ``wide`` lets tables keep their natural width when output goes to a file or pipe."""
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    if wide and not console.is_terminal:
        console = Console(stderr=stderr, highlight=False, width=1000)
    return console


def _styled(prefix: str, style: str, message: str):
    """Plain text after a coloured prefix; the message is never read as rich markup (it holds '[3]'), and
    characters that would steer the terminal (from a suite, a file name) are shown escaped."""
    from rich.text import Text

    from linguagym.printable import printable

    return Text.assemble((prefix, style), printable(message, keep="\n\t"))


def _suite_paths(values: Sequence[str]) -> list[Path]:
    """Suite arguments: files, or directories (their *.json files)."""
    paths: list[Path] = []
    for value in values:
        path = Path(value)
        paths.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return paths


# ------------------------------------------------------------------------------------------ commands


def cmd_validate(args: argparse.Namespace) -> int:
    from linguagym.errors import SuiteError
    from linguagym.suites.load import read_suite

    out, err = _console(), _console(stderr=True)
    paths = _suite_paths(args.suites)
    if not paths:
        raise LinguagymError("no suite files given", hint="pass .json files or a directory that holds them")
    failed = broken = 0
    for path in paths:  # one bad file never stops the report on the others
        try:
            loaded = read_suite(path)
        except SuiteError as error:
            failed += 1
            err.print(_styled("✗ ", "red", str(error)), soft_wrap=True)
            continue
        except Exception as error:  # a bug of ours (see main), reported for this file only
            if getattr(args, "debug", False):
                raise
            failed += 1
            broken += 1
            err.print(_styled("✗ ", "red", f"{path}: internal error: {type(error).__name__}: {error}\n  this is a "
                              "bug in linguagym; run again with --debug for the traceback and report it"),
                      soft_wrap=True)
            continue
        suite = loaded.suite
        strict_failure = args.strict and loaded.warnings
        failed += bool(strict_failure)
        if not args.quiet or strict_failure:
            out.print(_styled(
                "✗ " if strict_failure else "✓ ", "red" if strict_failure else "green",
                f"{path}: {suite.name} ({len(suite.items)} items, {len(suite.condition_names)} "
                f"conditions, {suite.region_count} regions, {len(suite.predictions)} predictions, "
                f"{loaded.dialect} dialect)"), soft_wrap=True,
            )
        if not args.quiet:
            for warning in loaded.warnings:
                out.print(_styled("  warning ", "yellow", warning.render()), soft_wrap=True)
    if len(paths) > 1 or failed:
        summary = f"{len(paths) - failed} of {len(paths)} suites valid"
        (err if failed else out).print(summary)
    return 2 if broken else 1 if failed else 0


def cmd_upgrade(args: argparse.Namespace) -> int:
    from linguagym.suites.load import read_suite
    from linguagym.suites.save import save_suite, suite_to_json

    loaded = read_suite(args.suite)
    for warning in loaded.warnings:
        _console(stderr=True).print(_styled("warning ", "yellow", warning.render(args.suite)), soft_wrap=True)
    if args.output == "-":
        sys.stdout.write(suite_to_json(loaded.suite))
    else:
        save_suite(loaded.suite, args.output)
        print(f"wrote {args.output} (canonical formula dialect)", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from linguagym.suites.display import suite_view
    from linguagym.suites.load import read_suite

    console = _console(wide=True)
    for i, path in enumerate(_suite_paths(args.suites)):
        if i:
            console.print()
        console.print(suite_view(read_suite(path).suite, max_items=args.items))
    return 0


def _settings(args: argparse.Namespace):
    from linguagym.evaluation.run import DEFAULT_MODEL, RunSettings

    model = (args.model or [DEFAULT_MODEL])[0] if isinstance(args.model, list | None) else args.model
    return RunSettings(
        model=model, bos=args.bos, spacing=args.spacing, dtype=args.dtype, device=args.device,
        batch_size=args.batch_size, pll=args.pll, metric=getattr(args, "metric", None),
        policy=getattr(args, "policy", None) or "all", cache=not args.no_cache,
        cache_dir=str(args.cache_dir) if args.cache_dir else None,
    )


def _progress_bar():
    """A progress callback factory for run_suites: says how much work there is, then a rich bar on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    err = _console(stderr=True)
    progress = Progress(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[unit]}"),
                        TimeRemainingColumn(), console=err, transient=True)

    def start(total: int, unit: str):
        if unit == "tokens":
            message = f"{total} tokens to score (the rest is cached)" if total else "everything is cached"
        else:
            message = f"{total} {unit} to score"
        err.print(message, highlight=False)
        progress.start()
        task = progress.add_task("scoring", total=total, unit=unit)
        return lambda n: progress.advance(task, n)

    return progress, start


def _run_suite_paths(args: argparse.Namespace) -> list[Path]:
    """Suites named on the command line, or a collection's suites (from --suites-dir or fetched)."""
    if args.suites:
        return _suite_paths(args.suites)
    if args.collection in (None, "auto"):
        raise LinguagymError("no suite files given",
                             hint="pass .json files or directories, or --collection syntaxgym-2020 --suites-dir DIR")
    from linguagym.evaluation.collections import fetch_suites, load_collection, suite_paths
    from linguagym.scoring.cache import resolve_cache_dir

    collection = load_collection(args.collection)
    if args.suites_dir:
        return suite_paths(collection, args.suites_dir)
    return suite_paths(collection, fetch_suites(collection, resolve_cache_dir(args.cache_dir)))


def _run_models(args: argparse.Namespace) -> list[str]:
    """The models of a run: each --model, then those of --models-file, each once; the default model if none."""
    from linguagym.evaluation.models_file import read_models_file
    from linguagym.evaluation.run import DEFAULT_MODEL

    models = list(args.model or [])
    if getattr(args, "models_file", None):
        models += read_models_file(args.models_file)
    return list(dict.fromkeys(models)) or [DEFAULT_MODEL]


def cmd_run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from linguagym.evaluation.report import check_report_destination, find_runs, write_report
    from linguagym.evaluation.run import check_settings, run_models
    from linguagym.executors import make_executor

    paths = _run_suite_paths(args)
    if not paths:
        raise LinguagymError("no suite files given", hint="pass .json files or a directory that holds them")
    base = _settings(args)
    check_settings(base)
    models = _run_models(args)
    _check_table_files(args)  # (run_models checks the model folders) before any scoring
    if not args.no_report:
        check_report_destination(args.output)
    err = _console(stderr=True)
    written: list[Path] = []
    failed: list[tuple[str, LinguagymError]] = []
    bars = _ProgressBars()

    def finished(settings, outcome) -> None:
        bars.stop()
        if isinstance(outcome, LinguagymError):
            failed.append((settings.model, outcome))
            err.print(_styled("", "", f"{settings.model}: failed: {outcome.message}"), soft_wrap=True, highlight=False)
        else:
            written.append(_report_model_run(outcome, err))

    with make_executor(args.executor, address=args.ray_address, workers=args.ray_workers) as executor:
        try:
            run_models(paths, [replace(base, model=model) for model in models], progress=bars.start,
                       executor=executor, finished=finished, output=args.output)
        finally:
            bars.stop()
    if written:
        runs = find_runs(written)
        summary = _summarize_and_print([o for run in runs for o in run.outcomes], args)
        if not args.no_report:
            report = write_report(runs, args.output, summary)
            err.print(f"report: {report}", soft_wrap=True, highlight=False)
    if failed:
        lines = "\n  ".join(f"{model}: {error.message}" + (f" ({error.hint})" if error.hint else "")
                            for model, error in failed)
        done = f"; the results of the other {len(written)} are in {args.output}" if written else ""
        raise LinguagymError(f"{len(failed)} of {len(models)} models failed{done}\n  {lines}",
                             hint="mend the cause and run the same command again: finished scores are cached")
    return 0


class _ProgressBars:
    """Progress callbacks for run_models: each piece of work (all models at once on Ray, else one model) says
    how much there is, then gets a rich bar on stderr of its own."""

    def __init__(self) -> None:
        self.current = None

    def start(self, total: int, unit: str):
        self.stop()
        self.current, begin = _progress_bar()
        return begin(total, unit)

    def stop(self) -> None:
        if self.current is not None:
            self.current.stop()
            self.current = None


def _report_model_run(result, err) -> Path:
    """Say what a model's run (written by run_models) cost and where its files are."""
    model = result.settings.model
    err.print(f"{model}: {result.unique_sentences} unique sentences, {result.tokens} tokens, "
              f"{result.seconds:.1f} s; results in {result.directory}/", soft_wrap=True, highlight=False)
    for suite_result in result.suites:
        if suite_result.crossings:
            err.print(f"note: {suite_result.suite.name}: {len(suite_result.crossings)} tokens cross a region "
                      "boundary (kept in the region of their first character)", highlight=False)
    return result.directory


def _check_table_files(args: argparse.Namespace) -> None:
    """--csv and --markdown can be written (checked before any work)."""
    from linguagym.destinations import check_file

    for path in (getattr(args, "csv", None), getattr(args, "markdown", None)):
        if path is not None:
            check_file(path)


def cmd_compare(args: argparse.Namespace) -> int:
    from linguagym.evaluation.report import check_report_destination, find_runs, write_report

    _check_table_files(args)
    if args.report:
        check_report_destination(args.report)
    runs = find_runs(args.runs)
    summary = _summarize_and_print([o for run in runs for o in run.outcomes], args)
    if args.report:
        path = write_report(runs, args.report, summary)
        print(f"report: {path}", file=sys.stderr)
    return 0


def cmd_surprisals(args: argparse.Namespace) -> int:
    from linguagym.atomic import output_error
    from linguagym.destinations import check_file
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.evaluation.run import load_suites, score_texts
    from linguagym.scoring.precomputed import write_surprisals_tsv
    from linguagym.scoring.registry import load_scorer

    check_file(args.output)  # before any scoring
    suites, _ = load_suites(_suite_paths(args.suites))
    texts = [s.text for suite in suites for s in suite_sentences(suite, args.spacing)]
    settings = _settings(args)
    scorer = load_scorer(settings.model, bos=settings.bos, dtype=settings.dtype, device=settings.device,
                         batch_size=settings.batch_size, pll=settings.pll,
                         cache_dir=Path(settings.cache_dir) if settings.cache_dir else None,
                         score_cache=settings.cache)
    scores = score_texts(scorer, texts)
    try:
        write_surprisals_tsv([scores[text] for text in texts], Path(args.output))
    except OSError as error:
        raise output_error(error, args.output) from error
    print(f"wrote {len(texts)} sentences to {args.output}", file=sys.stderr)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from linguagym import assets
    from linguagym.scoring.cache import resolve_cache_dir

    cache_dir = resolve_cache_dir(Path(args.cache_dir) if args.cache_dir else None)
    if args.fetch:
        for name in args.fetch:
            path = assets.fetch_named_model(name, cache_dir)
            print(f"{name}: {path}")
        return 0
    for entry in assets.named_models():
        print(entry.name)
    return 0


def _summarize_and_print(outcomes, args: argparse.Namespace):
    from linguagym.evaluation.aggregate import summarize
    from linguagym.evaluation.collections import covering_collection, load_collection
    from linguagym.evaluation.tables import notes, rich_table, write_summary_csv

    if args.collection == "auto":
        collection = covering_collection(o.suite for o in outcomes)
    else:
        collection = load_collection(args.collection)
    summary = summarize(outcomes, collection, policy=args.policy, bootstrap=args.bootstrap, seed=args.seed)
    console = _console(wide=True)
    console.print(rich_table(summary, intervals=args.intervals))
    for line in notes(summary):
        console.print(line, style="dim", highlight=False)
    if getattr(args, "csv", None):
        write_summary_csv(summary, args.csv)
        print(f"wrote {args.csv}", file=sys.stderr)
    if getattr(args, "markdown", None):
        from linguagym.atomic import atomic_write_text
        from linguagym.evaluation.tables import summary_markdown

        atomic_write_text(args.markdown, summary_markdown(summary, intervals=args.intervals))
        print(f"wrote {args.markdown}", file=sys.stderr)
    return summary


def cmd_score(args: argparse.Namespace) -> int:
    from linguagym.evaluation.aggregate import read_item_outcomes

    outcomes = [o for path in args.results for o in read_item_outcomes(path)]
    _summarize_and_print(outcomes, args)
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    from linguagym.suites.examples import example_suite_paths

    for path in example_suite_paths():
        print(path)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on embedded defaults: the bundled example suites, scored by the default model."""
    from linguagym.evaluation.run import DEFAULT_MODEL
    from linguagym.suites.examples import example_suite_paths

    paths = [str(p) for p in example_suite_paths()]
    console = _console()
    console.rule("linguagym demo: the bundled example suites")
    status = cmd_validate(argparse.Namespace(suites=paths, quiet=False, strict=False))
    if status:
        return status
    console.print()
    cmd_show(argparse.Namespace(suites=paths[:1], items=1))
    console.print()
    console.rule(f"scoring them with {DEFAULT_MODEL}")
    run_args = build_parser().parse_args(["run", *paths, "-o", str(args.output)])
    return cmd_run(run_args)


# -------------------------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    from linguagym.executors import EXECUTORS

    parser = argparse.ArgumentParser(
        prog="linguagym",
        description="Targeted linguistic evaluation: SyntaxGym suites for language models, and capability tests "
        "(lct) for sentiment classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"linguagym {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for unexpected errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = commands.add_parser("validate", help="check suite files; exit 1 if any is invalid",
                            description="Check suite files and list every problem found.")
    p.add_argument("suites", nargs="+", metavar="SUITE", help="suite .json files or directories of them")
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    p.add_argument("--strict", action="store_true", help="treat normalisation warnings as failures")
    p.set_defaults(func=cmd_validate)

    p = commands.add_parser("upgrade", help="rewrite a suite in the canonical formula dialect",
                            description="Write a suite in the canonical dialect (formula predictions, "
                            "stripped regions, '( )' grouping).")
    p.add_argument("suite", metavar="SUITE")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="output file, or - for stdout")
    p.set_defaults(func=cmd_upgrade)

    p = commands.add_parser("show", help="print suites as tables (items x conditions by regions)")
    p.add_argument("suites", nargs="+", metavar="SUITE")
    p.add_argument("--items", type=int, default=None, metavar="N", help="show only the first N items")
    p.set_defaults(func=cmd_show)

    def model_options(p: argparse.ArgumentParser, repeatable: bool = False) -> None:
        from linguagym.evaluation.run import DEFAULT_MODEL

        g = p.add_argument_group("model")
        if repeatable:
            g.add_argument("--model", "-m", action="append", metavar="M",
                           help="a named model, a hub id (id@revision: one checkpoint), a local directory, a .gguf "
                           f"file or an lm-zoo .tsv; repeat to compare models (default: {DEFAULT_MODEL})")
            g.add_argument("--models-file", type=Path, metavar="FILE",
                           help="more models, one per line (# comments; globs such as checkpoints/step-* expand "
                           "in natural order): every checkpoint of a training run, fifty models")
        else:
            g.add_argument("--model", "-m", default=DEFAULT_MODEL, metavar="M",
                           help=f"a named model, a hub id, a local directory, a .gguf file or an lm-zoo .tsv "
                           f"(default: {DEFAULT_MODEL})")
        g.add_argument("--bos", default="auto", metavar="POLICY",
                       help="start-of-sentence: auto (the model's BOS, else EOS), none, or a token (default: auto)")
        g.add_argument("--spacing", default="natural", choices=("natural", "spaces"),
                       help="how regions are joined (default: natural, no space before , . ! ? ; :)")
        g.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"))
        g.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, cuda:1, mps")
        g.add_argument("--batch-size", type=int, default=16, metavar="N")
        g.add_argument("--pll", choices=("original", "within_word_l2r"), default=None,
                       help="pseudo-log-likelihood variant for masked LMs (default: original)")
        g.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                       help="score cache (default: $LINGUAGYM_CACHE_DIR, else the user cache directory)")
        g.add_argument("--no-cache", action="store_true", help="neither read nor write the score cache")

    def summary_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--collection", default="auto", metavar="NAME|FILE",
                       help="suite collection for the score and groups: syntaxgym-2020, a .toml file, or auto "
                       "(syntaxgym-2020 when every suite belongs to it; default)")
        p.add_argument("--policy", choices=("all", "first"), default=None,
                       help="item correct when all its predictions hold, or only the first "
                       "(default: the collection's; syntaxgym-2020 uses first, as the paper did)")
        p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                       help="bootstrap resamples over items for 95%% intervals (0: none; default 1000)")
        p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
        p.add_argument("--intervals", choices=("none", "aggregates", "all"), default="aggregates",
                       help="which rows show intervals (default: score and groups)")
        p.add_argument("--csv", type=Path, default=None, metavar="FILE", help="also write the table as CSV")
        p.add_argument("--markdown", type=Path, default=None, metavar="FILE", help="also write it as Markdown")

    p = commands.add_parser("run", help="score suites with models and evaluate their predictions",
                            description="Score suites with one or more language models, evaluate every prediction, "
                            "print accuracy (suites and the collection's score and groups down, models across), and "
                            "write results into DIR/<model>/ and a report into DIR/report.html.")
    p.add_argument("suites", nargs="*", metavar="SUITE", help="suite .json files or directories of them")
    p.add_argument("-o", "--output", type=Path, default=Path("linguagym-results"), metavar="DIR",
                   help="output directory (default: ./linguagym-results)")
    p.add_argument("--metric", default=None, help="evaluate predictions on this metric instead of the suite's")
    p.add_argument("--suites-dir", type=Path, default=None, metavar="DIR",
                   help="with --collection: the directory holding its suites (else they are fetched when online)")
    p.add_argument("--no-report", action="store_true", help="skip the HTML report and plots")
    g = p.add_argument_group("execution")
    g.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="local: score in this process (default); ray: on a Ray cluster, one model copy per worker")
    g.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --executor ray: the cluster to join (default: start a local one)")
    g.add_argument("--ray-workers", type=int, default=None, metavar="N",
                   help="with --executor ray: workers (default: the cluster's GPUs, else its CPUs)")
    model_options(p, repeatable=True)
    summary_options(p)
    p.set_defaults(func=cmd_run)

    p = commands.add_parser("surprisals", help="write token surprisals of suite sentences as lm-zoo TSV")
    p.add_argument("suites", nargs="+", metavar="SUITE")
    p.add_argument("-o", "--output", required=True, metavar="TSV")
    model_options(p)
    p.set_defaults(func=cmd_surprisals)

    p = commands.add_parser("score", help="aggregate per-item results: suite accuracy, SG score, circuits",
                            description="Aggregate per-item results (items.csv of linguagym runs, run directories, "
                            "or per-item files of Hu et al. 2020: model,suite,item,correct) into suite accuracy, "
                            "the collection score and group scores, per model.")
    p.add_argument("results", nargs="+", metavar="RESULTS", help="items.csv files, run directories, paper CSVs")
    summary_options(p)
    p.set_defaults(func=cmd_score)

    p = commands.add_parser("compare", help="compare runs: one table, models across; optionally an HTML report",
                            description="Compare the runs in RUN_DIRs (directories with run.json, or folders of them).")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--report", type=Path, default=None, metavar="DIR", help="write report.html and plots into DIR")
    summary_options(p)
    p.set_defaults(func=cmd_compare)

    p = commands.add_parser("models", help="list named models, or fetch them into the cache")
    p.add_argument("--fetch", nargs="+", metavar="NAME", help="fetch (and de-quantise) these named models now")
    p.add_argument("--cache-dir", type=Path, default=None, metavar="DIR")
    p.set_defaults(func=cmd_models)

    from linguagym.capabilities.cli import add_lct_parser

    add_lct_parser(commands)

    from linguagym.web.cli import add_serve_parser

    add_serve_parser(commands)

    p = commands.add_parser("examples", help="list the bundled example suites")
    p.set_defaults(func=cmd_examples)

    p = commands.add_parser("demo", help="the main job: run the bundled example suites with the default model")
    p.add_argument("-o", "--output", type=Path, default=Path("linguagym-results") / "demo", metavar="DIR")
    p.set_defaults(func=cmd_demo)
    return parser


class _LevelPrefix(logging.Formatter):
    """Library warnings on stderr as ``warning: ...``, like the CLI's own ``error: ...``."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {super().format(record)}"


def _show_library_warnings() -> None:
    root = logging.getLogger()
    if not root.handlers:  # an embedding program (or ``serve``, or pytest) that set up logging keeps its own
        handler = logging.StreamHandler()
        handler.setFormatter(_LevelPrefix("%(message)s"))
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if args.command != "serve":  # serve logs requests in its own format
        _show_library_warnings()
    try:
        return args.func(args)
    except LinguagymError as error:
        _console(stderr=True).print(_styled("error: ", "red", str(error)), soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # a bug of ours: say so briefly; --debug shows the traceback
        if args.debug:
            raise
        print(f"internal error: {type(error).__name__}: {error}\n"
              "  this is a bug in linguagym; run again with --debug for the traceback and report it",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
