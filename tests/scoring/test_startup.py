"""Commands that compute nothing never import torch or transformers, and start quickly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "linguagym" / "data" / "examples"
PROBE = (
    "import json, sys\n"
    "from linguagym.cli import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "except SystemExit as exit:\n"
    "    code = exit.code\n"
    "heavy = sorted(m for m in ('torch', 'transformers') if m in sys.modules)\n"
    "print(json.dumps({'code': code, 'heavy': heavy}))\n"
)


def _probe(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["run", "--help"],
        ["validate", str(EXAMPLES)],
        ["show", str(EXAMPLES / "npz_comma.json"), "--items", "1"],
        ["score", "ITEMS"],
    ],
    ids=["help", "run-help", "validate", "show", "score"],
)
def test_commands_that_compute_nothing_import_no_torch(argv: list[str], tmp_path: Path) -> None:
    items = tmp_path / "items.csv"
    items.write_text("model,suite,item,correct\nm,number_prep,1,True\nm,number_prep,2,False\n")
    argv = [str(items) if a == "ITEMS" else a for a in argv]
    result = _probe(*argv)
    assert result["heavy"] == [], result
    assert result["code"] in (0, None), result
