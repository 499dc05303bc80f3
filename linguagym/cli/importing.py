"""``linguagym import``: other formats into suite files (BLiMP, minimal pairs, spreadsheets, the Hugging Face hub).
Every input is read and checked before the first file is written; each file is written whole."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from linguagym.destinations import check_file, check_folder
from linguagym.errors import ConfigurationError
from linguagym.importers import blimp, blimp_collection, hub, pairs, table
from linguagym.importers.common import IdenticalPairsWarning, write_suites
from linguagym.printable import printable


def add_import_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("import", help="turn BLiMP, minimal pairs or spreadsheets into suite files",
                            description="Turn other formats into suite files that run, validate and show take.")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)

    b = kinds.add_parser("blimp", help="BLiMP .jsonl files (or --hf): a suite per paradigm",
                         description="BLiMP paradigms into suites: an item per minimal pair, conditions good and bad, "
                         "one region (the sentence), predicting that the good sentence is less surprising.")
    b.add_argument("inputs", nargs="*", metavar="FILE|UID",
                   help="BLiMP .jsonl files; with --hf, paradigm names (UIDs; none: all 67)")
    b.add_argument("--hf", action="store_true", help="load from the Hugging Face hub (nyu-mll/blimp; needs datasets)")
    b.add_argument("--collection", metavar="NAME", default=None,
                   help="also write DIR/NAME.toml, a collection grouping the paradigms by phenomenon")
    _output_option(b)
    b.set_defaults(func=cmd_import_blimp)

    m = kinds.add_parser("pairs", help="minimal pairs (CSV, TSV or JSONL with good and bad): a suite per file",
                         description="Files of minimal pairs (columns or fields good and bad, or sentence_good and "
                         "sentence_bad; optional item or id) into suites, one per file, named after it.")
    m.add_argument("inputs", nargs="+", metavar="FILE")
    m.add_argument("--name", default=None, help="the suite's name (one input file only; default: the file's name)")
    _output_option(m)
    m.set_defaults(func=cmd_import_pairs)

    t = kinds.add_parser("table", help="a spreadsheet (CSV or TSV): item, condition, a column per region",
                         description="A table with a row per sentence (columns item, condition, then one per region, "
                         "named by the header) into a suite. Predictions: --prediction, --predictions-file, or "
                         "FILE's sidecar NAME.predictions (one formula a line).")
    t.add_argument("input", metavar="FILE")
    t.add_argument("--prediction", action="append", default=None, metavar="FORMULA", dest="predictions",
                   help="a prediction, e.g. '(2;%%ungrammatical%%) > (2;%%grammatical%%)' (repeatable)")
    t.add_argument("--predictions-file", type=Path, default=None, metavar="FILE", help="formulas, one a line")
    t.add_argument("--name", default=None, help="the suite's name (default: the file's name)")
    t.add_argument("--metric", default="sum", help="the metric predictions use (default sum)")
    _output_option(t)
    t.set_defaults(func=cmd_import_table)

    s = kinds.add_parser("syntaxgym", help="SyntaxGym suites from the Hugging Face hub (cpllab/syntaxgym)",
                         description="SyntaxGym suites from the Hugging Face hub dataset cpllab/syntaxgym "
                         "(needs the datasets package and a network).")
    s.add_argument("names", nargs="*", metavar="SUITE", help="suite names (none: all of them)")
    _output_option(s)
    s.set_defaults(func=cmd_import_syntaxgym)
    return p


@contextmanager
def _identical_pairs_reported() -> Iterator[None]:
    """Print each ``IdenticalPairsWarning`` of an import as one line on stderr (not Python's warning format)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IdenticalPairsWarning)
        yield
    for warning in caught:
        if issubclass(warning.category, IdenticalPairsWarning):
            print(f"warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)


def _output_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="folder to write the suites into")


def _report(paths: list[Path], out: Path) -> None:
    print(f"wrote {len(paths)} suite{'s' if len(paths) != 1 else ''} to {printable(str(out))}", file=sys.stderr)
    for path in paths:
        print(f"  {printable(path.name)}", file=sys.stderr)


def cmd_import_blimp(args: argparse.Namespace) -> int:
    check_folder(args.output)
    collection = None
    if args.collection is not None:
        collection = args.output / (args.collection if args.collection.endswith(".toml") else f"{args.collection}.toml")
        check_file(collection)
    if not args.hf and not args.inputs:
        raise ConfigurationError("no BLiMP files given", hint="pass .jsonl files, or --hf to load from the hub")
    with _identical_pairs_reported():
        if args.hf:
            suites = hub.blimp_from_hub(args.inputs)
        else:
            suites = [suite for path in args.inputs for suite in blimp.read_blimp(path)]
    _report(write_suites(suites, args.output), args.output)
    if collection is not None:
        name = collection.name[: -len(".toml")]
        blimp_collection.write_blimp_collection(suites, collection, name)
        print(f"wrote {printable(str(collection))}; score it by phenomenon with\n  linguagym run --collection "
              f"{printable(str(collection))} --suites-dir {printable(str(args.output))} --model MODEL", file=sys.stderr)
    return 0


def cmd_import_pairs(args: argparse.Namespace) -> int:
    if args.name is not None and len(args.inputs) > 1:
        raise ConfigurationError("--name names one suite, but several files were given",
                                 hint="leave --name out (each suite is named after its file), or import one file")
    check_folder(args.output)
    with _identical_pairs_reported():
        suites = [pairs.read_pairs(path, name=args.name) for path in args.inputs]
    _report(write_suites(suites, args.output), args.output)
    return 0


def cmd_import_table(args: argparse.Namespace) -> int:
    check_folder(args.output)
    suite = table.read_table(args.input, args.predictions, name=args.name, predictions_file=args.predictions_file,
                             metric=args.metric)
    _report(write_suites([suite], args.output), args.output)
    return 0


def cmd_import_syntaxgym(args: argparse.Namespace) -> int:
    check_folder(args.output)
    _report(write_suites(hub.syntaxgym_from_hub(args.names), args.output), args.output)
    return 0
