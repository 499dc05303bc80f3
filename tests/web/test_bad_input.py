"""No request gives a 500 for bad input, and whatever is stored can be shown: ids beyond the databases' integers
or not in ASCII digits, form and query values of the wrong kind, JSON bodies that are not objects, formulas nested
deeply, NUL and other control characters in names, suites and test files holding what JSON readers accept but
nothing can store or show, and many uploads of one suite name at once (through a real server)."""

from __future__ import annotations

import http.client
import io
import json
import re
import threading
import urllib.parse
from contextlib import contextmanager

import pytest

from tests.capabilities.lct_fakes import document
from tests.conftest import minimal_suite

HUGE = "9" * 20  # beyond 2**63 - 1: SQLite's driver overflows on it
KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


def _upload_suite(client, data, name="suite.json"):
    payload = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post("/suites/upload", data={"suite_file": (io.BytesIO(payload), name)},
                       content_type="multipart/form-data")


def _upload_tests(client, data, filename="tests.json", **form):
    payload = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post("/capabilities/upload", data={"tests_file": (io.BytesIO(payload), filename), **form},
                       content_type="multipart/form-data")


def _suite(name: str, **meta) -> dict:
    return minimal_suite(meta={"name": name, "metric": "sum", **meta})


def _tests(dataset: str = "fixture", text: str | None = None) -> dict:
    data = document()
    data["dataset"]["name"] = dataset
    if text is not None:
        data["tests"][0]["text"] = text
    return data


def _seed(client) -> None:
    """Suite 1, test file 1, run 1 and capability job 1 (none runs: the worker is off)."""
    assert _upload_suite(client, _suite("tiny")).status_code == 302
    assert _upload_tests(client, _tests()).status_code == 302
    assert client.post("/runs", data={"suite": "1", "model": "tiny-model"}).status_code == 302
    assert client.post("/capabilities/jobs/test", data={"test_file": "1", "other_classifiers": KEYWORDS}
                       ).status_code == 302


@pytest.fixture
def client_on(database_url, tmp_path):
    """A test client of an application on ``database_url`` (SQLite and PostgreSQL)."""
    from linguagym.web.app import create_app
    from linguagym.web.config import WebConfig
    from tests.web.conftest import Client

    config = WebConfig.build(tmp_path / "data", database_url, start_worker=False, cache_dir=tmp_path / "cache",
                             allow_python_classifiers=True)
    app = create_app(config)
    yield Client(app)
    app.extensions["worker"].stop()
    app.extensions["sessions"].kw["bind"].dispose()


# ------------------------------------------------------------------------------------------------ ids


def test_ids_in_paths_beyond_the_databases_integers_or_not_ascii_digits_are_404(client):
    _seed(client)
    pages = ["/suites/{}", "/suites/{}/download", "/suites/{}/edit", "/runs/{}", "/runs/{}/items", "/api/runs/{}",
             "/runs/{}/files/run.json", "/capabilities/files/{}", "/capabilities/files/{}/download",
             "/capabilities/jobs/{}", "/api/capabilities/jobs/{}", "/capabilities/jobs/{}/chart/seeds.svg",
             "/capabilities/jobs/{}/files/summary.csv"]
    changes = ["/suites/{}/delete", "/runs/{}/cancel", "/capabilities/files/{}/delete", "/capabilities/jobs/{}/cancel"]
    ids = [HUGE, str(2**63), "١", "%C2%B2", "1" * 400]  # "١" (Arabic-Indic one) used to show suite 1
    answers = {(url, i): client.get(url.format(i)).status_code for url in pages for i in ids}
    answers |= {(url, i): client.post(url.format(i)).status_code for url in changes for i in ids}
    assert {key: code for key, code in answers.items() if code != 404} == {}
    assert len(answers) == 85
    assert client.get(f"/suites/{2**63 - 1}").status_code == 404  # the largest id is an ordinary miss
    assert client.get("/suites/1").status_code == 200 and client.get("/api/runs/1").status_code == 200


def test_ids_chosen_in_forms_and_query_strings_are_checked(client):
    _seed(client)
    for value in ("²", "١", HUGE, "1" * 30, "1.0", "-1", "0x1", "1 2", "\x00"):
        run = client.post("/runs", data={"suite": value, "model": "tiny-model"})
        test = client.post("/capabilities/jobs/test", data={"test_file": value, "other_classifiers": KEYWORDS})
        for response, what in ((run, "suite"), (test, "test file")):
            assert response.status_code in (400, 404), (value, what, response.status_code)
            assert f"{what} number" in response.text
    for url in ("/compare", "/compare/accuracy.svg"):
        assert client.get(url, query_string={"run": HUGE}).status_code == 404
        assert "not a run number" in client.get(url, query_string={"run": "²"}).text
    assert client.post("/capabilities/jobs/test", data={"other_classifiers": KEYWORDS}).status_code == 400
    assert client.get("/runs", query_string={"suite": HUGE}).status_code == 200  # only ticks boxes
    assert client.get("/capabilities/jobs", query_string={"file": HUGE}).status_code == 200
    assert client.get("/capabilities/files/1", query_string={"samples": HUGE}).status_code == 200


# ------------------------------------------------------------------------------------------------ forms


def test_form_values_of_the_wrong_kind_are_400_with_the_field_named(client):
    _seed(client)
    run = {"suite": "1", "model": "tiny-model"}
    test = {"test_file": "1", "other_classifiers": KEYWORDS}
    generate = {"lc": "LC2", "max_seeds": "3"}
    numbers = [("/runs", run, "batch_size", "batch size"),
               ("/capabilities/jobs/test", test, "batch_size", "batch size"),
               ("/capabilities/jobs/test", test, "examples", "examples"),
               ("/capabilities/jobs/generate", generate, "max_seeds", "max seeds"),
               ("/capabilities/jobs/generate", generate, "seed", "seed"),
               ("/capabilities/jobs/generate", {**generate, "expand": "on"}, "expand_seeds", "expand seeds"),
               ("/capabilities/jobs/generate", generate, "per_seed", "per seed")]
    bad_numbers = ["1e3", "-5", str(10**30), "1" * 5000, "١٦", "²", "1_000", "16.0", "0x10", "\x00", "1 6"]
    answers = {}
    for url, form, field, label in numbers:
        for value in bad_numbers:
            response = client.post(url, data={**form, field: value})
            answers[(url, field, value[:20])] = (response.status_code, label in response.text)
    assert {key: answer for key, answer in answers.items() if answer != (400, True)} == {}
    for value in ("", "-0", "0"):
        assert "batch size must be" in client.post("/runs", data={**run, "batch_size": value}).text
    # control characters in text used as given (paths, specs): refused, named
    for url, form, field in (("/runs", run, "model"), ("/runs", {"suite": "1"}, "other_models"),
                             ("/capabilities/jobs/generate", generate, "dataset"),
                             ("/capabilities/jobs/test", {"test_file": "1"}, "other_classifiers")):
        response = client.post(url, data={**form, field: "bad\x00name"})
        answers[(url, field, "NUL")] = response.status_code
        assert response.status_code == 400 and "U+0000" in response.text, (url, field)
    # lists where one value is expected, missing fields, files and text in each other's place
    shapes = [client.post("/runs", data={**run, "batch_size": ["2", "x"]}),  # the first value counts
              client.post("/runs", data={"suite": ["1", "1"], "model": "m", "device": ["cpu", "\x00"]}),
              client.post("/runs", data={"suite": "1"}),
              client.post("/runs", data={"model": (io.BytesIO(b"m"), "m.txt"), "suite": "1"},
                          content_type="multipart/form-data"),
              client.post("/suites/upload", data={"suite_file": "not a file"}),
              client.post("/suites/upload", data={"suite_text": (io.BytesIO(b"{}"), "s.json")},
                          content_type="multipart/form-data"),
              client.post("/capabilities/upload", data={"tests_file": "not a file"}),
              client.post("/capabilities/jobs/generate", data={"max_seeds": "3"}),
              client.post("/capabilities/jobs/test", data={"test_file": ["1", "x"]})]
    assert [r.status_code for r in shapes] == [302, 302, 400, 400, 400, 400, 400, 400, 400]
    assert len(answers) == 7 * 11 + 4


# ------------------------------------------------------------------------------------------------ JSON endpoints


def test_json_bodies_that_are_not_objects_are_400_json(client):
    bodies = [b"[1]", b'"x"', b"5", b"null", b"", b"{", b'{"formula": "\xff"}', b"[" * 100_000 + b"]" * 100_000,
              b'{"formula": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", b'{"n": ' + b"1" * 5000 + b"}"]
    answers = {}
    for url in ("/api/formula", "/api/suites"):
        for body in bodies:
            response = client.post(url, data=body, content_type="application/json")
            answers[(url, body[:12])] = (response.status_code, response.is_json and bool(response.json.get("error")))
    assert {key: answer for key, answer in answers.items() if answer != (400, True)} == {}
    assert "not a JSON object" in client.post("/api/formula", data=b"[1]", content_type="application/json").json[
        "error"]
    # fields of the wrong kind inside an object
    formula = "(2;%mismatch%) > (2;%match%)"
    for extra in ({"conditions": 5}, {"conditions": "match"}, {"conditions": {"a": 1}}, {"regions": True},
                  {"regions": "3"}, {"regions": 10**30}, {"conditions": None, "regions": None}):
        response = client.post("/api/formula", json={"formula": formula, **extra})
        assert response.status_code == 200 and response.json["canonical"], extra
    assert client.post("/api/formula", json={"formula": 5}).status_code == 400
    assert client.post("/api/suites", json={"suite": [1]}).status_code == 400
    assert client.post("/api/suites", json={"suite": _suite("noted"), "note": ["x"]}).status_code == 200


@pytest.mark.parametrize("formula", ["(" * 980 + "(2;%a%) > (2;%b%)" + ")" * 980, "(" * 1999, "-" * 1999 + "1",
                                     "[" * 1000 + "]" * 1000])
def test_deeply_nested_formulas_are_answered_as_json(client, formula):
    assert len(formula) <= 2000  # suites.views.MAX_FORMULA: these reach the parser
    response = client.post("/api/formula", json={"formula": formula})
    assert response.status_code in (200, 400) and response.is_json
    assert response.json["ok"] is False and response.json["reason"]


# ------------------------------------------------------------------------------------------------ text that is stored


def test_control_characters_in_names_notes_and_searches_are_dropped(client_on):
    client = client_on
    assert _upload_suite(client, _suite("tiny"), name="evil\x00\x1b[31m\u202ename.json").status_code == 302
    assert _upload_tests(client, _tests(), filename="t\x00.json").status_code == 302
    assert _upload_tests(client, _tests("other"), filename="u.json", name="my\x00 tests\n\u202e").status_code == 302
    saved = client.post("/api/suites", json={"suite": _suite("edited"), "note": "a\x00b"})
    assert saved.status_code == 200
    generate = client.post("/capabilities/jobs/generate", data={"lc": "LC2", "max_seeds": "3", "name": "g\x00en"})
    assert generate.status_code == 302
    from sqlalchemy import select

    from linguagym.web.db import CapabilityJob, SuiteVersion, TestFileRecord

    with client.app.extensions["sessions"]() as session:
        notes = [v.note for v in session.scalars(select(SuiteVersion).order_by(SuiteVersion.id))]
        files = [(f.name, f.note) for f in session.scalars(select(TestFileRecord).order_by(TestFileRecord.id))]
        job_name = session.scalars(select(CapabilityJob)).one().settings["name"]
    assert notes == ["uploaded from evil[31mname.json", "ab"]
    assert files == [("t", "uploaded from t.json"), ("my tests", "uploaded from u.json")]
    assert job_name == "gen"
    for query in ("\x00", "%", "_", "\\", "a\x00b", "\u202e"):
        for url in ("/suites", "/capabilities"):
            response = client.get(url, query_string={"q": query})
            assert response.status_code == 200, (url, query)
    assert "No suite matches" in client.get("/suites", query_string={"q": "%"}).text  # % is a character, not any
    assert "tiny" in client.get("/suites", query_string={"q": "t\x00iny"}).text
    for url in ("/suites", "/suites/1", "/suites/2", "/capabilities", "/capabilities/files/1", "/capabilities/files/2",
                "/capabilities/jobs", "/capabilities/jobs/1"):
        assert client.get(url).status_code == 200, url


def test_result_file_names_with_nul_are_404(client):
    _seed(client)
    for url in ("/runs/1/files/a%00b", "/runs/1/files/%00", "/capabilities/jobs/1/files/a%00b",
                "/runs/1/files/" + "a" * 5000):
        assert client.get(url).status_code == 404, url


# ------------------------------------------------------------------------------------------------ unstorable content


def test_suites_that_cannot_be_stored_or_shown_are_refused_with_their_location(client_on):
    client = client_on
    good = json.dumps(_suite("bad", x=1))
    cases = {  # text of the file -> the location the answer names
        good.replace('"x": 1', '"x": 1e999'): "meta.x",
        good.replace('"x": 1', '"x": NaN'): "meta.x",
        good.replace('"x": 1', '"x": -Infinity'): "meta.x",
        good.replace('"x": 1', '"x": "\\ud800"'): "meta.x",
        good.replace('"x": 1', '"x": "a\\u0000b"'): "meta.x",
        good.replace('"name": "bad"', '"name": "b\\u0000ad"'): "meta.name",
        good.replace('"name": "bad"', '"name": "b\\udfffad"'): "meta.name",
        good.replace('"x": 1', '"x": ' + "[" * 5000 + "]" * 5000): "line 1",
        good.replace('"x": 1', '"x": ' + "1" * 5000): "meta.x",
    }
    for text, location in cases.items():
        response = _upload_suite(client, text.encode(), "bad.json")
        assert response.status_code == 400, text[:80]
        assert location in response.text and "Nothing was saved" in response.text, text[:80]
        editor = client.post("/api/suites", data=json.dumps({"suite": "SUITE"}).replace('"SUITE"', text),
                             content_type="application/json")
        assert editor.status_code in (400, 422) and editor.is_json, text[:80]
    assert client.get("/suites").text.count("<tr>") == 0
    assert _upload_suite(client, good.encode()).status_code == 302  # and the same suite, mended, is stored


def test_test_files_that_cannot_be_stored_or_shown_are_refused_with_their_location(client_on):
    client = client_on
    good = json.dumps(_tests(text="A red car."))
    cases = {
        good.replace('"A red car."', '"A red car.\\ud800"', 1): "tests[0].text",
        good.replace('"A red car."', '"A \\udc00red car."', 1): "tests[0].text",
        good.replace('"A red car."', '"A red\\u0000 car."', 1): "tests[0].text",
        good.replace('"name": "fixture"', '"name": "fix\\u0000ture"'): "dataset.name",
        good.replace('"rows": 12', '"rows": 1e999'): "dataset.rows",
        good.replace('"rows": 12', '"rows": NaN'): "dataset.rows",
        good.replace('"rows": 12', '"rows": 12, "extra": Infinity'): "dataset.extra",
        good.replace('"rows": 12', '"rows": 12, "deep": ' + "[" * 100 + "]" * 100): "nest more than 64 levels deep",
        good.replace('"rows": 12', '"rows": 12, "deep": ' + "[" * 50_000 + "]" * 50_000): "line 1, column",
        good.replace('"rows": 12', '"rows": ' + "1" * 5000): "an integer of 5000 digits",
    }
    for text, location in cases.items():
        response = _upload_tests(client, text.encode(), "bad.json")
        assert response.status_code == 400, text[:80]
        assert location in response.text, (location, text[:80])
    assert client.get("/capabilities").text.count('href="/capabilities/files/') == 0
    assert _upload_tests(client, good.encode()).status_code == 302
    assert client.get("/capabilities/files/1").status_code == 200


# ------------------------------------------------------------------------------------------------ concurrency


@contextmanager
def _serving(app):
    """``app`` served by a real threaded HTTP server on a free port (one thread per request)."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(10)


def _post_all_at_once(port: int, bodies: list[str]) -> list[int]:
    """POST each suite text to /suites/upload from its own thread, all released together; the statuses."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", "/suites")
    page = connection.getresponse()
    cookie = page.getheader("Set-Cookie").split(";")[0]
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.read().decode()).group(1)
    connection.close()
    statuses: list[int] = [0] * len(bodies)
    start = threading.Barrier(len(bodies))

    def upload(index: int) -> None:
        form = urllib.parse.urlencode({"csrf": csrf, "suite_text": bodies[index]})
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        start.wait()
        connection.request("POST", "/suites/upload", body=form, headers={
            "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
        statuses[index] = connection.getresponse().status
        connection.close()

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    return statuses


def test_many_uploads_of_one_suite_name_at_once_store_every_version(client_on):
    from sqlalchemy import select

    from linguagym.web.db import SuiteRecord, SuiteVersion

    app = client_on.app
    different = []
    for number in range(24):
        data = _suite("raced")
        data["items"][0]["conditions"][0]["regions"][0]["content"] = f"The boy {number}"
        different.append(json.dumps(data))
    with _serving(app) as port:
        assert _post_all_at_once(port, different) == [302] * 24
        assert _post_all_at_once(port, [json.dumps(_suite("same"))] * 24) == [302] * 24
    with app.extensions["sessions"]() as session:
        raced = session.scalars(select(SuiteRecord).where(SuiteRecord.name == "raced")).one()
        versions = session.scalars(select(SuiteVersion).where(SuiteVersion.suite_id == raced.id)).all()
        assert sorted(v.number for v in versions) == list(range(1, 25))
        assert {json.loads(v.content)["items"][0]["conditions"][0]["regions"][0]["content"] for v in versions} == {
            f"The boy {number}" for number in range(24)}
        same = session.scalars(select(SuiteRecord).where(SuiteRecord.name == "same")).one()
        assert [v.number for v in same.versions] == [1]


def test_two_saves_of_one_test_file_at_once_store_it_once(database_url):
    """The second save waits for the first one's transaction, then finds its row (not a duplicate)."""
    import time

    from sqlalchemy import func, select

    from linguagym.capabilities.testfile import load_document
    from linguagym.web import db
    from linguagym.web.capabilities.store import save_test_file
    from linguagym.web.db import TestFileRecord

    sessions = db.open_database(database_url)
    content = json.dumps(_tests())
    first_session, second_session = sessions(), sessions()
    first = save_test_file(first_session, content, load_document(json.loads(content)), name="first")
    second = {}

    def save_second() -> None:
        second["saved"] = save_test_file(second_session, content, load_document(json.loads(content)), name="second")
        second_session.commit()

    thread = threading.Thread(target=save_second)
    thread.start()
    time.sleep(0.5)  # the second save has read (or waits to read) while the first is not committed
    first_session.commit()
    thread.join(60)
    assert first.created and not second["saved"].created and second["saved"].record.id == first.record.id
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(TestFileRecord)) == 1
    first_session.close()
    second_session.close()
    sessions.kw["bind"].dispose()


def test_rows_an_older_version_stored_unshowable_are_located_400_pages(app, client):
    """What an older linguagym let through (a lone surrogate in a test file, Infinity in a suite) is still stored:
    its pages say what is wrong and how to mend it instead of failing."""
    from linguagym.web.db import SuiteRecord, SuiteVersion, TestFileRecord

    bad_tests = json.dumps(document()).replace('"fixture"', '"\\ud800"', 1)
    bad_suite = json.dumps(minimal_suite())[:-1] + ', "x": Infinity}'  # a top-level key the old loader kept
    with app.extensions["sessions"].begin() as session:
        session.add(TestFileRecord(name="old", content=bad_tests, sha256="0" * 64))
        record = SuiteRecord(name="old suite")
        session.add(record)
        session.flush()
        session.add(SuiteVersion(suite=record, number=1, content=bad_suite, sha256="0" * 64))
    page = client.get("/capabilities/files/1")
    assert page.status_code == 400 and "surrogate" in page.text and "upload it again" in page.text
    for url in ("/suites/1", "/suites/1/edit"):
        shown = client.get(url)
        assert shown.status_code == 400 and "finite" in shown.text and "upload it again" in shown.text, shown.text


@pytest.mark.parametrize("provenance", [{"masks": ["x"]}, {"masks": [{"start": "6", "end": 9}]}, {"seed": ["LC1"]},
                                        {"expanded_text": 5}])
def test_test_files_whose_provenance_the_pages_read_are_checked_at_upload(client, provenance):
    """Found by the fuzzer: a mask that is not an object was stored and then the file's page failed."""
    data = document()
    expansion = next(test for test in data["tests"] if test["kind"] == "expansion")
    expansion["provenance"].update(provenance)
    response = _upload_tests(client, json.dumps(data).encode())
    assert response.status_code == 400 and "provenance" in response.text


def test_bidi_controls_are_dropped_from_suite_names_and_authors(client):
    """U+202E reversed the rest of a suite's name in every list (suite files refuse controls, but bidi overrides
    are format characters); docs/web.md says they are dropped from names, as from file names and notes."""
    from linguagym.suites.load import parse_suite_text
    from linguagym.web.db import SuiteRecord

    assert _upload_suite(client, _suite("evil\u202egnp.exe", author="Eve\u2066 \u202d")).status_code == 302
    assert _upload_suite(client, _suite("\u202e\u2067")).status_code == 302  # nothing left: a placeholder name
    with client.app.extensions["sessions"]() as session:
        records = session.query(SuiteRecord).order_by(SuiteRecord.id).all()
        assert [r.name for r in records] == ["evilgnp.exe", "unnamed suite"]
        assert records[0].latest.author == "Eve "
        assert parse_suite_text(records[0].latest.content).suite.name == "evilgnp.exe"  # the content says the same
    page = client.get("/suites").text
    assert "evilgnp.exe" in page and "\u202e" not in page


# ------------------------------------------------------------------------------------------------ every route


_NAME_PATTERNS = (r'(?:args|form|files)\.(?:get|getlist)\(\s*"([^"]+)"', r'(?:args|form)\["([^"]+)"\]',
                  r'\((?:request\.)?(?:form|args)\s*,\s*"([^"]+)"')


def _names_in(text: str) -> set[str]:
    return {name for pattern in _NAME_PATTERNS for name in re.findall(pattern, text)}


def _parameter_names() -> list[str]:
    """Every query and form field the web views read (found in their source, so a new one is fuzzed too)."""
    from pathlib import Path

    import linguagym.web

    names = {"expand_seeds", "per_seed", "seed", "max_seeds", "fills_per_mask", "masked_per_seed", "note", "dtype"}
    for path in Path(linguagym.web.__file__).parent.rglob("*.py"):  # the feature packages too
        names |= _names_in(path.read_text(encoding="utf-8"))
    return sorted(names)


def _view_names(app, rule) -> set[str]:
    """The fields the rule's view function reads itself."""
    import inspect

    view = app.view_functions[rule.endpoint]
    return _names_in(inspect.getsource(inspect.unwrap(view)))


HOSTILE = ["x", HUGE, "\x00<b>" + "a" * 300]
PATH_VALUES = {"int": ["1", HUGE], "default": ["x", "seeds", "run.json", "tiny", "..%2F..%2Fx", "a" * 300]}


def _urls(rule) -> list[str]:
    """The rule's path with its variables set to known values, and each in turn to hostile ones."""
    variables = [(name, PATH_VALUES["int" if type(converter).__name__ == "IntegerConverter" else "default"])
                 for name, converter in rule._converters.items()]

    def fill(chosen: dict[str, str]) -> str:
        url = rule.rule
        for name, values in variables:
            url = re.sub(r"<(?:[a-z]+:)?" + name + ">", chosen.get(name, values[0]), url)
        return url

    urls = [fill({})]
    for name, values in variables:
        urls += [fill({name: value}) for value in values[1:]]
    return urls


def test_no_route_or_parameter_answers_500_with_a_finished_run_present(app, client):
    """Every route the app has, with a run that has finished (the leaderboard, model and compare pages only read
    results then: `/leaderboard?order=x` was a KeyError): each hostile value in every parameter any view reads at
    once, and in each parameter its own view reads one at a time. Changes (POST) go last, deletions at the very
    end, so that each page still has what to show."""
    from tests.web.test_results_pages import T0, _finished_run

    _seed(client)
    finished = _finished_run(app, {"org/model": {"tiny": [True, False]}}, finished=T0)
    assert client.get(f"/runs/{finished}").status_code == 200
    names = _parameter_names()
    assert {"order", "sort", "collection", "other_classifiers", "dataset", "suite", "run"} <= set(names)
    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
    answers: dict[tuple[str, str, str, str], int] = {}
    for rule in sorted(rules, key=lambda r: ("delete" in r.rule, "POST" in r.methods, r.rule)):
        own = _view_names(app, rule)
        for method in sorted(rule.methods & {"GET", "POST"}):
            send = client.get if method == "GET" else client.post
            key = "query_string" if method == "GET" else "data"
            for url in _urls(rule):
                answers[(method, url[:60], "", "")] = send(url).status_code
                for value in HOSTILE:
                    answers[(method, url[:60], "*", value[:10])] = send(url, **{key: dict.fromkeys(names, value)}
                                                                        ).status_code
                    for name in own:
                        answers[(method, url[:60], name, value[:10])] = send(url, **{key: {name: value}}).status_code
    assert {key: code for key, code in answers.items() if code >= 500} == {}
    assert {(method, url) for method, url, _, _ in answers} >= {("GET", "/leaderboard"), ("POST", "/runs")}
    long_spec = "a" * 300  # a classifier spec over 255 bytes was OSError "File name too long"
    for spec in (long_spec, f"fewshot:{long_spec}", f"{long_spec}.gguf", f"python:{long_spec}:f"):
        response = client.post("/capabilities/jobs/test", data={"test_file": "1", "other_classifiers": spec})
        assert response.status_code == 400, (spec[:20], response.status_code)
    assert client.get("/leaderboard", query_string={"order": "x"}).status_code == 400
