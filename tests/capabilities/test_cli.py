from __future__ import annotations

import argparse
import json
import re

import pytest

from linguagym.cli.lct import add_lct_parser
from linguagym.errors import LinguagymError


def run(argv: list[str]) -> int:
    """What linguagym.cli.main does with the lct group hooked in: LinguagymError -> exit 1."""
    parser = argparse.ArgumentParser(prog="linguagym")
    add_lct_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except LinguagymError as error:
        print(f"error: {error}")
        return 1


@pytest.mark.usefixtures("spacy_ready")
def test_generate_and_show(tmp_path, swn_file, capsys):
    data = tmp_path / "d.csv"
    data.write_text("sentence,y\nThis movie is bad.,0\nA good film.,1\nThose films are awful.,0\n")
    out = tmp_path / "tests.json"
    code = run(["lct", "generate", "--dataset", str(data), "--text-column", "sentence", "--label-column", "y",
                "--label-map", "0=negative,1=positive", "--lexicon", str(swn_file), "--lc", "LC4,LC9",
                "--max-seeds", "1", "--no-expand", "-o", str(out)])
    assert code == 0
    document = json.loads(out.read_text())
    assert "expansion" not in document and all(t["kind"] == "seed" for t in document["tests"])
    assert [c["seeds"] for c in document["capabilities"]] == [1, 1]
    assert document["settings"] == {"seed": 0, "max_seeds": 1, "lcs": ["LC4", "LC9"], "templates": "repaired"}
    capsys.readouterr()
    assert run(["lct", "show", str(out), "--samples", "1"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"LC4 .* 1 .* 0 .* neutral/positive", shown)
    assert "Do I " in shown


def test_user_errors_exit_1_with_a_message(tmp_path, swn_file, capsys):
    data = tmp_path / "d.csv"
    data.write_text("text,label\nGood.,great\n")
    out = tmp_path / "t.json"
    assert run(["lct", "generate", "--dataset", str(data), "--lc", "LC99", "-o", str(out)]) == 1
    assert "unknown capability 'LC99'" in capsys.readouterr().out
    assert run(["lct", "generate", "--dataset", str(data), "--lexicon", str(swn_file), "-o", str(out)]) == 1
    assert "unknown label value(s) 'great' (row 1)" in capsys.readouterr().out
    assert run(["lct", "generate", "--dataset", str(data), "--label-map", "great", "-o", str(out)]) == 1
    assert "bad label map entry" in capsys.readouterr().out
    assert not out.exists()
    assert run(["lct", "show", str(out)]) == 1
    assert "does not exist" in capsys.readouterr().out
