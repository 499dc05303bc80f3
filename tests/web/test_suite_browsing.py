"""Browsing suites: tags from the circuits of the built-in collections and a suite's own, filters by tag, circuit
and author, sorting; owners alone change a suite's tags; bad filters are clear errors."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import minimal_suite

SUITES = [("number_prep", "Ann", 2), ("npz_obj", "Bo", 3), ("center_embed", "Ann", 1), ("my_own", "", 4)]


def _upload(client, name, author, items):
    data = minimal_suite(meta={"name": name, "metric": "sum", "author": author})
    data["items"] = [dict(data["items"][0], item_number=n) for n in range(1, items + 1)]
    response = client.post("/suites/upload", data={"suite_text": json.dumps(data)})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def _listed(page) -> list[str]:
    return re.findall(r'<tr data-suite="([^"]+)"', page.text)


@pytest.fixture
def stocked(client):
    return {name: _upload(client, name, author, items) for name, author, items in SUITES}


def test_circuits_are_tags_and_filters(client, stocked):
    page = client.get("/suites")
    assert 'href="/suites?circuit=Agreement" title="circuit: Agreement" aria-label="circuit Agreement">Agr</a>' \
        in page.text
    assert _listed(client.get("/suites", query_string={"circuit": "Agreement"})) == ["number_prep"]
    assert _listed(client.get("/suites", query_string={"tag": "garden-path effects"})) == ["npz_obj"]  # any case
    assert sorted(_listed(client.get("/suites", query_string={"author": "ann"}))) == ["center_embed", "number_prep"]
    none = client.get("/suites", query_string={"circuit": "Licensing"})
    assert _listed(none) == [] and "No suite matches these filters" in none.text


def test_own_tags_are_kept_shown_and_filtered_on(client, stocked):
    suite = stocked["my_own"]
    saved = client.post(f"/suites/{suite}/tags", data={"tags": "pilot, Lab A,  pilot , PILOT"},
                        follow_redirects=True)
    assert saved.status_code == 200 and "Tags of &#39;my_own&#39;: Lab A, pilot." in saved.text
    assert _listed(client.get("/suites", query_string={"tag": "lab a"})) == ["my_own"]
    options = re.search(r'<select name="tag" id="filter-tag">(.*?)</select>', client.get("/suites").text, re.S)
    assert "Lab A" in options.group(1) and "Agreement" in options.group(1)
    refused = client.post(f"/suites/{suite}/tags", data={"tags": "ok, <script>"})
    assert refused.status_code == 400 and "is not a tag" in refused.text
    too_many = client.post(f"/suites/{suite}/tags", data={"tags": ",".join(f"t{n}" for n in range(21))})
    assert too_many.status_code == 400 and "at most 20" in too_many.text
    client.post(f"/suites/{suite}/tags", data={"tags": ""})
    assert _listed(client.get("/suites", query_string={"tag": "pilot"})) == []


def test_sorting(client, stocked):
    assert _listed(client.get("/suites", query_string={"sort": "name"})) == sorted(stocked)
    assert _listed(client.get("/suites", query_string={"sort": "items"})) == ["my_own", "npz_obj", "number_prep",
                                                                              "center_embed"]
    assert _listed(client.get("/suites", query_string={"sort": "items", "order": "asc"}))[0] == "center_embed"
    assert _listed(client.get("/suites"))[0] == "my_own"  # newest change first, as before
    bad = client.get("/suites", query_string={"sort": "colour"})
    assert bad.status_code == 400 and "cannot sort suites by &#39;colour&#39;" in bad.text


def test_only_owners_change_tags_on_a_lab_server(app, client, stocked):
    from linguagym.web.auth.accounts import create_user

    with app.extensions["sessions"].begin() as session:
        create_user(session, "alice", "alice-password", admin=True)
    refused = client.post(f"/suites/{stocked['my_own']}/tags", data={"tags": "x"})
    assert refused.status_code == 403
    assert 'id="tag-form"' not in client.get(f"/suites/{stocked['my_own']}").text
