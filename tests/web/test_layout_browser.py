"""Every main page at 800 px (a narrow window) and 390 px (a phone) in a real headless Chromium: the page itself never
scrolls sideways (wide tables scroll inside their own box), the navigation wraps, and each page's main controls
are on screen. Skipped without Debian's chromium (see test_browser.py, whose browser fixture this uses).
``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves web-narrow-results.png and web-phone-suites.png."""

from __future__ import annotations

import io
from urllib.parse import quote

import pytest

from linguagym.suites import example_suite_paths
from tests.tiny_models import save_example_suites_lm
from tests.web.conftest import serve_in_thread
from tests.web.test_browser import _shot, browser  # noqa: F401  (the browser fixture)

WIDTHS = {"narrow": (800, 900), "phone": (390, 844)}
LONG_NAME = "baseline with a long descriptive name for the layout check"


@pytest.fixture(scope="module")
def site(tmp_path_factory, tiny_lm_dir):
    """A server holding the example suites and one finished run of two tiny models (one with a long path), so
    that the results, leaderboard and model tables are as wide as real ones get."""

    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    root = tmp_path_factory.mktemp("layout")
    deep = save_example_suites_lm(root / "checkpoints" / "a-rather-long-experiment-name" / "step-001000",
                                  vocab_size=600, seed=5)
    app = create_app(WebConfig.build(root / "data", start_worker=False, cache_dir=root / "cache"))
    client = Client(app)
    for path in example_suite_paths():
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(path.read_bytes()), path.name)},
                    content_type="multipart/form-data")
    started = client.post("/runs", data={"suite": ["1", "2", "3"], "other_models": f"{tiny_lm_dir}\n{deep}",
                                         "device": "cpu", "batch_size": "8", "policy": "all", "name": LONG_NAME})
    assert started.status_code == 302, started.text
    assert app.extensions["worker"].run_next()
    assert client.get("/api/runs/1").json["status"] == "done"
    with serve_in_thread(app) as url:
        yield url, str(deep)
    app.extensions["worker"].stop()


def _pages(model: str) -> dict[str, tuple[str, str]]:
    """name -> (path, a control that must be on screen)."""
    return {
        "suites": ("/suites", "button:has-text('Upload')"),
        "suite": ("/suites/1", "#suite-results a.run-title"),
        "editor": ("/suites/1/edit", "#save"),
        "new suite": ("/suites/new", "#add-prediction"),
        "compare": ("/compare?run=1", "#comparison"),
        "runs": ("/runs", "button:has-text('Start run')"),
        "results": ("/runs/1", "#accuracy"),
        "items": ("/runs/1/items?suite=agreement_across_pp", "table.items-table"),
        "item": ("/runs/1/suites/agreement_across_pp/items/1", "#item-plot img"),
        "leaderboard": ("/leaderboard", "#leaderboard"),
        "model": (f"/model?name={quote(model, safe='')}", "#model-results a.run-title"),
        "capabilities": ("/capabilities", "#upload button[type=submit]"),
    }


@pytest.mark.parametrize("width", list(WIDTHS))
def test_every_main_page_fits_the_window(browser, site, width):  # noqa: F811
    base, model = site
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h}, base_url=base)
    page = context.new_page()
    page.set_default_timeout(20_000)
    too_wide = {}
    try:
        for name, (path, control) in _pages(model).items():
            response = page.goto(path)
            assert response.status == 200, f"{name}: {response.status}"
            overflow = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            if overflow[0] > overflow[1]:
                too_wide[name] = overflow
            target = page.locator(control).first
            target.scroll_into_view_if_needed()
            box = target.bounding_box()
            assert target.is_visible() and box is not None, f"{name}: {control} is not shown at {w} px"
            assert box["x"] >= 0 and box["x"] < w, f"{name}: {control} starts at x={box['x']}, off a {w} px screen"
            nav = page.locator("header.top nav a").last  # the navigation wraps rather than running off screen
            nav_box = nav.bounding_box()
            assert nav_box["x"] + nav_box["width"] <= w, f"{name}: the navigation runs off a {w} px screen"
            if width == "narrow" and name == "results":
                page.evaluate("() => window.scrollTo(0, 0)")
                _shot(page, "narrow-results")
            if width == "phone" and name == "suites":
                page.evaluate("() => window.scrollTo(0, 0)")
                _shot(page, "phone-suites")
        assert not too_wide, f"pages wider than the {w} px window ([scrollWidth, innerWidth]): {too_wide}"
    finally:
        context.close()


def test_a_wide_table_scrolls_in_its_own_box_on_a_phone(browser, site):  # noqa: F811
    """The run's accuracy table (three suites, two models with long names) is wider than a phone: it scrolls
    inside itself, and its last column can be scrolled to."""
    base, _ = site
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=base)
    page = context.new_page()
    try:
        page.goto("/runs/1")
        sizes = page.eval_on_selector("#accuracy", "t => [t.scrollWidth, t.clientWidth]")
        assert sizes[0] > sizes[1], "the accuracy table fits a phone: this test no longer tests scrolling"
        page.eval_on_selector("#accuracy", "t => { t.scrollLeft = t.scrollWidth; }")
        assert page.eval_on_selector("#accuracy", "t => t.scrollLeft") > 0
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()



def test_the_suites_list_has_compact_rows_in_a_laptop_window(browser, site):  # noqa: F811
    """Each suite is at most two lines high at 1280 px (its links and date side by side, not four lines of them), so
    that the 34 SyntaxGym suites take 1,302 px at 1280 px wide, not 2,966 (issue 41: 39 suites made a
    3,100 px page)."""
    base, _ = site
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=base)
    page = context.new_page()
    try:
        page.goto("/suites")
        rows = page.locator("table.suites-list tbody tr")
        assert rows.count() == 3
        box = page.locator("section.grow")  # the list fits beside the upload card: nothing to scroll to
        assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), box.evaluate("b => [b.scrollWidth, b.clientWidth]")
        for k in range(3):
            row = rows.nth(k)
            line = row.locator("td").first.evaluate("cell => parseFloat(getComputedStyle(cell).lineHeight)")
            assert row.bounding_box()["height"] < 3 * line, row.inner_text()  # two lines and the padding
            actions = row.locator("td.actions a")
            assert len({round(actions.nth(i).bounding_box()["y"]) for i in range(actions.count())}) == 1
    finally:
        context.close()
