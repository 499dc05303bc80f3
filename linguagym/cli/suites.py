"""Suite commands: ``validate``, ``upgrade``, ``show`` and ``examples``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from linguagym.cli.output import INTERNAL_ERROR, console, styled
from linguagym.errors import LinguagymError, SuiteError
from linguagym.suites.examples import example_suite_paths
from linguagym.suites.limits import unscorable_sentences
from linguagym.suites.load import read_suite
from linguagym.suites.peers import peer_unreadable
from linguagym.suites.save import save_suite, suite_to_json


def suite_paths(values: Sequence[str]) -> list[Path]:
    """Suite arguments: files, or directories (their *.json files)."""
    paths: list[Path] = []
    for value in values:
        path = Path(value)
        paths.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return paths


# -------------------------------------------------------------------------------------------- parsers


def add_validate_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("validate", help="check suite files; exit 1 if any is invalid",
                            description="Check suite files and list every problem found.")
    p.add_argument("suites", nargs="+", metavar="SUITE", help="suite .json files or directories of them")
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    p.add_argument("--strict", action="store_true", help="treat normalisation warnings as failures")
    p.set_defaults(func=cmd_validate)
    return p


def add_upgrade_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("upgrade", help="rewrite a suite in the canonical formula dialect",
                            description="Write a suite in the canonical dialect (formula predictions, "
                            "stripped regions, '( )' grouping).")
    p.add_argument("suite", metavar="SUITE")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="output file, or - for stdout")
    p.set_defaults(func=cmd_upgrade)
    return p


def add_show_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("show", help="print suites as tables (items x conditions by regions)")
    p.add_argument("suites", nargs="+", metavar="SUITE")
    p.add_argument("--items", type=int, default=None, metavar="N", help="show only the first N items")
    p.set_defaults(func=cmd_show)
    return p


def add_examples_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("examples", help="list the bundled example suites")
    p.set_defaults(func=cmd_examples)
    return p


# ------------------------------------------------------------------------------------------- commands


def cmd_validate(args: argparse.Namespace) -> int:
    out, err = console(), console(stderr=True)
    paths = suite_paths(args.suites)
    if not paths:
        raise LinguagymError("no suite files given", hint="pass .json files or a directory that holds them")
    failed = broken = 0
    for path in paths:  # one bad file never stops the report on the others
        try:
            loaded = read_suite(path)
        except SuiteError as error:
            failed += 1
            err.print(styled("✗ ", "red", str(error)), soft_wrap=True)
            continue
        except Exception as error:  # a bug of ours (see entry.main), reported for this file only
            if getattr(args, "debug", False):
                raise
            failed += 1
            broken += 1
            err.print(styled("✗ ", "red", f"{path}: internal error: {type(error).__name__}: {error}\n  this is a "
                             "bug in linguagym; run again with --debug for the traceback and report it"),
                      soft_wrap=True)
            continue
        suite = loaded.suite
        strict_failure = args.strict and loaded.warnings
        failed += bool(strict_failure)
        if not args.quiet or strict_failure:
            out.print(styled(
                "✗ " if strict_failure else "✓ ", "red" if strict_failure else "green",
                f"{path}: {suite.name} ({len(suite.items)} items, {len(suite.condition_names)} "
                f"conditions, {suite.region_count} regions, {len(suite.predictions)} predictions, "
                + (f"{len(suite.suite_predictions)} suite-level, " if suite.suite_predictions else "")
                + f"{loaded.dialect} dialect)"), soft_wrap=True,
            )
        if not args.quiet:
            for warning in (*loaded.warnings, *unscorable_sentences(suite), *peer_unreadable(suite)):
                out.print(styled("  warning ", "yellow", warning.render()), soft_wrap=True)
    if len(paths) > 1 or failed:
        summary = f"{len(paths) - failed} of {len(paths)} suites valid"
        (err if failed else out).print(summary)
    return INTERNAL_ERROR if broken else 1 if failed else 0


def cmd_upgrade(args: argparse.Namespace) -> int:
    loaded = read_suite(args.suite)
    for warning in loaded.warnings:
        console(stderr=True).print(styled("warning ", "yellow", warning.render(args.suite)), soft_wrap=True)
    for note in peer_unreadable(loaded.suite):  # the canonical form keeps what linguagym adds to the language
        console(stderr=True).print(styled("note ", "cyan", note.render(args.suite)), soft_wrap=True)
    if args.output == "-":
        sys.stdout.write(suite_to_json(loaded.suite))
    else:
        save_suite(loaded.suite, args.output)
        print(f"wrote {args.output} (canonical formula dialect)", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from linguagym.suites.display import suite_view  # loads rich

    out = console(wide=True)
    for i, path in enumerate(suite_paths(args.suites)):
        if i:
            out.print()
        out.print(suite_view(read_suite(path).suite, max_items=args.items))
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    for path in example_suite_paths():
        print(path)
    return 0
