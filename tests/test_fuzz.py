"""Property-based fuzzing of every input a user or a stranger can hand linguagym: suite documents, prediction
formulas, lm-zoo TSVs, capability-test files, collection TOML and per-item result CSVs, through the library, the
command line and the web upload endpoints. The property is always the same: a clean ``LinguagymError`` (the CLI:
exit 1 with no "internal error"; the web: a 4xx answer) or success, never anything else.

Inputs are valid documents mutated (a node replaced by hostile JSON, deleted or duplicated; text inserted,
deleted or truncated) plus raw text, so most of them get past the first checks and reach the deeper code.

``LINGUAGYM_FUZZ_EXAMPLES`` sets the examples per property (default 60 in CI); ``LINGUAGYM_FUZZ_COUNTS=FILE``
writes how many inputs each property tried and how they ended.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linguagym.errors import LinguagymError
from tests.capabilities.lct_fakes import document as capability_document
from tests.conftest import minimal_suite
from tests.evaluation.fakes import WordScorer

EXAMPLES = int(os.environ.get("LINGUAGYM_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
OUTCOMES: dict[str, Counter] = {}
EXAMPLE_SUITES = sorted((Path(__file__).resolve().parent.parent / "linguagym" / "data" / "examples").glob("*.json"))


def outcome(target: str, call) -> object:
    """Run ``call``; count a success or a clean error; let anything else fail the property."""
    counts = OUTCOMES.setdefault(target, Counter())
    try:
        result = call()
    except LinguagymError:
        counts["clean error"] += 1
        return None
    except BaseException:
        counts["crash"] += 1
        raise
    counts["accepted"] += 1
    return result


def cli_outcome(target: str, capsys, argv: list[str]) -> str:
    """``linguagym ARGV`` in this process: exit 0 or 1, never an internal error (exit 70); its standard output."""
    from linguagym.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    assert "internal error" not in captured.err, captured.err
    assert code in (0, 1)
    OUTCOMES.setdefault(target, Counter())["accepted" if code == 0 else "clean error"] += 1
    return captured.out


def cli_on_file(target: str, capsys, name: str, text: str, argv: list[str]) -> str:
    """``cli_outcome`` with ``text`` in a file ``name``, whose path takes the place of "{}" in ``argv``."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return cli_outcome(target, capsys, [str(path) if arg == "{}" else arg for arg in argv])


@pytest.fixture(scope="module", autouse=True)
def _write_counts():
    yield
    target = os.environ.get("LINGUAGYM_FUZZ_COUNTS")
    if target:
        existing = json.loads(Path(target).read_text()) if Path(target).is_file() else {}
        for name, counts in OUTCOMES.items():
            merged = Counter(existing.get(name, {}))
            merged.update(counts)
            existing[name] = dict(merged)
        Path(target).write_text(json.dumps(existing, indent=1, sort_keys=True))


# ------------------------------------------------------------------------------------------------ strategies

HOSTILE_TEXT = st.sampled_from([
    "", " ", "\x00", "\ud800", "\udfff", "\x1b[31mred", "\x07", "\r", "\u202e", "\u2028", "[bold]x[/]", "[/]",
    "%match%", "%", ";", "(", ")", "a" * 300, "é", "中文", "\U0001f600", "\x85", "\\", '"', "\n", "\t", "1e999",
    "NaN", "Infinity", "-0", "01", "1.0", "../../etc/passwd", "con", ".", "..", "a/b", "<script>x</script>",
])
TEXT = st.one_of(HOSTILE_TEXT, st.text(max_size=20), st.text(st.characters(codec="utf-8"), max_size=8),
                 st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=2))
NUMBER = st.one_of(st.integers(), st.integers(min_value=-3, max_value=12), st.floats(),
                   st.sampled_from([10**400, -(10**60), 2**63, 2**53 + 1, 1e308, float("inf"), float("nan"), -0.0]))
SCALAR = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
JSON_VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                          max_leaves=12)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


@st.composite
def mutated(draw, base):
    """``base`` (JSON data) with 1-3 nodes replaced, deleted or duplicated."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        action = draw(st.sampled_from(["replace", "replace", "delete", "duplicate", "add"]))
        if action == "replace":
            parent[last] = draw(JSON_VALUE)
        elif action == "delete":
            del parent[last]
        elif action == "duplicate" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif isinstance(parent, dict):
            parent[draw(TEXT)] = draw(JSON_VALUE)
    return data


def _dumps(data) -> str:
    # allow_nan: the hostile values are meant to reach the reader as NaN/Infinity tokens
    return json.dumps(data, ensure_ascii=False, allow_nan=True)


@st.composite
def text_mutated(draw, text: str):
    """``text`` with a piece inserted, a span deleted, or cut short."""
    position = draw(st.integers(0, len(text)))
    action = draw(st.sampled_from(["insert", "delete", "truncate"]))
    if action == "insert":
        piece = draw(st.one_of(TEXT, st.sampled_from(["[" * 5000, "{" * 70, "1" * 5000, "}", "]", ",", ":", "\\u"])))
        return text[:position] + piece + text[position:]
    if action == "delete":
        return text[:position] + text[position + draw(st.integers(1, 40)):]
    return text[:position]


def _example_suites() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in EXAMPLE_SUITES] + [minimal_suite()]


SUITE_TEXT = st.one_of(
    st.sampled_from(_example_suites()).flatmap(mutated).map(_dumps),
    st.sampled_from(_example_suites()).map(_dumps).flatmap(text_mutated),
    JSON_VALUE.map(_dumps),
    st.text(max_size=200),
)


# ------------------------------------------------------------------------------------------------ suites


def _run_and_write(suite, directory: Path) -> None:
    """What ``linguagym run`` does after loading: score (fake scorer), evaluate, write every output."""
    from linguagym.evaluation.run import RunSettings, run_suites
    from linguagym.evaluation.runfolder.writer import write_run

    result = run_suites([], RunSettings(model="fake"), scorer=WordScorer(), loaded_suites=([suite], [{}]))
    write_run(result, directory)


@FUZZ
@given(SUITE_TEXT)
def test_suite_documents_load_cleanly_and_what_loads_runs_and_reads_back(text):
    from linguagym.suites.load import parse_suite_text
    from linguagym.suites.save import suite_to_json

    loaded = outcome("suite documents", lambda: parse_suite_text(text, source="fuzz.json"))
    if loaded is None:
        return
    written = suite_to_json(loaded.suite)
    assert suite_to_json(parse_suite_text(written).suite) == written  # what is accepted reads back the same
    with tempfile.TemporaryDirectory() as directory:
        _run_and_write(loaded.suite, Path(directory) / "out")


@FUZZ
@given(st.one_of(
    st.text(alphabet="()[];%+-*/<>=&|~!^ .0123456789abxyzm_é\x00", max_size=60),
    st.sampled_from(["(2;%mismatch%) > (2;%match%)", "[(1;%a%) + (2;%b%)] / 2 < (3;%c%) - 1e3",
                     "((1;%a%) > 0) & ~((2;%b%) = 1)"]).flatmap(text_mutated),
    st.integers(1, 3000).map(lambda n: "(" * n + "1" + ")" * n + " > 0"),
    st.integers(1, 500).map(lambda n: " + ".join(["(1;%a%)"] * n) + " > 0"),
    st.text(max_size=40),
))
def test_formulas_parse_cleanly_and_print_back(text):
    from linguagym.suites.formula import format_formula, parse_formula

    parsed = outcome("formulas", lambda: parse_formula(text))
    if parsed is not None:
        printed = format_formula(parsed.tree)
        assert format_formula(parse_formula(printed).tree) == printed


def _tsv(rows) -> str:
    if not isinstance(rows, list):
        return str(rows)
    return "".join(("\t".join(map(str, row)) if isinstance(row, list) else str(row)) + "\n" for row in rows)


TSV_ROWS = st.lists(st.floats(0, 30), min_size=5, max_size=5).map(  # a valid file for "The boy swims today."
    lambda values: [[1, index, token, value] for index, (token, value) in
                    enumerate(zip(["The", "boy", "swims", "today", "."], values, strict=True), start=1)])
TSV_TEXT = st.one_of(TSV_ROWS.map(_tsv), TSV_ROWS.flatmap(mutated).map(_tsv), TSV_ROWS.map(_tsv).flatmap(text_mutated),
                     st.text(max_size=60))


@FUZZ
@given(TSV_TEXT, st.sampled_from([True, True, True, False]),
       st.sampled_from([b"", b"", b"", b"", b"\xff", b"\xed\xa0\x80", b"\x00"]))
def test_lm_zoo_tsv_files_are_read_cleanly(body, header, tail):
    from linguagym.scoring.precomputed import PrecomputedScorer

    body = ("sentence_id\ttoken_id\ttoken\tsurprisal\n" if header else "") + body
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "m.tsv"
        path.write_bytes(body.encode("utf-8", "surrogatepass") + tail)

        def read_and_score():
            scorer = PrecomputedScorer(path)
            return scorer.score(["The boy swims today."])

        outcome("lm-zoo TSV", read_and_score)


# ------------------------------------------------------------------------------------------------ capability tests


TESTS_TEXT = st.one_of(
    st.just(capability_document()).flatmap(mutated).map(_dumps),
    st.just(capability_document()).map(_dumps).flatmap(text_mutated),
    JSON_VALUE.map(_dumps),
)


@FUZZ
@given(TESTS_TEXT)
def test_capability_test_files_read_cleanly_and_show(capsys, text):
    cli_on_file("capability-test files (lct show)", capsys, "tests.json", text, ["lct", "show", "{}", "--samples", "2"])


# ------------------------------------------------------------------------------------------------ collections, CSVs


def _toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string (lone surrogates become escapes TOML refuses)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(str(value), repr(value))
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items()
                               if v is not None) + "}"
    return '""' if value is None else str(value)  # TOML has no null


def _toml(document) -> str:
    """``document`` (JSON-like data) as TOML: a list of tables under ``groups`` as [[groups]], the rest inline."""
    if not isinstance(document, dict):
        return _toml_value(document)
    lines, tables = [], []
    for key, value in document.items():
        if key == "groups" and isinstance(value, list) and all(isinstance(v, dict) for v in value):
            tables += ["[[groups]]\n" + "\n".join(f"{json.dumps(str(k))} = {_toml_value(v)}"
                                                    for k, v in group.items() if v is not None) for group in value]
        elif value is not None:
            lines.append(f"{json.dumps(str(key))} = {_toml_value(value)}")
    return "\n".join(lines + tables) + "\n"


COLLECTION = {"name": "mine", "suites": ["a", "b", "c", "d"], "exclude_from_score": ["d"], "policy": "first",
              "groups": [{"name": "g", "suites": ["a", "b*"]}, {"name": "h", "suites": ["c"]}]}
COLLECTION_TEXT = st.one_of(st.just(COLLECTION).flatmap(mutated).map(_toml),
                            st.just(_toml(COLLECTION)).flatmap(text_mutated), st.text(max_size=120))


@FUZZ
@given(COLLECTION_TEXT)
def test_collection_toml_is_read_cleanly(text):
    from linguagym.evaluation.aggregate import ItemOutcome, summarize
    from linguagym.evaluation.collections import parse_collection

    collection = outcome("collection TOML", lambda: parse_collection(text, source="fuzz.toml"))
    if collection is not None:  # a collection that loads can score results
        outcomes = [ItemOutcome("m", suite, 1, True, True) for suite in list(collection.suites)[:3]]
        summarize(outcomes, collection, bootstrap=10)


CSV_ROWS = st.lists(st.tuples(st.sampled_from(["m1", "m2"]), st.sampled_from(["number_src", "cleft"]),
                               st.integers(1, 30), st.sampled_from(["True", "False", "TRUE", "FALSE"])),
                    min_size=1, max_size=6).map(
    lambda rows: [["model", "suite", "item", "correct"], *map(list, rows)])
CSV_TEXT = st.one_of(CSV_ROWS.flatmap(mutated), CSV_ROWS).map(
    lambda rows: "".join(",".join(map(str, row)) + "\n" if isinstance(row, list) else f"{row}\n" for row in rows)
    if isinstance(rows, list) else str(rows)).flatmap(lambda text: st.one_of(st.just(text), text_mutated(text)))


@FUZZ
@given(CSV_TEXT)
def test_per_item_result_files_are_scored_cleanly(capsys, text):
    cli_on_file("per-item CSVs (score)", capsys, "items.csv", text, ["score", "{}"])


# ------------------------------------------------------------------------------------------------ the CLI on suites


@FUZZ
@given(st.lists(SUITE_TEXT, min_size=1, max_size=3))
def test_validate_and_show_on_hostile_suite_files_never_fail_inside(capsys, texts):
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for index, text in enumerate(texts):
            path = Path(directory) / f"s{index}.json"
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            paths.append(str(path))
        for command in (["validate", *paths], ["show", paths[0]]):
            out = cli_outcome(f"CLI {command[0]}", capsys, command)
            # not a terminal, so rich adds no colour: any control character came from a suite
            assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", out), ascii(out)


# ------------------------------------------------------------------------------------------------ web uploads


@pytest.fixture(scope="module")
def web():
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    with tempfile.TemporaryDirectory() as directory:
        app = create_app(WebConfig.build(Path(directory) / "data", start_worker=False,
                                         cache_dir=Path(directory) / "cache"))
        try:
            yield Client(app)
        finally:
            app.extensions["sessions"].kw["bind"].dispose()


def _web_outcome(target: str, response) -> None:
    assert response.status_code < 500, (response.status_code, response.get_data(as_text=True)[-2000:])
    OUTCOMES.setdefault(target, Counter())["accepted" if response.status_code < 400 else "clean error"] += 1


# a browser sends names as UTF-8 bytes: a lone surrogate cannot reach the server
NAME = TEXT.map(lambda name: name.encode("utf-8", "replace").decode("utf-8"))


@FUZZ
@given(SUITE_TEXT, NAME)
def test_web_suite_uploads_and_the_editor_never_fail_inside(web, text, name):
    data = text.encode("utf-8", "surrogatepass")
    upload = web.post("/suites/upload", data={"suite_file": (io.BytesIO(data), name or "x")},
                      content_type="multipart/form-data")
    _web_outcome("web /suites/upload", upload)
    _web_outcome("web /api/suites", web.post("/api/suites", data=b'{"suite": ' + data + b"}",
                                             content_type="application/json"))
    if upload.status_code == 302:  # whatever was stored can be shown and edited
        page = upload.headers["Location"]
        assert web.get(page).status_code == 200 and web.get(page + "/edit").status_code == 200


@FUZZ
@given(st.one_of(st.text(max_size=80), st.integers(1, 3000).map(lambda n: "(" * n + "1" + ")" * n)), JSON_VALUE)
def test_web_formula_checks_never_fail_inside(web, formula, extra):
    body = {"formula": formula, "conditions": extra, "regions": extra}
    _web_outcome("web /api/formula", web.post("/api/formula", data=_dumps(body).encode("utf-8", "surrogatepass"),
                                              content_type="application/json"))


@FUZZ
@given(TESTS_TEXT, NAME)
def test_web_test_file_uploads_never_fail_inside(web, text, name):
    data = text.encode("utf-8", "surrogatepass")
    upload = web.post("/capabilities/upload", data={"tests_file": (io.BytesIO(data), name or "x"), "name": name},
                      content_type="multipart/form-data")
    _web_outcome("web /capabilities/upload", upload)
    if upload.status_code == 302:  # whatever was stored can be shown, every test of it
        assert web.get(upload.headers["Location"] + "?samples=100").status_code == 200
