"""#41 in a real headless Chromium: on an accounts server a signed-out author's valid formula is marked valid and the
editor says at the top that saving needs sign-in; 39 suites make a compact list, filtered by circuit from its
select; a deleted suite's page says it was deleted."""

from __future__ import annotations

import pytest

from linguagym.suites.load import parse_suite_data
from tests.conftest import minimal_suite
from tests.web.conftest import serve_in_thread
from tests.web.test_browser import browser, expect  # noqa: F401  (browser: the module's Chromium)

CIRCUIT_NAMES = ["number_prep", "npz_obj", "center_embed", "reflexive_src", "fgd_object", "subordination"]


@pytest.fixture
def lab(tmp_path):
    """A lab server with one admin, alice, and 39 suites (six of them named as SyntaxGym 2020's)."""
    from linguagym.web import WebConfig, create_app
    from linguagym.web.auth.accounts import create_user
    from linguagym.web.store import save_suite_version

    app = create_app(WebConfig.build(tmp_path / "data", start_worker=False, cache_dir=tmp_path / "cache"))
    with app.extensions["sessions"].begin() as session:
        create_user(session, "alice", "alice-password", admin=True)
        names = CIRCUIT_NAMES + [f"lab_suite_{n:02d}" for n in range(39 - len(CIRCUIT_NAMES))]
        for name in names:
            data = minimal_suite(meta={"name": name, "metric": "sum", "author": "A. Researcher"})
            save_suite_version(session, parse_suite_data(data, source=name).suite)
    with serve_in_thread(app) as url:
        yield url
    app.extensions["sessions"].kw["bind"].dispose()


@pytest.fixture
def page(browser, lab):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=lab)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


def test_a_signed_out_author_sees_valid_formulas_as_valid_and_the_sign_in_note(page):
    page.goto("/suites/new")
    expect(page.locator("#signin-needed")).to_contain_text("Saving needs sign-in")
    assert page.locator("#signin-needed").bounding_box()["y"] < 300  # at the top, not below the grid
    formula = page.locator("input.formula").first
    formula.fill("(2;%mismatch%) > (2;%match%)")
    status = page.locator(".formula-status").first
    expect(status).to_have_class("formula-status ok")
    expect(status).to_contain_text("(2;%mismatch%) > (2;%match%)")
    formula.fill("(2;%mismatch%) >")
    expect(status).to_have_class("formula-status bad")  # a wrong one is still wrong
    page.click("#signin-needed a")
    page.wait_for_url("**/login?next=/suites/new")


def test_thirty_nine_suites_make_a_compact_list_filtered_by_circuit(page):
    page.goto("/suites")
    expect(page.locator("tr[data-suite]")).to_have_count(39)
    rows = page.locator("table.suites-list tbody tr")
    heights = {round(rows.nth(n).bounding_box()["height"]) for n in range(0, 39, 6)}
    assert max(heights) <= 40, heights  # one line a suite
    table = page.locator("table.suites-list").bounding_box()
    assert table["height"] < 39 * 40 + 60
    page.select_option("#filter-circuit", "Agreement")
    page.click("#suite-filters button[type=submit]")
    expect(page.locator("tr[data-suite]")).to_have_count(1)
    expect(page.locator("tr[data-suite]")).to_have_attribute("data-suite", "number_prep")
    expect(page.locator("#suite-count")).to_have_text("1 suite")
    page.select_option("#filter-circuit", "")
    page.select_option("#sort", "name")
    page.select_option("#order", "asc")
    page.click("#suite-filters button[type=submit]")
    expect(page.locator("tr[data-suite]").first).to_have_attribute("data-suite", "center_embed")


def test_a_deleted_suite_page_says_it_was_deleted(page):
    page.goto("/suites")
    page.click("#sign-in")
    page.fill('input[name="username"]', "alice")
    page.fill('input[name="password"]', "alice-password")
    page.click("button:has-text('Sign in')")
    page.goto("/suites/39")
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Delete suite')")
    page.wait_for_url("**/suites")
    response = page.goto("/suites/39")
    assert response.status == 410
    expect(page.locator("h1")).to_contain_text("suite 39 (lab_suite_32) was deleted on")
