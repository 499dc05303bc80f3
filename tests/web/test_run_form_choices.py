"""The run form: a model ticked when nothing else is chosen (the lab's default models, else linguagym's default),
"all" and "the N of a collection" tick suites; on a lab server a non-admin sees the settings, not a form whose Save
would be refused."""

from __future__ import annotations

import json
import re

from linguagym.evaluation.run import DEFAULT_MODEL
from linguagym.web.auth.accounts import create_user
from tests.conftest import minimal_suite
from tests.web.conftest import Client


def _ticked(page, name) -> set[str]:
    return set(re.findall(rf'name="{name}" value="([^"]+)" checked', page.text))


def _upload(client, name):
    response = client.post("/suites/upload", data={"suite_text": json.dumps(minimal_suite(meta={"name": name}))})
    assert response.status_code == 302


def test_an_empty_form_ticks_the_default_model_and_a_filled_one_keeps_its_own(client, tiny_lm_dir):
    _upload(client, "tiny")
    assert _ticked(client.get("/runs"), "model") == {DEFAULT_MODEL}
    assert _ticked(client.get("/runs", query_string={"model": "gemma-3-270m"}), "model") == {"gemma-3-270m"}
    typed = client.get("/runs", query_string={"other_models": str(tiny_lm_dir)})
    assert _ticked(typed, "model") == set()  # a typed model is a choice too
    assert client.post("/settings", data={"model": "gemma-3-270m"}).status_code == 302
    assert _ticked(client.get("/runs"), "model") == {"gemma-3-270m"}  # the lab's default models


def test_select_all_and_a_collection(client):
    for name in ("number_prep", "npz_obj", "my_suite"):
        _upload(client, name)
    page = client.get("/runs")
    assert 'id="select-all"' in page.text and "the 2 of syntaxgym-2020" in page.text
    assert _ticked(client.get("/runs", query_string={"select": "all"}), "suite") == {"1", "2", "3"}
    assert _ticked(client.get("/runs", query_string={"select": "syntaxgym-2020"}), "suite") == {"1", "2"}
    assert _ticked(client.get("/runs", query_string={"select": "nope", "suite": "3"}), "suite") == {"3"}


def test_a_non_admin_sees_the_settings_read_only(app, client):
    assert 'id="settings-form"' in client.get("/settings").text  # single-user mode: the form, as before
    with app.extensions["sessions"].begin() as session:
        create_user(session, "alice", "alice-password", admin=True)
        create_user(session, "bob", "bob-password")
    signed_out = Client(app).get("/settings").text
    assert 'id="settings-form"' not in signed_out and 'id="settings-read-only"' in signed_out
    assert "New suite versions are not run automatically." in signed_out and "sign in" in signed_out
    bob = Client(app)
    bob.raw.post("/login", data={"username": "bob", "password": "bob-password", "csrf": bob.csrf})
    page = bob.get("/settings").text
    assert 'id="settings-form"' not in page and "Only an admin of this server can change this" in page
    alice = Client(app)
    alice.raw.post("/login", data={"username": "alice", "password": "alice-password", "csrf": alice.csrf})
    assert 'id="settings-form"' in alice.get("/settings").text
