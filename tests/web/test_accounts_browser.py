"""Accounts in a real headless Chromium, on SQLite and PostgreSQL: alice uploads a suite, bob signs in and gets no
button to delete or edit it, only to copy it (the editor says whose it is, and saves his copy under a new name),
alice can delete it. ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves the sign-in page
and the users page (web-login.png, web-users.png)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import minimal_suite
from tests.web.conftest import serve_in_thread
from tests.web.test_browser import _shot, browser, expect  # noqa: F401  (browser: the module's Chromium)

USERS = {"alice": ("alice-password", True), "bob": ("bob-password", False), "carol": ("carol-password", False)}


@pytest.fixture
def lab_server(tmp_path, database_url):
    """The application with accounts (alice an admin, bob and carol users) on 127.0.0.1 and a free port."""

    from linguagym.web import WebConfig, create_app
    from linguagym.web.auth.accounts import create_user

    config = WebConfig.build(tmp_path / "data", database_url, start_worker=False, cache_dir=tmp_path / "cache")
    app = create_app(config)
    with app.extensions["sessions"].begin() as session:
        for name, (password, admin) in USERS.items():
            create_user(session, name, password, admin=admin)
    with serve_in_thread(app) as url:
        yield url
    app.extensions["worker"].stop()
    app.extensions["sessions"].kw["bind"].dispose()


@pytest.fixture
def page(browser, lab_server):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 720}, base_url=lab_server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("dialog", lambda dialog: dialog.accept())  # "Delete this suite?": yes
    yield page
    context.close()


def _sign_in(page, name: str, *, shot: bool = False) -> None:
    page.goto("/suites")
    page.click("#sign-in")
    page.fill('input[name="username"]', name)
    page.fill('input[name="password"]', USERS[name][0])
    if shot:
        _shot(page, "login")
    page.click("button:has-text('Sign in')")
    expect(page.locator("#signed-in-as")).to_contain_text(name)


def _sign_out(page) -> None:
    page.click("#sign-out")
    expect(page.locator("#sign-in")).to_be_visible()


def test_a_suite_uploaded_by_one_user_cannot_be_deleted_by_another(page):
    page.goto("/suites")
    expect(page.locator("#sign-in")).to_be_visible()  # reading needs no account
    _sign_in(page, "alice", shot=True)
    page.locator("details summary").click()
    page.fill('textarea[name="suite_text"]', json.dumps(minimal_suite(meta={"name": "alices_suite", "metric": "sum"})))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/1")
    expect(page.locator("#owner")).to_have_text("alice")
    _sign_out(page)

    _sign_in(page, "bob")
    page.goto("/suites")
    expect(page.locator("td.owner")).to_have_text("alice")
    page.click("a:has-text('alices_suite')")
    expect(page.locator("#owner")).to_have_text("alice")
    expect(page.locator("button:has-text('Delete suite')")).to_have_count(0)  # not bob's: no button to press
    expect(page.locator("#edit")).to_have_count(0)
    page.click("#copy")
    expect(page.locator("#not-yours")).to_contain_text("The suite 'alices_suite' belongs to alice: only alice or an "
                                                       "admin may change or delete it.")
    page.fill("#suite-author", "bob")
    page.click("#save")  # a new version under its own name: refused, and the editor says why
    expect(page.locator("#problems")).to_contain_text("belongs to alice")
    page.fill("#suite-name", "bobs_copy")
    page.click("#save")
    page.wait_for_url("**/suites/2")
    expect(page.locator("#owner")).to_have_text("bob")
    expect(page.locator("button:has-text('Delete suite')")).to_be_visible()
    page.goto("/suites")
    expect(page.locator("a:has-text('alices_suite')")).to_be_visible()  # still there
    _sign_out(page)

    _sign_in(page, "alice")
    page.goto("/users")
    expect(page.locator("#users tbody tr")).to_have_count(3)
    _shot(page, "users", full=True)
    page.goto("/suites/1")
    page.click("button:has-text('Delete suite')")
    expect(page.locator(".flash.success")).to_contain_text("Deleted suite 'alices_suite'")
    expect(page.locator("a:has-text('alices_suite')")).to_have_count(0)
