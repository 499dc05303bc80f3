"""The web application in a real headless Chromium (Debian ``chromium``, driven by Playwright): write a suite in
the grid editor, save it, run it with a tiny model, see the accuracy and the plot; upload an invalid suite and
see its errors; a ``<script>`` in a suite is shown as text.

Set ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` to also save screenshots of the main pages (docs/images/web-*.png).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import minimal_suite
from tests.web.conftest import serve_in_thread

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-quic", "--disable-dev-shm-usage"]
SHOTS = os.environ.get("LINGUAGYM_WEB_SCREENSHOTS")


@pytest.fixture(scope="module")
def browser():
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium); browser tests need it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package drives Chromium")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def server(tmp_path):
    """The application on 127.0.0.1 and a free port, with its run worker, stopped at the end of the test."""

    from linguagym.web import WebConfig, create_app

    config = WebConfig.build(tmp_path / "data", start_worker=True, cache_dir=tmp_path / "cache")
    app = create_app(config)
    with serve_in_thread(app) as url:
        yield url
    app.extensions["worker"].stop()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs
    yield page
    context.close()


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def _shot(page, name: str, *, full: bool = False) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"web-{name}.png"), full_page=full)


def untick_models(page) -> None:
    """The run form ticks the default model (#41): a test that runs only its tiny model unticks it."""
    for box in page.locator('input[name="model"]:checked').all():
        box.uncheck()


def test_write_a_suite_run_it_and_see_results(page, tiny_lm_dir):
    page.goto("/suites/new")
    page.fill("#suite-name", "agreement_demo")
    page.fill("#suite-author", "A. Researcher")
    rows = {"match": ("The dog near the cars", "runs", "fast."),
            "mismatch": ("The dog near the cars", "run", "fast.")}
    for c, contents in enumerate(rows.values()):
        for r, text in enumerate(contents):
            page.fill(f'input.cell[data-i="0"][data-c="{c}"][data-r="{r}"]', text)
    page.fill('input.region-name[data-r="2"]', "end")
    page.click("#add-item")  # a copy of item 1, changed where it differs
    page.fill('input.cell[data-i="1"][data-c="0"][data-r="0"]', "The key to the cabinets")
    page.fill('input.cell[data-i="1"][data-c="0"][data-r="1"]', "is")
    page.fill('input.cell[data-i="1"][data-c="1"][data-r="0"]', "The key to the cabinets")
    page.fill('input.cell[data-i="1"][data-c="1"][data-r="1"]', "are")
    formula = page.locator('input.formula[data-p="0"]')
    formula.fill("(2;%mismatch%) > > (2;%match%)")  # checked as you type: the error points at the character
    status = page.locator('.formula-status[data-p="0"]')
    status.locator("mark").wait_for()
    assert "unexpected" in status.inner_text() and status.locator("mark").inner_text() == ">"
    formula.fill("(2;%mismatch%) > (2;%match%)")
    expect(status).to_contain_text("✓ (2;%mismatch%) > (2;%match%)")
    _shot(page, "editor")
    page.click("#save")
    page.wait_for_url("**/suites/1")
    table = page.locator("table.suite-table")
    assert "The key to the cabinets" in table.inner_text() and "end" in table.inner_text()
    assert "Saved 'agreement_demo' as version 1" in page.inner_text("main")
    _shot(page, "suite")

    page.get_by_role("link", name="Run", exact=True).click()
    page.wait_for_url("**/runs?suite=1")
    assert page.locator('input[name="suite"][value="1"]').is_checked()
    untick_models(page)
    page.fill('textarea[name="other_models"]', str(tiny_lm_dir))
    page.select_option('select[name="device"]', "cpu")
    page.click("button:has-text('Start run')")
    page.wait_for_url("**/runs/1")
    page.locator("#accuracy").wait_for(timeout=90_000)  # the page reloads itself when the run ends
    assert page.inner_text("#run-status") == "done"
    assert "agreement_demo" in page.inner_text("#accuracy")
    plot = page.locator("figure.region-plot img").first
    plot.wait_for()
    expect(plot).to_have_js_property("complete", True)
    assert plot.evaluate("img => img.naturalWidth") > 100  # the SVG plot loaded and drew
    _shot(page, "results", full=True)
    page.click("#accuracy a:has-text('items')")
    assert page.locator("table.items-table td.num").count() == 2
    _shot(page, "items")


def test_upload_an_invalid_suite_and_see_its_errors(page, tmp_path):
    bad = minimal_suite()
    bad["items"][1]["conditions"][0]["regions"][2]["region_number"] = 7
    bad["predictions"][0]["formula"] = "(2;%mismatch%) > (2;%match%) > 1"
    path = tmp_path / "broken_suite.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(path))
    page.click("button:has-text('Upload')")
    problems = page.locator("#upload-problems")
    problems.wait_for()
    text = problems.inner_text()
    assert "broken_suite.json: 3 problems" in text
    assert "items[1].conditions[0].regions[2].region_number" in text
    assert "predictions[0].formula" in text and "chained comparison" in text
    _shot(page, "upload-errors")


def test_a_script_in_a_suite_is_shown_as_text(page, tmp_path):
    evil = "<script>alert('pwned')</script>"
    data = minimal_suite(meta={"name": f"evil {evil}", "metric": "sum"})
    data["items"][0]["conditions"][0]["regions"][0]["content"] = f"<img src=x onerror=alert(1)>{evil}"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(path))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/1")
    assert f"evil {evil}" in page.inner_text("h1")
    assert evil in page.inner_text("table.suite-table")
    page.goto("/suites/1/edit")
    assert page.input_value("#suite-name") == f"evil {evil}"
    page.goto("/suites")
    assert page.dialogs == []
    if SHOTS:  # the list page with a few suites, for the docs
        from linguagym.suites import example_suite_paths

        for example in example_suite_paths():
            page.set_input_files('input[name="suite_file"]', str(example))
            page.click("button:has-text('Upload')")
            page.goto("/suites")
        _shot(page, "suites")
