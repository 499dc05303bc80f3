"""The editor's prediction builder writes formulas the library reads exactly as meant, in its canonical form.

FORMS lists every shape the builder can produce (each relation; one region, the whole sentence, sums of two and
three regions, mixed; one condition per side, the same or different; condition names with spaces and the
formula language's own characters; two and three comparisons joined by "&") with the text it must write. The
library's parser reads each text to the tree the builder meant and prints it back unchanged. With node
installed, the builder's own script (static/prediction-builder.js) writes exactly these texts and reads them, and
typed variants, back.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import reduce
from pathlib import Path

import pytest

from linguagym.suites.formula import Arithmetic, Comparison, Logical, RegionRef, format_formula, parse_formula
from tests.conftest import real_suite_paths

SCRIPT = Path(__file__).parents[2] / "linguagym" / "web" / "static" / "prediction-builder.js"


def comparison(left: tuple[list[str], str], relation: str, right: tuple[list[str], str]) -> dict:
    return {"left": {"regions": left[0], "condition": left[1]}, "relation": relation,
            "right": {"regions": right[0], "condition": right[1]}}


def spec(*comparisons: dict) -> list[dict]:
    """A built prediction: its comparisons, joined by '&'."""
    return list(comparisons)


FORMS = [
    (spec(comparison((["3"], "mismatch"), ">", (["3"], "match"))), "(3;%mismatch%) > (3;%match%)"),
    (spec(comparison((["2"], "match"), "<", (["2"], "mismatch"))), "(2;%match%) < (2;%mismatch%)"),
    (spec(comparison((["1"], "a"), "=", (["1"], "b"))), "(1;%a%) = (1;%b%)"),
    (spec(comparison((["*"], "ungrammatical"), ">", (["*"], "grammatical"))),
     "(*;%ungrammatical%) > (*;%grammatical%)"),
    (spec(comparison((["6", "7"], "plaus"), "<", (["6", "7"], "implaus"))),
     "(6;%plaus%) + (7;%plaus%) < (6;%implaus%) + (7;%implaus%)"),
    (spec(comparison((["1", "2", "3"], "a"), ">", (["12"], "b"))), "(1;%a%) + (2;%a%) + (3;%a%) > (12;%b%)"),
    (spec(comparison((["3", "*"], "a"), "=", (["2"], "a"))), "(3;%a%) + (*;%a%) = (2;%a%)"),  # one condition
    (spec(comparison((["2"], "no-sub_matrix"), "<", (["2", "2"], "sub matrix (plural)"))),
     "(2;%no-sub_matrix%) < (2;%sub matrix (plural)%) + (2;%sub matrix (plural)%)"),
    (spec(comparison((["4"], " a;b) > (c "), ">", (["4"], "+ - & | [ ] = < 1.5 Ω"))),  # the language's characters
     "(4;% a;b) > (c %) > (4;%+ - & | [ ] = < 1.5 Ω%)"),
    (spec(comparison((["5"], "mismatch_sing"), ">", (["5"], "match_sing")),
          comparison((["5"], "mismatch_plural"), ">", (["5"], "match_plural"))),
     "(5;%mismatch_sing%) > (5;%match_sing%) & (5;%mismatch_plural%) > (5;%match_plural%)"),
    (spec(comparison((["8"], "a"), "<", (["8"], "b")), comparison((["6", "7"], "a"), "=", (["6"], "c")),
          comparison((["*"], "a"), ">", (["*"], "b"))),
     "(8;%a%) < (8;%b%) & (6;%a%) + (7;%a%) = (6;%c%) & (*;%a%) > (*;%b%)"),
]


def _meant(built: list[dict]) -> Comparison | Logical:
    def term(side: dict):
        refs = [RegionRef(None if r == "*" else int(r), side["condition"]) for r in side["regions"]]
        return reduce(lambda left, right: Arithmetic("+", left, right), refs)

    comparisons = [Comparison(c["relation"], term(c["left"]), term(c["right"])) for c in built]
    return reduce(lambda left, right: Logical("&", left, right), comparisons)


@pytest.mark.parametrize(("built", "text"), FORMS, ids=[text for _, text in FORMS])
def test_every_builder_form_parses_to_the_tree_it_builds(built, text):
    parsed = parse_formula(text)
    assert parsed.tree == _meant(built)
    assert format_formula(parsed.tree) == text  # the builder writes the canonical text: saving changes nothing
    assert not parsed.used_brackets and not parsed.used_double_equals  # no normalisation warnings on save


# Typed by hand: read into the builder (as the spec), or left alone as a custom formula (None).
TYPED = [
    ("( (7;%plaus%) + (8;%plaus%) ) < ( (7;%implaus%) + (8;%implaus%) )",
     spec(comparison((["7", "8"], "plaus"), "<", (["7", "8"], "implaus")))),
    ("((3;%a%)>(03;%b%))", spec(comparison((["3"], "a"), ">", (["3"], "b")))),
    ("[(1;%a%)] == ( 1 ; %b% )", spec(comparison((["1"], "a"), "=", (["1"], "b")))),
    ("(6;%a%) + ((7;%a%) + (8;%a%)) > (*;%b%)", spec(comparison((["6", "7", "8"], "a"), ">", (["*"], "b")))),
    ("( (8;%match_sing%) < (8;%mismatch_sing%) ) & ( (8;%match_plural%) < (8;%mismatch_plural%) )",  # as in SyntaxGym
     spec(comparison((["8"], "match_sing"), "<", (["8"], "mismatch_sing")),
          comparison((["8"], "match_plural"), "<", (["8"], "mismatch_plural")))),
    ("(1;%a%) > (1;%b%) & ((2;%a%) > (2;%b%) & [(3;%a%) > (3;%b%)])",
     spec(comparison((["1"], "a"), ">", (["1"], "b")), comparison((["2"], "a"), ">", (["2"], "b")),
          comparison((["3"], "a"), ">", (["3"], "b")))),
    ("(2;%a%) + (3;%b%) > (3;%c%)", None),  # two conditions in one term
    ("(2;%a%) - (2;%b%) > 0", None),
    ("(2;%a%) > (2;%b%) + 1", None),
    ("(2;%a%) > (2;%b%) | (3;%a%) > (3;%b%)", None),
    ("(2;%a%) > (2;%b%) & (3;%a%)", None),
    ("((2;%a%) > (2;%b%)) + (3;%a%) > (3;%b%)", None),
    ("-(2;%a%) < (2;%b%)", None),
    ("(2;%a%) < (2;%b%) < (2;%c%)", None),
    ("((2;%a%) > (2;%b%)", None),
    ("(2;%a%) + (2;%a%)", None),
    ("", None),
]


def _run_builder(specs: list[dict], texts: list[str]) -> dict:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node is not installed (apt-get install nodejs); it runs the builder's script")
    program = ("const builder = require(process.argv[1]);"
               "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
               "process.stdout.write(JSON.stringify({written: input.specs.map(builder.formulaText),"
               " read: input.texts.map(builder.readFormula)}));")
    done = subprocess.run([node, "-e", program, str(SCRIPT)], input=json.dumps({"specs": specs, "texts": texts}),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_the_builder_script_writes_and_reads_exactly_these_forms():
    answer = _run_builder([built for built, _ in FORMS], [text for _, text in FORMS] + [text for text, _ in TYPED])
    assert answer["written"] == [text for _, text in FORMS]
    assert answer["read"] == [built for built, _ in FORMS] + [expected for _, expected in TYPED]


def test_a_typed_formula_the_builder_reads_means_what_the_builder_writes_for_it():
    readable = [text for text, expected in TYPED if expected is not None]
    answer = _run_builder([expected for _, expected in TYPED if expected is not None], [])
    for typed, written in zip(readable, answer["written"], strict=True):
        typed_parts = _comparisons(parse_formula(typed).tree)
        written_parts = _comparisons(parse_formula(written).tree)
        assert len(written_parts) == len(typed_parts)
        for mine, theirs in zip(written_parts, typed_parts, strict=True):  # regrouped, the same regions in order
            assert mine.op == theirs.op
            assert (_refs(mine.left), _refs(mine.right)) == (_refs(theirs.left), _refs(theirs.right))


def _comparisons(node) -> list[Comparison]:
    if isinstance(node, Comparison):
        return [node]
    assert isinstance(node, Logical) and node.op == "&"
    return _comparisons(node.left) + _comparisons(node.right)


def _refs(node) -> list[RegionRef]:
    if isinstance(node, RegionRef):
        return [node]
    assert isinstance(node, Arithmetic) and node.op == "+"
    return _refs(node.left) + _refs(node.right)


def test_the_builder_shows_the_syntaxgym_2020_predictions_without_subtraction(shared_data):
    """Every real prediction the builder reads, it writes back meaning the same; only those that subtract are custom."""
    formulas = [p["formula"] for path in real_suite_paths()
                for p in json.loads(path.read_text(encoding="utf-8"))["predictions"]]
    answer = _run_builder([], formulas)
    shown = [(text, read) for text, read in zip(formulas, answer["read"], strict=True) if read is not None]
    assert (len(shown), len(formulas)) == (28, 36)
    assert all("-" in text for text, read in zip(formulas, answer["read"], strict=True) if read is None)
    written = _run_builder([read for _, read in shown], [])["written"]
    for (typed, _), text in zip(shown, written, strict=True):
        for mine, theirs in zip(_comparisons(parse_formula(text).tree), _comparisons(parse_formula(typed).tree),
                                strict=True):
            assert mine.op == theirs.op
            assert (_refs(mine.left), _refs(mine.right)) == (_refs(theirs.left), _refs(theirs.right))
