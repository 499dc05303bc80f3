"""An item's drill-down in a real headless Chromium: run a suite with two tiny models, filter the failing items,
click through to one and see its surprisals, then its tokens. Skipped without Debian's chromium (see
test_browser.py, whose browser, server and page fixtures this uses). ``LINGUAGYM_WEB_SCREENSHOTS=DIR`` also saves
the item page (docs/images/web-item.png)."""

from __future__ import annotations

import re

import pytest

from linguagym.suites import example_suite_paths
from tests.tiny_models import save_example_suites_lm
from tests.web.test_browser import _shot, browser, expect, page, server, untick_models  # noqa: F401  (the browser fixtures)


@pytest.fixture(scope="module")
def second_lm(tmp_path_factory):
    return save_example_suites_lm(tmp_path_factory.mktemp("second-lm"), vocab_size=600, seed=11)


def test_filter_failing_items_and_open_one(page, tiny_lm_dir, second_lm):  # noqa: F811
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(next(p for p in example_suite_paths()
                                                               if p.stem == "npz_comma")))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/1")
    page.goto("/runs?suite=1")
    untick_models(page)
    page.fill('textarea[name="other_models"]', f"{tiny_lm_dir}\n{second_lm}")
    page.select_option('select[name="device"]', "cpu")
    page.click("button:has-text('Start run')")
    page.wait_for_url("**/runs/1")
    page.locator("#accuracy").wait_for(timeout=90_000)  # the page reloads itself when the run ends

    page.click("#accuracy a:has-text('items')")
    all_rows = page.locator("table.items-table tbody tr").count()
    page.click('#item-filters a[data-filter="failing"]')
    page.wait_for_url("**show=failing")
    rows = page.locator("table.items-table tbody tr")
    failing = rows.count()
    assert 0 < failing < all_rows  # the random models pass some items
    expect(page.locator('#item-filters a[data-filter="failing"]')).to_contain_text(f"({failing})")
    assert all(rows.nth(i).locator("td.no").count() > 0 for i in range(failing))  # each fails for some model
    _shot(page, "items-failing")

    first = rows.first.get_attribute("data-item")
    rows.first.locator("a.item-link").click()
    page.wait_for_url(f"**/suites/npz_comma/items/{first}?show=failing")
    assert page.inner_text("h1") == f"npz_comma · item {first}"
    values = page.locator("table.item-grid td.region .value b")
    assert values.count() == 4 * 7 * 2  # conditions x regions x models
    assert all(re.fullmatch(r"-?\d+\.\d\d|–", values.nth(i).inner_text()) for i in range(values.count()))
    assert page.locator("table.item-grid td.named").count() == 4  # region 6 of each condition
    expect(page.locator("#prediction-0 tbody tr")).to_have_count(2)
    page.click("#toggle-tokens")
    page.wait_for_url("**tokens=1")
    assert page.locator("table.item-grid .token").count() > 4 * 7
    _shot(page, "item", full=True)
