"""Signed out on a lab server: the editor's live formula check still answers (it changes nothing), with the CSRF
token, from the server's own pages, and at most so many times a minute; the editor says at the top that saving needs
sign-in (``#signin-needed``); saving is still refused."""

from __future__ import annotations

import re

import pytest

from linguagym.web.auth import gate
from linguagym.web.auth.accounts import create_user
from tests.web.conftest import Client

FORMULA = {"formula": "(2;%mismatch%) > (2;%match%)", "conditions": ["match", "mismatch"], "regions": 3}


def _csrf(client: Client) -> str:
    return re.search(r'name="csrf-token" content="([^"]+)"', client.raw.get("/suites").text).group(1)


@pytest.fixture
def lab(app):
    with app.extensions["sessions"].begin() as session:
        create_user(session, "alice", "alice-password", admin=True)
    return app


def test_the_formula_check_answers_signed_out_but_saving_is_refused(lab):
    client = Client(lab)
    checked = client.post("/api/formula", json=FORMULA)
    assert checked.status_code == 200 and checked.json["ok"] and checked.json["canonical"]
    saved = client.post("/api/suites", json={"suite": {}})
    assert saved.status_code == 403 and "Sign in" in saved.json["error"]
    editor = client.get("/suites/new").text
    assert 'id="signin-needed"' in editor and "Saving needs sign-in" in editor


def test_the_signed_out_formula_check_still_needs_the_csrf_token_and_the_servers_origin(lab):
    client = Client(lab)
    assert client.raw.post("/api/formula", json=FORMULA).status_code == 400  # no token
    forged = client.post("/api/formula", json=FORMULA, headers={"Origin": "http://evil.example"})
    assert forged.status_code == 403


def test_the_signed_out_formula_check_is_rate_limited(lab, monkeypatch):
    client = Client(lab)
    for _ in range(gate.READ_ONLY_RATE):
        assert client.post("/api/formula", json=FORMULA).status_code == 200
    refused = client.post("/api/formula", json=FORMULA)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    signed_in = Client(lab)
    response = signed_in.raw.post("/login", data={"username": "alice", "password": "alice-password",
                                                  "csrf": signed_in.csrf})
    assert response.status_code == 302
    signed_in.csrf = _csrf(signed_in)  # sign-in gives a fresh session and token
    assert signed_in.post("/api/formula", json=FORMULA).status_code == 200  # a signed-in user is not counted


def test_a_signed_in_author_sees_no_sign_in_note(lab):
    client = Client(lab)
    client.raw.post("/login", data={"username": "alice", "password": "alice-password", "csrf": client.csrf})
    assert 'id="signin-needed"' not in client.get("/suites/new").text


def test_single_user_mode_without_a_token_shows_no_sign_in_note(client):
    assert 'id="signin-needed"' not in client.get("/suites/new").text
