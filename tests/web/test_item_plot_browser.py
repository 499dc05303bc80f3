"""A run's pages in a real headless Chromium, for a suite whose items list their conditions in different orders (as
number_prep's do), run with two tiny models: each item's page draws its plot (every model, conditions in the
suite's order), a condition keeps its colour from item to item, and the suite's plot of 2 models x 4 conditions is
drawn wide enough to read. Skipped without Debian's chromium (see test_browser.py, whose browser fixture this uses).
``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves the suite's plot (web-suite-plot.png).
"""

from __future__ import annotations

import io
import json
import re

import pytest

from tests.tiny_models import save_example_suites_lm
from tests.web.conftest import serve_in_thread
from tests.web.test_browser import SHOTS, browser, expect  # noqa: F401  (the browser fixture)
from tests.web.test_conditions_browser import CONDITIONS, reordered_suite

ITEM_PATH = "/runs/1/suites/number_order/items"


@pytest.fixture(scope="module")
def site(tmp_path_factory, tiny_lm_dir):
    from linguagym.web import WebConfig, create_app
    from tests.web.conftest import Client

    root = tmp_path_factory.mktemp("item-plot")
    second = save_example_suites_lm(root / "second-lm", vocab_size=600, seed=11)
    app = create_app(WebConfig.build(root / "data", start_worker=False, cache_dir=root / "cache"))
    client = Client(app)
    data = json.dumps(reordered_suite()).encode()
    client.post("/suites/upload", data={"suite_file": (io.BytesIO(data), "number_order.json")},
                content_type="multipart/form-data")
    started = client.post("/runs", data={"suite": ["1"], "other_models": f"{tiny_lm_dir}\n{second}", "device": "cpu",
                                         "batch_size": "8", "policy": "all"})
    assert started.status_code == 302, started.text
    assert app.extensions["worker"].run_next()
    assert client.get("/api/runs/1").json["status"] == "done"
    with serve_in_thread(app) as url:
        yield url
    app.extensions["worker"].stop()


@pytest.fixture
def page(browser, site):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


def _series(svg: str) -> list[str]:
    return re.findall(r'<g class="series" data-series="([^"]+)">', svg)


def test_each_item_draws_its_plot_and_keeps_each_conditions_colour(page):
    colours: dict[str, set[str]] = {name: set() for name in CONDITIONS}
    drawn = []
    for item in (1, 2):
        page.goto(f"{ITEM_PATH}/{item}")
        rows = page.locator("table.item-grid tbody tr")
        expect(rows).to_have_count(4)
        order = [rows.nth(k).get_attribute("data-condition") for k in range(4)]
        assert order == (list(CONDITIONS) if item == 1 else list(reversed(CONDITIONS)))  # as the item lists them
        for k, name in enumerate(order):
            colours[name].add(rows.nth(k).locator("td.cond").evaluate("cell => getComputedStyle(cell).color"))
        plot = page.locator("#item-plot img")
        plot.scroll_into_view_if_needed()
        expect(plot).to_have_js_property("complete", True)
        natural, shown = plot.evaluate("img => [img.naturalWidth, img.getBoundingClientRect().width]")
        assert natural >= 600 and shown >= 600, (natural, shown)  # 8 lines: the wide layout, shown at full size
        answer = page.request.get(f"{ITEM_PATH}/{item}/regions.svg")
        assert answer.ok and answer.headers["content-type"].startswith("image/svg+xml")
        drawn.append(_series(answer.text()))
    assert all(len(found) == 1 for found in colours.values()), colours  # one colour per condition, item to item
    assert len(set().union(*colours.values())) == 4  # and four different ones
    models = sorted({name.split(" · ")[0] for name in drawn[0]})
    assert len(models) == 2
    expected = [f"{model} · {name}" for model in [n.split(" · ")[0] for n in drawn[0][::4]] for name in CONDITIONS]
    assert drawn[0] == drawn[1] == expected  # the suite's order in both items: a condition is drawn alike


def test_the_suites_plot_of_two_models_and_four_conditions_is_readable(page):
    page.goto("/suites/1")
    plot = page.locator("#suite-results figure.region-plot img")
    plot.scroll_into_view_if_needed()
    expect(plot).to_have_js_property("complete", True)
    natural, shown = plot.evaluate("img => [img.naturalWidth, img.getBoundingClientRect().width]")
    assert natural >= 600 and shown >= 600, (natural, shown)
    if SHOTS:
        page.locator("#suite-results").screenshot(path=f"{SHOTS}/web-suite-plot.png")


def test_an_items_plot_for_an_unknown_item_is_a_404(page):
    assert page.request.get(f"{ITEM_PATH}/99/regions.svg").status == 404
