"""The ``linguagym`` command: ``build_parser`` assembles the command groups, ``main`` runs one command and turns
what goes wrong into a message and an exit status (0: done; 1: the user's error; 2: a usage error, from argparse;
70: a bug of ours (``EX_SOFTWARE`` of sysexits), with its traceback under --debug; 130: interrupted), and shows
library warnings as ``warning: ...``."""

from __future__ import annotations

import argparse
import importlib
import logging
import re
import sys
from collections.abc import Sequence

from linguagym.cli.output import INTERNAL_ERROR, console, styled
from linguagym.errors import LinguagymError
from linguagym.extras import missing_extra_error
from linguagym.version import __version__

# Each command: the module of linguagym.cli that builds its parser, in the order --help lists them. A command's
# module is imported only when it is needed: ``linguagym run`` does not import the capability tests' modules.
COMMANDS = {
    "validate": ("suites", "add_validate_parser"), "upgrade": ("suites", "add_upgrade_parser"),
    "show": ("suites", "add_show_parser"), "run": ("run", "add_run_parser"),
    "surprisals": ("run", "add_surprisals_parser"), "score": ("results", "add_score_parser"),
    "compare": ("results", "add_compare_parser"), "models": ("run", "add_models_parser"),
    "lct": ("lct", "add_lct_parser"), "serve": ("serve", "add_serve_parser"),
    "examples": ("suites", "add_examples_parser"), "demo": ("run", "add_demo_parser"),
    "import": ("importing", "add_import_parser"), "users": ("users", "add_users_parser"),
}



def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of ``command`` where it is one (what ``main`` runs needs no other)."""
    parser = argparse.ArgumentParser(
        prog="linguagym",
        description="Targeted linguistic evaluation: SyntaxGym suites for language models, and capability tests "
        "(lct) for sentiment classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"linguagym {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for unexpected errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module, add in [COMMANDS[command]] if command in COMMANDS else COMMANDS.values():
        getattr(importlib.import_module(f"linguagym.cli.{module}"), add)(commands)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top level's options take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def option_names(parser: argparse.ArgumentParser, argv: Sequence[str]) -> dict[str, str]:
    """Each setting (an option's ``dest``, the library's keyword) and the option that sets it, in the command
    ``argv`` runs: how this face writes the settings a library error names (``max_seeds`` as ``--max-seeds``).
    A command's own options win over its parents'."""
    names: dict[str, str] = {}
    words = [word for word in argv if not word.startswith("-")]
    current: argparse.ArgumentParser | None = parser
    while current is not None:
        # argparse has no public list of a parser's options; _actions is what its own help reads
        for action in current._actions:
            long = [option for option in action.option_strings if option.startswith("--")]
            if long and action.dest != argparse.SUPPRESS:
                names[action.dest] = long[0]
        # a command whose settings' names differ from its options' dests says how it spells them
        names.update(current.get_default("setting_flags") or {})
        commands = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        word = next((w for w in words if commands is not None and w in commands.choices), None)
        current = commands.choices[word] if commands is not None and word is not None else None
        words = words[words.index(word) + 1:] if word is not None else []
    return names


class _LevelPrefix(logging.Formatter):
    """Library warnings on stderr as ``warning: ...``, like the CLI's own ``error: ...``; a setting they name in
    backticks (```reference```) is written as the running command's option (``--reference``), as errors are."""

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__("%(message)s")
        self.options = options

    def format(self, record: logging.LogRecord) -> str:
        text = re.sub(r"`([a-z_]+)`", lambda m: self.options.get(m.group(1), m.group(0)), super().format(record))
        return f"{record.levelname.lower()}: {text}"


def _show_library_warnings(options: dict[str, str]) -> None:
    root = logging.getLogger()
    if not root.handlers:  # an embedding program (or ``serve``, or pytest) that set up logging keeps its own
        handler = logging.StreamHandler()
        handler.setFormatter(_LevelPrefix(options))
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_in(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if args.command != "serve":  # serve logs requests in its own format
        _show_library_warnings(option_names(parser, argv))
    try:
        return args.func(args)
    except LinguagymError as error:
        options = option_names(parser, argv)
        console(stderr=True).print(styled("error: ", "red", error.text(options.get)), soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # a bug of ours: say so briefly; --debug shows the traceback
        if args.debug:
            raise
        missing = missing_extra_error(error)  # an optional package imported past every check: not a bug
        if missing is not None:
            console(stderr=True).print(styled("error: ", "red", str(missing)), soft_wrap=True)
            return 1
        print(f"internal error: {type(error).__name__}: {error}\n"
              "  this is a bug in linguagym; run again with --debug for the traceback and report it",
              file=sys.stderr)
        return INTERNAL_ERROR
