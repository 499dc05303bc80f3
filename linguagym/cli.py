"""The ``linguagym`` command line: parses arguments and calls the library, nothing more.

Imports of heavy libraries happen inside the commands that need them, so ``--help``, ``validate`` and
``show`` start fast.
"""

from __future__ import annotations

import argparse
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
    """Plain text after a coloured prefix; the message is never read as rich markup (it holds '[3]')."""
    from rich.text import Text

    return Text.assemble((prefix, style), message)


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
    failed = 0
    for path in paths:
        try:
            loaded = read_suite(path)
        except SuiteError as error:
            failed += 1
            err.print(_styled("✗ ", "red", str(error)), soft_wrap=True)
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
    return 1 if failed else 0


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


def cmd_examples(args: argparse.Namespace) -> int:
    from linguagym.suites.examples import example_suite_paths

    for path in example_suite_paths():
        print(path)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on embedded defaults: the bundled example suites."""
    from linguagym.suites.examples import example_suite_paths

    paths = [str(p) for p in example_suite_paths()]
    console = _console()
    console.rule("linguagym demo: the bundled example suites")
    status = cmd_validate(argparse.Namespace(suites=paths, quiet=False, strict=False))
    if status:
        return status
    console.print()
    return cmd_show(argparse.Namespace(suites=paths, items=2))


# -------------------------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="linguagym",
        description="Targeted linguistic evaluation of language models (SyntaxGym suites).",
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

    p = commands.add_parser("examples", help="list the bundled example suites")
    p.set_defaults(func=cmd_examples)

    p = commands.add_parser("demo", help="the main job on the bundled example suites")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
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
