"""Drafts of a suite kept in the browser, in a real headless Chromium on a server with accounts: a suite written
signed out survives following "Sign in" in the same tab and is restored, with a note, once signed in; saving drops
it; a user's draft is never shown to another user of the browser; "Discard draft" removes it. Skipped without
Debian's chromium (see test_browser.py, whose browser fixture this uses). ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves
the restored draft (web-editor-draft.png)."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import serve_in_thread
from tests.web.test_browser import _shot, browser, expect  # noqa: F401  (browser: the module's Chromium)

USERS = {"alice": "alice-password", "bob": "bob-password"}


@pytest.fixture
def lab(tmp_path):
    from linguagym.web import WebConfig, create_app
    from linguagym.web.auth.accounts import create_user

    app = create_app(WebConfig.build(tmp_path / "data", start_worker=False, cache_dir=tmp_path / "cache"))
    with app.extensions["sessions"].begin() as session:
        for name, password in USERS.items():
            create_user(session, name, password, admin=name == "alice")
    with serve_in_thread(app) as url:
        yield url
    app.extensions["worker"].stop()


@pytest.fixture
def page(browser, lab):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=lab)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.type), dialog.accept()))
    yield page
    context.close()


def _sign_in_here(page, name: str) -> None:
    """Follow this page's "Sign in" link and sign in: the form sends the browser back to the page."""
    page.click("#sign-in")
    page.fill('input[name="username"]', name)
    page.fill('input[name="password"]', USERS[name])
    page.click("button:has-text('Sign in')")
    expect(page.locator("#signed-in-as")).to_contain_text(name)


def _drafts(page) -> list[str]:
    return page.evaluate("() => Object.keys(localStorage).filter((key) => key.startsWith('linguagym.draft')).sort()")


def test_a_draft_written_signed_out_survives_signing_in_and_is_saved(page):
    page.goto("/suites/new")
    expect(page.locator("#draft-note")).to_be_hidden()
    page.fill("#suite-name", "draft_demo")
    page.fill('input.cell[data-i="0"][data-c="0"][data-r="1"]', "swims")
    page.fill('input.cell[data-i="0"][data-c="1"][data-r="1"]', "swim")
    page.locator('input.cond-name[data-c="1"]').first.fill("mismatched")
    page.fill("#save-note", "written before signing in")
    _sign_in_here(page, "alice")
    assert page.dialogs == []  # the draft is kept: following "Sign in" asks nothing
    assert page.url.endswith("/suites/new")
    note = page.locator("#draft-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Restored your unsaved draft")
    expect(note).to_contain_text("written before you signed in")
    expect(page.locator("#suite-name")).to_have_value("draft_demo")
    expect(page.locator('input.cell[data-i="0"][data-c="1"][data-r="1"]')).to_have_value("swim")
    expect(page.locator('input.cond-name[data-c="1"]').first).to_have_value("mismatched")
    expect(page.locator('input.formula[data-p="0"]')).to_have_value("(2;%mismatched%) > (2;%match%)")  # followed
    expect(page.locator("#save-note")).to_have_value("written before signing in")
    assert _drafts(page) == ["linguagym.draft.v1:alice:new"]  # taken over by alice, the signed-out one gone
    _shot(page, "editor-draft")

    page.click("#save")
    page.wait_for_url("**/suites/1")
    stored = json.loads(page.request.get("/suites/1/download").text())
    assert stored["meta"]["name"] == "draft_demo"
    assert [c["condition_name"] for c in stored["items"][0]["conditions"]] == ["match", "mismatched"]
    assert stored["items"][0]["conditions"][1]["regions"][1]["content"] == "swim"
    assert _drafts(page) == []  # saved: no draft left
    page.goto("/suites/new")
    expect(page.locator("#draft-note")).to_be_hidden()
    expect(page.locator("#suite-name")).to_have_value("")


def test_a_users_draft_is_not_shown_to_another_user_and_can_be_discarded(page):
    page.goto("/suites")
    _sign_in_here(page, "alice")
    page.goto("/suites/new")
    page.fill("#suite-name", "alices_draft")
    page.wait_for_function("() => Object.keys(localStorage).some((k) => k === 'linguagym.draft.v1:alice:new')")
    page.click("#sign-out")  # leaves with unsaved edits: the browser asks, and the draft stays
    _sign_in_here(page, "bob")
    page.goto("/suites/new")
    expect(page.locator("#draft-note")).to_be_hidden()
    expect(page.locator("#suite-name")).to_have_value("")
    page.click("#sign-out")
    _sign_in_here(page, "alice")
    page.goto("/suites/new")
    expect(page.locator("#draft-note")).to_be_visible()
    expect(page.locator("#draft-note")).not_to_contain_text("before you signed in")
    expect(page.locator("#suite-name")).to_have_value("alices_draft")
    page.click("#discard-draft")
    page.wait_for_load_state()
    expect(page.locator("#suite-name")).to_have_value("")
    expect(page.locator("#draft-note")).to_be_hidden()
    assert _drafts(page) == []
