"""Suite pages and the editor's endpoints, through Flask's test client."""

from __future__ import annotations

import io
import json

from linguagym.suites import example_suite_paths, read_suite
from tests.conftest import minimal_suite


def _upload(client, data, name="suite.json"):
    payload = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post("/suites/upload", data={"suite_file": (io.BytesIO(payload), name)},
                       content_type="multipart/form-data")


def test_upload_view_search_and_download(client):
    for path in example_suite_paths():
        response = _upload(client, path.read_bytes(), path.name)
        assert response.status_code == 302
    suite = read_suite(example_suite_paths()[0]).suite
    listing = client.get("/suites")
    assert all(read_suite(p).suite.name in listing.text for p in example_suite_paths())
    searched = client.get("/suites", query_string={"q": suite.name.upper()})
    assert suite.name in searched.text
    assert "No suite matches" in client.get("/suites", query_string={"q": "zzz-nothing"}).text
    page = client.get("/suites/1")
    assert page.status_code == 200
    for name in suite.region_names:  # regions across
        assert name in page.text
    assert suite.items[0].conditions[0].regions[0].content in page.text
    download = client.get("/suites/1/download")
    assert download.headers["Content-Disposition"].startswith("attachment")
    from linguagym.suites.load import parse_suite_text

    assert parse_suite_text(download.text).suite == suite


def test_same_content_is_not_a_new_version_and_changes_are(client):
    data = minimal_suite()
    assert _upload(client, data).status_code == 302
    again = client.post("/suites/upload", data={"suite_text": json.dumps(data)}, follow_redirects=True)
    assert "already holds exactly this content" in again.text
    data["items"][0]["conditions"][0]["regions"][1]["content"] = "runs"
    _upload(client, data)
    page = client.get("/suites/1")
    assert "version 2 of 2" in page.text
    assert "swims" in client.get("/suites/1", query_string={"version": 1}).text
    assert client.get("/suites/1", query_string={"version": 9}).status_code == 404


def test_invalid_upload_shows_every_problem_with_its_path(client):
    data = minimal_suite()
    data["items"][1]["conditions"][0]["regions"][2]["region_number"] = 7
    data["predictions"][0]["formula"] = "(2;%mismatch%) > > (2;%match%)"
    response = _upload(client, data, "bad.json")
    assert response.status_code == 400
    assert "bad.json: 3 problems" in response.text
    assert "items[1].conditions[0].regions[2].region_number" in response.text
    assert "predictions[0].formula" in response.text
    assert "Nothing was saved" in response.text
    assert client.get("/suites").text.count("<tr>") == 0
    broken = _upload(client, b'{"meta": ', "cut.json")
    assert "line 1, column 10" in broken.text and "invalid JSON" in broken.text
    assert "not UTF-8" in _upload(client, b'\xff\xfe{}', "latin.json").text
    assert "no suite given" in client.post("/suites/upload", data={}).text


def test_script_in_a_suite_is_shown_as_text(client):
    evil = "<script>alert('x')</script>"
    data = minimal_suite(meta={"name": f"evil {evil}", "metric": "sum", "author": evil})
    data["items"][0]["conditions"][0]["regions"][0]["content"] = evil
    data["region_meta"]["1"] = evil
    assert _upload(client, data).status_code == 302
    for url in ("/suites", "/suites/1", "/suites/1/edit"):
        page = client.get(url).text
        assert evil not in page
        assert "&lt;script&gt;" in page or "\\u003cscript\\u003e" in page
    assert "script-src 'self'" in client.get("/suites/1").headers["Content-Security-Policy"]


def test_upload_size_limit(app, client):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    response = _upload(client, b" " * 5000)
    assert response.status_code == 413
    assert "larger than this server&#39;s limit of 1000 bytes" in response.text


def test_changes_need_the_csrf_token(client):
    response = client.raw.post("/suites/upload", data={"suite_text": json.dumps(minimal_suite())})
    assert response.status_code == 400 and "expired" in response.text
    assert client.raw.post("/api/formula", json={"formula": "1 < 2"}).status_code == 400


def test_token_is_required_when_not_bound_to_localhost(tmp_path):
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    config = WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False)
    assert config.token_required
    app = create_app(config)
    client = Client(app)
    assert client.get("/suites").status_code == 200  # reading needs no token
    refused = client.post("/suites/upload", data={"suite_text": json.dumps(minimal_suite())})
    assert refused.status_code == 403 and "access token" in refused.text
    assert client.post("/login", data={"token": "wrong", "csrf": client.csrf}).status_code == 403
    assert client.post("/login", data={"token": "s3cret", "csrf": client.csrf}).status_code == 302
    assert client.post("/suites/upload", data={"suite_text": json.dumps(minimal_suite())}).status_code == 302
    bearer = app.test_client().post("/api/formula", json={"formula": "1 < 2"},
                                    headers={"Authorization": "Bearer s3cret"})
    assert bearer.status_code == 200
    generated = WebConfig.build(tmp_path / "e", host="0.0.0.0", start_worker=False)
    assert generated.token and len(generated.token) >= 20
    app.extensions["sessions"].kw["bind"].dispose()


def test_formula_endpoint_points_at_errors(client):
    ok = client.post("/api/formula", json={"formula": "(2;%b%) >  (2;%a%)", "conditions": ["a", "b"], "regions": 3})
    assert ok.json == {"ok": True, "canonical": "(2;%b%) > (2;%a%)", "notes": [], "peers": None}
    new = client.post("/api/formula", json={"formula": "abs((2..3;%b%) - (2,3;%a%)) >= 1", "conditions": ["a", "b"],
                                            "regions": 3}).json
    assert new["ok"] and new["peers"] == ("uses '>=', 'abs( )', a region range 'N..M', a region list 'N,M': "
                                          "syntaxgym-core and the syntaxgym.org website could not read this suite "
                                          "(linguagym can)")
    level = client.post("/api/formula", json={"formula": "mean((2;%b%) - (2;%a%)) > 0"}).json
    assert level["ok"] and level["peers"].startswith("uses 'mean( )' (a suite-level prediction): syntaxgym-core")
    bad = client.post("/api/formula", json={"formula": "(2;%b%) > > 1"}).json
    assert not bad["ok"] and bad["position"] == 10 and "unexpected" in bad["reason"]
    unknown = client.post("/api/formula", json={"formula": "(4;%c%) > (2;%a%)", "conditions": ["a"],
                                                "regions": 3}).json
    assert not unknown["ok"] and len(unknown["notes"]) == 2
    assert client.post("/api/formula", json={"formula": 3}).status_code == 400


def test_editor_saves_versions_and_reports_problems_by_path(client):
    data = minimal_suite()
    saved = client.post("/api/suites", json={"suite": data, "note": "first"})
    assert saved.json["ok"] and saved.json["version"] == 1
    data["items"][0]["conditions"][1]["regions"][1]["content"] = "swam"
    again = client.post("/api/suites", json={"suite": data}).json
    assert again["created"] and again["version"] == 2
    data["items"][1]["conditions"][1]["condition_name"] = "other"
    problems = client.post("/api/suites", json={"suite": data})
    assert problems.status_code == 422
    assert problems.json["problems"][0]["location"] == "items[1].conditions"
    assert client.post("/api/suites", json={"nothing": 1}).status_code == 400
    assert "Edit suite" in client.get("/suites/1/edit").text
    assert "New suite" in client.get("/suites/new").text


def test_errors_are_pages_not_tracebacks(client):
    missing = client.get("/suites/12345")
    assert missing.status_code == 404 and "no suite number 12345" in missing.text
    assert "Traceback" not in missing.text
    assert client.get("/nowhere").status_code == 404
    assert client.get("/api/runs/5").json["error"].startswith("there is no run")


def test_delete_suite(client):
    _upload(client, minimal_suite())
    assert client.post("/suites/1/delete").status_code == 302
    assert client.get("/suites/1").status_code == 410  # gone, and the page says so (#41)


def test_data_dir_resolution(tmp_path, monkeypatch):
    from linguagym.web.config import resolve_data_dir

    monkeypatch.setenv("LINGUAGYM_DATA_DIR", str(tmp_path / "env"))
    assert resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_data_dir(None) == tmp_path / "env"
    monkeypatch.delenv("LINGUAGYM_DATA_DIR")
    assert "linguagym" in str(resolve_data_dir(None))


def test_a_suite_of_empty_sentences_is_refused_by_upload_and_editor(client):
    data = minimal_suite()
    for item in data["items"]:
        for condition in item["conditions"]:
            for region in condition["regions"]:
                region["content"] = " "
    uploaded = _upload(client, data, "blank.json")
    assert uploaded.status_code == 400 and "every region of every condition is empty" in uploaded.text
    edited = client.post("/api/suites", json={"suite": data})
    assert edited.status_code == 422 and edited.json["problems"][0]["location"] == "items"
    assert client.get("/suites").text.count("<tr>") == 0


def test_saving_without_an_edit_makes_no_version_and_no_automatic_run(app, client, tiny_lm_dir):
    from linguagym.web.db import RunRecord

    data = minimal_suite(meta={"name": "tiny", "metric": "sum", "author": "", "reference": ""})
    assert _upload(client, data).status_code == 302
    assert client.post("/settings", data={"other_models": str(tiny_lm_dir)}).status_code == 302  # runs every save
    resaved = minimal_suite(meta={"name": "tiny", "metric": "sum"})  # as the editor saves it: empty fields dropped
    for item in resaved["items"]:
        item["conditions"].reverse()  # and the conditions in another order
    answer = client.post("/api/suites", json={"suite": resaved}).json
    assert answer["ok"] and not answer["created"] and answer["version"] == 1
    assert "but for the order of conditions or empty fields" in client.get("/suites/1").text
    with app.extensions["sessions"]() as session:
        assert session.query(RunRecord).count() == 0
    resaved["items"][0]["conditions"][0]["regions"][1]["content"] = "runs"  # an edit: a version and a run
    answer = client.post("/api/suites", json={"suite": resaved}).json
    assert answer["created"] and answer["version"] == 2
    with app.extensions["sessions"]() as session:
        assert session.query(RunRecord).count() == 1
