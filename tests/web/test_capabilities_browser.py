"""Capability tests in a real headless Chromium (Debian ``chromium``, driven by Playwright): upload a test file, see
it (a ``<script>`` in a test is text), test it against VADER, see the failure table and the chart; an invalid
upload lists its problems.

With ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` a second test generates tests from the real Rotten Tomatoes data (assets
taken from the user cache), tests them against VADER and TextBlob, and saves screenshots of the capability pages
(docs/images/web-capabilities-*.png).
"""

from __future__ import annotations

import json
import threading

import pytest

from tests.capabilities.lct_fakes import document
from tests.web.test_browser import SHOTS, _shot, browser, expect, page, server  # noqa: F401  (fixtures)


def test_upload_a_test_file_run_it_against_vader_and_see_the_failures(page, tmp_path):  # noqa: F811
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({**document(), "tests": [{"id": "x"}]}), encoding="utf-8")
    page.goto("/capabilities")
    page.set_input_files('input[name="tests_file"]', str(bad))
    page.click("button:has-text('Upload')")
    problems = page.locator("#upload-problems")
    expect(problems).to_contain_text("broken.json: not a valid capability-test file")
    expect(problems.locator("li").first).to_have_text("tests[0] 'capability' is a required property")
    _shot(page, "capabilities-upload-errors")

    path = tmp_path / "fixture-tests.json"
    path.write_text(json.dumps(document()), encoding="utf-8")
    page.set_input_files('input[name="tests_file"]', str(path))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/capabilities/files/1")
    assert "I love it <script>alert('x')</script>" in page.inner_text("main")  # shown as text, not run
    expect(page.locator("#capability-counts")).to_contain_text("A custom <capability>")
    expect(page.locator("ul.expansions mark").first).to_have_text("new")

    page.click("a:has-text('Test it')")
    page.wait_for_url("**/capabilities/jobs?file=1")
    assert page.locator('input[name="classifier"][value="vader"]').is_checked()
    page.click("button:has-text('Start test')")
    page.wait_for_url("**/capabilities/jobs/1")
    table = page.locator("#failures")
    table.wait_for(timeout=90_000)  # the page reloads itself when the job ends
    assert page.inner_text("#run-status") == "done"
    rows = [r.split("\t")[0] for r in table.locator("tbody tr").all_inner_texts()]
    assert rows == ["LC1", "LC2", "LC3", "LC4", "LC10", "X1", "all"]
    expect(table.locator("thead")).to_contain_text("vader")
    chart = page.locator("figure.lct-chart img").first
    expect(chart).to_have_js_property("complete", True)
    assert chart.evaluate("img => img.naturalWidth") > 100  # the SVG chart loaded and drew
    assert page.locator("#examples").count() == 1
    assert page.dialogs == []


@pytest.fixture
def real_assets(tmp_path):
    """A cache directory that sees the user cache's data assets, models and grammars (for the screenshots)."""
    from linguagym.scoring.cache import resolve_cache_dir

    user = resolve_cache_dir()
    needed = [user / name for name in ("data", "models", "capabilities")]
    if not SHOTS or not all(p.is_dir() for p in needed):
        pytest.skip("screenshots only (LINGUAGYM_WEB_SCREENSHOTS), with the assets in the user cache")
    cache = tmp_path / "cache"
    cache.mkdir()
    for source in needed:
        (cache / source.name).symlink_to(source)
    return cache


def test_screenshots_of_a_real_generation_and_test(browser, tmp_path, real_assets):  # noqa: F811
    from werkzeug.serving import make_server

    from linguagym.web import WebConfig, create_app

    app = create_app(WebConfig.build(tmp_path / "data", start_worker=True, cache_dir=real_assets))
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    context = browser.new_context(viewport={"width": 1280, "height": 820},
                                  base_url=f"http://127.0.0.1:{http.server_port}")
    tab = context.new_page()
    tab.set_default_timeout(20_000)
    try:
        tab.goto("/capabilities/jobs")
        tab.fill('input[name="name"]', "rotten-tomatoes LC2 LC4 LC5")
        tab.check('input[name="expand"]')
        tab.click("button:has-text('Generate')")
        tab.wait_for_url("**/capabilities/jobs/1")
        expect(tab.locator("#run-label")).to_contain_text("analysing", timeout=120_000)
        tab.wait_for_function("() => !document.getElementById('run-count').textContent.startsWith('0 /')",
                               timeout=120_000)
        _shot(tab, "capabilities-progress")
        tab.locator("#generated").wait_for(timeout=600_000)
        tab.click("#generated a:has-text('View')")
        tab.wait_for_url("**/capabilities/files/1")
        _shot(tab, "capabilities-file")
        tab.click("a:has-text('Test it')")
        tab.check('input[name="classifier"][value="textblob"]')
        tab.click("button:has-text('Start test')")
        tab.locator("#failures").wait_for(timeout=120_000)
        for image in tab.locator("figure.lct-chart img").all():
            expect(image).to_have_js_property("complete", True)
        _shot(tab, "capabilities-results", full=True)
        tab.goto("/capabilities/jobs?file=1")
        _shot(tab, "capabilities-jobs")
        fixture = tmp_path / "hand-made.json"
        fixture.write_text(json.dumps(document()), encoding="utf-8")
        tab.goto("/capabilities")
        tab.set_input_files('input[name="tests_file"]', str(fixture))
        tab.fill('#upload input[name="name"]', "hand-made examples")
        tab.click("button:has-text('Upload')")
        tab.goto("/capabilities")
        _shot(tab, "capabilities-list")
    finally:
        context.close()
        http.shutdown()
        app.extensions["worker"].stop()
