"""``linguagym COMMAND`` builds only that command's parser, so it imports no other command's modules (``run``
does not import the capability tests); the parser it builds reads arguments as the full one does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from linguagym.cli import entry

PROBE = (
    "import json, sys\n"
    "from linguagym.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('linguagym.cli.', 'linguagym.capabilities')))))\n"
)


def _modules_after(*argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_run_imports_neither_other_commands_nor_capability_tests() -> None:
    loaded = _modules_after("run", "--help")
    assert "linguagym.cli.run" in loaded
    assert not {"linguagym.cli.lct", "linguagym.cli.importing", "linguagym.cli.serve"} & set(loaded)
    assert not any(name.startswith("linguagym.capabilities") for name in loaded)
    everything = _modules_after("--help")  # the full list still names every command
    assert {"linguagym.cli.lct", "linguagym.cli.importing", "linguagym.cli.serve"} <= set(everything)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "a.json", "--model", "smollm2-135m", "--limit", "2", "-o", "out"],
        ["--debug", "validate", "a.json", "b.json"],
        ["lct", "show", "tests.json"],
        ["import", "pairs", "p.csv", "-o", "out"],
        ["models"],
    ],
)
def test_one_command_parser_reads_as_the_full_one(argv: list[str]) -> None:
    command = entry._command_in(argv)
    assert command in entry.COMMANDS
    assert vars(entry.build_parser(command).parse_args(argv)) == vars(entry.build_parser().parse_args(argv))


def test_every_command_is_listed() -> None:
    full = entry.build_parser()
    listed = next(action for action in full._actions if action.dest == "command").choices
    assert list(listed) == list(entry.COMMANDS)
    assert entry._command_in(["--debug", "nosuch"]) == "nosuch"  # not a command: the full parser says so
    assert entry._command_in(["--version"]) is None
