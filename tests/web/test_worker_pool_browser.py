"""Two jobs at once, in headless Chromium: a server started with two workers, two runs queued from the run form,
and the runs page shows both running at the same time, then both done. The runs are held inside their scorers
(tests.web.test_worker_pool.Gate) until the page has been seen, so they overlap for certain."""

from __future__ import annotations

import pytest

from linguagym.suites import example_suite_paths
from tests.web.conftest import serve_in_thread
from tests.web.test_browser import _shot, browser, expect, untick_models  # noqa: F401  (the Chromium fixture)
from tests.web.test_worker_pool import THREADS_ENV, Gate, gated_scorers


@pytest.fixture
def pool_server(tmp_path, monkeypatch):
    """The application with a pool of two workers whose runs wait at a gate, on 127.0.0.1 and a free port."""

    from linguagym.web import WebConfig, create_app

    monkeypatch.delenv(THREADS_ENV, raising=False)
    gate = Gate()
    config = WebConfig.build(tmp_path / "data", start_worker=True, cache_dir=tmp_path / "cache", workers=2)
    app = create_app(config, scorer_factory=gated_scorers(gate))
    with serve_in_thread(app) as url:
        yield url, gate
        gate.release()
    app.extensions["worker"].stop()


def test_two_runs_queued_from_the_browser_run_at_once(browser, pool_server, tiny_lm_dir):  # noqa: F811
    url, gate = pool_server
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=url)
    page = context.new_page()
    page.set_default_timeout(20_000)
    for number, path in enumerate(example_suite_paths()[:2], start=1):
        page.goto("/suites")
        page.set_input_files('input[name="suite_file"]', str(path))
        page.click("button:has-text('Upload')")
        page.wait_for_url(f"**/suites/{number}")
    for number in (1, 2):
        page.goto(f"/runs?suite={number}")
        page.fill('input[name="name"]', f"at once {number}")
        untick_models(page)
        page.fill('textarea[name="other_models"]', str(tiny_lm_dir))
        page.select_option('select[name="device"]', "cpu")
        page.click("button:has-text('Start run')")
        page.wait_for_url(f"**/runs/{number}")
    assert gate.wait_inside(2), "the two runs did not both reach their scorers"

    page.goto("/runs")
    running = page.locator("table.list span.status.running")
    expect(running).to_have_count(2)  # both at once: neither waits for the other
    expect(page.locator("#new-run")).to_contain_text("Runs go 2 at a time in the background")
    _shot(page, "runs-at-once")
    gate.release()
    page.goto("/runs/2")
    expect(page.locator("#run-status")).to_have_text("done", timeout=90_000)  # the page reloads when it ends
    page.goto("/runs")
    expect(page.locator("table.list span.status.done")).to_have_count(2)
    context.close()
