"""Capability-test files in the web application, through Flask's test client: upload (good and invalid), list,
view with samples per capability, download, delete, escaping, and the token rule for changes."""

from __future__ import annotations

import io
import json
import re

from tests.capabilities.lct_fakes import document

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


def upload(client, data, filename: str = "fixture.json", **form):
    payload = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post("/capabilities/upload", data={"tests_file": (io.BytesIO(payload), filename), **form},
                       content_type="multipart/form-data")


def start_test(client, classifiers=(), other: str = KEYWORDS, file_id: int = 1, **form):
    return client.post("/capabilities/jobs/test", data={"test_file": str(file_id), "classifier": list(classifiers),
                                                        "other_classifiers": other, **form})


def test_upload_list_view_and_download(client):
    response = upload(client, document(), "fixture.json")
    assert response.status_code == 302 and response.headers["Location"].endswith("/capabilities/files/1")
    listing = client.get("/capabilities").text
    assert "fixture" in listing and "hand-made" not in listing  # the dataset's name is shown, not its source
    row = listing[listing.index('href="/capabilities/files/1"'):]
    tests = document()["tests"]
    seeds = sum(t["kind"] == "seed" for t in tests)
    assert [f'<td class="num">{n}</td>' in row for n in (seeds, len(tests) - seeds, 6)] == [True] * 3  # 6 LCs
    page = client.get("/capabilities/files/1").text
    counts = re.findall(r'<td><a href="#lc-\d+">([^<]+)</a></td><td>[^<]*</td>\s*<td class="num">[^<]*</td>\s*'
                        r'<td class="num">(\d+)</td><td class="num">(\d+)</td>', page)
    assert counts == [("LC4", "2", "3"), ("X1", "1", "1"), ("LC2", "3", "0"), ("LC1", "2", "3"), ("LC3", "0", "0"),
                      ("LC10", "1", "0")]  # the file's order, then capabilities found only in the tests
    assert "A custom &lt;capability&gt;" in page  # names escaped
    assert "neutral/positive" in page  # expected labels of LC4
    # an expansion beside its seed, the added word marked (from the provenance's mask span)
    assert "A red <mark>good</mark> car." in page and "A red car." in page
    assert "This <mark>new</mark> movie isn&#x27;t bad." in page  # the template moved it: found by a word diff
    assert "I love it &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert "<script>alert" not in page and "<b>really</b>" not in page
    download = client.get("/capabilities/files/1/download")
    assert download.headers["Content-Disposition"] == 'attachment; filename="fixture.json"'
    assert json.loads(download.data) == document()
    assert client.get("/capabilities/files/1", query_string={"samples": 0}).status_code == 200
    assert client.get("/capabilities/files/9").status_code == 404


def test_the_same_file_is_stored_once_and_search_finds_files(client):
    assert upload(client, document(), "a.json", name="first <name>").status_code == 302
    again = upload(client, document(), "b.json")
    assert again.status_code == 302 and again.headers["Location"].endswith("/capabilities/files/1")
    assert "already stored as &#39;first &lt;name&gt;&#39;" in client.get("/capabilities/files/1").text
    other = document()
    other["dataset"]["name"] = "my-reviews"
    assert upload(client, other, "c.json").headers["Location"].endswith("/capabilities/files/2")
    found = client.get("/capabilities", query_string={"q": "REVIEWS"}).text
    assert "my-reviews" in found and "first &lt;name&gt;" not in found
    assert "No test file matches" in client.get("/capabilities", query_string={"q": "zzz"}).text


def test_invalid_uploads_show_their_problems_and_store_nothing(client):
    not_json = upload(client, b'{"format": "linguagym-capability-tests",\n  "tests": [,]}', "broken.json")
    assert not_json.status_code == 400
    assert "broken.json, line 2, column 13: not JSON" in not_json.text
    bad = document()
    bad["tests"][0]["expected"] = ["happy"]
    del bad["tests"][3]["text"]
    schema = upload(client, bad, "bad.json")
    assert schema.status_code == 400
    assert "bad.json: not a valid capability-test file" in schema.text
    assert '<code class="path">tests[0].expected[0]</code> &#39;happy&#39; is not one of' in schema.text
    assert '<code class="path">tests[3]</code> &#39;text&#39; is a required property' in schema.text
    duplicate = document()
    duplicate["tests"][1]["id"] = duplicate["tests"][0]["id"]
    assert '<code class="path">tests[1].id</code> duplicate id' in upload(client, duplicate, "dup.json").text
    assert "no test file given" in client.post("/capabilities/upload", data={}).text
    assert "not UTF-8" in upload(client, b"\xff\xfe{}", "latin.json").text
    assert "Traceback" not in schema.text
    assert "No capability-test files yet" in client.get("/capabilities").text


def test_uploads_larger_than_the_limit_are_refused(tmp_path):
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    app = create_app(WebConfig.build(tmp_path / "d", start_worker=False, max_upload=2000))
    try:
        response = upload(Client(app), document(), "big.json")
        assert response.status_code == 413 and "larger than this server&#39;s limit of 2000 bytes" in response.text
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


def test_delete_a_test_file_unless_a_job_uses_it(client):
    upload(client, document())
    other = document()
    other["dataset"]["name"] = "other"
    upload(client, other)
    assert start_test(client, file_id=1).status_code == 302
    refused = client.post("/capabilities/files/1/delete")
    assert refused.status_code == 400 and "belongs to 1 job(s)" in refused.text
    assert client.post("/capabilities/files/2/delete").status_code == 302
    assert client.get("/capabilities/files/2").status_code == 410  # gone, and the page says so (#41)
    assert client.get("/capabilities/files/1").status_code == 200


def test_changes_need_the_token_beyond_localhost(tmp_path):
    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "d", host="0.0.0.0", token="s3cret", start_worker=False))
    try:
        raw = app.test_client()
        payload = {"tests_file": (io.BytesIO(json.dumps(document()).encode()), "t.json")}
        refused = raw.post("/capabilities/upload", data=payload, content_type="multipart/form-data")
        assert refused.status_code == 403 and "access token" in refused.text
        assert raw.get("/capabilities").status_code == 200  # reading needs no token
        payload = {"tests_file": (io.BytesIO(json.dumps(document()).encode()), "t.json")}
        allowed = raw.post("/capabilities/upload", data=payload, content_type="multipart/form-data",
                           headers={"Authorization": "Bearer s3cret"})
        assert allowed.status_code == 302
        job = raw.post("/capabilities/jobs/test", data={"test_file": "1", "other_classifiers": KEYWORDS},
                       headers={"Authorization": "Bearer s3cret"})
        assert job.status_code == 400 and "python:module:function classifiers run code on the server" in job.text
        generate = raw.post("/capabilities/jobs/generate", data={"lc": ["LC2"]})
        assert generate.status_code == 403
    finally:
        app.extensions["sessions"].kw["bind"].dispose()


def test_navigation_links_to_the_capability_pages(client):
    page = client.get("/suites").text
    assert 'href="/capabilities"' in page and 'href="/capabilities/jobs"' in page
    assert 'class="active">Capability tests' in client.get("/capabilities").text
    assert 'class="active">Capability jobs' in client.get("/capabilities/jobs").text


def test_a_file_page_says_how_the_expansions_were_made(client):
    """The expansion block's settings in words: every seed and every valid fill where the file says None."""
    data = document()
    data["expansion"] = {"parser": {"parser": "spacy"}, "filler": {"filler": "causal", "model": "smollm2-135m"},
                         "settings": {"seeds_per_capability": None, "per_seed": None, "fills_per_mask": 3}}
    upload(client, data)
    page = " ".join(client.get("/capabilities/files/1").text.split())
    assert ("filler smollm2-135m · all seeds per capability, every valid fill each (the 3 best of each masked "
            "sentence)") in page and "None" not in page


def test_a_capabilitys_notes_stand_beside_its_counts(client):
    """Why a count is low (a shortage of seeds, no expansion) is shown where the count is, escaped."""
    data = document()
    data["capabilities"][0]["notes"] = ["fewer than 10 seeds (2): only these met the search",
                                        "no expansions: no slot of its seeds takes a <modifier>"]
    upload(client, data)
    page = client.get("/capabilities/files/1").text
    section = page[page.index('id="lc-1"'):page.index('id="lc-2"')]
    assert "<li>fewer than 10 seeds (2): only these met the search</li>" in section
    assert "<li>no expansions: no slot of its seeds takes a &lt;modifier&gt;</li>" in section
    assert 'class="muted small capability-notes"' not in page[page.index('id="lc-2"'):]  # the others have none
