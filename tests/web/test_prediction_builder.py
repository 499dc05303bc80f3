"""The editor's prediction builder writes formulas the library reads exactly as meant, in its canonical form.

FORMS lists every shape the builder can produce (each relation; one region, the whole sentence, sums of two and
three regions, mixed; one condition per side, the same or different; condition names with spaces and the
formula language's own characters; two and three comparisons joined by "&"; and the operators linguagym adds:
>=, <=, !=, a negated comparison, a number times a side, a difference of two terms, its absolute value, a number
as a side, ranges and lists of regions) with the text it must write. The
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

from linguagym.suites.formula import (
    Abs,
    Arithmetic,
    Comparison,
    Logical,
    Negate,
    Not,
    Number,
    RegionRef,
    RegionSum,
    Scale,
    format_formula,
    parse_formula,
)
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
    # the operators linguagym adds (docs/suite-format.md)
    (spec(comparison((["5"], "mismatch"), ">=", (["5"], "match"))), "(5;%mismatch%) >= (5;%match%)"),
    (spec(comparison((["5"], "a"), "<=", (["5"], "b"))), "(5;%a%) <= (5;%b%)"),
    (spec(comparison((["5"], "a"), "!=", (["5"], "b"))), "(5;%a%) != (5;%b%)"),
    (spec({**comparison((["5"], "mismatch"), "<", (["5"], "match")), "not": True}),
     "!((5;%mismatch%) < (5;%match%))"),
    (spec({"left": {"regions": ["5"], "condition": "mismatch"}, "relation": ">",
           "right": {"regions": ["5"], "condition": "match", "scale": "2"}}), "(5;%mismatch%) > 2 * (5;%match%)"),
    (spec({"left": {"regions": ["6", "7"], "condition": "a", "scale": "0.5"}, "relation": "<",
           "right": {"regions": ["6", "7"], "condition": "b", "scale": "-1.5"}}),
     "0.5 * ((6;%a%) + (7;%a%)) < -1.5 * ((6;%b%) + (7;%b%))"),
    (spec({"left": {"regions": ["5", "6", "7"], "condition": "mismatch", "list": True}, "relation": ">",
           "right": {"regions": ["3", "5"], "condition": "match", "list": True}}),
     "(5..7;%mismatch%) > (3,5;%match%)"),
    (spec({"left": {"regions": ["3", "4", "5", "8"], "condition": "a", "list": True, "scale": "2"}, "relation": "=",
           "right": {"regions": ["*"], "condition": "a"}}), "2 * (3..5,8;%a%) = (*;%a%)"),
    (spec({"left": {"shape": "difference", "terms": [{"regions": ["6"], "condition": "a"},
                                                     {"regions": ["6"], "condition": "b"}]},
           "relation": ">", "right": {"shape": "difference", "terms": [{"regions": ["6"], "condition": "c"},
                                                                       {"regions": ["6"], "condition": "d"}]}}),
     "(6;%a%) - (6;%b%) > (6;%c%) - (6;%d%)"),  # as mvrr's third comparison means it
    (spec({"left": {"shape": "difference", "scale": "-0.5",
                    "terms": [{"regions": ["5", "6"], "condition": "a"}, {"regions": ["5", "6"], "condition": "b"}]},
           "relation": "<=", "right": {"shape": "number", "number": "1e-05"}}),
     "-0.5 * ((5;%a%) + (6;%a%) - ((5;%b%) + (6;%b%))) <= 1e-05"),
    (spec({"left": {"shape": "abs", "terms": [{"regions": ["5"], "condition": "mismatch"},
                                              {"regions": ["4", "5"], "condition": "match", "list": True}]},
           "relation": "<", "right": {"shape": "number", "number": "0.5"}}),
     "abs((5;%mismatch%) - (4..5;%match%)) < 0.5"),
    (spec({"left": {"shape": "difference", "terms": [{"regions": ["2"], "condition": "a"},
                                                     {"regions": ["2"], "condition": "b"}]},
           "relation": ">=", "right": {"shape": "number", "number": "-1"}},
          {**comparison((["3"], "a"), ">", (["3"], "b")), "not": True}),
     "(2;%a%) - (2;%b%) >= -1 & !((3;%a%) > (3;%b%))"),
]


def _meant(built: list[dict]) -> Comparison | Logical:
    """The tree a built prediction means, by the builder's spec (static/prediction-builder.js says what each field
    means): a term's regions summed with '+' or, with ``list``, one reference of them (runs of regions as ranges)."""
    def term(side: dict):
        regions = [None if r == "*" else int(r) for r in side["regions"]]
        if side.get("list") and len(regions) > 1:
            spans: list[tuple[int, int]] = []
            for region in regions:
                if spans and region == spans[-1][1] + 1:
                    spans[-1] = (spans[-1][0], region)
                else:
                    spans.append((region, region))
            return RegionSum(tuple(spans), side["condition"])
        return reduce(lambda left, right: Arithmetic("+", left, right),
                      [RegionRef(region, side["condition"]) for region in regions])

    def signed(value: float, node):
        return Negate(node(-value)) if value < 0 or str(value).startswith("-") else node(value)

    def side(value: dict):
        shape = value.get("shape", "term")
        if shape == "number":
            return signed(float(value["number"]), Number)
        inner = term(value) if shape == "term" else Arithmetic("-", term(value["terms"][0]), term(value["terms"][1]))
        if shape == "abs":
            return Abs(inner)
        return signed(float(value["scale"]), lambda k: Scale(k, inner)) if "scale" in value else inner

    def comparison(c: dict):
        node = Comparison(c["relation"], side(c["left"]), side(c["right"]))
        return Not(node) if c.get("not") else node

    return reduce(lambda left, right: Logical("&", left, right), [comparison(c) for c in built])


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
    ("(2;%a%) - (2;%b%) > 0", spec({"left": {"shape": "difference", "terms": [{"regions": ["2"], "condition": "a"},
                                                                            {"regions": ["2"], "condition": "b"}]},
                                    "relation": ">", "right": {"shape": "number", "number": "0"}})),
    ("[ (3;%a%) =< (3;%b%) ]", None),  # refused by the library: custom, the server says what to write
    ("!( (3;%a%) > (3;%b%) & (4;%a%) > (4;%b%) )", None),  # the builder negates one comparison at a time
    ("2 * abs((3;%a%) - (3;%b%)) < 1", None),
    ("(3..5;%a%) + (6;%a%) > (3;%b%)", None),
    ("((6;%a%)-(6;%b%))+(((5;%c%)+(6;%c%))-((5;%d%)+(6;%d%)))>0", None),  # as cleft's: more than two terms
    ("(03..05;%a%) > 2.50 * (1,3;%b%)", spec({"left": {"regions": ["3", "4", "5"], "condition": "a", "list": True},
                                             "relation": ">", "right": {"regions": ["1", "3"], "condition": "b",
                                                                        "list": True, "scale": "2.5"}})),
    ("-2*((3;%a%)-(3;%b%))>=-.5", spec({"left": {"shape": "difference", "scale": "-2",
                                                  "terms": [{"regions": ["3"], "condition": "a"},
                                                            {"regions": ["3"], "condition": "b"}]},
                                         "relation": ">=", "right": {"shape": "number", "number": "-0.5"}})),
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
    for typed, written in zip(readable, answer["written"], strict=True):  # regrouped, the same regions and numbers
        assert _meaning(parse_formula(written).tree) == _meaning(parse_formula(typed).tree), (typed, written)


def _meaning(node) -> object:
    """What a formula tests, whatever its grouping: each comparison (or its negation) with each side as a linear
    form, {(condition, region): coefficient, (): constant}, an absolute value marked; comparisons joined by '&' in
    order."""
    if isinstance(node, Logical):
        assert node.op == "&"
        return [*_as_list(_meaning(node.left)), *_as_list(_meaning(node.right))]
    if isinstance(node, Not):
        return [("not", _meaning(node.operand))]
    assert isinstance(node, Comparison)
    return [(node.op, _linear(node.left), _linear(node.right))]


def _as_list(meaning: object) -> list:
    return meaning if isinstance(meaning, list) else [meaning]


def _linear(node) -> frozenset:
    terms: dict = {}

    def add(key, value: float) -> None:
        terms[key] = terms.get(key, 0.0) + value
        if terms[key] == 0:
            del terms[key]

    def walk(n, factor: float) -> None:
        if isinstance(n, Number):
            add((), factor * n.value)
        elif isinstance(n, RegionRef | RegionSum):
            for ref in (n.refs if isinstance(n, RegionSum) else (n,)):
                add((ref.condition, ref.region), factor)
        elif isinstance(n, Negate):
            walk(n.operand, -factor)
        elif isinstance(n, Scale):
            walk(n.operand, factor * n.factor)
        elif isinstance(n, Abs):
            add(("abs", _linear(n.operand)), factor)
        else:
            assert isinstance(n, Arithmetic)
            walk(n.left, factor)
            walk(n.right, factor if n.op == "+" else -factor)

    walk(node, 1.0)
    return frozenset(terms.items())


def test_the_builder_shows_the_syntaxgym_2020_predictions_but_sums_of_differences(shared_data):
    """Every real prediction the builder reads, it writes back meaning the same; custom are only cleft's two, which
    add two differences (more than the two terms of a side the builder has)."""
    formulas = [p["formula"] for path in real_suite_paths()
                for p in json.loads(path.read_text(encoding="utf-8"))["predictions"]]
    answer = _run_builder([], formulas)
    shown = [(text, read) for text, read in zip(formulas, answer["read"], strict=True) if read is not None]
    assert (len(shown), len(formulas)) == (34, 36)
    custom = [text for text, read in zip(formulas, answer["read"], strict=True) if read is None]
    assert all(text.count("-") == 2 and ")+(" in text for text in custom), custom
    written = _run_builder([read for _, read in shown], [])["written"]
    for (typed, _), text in zip(shown, written, strict=True):
        assert _meaning(parse_formula(text).tree) == _meaning(parse_formula(typed).tree), (typed, text)


def test_the_builder_writes_numbers_as_the_library_prints_them():
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node is not installed (apt-get install nodejs); it runs the builder's script")
    typed = ["0", "7", "007", "1.", ".5", "0.1", "2.50", "123.456", "1e3", "1e15", "1e16", "2.5e16", "1e-4", "1e-5",
             "0.00012", "1.5e-7", "3.14159265358979", "1e300", "-0.5", "-2"]
    program = ("const builder = require(process.argv[1]);"
               "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
               "process.stdout.write(JSON.stringify(input.map(builder.numberText)));")
    done = subprocess.run([node, "-e", program, str(SCRIPT)], input=json.dumps(typed), capture_output=True,
                          text=True, timeout=60, check=True)
    for text, written in zip(typed, json.loads(done.stdout), strict=True):
        assert written == format_formula(parse_formula(f"(1;%a%) > {text}").tree.right), text
    assert json.loads(subprocess.run([node, "-e", program, str(SCRIPT)], input='["1e400", "x", "", "1-2"]',
                                     capture_output=True, text=True, timeout=60, check=True).stdout) == [None] * 4
